"""The object ``kernel.synthesize(...)`` returns: report, model, RTL and simulation views."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ...dsl.types import FormatType, HWType
from ...errors import DSLError
from ...hw.hls_ops import (
    op_cost,
    register_area_um2,
    sram_read_energy_j,
    sram_write_energy_j,
)
from .codegen import HLSComponent
from .ir import KernelIR, Loop, Region, trip_count
from .schedule import ScheduleOptions, node_delay_ns, node_width, resource_class, schedule_kernel

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
    memories: list[dict[str, Any]]
    operators: list[OperatorReport] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
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


def _s(x: Any) -> str:
    return "-" if x is None else str(x)


@dataclass(frozen=True)
class Estimate:
    """Pre-RTL estimate from the schedule and :mod:`archsim.hw.hls_ops`."""

    cycles: int | None
    latency_s: float | None
    energy_j: float | None
    area_um2: float
    breakdown_area_um2: dict[str, float] = field(default_factory=dict)

    @property
    def area_mm2(self) -> float:
        """Area in mm^2."""
        return self.area_um2 * 1e-6


class Design:
    """A compiled kernel: the model, RTL and simulation views of one schedule.

    Attributes
    ----------
    ir : KernelIR
        The scheduled IR.
    clock_ns : float
    resources : dict
    compile_time_s : float
        Seconds from Python source to the scheduled IR.
    """

    def __init__(self, kern: Any, ir: KernelIR, *, clock_ns: float, resources: dict[str, int],
                 name: str, compile_time_s: float) -> None:
        self.kernel = kern
        self.ir = ir
        self.clock_ns = clock_ns
        self.resources = dict(resources)
        self.name = name
        self.compile_time_s = compile_time_s
        self._component: HLSComponent | None = None
        self._verilog: str | None = None

    # ---- RTL view -----------------------------------------------------------------------
    def make_component(self, init: dict[str, Any] | None = None) -> HLSComponent:
        """A fresh component, its memories preloaded with ``init`` (raw codes per array)."""
        return HLSComponent(self.ir, init=init, mul_units=self.resources.get("mul"),
                            div_units=self.resources.get("div"))

    @property
    def component(self) -> HLSComponent:
        """The Amaranth component (memories start at zero)."""
        if self._component is None:
            self._component = self.make_component()
        return self._component

    def verilog(self) -> str:
        """Verilog of :attr:`component`, module name :attr:`name` (generated once: the IR
        does not change after compilation, and Verilator runs look their build up by it)."""
        if self._verilog is None:
            from ...hw.verilog import to_verilog

            self._verilog = to_verilog(self.make_component(), name=self.name)
        return self._verilog

    def area(self, **kwargs: Any) -> Any:
        """Synthesis estimate (:func:`archsim.hw.synth.synthesize`) of the component."""
        from ...hw.synth import synthesize

        return synthesize(self.make_component(), name=self.name, **kwargs)

    def simulate(self, *args: Any, backend: str = "pysim") -> Any:
        """Run the RTL to ``done`` on these arguments (see :mod:`archsim.sim.rtl.hls_run`)."""
        from ...sim.rtl.hls_run import run_design

        return run_design(self, args, backend=backend)

    # ---- model view ---------------------------------------------------------------------
    def _env(self, args: tuple[Any, ...]) -> dict[str, int]:
        bound = self.kernel.bind(args)
        return {n: int(self.ir.scalars[n](v).raw) for n, v in bound.items()
                if n in self.ir.scalars}

    @property
    def has_while(self) -> bool:
        """True when the kernel has ``while bounded(...)`` loops (data-dependent cycles)."""
        return any(r.is_while for r in self.ir.regions())

    def cycles(self, *args: Any, worst_case: bool = False) -> int:
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
        if len(args) != len(self.ir.params):
            raise DSLError(f"kernel '{self.kernel.name}' takes {len(self.ir.params)} "
                           f"arguments, got {len(args)}")
        env = {}
        for n, v in zip(self.ir.params, args, strict=True):
            if n in self.ir.scalars:
                env[n] = self.ir.scalars[n](v).raw
        whiles: Any = None
        if self.has_while:
            if worst_case:
                whiles = "worst"
            else:
                if any(a is None for a in args):
                    raise DSLError(f"kernel '{self.kernel.name}' has while loops: its cycles "
                                   "depend on the array contents, so pass the arrays",
                                   hint="or ask for the bound: cycles(..., worst_case=True)")
                whiles = {line: iter(v) for line, v in self.kernel.while_trips(*args).items()}
        return 1 + _seg_cycles(self.ir.body, env, whiles)

    def static_cycles(self) -> int | None:
        """Cycles when every bound is a constant (and there is no while loop), else None."""
        try:
            return 1 + _seg_cycles(self.ir.body, {})
        except KeyError:
            return None

    def report(self) -> HLSReport:
        """Per loop: trip count, II requested/achieved and why, depth, cycles; totals."""
        rows: list[LoopReport] = []

        def walk(segs: list[Region | Loop]) -> None:
            for s in segs:
                if isinstance(s, Region) and s.transient:
                    continue  # done inside an FSM transition: no cycles to report
                if isinstance(s, Region):
                    trip = s.static_trip()
                    cyc = None if trip is None else (0 if trip == 0 else
                                                     (trip - 1) * s.ii + s.depth)
                    kind = "straight" if not s.is_loop else (
                        "pipelined" if s.ii_requested is not None else "sequential")
                    why = s.ii_reason
                    if s.is_while:
                        kind = "while"
                        why = (f"data-dependent: k true conditions take min(k + 1, "
                               f"{s.while_max}) x {s.ii} cycles")
                    rows.append(LoopReport(s.name, s.line, kind, trip, s.ii_requested,
                                           s.ii if s.is_loop else None, why, s.depth,
                                           cyc))
                else:
                    trip = (trip_count(s.start.evaluate({}), s.stop.evaluate({}), s.step)
                            if s.start.is_const and s.stop.is_const else None)
                    try:
                        cyc = _seg_cycles([s], {})
                    except KeyError:
                        cyc = None
                    rows.append(LoopReport(s.name, s.line, "fsm", trip, None, None,
                                           "contains loops", None, cyc))
                    walk(s.body)

        walk(self.ir.body)
        ops = [OperatorReport(r.name, n.line, n.kind, node_width(n), n.latency, n.pipelined,
                              round(node_delay_ns(n), 6))
               for r in self.ir.regions() for n in r.nodes if n.latency]
        return HLSReport(kernel=self.name, clock_ns=self.clock_ns, operators=ops,
                         critical_path_ns=self.critical_path_ns(), loops=rows,
                         cycles=self.static_cycles(), resources=self.resource_counts(),
                         memories=[{"name": a.name, "banks": a.banks, "depth": a.bank_depth,
                                    "width": a.elem.width} for a in self.ir.arrays.values()])

    def critical_path_ns(self) -> float:
        """Longest path in any cycle (a chain of operators, one stage of a multi-cycle
        operator, or a memory read into a register), register overheads included."""
        from ...hw.hls_ops import MEM_TCO_NS, REG_OVERHEAD_NS, REG_TCO_NS

        worst = 0.0
        for r in self.ir.regions():
            for n in r.nodes:
                worst = max(worst, n.end_ns, MEM_TCO_NS if n.kind == "load" else 0.0)
        return worst - REG_TCO_NS + REG_OVERHEAD_NS if worst else REG_OVERHEAD_NS

    def resource_counts(self) -> dict[str, int]:
        """Operator instances in the datapath (multipliers after binding) and registers."""
        counts: dict[str, int] = {}
        mul_units = 0
        div_units = 0
        for r in self.ir.regions():
            for n in r.nodes:
                cls = resource_class(n)
                if cls == "mul":
                    if "mul" in self.resources:
                        mul_units = max(mul_units, n.unit + 1)
                    else:
                        mul_units += 1
                elif cls == "div":
                    if "div" in self.resources:
                        div_units = max(div_units, n.unit + 1)
                    else:
                        div_units += 1
                elif n.kind not in ("const", "arg", "var", "ivar", "load", "store", "setvar",
                                    "cast") and node_delay_ns(n) > 0:
                    kind = "mul_const" if n.kind == "mul" else n.kind  # shift-and-add
                    counts[kind] = counts.get(kind, 0) + 1
        out = {"mul": mul_units}
        if div_units:
            out["div"] = div_units
        out.update(sorted(counts.items()))
        return out

    def estimate(self, *args: Any) -> Estimate:
        """Pre-RTL latency, energy and area from the schedule and the operator table.

        Energy counts every operator execution and memory access (iterations times the
        region's operators); with no arguments, bounds must be static.
        """
        area: dict[str, float] = {}
        for r in self.ir.regions():
            for n in r.nodes:
                if n.kind in ("const", "arg", "var", "ivar", "load", "store", "setvar", "cast"):
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
        try:
            env = self._env(args) if args else {}
            energy = _seg_energy(self.ir.body, env, self.ir)  # while loops: N iterations
            cyc = 1 + _seg_cycles(self.ir.body, env, "worst")
        except KeyError:
            energy, cyc = None, None
        return Estimate(cycles=cyc, latency_s=None if cyc is None else
                        cyc * self.clock_ns * 1e-9, energy_j=energy,
                        area_um2=sum(area.values()), breakdown_area_um2=area)


def _bound(b: Any, env: dict[str, int]) -> int:
    return b.evaluate(env)


def _seg_cycles(segs: list[Region | Loop], env: dict[str, int], whiles: Any = None) -> int:
    """Cycles of a segment list; ``whiles``: "worst", or line -> iterator of per-entry counts
    of true conditions (None: unknown, a while loop raises KeyError)."""
    total = 0
    for s in segs:
        if isinstance(s, Region) and s.is_while:
            if whiles is None or (whiles != "worst" and s.line not in whiles):
                raise KeyError(s.name)
            trip = s.while_max if whiles == "worst" else \
                min(next(whiles[s.line]) + 1, s.while_max)
            total += (trip - 1) * s.ii + s.depth
        elif isinstance(s, Region):
            trip = trip_count(_bound(s.start, env), _bound(s.stop, env), s.step) \
                if s.is_loop else 1
            total += 0 if trip == 0 else (trip - 1) * s.ii + s.depth
        else:
            lo, hi = _bound(s.start, env), _bound(s.stop, env)
            if not _depends(s.body, s.var) and (whiles is None or whiles == "worst" or
                                                not _has_while(s.body)):
                total += trip_count(lo, hi, s.step) * _seg_cycles(s.body, env, whiles)
            else:
                for v in range(lo, hi, s.step):
                    total += _seg_cycles(s.body, {**env, s.var: v}, whiles)
    return total


def _has_while(segs: list[Region | Loop]) -> bool:
    return any((isinstance(s, Region) and s.is_while) or
               (isinstance(s, Loop) and _has_while(s.body)) for s in segs)


def _depends(segs: list[Region | Loop], var: str) -> bool:
    for s in segs:
        names = s.start.names() | s.stop.names() if s.start is not None else set()
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


def _seg_energy(segs: list[Region | Loop], env: dict[str, int], ir: KernelIR) -> float:
    total = 0.0
    for s in segs:
        if isinstance(s, Region):
            trip = trip_count(_bound(s.start, env), _bound(s.stop, env), s.step) \
                if s.is_loop else 1
            total += trip * _region_energy(s, ir)
        else:
            for v in range(_bound(s.start, env), _bound(s.stop, env), s.step):
                total += _seg_energy(s.body, {**env, s.var: v}, ir)
    return total


def _pad_loops(segs: list[Region | Loop]) -> None:
    """Give every FSM loop body at least one cycle (else its iterations would take none)."""
    for s in segs:
        if isinstance(s, Loop):
            _pad_loops(s.body)
            if _min_cycles(s.body) == 0:
                pad = Region(name=f"{s.name}_pad", line=s.line)
                pad.depth, pad.ii = 1, 1
                s.body.insert(0, pad)


def _min_cycles(segs: list[Region | Loop]) -> int:
    total = 0
    for s in segs:
        if isinstance(s, Region):
            trip = 1 if s.is_while else s.static_trip()  # a while loop runs >= 1 iteration
            total += 0 if not trip else (trip - 1) * s.ii + s.depth
        else:
            if s.start.is_const and s.stop.is_const:
                trip = trip_count(s.start.evaluate({}), s.stop.evaluate({}), s.step)
                total += trip * _min_cycles(s.body)
    return total


def compile_kernel(kern: Any, *, clock_ns: float, resources: dict[str, int],
                   name: str) -> Design:
    """Frontend, scheduling and padding: the :class:`Design` of a kernel."""
    t0 = time.perf_counter()
    opts = ScheduleOptions(clock_ns=clock_ns, resources=dict(resources))
    for arg, a in kern.array_types.items():
        if not isinstance(a.elem, (HWType, FormatType)):
            raise DSLError(f"array '{arg}': element type {getattr(a.elem, 'name', a.elem)} "
                           "has no hardware lowering yet", filename=kern.filename,
                           lineno=kern.line0, hint="use Int, UInt or Fixed elements, or a "
                           "FormatType: a float format of <= 8 bits, or "
                           "FormatType(AdaptivFloat(n=8, e=3), exp_bias=-7)")
    ir = kern.fresh_ir()
    schedule_kernel(ir, opts)
    _pad_loops(ir.body)
    return Design(kern, ir, clock_ns=clock_ns, resources=resources, name=name,
                  compile_time_s=time.perf_counter() - t0)
