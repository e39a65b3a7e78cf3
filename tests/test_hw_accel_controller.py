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
from archsim.hw.accel.controller import Sequencer, TimelineBuilder
from archsim.hw.accel.interface import UnitContract
from archsim.hw.accel.isa import (
    Halt,
    Run,
    SetOperatingPoint,
    Wait,
    decode,
    encode,
    encode_dvfs,
    encode_run,
    encode_wait,
)
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
    log = {"runs": [], "dvfs": [], "violations": [], "starts": [], "overlap": []}
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
                    log["starts"].append((u, cycle))
                if ctx.get(unit.done):
                    log["runs"].append((u, started.pop(u), cycle,
                                        tuple(ctx.get(r) for r in unit.latched)))
            if sum(ctx.get(unit.busy) for unit in top.units) > 1:
                log["overlap"].append(cycle)
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


# -- concurrent units: async RUNs, WAIT, hazards ---------------------------------------------

def reference_timeline(program, unit_cycles, dvfs_latencies):
    """The Sequencer docstring's rules written out on their own (cycles from go = 0): each
    RUN's (unit, start cycle) in program order and the HALT's decode cycle (CYCLES)."""
    arrive, last_done, starts, r, d = 1, {}, [], 0, 0
    for ins in program:
        everything = max(last_done.values(), default=0)
        if isinstance(ins, Halt):
            return starts, max(arrive, everything)
        if isinstance(ins, Wait):
            arrive = max(arrive, everything) + 1
        elif isinstance(ins, SetOperatingPoint):
            arrive += 1 + dvfs_latencies[d]
            d += 1
        else:
            issue = max(arrive, last_done.get(ins.unit, 0))
            start = issue + len(ins.args) + 1
            last_done[ins.unit] = start + unit_cycles[r]
            arrive = last_done[ins.unit] if ins.wait else start + 1
            starts.append((ins.unit, start))
            r += 1
    raise AssertionError("no Halt")


def random_async_program(rng):
    program, unit_cycles, latencies = [], [], []
    # Mostly async RUNs (so units overlap and RUNs meet pending units), a few WAITs/DVFSs.
    for _ in range(int(rng.integers(4, 12))):
        kind = int(rng.integers(0, 8))
        if kind == 0:
            program.append(Wait())
        elif kind == 1:
            d = int(rng.integers(0, 2))
            program.append(SetOperatingPoint(d, int(rng.integers(0, OP_POINTS[d]))))
            latencies.append(int(rng.integers(0, 5)))
        else:
            u = (kind - 2) % 3
            wait = bool(rng.random() < 0.35)
            if u == 2:
                program.append(Run(2, (), wait=wait))
                unit_cycles.append(FIXED_CYCLES)
            else:
                cycles = int(rng.integers(1, 25))
                rest = rng.integers(0, 65536, len(UNIT_ARGS[u]) - 1)
                program.append(Run(u, (cycles, *(int(v) for v in rest)), wait=wait))
                unit_cycles.append(cycles)
    program.append(Halt())
    return program, unit_cycles, latencies


def check_against_rtl(program, unit_cycles, latencies, words=None):
    """Run ``program`` on the bench; check CYCLES, the bench's clock, every start cycle and
    every unit's cycles against the timeline and the reference; return (timeline, log)."""
    result, log = run_program(words if words is not None else encode(program), latencies)
    timeline = Sequencer.timeline(program, unit_cycles, latencies)
    ref_starts, ref_cycles = reference_timeline(program, unit_cycles, latencies)
    assert timeline.cycles == ref_cycles == Sequencer.program_cycles(program, unit_cycles,
                                                                     latencies)
    assert result["cycles"] == ref_cycles
    assert result["irq"] - result["g"] - 1 == ref_cycles
    assert result["ctrl"] == STATUS_DONE and result["error"] == 0
    g = result["g"]
    observed = [(u, c - g) for u, c in log["starts"]]
    assert observed == ref_starts
    assert observed == [(s.instruction.unit, s.start) for s in timeline.steps
                        if isinstance(s.instruction, Run)]
    # Each RUN's done: the monitor logs them in done order, the timeline in program order.
    dones = sorted((start - g, u, done - g) for u, start, done, _ in log["runs"])
    assert dones == sorted((s.start, s.instruction.unit, s.done) for s in timeline.steps
                           if isinstance(s.instruction, Run))
    runs = [i for i in program if isinstance(i, Run)]
    assert sorted(done - start for _, start, done, _ in log["runs"]) == sorted(unit_cycles)
    assert sorted((u, a) for u, _, _, a in log["runs"]) == sorted((r.unit, r.args) for r in runs)
    assert log["violations"] == []
    return timeline, log


@pytest.mark.parametrize("seed", range(10))
def test_random_async_programs_match_the_timeline(seed):
    rng = np.random.default_rng(100 + seed)
    program, unit_cycles, latencies = random_async_program(rng)
    check_against_rtl(program, unit_cycles, latencies)


def test_the_random_async_programs_exercise_overlap_and_hazards():
    # Over the seeds above, units overlap and RUNs wait on pending units (not vacuous).
    overlaps = hazards = 0
    for seed in range(10):
        program, unit_cycles, latencies = random_async_program(np.random.default_rng(100 + seed))
        steps = Sequencer.timeline(program, unit_cycles, latencies).steps
        hazards += sum(s.hazard > 0 for s in steps if isinstance(s.instruction, Run))
        runs = [s for s in steps if isinstance(s.instruction, Run)]
        overlaps += sum(a.start < b.start < a.done for a in runs for b in runs)
    assert overlaps >= 5 and hazards >= 4


def test_two_async_units_overlap_and_wait_joins_them():
    program = [Run(0, (20, 1, 2), wait=False), Run(1, (10,), wait=False), Wait(), Halt()]
    timeline, log = check_against_rtl(program, [20, 10], [])
    # By hand from the rules: unit 0 decoded 1, args 2..4, start 5, done 25; unit 1 decoded
    # 6, arg 7, start 8, done 18; WAIT decoded in 25 (unit 0's done), HALT in 26.
    assert [(s.decode, s.start, s.done) for s in timeline.steps] == \
        [(1, 5, 25), (6, 8, 18), (25, None, None), (26, None, None)]
    assert timeline.cycles == 26 < 1 + (3 + 1 + 20) + (1 + 1 + 10) + 1  # the serial count
    # Both busy in cycles 9..18 (unit 1's busy: start + 1 .. done), 10 cycles.
    g = log["starts"][0][1] - 5
    assert [c - g for c in log["overlap"]] == list(range(9, 19))


@pytest.mark.parametrize("second_wait", [False, True])
def test_a_run_on_a_pending_unit_waits_for_its_done(second_wait):
    program = [Run(1, (10,), wait=False), Run(1, (3,), wait=second_wait), Halt()]
    timeline, _ = check_against_rtl(program, [10, 3], [])
    # First: decoded 1, arg 2, start 3, done 13; the second arrives in 4 and waits 9 cycles
    # (the hazard) to be decoded in 13, the first's done cycle: arg 14, start 15, done 18.
    first, second, halt = timeline.steps
    assert (first.start, first.done) == (3, 13)
    assert (second.arrive, second.decode, second.hazard, second.start, second.done) == \
        (4, 13, 9, 15, 18)
    assert (halt.arrive, halt.decode) == ((18, 18) if second_wait else (16, 18))
    assert timeline.cycles == 18


def test_a_done_in_the_cycle_a_run_arrives_is_no_hazard():
    # Unit 1 takes 1 cycle: its done (4) is the cycle the next RUN of it arrives.
    program = [Run(1, (1,), wait=False), Run(1, (2,)), Halt()]
    timeline, _ = check_against_rtl(program, [1, 2], [])
    assert [(s.arrive, s.decode, s.start) for s in timeline.steps[:2]] == [(1, 1, 3), (4, 4, 6)]
    # An async RUN of a 1-cycle unit costs what a synchronous one does: n + 2 cycles.
    assert timeline.cycles == 8 == expected_cycles(program, [1, 2], [])


def test_a_done_while_another_units_args_load_is_not_lost():
    # Unit 2 (3 cycles) starts in 2 and is done in 5, while unit 0's arguments load (4..6);
    # the later RUN of unit 2 and the WAIT only proceed if that done was captured.
    program = [Run(2, (), wait=False), Run(0, (5, 1, 2), wait=False), Run(2, ()), Wait(),
               Halt()]
    timeline, log = check_against_rtl(program, [3, 5, 3], [])
    assert [(s.decode, s.start, s.done) for s in timeline.steps[:3]] == \
        [(1, 2, 5), (3, 7, 12), (8, 9, 12)]
    assert timeline.steps[2].hazard == 0 and timeline.cycles == 13


def test_halt_waits_for_pending_units_and_so_does_an_error_stop():
    program = [SetOperatingPoint(1, 2), Run(0, (30, 0, 0), wait=False), Halt()]
    timeline, _ = check_against_rtl(program, [30], [2])
    # DVFS decoded 1, ack 4; RUN decoded 4, start 8, done 38; HALT arrives 9, decoded 38.
    assert timeline.steps[-1].arrive == 9 and timeline.cycles == 38
    words = encode(program[:2]) + [0x5000_0000] + encode([Halt()])
    result, _ = run_program(words, [2])
    assert (result["error"], result["pc"], result["cycles"]) == (1, 5, 38)
    assert result["irq"] - result["g"] - 1 == 38


def test_without_async_runs_the_timeline_is_the_closed_form():
    rng = np.random.default_rng(7)
    for _ in range(200):
        program, unit_cycles, latencies = random_program(rng)
        program = program[:-1] + [Wait()] * int(rng.integers(0, 3)) + [Halt()]
        waits = sum(isinstance(i, Wait) for i in program)
        assert Sequencer.program_cycles(program, unit_cycles, latencies) == \
            expected_cycles([i for i in program if not isinstance(i, Wait)], unit_cycles,
                            latencies) + waits


def test_timeline_accepts_start_dependent_unit_cycles():
    program = [Run(1, (0,), wait=False), Run(0, (0, 0, 0), wait=False), Run(1, (0,)), Halt()]
    seen = []

    def cycles(index, start):
        seen.append((index, start))
        return 2 + start % 5  # any function of the start cycle

    timeline = Sequencer.timeline(program, cycles, [])
    runs = [s for s in timeline.steps if isinstance(s.instruction, Run)]
    assert seen == [(i, s.start) for i, s in enumerate(runs)]
    fixed = [s.done - s.start for s in runs]
    assert Sequencer.timeline(program, fixed, []) == timeline
    # The builder, step by step, gives the same cycles.
    b = TimelineBuilder()
    for ins, c in zip(program[:-1], fixed, strict=True):
        b.run(ins.unit, len(ins.args), lambda start, c=c: c, wait=ins.wait)
    assert b.halt().cycles == timeline.cycles
    with pytest.raises(ValueError, match="^the timeline already ended with a HALT$"):
        b.wait()
    with pytest.raises(ValueError, match="^unit_cycles must be at least 1, not 0$"):
        Sequencer.timeline(program, lambda i, s: 0, [])


def test_async_flag_and_wait_through_the_isa():
    program = [Run(0, (5, 6, 7), wait=False), Wait(), Run(1, (2,), wait=False), Halt()]
    words = encode(program)
    assert words[0] == encode_run(0, [5, 6, 7])[0] | (1 << 16)
    assert words[4] == encode_wait()[0] == 0x3000_0000
    assert decode(words) == program
    check_against_rtl(program, [5, 2], [], words=words)
