"""Small Amaranth building blocks shared by the format datapaths."""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Mux, Shape, Value

from ...dsl.formats import FloatFormat, Format

__all__ = ["range_shape", "float_fields", "float_significand", "balanced_sum", "float_element"]


def range_shape(low: int, high: int) -> Shape:
    """The narrowest shape holding every integer in ``low..high`` (signed if ``low < 0``)."""
    return Shape.cast(range(low, high + 1))


def float_element(elem: Format, *, what: str) -> FloatFormat:
    """``elem`` as a :class:`FloatFormat`; a ``TypeError`` naming ``what`` otherwise."""
    if not isinstance(elem, FloatFormat):
        raise TypeError(f"{what} must be a FloatFormat, not {type(elem).__name__}")
    return elem


def float_fields(code: Value, exp_bits: int, man_bits: int) -> tuple[Value, Value, Value]:
    """Split a sign / exponent / mantissa bit pattern into its three fields."""
    sign = code[exp_bits + man_bits]
    exp_field = code[man_bits:man_bits + exp_bits]
    man_field = code[:man_bits] if man_bits else Const(0, 0)
    return sign, exp_field, man_field


def float_significand(exp_field: Value, man_field: Value, man_bits: int) -> tuple[Value, Value]:
    """``(sig, shift)`` with value = ``sig * 2**shift`` in units of the smallest subnormal.

    Normal numbers (exponent field ``E >= 1``) have ``sig = 2**m + M`` and ``shift = E - 1``;
    subnormals (``E = 0``) have ``sig = M`` and ``shift = 0``.
    """
    hidden = Value.cast(exp_field != 0)
    sig = Cat(man_field, hidden)
    shift = Mux(hidden, exp_field - 1, 0)[:len(exp_field)]
    return sig, shift


def balanced_sum(terms: list[Value]) -> Value:
    """Sum ``terms`` with a balanced adder tree (log2 depth); each adder widens by one bit."""
    if not terms:
        return Value.cast(0)
    level = list(terms)
    while len(level) > 1:
        nxt = [level[i] + level[i + 1] for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]
