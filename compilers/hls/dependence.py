"""Memory dependence analysis of an innermost loop region.

Two accesses to the same array bank of a pipelined loop constrain the II only if they can
touch the same word in iterations ``n`` and ``n + d`` (the *dependence distance* ``d``). This
module proves independence, or finds the exact distances, for addresses that are affine in the
iteration number: sums of constants, the loop variable, loop-invariant registers (FSM loop
counters of the enclosing loops, variables the region does not write) and scalar arguments,
scaled by constants (``*``, ``<<``, ``>>`` when exact), through integer casts.

For two affine addresses ``a1*n1 + c1 + S`` and ``a2*n2 + c2 + S`` with the same symbolic part
``S``, the accesses alias iff ``a1*n1 - a2*n2 = c2 - c1``. The GCD test rejects the equation
when ``gcd(a1, a2)`` does not divide ``c2 - c1`` (in integers, whatever the trip count); with a
static trip count ``T`` the distances are then solved exactly (for each ``n1`` at most one
``n2``), so a distance beyond ``T - 1`` proves independence -- the bounds part of
Banerjee's test, exact here because the nest has one free variable. Anything else (a
data-dependent index such as ``h[x[i]]``, different symbolic parts, a symbolic trip count
with equal coefficients is still solved) is *unknown*: every distance is assumed possible.

Assumption (stated): every index is within its dimension, so equal flat addresses mean the
same word, and an integer cast of an index that holds a run-time value (an argument, an
enclosing loop's counter) does not wrap -- the program's contract, as in C HLS tools; a
cast of an expression in the loop variable and constants alone is checked over the trip
count, and one that wraps makes the address non-affine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .affine import LinearForm, combine
from .ir import Node, Region

__all__ = ["ITERATION", "Dependence", "affine_address", "dependence"]


#: The symbol of the iteration number ``n`` in an address's form.
ITERATION = "iteration"


def affine_address(n: Node, region: Region) -> LinearForm | None:
    """The affine form of address node ``n`` in region ``region``: the iteration number is
    the symbol :data:`ITERATION`, loop-invariant registers and arguments are symbols
    ``"var:NAME"`` / ``"arg:NAME"`` / ``"start:..."``; None when it is not affine (e.g. it
    depends on a loaded value)."""
    written = {m.attrs["var"] for m in region.nodes if m.kind == "setvar"}
    memo: dict[int, LinearForm | None] = {}

    def walk(m: Node) -> LinearForm | None:
        if id(m) not in memo:
            memo[id(m)] = _affine(m, region, written, walk)
        return memo[id(m)]

    return walk(n)


def _affine(n: Node, region: Region, written: set[str],
            walk: Callable[[Node], LinearForm | None]) -> LinearForm | None:
    k = n.kind
    if k == "arg":
        return LinearForm.symbol(f"arg:{n.attrs['arg']}")
    if k == "var":
        if n.attrs["var"] in written:
            return None  # changes from one iteration to the next
        return LinearForm.symbol(f"var:{n.attrs['var']}")
    if k == "ivar":
        # the loop variable is start + step * n
        start = region.start
        if start is None:
            return None
        base = LinearForm.constant(int(start.evaluate({}))) if start.is_const else \
            LinearForm.symbol(f"start:{start}")
        return base.plus(LinearForm.symbol(ITERATION, region.step))
    if k == "cast":
        if n.vtype.frac or n.args[0].vtype.frac:
            return None
        a = walk(n.args[0])
        if a is None or set(a.coefficients()) - {ITERATION}:
            return a  # an index in bounds does not wrap (module docstring)
        # no run-time value in it: check the values fit the cast's type (else it wraps)
        trip = region.static_trip() if region.is_loop else 1
        if trip is None:
            return a
        ends = (a.const, a.const + a.coefficient(ITERATION) * max(trip - 1, 0))
        fits = n.vtype.min_raw <= min(ends) and max(ends) <= n.vtype.max_raw
        return a if fits else None
    return combine(n, walk)


@dataclass(frozen=True)
class Dependence:
    """Iteration distances ``d >= 0`` at which the later access (iteration ``n + d``) may
    touch the word the earlier access touched in iteration ``n``.

    Attributes
    ----------
    distances : tuple of int or None
        The exact distances (sorted; ``()``: independent), or None when unknown: any
        distance is possible.
    reason : str
        How the verdict was reached ("GCD test", "distance out of range", ...).
    """

    distances: tuple[int, ...] | None
    reason: str = ""

    @property
    def independent(self) -> bool:
        """True when no two iterations (nor one) can touch the same word."""
        return self.distances == ()

    def min_distance(self, at_least: int = 1) -> int | None:
        """The smallest possible distance ``>= at_least`` (None: none is possible)."""
        if self.distances is None:
            return at_least
        return next((d for d in self.distances if d >= at_least), None)

    def possible(self, d: int) -> bool:
        """Whether distance ``d`` is possible."""
        return self.distances is None or d in self.distances


def dependence(earlier: Node, later: Node, region: Region) -> Dependence:
    """The distances at which ``later`` (in iteration ``n + d``) may alias ``earlier`` (in
    iteration ``n``); both are loads or stores of the same array bank of ``region``.

    The addresses are compared as words of the bank (the address operand, ``args[0]``).
    """
    trip = region.static_trip() if region.is_loop else 1
    if region.is_while:
        trip = None
    a = affine_address(earlier.args[0], region)
    b = affine_address(later.args[0], region)
    if a is None or b is None:
        return Dependence(None, "address not affine in the loop variable: any distance")
    a_symbols, b_symbols = a.coefficients(), b.coefficients()
    a1, a2 = a_symbols.pop(ITERATION, 0), b_symbols.pop(ITERATION, 0)
    if a_symbols != b_symbols:
        return Dependence(None, "addresses differ by a run-time value: any distance")
    # alias iff a1*n1 + a.const == a2*n2 + b.const, with n2 = n1 + d
    rhs = b.const - a.const
    g = math.gcd(a1, a2)
    if g == 0:
        if rhs != 0:
            return Dependence((), "constant addresses differ")
        if trip is None:
            return Dependence(None, "the same word on every iteration (symbolic trip count)")
        return Dependence(tuple(range(trip)), "the same word on every iteration")
    if rhs % g:
        return Dependence((), f"GCD test: gcd({a1}, {a2}) = {g} does not divide {-rhs}")
    if a1 == a2:
        # a1*n1 = a1*n2 + rhs  ->  d = n2 - n1 = -rhs / a1
        if (-rhs) % a1:
            return Dependence((), "distance is not an integer")
        d = -rhs // a1
        if d < 0:
            return Dependence((), f"the later access reaches the word {-d} iteration(s) "
                              "before the earlier one")
        if trip is not None and d > trip - 1:
            return Dependence((), f"distance {d} beyond the trip count {trip}")
        return Dependence((d,), f"constant distance {d}")
    if trip is None:
        return Dependence(None, "different strides, symbolic trip count: any distance")
    ds: set[int] = set()
    for n1 in range(trip):
        num = a1 * n1 - rhs  # = a2 * n2
        if a2 == 0:
            if num == 0:
                ds.update(range(0, trip - n1))
            continue
        if num % a2 == 0:
            n2 = num // a2
            if n1 <= n2 < trip:
                ds.add(n2 - n1)
    return Dependence(tuple(sorted(ds)), "different strides, solved over the iteration space")
