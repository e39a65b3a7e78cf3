"""A pipelined IEEE-754 binary floating-point adder and its bit-level golden model.

:class:`FloatAdder` adds two numbers of a binary format with ``exp_bits`` exponent and
``man_bits`` fraction bits (default binary32: 8, 23), one addition per cycle, with a fixed
latency of :attr:`FloatAdder.LATENCY` (2) cycles: operands presented on ``a`` and ``b`` in
cycle ``t`` give their sum on ``z`` from cycle ``t + 2`` (two register stages: align and add,
then normalize, round and pack). Semantics (IEEE 754-2019, section 6 and 7):

* rounding to nearest, ties to even; subnormal inputs and outputs (no flush to zero);
* an exact zero sum of operands of opposite signs is ``+0`` (``x + -x = +0``), and
  ``-0 + -0 = -0``;
* overflow rounds to infinity of the sum's sign; ``inf + x = inf``; ``inf + -inf`` is NaN;
* every NaN result is the one canonical quiet NaN :func:`canonical_nan`: sign 0, exponent
  all ones, only the fraction's top bit set (``0x7FC00000`` in binary32, ``0x7E`` in e5m2),
  whatever the input NaNs' payloads.

:func:`float_add_bits` is the golden model on raw bit patterns, written with Python ints.
The datapath keeps three bits below the larger operand's LSB (guard, round and a sticky OR
of the rest), which is enough for a correctly rounded sum (Goldberg 1991, section 1.4 and
the theorem on guard digits; the classic GRS argument).
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..checks import silence_unused

__all__ = ["FloatAdder", "float_add_bits", "canonical_nan", "check_format"]

# Extra bits below the LSB: guard, round, sticky.
_GRS = 3


def check_format(exp_bits: object, man_bits: object) -> tuple[int, int]:
    """Return ``(exp_bits, man_bits)`` or raise ``ValueError`` naming the bad one
    (``exp_bits`` in 2..11, ``man_bits`` in 1..52)."""
    for name, value, lo, hi in (("exp_bits", exp_bits, 2, 11), ("man_bits", man_bits, 1, 52)):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"{name} must be an int in {lo}..{hi}, not {value!r}")
    assert isinstance(exp_bits, int) and isinstance(man_bits, int)
    return exp_bits, man_bits


def canonical_nan(*, exp_bits: int = 8, man_bits: int = 23) -> int:
    """The quiet NaN every NaN result is: sign 0, exponent all ones, fraction ``100...0``."""
    exp_bits, man_bits = check_format(exp_bits, man_bits)
    return (((1 << exp_bits) - 1) << man_bits) | (1 << (man_bits - 1))


def float_add_bits(a: int, b: int, *, exp_bits: int = 8, man_bits: int = 23) -> int:
    """``a + b`` of two raw bit patterns of the format, rounded to nearest even (see the
    module docstring for zeros, infinities and NaNs)."""
    exp_bits, man_bits = check_format(exp_bits, man_bits)
    width = 1 + exp_bits + man_bits
    for name, value in (("a", a), ("b", b)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << width:
            raise ValueError(f"{name} must be a {width}-bit pattern, not {value!r}")
    e_max = (1 << exp_bits) - 1
    frac_mask = (1 << man_bits) - 1
    sa, ea, fa = a >> (width - 1), (a >> man_bits) & e_max, a & frac_mask
    sb, eb, fb = b >> (width - 1), (b >> man_bits) & e_max, b & frac_mask
    nan = canonical_nan(exp_bits=exp_bits, man_bits=man_bits)
    inf = e_max << man_bits
    if (ea == e_max and fa) or (eb == e_max and fb):
        return nan
    if ea == e_max or eb == e_max:
        if ea == e_max and eb == e_max and sa != sb:
            return nan
        sign = sa if ea == e_max else sb
        return (sign << (width - 1)) | inf
    # magnitudes compare as the exponent-and-fraction bits
    if (b & ~(1 << (width - 1))) > (a & ~(1 << (width - 1))):
        sa, ea, fa, sb, eb, fb = sb, eb, fb, sa, ea, fa
    ma = ((1 << man_bits) if ea else 0) | fa
    mb = ((1 << man_bits) if eb else 0) | fb
    ea, eb = max(ea, 1), max(eb, 1)  # a subnormal has the exponent of the smallest normal
    d = ea - eb
    xa = ma << _GRS
    xb_full = mb << _GRS
    xb = xb_full >> d
    if xb << d != xb_full:
        xb |= 1  # sticky
    total = xa - xb if sa != sb else xa + xb
    if total == 0:
        return (sa & sb) << (width - 1)
    exp = ea
    if total >> (man_bits + _GRS + 1):  # carry out: one right shift, keep the sticky
        total = (total >> 1) | (total & 1)
        exp += 1
    else:
        while not total >> (man_bits + _GRS) and exp > 1:
            total <<= 1
            exp -= 1
    mant = total >> _GRS
    guard = (total >> (_GRS - 1)) & 1
    rest = total & ((1 << (_GRS - 1)) - 1)
    if guard and (rest or mant & 1):
        mant += 1
        if mant >> (man_bits + 1):
            mant >>= 1
            exp += 1
    if exp >= e_max:
        return (sa << (width - 1)) | inf
    biased = exp if mant >> man_bits else 0  # no hidden bit: a subnormal (exp is 1)
    return (sa << (width - 1)) | (biased << man_bits) | (mant & frac_mask)


class FloatAdder(wiring.Component):
    """A two-stage pipelined adder of one binary format (module docstring).

    Parameters
    ----------
    exp_bits : int
        Exponent bits, 2..11 (default 8).
    man_bits : int
        Fraction bits (without the hidden bit), 1..52 (default 23).

    Members
    -------
    a, b : In(width)
        Raw operand bit patterns, sampled every cycle.
    z : Out(width)
        ``float_add_bits(a, b)`` of the operands of :attr:`LATENCY` cycles before.
    """

    #: Cycles from operands to sum.
    LATENCY = 2

    def __init__(self, *, exp_bits: int = 8, man_bits: int = 23) -> None:
        try:
            exp_bits, man_bits = check_format(exp_bits, man_bits)
        except ValueError:
            silence_unused(self)
            raise
        self.exp_bits, self.man_bits = exp_bits, man_bits
        self.width = 1 + exp_bits + man_bits
        super().__init__({"a": In(self.width), "b": In(self.width), "z": Out(self.width)})

    @property
    def latency(self) -> int:
        """Cycles from operands to sum (:attr:`LATENCY`)."""
        return self.LATENCY

    def elaborate(self, platform: object) -> Module:
        """Stage 1: unpack, order by magnitude, align with sticky, add; stage 2: normalize,
        round to nearest even, pack (the same steps as :func:`float_add_bits`)."""
        m = Module()
        eb_, mb_, w = self.exp_bits, self.man_bits, self.width
        e_max = (1 << eb_) - 1
        xw = mb_ + 1 + _GRS           # aligned significand with the GRS bits
        sw = xw + 1                   # and a carry
        # -- stage 1 ---------------------------------------------------------------------
        mag_a, mag_b = self.a[:w - 1], self.b[:w - 1]
        swap = Signal()
        m.d.comb += swap.eq(mag_b > mag_a)
        big, small = Signal(w), Signal(w)
        m.d.comb += [big.eq(Mux(swap, self.b, self.a)), small.eq(Mux(swap, self.a, self.b))]
        s_big, e_big, f_big = big[w - 1], big[mb_:w - 1], big[:mb_]
        s_small, e_small, f_small = small[w - 1], small[mb_:w - 1], small[:mb_]
        a_nan = (self.a[mb_:w - 1] == e_max) & (self.a[:mb_] != 0)
        b_nan = (self.b[mb_:w - 1] == e_max) & (self.b[:mb_] != 0)
        a_inf = (self.a[mb_:w - 1] == e_max) & (self.a[:mb_] == 0)
        b_inf = (self.b[mb_:w - 1] == e_max) & (self.b[:mb_] == 0)
        m_big = Cat(f_big, e_big != 0)
        m_small = Cat(f_small, e_small != 0)
        x_big = Signal(xw)
        x_small_full = Signal(xw)
        m.d.comb += [x_big.eq(m_big << _GRS), x_small_full.eq(m_small << _GRS)]
        e1_big = Mux(e_big == 0, 1, e_big)
        e1_small = Mux(e_small == 0, 1, e_small)
        d = Signal(eb_)
        m.d.comb += d.eq(e1_big - e1_small)
        # a shift of xw or more leaves only the sticky bit
        dmax = xw
        dc = Signal(range(dmax + 1))
        m.d.comb += dc.eq(Mux(d > dmax, dmax, d))
        shifted = Signal(xw)
        m.d.comb += shifted.eq(x_small_full >> dc)
        sticky = Signal()
        m.d.comb += sticky.eq((shifted << dc)[:xw] != x_small_full)
        x_small = Cat(shifted[0] | sticky, shifted[1:])
        total = Signal(sw)
        m.d.comb += total.eq(Mux(s_big != s_small, x_big - x_small, x_big + x_small))

        r_total, r_exp, r_sign = Signal(sw), Signal(eb_), Signal()
        r_nan, r_inf, r_zero_sign = Signal(), Signal(), Signal()
        r_inf_sign = Signal()
        m.d.sync += [
            r_total.eq(total), r_exp.eq(e1_big), r_sign.eq(s_big),
            r_nan.eq(a_nan | b_nan | (a_inf & b_inf & (self.a[w - 1] != self.b[w - 1]))),
            r_inf.eq(a_inf | b_inf),
            r_inf_sign.eq(Mux(a_inf, self.a[w - 1], self.b[w - 1])),
            r_zero_sign.eq(self.a[w - 1] & self.b[w - 1]),
        ]
        # -- stage 2 ---------------------------------------------------------------------
        carry = r_total[sw - 1]
        # leading zeros below the carry bit, counted down from the hidden-bit position
        lz = Signal(range(xw + 1))
        m.d.comb += lz.eq(xw)
        for i in range(xw):  # the highest set bit wins: later assignments override
            with m.If(r_total[i]):
                m.d.comb += lz.eq(xw - 1 - i)
        shift = Signal(range(xw + 1))
        limit = r_exp - 1
        m.d.comb += shift.eq(Mux(lz > limit, limit, lz))
        norm = Signal(sw)
        exp = Signal(eb_ + 2)
        with m.If(carry):
            m.d.comb += [norm.eq(Cat(r_total[0] | r_total[1], r_total[2:])),
                         exp.eq(r_exp + 1)]
        with m.Else():
            m.d.comb += [norm.eq((r_total << shift)[:sw]), exp.eq(r_exp - shift)]
        mant = norm[_GRS:xw]                  # hidden bit and fraction
        guard = norm[_GRS - 1]
        rest = norm[:_GRS - 1] != 0
        up = guard & (rest | mant[0])
        rounded = Signal(mb_ + 2)
        m.d.comb += rounded.eq(mant + up)
        mant_f, exp_f = Signal(mb_ + 1), Signal(eb_ + 2)
        with m.If(rounded[mb_ + 1]):
            m.d.comb += [mant_f.eq(rounded[1:]), exp_f.eq(exp + 1)]
        with m.Else():
            m.d.comb += [mant_f.eq(rounded[:mb_ + 1]), exp_f.eq(exp)]
        biased = Mux(mant_f[mb_], exp_f, 0)
        inf_bits = Const(e_max << mb_, w - 1)
        nan_bits = Const(canonical_nan(exp_bits=eb_, man_bits=mb_), w)
        z = Signal(w)
        with m.If(r_nan):
            m.d.comb += z.eq(nan_bits)
        with m.Elif(r_inf):
            m.d.comb += z.eq(Cat(inf_bits, r_inf_sign))
        with m.Elif(r_total == 0):
            m.d.comb += z.eq(Cat(Const(0, w - 1), r_zero_sign))
        with m.Elif(exp_f >= e_max):
            m.d.comb += z.eq(Cat(inf_bits, r_sign))
        with m.Else():
            m.d.comb += z.eq(Cat(mant_f[:mb_], biased[:eb_], r_sign))
        m.d.sync += self.z.eq(z)
        return m
