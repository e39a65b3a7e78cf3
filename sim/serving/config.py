"""Deployment configuration and the per-iteration cost model of the serving simulator.

One engine iteration runs two kernel groups of the shared transformer graph
(:mod:`archsim.compilers.graph.transformer`), built for the iteration's packed
batch by :class:`~archsim.compilers.graph.transformer.GroupOperators` (see
:func:`dense_group_operator` and :func:`attention_group_operator`):

* *dense* -- embedding, norms, QKV/output projections, MLP, residual adds and the
  LM head: all weights are read once per iteration, activations are read and
  written once, FLOPs are the matmul/elementwise counts of the graph;
* *attention* -- every sequence reads its own KV cache (``2 * layers *
  kv_hidden * bytes`` per context token) and does ``4 * hidden`` FLOPs per
  (new token, context token) pair per layer.

Each group is one :class:`~archsim.operators.Operator` priced by an executor
(:class:`~archsim.hw.models.HardwareModel`, ``operator_cost``); the default
executor is the GPU roofline of the deployment's GPU, under which a group takes
``max(flops / (peak * compute_efficiency), bytes / (bw * memory_efficiency))``.
With tensor parallelism over ``tp`` GPUs every GPU runs a :class:`~archsim.hw.models.Tile`
holding ``1/tp`` of each group's FLOPs and bytes (ideal sharding), and the
iteration adds two ring all-reduces per layer (Megatron-LM: one after
attention, one after the MLP), each ``2 (tp-1) alpha + 2 (tp-1)/tp * bytes /
link_bw``, and a fixed overhead. Communication and the overhead are the cost
model's own terms, not operators. Each distinct group shape is priced once
(the engine evaluates millions of iterations; decode runs repeat shapes).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import overload

import numpy as np

from ...compilers.graph import TransformerConfig, dtype_bytes, get_transformer
from ...compilers.graph.transformer import GroupOperators
from ...errors import ConfigError
from ...hw.models.base import HardwareModel, Tile, Work
from ...hw.models.gpu import GPURoofline, GPUSpec, get_gpu
from ...operators import Operator

__all__ = ["BatchShape", "CalibrationTable", "CostModel", "Deployment"]

_GB = 1e9
#: Priced group shapes kept per cost model before the cache starts afresh (bounds memory).
_CACHE_LIMIT = 200_000

Number = float | int


@dataclass(frozen=True)
class BatchShape:
    """The aggregate shape of one iteration's batch: the cost model's input, not an operator.

    The cost model turns it into the iteration's operators
    (:meth:`CostModel.iteration_operators`). All arrays broadcast together.

    Attributes
    ----------
    tokens
        New tokens processed, ``sum_i n_i`` (prompt tokens of prefills + 1 per decode).
    sequences
        Sequences in the batch (each produces one token's logits).
    attn_pairs
        ``sum_i n_i * c_i``: (new token, context token) pairs of attention.
    context_tokens
        ``sum_i c_i``: KV-cache tokens read (the context includes the new tokens).
    """

    tokens: np.ndarray | float
    sequences: np.ndarray | float
    attn_pairs: np.ndarray | float
    context_tokens: np.ndarray | float

    @classmethod
    def uniform(cls, *, batch: int, new_tokens: int, context_len: int) -> BatchShape:
        """``batch`` identical sequences of ``new_tokens`` over ``context_len`` positions."""
        return cls(tokens=float(batch * new_tokens), sequences=float(batch),
                   attn_pairs=float(batch * new_tokens * context_len),
                   context_tokens=float(batch * context_len))


class CalibrationTable:
    """Measured iteration latencies on a (tokens, mean context) grid.

    When given to :class:`CostModel` it replaces the operator pricing: an
    iteration's latency is the bilinear interpolation (linear extrapolation
    outside the grid) at (new tokens in the iteration, mean context length per
    sequence). For decode-only iterations the tokens axis is the batch size.

    Parameters
    ----------
    tokens, context_len
        The grid's strictly increasing axes (at least two values each).
    latency_s
        ``latency_s[i][j]``: measured seconds at ``(tokens[i], context_len[j])``.
    source
        Where the table came from (named in errors).

    Raises
    ------
    ConfigError
        The grid is too small, not increasing, not full, or has a non-positive latency.
    """

    __slots__ = ("tokens", "context_len", "latency_s", "source", "_interp")

    def __init__(self, *, tokens: tuple[float, ...], context_len: tuple[float, ...],
                 latency_s: tuple[tuple[float, ...], ...], source: str = "") -> None:
        t = np.asarray(tokens, float)
        c = np.asarray(context_len, float)
        lat = np.asarray(latency_s, float)
        if t.ndim != 1 or c.ndim != 1 or len(t) < 2 or len(c) < 2:
            raise ConfigError("calibration needs at least 2 distinct tokens and 2 context values",
                              file=source or None, field="calibration")
        if np.any(np.diff(t) <= 0) or np.any(np.diff(c) <= 0):
            raise ConfigError("calibration grid axes must be strictly increasing",
                              file=source or None, field="calibration")
        if lat.shape != (len(t), len(c)):
            raise ConfigError(f"calibration latency grid has shape {lat.shape}, expected "
                              f"{(len(t), len(c))} (a full tokens x context grid)",
                              file=source or None, field="latency_s")
        if not np.all(np.isfinite(lat)) or np.any(lat <= 0):
            raise ConfigError("calibration latencies must be positive and finite",
                              file=source or None, field="latency_s")
        from scipy.interpolate import RegularGridInterpolator

        self.tokens = tuple(float(x) for x in t)
        self.context_len = tuple(float(x) for x in c)
        self.latency_s = tuple(tuple(float(x) for x in row) for row in lat)
        self.source = source
        self._interp = RegularGridInterpolator((t, c), lat, method="linear", bounds_error=False,
                                               fill_value=None)

    def __repr__(self) -> str:
        return (f"CalibrationTable({len(self.tokens)} x {len(self.context_len)} points, "
                f"source={self.source!r})")

    @classmethod
    def from_csv(cls, path: str | Path) -> CalibrationTable:
        """Read a CSV with columns ``batch`` (tokens), ``context_len``, ``latency_s``."""
        path = Path(path)
        try:
            with path.open(newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as exc:
            raise ConfigError(f"cannot read calibration table: {exc.strerror}",
                              file=str(path)) from None
        grid: dict[tuple[float, float], float] = {}
        for lineno, row in enumerate(rows, start=2):
            try:
                key = (float(row["batch"]), float(row["context_len"]))
                grid[key] = float(row["latency_s"])
            except (KeyError, TypeError, ValueError):
                raise ConfigError(f"line {lineno}: expected numeric columns batch, context_len, "
                                  f"latency_s, got {row!r}", file=str(path)) from None
        toks = sorted({k[0] for k in grid})
        ctxs = sorted({k[1] for k in grid})
        try:
            lat = tuple(tuple(grid[(t, c)] for c in ctxs) for t in toks)
        except KeyError as exc:
            raise ConfigError(f"calibration grid is missing the point (batch, context_len) = "
                              f"{exc.args[0]}", file=str(path)) from None
        return cls(tokens=tuple(toks), context_len=tuple(ctxs), latency_s=lat, source=str(path))

    def latency(self, tokens: np.ndarray, mean_context: np.ndarray) -> np.ndarray:
        """Interpolated iteration latency at each (tokens, mean context) point."""
        t, c = np.broadcast_arrays(np.asarray(tokens, float), np.asarray(mean_context, float))
        out = self._interp(np.stack((t.ravel(), c.ravel()), axis=-1)).reshape(t.shape)
        return np.maximum(out, 0.0)


class CostModel:
    """Latency of engine iterations for one model on ``tp`` GPUs, priced by an executor.

    Parameters
    ----------
    model, gpu
        The transformer (shared preset) and the GPU datasheet (HBM, NVLink and
        PCIe figures; the default executor's rates).
    tp
        Tensor-parallel degree (GPUs sharing every layer).
    dtype
        Weight, activation and KV-cache data type.
    compute_efficiency, memory_efficiency
        Achieved fractions of peak FLOP/s and HBM bandwidth of the default
        executor. Defaults 0.6 and 0.8 are assumptions (typical fractions reported
        for fp16 GEMMs and bandwidth-bound decode kernels on A100), not measurements.
    iteration_overhead_s
        Fixed per-iteration cost (scheduling, kernel launches, sampling);
        default 1 ms, an assumption.
    allreduce_alpha_s
        Per-hop latency of the ring all-reduce; default 10 us (assumption).
    link_bw_bytes_per_s
        Per-direction GPU-GPU bandwidth; ``None`` takes the GPU's NVLink figure.
    calibration
        Optional measured table that replaces the operator pricing.
    executor
        What prices each GPU's share of the iteration's operators
        (``operator_cost``); ``None`` builds the :class:`GPURoofline` of ``gpu``
        with ``dtype`` and the two efficiencies.

    Raises
    ------
    ConfigError
        A parameter is out of range; the message names it.
    """

    def __init__(self, *, model: TransformerConfig, gpu: GPUSpec, tp: int = 1,
                 dtype: str = "fp16", compute_efficiency: float = 0.6,
                 memory_efficiency: float = 0.8, iteration_overhead_s: float = 1e-3,
                 allreduce_alpha_s: float = 10e-6, link_bw_bytes_per_s: float | None = None,
                 calibration: CalibrationTable | None = None,
                 executor: HardwareModel | None = None) -> None:
        if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
            raise ConfigError(f"tensor parallelism must be a positive integer, not {tp!r}",
                              field="tp")
        if not model.decoder:
            raise ConfigError(f"model '{model.name}' is not a decoder; serving simulates "
                              "autoregressive generation", field="model")
        for attr, value in (("iteration_overhead_s", iteration_overhead_s),
                            ("allreduce_alpha_s", allreduce_alpha_s)):
            if not value >= 0:
                raise ConfigError(f"must be >= 0, not {value!r}", field=attr)
        if link_bw_bytes_per_s is not None and not link_bw_bytes_per_s > 0:
            raise ConfigError(f"must be > 0, not {link_bw_bytes_per_s!r}",
                              field="link_bw_bytes_per_s")
        if calibration is not None and not isinstance(calibration, CalibrationTable):
            raise ConfigError(f"must be a CalibrationTable, not {type(calibration).__name__}",
                              field="calibration")
        # the default executor validates dtype and the efficiencies with the roofline's messages
        roofline = GPURoofline(gpu, dtype=dtype, compute_efficiency=compute_efficiency,
                               memory_efficiency=memory_efficiency)
        if executor is not None and not isinstance(executor, HardwareModel):
            raise ConfigError(f"executor {executor!r} has no operator_cost(work) method",
                              field="executor")
        self.model = model
        self.gpu = gpu
        self.tp = tp
        self.dtype = dtype
        self.compute_efficiency = float(compute_efficiency)
        self.memory_efficiency = float(memory_efficiency)
        self.iteration_overhead_s = float(iteration_overhead_s)
        self.allreduce_alpha_s = float(allreduce_alpha_s)
        self.link_bw_bytes_per_s = link_bw_bytes_per_s
        self.calibration = calibration
        self.executor: HardwareModel = roofline if executor is None else executor
        self._groups = GroupOperators(model, dtype)
        self._dense: dict[tuple[Number, Number], float] = {}
        self._attention: dict[tuple[Number, Number, Number], float] = {}

    def __repr__(self) -> str:
        return (f"CostModel(model={self.model.name!r}, gpu={self.gpu.name!r}, tp={self.tp}, "
                f"dtype={self.dtype!r}, executor={self.executor.name!r})")

    # -- sizes -----------------------------------------------------------------------------
    @property
    def bytes_per_element(self) -> float:
        return dtype_bytes(self.dtype)

    @property
    def weight_bytes(self) -> float:
        """Weight bytes read per iteration (all GPUs), as the graph counts them."""
        m, b = self.model, self.bytes_per_element
        head = m.vocab * m.hidden  # lm_head (or the tied embedding read again by the head)
        return (m.num_layers * m.params_per_layer + m.vocab * m.hidden + head) * b

    @property
    def kv_bytes_per_token(self) -> float:
        return self.model.kv_cache_bytes_per_token(self.dtype)

    # -- the iteration's operators -----------------------------------------------------------
    def iteration_operators(self, batch: BatchShape) -> tuple[Operator, Operator]:
        """The dense and attention group operators of one iteration (whole model, all GPUs)."""
        dense = self._groups.dense(tokens=int(batch.tokens), sequences=int(batch.sequences))
        attention = self._groups.attention(tokens=int(batch.tokens),
                                           attn_pairs=int(batch.attn_pairs),
                                           context_tokens=int(batch.context_tokens))
        return dense, attention

    def shard(self, op: Operator) -> Work:
        """What one of the ``tp`` GPUs runs of ``op``: ``op`` itself, or a ``1/tp`` tile."""
        p = self.tp
        if p == 1:
            return op
        macs = int(op.attrs.get("macs", 0))
        tile_macs = macs // p
        return Tile(op, macs=tile_macs, vector_ops=(op.flops - 2.0 * tile_macs * p) / p,
                    input_bytes=(op.input_bytes - op.weight_bytes) / p,
                    weight_bytes=op.weight_bytes / p, output_bytes=op.output_bytes / p)

    def operator_latency_s(self, op: Operator) -> float:
        """Seconds the executor takes for its share of ``op``."""
        return self.executor.operator_cost(self.shard(op)).latency_s

    def _dense_s(self, tokens: Number, sequences: Number) -> float:
        key = (tokens, sequences)
        lat = self._dense.get(key)
        if lat is None:
            if len(self._dense) >= _CACHE_LIMIT:
                self._dense.clear()
            op = self._groups.dense(tokens=int(tokens), sequences=int(sequences))
            lat = self._dense[key] = self.operator_latency_s(op)
        return lat

    def _attention_s(self, tokens: Number, attn_pairs: Number, context_tokens: Number) -> float:
        key = (tokens, attn_pairs, context_tokens)
        lat = self._attention.get(key)
        if lat is None:
            if len(self._attention) >= _CACHE_LIMIT:
                self._attention.clear()
            op = self._groups.attention(tokens=int(tokens), attn_pairs=int(attn_pairs),
                                        context_tokens=int(context_tokens))
            lat = self._attention[key] = self.operator_latency_s(op)
        return lat

    def _one(self, tokens: Number, sequences: Number, attn_pairs: Number,
             context_tokens: Number) -> float:
        return (self._dense_s(tokens, sequences)
                + self._attention_s(tokens, attn_pairs, context_tokens)
                + (self.allreduce_s(tokens) + self.iteration_overhead_s))

    # -- latency -----------------------------------------------------------------------------
    def latency_s(self, shape: BatchShape) -> np.ndarray:
        """Iteration latency (vectorized over the arrays of ``shape``)."""
        return np.asarray(self.iteration_latency_s(shape.tokens, shape.sequences,
                                                   shape.attn_pairs, shape.context_tokens))

    @overload
    def iteration_latency_s(self, tokens: float, sequences: float, attn_pairs: float,
                            context_tokens: float) -> float: ...

    @overload
    def iteration_latency_s(self, tokens: np.ndarray | float, sequences: np.ndarray | float,
                            attn_pairs: np.ndarray | float,
                            context_tokens: np.ndarray | float) -> np.ndarray | float: ...

    def iteration_latency_s(self, tokens: np.ndarray | float, sequences: np.ndarray | float,
                            attn_pairs: np.ndarray | float,
                            context_tokens: np.ndarray | float) -> np.ndarray | float:
        """Latency of iterations given by their aggregates (the engine's fast path).

        The sum of the executor's ``operator_cost`` latencies over the
        iteration's operators, the all-reduces and the fixed overhead. Plain
        numbers give a float; arrays give an array.
        """
        if self.calibration is not None:
            seqs = np.maximum(np.asarray(sequences, float), 1.0)
            return self.calibration.latency(np.asarray(tokens, float),
                                            np.asarray(context_tokens, float) / seqs)
        if not isinstance(tokens, np.ndarray) and not isinstance(attn_pairs, np.ndarray) \
                and not isinstance(sequences, np.ndarray) \
                and not isinstance(context_tokens, np.ndarray):
            return self._one(tokens, sequences, attn_pairs, context_tokens)
        return self._many(tokens, sequences, attn_pairs, context_tokens)

    def _many(self, *args: np.ndarray | float) -> np.ndarray:
        """:meth:`_one` over broadcast arrays, with the loop's lookups hoisted.

        A run of decode iterations repeats the dense group's shape and changes only the
        attention group's, so each iteration costs two cache lookups and, on a miss, the
        operator and its ``operator_cost``; the sum is ``_one``'s, term by term.
        """
        arrays = [np.asarray(a, float) for a in args]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        size = math.prod(shape)
        cols = [repeat(float(a), size) if a.ndim == 0
                else (a if a.shape == shape else np.broadcast_to(a, shape)).ravel().tolist()
                for a in arrays]
        dense_get, attention_get = self._dense.get, self._attention.get
        dense_s, attention_s = self._dense_s, self._attention_s
        overhead = self.iteration_overhead_s
        allreduce = self.allreduce_s if self.tp > 1 else None
        out = []
        for t, s, p, c in zip(*cols, strict=True):
            d = dense_get((t, s))
            if d is None:
                d = dense_s(t, s)
            a = attention_get((t, p, c))
            if a is None:
                a = attention_s(t, p, c)
            out.append(d + a + ((0.0 if allreduce is None else allreduce(t)) + overhead))
        return np.array(out, float).reshape(shape)

    @overload
    def allreduce_s(self, tokens: float) -> float: ...

    @overload
    def allreduce_s(self, tokens: np.ndarray) -> np.ndarray: ...

    def allreduce_s(self, tokens: np.ndarray | float) -> np.ndarray | float:
        """Two ring all-reduces of the ``tokens x hidden`` activations per layer."""
        p = self.tp
        if p == 1:
            return 0.0
        link = self.link_bw_bytes_per_s or self.gpu.nvlink_bw_bytes_per_s
        msg = tokens * self.model.hidden * self.bytes_per_element
        one = 2 * (p - 1) * self.allreduce_alpha_s + 2 * (p - 1) / p * msg / link
        return 2 * self.model.num_layers * one

    def lower_bound_s(self, shape: BatchShape) -> np.ndarray:
        """Physical floor: max(all bytes over peak HBM bandwidth, all FLOPs over peak FLOP/s)."""
        arrays = np.broadcast_arrays(*(np.asarray(a, float) for a in (
            shape.tokens, shape.sequences, shape.attn_pairs, shape.context_tokens)))
        peak = self.gpu.peak(self.dtype) * self.tp
        bw = self.gpu.hbm_bw_bytes_per_s * self.tp
        out = np.empty(arrays[0].shape)
        for idx in np.ndindex(out.shape):
            ops = self.iteration_operators(BatchShape(*(float(a[idx]) for a in arrays)))
            out[idx] = max(sum(op.flops for op in ops) / peak,
                           sum(op.bytes_accessed for op in ops) / bw)
        return out


class Deployment:
    """A model served on ``tp`` GPUs: cost model plus KV-cache capacity.

    Parameters
    ----------
    cost
        The iteration cost model (model, GPU, parallelism, executor).
    memory_fraction
        Usable fraction of HBM (default 0.9, vLLM's default
        ``gpu_memory_utilization``); the weights come out of it and the rest
        holds the KV cache.
    max_seq_len
        Longest sequence served; ``None`` takes the model's.

    Raises
    ------
    ConfigError
        A parameter is out of range, or the weights or one maximum-length
        sequence do not fit (the message names the sizes).
    """

    __slots__ = ("cost", "memory_fraction", "max_seq_len")

    def __init__(self, *, cost: CostModel, memory_fraction: float = 0.9,
                 max_seq_len: int | None = None) -> None:
        if not 0 < memory_fraction <= 1:
            raise ConfigError(f"must be in (0, 1], not {memory_fraction!r}",
                              field="memory_fraction")
        msl = cost.model.max_seq_len if max_seq_len is None else max_seq_len
        if isinstance(msl, bool) or not isinstance(msl, int) or msl < 2:
            raise ConfigError(f"must be an integer >= 2, not {msl!r}", field="max_seq_len")
        self.cost = cost
        self.memory_fraction = float(memory_fraction)
        self.max_seq_len: int = msl
        usable = self.usable_bytes
        weights = self.cost.model.weight_bytes(self.cost.dtype)
        where = f"{self.cost.tp} x {self.cost.gpu.name}"
        if weights >= usable:
            raise ConfigError(
                f"model '{self.cost.model.name}' needs {weights / _GB:.1f} GB of {self.cost.dtype} "
                f"weights but {where} has {usable / _GB:.1f} GB usable "
                f"({self.memory_fraction:g} of HBM); use more GPUs (--tp) or a larger GPU",
                field="model")
        if self.kv_capacity_tokens < msl:
            raise ConfigError(
                f"model '{self.cost.model.name}' on {where} leaves KV-cache room for "
                f"{self.kv_capacity_tokens} tokens, fewer than one {msl}-token sequence",
                field="model")

    @classmethod
    def build(cls, *, model: str | TransformerConfig, gpu: str | GPUSpec, tp: int = 1,
              dtype: str = "fp16", memory_fraction: float = 0.9, max_seq_len: int | None = None,
              compute_efficiency: float = 0.6, memory_efficiency: float = 0.8,
              iteration_overhead_s: float = 1e-3, allreduce_alpha_s: float = 10e-6,
              link_bw_bytes_per_s: float | None = None,
              calibration: CalibrationTable | None = None,
              executor: HardwareModel | None = None) -> Deployment:
        """A deployment from preset names (see :class:`CostModel` for the cost parameters)."""
        cfg = get_transformer(model) if isinstance(model, str) else model
        spec = get_gpu(gpu) if isinstance(gpu, str) else gpu
        cost = CostModel(model=cfg, gpu=spec, tp=tp, dtype=dtype,
                         compute_efficiency=compute_efficiency,
                         memory_efficiency=memory_efficiency,
                         iteration_overhead_s=iteration_overhead_s,
                         allreduce_alpha_s=allreduce_alpha_s,
                         link_bw_bytes_per_s=link_bw_bytes_per_s, calibration=calibration,
                         executor=executor)
        return cls(cost=cost, memory_fraction=memory_fraction, max_seq_len=max_seq_len)

    def __repr__(self) -> str:
        return (f"Deployment(cost={self.cost!r}, memory_fraction={self.memory_fraction}, "
                f"max_seq_len={self.max_seq_len})")

    @property
    def usable_bytes(self) -> float:
        return self.cost.tp * self.cost.gpu.hbm_capacity_bytes * self.memory_fraction

    @property
    def kv_capacity_bytes(self) -> float:
        return self.usable_bytes - self.cost.model.weight_bytes(self.cost.dtype)

    @property
    def kv_capacity_tokens(self) -> int:
        return int(self.kv_capacity_bytes // self.cost.kv_bytes_per_token)
