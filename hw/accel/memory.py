"""A buffer of an accelerator: banked words, unit ports, a host port, and eDRAM refresh.

:class:`BufferMemory` holds ``words`` elements of ``width`` bits in ``banks`` Amaranth
memories (:class:`amaranth.lib.memory.Memory`, one per bank), element ``a`` in bank ``a %
banks`` at row ``a // banks`` -- so a row port of ``banks`` lanes reads elements ``row *
banks + i`` as lane ``i``, as :mod:`archsim.hw.accel.interface` specifies.

Members
-------
``read_<i>`` / ``write_<i>``
    The memory side of :func:`~archsim.hw.accel.interface.read_port` /
    :func:`~archsim.hw.accel.interface.write_port` (``In(read_port(aw, width * lanes))``),
    so a unit's ``Out(read_port(...))`` operand connects with :func:`wiring.connect`. A port
    of 1 lane addresses elements (``aw`` = :attr:`BufferMemory.element_addr_width`); a port
    of ``banks`` lanes addresses rows (:attr:`BufferMemory.row_addr_width`). Reads are
    synchronous (data the cycle after ``en``; held while ``en`` is low); a write is visible
    to reads from the next cycle. Two writes to one element in one cycle are undefined.
``host_addr``, ``host_wdata``, ``host_we``, ``host_re``, ``host_rdata``
    The bus's element port: ``host_re`` with ``host_addr`` in cycle ``t`` gives
    ``host_rdata`` in ``t + 1`` (held after); ``host_we`` writes ``host_wdata``.
``refresh_sync`` (In 1), ``stall`` (Out 1)
    With ``refresh_interval_cycles = I`` (eDRAM), counting the cycle after a
    ``refresh_sync`` pulse as cycle 1, cycles ``I, 2I, ...`` are refresh cycles: ``stall``
    is high, no port access (unit or host) is performed and every read port holds its data.
    The accelerator freezes the units bound to this buffer in those cycles (and the bus holds
    its request). This is the timer :class:`archsim.hw.models.memtech.MemoryModel` counts
    exactly. Without an interval (SRAM, ReRAM) ``stall`` is always low.
``reads``, ``writes``, ``refreshes`` (Out 32)
    Elements read and written by performed accesses (a row access of ``banks`` lanes counts
    ``banks``; host accesses count), and refresh operations, since reset (wrapping).

The RTL does not lose data when a refresh is late: retention is priced by the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from amaranth.hdl import Array, Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..checks import check_int, check_positive, silence_unused
from .interface import read_port, write_port

__all__ = ["BufferMemory", "COUNTER_WIDTH", "MAX_WIDTH"]

#: Width of the access and refresh counters.
COUNTER_WIDTH = 32
#: Widest element a buffer holds (raw words of up to 32 bits).
MAX_WIDTH = 32


class BufferMemory(wiring.Component):
    """Banked on-chip buffer with unit ports, a host port and optional refresh stalls.

    Parameters
    ----------
    words : int
        Elements held (a multiple of ``banks``).
    width : int
        Bits per element, 1..32.
    banks : int
        Memories side by side (a power of two); a row is one address in every bank.
    read_ports, write_ports : int
        Unit ports ``read_<i>`` / ``write_<i>`` (0..16 each).
    port_lanes : dict of str to int, optional
        Lanes per port by name (``{"read_0": 4}``): 1 (element access, the default) or
        ``banks`` (row access).
    refresh_interval_cycles : int, optional
        Cycles between refresh operations (>= 2), e.g.
        :meth:`MemoryModel.refresh_interval_cycles <archsim.hw.models.memtech.MemoryModel.refresh_interval_cycles>`;
        ``None`` for memories that are not refreshed.
    init : sequence of int, optional
        Initial raw words (unsigned, ``< 2 ** width``), element order; the rest are 0.
    """

    def __init__(self, *, words: int, width: int, banks: int = 1, read_ports: int = 1,
                 write_ports: int = 1, port_lanes: Mapping[str, int] | None = None,
                 refresh_interval_cycles: int | None = None,
                 init: Sequence[int] | np.ndarray | None = None) -> None:
        try:
            check_positive("words", words)
            check_int("width", width, 1, MAX_WIDTH)
            check_positive("banks", banks)
            if banks & (banks - 1):
                raise ValueError(f"banks must be a power of two, not {banks}")
            if words % banks:
                raise ValueError(f"words ({words}) must be a multiple of banks ({banks})")
            check_int("read_ports", read_ports, 0, 16)
            check_int("write_ports", write_ports, 0, 16)
            names = [f"read_{i}" for i in range(read_ports)] + \
                [f"write_{i}" for i in range(write_ports)]
            lanes = dict.fromkeys(names, 1)
            for name, value in dict(port_lanes or {}).items():
                if name not in lanes:
                    raise ValueError(f"port_lanes names port {name!r}; the ports are {names}")
                if isinstance(value, bool) or not isinstance(value, int) or value not in (1, banks):
                    raise ValueError(f"port_lanes[{name!r}] must be 1 or banks ({banks}), not "
                                     f"{value!r}")
                lanes[name] = value
            if refresh_interval_cycles is not None:
                check_int("refresh_interval_cycles", refresh_interval_cycles, 2,
                          (1 << COUNTER_WIDTH) - 1)
            words_init = self._check_init(init, words, width)
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.words, self.width, self.banks = words, width, banks
        self.read_ports, self.write_ports = read_ports, write_ports
        self.port_lanes: dict[str, int] = lanes
        self.refresh_interval_cycles = refresh_interval_cycles
        self.init = words_init
        self.rows = words // banks
        self.row_addr_width = max(1, (self.rows - 1).bit_length())
        self.lane_bits = (banks - 1).bit_length()
        self.element_addr_width = self.row_addr_width + self.lane_bits
        members: dict[str, object] = {}
        for name, n_lanes in lanes.items():
            sig = read_port if name.startswith("read_") else write_port
            members[name] = In(sig(self.addr_width(n_lanes), width * n_lanes))
        members.update({
            "host_addr": In(self.element_addr_width), "host_wdata": In(width),
            "host_we": In(1), "host_re": In(1), "host_rdata": Out(width),
            "refresh_sync": In(1), "stall": Out(1),
            "reads": Out(COUNTER_WIDTH), "writes": Out(COUNTER_WIDTH),
            "refreshes": Out(COUNTER_WIDTH),
        })
        super().__init__(members)

    @staticmethod
    def _check_init(init: Sequence[int] | np.ndarray | None, words: int,
                    width: int) -> tuple[int, ...]:
        if init is None:
            return (0,) * words
        values = list(np.asarray(init).ravel().tolist()) if isinstance(init, np.ndarray) \
            else list(init)
        if len(values) > words:
            raise ValueError(f"init has {len(values)} words; the buffer holds {words}")
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << width:
                raise ValueError(f"init[{i}] must be an int in 0..{(1 << width) - 1}, not "
                                 f"{v!r}")
        return tuple(values) + (0,) * (words - len(values))

    def addr_width(self, lanes: int) -> int:
        """Address width of a port of ``lanes`` lanes (element or row address)."""
        if lanes not in (1, self.banks):
            raise ValueError(f"lanes must be 1 or banks ({self.banks}), not {lanes!r}")
        return self.row_addr_width if lanes == self.banks else self.element_addr_width

    def elaborate(self, platform: object) -> Module:
        m = Module()
        banks, width, shift = self.banks, self.width, self.lane_bits
        mems = []
        for b in range(banks):
            mem = Memory(shape=width, depth=self.rows, init=list(self.init[b::banks]))
            m.submodules[f"bank_{b}"] = mem
            mems.append(mem)

        stall = Signal()
        if self.refresh_interval_cycles is None:
            m.d.comb += stall.eq(0)
        else:
            last = self.refresh_interval_cycles - 1
            timer = Signal(range(last + 1))
            m.d.comb += stall.eq((timer == last) & ~self.refresh_sync)
            with m.If(self.refresh_sync | (timer == last)):
                m.d.sync += timer.eq(0)
            with m.Else():
                m.d.sync += timer.eq(timer + 1)
        m.d.comb += self.stall.eq(stall)
        m.d.sync += self.refreshes.eq(self.refreshes + stall)

        read_counts, write_counts = [], []

        def element_read(addr: Signal, en: Signal, data: Signal, name: str) -> Signal:
            go = Signal(name=f"{name}_go")
            m.d.comb += go.eq(en & ~stall)
            ports = [mem.read_port() for mem in mems]
            if banks == 1:
                m.d.comb += [ports[0].en.eq(go), ports[0].addr.eq(addr), data.eq(ports[0].data)]
                return go
            lane = Signal(range(banks), name=f"{name}_lane")
            with m.If(go):
                m.d.sync += lane.eq(addr[:shift])
            for b, rp in enumerate(ports):
                m.d.comb += [rp.en.eq(go & (addr[:shift] == b)), rp.addr.eq(addr >> shift)]
            m.d.comb += data.eq(Array(rp.data for rp in ports)[lane])
            return go

        def element_write(addr: Signal, en: Signal, data: Signal, name: str) -> Signal:
            go = Signal(name=f"{name}_go")
            m.d.comb += go.eq(en & ~stall)
            for b, mem in enumerate(mems):
                wp = mem.write_port()
                hit = go if banks == 1 else go & (addr[:shift] == b)
                m.d.comb += [wp.en.eq(hit), wp.addr.eq(addr >> shift), wp.data.eq(data)]
            return go

        for name, n_lanes in self.port_lanes.items():
            port = getattr(self, name)
            row = n_lanes == banks and banks > 1
            if name.startswith("read_"):
                if row:
                    go = Signal(name=f"{name}_go")
                    m.d.comb += go.eq(port.en & ~stall)
                    ports = [mem.read_port() for mem in mems]
                    for rp in ports:
                        m.d.comb += [rp.en.eq(go), rp.addr.eq(port.addr)]
                    m.d.comb += port.data.eq(Cat(*(rp.data for rp in ports)))
                else:
                    go = element_read(port.addr, port.en, port.data, name)
                read_counts.append((go, n_lanes))
            else:
                if row:
                    go = Signal(name=f"{name}_go")
                    m.d.comb += go.eq(port.en & ~stall)
                    for b, mem in enumerate(mems):
                        wp = mem.write_port()
                        m.d.comb += [wp.en.eq(go), wp.addr.eq(port.addr),
                                     wp.data.eq(port.data[b * width:(b + 1) * width])]
                else:
                    go = element_write(port.addr, port.en, port.data, name)
                write_counts.append((go, n_lanes))
        read_counts.append((element_read(self.host_addr, self.host_re, self.host_rdata,
                                         "host_read"), 1))
        write_counts.append((element_write(self.host_addr, self.host_we, self.host_wdata,
                                           "host_write"), 1))

        def total(counts: list[tuple[Signal, int]]) -> object:
            # Elements moved this cycle over every performed access.
            terms = [go * n for go, n in counts]
            acc = terms[0]
            for term in terms[1:]:
                acc = acc + term
            return acc

        m.d.sync += [self.reads.eq(self.reads + total(read_counts)),
                     self.writes.eq(self.writes + total(write_counts))]
        return m
