"""Run one accelerator unit on buffer contents (Amaranth's simulator): the unit-level bench.

Each buffer the unit's operands bind to becomes an Amaranth memory of raw words, initialised
from the given array; the arguments are applied, ``start`` is pulsed, the simulation runs
until ``done`` and the buffers are read back. Optionally the unit's ``sync`` domain is frozen
in pseudo-random cycles (as an eDRAM refresh or a DVFS change freezes it in an accelerator),
so a test can show that a unit's results and enabled-cycle count do not depend on stalls.

>>> result = run_unit(unit, {"src": x, "dst": np.zeros(64, np.int64)}, {"n": 64, ...})  # doctest: +SKIP
>>> result.cycles == unit.cycles(args)                                                 # doctest: +SKIP
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import SimulationError

if TYPE_CHECKING:
    from ...hw.accel.interface import Unit

__all__ = ["UnitRunResult", "run_unit"]


@dataclass(frozen=True)
class UnitRunResult:
    """What :func:`run_unit` measured.

    Attributes
    ----------
    buffers : dict of str to numpy.ndarray
        Every buffer's words after the run (``int64``, unsigned raw words).
    cycles : int
        Enabled cycles from the cycle ``start`` was sampled to the cycle ``done`` was high,
        as :meth:`Unit.cycles` counts them.
    stall_cycles : int
        Cycles the unit was frozen in between.
    result : int or None
        The unit's ``result`` output in its ``done`` cycle (None: its contract has none).
    """

    buffers: dict[str, np.ndarray]
    cycles: int
    stall_cycles: int
    result: int | None = None


def run_unit(unit: Unit, buffers: Mapping[str, np.ndarray], args: Mapping[str, int], *,
             bind: Mapping[str, str] | None = None, stall_probability: float = 0.0,
             seed: int = 0, max_cycles: int | None = None) -> UnitRunResult:
    """Simulate one invocation of ``unit``; see the module docstring.

    Parameters
    ----------
    unit : Unit
        The unit (not yet elaborated); its port address widths fix each buffer's depth
        (``2 ** addr_width`` rows of ``lanes`` elements).
    buffers : dict of str to numpy.ndarray
        Initial raw words of each buffer (1-D; shorter arrays are zero-padded).
    args : dict of str to int
        The unit's arguments (checked by its contract).
    bind : dict of str to str, optional
        Operand -> buffer name; default each operand its own buffer of the same name. Several
        operands may share a buffer (each gets its own port); they must agree on lanes, or
        be element ports (lanes 1) on a buffer whose rows are as wide as the widest.
    stall_probability : float
        Chance that the unit is frozen in a given cycle.
    seed : int
        Seed of the stall pattern.
    max_cycles : int, optional
        Give up (``SimulationError``) after this many cycles; default ``4 * cycles + 100``.
    """
    from amaranth.hdl import Const, EnableInserter, Module, Mux, Signal
    from amaranth.lib.memory import Memory
    from amaranth.sim import Simulator

    contract = unit.contract
    checked = contract.check_args(args)
    bind = dict(bind or {})
    for o in contract.operands:
        bind.setdefault(o.name, o.name)
    widths: dict[str, int] = {}
    lanes: dict[str, int] = {}
    for o in contract.operands:
        buf = bind[o.name]
        if widths.setdefault(buf, o.width) != o.width:
            raise ValueError(f"operands bound to buffer {buf!r} disagree on element width")
        lanes[buf] = max(lanes.get(buf, 1), o.lanes)
    for o in contract.operands:
        if o.lanes not in (1, lanes[bind[o.name]]):
            raise ValueError(f"operand {o.name!r} has {o.lanes} lanes; buffer "
                             f"{bind[o.name]!r} has {lanes[bind[o.name]]}")
    missing = sorted(set(widths) - set(buffers))
    if missing:
        raise ValueError(f"no initial contents for buffer {missing[0]!r}")
    addr_bits: dict[str, int] = {}
    for o in contract.operands:
        port = getattr(unit, o.name)
        bits = len(port.addr)
        # A lane-1 port on a banked buffer addresses elements; a row port addresses rows.
        rows_bits = bits if o.lanes > 1 or lanes[bind[o.name]] == 1 \
            else bits - (lanes[bind[o.name]] - 1).bit_length()
        addr_bits[bind[o.name]] = max(addr_bits.get(bind[o.name], 0), rows_bits)
    m = Module()
    stall = Signal()
    m.submodules.unit = EnableInserter({"sync": ~stall})(unit)
    memories: dict[str, Memory] = {}
    for buf, width in widths.items():
        n_lanes = lanes[buf]
        rows = 1 << addr_bits[buf]
        words = np.zeros(rows * n_lanes, dtype=object)
        given = np.asarray(buffers[buf]).astype(object).ravel()
        if len(given) > len(words):
            raise ValueError(f"buffer {buf!r}: {len(given)} words given, it holds {len(words)}")
        words[:len(given)] = given
        init = [sum((int(words[r * n_lanes + i]) & ((1 << width) - 1)) << (i * width)
                    for i in range(n_lanes)) for r in range(rows)]
        mem = Memory(shape=width * n_lanes, depth=rows, init=init)
        memories[buf] = mem
        m.submodules[f"mem_{buf}"] = mem
    for o in contract.operands:
        buf = bind[o.name]
        mem, n_lanes, port = memories[buf], lanes[buf], getattr(unit, o.name)
        shift = (n_lanes - 1).bit_length()
        element = o.lanes == 1 and n_lanes > 1
        if o.direction == "read":
            rp = mem.read_port()
            m.d.comb += [rp.en.eq(port.en & ~stall)]
            if element:
                lane = Signal(range(n_lanes))
                with m.If(port.en & ~stall):
                    m.d.sync += lane.eq(port.addr[:shift])
                m.d.comb += [rp.addr.eq(port.addr >> shift),
                             port.data.eq(rp.data.word_select(lane, o.width))]
            else:
                m.d.comb += [rp.addr.eq(port.addr), port.data.eq(rp.data)]
        else:
            wp = mem.write_port(granularity=o.width if element else None)
            if element:
                m.d.comb += [wp.addr.eq(port.addr >> shift),
                             wp.data.eq(port.data.replicate(n_lanes)),
                             wp.en.eq(Mux(port.en & ~stall,
                                          Const(1, n_lanes) << port.addr[:shift], 0))]
            else:
                m.d.comb += [wp.addr.eq(port.addr), wp.data.eq(port.data),
                             wp.en.eq(port.en & ~stall)]
    # A unit whose cycles depend on its data (a kernel with a bounded while loop) offers
    # only a worst case.
    bound = getattr(unit, "cycles_bound", None)
    expected = bound(checked) if bound is not None else unit.cycles(checked)
    limit = max_cycles if max_cycles is not None else 4 * expected + 100
    rng = np.random.default_rng(seed)
    result: dict[str, Any] = {}

    async def bench(ctx: Any) -> None:
        for name, value in checked.items():
            ctx.set(getattr(unit, f"arg_{name}"), value)
        ctx.set(unit.start, 1)
        enabled = stalled = 0
        first = True
        while True:
            frozen = (not first) and stall_probability > 0 and rng.random() < stall_probability
            ctx.set(stall, frozen)
            if not frozen and not first and ctx.get(unit.done):
                if contract.result_width:
                    result["result"] = int(ctx.get(unit.result))
                break
            await ctx.tick()
            if first:
                ctx.set(unit.start, 0)
                first = False
            if frozen:
                stalled += 1
            else:
                enabled += 1
            if enabled + stalled > limit:
                raise SimulationError(f"unit {contract.kind!r} did not raise done within "
                                      f"{limit} cycles (expected {expected})")
        result["cycles"], result["stalled"] = enabled, stalled
        for buf, mem in memories.items():
            n_lanes, width = lanes[buf], widths[buf]
            mask = (1 << width) - 1
            words: list[int] = []
            for r in range(mem.depth):
                row = int(ctx.get(mem.data[r]))
                words.extend((row >> (i * width)) & mask for i in range(n_lanes))
            result[f"mem:{buf}"] = np.array(words, dtype=np.int64)

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    out = {buf: result[f"mem:{buf}"] for buf in memories}
    return UnitRunResult(buffers=out, cycles=int(result["cycles"]),
                         stall_cycles=int(result["stalled"]), result=result.get("result"))
