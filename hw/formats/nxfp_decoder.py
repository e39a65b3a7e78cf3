"""An NxFP (Nanoscaling FP) element decoder: code + block metadata -> exact value.

The decoder turns one element code, its block's shared scale and (with Adaptive
Microexponent) its block's format tag into an exact ``(sign, mantissa, exponent)`` triple::

    value = (-1)**sign * mantissa * 2**exponent

equal to :meth:`archsim.dsl.formats.NxFPFormat.decode`. The element's significand (hidden
one included, subnormals without it) is multiplied by the scale's ``1.M`` significand
(NanoMantissa's ``k`` bits; just 1 for MX's E8M0), and the exponents are added. The tag
selects which candidate element format (e.g. E2M1 / E1M2 / E3M0 at 4 bits) reads the code;
with Code Recycling the negative-zero code yields the recycled value
(:func:`archsim.dsl.formats.recycled_value`) instead of -0.
"""

from __future__ import annotations

from fractions import Fraction

from amaranth.hdl import Const, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...dsl.formats import FloatFormat, NxFPFormat, recycled_value
from ...dsl.formats.mx import E8M0_BIAS, E8M0_NAN
from ..checks import check_bool, check_int, silence_unused
from ._common import float_fields, range_shape

__all__ = ["NxFPDecoder"]


def _exact_sig_exp(value: float) -> tuple[int, int]:
    """``(sig, exp)`` with ``|value| = sig * 2**exp`` and ``sig`` odd (``value`` nonzero)."""
    frac = Fraction(abs(value))
    sig, den = frac.numerator, frac.denominator
    exp = -(den.bit_length() - 1)
    while sig % 2 == 0:
        sig //= 2
        exp += 1
    return sig, exp


class NxFPDecoder(wiring.Component):
    """Decode NxFP element codes with their block's scale and tag, exactly.

    On every rising edge of the ``sync`` domain::

        if valid:
            sign, mantissa, exponent <= the decoded value of (code, scale, tag)
            nan                      <= scale exponent field == 0xFF or code is a NaN code
        out_valid <= valid

    so the value of a code appears one clock after it (registers reset to 0). A zero gives
    ``mantissa = 0`` with the code's sign (-0 stays -0 without Code Recycling). A tag that
    names no candidate decodes to +0, as the golden model does.

    Parameters
    ----------
    bits : {4, 6, 8}
        Element bits.
    nano_mantissa_bits : int
        Mantissa bits ``k`` of the E8Mk shared scale, 0..7 (0 is MX's E8M0).
    adaptive_microexponent : bool
        Per-block choice among the candidate element formats (adds the ``tag`` port).
    code_recycling : bool
        The negative-zero code means the recycled value.

    Attributes
    ----------
    code : Signal(bits), in
        Element code.
    scale : Signal(8 + nano_mantissa_bits), in
        The block's shared scale code ``(E + 127) << k | M``.
    tag : Signal(tag_bits), in
        The block's element-format index (only with ``adaptive_microexponent``).
    valid : Signal(1), in
        Decode this cycle's code.
    sign : Signal(1), out
    mantissa : Signal(unsigned), out
    exponent : Signal(signed), out
        The value, ``(-1)**sign * mantissa * 2**exponent``.
    nan : Signal(1), out
        The value is NaN (NaN scale, or the E4M3 NaN code).
    out_valid : Signal(1), out
        ``valid``, one clock later.
    """

    def __init__(self, *, bits: int, nano_mantissa_bits: int = 0,
                 adaptive_microexponent: bool = False, code_recycling: bool = False) -> None:
        try:
            if isinstance(bits, bool) or not isinstance(bits, int):
                raise TypeError(f"bits must be an int, not {bits!r}")
            if bits not in (4, 6, 8):
                raise ValueError(f"bits must be one of (4, 6, 8), not {bits!r}")
            check_int("nano_mantissa_bits", nano_mantissa_bits, 0, 7)
            check_bool("adaptive_microexponent", adaptive_microexponent)
            check_bool("code_recycling", code_recycling)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self._format = NxFPFormat(bits=bits, nano_mantissa_bits=nano_mantissa_bits,
                                  adaptive_microexponent=adaptive_microexponent,
                                  code_recycling=code_recycling)
        self._candidates: tuple[FloatFormat, ...] = self._format.candidates
        k = nano_mantissa_bits
        # Per candidate: significand width and exponent range (element exponent only).
        sig_width, exp_low, exp_high = 1, 0, 0
        self._recycled: list[tuple[int, int]] = []
        for t, elem in enumerate(self._candidates):
            assert elem.special != "ieee", "NxFP candidates have no infinities"
            low = elem.emin - elem.man_bits  # subnormals and exponent field 1
            high = (2**elem.exp_bits - 1) - elem.exponent_bias - elem.man_bits
            sig_width = max(sig_width, elem.man_bits + 1)
            if code_recycling:
                self._recycled.append(_exact_sig_exp(recycled_value(elem)))
                sig, exp = self._recycled[t]
                sig_width = max(sig_width, sig.bit_length())
                low, high = min(low, exp), max(high, exp)
            exp_low = low if t == 0 else min(exp_low, low)
            exp_high = high if t == 0 else max(exp_high, high)
        self._sig_width = sig_width
        signature = {
            "code": In(unsigned(bits)),
            "scale": In(unsigned(8 + k)),
        }
        if self._format.tag_bits:
            signature["tag"] = In(unsigned(self._format.tag_bits))
        signature |= {
            "valid": In(1),
            "sign": Out(1),
            "mantissa": Out(unsigned(sig_width + k + 1)),
            "exponent": Out(range_shape(exp_low - E8M0_BIAS - k,
                                        exp_high + E8M0_NAN - E8M0_BIAS - k)),
            "nan": Out(1),
            "out_valid": Out(1),
        }
        super().__init__(signature)

    @property
    def format(self) -> NxFPFormat:
        """The golden format this decoder implements."""
        return self._format

    @property
    def candidates(self) -> tuple[FloatFormat, ...]:
        """Element formats the tag selects among (one without Adaptive Microexponent)."""
        return self._candidates

    def elaborate(self, platform) -> Module:
        m = Module()
        fmt, k = self._format, self._format.nano_mantissa_bits
        tag = getattr(self, "tag", Const(0, 1))

        # Each candidate reads the code; the tag picks one (out-of-range tags give +0).
        sign = Signal()
        sig = Signal(self._sig_width)
        elem_exp = Signal(self.exponent.shape())
        elem_nan = Signal()
        is_neg_zero = self.code == fmt.neg_zero_code
        with m.Switch(tag):
            for t, elem in enumerate(self._candidates):
                with m.Case(t):
                    s, exp_field, man_field = float_fields(self.code, elem.exp_bits,
                                                           elem.man_bits)
                    normal = exp_field != 0
                    m.d.comb += [
                        sign.eq(s),
                        sig.eq(Mux(normal, man_field | (1 << elem.man_bits), man_field)),
                        elem_exp.eq(Mux(normal, exp_field, 1) - (elem.exponent_bias + elem.man_bits)),
                    ]
                    if elem.special == "nan_only":
                        top_man = 2**elem.man_bits - 1
                        m.d.comb += elem_nan.eq((exp_field == 2**elem.exp_bits - 1)
                                                & (man_field == top_man))
                    if fmt.code_recycling:
                        rec_sig, rec_exp = self._recycled[t]
                        with m.If(is_neg_zero):
                            m.d.comb += [sign.eq(1), sig.eq(rec_sig), elem_exp.eq(rec_exp)]
            with m.Default():
                m.d.comb += [sign.eq(0), sig.eq(0), elem_exp.eq(0)]

        # Scale E8Mk: 2**(E - 127) * (1 + M / 2**k) = (2**k + M) * 2**(E - 127 - k).
        scale_exp_field = self.scale[k:]
        scale_sig = self.scale[:k] | (1 << k) if k else Const(1, 1)
        with m.If(self.valid):
            m.d.sync += [
                self.sign.eq(sign),
                self.mantissa.eq(sig * scale_sig),
                self.exponent.eq(elem_exp + scale_exp_field - (E8M0_BIAS + k)),
                self.nan.eq((scale_exp_field == E8M0_NAN) | elem_nan),
            ]
        m.d.sync += self.out_valid.eq(self.valid)
        return m

    def __repr__(self) -> str:
        f = self._format
        return (f"NxFPDecoder(bits={f.bits}, nano_mantissa_bits={f.nano_mantissa_bits}, "
                f"adaptive_microexponent={f.adaptive_microexponent}, "
                f"code_recycling={f.code_recycling})")
