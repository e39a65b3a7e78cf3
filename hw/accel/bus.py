"""The accelerator's host bus (BUS.md): the port set, an address decoder and the CSR block.

Hand-written on purpose: amaranth-soc (the Amaranth project's CSR/bus library) is not on
PyPI -- the name there is only a placeholder -- so the few pieces needed are kept here, small.

The bus (accelerator side, :func:`bus_signature`) moves one 32-bit word per cycle: a write
takes effect at the clock edge, a read's data is on ``bus_rdata`` in the cycle after
``bus_re``. The word address's bits ``[24:32]`` select a *region* and bits ``[0:24]`` are the
offset in it: region 0 the CSRs (:class:`CSRBlock`), region 1 the program memory
(:class:`archsim.hw.accel.controller.Sequencer`), region ``2 + i`` buffer ``i``.
:class:`BusDecoder` splits the bus into one :class:`HostPort` per region; each region is a
component with the flat *target* members of :func:`host_members` (``host_addr``,
``host_wdata``, ``host_we``, ``host_re``, ``host_rdata``; read data one cycle after
``host_re``), which :func:`connect_host_port` wires to its port.

Decisions BUS.md leaves open (documented here and in the classes):

* An offset with bits set above its region's address width, or a region index with no
  region, hits nothing: a write there is dropped and a read returns 0 (no aliasing).
* ``bus_rdata`` is 0 in every cycle that does not follow a read.
* ``go`` written while the sequencer is busy is ignored (the run in progress continues, its
  cycle count is not reset); ``go`` and ``irq_clear`` written together start the run.
* ``irq`` rises in the first cycle ``done`` reads 1 (the cycle after the HALT's decode,
  :class:`~archsim.hw.accel.controller.Sequencer`), and is also raised when a run stops on
  an error.
"""

from __future__ import annotations

from collections.abc import Sequence

from amaranth.hdl import Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..checks import check_int, silence_unused

__all__ = ["BUS_WIDTH", "REGION_SHIFT", "OFFSET_WIDTH", "REGION_CSR", "REGION_PROGRAM",
           "REGION_BUFFER0", "buffer_region", "bus_address", "CSR_CTRL", "CSR_CYCLES",
           "CSR_PC", "CSR_ERROR", "CSR_STATS", "CTRL_GO", "CTRL_IRQ_CLEAR", "STATUS_BUSY",
           "STATUS_DONE", "STATUS_ERROR", "ERROR_CODE_WIDTH", "PC_WIDTH", "CYCLES_WIDTH",
           "bus_signature", "HostPort", "host_members", "connect_host_port",
           "status_signature", "connect_status", "connect_bus", "BusDecoder", "CSRBlock"]

#: Data and address width of the bus.
BUS_WIDTH = 32
#: The region is ``bus_addr[REGION_SHIFT:32]``, the offset ``bus_addr[0:OFFSET_WIDTH]``.
REGION_SHIFT = 24
OFFSET_WIDTH = 24
REGION_CSR = 0
REGION_PROGRAM = 1
REGION_BUFFER0 = 2

#: CSR word offsets in region 0.
CSR_CTRL = 0
CSR_CYCLES = 1
CSR_PC = 2
CSR_ERROR = 3
CSR_STATS = 4
#: CTRL write bits.
CTRL_GO = 1 << 0
CTRL_IRQ_CLEAR = 1 << 1
#: CTRL read (status) bits.
STATUS_BUSY = 1 << 0
STATUS_DONE = 1 << 1
STATUS_ERROR = 1 << 2

#: Widths of the sequencer's status outputs (the CSRs zero-extend them to 32 bits).
ERROR_CODE_WIDTH = 8
PC_WIDTH = OFFSET_WIDTH
CYCLES_WIDTH = 32


def buffer_region(index: int) -> int:
    """The region number of buffer ``index``."""
    return REGION_BUFFER0 + check_int("index", index, 0, 255 - REGION_BUFFER0)


def bus_address(region: int, offset: int) -> int:
    """The bus word address of ``offset`` in ``region``."""
    region = check_int("region", region, 0, 255)
    offset = check_int("offset", offset, 0, (1 << OFFSET_WIDTH) - 1)
    return (region << REGION_SHIFT) | offset


def bus_signature() -> wiring.Signature:
    """The accelerator's top-level host ports (accelerator side), as BUS.md lists them."""
    return wiring.Signature({
        "bus_addr": In(BUS_WIDTH),
        "bus_wdata": In(BUS_WIDTH),
        "bus_we": In(1),
        "bus_re": In(1),
        "bus_rdata": Out(BUS_WIDTH),
        "irq": Out(1),
    })


class HostPort(wiring.Signature):
    """One region's share of the bus, initiator (decoder) side.

    Members: ``addr`` Out(``addr_width``), ``wdata`` Out(``data_width``), ``we`` Out(1),
    ``re`` Out(1), ``rdata`` In(``data_width``). ``we``/``re`` are high only in cycles the bus
    addresses this region; ``rdata`` is sampled in the cycle after ``re``.
    """

    def __init__(self, addr_width: int, data_width: int = BUS_WIDTH):
        self.addr_width = check_int("addr_width", addr_width, 0, OFFSET_WIDTH)
        self.data_width = check_int("data_width", data_width, 1, BUS_WIDTH)
        super().__init__({
            "addr": Out(addr_width),
            "wdata": Out(data_width),
            "we": Out(1),
            "re": Out(1),
            "rdata": In(data_width),
        })

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, HostPort) and other.addr_width == self.addr_width
                and other.data_width == self.data_width)

    def __hash__(self) -> int:
        return hash((HostPort, self.addr_width, self.data_width))

    def __repr__(self) -> str:
        return f"HostPort({self.addr_width}, {self.data_width})"


def host_members(addr_width: int, data_width: int = BUS_WIDTH) -> dict[str, wiring.Member]:
    """The flat target-side members of a bus region: ``host_addr``, ``host_wdata``,
    ``host_we``, ``host_re`` (in) and ``host_rdata`` (out, one cycle after ``host_re``)."""
    check_int("addr_width", addr_width, 0, OFFSET_WIDTH)
    check_int("data_width", data_width, 1, BUS_WIDTH)
    return {
        "host_addr": In(addr_width),
        "host_wdata": In(data_width),
        "host_we": In(1),
        "host_re": In(1),
        "host_rdata": Out(data_width),
    }


def connect_host_port(m: Module, port: wiring.PureInterface | wiring.Component,
                      target: wiring.Component) -> None:
    """Wire a decoder's :class:`HostPort` ``port`` to a region's flat ``host_*`` members.

    The address widths must be equal (so the decoder's range check is the region's size);
    a narrower data width on the target is zero-extended on read and truncated on write.
    """
    for name in ("host_addr", "host_wdata", "host_we", "host_re", "host_rdata"):
        if not hasattr(target, name):
            raise ValueError(f"bus target {target!r} has no member {name!r}")
    want, got = len(port.addr), len(target.host_addr)
    if want != got:
        raise ValueError(f"bus target {target!r}: host_addr is {got} bits, its region's "
                         f"port has {want}")
    for name in ("host_wdata", "host_rdata"):
        if len(getattr(target, name)) > len(port.wdata):
            raise ValueError(f"bus target {target!r}: {name} is wider than "
                             f"{len(port.wdata)} bits")
    m.d.comb += [
        target.host_addr.eq(port.addr),
        target.host_wdata.eq(port.wdata),
        target.host_we.eq(port.we),
        target.host_re.eq(port.re),
        port.rdata.eq(target.host_rdata),
    ]


def status_signature() -> wiring.Signature:
    """The sequencer's status outputs (sequencer side; the CSR block has them flipped).

    ``busy``, ``done``, ``error`` (1 bit), ``error_code`` (:data:`ERROR_CODE_WIDTH`),
    ``pc`` (:data:`PC_WIDTH`) and ``cycles`` (:data:`CYCLES_WIDTH`).
    """
    return wiring.Signature({
        "busy": Out(1),
        "done": Out(1),
        "error": Out(1),
        "error_code": Out(ERROR_CODE_WIDTH),
        "pc": Out(PC_WIDTH),
        "cycles": Out(CYCLES_WIDTH),
    })


def connect_status(m: Module, sequencer: wiring.Component, csr: wiring.Component) -> None:
    """Wire the status outputs of ``sequencer`` to the inputs of the same name on ``csr``,
    and ``csr.go`` to ``sequencer.go``."""
    for name in status_signature().members:
        m.d.comb += getattr(csr, name).eq(getattr(sequencer, name))
    m.d.comb += sequencer.go.eq(csr.go)


def connect_bus(m: Module, outer: wiring.Component, decoder: BusDecoder) -> None:
    """Wire a top level's :func:`bus_signature` ports (``outer``) to ``decoder`` (all but
    ``irq``, which the top level drives from its :class:`CSRBlock`)."""
    m.d.comb += [
        decoder.bus_addr.eq(outer.bus_addr),
        decoder.bus_wdata.eq(outer.bus_wdata),
        decoder.bus_we.eq(outer.bus_we),
        decoder.bus_re.eq(outer.bus_re),
        outer.bus_rdata.eq(decoder.bus_rdata),
    ]


class BusDecoder(wiring.Component):
    """Split the host bus into regions, and route read data back one cycle later.

    Region ``i`` (``bus_addr[24:32] == i``) gets the member ``region<i>``, a
    :class:`HostPort` of ``region_addr_widths[i]`` address bits: ``addr`` is the offset's low
    bits, ``wdata`` the bus data, ``we``/``re`` the bus strobes when the address falls in the
    region. An address whose offset has bits at or above the region's width, or whose region
    index is ``len(region_addr_widths)`` or more, selects nothing: the write is dropped and
    the read returns 0. ``bus_rdata`` is the ``rdata`` of the region read in the previous
    cycle, and 0 in a cycle that does not follow a read.

    Parameters
    ----------
    region_addr_widths : sequence of int
        Per region, its offset width in bits (0..24; a region holds ``2**w`` words).

    Attributes
    ----------
    bus_addr, bus_wdata, bus_we, bus_re : Signal, in
    bus_rdata : Signal(32), out
        As :func:`bus_signature` (without ``irq``).
    region0, region1, ... : HostPort, out
    """

    def __init__(self, *, region_addr_widths: Sequence[int]):
        try:
            widths = list(region_addr_widths)
            check_int("len(region_addr_widths)", len(widths), 1, 1 << (BUS_WIDTH
                                                                       - REGION_SHIFT))
            self._widths = [check_int(f"region_addr_widths[{i}]", w, 0, OFFSET_WIDTH)
                            for i, w in enumerate(widths)]
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        members: dict[str, wiring.Member] = {
            name: member for name, member in bus_signature().members.items() if name != "irq"}
        for i, w in enumerate(self._widths):
            members[f"region{i}"] = Out(HostPort(w))
        super().__init__(members)

    @property
    def region_addr_widths(self) -> tuple[int, ...]:
        """Each region's offset width."""
        return tuple(self._widths)

    def region(self, index: int) -> wiring.PureInterface:
        """The :class:`HostPort` interface of region ``index``."""
        check_int("index", index, 0, len(self._widths) - 1)
        port: wiring.PureInterface = getattr(self, f"region{index}")
        return port

    def elaborate(self, platform: object) -> Module:
        m = Module()
        index = self.bus_addr[REGION_SHIFT:]
        offset = self.bus_addr[:OFFSET_WIDTH]
        # Which region was read last cycle (one-hot, all 0 if none): selects bus_rdata.
        read_last = Signal(len(self._widths))
        rdata: Value = Const(0, BUS_WIDTH)
        for i, w in enumerate(self._widths):
            port = self.region(i)
            hit = Signal(name=f"hit{i}")
            in_range = offset[w:] == 0 if w < OFFSET_WIDTH else True
            m.d.comb += [
                hit.eq((index == i) & in_range),
                port.addr.eq(offset[:w]),
                port.wdata.eq(self.bus_wdata),
                port.we.eq(self.bus_we & hit),
                port.re.eq(self.bus_re & hit),
            ]
            m.d.sync += read_last[i].eq(self.bus_re & hit)
            rdata = rdata | Mux(read_last[i], port.rdata, 0)
        m.d.comb += self.bus_rdata.eq(rdata)
        return m


class CSRBlock(wiring.Component):
    """The control and status registers of BUS.md, region 0 of the bus.

    =======  ========  =========================================================
    offset   name      access
    =======  ========  =========================================================
    0        CTRL      write: bit 0 ``go`` (self-clearing), bit 1 ``irq_clear``;
                       read: bit 0 busy, bit 1 done, bit 2 error
    1        CYCLES    read: the sequencer's ``cycles``
    2        PC        read: the sequencer's ``pc``
    3        ERROR     read: the sequencer's ``error_code`` (:data:`ERROR_CODES`)
    4 + j    stat j    read: input ``stat_<stats[j]>``
    =======  ========  =========================================================

    Reads are registered (data in the cycle after ``host_re``); a read of an offset with no
    register returns 0; writes to read-only registers are ignored. ``go`` is high, for the
    cycle of the bus write, when CTRL is written with bit 0 set; the sequencer ignores it
    while busy. ``irq`` is ``done`` masked by an ``irq_clear`` write until the next ``go``
    that starts a run (``go`` while busy does not re-arm it).

    Parameters
    ----------
    stats : sequence of str
        Names of the extra read-only statistic inputs, in offset order from 4
        (identifiers, distinct): input members ``stat_<name>`` In(32).

    Attributes
    ----------
    host_addr, host_wdata, host_we, host_re, host_rdata
        The region's bus target members (:func:`host_members`).
    busy, done, error, error_code, pc, cycles : Signal, in
        From the sequencer (:func:`status_signature`, flipped).
    stat_<name> : Signal(32), in
    go : Signal(1), out
    irq : Signal(1), out
    """

    def __init__(self, *, stats: Sequence[str] = ()):
        try:
            names = list(stats)
            for j, name in enumerate(names):
                if not isinstance(name, str) or not name.isidentifier():
                    raise ValueError(f"stats[{j}] must be an identifier, not {name!r}")
            if len(set(names)) != len(names):
                raise ValueError(f"stats names must be distinct, not {names}")
            self._stats = tuple(names)
            self._addr_width = max(1, (CSR_STATS + len(names) - 1).bit_length())
            check_int("len(stats)", len(names), 0, (1 << OFFSET_WIDTH) - CSR_STATS)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        members: dict[str, wiring.Member] = dict(host_members(self._addr_width))
        members.update(status_signature().flip().members)
        for name in names:
            members[f"stat_{name}"] = In(BUS_WIDTH)
        members["go"] = Out(1)
        members["irq"] = Out(1)
        super().__init__(members)

    @property
    def addr_width(self) -> int:
        """Offset width of the CSR region (the decoder's ``region_addr_widths[0]``)."""
        return self._addr_width

    @property
    def stats(self) -> tuple[str, ...]:
        """The statistic names, in offset order."""
        return self._stats

    def register_map(self) -> dict[str, int]:
        """Every register's word offset by name (``"CTRL"``, ..., ``"stat_<name>"``)."""
        regs = {"CTRL": CSR_CTRL, "CYCLES": CSR_CYCLES, "PC": CSR_PC, "ERROR": CSR_ERROR}
        regs.update({f"stat_{n}": CSR_STATS + j for j, n in enumerate(self._stats)})
        return regs

    def elaborate(self, platform: object) -> Module:
        m = Module()
        ctrl_write = self.host_we & (self.host_addr == CSR_CTRL)
        m.d.comb += self.go.eq(ctrl_write & self.host_wdata[0])
        cleared = Signal()
        with m.If(ctrl_write & self.host_wdata[0] & ~self.busy):
            m.d.sync += cleared.eq(0)
        with m.Elif(ctrl_write & self.host_wdata[1]):
            m.d.sync += cleared.eq(1)
        m.d.comb += self.irq.eq(self.done & ~cleared)

        status = Signal(3)
        m.d.comb += status.eq(self.busy | (self.done << 1) | (self.error << 2))
        with m.If(self.host_re):
            with m.Switch(self.host_addr):
                for offset, value in [(CSR_CTRL, status), (CSR_CYCLES, self.cycles),
                                      (CSR_PC, self.pc), (CSR_ERROR, self.error_code),
                                      *[(CSR_STATS + j, getattr(self, f"stat_{n}"))
                                        for j, n in enumerate(self._stats)]]:
                    with m.Case(offset):
                        m.d.sync += self.host_rdata.eq(value)
                with m.Default():
                    m.d.sync += self.host_rdata.eq(0)
        return m
