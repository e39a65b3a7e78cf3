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
    exactly. Until the first ``refresh_sync`` the timer runs from reset as if synced in the
    cycle before it. Without an interval (SRAM, ReRAM) ``stall`` is always low.
``reads``, ``writes``, ``refreshes`` (Out 32)
    Elements read and written by performed accesses (a row access of ``banks`` lanes counts
    ``banks``; host accesses count), and refresh operations, since reset (wrapping).
``expired`` (Out 1)
    With ``retention_cycles`` (the retention checker, for CAMEL-style lifetime analysis:
    eDRAM with refresh off or sparse), high from the cycle the data of a read (unit or
    host) arrives -- and sticky after -- when the read was of a word whose last write or
    refresh (or reset, for ``init`` data) is more than ``retention_cycles`` cycles before
    the read. Shadow memories of time stamps (one 32-bit stamp per word) make it cheap in
    simulation; it is a verification aid, not hardware. Always low without a checker.

The data itself never decays in the RTL: the checker flags a read that would have failed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value
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

# One access path: (performed, elements moved, per bank (enable, row address)).
_Access = tuple[Value, int, list[tuple[Value, Value]]]


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
    rows_per_refresh : int
        Rows one refresh operation restores (as
        :class:`~archsim.hw.models.memtech.MemoryModel` takes it); only the retention checker
        uses it, since a refresh operation takes one cycle whatever its size.
    retention_cycles : int, optional
        Build the retention checker: ``expired`` rises (and stays high) after a read of a
        word last written or refreshed more than this many cycles before, e.g.
        ``floor(MemoryModel.refresh_period_s * clock_hz)``. ``None``: no checker.
    init : sequence of int, optional
        Initial raw words (unsigned, ``< 2 ** width``), element order; the rest are 0.
    """

    def __init__(self, *, words: int, width: int, banks: int = 1, read_ports: int = 1,
                 write_ports: int = 1, port_lanes: Mapping[str, int] | None = None,
                 refresh_interval_cycles: int | None = None, rows_per_refresh: int = 1,
                 retention_cycles: int | None = None,
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
            check_int("rows_per_refresh", rows_per_refresh, 1, words // banks)
            if retention_cycles is not None:
                check_int("retention_cycles", retention_cycles, 1,
                          (1 << (COUNTER_WIDTH - 1)) - 1)
            words_init = self._check_init(init, words, width)
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.words, self.width, self.banks = words, width, banks
        self.read_ports, self.write_ports = read_ports, write_ports
        self.port_lanes: dict[str, int] = lanes
        self.refresh_interval_cycles = refresh_interval_cycles
        self.rows_per_refresh = rows_per_refresh
        self.retention_cycles = retention_cycles
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
            "refreshes": Out(COUNTER_WIDTH), "expired": Out(1),
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

        # Every access as per-bank (enable, row address) pairs, so the retention checker can
        # shadow them; `go` is the access being performed, `n` the elements it moves.
        read_specs: list[_Access] = []
        write_specs: list[_Access] = []

        def read(name: str, addr: Value, en: Value, data: Value, lanes: int) -> None:
            go = Signal(name=f"{name}_go")
            m.d.comb += go.eq(en & ~stall)
            ports = [mem.read_port() for mem in mems]
            if lanes == banks:
                per_bank = [(go, addr) for _ in range(banks)]
                m.d.comb += data.eq(Cat(*(rp.data for rp in ports)))
            else:
                lane = Signal(range(banks), name=f"{name}_lane")
                with m.If(go):
                    m.d.sync += lane.eq(addr[:shift])
                per_bank = [(go & (addr[:shift] == b), addr >> shift) for b in range(banks)]
                m.d.comb += data.eq(Array(rp.data for rp in ports)[lane])
            for rp, (en_b, addr_b) in zip(ports, per_bank, strict=True):
                m.d.comb += [rp.en.eq(en_b), rp.addr.eq(addr_b)]
            read_specs.append((go, lanes, per_bank))

        def write(name: str, addr: Value, en: Value, data: Value, lanes: int) -> None:
            go = Signal(name=f"{name}_go")
            m.d.comb += go.eq(en & ~stall)
            if lanes == banks:
                per_bank = [(go, addr) for _ in range(banks)]
                datas = [data[b * width:(b + 1) * width] for b in range(banks)]
            else:
                per_bank = [(go & (addr[:shift] == b), addr >> shift) for b in range(banks)]
                datas = [data for _ in range(banks)]
            for mem, (en_b, addr_b), d in zip(mems, per_bank, datas, strict=True):
                wp = mem.write_port()
                m.d.comb += [wp.en.eq(en_b), wp.addr.eq(addr_b), wp.data.eq(d)]
            write_specs.append((go, lanes, per_bank))

        for name, n_lanes in self.port_lanes.items():
            port = getattr(self, name)
            (read if name.startswith("read_") else write)(name, port.addr, port.en,
                                                          port.data, n_lanes)
        read("host_read", self.host_addr, self.host_re, self.host_rdata, 1)
        write("host_write", self.host_addr, self.host_we, self.host_wdata, 1)

        def total(specs: list[_Access]) -> Value:
            # Elements moved this cycle over every performed access.
            acc: Value = Const(0, COUNTER_WIDTH)
            for go, n, _ in specs:
                acc = acc + go * n
            return acc

        m.d.sync += [self.reads.eq(self.reads + total(read_specs)),
                     self.writes.eq(self.writes + total(write_specs))]
        if self.retention_cycles is not None:
            self._retention_checker(m, stall, read_specs, write_specs)
        else:
            m.d.comb += self.expired.eq(0)
        return m

    def _retention_checker(self, m: Module, stall: Value, read_specs: list[_Access],
                           write_specs: list[_Access]) -> None:
        """Shadow every bank with a memory of time stamps (the cycle each word was last
        written or refreshed; 0 for ``init``) and raise ``expired`` when a read finds a
        stamp older than ``retention_cycles``."""
        assert self.retention_cycles is not None
        banks, rows, per_op = self.banks, self.rows, self.rows_per_refresh
        now = Signal(COUNTER_WIDTH)
        m.d.sync += now.eq(now + 1)
        stamps = []
        for b in range(banks):
            mem = Memory(shape=COUNTER_WIDTH, depth=rows, init=[])
            m.submodules[f"stamps_{b}"] = mem
            stamps.append(mem)
        for _, _, per_bank in write_specs:
            for mem, (en_b, addr_b) in zip(stamps, per_bank, strict=True):
                wp = mem.write_port()
                m.d.comb += [wp.en.eq(en_b), wp.addr.eq(addr_b), wp.data.eq(now)]
        # A refresh operation restores rows ptr .. ptr + per_op - 1 (the last one of a sweep
        # may be short), then ptr moves on, wrapping to row 0.
        ptr = Signal(range(rows))
        for k in range(per_op):
            row = ptr + k
            for mem in stamps:
                wp = mem.write_port()
                m.d.comb += [wp.en.eq(stall & (row < rows)), wp.addr.eq(row), wp.data.eq(now)]
        with m.If(stall):
            m.d.sync += ptr.eq(Mux(ptr + per_op >= rows, 0, ptr + per_op))
        then = Signal(COUNTER_WIDTH)
        m.d.sync += then.eq(now)
        late = []
        for _, _, per_bank in read_specs:
            for mem, (en_b, addr_b) in zip(stamps, per_bank, strict=True):
                rp = mem.read_port()
                checked = Signal()
                m.d.comb += [rp.en.eq(en_b), rp.addr.eq(addr_b)]
                m.d.sync += checked.eq(en_b)
                late.append(checked & ((then - rp.data)[:COUNTER_WIDTH] > self.retention_cycles))
        # High in the cycle the late data arrives, and sticky after.
        seen = Signal()
        now_late = Cat(*late).any()
        m.d.sync += seen.eq(seen | now_late)
        m.d.comb += self.expired.eq(seen | now_late)
