"""The ``pysim`` backend: Amaranth's own simulator driven by an async testbench."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from amaranth.hdl import ClockDomain, Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from ...outputs import atomic_path
from ._ports import Port, Stimulus

__all__ = ["run_pysim"]


def run_pysim(
    component: wiring.Component,
    ports: Mapping[str, Port],
    stimulus: Stimulus,
    waveform: Path | None,
) -> tuple[dict[str, list[int]], dict[str, int], float]:
    """Simulate; return the recorded and final unsigned patterns per output, and the seconds."""
    # An explicit `sync` domain gives the testbench the reset signal the Verilog's `rst` is.
    top = Module()
    top.domains.sync = sync = ClockDomain("sync")
    top.submodules.dut = component
    sim = Simulator(top)
    sim.add_clock(1e-6, domain="sync")

    cycles = stimulus.cycles
    held = [(ports[n].signal, v[0]) for n, v in stimulus.inputs.items() if len(v) == 1]
    varying = [(ports[n].signal, v) for n, v in stimulus.inputs.items() if len(v) > 1]
    recorded = [(ports[n].signal, (1 << ports[n].width) - 1) for n in stimulus.outputs]
    raw: list[list[int]] = [[] for _ in recorded]
    finals = [(p.name, p.signal, (1 << p.width) - 1) for p in ports.values() if not p.is_input]
    final: dict[str, int] = {}

    async def testbench(ctx):
        ctx.set(sync.rst, 1)
        await ctx.tick()
        ctx.set(sync.rst, 0)
        for signal, value in held:
            ctx.set(signal, value)
        if not varying and not recorded:
            if cycles:
                await ctx.tick().repeat(cycles)
        else:
            for k in range(cycles):
                for signal, values in varying:
                    ctx.set(signal, values[k])
                for (signal, mask), out in zip(recorded, raw, strict=True):
                    out.append(ctx.get(signal) & mask)
                await ctx.tick()
        for name, signal, mask in finals:
            final[name] = ctx.get(signal) & mask

    sim.add_testbench(testbench)
    start = time.perf_counter()
    if waveform is None:
        sim.run()
    else:
        # Written next to the target and renamed, so no partial dump is ever left behind.
        with atomic_path(waveform) as tmp:
            with sim.write_vcd(str(tmp), traces=[p.signal for p in ports.values()]):
                sim.run()
    wall_time_s = time.perf_counter() - start
    return dict(zip(stimulus.outputs, raw, strict=True)), final, wall_time_s
