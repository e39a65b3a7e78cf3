"""IR-to-IR transformations applied between the frontend and the scheduler.

:func:`fold_epilogues`: a pipelined loop followed by straight-line code that only computes
and stores (``c[i][j] = acc`` after the ``k`` loop of a matrix product) gets that code folded
into its last iteration: the stores are predicated on ``k == last`` and read the loop's
final values directly. The straight-line region took its own FSM state (one cycle per
outer iteration, on top of the pipeline's drain); folded, the store issues in the pipeline
as soon as its data is ready, in the drain the loop pays anyway.
"""

from __future__ import annotations

from dataclasses import replace

from ...dsl.types import Bool
from .builder import IRBuilder
from .ir import KernelIR, Loop, Node, Region, Segment, frozen_map

__all__ = ["fold_epilogues"]


def fold_epilogues(ir: KernelIR) -> KernelIR:
    """``ir`` with every foldable epilogue folded into the pipelined loop before it."""
    body = _fold(ir.body)
    return ir if body is ir.body else replace(ir, body=body)


def _fold(segs: tuple[Segment, ...]) -> tuple[Segment, ...]:
    out: list[Segment] = []
    changed = False
    k = 0
    while k < len(segs):
        s = segs[k]
        if isinstance(s, Loop):
            inner = _fold(s.body)
            if inner is not s.body:
                s = replace(s, body=inner)
                changed = True
            out.append(s)
            k += 1
            continue
        nxt = segs[k + 1] if k + 1 < len(segs) else None
        if isinstance(nxt, Region) and _foldable(s, nxt):
            out.append(_merge(s, nxt))
            changed = True
            k += 2
            continue
        out.append(s)
        k += 1
    return tuple(out) if changed else segs


def _foldable(loop: Region, tail: Region) -> bool:
    """A pipelined counted loop with a constant start, then code that only computes and
    stores into arrays the loop does not touch."""
    if not loop.is_loop or loop.is_while or loop.ii_requested is None or tail.is_loop:
        return False
    trip = loop.static_trip()
    start, _ = loop.loop_bounds()
    if not trip or not start.is_const:
        return False
    kinds = {n.kind for n in tail.nodes}
    if "store" not in kinds or kinds & {"load", "setvar", "div", "mod", "ivar"}:
        return False
    touched = {n.attrs["array"] for n in loop.nodes if n.kind in ("load", "store")}
    return not any(n.kind == "store" and n.attrs["array"] in touched for n in tail.nodes)


def _merge(loop: Region, tail: Region) -> Region:
    start, _ = loop.loop_bounds()
    trip = loop.static_trip()
    assert trip is not None
    last = start.evaluate({}) + (trip - 1) * loop.step
    iv = next((n for n in loop.nodes if n.kind == "ivar"), None)
    extra: list[Node] = []
    if iv is None:
        iv = Node(kind="ivar", type=loop.counter_type, name=loop.var or "",
                  attrs=frozen_map({"var": loop.var}), line=loop.line)
        extra.append(iv)
    c_last = IRBuilder.const(last)
    is_last = Node(kind="eq", type=Bool, args=(iv, c_last), line=tail.line, name="")
    extra += [c_last, is_last]
    # the loop's final value of each variable it writes (what the tail read from registers)
    final = {n.attrs["var"]: n.args[0] for n in loop.nodes if n.kind == "setvar"}
    memo: dict[int, Node] = {}

    def copy(n: Node) -> Node:
        if id(n) in memo:
            return memo[id(n)]
        if n.kind == "var" and n.attrs["var"] in final:
            new = final[n.attrs["var"]]
        elif n.kind in ("const", "arg", "var"):
            new = n
            extra.append(n)
        else:
            args = tuple(copy(a) for a in n.args)
            if n.kind == "store":
                pred = is_last
                if len(args) > 2:
                    pred = Node(kind="land", type=Bool, args=(args[2], is_last), line=n.line)
                    extra.append(pred)
                args = (args[0], args[1], pred)
            new = replace(n, args=args)
            if new.kind != "store":
                extra.append(new)
        memo[id(n)] = new
        return new

    stores = [copy(n) for n in tail.nodes if n.kind == "store"]
    for n in tail.nodes:  # pure nodes no store reads are dead in the tail as well
        copy(n)
    seen: set[int] = set()
    nodes: list[Node] = []
    for n in (*loop.nodes, *extra, *stores):
        if id(n) not in seen:
            seen.add(id(n))
            nodes.append(n)
    return replace(loop, nodes=tuple(nodes))
