"""The object ``kernel.synthesize(...)`` returns: report, model, RTL and simulation views."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ...dsl.kernel import Kernel
from ...dsl.types import FormatType, HWType
from ...errors import ConfigError, DSLError
from ...hw.hls_ops import (
    MEM_TCO_NS,
    REG_OVERHEAD_NS,
    REG_TCO_NS,
    op_cost,
    register_area_um2,
    sram_read_energy_j,
    sram_write_energy_j,
)
from ...hw.models.base import OperatorCost, Work
from .codegen import HLSComponent
from .frontend import lower
from .ir import KernelIR, Loop, Region, Segment, raw_scalars
from .schedule import (
    Schedule,
    ScheduleOptions,
    node_delay_ns,
    node_width,
    resource_class,
    schedule_kernel,
)
from .transform import fold_epilogues

if TYPE_CHECKING:
    from ...hw.synth import SynthesisReport
    from ...sim.rtl.hls_run import HLSRunResult

__all__ = ["Design", "LoopReport", "OperatorReport", "HLSReport", "Estimate",
           "compile_kernel"]


@dataclass(frozen=True)
class LoopReport:
    """One loop or straight-line region of the schedule."""

    name: str
    line: int
    kind: str  # "pipelined" | "sequential" | "fsm" | "straight"
    trip: int | None
    ii_requested: int | None
    ii_achieved: int | None
    ii_reason: str
    depth: int | None
    cycles: int | None


@dataclass(frozen=True)
class OperatorReport:
    """A multi-cycle operator: its latency and whether it is pipelined or sequential."""

    loop: str
    line: int
    kind: str
    width: int
    latency: int
    pipelined: bool
    delay_ns: float


@dataclass(frozen=True)
class HLSReport:
    """What :meth:`Design.report` returns; ``str()`` gives the table."""

    kernel: str
    clock_ns: float
    critical_path_ns: float
    loops: list[LoopReport]
    cycles: int | None
    resources: dict[str, int]
    memories: list[dict[str, int | str]]
    operators: list[OperatorReport] = field(default_factory=list)

    def rows(self) -> list[dict[str, object]]:
        """One row per loop/region."""
        return [asdict(x) for x in self.loops]

    def __str__(self) -> str:
        lines = [f"kernel {self.kernel}: clock {self.clock_ns} ns (critical path "
                 f"{self.critical_path_ns:.3f} ns)"]
        lines.append(f"{'loop':<16}{'line':>5}{'kind':>11}{'trip':>7}{'II req':>7}"
                     f"{'II':>4}{'depth':>6}{'cycles':>9}  why")
        for r in self.loops:
            lines.append(f"{r.name:<16}{r.line:>5}{r.kind:>11}{_s(r.trip):>7}"
                         f"{_s(r.ii_requested):>7}{_s(r.ii_achieved):>4}{_s(r.depth):>6}"
                         f"{_s(r.cycles):>9}  {r.ii_reason}")
        lines.append(f"total cycles (start to done): {_s(self.cycles)}")
        for o in self.operators:
            how = "pipelined, one issue per cycle" if o.pipelined else \
                f"sequential, busy {o.latency} cycles"
            lines.append(f"multi-cycle {o.kind}{o.width} at line {o.line} ({o.loop}): "
                         f"latency {o.latency} cycles ({how}; {o.delay_ns:.3f} ns of logic)")
        if self.critical_path_ns > self.clock_ns:
            lines.append(f"warning: a path of {self.critical_path_ns:.3f} ns does not fit the "
                         f"{self.clock_ns} ns clock (a memory read, or a chain of operators "
                         "that each fit a cycle, is not split across cycles); the design runs "
                         "at that period instead")
        lines.append("resources: " + ", ".join(f"{k}={v}" for k, v in self.resources.items()))
        for mem in self.memories:
            lines.append(f"memory {mem['name']}: {mem['banks']} bank(s) x {mem['depth']} x "
                         f"{mem['width']} bits, 1R1W per bank")
        return "\n".join(lines)


def _s(x: object) -> str:
    return "-" if x is None else str(x)


@dataclass(frozen=True)
class Estimate:
    """Pre-RTL estimate from the schedule and :mod:`archsim.hw.hls_ops`.

    ``cycles``, ``latency_s`` (at the requested clock, as the schedule was made for it) and
    ``energy_j`` are None when a loop bound is not known; :attr:`cost` gives them as the
    hardware-model interface's :class:`~archsim.hw.models.base.OperatorCost`.
    """

    cycles: int | None
    latency_s: float | None
    energy_j: float | None
    area_um2: float
    breakdown_area_um2: dict[str, float] = field(default_factory=dict)

    @property
    def area_mm2(self) -> float:
        """Area in mm^2."""
        return self.area_um2 * 1e-6

    @property
    def cost(self) -> OperatorCost | None:
        """The estimate as an :class:`OperatorCost` (bound ``"compute"``), or None when
        the cycles are not known."""
        if self.cycles is None or self.latency_s is None or self.energy_j is None:
            return None
        return OperatorCost(latency_s=self.latency_s, energy_j=self.energy_j, bound="compute",
                            cycles=self.cycles)


#: ``whiles`` argument of the cycle model: per while-loop line, the iterations whose
#: condition held, one count per entry (or "worst": max_iter per entry; None: unknown)
_Whiles = Mapping[int, Iterator[int]] | str | None


class Design:
    """A compiled kernel: the model, RTL and simulation views of one schedule.

    It answers the hardware-model interface (:class:`~archsim.hw.models.base.HardwareModel`):
    :attr:`name` and :meth:`operator_cost` for one invocation on its static shape.

    Attributes
    ----------
    kernel : Kernel
    ir : KernelIR
        The IR (read-only; shared by every design of the kernel).
    schedule : Schedule
        Where every operator runs, each region's II and depth.
    clock_ns : float
    resources : dict
    name : str
    compile_time_s : float
        Seconds from Python source to the schedule.
    """

    def __init__(self, kern: Kernel, schedule: Schedule, *, resources: dict[str, int],
                 name: str, compile_time_s: float) -> None:
        self.kernel = kern
        self.schedule = schedule
        self.ir = schedule.ir
        self.clock_ns = schedule.clock_ns
        self.resources = dict(resources)
        self.name = name
        self.compile_time_s = compile_time_s
        self._component: HLSComponent | None = None
        self._verilog: str | None = None

    # ---- RTL view -----------------------------------------------------------------------
    def make_component(self, init: dict[str, list[int]] | None = None) -> HLSComponent:
        """A fresh component, its memories preloaded with ``init`` (raw codes per array)."""
        return HLSComponent(self.schedule, init=init, mul_units=self.resources.get("mul"),
                            div_units=self.resources.get("div"))

    @property
    def component(self) -> HLSComponent:
        """The Amaranth component (memories start at zero)."""
        if self._component is None:
            self._component = self.make_component()
        return self._component

    def verilog(self) -> str:
        """Verilog of :attr:`component`, module name :attr:`name` (generated once: the
        schedule does not change after compilation, and Verilator runs look their build up
        by it)."""
        if self._verilog is None:
            from ...hw.verilog import to_verilog

            self._verilog = to_verilog(self.make_component(), name=self.name)
        return self._verilog

    def area(self, *, node: str = "nangate45", fpga: bool = True) -> SynthesisReport:
        """Synthesis estimate (:func:`archsim.hw.synth.synthesize`) of the component."""
        from ...hw.synth import synthesize

        return synthesize(self.make_component(), name=self.name, node=node, fpga=fpga)

    def simulate(self, *args: object, backend: str = "pysim",
                 wrap: bool = False) -> HLSRunResult:
        """Run the RTL to ``done`` on these arguments (see :mod:`archsim.sim.rtl.hls_run`):
        ``backend`` is ``"pysim"``, ``"verilator"`` (under cocotb) or ``"native"`` (Verilator
        under a generated C++ harness, no Python per clock edge: the fastest). Arguments
        outside their types' ranges are a DSLError unless ``wrap=True``, as for the golden
        run (:meth:`archsim.dsl.kernel.Kernel.bind`)."""
        from ...sim.rtl.hls_run import run_design  # sim sits above compilers: a lazy reach

        return run_design(self, args, backend=backend, wrap=wrap)

    # ---- model view ---------------------------------------------------------------------
    def scalar_env(self, args: tuple[object, ...]) -> dict[str, int]:
        """Raw codes of the scalar arguments among ``args`` (arrays may be None)."""
        if len(args) != len(self.ir.params):
            raise DSLError(f"kernel '{self.kernel.name}' takes {len(self.ir.params)} "
                           f"arguments, got {len(args)}")
        return raw_scalars(self.ir, dict(zip(self.ir.params, args, strict=True)))

    @property
    def has_while(self) -> bool:
        """True when the kernel has ``while bounded(...)`` loops (data-dependent cycles)."""
        return any(r.is_while for r in self.ir.regions())

    def cycles(self, *args: object, worst_case: bool = False) -> int:
        """Predicted cycles from ``start`` to ``done`` on these arguments.

        A closed form over the schedule: ``1 + sum`` over regions of ``(trip - 1) * II +
        depth``; loops whose bounds do not depend on an outer loop variable multiply.
        Arrays' contents do not matter (bounds come from scalars), so arrays may be None --
        except in a kernel with ``while bounded(cond, max_iter=N)`` loops: there the count is
        exact and data-dependent (the golden view is run to count each entry's iterations
        ``k``; the loop then takes ``min(k + 1, N)`` sequential iterations, the last one
        finding the condition false), or, with ``worst_case=True``, the bound with ``N``
        iterations per entry (arrays may then be None).
        """
        env = self.scalar_env(args)
        whiles: _Whiles = None
        if self.has_while:
            if worst_case:
                whiles = "worst"
            else:
                if any(a is None for a in args):
                    raise DSLError(f"kernel '{self.kernel.name}' has while loops: its cycles "
                                   "depend on the array contents, so pass the arrays",
                                   hint="or ask for the bound: cycles(..., worst_case=True)")
                whiles = {line: iter(v) for line, v in self.kernel.while_trips(*args).items()}
        return 1 + _seg_cycles(self.schedule, self.ir.body, env, whiles)

    def static_cycles(self) -> int | None:
        """Cycles when every bound is a constant (and there is no while loop), else None."""
        try:
            return 1 + _seg_cycles(self.schedule, self.ir.body, {})
        except KeyError:
            return None

    def achieved_clock_ns(self) -> float:
        """The period the design runs at: the requested clock, or its critical path if
        longer (see :meth:`critical_path_ns`)."""
        return max(self.clock_ns, self.critical_path_ns())

    def operator_cost(self, work: Work | None = None) -> OperatorCost:
        """One invocation on the kernel's static shape, through the hardware-model interface.

        Cycles from the schedule (:meth:`static_cycles`), latency at the achieved clock
        (:meth:`achieved_clock_ns`), energy from :meth:`estimate`, bound ``"compute"``.
        ``work`` is accepted for the interface and not read: a design has one shape, and
        splitting larger work into invocations is its caller's business.

        Raises
        ------
        ConfigError
            A loop bound is not a constant (or there is a while loop): one invocation has
            no single cost.
        """
        cycles = self.static_cycles()
        energy = self.estimate().energy_j
        if cycles is None or energy is None:
            raise ConfigError(f"kernel '{self.kernel.name}' has loop bounds that are not "
                              "constant (or a while loop): an invocation has no static cost",
                              field="kernel")
        return OperatorCost(latency_s=cycles * self.achieved_clock_ns() * 1e-9,
                            energy_j=energy, bound="compute", cycles=cycles)

    def report(self) -> HLSReport:
        """Per loop: trip count, II requested/achieved and why, depth, cycles; totals."""
        sched = self.schedule
        rows: list[LoopReport] = []

        def walk(segs: tuple[Segment, ...]) -> None:
            for s in segs:
                if isinstance(s, Region):
                    rs = sched.region(s)
                    if rs.transient:
                        continue  # done inside an FSM transition: no cycles to report
                    trip = s.static_trip()
                    cyc = None if trip is None else rs.cycles(trip)
                    kind = "straight" if not s.is_loop else (
                        "pipelined" if s.ii_requested is not None else "sequential")
                    why = rs.ii_reason
                    if s.is_while:
                        kind = "while"
                        why = (f"data-dependent: k true conditions take min(k + 1, "
                               f"{s.while_max}) x {rs.ii} cycles")
                    rows.append(LoopReport(s.name, s.line, kind, trip, s.ii_requested,
                                           rs.ii if s.is_loop else None, why, rs.depth,
                                           cyc))
                else:
                    try:
                        fsm_cyc: int | None = _seg_cycles(sched, (s,), {})
                    except KeyError:
                        fsm_cyc = None
                    rows.append(LoopReport(s.name, s.line, "fsm", s.static_trip(), None, None,
                                           "contains loops", None, fsm_cyc))
                    walk(sched.body(s))

        walk(self.ir.body)
        ops = []
        for r in sched.walk():
            for n in r.nodes:
                ns = sched.node(n)
                if ns.latency:
                    ops.append(OperatorReport(r.name, n.line, n.kind, node_width(n), ns.latency,
                                              ns.pipelined, round(node_delay_ns(n), 6)))
        return HLSReport(kernel=self.name, clock_ns=self.clock_ns, operators=ops,
                         critical_path_ns=self.critical_path_ns(), loops=rows,
                         cycles=self.static_cycles(), resources=self.resource_counts(),
                         memories=[{"name": a.name, "banks": a.banks, "depth": a.bank_depth,
                                    "width": a.elem.width} for a in self.ir.arrays.values()])

    def critical_path_ns(self) -> float:
        """Longest path in any cycle (a chain of operators, one stage of a multi-cycle
        operator, or a memory read into a register), register overheads included."""
        worst = 0.0
        for n, ns in self.schedule.nodes.items():
            worst = max(worst, ns.end_ns, MEM_TCO_NS if n.kind == "load" else 0.0)
        return worst - REG_TCO_NS + REG_OVERHEAD_NS if worst else REG_OVERHEAD_NS

    def resource_counts(self) -> dict[str, int]:
        """Operator instances in the datapath (multipliers after binding) and registers."""
        counts: dict[str, int] = {}
        units = {"mul": 0, "div": 0}
        for r in self.schedule.walk():
            for n in r.nodes:
                cls = resource_class(n)
                if cls in units:
                    if cls in self.resources:  # shared: as many as the binding used
                        unit = self.schedule.node(n).unit
                        units[cls] = max(units[cls], (unit or 0) + 1)
                    else:
                        units[cls] += 1
                elif n.kind not in _WIRING and node_delay_ns(n) > 0:
                    kind = "mul_const" if n.kind == "mul" else n.kind  # shift-and-add
                    counts[kind] = counts.get(kind, 0) + 1
        out = {"mul": units["mul"]}
        if units["div"]:
            out["div"] = units["div"]
        out.update(sorted(counts.items()))
        return out

    def estimate(self, *args: object) -> Estimate:
        """Pre-RTL latency, energy and area from the schedule and the operator table.

        Energy counts every operator execution and memory access (iterations times the
        region's operators); with no arguments, bounds must be static.
        """
        area: dict[str, float] = {}
        for r in self.ir.regions():
            for n in r.nodes:
                if n.kind in _WIRING:
                    continue
                if resource_class(n) in self.resources:
                    continue  # shared units: counted below
                c = op_cost(n.kind, node_width(n)) if node_delay_ns(n) > 0 else None
                if c:
                    area[n.kind] = area.get(n.kind, 0.0) + c.area_um2
        for cls in ("mul", "div"):
            if cls not in self.resources:
                continue
            widths = [node_width(n) for r in self.ir.regions() for n in r.nodes
                      if resource_class(n) == cls]
            units = self.resource_counts().get(cls, 0)
            if widths:
                area[cls] = units * op_cost(cls, max(widths)).area_um2
        bits = sum(t.width for t in self.ir.variables.values())
        # local arrays: one "written" bit per word (they read as zero until written)
        bits += sum(a.bank_depth * a.banks for a in self.ir.arrays.values() if a.local)
        area["registers"] = register_area_um2(bits)
        energy: float | None
        cyc: int | None
        try:
            env = raw_scalars(self.ir, self.kernel.bind(args)) if args else {}
            energy = _seg_energy(self.schedule, self.ir.body, env)  # while loops: N iterations
            cyc = 1 + _seg_cycles(self.schedule, self.ir.body, env, "worst")
        except KeyError:
            energy, cyc = None, None
        return Estimate(cycles=cyc, latency_s=None if cyc is None else
                        cyc * self.clock_ns * 1e-9, energy_j=energy,
                        area_um2=sum(area.values()), breakdown_area_um2=area)


#: Node kinds that are wiring or sources: no operator of their own.
_WIRING = frozenset({"const", "arg", "var", "ivar", "load", "store", "setvar", "cast"})


def _seg_cycles(sched: Schedule, segs: tuple[Segment, ...], env: Mapping[str, int],
                whiles: _Whiles = None) -> int:
    """Cycles of a segment list; ``whiles``: "worst", or line -> iterator of per-entry counts
    of true conditions (None: unknown, a while loop raises KeyError)."""
    total = 0
    for s in segs:
        if isinstance(s, Region) and s.is_while:
            assert s.while_max is not None
            if whiles is None or (isinstance(whiles, Mapping) and s.line not in whiles):
                raise KeyError(s.name)
            trip = s.while_max if isinstance(whiles, str) else \
                min(next(whiles[s.line]) + 1, s.while_max)
            total += sched.region_cycles(s, trip)
        elif isinstance(s, Region):
            total += sched.region_cycles(s, s.trip(env))
        else:
            body = sched.body(s)
            if not _depends(body, s.var) and (not isinstance(whiles, Mapping) or
                                              not _has_while(body)):
                total += s.trip(env) * _seg_cycles(sched, body, env, whiles)
            else:
                for v in _iterations(s, env):
                    total += _seg_cycles(sched, body, {**env, s.var: v}, whiles)
    return total


def _iterations(loop: Loop, env: Mapping[str, int]) -> range:
    """The values of an FSM loop's variable."""
    return range(loop.start.evaluate(env), loop.stop.evaluate(env), loop.step)


def _has_while(segs: tuple[Segment, ...]) -> bool:
    return any((isinstance(s, Region) and s.is_while) or
               (isinstance(s, Loop) and _has_while(s.body)) for s in segs)


def _depends(segs: tuple[Segment, ...], var: str) -> bool:
    for s in segs:
        names = s.start.names() | s.stop.names() if s.start is not None and \
            s.stop is not None else set()
        if var in names:
            return True
        if isinstance(s, Loop) and _depends(s.body, var):
            return True
    return False


def _region_energy(r: Region, ir: KernelIR) -> float:
    e = 0.0
    for n in r.nodes:
        if n.kind == "load":
            a = ir.arrays[n.attrs["array"]]
            e += sram_read_energy_j(a.elem.width, a.bank_depth)
        elif n.kind == "store":
            a = ir.arrays[n.attrs["array"]]
            e += sram_write_energy_j(a.elem.width, a.bank_depth)
        elif node_delay_ns(n) > 0:
            e += op_cost(n.kind, node_width(n)).energy_j
    return e


def _seg_energy(sched: Schedule, segs: tuple[Segment, ...], env: Mapping[str, int]) -> float:
    total = 0.0
    for s in segs:
        if isinstance(s, Region):
            total += s.trip(env) * _region_energy(s, sched.ir)
        else:
            for v in _iterations(s, env):
                total += _seg_energy(sched, sched.body(s), {**env, s.var: v})
    return total


def compile_kernel(kern: Kernel, *, clock_ns: float, resources: dict[str, int],
                   name: str, scheduler: str = "list", forwarding: bool = True) -> Design:
    """Frontend and scheduling: the :class:`Design` of a kernel."""
    t0 = time.perf_counter()
    opts = ScheduleOptions(clock_ns=clock_ns, resources=dict(resources), scheduler=scheduler,
                           forwarding=forwarding)
    for arg, a in kern.array_types.items():
        if not isinstance(a.elem, (HWType, FormatType)):
            raise DSLError(f"array '{arg}': element type {getattr(a.elem, 'name', a.elem)} "
                           "has no hardware lowering yet", filename=kern.filename,
                           lineno=kern.line0, hint="use Int, UInt or Fixed elements, or a "
                           "FormatType: a float format of <= 8 bits, or "
                           "FormatType(AdaptivFloat(n=8, e=3), exp_bias=-7)")
    schedule = schedule_kernel(fold_epilogues(lower(kern)), opts)
    return Design(kern, schedule, resources=resources, name=name,
                  compile_time_s=time.perf_counter() - t0)
