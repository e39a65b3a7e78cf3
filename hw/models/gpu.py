"""GPU datasheets and a roofline execution model.

Shared by the serving, distributed-training and SoC models so every study uses
the same numbers. Figures are dense (no structured sparsity) peak rates from
NVIDIA's public datasheets: *NVIDIA A100 Tensor Core GPU* datasheet (2021,
SXM4 columns) and *NVIDIA H100 Tensor Core GPU* datasheet (2023, SXM5 column).
Memory capacity is in bytes as reported by the driver (40960 / 81920 MiB).
NVLink figures are per direction (the datasheets quote both directions summed).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import ConfigError
from .base import OperatorCost, Work

__all__ = ["GPUSpec", "GPU_SPECS", "get_gpu", "GPURoofline", "CalibratedGPU"]

_GIB = 1024**3


@dataclass(frozen=True)
class GPUSpec:
    """One GPU model's datasheet.

    Attributes
    ----------
    peak_flops_per_s
        Dense peak by data type (``"fp64"``, ``"fp32"``, ``"tf32"``, ``"fp16"``,
        ``"bf16"``, ``"fp8"``, ``"int8"``), in FLOP/s (or OP/s for integers).
    """

    name: str
    peak_flops_per_s: dict[str, float]
    hbm_bw_bytes_per_s: float
    hbm_capacity_bytes: float
    nvlink_bw_bytes_per_s: float
    pcie_bw_bytes_per_s: float
    tdp_w: float
    source: str = ""
    extra: dict[str, float] = field(default_factory=dict)

    def peak(self, dtype: str) -> float:
        """Dense peak FLOP/s for ``dtype``; unknown types are a :class:`ConfigError`."""
        try:
            return self.peak_flops_per_s[dtype]
        except KeyError:
            raise ConfigError(
                f"GPU '{self.name}' has no peak rate for data type '{dtype}'",
                field="dtype",
                allowed=sorted(self.peak_flops_per_s),
            ) from None


_A100_PEAKS = {
    "fp64": 19.5e12, "fp32": 19.5e12, "tf32": 156e12,
    "fp16": 312e12, "bf16": 312e12, "int8": 624e12,
}
_H100_PEAKS = {
    "fp64": 66.9e12, "fp32": 66.9e12, "tf32": 494.7e12,
    "fp16": 989.4e12, "bf16": 989.4e12, "fp8": 1978.9e12, "int8": 1978.9e12,
}

GPU_SPECS: dict[str, GPUSpec] = {
    "a100-40gb": GPUSpec(
        name="a100-40gb", peak_flops_per_s=_A100_PEAKS, hbm_bw_bytes_per_s=1555e9,
        hbm_capacity_bytes=40 * _GIB, nvlink_bw_bytes_per_s=300e9, pcie_bw_bytes_per_s=32e9,
        tdp_w=400.0, source="NVIDIA A100 datasheet (2021), SXM4 40GB",
    ),
    "a100-80gb": GPUSpec(
        name="a100-80gb", peak_flops_per_s=_A100_PEAKS, hbm_bw_bytes_per_s=2039e9,
        hbm_capacity_bytes=80 * _GIB, nvlink_bw_bytes_per_s=300e9, pcie_bw_bytes_per_s=32e9,
        tdp_w=400.0, source="NVIDIA A100 datasheet (2021), SXM4 80GB",
    ),
    "h100-80gb": GPUSpec(
        name="h100-80gb", peak_flops_per_s=_H100_PEAKS, hbm_bw_bytes_per_s=3.35e12,
        hbm_capacity_bytes=80 * _GIB, nvlink_bw_bytes_per_s=450e9, pcie_bw_bytes_per_s=64e9,
        tdp_w=700.0, source="NVIDIA H100 datasheet (2023), SXM5 80GB",
    ),
    # EdgeBERT's GPU baseline. Verified (NVIDIA Jetson TX2 System-on-Module data sheet
    # DA-08442, v1.1, 2017): a 256-core Pascal GPU, 8 GB LPDDR4 on a 128-bit bus; the Max-Q
    # mode's GPU clock 854 MHz (press coverage of the launch, hwsw.hu 2017). Derived: FP32 peak
    # = 256 cores x 2 FLOP (FMA) x 1.3 GHz; FP16 at twice that (GP10B's paired half-precision
    # FMA); 59.7 GB/s = LPDDR4-3733 x 16 bytes. Recalled, not verified here: the 1.3 GHz
    # Max-N GPU clock, the 3733 MT/s memory rate, and the 7.5 W (Max-Q) / 15 W (Max-N) module
    # power. No NVLink; PCIe is not used by the single-device studies (assumed 4 GB/s).
    "jetson-tx2": GPUSpec(
        name="jetson-tx2",
        peak_flops_per_s={"fp32": 256 * 2 * 1.3e9, "fp16": 2 * 256 * 2 * 1.3e9},
        hbm_bw_bytes_per_s=3733e6 * 16, hbm_capacity_bytes=8 * _GIB,
        nvlink_bw_bytes_per_s=0.0, pcie_bw_bytes_per_s=4e9, tdp_w=15.0,
        source="NVIDIA Jetson TX2 module data sheet DA-08442 (cores, bus, capacity); clocks, "
               "memory rate and power recalled (see hw/models/gpu.py)",
        extra={"max_q_tdp_w": 7.5, "max_q_gpu_clock_hz": 854e6, "max_n_gpu_clock_hz": 1.3e9}),
    # DeepRecSys's GPU (accelerator/predict_execution.py of harvard-acc/DeepRecSys measures a
    # GTX 1080 Ti). NVIDIA GeForce GTX 1080 Ti specifications (2017): 3584 CUDA cores at a
    # 1582 MHz boost clock, 11 GB GDDR5X on a 352-bit bus at 11 Gb/s, 250 W, PCIe 3.0 x16.
    # Derived: FP32 peak = 3584 x 2 FLOP (FMA) x 1.582 GHz = 11.34 TFLOP/s; 484 GB/s =
    # 11 Gb/s x 352 / 8; PCIe 3.0 x16 = 16 lanes x 8 GT/s x 128/130 / 8 = 15.75 GB/s per
    # direction. GP102 runs FP16 at 1/64 of FP32 (NVIDIA Pascal tuning guide) and INT8 dot
    # products (dp4a) at 4x.
    "gtx-1080-ti": GPUSpec(
        name="gtx-1080-ti",
        peak_flops_per_s={"fp32": 3584 * 2 * 1.582e9, "fp16": 3584 * 2 * 1.582e9 / 64,
                          "int8": 4 * 3584 * 2 * 1.582e9},
        hbm_bw_bytes_per_s=11e9 * 352 / 8, hbm_capacity_bytes=11 * _GIB,
        nvlink_bw_bytes_per_s=0.0, pcie_bw_bytes_per_s=16 * 8e9 * 128 / 130 / 8, tdp_w=250.0,
        source="NVIDIA GeForce GTX 1080 Ti specifications (2017): cores, boost clock, memory "
               "bus and rate, TDP; peaks derived (see hw/models/gpu.py)"),
}
_ALIASES = {"a100": "a100-80gb", "h100": "h100-80gb", "tx2": "jetson-tx2",
            "1080ti": "gtx-1080-ti"}


def get_gpu(name: str) -> GPUSpec:
    """Look up a GPU by name (``a100-40gb``, ``a100-80gb``, ``h100-80gb``, ``jetson-tx2``,
    ``gtx-1080-ti``; ``a100``, ``h100``, ``tx2``, ``1080ti``)."""
    key = _ALIASES.get(name.lower(), name.lower())
    try:
        return GPU_SPECS[key]
    except KeyError:
        raise ConfigError(
            f"unknown GPU '{name}'", field="gpu", allowed=sorted(GPU_SPECS) + sorted(_ALIASES)
        ) from None


@dataclass(frozen=True)
class GPURoofline:
    """Roofline execution of operators on one GPU.

    ``latency = max(flops / (peak * compute_efficiency), bytes / (bw * memory_efficiency))
    + launch_overhead_s``; energy is the board power (``power_fraction`` of TDP)
    over that time. The efficiencies are parameters because achieved fractions
    of peak are workload- and software-dependent; studies state what they use.
    """

    spec: GPUSpec
    dtype: str = "fp16"
    compute_efficiency: float = 1.0
    memory_efficiency: float = 1.0
    launch_overhead_s: float = 0.0
    power_fraction: float = 1.0
    name: str = ""

    def __post_init__(self) -> None:
        for attr in ("compute_efficiency", "memory_efficiency", "power_fraction"):
            value = getattr(self, attr)
            if not 0 < value <= 1:
                raise ConfigError(f"must be in (0, 1], not {value!r}", field=attr)
        if self.launch_overhead_s < 0:
            raise ConfigError(
                f"must be >= 0, not {self.launch_overhead_s!r}", field="launch_overhead_s"
            )
        self.spec.peak(self.dtype)  # validates dtype
        if not self.name:
            object.__setattr__(self, "name", f"{self.spec.name}-roofline")

    def time_s(self, flops: float, bytes_accessed: float) -> tuple[float, str]:
        """Roofline time and the bound (``"compute"`` or ``"memory"``) of one kernel."""
        compute_s = flops / (self.spec.peak(self.dtype) * self.compute_efficiency)
        memory_s = bytes_accessed / (self.spec.hbm_bw_bytes_per_s * self.memory_efficiency)
        if compute_s >= memory_s:
            return compute_s + self.launch_overhead_s, "compute"
        return memory_s + self.launch_overhead_s, "memory"

    def operator_cost(self, work: Work) -> OperatorCost:
        latency_s, bound = self.time_s(work.flops, work.bytes_accessed)
        return OperatorCost(
            latency_s=latency_s, energy_j=latency_s * self.spec.tdp_w * self.power_fraction,
            bound=bound,
        )


class CalibratedGPU:
    """A GPU priced from measured per-operator profiles instead of a datasheet.

    ``profiles`` maps an operator kind (``"matmul"``, ``"conv2d"``, ...) to measured
    ``(flops, latency_s)`` points. An operator's latency is the piecewise-linear
    interpolation of its kind's points at its FLOPs; beyond the measured range the end
    segment is extended (a kind with one point scales it proportionally to the FLOPs).
    Energy is ``power_w`` over that time; the bound is ``"measured"``.

    Parameters
    ----------
    profiles
        Kind -> measured points; FLOPs > 0 and distinct per kind, latencies >= 0.
    power_w
        Board power while an operator runs (0: energy not modelled).
    name
        The executor's name.

    Raises
    ------
    ConfigError
        An empty profile, a non-positive or repeated FLOPs value, a negative latency.
    """

    def __init__(self, *, profiles: Mapping[str, Iterable[tuple[float, float]]],
                 power_w: float = 0.0, name: str = "calibrated-gpu") -> None:
        if not profiles:
            raise ConfigError("no operator profiles given", field="profiles")
        if not (power_w >= 0 and math.isfinite(power_w)):
            raise ConfigError(f"must be a finite number >= 0, not {power_w!r}", field="power_w")
        table: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for kind, points in profiles.items():
            pts = sorted((float(f), float(t)) for f, t in points)
            where = f"profiles.{kind}"
            if not pts:
                raise ConfigError(f"operator kind '{kind}' has no measured points", field=where)
            flops = np.array([f for f, _ in pts])
            lat = np.array([t for _, t in pts])
            if not (np.all(np.isfinite(flops)) and flops[0] > 0):
                raise ConfigError(f"FLOPs must be finite and > 0, not {flops.tolist()}",
                                  field=where)
            if np.any(np.diff(flops) == 0):
                raise ConfigError(f"operator kind '{kind}' has two points at the same FLOPs",
                                  field=where)
            if not (np.all(np.isfinite(lat)) and np.all(lat >= 0)):
                raise ConfigError(f"latencies must be finite and >= 0, not {lat.tolist()}",
                                  field=where)
            table[kind] = (flops, lat)
        self._table = table
        self.power_w = float(power_w)
        self.name = name

    @classmethod
    def from_csv(cls, path: str | Path, *, power_w: float = 0.0,
                 name: str = "calibrated-gpu") -> CalibratedGPU:
        """Profiles from a CSV file with columns ``kind``, ``flops`` and ``latency_s``
        (one row per measured operator; other columns are ignored).

        Raises
        ------
        ConfigError
            The file cannot be read, lacks a column or has a value that is not a number
            (naming the file and the row).
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read GPU profile: {exc.strerror}", file=str(path)) \
                from None
        reader = csv.DictReader(text.splitlines())
        need = ("kind", "flops", "latency_s")
        missing = [c for c in need if c not in (reader.fieldnames or [])]
        if missing:
            raise ConfigError(f"missing column(s) {', '.join(missing)}", file=str(path),
                              field="columns", allowed=list(need))
        profiles: dict[str, list[tuple[float, float]]] = {}
        for i, row in enumerate(reader, start=2):
            try:
                point = (float(row["flops"]), float(row["latency_s"]))
            except (TypeError, ValueError):
                raise ConfigError(f"row {i}: flops and latency_s must be numbers, not "
                                  f"{row['flops']!r}, {row['latency_s']!r}", file=str(path),
                                  field="flops") from None
            profiles.setdefault(row["kind"].strip(), []).append(point)
        return cls(profiles=profiles, power_w=power_w, name=name)

    @property
    def kinds(self) -> list[str]:
        """The operator kinds with a profile, sorted."""
        return sorted(self._table)

    def latency_s(self, kind: str, flops: float) -> float:
        """Interpolated (or end-segment extrapolated) latency of ``flops`` of ``kind``."""
        try:
            xs, ys = self._table[kind]
        except KeyError:
            raise ConfigError(f"GPU '{self.name}' has no measured profile for operator kind "
                              f"'{kind}'", field="kind", allowed=self.kinds) from None
        if len(xs) == 1:
            return float(ys[0] * flops / xs[0])
        if flops <= xs[0]:
            i = 0
        elif flops >= xs[-1]:
            i = len(xs) - 2
        else:
            return float(np.interp(flops, xs, ys))
        slope = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])
        return float(max(ys[i] + slope * (flops - xs[i]), 0.0))

    def operator_cost(self, work: Work) -> OperatorCost:
        latency_s = self.latency_s(work.kind, work.flops)
        return OperatorCost(latency_s=latency_s, energy_j=latency_s * self.power_w,
                            bound="measured")
