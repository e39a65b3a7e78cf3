"""Measurements on this machine: the CPU roofline's ceilings (numpy, pinned BLAS threads).

Every figure is the median of ``repeats`` timed runs after one warm-up, reported with its
minimum, maximum, relative spread ``(max - min) / median`` and the load average at the time
(the machine is shared, and load moves the figures).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ....compilers.graph.cnn import positive_int
from ....errors import ConfigError
from .profile import CpuRoofline

__all__ = ["Timing", "time_call", "measure_roofline", "measure_gemm_threads"]


@dataclass(frozen=True)
class Timing:
    """Repeated wall-clock timings of one call.

    Attributes
    ----------
    what
        What was timed.
    work
        Work per call (FLOPs, bytes or draws: see ``unit``).
    unit
        The unit of ``work`` per second (``"FLOP/s"``, ``"B/s"``, ``"draws/s"``).
    wall_s
        Every timed run's wall time, in order.
    load_avg
        ``os.getloadavg()`` just before the runs.
    threads
        BLAS threads allowed.
    """

    what: str
    work: float
    unit: str
    wall_s: tuple[float, ...]
    load_avg: tuple[float, float, float]
    threads: int

    @property
    def median_s(self) -> float:
        return float(np.median(self.wall_s))

    @property
    def rate(self) -> float:
        """Work per second at the median time."""
        return self.work / self.median_s

    @property
    def spread(self) -> float:
        """``(max - min) / median`` of the wall times."""
        return (max(self.wall_s) - min(self.wall_s)) / self.median_s

    def row(self) -> dict[str, float | str | int]:
        """A table row: rate at the median, min and max wall, spread, repeats and load."""
        return {"what": self.what, "rate": self.rate, "unit": self.unit,
                "median_s": self.median_s, "min_s": min(self.wall_s),
                "max_s": max(self.wall_s), "spread": self.spread,
                "repeats": len(self.wall_s), "threads": self.threads,
                "load_avg_1m": self.load_avg[0], "load_avg_5m": self.load_avg[1]}


def time_call(fn: Callable[[], object], *, what: str, work: float, unit: str,
              repeats: int, threads: int, warmup: int = 1) -> Timing:
    """Time ``fn`` ``repeats`` times (after ``warmup`` untimed calls) with ``threads`` BLAS
    threads."""
    positive_int("repeats", repeats)
    positive_int("threads", threads)
    if work <= 0:
        raise ConfigError(f"work must be > 0, not {work}", field="work")
    with threadpool_limits(limits=threads):
        for _ in range(warmup):
            fn()
        load = os.getloadavg()
        walls = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            walls.append(time.perf_counter() - t0)
    return Timing(what, work, unit, tuple(walls), load, threads)


def measure_roofline(*, quick: bool, seed: int = 0,
                     threads: int = 1) -> tuple[CpuRoofline, list[Timing]]:
    """Measure the four ceilings of :class:`CpuRoofline` with ``threads`` BLAS threads.

    GEMM: ``n x n`` fp32 ``matmul`` (n = 512 quick, 1024 full), ``2 n^3`` FLOPs. Vector:
    ``c = a * b + c`` in place on 2^15-element fp32 arrays (cache-resident), 2 FLOPs per
    element, 64 calls per timed run. Bandwidth: ``np.copyto`` of a 64 MiB array, counted as
    read + write (128 MiB; write-allocate traffic not counted). Normal draws:
    ``Generator.standard_normal`` of 2^20 fp32 values.
    """
    rng = np.random.default_rng(seed)
    repeats = 3 if quick else 7
    n = 512 if quick else 1024
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    out = np.empty((n, n), dtype=np.float32)
    gemm = time_call(lambda: np.matmul(a, b, out=out), what=f"fp32 GEMM {n}^3",
                     work=2.0 * n ** 3, unit="FLOP/s", repeats=repeats, threads=threads)
    m = 1 << 15
    x, y, z = (rng.standard_normal(m, dtype=np.float32) for _ in range(3))
    tmp = np.empty(m, dtype=np.float32)
    calls = 64

    def fma() -> None:
        for _ in range(calls):
            np.multiply(x, y, out=tmp)
            np.add(tmp, z, out=z)
            np.multiply(z, 0.5, out=z)  # keeps the values bounded; not counted

    vec = time_call(fma, what=f"fp32 a*b+c, {m} elements x {calls}",
                    work=2.0 * m * calls, unit="FLOP/s", repeats=repeats, threads=threads)
    big = rng.standard_normal(16 << 20, dtype=np.float32)  # 64 MiB
    dst = np.empty_like(big)
    bw = time_call(lambda: np.copyto(dst, big), what="copy 64 MiB (read + write)",
                   work=2.0 * big.nbytes, unit="B/s", repeats=repeats, threads=threads)
    buf = np.empty(1 << 20, dtype=np.float32)
    draws = time_call(lambda: rng.standard_normal(out=buf, dtype=np.float32),
                      what="standard normal draws, 2^20 fp32", work=float(buf.size),
                      unit="draws/s", repeats=repeats, threads=threads)
    roof = CpuRoofline(gemm_flops_per_s=gemm.rate, vector_flops_per_s=vec.rate,
                       mem_bw_bytes_per_s=bw.rate, normal_draws_per_s=draws.rate,
                       threads=threads)
    return roof, [gemm, vec, bw, draws]


def measure_gemm_threads(*, quick: bool, seed: int = 0) -> list[Timing]:
    """One ``n x n`` fp32 GEMM (n = 512 quick, 1024 full) at 1 and at 2 BLAS threads,
    alternating over 3 rounds (so a change of load hits both): the kernel-level speedup
    next to the graphs' (a GEMM is the best case for intra-op threads)."""
    rng = np.random.default_rng(seed)
    n = 512 if quick else 1024
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    out = np.empty((n, n), dtype=np.float32)
    walls: dict[int, list[float]] = {1: [], 2: []}
    loads: dict[int, tuple[float, float, float]] = {}
    for _ in range(3):
        for threads in (1, 2):
            t = time_call(lambda: np.matmul(a, b, out=out), what=f"fp32 GEMM {n}^3",
                          work=2.0 * n ** 3, unit="FLOP/s", repeats=2 if quick else 5,
                          threads=threads)
            walls[threads].extend(t.wall_s)
            loads.setdefault(threads, t.load_avg)
    return [Timing(f"fp32 GEMM {n}^3, {k} thread{'s' if k > 1 else ''}", 2.0 * n ** 3,
                   "FLOP/s", tuple(walls[k]), loads[k], k) for k in (1, 2)]
