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
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Annotated, overload

import numpy as np
from pydantic import BeforeValidator, Field, InstanceOf, PrivateAttr, model_validator

from ...compilers.graph import TransformerConfig, dtype_bytes, get_transformer
from ...compilers.graph.transformer import GroupOperators
from ...errors import ConfigError
from ...hw.models.base import HardwareModel, Tile, Work
from ...hw.models.gpu import GPURoofline, GPUSpec, get_gpu
from ...hw.models.gpu_profile import AttentionProfile, KernelProfile, ProfiledGPU
from ...operators import Operator
from ._fields import Config, NonNegative, PositiveOrNone, is_number

__all__ = ["BatchShape", "CalibrationTable", "CostConfig", "CostModel", "Deployment"]

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


class CalibrationTable(Config):
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

    tokens: tuple[float, ...]
    context_len: tuple[float, ...]
    latency_s: tuple[tuple[float, ...], ...]
    source: str = ""
    # built from the grid once; scipy's interpolator is runtime state, not a parameter
    _interp: Callable[[np.ndarray], np.ndarray] = PrivateAttr()

    @model_validator(mode="before")
    @classmethod
    def _grid(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        source = data.get("source") or ""
        try:
            t = np.asarray(data.get("tokens"), float)
            c = np.asarray(data.get("context_len"), float)
            lat = np.asarray(data.get("latency_s"), float)
        except (TypeError, ValueError):
            raise ConfigError("calibration grid must be numbers", file=source or None,
                              field="calibration") from None
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
        return {**data, "tokens": tuple(float(x) for x in t),
                "context_len": tuple(float(x) for x in c),
                "latency_s": tuple(tuple(float(x) for x in row) for row in lat)}

    def model_post_init(self, context: object, /) -> None:
        from scipy.interpolate import RegularGridInterpolator

        self._interp = RegularGridInterpolator(
            (np.array(self.tokens), np.array(self.context_len)), np.array(self.latency_s),
            method="linear", bounds_error=False, fill_value=None)

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


def _tp(v: object) -> object:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ConfigError(f"tensor parallelism must be a positive integer, not {v!r}",
                          field="tp")
    return v


def _decoder(v: object) -> object:
    if isinstance(v, TransformerConfig) and not v.decoder:
        raise ConfigError(f"model '{v.name}' is not a decoder; serving simulates "
                          "autoregressive generation", field="model")
    return v


def _calibration(v: object) -> object:
    if v is not None and not isinstance(v, CalibrationTable):
        raise ConfigError(f"must be a CalibrationTable, not {type(v).__name__}",
                          field="calibration")
    return v


class CostConfig(Config):
    """The parameters of a :class:`CostModel` (see there), validated.

    ``dtype`` and the two efficiencies are checked by building the default
    executor (:class:`GPURoofline`), so the errors are the roofline's.
    """

    tp: Annotated[int, BeforeValidator(_tp)] = 1
    model: Annotated[InstanceOf[TransformerConfig], BeforeValidator(_decoder)]
    gpu: InstanceOf[GPUSpec]
    dtype: str = "fp16"
    compute_efficiency: float = 0.6
    memory_efficiency: float = 0.8
    iteration_overhead_s: NonNegative = 1e-3
    allreduce_alpha_s: NonNegative = 10e-6
    link_bw_bytes_per_s: PositiveOrNone = None
    calibration: Annotated[CalibrationTable | None, BeforeValidator(_calibration)] = None

    @model_validator(mode="after")
    def _check(self) -> CostConfig:
        self.model.check_tp(self.tp)  # the heads rule training shares
        self.roofline()
        return self

    def roofline(self) -> GPURoofline:
        """The default executor: the GPU's roofline at this dtype and these efficiencies."""
        return GPURoofline(self.gpu, dtype=self.dtype, compute_efficiency=self.compute_efficiency,
                           memory_efficiency=self.memory_efficiency)


class CostModel:
    """Latency of engine iterations for one model on ``tp`` GPUs, priced by an executor.

    The parameters are validated into a :class:`CostConfig` (``config``); the cost
    model itself holds the runtime state (the executor, the operator builder and the
    caches of priced shapes).

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
        config = CostConfig(model=model, gpu=gpu, tp=tp, dtype=dtype,
                            compute_efficiency=compute_efficiency,
                            memory_efficiency=memory_efficiency,
                            iteration_overhead_s=iteration_overhead_s,
                            allreduce_alpha_s=allreduce_alpha_s,
                            link_bw_bytes_per_s=link_bw_bytes_per_s, calibration=calibration)
        self._setup(config, executor)

    @classmethod
    def measured(cls, config: CostConfig, profile: KernelProfile, *,
                 attention: AttentionProfile | None = None) -> CostModel:
        """The cost model of ``config`` with its dense groups priced from the measured
        ``profile`` and, if given, its attention groups from the ``attention`` profile
        (:class:`~archsim.hw.models.ProfiledGPU`); the LM head, and attention without a
        profile, stay on ``config``'s roofline."""
        m = config.model
        return cls.from_config(config, executor=ProfiledGPU(
            profile=profile, fallback=config.roofline(), hidden=m.hidden, ffn=m.ffn_hidden,
            heads=m.num_heads, kv_heads=m.num_kv_heads or m.num_heads, vocab=m.vocab,
            gated_mlp=m.gated_mlp, attention=attention))

    @classmethod
    def from_config(cls, config: CostConfig, *,
                    executor: HardwareModel | None = None) -> CostModel:
        """The cost model of validated parameters, priced by ``executor`` (default: roofline)."""
        self = cls.__new__(cls)
        self._setup(config, executor)
        return self

    def _setup(self, config: CostConfig, executor: HardwareModel | None) -> None:
        if executor is not None and not isinstance(executor, HardwareModel):
            raise ConfigError(f"executor {executor!r} has no operator_cost(work) method",
                              field="executor")
        self.config = config
        self.model = config.model
        self.gpu = config.gpu
        self.tp = config.tp
        self.dtype = config.dtype
        self.compute_efficiency = config.compute_efficiency
        self.memory_efficiency = config.memory_efficiency
        self.iteration_overhead_s = config.iteration_overhead_s
        self.allreduce_alpha_s = config.allreduce_alpha_s
        self.link_bw_bytes_per_s = config.link_bw_bytes_per_s
        self.calibration = config.calibration
        self.executor: HardwareModel = config.roofline() if executor is None else executor
        if isinstance(executor, ProfiledGPU) and executor.profile.tensor_parallel != config.tp:
            raise ConfigError(f"the kernel profile was measured at tensor-parallel degree "
                              f"{executor.profile.tensor_parallel}, the deployment has "
                              f"{config.tp}", field="tp")
        self._groups = GroupOperators(config.model, config.dtype)
        self._dense: dict[tuple[Number, Number], float] = {}
        self._attention: dict[tuple[Number, Number, Number], float] = {}
        # The default executor's rates, for pricing attention shapes in closed form (see
        # attention_latency_s); None for any other executor (a subclass may price otherwise).
        ex = self.executor
        # a profiled GPU with an attention profile prices attention by its fitted law (in
        # closed form too); without one, attention is its roofline's
        self._attn_profiled: ProfiledGPU | None = (
            ex if isinstance(ex, ProfiledGPU) and ex.attention is not None else None)
        if isinstance(ex, ProfiledGPU):
            ex = ex.fallback
        self._attn_rates: tuple[float, float, float] | None = (
            (ex.spec.peak(ex.dtype) * ex.compute_efficiency,
             ex.spec.hbm_bw_bytes_per_s * ex.memory_efficiency, ex.launch_overhead_s)
            if type(ex) is GPURoofline and self._attn_profiled is None else None)
        self._attn_coefficients = self._groups.attention_coefficients

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
        return self.executor.operator_cost(op if self.tp == 1 else self.shard(op)).latency_s

    def _dense_s(self, tokens: Number, sequences: Number) -> float:
        key = (tokens, sequences)
        lat = self._dense.get(key)
        if lat is None:
            if len(self._dense) >= _CACHE_LIMIT:
                self._dense.clear()
            op = self._groups.dense(tokens=int(tokens), sequences=int(sequences))
            lat = self._dense[key] = self.operator_latency_s(op)
        return lat

    def attention_latency_s(self, tokens: Number, attn_pairs: Number,
                            context_tokens: Number) -> float:
        """Seconds the executor takes for its share of the attention group of a batch shape.

        Equal to ``operator_latency_s`` of the attention operator that
        :meth:`iteration_operators` builds, bit for bit. Under the default
        :class:`GPURoofline` executor it is computed without building the operator or its
        tile: the group's FLOPs and bytes are
        :meth:`~archsim.compilers.graph.transformer.GroupOperators.attention_terms`'s
        (from its ``attention_coefficients``), the ``1/tp`` share is taken as
        :meth:`shard` takes it and the roofline is :meth:`GPURoofline.time_s`'s, each with
        the same floating-point operations in the same order. A
        :class:`~archsim.hw.models.ProfiledGPU` with an attention profile is asked for its
        :meth:`~archsim.hw.models.ProfiledGPU.attention_time_s` directly (what its
        ``operator_cost`` of the operator returns). Any other executor prices the operator
        itself. The engine's iterations price attention through this code.

        Raises
        ------
        ConfigError
            A negative count.
        """
        return self._attention_s(tokens, attn_pairs, context_tokens)

    def _attention_s(self, tokens: Number, attn_pairs: Number, context_tokens: Number) -> float:
        # called on a cache miss (a decode step's attention shape is new at every step), so
        # the closed form is written out here rather than in further calls
        cache = self._attention
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        t, pairs, ctx = int(tokens), int(attn_pairs), int(context_tokens)
        rates = self._attn_rates
        if self._attn_profiled is not None:
            if t < 0 or pairs < 0 or ctx < 0:
                raise ConfigError("tokens, attention pairs and context tokens must be >= 0",
                                  field="tokens")
            lat = self._attn_profiled.attention_time_s(tokens=t, attn_pairs=pairs,
                                                       context_tokens=ctx,
                                                       layers=self.model.num_layers)
        elif rates is None:
            op = self._groups.attention(tokens=t, attn_pairs=pairs, context_tokens=ctx)
            lat = self.executor.operator_cost(op if self.tp == 1 else self.shard(op)).latency_s
        else:
            if t < 0 or pairs < 0 or ctx < 0:
                raise ConfigError("tokens, attention pairs and context tokens must be >= 0",
                                  field="tokens")
            # GroupOperators.attention_terms, term by term
            qkv_n, kv_n, out_n, b, flops_per_pair, macs_per_pair = self._attn_coefficients
            flops = flops_per_pair * float(pairs)
            input_bytes = qkv_n * t * b + kv_n * ctx * b
            output_bytes = out_n * t * b
            p = self.tp
            if p == 1:
                bytes_accessed = input_bytes + output_bytes
            else:  # shard(): the Tile's flops and bytes (the attention group has no weights)
                tile_macs = macs_per_pair * pairs // p
                flops = 2.0 * tile_macs + (flops - 2.0 * tile_macs * p) / p
                bytes_accessed = input_bytes / p + output_bytes / p
            compute_rate, memory_rate, launch_s = rates
            compute_s = flops / compute_rate
            memory_s = bytes_accessed / memory_rate
            lat = (compute_s if compute_s >= memory_s else memory_s) + launch_s
        cache[(tokens, attn_pairs, context_tokens)] = lat
        return lat

    def _one(self, tokens: Number, sequences: Number, attn_pairs: Number,
             context_tokens: Number) -> float:
        # the caches are looked up here first: a hit skips the pricing method's call
        d = self._dense.get((tokens, sequences))
        if d is None:
            d = self._dense_s(tokens, sequences)
        a = self._attention.get((tokens, attn_pairs, context_tokens))
        if a is None:
            a = self._attention_s(tokens, attn_pairs, context_tokens)
        return d + a + ((0.0 if self.tp == 1 else self.allreduce_s(tokens))
                        + self.iteration_overhead_s)

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


def _memory_fraction(v: object) -> object:
    if not (is_number(v) and 0 < v <= 1):
        raise ConfigError(f"must be in (0, 1], not {v!r}", field="memory_fraction")
    return v


def _max_seq_len(v: object) -> object:
    if isinstance(v, bool) or not isinstance(v, int) or v < 2:
        raise ConfigError(f"must be an integer >= 2, not {v!r}", field="max_seq_len")
    return v


class Deployment(Config):
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

    cost: InstanceOf[CostModel]
    memory_fraction: Annotated[float, BeforeValidator(_memory_fraction)] = 0.9
    # None (the default) is replaced by the model's before validation, so the value is an int
    max_seq_len: Annotated[int, BeforeValidator(_max_seq_len)] = Field(
        default=None)  # type: ignore[assignment]

    @model_validator(mode="before")
    @classmethod
    def _resolve_max_seq_len(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("max_seq_len") is None \
                and isinstance(data.get("cost"), CostModel):
            data = {**data, "max_seq_len": data["cost"].model.max_seq_len}
        return data

    @model_validator(mode="after")
    def _fits(self) -> Deployment:
        usable = self.usable_bytes
        weights = self.cost.model.weight_bytes(self.cost.dtype)
        where = f"{self.cost.tp} x {self.cost.gpu.name}"
        if weights >= usable:
            raise ConfigError(
                f"model '{self.cost.model.name}' needs {weights / _GB:.1f} GB of {self.cost.dtype} "
                f"weights but {where} has {usable / _GB:.1f} GB usable "
                f"({self.memory_fraction:g} of HBM); use more GPUs (--tp) or a larger GPU",
                field="model")
        if self.kv_capacity_tokens < self.max_seq_len:
            raise ConfigError(
                f"model '{self.cost.model.name}' on {where} leaves KV-cache room for "
                f"{self.kv_capacity_tokens} tokens, fewer than one {self.max_seq_len}-token "
                "sequence", field="model")
        return self

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
        if max_seq_len is None:
            return cls(cost=cost, memory_fraction=memory_fraction)
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
