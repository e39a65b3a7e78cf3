"""EdgeBERT's AdaptivFloat(8, 3) codec: the numpy functions against per-element float64
references written from the rules with math.frexp/ldexp, exhaustively; the decoded values
against archsim's own AdaptivFloat format; the Amaranth expressions == numpy, exhaustively
in pysim."""

from __future__ import annotations

import math

import numpy as np
import pytest
from amaranth.hdl import Cat, Const, Module, Signal, signed
from amaranth.sim import Simulator

from archsim.dsl.formats import AdaptivFloat, AdaptivFloatEncoding
from archsim.hw.accel.adpfloat_codec import (
    ADPFLOAT_BIAS_RANGE,
    ADPFLOAT_OFFSET,
    adpfloat_choose_bias,
    adpfloat_from_fixed,
    adpfloat_from_fixed_hw,
    adpfloat_from_float,
    adpfloat_to_fixed,
    adpfloat_to_fixed_hw,
    adpfloat_value,
)

CODES = np.arange(256)
ALL_Y = np.arange(-(1 << 15), 1 << 15)
FRAC_BIAS = [(0, 0), (10, 3), (12, 5), (15, 7), (4, 0), (2, 7)]


# --- independent references (one element at a time, from the written rules) -------------

def ref_value(code: int, bias: int) -> float:
    sign, exp, man = code >> 7, (code >> 4) & 7, code & 15
    if exp == 0 and man == 0:
        return 0.0
    mag = math.ldexp(1.0 + man / 16.0, exp + bias - 10)
    return -mag if sign else mag


def ref_from_float(x: float, bias: int) -> int:
    if x == 0.0:
        return 0
    frac, e = math.frexp(abs(x))       # |x| = frac * 2**e, frac in [0.5, 1)
    exp_unb = e - 1
    r = math.floor(math.ldexp(frac, 5) + 0.5)   # 1.mmmm * 16 rounded, ties away: 16..32
    if r == 32:
        r, exp_unb = 16, exp_unb + 1
    field = exp_unb - bias + 10
    if field < 0:
        return 0
    code = 0x7F if field > 7 else (field << 4) | (r - 16)
    if code == 0:
        return 0
    return code | (0x80 if x < 0 else 0)


def ref_to_fixed(code: int, frac: int, bias: int) -> int:
    v = ref_value(code, bias)
    mag = min(math.floor(math.ldexp(abs(v), frac)), 32767)
    return -mag if v < 0 else mag


def ref_from_fixed(y: int, frac: int, bias: int) -> int:
    return ref_from_float(math.ldexp(float(y), -frac), bias)  # y * 2**-frac is exact


# --- numpy functions vs references -------------------------------------------------------

def test_constants():
    assert ADPFLOAT_OFFSET == -10 and ADPFLOAT_BIAS_RANGE == (0, 7)


@pytest.mark.parametrize("bias", range(8))
def test_value_all_codes(bias):
    got = adpfloat_value(CODES, bias=bias)
    assert got.dtype == np.float64
    assert got.tolist() == [ref_value(int(c), bias) for c in CODES]


@pytest.mark.parametrize("bias", range(8))
def test_value_set_equals_archsim_adaptivfloat(bias):
    # the same format, with exp_bias = bias + offset (the exponent of field 0)
    fmt = AdaptivFloat(n=8, e=3)
    theirs = fmt.decode(AdaptivFloatEncoding(codes=CODES, exp_bias=bias + ADPFLOAT_OFFSET))
    assert np.array_equal(adpfloat_value(CODES, bias=bias), theirs)
    assert adpfloat_value(np.array([0x7F]), bias=bias)[0] == \
        fmt.value_range(bias + ADPFLOAT_OFFSET)[1]


@pytest.mark.parametrize("frac, bias", [(f, b) for f in range(16) for b in range(8)])
def test_to_fixed_all_codes(frac, bias):
    got = adpfloat_to_fixed(CODES, frac=frac, bias=bias)
    assert got.tolist() == [ref_to_fixed(int(c), frac, bias) for c in CODES]


@pytest.mark.parametrize("frac, bias", FRAC_BIAS)
def test_from_fixed_all_y(frac, bias):
    got = adpfloat_from_fixed(ALL_Y, frac=frac, bias=bias)
    expected = [ref_from_fixed(int(y), frac, bias) for y in ALL_Y]
    assert got.tolist() == expected
    # the cases the rules single out all occur: flush, saturation both ways, carries
    assert 0x7F in expected and 0xFF in expected or frac + bias > 8


def test_from_fixed_saturates_with_the_sign():
    # frac 0, bias 0: the top binade is 2**-3..2**-2, so |y| >= 1 overflows
    assert adpfloat_from_fixed(np.array([1, -1, 32767, -32768]), frac=0, bias=0).tolist() \
        == [0x7F, 0xFF, 0x7F, 0xFF]


def test_from_fixed_round_half_up_carry_and_flush():
    # frac 10, bias 3: exponent field = E - 10 - 3 + 10 = E - 3
    # y = 66 = 0b100_0010: 1.000010 * 2**6, the half bit set, rounds up to 1.0001: field 3
    assert adpfloat_from_fixed(np.array([66, -66]), frac=10, bias=3).tolist() == \
        [(3 << 4) | 1, 0x80 | (3 << 4) | 1]
    # y = 63 = 0b11_1111: 1.11111 * 2**5 rounds to 2.0 * 2**5: field 6 - 3, man 0
    assert adpfloat_from_fixed(np.array([63]), frac=10, bias=3).tolist() == [(3 << 4)]
    # y = 8 (E = 3): field 0, man 0 -> zero; y = 4 (E = 2): field -1 -> flush
    assert adpfloat_from_fixed(np.array([8, -8, 4, -4, 9, 0]), frac=10, bias=3).tolist() == \
        [0, 0, 0, 0, 0x02, 0]


def _from_float_probes(bias: int) -> np.ndarray:
    grid = np.ldexp(16.0 + (CODES[:128] & 15), (CODES[:128] >> 4) + bias - 14)
    mids = (grid[:-1] + grid[1:]) / 2
    pts = np.concatenate([grid, mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf),
                          grid * 3, grid / 3, [0.0, 1e-30, 1e30, grid[-1] * 1.01]])
    rng = np.random.default_rng(bias)
    pts = np.concatenate([pts, np.exp2(rng.uniform(bias - 13, bias - 1, 4000))])
    return np.concatenate([pts, -pts])


@pytest.mark.parametrize("bias", range(8))
def test_from_float_vs_reference(bias):
    x = _from_float_probes(bias)
    got = adpfloat_from_float(x, bias=bias)
    assert got.tolist() == [ref_from_float(float(v), bias) for v in x]


@pytest.mark.parametrize("bias", range(8))
def test_from_float_round_trips_every_code(bias):
    nonzero = CODES[(CODES & 0x7F) != 0]
    assert adpfloat_from_float(adpfloat_value(nonzero, bias=bias), bias=bias).tolist() == \
        nonzero.tolist()
    assert adpfloat_from_float(adpfloat_value([0, 0x80], bias=bias), bias=bias).tolist() == [0, 0]


@pytest.mark.parametrize("bias", [0, 4, 7])
def test_from_float_matches_adaptivfloat_rna_in_the_normal_range(bias):
    # archsim's format with ties-away rounding agrees wherever its flush rule is not involved
    fmt = AdaptivFloat(n=8, e=3, rounding="rna")
    v_min, v_max = fmt.value_range(bias + ADPFLOAT_OFFSET)
    x = _from_float_probes(bias)
    x = x[(np.abs(x) >= v_min) & (np.abs(x) <= v_max)]
    theirs = fmt.encode(x, exp_bias=bias + ADPFLOAT_OFFSET).codes.astype(np.int64)
    assert np.array_equal(adpfloat_from_float(x, bias=bias), theirs)


def test_choose_bias():
    # max|x| in [2**(b - 3), 2**(b - 2)) is the top binade of bias b
    assert adpfloat_choose_bias(np.array([0.3, -1.0])) == 3
    assert adpfloat_choose_bias(np.array([-0.99])) == 2
    assert adpfloat_choose_bias(np.array([0.125])) == 0
    assert adpfloat_choose_bias(np.array([0.01])) == 0       # clipped
    assert adpfloat_choose_bias(np.array([31.0])) == 7
    assert adpfloat_choose_bias(np.array([1000.0])) == 7     # clipped
    assert adpfloat_choose_bias(np.zeros(3)) == 0
    for b in range(8):
        top = adpfloat_value(np.array([0x70, 0x7F]), bias=b)
        assert [adpfloat_choose_bias(top[:1]), adpfloat_choose_bias(top[1:])] == [b, b]


@pytest.mark.parametrize("call, exc, message", [
    (lambda: adpfloat_value([1], bias=8), ValueError, "bias must be in 0..7, not 8"),
    (lambda: adpfloat_value([256], bias=0), ValueError, "codes must lie in 0..255, not 256..256"),
    (lambda: adpfloat_value([1.5], bias=0), TypeError, "codes must be integers, not float64"),
    (lambda: adpfloat_to_fixed([1], frac=16, bias=0), ValueError,
     "frac must be in 0..15, not 16"),
    (lambda: adpfloat_from_fixed([40000], frac=0, bias=0), ValueError,
     "y must lie in -32768..32767, not 40000..40000"),
    (lambda: adpfloat_from_float([1.0], bias=True), TypeError, "bias must be an int, not True"),
    (lambda: adpfloat_from_float([np.nan], bias=0), ValueError,
     "x must be finite: AdaptivFloat has no NaN or infinity"),
])
def test_bad_input_is_named(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


# --- Amaranth == numpy, exhaustively in pysim --------------------------------------------

def _simulate(m: Module, bench) -> None:
    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("with_module", [True, False])
def test_to_fixed_hw_all_codes_frac_bias(with_module):
    m = Module()
    frac, bias = Signal(4), Signal(3)
    outs = []
    for c in range(256):
        out = Signal(signed(16), name=f"y{c}")
        m.d.comb += out.eq(adpfloat_to_fixed_hw(Const(c, 8), frac, bias,
                                                m=m if with_module else None))
        outs.append(out)
    mismatches = []

    async def bench(ctx):
        for f in range(16):
            for b in range(8):
                ctx.set(frac, f)
                ctx.set(bias, b)
                got = [ctx.get(o) for o in outs]
                if got != adpfloat_to_fixed(CODES, frac=f, bias=b).tolist():
                    mismatches.append((f, b))

    _simulate(m, bench)
    assert mismatches == []


@pytest.mark.parametrize("frac, bias", [(10, 3), (0, 0), (15, 7)])
def test_from_fixed_hw_all_y(frac, bias):
    # every y; frac 10 is the datapath's own (PPU.h's kActNumFrac)
    m = Module()
    f, b = frac, bias
    high, frac, bias = Signal(8), Signal(4), Signal(3)
    outs = []
    for low in range(256):
        out = Signal(8, name=f"c{low}")
        m.d.comb += out.eq(adpfloat_from_fixed_hw(Cat(Const(low, 8), high), frac, bias, m=m))
        outs.append(out)
    mismatches = []
    expected = adpfloat_from_fixed(ALL_Y, frac=f, bias=b)

    async def bench(ctx):
        ctx.set(frac, f)
        ctx.set(bias, b)
        for h in range(256):
            ctx.set(high, h)
            y0 = (h << 8) - (65536 if h >= 128 else 0)
            got = [ctx.get(o) for o in outs]
            if got != expected[y0 + 32768:y0 + 32768 + 256].tolist():
                mismatches.append(h)

    _simulate(m, bench)
    assert mismatches == []


def _edge_ys() -> list[int]:
    """Per binade: its ends, the values either side of the rounding carry, and a few more;
    both signs (and -32768)."""
    ys = {1, 2, 3, 32767, -32768}
    for e in range(16):
        lo = 1 << e
        for v in (lo, lo + 1, 2 * lo - 1, lo + lo // 2, lo + lo // 32, lo + lo // 64,
                  2 * lo - lo // 32, 2 * lo - lo // 64 - 1):
            if 0 < v < 32768:
                ys.update((v, -v))
    return sorted(ys)


@pytest.mark.parametrize("with_module", [True, False])
def test_from_fixed_hw_every_frac_bias(with_module):
    # with a module: the edge values; as one expression (slow to simulate): a few of them
    ys = _edge_ys() if with_module else _edge_ys()[::12]
    m = Module()
    frac, bias = Signal(4), Signal(3)
    outs = []
    for i, y in enumerate(ys):
        out = Signal(8, name=f"c{i}")
        m.d.comb += out.eq(adpfloat_from_fixed_hw(Const(y & 0xFFFF, 16), frac, bias,
                                                  m=m if with_module else None))
        outs.append(out)
    mismatches = []

    async def bench(ctx):
        for f in range(16):
            for b in range(8):
                ctx.set(frac, f)
                ctx.set(bias, b)
                got = [ctx.get(o) for o in outs]
                if got != adpfloat_from_fixed(np.array(ys), frac=f, bias=b).tolist():
                    mismatches.append((f, b))

    _simulate(m, bench)
    assert mismatches == []


def test_hw_functions_accept_wider_values():
    # the functions take the low bits of wider inputs (an argument word, a register)
    m = Module()
    code, frac, bias, y = Signal(32), Signal(32), Signal(32), Signal(32)
    fx, cd = Signal(signed(16)), Signal(8)
    m.d.comb += [fx.eq(adpfloat_to_fixed_hw(code, frac, bias)),
                 cd.eq(adpfloat_from_fixed_hw(y, frac, bias))]
    seen = []

    async def bench(ctx):
        ctx.set(code, 0x100 | 0xC5)
        ctx.set(frac, 10)
        ctx.set(bias, 3)
        ctx.set(y, (1 << 20) | (-1000 & 0xFFFF))
        seen.extend([ctx.get(fx), ctx.get(cd)])

    _simulate(m, bench)
    assert seen == [adpfloat_to_fixed([0xC5], frac=10, bias=3)[0],
                    adpfloat_from_fixed([-1000], frac=10, bias=3)[0]]
