"""Run-to-done simulation of an HLS design.

Array arguments become the initial contents of the design's memories (no cycles spent
loading), the scalar arguments are applied, ``start`` is pulsed, the simulation runs until
``done`` with no Python on each clock edge, then the memories and the return ports are read
back. Cycles are measured by a counter beside the design (cycles from ``start`` to ``done``).

Backends: ``"pysim"`` (Amaranth's simulator, a testbench awaiting ``done``) and
``"verilator"`` (the Verilog built once per design and cached, a cocotb test awaiting
``RisingEdge(done)``; memories preloaded and read back through the simulator's hierarchy).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.sim import Simulator

from ...errors import ConfigError, SimulationError

if TYPE_CHECKING:
    from ...compilers.hls.codegen import HLSComponent
    from ...compilers.hls.design import Design

__all__ = ["HLSRunResult", "run_design", "BACKENDS", "KernelValue"]

#: What a kernel returns: an int (a float for ``Fixed``), a tuple of those, or None.
KernelValue = int | float | tuple[int | float, ...] | None

#: Backends of :func:`run_design`: Amaranth's simulator, Verilator under cocotb, and
#: Verilator under a generated C++ harness (:mod:`archsim.sim.rtl.hls_native`).
BACKENDS = ("pysim", "verilator", "native")


@dataclass(frozen=True)
class HLSRunResult:
    """What one run measured.

    Attributes
    ----------
    outputs : dict
        ``"return"`` (the returned value: int, float or tuple; None if nothing is returned)
        and, per array argument, its final contents (numpy array of the argument's shape).
    cycles : int
        Cycles from ``start`` to ``done``.
    wall_time_s : float
        Seconds spent simulating.
    backend : str
    """

    outputs: dict[str, KernelValue | np.ndarray]
    cycles: int
    wall_time_s: float
    backend: str
    extra: dict[str, float | bool] = field(default_factory=dict)

    @property
    def value(self) -> KernelValue:
        """The kernel's return value."""
        v = self.outputs.get("return")
        assert not isinstance(v, np.ndarray)
        return v

    @property
    def cycles_per_s(self) -> float:
        """Simulated cycles per second of wall time."""
        return self.cycles / self.wall_time_s if self.wall_time_s > 0 else float("inf")


class _Harness(Elaboratable):
    """The design plus a start-to-done cycle counter."""

    def __init__(self, dut: HLSComponent, max_cycles: int) -> None:
        self.dut = dut
        self.max_cycles = max_cycles
        self.count = Signal(48, name="hls_cycle_count")
        self.timeout = Signal(name="hls_timeout")

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        m.submodules.dut = self.dut
        with m.If(self.dut.busy & ~self.dut.done):
            m.d.sync += self.count.eq(self.count + 1)
        m.d.comb += self.timeout.eq(self.count >= self.max_cycles)
        return m


def _init_and_env(design: Design, args: tuple[object, ...], *,
                  wrap: bool = False) -> tuple[dict[str, list[int]], dict[str, int]]:
    from ...compilers.hls.ir import raw_scalars

    bound = design.kernel.bind(args, wrap=wrap)  # out-of-range values: an error unless wrap
    ir = design.ir
    init: dict[str, list[int]] = {}
    for name, value in bound.items():
        if name in ir.arrays:
            info = ir.arrays[name]
            init[name] = (info.fmt or info.elem).encode(value).ravel().tolist()
    return init, raw_scalars(ir, bound)


def signed_raw(value: int, width: int, is_signed: bool) -> int:
    """A ``width``-bit word read from the simulator as the raw code of its type."""
    value &= (1 << width) - 1
    return value - (1 << width) if is_signed and value >> (width - 1) else value


def _decode_outputs(design: Design, ret_raw: list[int],
                    mem_raw: dict[str, list[int]]) -> dict[str, KernelValue | np.ndarray]:
    ir = design.ir
    out: dict[str, KernelValue | np.ndarray] = {}
    vals = [t.value_of(r) for t, r in zip(ir.returns, ret_raw, strict=True)]
    out["return"] = None if not vals else (vals[0] if len(vals) == 1 else tuple(vals))
    for name, info in ir.arrays.items():
        if info.local:
            continue
        flat = np.zeros(info.size, dtype=np.int64 if info.elem.width <= 63 else object)
        for b in range(info.banks):
            words = mem_raw[f"{name}:{b}"]
            n = len(flat[info.bank_slice(b)])
            flat[info.bank_slice(b)] = words[:n]
        out[name] = (info.fmt or info.elem).decode(flat.reshape(info.shape))
    return out


def run_design(design: Design, args: tuple[object, ...], *, backend: str = "pysim",
               max_cycles: int | None = None, wrap: bool = False) -> HLSRunResult:
    """Simulate ``design`` on ``args`` until ``done``; see the module docstring."""
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}", field="backend", allowed=BACKENDS)
    init, scalars = _init_and_env(design, args, wrap=wrap)
    if max_cycles is None:
        max_cycles = 4 * design.cycles(*args, worst_case=True) + 1000
    if backend == "pysim":
        return _run_pysim(design, init, scalars, max_cycles)
    if backend == "native":
        from .hls_native import run_design_native

        return run_design_native(design, init, scalars, max_cycles)
    return _run_verilator(design, init, scalars, max_cycles)


def _run_pysim(design: Design, init: dict[str, list[int]], scalars: dict[str, int],
               max_cycles: int) -> HLSRunResult:
    dut = design.make_component(init)
    harness = _Harness(dut, max_cycles)
    sim = Simulator(harness)
    sim.add_clock(1e-6)
    ir = design.ir
    result: dict[str, Any] = {}

    from ...compilers.hls.codegen import ret_port_names

    async def bench(ctx: Any) -> None:
        for name, raw in scalars.items():
            ctx.set(getattr(dut, name), raw)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        if ctx.get(dut.done) == 0:
            # `until` samples at the clock edge: on return, done was high in the cycle before
            await ctx.tick().until(dut.done | harness.timeout)
        if ctx.get(harness.timeout):
            return
        result["count"] = ctx.get(harness.count) + 1
        result["ret"] = [ctx.get(getattr(dut, p)) for p in ret_port_names(ir)]
        mems = {}
        for (name, b), mem in dut.memories.items():
            mems[f"{name}:{b}"] = [ctx.get(mem.data[k]) for k in range(mem.depth)]
        result["mems"] = mems

    sim.add_testbench(bench)
    t0 = time.perf_counter()
    sim.run()
    wall = time.perf_counter() - t0
    if "count" not in result:
        raise SimulationError(f"kernel '{design.name}' did not finish within {max_cycles} "
                              "cycles", signal="done")
    return HLSRunResult(outputs=_decode_outputs(design, result["ret"], result["mems"]),
                        cycles=int(result["count"]), wall_time_s=wall, backend="pysim")


_JOB_ENV = "ARCHSIM_HLS_JOB"
_PERIOD_NS = 10


def _memory_names(design: Design) -> dict[str, tuple[str, int, int, bool]]:
    """Verilog memory name -> (array, bank, width, signed)."""
    out = {}
    for name, info in design.ir.arrays.items():
        if info.local:
            continue
        for b in range(info.banks):
            suffix = f"_b{b}" if info.banks > 1 else ""
            out[f"mem_{name}{suffix}"] = (name, b, info.elem.width, info.elem.signed)
    return out


def _run_verilator(design: Design, init: dict[str, list[int]], scalars: dict[str, int],
                   max_cycles: int) -> HLSRunResult:

    from ...compilers.hls.codegen import ret_port_names
    from ._toolchain import find_toolchain
    from ._verilator import ensure_build, run_cocotb_job

    ir = design.ir
    # memories start at zero in the Verilog: one build per design, data goes in through VPI
    verilog = design.verilog()
    toolchain = find_toolchain(compiler=False)
    build = ensure_build(verilog, toplevel=design.name, toolchain=toolchain)
    mems = _memory_names(design)
    words: dict[str, list[int]] = {}
    for vname, (array, bank, width, _signed) in mems.items():
        flat = init.get(array, [])
        words[vname] = [int(x) & ((1 << width) - 1)
                        for x in flat[ir.arrays[array].bank_slice(bank)]]
    rets = ret_port_names(ir)
    job = Path(tempfile.mkdtemp(prefix="archsim-hls-"))
    try:
        (job / "job.json").write_text(json.dumps({
            "scalars": {k: v & ((1 << ir.scalars[k].width) - 1) for k, v in scalars.items()},
            "memories": words, "depths": {v: ir.arrays[a].bank_depth
                                           for v, (a, *_r) in mems.items()},
            "rets": rets, "max_cycles": max_cycles}))
        start = time.perf_counter()
        info = run_cocotb_job(build, toolchain, test_module="archsim.sim.rtl.hls_run", job_dir=job,
                              env_var=_JOB_ENV, what=f"run of '{design.name}'")
        total = time.perf_counter() - start
    finally:
        shutil.rmtree(job, ignore_errors=True)
    if info.get("timeout"):
        raise SimulationError(f"kernel '{design.name}' did not finish within {max_cycles} "
                              "cycles", signal="done")

    ret_raw = [signed_raw(info["rets"][p], t.width, t.signed)
               for p, t in zip(rets, ir.returns, strict=True)]
    mem_raw = {}
    for vname, (array, bank, width, is_signed) in mems.items():
        mem_raw[f"{array}:{bank}"] = [signed_raw(v, width, is_signed)
                                      for v in info["memories"][vname]]
    return HLSRunResult(outputs=_decode_outputs(design, ret_raw, mem_raw),
                        cycles=int(info["cycles"]), wall_time_s=float(info["wall_time_s"]),
                        backend="verilator",
                        extra={"build_time_s": build.build_time_s, "build_cached": build.cached,
                               "total_time_s": total})


if os.environ.get(_JOB_ENV):  # imported by cocotb inside the Verilator simulation
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, First, RisingEdge, Timer

    @cocotb.test()
    async def hls_run_to_done(dut: Any) -> None:
        """Preload, start, wait for done (no Python per clock edge), read back."""
        job = Path(os.environ[_JOB_ENV])
        try:
            spec = json.loads((job / "job.json").read_text())
            Clock(dut.clk, _PERIOD_NS, unit="ns").start()
            dut.rst.value = 1
            dut.start.value = 0
            for _ in range(2):
                await RisingEdge(dut.clk)
            await FallingEdge(dut.clk)
            dut.rst.value = 0
            for vname, values in spec["memories"].items():
                mem = getattr(dut, vname)
                for k, v in enumerate(values):
                    mem[k].value = v
            for name, v in spec["scalars"].items():
                getattr(dut, name).value = v
            dut.start.value = 1
            await RisingEdge(dut.clk)
            t_start = cocotb.utils.get_sim_time(unit="ns")
            await FallingEdge(dut.clk)
            dut.start.value = 0
            wall0 = time.perf_counter()
            timeout = False
            if not int(dut.done.value):
                limit = Timer(spec["max_cycles"] * _PERIOD_NS, unit="ns")
                fired = await First(RisingEdge(dut.done), limit)
                timeout = fired is limit
            wall = time.perf_counter() - wall0
            t_done = cocotb.utils.get_sim_time(unit="ns")
            cycles = int(round((t_done - t_start) / _PERIOD_NS)) + 1
            memories: dict[str, list[int]] = {}
            for vname, depth in spec["depths"].items():
                mem = getattr(dut, vname)
                memories[vname] = [int(mem[k].value) for k in range(depth)]
            out = {"cycles": cycles, "wall_time_s": wall, "timeout": timeout,
                   "rets": {p: int(getattr(dut, p).value) for p in spec["rets"]},
                   "memories": memories}
            (job / "done.json").write_text(json.dumps(out))
        except Exception:
            import traceback

            (job / "error.txt").write_text(traceback.format_exc())
            raise
