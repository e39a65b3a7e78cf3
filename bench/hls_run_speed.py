"""Run-to-done speed of an HLS design: cocotb + Verilator vs the native C++ harness vs a
hand-written C++ main of the same Verilog.

The kernel is a 1024-element int8 dot product repeated ``reps`` times (``reps = 1000``: about
1M cycles). ``design.simulate(..., backend="verilator")`` runs it under cocotb (memories
preloaded through VPI, a build with ``--vpi --public-flat-rw``); ``backend="native"`` wraps it
in a bus harness (:mod:`archsim.sim.rtl.hls_native`) and runs a generated ``-O3`` C++ main with
no Python per edge. The hand-written comparison is ``bench/accel_native.py``'s: a main
generated from the same job in the hand-written style (data compiled in, no job file).
Printed: cycles/s of each and the ratios. The result is checked against numpy.

Run from ``bench/``: ``python hls_run_speed.py [--reps 1000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from archsim.dsl import Array, Int, kernel, pipeline

__all__ = ["dot_rep", "native_dot_design", "main"]

N = 1024


@kernel
def dot_rep(a: Array[Int(8), 1024], b: Array[Int(8), 1024], reps: Int(16)) -> Int(32):
    acc = Int(32)(0)
    for _r in range(reps):
        for i in pipeline(range(1024), ii=1):
            acc += a[i] * b[i]
    return acc


def _inputs(reps: int) -> tuple[np.ndarray, np.ndarray, int]:
    rng = np.random.default_rng(0)
    return rng.integers(-128, 128, N), rng.integers(-128, 128, N), reps


def native_dot_design(reps: int = 1000) -> tuple[Any, Any, Any]:
    """``(component, job, check)`` for ``accel_native.run_benchmark(design=...)``."""
    from archsim.sim.rtl.hls_native import HLSBusHarness, bank_regions
    from archsim.sim.rtl.native import NativeJob

    design = dot_rep.synthesize(clock_ns=2.0)
    a, b, reps = _inputs(reps)
    job = NativeJob()
    job.write(32 << 0, [reps, 0])  # scalar 0 (region 0, offset 32)
    for k, (array, _, _) in enumerate(bank_regions(design)):
        words = (a if array == "a" else b).astype(np.int64) & 0xFF
        job.write(((1 + k) << 24), words.tolist())
    job.write(0, [1])
    job.run_until("irq", max_cycles=4 * reps * N + 1000)
    job.read(16, 2)
    expected = int(reps * np.dot(a, b)) & 0xFFFFFFFF

    def check(reads: list[np.ndarray]) -> None:
        if int(reads[0][0]) & 0xFFFFFFFF != expected:
            raise AssertionError("the dot product differs from numpy")

    return HLSBusHarness(design), job, check


def main() -> None:
    import time

    import accel_native

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    design = dot_rep.synthesize(clock_ns=2.0)
    a, b, reps = _inputs(args.reps)
    expected = int(np.int64(reps) * int(np.dot(a, b)))
    rates = {}
    for backend in ("verilator", "native"):
        best = 0.0
        for _ in range(args.repeat):
            t = time.perf_counter()
            r = design.simulate(a, b, reps, backend=backend)
            if r.value != expected:
                raise AssertionError(f"{backend}: {r.value} != {expected}")
            best = max(best, r.cycles_per_s)
            del t
        rates[backend] = best
        print(f"design.simulate(backend={backend!r}): {r.cycles} cycles, "
              f"{best / 1e6:.2f}M cycles/s (best of {args.repeat})", flush=True)
    import hls_run_speed  # the module run_benchmark resolves the design factory from

    hls_run_speed._REPS = args.reps
    row = accel_native.run_benchmark(design="hls_run_speed:_bench_design", repeat=args.repeat)
    print(f"native harness (whole job): {row['run_native_cycles_per_s'] / 1e6:.2f}M cycles/s; "
          f"hand-written main: {row['handwritten_cycles_per_s'] / 1e6:.2f}M cycles/s "
          f"({row['handwritten_over_run_native']:.2f}x native); with the registered reset: "
          f"{row['handwritten_reset_register_cycles_per_s'] / 1e6:.2f}M cycles/s")
    print(f"native / cocotb: {rates['native'] / rates['verilator']:.1f}x; "
          f"native / hand-written: {row['run_native_cycles_per_s'] / row['handwritten_cycles_per_s']:.2f}"
          " (target >= 0.5)")


_REPS = 1000


def _bench_design() -> tuple[Any, Any, Any]:
    return native_dot_design(_REPS)


if __name__ == "__main__":
    main()
