"""The model view of a compiled accelerator: a program's cycles, time and energy.

Cycles are those the RTL's CYCLES CSR counts, exactly, for every program the controller runs
(steps one after another) whose units' cycles depend only on their arguments (a unit whose
cycles depend on its data, such as a kernel with a bounded ``while``, contributes its worst
case, and the report says the total is a bound): the sequencer's closed form
(:meth:`archsim.hw.accel.controller.Sequencer.program_cycles`) with each RUN's unit cycles
from its contract, plus the cycles the unit is frozen -- an eDRAM refresh of a buffer it is
bound to (the refresh timer restarts at go: cycles ``I, 2I, ...`` of the run, counted here
by walking the program's timeline) -- and each DVFS step's acknowledgement latency (the DVFS
controller's stall, :meth:`archsim.hw.models.dvfs.DVFSTransition.stall_cycles`, plus one).

Time: the sequencer's own cycles (argument loads, starts, DVFS handshakes, the HALT) are
cycles of the ``main`` clock; a unit's cycles, frozen ones included, are cycles of its
domain's clock at the operating point in force (the point the ADPLL realises).

Energy, in components that sum to the total:

``unit:<name>``
    Each invocation's actions (:meth:`Unit.actions`) times the unit's energy per action at
    the 45 nm / 0.9 V reference (:mod:`archsim.hw.models.energy`), scaled by ``(V / 0.9)**2``
    (:func:`archsim.hw.models.dvfs.dynamic_energy_scale`).
``access:<buffer>``, ``leakage:<buffer>``, ``refresh:<buffer>``
    The buffer's port accesses (the units' ``read:``/``write:`` actions) priced by its
    technology (:class:`archsim.hw.models.memtech.MemoryModel`) and scaled with ``V**2``;
    leakage power at the domain's voltage over the program's time; refresh operations.
``dvfs``
    The regulator's energy of each operating-point change.

Not modelled (listed in every report's ``assumptions``): leakage of the units' logic, the
sequencer's and the bus's own energy, and clock-tree power.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...dsl.accel import Program, Run, SetOperatingPoint, Wait
from ...errors import ConfigError
from ...hw.accel.controller import Timeline, TimelineBuilder
from ...hw.models.dvfs import DVFSModel, OperatingPoint, dynamic_energy_scale

if TYPE_CHECKING:
    from .compiled import CompiledAccelerator

__all__ = ["StepReport", "ProgramReport", "model_program", "REFERENCE_VOLTAGE_V",
           "PointResult", "sweep_operating_points"]

#: The supply the units' energy per action is given at (Horowitz, ISSCC 2014, 45 nm).
REFERENCE_VOLTAGE_V = 0.9


@dataclass(frozen=True)
class StepReport:
    """One program step as the model sees it.

    Attributes
    ----------
    index : int
    kind : {"run", "dvfs"}
    target : str
        The unit run, or the domain whose point changes.
    domain : str
    voltage_v, frequency_hz : float
        The domain's operating point during the step (after the change, for DVFS).
    cycles : int
        Cycles the step adds to the CYCLES count.
    unit_cycles : int
        The unit contract's cycles (0 for DVFS).
    stall_cycles : int
        Cycles the unit was frozen (refresh) or the DVFS controller stalled the domain.
    time_s : float
    energy_j : float
        The step's dynamic energy (unit actions, buffer accesses, DVFS).
    exact : bool
        False when the unit's cycles depend on its data and ``unit_cycles`` is its worst
        case (the step's cycles are then an upper bound).
    """

    index: int
    kind: str
    target: str
    domain: str
    voltage_v: float
    frequency_hz: float
    cycles: int
    unit_cycles: int
    stall_cycles: int
    time_s: float
    energy_j: float
    exact: bool = True


@dataclass(frozen=True)
class ProgramReport:
    """A program's cycles, time and energy at the operating points it sets.

    Attributes
    ----------
    steps : tuple of StepReport
    cycles : int
        What the RTL's CYCLES CSR reports (an upper bound of it when not :attr:`exact`).
    stats : dict of str to int
        The statistic CSRs the RTL reports (stall cycles, busy cycles per domain, refresh
        operations per refreshed buffer), predicted.
    time_s : float
    energy_j : dict of str to float
        The energy components (module docstring); they sum to :attr:`total_energy_j`.
    assumptions : tuple of str
    cycles_without_contention : int or None
        The cycles if units started together never met on a shared buffer port (a lower
        bound of the RTL's when every unit's cycles are exact); :attr:`cycles` is then the
        upper bound with each possible conflict counted.
    """

    steps: tuple[StepReport, ...]
    cycles: int
    stats: dict[str, int]
    time_s: float
    energy_j: dict[str, float]
    assumptions: tuple[str, ...] = field(default=())
    cycles_without_contention: int | None = None

    @property
    def exact(self) -> bool:
        """True when :attr:`cycles` is exact; False when it is an upper bound (a step's unit
        cycles depend on its data)."""
        return all(s.exact for s in self.steps)

    @property
    def total_energy_j(self) -> float:
        """The sum of the energy components."""
        return math.fsum(self.energy_j.values())

    @property
    def average_power_w(self) -> float:
        """Total energy over time."""
        return self.total_energy_j / self.time_s if self.time_s > 0 else 0.0

    def rows(self) -> list[dict[str, object]]:
        """One table row per step."""
        return [dict(vars(s)) for s in self.steps]

    def __str__(self) -> str:
        lines = [f"{'step':>4} {'kind':<5} {'target':<12} {'domain':<8} {'V':>5} "
                 f"{'MHz':>7} {'cycles':>8} {'stall':>6} {'time_us':>9} {'energy_nJ':>10}"]
        for s in self.steps:
            lines.append(f"{s.index:>4} {s.kind:<5} {s.target:<12} {s.domain:<8} "
                         f"{s.voltage_v:>5.2f} {s.frequency_hz / 1e6:>7.1f} {s.cycles:>8} "
                         f"{s.stall_cycles:>6} {s.time_s * 1e6:>9.3f} {s.energy_j * 1e9:>10.3f}")
        lines.append(f"total: {self.cycles} cycles, {self.time_s * 1e6:.3f} us, "
                     f"{self.total_energy_j * 1e9:.3f} nJ")
        for name, value in self.energy_j.items():
            lines.append(f"  {name:<24} {value * 1e9:>10.3f} nJ")
        return "\n".join(lines)


class _RefreshTimeline:
    """The refresh cycles of a run: for each refreshed buffer, cycles ``I, 2I, ...`` after
    go (``go`` is cycle 0)."""

    def __init__(self, intervals: dict[str, int]) -> None:
        self.intervals = intervals
        self.counts = dict.fromkeys(intervals, 0)

    def stalls_in(self, buffers: Iterable[str], first: int, last: int) -> int:
        """Cycles in ``first..last`` (inclusive) in which one of ``buffers`` refreshes."""
        periods = sorted({self.intervals[b] for b in buffers if b in self.intervals})
        if not periods or last < first:
            return 0
        # Inclusion-exclusion over the (few) distinct periods of the unit's buffers.
        total = 0
        n = len(periods)
        for mask in range(1, 1 << n):
            chosen = [periods[i] for i in range(n) if mask >> i & 1]
            step = math.lcm(*chosen)
            count = last // step - (first - 1) // step
            total += count if bin(mask).count("1") % 2 else -count
        return total

    def leading(self, buffers: Iterable[str], start: int) -> int:
        """Consecutive stall cycles from cycle ``start`` on: a start that meets them waits,
        pending, with the unit not yet busy (``compilers/accel/top.py``)."""
        names = list(buffers)
        lead = 0
        while self.stalls_in(names, start + lead, start + lead):
            lead += 1
        return lead

    def window(self, buffers: Iterable[str], start: int, enabled: int) -> int:
        """Stall cycles of a window from cycle ``start`` that needs ``enabled`` cycles."""
        names = list(buffers)
        stalls = 0
        while True:
            found = self.stalls_in(names, start, start + enabled + stalls - 1)
            if found == stalls:
                return stalls
            stalls = found


def model_program(compiled: CompiledAccelerator, program: Program, *,
                  buffers: Mapping[str, np.ndarray] | None = None,
                  selected: Sequence[str | int] | None = None) -> ProgramReport:
    """The model of ``program`` on ``compiled`` (see the module docstring).

    An indirect switch (``set_operating_point(domain, from_unit=...)``) goes to a point
    chosen from data, which the model must be given: ``buffers``, the initial buffer words,
    on which a golden run resolves it (:meth:`CompiledAccelerator.golden_run`: the same
    unit golden models that equal the RTL), or ``selected``, one point (name or index) per
    indirect switch in program order -- for a host that knows the pick already (a study
    sweeping sentences). The switch is then modelled like a direct one to that point; a
    :class:`DSLError` names the first indirect switch when neither is given.
    """
    desc = compiled.description
    checked = compiled.check_program(program)
    resolved = compiled.resolve_points(program, buffers=buffers, selected=selected)
    dvfs = DVFSModel(ldo=compiled.ldo, adpll=compiled.adpll)
    f_main = compiled.controller_clock_hz

    # Each domain's point now: (declared point, realised point).
    current: dict[str, tuple[OperatingPoint, OperatingPoint]] = {}
    for name, dom in desc.domains.items():
        v, f = dom.operating_points[dom.initial_point]
        declared = OperatingPoint(voltage_v=v, frequency_hz=f)
        current[name] = (declared, dvfs.realize(declared)[2] if dom.regulated else declared)

    intervals = {b: i for b in compiled.buffers
                 if (i := compiled.refresh_interval_cycles(b)) is not None}
    timeline = _RefreshTimeline(intervals)
    energy: dict[str, float] = {f"unit:{u}": 0.0 for u in compiled.units}
    for b in compiled.buffers:
        energy[f"access:{b}"] = 0.0
    energy["dvfs"] = 0.0
    stats = dict.fromkeys(compiled.stat_names(), 0)

    # First the steps' own figures (unit cycles; DVFS stalls, which follow the points set so
    # far), then the sequencer's timeline from them, then time and energy per step.
    unit_cycles: dict[int, int] = {}
    exact: dict[int, bool] = {}
    moves = {}
    points = {d: current[d][0] for d in current}
    for k, (step, args) in enumerate(zip(program.steps, checked, strict=True)):
        if isinstance(step, Run):
            unit = compiled.units[step.unit]
            try:
                unit_cycles[k], exact[k] = unit.cycles(args), True
            except ConfigError:
                # A unit whose cycles depend on its data (a kernel with a bounded while
                # loop) gives its worst case: the model then bounds the RTL from above.
                bound = getattr(unit, "cycles_bound", None)
                if bound is None:
                    raise
                unit_cycles[k], exact[k] = int(bound(args)), False
        elif isinstance(step, SetOperatingPoint):
            point = step.point if step.point is not None else resolved[k]
            v, f = desc.domains[step.domain].operating_points[point]
            new_point = OperatingPoint(voltage_v=v, frequency_hz=f)
            moves[k] = dvfs.transition(points[step.domain], new_point)
            points[step.domain] = new_point
    dvfs_stalls = {k: move.stall_cycles(f_main) if move.steps else 0
                   for k, move in moves.items()}
    extra = _contention(compiled, program, checked)  # step -> contention cycles at most
    lower, stalls, leads = _timeline(compiled, program, checked, unit_cycles, dvfs_stalls,
                                     timeline, {})
    total_cycles = lower.cycles
    # port contention: at most one frozen cycle per access a sharer wins
    upper = (_timeline(compiled, program, checked, unit_cycles, dvfs_stalls, timeline,
                       extra)[0].cycles if extra else total_cycles)

    steps: list[StepReport] = []
    # Cycle intervals [first, end) with the clock they run at, for the time.
    busy: list[tuple[int, int, float]] = []
    realised = {d: current[d][1] for d in current}  # each domain's point as the steps run
    epochs: list[tuple[int, dict[str, float]]] = [
        (0, {d: p.voltage_v for d, p in realised.items()})]
    for tl, step in zip(lower.steps, program.steps, strict=False):  # the HALT has no step
        k = tl.index
        if isinstance(step, Run):
            spec = desc.units[step.unit]
            stall = stalls[k]
            assert tl.start is not None and tl.done is not None
            real = realised[spec.domain]
            busy.append((tl.start, tl.done, real.frequency_hz))
            e = _unit_energy(compiled, step.unit, checked[k], real.voltage_v, energy)
            # The RTL counts a unit's frozen cycles only once it is busy (``leads``).
            stats["stall_cycles"] += stall - leads[k]
            stats[f"busy_{spec.domain}"] += unit_cycles[k] + stall - leads[k]
            cycles = (tl.done if step.wait else tl.start + 1) - tl.arrive
            dt = (tl.start - tl.arrive) / f_main + (unit_cycles[k] + stall) / real.frequency_hz
            steps.append(StepReport(k, "run", step.unit, spec.domain, real.voltage_v,
                                    real.frequency_hz, cycles, unit_cycles[k], stall, dt, e,
                                    exact[k] and k not in extra))
        elif isinstance(step, SetOperatingPoint):
            move = moves[k]
            assert tl.done is not None
            energy["dvfs"] += move.energy_j
            realised[step.domain] = move.to_op
            epochs.append((tl.done, {d: p.voltage_v for d, p in realised.items()}))
            cycles = tl.done - tl.arrive
            steps.append(StepReport(k, "dvfs", step.domain, step.domain, move.to_op.voltage_v,
                                    move.to_op.frequency_hz, cycles, 0, dvfs_stalls[k],
                                    cycles / f_main, move.energy_j))
    time_s, leakage_v_time = _time_and_leakage(compiled, total_cycles, busy, epochs, f_main)
    for b, interval in intervals.items():
        count = total_cycles // interval
        stats[f"refreshes_{b}"] = count
        energy[f"refresh:{b}"] = count * compiled.memory_model(b).refresh_energy_per_operation_j
    for b in compiled.buffers:
        model = compiled.memory_model(b)
        # Leakage scales with V to first order (dvfs.leakage_power_scale): integrate V dt.
        energy[f"leakage:{b}"] = model.leakage_power_w(1.0) * leakage_v_time[b]
    return ProgramReport(
        steps=tuple(steps), cycles=upper, stats=stats, time_s=time_s, energy_j=energy,
        cycles_without_contention=total_cycles,
        assumptions=(
            "units' logic leakage, the sequencer's, bus's and clock tree's energy are not "
            "modelled",
            "all domains are simulated on one clock; each cycle is converted to time at the "
            "slowest clock among the domains of the units busy in it (the main clock when "
            "none is): exact for steps that run one after another",
            "refresh intervals are counted at the fastest clock of the buffer's domain",
            "DVFS regulator and PLL: the defaults of archsim.hw.models.dvfs "
            "(DVFS_DEFAULTS_SOURCES: mostly assumed)",
        ))


def _overlaps(program: Program) -> dict[int, set[int]]:
    """Which RUN steps may run at the same time: a step overlaps every step started without
    waiting before it and not yet joined (by a WAIT, or by a later RUN of the same unit)."""
    pairs: dict[int, set[int]] = {}
    running: dict[str, int] = {}
    for k, step in enumerate(program.steps):
        if isinstance(step, Wait):
            running.clear()
        elif isinstance(step, Run):
            running.pop(step.unit, None)
            pairs.setdefault(k, set())
            for j in running.values():
                pairs[k].add(j)
                pairs.setdefault(j, set()).add(k)
            if not step.wait:
                running[step.unit] = k
    return pairs


def _contention(compiled: CompiledAccelerator, program: Program,
                checked: list[dict[str, int]]) -> dict[int, int]:
    """Per RUN step, at most how many cycles it can lose on shared buffer ports: one per
    access that an overlapping unit declared before it (which wins) makes on a port they
    share."""
    order = list(compiled.units)
    out: dict[int, int] = {}
    for k, partners in _overlaps(program).items():
        step = program.steps[k]
        assert isinstance(step, Run)
        mine = {(p.buffer, p.direction, p.index) for p in compiled.ports
                if any(u == step.unit for u, _ in p.users)}
        total = 0
        for j in partners:
            other = program.steps[j]
            assert isinstance(other, Run)
            if order.index(other.unit) > order.index(step.unit):
                continue
            acts = compiled.units[other.unit].actions(checked[j])
            for p in compiled.ports:
                if (p.buffer, p.direction, p.index) in mine:
                    total += sum(acts.get(f"{p.direction}:{operand}", 0)
                                 for u, operand in p.users if u == other.unit)
        if total:
            out[k] = total
    return out


def _timeline(compiled: CompiledAccelerator, program: Program, checked: list[dict[str, int]],
              unit_cycles: dict[int, int], dvfs_stalls: dict[int, int],
              refresh: _RefreshTimeline, extra: dict[int, int]
              ) -> tuple[Timeline, dict[int, int], dict[int, int]]:
    """The sequencer's timeline of ``program`` (step ``k`` is program step ``k``, the HALT
    last), each RUN's refresh stall cycles and, of those, the ones before the unit starts:
    a RUN lasts its unit cycles, plus ``extra`` (contention) cycles, plus the refresh stalls
    it meets from its start cycle; stalls in the start cycle itself (and right after it)
    hold the start pending, so the unit is not busy in them."""
    builder = TimelineBuilder()
    stalls: dict[int, int] = {}
    leads: dict[int, int] = {}
    for k, step in enumerate(program.steps):
        if isinstance(step, Wait):
            builder.wait()
        elif isinstance(step, Run):
            spec = compiled.description.units[step.unit]
            c = unit_cycles[k] + extra.get(k, 0)

            def duration(start: int, _k: int = k, _c: int = c,
                         _b: tuple[str, ...] = tuple(spec.bind.values())) -> int:
                stalls[_k] = refresh.window(_b, start, _c + 1)
                leads[_k] = refresh.leading(_b, start)
                return _c + stalls[_k]

            builder.run(compiled.unit_index(step.unit), len(checked[k]), duration,
                        wait=step.wait)
        else:
            builder.dvfs(dvfs_stalls[k] + 1)
    return builder.halt(), stalls, leads


def _time_and_leakage(compiled: CompiledAccelerator, total_cycles: int,
                      busy: list[tuple[int, int, float]],
                      epochs: list[tuple[int, dict[str, float]]],
                      f_main: float) -> tuple[float, dict[str, float]]:
    """Seconds of cycles ``1..total_cycles`` (each at the slowest clock among the units busy
    in it, ``[start, done)``, else the main clock), and per buffer the integral of its
    domain's voltage over time."""
    cuts = sorted({1, total_cycles + 1, *(c for s, d, _ in busy for c in (s, d)),
                   *(c for c, _ in epochs)})
    time_s = 0.0
    v_time = dict.fromkeys(compiled.buffers, 0.0)
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        if b <= 1 or a > total_cycles:
            continue
        a, b = max(a, 1), min(b, total_cycles + 1)
        clocks = [f for s, d, f in busy if s <= a < d]
        dt = (b - a) / min(clocks, default=f_main)
        time_s += dt
        volts = next(v for c, v in reversed(epochs) if c <= a)
        for name, spec in compiled.buffers.items():
            v_time[name] += volts[spec.domain] * dt
    return time_s, v_time


def _unit_energy(compiled: CompiledAccelerator, unit_name: str, args: dict[str, int],
                 voltage_v: float, energy: dict[str, float]) -> float:
    """Add one invocation's unit and buffer-access energy to ``energy``; return their sum."""
    unit = compiled.units[unit_name]
    spec = compiled.description.units[unit_name]
    scale = dynamic_energy_scale(voltage_v, REFERENCE_VOLTAGE_V)
    table = unit.ENERGY_PER_ACTION_J
    logic = 0.0
    per_buffer: dict[str, list[int]] = {}
    for action, count in unit.actions(args).items():
        kind, _, operand = action.partition(":")
        if kind in ("read", "write") and operand in spec.bind:
            # an access of a row port moves `lanes` elements; the memory prices elements
            rw = per_buffer.setdefault(spec.bind[operand], [0, 0])
            rw[0 if kind == "read" else 1] += count * unit.contract.operand(operand).lanes
        elif action in table:
            logic += count * table[action]
    logic *= scale
    energy[f"unit:{unit_name}"] += logic
    total = logic
    for b, (reads, writes) in per_buffer.items():
        mem = compiled.memory_model(b)
        e = mem.access_energy_j(reads, writes) * dynamic_energy_scale(
            voltage_v, mem.technology.voltage_v)
        energy[f"access:{b}"] += e
        total += e
    return total


@dataclass(frozen=True)
class PointResult:
    """One operating point of :func:`sweep_operating_points`."""

    point: str
    voltage_v: float
    frequency_hz: float
    report: ProgramReport

    @property
    def time_s(self) -> float:
        """The program's time at this point (the change to it included)."""
        return self.report.time_s

    @property
    def energy_j(self) -> float:
        """The program's total energy at this point (the change to it included)."""
        return self.report.total_energy_j

    def row(self) -> dict[str, object]:
        """A table row: point, V, f, cycles, time, energy and power."""
        return {"point": self.point, "voltage_v": self.voltage_v,
                "frequency_hz": self.frequency_hz, "cycles": self.report.cycles,
                "time_s": self.time_s, "energy_j": self.energy_j,
                "power_w": self.report.average_power_w}


def sweep_operating_points(compiled: CompiledAccelerator, domain: str,
                           body: Callable[[Program], object]) -> list[PointResult]:
    """Model a program at each operating point of ``domain``: energy against latency.

    For every point, a program that first moves ``domain`` to it and then runs ``body``
    (a function appending steps to the program it is given) is modelled.
    """
    desc = compiled.description
    if domain not in desc.domains or not desc.domains[domain].regulated:
        regulated = [d for d, s in desc.domains.items() if s.regulated]
        raise desc.where.error(f"accelerator {desc.name!r} has no regulated domain "
                               f"{domain!r}; regulated domains: {regulated}")
    out = []
    for point in desc.domains[domain].operating_points:
        program = desc.program()
        program.set_operating_point(domain, point)
        body(program)
        report = model_program(compiled, program)
        run = next((s for s in report.steps if s.kind == "run" and s.domain == domain),
                   report.steps[0])
        out.append(PointResult(point, run.voltage_v, run.frequency_hz, report))
    return out
