"""The typed IR of the HLS compiler.

A kernel is a tree of *segments*: a :class:`Region` is straight-line code (a dataflow graph of
:class:`Node`\\ s, if-converted) run ``trip`` times, once per iteration of an innermost loop
(or once, for code between loops); a :class:`Loop` is a loop whose body holds further loops,
run by the FSM. User variables live in registers between regions; inside a region they are
SSA values.

The IR is immutable once the frontend has built it (frozen dataclasses, read-only mappings):
scheduling does not annotate it but returns a :class:`~archsim.compilers.hls.schedule.Schedule`,
so one lowered kernel can be scheduled at several clocks and resource limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ...dsl.types import FormatType, HWType

__all__ = ["Node", "Bound", "Region", "Loop", "Segment", "ArrayInfo", "KernelIR", "SOURCE_KINDS",
           "trip_count", "raw_scalars", "frozen_map"]

#: Node kinds that are values available at any time (no schedule slot of their own).
SOURCE_KINDS = frozenset({"const", "arg", "var", "ivar"})


def frozen_map(d: Mapping[Any, Any] | None = None) -> Mapping[Any, Any]:
    """A read-only view of a copy of ``d`` (the IR's mappings cannot change after lowering)."""
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True, eq=False)
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
    attrs: Mapping[str, Any] = field(default_factory=frozen_map)
    line: int = 0
    col: int = 0
    name: str = ""

    @property
    def vtype(self) -> HWType:
        """The type of the node's value (a store has none)."""
        assert self.type is not None, f"a {self.kind} node has no value"
        return self.type

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name or ''} {self.type!r} @{self.line}>"


@dataclass(frozen=True)
class Bound:
    """A loop bound: a constant, a scalar argument, a variable register, or a +/- of those."""

    kind: str  # "const" | "arg" | "var" | "add" | "sub"
    value: int | str | None = None
    left: Bound | None = None
    right: Bound | None = None

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The bound's value given argument/variable values."""
        if self.kind == "const":
            assert isinstance(self.value, int)
            return self.value
        if self.kind in ("arg", "var"):
            return int(env[str(self.value)])
        assert self.left is not None and self.right is not None
        a, b = self.left.evaluate(env), self.right.evaluate(env)
        return a + b if self.kind == "add" else a - b

    @property
    def is_const(self) -> bool:
        """True when the bound does not depend on run-time values."""
        if self.kind == "const":
            return True
        if self.kind in ("arg", "var"):
            return False
        assert self.left is not None and self.right is not None
        return self.left.is_const and self.right.is_const

    @property
    def name(self) -> str:
        """The argument or variable an ``"arg"`` or ``"var"`` bound reads."""
        if self.kind not in ("arg", "var") or not isinstance(self.value, str):
            raise AssertionError(f"a {self.kind!r} bound reads no name")
        return self.value

    @property
    def operands(self) -> tuple[Bound, Bound]:
        """The two sides of an ``"add"`` or ``"sub"`` bound."""
        if self.left is None or self.right is None:
            raise AssertionError(f"a {self.kind!r} bound has no operands")
        return self.left, self.right

    def names(self) -> set[str]:
        """Argument/variable names the bound reads."""
        if self.kind in ("arg", "var"):
            return {str(self.value)}
        if self.kind == "const":
            return set()
        assert self.left is not None and self.right is not None
        return self.left.names() | self.right.names()

    def __str__(self) -> str:
        if self.kind == "const":
            return str(self.value)
        if self.kind in ("arg", "var"):
            return str(self.value)
        sym = "+" if self.kind == "add" else "-"
        return f"({self.left} {sym} {self.right})"


@dataclass(frozen=True, eq=False)
class Region:
    """Straight-line code, optionally the body of an innermost loop.

    Attributes
    ----------
    name : str
        ``L<line>_<var>`` for a loop, ``seq<k>`` otherwise.
    nodes : tuple of Node
    var, start, stop, step, var_type
        The loop (``var is None`` for straight-line code run once).
    ii_requested : int or None
        ``pipeline(..., ii=k)``; None for a sequential loop (iterations do not overlap).
    line : int
    """

    name: str
    nodes: tuple[Node, ...] = ()
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

    @property
    def is_loop(self) -> bool:
        """True for an innermost loop body."""
        return self.var is not None

    @property
    def is_while(self) -> bool:
        """True for a ``while bounded(...)`` loop (its trip count depends on the data)."""
        return self.while_max is not None

    def trip(self, env: Mapping[str, int]) -> int:
        """Iterations given argument/variable values (1 for straight-line code; for a while
        loop, its bound ``max_iter``)."""
        if not self.is_loop:
            return 1
        start, stop = self.loop_bounds()
        return trip_count(start.evaluate(env), stop.evaluate(env), self.step)

    def loop_bounds(self) -> tuple[Bound, Bound]:
        """``(start, stop)`` of a loop region (straight-line code has none: asking is a bug)."""
        if self.start is None or self.stop is None:
            raise AssertionError(f"region {self.name} is not a loop: it has no bounds")
        return self.start, self.stop

    @property
    def counter_type(self) -> HWType:
        """The loop variable's type (of a loop region)."""
        if self.var_type is None:
            raise AssertionError(f"region {self.name} is not a loop: it has no counter")
        return self.var_type

    @property
    def exit_node(self) -> Node:
        """The node that ends a ``while bounded(...)`` loop after the current iteration."""
        if self.exit is None:
            raise AssertionError(f"region {self.name} is not a while loop: it has no exit")
        return self.exit

    def static_trip(self) -> int | None:
        """The trip count if its bounds are constants (None for a while loop)."""
        if self.is_while:
            return None
        if not self.is_loop:
            return 1
        assert self.start is not None and self.stop is not None
        if self.start.is_const and self.stop.is_const:
            return self.trip({})
        return None


@dataclass(frozen=True, eq=False)
class Loop:
    """A loop whose body contains loops; run by the FSM with no per-iteration overhead."""

    name: str
    var: str
    start: Bound
    stop: Bound
    step: int
    var_type: HWType
    body: tuple[Region | Loop, ...]
    line: int = 0

    def trip(self, env: Mapping[str, int]) -> int:
        """Iterations given argument/variable values."""
        return trip_count(self.start.evaluate(env), self.stop.evaluate(env), self.step)

    def static_trip(self) -> int | None:
        """The trip count if its bounds are constants."""
        return self.trip({}) if self.start.is_const and self.stop.is_const else None


#: One element of a segment list: straight-line code or an innermost loop, or an FSM loop.
Segment = Region | Loop


@dataclass(frozen=True)
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
    fmt: FormatType | None = None

    @property
    def declared(self) -> HWType | FormatType:
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


@dataclass(frozen=True, eq=False)
class KernelIR:
    """A whole kernel after the frontend (read-only)."""

    name: str
    filename: str
    scalars: Mapping[str, HWType]
    arrays: Mapping[str, ArrayInfo]
    params: tuple[str, ...]
    variables: Mapping[str, HWType]
    returns: tuple[HWType, ...]
    body: tuple[Region | Loop, ...]
    loopvar_types: Mapping[tuple[int, int], HWType] = field(default_factory=frozen_map)
    ret_alias: Mapping[int, str] = field(default_factory=frozen_map)

    def regions(self) -> list[Region]:
        """Every region, in program order."""
        out: list[Region] = []

        def walk(segs: tuple[Region | Loop, ...]) -> None:
            for s in segs:
                if isinstance(s, Region):
                    out.append(s)
                else:
                    walk(s.body)

        walk(self.body)
        return out

    def written_arrays(self) -> frozenset[str]:
        """Names of the arrays the kernel stores into."""
        return frozenset(n for n, a in self.arrays.items() if a.written)


def trip_count(start: int, stop: int, step: int) -> int:
    """Iterations of ``range(start, stop, step)`` for a positive step."""
    return max(0, -(-(stop - start) // step))


def raw_scalars(ir: KernelIR, named: Mapping[str, Any]) -> dict[str, int]:
    """The raw codes of the scalar arguments among ``named`` (argument name -> value), as
    the hardware latches them: each converted to its declared type (wrap or saturate)."""
    return {n: int(ir.scalars[n](v).raw) for n, v in named.items() if n in ir.scalars}
