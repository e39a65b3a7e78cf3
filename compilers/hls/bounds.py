"""Static bounds of affine array indices: the smallest and largest value an index takes.

An index is *affine* when it is a constant plus a sum of loop variables times constants
(``i``, ``i - 1``, ``i * 8 + j``, ``(i << 3) + j + 2``), built from ``add``, ``sub``,
``neg``, ``mul`` by a constant, ``shl`` by a constant and value-preserving casts. When every
loop variable it reads has compile-time bounds, the loops form a rectangular iteration
space (each variable ranges over its own ``range(start, stop, step)`` independently of the
others), so the extremes of the index over that space are exact:
``c0 + sum(min(c * first, c * last))`` and the same with ``max`` — no enumeration needed.

Anything else gives no answer (None), and the frontend then checks nothing: a data-dependent
index, a loop variable with a run-time bound (a scalar argument or a variable), an empty
loop, a ``while bounded(...)`` loop, or a node whose exact value could leave its type's
range (a cast or an operation that may wrap, after which the index is no longer affine).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .affine import LinearForm, combine
from .ir import Node

__all__ = ["VarRange", "affine_index", "extremes", "index_extremes"]


@dataclass(frozen=True)
class VarRange:
    """The values a loop variable takes: ``first, first + step, ..., last`` (non-empty)."""

    name: str
    first: int
    last: int


#: Looks up an ``ivar``/``var`` source node: its loop variable's range, or None when the node
#: is not a loop variable with compile-time bounds.
RangeOf = Callable[[Node], VarRange | None]


def affine_index(n: Node, range_of: RangeOf) -> LinearForm | None:
    """``n`` as a :class:`~.affine.LinearForm` over :class:`VarRange` symbols, or None when
    it is not one (see the module)."""
    if n.type is None or n.vtype.frac:
        return None
    if n.kind in ("ivar", "var"):
        var = range_of(n)
        form = None if var is None else LinearForm.symbol(var)
    elif n.kind == "cast":
        form = affine_index(n.args[0], range_of)  # None if the operand's value may not fit
    else:
        form = combine(n, lambda m: affine_index(m, range_of))
    if form is None:
        return None
    lo, hi = extremes(form)
    # The exact value must fit the node's type, or the hardware wraps it and the form lies.
    if lo < n.vtype.min_raw or hi > n.vtype.max_raw:
        return None
    return form


def extremes(form: LinearForm) -> tuple[int, int]:
    """Exact smallest and largest value of ``form`` over the (rectangular) iteration space
    of its :class:`VarRange` symbols."""
    lo = hi = form.const
    for var, c in form.terms:
        assert isinstance(var, VarRange)
        a, b = c * var.first, c * var.last
        lo += min(a, b)
        hi += max(a, b)
    return lo, hi


def index_extremes(n: Node, range_of: RangeOf) -> tuple[int, int] | None:
    """Exact ``(min, max)`` of the index ``n`` over its loops, or None when unknown."""
    form = affine_index(n, range_of)
    return None if form is None else extremes(form)
