"""Sequencer + BusDecoder + CSRBlock + fake units, driven over the host bus in pysim.

The expected cycle counts come from the bench's own clock (go-write cycle to the first irq
cycle) and from the closed form written out below from the Sequencer's documented timing,
and both must equal the CYCLES CSR and :meth:`Sequencer.program_cycles`.
"""

import numpy as np
import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from archsim.hw.accel.bus import (
    CSR_CTRL,
    CSR_CYCLES,
    CSR_ERROR,
    CSR_PC,
    CSR_STATS,
    CTRL_GO,
    CTRL_IRQ_CLEAR,
    REGION_CSR,
    REGION_PROGRAM,
    STATUS_BUSY,
    STATUS_DONE,
    STATUS_ERROR,
    BusDecoder,
    CSRBlock,
    bus_address,
    bus_signature,
    connect_bus,
    connect_host_port,
    connect_status,
)
from archsim.hw.accel.controller import Sequencer
from archsim.hw.accel.interface import UnitContract
from archsim.hw.accel.isa import Halt, Run, SetOperatingPoint, encode, encode_dvfs, encode_run
from archsim.hw.checks import silence_unused

# Unit 0 takes (cycles, x, y), unit 1 (cycles), unit 2 nothing and always takes 3 cycles.
UNIT_ARGS = [("cycles", "x", "y"), ("cycles",), ()]
FIXED_CYCLES = 3
OP_POINTS = [3, 4]


class FakeUnit(wiring.Component):
    """A unit with the contract's control members: done ``arg_cycles`` cycles after start
    (or :data:`FIXED_CYCLES` without arguments); latches its arguments like a real unit."""

    def __init__(self, args):
        self.contract = UnitContract(kind="fake", args=tuple(args), operands=())
        super().__init__(self.contract.members({}))
        self.latched = [Signal(16, name=f"latched_{a}") for a in args]

    def elaborate(self, platform):
        m = Module()
        remaining = Signal(16)
        with m.If(self.start & ~self.busy):
            m.d.sync += [self.busy.eq(1), *[r.eq(getattr(self, f"arg_{a}"))
                                            for r, a in zip(self.latched, self.contract.args,
                                                            strict=True)]]
            m.d.sync += remaining.eq(self.arg_cycles if self.contract.args else FIXED_CYCLES)
        with m.If(self.busy):
            m.d.sync += remaining.eq(remaining - 1)
            with m.If(remaining == 1):
                m.d.sync += self.busy.eq(0)
        m.d.comb += self.done.eq(self.busy & (remaining == 1))
        return m


class Top(wiring.Component):
    """What the lead's top level does, minus the buffers: bus -> decoder -> CSRs + program."""

    def __init__(self, **seq_kwargs):
        super().__init__({**bus_signature().members, "dvfs_req": Out(1), "dvfs_domain": Out(8),
                          "dvfs_op": Out(16), "dvfs_ack": In(1)})
        kwargs = {"units": 3, "max_args": 3, "program_words": 64, "domains": 2,
                  "unit_args": [len(a) for a in UNIT_ARGS], "op_points": OP_POINTS}
        kwargs.update(seq_kwargs)
        self.seq = Sequencer(**kwargs)
        self.csr = CSRBlock(stats=["runs"])
        self.dec = BusDecoder(region_addr_widths=[self.csr.addr_width, self.seq.addr_width])
        self.units = [FakeUnit(a) for a in UNIT_ARGS]

    def elaborate(self, platform):
        m = Module()
        m.submodules.seq, m.submodules.csr, m.submodules.dec = self.seq, self.csr, self.dec
        connect_bus(m, self, self.dec)
        connect_host_port(m, self.dec.region(REGION_CSR), self.csr)
        connect_host_port(m, self.dec.region(REGION_PROGRAM), self.seq)
        connect_status(m, self.seq, self.csr)
        m.d.comb += self.irq.eq(self.csr.irq)
        for u, unit in enumerate(self.units):
            m.submodules[f"unit{u}"] = unit
            m.d.comb += [unit.start.eq(self.seq.start[u]), self.seq.unit_done[u].eq(unit.done)]
            for j, name in enumerate(unit.contract.all_args):
                m.d.comb += getattr(unit, f"arg_{name}").eq(self.seq.args[j])
        m.d.comb += [self.dvfs_req.eq(self.seq.dvfs_req), self.dvfs_domain.eq(self.seq.dvfs_domain),
                     self.dvfs_op.eq(self.seq.dvfs_op), self.seq.dvfs_ack.eq(self.dvfs_ack)]
        # A statistic: RUNs started since the last go (CSR 4).
        runs = Signal(32)
        with m.If(self.csr.go & ~self.seq.busy):
            m.d.sync += runs.eq(0)
        with m.Elif(self.seq.start.any()):
            m.d.sync += runs.eq(runs + 1)
        m.d.comb += self.csr.stat_runs.eq(runs)
        return m


class Bench:
    """Bus transactions on the top level, counting cycles."""

    def __init__(self, top, ctx):
        self.top, self.ctx, self.cycle = top, ctx, 0

    async def tick(self):
        await self.ctx.tick()
        self.cycle += 1

    async def write(self, addr, data):
        t = self.top
        self.ctx.set(t.bus_addr, addr)
        self.ctx.set(t.bus_wdata, data)
        self.ctx.set(t.bus_we, 1)
        await self.tick()
        self.ctx.set(t.bus_we, 0)

    async def read(self, addr):
        t = self.top
        self.ctx.set(t.bus_addr, addr)
        self.ctx.set(t.bus_re, 1)
        await self.tick()
        self.ctx.set(t.bus_re, 0)
        return self.ctx.get(t.bus_rdata)

    async def load(self, words):
        for i, w in enumerate(words):
            await self.write(bus_address(REGION_PROGRAM, i), w)

    async def go(self):
        """Write go; return the cycle of the write."""
        g = self.cycle
        await self.write(bus_address(REGION_CSR, CSR_CTRL), CTRL_GO)
        return g

    async def wait_irq(self, limit=5000):
        """Tick until irq is high; return the first cycle it is."""
        while not self.ctx.get(self.top.irq):
            await self.tick()
            assert self.cycle < limit, "no irq"
        return self.cycle

    async def csrs(self):
        return {name: await self.read(bus_address(REGION_CSR, off)) for name, off in
                [("ctrl", CSR_CTRL), ("cycles", CSR_CYCLES), ("pc", CSR_PC),
                 ("error", CSR_ERROR), ("runs", CSR_STATS)]}


def simulate(script, dvfs_latencies=(), **seq_kwargs):
    """Run ``script(bench)`` on a fresh top; return its result and what the monitors saw."""
    top = Top(**seq_kwargs)
    log = {"runs": [], "dvfs": [], "violations": []}
    out = {}

    async def main(ctx):
        out["result"] = await script(Bench(top, ctx))

    async def units_monitor(ctx):
        # Each unit's (start cycle, done cycle, latched args); start never while busy.
        cycle, started = 0, {}
        while True:
            for u, unit in enumerate(top.units):
                if ctx.get(unit.start):
                    if ctx.get(unit.busy):
                        log["violations"].append((cycle, u))
                    started[u] = cycle
                if ctx.get(unit.done):
                    log["runs"].append((u, started.pop(u), cycle,
                                        tuple(ctx.get(r) for r in unit.latched)))
            if bin(ctx.get(top.seq.start)).count("1") > 1:
                log["violations"].append((cycle, "start not one-hot"))
            await ctx.tick()
            cycle += 1

    async def dvfs_controller(ctx):
        # Ack the j-th request dvfs_latencies[j] cycles after its first request cycle.
        pending, j = None, 0
        while True:
            await ctx.tick()
            ack = 0
            if ctx.get(top.dvfs_req):
                pending = 0 if pending is None else pending + 1
                if pending == dvfs_latencies[j]:
                    ack, pending = 1, None
                    log["dvfs"].append((ctx.get(top.dvfs_domain), ctx.get(top.dvfs_op)))
                    j += 1
            ctx.set(top.dvfs_ack, ack)

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(main)
    sim.add_testbench(units_monitor, background=True)
    sim.add_testbench(dvfs_controller, background=True)
    sim.run()
    return out["result"], log


def expected_cycles(program, unit_cycles, dvfs_latencies):
    """The closed form, written out independently of the Sequencer's code: 1 (the HALT's
    decode) + per RUN (argument words + 1 start cycle + unit cycles) + per DVFS (1 + ack)."""
    total, r, d = 1, 0, 0
    for ins in program:
        if isinstance(ins, Halt):
            return total
        if isinstance(ins, Run):
            total += len(ins.args) + 1 + unit_cycles[r]
            r += 1
        else:
            total += 1 + dvfs_latencies[d]
            d += 1
    raise AssertionError("no Halt")


def run_program(words, dvfs_latencies=(), **seq_kwargs):
    async def script(b):
        await b.load(words)
        g = await b.go()
        first_irq = await b.wait_irq()
        return {"g": g, "irq": first_irq, **await b.csrs()}
    return simulate(script, dvfs_latencies, **seq_kwargs)


def random_program(rng):
    program, unit_cycles, latencies = [], [], []
    for _ in range(int(rng.integers(1, 7))):
        kind = int(rng.integers(0, 4))
        if kind == 3:
            d = int(rng.integers(0, 2))
            program.append(SetOperatingPoint(d, int(rng.integers(0, OP_POINTS[d]))))
            latencies.append(int(rng.integers(0, 5)))
        elif kind == 2:
            program.append(Run(2, ()))
            unit_cycles.append(FIXED_CYCLES)
        else:
            cycles = int(rng.integers(1, 7))
            args = (cycles, *(int(v) for v in rng.integers(0, 65536, len(UNIT_ARGS[kind]) - 1)))
            program.append(Run(kind, args))
            unit_cycles.append(cycles)
    program.append(Halt())
    return program, unit_cycles, latencies


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_cycles_args_and_dvfs(seed):
    rng = np.random.default_rng(seed)
    program, unit_cycles, latencies = random_program(rng)
    result, log = run_program(encode(program), latencies)
    want = expected_cycles(program, unit_cycles, latencies)
    assert Sequencer.program_cycles(program, unit_cycles, latencies) == want
    assert result["cycles"] == want
    # The bench's own clock: busy from g + 1 through h, irq first seen at h + 1.
    assert result["irq"] - result["g"] - 1 == want
    assert result["ctrl"] == STATUS_DONE
    assert result["error"] == 0
    assert result["pc"] == len(encode(program)) - 1  # the HALT's address
    runs = [i for i in program if isinstance(i, Run)]
    assert result["runs"] == len(runs)
    # Each unit saw its RUN's arguments, in program order, and took the cycles they asked for.
    assert [(u, args) for u, _, _, args in log["runs"]] == [(r.unit, r.args) for r in runs]
    assert [done - start for _, start, done, _ in log["runs"]] == unit_cycles
    assert log["dvfs"] == [(i.domain, i.op) for i in program
                           if isinstance(i, SetOperatingPoint)]
    assert log["violations"] == []


def test_back_to_back_dvfs_and_a_zero_latency_ack():
    program = [SetOperatingPoint(0, 1), SetOperatingPoint(1, 3), SetOperatingPoint(0, 2),
               Run(1, (2,)), Halt()]
    latencies = [0, 3, 0]
    result, log = run_program(encode(program), latencies)
    assert result["cycles"] == 1 + (1 + 0) + (1 + 3) + (1 + 0) + (1 + 1 + 2) == \
        Sequencer.program_cycles(program, [2], latencies)
    assert log["dvfs"] == [(0, 1), (1, 3), (0, 2)]


def test_program_memory_reads_back_and_ignores_host_writes_while_busy():
    words = encode([Run(1, (40,)), Halt()])

    async def script(b):
        await b.load(words)
        before = [await b.read(bus_address(REGION_PROGRAM, i)) for i in range(4)]
        await b.go()
        await b.write(bus_address(REGION_PROGRAM, 3), 0x1234)  # busy: dropped
        await b.wait_irq()
        after = [await b.read(bus_address(REGION_PROGRAM, i)) for i in range(4)]
        await b.write(bus_address(REGION_PROGRAM, 3), 0x1234)  # idle: taken
        return before, after, await b.read(bus_address(REGION_PROGRAM, 3))

    (before, after, last), _ = simulate(script)
    assert before == [*words, 0] and after == before and last == 0x1234


def test_bus_read_data_arrives_in_the_next_cycle_only():
    async def script(b):
        t, ctx = b.top, b.ctx
        await b.load([0xF000_0000, 0x0BAD_F00D])
        ctx.set(t.bus_addr, bus_address(REGION_PROGRAM, 1))
        ctx.set(t.bus_re, 1)
        during = ctx.get(t.bus_rdata)
        await b.tick()
        ctx.set(t.bus_re, 0)
        ctx.set(t.bus_addr, bus_address(REGION_PROGRAM, 0))
        next_cycle = ctx.get(t.bus_rdata)
        await b.tick()
        return during, next_cycle, ctx.get(t.bus_rdata)

    (during, next_cycle, later), _ = simulate(script)
    assert (during, next_cycle, later) == (0, 0x0BAD_F00D, 0)


def test_go_while_busy_is_ignored_and_irq_clear_and_rerun():
    program = [Run(0, (30, 1, 2)), Halt()]
    want = expected_cycles(program, [30], [])

    async def script(b):
        await b.load(encode(program))
        g = await b.go()
        for _ in range(5):
            await b.tick()
        busy_status = await b.read(bus_address(REGION_CSR, CSR_CTRL))
        await b.go()  # ignored: the run is neither restarted nor its count reset
        first = await b.wait_irq()
        regs = await b.csrs()
        irq_before = b.ctx.get(b.top.irq)
        await b.write(bus_address(REGION_CSR, CSR_CTRL), CTRL_IRQ_CLEAR)
        irq_after = b.ctx.get(b.top.irq)
        status_after_clear = await b.read(bus_address(REGION_CSR, CSR_CTRL))
        g2 = await b.go()
        irq_running = b.ctx.get(b.top.irq)
        second = await b.wait_irq()
        cycles2 = await b.read(bus_address(REGION_CSR, CSR_CYCLES))
        return locals()

    r, log = simulate(script)
    assert r["busy_status"] == STATUS_BUSY
    assert r["first"] - r["g"] - 1 == want and r["regs"]["cycles"] == want
    assert r["regs"]["runs"] == 1 and len(log["runs"]) == 2  # one per go that started
    assert (r["irq_before"], r["irq_after"]) == (1, 0)
    assert r["status_after_clear"] == STATUS_DONE  # done stays until the next go
    assert r["irq_running"] == 0
    assert r["second"] - r["g2"] - 1 == want and r["cycles2"] == want


@pytest.mark.parametrize("bad_words, code", [
    ([0x5000_0000], 1),                        # unknown opcode
    ([0x0000_0000], 1),                        # an empty word: opcode 0
    (encode_run(3, []), 2),                    # no unit 3
    (encode_run(200, [1]), 2),
    (encode_run(1, [4, 5]), 3),                # unit 1 takes 1 argument
    (encode_run(2, [1]), 3),                   # unit 2 takes none
    (encode_dvfs(2, 0), 4),                    # no domain 2
    (encode_dvfs(0, 3), 4),                    # domain 0 has 3 operating points
    (encode_dvfs(1, 4), 4),
])
def test_errors_stop_the_run_with_their_code_and_irq(bad_words, code):
    prefix = [Run(1, (3,)), SetOperatingPoint(1, 3)]
    words = encode(prefix) + bad_words + encode([Halt()])
    result, log = run_program(words, [2])
    want = expected_cycles([*prefix, Halt()], [3], [2])
    assert result["error"] == code
    assert result["ctrl"] == STATUS_DONE | STATUS_ERROR
    assert result["pc"] == len(encode(prefix))
    assert result["cycles"] == want and result["irq"] - result["g"] - 1 == want
    assert len(log["runs"]) == 1 and log["violations"] == []


def test_empty_program_memory_is_a_bad_opcode_at_word_0():
    async def script(b):
        g = await b.go()
        first = await b.wait_irq()
        return {"g": g, "irq": first, **await b.csrs()}

    result, _ = simulate(script)
    assert (result["error"], result["pc"], result["cycles"]) == (1, 0, 1)
    assert result["irq"] - result["g"] - 1 == 1


def test_without_unit_args_only_max_args_is_checked():
    program = [Run(1, (2, 9, 9)), Halt()]  # three words for unit 1: accepted
    result, log = run_program(encode(program), unit_args=None)
    assert result["error"] == 0 and result["cycles"] == expected_cycles(program, [2], [])
    result, _ = run_program(encode_run(1, [2, 0, 0, 0]) + encode([Halt()]), unit_args=None)
    assert result["error"] == 3


def test_preloaded_program_runs_without_loading():
    program = [Run(2, ()), Run(2, ()), Halt()]

    async def script(b):
        g = await b.go()
        first = await b.wait_irq()
        return {"g": g, "irq": first, **await b.csrs()}

    result, _ = simulate(script, init=encode(program))
    assert result["cycles"] == expected_cycles(program, [FIXED_CYCLES] * 2, []) == 9


def unused(component):
    silence_unused(component)
    return component


def test_program_cycles_checks_its_inputs():
    prog = [Run(0, (1, 2)), SetOperatingPoint(0, 0), Halt(), Run(0, ())]
    assert Sequencer.program_cycles(prog, [5], [2]) == 1 + (2 + 1 + 5) + (1 + 2)
    with pytest.raises(ValueError, match="unit_cycles has 2 entries; the program runs 1 RUNs"):
        Sequencer.program_cycles(prog, [5, 5], [2])
    with pytest.raises(ValueError, match="dvfs_cycles has 0 entries; the program runs 1 DVFS"):
        Sequencer.program_cycles(prog, [5], [])
    with pytest.raises(ValueError, match="the program has no Halt"):
        Sequencer.program_cycles(prog[:2], [5], [2])
    with pytest.raises(ValueError, match="unit_cycles must be at least 1, not 0"):
        Sequencer.program_cycles(prog, [0], [2])
    with pytest.raises(ValueError, match="ack_cycles must be in 0..4611686018427387904, not -1"):
        Sequencer.program_cycles(prog, [1], [-1])


def test_check_program_names_the_error_code():
    seq = unused(Sequencer(units=2, max_args=2, unit_args=[2, 0], domains=1, op_points=[2]))
    seq.check_program([Run(0, (1, 2)), Run(1, ()), SetOperatingPoint(0, 1), Halt()])
    for prog, message in [
        ([Run(2, ()), Halt()], r"instructions\[0\]: unit 2 is not in 0..1 \(error code 2\)"),
        ([Run(0, (1,)), Halt()], r"unit 0 takes 2 arguments, not 1 \(error code 3\)"),
        ([SetOperatingPoint(0, 2), Halt()], r"no domain 0 operating point 2 \(error code 4\)"),
        ([Run(1, ())], r"the program has no Halt"),
    ]:
        with pytest.raises(ValueError, match=message):
            seq.check_program(prog)


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"units": 0, "max_args": 1}, ValueError, "units must be in 1..256, not 0"),
    ({"units": 1, "max_args": 0}, ValueError, "max_args must be in 1..65535, not 0"),
    ({"units": 1, "max_args": 1, "program_words": 100}, ValueError,
     "program_words must be a power of two, not 100"),
    ({"units": 1, "max_args": 1, "domains": 257}, ValueError, "domains must be in 1..256, not 257"),
    ({"units": 2, "max_args": 2, "unit_args": [1]}, ValueError,
     r"unit_args must have one entry per unit \(2\), not 1"),
    ({"units": 1, "max_args": 2, "unit_args": [3]}, ValueError,
     r"unit_args\[0\] must be in 0..2, not 3"),
    ({"units": 1, "max_args": 1, "op_points": [1, 2]}, ValueError,
     r"op_points must have one entry per domain \(1\), not 2"),
    ({"units": 1, "max_args": 1, "program_words": 2, "init": [0, 0, 0]}, ValueError,
     "init has 3 words; the program memory holds 2"),
    ({"units": 1, "max_args": 1, "init": [2**32]}, ValueError,
     r"init\[0\] must be in 0..4294967295, not 4294967296"),
])
def test_constructor_errors(kwargs, exc, message):
    with pytest.raises(exc, match=f"^{message}$"):
        Sequencer(**kwargs)


@pytest.mark.parametrize("kwargs", [{"units": 1, "max_args": 1, "program_words": 2},
                                    {"units": 256, "max_args": 4, "domains": 256}])
def test_extreme_shapes_elaborate(kwargs):
    assert "module" in rtlil.convert(Sequencer(**kwargs))
