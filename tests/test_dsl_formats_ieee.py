"""IEEE-style floats: code tables against ml_dtypes/numpy, rounding modes, specials."""

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from archsim.dsl.formats import (
    BF16,
    FP4_E2M1,
    FP6_E2M3,
    FP6_E3M2,
    FP8_E4M3,
    FP8_E5M2,
    FP16,
    FP32,
    FloatFormat,
    FormatError,
    minifloat,
)

SMALL = [
    (FP8_E4M3, ml_dtypes.float8_e4m3fn),
    (FP8_E5M2, ml_dtypes.float8_e5m2),
    (FP6_E3M2, ml_dtypes.float6_e3m2fn),
    (FP6_E2M3, ml_dtypes.float6_e2m3fn),
    (FP4_E2M1, ml_dtypes.float4_e2m1fn),
]
ALL_ORACLES = SMALL + [(FP16, np.float16), (BF16, ml_dtypes.bfloat16)]
SETTINGS = settings(max_examples=60, deadline=None)


def _same(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(
        np.where(np.isnan(a), 0, a), np.where(np.isnan(b), 0, b)
    ) and np.array_equal(np.signbit(a[~np.isnan(a)]), np.signbit(b[~np.isnan(b)]))


@pytest.mark.parametrize(("fmt", "dt"), SMALL, ids=lambda v: getattr(v, "name", str(v)))
def test_every_code_decodes_like_ml_dtypes(fmt, dt):
    codes = np.arange(2**fmt.bits, dtype=np.uint8)
    assert _same(fmt.decode(codes), codes.view(dt).astype(np.float64))


@pytest.mark.parametrize(("fmt", "dt"), SMALL, ids=lambda v: getattr(v, "name", str(v)))
def test_every_code_round_trips(fmt, dt):
    codes = np.arange(2**fmt.bits)
    vals = fmt.decode(codes)
    finite = ~np.isnan(vals)
    assert np.array_equal(fmt.encode(vals[finite]), codes[finite])
    if fmt.has_nan:  # every NaN code decodes to NaN and NaN encodes to a NaN code
        assert np.isnan(fmt.decode(fmt.encode(np.nan)))


def test_fp16_and_bf16_every_code_decodes_like_numpy():
    codes = np.arange(2**16, dtype=np.uint16)
    assert _same(FP16.decode(codes), codes.view(np.float16).astype(np.float64))
    with np.errstate(invalid="ignore"):
        expect = codes.view(ml_dtypes.bfloat16).astype(np.float64)
    assert _same(BF16.decode(codes), expect)


def test_published_element_tables():
    pos = FP4_E2M1.decode(np.arange(8))
    assert pos.tolist() == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert FP8_E4M3.max_value == 448
    assert FP8_E5M2.max_value == 57344
    assert FP6_E3M2.max_value == 28
    assert FP6_E2M3.max_value == 7.5
    assert FP16.max_value == 65504
    assert FP8_E4M3.decode(0x7F) != FP8_E4M3.decode(0x7F)  # S.1111.111 is NaN
    assert FP8_E4M3.decode(0x78) == 256  # no infinity: all-ones exponent is finite


@pytest.mark.parametrize(("fmt", "dt"), ALL_ORACLES, ids=lambda v: getattr(v, "name", str(v)))
@SETTINGS
@given(data=st.data())
def test_rne_matches_ml_dtypes_casts(fmt, dt, data):
    x = data.draw(arrays(np.float32, 16, elements=st.floats(width=32, allow_nan=True)))
    if not fmt.has_nan:
        x = x[~np.isnan(x)]
    ours = fmt.quantize(x)
    with np.errstate(over="ignore", invalid="ignore"):  # ml_dtypes warns on overflow to inf
        expect = x.astype(dt).astype(np.float64)
    assert _same(ours, expect)


@SETTINGS
@given(x=arrays(np.float64, 16, elements=st.floats(allow_nan=False, allow_infinity=False)))
def test_fp32_rounds_like_numpy(x):
    with np.errstate(over="ignore"):
        assert _same(FP32.quantize(x), x.astype(np.float32).astype(np.float64))


def _ulp(fmt, x):
    e = max(math.frexp(abs(x))[1] - 1, fmt.emin) if x else fmt.emin
    return 2.0 ** (e - fmt.man_bits)


@pytest.mark.parametrize("fmt", [FP8_E4M3, FP8_E5M2, FP6_E3M2, FP6_E2M3, FP4_E2M1, FP16, BF16],
                         ids=lambda f: f.name)
@SETTINGS
@given(data=st.data())
def test_properties_idempotent_monotonic_half_ulp(fmt, data):
    lim = fmt.max_value
    x = np.sort(data.draw(arrays(np.float64, 24, elements=st.floats(-lim, lim))))
    q = fmt.quantize(x)
    assert _same(fmt.quantize(q), q)
    assert np.all(np.diff(q) >= 0)
    for xi, qi in zip(x, q, strict=True):
        assert abs(qi - xi) <= _ulp(fmt, xi) / 2


@SETTINGS
@given(x=arrays(np.float64, 24, elements=st.floats(-6, 6)))
def test_toward_zero_never_grows(x):
    fmt = FP4_E2M1.with_(rounding="rtz")
    q = fmt.quantize(x)
    assert np.all(np.abs(q) <= np.abs(x))
    assert all(abs(qi - xi) < _ulp(fmt, xi) for xi, qi in zip(x, q, strict=True))


def test_ties_even_versus_away():
    ties = np.array([1.25, 2.5, 5.0, -5.0, 0.25])
    assert FP4_E2M1.quantize(ties).tolist() == [1.0, 2.0, 4.0, -4.0, 0.0]
    assert FP4_E2M1.with_(rounding="rna").quantize(ties).tolist() == [1.5, 3.0, 6.0, -6.0, 0.5]


def test_stochastic_rounding_is_seeded_and_unbiased():
    fmt = FP4_E2M1.with_(rounding="stochastic", seed=3)
    x = np.full(20000, 1.25)
    a, b = fmt.quantize(x), fmt.quantize(x)
    assert np.array_equal(a, b)
    assert set(np.unique(a)) == {1.0, 1.5}
    assert abs(a.mean() - 1.25) < 0.01
    assert not np.array_equal(a, fmt.with_(seed=4).quantize(x))
    assert np.array_equal(fmt.quantize(np.array([1.5, 3.0])), [1.5, 3.0])


def test_subnormals():
    tiny = 2.0**-24  # FP16's smallest subnormal
    x = np.array([tiny, tiny / 2, tiny * 0.75, tiny * 1.5, tiny / 4, 2.0**-14 - tiny])
    expect = x.astype(np.float16).astype(np.float64)
    assert _same(FP16.quantize(x), expect)
    assert FP16.encode(tiny) == 1
    assert FP16.quantize(tiny / 2) == 0  # tie with zero goes to even (zero)


def test_overflow_policies():
    assert FP16.quantize(65520.0) == np.inf  # RNE rounds up past the max
    assert FP16.quantize(65519.0) == 65504
    assert FP16.with_(rounding="rtz").quantize(1e6) == 65504  # IEEE: RTZ saturates
    assert FP16.with_(overflow="saturate").quantize(1e6) == 65504
    assert np.isnan(FP8_E4M3.quantize(500.0))
    assert FP8_E4M3.quantize(464.0) == 448  # tie rounds to even 448, not past the max
    assert FP8_E4M3.with_(overflow="saturate").quantize(1e9) == 448
    assert FP8_E5M2.quantize(1e9) == np.inf
    assert FP4_E2M1.quantize(7.0) == 6.0


def test_nan_and_inf_inputs():
    assert np.isnan(FP8_E4M3.quantize(np.inf))
    assert FP8_E4M3.with_(overflow="saturate").quantize(-np.inf) == -448
    assert FP8_E5M2.quantize(-np.inf) == -np.inf
    assert FP4_E2M1.quantize(np.inf) == 6.0
    assert FP8_E4M3.encode(np.nan) == 0x7F
    with pytest.raises(FormatError, match="format fp4_e2m1 has no NaN code: cannot encode NaN"):
        FP4_E2M1.encode([1.0, np.nan])


def test_custom_minifloat_values():
    e3m0 = minifloat(3, 0)
    assert e3m0.decode(np.arange(8)).tolist() == [0, 0.25, 0.5, 1, 2, 4, 8, 16]
    e1m2 = minifloat(1, 2)
    assert e1m2.decode(np.arange(8)).tolist() == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5]


def test_bad_codes_and_arguments():
    with pytest.raises(FormatError, match=r"codes of fp4_e2m1 must lie in 0\.\.15"):
        FP4_E2M1.decode([16])
    with pytest.raises(FormatError, match="codes must be integers, not float64"):
        FP4_E2M1.decode([1.0])
    with pytest.raises(ValueError, match="exp_bits must be an integer in 1..8, not 9"):
        FloatFormat(exp_bits=9, man_bits=2)
    with pytest.raises(ValueError, match="rounding must be one of"):
        FloatFormat(exp_bits=4, man_bits=3, rounding="up")
    with pytest.raises(ValueError, match="overflow='inf' needs special='ieee', not 'none'"):
        FloatFormat(exp_bits=2, man_bits=1, special="none", overflow="inf")
    with pytest.raises(ValueError, match="overflow='nan' needs a format with a NaN code"):
        FloatFormat(exp_bits=2, man_bits=1, special="none", overflow="nan")


def _ofp8_value(code, *, exp_bits, man_bits, bias, ieee_specials):
    """The value of one OFP8 code from the OCP OFP8 v1.0 spec (section 5.3, Tables 1-2),
    written out here independently of the code under test."""
    sign = -1.0 if code >> (exp_bits + man_bits) else 1.0
    e = (code >> man_bits) & (2**exp_bits - 1)
    m = code & (2**man_bits - 1)
    top = 2**exp_bits - 1
    if ieee_specials and e == top:  # E5M2: S.11111.00 is inf, S.11111.{01,10,11} NaN
        return sign * math.inf if m == 0 else math.nan
    if not ieee_specials and e == top and m == 2**man_bits - 1:  # E4M3: only S.1111.111
        return math.nan
    if e == 0:
        return sign * m / 2**man_bits * 2.0 ** (1 - bias)
    return sign * (1 + m / 2**man_bits) * 2.0 ** (e - bias)


# (format, spec parameters, max normal from OFP8 v1.0 Table 1, ml_dtypes type)
OFP8 = [(FP8_E5M2, dict(exp_bits=5, man_bits=2, bias=15, ieee_specials=True), 57344.0,
         ml_dtypes.float8_e5m2),
        (FP8_E4M3, dict(exp_bits=4, man_bits=3, bias=7, ieee_specials=False), 448.0,
         ml_dtypes.float8_e4m3fn)]


@pytest.mark.parametrize(("fmt", "spec", "max_normal", "dt"), OFP8,
                         ids=["e5m2", "e4m3"])
def test_ofp8_saturating_mode_every_code_against_the_spec_table(fmt, spec, max_normal, dt):
    # OFP8 v1.0 Table 3, saturating mode: +-inf and out-of-range finite values become
    # +-max normal; NaN stays NaN; every finite code is exact.
    sat = fmt.with_(overflow="saturate")
    values = np.array([_ofp8_value(c, **spec) for c in range(256)])
    assert np.nanmax(np.abs(values[np.isfinite(values)])) == max_normal
    expect = np.where(np.isinf(values), np.sign(values) * max_normal, values)
    got = sat.quantize(values)
    assert _same(got, expect)
    big = np.array([max_normal * 1.06, max_normal * 1.5, max_normal * 2, 1e30, np.inf])
    assert _same(sat.quantize(np.concatenate([big, -big])),
                 np.concatenate([np.full(5, max_normal), np.full(5, -max_normal)]))
    # Where ml_dtypes agrees (it overflows to inf/NaN, so clamp first): a dense sweep.
    x = np.linspace(-2.5 * max_normal, 2.5 * max_normal, 20001)
    assert _same(sat.quantize(x),
                 np.clip(x, -max_normal, max_normal).astype(dt).astype(np.float64))
    # Non-saturating mode, the same table: inf stays inf (E5M2) or is NaN (E4M3, no inf).
    plain = fmt.quantize(np.array([np.inf, -np.inf]))
    if spec["ieee_specials"]:
        assert list(plain) == [np.inf, -np.inf]
    else:
        assert np.isnan(plain).all()
