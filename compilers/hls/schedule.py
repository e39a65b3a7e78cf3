"""Scheduling: resource-constrained list scheduling with operator chaining, and modulo
scheduling of pipelined loops.

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
read in cycle ``r`` of the next iteration needs ``II >= w - r + 1``; a store and a load of the
same array bank likewise). The binding constraint is reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import networkx as nx

from ...errors import ConfigError
from ...hw.hls_ops import MEM_TCO_NS, REG_OVERHEAD_NS, REG_TCO_NS, op_cost
from .ir import SOURCE_KINDS, KernelIR, Node, Region

__all__ = ["ScheduleOptions", "schedule_kernel", "RESOURCE_KEYS", "node_delay_ns",
           "node_latency", "resource_class"]

#: Keys accepted in ``resources``.
RESOURCE_KEYS = ("mul", "div")


@dataclass(frozen=True)
class ScheduleOptions:
    """Clock period and resource limits: ``{"mul": k}`` multipliers, ``{"div": k}``
    sequential dividers (unlimited when absent: one unit per operation)."""

    clock_ns: float
    resources: dict[str, int] = field(default_factory=dict)

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


def node_width(n: Node) -> int:
    """Operand width that sets an operator's cost (the code width for a decode ROM)."""
    if n.kind == "decode":
        return n.args[0].type.width
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
        return n.attrs["latency"], False
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


def _occupancy(n: Node) -> int:
    """Reservation-table slots a node holds: its latency for a sequential unit, else 1."""
    return n.latency if n.latency and not n.pipelined else 1


def _mrt_key(n: Node, cls: str, opts: ScheduleOptions) -> str:
    # an unlimited sequential unit is one instance per operation: it still cannot accept a
    # new operation (the next iteration's) while busy
    if _units(cls, opts) is None and not n.pipelined:
        return f"{cls}#{id(n)}"
    return cls


def _graph(region: Region, opts: ScheduleOptions) -> nx.DiGraph:
    g = nx.DiGraph()
    ops = [n for n in region.nodes if n.kind not in SOURCE_KINDS]
    for n in ops:
        n.latency, n.pipelined = node_latency(n, opts)
        g.add_node(n)
    for n in ops:
        for a in n.args:
            if a.kind not in SOURCE_KINDS:
                g.add_edge(a, n, lat=1 if a.kind == "load" else a.latency, data=True)
    # memory ordering within an iteration (same array and bank may alias)
    mem = [n for n in ops if n.kind in ("load", "store")]
    for i, x in enumerate(mem):
        for y in mem[i + 1:]:
            if x.attrs["array"] != y.attrs["array"] or x.attrs["bank"] != y.attrs["bank"]:
                continue
            if x.kind == "store":
                _add_order(g, x, y, 1)
            elif y.kind == "store":
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


def _list_schedule(region: Region, g: nx.DiGraph, ii: int, opts: ScheduleOptions) -> int:
    """Place every node; returns the depth in cycles. ``ii`` sets the reservation table."""
    period = opts.clock_ns - REG_OVERHEAD_NS + REG_TCO_NS  # usable window after clk-to-q
    # priority: longest path (in delay) to a sink, so critical chains go first
    prio: dict[Node, float] = {}
    for n in reversed(list(nx.topological_sort(g))):
        tail = [prio[s] + g[n][s]["lat"] for s in g.successors(n)]
        prio[n] = node_delay_ns(n) / opts.clock_ns + max(tail, default=0.0)
    mrt: dict[tuple[str, int], int] = {}
    for n in nx.lexicographical_topological_sort(g, key=lambda n: (-prio[n], id(n))):
        cycle = 0
        for p in g.predecessors(n):
            cycle = max(cycle, p.cycle + g[p][n]["lat"])
        d = node_delay_ns(n)
        cls = resource_class(n)
        units = _units(cls, opts) if cls else None
        key = _mrt_key(n, cls, opts) if cls else None
        occ = _occupancy(n)
        if key is not None and key != cls:
            units = 1
        while True:
            start = REG_TCO_NS
            for p in g.predecessors(n):
                if not g[p][n]["data"]:
                    continue
                if p.kind == "load" and p.cycle + 1 == cycle:
                    start = max(start, MEM_TCO_NS)
                elif p.kind != "load" and p.cycle + p.latency == cycle and not p.latency:
                    start = max(start, p.end_ns)
            if n.latency and start > REG_TCO_NS + 1e-12:
                cycle += 1  # a multi-cycle operator starts on registered operands
                continue
            if not n.latency and start + d > period and start > REG_TCO_NS + 1e-12:
                cycle += 1  # does not fit the rest of this cycle: start the next one
                continue
            if key is not None and units is not None:
                if any(mrt.get((key, (cycle + k) % ii), 0) >= units for k in range(occ)):
                    cycle += 1
                    continue
            break
        if key is not None:
            n.unit = mrt.get((key, cycle % ii), 0)
            for k in range(occ):
                slot = (key, (cycle + k) % ii)
                mrt[slot] = mrt.get(slot, 0) + 1
        # a multi-cycle operator's stages each take an equal share of its delay
        stage = d / n.latency if n.latency else d
        n.cycle, n.start_ns, n.end_ns = cycle, start, start + stage
    depth = 0
    for n in g.nodes:
        depth = max(depth, n.cycle + max(1, n.latency))
    if region.exit is not None and region.exit.latency:
        # a while loop's exit test is read where its (registered) result is ready
        depth = max(depth, region.exit.cycle + region.exit.latency + 1)
    return depth


def _recurrences(region: Region) -> list[tuple[int, str]]:
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
            r = min(c.cycle for c in users)
            w = setvars[n.attrs["var"]]
            line = min(c.line for c in users if c.line) if any(c.line for c in users) else w.line
            out.append((w.cycle - r + 1, f"loop-carried dependence on variable '{n.name}' "
                        f"(line {line}: read in cycle {r}, written in cycle {w.cycle})"))
    loads = [n for n in region.nodes if n.kind == "load"]
    stores = [n for n in region.nodes if n.kind == "store"]
    for s in stores:
        for ld in loads:
            if (s.attrs["array"], s.attrs["bank"]) != (ld.attrs["array"], ld.attrs["bank"]):
                continue
            out.append((s.cycle - ld.cycle + 1,
                        f"loop-carried dependence through array '{s.attrs['array']}' (store at "
                        f"line {s.line} in cycle {s.cycle} may alias the next iteration's load "
                        f"at line {ld.line} in cycle {ld.cycle})"))
    return out


def _res_mii(region: Region, opts: ScheduleOptions) -> tuple[int, str]:
    counts: dict[str, int] = {}
    best, why = 1, ""
    for n in region.nodes:
        cls = resource_class(n)
        if cls:
            counts[cls] = counts.get(cls, 0) + _occupancy(n)
            if _units(cls, opts) is None and _occupancy(n) > best:
                best = _occupancy(n)
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


def schedule_region(region: Region, opts: ScheduleOptions) -> None:
    """Schedule one region in place (node cycles, ``region.ii``, ``region.depth``)."""
    g = _graph(region, opts)
    ops = [n for n in region.nodes if n.kind not in SOURCE_KINDS]
    if not region.is_loop and all(n.kind == "setvar" and n.args[0].kind in ("const", "arg")
                                  for n in ops):
        # only constants/arguments copied to registers: done in the FSM transition, 0 cycles
        for n in ops:
            n.cycle = 0
        region.depth, region.ii, region.transient = 0, 1, True
        return
    if region.ii_requested is None:
        depth = _list_schedule(region, g, 1 << 30, opts)
        region.depth = max(depth, 1) if region.is_loop else depth
        region.ii = max(region.depth, 1)
        region.ii_reason = "sequential loop (not pipelined)" if region.is_loop else ""
        return
    res_ii, res_why = _res_mii(region, opts)
    ii = max(region.ii_requested, res_ii)
    for _ in range(64):
        depth = _list_schedule(region, g, ii, opts)
        recs = _recurrences(region)
        rec_ii = max([r for r, _ in recs], default=1)
        if rec_ii <= ii:
            break
        ii = rec_ii
    region.depth = max(depth, 1)
    region.ii = ii
    if ii == region.ii_requested:
        region.ii_reason = "requested II met"
        return
    recs = _recurrences(region)
    binding = [why for r, why in recs if r == ii]
    if res_ii == ii and res_why:
        region.ii_reason = res_why
    elif binding:
        region.ii_reason = binding[0]
    else:
        region.ii_reason = res_why or "scheduling"


def schedule_kernel(ir: KernelIR, opts: ScheduleOptions) -> None:
    """Schedule every region of a kernel in place."""
    for r in ir.regions():
        schedule_region(r, opts)
