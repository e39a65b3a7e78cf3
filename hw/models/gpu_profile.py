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

Vidur's attention tables (one row per prefill chunk or decode batch, its
``time_stats.attn_prefill.median`` / ``time_stats.attn_decode.median``) are read by
:class:`AttentionProfile`, which fits a cost law in the attention group's own terms so
that :class:`ProfiledGPU` can price attention from measurements as well.

Copies of Vidur's A100 80 GB tables ship with archsim: the dense kernels of Llama-2-7B
(:func:`vidur_a100_llama2_7b`) and Llama-2-70B (:func:`vidur_a100_llama2_70b`), and the
attention kernels of Llama-2-70B at tensor-parallel degree 2
(:func:`vidur_a100_llama2_70b_attention`); MIT licence and provenance in ``data/vidur/``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from ...errors import ConfigError
from ...operators import dtype_bytes
from .base import OperatorCost, Work, work_operator
from .gpu import GPURoofline

__all__ = ["LAYER_KERNELS", "AttentionProfile", "KernelProfile", "ProfiledGPU",
           "vidur_a100_llama2_7b", "vidur_a100_llama2_70b", "vidur_a100_llama2_70b_attention"]

#: The kernels of one transformer layer in the table, in execution order (Vidur's names).
LAYER_KERNELS: tuple[str, ...] = (
    "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
    "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add")
_EMBEDDING = "emb"
_SHAPE_COLUMNS = ("n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size")
_MS = 1e-3


def _check_degree(tensor_parallel: object) -> int:
    if isinstance(tensor_parallel, bool) or not isinstance(tensor_parallel, int) \
            or tensor_parallel < 1:
        raise ConfigError(f"tensor_parallel must be a positive int, not {tensor_parallel!r}",
                          field="tensor_parallel")
    return tensor_parallel


def _read_table(path: Path, what: str, required: list[str]) -> list[dict[str, str]]:
    """The rows of a CSV table that has every ``required`` column."""
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            header = list(reader.fieldnames or [])
            rows = list(reader)
    except OSError as exc:
        raise ConfigError(f"cannot read {what}: {exc.strerror}", file=str(path)) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise ConfigError(f"{what} lacks column(s) {', '.join(missing)}", file=str(path),
                          field=missing[0])
    return rows


def _rows_at_degree(rows: list[dict[str, str]], tensor_parallel: int, degrees: set[int],
                    path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line number, row)`` of the rows measured at ``tensor_parallel``; every degree seen
    is added to ``degrees``."""
    column = "num_tensor_parallel_workers"
    for lineno, row in enumerate(rows, start=2):
        try:
            degree = int(row[column])
        except (TypeError, ValueError):
            raise ConfigError(f"line {lineno}: {column} must be a number, not "
                              f"{row.get(column)!r}", file=str(path), field=column) from None
        degrees.add(degree)
        if degree == tensor_parallel:
            yield lineno, row


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
        _check_degree(tensor_parallel)
        path = Path(path)
        time_columns = {k: f"time_stats.{k}.median" for k in (_EMBEDDING, *LAYER_KERNELS)}
        rows = _read_table(path, "kernel profile",
                           [*time_columns.values(), *_SHAPE_COLUMNS, "use_gated_mlp",
                            "num_tokens", "num_tensor_parallel_workers"])
        sums: dict[int, np.ndarray] = {}
        counts: dict[int, int] = {}
        shapes: set[tuple[int, int, int, int, int, bool]] = set()
        degrees: set[int] = set()
        kernels = list(time_columns)
        for lineno, row in _rows_at_degree(rows, tensor_parallel, degrees, path):
            try:
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


#: Phase labels of :class:`AttentionProfile` rows.
_PREFILL, _DECODE = "prefill", "decode"


@dataclass(frozen=True)
class AttentionProfile:
    """Measured attention-kernel times of one layer on one GPU, and the cost law fitted to them.

    Each measurement is one prefill chunk (``chunk`` new tokens over ``kv`` cached ones) or
    one decode batch (``batch`` sequences of one new token over ``kv`` cached ones each).
    They are counted as the attention group counts a batch
    (:meth:`~archsim.compilers.graph.transformer.GroupOperators.attention`): new tokens
    ``n``, context tokens ``c`` (the KV read, new tokens included) and pairs ``sum n_i c_i``
    -- a prefill has ``n = chunk``, ``c = kv + chunk``, pairs ``n c``; a decode batch has
    ``n = batch``, ``c = batch (kv + 1)``, pairs ``c``. The law is

        t = launch_s + s_per_flop * 4 h_q d pairs + s_per_kv_byte * 2 h_kv d c b
            + s_per_token_byte * 2 h_q d n b

    with ``h_q``, ``h_kv`` the query and KV heads on one GPU, ``d`` the head dimension and
    ``b`` bytes per element (2, fp16): a per-layer launch, the score and value FLOPs, the KV
    read, and the query/output traffic. The four coefficients are a non-negative least
    squares fit of the relative error, each phase weighted equally. A fitted law rather than
    a lookup because the serving engine prices a batch that mixes prefill chunks and decode
    sequences as one attention group of aggregate counts, which the table's per-phase grid
    cannot index.

    Parameters
    ----------
    phase : tuple of str
        ``"prefill"`` or ``"decode"`` per measurement.
    tokens, context_tokens, attn_pairs : numpy.ndarray
        The measurements' counts (see above).
    time_s : numpy.ndarray
        Median seconds of each measurement.
    heads, kv_heads, head_dim : int
        The profiled model's query heads, KV heads and head dimension (whole model).
    tensor_parallel : int
        Tensor-parallel degree of the measurements (each GPU runs ``1/tensor_parallel`` of
        the heads).
    source : str
        Where the table came from.
    """

    phase: tuple[str, ...]
    tokens: np.ndarray
    context_tokens: np.ndarray
    attn_pairs: np.ndarray
    time_s: np.ndarray
    heads: int
    kv_heads: int
    head_dim: int
    tensor_parallel: int
    source: str

    @classmethod
    def from_csv(cls, path: str | Path, *, tensor_parallel: int) -> AttentionProfile:
        """Read the rows of ``tensor_parallel`` from a table in Vidur's ``attention.csv`` layout.

        Raises
        ------
        ConfigError
            The file cannot be read, lacks a column, has a non-numeric or non-positive time
            or count (naming the line and column), mixes model shapes, or has no prefill or
            no decode row at ``tensor_parallel`` (naming the degrees it has).
        """
        _check_degree(tensor_parallel)
        path = Path(path)
        rows = _read_table(path, "attention profile",
                           ["n_embd", "n_q_head", "n_kv_head", "num_tensor_parallel_workers",
                            "is_prefill", "batch_size", "prefill_chunk_size", "kv_cache_size",
                            "time_stats.attn_prefill.median", "time_stats.attn_decode.median"])
        phases: list[str] = []
        counts: list[tuple[int, int, int]] = []
        times: list[float] = []
        shapes: set[tuple[int, int, int]] = set()
        degrees: set[int] = set()
        for lineno, row in _rows_at_degree(rows, tensor_parallel, degrees, path):
            try:
                column = "is_prefill"
                flag = row[column].strip().lower()
                if flag not in ("true", "false"):
                    raise ValueError(flag)
                prefill = flag == "true"
                column = "kv_cache_size"
                kv = int(row[column])
                if prefill:
                    column = "prefill_chunk_size"
                    new = int(row[column])
                    n, ctx, pairs = new, kv + new, new * (kv + new)
                else:
                    column = "batch_size"
                    batch = int(row[column])
                    n, ctx, pairs = batch, batch * (kv + 1), batch * (kv + 1)
                column = f"time_stats.attn_{_PREFILL if prefill else _DECODE}.median"
                t = float(row[column]) * _MS
                column = "n_embd"
                shape = (int(row["n_embd"]), int(row["n_q_head"]), int(row["n_kv_head"]))
            except (TypeError, ValueError):
                raise ConfigError(f"line {lineno}: {column} must be a number, not "
                                  f"{row.get(column)!r}", file=str(path), field=column) from None
            if n < 1 or kv < 0 or not math.isfinite(t) or t <= 0:
                raise ConfigError(f"line {lineno}: token counts must be positive and kernel "
                                  "times positive and finite", file=str(path), field=column)
            shapes.add(shape)
            phases.append(_PREFILL if prefill else _DECODE)
            counts.append((n, ctx, pairs))
            times.append(t)
        for wanted in (_PREFILL, _DECODE):
            if wanted not in phases:
                raise ConfigError(f"attention profile has no {wanted} row at tensor-parallel "
                                  f"degree {tensor_parallel}", file=str(path),
                                  field="num_tensor_parallel_workers", allowed=sorted(degrees))
        if len(shapes) != 1:
            raise ConfigError("attention profile mixes model shapes", file=str(path),
                              field="n_embd")
        (hidden, heads, kv_heads), = shapes
        if hidden % heads or heads % tensor_parallel or kv_heads % tensor_parallel:
            raise ConfigError(f"heads {heads} / KV heads {kv_heads} of hidden {hidden} do not "
                              f"split over {tensor_parallel} GPUs", file=str(path),
                              field="n_q_head")
        c = np.array(counts, dtype=float)
        return cls(phase=tuple(phases), tokens=c[:, 0], context_tokens=c[:, 1],
                   attn_pairs=c[:, 2], time_s=np.array(times), heads=heads,
                   kv_heads=kv_heads, head_dim=hidden // heads,
                   tensor_parallel=tensor_parallel, source=str(path))

    def _terms(self, tokens: np.ndarray | float, attn_pairs: np.ndarray | float,
               context_tokens: np.ndarray | float) -> list[np.ndarray | float]:
        tp, d, b = self.tensor_parallel, self.head_dim, 2.0
        q, kv = self.heads / tp, self.kv_heads / tp
        return [4.0 * q * d * attn_pairs, 2.0 * kv * d * b * context_tokens,
                2.0 * q * d * b * tokens]

    @property
    def coefficients(self) -> tuple[float, float, float, float]:
        """``(launch_s, s_per_flop, s_per_kv_byte, s_per_token_byte)`` of the fitted law."""
        cached = self.__dict__.get("_coefficients")
        if cached is None:
            # scipy.optimize only when a profile is fitted: hw.models is on the start-up path
            from scipy.optimize import nnls

            terms = self._terms(self.tokens, self.attn_pairs, self.context_tokens)
            design = np.column_stack([np.ones_like(self.time_s), *terms])
            prefill = self._prefill
            weight = np.where(prefill, 1.0 / math.sqrt(prefill.sum()),
                              1.0 / math.sqrt((~prefill).sum()))
            scaled = design / self.time_s[:, None] * weight[:, None]
            scale = scaled.max(axis=0)
            scale[scale == 0] = 1.0
            solution, _ = nnls(scaled / scale, weight)
            cached = tuple(float(v) for v in solution / scale)
            object.__setattr__(self, "_coefficients", cached)  # frozen: cache the fit once
        return cached

    def layer_time_s(self, *, tokens: float, attn_pairs: float, context_tokens: float) -> float:
        """Seconds of one layer's attention on one GPU by the fitted law (0 with no tokens)."""
        if tokens <= 0:
            return 0.0
        return float(self._law(tokens, attn_pairs, context_tokens))

    def fit_errors(self) -> dict[str, tuple[float, float]]:
        """Per phase, the mean and 90th-percentile relative error of the law on the table."""
        predicted = self._law(self.tokens, self.attn_pairs, self.context_tokens)
        error = np.abs(np.asarray(predicted) / self.time_s - 1.0)
        prefill = self._prefill
        return {name: (float(e.mean()), float(np.quantile(e, 0.9)))
                for name, e in ((_PREFILL, error[prefill]), (_DECODE, error[~prefill]))}

    def _law(self, tokens: np.ndarray | float, attn_pairs: np.ndarray | float,
             context_tokens: np.ndarray | float) -> np.ndarray | float:
        launch_s, *rates = self.coefficients
        terms = self._terms(tokens, attn_pairs, context_tokens)
        return launch_s + sum(r * t for r, t in zip(rates, terms, strict=True))

    @property
    def _prefill(self) -> np.ndarray:
        """Which measurements are prefills."""
        return np.array([p == _PREFILL for p in self.phase])


def _vidur_table(name: str) -> Traversable:
    return resources.files("archsim.hw.models") / "data" / "vidur" / name


def vidur_a100_llama2_7b(*, tensor_parallel: int = 1) -> KernelProfile:
    """Vidur's measured Llama-2-7B kernels on an A100 80 GB (tensor-parallel 1, 2, 4 or 8)."""
    with resources.as_file(_vidur_table("a100_llama-2-7b_mlp.csv")) as path:
        return KernelProfile.from_csv(path, tensor_parallel=tensor_parallel)


def vidur_a100_llama2_70b(*, tensor_parallel: int = 2) -> KernelProfile:
    """Vidur's measured Llama-2-70B dense kernels on an A100 80 GB (tensor-parallel 1, 2, 4, 8)."""
    with resources.as_file(_vidur_table("a100_llama-2-70b_mlp.csv")) as path:
        return KernelProfile.from_csv(path, tensor_parallel=tensor_parallel)


def vidur_a100_llama2_70b_attention() -> AttentionProfile:
    """Vidur's measured Llama-2-70B attention kernels on an A100 80 GB, tensor-parallel 2."""
    with resources.as_file(_vidur_table("a100_llama-2-70b_tp2_attention.csv")) as path:
        return AttentionProfile.from_csv(path, tensor_parallel=2)


class ProfiledGPU:
    """A GPU whose transformer groups are priced from measured kernel tables.

    The dense group of an iteration
    (:meth:`~archsim.compilers.graph.transformer.GroupOperators.dense`: ``tokens`` new
    tokens of ``sequences`` sequences) costs ``layers`` times the profile's per-layer
    kernels plus its embedding, all at ``tokens``, plus the LM head over ``sequences``
    positions on the fallback (the profile has no LM head); the kernels run back to back.
    With an ``attention`` profile, the attention group costs ``layers`` times its fitted
    per-layer law (:class:`AttentionProfile`). Every other operator (attention without an
    attention profile, or a group of another model) goes to ``fallback``. Energy is the
    fallback's board power over the latency.

    Parameters
    ----------
    profile : KernelProfile
        The dense measurements; its tensor-parallel degree is the one this GPU's share is of.
    fallback : GPURoofline
        The executor of everything the profiles do not measure.
    hidden, ffn, heads, kv_heads : int
        The served model's shape, checked against the profiles'.
    vocab : int
        The served model's vocabulary (the LM head's width).
    gated_mlp : bool
        Whether the served model's MLP is gated.
    attention : AttentionProfile, optional
        The attention measurements, of the same model shape and tensor-parallel degree.

    Raises
    ------
    ConfigError
        The served model's shape differs from a profiled one, or the two profiles were
        measured at different tensor-parallel degrees (naming the field and both values).
    """

    def __init__(self, *, profile: KernelProfile, fallback: GPURoofline, hidden: int, ffn: int,
                 heads: int, kv_heads: int, vocab: int, gated_mlp: bool,
                 attention: AttentionProfile | None = None) -> None:
        if not isinstance(profile, KernelProfile):
            raise TypeError(f"profile must be a KernelProfile, not {type(profile).__name__}")
        if not isinstance(fallback, GPURoofline):
            raise TypeError(f"fallback must be a GPURoofline, not {type(fallback).__name__}")
        if attention is not None and not isinstance(attention, AttentionProfile):
            raise TypeError(f"attention must be an AttentionProfile, not "
                            f"{type(attention).__name__}")
        for field, ours, theirs in (("hidden", hidden, profile.hidden),
                                    ("ffn", ffn, profile.ffn), ("heads", heads, profile.heads),
                                    ("kv_heads", kv_heads, profile.kv_heads),
                                    ("gated_mlp", gated_mlp, profile.gated_mlp)):
            if ours != theirs:
                raise ConfigError(f"the model's {field} is {ours!r} but the kernel profile "
                                  f"({profile.source}) measured {theirs!r}", field=field)
        if attention is not None:
            for field, ours, theirs in (
                    ("heads", heads, attention.heads), ("kv_heads", kv_heads, attention.kv_heads),
                    ("head_dim", hidden // heads, attention.head_dim),
                    ("tensor_parallel", profile.tensor_parallel, attention.tensor_parallel)):
                if ours != theirs:
                    raise ConfigError(f"the model's {field} is {ours!r} but the attention "
                                      f"profile ({attention.source}) measured {theirs!r}",
                                      field=field)
        self.profile = profile
        self.attention = attention
        self.fallback = fallback
        self.hidden, self.vocab = hidden, vocab
        self._power_w = fallback.spec.tdp_w * fallback.power_fraction

    @property
    def name(self) -> str:
        what = "measured kernels" if self.attention is None else "measured kernels and attention"
        return f"{self.fallback.spec.name} ({what}, tp {self.profile.tensor_parallel})"

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

    def attention_time_s(self, *, tokens: float, attn_pairs: float, context_tokens: float,
                         layers: int) -> float:
        """Seconds of one GPU's share of an attention group by the attention profile.

        Raises
        ------
        ConfigError
            This GPU has no attention profile.
        """
        if self.attention is None:
            raise ConfigError("this profiled GPU has no attention profile", field="attention")
        return layers * self.attention.layer_time_s(tokens=tokens, attn_pairs=attn_pairs,
                                                    context_tokens=context_tokens)

    def _measured(self, latency_s: float, field: str) -> OperatorCost:
        if not math.isfinite(latency_s):
            raise ConfigError(f"the kernel profile gives {latency_s} s", field=field)
        return OperatorCost(latency_s=latency_s, energy_j=latency_s * self._power_w,
                            bound="measured")

    def operator_cost(self, work: Work) -> OperatorCost:
        op = work_operator(work)
        if op.name == "dense" and op.kind == "fused" and "tokens" in op.attrs:
            return self._measured(self.dense_time_s(tokens=int(op.attrs["tokens"]),
                                                    sequences=int(op.attrs["sequences"]),
                                                    layers=int(op.attrs["layers"])), "tokens")
        if self.attention is not None and op.name == "attention" and op.kind == "attention" \
                and "attn_pairs" in op.attrs:
            return self._measured(self.attention_time_s(
                tokens=float(op.attrs["tokens"]), attn_pairs=float(op.attrs["attn_pairs"]),
                context_tokens=float(op.attrs["context_tokens"]),
                layers=int(op.attrs["layers"])), "attn_pairs")
        return self.fallback.operator_cost(work)
