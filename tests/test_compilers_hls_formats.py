"""Number formats as kernel element types: golden == RTL == exact arithmetic on fmt.decode."""

from fractions import Fraction

import numpy as np
import pytest

from archsim.dsl import Array, Fixed, FormatType, Int, UInt, bounded, kernel, pipeline
from archsim.dsl.formats import (
    FP4_E2M1,
    FP6_E2M3,
    FP6_E3M2,
    FP8_E4M3,
    FP8_E5M2,
    AdaptivFloat,
    MXFormat,
)
from archsim.errors import DSLError

AF8 = FormatType(AdaptivFloat(n=8, e=3), exp_bias=-7)
RNG = np.random.default_rng(44)


@kernel
def af_dot(a: Array[AF8, 64], b: Array[AF8, 64]) -> Fixed(40, 22):
    acc = Fixed(40, 22)(0)
    for i in pipeline(range(64), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def e4_mac(a: Array[FP8_E4M3, 32], b: Array[FP8_E4M3, 32], c: Int(8)) -> Fixed(56, 18):
    acc = Fixed(56, 18)(0)
    for i in pipeline(range(32), ii=1):
        acc += a[i] * b[i] + c
    return acc


def _codes(fmt, x):
    """Element codes of ``x``, independently of FormatType (the format's own encode)."""
    if isinstance(fmt, AdaptivFloat):
        return fmt.encode(x, exp_bias=AF8.exp_bias)
    return fmt.encode(x)


def _exact_dot(fmt, x, y):
    """sum(decode(x) * decode(y)) with Fractions (decode is exact in float64)."""
    dx = fmt.decode(_codes(fmt, x))
    dy = fmt.decode(_codes(fmt, y))
    return sum((Fraction(float(p)) * Fraction(float(q)) for p, q in zip(dx, dy, strict=True)),
               Fraction(0))


def _af_edges():
    v_min, v_max = AF8.format.value_range(AF8.exp_bias)
    base = np.array([0.0, v_max, -v_max, 10 * v_max, v_min, -v_min, v_min / 2, v_min / 3,
                     0.7 * v_min, 1.0, -1.0, 1.03125, 1.09375])  # last two: RNE ties
    return np.resize(base, 64), np.resize(base[::-1], 64)


@pytest.mark.parametrize("case", ["random", "edges"])
def test_adaptivfloat_dot_golden_rtl_exact(case):
    if case == "random":
        x, y = RNG.normal(0, 0.5, 64), RNG.normal(0, 0.5, 64)
    else:
        x, y = _af_edges()
    fmt = AF8.format
    expected = _exact_dot(fmt, x, y)
    golden = af_dot(x, y)
    assert Fraction(golden) == expected  # Fixed(40, 22) holds every such sum exactly
    d = af_dot.synthesize()
    r = d.simulate(x, y)
    assert r.value == golden
    assert r.cycles == d.cycles(x, y) == 64 + 2  # start + (64 - 1) * II + depth 2


def test_fp8_e4m3_mac_golden_rtl_exact():
    x = np.concatenate([RNG.normal(0, 30, 26), [448.0, -448.0, 2.0**-9, -(2.0**-9), 0.0, 240]])
    y = np.concatenate([RNG.normal(0, 30, 26), [448.0, 448.0, 2.0**-9, 3.0, -0.0, 0.3]])
    c = -7
    expected = _exact_dot(FP8_E4M3, x, y) + 32 * c
    golden = e4_mac(x, y, c)
    assert Fraction(golden) == expected
    d = e4_mac.synthesize()
    r = d.simulate(x, y, c)
    assert r.value == golden and r.cycles == d.cycles(x, y, c)


@pytest.mark.parametrize("fmt", [FP8_E4M3, FP8_E5M2, FP6_E3M2, FP6_E2M3, FP4_E2M1],
                         ids=lambda f: f.name)
def test_every_code_decodes_exactly(fmt):
    """The decode ROM, exhaustively: a kernel copies every finite code into a Fixed array."""
    codes = np.arange(2**fmt.bits)
    values = fmt.decode(codes)
    finite = values[np.isfinite(values)]
    ft = FormatType(fmt)
    n = len(finite)

    # the value type must hold every value exactly: checked against the values themselves
    assert all((Fraction(float(v)) * 2**ft.value_type.frac).denominator == 1 for v in finite)

    @kernel
    def copy(a: Array[fmt, n], y: Array[ft.value_type, n]):
        for i in pipeline(range(n), ii=1):
            y[i] = a[i]

    y = np.zeros(n)
    copy(finite, y)
    assert np.array_equal(y, finite)
    r = copy.synthesize().simulate(finite, np.zeros(n))
    assert np.array_equal(r.outputs["y"], finite)
    assert np.array_equal(r.outputs["a"], finite)  # read back through the format's decode


def test_value_types():
    # E4M3: smallest subnormal 2**-9, largest 448 < 2**9 -> 9 integer bits + sign
    assert FormatType(FP8_E4M3).value_type == Fixed(19, 9)
    # E2M1 {0, 0.5, ..., 6}: one fraction bit, 3 integer bits + sign
    assert FormatType(FP4_E2M1).value_type == Fixed(5, 1)
    # AdaptivFloat(8, 3), bias -7: lsb 2**(-7-4), largest 2**0 * (2 - 2**-4) < 2
    assert AF8.value_type == Fixed(13, 11)
    assert Array[FP8_E4M3, 4].elem == FormatType(FP8_E4M3)


def test_format_arrays_are_read_only():
    def f(a: Array[FP8_E4M3, 4], b: Array[FP8_E4M3, 4]):
        for i in range(4):
            b[i] = a[i]

    with pytest.raises(DSLError, match="array 'b' of fp8_e4m3 is read-only in kernels"):
        kernel(f)(np.zeros(4), np.zeros(4))


def test_local_format_array_is_rejected():
    def f(a: Array[FP8_E4M3, 4]) -> Fixed(19, 9):
        t = Array[FP8_E4M3, 4]()
        return a[0] + t[0]

    with pytest.raises(DSLError, match="local array 't': format arrays are read-only"):
        kernel(f)(np.zeros(4))


def test_nan_inputs_are_rejected():
    with pytest.raises(DSLError, match="fp8_e4m3: input 500.0 encodes to a NaN/infinity code"):
        e4_mac(np.full(32, 500.0), np.zeros(32), 0)


def test_format_type_arguments():
    with pytest.raises(ValueError, match="adaptivfloat8_e3 needs a fixed integer exp_bias"):
        FormatType(AdaptivFloat(n=8, e=3))
    with pytest.raises(ValueError, match="exp_bias applies to AdaptivFloat only"):
        FormatType(FP8_E4M3, exp_bias=3)
    with pytest.raises(ValueError, match="adaptivfloat10_e3 has 10 bits"):
        FormatType(AdaptivFloat(n=10, e=3), exp_bias=0)
    with pytest.raises(ValueError, match="FormatType takes a FloatFormat or an AdaptivFloat"):
        FormatType(MXFormat(element="fp8_e4m3"))


def test_unfixed_adaptivfloat_is_golden_only():
    """Without a fixed bias AdaptivFloat stays golden-only: float reads, per-tensor bias."""
    def fsum(x: Array[AdaptivFloat(n=8, e=3), 8]) -> Fixed(24, 12):
        s = 0.0
        for i in range(8):
            s += x[i]
        return s

    k = kernel(fsum)
    x = np.array([1.0, 0.5, -2.0, 1.5, 0.75, -0.25, 1.25, 0.125])  # all representable
    assert k(x) == float(x.sum())
    with pytest.raises(DSLError, match="element type adaptivfloat8_e3 has no hardware lowering"):
        k.synthesize()


@pytest.mark.slow
def test_formats_under_verilator():
    @kernel
    def mixed(a: Array[AF8, 16], b: Array[FP8_E4M3, 16]) -> (Fixed(48, 20), Fixed(19, 9),
                                                              UInt(5)):
        acc = Fixed(48, 20)(0)
        mx = Fixed(19, 9)(-448)
        for i in pipeline(range(16), ii=1):
            acc += a[i] * b[i]
            mx = max(mx, b[i])
        j = UInt(5)(0)  # a bounded while loop under Verilator too: first index of the max
        while bounded(b[j] != mx, max_iter=16):
            j += 1
        return acc, mx, j

    x = np.concatenate([RNG.normal(0, 0.5, 12), [1.9375, -1.9375, 0.0, 2.0**-11]])
    y = np.concatenate([RNG.normal(0, 50, 12), [448.0, -448.0, 2.0**-9, 0.0]])
    dx = AF8.format.decode(_codes(AF8.format, x))
    dy = FP8_E4M3.decode(FP8_E4M3.encode(y))
    exact = sum((Fraction(float(p)) * Fraction(float(q)) for p, q in zip(dx, dy, strict=True)),
                Fraction(0))
    golden = mixed(x, y)
    assert Fraction(golden[0]) == exact and golden[1] == dy.max()
    assert golden[2] == int(np.argmax(dy))
    d = mixed.synthesize()
    r = d.simulate(x, y, backend="verilator")
    assert r.value == golden and r.cycles == d.cycles(x, y)
