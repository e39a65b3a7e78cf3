"""A GPU priced from measured per-layer kernel tables of a transformer (Vidur's layout).

Public LLM-inference profiles (Vidur, Agrawal et al., MLSys 2024) measure each kernel of a
transformer layer on a real GPU for a range of token counts and tensor-parallel degrees:
one CSV row per ``(num_tokens, num_tensor_parallel_workers)``, one
``time_stats.<kernel>.median`` column (milliseconds) per kernel, and the model's shape
(``n_head``, ``n_kv_head``, ``n_embd``, ``n_expanded_embd``, ``vocab_size``,
``use_gated_mlp``). :class:`KernelProfile` reads such a table for one tensor-parallel
degree; :class:`ProfiledGPU` prices the dense (non-attention) group of a transformer
iteration from it and passes every other operator to a fallback executor (the roofline), so
measured kernel times replace the roofline behind the one hardware-model interface.

A copy of Vidur's A100 80 GB table of Llama-2-7B ships with archsim
(:func:`vidur_a100_llama2_7b`; MIT licence and provenance in ``data/vidur/``).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ...errors import ConfigError
from ...operators import dtype_bytes
from .base import OperatorCost, Work, work_operator
from .gpu import GPURoofline

__all__ = ["LAYER_KERNELS", "KernelProfile", "ProfiledGPU", "vidur_a100_llama2_7b"]

#: The kernels of one transformer layer in the table, in execution order (Vidur's names).
LAYER_KERNELS: tuple[str, ...] = (
    "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
    "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add")
_EMBEDDING = "emb"
_SHAPE_COLUMNS = ("n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size")
_MS = 1e-3


@dataclass(frozen=True)
class KernelProfile:
    """Measured median kernel times of one transformer layer vs the number of tokens.

    Parameters
    ----------
    tokens : numpy.ndarray
        Strictly increasing token counts of the measurements.
    kernel_s : dict of str to numpy.ndarray
        Per kernel (:data:`LAYER_KERNELS` and ``"emb"``), median seconds at each token count.
    heads, kv_heads, hidden, ffn, vocab : int
        The profiled model's shape.
    gated_mlp : bool
        Whether its MLP is gated (SwiGLU).
    tensor_parallel : int
        Tensor-parallel degree of the measurements (each GPU's share).
    source : str
        Where the table came from.
    """

    tokens: np.ndarray
    kernel_s: dict[str, np.ndarray]
    heads: int
    kv_heads: int
    hidden: int
    ffn: int
    vocab: int
    gated_mlp: bool
    tensor_parallel: int
    source: str

    @classmethod
    def from_csv(cls, path: str | Path, *, tensor_parallel: int = 1) -> KernelProfile:
        """Read the rows of ``tensor_parallel`` from a table in Vidur's ``mlp.csv`` layout.

        Repeated measurements of one token count are averaged.

        Raises
        ------
        ConfigError
            The file cannot be read, lacks a column, has a non-numeric or non-positive time
            (naming the line and column), mixes model shapes, or has fewer than two token
            counts at ``tensor_parallel`` (naming the degrees it has).
        """
        if isinstance(tensor_parallel, bool) or not isinstance(tensor_parallel, int) \
                or tensor_parallel < 1:
            raise ConfigError(f"tensor_parallel must be a positive int, not {tensor_parallel!r}",
                              field="tensor_parallel")
        path = Path(path)
        try:
            with path.open(newline="") as f:
                reader = csv.DictReader(f)
                header = list(reader.fieldnames or [])
                rows = list(reader)
        except OSError as exc:
            raise ConfigError(f"cannot read kernel profile: {exc.strerror}",
                              file=str(path)) from None
        time_columns = {k: f"time_stats.{k}.median" for k in (_EMBEDDING, *LAYER_KERNELS)}
        required = [*time_columns.values(), *_SHAPE_COLUMNS, "use_gated_mlp", "num_tokens",
                    "num_tensor_parallel_workers"]
        missing = [c for c in required if c not in header]
        if missing:
            raise ConfigError(f"kernel profile lacks column(s) {', '.join(missing)}",
                              file=str(path), field=missing[0])
        sums: dict[int, np.ndarray] = {}
        counts: dict[int, int] = {}
        shapes: set[tuple[int, int, int, int, int, bool]] = set()
        degrees: set[int] = set()
        kernels = list(time_columns)
        for lineno, row in enumerate(rows, start=2):
            column = "num_tensor_parallel_workers"
            try:
                degree = int(row[column])
                degrees.add(degree)
                if degree != tensor_parallel:
                    continue
                column = "num_tokens"
                tokens = int(row[column])
                values = []
                for k in kernels:
                    column = time_columns[k]
                    values.append(float(row[column]) * _MS)
                column = "n_head"
                h, kv, d, ff, v = (int(row[c]) for c in _SHAPE_COLUMNS)
                shapes.add((h, kv, d, ff, v, row["use_gated_mlp"].strip().lower() == "true"))
            except (TypeError, ValueError):
                raise ConfigError(f"line {lineno}: {column} must be a number, not "
                                  f"{row.get(column)!r}", file=str(path), field=column) from None
            arr = np.array(values)
            if tokens < 1 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
                raise ConfigError(f"line {lineno}: token counts and kernel times must be "
                                  "positive and finite", file=str(path), field="num_tokens")
            sums[tokens] = sums.get(tokens, 0.0) + arr
            counts[tokens] = counts.get(tokens, 0) + 1
        if len(sums) < 2:
            raise ConfigError(f"kernel profile has {len(sums)} token count(s) at tensor-parallel "
                              f"degree {tensor_parallel}; need at least 2",
                              file=str(path), field="num_tensor_parallel_workers",
                              allowed=sorted(degrees))
        if len(shapes) != 1:
            raise ConfigError("kernel profile mixes model shapes", file=str(path),
                              field="n_head")
        (heads, kv_heads, hidden, ffn, vocab, gated), = shapes
        order = sorted(sums)
        table = np.array([sums[t] / counts[t] for t in order])
        return cls(tokens=np.array(order, dtype=float),
                   kernel_s={k: table[:, i] for i, k in enumerate(kernels)},
                   heads=heads, kv_heads=kv_heads, hidden=hidden, ffn=ffn, vocab=vocab,
                   gated_mlp=gated, tensor_parallel=tensor_parallel,
                   source=str(path))

    def kernel_time_s(self, kernel: str, tokens: float) -> float:
        """Median seconds of ``kernel`` at ``tokens`` tokens: linear between measured counts,
        extended beyond the largest along the last two points' slope (kernels at thousands
        of tokens are compute-bound, so time grows linearly), clamped to the smallest count
        below it."""
        try:
            times = self.kernel_s[kernel]
        except KeyError:
            raise ConfigError(f"no kernel {kernel!r} in the profile", field="kernel",
                              allowed=sorted(self.kernel_s)) from None
        t = self.tokens
        if tokens <= t[-1]:
            return float(np.interp(tokens, t, times))
        slope = (times[-1] - times[-2]) / (t[-1] - t[-2])
        return float(times[-1] + slope * (tokens - t[-1]))

    def layer_time_s(self, tokens: float) -> float:
        """Seconds of one layer's non-attention kernels (:data:`LAYER_KERNELS`), back to back."""
        return sum(self.kernel_time_s(k, tokens) for k in LAYER_KERNELS)

    def embedding_time_s(self, tokens: float) -> float:
        """Seconds of the embedding lookup of ``tokens`` tokens."""
        return self.kernel_time_s(_EMBEDDING, tokens)


def vidur_a100_llama2_7b(*, tensor_parallel: int = 1) -> KernelProfile:
    """Vidur's measured Llama-2-7B kernels on an A100 80 GB (tensor-parallel 1, 2, 4 or 8)."""
    table = resources.files("archsim.hw.models") / "data" / "vidur" / "a100_llama-2-7b_mlp.csv"
    with resources.as_file(table) as path:
        return KernelProfile.from_csv(path, tensor_parallel=tensor_parallel)


class ProfiledGPU:
    """A GPU whose transformer dense groups are priced from a measured :class:`KernelProfile`.

    The dense group of an iteration
    (:meth:`~archsim.compilers.graph.transformer.GroupOperators.dense`: ``tokens`` new
    tokens of ``sequences`` sequences) costs ``layers`` times the profile's per-layer
    kernels plus its embedding, all at ``tokens``, plus the LM head over ``sequences``
    positions on the fallback (the profile has no LM head); the kernels run back to back.
    Every other operator (attention, or a group of another model) goes to ``fallback``.
    Energy is the fallback's board power over the latency.

    Parameters
    ----------
    profile : KernelProfile
        The measurements; its tensor-parallel degree is the one this GPU's share is of.
    fallback : GPURoofline
        The executor of everything the profile does not measure.
    hidden, ffn, heads, kv_heads : int
        The served model's shape, checked against the profile's.
    vocab : int
        The served model's vocabulary (the LM head's width).
    gated_mlp : bool
        Whether the served model's MLP is gated.

    Raises
    ------
    ConfigError
        The served model's shape differs from the profiled one (naming the field and both
        values).
    """

    def __init__(self, *, profile: KernelProfile, fallback: GPURoofline, hidden: int, ffn: int,
                 heads: int, kv_heads: int, vocab: int, gated_mlp: bool) -> None:
        if not isinstance(profile, KernelProfile):
            raise TypeError(f"profile must be a KernelProfile, not {type(profile).__name__}")
        if not isinstance(fallback, GPURoofline):
            raise TypeError(f"fallback must be a GPURoofline, not {type(fallback).__name__}")
        for field, ours, theirs in (("hidden", hidden, profile.hidden),
                                    ("ffn", ffn, profile.ffn), ("heads", heads, profile.heads),
                                    ("kv_heads", kv_heads, profile.kv_heads),
                                    ("gated_mlp", gated_mlp, profile.gated_mlp)):
            if ours != theirs:
                raise ConfigError(f"the model's {field} is {ours!r} but the kernel profile "
                                  f"({profile.source}) measured {theirs!r}", field=field)
        self.profile = profile
        self.fallback = fallback
        self.hidden, self.vocab = hidden, vocab
        self._power_w = fallback.spec.tdp_w * fallback.power_fraction

    @property
    def name(self) -> str:
        return f"{self.fallback.spec.name} (measured kernels, tp {self.profile.tensor_parallel})"

    def dense_time_s(self, *, tokens: int, sequences: int, layers: int) -> float:
        """Seconds of one GPU's share of a dense group (see the class)."""
        if tokens <= 0:
            return 0.0
        p = self.profile
        tp = p.tensor_parallel
        head_flops = 2.0 * sequences * self.hidden * self.vocab / tp
        b = dtype_bytes(self.fallback.dtype)
        head_bytes = (self.hidden * self.vocab + sequences * (self.hidden + self.vocab)) * b / tp
        head_s = self.fallback.time_s(head_flops, head_bytes)[0] if sequences else 0.0
        return layers * p.layer_time_s(tokens) + p.embedding_time_s(tokens) + head_s

    def operator_cost(self, work: Work) -> OperatorCost:
        op = work_operator(work)
        if op.name == "dense" and op.kind == "fused" and "tokens" in op.attrs:
            latency_s = self.dense_time_s(tokens=int(op.attrs["tokens"]),
                                          sequences=int(op.attrs["sequences"]),
                                          layers=int(op.attrs["layers"]))
            if not math.isfinite(latency_s):
                raise ConfigError(f"the kernel profile gives {latency_s} s", field="tokens")
            return OperatorCost(latency_s=latency_s, energy_j=latency_s * self._power_w,
                                bound="measured")
        return self.fallback.operator_cost(work)
