"""Operator breakdowns of the TTI/TTV pipelines on a GPU roofline, baseline vs Flash.

Every operator of every stage is one roofline kernel (``max(flops / peak, bytes / bw)`` plus
the launch overhead), except attention, which runs as the kernels of its implementation
(:func:`archsim.hw.models.attention.attention_kernels`). A stage's time is its graph's time
times its repeat count; the breakdown groups the time by the paper's operator classes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from ....compilers.graph.ir import Operator, WorkloadGraph
from ....compilers.graph.tti import TTIPipeline
from ....errors import ConfigError
from ....hw.models.attention import FLASH_BLOCK_ROWS, attention_kernels
from ....hw.models.gpu import GPURoofline

__all__ = ["CATEGORIES", "category", "operator_time_s", "Breakdown", "pipeline_breakdown",
           "sequence_lengths", "max_step_ratio"]

#: The operator classes of the breakdown, in plotting order.
CATEGORIES: tuple[str, ...] = ("conv", "linear", "attention", "norm", "elementwise", "other")
_KIND_CATEGORY = {"conv2d": "conv", "matmul": "linear", "attention": "attention",
                  "norm": "norm", "activation": "elementwise", "elementwise": "elementwise"}


def category(op: Operator) -> str:
    """The breakdown class of ``op``'s kind (``other``: data movement, embedding, softmax)."""
    return _KIND_CATEGORY.get(op.kind, "other")


def operator_time_s(op: Operator, gpu: GPURoofline, *, impl: str,
                    block_rows: int = FLASH_BLOCK_ROWS, pad_tiles: bool = False) -> float:
    """Roofline time of ``op``: one kernel, or the attention implementation's kernels.

    A data-movement operator (reshape, concat, broadcast) is a copy: its bytes at the
    memory roofline, plus a launch. An embedding lookup reads only the rows it gathers
    (as many bytes as it writes), not the whole table the operator lists as an input.
    """
    if op.kind == "attention":
        return math.fsum(gpu.time_s(k.flops, k.bytes_accessed)[0]
                         for k in attention_kernels(op, impl=impl, block_rows=block_rows,
                                                    pad_tiles=pad_tiles))
    if op.kind == "embedding":
        return gpu.time_s(op.flops, 2.0 * op.output_bytes)[0]
    return gpu.time_s(op.flops, op.bytes_accessed)[0]


@dataclass
class Breakdown:
    """Seconds per operator class and per attention type of one pipeline and implementation."""

    model: str
    family: str
    impl: str
    by_category_s: dict[str, float] = field(default_factory=dict)
    by_attention_s: dict[str, float] = field(default_factory=dict)
    by_stage_s: dict[str, float] = field(default_factory=dict)
    by_stage_category_s: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def total_s(self) -> float:
        return math.fsum(self.by_category_s.values())

    def share(self, cat: str) -> float:
        """``cat``'s fraction of the total time."""
        if cat not in CATEGORIES:
            raise ConfigError(f"unknown category '{cat}'", field="category",
                              allowed=list(CATEGORIES))
        return self.by_category_s.get(cat, 0.0) / self.total_s

    def attention_share(self, kind: str) -> float:
        """Attention type ``kind``'s fraction of the total attention time (0 without any)."""
        total = math.fsum(self.by_attention_s.values())
        return self.by_attention_s.get(kind, 0.0) / total if total else 0.0


def _graph_times(g: WorkloadGraph, gpu: GPURoofline, impl: str, block_rows: int,
                 pad_tiles: bool) -> tuple[dict[str, float], dict[str, float]]:
    cats: dict[str, float] = dict.fromkeys(CATEGORIES, 0.0)
    attn: dict[str, float] = {}
    for op in g:
        t = operator_time_s(op, gpu, impl=impl, block_rows=block_rows, pad_tiles=pad_tiles)
        cats[category(op)] += t
        if op.kind == "attention":
            kind = str(op.attrs.get("attention", "self"))
            attn[kind] = attn.get(kind, 0.0) + t
    return cats, attn


def pipeline_breakdown(p: TTIPipeline, gpu: GPURoofline, *, impl: str,
                       block_rows: int = FLASH_BLOCK_ROWS, pad_tiles: bool = False
                       ) -> Breakdown:
    """The time of one generation of ``p`` on ``gpu`` under attention ``impl``, by class
    (``pad_tiles``: Flash kernels compute whole tiles, see
    :func:`~archsim.hw.models.attention.attention_kernels`)."""
    out = Breakdown(model=p.name, family=p.family, impl=impl,
                    by_category_s=dict.fromkeys(CATEGORIES, 0.0))
    cache: dict[int, tuple[dict[str, float], dict[str, float]]] = {}
    for s in p.stages:
        key = id(s.graph)
        if key not in cache:
            cache[key] = _graph_times(s.graph, gpu, impl, block_rows, pad_tiles)
        cats, attn = cache[key]
        for c, t in cats.items():
            out.by_category_s[c] += t * s.repeats
        for a, t in attn.items():
            out.by_attention_s[a] = out.by_attention_s.get(a, 0.0) + t * s.repeats
        out.by_stage_s[s.name] = out.by_stage_s.get(s.name, 0.0) + \
            math.fsum(cats.values()) * s.repeats
        per = out.by_stage_category_s.setdefault(s.name, dict.fromkeys(CATEGORIES, 0.0))
        for c, t in cats.items():
            per[c] += t * s.repeats
    return out


def sequence_lengths(g: WorkloadGraph, *, kinds: Iterable[str] = ("spatial",)) -> list[int]:
    """The query length of each attention of ``g`` whose type is in ``kinds``, in order."""
    want = set(kinds)
    return [int(op.attrs["q_len"]) for op in g
            if op.kind == "attention" and op.attrs.get("attention") in want]


def max_step_ratio(lengths: list[int]) -> float:
    """The largest ratio between consecutive lengths (either direction); 1 for fewer
    than two."""
    if len(lengths) < 2:
        return 1.0
    return max(max(a, b) / min(a, b) for a, b in zip(lengths, lengths[1:], strict=False))
