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

from .ir import Node

__all__ = ["VarRange", "Affine", "affine_index", "index_extremes"]


@dataclass(frozen=True)
class VarRange:
    """The values a loop variable takes: ``first, first + step, ..., last`` (non-empty)."""

    name: str
    first: int
    last: int


@dataclass(frozen=True)
class Affine:
    """``const + sum(coef * var)`` over loop variables with known ranges."""

    const: int
    terms: tuple[tuple[VarRange, int], ...]

    @property
    def extremes(self) -> tuple[int, int]:
        """Exact smallest and largest value over the (rectangular) iteration space."""
        lo = hi = self.const
        for var, c in self.terms:
            a, b = c * var.first, c * var.last
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def _combine(self, other: Affine, sign: int) -> Affine:
        coefs: dict[VarRange, int] = dict(self.terms)
        for var, c in other.terms:
            coefs[var] = coefs.get(var, 0) + sign * c
        return Affine(self.const + sign * other.const,
                      tuple((v, c) for v, c in coefs.items() if c))

    def scaled(self, k: int) -> Affine:
        return Affine(self.const * k, tuple((v, c * k) for v, c in self.terms if c * k))


#: Looks up an ``ivar``/``var`` source node: its loop variable's range, or None when the node
#: is not a loop variable with compile-time bounds.
RangeOf = Callable[[Node], VarRange | None]


def affine_index(n: Node, range_of: RangeOf) -> Affine | None:
    """``n`` as an :class:`Affine` form, or None when it is not one (see the module)."""
    if n.type is None or n.vtype.frac:
        return None
    form = _affine(n, range_of)
    if form is None:
        return None
    lo, hi = form.extremes
    # The exact value must fit the node's type, or the hardware wraps it and the form lies.
    if lo < n.vtype.min_raw or hi > n.vtype.max_raw:
        return None
    return form


def _affine(n: Node, range_of: RangeOf) -> Affine | None:
    if n.kind == "const":
        return Affine(int(n.attrs["value"].raw), ())
    if n.kind in ("ivar", "var"):
        var = range_of(n)
        return None if var is None else Affine(0, ((var, 1),))
    if n.kind == "cast":
        return affine_index(n.args[0], range_of)  # None if the operand's value may not fit
    args = [affine_index(a, range_of) for a in n.args]
    if n.kind == "neg" and args[0] is not None:
        return args[0].scaled(-1)
    if n.kind in ("add", "sub") and args[0] is not None and args[1] is not None:
        return args[0]._combine(args[1], 1 if n.kind == "add" else -1)
    if n.kind == "mul":
        a, b = args
        if a is not None and b is not None:
            if not b.terms:
                return a.scaled(b.const)
            if not a.terms:
                return b.scaled(a.const)
        return None
    if n.kind == "shl" and args[0] is not None and n.attrs.get("amount") is not None:
        return args[0].scaled(1 << int(n.attrs["amount"]))
    return None


def index_extremes(n: Node, range_of: RangeOf) -> tuple[int, int] | None:
    """Exact ``(min, max)`` of the index ``n`` over its loops, or None when unknown."""
    form = affine_index(n, range_of)
    return None if form is None else form.extremes
