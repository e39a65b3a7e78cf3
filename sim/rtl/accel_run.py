"""Run a program on a compiled accelerator's RTL to done, as its host would.

The host's job, in bus transactions (:mod:`archsim.hw.accel.bus`): write every buffer's
initial words (the non-zero runs; memories start at zero) and the program's words, write
CTRL.go, clock until ``irq``, read the CSRs (CYCLES, ERROR, the statistics) and every buffer
back. Backends: ``"verilator"`` (the Verilog under a generated C++ harness,
:mod:`archsim.sim.rtl.native`: no Python on any clock edge) and ``"pysim"`` (Amaranth's
simulator driving the same transactions from a testbench).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ConfigError, SimulationError

if TYPE_CHECKING:
    from ...compilers.accel.compiled import CompiledAccelerator
    from ...dsl.accel import Program
    from .native import NativeJob

__all__ = ["AcceleratorRunResult", "run_accelerator", "BACKENDS", "build_job"]

#: Backends of :func:`run_accelerator`.
BACKENDS = ("verilator", "pysim")


@dataclass(frozen=True)
class AcceleratorRunResult:
    """What one run of a program on the RTL measured.

    Attributes
    ----------
    buffers : dict of str to numpy.ndarray
        Every buffer's words after the run (``int64`` raw codes).
    cycles : int
        The CYCLES CSR: cycles from the go write to the HALT's retirement.
    stats : dict of str to int
        The top level's statistic CSRs (stall cycles, refreshes, per-domain busy cycles).
    error_code : int
        The ERROR CSR (0: the program ran to its HALT).
    wall_time_s : float
        Seconds simulating (the whole bus job), excluding the build.
    build_time_s : float
    build_cached : bool
    backend : str
    job_cycles : int
        Every cycle the bus job took: loads, the run and the read-back.
    """

    buffers: dict[str, np.ndarray]
    cycles: int
    stats: dict[str, int]
    error_code: int
    wall_time_s: float
    backend: str
    build_time_s: float = 0.0
    build_cached: bool = False
    job_cycles: int = 0

    @property
    def cycles_per_s(self) -> float:
        """Simulated cycles (the whole job: loads, run, read-back) per wall second."""
        return self.job_cycles / self.wall_time_s if self.wall_time_s > 0 else float("inf")


def _nonzero_runs(words: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``(start, words)`` of each run of non-zero words (short gaps of zeros bridged)."""
    nz = np.flatnonzero(words)
    runs: list[tuple[int, np.ndarray]] = []
    if nz.size == 0:
        return runs
    start = prev = int(nz[0])
    for k in nz[1:].tolist():
        if k - prev > 8:  # a gap costs one write per word; a new run costs nothing
            runs.append((start, words[start:prev + 1]))
            start = k
        prev = k
    runs.append((start, words[start:prev + 1]))
    return runs


def build_job(compiled: CompiledAccelerator, program: Program,
              buffers: Mapping[str, np.ndarray], max_cycles: int) -> tuple[NativeJob, dict[str, int]]:
    """The bus job of one run, and the index of each read's result by name."""
    from ...hw.accel.bus import (
        CSR_CTRL,
        CSR_CYCLES,
        CSR_ERROR,
        CSR_STATS,
        CTRL_GO,
        REGION_CSR,
        REGION_PROGRAM,
        buffer_region,
        bus_address,
    )
    from .native import NativeJob

    words = compiled.encode(program)
    state = compiled.initial_buffers(buffers)
    job = NativeJob()
    reads: dict[str, int] = {}

    def read(name: str, addr: int, count: int) -> None:
        reads[name] = len(reads)
        job.read(addr, count)

    for k, name in enumerate(compiled.buffers):
        for start, run in _nonzero_runs(state[name]):
            job.write(bus_address(buffer_region(k), start), run)
    job.write(bus_address(REGION_PROGRAM, 0), words)
    job.write(bus_address(REGION_CSR, CSR_CTRL), [CTRL_GO])
    job.run_until("irq", max_cycles=max_cycles)
    read("cycles", bus_address(REGION_CSR, CSR_CYCLES), 1)
    read("error", bus_address(REGION_CSR, CSR_ERROR), 1)
    stats = compiled.stat_names()
    if stats:
        read("stats", bus_address(REGION_CSR, CSR_STATS), len(stats))
    for k, (name, spec) in enumerate(compiled.buffers.items()):
        read(f"buffer:{name}", bus_address(buffer_region(k), 0), spec.words)
    return job, reads


def run_accelerator(compiled: CompiledAccelerator, program: Program,
                    buffers: Mapping[str, np.ndarray], *, backend: str = "verilator",
                    max_cycles: int | None = None) -> AcceleratorRunResult:
    """Run ``program`` on ``compiled``'s RTL (see the module docstring).

    Raises
    ------
    ConfigError
        Unknown backend.
    SimulationError
        ``irq`` did not rise within ``max_cycles`` (default: 4x the model's cycles + 1000).
    """
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}", field="backend", allowed=BACKENDS)
    if max_cycles is None:
        max_cycles = 4 * compiled.model(program, buffers=buffers).cycles + 1000
    job, reads = build_job(compiled, program, buffers, max_cycles)
    if backend == "pysim":
        results, job_cycles, wall_s = _run_pysim(compiled, job)
        build_s, cached = 0.0, False
    else:
        from .native import run_native

        native = run_native(compiled.verilog(), toplevel=compiled.name, job=job)
        results = [np.asarray(r, dtype=np.int64) for r in native.reads]
        job_cycles = native.cycles
        wall_s, build_s, cached = native.wall_time_s, native.build_time_s, native.build_cached
    stats = compiled.stat_names()
    stat_values = results[reads["stats"]].tolist() if stats else []
    out = {name: results[reads[f"buffer:{name}"]].astype(np.int64)
           for name in compiled.buffers}
    return AcceleratorRunResult(
        buffers=out, cycles=int(results[reads["cycles"]][0]),
        stats=dict(zip(stats, (int(v) for v in stat_values), strict=True)),
        error_code=int(results[reads["error"]][0]), wall_time_s=wall_s, backend=backend,
        build_time_s=build_s, build_cached=cached, job_cycles=job_cycles)


def _run_pysim(compiled: CompiledAccelerator,
               job: NativeJob) -> tuple[list[np.ndarray], int, float]:
    """Drive ``job``'s bus transactions from an Amaranth testbench, as the C++ harness does."""
    from amaranth.sim import Simulator

    from .native import NativeRead, NativeWrite

    top = compiled.top()
    results: list[np.ndarray] = []
    counter = {"cycles": 0}

    async def bench(ctx: Any) -> None:
        for op in job.ops:
            if isinstance(op, NativeWrite):
                ctx.set(top.bus_we, 1)
                for k, word in enumerate(op.words.tolist()):
                    ctx.set(top.bus_addr, op.addr + k)
                    ctx.set(top.bus_wdata, word)
                    await ctx.tick()
                ctx.set(top.bus_we, 0)
            elif isinstance(op, NativeRead):
                words = []
                ctx.set(top.bus_re, 1)
                for k in range(op.count):
                    ctx.set(top.bus_addr, op.addr + k)
                    await ctx.tick()
                    words.append(ctx.get(top.bus_rdata))
                ctx.set(top.bus_re, 0)
                results.append(np.array(words, dtype=np.int64))
            else:
                n = 0
                while not ctx.get(getattr(top, op.signal)):
                    await ctx.tick()
                    n += 1
                    if op.max_cycles is not None and n > op.max_cycles:
                        raise SimulationError(f"accelerator {compiled.name!r}: {op.signal} "
                                              f"did not rise within {op.max_cycles} cycles",
                                              signal=op.signal)
                counter["cycles"] += n

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    start = time.perf_counter()
    sim.run()
    return results, counter["cycles"] + job.cycles_without_runs, time.perf_counter() - start
