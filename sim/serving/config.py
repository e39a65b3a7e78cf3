"""Deployment configuration and the per-iteration cost model of the serving simulator.

The cost of one engine iteration is a roofline over two operator groups of the
shared transformer graph (:func:`archsim.compilers.graph.transformer_graph`):

* *dense* -- embedding, norms, QKV/output projections, MLP, residual adds and the
  LM head: all weights are read once per iteration, activations are read and
  written once, FLOPs are the matmul/elementwise counts of the graph;
* *attention* -- every sequence reads its own KV cache (``2 * layers *
  kv_hidden * bytes`` per context token) and does ``4 * hidden`` FLOPs per
  (new token, context token) pair per layer.

Each group's time is ``max(flops / (peak * compute_efficiency), bytes / (bw *
memory_efficiency))``; the iteration adds a fixed overhead and, with tensor
parallelism over ``tp`` GPUs, two ring all-reduces per layer (Megatron-LM: one
after attention, one after the MLP), each ``2 (tp-1) alpha + 2 (tp-1)/tp *
bytes / link_bw``. FLOPs and bytes are divided evenly over the ``tp`` GPUs
(ideal sharding). Closed forms are used (vectorized over iterations); the
tests check them against the graph's operator sums.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from ...compilers.graph import TransformerConfig, dtype_bytes, get_transformer
from ...errors import ConfigError
from ...hw.models.gpu import GPURoofline, GPUSpec, get_gpu

__all__ = ["IterationShape", "CalibrationTable", "CostModel", "Deployment"]

_GB = 1e9


@dataclass(frozen=True)
class IterationShape:
    """The aggregate shape of one iteration (all arrays broadcast together).

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
    def uniform(cls, *, batch: int, new_tokens: int, context_len: int) -> IterationShape:
        """``batch`` identical sequences of ``new_tokens`` over ``context_len`` positions."""
        return cls(tokens=float(batch * new_tokens), sequences=float(batch),
                   attn_pairs=float(batch * new_tokens * context_len),
                   context_tokens=float(batch * context_len))


@dataclass(frozen=True)
class CalibrationTable:
    """Measured iteration latencies on a (tokens, mean context) grid.

    When given to :class:`CostModel` it replaces the roofline: an iteration's
    latency is the bilinear interpolation (linear extrapolation outside the
    grid) at (new tokens in the iteration, mean context length per sequence).
    For decode-only iterations the tokens axis is the batch size.
    """

    tokens: tuple[float, ...]
    context_len: tuple[float, ...]
    latency_s: tuple[tuple[float, ...], ...]
    source: str = ""
    _interp: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        t = np.asarray(self.tokens, float)
        c = np.asarray(self.context_len, float)
        lat = np.asarray(self.latency_s, float)
        if t.ndim != 1 or c.ndim != 1 or len(t) < 2 or len(c) < 2:
            raise ConfigError("calibration needs at least 2 distinct tokens and 2 context values",
                              file=self.source or None, field="calibration")
        if np.any(np.diff(t) <= 0) or np.any(np.diff(c) <= 0):
            raise ConfigError("calibration grid axes must be strictly increasing",
                              file=self.source or None, field="calibration")
        if lat.shape != (len(t), len(c)):
            raise ConfigError(f"calibration latency grid has shape {lat.shape}, expected "
                              f"{(len(t), len(c))} (a full tokens x context grid)",
                              file=self.source or None, field="latency_s")
        if not np.all(np.isfinite(lat)) or np.any(lat <= 0):
            raise ConfigError("calibration latencies must be positive and finite",
                              file=self.source or None, field="latency_s")
        from scipy.interpolate import RegularGridInterpolator

        interp = RegularGridInterpolator((t, c), lat, method="linear", bounds_error=False,
                                         fill_value=None)
        object.__setattr__(self, "_interp", interp)

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
        t, c = np.broadcast_arrays(np.asarray(tokens, float), np.asarray(mean_context, float))
        out = self._interp(np.stack((t.ravel(), c.ravel()), axis=-1)).reshape(t.shape)
        return np.maximum(out, 0.0)


@dataclass(frozen=True)
class CostModel:
    """Latency of engine iterations for one model on ``tp`` GPUs.

    Parameters
    ----------
    model, gpu
        The transformer (shared preset) and the GPU datasheet.
    tp
        Tensor-parallel degree (GPUs sharing every layer).
    dtype
        Weight, activation and KV-cache data type.
    compute_efficiency, memory_efficiency
        Achieved fractions of peak FLOP/s and HBM bandwidth. Defaults 0.6 and
        0.8 are assumptions (typical fractions reported for fp16 GEMMs and
        bandwidth-bound decode kernels on A100), not measurements.
    iteration_overhead_s
        Fixed per-iteration cost (scheduling, kernel launches, sampling);
        default 1 ms, an assumption.
    allreduce_alpha_s
        Per-hop latency of the ring all-reduce; default 10 us (assumption).
    link_bw_bytes_per_s
        Per-direction GPU-GPU bandwidth; ``None`` takes the GPU's NVLink figure.
    calibration
        Optional measured table that replaces the roofline.
    """

    model: TransformerConfig
    gpu: GPUSpec
    tp: int = 1
    dtype: str = "fp16"
    compute_efficiency: float = 0.6
    memory_efficiency: float = 0.8
    iteration_overhead_s: float = 1e-3
    allreduce_alpha_s: float = 10e-6
    link_bw_bytes_per_s: float | None = None
    calibration: CalibrationTable | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.tp, int) or self.tp < 1:
            raise ConfigError(f"tensor parallelism must be a positive integer, not {self.tp!r}",
                              field="tp")
        if not self.model.decoder:
            raise ConfigError(f"model '{self.model.name}' is not a decoder; serving simulates "
                              "autoregressive generation", field="model")
        for attr in ("iteration_overhead_s", "allreduce_alpha_s"):
            if not getattr(self, attr) >= 0:
                raise ConfigError(f"must be >= 0, not {getattr(self, attr)!r}", field=attr)
        # validates dtype and efficiencies with the shared roofline's messages
        GPURoofline(self.gpu, dtype=self.dtype, compute_efficiency=self.compute_efficiency,
                    memory_efficiency=self.memory_efficiency)

    # -- closed forms tied to transformer_graph ---------------------------------------------
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

    def group_costs(self, shape: IterationShape) -> dict[str, np.ndarray]:
        """FLOPs and bytes of the dense and attention groups (totals over all GPUs)."""
        m, b = self.model, self.bytes_per_element
        h, hk, f, v, n_l = m.hidden, m.kv_hidden, m.ffn_hidden, m.vocab, m.num_layers
        qkv_n = h + 2 * hk
        up_n = 2 * f if m.gated_mlp else f
        act_flops = 4.0 if m.gated_mlp else 8.0
        t = np.asarray(shape.tokens, float)
        s = np.asarray(shape.sequences, float)
        pairs = np.asarray(shape.attn_pairs, float)
        ctx = np.asarray(shape.context_tokens, float)
        dense_flops = (n_l * t * (2.0 * h * qkv_n + 2.0 * h * h + 2.0 * h * up_n + 2.0 * f * h
                                  + 12.0 * h + act_flops * f)
                       + 2.0 * s * v * h)
        # activations each operator reads and writes (attention's own I/O excluded)
        act_elems = n_l * t * (15 * h + qkv_n + 2 * up_n + 2 * f) + 2 * t * h + s * v
        dense_bytes = self.weight_bytes + act_elems * b + 4.0 * t  # int32 token ids
        attn_flops = 4.0 * n_l * h * pairs
        kv_bytes = 2.0 * n_l * hk * b * ctx
        attn_bytes = kv_bytes + n_l * t * (qkv_n + h) * b
        return {"dense_flops": dense_flops, "dense_bytes": dense_bytes,
                "attn_flops": attn_flops, "attn_bytes": attn_bytes, "kv_bytes": kv_bytes}

    @cached_property
    def _coeffs(self) -> np.ndarray:
        """Per-GPU seconds of each group as linear forms in (1, tokens, sequences, pairs, ctx)."""
        basis = [IterationShape(tokens=float(t), sequences=float(s), attn_pairs=float(a),
                                context_tokens=float(c))
                 for t, s, a, c in ((0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0),
                                    (0, 0, 0, 1))]
        costs = [self.group_costs(b) for b in basis]
        peak = self.gpu.peak(self.dtype) * self.compute_efficiency * self.tp
        bw = self.gpu.hbm_bw_bytes_per_s * self.memory_efficiency * self.tp
        rows = []
        for key, rate in (("dense_flops", peak), ("dense_bytes", bw), ("attn_flops", peak),
                          ("attn_bytes", bw)):
            v = np.array([float(c[key]) for c in costs])
            v[1:] -= v[0]  # the forms are affine: subtract the constant from the unit vectors
            rows.append(v / rate)
        return np.array(rows)

    def latency_s(self, shape: IterationShape) -> np.ndarray:
        """Iteration latency (vectorized over the arrays of ``shape``)."""
        return self.iteration_latency_s(shape.tokens, shape.sequences, shape.attn_pairs,
                                        shape.context_tokens)

    @cached_property
    def _scalar_coeffs(self) -> tuple[tuple[float, ...], ...]:
        rows = [tuple(float(v) for v in r) for r in self._coeffs]
        ar0 = float(self.allreduce_s(0.0))
        rows.append((ar0, float(self.allreduce_s(1.0)) - ar0))
        return tuple(rows)

    def iteration_latency_s(self, tokens, sequences, attn_pairs, context_tokens):
        """:meth:`latency_s` from the four aggregates directly (the engine's fast path).

        Plain floats give a float (pure Python, no numpy overhead); arrays give arrays.
        """
        if self.calibration is not None:
            seqs = np.maximum(np.asarray(sequences, float), 1.0)
            return self.calibration.latency(np.asarray(tokens, float),
                                            np.asarray(context_tokens, float) / seqs)
        df, db, af, ab, ar = self._scalar_coeffs
        dense_f = df[0] + df[1] * tokens + df[2] * sequences + df[3] * attn_pairs \
            + df[4] * context_tokens
        dense_b = db[0] + db[1] * tokens + db[2] * sequences + db[3] * attn_pairs \
            + db[4] * context_tokens
        attn_f = af[0] + af[1] * tokens + af[2] * sequences + af[3] * attn_pairs \
            + af[4] * context_tokens
        attn_b = ab[0] + ab[1] * tokens + ab[2] * sequences + ab[3] * attn_pairs \
            + ab[4] * context_tokens
        fixed = ar[0] + ar[1] * tokens + self.iteration_overhead_s
        if isinstance(dense_f, float) and isinstance(attn_f, float):
            return max(dense_f, dense_b) + max(attn_f, attn_b) + fixed
        return np.maximum(dense_f, dense_b) + np.maximum(attn_f, attn_b) + fixed

    def allreduce_s(self, tokens: np.ndarray | float) -> np.ndarray:
        """Two ring all-reduces of the ``tokens x hidden`` activations per layer."""
        p = self.tp
        if p == 1:
            return 0.0
        link = self.link_bw_bytes_per_s or self.gpu.nvlink_bw_bytes_per_s
        msg = np.asarray(tokens, float) * self.model.hidden * self.bytes_per_element
        one = 2 * (p - 1) * self.allreduce_alpha_s + 2 * (p - 1) / p * msg / link
        return 2 * self.model.num_layers * one

    def lower_bound_s(self, shape: IterationShape) -> np.ndarray:
        """Physical floor: max(all bytes over peak HBM bandwidth, all FLOPs over peak FLOP/s)."""
        c = self.group_costs(shape)
        peak = self.gpu.peak(self.dtype) * self.tp
        bw = self.gpu.hbm_bw_bytes_per_s * self.tp
        return np.maximum((c["dense_flops"] + c["attn_flops"]) / peak,
                          (c["dense_bytes"] + c["attn_bytes"]) / bw)


@dataclass(frozen=True)
class Deployment:
    """A model served on ``tp`` GPUs: cost model plus KV-cache capacity.

    ``memory_fraction`` of HBM is usable (default 0.9, vLLM's default
    ``gpu_memory_utilization``); the weights come out of it and the rest holds
    the KV cache. A model whose weights, or one maximum-length sequence, do not
    fit is a :class:`ConfigError` naming the sizes.
    """

    cost: CostModel
    memory_fraction: float = 0.9
    max_seq_len: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.memory_fraction <= 1:
            raise ConfigError(f"must be in (0, 1], not {self.memory_fraction!r}",
                              field="memory_fraction")
        msl = self.cost.model.max_seq_len if self.max_seq_len is None else self.max_seq_len
        if not isinstance(msl, int) or msl < 2:
            raise ConfigError(f"must be an integer >= 2, not {msl!r}", field="max_seq_len")
        object.__setattr__(self, "max_seq_len", msl)
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
              **cost_kwargs: object) -> Deployment:
        cfg = get_transformer(model) if isinstance(model, str) else model
        spec = get_gpu(gpu) if isinstance(gpu, str) else gpu
        cost = CostModel(model=cfg, gpu=spec, tp=tp, dtype=dtype, **cost_kwargs)
        return cls(cost=cost, memory_fraction=memory_fraction, max_seq_len=max_seq_len)

    @property
    def usable_bytes(self) -> float:
        return self.cost.tp * self.cost.gpu.hbm_capacity_bytes * self.memory_fraction

    @property
    def kv_capacity_bytes(self) -> float:
        return self.usable_bytes - self.cost.model.weight_bytes(self.cost.dtype)

    @property
    def kv_capacity_tokens(self) -> int:
        return int(self.kv_capacity_bytes // self.cost.kv_bytes_per_token)
