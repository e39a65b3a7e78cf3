"""Affine forms of integer index expressions: ``const + sum(coef * symbol)``.

The static bounds check (:mod:`.bounds`) and the memory dependence analysis
(:mod:`.dependence`) both read an array index as an affine form; they differ only in what a
leaf means (a loop variable with its range, or the iteration number and loop-invariant
registers) and in when a cast may be looked through. :func:`combine` holds the arithmetic
both share, so a rule (say, an exact right shift) is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from .ir import Node

__all__ = ["LinearForm", "combine"]


@dataclass(frozen=True)
class LinearForm:
    """``const + sum(coef * symbol)`` with integer coefficients (zero ones dropped).

    Symbols are any hashable keys chosen by the analysis (a loop variable's range, a
    register's name, the iteration number).
    """

    const: int
    terms: tuple[tuple[Hashable, int], ...] = ()

    @classmethod
    def constant(cls, value: int) -> LinearForm:
        """The form of ``value``."""
        return cls(int(value))

    @classmethod
    def symbol(cls, key: Hashable, coef: int = 1) -> LinearForm:
        """The form ``coef * key``."""
        return cls(0, ((key, coef),) if coef else ())

    @property
    def is_constant(self) -> bool:
        """True when no symbol appears."""
        return not self.terms

    def coefficient(self, key: Hashable) -> int:
        """The coefficient of ``key`` (0 when absent)."""
        return dict(self.terms).get(key, 0)

    def coefficients(self) -> dict[Hashable, int]:
        """Every symbol with its (non-zero) coefficient."""
        return dict(self.terms)

    def scaled(self, k: int) -> LinearForm:
        """``k`` times this form."""
        return LinearForm(self.const * k, tuple((s, c * k) for s, c in self.terms if c * k))

    def plus(self, other: LinearForm, sign: int = 1) -> LinearForm:
        """This form plus (``sign = 1``) or minus (``-1``) ``other``."""
        coefs = dict(self.terms)
        for s, c in other.terms:
            coefs[s] = coefs.get(s, 0) + sign * c
        return LinearForm(self.const + sign * other.const,
                          tuple((s, c) for s, c in coefs.items() if c))

    def divisible(self, k: int) -> bool:
        """Every coefficient and the constant are multiples of ``k``."""
        return all(v % k == 0 for v in (self.const, *(c for _, c in self.terms)))


#: An analysis's form of an operand node, or None when it is not affine.
Operand = Callable[[Node], LinearForm | None]


def _amount(n: Node) -> int | None:
    amount = n.attrs.get("amount")
    if amount is None and len(n.args) > 1 and n.args[1].kind == "const":
        amount = int(n.args[1].attrs["value"].raw)
    return None if amount is None else int(amount)


def combine(n: Node, operand: Operand) -> LinearForm | None:
    """The form of an arithmetic node from its operands' forms (``operand(arg)``).

    Handles integer constants, ``add``, ``sub``, ``neg``, ``mul`` when one side is a
    constant form, ``shl`` by a constant and ``shr`` by a constant when no bit is dropped
    (every coefficient divisible); None for every other kind, and for fractional types.
    """
    kind = n.kind
    if kind == "const":
        return None if n.vtype.frac else LinearForm.constant(n.attrs["value"].raw)
    if kind == "neg":
        x = operand(n.args[0])
        return None if x is None else x.scaled(-1)
    if kind in ("add", "sub"):
        x, y = operand(n.args[0]), operand(n.args[1])
        if x is None or y is None:
            return None
        return x.plus(y, 1 if kind == "add" else -1)
    if kind == "mul":
        x, y = operand(n.args[0]), operand(n.args[1])
        if x is None or y is None:
            return None
        if y.is_constant:
            return x.scaled(y.const)
        if x.is_constant:
            return y.scaled(x.const)
        return None
    if kind in ("shl", "shr"):
        amount = _amount(n)
        x = None if amount is None else operand(n.args[0])
        if x is None or amount is None:
            return None
        if kind == "shl":
            return x.scaled(1 << amount)
        if not x.divisible(1 << amount):
            return None  # a shift that drops bits is not affine
        return LinearForm(x.const >> amount, tuple((s, c >> amount) for s, c in x.terms))
    return None
