"""An AdaptivFloat multiply-accumulate PE, as in EdgeBERT's floating-point datapath.

Two AdaptivFloat(n, e) codes are decoded, multiplied as floating-point numbers (significands
multiplied, exponent fields added) and the exact product is shifted into a wide two's
complement fixed-point accumulator (a Kulisch-style accumulator: no rounding anywhere). The
per-tensor exponent biases never touch the accumulator; they only set the scale of its
least significant bit, which the PE reports next to it::

    value = acc * 2**scale_exp,    scale_exp = exp_bias_a + exp_bias_b - 2 * m

Codes follow :class:`archsim.dsl.formats.AdaptivFloat`: ``s | E | M`` with
``m = n - 1 - e`` mantissa bits, value ``(-1)**s * 2**(E + exp_bias) * (1 + M / 2**m)``,
and ``E = M = 0`` meaning zero (either sign).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..checks import check_int, silence_unused
from ._common import float_fields, range_shape

__all__ = ["AdaptivFloatMAC"]

#: Largest exponent width: the accumulator spans ``2 * (2**e - 1)`` bits of exponent range.
MAX_EXP_BITS = 6
#: Extra accumulator bits of the default ``acc_width``: 1024 largest products sum exactly.
GUARD_BITS = 10


class AdaptivFloatMAC(wiring.Component):
    """AdaptivFloat(n, e) multiply with exact wide fixed-point accumulation.

    On every rising edge of the ``sync`` domain::

        if valid:
            acc       <= (0 if start else acc) + a_value * b_value * 2**-scale_exp
            scale_exp <= exp_bias_a + exp_bias_b - 2 * m

    ``acc`` wraps modulo ``2**acc_width`` (the default width never wraps for up to 1024
    products). The biases are input ports (per-tensor registers in hardware) and must be
    held while an accumulation runs; ``scale_exp`` is registered with ``acc`` so the pair
    always describes the same sum. Both registers reset to 0.

    Parameters
    ----------
    n : int
        Bits per code, 2..16.
    e : int
        Exponent bits, ``1..min(n - 1, 6)``.
    acc_width : int, optional
        Accumulator width; at least :attr:`product_width`. Default
        ``product_width + 10``.
    bias_width : int
        Width of the two's complement ``exp_bias_a``/``exp_bias_b`` ports, 2..16 (8 is the
        golden model's ``bias_bits``).

    Attributes
    ----------
    a, b : Signal(n), in
        AdaptivFloat codes.
    exp_bias_a, exp_bias_b : Signal(signed(bias_width)), in
        The tensors' ``exp_bias`` (:attr:`AdaptivFloatEncoding.exp_bias`).
    valid : Signal(1), in
        Accumulate this cycle's product.
    start : Signal(1), in
        Begin a new sum with this product (discard the accumulator).
    acc : Signal(signed(acc_width)), out
        The accumulator, in units of ``2**scale_exp``.
    scale_exp : Signal(signed), out
        Exponent of the accumulator's least significant bit.
    """

    def __init__(self, *, n: int, e: int, acc_width: int | None = None,
                 bias_width: int = 8) -> None:
        try:
            self._n = check_int("n", n, 2, 16)
            self._e = check_int("e", e, 1, min(n - 1, MAX_EXP_BITS))
            self._bias_width = check_int("bias_width", bias_width, 2, 16)
            if acc_width is None:
                acc_width = self.product_width + GUARD_BITS
            self._acc_width = check_int("acc_width", acc_width, self.product_width, 1024)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        half = 2 ** (bias_width - 1)
        super().__init__({
            "a": In(unsigned(n)),
            "b": In(unsigned(n)),
            "exp_bias_a": In(signed(bias_width)),
            "exp_bias_b": In(signed(bias_width)),
            "valid": In(1),
            "start": In(1),
            "acc": Out(signed(self._acc_width)),
            "scale_exp": Out(range_shape(-2 * half - 2 * self.m, 2 * (half - 1) - 2 * self.m)),
        })

    @property
    def n(self) -> int:
        """Bits per code."""
        return self._n

    @property
    def e(self) -> int:
        """Exponent bits."""
        return self._e

    @property
    def m(self) -> int:
        """Mantissa bits, ``n - 1 - e``."""
        return self._n - 1 - self._e

    @property
    def bias_width(self) -> int:
        """Width of the exponent-bias ports."""
        return self._bias_width

    @property
    def acc_width(self) -> int:
        """Accumulator width in bits."""
        return self._acc_width

    @property
    def product_width(self) -> int:
        """Bits of one signed aligned product: ``2 (m + 1)`` significand bits, a shift of up
        to ``2 (2**e - 1)`` and a sign."""
        return 2 * (self.m + 1) + 2 * (2**self._e - 1) + 1

    def elaborate(self, platform) -> Module:
        m = Module()
        n, e, man = self._n, self._e, self.m
        sign_a, exp_a, man_a = float_fields(self.a, e, man)
        sign_b, exp_b, man_b = float_fields(self.b, e, man)

        # Floating-point multiply: hidden-one significands, exponent fields added.
        sig_product = Signal(2 * (man + 1))
        exp_sum = Signal(e + 1)
        is_zero = Signal()
        m.d.comb += [
            sig_product.eq(Cat(man_a, Const(1, 1)) * Cat(man_b, Const(1, 1))),
            exp_sum.eq(exp_a + exp_b),
            # E = M = 0 is zero whatever the sign: no denormals in AdaptivFloat.
            is_zero.eq((self.a[:n - 1] == 0) | (self.b[:n - 1] == 0)),
        ]

        # Align to the accumulator's fixed point (LSB = 2**(bias_a + bias_b - 2m)).
        magnitude = Signal(self.product_width - 1)
        product = Signal(signed(self.product_width))
        m.d.comb += [
            magnitude.eq(Mux(is_zero, 0, sig_product << exp_sum)),
            product.eq(Mux(sign_a ^ sign_b, -magnitude, magnitude)),
        ]

        scale_exp = self.exp_bias_a + self.exp_bias_b - 2 * man
        with m.If(self.valid):
            m.d.sync += [
                self.acc.eq(Mux(self.start, 0, self.acc) + product),
                self.scale_exp.eq(scale_exp),
            ]
        return m

    def __repr__(self) -> str:
        return f"AdaptivFloatMAC(n={self._n}, e={self._e}, acc_width={self._acc_width})"

