"""An OCP MX block dot-product unit: one block of element products, accumulated exactly.

Each element code is decoded to an exact integer ``q`` with value ``q * 2**-k`` (``k`` is
fixed per element format: ``man_bits - emin`` for the float elements, 6 for INT8), exactly as
:func:`archsim.dsl.formats.mx_block_dot_exact` defines it. Float elements are multiplied in
floating-point form (significands multiplied, exponents added, then shifted into place), the
``block_size`` aligned products are summed by a balanced adder tree wide enough never to
overflow, and the two shared E8M0 scales set the exponent of the sum::

    block value = acc * 2**exp,    exp = (scale_a - 127) + (scale_b - 127) - 2 k
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...dsl.formats import MX_ELEMENTS, FixedPointElement
from ...dsl.formats.mx import E8M0_BIAS, E8M0_NAN
from ..checks import check_int, silence_unused
from ._common import balanced_sum, float_element, float_fields, float_significand, range_shape

__all__ = ["MXBlockDot"]


class MXBlockDot(wiring.Component):
    """Dot product of two MX blocks with an exact wide fixed-point accumulator.

    On every rising edge of the ``sync`` domain::

        if valid:
            acc     <= sum_i q(a[i]) * q(b[i])                  # exact, never wraps
            exp     <= scale_a + scale_b - 254 - 2 k
            special <= scale_a == 0xFF or scale_b == 0xFF or any element NaN/infinite
        out_valid <= valid

    so the outputs hold the result one clock after the operands (registers reset to 0).
    ``(acc, exp)`` equal ``mx_block_dot_exact``'s per-block integer sum and exponent; when
    ``special`` is high the block's value is not a finite number (NaN, or an infinity of
    E5M2) and ``acc``/``exp`` carry no meaning.

    Parameters
    ----------
    element : str
        MX element format, one of ``archsim.dsl.formats.MX_ELEMENTS``: ``fp8_e4m3``,
        ``fp8_e5m2``, ``fp6_e3m2``, ``fp6_e2m3``, ``fp4_e2m1``, ``int8``.
    block_size : int
        Elements per block (32 in the MX spec), 1..1024.

    Attributes
    ----------
    a, b : array of Signal(bits), in
        The two blocks' element codes (ports ``a__0`` ... ``a__{block_size-1}``).
    scale_a, scale_b : Signal(8), in
        The blocks' E8M0 shared scales (bias 127, 0xFF is NaN).
    valid : Signal(1), in
        Capture this cycle's result.
    acc : Signal(signed(acc_width)), out
        Exact sum of the element-integer products.
    exp : Signal(signed), out
        Exponent of ``acc``'s least significant bit.
    special : Signal(1), out
        The result is NaN or infinite.
    out_valid : Signal(1), out
        ``valid``, one clock later.
    """

    def __init__(self, *, element: str, block_size: int = 32) -> None:
        try:
            if not isinstance(element, str):
                raise TypeError(f"element must be a str, not {element!r}")
            if element not in MX_ELEMENTS:
                raise ValueError(f"element must be one of {tuple(MX_ELEMENTS)}, not {element!r}")
            self._element = element
            self._block_size = check_int("block_size", block_size, 1, 1024)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        elem = MX_ELEMENTS[element]
        self._bits = elem.bits
        if isinstance(elem, FixedPointElement):
            self._k = elem.frac_bits
            self._product_width = 2 * elem.bits  # signed: (-128)**2 needs 2 bits - 1 + sign
        else:
            elem = float_element(elem, what=f"MX element {element!r}")
            self._k = elem.man_bits - elem.emin
            # (2**(m+1) - 1)**2 shifted by two exponents of up to 2**E - 2, plus a sign.
            self._product_width = 2 * (elem.man_bits + 1) + 2 * (2**elem.exp_bits - 2) + 1
        self._acc_width = self._product_width + (block_size - 1).bit_length()
        low = -2 * E8M0_BIAS - 2 * self._k
        super().__init__({
            "a": In(unsigned(self._bits)).array(block_size),
            "b": In(unsigned(self._bits)).array(block_size),
            "scale_a": In(unsigned(8)),
            "scale_b": In(unsigned(8)),
            "valid": In(1),
            "acc": Out(signed(self._acc_width)),
            "exp": Out(range_shape(low, low + 2 * E8M0_NAN)),
            "special": Out(1),
            "out_valid": Out(1),
        })

    @property
    def element(self) -> str:
        """The MX element format's name."""
        return self._element

    @property
    def block_size(self) -> int:
        """Elements per block."""
        return self._block_size

    @property
    def k(self) -> int:
        """Fraction bits of the element integers: element value = ``q * 2**-k``."""
        return self._k

    @property
    def product_width(self) -> int:
        """Bits of one signed element-integer product."""
        return self._product_width

    @property
    def acc_width(self) -> int:
        """Accumulator width: ``product_width + ceil(log2(block_size))``, never overflows."""
        return self._acc_width

    def _products(self, m: Module) -> tuple[list[Signal], Signal]:
        """One signed product per lane, and whether any element is NaN or infinite."""
        elem = MX_ELEMENTS[self._element]
        products: list[Signal] = []
        not_finite = []
        for i in range(self._block_size):
            product = Signal(signed(self._product_width), name=f"product_{i}")
            if isinstance(elem, FixedPointElement):
                m.d.comb += product.eq(self.a[i].as_signed() * self.b[i].as_signed())
                products.append(product)
                continue
            elem = float_element(elem, what=f"MX element {self._element!r}")
            ebits, mbits = elem.exp_bits, elem.man_bits
            sign_a, exp_a, man_a = float_fields(self.a[i], ebits, mbits)
            sign_b, exp_b, man_b = float_fields(self.b[i], ebits, mbits)
            sig_a, shift_a = float_significand(exp_a, man_a, mbits)
            sig_b, shift_b = float_significand(exp_b, man_b, mbits)
            magnitude = Signal(self._product_width - 1, name=f"magnitude_{i}")
            m.d.comb += [
                magnitude.eq((sig_a * sig_b) << (shift_a + shift_b)),
                product.eq(Mux(sign_a ^ sign_b, -magnitude, magnitude)),
            ]
            products.append(product)
            top = 2**ebits - 1
            for exp_field, man_field in ((exp_a, man_a), (exp_b, man_b)):
                if elem.special == "ieee":  # all-ones exponent: infinity or NaN
                    not_finite.append(exp_field == top)
                elif elem.special == "nan_only":  # S.1111.111 only
                    not_finite.append((exp_field == top) & (man_field == 2**mbits - 1))
        any_special = Signal()
        if not_finite:
            flags = not_finite[0]
            for flag in not_finite[1:]:
                flags = flags | flag
            m.d.comb += any_special.eq(flags)
        return products, any_special

    def elaborate(self, platform) -> Module:
        m = Module()
        products, element_special = self._products(m)
        total = Signal(signed(self._acc_width))
        m.d.comb += total.eq(balanced_sum(products))
        nan_scale = (self.scale_a == E8M0_NAN) | (self.scale_b == E8M0_NAN)
        with m.If(self.valid):
            m.d.sync += [
                self.acc.eq(total),
                self.exp.eq(self.scale_a + self.scale_b - (2 * E8M0_BIAS + 2 * self._k)),
                self.special.eq(nan_scale | element_special),
            ]
        m.d.sync += self.out_valid.eq(self.valid)
        return m

    def __repr__(self) -> str:
        return f"MXBlockDot(element={self._element!r}, block_size={self._block_size})"
