"""A per-kernel time model of a ParaDnn training step, beyond the pure roofline.

Every operator of a (training) graph becomes one kernel, or ``steps`` sequential kernels
for a recurrent layer (one per time step: the steps depend on each other). A kernel takes

    ``time = max(padded_flops / (peak x eff), bytes / (bw x eff)) + overhead``

on one *device* of the platform, and a step adds a per-step overhead. A TPU board is 8
cores that split the global batch (data parallel, ParaDnn's ``num_shards=8``): each core
runs the graph at ``batch / 8`` with 1/8 of the board's peak and bandwidth and reads the
full weights itself. Matrix dimensions are padded to the platform's tile: on TPU the
contraction and output-feature dimensions to 128 (the MXU is 128 x 128) and the streamed
rows to a multiple of 8 and at least 128 (a 128 x 128 weight tile takes 128 cycles to load,
so fewer rows cannot hide it); on V100 to multiples of 8 (Tensor Cores).

Sources (see :data:`KERNEL_PLATFORMS`, each constant carries its source or "assumed"):
Cloud TPU performance guide (cloud.google.com/tpu/docs/performance-guide: the runtime
splits a batch over the 8 cores; 8 x 128 tiles, XLA pads); Jouppi et al. ISCA 2017 (TPU v1
weight tiles double-buffered, 256 cycles to shift in a 256 x 256 tile; the 128-row floor is
that by analogy, assumed); NVIDIA's "Deep Learning Performance" guide (Tensor Core GEMM
dimensions multiples of 8); CUDA kernel launch overhead of ~5 us (commonly reported 5-10 us,
assumed); this machine's numpy GEMM calibration (:mod:`.calibrate`) for the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ....compilers.graph.ir import Operator, WorkloadGraph
from ....compilers.graph.paradnn import paradnn_model
from ....compilers.graph.training import DIFFERENTIABLE_KINDS, training_graph
from ....errors import ConfigError
from .calibrate import CpuCalibration, load_calibration
from .platforms import PLATFORMS, Platform

__all__ = ["KernelPlatform", "StepTime", "kernel_platforms", "gemm_dims", "op_time",
           "step_time", "training_footprint_bytes", "BYTES_PER_PARAM_TRAINING",
           "GIB", "ModelTiming", "time_model", "GraphCache"]

GIB: float = float(2 ** 30)

#: Bytes per parameter while training: fp32 master weight, fp32 gradient and one fp32
#: optimizer slot (momentum / RMSProp mean square) -- assumed.
BYTES_PER_PARAM_TRAINING: float = 12.0

_GEMM_KINDS = frozenset({"matmul", "conv2d"})


def _ceil_to(x: int, mult: int) -> int:
    return -(-x // mult) * mult


@dataclass(frozen=True, kw_only=True)
class KernelPlatform:
    """A platform's kernel model; ``roofline`` holds the board's peaks and bandwidth.

    Attributes
    ----------
    devices
        Devices the global batch is split over (8 TPU cores per board; 1 otherwise).
    compute_efficiency, bandwidth_efficiency
        Fractions of the device peak / bandwidth one large kernel sustains.
    kernel_overhead_s
        Fixed time per kernel (launch / per-op dispatch).
    step_overhead_s
        Fixed time per training step (host loop, infeed).
    row_multiple, min_rows, col_multiple
        GEMM padding: streamed rows ``m`` to ``max(ceil(m, row_multiple), min_rows)``;
        ``n`` and ``k`` to multiples of ``col_multiple``.
    fused_kinds
        Operator kinds fused into a neighbouring kernel (no overhead of their own; their
        traffic is still counted).
    memory_capacity_bytes
        Memory per device.
    recurrent_weights_cached
        Whether a recurrent layer's weights stay on chip across time steps (else every step
        kernel reads them from memory).
    sources
        Where each constant comes from ("assumed" where it is not sourced).
    """

    roofline: Platform
    devices: int
    compute_efficiency: float
    bandwidth_efficiency: float
    kernel_overhead_s: float
    step_overhead_s: float
    row_multiple: int
    min_rows: int
    col_multiple: int
    fused_kinds: frozenset[str]
    memory_capacity_bytes: float
    recurrent_weights_cached: bool
    sources: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("devices", "row_multiple", "min_rows", "col_multiple"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"must be an integer >= 1, not {v!r}", field=name)
        for name in ("compute_efficiency", "bandwidth_efficiency"):
            v = getattr(self, name)
            if not (0 < v <= 1):
                raise ConfigError(f"must be in (0, 1], not {v!r}", field=name)
        for name in ("kernel_overhead_s", "step_overhead_s"):
            v = getattr(self, name)
            if not (v >= 0 and math.isfinite(v)):
                raise ConfigError(f"must be a finite number >= 0, not {v!r}", field=name)
        if not self.memory_capacity_bytes > 0:
            raise ConfigError(f"must be > 0, not {self.memory_capacity_bytes!r}",
                              field="memory_capacity_bytes")

    @property
    def name(self) -> str:
        """The roofline platform's name."""
        return self.roofline.name

    def device_peak(self, family: str) -> float:
        """Sustained FLOP/s of one device for ``family``'s data type."""
        return self.roofline.peak(family) / self.devices * self.compute_efficiency

    @property
    def device_bw(self) -> float:
        """Sustained bytes/s of one device."""
        return self.roofline.mem_bw_bytes_per_s / self.devices * self.bandwidth_efficiency

    def pad(self, m: int, n: int, k: int) -> tuple[int, int, int]:
        """The padded GEMM dimensions ``(m, n, k)``."""
        return (max(_ceil_to(m, self.row_multiple), self.min_rows),
                _ceil_to(n, self.col_multiple), _ceil_to(k, self.col_multiple))


def gemm_dims(op: Operator) -> tuple[int, int, int, int] | None:
    """``(batch, m, n, k)`` of a matmul, or of a convolution as an implicit GEMM (``m`` =
    images x output pixels, ``n`` = output channels, ``k`` = input channels x taps, per
    group); ``None`` for other kinds."""
    a = op.attrs
    if op.kind == "matmul":
        return int(a.get("batch", 1)), int(a["m"]), int(a["n"]), int(a["k"])
    if op.kind == "conv2d":
        g = int(a["groups"])
        return (g, int(a["batch"]) * int(a["out_h"]) * int(a["out_w"]),
                int(a["out_channels"]) // g,
                int(a["in_channels"]) // g * int(a["kernel_h"]) * int(a["kernel_w"]))
    return None


@dataclass(frozen=True)
class StepTime:
    """Time of a step on one device, split into its parts (seconds), and its kernels."""

    compute_s: float
    memory_s: float
    time_s: float
    overhead_s: float
    kernels: int
    padded_flops: float

    def __add__(self, other: StepTime) -> StepTime:
        return StepTime(self.compute_s + other.compute_s, self.memory_s + other.memory_s,
                        self.time_s + other.time_s, self.overhead_s + other.overhead_s,
                        self.kernels + other.kernels, self.padded_flops + other.padded_flops)

    def scaled(self, factor: float) -> StepTime:
        """Every part times ``factor`` (kernel count rounded)."""
        return StepTime(self.compute_s * factor, self.memory_s * factor, self.time_s * factor,
                        self.overhead_s * factor, round(self.kernels * factor),
                        self.padded_flops * factor)


_ZERO = StepTime(0.0, 0.0, 0.0, 0.0, 0, 0.0)


def op_time(op: Operator, plat: KernelPlatform, family: str) -> StepTime:
    """One operator's kernels on one device of ``plat``.

    ``time_s`` sums per kernel ``max(compute, memory) + overhead``; ``compute_s`` and
    ``memory_s`` are the two sides summed separately (to tell which bound dominates).
    """
    peak, bw = plat.device_peak(family), plat.device_bw
    if op.kind == "recurrent":
        a = op.attrs
        steps, dirs = int(a["steps"]), int(a["directions"])
        m, n, k = plat.pad(int(a["m"]), int(a["n"]), int(a["k"]))
        flops = 2.0 * dirs * m * n * k + float(a["pointwise_flops"]) / steps
        w = op.weight_bytes
        act = (op.bytes_accessed - w) / steps
        # Each step is its own kernel; it reads the weights unless they stay on chip.
        byts = act + (w / steps if plat.recurrent_weights_cached else w)
        c, mem = flops / peak, byts / bw
        return StepTime(steps * c, steps * mem, steps * (max(c, mem) + plat.kernel_overhead_s),
                        steps * plat.kernel_overhead_s, steps, steps * flops)
    dims = gemm_dims(op)
    if dims is not None:
        b, m0, n0, k0 = dims
        m, n, k = plat.pad(m0, n0, k0)
        flops = 2.0 * b * m * n * k
    else:
        flops = op.flops
    c, mem = flops / peak, op.bytes_accessed / bw
    over = 0.0 if op.kind in plat.fused_kinds else plat.kernel_overhead_s
    return StepTime(c, mem, max(c, mem) + over, over, 0 if over == 0.0 else 1, flops)


def step_time(ops: Iterable[Operator], plat: KernelPlatform, family: str, *,
              backward_factor: float = 1.0) -> StepTime:
    """All ``ops`` on one device, times ``backward_factor`` (3 for the training-as-3x-
    forward rule, 1 when ``ops`` already are a training graph), plus the step overhead."""
    if not backward_factor >= 1:
        raise ConfigError(f"must be >= 1, not {backward_factor!r}", field="backward_factor")
    tot = _ZERO
    for op in ops:
        tot = tot + op_time(op, plat, family)
    tot = tot.scaled(backward_factor)
    return replace(tot, time_s=tot.time_s + plat.step_overhead_s,
                   overhead_s=tot.overhead_s + plat.step_overhead_s)


def training_footprint_bytes(forward: WorkloadGraph) -> float:
    """Training memory of one device: :data:`BYTES_PER_PARAM_TRAINING` per parameter plus
    every forward operator output (kept for the backward pass) at the graph's data type."""
    acts = sum(t.nbytes for op in forward for t in op.outputs)
    return BYTES_PER_PARAM_TRAINING * forward.parameter_count + acts


_TPU_FUSED = frozenset({"activation", "norm", "elementwise"})
_REF_TPU = ("Cloud TPU performance guide (batch split over 8 cores, 8x128 tiles, XLA "
            "padding); Jouppi et al. 2017 (weight-tile load; 128-row floor by analogy, "
            "assumed)")


def kernel_platforms(calibration: CpuCalibration | None = None
                     ) -> tuple[KernelPlatform, ...]:
    """The four platforms' kernel models; the CPU's from ``calibration`` (default: the
    shipped measurement of this machine)."""
    cal = calibration if calibration is not None else load_calibration()
    by = {p.name: p for p in PLATFORMS}
    tpu_src = {
        "devices": "8 cores per board, batch split over them (Cloud TPU performance guide)",
        "efficiency": "1.0 of the datasheet roof (assumed; no measured efficiency offline)",
        "kernel_overhead_s": "1 us per unfused XLA op (assumed)",
        "step_overhead_s": "10 us per step: host loop / infeed amortized over "
                           "iterations=100 (assumed)",
        "padding": _REF_TPU,
        "fused_kinds": "XLA fuses element-wise ops, norms and activations (assumed)",
        "recurrent_weights_cached": "False: each time-step kernel reads its weights from "
                                    "HBM (assumed)"}
    tpu_v2 = KernelPlatform(
        roofline=by["tpu-v2"], devices=8, compute_efficiency=1.0, bandwidth_efficiency=1.0,
        kernel_overhead_s=1e-6, step_overhead_s=10e-6, row_multiple=8, min_rows=128,
        col_multiple=128, fused_kinds=_TPU_FUSED, memory_capacity_bytes=8 * GIB,
        recurrent_weights_cached=False,
        sources={**tpu_src, "memory_capacity_bytes": "8 GiB HBM per core (brief; notes' "
                 "64 GB per board)"})
    tpu_v3 = replace(tpu_v2, roofline=by["tpu-v3"], memory_capacity_bytes=16 * GIB,
                     sources={**tpu_src, "memory_capacity_bytes": "16 GiB HBM per core "
                              "(brief; notes' 128 GB per board)"})
    return (
        tpu_v2,
        tpu_v3,
        KernelPlatform(roofline=by["v100"], devices=1, compute_efficiency=1.0,
                       bandwidth_efficiency=1.0, kernel_overhead_s=5e-6, step_overhead_s=0.0,
                       row_multiple=8, min_rows=1, col_multiple=8, fused_kinds=frozenset(),
                       memory_capacity_bytes=16 * GIB, recurrent_weights_cached=False,
                       sources={
                           "efficiency": "1.0 of the datasheet roof (assumed)",
                           "kernel_overhead_s": "5 us CUDA launch per op, TensorFlow "
                                                "unfused (low end of the commonly reported "
                                                "5-10 us; assumed)",
                           "step_overhead_s": "0 (assumed)",
                           "padding": "GEMM dims to multiples of 8 for Tensor Cores "
                                      "(NVIDIA Deep Learning Performance guide)",
                           "memory_capacity_bytes": "16 GB HBM2 (datasheet)",
                           "recurrent_weights_cached": "False (assumed; cuDNN persistent "
                                                       "RNN kernels would cache them)"}),
        KernelPlatform(roofline=by["skylake"], devices=1,
                       compute_efficiency=min(1.0, cal.compute_efficiency),
                       bandwidth_efficiency=1.0, kernel_overhead_s=cal.overhead_s,
                       step_overhead_s=0.0, row_multiple=1, min_rows=1, col_multiple=1,
                       fused_kinds=frozenset(), memory_capacity_bytes=384 * GIB,
                       recurrent_weights_cached=False,
                       sources={
                           "compute_efficiency": f"measured: one-core numpy GEMM "
                                                 f"{cal.peak_flops_per_s / 1e9:.1f} GFLOP/s "
                                                 f"over nominal (assumed) "
                                                 f"{cal.nominal_peak_flops_per_s / 1e9:.1f}",
                           "kernel_overhead_s": f"measured numpy per-call overhead "
                                                f"{cal.overhead_s * 1e6:.2f} us (a lower "
                                                "bound for TensorFlow's per-op overhead)",
                           "bandwidth_efficiency": "1.0 (assumed)",
                           "memory_capacity_bytes": "384 GiB DDR4 (assumed; notes: 'large')",
                           "step_overhead_s": "0 (assumed)"}),
    )


@dataclass(frozen=True, kw_only=True)
class ModelTiming:
    """One model's training step on one platform (global batch)."""

    platform: str
    step: StepTime
    train_flops: float
    """Unpadded training FLOPs of the whole (global-batch) step."""
    footprint_bytes: float
    """Training memory per device."""
    parameters: int
    """The model's parameter count."""
    fits: bool
    method: str
    """``"training_graph"`` or ``"3x forward"``."""

    @property
    def flops_per_s(self) -> float:
        """Useful (unpadded) training FLOP/s of the platform."""
        return self.train_flops / self.step.time_s


def _train_ops(forward: WorkloadGraph) -> tuple[list[Operator], float, str]:
    """The training iteration's operators and backward factor: the training graph where
    :func:`training_graph` supports every kind, else the forward with the 3x rule."""
    if all(op.kind in DIFFERENTIABLE_KINDS for op in forward):
        return list(training_graph(forward)), 1.0, "training_graph"
    # A kind training_graph cannot differentiate: backward ~ 2x forward (data and weight
    # gradients), so training ~ 3x forward (assumed rule). ParaDnn's FC, CNN and RNN
    # (recurrent, embedding) kinds are all differentiable, so this is a guard only.
    return list(forward), 3.0, "3x forward"


#: Built graphs by (family, parameters, data-type width, per-device batch).
GraphCache = dict[tuple[str, tuple[tuple[str, int | str], ...], str, int],
                  tuple[WorkloadGraph, list[Operator], float, str]]


def time_model(family: str, params: Mapping[str, int | str],
               plats: Iterable[KernelPlatform], *, cache: GraphCache | None = None
               ) -> list[ModelTiming]:
    """Training step of ParaDnn model ``family(**params)`` on every platform of ``plats``.

    A platform with ``devices`` > 1 runs the model at ``batch / devices`` per device (the
    batch must divide); throughput counts the whole board. ``cache`` keeps the built
    graphs across calls (to time the same models on changed platforms).
    """
    cache = {} if cache is None else cache
    hp = tuple(sorted(params.items()))
    out: list[ModelTiming] = []
    batch = int(params["batch"])
    for plat in plats:
        if batch % plat.devices:
            raise ConfigError(f"batch {batch} does not split over {plat.devices} devices",
                              field="batch")
        dt = plat.roofline.dtype_by_family[family]
        width = "16bit" if dt in ("bf16", "fp16") else dt
        key = (family, hp, width, batch // plat.devices)
        if key not in cache:
            g = paradnn_model(family, **{**params, "batch": key[3]},
                              dtype="bf16" if width == "16bit" else dt)
            cache[key] = (g, *_train_ops(g))
        g, ops, factor, method = cache[key]
        st = step_time(ops, plat, family, backward_factor=factor)
        flops = plat.devices * factor * sum(op.flops for op in ops)
        fp = training_footprint_bytes(g)
        out.append(ModelTiming(platform=plat.name, step=st, train_flops=flops,
                               footprint_bytes=fp, parameters=g.parameter_count,
                               fits=fp <= plat.memory_capacity_bytes,
                               method=method))
    return out
