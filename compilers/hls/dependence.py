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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .ir import Node, Region

__all__ = ["Affine", "Dependence", "affine_address", "dependence"]


@dataclass(frozen=True)
class Affine:
    """``coeff * n + const + sum(symbols[s] * s)``: an address in the iteration number ``n``.

    ``symbols`` maps a loop-invariant name (``"var:i"``, ``"arg:n"``) to its coefficient
    (zero coefficients are dropped).
    """

    coeff: int
    const: int
    symbols: Mapping[str, int]

    def scaled(self, k: int) -> Affine:
        """``k`` times this address."""
        return _mk(self.coeff * k, self.const * k, {s: c * k for s, c in self.symbols.items()})

    def plus(self, other: Affine, sign: int = 1) -> Affine:
        """This address plus (``sign = 1``) or minus (``-1``) ``other``."""
        syms = dict(self.symbols)
        for s, c in other.symbols.items():
            syms[s] = syms.get(s, 0) + sign * c
        return _mk(self.coeff + sign * other.coeff, self.const + sign * other.const, syms)

    def divisible(self, k: int) -> bool:
        """Every coefficient and the constant are multiples of ``k``."""
        return all(v % k == 0 for v in (self.coeff, self.const, *self.symbols.values()))


def _mk(coeff: int, const: int, syms: Mapping[str, int]) -> Affine:
    return Affine(coeff, const, MappingProxyType({s: c for s, c in sorted(syms.items()) if c}))


def _const_of(n: Node) -> int | None:
    return int(n.attrs["value"].raw) if n.kind == "const" else None


def affine_address(n: Node, region: Region) -> Affine | None:
    """The affine form of address node ``n`` in region ``region``'s iteration number, or
    None when it is not affine (e.g. it depends on a loaded value)."""
    written = {m.attrs["var"] for m in region.nodes if m.kind == "setvar"}
    memo: dict[int, Affine | None] = {}

    def walk(m: Node) -> Affine | None:
        if id(m) in memo:
            return memo[id(m)]
        memo[id(m)] = out = _affine(m, region, written, walk)
        return out

    return walk(n)


def _affine(n: Node, region: Region, written: set[str],
            walk: Callable[[Node], Affine | None]) -> Affine | None:
    k = n.kind
    if k == "const":
        if n.vtype.frac:
            return None
        return _mk(0, int(n.attrs["value"].raw), {})
    if k == "arg":
        return _mk(0, 0, {f"arg:{n.attrs['arg']}": 1})
    if k == "var":
        if n.attrs["var"] in written:
            return None  # changes from one iteration to the next
        return _mk(0, 0, {f"var:{n.attrs['var']}": 1})
    if k == "ivar":
        # the loop variable is start + step * n
        start = region.start
        if start is None:
            return None
        base = _mk(0, int(start.evaluate({})), {}) if start.is_const else \
            _mk(0, 0, {f"start:{start}": 1})
        return base.plus(_mk(region.step, 0, {}))
    if k == "cast":
        if n.vtype.frac or n.args[0].vtype.frac:
            return None
        a = walk(n.args[0])
        if a is None or a.symbols:
            return a  # an index in bounds does not wrap (module docstring)
        # no run-time value in it: check the values fit the cast's type (else it wraps)
        trip = region.static_trip() if region.is_loop else 1
        if trip is None:
            return a
        ends = (a.const, a.const + a.coeff * max(trip - 1, 0))
        fits = n.vtype.min_raw <= min(ends) and max(ends) <= n.vtype.max_raw
        return a if fits else None
    if k in ("add", "sub"):
        x, y = walk(n.args[0]), walk(n.args[1])
        if x is None or y is None:
            return None
        return x.plus(y, 1 if k == "add" else -1)
    if k == "neg":
        x = walk(n.args[0])
        return None if x is None else x.scaled(-1)
    if k == "mul":
        c0, c1 = _const_of(n.args[0]), _const_of(n.args[1])
        if c1 is not None:
            x = walk(n.args[0])
            return None if x is None else x.scaled(c1)
        if c0 is not None:
            x = walk(n.args[1])
            return None if x is None else x.scaled(c0)
        return None
    if k in ("shl", "shr"):
        amt = n.attrs.get("amount")
        if amt is None:
            amt = _const_of(n.args[1])
        if amt is None:
            return None
        x = walk(n.args[0])
        if x is None:
            return None
        if k == "shl":
            return x.scaled(1 << amt)
        if not x.divisible(1 << amt):
            return None  # a shift that drops bits is not affine
        return _mk(x.coeff >> amt, x.const >> amt,
                   {s: c >> amt for s, c in x.symbols.items()})
    return None


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
    if dict(a.symbols) != dict(b.symbols):
        return Dependence(None, "addresses differ by a run-time value: any distance")
    # alias iff a.coeff*n1 + a.const == b.coeff*n2 + b.const, with n2 = n1 + d
    a1, a2, rhs = a.coeff, b.coeff, b.const - a.const
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
