"""Scheduling: resource-constrained list scheduling with operator chaining, and modulo
scheduling of pipelined loops.

Every region's dataflow graph is scheduled into clock cycles. Operators chain inside a cycle
while their accumulated delay (:mod:`archsim.hw.hls_ops`) fits the clock period; a memory read
issued in cycle ``t`` delivers its data in cycle ``t + 1``; stores and variable writes take
effect at the end of their cycle. Resources are checked in a modulo reservation table of
``II`` slots: multipliers (``resources={"mul": k}``) and the memory ports of every array bank
(one read and one write port each). A sequential loop is the case ``II = depth``.

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
           "resource_class"]

#: Keys accepted in ``resources``.
RESOURCE_KEYS = ("mul",)


@dataclass(frozen=True)
class ScheduleOptions:
    """Clock period and resource limits."""

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


def node_delay_ns(n: Node) -> float:
    """Combinational delay of a node (0 for wiring: casts, constant shifts, sources)."""
    if n.kind in SOURCE_KINDS or n.kind in ("cast", "load", "store", "setvar"):
        return 0.0
    if n.kind in ("shl", "shr") and n.attrs.get("amount") is not None:
        return 0.0
    if n.kind == "mul" and n.args[1].kind == "const":
        return op_cost("add", node_width(n)).delay_ns * 2  # shift-and-add by a constant
    return op_cost(n.kind, node_width(n)).delay_ns


def resource_class(n: Node) -> str | None:
    """The resource a node occupies for a cycle, or None."""
    if n.kind == "mul" and n.args[1].kind != "const" and n.args[0].kind != "const":
        return "mul"
    if n.kind == "load":
        return f"rd:{n.attrs['array']}:{n.attrs['bank']}"
    if n.kind == "store":
        return f"wr:{n.attrs['array']}:{n.attrs['bank']}"
    return None


def _units(cls: str, opts: ScheduleOptions) -> int | None:
    if cls == "mul":
        return opts.resources.get("mul")
    return 1  # one read and one write port per bank


def _graph(region: Region) -> nx.DiGraph:
    g = nx.DiGraph()
    ops = [n for n in region.nodes if n.kind not in SOURCE_KINDS]
    order = {n: k for k, n in enumerate(ops)}
    for n in ops:
        g.add_node(n)
    for n in ops:
        for a in n.args:
            if a.kind not in SOURCE_KINDS:
                g.add_edge(a, n, lat=1 if a.kind == "load" else 0, data=True)
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
    del order
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
        tail = [prio[s] + (1.0 if g[n][s]["lat"] else 0.0) for s in g.successors(n)]
        prio[n] = node_delay_ns(n) / opts.clock_ns + max(tail, default=0.0)
    mrt: dict[tuple[str, int], int] = {}
    for n in nx.lexicographical_topological_sort(g, key=lambda n: (-prio[n], id(n))):
        cycle = 0
        for p in g.predecessors(n):
            cycle = max(cycle, p.cycle + g[p][n]["lat"])
        d = node_delay_ns(n)
        cls = resource_class(n)
        units = _units(cls, opts) if cls else None
        while True:
            start = REG_TCO_NS
            for p in g.predecessors(n):
                if not g[p][n]["data"]:
                    continue
                if p.kind == "load" and p.cycle + 1 == cycle:
                    start = max(start, MEM_TCO_NS)
                elif p.kind != "load" and p.cycle == cycle:
                    start = max(start, p.end_ns)
            if start + d > period and start > REG_TCO_NS + 1e-12:
                cycle += 1  # does not fit the rest of this cycle: start the next one
                continue
            if cls is not None and units is not None:
                slot = (cls, cycle % ii)
                if mrt.get(slot, 0) >= units:
                    cycle += 1
                    continue
            break
        if cls is not None:
            slot = (cls, cycle % ii)
            n.unit = mrt.get(slot, 0)
            mrt[slot] = n.unit + 1
        n.cycle, n.start_ns, n.end_ns = cycle, start, start + d
    depth = 0
    for n in g.nodes:
        depth = max(depth, n.cycle + 1)
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
    for n in region.nodes:
        cls = resource_class(n)
        if cls:
            counts[cls] = counts.get(cls, 0) + 1
    best, why = 1, ""
    for cls, c in counts.items():
        units = _units(cls, opts)
        if units is None:
            continue
        need = math.ceil(c / units)
        if need > best:
            best = need
            if cls == "mul":
                why = f"resource: {c} multiplications per iteration on {units} multiplier(s)"
            else:
                kind, arr, bank = cls.split(":")
                port = "read" if kind == "rd" else "write"
                why = (f"memory port: {c} {port}s per iteration of array '{arr}' bank {bank}, "
                       f"which has one {port} port (partition it)")
    return best, why


def schedule_region(region: Region, opts: ScheduleOptions) -> None:
    """Schedule one region in place (node cycles, ``region.ii``, ``region.depth``)."""
    g = _graph(region)
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
    region.ii_binding = region.ii_reason.split(":")[0]


def schedule_kernel(ir: KernelIR, opts: ScheduleOptions) -> None:
    """Schedule every region of a kernel in place."""
    for r in ir.regions():
        schedule_region(r, opts)
