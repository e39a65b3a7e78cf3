"""BufferMemory in Amaranth's simulator against a numpy model of the buffer, and its refresh
stalls against MemoryModel and an enumeration of the timer."""

from __future__ import annotations

import numpy as np
import pytest
from amaranth.hdl import EnableInserter, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from archsim.hw.accel.interface import read_port, write_port
from archsim.hw.accel.memory import BufferMemory
from archsim.hw.models.memtech import MemoryModel


def run(dut, bench) -> None:
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def random_traffic(dut: BufferMemory, cycles: int, seed: int, *, sync_at: int | None = None,
                   interval: int | None = None, write_probability: float = 0.6
                   ) -> dict[str, int | None]:
    """Drive random accesses on every port for ``cycles`` cycles and check each read against
    a numpy model; in refresh cycles (enumerated here from the sync) nothing happens and
    reads hold. With a retention checker, ``expired`` is checked every cycle against
    per-word stamps kept here. Returns the model's counts and the first late read's cycle."""
    rng = np.random.default_rng(seed)
    words, width = dut.words, dut.width
    state = np.array(dut.init, dtype=np.int64)
    mask = (1 << width) - 1
    reads = [n for n in dut.port_lanes if n.startswith("read_")]
    writes = [n for n in dut.port_lanes if n.startswith("write_")]
    counts: dict[str, int | None] = {"reads": 0, "writes": 0, "refreshes": 0,
                                     "stalls_seen": 0, "expired_at": None}
    stamps = np.zeros(words, dtype=np.int64)  # cycle of each word's last write or refresh
    ptr = 0  # next row to refresh
    expect = {name: 0 for name in reads + ["host"]}
    seen: dict[str, bool] = {name: False for name in expect}

    def expected_stall(t: int) -> bool:
        # Reset starts the timer as a sync pulse in cycle -1 would.
        if interval is None or t == sync_at:
            return False
        base = sync_at if sync_at is not None and t > sync_at else -1
        return (t - base) % interval == 0

    def touch_read(t: int, first: int, n: int) -> None:
        late = dut.retention_cycles is not None and \
            bool(np.any(t - stamps[first:first + n] > dut.retention_cycles))
        if late and counts["expired_at"] is None:
            counts["expired_at"] = t

    async def bench(ctx) -> None:
        nonlocal ptr
        for t in range(cycles):
            ctx.set(dut.refresh_sync, int(sync_at == t))
            touched: set[int] = set()
            ops = []
            for name in reads:
                lanes, port = dut.port_lanes[name], getattr(dut, name)
                en = int(rng.random() < 0.7)
                addr = int(rng.integers(0, words // lanes))
                ctx.set(port.en, en)
                ctx.set(port.addr, addr)
                ops.append(("r", name, lanes, addr, en, None))
            host_re = int(rng.random() < 0.5)
            host_addr = int(rng.integers(0, words))
            for name in writes:
                lanes, port = dut.port_lanes[name], getattr(dut, name)
                addr = int(rng.integers(0, words // lanes))
                elems = set(range(addr * lanes, addr * lanes + lanes))
                en = int(rng.random() < write_probability and not elems & touched)
                if en:
                    touched |= elems
                data = [int(rng.integers(0, 1 << width)) for _ in range(lanes)]
                ctx.set(port.en, en)
                ctx.set(port.addr, addr)
                ctx.set(port.data, sum(d << (i * width) for i, d in enumerate(data)))
                ops.append(("w", name, lanes, addr, en, data))
            host_we = int(rng.random() < write_probability / 2 and host_addr not in touched)
            host_wdata = int(rng.integers(0, 1 << width))
            ctx.set(dut.host_re, host_re)
            ctx.set(dut.host_we, host_we)
            ctx.set(dut.host_addr, host_addr)
            ctx.set(dut.host_wdata, host_wdata)
            stall = expected_stall(t)
            assert ctx.get(dut.stall) == stall, f"cycle {t}"
            if stall:
                counts["refreshes"] += 1
                counts["stalls_seen"] += 1
                for row in range(ptr, min(ptr + dut.rows_per_refresh, dut.rows)):
                    stamps[row * dut.banks:(row + 1) * dut.banks] = t
                ptr = 0 if ptr + dut.rows_per_refresh >= dut.rows else ptr + dut.rows_per_refresh
            else:
                for kind, name, lanes, addr, en, _ in ops:
                    if kind == "r" and en:
                        row = state[addr * lanes:(addr + 1) * lanes]
                        expect[name] = int(sum(int(v) << (i * width) for i, v in enumerate(row)))
                        seen[name] = True
                        counts["reads"] += lanes
                        touch_read(t, addr * lanes, lanes)
                if host_re:
                    expect["host"], seen["host"] = int(state[host_addr]), True
                    counts["reads"] += 1
                    touch_read(t, host_addr, 1)
                for kind, _name, lanes, addr, en, data in ops:
                    if kind == "w" and en:
                        state[addr * lanes:(addr + 1) * lanes] = np.array(data) & mask
                        stamps[addr * lanes:(addr + 1) * lanes] = t
                        counts["writes"] += lanes
                if host_we:
                    state[host_addr] = host_wdata
                    stamps[host_addr] = t
                    counts["writes"] += 1
            await ctx.tick()
            for name in reads:
                if seen[name]:
                    assert ctx.get(getattr(dut, name).data) == expect[name], (t, name)
            if seen["host"]:
                assert ctx.get(dut.host_rdata) == expect["host"], (t, "host")
            late = counts["expired_at"] is not None
            assert ctx.get(dut.expired) == late, (t, "expired")
        for key in ("reads", "writes", "refreshes"):
            assert ctx.get(getattr(dut, key)) == counts[key], key
        for name in reads + writes:
            ctx.set(getattr(dut, name).en, 0)
        ctx.set(dut.host_we, 0)
        # Read everything back through the host port.
        for a in range(words):
            ctx.set(dut.host_addr, a)
            ctx.set(dut.host_re, 1)
            ctx.set(dut.refresh_sync, 1)  # keeps refresh out of the way while reading back
            await ctx.tick()
            assert ctx.get(dut.host_rdata) == state[a], f"word {a}"

    run(dut, bench)
    return counts


@pytest.mark.parametrize("banks", [1, 4])
def test_element_and_row_ports_against_numpy(banks):
    lanes = {"read_1": banks, "write_1": banks} if banks > 1 else {}
    init = [(7 * i + 3) & 0xFF for i in range(16)]
    dut = BufferMemory(words=16, width=8, banks=banks, read_ports=2, write_ports=2,
                       port_lanes=lanes, init=init)
    counts = random_traffic(dut, 120, seed=banks)
    assert counts["reads"] > 100 and counts["writes"] > 50


def test_refresh_stalls_hold_reads_and_block_accesses():
    dut = BufferMemory(words=16, width=5, banks=2, read_ports=1, write_ports=1,
                       port_lanes={"read_0": 2}, refresh_interval_cycles=4, init=list(range(16)))
    counts = random_traffic(dut, 90, seed=3, sync_at=6, interval=4)
    assert counts["stalls_seen"] == 1 + (89 - 6) // 4  # cycle 3, then every 4th after the sync


def test_retention_checker_flags_the_first_late_read():
    dut = BufferMemory(words=16, width=8, banks=2, read_ports=2, write_ports=1,
                       port_lanes={"read_1": 2}, refresh_interval_cycles=3, rows_per_refresh=2,
                       retention_cycles=14, init=list(range(16)))
    # 4 operations of 3 cycles: a row waits 12 cycles, plus one interval if a sync
    # postpones a refresh -- within 14 until the sync at cycle 40 restarts the timer late.
    counts = random_traffic(dut, 60, seed=11, sync_at=40, interval=3, write_probability=0.0)
    assert counts["expired_at"] is None
    dut = BufferMemory(words=16, width=8, banks=2, read_ports=2, write_ports=1,
                       port_lanes={"read_1": 2}, refresh_interval_cycles=5, rows_per_refresh=2,
                       retention_cycles=14, init=list(range(16)))
    counts = random_traffic(dut, 60, seed=12, interval=5, write_probability=0.2)
    assert counts["expired_at"] is not None  # 4 x 5 = 20 > 14: a word outlives retention


def test_no_refresh_needed_while_lifetimes_are_short():
    """CAMEL's point, directed: without refresh, a word read within ``retention_cycles`` of
    its write is good; one cycle later it has expired."""
    dut = BufferMemory(words=8, width=8, banks=2, read_ports=0, write_ports=1,
                       port_lanes={"write_0": 2}, retention_cycles=6)
    trace = []

    async def bench(ctx) -> None:
        for t in range(10):
            ctx.set(dut.write_0.en, int(t == 1))  # row 1 (words 2, 3) written in cycle 1
            ctx.set(dut.write_0.addr, 1)
            ctx.set(dut.write_0.data, 0x2A2B)
            read = {4: 0, 6: 1, 7: 2, 8: 3}.get(t)  # word 0 (init, age 4); words 2, 3
            ctx.set(dut.host_re, int(read is not None))
            ctx.set(dut.host_addr, read or 0)
            await ctx.tick()
            trace.append((ctx.get(dut.host_rdata), ctx.get(dut.expired)))

    run(dut, bench)
    # reads in cycles 4, 6 (word 1: init data, age 6) and 7 (word 2, age 6) are good; the
    # read of word 3 in cycle 8 (age 7) flags expired from the cycle its data arrives.
    assert [e for _, e in trace] == [0] * 8 + [1, 1]
    assert trace[7][0] == 0x2B and trace[8][0] == 0x2A


def test_the_models_refresh_interval_keeps_every_read_within_retention():
    model = MemoryModel(technology="edram", words=32, width=8, banks=2, rows_per_refresh=3,
                        temperature_c=30.0)
    clock_hz = 5e6
    interval, retention = model.refresh_interval_cycles(clock_hz), model.retention_cycles(clock_hz)
    assert 2 <= interval <= 10 and model.refresh_operations == 6
    dut = BufferMemory(words=32, width=8, banks=2, read_ports=2, write_ports=1,
                       port_lanes={"read_1": 2}, refresh_interval_cycles=interval,
                       rows_per_refresh=3, retention_cycles=retention)
    # No writes: only refresh keeps the data; a sync mid-run postpones one refresh.
    counts = random_traffic(dut, 4 * retention, seed=21, sync_at=retention + 3,
                            interval=interval, write_probability=0.0)
    assert counts["expired_at"] is None and counts["refreshes"] > 2 * model.refresh_operations


class Copy(wiring.Component):
    """A minimal unit after the contract: copies ``n`` elements from ``src`` to ``dst``,
    one per cycle (read in cycle k, write its data in cycle k + 1): ``n + 1`` cycles."""

    def __init__(self, aw: int, width: int) -> None:
        super().__init__({"start": In(1), "busy": Out(1), "done": Out(1), "arg_n": In(16),
                          "src": Out(read_port(aw, width)), "dst": Out(write_port(aw, width))})

    def elaborate(self, platform):
        m = Module()
        n, i, j, valid = Signal(16), Signal(16), Signal(16), Signal()
        with m.If(self.start & ~self.busy):
            m.d.sync += [n.eq(self.arg_n), i.eq(0), valid.eq(0), self.busy.eq(1)]
        with m.If(self.busy & ~self.done):
            m.d.comb += [self.src.en.eq(i < n), self.src.addr.eq(i)]
            m.d.sync += [i.eq(i + (i < n)), valid.eq(i < n), j.eq(i)]
            m.d.comb += [self.dst.en.eq(valid), self.dst.addr.eq(j + 8),
                         self.dst.data.eq(self.src.data + 1)]
            with m.If(~(i < n) & ~valid):
                m.d.sync += self.done.eq(1)
        with m.If(self.done):
            m.d.sync += [self.done.eq(0), self.busy.eq(0)]
        return m


def run_copy(interval: int | None) -> dict[str, object]:
    """Run Copy of 8 elements on a buffer, frozen while the buffer refreshes; measure."""
    mem = BufferMemory(words=16, width=8, read_ports=1, write_ports=1,
                       refresh_interval_cycles=interval, init=list(range(10, 26)))
    unit = Copy(mem.element_addr_width, 8)
    m = Module()
    m.submodules.mem = mem
    m.submodules.unit = EnableInserter({"sync": ~mem.stall})(unit)
    wiring.connect(m, unit.src, mem.read_0)
    wiring.connect(m, unit.dst, mem.write_0)
    measured: dict[str, object] = {}

    async def bench(ctx) -> None:
        ctx.set(unit.arg_n, 8)
        ctx.set(unit.start, 1)
        ctx.set(mem.refresh_sync, 1)  # the accelerator's go: sync and start together
        await ctx.tick()
        ctx.set(unit.start, 0)
        ctx.set(mem.refresh_sync, 0)
        elapsed = enabled = stalls = 0
        while True:
            elapsed += 1
            if ctx.get(mem.stall):
                stalls += 1
            else:
                enabled += 1
                if ctx.get(unit.done):
                    break
            await ctx.tick()
            assert elapsed < 200
        measured.update(enabled=enabled, stalls=stalls, elapsed=elapsed,
                        refreshes=ctx.get(mem.refreshes), reads=ctx.get(mem.reads),
                        writes=ctx.get(mem.writes))
        await ctx.tick()
        ctx.set(mem.refresh_sync, 1)  # no refresh while the host reads back
        out = []
        for a in range(16):
            ctx.set(mem.host_addr, a)
            ctx.set(mem.host_re, 1)
            await ctx.tick()
            out.append(ctx.get(mem.host_rdata))
        measured["words"] = out

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return measured


@pytest.mark.parametrize("clock_hz", [6e6, 1.2e7])
def test_frozen_unit_runs_on_edram_with_the_models_stolen_cycles(clock_hz):
    model = MemoryModel(technology="edram", words=16, width=8, temperature_c=25.0)
    interval = model.refresh_interval_cycles(clock_hz)
    assert 2 <= interval <= 12
    plain = run_copy(None)
    refreshed = run_copy(interval)
    expected_words = list(range(10, 18)) + [11 + k for k in range(8)]
    assert plain["words"] == expected_words == refreshed["words"]
    busy = plain["enabled"]
    assert plain["stalls"] == 0 and refreshed["enabled"] == busy
    assert refreshed["stalls"] == model.stolen_cycles(busy, clock_hz) > 0
    assert refreshed["stalls"] == sum(1 for k in range(1, refreshed["elapsed"] + 1)
                                      if k % interval == 0)
    assert refreshed["refreshes"] == model.refresh_count(refreshed["elapsed"], clock_hz)
    assert refreshed["reads"] == 8 == refreshed["writes"]


def test_bad_arguments_raise_exact_messages():
    with pytest.raises(ValueError, match=r"^width must be in 1\.\.32, not 33$"):
        BufferMemory(words=16, width=33)
    with pytest.raises(ValueError, match=r"^banks must be a power of two, not 3$"):
        BufferMemory(words=12, width=8, banks=3)
    with pytest.raises(ValueError, match=r"^port_lanes\['read_0'\] must be 1 or banks \(4\), "
                                         r"not 2$"):
        BufferMemory(words=16, width=8, banks=4, port_lanes={"read_0": 2})
    with pytest.raises(ValueError, match=r"^port_lanes names port 'read_3'; the ports are "
                                         r"\['read_0', 'write_0'\]$"):
        BufferMemory(words=16, width=8, port_lanes={"read_3": 1})
    with pytest.raises(ValueError, match=r"^words \(10\) must be a multiple of banks \(4\)$"):
        BufferMemory(words=10, width=8, banks=4)
    with pytest.raises(ValueError, match=r"^refresh_interval_cycles must be in 2\.\.4294967295,"
                                         r" not 1$"):
        BufferMemory(words=16, width=8, refresh_interval_cycles=1)
    with pytest.raises(ValueError, match=r"^init\[2\] must be an int in 0\.\.15, not 16$"):
        BufferMemory(words=16, width=4, init=[0, 1, 16])
    with pytest.raises(ValueError, match=r"^init has 17 words; the buffer holds 16$"):
        BufferMemory(words=16, width=4, init=[0] * 17)
