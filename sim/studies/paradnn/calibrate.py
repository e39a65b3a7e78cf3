"""Calibrate the CPU kernel model by measuring small numpy GEMMs on this machine.

Each square fp32 GEMM ``(n x n) @ (n x n)`` is timed ``repeats`` times (each repeat a loop
of calls long enough to be well above the timer's resolution), and
``time = overhead + flops / peak`` is fitted by least squares weighted by ``1 / time``
(relative residuals, because times span orders of magnitude). The intercept is the per-call
overhead of a framework-like dispatch (numpy here: a lower bound for TensorFlow's per-op
overhead), the slope's inverse the sustained GEMM FLOP/s of this machine; divided by this
machine's nominal peak it gives the compute efficiency the study applies to the Skylake
platform.

Run ``python -m archsim.sim.studies.paradnn.calibrate OUT.json`` to re-measure; the study
reads the shipped ``data/cpu_gemm_calibration.json``.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

from ....errors import ConfigError
from ....outputs import write_json

__all__ = ["GemmTiming", "CpuCalibration", "NOMINAL_PEAK_FLOPS_PER_S", "DEFAULT_SIZES",
           "measure_gemm", "fit_overhead_peak", "calibrate", "load_calibration",
           "CALIBRATION_FILE"]

#: This machine's nominal fp32 peak per core, **assumed**: 2.6 GHz (the TSC rate the VM
#: reports; the turbo clock is not visible) x 2 AVX-512 FMA units x 16 lanes x 2 FLOP.
NOMINAL_PEAK_FLOPS_PER_S: float = 2.6e9 * 2 * 16 * 2

#: Square GEMM sizes measured by default (small ones expose the per-call overhead).
DEFAULT_SIZES: tuple[int, ...] = (4, 8, 16, 32, 64, 96, 128, 192, 256, 384, 512)

#: The shipped calibration (package data).
CALIBRATION_FILE = "data/cpu_gemm_calibration.json"


@dataclass(frozen=True, kw_only=True)
class GemmTiming:
    """Per-call times of one square GEMM size over ``repeats`` repeats."""

    n: int
    flops: float
    calls_per_repeat: int
    median_s: float
    min_s: float
    max_s: float
    repeats: int


@dataclass(frozen=True, kw_only=True)
class CpuCalibration:
    """The fitted CPU kernel model and the measurements behind it."""

    overhead_s: float
    peak_flops_per_s: float
    nominal_peak_flops_per_s: float
    timings: tuple[GemmTiming, ...]
    loadavg_before: tuple[float, float, float]
    loadavg_after: tuple[float, float, float]
    max_rel_residual: float
    note: str
    min_fit: tuple[float, float] = (math.nan, math.nan)
    """``(overhead_s, peak_flops_per_s)`` fitted on each size's fastest repeat instead of
    its median (less sensitive to the machine's load)."""

    @property
    def compute_efficiency(self) -> float:
        """Sustained one-core GEMM FLOP/s over one core's nominal (assumed) peak."""
        return self.peak_flops_per_s / self.nominal_peak_flops_per_s


def measure_gemm(n: int, *, repeats: int = 7, min_repeat_s: float = 0.02,
                 seed: int = 0) -> GemmTiming:
    """Time ``(n x n) @ (n x n)`` in fp32 with numpy: ``repeats`` loops of ``calls`` calls.

    ``calls`` is chosen from one warm-up call so a loop lasts about ``min_repeat_s``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ConfigError(f"must be a positive integer, not {n!r}", field="n")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError(f"must be an integer >= 1, not {repeats!r}", field="repeats")
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    t0 = time.perf_counter()
    for _ in range(3):
        a @ b
    one = max((time.perf_counter() - t0) / 3, 1e-7)
    calls = max(1, int(min_repeat_s / one))
    per_call: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            a @ b
        per_call.append((time.perf_counter() - t0) / calls)
    arr = np.asarray(per_call)
    return GemmTiming(n=n, flops=2.0 * n ** 3, calls_per_repeat=calls,
                      median_s=float(np.median(arr)), min_s=float(arr.min()),
                      max_s=float(arr.max()), repeats=repeats)


def fit_overhead_peak(flops: Sequence[float], times_s: Sequence[float]
                      ) -> tuple[float, float, float]:
    """Fit ``t = overhead + flops / peak``, weighted by ``1 / t``.

    Returns ``(overhead_s, peak_flops_per_s, max relative residual)``. Raises
    :class:`ConfigError` when fewer than two points are given or the fit is not physical
    (negative overhead or slope).
    """
    f = np.asarray(flops, dtype=float)
    t = np.asarray(times_s, dtype=float)
    if f.shape != t.shape or f.size < 2:
        raise ConfigError(f"need >= 2 (flops, time) pairs of equal length, got {f.size} and "
                          f"{t.size}", field="times_s")
    if not (np.all(t > 0) and np.all(f > 0)):
        raise ConfigError("flops and times must be > 0", field="times_s")
    x = np.column_stack([1.0 / t, f / t])  # divide each row t_i = c0 + c1 f_i by t_i
    (c0, c1), *_ = np.linalg.lstsq(x, np.ones_like(t), rcond=None)
    if c0 < 0 or c1 <= 0:
        raise ConfigError(f"fit is not physical: overhead {c0:.3g} s, 1/peak {c1:.3g}",
                          field="times_s")
    resid = (c0 + c1 * f - t) / t
    return float(c0), float(1.0 / c1), float(np.max(np.abs(resid)))


def calibrate(*, sizes: Sequence[int] = DEFAULT_SIZES, repeats: int = 7,
              min_repeat_s: float = 0.02) -> CpuCalibration:
    """Measure every size in ``sizes`` on one BLAS thread and fit overhead + peak.

    One thread because this 2-core machine is shared: a 2-thread OpenBLAS GEMM measured
    ~16 ms for n = 128 (vs ~30 us on one thread), its threads waiting on the scheduler,
    which is the machine's load, not the kernel. The fit is therefore per core.
    """
    from threadpoolctl import threadpool_limits

    before = os.getloadavg()
    with threadpool_limits(limits=1):
        timings = tuple(measure_gemm(n, repeats=repeats, min_repeat_s=min_repeat_s)
                        for n in sizes)
        blas = "; ".join(f"{i.get('internal_api')} {i.get('num_threads')} thread(s)"
                         for i in threadpool_info())
    after = os.getloadavg()
    ov, peak, resid = fit_overhead_peak([t.flops for t in timings],
                                        [t.median_s for t in timings])
    ov_min, peak_min, _ = fit_overhead_peak([t.flops for t in timings],
                                            [t.min_s for t in timings])
    note = (f"numpy {np.__version__} fp32 a @ b, medians of {repeats} repeats; {blas}; "
            f"{os.cpu_count()} CPUs; load average {before[0]:.2f} before, {after[0]:.2f} after")
    return CpuCalibration(overhead_s=ov, peak_flops_per_s=peak,
                          nominal_peak_flops_per_s=NOMINAL_PEAK_FLOPS_PER_S, timings=timings,
                          loadavg_before=(before[0], before[1], before[2]),
                          loadavg_after=(after[0], after[1], after[2]),
                          max_rel_residual=resid, note=note, min_fit=(ov_min, peak_min))


def _to_dict(cal: CpuCalibration) -> dict[str, object]:
    return {"overhead_s": cal.overhead_s, "peak_flops_per_s": cal.peak_flops_per_s,
            "nominal_peak_flops_per_s": cal.nominal_peak_flops_per_s,
            "compute_efficiency": cal.compute_efficiency,
            "loadavg_before": list(cal.loadavg_before), "loadavg_after": list(cal.loadavg_after),
            "max_rel_residual": cal.max_rel_residual, "note": cal.note,
            "min_fit": list(cal.min_fit),
            "timings": [t.__dict__ for t in cal.timings]}


def load_calibration(path: Path | None = None) -> CpuCalibration:
    """Read a calibration written by :func:`main` (default: the shipped one)."""
    if path is None:
        text = resources.files(__package__).joinpath(CALIBRATION_FILE).read_text()
    else:
        text = Path(path).read_text()
    d = json.loads(text)
    try:
        timings = tuple(GemmTiming(**t) for t in d["timings"])
        lb, la = d["loadavg_before"], d["loadavg_after"]
        return CpuCalibration(
            overhead_s=float(d["overhead_s"]), peak_flops_per_s=float(d["peak_flops_per_s"]),
            nominal_peak_flops_per_s=float(d["nominal_peak_flops_per_s"]), timings=timings,
            loadavg_before=(float(lb[0]), float(lb[1]), float(lb[2])),
            loadavg_after=(float(la[0]), float(la[1]), float(la[2])),
            max_rel_residual=float(d["max_rel_residual"]), note=str(d["note"]),
            min_fit=fit_overhead_peak([t.flops for t in timings],
                                      [t.min_s for t in timings])[:2])
    except (KeyError, TypeError, IndexError) as exc:
        raise ConfigError(f"calibration file is malformed: {exc!r}", field="path") from None


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m archsim.sim.studies.paradnn.calibrate OUT.json``: measure and write."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m archsim.sim.studies.paradnn.calibrate OUT.json",
              file=sys.stderr)
        return 2
    cal = calibrate()
    write_json(Path(args[0]), _to_dict(cal))
    print(f"overhead {cal.overhead_s * 1e6:.2f} us, peak {cal.peak_flops_per_s / 1e9:.1f} "
          f"GFLOP/s ({cal.compute_efficiency:.2f} of nominal), max rel residual "
          f"{cal.max_rel_residual:.2f}; fastest-repeat fit {cal.min_fit[0] * 1e6:.2f} us, "
          f"{cal.min_fit[1] / 1e9:.1f} GFLOP/s; {cal.note}")
    for t in cal.timings:
        spread = (t.max_s - t.min_s) / t.median_s if math.isfinite(t.median_s) else math.nan
        print(f"  n={t.n:4d} median {t.median_s * 1e6:9.2f} us  spread {spread:.2%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
