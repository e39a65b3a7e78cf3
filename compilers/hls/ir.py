"""The typed IR of the HLS compiler.

A kernel is a tree of *segments*: a :class:`Region` is straight-line code (a dataflow graph of
:class:`Node`\\ s, if-converted) run ``trip`` times, once per iteration of an innermost loop
(or once, for code between loops); a :class:`Loop` is a loop whose body holds further loops,
run by the FSM. User variables live in registers between regions; inside a region they are
SSA values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...dsl.types import HWType

__all__ = ["Node", "Bound", "Region", "Loop", "ArrayInfo", "KernelIR", "SOURCE_KINDS"]

#: Node kinds that are values available at any time (no schedule slot of their own).
SOURCE_KINDS = frozenset({"const", "arg", "var", "ivar"})


@dataclass(eq=False)
class Node:
    """One operation (or source value) of a region's dataflow graph.

    ``kind`` is a source (``const`` ``arg`` ``var`` ``ivar``), an operator (``add sub mul and
    or xor shl shr not neg abs lt le gt ge eq ne min max select cast land lor lnot``, and
    ``decode``: a number-format code to its exact value through a ROM; ``div`` and ``mod``: a
    sequential divider, ``attrs["latency"]`` cycles) or a side effect
    (``load``, ``store``, ``setvar``). ``attrs`` holds the constant value, the variable/array
    name, the bank, a shift amount, the format of a decode, ...
    """

    kind: str
    type: HWType | None
    args: tuple[Node, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    col: int = 0
    name: str = ""
    # filled in by the scheduler
    cycle: int = -1
    start_ns: float = 0.0
    end_ns: float = 0.0
    unit: int | None = None
    #: cycles from issue to a registered result: 0 for a combinational operator (chained in
    #: its cycle), ``L >= 2`` for a multi-cycle one (pipelined or sequential)
    latency: int = 0
    #: for a multi-cycle operator: True if pipelined (one issue per cycle), False if the
    #: unit is busy for its whole latency
    pipelined: bool = True

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name or ''} {self.type!r} @{self.line}>"


@dataclass(frozen=True)
class Bound:
    """A loop bound: a constant, a scalar argument, a variable register, or a +/- of those."""

    kind: str  # "const" | "arg" | "var" | "add" | "sub"
    value: Any = None
    left: Bound | None = None
    right: Bound | None = None

    def evaluate(self, env: dict[str, int]) -> int:
        """The bound's value given argument/variable values."""
        if self.kind == "const":
            return int(self.value)
        if self.kind in ("arg", "var"):
            return int(env[self.value])
        a, b = self.left.evaluate(env), self.right.evaluate(env)
        return a + b if self.kind == "add" else a - b

    @property
    def is_const(self) -> bool:
        """True when the bound does not depend on run-time values."""
        if self.kind == "const":
            return True
        if self.kind in ("arg", "var"):
            return False
        return self.left.is_const and self.right.is_const

    def names(self) -> set[str]:
        """Argument/variable names the bound reads."""
        if self.kind in ("arg", "var"):
            return {self.value}
        if self.kind == "const":
            return set()
        return self.left.names() | self.right.names()

    def __str__(self) -> str:
        if self.kind == "const":
            return str(self.value)
        if self.kind in ("arg", "var"):
            return str(self.value)
        sym = "+" if self.kind == "add" else "-"
        return f"({self.left} {sym} {self.right})"


@dataclass(eq=False)
class Region:
    """Straight-line code, optionally the body of an innermost loop.

    Attributes
    ----------
    name : str
        ``L<line>_<var>`` for a loop, ``seq<k>`` otherwise.
    nodes : list of Node
    var, start, stop, step, var_type
        The loop (``var is None`` for straight-line code run once).
    ii_requested : int or None
        ``pipeline(..., ii=k)``; None for a sequential loop (iterations do not overlap).
    line : int
    """

    name: str
    nodes: list[Node] = field(default_factory=list)
    var: str | None = None
    start: Bound | None = None
    stop: Bound | None = None
    step: int = 1
    var_type: HWType | None = None
    ii_requested: int | None = None
    line: int = 0
    #: ``while bounded(cond, max_iter=N)``: N, and the node that ends the loop after this
    #: iteration (its condition was false, or this is the N-th iteration)
    while_max: int | None = None
    exit: Node | None = None
    # schedule results
    ii: int = 1
    depth: int = 0
    ii_reason: str = ""
    transient: bool = False

    @property
    def is_loop(self) -> bool:
        """True for an innermost loop body."""
        return self.var is not None

    @property
    def is_while(self) -> bool:
        """True for a ``while bounded(...)`` loop (its trip count depends on the data)."""
        return self.while_max is not None

    def static_trip(self) -> int | None:
        """The trip count if its bounds are constants (None for a while loop)."""
        if self.is_while:
            return None
        if not self.is_loop:
            return 1
        if self.start.is_const and self.stop.is_const:
            return trip_count(self.start.evaluate({}), self.stop.evaluate({}), self.step)
        return None


@dataclass(eq=False)
class Loop:
    """A loop whose body contains loops; run by the FSM with no per-iteration overhead."""

    name: str
    var: str
    start: Bound
    stop: Bound
    step: int
    var_type: HWType
    body: list[Region | Loop]
    line: int = 0


@dataclass
class ArrayInfo:
    """An array argument: element type, shape, partitioning.

    ``elem`` is what the memory stores; for a number-format array (``fmt`` set, a
    :class:`~archsim.dsl.types.FormatType`) that is the code type ``UInt(bits)`` and each read
    is followed by a ``decode`` node.
    """

    name: str
    elem: HWType
    shape: tuple[int, ...]
    banks: int = 1
    partition_kind: str = "none"
    read: bool = False
    written: bool = False
    local: bool = False
    fmt: Any = None

    @property
    def declared(self) -> Any:
        """The element type as declared (the FormatType for a format array)."""
        return self.fmt if self.fmt is not None else self.elem

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def bank_depth(self) -> int:
        """Elements per bank."""
        return -(-self.size // self.banks)

    def bank_slice(self, bank: int) -> slice:
        """The flat (row-major) elements bank ``bank`` holds, in address order: every
        ``banks``-th from ``bank`` (cyclic, complete) or a contiguous run (block)."""
        if self.partition_kind == "block":
            return slice(bank * self.bank_depth, (bank + 1) * self.bank_depth)
        return slice(bank, None, self.banks)


@dataclass(eq=False)
class KernelIR:
    """A whole kernel after the frontend."""

    name: str
    filename: str
    scalars: dict[str, HWType]
    arrays: dict[str, ArrayInfo]
    params: list[str]
    variables: dict[str, HWType]
    returns: list[HWType]
    body: list[Region | Loop]
    loopvar_types: dict[tuple[int, int], HWType] = field(default_factory=dict)
    ret_alias: dict[int, str] = field(default_factory=dict)

    def regions(self) -> list[Region]:
        """Every region, in program order."""
        out: list[Region] = []

        def walk(segs: list[Region | Loop]) -> None:
            for s in segs:
                if isinstance(s, Region):
                    out.append(s)
                else:
                    walk(s.body)

        walk(self.body)
        return out


def trip_count(start: int, stop: int, step: int) -> int:
    """Iterations of ``range(start, stop, step)`` for a positive step."""
    return max(0, -(-(stop - start) // step))
