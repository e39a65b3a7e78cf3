"""Scheduling: resource-constrained list scheduling with operator chaining, and modulo
scheduling of pipelined loops (list or SDC).

Every region's dataflow graph is scheduled into clock cycles. Operators chain inside a cycle
while their accumulated delay (:mod:`archsim.hw.hls_ops`) fits the clock period; a memory read
issued in cycle ``t`` delivers its data in cycle ``t + 1``; stores and variable writes take
effect at the end of their cycle. Resources are checked in a modulo reservation table of
``II`` slots: multipliers (``resources={"mul": k}``) and the memory ports of every array bank
(one read and one write port each). A sequential loop is the case ``II = depth``.

Multi-cycle operators: an operator whose delay exceeds the usable clock window (the period
less register overhead) gets a latency ``L = ceil(delay / window)`` cycles. If the operator
table marks it pipelinable (multipliers) it is a pipelined unit: it issues in one cycle, holds
its reservation-table slot for that cycle only, and its result sits in a register ``L`` cycles
later (the RTL is the operator followed by ``L`` registers, which synthesis retiming -- or a
DSP block's internal pipeline registers -- balances into ``L`` stages). A multi-cycle operator
starts at the beginning of a cycle on registered operands. A sequential unit (the divider) is
busy for all ``L`` cycles: it occupies ``L`` consecutive slots of the reservation table.

For a pipelined loop the achieved II is the smallest II >= the requested one that satisfies
the resource bound and every loop-carried dependence (a variable written in cycle ``w`` and
read in cycle ``r`` of the next iteration needs ``II >= w - r + 1``; two accesses of the same
array bank, at least one a store, that :mod:`~archsim.compilers.hls.dependence` cannot prove
independent, by their smallest possible distance ``d``: ``d * II >= s - l + 1`` for a store
then a load). With read-modify-write forwarding (``ScheduleOptions.forwarding``, on by
default) a load may issue in the very cycle an earlier iteration's store to it lands
(``d * II >= s - l``): the RTL compares the addresses and bypasses the memory, so
``h[x[i]] += 1`` runs at II = 1. The binding constraint is reported.

Two schedulers place the operators of a pipelined loop (``ScheduleOptions.scheduler``):
``"list"`` (above: priority-ordered, as soon as possible, II raised until the recurrences
fit) and ``"sdc"``: the difference constraints of the dependence graph and of every
recurrence, with the modulo reservation table, solved as an integer program by HiGHS
(``scipy.optimize.milp``) for the smallest II from the lower bound up (at most the list
scheduler's II, which is feasible). Straight-line code and sequential loops use the list
scheduler under both.

The result is a :class:`Schedule`, its own object: the IR is not annotated, so codegen, the
reports and the cycle model all read the one schedule they were given.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import networkx as nx

from ...errors import ConfigError
from ...hw.hls_ops import MEM_TCO_NS, REG_OVERHEAD_NS, REG_TCO_NS, op_cost
from .dependence import Dependence, dependence
from .ir import SOURCE_KINDS, KernelIR, Loop, Node, Region, Segment

__all__ = ["ScheduleOptions", "Schedule", "NodeSchedule", "RegionSchedule", "schedule_kernel",
           "RESOURCE_KEYS", "SCHEDULERS", "node_delay_ns", "node_latency", "node_width", "is_const_mul",
           "resource_class"]

#: Keys accepted in ``resources``.
RESOURCE_KEYS = ("mul", "div")
#: Accepted ``scheduler`` names.
SCHEDULERS = ("list", "sdc")


@dataclass(frozen=True)
class ScheduleOptions:
    """Clock period and resource limits: ``{"mul": k}`` multipliers, ``{"div": k}``
    sequential dividers (unlimited when absent: one unit per operation); ``forwarding``:
    let a load issue in the cycle an earlier iteration's store to the same word lands and
    bypass the memory with the stored word (True by default, as HLS tools do);
    ``scheduler``: ``"list"`` (resource-constrained list scheduling) or ``"sdc"`` (system
    of difference constraints with a modulo reservation table, solved as an integer
    program by HiGHS)."""

    clock_ns: float
    resources: dict[str, int] = field(default_factory=dict)
    forwarding: bool = True
    scheduler: str = "list"

    def __post_init__(self) -> None:
        if not isinstance(self.clock_ns, (int, float)) or not self.clock_ns > 0:
            raise ConfigError(f"clock_ns must be a positive number, not {self.clock_ns!r}",
                              field="clock_ns")
        for k, v in self.resources.items():
            if k not in RESOURCE_KEYS:
                raise ConfigError(f"unknown resource {k!r}", field="resources",
                                  allowed=list(RESOURCE_KEYS))
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ConfigError(f"resource limit for {k!r} must be a positive int, not {v!r}",
                                  field="resources")
        if not isinstance(self.forwarding, bool):
            raise ConfigError(f"forwarding must be True or False, not {self.forwarding!r}",
                              field="forwarding", allowed=[True, False])
        if self.scheduler not in SCHEDULERS:
            raise ConfigError(f"unknown scheduler {self.scheduler!r}", field="scheduler",
                              allowed=list(SCHEDULERS))


@dataclass(frozen=True)
class NodeSchedule:
    """Where one operator of a region's dataflow graph runs.

    Attributes
    ----------
    cycle : int
        The cycle of the iteration it issues in.
    start_ns, end_ns : float
        When in that cycle its (first stage's) logic starts and ends.
    unit : int or None
        The shared unit (multiplier, divider, memory port) it is bound to, or None.
    latency : int
        Cycles from issue to a registered result: 0 for a combinational operator (chained in
        its cycle), ``L >= 2`` for a multi-cycle one (pipelined or sequential).
    pipelined : bool
        For a multi-cycle operator: True if pipelined (one issue per cycle), False if the
        unit is busy for its whole latency.
    """

    cycle: int
    start_ns: float = 0.0
    end_ns: float = 0.0
    unit: int | None = None
    latency: int = 0
    pipelined: bool = True


@dataclass(frozen=True)
class RegionSchedule:
    """A region's timing: ``(trip - 1) * ii + depth`` cycles for ``trip`` iterations.

    Attributes
    ----------
    ii : int
        The achieved initiation interval (the depth, for a sequential loop).
    depth : int
        Cycles of one iteration.
    ii_reason : str
        Why the II is what it is (the binding constraint).
    transient : bool
        Only constants or arguments copied to registers: done inside an FSM transition,
        no state and no cycles of its own.
    forwards : tuple of (Node, Node)
        ``(store, load)`` pairs of a pipelined loop where the store of an earlier iteration
        lands in the cycle the load issues: the RTL compares the two addresses and bypasses
        the memory with the stored word (read-modify-write forwarding).
    """

    ii: int = 1
    depth: int = 0
    ii_reason: str = ""
    transient: bool = False
    forwards: tuple[tuple[Node, Node], ...] = ()

    def cycles(self, trip: int) -> int:
        """Cycles of ``trip`` iterations (0 when ``trip == 0``)."""
        return 0 if trip == 0 else (trip - 1) * self.ii + self.depth


_UNSCHEDULED = NodeSchedule(cycle=0)


@dataclass(frozen=True, eq=False)
class Schedule:
    """The schedule of one kernel: what codegen builds, the reports print and the cycle
    model counts.

    Attributes
    ----------
    ir : KernelIR
        The (unchanged) IR it schedules.
    options : ScheduleOptions
    nodes : mapping of Node to NodeSchedule
        Every operator (source values -- constants, arguments, registers -- have none).
    regions : mapping of Region to RegionSchedule
        Every region, the pad regions included.
    pads : mapping of Loop to Region
        FSM loops whose body would take no cycle: a one-cycle empty region runs first in
        each iteration (else the iterations would take no time at all).
    """

    ir: KernelIR
    options: ScheduleOptions
    nodes: Mapping[Node, NodeSchedule]
    regions: Mapping[Region, RegionSchedule]
    pads: Mapping[Loop, Region] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def clock_ns(self) -> float:
        """The clock period scheduled for."""
        return self.options.clock_ns

    def node(self, n: Node) -> NodeSchedule:
        """The schedule of ``n`` (cycle 0, latency 0 for a source value)."""
        return self.nodes.get(n, _UNSCHEDULED)

    def region(self, r: Region) -> RegionSchedule:
        """The schedule of ``r``."""
        return self.regions[r]

    def body(self, loop: Loop) -> tuple[Segment, ...]:
        """The segments an iteration of ``loop`` runs: its body, after its pad if it has one."""
        return _iteration_body(loop, self.pads)

    def walk(self, segs: tuple[Segment, ...] | None = None) -> Iterator[Region]:
        """Every region (pads included), in program order."""
        for s in self.ir.body if segs is None else segs:
            if isinstance(s, Region):
                yield s
            else:
                yield from self.walk(self.body(s))

    def all_regions(self) -> list[Region]:
        """Every region (pads included), in program order."""
        return list(self.walk())

    def region_cycles(self, r: Region, trip: int) -> int:
        """Cycles of ``trip`` iterations of ``r``."""
        return self.regions[r].cycles(trip)


def node_width(n: Node) -> int:
    """Operand width that sets an operator's cost (the code width for a decode ROM)."""
    if n.kind == "decode":
        t = n.args[0].type
        assert t is not None
        return t.width
    ws = [a.type.width for a in n.args if a.type is not None]
    return max(ws + [n.type.width if n.type is not None else 1])


def is_const_mul(n: Node) -> bool:
    """A multiplication by a constant (either operand): shift-and-add, not a multiplier."""
    return n.kind == "mul" and (n.args[0].kind == "const" or n.args[1].kind == "const")


def node_delay_ns(n: Node) -> float:
    """Combinational delay of a node (0 for wiring: casts, constant shifts, sources)."""
    if n.kind in SOURCE_KINDS or n.kind in ("cast", "load", "store", "setvar"):
        return 0.0
    if n.kind in ("shl", "shr") and n.attrs.get("amount") is not None:
        return 0.0
    if is_const_mul(n):
        return op_cost("add", node_width(n)).delay_ns * 2  # shift-and-add by a constant
    return op_cost(n.kind, node_width(n)).delay_ns


def node_latency(n: Node, opts: ScheduleOptions) -> tuple[int, bool]:
    """``(L, pipelined)``: cycles from issue to a registered result (0: combinational,
    chained in its cycle) and whether the unit accepts a new operation every cycle."""
    if n.kind in ("div", "mod"):
        return int(n.attrs["latency"]), False
    d = node_delay_ns(n)
    window = opts.clock_ns - REG_OVERHEAD_NS
    if d <= window or window <= 0:
        return 0, True
    return math.ceil(d / window), op_cost(n.kind, node_width(n)).pipelinable


def resource_class(n: Node) -> str | None:
    """The resource a node occupies while it issues (and, for a sequential unit, until its
    result is ready), or None."""
    if n.kind == "mul" and not is_const_mul(n):
        return "mul"
    if n.kind in ("div", "mod"):
        return "div"
    if n.kind == "load":
        return f"rd:{n.attrs['array']}:{n.attrs['bank']}"
    if n.kind == "store":
        return f"wr:{n.attrs['array']}:{n.attrs['bank']}"
    return None


def _units(cls: str, opts: ScheduleOptions) -> int | None:
    if cls in ("mul", "div"):
        return opts.resources.get(cls)
    return 1  # one read and one write port per bank


class _Timing:
    """Latency and pipelining of every operator of one region (fixed by the clock)."""

    def __init__(self, ops: list[Node], opts: ScheduleOptions) -> None:
        self.of: dict[Node, tuple[int, bool]] = {n: node_latency(n, opts) for n in ops}

    def latency(self, n: Node) -> int:
        return self.of[n][0] if n in self.of else 0

    def pipelined(self, n: Node) -> bool:
        return self.of[n][1] if n in self.of else True

    def occupancy(self, n: Node) -> int:
        """Reservation-table slots a node holds: its latency for a sequential unit, else 1."""
        lat = self.latency(n)
        return lat if lat and not self.pipelined(n) else 1


def _mrt_key(n: Node, cls: str, opts: ScheduleOptions, timing: _Timing) -> str:
    # an unlimited sequential unit is one instance per operation: it still cannot accept a
    # new operation (the next iteration's) while busy
    if _units(cls, opts) is None and not timing.pipelined(n):
        return f"{cls}#{id(n)}"
    return cls


def _graph(region: Region, timing: _Timing) -> nx.DiGraph:
    g = nx.DiGraph()
    ops = [n for n in region.nodes if n.kind not in SOURCE_KINDS]
    for n in ops:
        g.add_node(n)
    for n in ops:
        for a in n.args:
            if a.kind not in SOURCE_KINDS:
                g.add_edge(a, n, lat=1 if a.kind == "load" else timing.latency(a), data=True)
    # memory ordering within an iteration (same array and bank, unless the dependence
    # analysis proves the two never touch the same word in one iteration)
    mem = [n for n in ops if n.kind in ("load", "store")]
    for i, x in enumerate(mem):
        for y in mem[i + 1:]:
            if x.attrs["array"] != y.attrs["array"] or x.attrs["bank"] != y.attrs["bank"]:
                continue
            if x.kind == "load" and y.kind == "load":
                continue
            if not dependence(x, y, region).possible(0):
                continue
            if x.kind == "store":
                _add_order(g, x, y, 1)
            else:
                _add_order(g, x, y, 0)
    # a variable's register is written no earlier than every read of its old value
    reads: dict[str, list[Node]] = {}
    for n in region.nodes:
        if n.kind == "var":
            reads.setdefault(n.attrs["var"], []).append(n)
    for n in ops:
        if n.kind == "setvar":
            for r in reads.get(n.attrs["var"], []):
                for c in ops:
                    if r in c.args and c is not n:
                        _add_order(g, c, n, 0)
    return g


def _add_order(g: nx.DiGraph, a: Node, b: Node, lat: int) -> None:
    if g.has_edge(a, b):
        g[a][b]["lat"] = max(g[a][b]["lat"], lat)
    else:
        g.add_edge(a, b, lat=lat, data=False)


def _list_schedule(region: Region, g: nx.DiGraph, ii: int, opts: ScheduleOptions,
                   timing: _Timing) -> tuple[dict[Node, NodeSchedule], int]:
    """Place every node; returns the placements and the depth in cycles. ``ii`` sets the
    reservation table."""
    period = opts.clock_ns - REG_OVERHEAD_NS + REG_TCO_NS  # usable window after clk-to-q
    # priority: longest path (in delay) to a sink, so critical chains go first
    prio: dict[Node, float] = {}
    for n in reversed(list(nx.topological_sort(g))):
        tail = [prio[s] + g[n][s]["lat"] for s in g.successors(n)]
        prio[n] = node_delay_ns(n) / opts.clock_ns + max(tail, default=0.0)
    mrt: dict[tuple[str, int], int] = {}
    placed: dict[Node, NodeSchedule] = {}
    # ties go to program order, so the schedule does not depend on where objects live
    order = {n: k for k, n in enumerate(region.nodes)}
    for n in nx.lexicographical_topological_sort(g, key=lambda n: (-prio[n], order[n])):
        lat_n = timing.latency(n)
        cycle = 0
        for p in g.predecessors(n):
            cycle = max(cycle, placed[p].cycle + g[p][n]["lat"])
        d = node_delay_ns(n)
        cls = resource_class(n)
        units = _units(cls, opts) if cls else None
        key = _mrt_key(n, cls, opts, timing) if cls else None
        occ = timing.occupancy(n)
        if key is not None and key != cls:
            units = 1
        while True:
            start = REG_TCO_NS
            for p in g.predecessors(n):
                if not g[p][n]["data"]:
                    continue
                ps = placed[p]
                if p.kind == "load" and ps.cycle + 1 == cycle:
                    start = max(start, MEM_TCO_NS)
                elif p.kind != "load" and ps.cycle + ps.latency == cycle and not ps.latency:
                    start = max(start, ps.end_ns)
            if lat_n and start > REG_TCO_NS + 1e-12:
                cycle += 1  # a multi-cycle operator starts on registered operands
                continue
            if not lat_n and start + d > period and start > REG_TCO_NS + 1e-12:
                cycle += 1  # does not fit the rest of this cycle: start the next one
                continue
            if key is not None and units is not None:
                if any(mrt.get((key, (cycle + k) % ii), 0) >= units for k in range(occ)):
                    cycle += 1
                    continue
            break
        unit = None
        if key is not None:
            unit = mrt.get((key, cycle % ii), 0)
            for k in range(occ):
                slot = (key, (cycle + k) % ii)
                mrt[slot] = mrt.get(slot, 0) + 1
        # a multi-cycle operator's stages each take an equal share of its delay
        stage = d / lat_n if lat_n else d
        placed[n] = NodeSchedule(cycle=cycle, start_ns=start, end_ns=start + stage, unit=unit,
                                 latency=lat_n, pipelined=timing.pipelined(n))
    depth = 0
    for n in g.nodes:
        depth = max(depth, placed[n].cycle + max(1, placed[n].latency))
    ex = placed.get(region.exit) if region.exit is not None else None
    if ex is not None and ex.latency:
        # a while loop's exit test is read where its (registered) result is ready
        depth = max(depth, ex.cycle + ex.latency + 1)
    return placed, depth


def _sink_readers(region: Region, g: nx.DiGraph, placed: dict[Node, NodeSchedule],
                  opts: ScheduleOptions, timing: _Timing) -> dict[Node, NodeSchedule]:
    """Move each combinational operator that reads a loop-carried variable as late as its
    users allow (as soon as possible would start the recurrence early: ``left - 1`` in
    cycle 0 for a ``max`` in cycle 2 makes II 3, not 1), where the chaining still fits."""
    carried = {n.attrs["var"] for n in region.nodes if n.kind == "setvar"}
    readers = [n for n in region.nodes if n in g and resource_class(n) is None
               and not timing.latency(n) and n.kind not in ("setvar", "store", "load")
               and any(a.kind == "var" and a.attrs["var"] in carried for a in n.args)]
    if not readers:
        return placed
    cycles = {n: ps.cycle for n, ps in placed.items()}
    moved = False
    for n in reversed(readers):
        succ = [cycles[s] - g[n][s]["lat"] for s in g.successors(n)]
        if not succ or min(succ) <= cycles[n]:
            continue
        trial = {**cycles, n: min(succ)}
        _times, bad = _timing_pass(region, g, trial, opts, timing)
        if bad is None:
            cycles, moved = trial, True
    if not moved:
        return placed
    times, bad = _timing_pass(region, g, cycles, opts, timing)
    assert bad is None
    return {n: replace(ps, cycle=cycles[n], start_ns=times[n][0], end_ns=times[n][1])
            for n, ps in placed.items()}


def _recurrences(region: Region, placed: Mapping[Node, NodeSchedule], ii: int,
                 deps: Mapping[tuple[Node, Node], Dependence],
                 forwarding: bool) -> list[tuple[int, str]]:
    """(II needed, description) per loop-carried dependence of a scheduled region."""
    out: list[tuple[int, str]] = []
    consumers: dict[int, list[Node]] = {}
    for n in region.nodes:
        for a in n.args:
            consumers.setdefault(id(a), []).append(n)
    setvars = {n.attrs["var"]: n for n in region.nodes if n.kind == "setvar"}
    for n in region.nodes:
        if n.kind == "var" and n.attrs["var"] in setvars:
            users = [c for c in consumers.get(id(n), []) if c.kind not in SOURCE_KINDS]
            if not users:
                continue
            r = min(placed[c].cycle for c in users)
            w = setvars[n.attrs["var"]]
            wc = placed[w].cycle
            line = min(c.line for c in users if c.line) if any(c.line for c in users) else w.line
            out.append((wc - r + 1, f"loop-carried dependence on variable '{n.name}' "
                        f"(line {line}: read in cycle {r}, written in cycle {wc})"))
    for need, why, _fwd in _memory_recurrences(region, placed, ii, deps, forwarding):
        out.append((need, why))
    return out


def _memory_pairs(region: Region) -> dict[tuple[Node, Node], Dependence]:
    """Every ordered pair (earlier, later) of accesses to one array bank, at least one a
    store, with the distances at which the later access may touch the earlier one's word."""
    mem = [n for n in region.nodes if n.kind in ("load", "store")]
    out: dict[tuple[Node, Node], Dependence] = {}
    for x in mem:
        for y in mem:
            if x is y or (x.kind == "load" and y.kind == "load"):
                continue
            if (x.attrs["array"], x.attrs["bank"]) != (y.attrs["array"], y.attrs["bank"]):
                continue
            out[(x, y)] = dependence(x, y, region)
    return out


def _memory_recurrences(region: Region, placed: Mapping[Node, NodeSchedule], ii: int,
                        deps: Mapping[tuple[Node, Node], Dependence],
                        forwarding: bool) -> list[tuple[int, str, bool]]:
    """(II needed, description, forwarded at this II) per loop-carried memory dependence.

    Access ``x`` of iteration ``n`` and access ``y`` of iteration ``n + d`` (``d >= 1`` a
    possible distance) touching the same word must keep their order in time: a load reads
    the memory when it issues (a store takes effect at the end of its cycle, and a read in
    the same cycle sees the old word), so

    * store ``x`` then load ``y`` (true dependence): ``d * II >= s_x - l_y + 1``, or
      ``d * II >= s_x - l_y`` with forwarding (the store in the load's issue cycle is
      compared with the load's address and bypasses the memory);
    * load ``x`` then store ``y`` (anti): ``d * II >= l_x - s_y``;
    * store then store (output): ``d * II >= s_x - s_y + 1``.

    The smallest possible distance binds.
    """
    out: list[tuple[int, str, bool]] = []
    for (x, y), dep in deps.items():
        d = dep.min_distance(1)
        if d is None:
            continue
        cx, cy = placed[x].cycle, placed[y].cycle
        arr = x.attrs["array"]
        if x.kind == "store" and y.kind == "load":
            gap = cx - cy + (0 if forwarding else 1)
            what = (f"store at line {x.line} in cycle {cx} may alias the load at line "
                    f"{y.line} in cycle {cy} of the iteration {d} later")
        elif x.kind == "load":
            gap = cx - cy
            what = (f"store at line {y.line} in cycle {cy} may overwrite, {d} iteration(s) "
                    f"later, the word the load at line {x.line} reads in cycle {cx}")
        else:
            gap = cx - cy + 1
            what = (f"store at line {x.line} in cycle {cx} and the store at line {y.line} in "
                    f"cycle {cy} {d} iteration(s) later may write the same word")
        if gap <= 0:
            continue
        need = -(-gap // d)
        # the store lands in the cycle the load issues: only the bypass gives the new word
        fwd = (forwarding and x.kind == "store" and y.kind == "load" and (cx - cy) % ii == 0
               and dep.possible((cx - cy) // ii))
        if x.kind == "store" and y.kind == "load" and forwarding:
            what += ", forwarded"
        out.append((need, f"loop-carried dependence through array '{arr}' ({what}; "
                    f"{dep.reason})", fwd))
    return out


def _timing_pass(region: Region, g: nx.DiGraph, cycles: Mapping[Node, int],
                 opts: ScheduleOptions,
                 timing: _Timing) -> tuple[dict[Node, tuple[float, float]], tuple[Node, Node] | None]:
    """In-cycle start/end of every node at the given cycles (the list scheduler's chaining
    rules), and the first data edge that breaks them (its consumer must move a cycle later),
    or None."""
    period = opts.clock_ns - REG_OVERHEAD_NS + REG_TCO_NS
    times: dict[Node, tuple[float, float]] = {}
    order = {n: k for k, n in enumerate(region.nodes)}
    for n in nx.lexicographical_topological_sort(g, key=lambda n: order[n]):
        c, lat_n, d = cycles[n], timing.latency(n), node_delay_ns(n)
        start, why = REG_TCO_NS, None
        for p in g.predecessors(n):
            if not g[p][n]["data"]:
                continue
            if p.kind == "load" and cycles[p] + 1 == c:
                if MEM_TCO_NS > start:
                    start, why = MEM_TCO_NS, p
            elif p.kind != "load" and not timing.latency(p) and cycles[p] == c:
                if times[p][1] > start:
                    start, why = times[p][1], p
        late = start > REG_TCO_NS + 1e-12
        if why is not None and late and (lat_n or start + d > period):
            return times, (why, n)
        stage = d / lat_n if lat_n else d
        times[n] = (start, start + stage)
    return times, None


def _sdc_schedule(region: Region, g: nx.DiGraph, ii: int, opts: ScheduleOptions,
                  timing: _Timing, deps: Mapping[tuple[Node, Node], Dependence],
                  horizon: int) -> tuple[dict[Node, NodeSchedule], int] | None:
    """Modulo schedule of a pipelined region at ``ii`` by integer programming (HiGHS), or
    None if none exists within ``horizon`` cycles.

    Variables: the cycle ``t_n`` of every operator, written ``t_n = ii * q_n + sum_s s *
    x_ns`` with one binary ``x_ns`` per slot ``s`` of the modulo reservation table.
    Constraints: the dependence graph's difference constraints ``t_b - t_a >= lat``; every
    loop-carried dependence as a difference constraint in ``ii`` (a variable: ``t_w - t_r
    + 1 <= ii``; memory: :func:`_memory_recurrences`' inequalities at the smallest possible
    distance); per slot, at most ``units`` operations of each shared resource (a sequential
    unit holds ``latency`` consecutive slots). Chaining is checked after each solve: an edge
    whose chain does not fit the clock gets ``t_b - t_a >= 1`` and the program is solved
    again. Objective: the smallest depth, then the earliest cycles.
    """
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    ops = [n for n in region.nodes if n.kind not in SOURCE_KINDS]
    idx = {n: k for k, n in enumerate(ops)}
    n_ops = len(ops)
    # variables: t (n_ops), q (n_ops), x (n_ops * ii), depth D
    nt, nq, nx_ = n_ops, n_ops, n_ops * ii
    iq, ix, i_d = nt, nt + nq, nt + nq + nx_
    nvar = i_d + 1
    rows: list[tuple[dict[int, float], float, float]] = []  # (coeffs, lo, hi)
    inf = np.inf
    for n in ops:
        k = idx[n]
        # t = ii * q + sum s * x_s ; one slot
        row = {k: 1.0, iq + k: -float(ii)}
        for sl in range(ii):
            row[ix + k * ii + sl] = -float(sl)
        rows.append((row, 0.0, 0.0))
        rows.append(({ix + k * ii + sl: 1.0 for sl in range(ii)}, 1.0, 1.0))
        rows.append(({i_d: 1.0, k: -1.0}, float(max(1, timing.latency(n))), inf))
        if region.exit is n and timing.latency(n):
            rows.append(({i_d: 1.0, k: -1.0}, float(timing.latency(n) + 1), inf))
    for a, b in g.edges:
        rows.append(({idx[b]: 1.0, idx[a]: -1.0}, float(g[a][b]["lat"]), inf))
    # loop-carried variables: written in cycle t_w, read by each user u in cycle t_u
    setvars = {n.attrs["var"]: n for n in ops if n.kind == "setvar"}
    for n in region.nodes:
        if n.kind == "var" and n.attrs["var"] in setvars:
            w = setvars[n.attrs["var"]]
            for u in ops:
                if n in u.args:
                    rows.append(({idx[w]: 1.0, idx[u]: -1.0} if u is not w else {}, -inf,
                                 float(ii - 1)))
    for (x, y), dep in deps.items():
        d = dep.min_distance(1)
        if d is None:
            continue
        if x.kind == "store" and y.kind == "load":
            c = 0 if opts.forwarding else 1
        elif x.kind == "load":
            c = 0
        else:
            c = 1
        rows.append(({idx[x]: 1.0, idx[y]: -1.0}, -inf, float(d * ii - c)))
    # modulo reservation table
    keys: dict[str, list[Node]] = {}
    for n in ops:
        cls = resource_class(n)
        if cls is not None:
            keys.setdefault(_mrt_key(n, cls, opts, timing), []).append(n)
    for key, members in keys.items():
        cls = resource_class(members[0])
        assert cls is not None
        units = 1 if key != cls else _units(cls, opts)
        if units is None:
            continue
        for sl in range(ii):
            row = {}
            for n in members:
                for j in range(timing.occupancy(n)):
                    col = ix + idx[n] * ii + (sl - j) % ii
                    row[col] = row.get(col, 0.0) + 1.0
            rows.append((row, -inf, float(units)))
    rows = [r for r in rows if r[0]]
    lo = np.zeros(nvar)
    hi = np.full(nvar, float(horizon))
    hi[iq:iq + nq] = float(horizon // ii + 1)
    hi[ix:ix + nx_] = 1.0
    cost = np.ones(nvar) * 0.0
    cost[:nt] = 1.0
    cost[i_d] = float(n_ops * horizon + 1)
    extra: list[tuple[dict[int, float], float, float]] = []
    for _ in range(4 * n_ops + 4):
        allr = rows + extra
        a = np.zeros((len(allr), nvar))
        lb, ub = np.empty(len(allr)), np.empty(len(allr))
        for r, (co, lo_r, hi_r) in enumerate(allr):
            for col, v in co.items():
                a[r, col] = v
            lb[r], ub[r] = lo_r, hi_r
        res = milp(cost, constraints=LinearConstraint(a, lb, ub), integrality=np.ones(nvar),
                   bounds=Bounds(lo, hi), options={"time_limit": 20.0})
        if res.x is None:
            return None
        cycles = {n: int(round(res.x[idx[n]])) for n in ops}
        times, bad = _timing_pass(region, g, cycles, opts, timing)
        if bad is None:
            break
        p, n = bad
        extra.append(({idx[n]: 1.0, idx[p]: -1.0}, 2.0 if p.kind == "load" else 1.0, inf))
    else:  # pragma: no cover - each round separates one more edge; n_ops rounds suffice
        return None
    # bind units: the lowest unit free in every slot an operation holds
    busy: dict[tuple[str, int], set[int]] = {}
    placed: dict[Node, NodeSchedule] = {}
    for n in sorted(ops, key=lambda n: (cycles[n], idx[n])):
        cls = resource_class(n)
        unit = None
        if cls is not None:
            key = _mrt_key(n, cls, opts, timing)
            held = [(key, (cycles[n] + j) % ii) for j in range(timing.occupancy(n))]
            unit = 0
            while any(unit in busy.get(h, set()) for h in held):
                unit += 1
            units = 1 if key != cls else _units(cls, opts)
            if units is not None and unit >= units:
                return None  # the slots fit, the binding does not (circular arcs)
            for h in held:
                busy.setdefault(h, set()).add(unit)
        start, end = times[n]
        placed[n] = NodeSchedule(cycle=cycles[n], start_ns=start, end_ns=end, unit=unit,
                                 latency=timing.latency(n), pipelined=timing.pipelined(n))
    depth = max(placed[n].cycle + max(1, placed[n].latency) for n in ops)
    ex = placed.get(region.exit) if region.exit is not None else None
    if ex is not None and ex.latency:
        depth = max(depth, ex.cycle + ex.latency + 1)
    return placed, depth


def _res_mii(region: Region, opts: ScheduleOptions, timing: _Timing) -> tuple[int, str]:
    counts: dict[str, int] = {}
    best, why = 1, ""
    for n in region.nodes:
        cls = resource_class(n)
        if cls:
            occ = timing.occupancy(n)
            counts[cls] = counts.get(cls, 0) + occ
            if _units(cls, opts) is None and occ > best:
                best = occ
                why = (f"resource: the sequential divider at line {n.line} is busy for "
                       f"{best} cycles per operation (it is not pipelined: unroll to run several)")
    for cls, c in counts.items():
        units = _units(cls, opts)
        if units is None:
            continue
        need = math.ceil(c / units)
        if need > best:
            best = need
            if cls == "mul":
                why = f"resource: {c} multiplications per iteration on {units} multiplier(s)"
            elif cls == "div":
                why = (f"resource: {c} divider-busy cycles per iteration on {units} "
                       "sequential divider(s)")
            else:
                kind, arr, bank = cls.split(":")
                port = "read" if kind == "rd" else "write"
                why = (f"memory port: {c} {port}s per iteration of array '{arr}' bank {bank}, "
                       f"which has one {port} port (partition it)")
    return best, why


def schedule_region(region: Region,
                    opts: ScheduleOptions) -> tuple[dict[Node, NodeSchedule], RegionSchedule]:
    """Schedule one region: its operators' placements and its II and depth."""
    ops = [n for n in region.nodes if n.kind not in SOURCE_KINDS]
    if not region.is_loop and all(n.kind == "setvar" and n.args[0].kind in ("const", "arg")
                                  for n in ops):
        # only constants/arguments copied to registers: done in the FSM transition, 0 cycles
        return ({n: NodeSchedule(cycle=0) for n in ops},
                RegionSchedule(ii=1, depth=0, transient=True))
    timing = _Timing(ops, opts)
    g = _graph(region, timing)
    if region.ii_requested is None:
        placed, depth = _list_schedule(region, g, 1 << 30, opts, timing)
        depth = max(depth, 1) if region.is_loop else depth
        return placed, RegionSchedule(ii=max(depth, 1), depth=depth, ii_reason=(
            "sequential loop (not pipelined)" if region.is_loop else ""))
    res_ii, res_why = _res_mii(region, opts, timing)
    ii = max(region.ii_requested, res_ii)
    deps = _memory_pairs(region)
    fwd_on = opts.forwarding
    for _ in range(64):
        placed, depth = _list_schedule(region, g, ii, opts, timing)
        placed = _sink_readers(region, g, placed, opts, timing)
        recs = _recurrences(region, placed, ii, deps, fwd_on)
        rec_ii = max([r for r, _ in recs], default=1)
        if rec_ii <= ii:
            break
        ii = rec_ii
    if opts.scheduler == "sdc" and ops and not region.is_while:
        # the list schedule is feasible at its II: search the IIs below it, smallest first
        horizon = depth + ii + sum(max(1, timing.latency(n)) for n in ops)
        for cand in range(max(region.ii_requested, res_ii), ii + 1):
            got = _sdc_schedule(region, g, cand, opts, timing, deps, horizon)
            if got is not None:
                placed, depth, ii = got[0], got[1], cand
                break
    depth = max(depth, 1)
    forwards = tuple((x, y) for (x, y), _d in deps.items()
                     if any(f for need, _w, f in _memory_recurrences(
                         region, placed, ii, {(x, y): _d}, fwd_on)))
    if ii == region.ii_requested:
        met = "requested II met"
        if forwards:
            met += " (read-modify-write forwarding: " + ", ".join(
                f"array '{st.attrs['array']}' line {st.line}" for st, _ld in forwards) + ")"
        return placed, RegionSchedule(ii=ii, depth=depth, ii_reason=met, forwards=forwards)
    binding = [why for r, why in _recurrences(region, placed, ii, deps, fwd_on) if r == ii]
    if res_ii == ii and res_why:
        reason = res_why
    elif binding:
        reason = binding[0]
    else:
        reason = res_why or "scheduling"
    return placed, RegionSchedule(ii=ii, depth=depth, ii_reason=reason, forwards=forwards)


def _min_cycles(segs: tuple[Segment, ...], regions: Mapping[Region, RegionSchedule],
                pads: Mapping[Loop, Region]) -> int:
    """Fewest cycles a segment list can take (a while loop runs at least one iteration;
    bounds that are not constant count as zero iterations)."""
    total = 0
    for s in segs:
        if isinstance(s, Region):
            trip = 1 if s.is_while else s.static_trip()
            total += regions[s].cycles(trip or 0)
        else:
            trip = s.static_trip()
            if trip is not None:
                total += trip * _min_cycles(_iteration_body(s, pads), regions, pads)
    return total


def _iteration_body(loop: Loop, pads: Mapping[Loop, Region]) -> tuple[Segment, ...]:
    """What one iteration of ``loop`` runs: its body, after its pad if it has one."""
    pad = pads.get(loop)
    return loop.body if pad is None else (pad, *loop.body)


def _pad_loops(segs: tuple[Segment, ...], regions: dict[Region, RegionSchedule],
               pads: dict[Loop, Region]) -> None:
    """Give every FSM loop body at least one cycle (else its iterations would take none)."""
    for s in segs:
        if isinstance(s, Loop):
            _pad_loops(s.body, regions, pads)
            if _min_cycles(s.body, regions, pads) == 0:
                pad = Region(name=f"{s.name}_pad", line=s.line)
                regions[pad] = RegionSchedule(ii=1, depth=1)
                pads[s] = pad


def schedule_kernel(ir: KernelIR, opts: ScheduleOptions) -> Schedule:
    """Schedule every region of a kernel (and pad FSM loops that would take no cycle)."""
    nodes: dict[Node, NodeSchedule] = {}
    regions: dict[Region, RegionSchedule] = {}
    for r in ir.regions():
        placed, rs = schedule_region(r, opts)
        nodes.update(placed)
        regions[r] = rs
    pads: dict[Loop, Region] = {}
    _pad_loops(ir.body, regions, pads)
    return Schedule(ir=ir, options=opts, nodes=MappingProxyType(nodes),
                    regions=MappingProxyType(regions), pads=MappingProxyType(pads))
