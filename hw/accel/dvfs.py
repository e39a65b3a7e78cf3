"""DVFS in RTL: behavioural LDO and ADPLL with their digital control interfaces, and the DVFS
controller that changes a domain's operating point and stalls the domain meanwhile.

:class:`LDOControl` and :class:`ADPLLControl` stand in for the analog macros: they take the
code a controller writes and answer ``ready`` / ``lock`` after the settling / lock time of
:class:`archsim.hw.models.dvfs.LDOModel` / :class:`~archsim.hw.models.dvfs.ADPLLModel`,
converted to cycles of the controller's clock (:func:`~archsim.hw.models.dvfs.cycles_for`) at
elaboration. The LDO's cycles depend on the step, so they are a ROM indexed by ``|code
change|`` (exact, as the model's settling time is linear in the step).

Timing (cycle ``t`` is the first cycle a new code is on the input): ``ready``/``lock`` is low
in cycles ``t .. t + N - 1`` and high from ``t + N``, where ``N`` is the cycles of that step.

:class:`DVFSController` owns one LDOControl and one ADPLLControl per domain (instantiated
inside it as ``ldo_<d>`` / ``adpll_<d>``; its ``ldo_code`` / ``dco_code`` outputs are the
codes it drives to them, which a chip would route to the real macros). A request sampled in
cycle ``s`` (``req`` high while not ``busy``):

- to the domain's current point, an out-of-range ``op`` or an out-of-range ``domain``: ``ack``
  in cycle ``s + 1``, no stall, nothing changes;
- otherwise ``stall[domain]`` rises in cycle ``s + 1`` and the first code is on its output;
  in the safe order (frequency rising: LDO first, then DCO; otherwise DCO first, then LDO,
  skipping a step whose code does not change) each step lasts its ``N`` cycles plus the one
  cycle in which the controller sees ``ready``/``lock`` high and writes the next code (or
  ends). The stall is high for exactly :meth:`DVFSTransition.stall_cycles
  <archsim.hw.models.dvfs.DVFSTransition.stall_cycles>` cycles; ``ack`` pulses in the first
  cycle after it, together with the new ``current_op``.
"""

from __future__ import annotations

from collections.abc import Sequence

from amaranth import Array, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...errors import ConfigError
from ..checks import check_int, check_positive, silence_unused
from ..models.dvfs import ADPLLModel, DVFSModel, LDOModel, OperatingPoint, VFCurve, cycles_for

__all__ = ["LDOControl", "ADPLLControl", "DVFSController"]


def _clock(clock_hz: object) -> float:
    if isinstance(clock_hz, bool) or not isinstance(clock_hz, (int, float)) or not (
            clock_hz > 0):
        raise ConfigError(f"clock_hz must be a positive number, not {clock_hz!r}",
                          field="clock_hz")
    return float(clock_hz)


def _width(n: int) -> int:
    """Bits to hold 0 .. n - 1 (at least 1)."""
    return max(1, (n - 1).bit_length())


class LDOControl(wiring.Component):
    """The LDO's control interface, behaviourally: ``code`` in, ``ready`` out.

    Parameters
    ----------
    ldo : LDOModel
    clock_hz : float
        The clock of the ``sync`` domain this runs in (the DVFS controller's).
    reset_code : int
        The code the regulator holds after reset.

    Attributes
    ----------
    settle_cycles : tuple of int
        Cycles of a step of ``d`` codes, ``d = 0 .. codes - 1`` (the ROM's contents).
    """

    def __init__(self, *, ldo: LDOModel, clock_hz: float, reset_code: int = 0) -> None:
        try:
            self._setup(ldo, clock_hz, reset_code)
        except Exception:
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        super().__init__({"code": In(ldo.code_width), "ready": Out(1)})

    def _setup(self, ldo: LDOModel, clock_hz: float, reset_code: int) -> None:
        if not isinstance(ldo, LDOModel):
            raise ConfigError(f"ldo must be an LDOModel, not {ldo!r}", field="ldo")
        self.ldo = ldo
        self.clock_hz = _clock(clock_hz)
        self.reset_code = check_int("reset_code", reset_code, 0, ldo.codes - 1)
        self.settle_cycles = tuple(cycles_for(ldo.settling_s_codes(0, d), self.clock_hz)
                                   for d in range(ldo.codes))

    def elaborate(self, platform: object) -> Module:
        m = Module()
        w = max(1, max(self.settle_cycles).bit_length())
        m.submodules.rom = rom = Memory(shape=unsigned(w), depth=len(self.settle_cycles),
                                        init=self.settle_cycles)
        rd = rom.read_port(domain="comb")
        cur = Signal(self.ldo.code_width, init=self.reset_code)
        count = Signal(w)
        m.d.comb += [
            rd.addr.eq(Mux(self.code > cur, self.code - cur, cur - self.code)),
            # low from the cycle a new code appears, so a controller never sees a stale ready
            self.ready.eq((count == 0) & (self.code == cur)),
        ]
        with m.If(self.code != cur):
            m.d.sync += [cur.eq(self.code), count.eq(rd.data - 1)]
        with m.Elif(count != 0):
            m.d.sync += count.eq(count - 1)
        return m


class ADPLLControl(wiring.Component):
    """The ADPLL's control interface, behaviourally: ``dco_code`` in, ``lock`` out; a new
    code unlocks the loop for :attr:`lock_cycles` cycles of ``clock_hz``."""

    def __init__(self, *, adpll: ADPLLModel, clock_hz: float, reset_code: int = 0) -> None:
        try:
            self._setup(adpll, clock_hz, reset_code)
        except Exception:
            silence_unused(self)
            raise
        super().__init__({"dco_code": In(adpll.code_width), "lock": Out(1)})

    def _setup(self, adpll: ADPLLModel, clock_hz: float, reset_code: int) -> None:
        if not isinstance(adpll, ADPLLModel):
            raise ConfigError(f"adpll must be an ADPLLModel, not {adpll!r}", field="adpll")
        self.adpll = adpll
        self.clock_hz = _clock(clock_hz)
        self.reset_code = check_int("reset_code", reset_code, 0, adpll.codes - 1)
        #: Cycles from a new code to ``lock``.
        self.lock_cycles = cycles_for(adpll.lock_s, self.clock_hz)

    def elaborate(self, platform: object) -> Module:
        m = Module()
        cur = Signal(self.adpll.code_width, init=self.reset_code)
        count = Signal(range(self.lock_cycles + 1))
        m.d.comb += self.lock.eq((count == 0) & (self.dco_code == cur))
        with m.If(self.dco_code != cur):
            m.d.sync += [cur.eq(self.dco_code), count.eq(self.lock_cycles - 1)]
        with m.Elif(count != 0):
            m.d.sync += count.eq(count - 1)
        return m


class DVFSController(wiring.Component):
    """Changes the operating point of one of ``domains`` domains on request (module
    docstring for the timing).

    Parameters
    ----------
    operating_points : sequence of OperatingPoint
        The table every domain chooses from (``op`` indexes it); each point is realised by
        :meth:`DVFSModel.realize` (and checked against ``curve`` when given).
    ldo : LDOModel
    adpll : ADPLLModel
        Each domain has its own regulator and PLL of these models.
    clock_hz : float
        The controller's clock (an always-on domain).
    domains : int
    curve : VFCurve, optional
    initial_op : int
        Every domain's point after reset.

    Members
    -------
    req : In(1); domain : In; op : In
        A request, sampled while not ``busy``.
    ack : Out(1)
        One-cycle pulse when a request is done.
    busy : Out(1)
        A change is in progress (requests are ignored).
    stall : Out(domains)
        Bit ``d`` high while domain ``d`` changes point: the accelerator freezes its units.
    current_op, ldo_code, dco_code : Out(array of domains)
        Each domain's point index and the codes driven to its LDO and ADPLL.
    """

    def __init__(self, *, operating_points: Sequence[OperatingPoint], ldo: LDOModel,
                 adpll: ADPLLModel, clock_hz: float, domains: int = 1,
                 curve: VFCurve | None = None, initial_op: int = 0) -> None:
        try:
            self._setup(operating_points, ldo, adpll, clock_hz, domains, curve, initial_op)
        except Exception:
            silence_unused(self)
            raise
        ow = self._op_width
        super().__init__({
            "req": In(1),
            "domain": In(_width(self.domains)),
            "op": In(ow),
            "ack": Out(1),
            "busy": Out(1),
            "stall": Out(self.domains),
            "current_op": Out(data.ArrayLayout(ow, self.domains),
                              init=[self.initial_op] * self.domains),
            "ldo_code": Out(data.ArrayLayout(ldo.code_width, self.domains)),
            "dco_code": Out(data.ArrayLayout(adpll.code_width, self.domains)),
        })

    def _setup(self, operating_points: Sequence[OperatingPoint], ldo: LDOModel,
               adpll: ADPLLModel, clock_hz: float, domains: int, curve: VFCurve | None,
               initial_op: int) -> None:
        self.model = DVFSModel(ldo=ldo, adpll=adpll, curve=curve)
        points = tuple(operating_points)
        if not points:
            raise ConfigError("operating_points must not be empty", field="operating_points")
        self.operating_points = points
        self.realized = tuple(self.model.realize(p) for p in points)
        self.clock_hz = _clock(clock_hz)
        self.domains = check_positive("domains", domains)
        self.initial_op = check_int("initial_op", initial_op, 0, len(points) - 1)
        self.ldo = ldo
        self.adpll = adpll
        self._op_width = _width(len(points))

    def elaborate(self, platform: object) -> Module:
        m = Module()
        n = len(self.operating_points)
        ldo_of = Array(Const(r[0], self.ldo.code_width) for r in self.realized)
        dco_of = Array(Const(r[1], self.adpll.code_width) for r in self.realized)
        init_l, init_d = self.realized[self.initial_op][:2]

        ldo_ready = Signal(self.domains)
        dco_lock = Signal(self.domains)
        ldo_regs, dco_regs, op_regs = [], [], []
        for d in range(self.domains):
            lc = LDOControl(ldo=self.ldo, clock_hz=self.clock_hz, reset_code=init_l)
            pc = ADPLLControl(adpll=self.adpll, clock_hz=self.clock_hz, reset_code=init_d)
            m.submodules[f"ldo_{d}"] = lc
            m.submodules[f"adpll_{d}"] = pc
            lr = Signal(self.ldo.code_width, init=init_l, name=f"ldo_code_{d}")
            dr = Signal(self.adpll.code_width, init=init_d, name=f"dco_code_{d}")
            orr = Signal(self._op_width, init=self.initial_op, name=f"op_{d}")
            m.d.comb += [lc.code.eq(lr), pc.dco_code.eq(dr), ldo_ready[d].eq(lc.ready),
                         dco_lock[d].eq(pc.lock), self.ldo_code[d].eq(lr),
                         self.dco_code[d].eq(dr), self.current_op[d].eq(orr)]
            ldo_regs.append(lr)
            dco_regs.append(dr)
            op_regs.append(orr)

        dom = Signal(_width(self.domains), name="dom")   # latched domain of the change
        tgt = Signal(self._op_width, name="tgt")        # latched target point
        second = Signal(2, name="second")               # 0 none, 1 LDO next, 2 DCO next
        stall = Signal(self.domains, init=0, name="stall_r")
        ack = Signal(name="ack_r")
        m.d.comb += [self.stall.eq(stall), self.ack.eq(ack)]
        m.d.sync += ack.eq(0)

        cur_ops = Array(op_regs)
        cur = cur_ops[self.domain]
        cur_l, cur_d = ldo_of[cur], dco_of[cur]
        new_l, new_d = ldo_of[self.op], dco_of[self.op]
        l_changes = new_l != cur_l
        d_changes = new_d != cur_d
        ready_now = ldo_ready.bit_select(dom, 1)
        lock_now = dco_lock.bit_select(dom, 1)

        def write_ldo(idx: Signal, code: object) -> None:
            for d in range(self.domains):
                with m.If(idx == d):
                    m.d.sync += ldo_regs[d].eq(code)

        def write_dco(idx: Signal, code: object) -> None:
            for d in range(self.domains):
                with m.If(idx == d):
                    m.d.sync += dco_regs[d].eq(code)

        def finish() -> None:
            m.d.sync += [ack.eq(1), stall.eq(0)]
            for d in range(self.domains):
                with m.If(dom == d):
                    m.d.sync += op_regs[d].eq(tgt)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.req):
                    valid = (self.op < n) & (self.domain < self.domains)
                    with m.If(~valid | (~l_changes & ~d_changes)):
                        m.d.sync += ack.eq(1)
                    with m.Else():
                        m.d.sync += [dom.eq(self.domain), tgt.eq(self.op),
                                     stall.eq((Const(1, self.domains) << self.domain)[:self.domains])]
                        # frequency rising: voltage first (safe order), else frequency first
                        with m.If(new_d > cur_d):
                            with m.If(l_changes):
                                write_ldo(self.domain, new_l)
                                m.d.sync += second.eq(Mux(d_changes, 2, 0))
                                m.next = "WAIT_LDO"
                            with m.Else():
                                write_dco(self.domain, new_d)
                                m.d.sync += second.eq(0)
                                m.next = "WAIT_DCO"
                        with m.Else():
                            with m.If(d_changes):
                                write_dco(self.domain, new_d)
                                m.d.sync += second.eq(Mux(l_changes, 1, 0))
                                m.next = "WAIT_DCO"
                            with m.Else():
                                write_ldo(self.domain, new_l)
                                m.d.sync += second.eq(0)
                                m.next = "WAIT_LDO"
            with m.State("WAIT_LDO"):
                with m.If(ready_now):
                    with m.If(second == 2):
                        write_dco(dom, dco_of[tgt])
                        m.d.sync += second.eq(0)
                        m.next = "WAIT_DCO"
                    with m.Else():
                        finish()
                        m.next = "IDLE"
            with m.State("WAIT_DCO"):
                with m.If(lock_now):
                    with m.If(second == 1):
                        write_ldo(dom, ldo_of[tgt])
                        m.d.sync += second.eq(0)
                        m.next = "WAIT_LDO"
                    with m.Else():
                        finish()
                        m.next = "IDLE"
        m.d.comb += self.busy.eq(stall.any())
        return m
