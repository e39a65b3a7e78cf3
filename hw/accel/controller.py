"""The accelerator's controller: a sequencer that runs a host-loaded program of unit invocations.

The program (:mod:`archsim.hw.accel.isa`) sits in a program memory the host writes over the
bus while the sequencer is idle. A ``go`` starts it at word 0; RUN loads a unit's arguments
and starts it (waiting for its done, or, an async RUN, not), WAIT waits for the running units,
DVFS asks a domain for a new operating point, HALT ends the run. The cycle of every event and
the cycle count the CYCLES CSR reports are reproduced exactly by :meth:`Sequencer.timeline`
(:class:`TimelineBuilder` step by step) and :meth:`Sequencer.program_cycles`, which is what
the accelerator's model uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..checks import check_bool, check_int, check_positive, silence_unused
from .bus import host_members, status_signature
from .interface import ARG_WIDTH
from .isa import (
    A_SHIFT,
    A_WIDTH,
    ASYNC_BIT,
    IMM_WIDTH,
    INDIRECT_BIT,
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
    Wait,
)

__all__ = ["Sequencer", "Timeline", "TimelineStep", "TimelineBuilder", "ERROR_NONE",
           "ERROR_BAD_OPCODE", "ERROR_BAD_UNIT", "ERROR_ARG_COUNT", "ERROR_BAD_DVFS"]

ERROR_NONE = 0
ERROR_BAD_OPCODE = 1
ERROR_BAD_UNIT = 2
ERROR_ARG_COUNT = 3
ERROR_BAD_DVFS = 4


#: A RUN's unit cycles given its start cycle (``TimelineBuilder.run``).
CyclesOfStart = Callable[[int], int]
#: The ``i``-th RUN's unit cycles given ``(i, start_cycle)`` (``Sequencer.timeline``).
UnitCyclesFn = Callable[[int, int], int]


@dataclass(frozen=True)
class TimelineStep:
    """When one executed instruction's events happen, in cycles counted from the go cycle
    (the go write's cycle is 0; the first header is decoded in cycle 1).

    Attributes
    ----------
    index : int
        The instruction's position in the program.
    instruction : Instruction or None
        The instruction (None for a :class:`TimelineBuilder` RUN/DVFS given none).
    arrive : int
        The first cycle its header is on the program port with the sequencer ready to decode.
    decode : int
        The cycle it is decoded and issued: ``arrive`` plus its :attr:`hazard` cycles.
    start : int or None
        A RUN's ``start`` cycle; a DVFS's first ``dvfs_req`` cycle; else None.
    done : int or None
        A RUN's unit ``done`` cycle (``start + unit cycles``); a DVFS's ack cycle; else None.
    """

    index: int
    instruction: Instruction | None
    arrive: int
    decode: int
    start: int | None = None
    done: int | None = None

    @property
    def hazard(self) -> int:
        """Cycles the header waited for a running unit (a RUN on a pending unit, WAIT, HALT)."""
        return self.decode - self.arrive


@dataclass(frozen=True)
class Timeline:
    """A run's events (:class:`TimelineStep` per executed instruction, the HALT last) and
    ``cycles``, the CYCLES CSR's value: the HALT's decode cycle."""

    steps: tuple[TimelineStep, ...]
    cycles: int


class TimelineBuilder:
    """The Sequencer's timing (its class docstring), one instruction at a time.

    Call :meth:`run`, :meth:`dvfs` and :meth:`wait` in program order, then :meth:`halt`.
    A RUN's unit cycles may be a callable of its start cycle, so a model can add the stalls
    the unit will meet from that cycle on (its cycles are ``start`` sampled to ``done`` high,
    stalls included).

    >>> b = TimelineBuilder()
    >>> b.run(0, 2, 10, wait=False).start, b.run(1, 0, 4).done, b.wait().decode
    (4, 10, 14)
    >>> b.halt().cycles
    15
    """

    def __init__(self) -> None:
        self._arrive = 1            # the next header's arrival cycle
        self._done: dict[int, int] = {}  # unit -> done cycle of its latest start
        self._steps: list[TimelineStep] = []
        self._halted = False

    def _step(self) -> int:
        if self._halted:
            raise ValueError("the timeline already ended with a HALT")
        return len(self._steps)

    def _all_done(self) -> int:
        return max(self._done.values(), default=0)

    def run(self, unit: int, nargs: int, unit_cycles: int | CyclesOfStart, *,
            wait: bool = True, instruction: Instruction | None = None) -> TimelineStep:
        """A RUN of ``unit`` with ``nargs`` argument words; ``unit_cycles`` is an int or
        ``f(start_cycle) -> int`` (at least 1). ``wait=False`` is an async RUN."""
        index = self._step()
        check_int("unit", unit, 0, MAX_UNIT)
        check_int("nargs", nargs, 0, MAX_IMM)
        check_bool("wait", wait)
        arrive = self._arrive
        decode = max(arrive, self._done.get(unit, 0))
        start = decode + nargs + 1
        raw = unit_cycles(start) if callable(unit_cycles) else unit_cycles
        cycles = check_positive("unit_cycles", int(raw))
        done = start + cycles
        self._done[unit] = done
        self._arrive = done if wait else start + 1
        step = TimelineStep(index, instruction, arrive, decode, start, done)
        self._steps.append(step)
        return step

    def dvfs(self, ack_cycles: int, *, instruction: Instruction | None = None) -> TimelineStep:
        """A DVFS whose ack comes ``ack_cycles`` (>= 0) after its first request cycle."""
        index = self._step()
        k = check_int("ack_cycles", int(ack_cycles), 0, 1 << 62)
        decode = self._arrive
        self._arrive = decode + 1 + k
        step = TimelineStep(index, instruction, decode, decode, decode + 1, decode + 1 + k)
        self._steps.append(step)
        return step

    def wait(self) -> TimelineStep:
        """A WAIT: decoded once every started unit's done has come (its done cycle counts)."""
        index = self._step()
        arrive = self._arrive
        decode = max(arrive, self._all_done())
        self._arrive = decode + 1
        step = TimelineStep(index, Wait(), arrive, decode)
        self._steps.append(step)
        return step

    def halt(self) -> Timeline:
        """The HALT: decoded like a WAIT, it retires in its decode cycle, ``cycles``."""
        index = self._step()
        arrive = self._arrive
        decode = max(arrive, self._all_done())
        self._steps.append(TimelineStep(index, Halt(), arrive, decode))
        self._halted = True
        return Timeline(tuple(self._steps), decode)


class Sequencer(wiring.Component):
    """Program memory plus the FSM that executes it, one instruction after another.

    **Timing.** Let ``g`` be the cycle ``go`` is high while the sequencer is idle (the cycle
    of the host's CTRL write). ``busy`` is high from ``g + 1``; the program memory's read
    port (1-cycle latency) already has word 0 then. Each header *arrives* in the first cycle
    ``a`` it is on the port with the sequencer ready to decode (word 0: ``a = g + 1``), and is
    *decoded* (issued) in cycle ``d >= a``: ``d = a`` unless it must wait for a unit (a
    *hazard*, below). A unit ``u`` is *pending* from the cycle after its ``start`` until and
    including the cycle its ``done`` is high, ``D_u``, but it counts as free in that done
    cycle (the ``pending`` output is the register, set the cycle after ``start``, cleared the
    cycle after ``unit_done``; a ``unit_done`` is captured in any cycle, whatever the
    sequencer is doing). Then, with unit cycles ``C`` (``start`` sampled in cycle ``s``,
    ``done`` high in ``s + C``, ``C >= 1``, the unit contract of
    :mod:`archsim.hw.accel.interface`):

    * RUN of unit ``u`` with ``n`` argument words: ``d = max(a, D_u)`` (``D_u`` of ``u``'s
      latest start; a unit never started has none), so a RUN of a still-pending unit waits
      ``D_u - a`` cycles and is decoded in ``u``'s done cycle, whether the RUN is async or
      not. Then ``n`` cycles ``d + 1 .. d + n`` load ``args[0..n-1]``, ``start[u]`` is high
      in ``s = d + n + 1``, ``done[u]`` is high in ``s + C``. The next header arrives in
      ``s + C`` (the done cycle; the default, ``wait=True``) or, an async RUN
      (``wait=False``), in ``s + 1``.
    * DVFS with ack latency ``k`` (``dvfs_req`` first high in ``r = d + 1``, ``dvfs_ack``
      high in ``r + k``, ``k >= 0``): ``d = a``; the next header arrives in the ack cycle
      ``d + 1 + k``. An indirect DVFS (header bit 16) is the same with ``dvfs_op`` taken
      from the ``dvfs_select`` input in its decode cycle ``d`` instead of the imm field.
    * WAIT: ``d = max(a, D_u over every unit started so far)`` (decoded in the last done
      cycle, or at once if no unit is pending); the next header arrives in ``d + 1``.
    * HALT: decoded like a WAIT, ``h = max(a, every D_u)``, it retires at the end of ``h``:
      from ``h + 1`` ``busy`` is 0, ``done`` is 1 (and the CSR block's ``irq``).

    ``cycles`` -- the number of cycles ``busy`` was high -- is ``h - g``.
    :meth:`timeline` gives every ``a``, ``d``, ``s`` and done cycle (counted from ``g = 0``)
    and ``cycles``; :class:`TimelineBuilder` builds it one instruction at a time. Without
    async RUNs nothing is ever pending at a decode, so the timing is the closed form::

        cycles = 1 + sum over RUNs (n_i + 1 + C_i) + sum over DVFSs (1 + k_j) + #WAITs

    (:meth:`program_cycles`; an async RUN costs ``n_i + 2`` there, plus any hazard waits).
    ``cycles`` counts live while busy and holds its value until the next accepted ``go``; it
    wraps at 2**32.

    **Errors.** A header is checked when decoded: an unknown opcode is error 1, a RUN whose
    unit index is ``units`` or more error 2, a RUN whose argument count differs from
    ``unit_args[u]`` (or, without ``unit_args``, exceeds ``max_args``) error 3, a DVFS whose
    domain is ``domains`` or more (or whose operating point is ``op_points[d]`` or more)
    error 4. The run then stops like a HALT decoded in place of that header (it waits for
    the pending units, so a program stopped at instruction ``j`` counts
    ``program_cycles(instructions[:j] + [Halt()])``), with
    ``error`` set, ``error_code`` the code and ``pc`` the offending header's address.

    **Decisions** (BUS.md leaves them open): ``go`` while busy is ignored; the host's program
    memory writes are ignored while busy; the header's reserved bits (bit 16 of a WAIT or
    HALT header too), an indirect DVFS's imm, a HALT's or WAIT's fields and
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
    pending : Signal(units), out
        Per unit, started and its done not yet seen (the register described above).
    args : array of Signal(ARG_WIDTH), out
        The argument registers, ``max_args`` of them, valid while ``start`` is high.
    dvfs_req : Signal(1), out
    dvfs_domain : Signal(8), out
    dvfs_op : Signal(16), out
    dvfs_ack : Signal(1), in
    dvfs_select : Signal(16), in
        The accelerator's DVFS-select register (the operating point an indirect DVFS asks
        for; sampled, and checked against ``op_points``, in its decode cycle).
    """

    #: Cycles of the HALT's decode (the ``1 +`` of the cycle formula; also a WAIT's when
    #: nothing is pending).
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
            "pending": Out(units),
            "args": Out(ARG_WIDTH).array(max_args),
            "dvfs_req": Out(1),
            "dvfs_domain": Out(A_WIDTH),
            "dvfs_op": Out(IMM_WIDTH),
            "dvfs_ack": In(1),
            "dvfs_select": In(IMM_WIDTH),
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
    def timeline(instructions: Sequence[Instruction],
                 unit_cycles: Sequence[int] | UnitCyclesFn,
                 dvfs_cycles: Sequence[int]) -> Timeline:
        """Every executed instruction's cycles (:class:`Timeline`), exactly as the RTL runs.

        Cycles are counted from the go write's cycle (0); ``Timeline.cycles`` is what the
        CYCLES CSR reports. ``unit_cycles`` gives the ``i``-th executed RUN's unit cycles
        (``start`` sampled to ``done`` high, at least 1), either as a sequence in program
        order or as a callable ``f(i, start_cycle) -> cycles`` (for durations that depend on
        when the unit starts, such as stalls); ``dvfs_cycles[j]`` is the ``j``-th DVFS's ack
        latency. Execution ends at the first :class:`Halt`. The rules are the class
        docstring's.

        Raises
        ------
        ValueError
            If there is no Halt, the sequences' lengths do not match the RUN/DVFS counts
            before it, or a unit cycle count is below 1 or an ack latency below 0.
        """
        ran = dvfs = 0
        for i, ins in enumerate(instructions):
            if isinstance(ins, Halt):
                break
            if isinstance(ins, Run):
                ran += 1
            elif isinstance(ins, SetOperatingPoint):
                dvfs += 1
            elif not isinstance(ins, Wait):
                raise TypeError(f"instructions[{i}] must be a Run, SetOperatingPoint, Wait or "
                                f"Halt, not {ins!r}")
        else:
            raise ValueError("the program has no Halt, so its run never retires one")
        if not callable(unit_cycles) and len(unit_cycles) != ran:
            raise ValueError(f"unit_cycles has {len(unit_cycles)} entries; the program runs "
                             f"{ran} RUNs before its Halt")
        if len(dvfs_cycles) != dvfs:
            raise ValueError(f"dvfs_cycles has {len(dvfs_cycles)} entries; the program runs "
                             f"{dvfs} DVFS instructions before its Halt")
        builder = TimelineBuilder()
        r = j = 0
        for ins in instructions:
            if isinstance(ins, Halt):
                return builder.halt()
            if isinstance(ins, Run):
                cycles: int | CyclesOfStart
                if callable(unit_cycles):
                    cycles = partial(unit_cycles, r)
                else:
                    cycles = int(unit_cycles[r])
                builder.run(ins.unit, len(ins.args), cycles, wait=ins.wait, instruction=ins)
                r += 1
            elif isinstance(ins, SetOperatingPoint):
                builder.dvfs(int(dvfs_cycles[j]), instruction=ins)
                j += 1
            else:
                builder.wait()
        raise AssertionError("unreachable: the Halt was found above")

    @staticmethod
    def program_cycles(instructions: Sequence[Instruction],
                       unit_cycles: Sequence[int] | UnitCyclesFn,
                       dvfs_cycles: Sequence[int]) -> int:
        """The ``cycles`` (CYCLES CSR) of a run of ``instructions``, exactly:
        ``timeline(instructions, unit_cycles, dvfs_cycles).cycles``.

        ``unit_cycles[i]`` is the ``i``-th executed RUN's unit cycles (``start`` sampled to
        ``done`` high), ``dvfs_cycles[j]`` the ``j``-th DVFS's ack latency. Execution ends
        at the first :class:`Halt`; instructions after it are not counted. Without async
        RUNs this is the class docstring's closed form.

        Raises
        ------
        ValueError
            If there is no Halt, or the lengths do not match the RUN/DVFS counts before it.
        """
        return Sequencer.timeline(instructions, unit_cycles, dvfs_cycles).cycles

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
                # An indirect point is data: checked by the hardware when decoded.
                if ins.domain >= self._domains or (
                        self._op_points is not None and ins.op is not None
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
        # A DVFS's operating point: the imm field, or (indirect) the DVFS-select register.
        dvfs_op = Mux(word[INDIRECT_BIT], self.dvfs_select, imm)
        m.d.comb += [rp.addr.eq(fa), fa.eq(ra + advance), self.host_rdata.eq(word)]
        m.d.sync += ra.eq(fa)

        unit = Signal(max(1, (self._units - 1).bit_length()))
        nargs = Signal(range(self._max_args + 1))
        k = Signal(range(max(2, self._max_args)))
        run_async = Signal()  # the RUN being issued goes on without waiting for its done

        # Pending units: set the cycle after start, cleared the cycle after unit_done (captured
        # in every cycle, whatever the FSM does). A unit counts as free in its done cycle.
        running = Signal(self._units)
        m.d.comb += running.eq(self.pending & ~self.unit_done)
        m.d.sync += self.pending.eq((self.pending | self.start) & ~self.unit_done)

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
            m.d.comb += bad_dvfs.eq((field_a >= self._domains) | (dvfs_op >= limit))
        else:
            m.d.comb += bad_dvfs.eq(field_a >= self._domains)

        def stop(code: int) -> None:
            m.d.sync += [self.done.eq(1), self.error.eq(int(code != ERROR_NONE)),
                         self.error_code.eq(code)]
            m.next = "IDLE"

        # Whether the header on the port may issue now: a RUN once its unit is free, a DVFS at
        # once, anything that stops the run (HALT, WAIT, an error) once no unit is running.
        ready = Signal()
        drained = ~running.any()
        with m.Switch(opcode):
            with m.Case(Opcode.RUN):
                m.d.comb += ready.eq(Mux(bad_unit | bad_count, drained,
                                         ~running.bit_select(field_a, 1)))
            with m.Case(Opcode.DVFS):
                m.d.comb += ready.eq(~bad_dvfs | drained)
            with m.Default():
                m.d.comb += ready.eq(drained)

        def decode() -> None:
            # The word on the read port is a header at address ra.
            m.d.sync += self.pc.eq(ra)
            with m.If(~ready):
                m.next = "DECODE"  # a hazard: hold the header (advance stays 0)
            with m.Else():
                issue()

        def issue() -> None:
            m.d.comb += advance.eq(1)
            with m.Switch(opcode):
                with m.Case(Opcode.RUN):
                    with m.If(bad_unit):
                        stop(ERROR_BAD_UNIT)
                    with m.Elif(bad_count):
                        stop(ERROR_ARG_COUNT)
                    with m.Else():
                        m.d.sync += [unit.eq(field_a), nargs.eq(imm), k.eq(0),
                                     run_async.eq(word[ASYNC_BIT])]
                        with m.If(imm == 0):
                            m.next = "START"
                        with m.Else():
                            m.next = "ARGS"
                with m.Case(Opcode.DVFS):
                    with m.If(bad_dvfs):
                        stop(ERROR_BAD_DVFS)
                    with m.Else():
                        m.d.sync += [self.dvfs_req.eq(1), self.dvfs_domain.eq(field_a),
                                     self.dvfs_op.eq(dvfs_op)]
                        m.next = "DVFS"
                with m.Case(Opcode.WAIT):
                    m.next = "DECODE"
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
                # The next header is on the port already; an async RUN decodes it next cycle.
                with m.If(run_async):
                    m.next = "DECODE"
                with m.Else():
                    m.next = "UNIT"
            with m.State("UNIT"):
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
