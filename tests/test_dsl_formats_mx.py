"""OCP MX and NxFP against per-block references built on ml_dtypes casts."""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from archsim.dsl.formats import E8M0_NAN, FormatError, MXFormat, NxFPFormat, mx_dot

SETTINGS = settings(max_examples=40, deadline=None)
values = st.floats(-1e4, 1e4, allow_subnormal=False)

#: element -> (ml_dtypes dtype or None for INT8, emax_elem, max normal) from the MX v1.0 spec
SPEC = {
    "fp8_e4m3": (ml_dtypes.float8_e4m3fn, 8, 448.0),
    "fp8_e5m2": (ml_dtypes.float8_e5m2, 15, 57344.0),
    "fp6_e3m2": (ml_dtypes.float6_e3m2fn, 4, 28.0),
    "fp6_e2m3": (ml_dtypes.float6_e2m3fn, 2, 7.5),
    "fp4_e2m1": (ml_dtypes.float4_e2m1fn, 2, 6.0),
    "int8": (None, 0, 127 / 64),
}


def _mx_reference(x, element, block=32):
    dt, emax, vmax = SPEC[element]
    out = []
    for i in range(0, len(x), block):
        blk = x[i:i + block].astype(np.float64)
        amax = np.abs(blk).max()
        e = -127 if amax == 0 else min(max(math.floor(math.log2(amax)) - emax, -127), 127)
        scaled = np.clip(blk / 2.0**e, -vmax, vmax)
        if dt is None:
            q = np.clip(np.rint(scaled * 64), -127, 127) / 64
        else:
            # straight from float64: through float32 would round twice (a value just
            # above a tie of the element rounds to the tie first, then to even)
            q = scaled.astype(dt).astype(np.float64)
        out.append(q * 2.0**e)
    return np.concatenate(out)


@pytest.mark.parametrize("element", list(SPEC))
@SETTINGS
@given(x=arrays(np.float64, 70, elements=values), shift=st.integers(-40, 40))
def test_mx_matches_spec_reference(element, x, shift):
    x = np.ldexp(x, shift)
    fmt = MXFormat(element=element)
    assert np.array_equal(fmt.quantize(x), _mx_reference(x, element))


def test_mx_shared_scale_rule_and_zero_block():
    fmt = MXFormat(element="fp4_e2m1", block_size=4)
    enc = fmt.encode(np.array([6.0, 1.0, 0, 0, 7.0, 0.5, 0, 0, 0, 0, 0, 0]))
    assert enc.scales.tolist() == [127, 127, 0]  # floor(log2 6) - 2 = 0; zero block: 2**-127
    assert fmt.decode(enc).tolist() == [6, 1, 0, 0, 6, 0.5, 0, 0, 0, 0, 0, 0]  # 7 clamps to 6
    big = MXFormat(element="fp8_e4m3").encode(np.array([2.0**200]))
    assert big.scales.tolist() == [254]  # clamped to E8M0's largest exponent 127


def test_mx_nan_inf_blocks_and_rounding_modes():
    fmt = MXFormat(element="fp4_e2m1", block_size=2)
    q = fmt.quantize(np.array([1.0, np.nan, 1.0, 2.0, np.inf, 3.0]))
    assert np.isnan(q[[0, 1, 4, 5]]).all() and q[2:4].tolist() == [1.0, 2.0]
    assert fmt.encode(np.array([np.nan, 1.0])).scales.tolist() == [E8M0_NAN]
    ties = np.array([5.0, 1.25, 0.25, 6.0])  # scale 1: ties between element values
    assert MXFormat(element="fp4_e2m1").quantize(ties).tolist() == [4.0, 1.0, 0.0, 6.0]
    assert MXFormat(element="fp4_e2m1", rounding="rna").quantize(ties).tolist() == \
        [6.0, 1.5, 0.5, 6.0]


def test_mx_axis_and_padding():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 3))
    fmt0 = MXFormat(element="fp6_e2m3", axis=0)
    fmt1 = MXFormat(element="fp6_e2m3", axis=-1)
    assert np.array_equal(fmt0.quantize(x), fmt1.quantize(x.T).T)
    enc = fmt0.encode(x)
    assert enc.codes.shape == (3, 2, 32)
    assert fmt0.effective_bits() == 6.25


@SETTINGS
@given(a=arrays(np.float64, 64, elements=values), b=arrays(np.float64, 64, elements=values),
       ea=st.sampled_from(list(SPEC)), eb=st.sampled_from(list(SPEC)))
def test_mx_dot_is_exact(a, b, ea, eb):
    fa, fb = MXFormat(element=ea), MXFormat(element=eb)
    qa, qb = fa.quantize(a), fb.quantize(b)
    exact = sum((Fraction(float(u)) * Fraction(float(v)) for u, v in zip(qa, qb, strict=True)),
                Fraction(0))
    assert fa.dot(a, b, other=fb) == float(exact)


def test_mx_dot_errors():
    fmt = MXFormat(element="fp8_e4m3")
    with pytest.raises(FormatError, match="mx_dot input has a NaN scale"):
        fmt.dot(np.array([np.nan, 1.0]), np.ones(2))
    with pytest.raises(FormatError, match="mx_dot needs two 1-D vectors"):
        mx_dot(fmt, fmt.encode(np.ones(32)), fmt, fmt.encode(np.ones(64)))
    with pytest.raises(ValueError, match="element must be one of"):
        MXFormat(element="fp3")


# -- NxFP ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("bits", "element"), [(4, "fp4_e2m1"), (6, "fp6_e2m3"), (8, "fp8_e4m3")])
def test_nxfp_with_everything_off_is_mx(bits, element):
    x = np.random.default_rng(2).standard_t(3, size=(8, 96))
    assert np.array_equal(NxFPFormat(bits=bits).quantize(x), MXFormat(element=element).quantize(x))


def test_nxfp_effective_bits():
    assert NxFPFormat(bits=4).effective_bits() == 4.25
    full = NxFPFormat(bits=4, nano_mantissa_bits=2, adaptive_microexponent=True,
                      code_recycling=True)
    assert full.effective_bits() == 4 + (8 + 2 + 2) / 32


@SETTINGS
@given(x=arrays(np.float64, 32, elements=st.floats(-100, 100)))
def test_nano_mantissa_scale_is_smallest_e8m2_above_ideal(x):
    amax = np.abs(x).max()
    if amax == 0:
        return
    fmt = NxFPFormat(bits=4, nano_mantissa_bits=2)
    code = int(fmt.encode(x).scales[0])
    scale = 2.0 ** ((code >> 2) - 127) * (1 + (code & 3) / 4)
    ideal = amax / 6.0
    grid = [2.0**e * (1 + m / 4) for e in range(-127, 128) for m in range(4)]  # E8M2
    assert scale == min(g for g in grid if g >= ideal)
    assert np.abs(fmt.quantize(x)).max() <= 6.0 * scale  # the block max is never clamped


@SETTINGS
@given(x=arrays(np.float64, 64, elements=st.floats(-100, 100)))
def test_adaptive_microexponent_never_worse_per_block(x):
    base = MXFormat(element="fp4_e2m1").quantize(x)
    am = NxFPFormat(bits=4, adaptive_microexponent=True)
    q = am.quantize(x)
    for i in range(0, 64, 32):
        assert np.sum((q - x)[i:i + 32] ** 2) <= np.sum((base - x)[i:i + 32] ** 2)
    assert set(am.encode(x).tags.tolist()) <= {0, 1, 2}


def test_code_recycling_gives_negative_zero_a_value():
    fmt = NxFPFormat(bits=4, code_recycling=True, block_size=4)
    enc = fmt.encode(np.array([6.0, -5.0, -0.1, 1.0]))
    assert enc.codes[0].tolist() == [0b0111, 0b1000, 0b0000, 0b0010]  # -5 -> recycled -0 code
    assert fmt.decode(enc).tolist() == [6.0, -5.0, 0.0, 1.0]
    x = np.random.default_rng(3).normal(size=256)
    plain = MXFormat(element="fp4_e2m1").quantize(x)
    assert np.sum((fmt.quantize(x) - x) ** 2) < np.sum((plain - x) ** 2)


def test_nxfp_nan_block_and_errors():
    fmt = NxFPFormat(bits=4, nano_mantissa_bits=2, adaptive_microexponent=True, block_size=2)
    q = fmt.quantize(np.array([np.nan, 1.0, 2.0, 3.0]))
    assert np.isnan(q[:2]).all() and not np.isnan(q[2:]).any()
    with pytest.raises(ValueError, match=r"bits must be one of \(4, 6, 8\), not 5"):
        NxFPFormat(bits=5)
    with pytest.raises(FormatError, match="nxfp4 decodes a BlockEncoding, not ndarray"):
        NxFPFormat(bits=4).decode(np.zeros(3))


@pytest.mark.parametrize("fmt", [MXFormat(element="fp4_e2m1"), MXFormat(element="fp8_e4m3"),
                                 MXFormat(element="int8"), NxFPFormat(
                                     bits=4, nano_mantissa_bits=2, code_recycling=True)],
                         ids=lambda f: f.name)
@SETTINGS
@given(x=arrays(np.float64, 32, elements=st.floats(-1e3, 1e3)))
def test_block_formats_idempotent_and_monotonic_within_a_block(fmt, x):
    x = np.sort(x)
    q = fmt.quantize(x)
    if isinstance(fmt, MXFormat):
        assert np.array_equal(fmt.quantize(q), q)
    assert np.all(np.diff(q) >= 0)


def test_nanomantissa_block_of_subnormals_quantizes_to_zero_not_nan():
    # amax / elem_max underflows to 0 for the smallest subnormal: the block lies below the
    # smallest E8Mk scale, so every element flushes to zero (found by hypothesis).
    import numpy as np

    from archsim.dsl.formats import NxFPFormat

    for recycling in (False, True):
        fmt = NxFPFormat(bits=4, nano_mantissa_bits=2, code_recycling=recycling)
        q = fmt.quantize(np.full(32, 5e-324))
        assert np.array_equal(q, np.zeros(32))


def test_just_above_a_tie_rounds_up_once():
    # Found by hypothesis: 1.1920929e-07 / 2**-19 is just above 0.0625, half of e2m3's
    # smallest subnormal (0.125): nearest is 0.125 (rounding through float32 gives 0.0625,
    # a tie, then 0 -- a double rounding).
    x = np.array([1e-05] + [1.1920929e-07] * 31)
    q = MXFormat(element="fp6_e2m3").quantize(x)
    assert q[1] == 0.125 * 2.0**-19
