"""The accelerator's controller: a sequencer that runs a host-loaded program of unit invocations.

The program (:mod:`archsim.hw.accel.isa`) sits in a program memory the host writes over the
bus while the sequencer is idle. A ``go`` starts it at word 0; RUN loads a unit's arguments
and starts it, DVFS asks a domain for a new operating point, HALT ends the run. The cycle count
the CYCLES CSR reports has the exact closed form :meth:`Sequencer.program_cycles`, which is
what the accelerator's model uses.
"""

from __future__ import annotations

from collections.abc import Sequence

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..checks import check_int, check_positive, silence_unused
from .bus import host_members, status_signature
from .interface import ARG_WIDTH
from .isa import (
    A_SHIFT,
    A_WIDTH,
    IMM_WIDTH,
    MAX_DOMAIN,
    MAX_IMM,
    MAX_UNIT,
    MAX_WORD,
    OPCODE_SHIFT,
    Halt,
    Instruction,
    Opcode,
    Run,
    SetOperatingPoint,
)

__all__ = ["Sequencer", "ERROR_NONE", "ERROR_BAD_OPCODE", "ERROR_BAD_UNIT",
           "ERROR_ARG_COUNT", "ERROR_BAD_DVFS"]

ERROR_NONE = 0
ERROR_BAD_OPCODE = 1
ERROR_BAD_UNIT = 2
ERROR_ARG_COUNT = 3
ERROR_BAD_DVFS = 4


class Sequencer(wiring.Component):
    """Program memory plus the FSM that executes it, one instruction after another.

    **Timing.** Let ``g`` be the cycle ``go`` is high while the sequencer is idle (the cycle
    of the host's CTRL write). ``busy`` is high from ``g + 1``; the program memory's read
    port (1-cycle latency) already has word 0 then, and each instruction is *decoded* in the
    cycle its header word is on the port. Counted from that decode cycle to the next
    instruction's decode cycle, an instruction takes:

    * RUN of unit ``u`` with ``n`` argument words and unit cycles ``C`` (``start`` sampled
      in cycle ``s``, ``done`` high in ``s + C``, the unit contract of
      :mod:`archsim.hw.accel.interface`): ``n + 1 + C`` cycles -- ``n`` cycles load the
      argument words into ``args[0..n-1]``, then ``start[u]`` is high for one cycle (``s``),
      and the next header, fetched meanwhile, is decoded in the cycle ``done[u]`` is high.
    * DVFS with ack latency ``k`` (``dvfs_req`` first high in cycle ``r``, ``dvfs_ack`` high
      in ``r + k``, ``k >= 0``): ``1 + k`` cycles; the next header is decoded in the ack
      cycle.
    * HALT, decoded in cycle ``h``, retires at the end of ``h``: from ``h + 1`` ``busy`` is
      0, ``done`` is 1 (and the CSR block's ``irq``).

    So ``cycles`` -- the number of cycles ``busy`` was high, ``h - g`` -- is exactly::

        cycles = 1 + sum over RUNs (n_i + 1 + C_i) + sum over DVFSs (1 + k_j)

    (:meth:`program_cycles`). ``cycles`` counts live while busy and holds its value until the
    next accepted ``go``; it wraps at 2**32.

    **Errors.** A header is checked when decoded: an unknown opcode is error 1, a RUN whose
    unit index is ``units`` or more error 2, a RUN whose argument count differs from
    ``unit_args[u]`` (or, without ``unit_args``, exceeds ``max_args``) error 3, a DVFS whose
    domain is ``domains`` or more (or whose operating point is ``op_points[d]`` or more)
    error 4. The run then stops like a HALT in that cycle (so a program stopped at
    instruction ``j`` counts ``program_cycles(instructions[:j] + [Halt()])``), with
    ``error`` set, ``error_code`` the code and ``pc`` the offending header's address.

    **Decisions** (BUS.md leaves them open): ``go`` while busy is ignored; the host's program
    memory writes are ignored while busy; the header's reserved bits, a HALT's fields and
    an argument word's bits above :data:`ARG_WIDTH` are ignored; ``pc`` and the fetch
    address wrap modulo ``program_words`` (a power of two); ``args[j]`` for ``j`` beyond the
    running unit's count keep their previous values; the unit-side done input is called
    ``unit_done`` because ``done`` is the sequencer's own sticky status output.
    ``dvfs_req`` is a valid/ready-style request: high from ``r`` until and including the ack
    cycle, with ``dvfs_domain``/``dvfs_op`` stable meanwhile; a DVFS right after a DVFS keeps
    it high, and each cycle with ``dvfs_req & dvfs_ack`` completes one request.

    Parameters
    ----------
    units : int
        Number of units (1..256): the width of ``start`` and ``unit_done``.
    max_args : int
        Number of argument registers (``args``), at least the largest unit's argument count.
    program_words : int
        Program memory depth, a power of two (2..2**24).
    domains : int
        Number of clock/power domains a DVFS instruction may name (1..256).
    unit_args : sequence of int, optional
        Per unit, the exact argument count its RUNs must carry (the contract's
        ``len(all_args)``); default any count up to ``max_args``.
    op_points : sequence of int, optional
        Per domain, its number of operating points; default any ``op`` is passed on.
    init : sequence of int
        Initial program memory words (the rest 0).

    Attributes
    ----------
    host_addr, host_wdata, host_we, host_re, host_rdata
        The program memory's bus target members (:func:`~archsim.hw.accel.bus.host_members`).
    go : Signal(1), in
    busy, done, error, error_code, pc, cycles : Signal, out
        :func:`~archsim.hw.accel.bus.status_signature`; ``done`` and ``error`` are sticky
        until the next accepted ``go``.
    start : Signal(units), out
        One-hot, high for one cycle per RUN.
    unit_done : Signal(units), in
        Each unit's ``done``.
    args : array of Signal(ARG_WIDTH), out
        The argument registers, ``max_args`` of them, valid while ``start`` is high.
    dvfs_req : Signal(1), out
    dvfs_domain : Signal(8), out
    dvfs_op : Signal(16), out
    dvfs_ack : Signal(1), in
    """

    #: Cycles of the HALT's decode (the ``1 +`` of the cycle formula).
    HALT_CYCLES = 1

    def __init__(self, *, units: int, max_args: int, program_words: int = 1024,
                 domains: int = 1, unit_args: Sequence[int] | None = None,
                 op_points: Sequence[int] | None = None, init: Sequence[int] = ()):
        try:
            self._units = check_int("units", units, 1, MAX_UNIT + 1)
            self._max_args = check_int("max_args", max_args, 1, MAX_IMM)
            words = check_int("program_words", program_words, 2, 1 << 24)
            if words & (words - 1):
                raise ValueError(f"program_words must be a power of two, not {words}")
            self._words = words
            self._domains = check_int("domains", domains, 1, MAX_DOMAIN + 1)
            self._unit_args: tuple[int, ...] | None = None
            if unit_args is not None:
                counts = list(unit_args)
                if len(counts) != units:
                    raise ValueError(f"unit_args must have one entry per unit ({units}), "
                                     f"not {len(counts)}")
                self._unit_args = tuple(check_int(f"unit_args[{u}]", c, 0, max_args)
                                        for u, c in enumerate(counts))
            self._op_points: tuple[int, ...] | None = None
            if op_points is not None:
                points = list(op_points)
                if len(points) != domains:
                    raise ValueError(f"op_points must have one entry per domain ({domains}), "
                                     f"not {len(points)}")
                self._op_points = tuple(check_int(f"op_points[{d}]", p, 1, MAX_IMM + 1)
                                        for d, p in enumerate(points))
            init_words = list(init)
            if len(init_words) > words:
                raise ValueError(f"init has {len(init_words)} words; the program memory "
                                 f"holds {words}")
            self._init = [check_int(f"init[{i}]", w, 0, MAX_WORD)
                          for i, w in enumerate(init_words)]
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self._addr_width = (words - 1).bit_length()
        members: dict[str, wiring.Member] = dict(host_members(self._addr_width))
        members["go"] = In(1)
        members.update(status_signature().members)
        members.update({
            "start": Out(units),
            "unit_done": In(units),
            "args": Out(ARG_WIDTH).array(max_args),
            "dvfs_req": Out(1),
            "dvfs_domain": Out(A_WIDTH),
            "dvfs_op": Out(IMM_WIDTH),
            "dvfs_ack": In(1),
        })
        super().__init__(members)

    @property
    def units(self) -> int:
        """Number of units."""
        return self._units

    @property
    def max_args(self) -> int:
        """Number of argument registers."""
        return self._max_args

    @property
    def program_words(self) -> int:
        """Program memory depth in words."""
        return self._words

    @property
    def addr_width(self) -> int:
        """Width of ``host_addr`` (the decoder's region width for the program memory)."""
        return self._addr_width

    @property
    def domains(self) -> int:
        """Number of DVFS domains."""
        return self._domains

    # -- the model view ------------------------------------------------------------------

    @staticmethod
    def run_cycles(nargs: int, unit_cycles: int) -> int:
        """Cycles of one RUN of ``nargs`` argument words whose unit takes ``unit_cycles``
        (decode to next decode): ``nargs + 1 + unit_cycles``."""
        check_int("nargs", nargs, 0, MAX_IMM)
        check_positive("unit_cycles", unit_cycles)
        return nargs + 1 + unit_cycles

    @staticmethod
    def dvfs_cycles(ack_cycles: int) -> int:
        """Cycles of one DVFS whose ack comes ``ack_cycles`` after the request: ``1 + k``."""
        check_int("ack_cycles", ack_cycles, 0, 1 << 62)
        return 1 + ack_cycles

    @staticmethod
    def program_cycles(instructions: Sequence[Instruction], unit_cycles: Sequence[int],
                       dvfs_cycles: Sequence[int]) -> int:
        """The ``cycles`` (CYCLES CSR) of a run of ``instructions``, exactly.

        ``unit_cycles[i]`` is the ``i``-th executed RUN's unit cycles (``start`` sampled to
        ``done`` high), ``dvfs_cycles[j]`` the ``j``-th DVFS's ack latency. Execution ends
        at the first :class:`Halt`; instructions after it are not counted. See the class
        docstring for the formula.

        Raises
        ------
        ValueError
            If there is no Halt, or the lengths do not match the RUN/DVFS counts before it.
        """
        ran: list[Run] = []
        dvfs = 0
        for i, ins in enumerate(instructions):
            if isinstance(ins, Halt):
                break
            if isinstance(ins, Run):
                ran.append(ins)
            elif isinstance(ins, SetOperatingPoint):
                dvfs += 1
            else:
                raise TypeError(f"instructions[{i}] must be a Run, SetOperatingPoint or "
                                f"Halt, not {ins!r}")
        else:
            raise ValueError("the program has no Halt, so its run never retires one")
        if len(unit_cycles) != len(ran):
            raise ValueError(f"unit_cycles has {len(unit_cycles)} entries; the program runs "
                             f"{len(ran)} RUNs before its Halt")
        if len(dvfs_cycles) != dvfs:
            raise ValueError(f"dvfs_cycles has {len(dvfs_cycles)} entries; the program runs "
                             f"{dvfs} DVFS instructions before its Halt")
        total = Sequencer.HALT_CYCLES
        total += sum(Sequencer.run_cycles(len(r.args), int(c))
                     for r, c in zip(ran, unit_cycles, strict=True))
        total += sum(Sequencer.dvfs_cycles(int(k)) for k in dvfs_cycles)
        return total

    def check_program(self, instructions: Sequence[Instruction]) -> None:
        """Raise ``ValueError`` (naming the instruction and the ERROR code the hardware
        would report) if a run of ``instructions`` would stop on an error before its Halt."""
        for i, ins in enumerate(instructions):
            if isinstance(ins, Halt):
                return
            if isinstance(ins, Run):
                if ins.unit >= self._units:
                    raise ValueError(f"instructions[{i}]: unit {ins.unit} is not in "
                                     f"0..{self._units - 1} (error code {ERROR_BAD_UNIT})")
                want = (self._unit_args[ins.unit] if self._unit_args is not None else None)
                if (want is not None and len(ins.args) != want) or \
                        len(ins.args) > self._max_args:
                    allowed = want if want is not None else f"at most {self._max_args}"
                    raise ValueError(f"instructions[{i}]: unit {ins.unit} takes {allowed} "
                                     f"arguments, not {len(ins.args)} "
                                     f"(error code {ERROR_ARG_COUNT})")
            elif isinstance(ins, SetOperatingPoint):
                if ins.domain >= self._domains or (
                        self._op_points is not None
                        and ins.op >= self._op_points[ins.domain]):
                    raise ValueError(f"instructions[{i}]: no domain {ins.domain} operating "
                                     f"point {ins.op} (error code {ERROR_BAD_DVFS})")
        raise ValueError("the program has no Halt: the run would read past it "
                         f"(error code {ERROR_BAD_OPCODE} on the first word that is not an "
                         "instruction)")

    # -- the RTL view --------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        m = Module()
        mem = Memory(shape=32, depth=self._words, init=self._init)
        m.submodules.program = mem
        wp = mem.write_port()
        rp = mem.read_port()  # en stays 1: the port reads fa every cycle

        aw = self._addr_width
        ra = Signal(aw)    # address of the word now on rp.data (read last cycle)
        fa = Signal(aw)    # address read this cycle
        advance = Signal()  # fetch ra + 1 (otherwise hold ra)
        word = rp.data
        opcode = word[OPCODE_SHIFT:]
        field_a = word[A_SHIFT:A_SHIFT + A_WIDTH]
        imm = word[:IMM_WIDTH]
        m.d.comb += [rp.addr.eq(fa), fa.eq(ra + advance), self.host_rdata.eq(word)]
        m.d.sync += ra.eq(fa)

        unit = Signal(max(1, (self._units - 1).bit_length()))
        nargs = Signal(range(self._max_args + 1))
        k = Signal(range(max(2, self._max_args)))

        # Header checks, from the word on the read port (used in every decode cycle).
        bad_unit = Signal()
        bad_count = Signal()
        bad_dvfs = Signal()
        m.d.comb += bad_unit.eq(field_a >= self._units)
        if self._unit_args is not None:
            expected = Signal(IMM_WIDTH)
            with m.Switch(field_a):
                for u, count in enumerate(self._unit_args):
                    with m.Case(u):
                        m.d.comb += expected.eq(count)
            m.d.comb += bad_count.eq(imm != expected)
        else:
            m.d.comb += bad_count.eq(imm > self._max_args)
        if self._op_points is not None:
            limit = Signal(IMM_WIDTH + 1)
            with m.Switch(field_a):
                for d, points in enumerate(self._op_points):
                    with m.Case(d):
                        m.d.comb += limit.eq(points)
            m.d.comb += bad_dvfs.eq((field_a >= self._domains) | (imm >= limit))
        else:
            m.d.comb += bad_dvfs.eq(field_a >= self._domains)

        def stop(code: int) -> None:
            m.d.sync += [self.done.eq(1), self.error.eq(int(code != ERROR_NONE)),
                         self.error_code.eq(code)]
            m.next = "IDLE"

        def decode() -> None:
            # The word on the read port is a header at address ra.
            m.d.comb += advance.eq(1)
            m.d.sync += self.pc.eq(ra)
            with m.Switch(opcode):
                with m.Case(Opcode.RUN):
                    with m.If(bad_unit):
                        stop(ERROR_BAD_UNIT)
                    with m.Elif(bad_count):
                        stop(ERROR_ARG_COUNT)
                    with m.Else():
                        m.d.sync += [unit.eq(field_a), nargs.eq(imm), k.eq(0)]
                        with m.If(imm == 0):
                            m.next = "START"
                        with m.Else():
                            m.next = "ARGS"
                with m.Case(Opcode.DVFS):
                    with m.If(bad_dvfs):
                        stop(ERROR_BAD_DVFS)
                    with m.Else():
                        m.d.sync += [self.dvfs_req.eq(1), self.dvfs_domain.eq(field_a),
                                     self.dvfs_op.eq(imm)]
                        m.next = "DVFS"
                with m.Case(Opcode.HALT):
                    stop(ERROR_NONE)
                with m.Default():
                    stop(ERROR_BAD_OPCODE)

        with m.FSM(name="seq") as fsm:
            with m.State("IDLE"):
                m.d.comb += fa.eq(self.host_addr)
                with m.If(self.go):
                    m.d.comb += fa.eq(0)
                    m.d.sync += [self.done.eq(0), self.error.eq(0), self.error_code.eq(0),
                                 self.cycles.eq(0), self.pc.eq(0)]
                    m.next = "DECODE"
            with m.State("DECODE"):
                decode()
            with m.State("ARGS"):
                m.d.comb += advance.eq(1)
                with m.Switch(k):
                    for j in range(self._max_args):
                        with m.Case(j):
                            m.d.sync += self.args[j].eq(word[:ARG_WIDTH])
                m.d.sync += k.eq(k + 1)
                with m.If(k == nargs - 1):
                    m.next = "START"
            with m.State("START"):
                m.d.comb += self.start.eq(Const(1, self._units) << unit)
                m.next = "WAIT"
            with m.State("WAIT"):
                with m.If(self.unit_done.bit_select(unit, 1)):
                    decode()
            with m.State("DVFS"):
                with m.If(self.dvfs_ack):
                    m.d.sync += self.dvfs_req.eq(0)
                    decode()  # a DVFS decoded here sets dvfs_req again (last assignment wins)
        m.d.comb += self.busy.eq(~fsm.ongoing("IDLE"))
        with m.If(self.busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)
        m.d.comb += [wp.addr.eq(self.host_addr), wp.data.eq(self.host_wdata),
                     wp.en.eq(self.host_we & ~self.busy)]
        return m
