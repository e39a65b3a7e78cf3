"""Host bus: the decoder's regions and read latency, the CSR block's registers, go and irq."""

import pytest
from amaranth.hdl import Module, Shape
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from archsim.hw.accel.bus import (
    BusDecoder,
    CSRBlock,
    HostPort,
    bus_address,
    bus_signature,
    connect_bus,
    connect_host_port,
    host_members,
)
from archsim.hw.checks import silence_unused


class FakeBuffer(wiring.Component):
    """A buffer's host side as the buffer helper builds it: a memory, 1-cycle reads."""

    def __init__(self, addr_width, data_width, init=()):
        self.init = list(init)
        super().__init__(host_members(addr_width, data_width))

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=len(self.host_wdata),
                                        depth=1 << len(self.host_addr), init=self.init)
        rp, wp = mem.read_port(), mem.write_port()
        m.d.comb += [rp.addr.eq(self.host_addr), rp.en.eq(self.host_re),
                     self.host_rdata.eq(rp.data), wp.addr.eq(self.host_addr),
                     wp.data.eq(self.host_wdata), wp.en.eq(self.host_we)]
        return m


class DecoderTop(wiring.Component):
    """Three regions: a 4-word 32-bit buffer, a 16-word 8-bit buffer, a 1-word buffer."""

    def __init__(self):
        super().__init__({k: v for k, v in bus_signature().members.items() if k != "irq"})
        self.targets = [FakeBuffer(2, 32, [0x11, 0x22, 0x33, 0x44]),
                        FakeBuffer(4, 8, range(100, 116)), FakeBuffer(0, 32, [0xABCD])]
        self.dec = BusDecoder(region_addr_widths=[2, 4, 0])

    def elaborate(self, platform):
        m = Module()
        m.submodules.dec = self.dec
        connect_bus(m, self, self.dec)
        for i, t in enumerate(self.targets):
            m.submodules[f"t{i}"] = t
            connect_host_port(m, self.dec.region(i), t)
        return m


def unused(component):
    """``component``, marked as never elaborated (a test only inspects it)."""
    silence_unused(component)
    return component


def run_bench(top, bench):
    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_decoder_routes_regions_and_returns_read_data_one_cycle_later():
    top = DecoderTop()
    seen = {}

    async def bench(ctx):
        async def read(addr):
            ctx.set(top.bus_addr, addr)
            ctx.set(top.bus_re, 1)
            same_cycle = ctx.get(top.bus_rdata)
            await ctx.tick()
            ctx.set(top.bus_re, 0)
            return same_cycle, ctx.get(top.bus_rdata)

        async def write(addr, data):
            ctx.set(top.bus_addr, addr)
            ctx.set(top.bus_wdata, data)
            ctx.set(top.bus_we, 1)
            await ctx.tick()
            ctx.set(top.bus_we, 0)

        seen["initial"] = [(await read(bus_address(0, i)))[1] for i in range(4)]
        seen["byte"] = [(await read(bus_address(1, i)))[1] for i in range(16)]
        seen["one"] = (await read(bus_address(2, 0)))[1]
        # Back-to-back reads: each cycle's data belongs to the previous cycle's address.
        ctx.set(top.bus_re, 1)
        back_to_back = []
        for addr in [bus_address(0, 3), bus_address(1, 2), bus_address(0, 0)]:
            ctx.set(top.bus_addr, addr)
            await ctx.tick()
            back_to_back.append(ctx.get(top.bus_rdata))
        ctx.set(top.bus_re, 0)
        seen["back_to_back"] = back_to_back
        await ctx.tick()
        seen["idle_rdata"] = ctx.get(top.bus_rdata)  # no read last cycle -> 0
        await write(bus_address(0, 1), 0xDEADBEEF)
        await write(bus_address(1, 5), 0x1FF)  # 8-bit buffer keeps the low byte
        # Out of range: offset 4 of a 2-bit region, offset 1 of a 0-bit region, region 3.
        await write(bus_address(0, 4), 0x55)
        await write(bus_address(2, 1), 0x66)
        await write(bus_address(3, 0), 0x77)
        seen["after"] = [(await read(bus_address(0, i)))[1] for i in range(4)]
        seen["byte5"] = (await read(bus_address(1, 5)))[1]
        seen["one_after"] = (await read(bus_address(2, 0)))[1]
        seen["miss"] = [(await read(a))[1] for a in
                        (bus_address(0, 4), bus_address(2, 1), bus_address(3, 0),
                         bus_address(255, 0))]
        await ctx.tick()
        seen["same_cycle"] = (await read(bus_address(0, 2)))

    run_bench(top, bench)
    assert seen["initial"] == [0x11, 0x22, 0x33, 0x44]
    assert seen["byte"] == list(range(100, 116))
    assert seen["one"] == 0xABCD
    assert seen["back_to_back"] == [0x44, 102, 0x11]
    assert seen["idle_rdata"] == 0
    assert seen["after"] == [0x11, 0xDEADBEEF, 0x33, 0x44]
    assert seen["byte5"] == 0xFF
    assert seen["one_after"] == 0xABCD
    assert seen["miss"] == [0] * 4
    # The read's own cycle shows 0 (the previous cycle read nothing); the next shows the word.
    assert seen["same_cycle"] == (0, 0x33)


def test_bus_signature_has_the_bus_md_ports():
    sig = bus_signature()
    assert {n: (m.flow.name, Shape.cast(m.shape).width) for n, m in sig.members.items()} == {
        "bus_addr": ("In", 32), "bus_wdata": ("In", 32), "bus_we": ("In", 1),
        "bus_re": ("In", 1), "bus_rdata": ("Out", 32), "irq": ("Out", 1)}
    assert bus_address(2, 5) == 2 * 2**24 + 5


def test_host_port_members_and_equality():
    port = HostPort(10, 16)
    assert {n: (m.flow.name, Shape.cast(m.shape).width) for n, m in port.members.items()} == {
        "addr": ("Out", 10), "wdata": ("Out", 16), "we": ("Out", 1), "re": ("Out", 1),
        "rdata": ("In", 16)}
    assert port == HostPort(10, 16) and port != HostPort(10, 32)
    assert sorted(host_members(3)) == ["host_addr", "host_rdata", "host_re", "host_wdata",
                                       "host_we"]


def test_connect_host_port_checks_widths():
    dec = unused(BusDecoder(region_addr_widths=[3]))
    with pytest.raises(ValueError, match="host_addr is 2 bits, its region's port has 3"):
        connect_host_port(unused(Module()), dec.region0, unused(FakeBuffer(2, 32)))


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"region_addr_widths": []}, ValueError, r"len\(region_addr_widths\) must be in 1..256, not 0"),
    ({"region_addr_widths": [25]}, ValueError, r"region_addr_widths\[0\] must be in 0..24, not 25"),
    ({"region_addr_widths": [1, "2"]}, TypeError, r"region_addr_widths\[1\] must be an int"),
])
def test_decoder_argument_errors(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        BusDecoder(**kwargs)


@pytest.mark.parametrize("stats, message", [
    (["a", "a"], r"stats names must be distinct, not \['a', 'a'\]"),
    (["1x"], r"stats\[0\] must be an identifier, not '1x'"),
])
def test_csr_argument_errors(stats, message):
    with pytest.raises(ValueError, match=message):
        CSRBlock(stats=stats)


def test_csr_addr_width_and_register_map():
    assert unused(CSRBlock()).addr_width == 2
    assert unused(CSRBlock(stats=["a"])).addr_width == 3
    assert unused(CSRBlock(stats=list("abcde"))).addr_width == 4
    assert unused(CSRBlock(stats=["stall", "dom0"])).register_map() == {
        "CTRL": 0, "CYCLES": 1, "PC": 2, "ERROR": 3, "stat_stall": 4, "stat_dom0": 5}


def test_csr_registers_go_and_irq():
    csr = CSRBlock(stats=["s0", "s1"])
    seen = {}

    async def bench(ctx):
        async def read(offset):
            ctx.set(csr.host_addr, offset)
            ctx.set(csr.host_re, 1)
            await ctx.tick()
            ctx.set(csr.host_re, 0)
            return ctx.get(csr.host_rdata)

        async def write(offset, data):
            ctx.set(csr.host_addr, offset)
            ctx.set(csr.host_wdata, data)
            ctx.set(csr.host_we, 1)
            go = ctx.get(csr.go)
            await ctx.tick()
            ctx.set(csr.host_we, 0)
            return go

        ctx.set(csr.cycles, 0xCAFEF00D)
        ctx.set(csr.pc, 0x123456)
        ctx.set(csr.error_code, 3)
        ctx.set(csr.stat_s0, 7)
        ctx.set(csr.stat_s1, 0xFFFFFFFF)
        seen["regs"] = [await read(i) for i in range(8)]
        for busy, done, error in [(1, 0, 0), (0, 1, 0), (0, 1, 1)]:
            ctx.set(csr.busy, busy)
            ctx.set(csr.done, done)
            ctx.set(csr.error, error)
            seen.setdefault("status", []).append(await read(0))
        seen["irq_done"] = ctx.get(csr.irq)
        seen["go_idle"] = ctx.get(csr.go)
        seen["go_bit0"] = await write(0, 1)
        seen["go_bit1"] = await write(0, 2)  # irq_clear only: no go
        seen["irq_cleared"] = ctx.get(csr.irq)
        seen["go_other_reg"] = await write(1, 1)  # CYCLES is read-only: no go, no change
        seen["cycles_after_write"] = await read(1)
        # go while busy: passes through (the sequencer ignores it) but does not re-arm irq.
        ctx.set(csr.busy, 1)
        await write(0, 1)
        ctx.set(csr.busy, 0)
        seen["irq_after_busy_go"] = ctx.get(csr.irq)
        # go while idle re-arms: the next done raises irq.
        ctx.set(csr.done, 0)
        await write(0, 3)  # go and irq_clear together: go wins
        ctx.set(csr.done, 1)
        seen["irq_rearmed"] = ctx.get(csr.irq)

    run_bench(csr, bench)
    assert seen["regs"] == [0, 0xCAFEF00D, 0x123456, 3, 7, 0xFFFFFFFF, 0, 0]
    assert seen["status"] == [0b001, 0b010, 0b110]
    assert seen["irq_done"] == 1
    assert seen["go_idle"] == 0
    assert seen["go_bit0"] == 1 and seen["go_bit1"] == 0 and seen["go_other_reg"] == 0
    assert seen["irq_cleared"] == 0
    assert seen["cycles_after_write"] == 0xCAFEF00D
    assert seen["irq_after_busy_go"] == 0
    assert seen["irq_rearmed"] == 1

