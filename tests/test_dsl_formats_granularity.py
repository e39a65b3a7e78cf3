"""Per-channel AdaptivFloat and block float against per-tensor loops and closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from archsim.dsl.formats import AdaptivFloat, BlockFloat, FormatError

SETTINGS = settings(max_examples=40, deadline=None)
finite = st.floats(-1e3, 1e3, allow_subnormal=True)
# Away from the subnormal range, so a 2**k scaling (|k| <= 20) is exact.
normal = st.one_of(st.just(0.0), st.floats(1e-6, 50), st.floats(-50, -1e-6))
AF_NE = [(4, 2), (4, 3), (6, 3), (8, 3), (5, 1)]


def _per_slice(fmt_tensor, x, axis):
    """Quantize every slice along ``axis`` alone with a per-tensor format (numpy loop)."""
    out = np.empty_like(x)
    for i in range(x.shape[axis]):
        idx = [slice(None)] * x.ndim
        idx[axis] = i
        out[tuple(idx)] = fmt_tensor.quantize(x[tuple(idx)])
    return out


@SETTINGS
@given(x=arrays(np.float64, (5, 9), elements=finite), ne=st.sampled_from(AF_NE),
       axis=st.sampled_from([0, 1, -1, -2]), zero_row=st.booleans())
def test_af_channel_equals_per_tensor_row_by_row(x, ne, axis, zero_row):
    if zero_row:
        x[1] = 0.0
        x[:, 2] = 0.0
    tensor = AdaptivFloat(n=ne[0], e=ne[1])
    chan = AdaptivFloat(n=ne[0], e=ne[1], granularity="channel", axis=axis)
    enc = chan.encode(x)
    assert np.array_equal(chan.decode(enc), _per_slice(tensor, x, axis))
    # One bias per channel, each the per-tensor bias of its slice.
    slices = np.moveaxis(x, axis, 0)
    expect = [tensor.exp_bias_for(s) for s in slices]
    assert np.moveaxis(enc.exp_bias, axis, 0).reshape(-1).tolist() == expect
    assert enc.exp_bias.shape[axis % 2] == x.shape[axis] and enc.exp_bias.size == len(expect)


def test_af_channel_3d_and_explicit_bias():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 5)) * rng.choice([1e-3, 1.0, 40.0], size=(1, 4, 1))
    fmt = AdaptivFloat(n=6, e=3, granularity="channel", axis=1)
    assert np.array_equal(fmt.quantize(x), _per_slice(AdaptivFloat(n=6, e=3), x, 1))
    enc = fmt.encode(x)
    again = fmt.encode(fmt.decode(enc), exp_bias=enc.exp_bias)
    assert np.array_equal(again.codes, enc.codes)
    assert fmt.name == "adaptivfloat6_e3_channel"


@SETTINGS
@given(x=arrays(np.float64, (6, 7), elements=normal), ne=st.sampled_from(AF_NE),
       k=arrays(np.int64, 6, elements=st.integers(-20, 20)))
def test_af_channel_power_of_two_row_scale_equivariance(x, ne, k):
    # Closed form: scaling row i by 2**k_i shifts its bias by k_i and every value by 2**k_i
    # (every threshold and grid point of the row scales by the same power of two).
    fmt = AdaptivFloat(n=ne[0], e=ne[1], granularity="channel", axis=0)
    scale = np.ldexp(1.0, k)[:, None]
    enc, enc_s = fmt.encode(x), fmt.encode(x * scale)
    nonzero = np.any(x != 0, axis=1)
    assert np.array_equal(enc_s.exp_bias[nonzero, 0], enc.exp_bias[nonzero, 0] + k[nonzero])
    assert np.array_equal(fmt.decode(enc_s), fmt.decode(enc) * scale)
    assert np.array_equal(enc_s.codes, enc.codes)


def test_af_tensor_unchanged_by_default():
    x = np.array([[0.75, 0.001], [-0.3, 3.0]])
    a, b = AdaptivFloat(n=8, e=3), AdaptivFloat(n=8, e=3, granularity="tensor", axis=1)
    assert a.name == b.name == "adaptivfloat8_e3"
    assert a.encode(x).exp_bias == 1 - 7  # floor(log2 3) = 1, an int for per-tensor
    assert isinstance(a.encode(x).exp_bias, int)
    assert np.array_equal(a.quantize(x), b.quantize(x))


@pytest.mark.parametrize("shape", [(576, 576), (1536, 576), (576, 1536), (3, 4, 5)])
@pytest.mark.parametrize("axis", [0, -1])
def test_side_information_bits_closed_form(shape, axis):
    n_elem = int(np.prod(shape))
    channels = shape[axis]
    for n in (4, 6, 8):
        af = AdaptivFloat(n=n, e=3, granularity="channel", axis=axis)
        bfp = BlockFloat(bits=n, granularity="channel", axis=axis)
        # one 8-bit bias / shared exponent per channel: n + 8 * channels / elements
        assert af.effective_bits(shape) == n + 8 * channels / n_elem
        assert bfp.effective_bits(shape) == n + 8 * channels / n_elem
        assert AdaptivFloat(n=n, e=3, granularity="channel", axis=axis,
                            bias_bits=5).effective_bits(shape) == n + 5 * channels / n_elem
        assert AdaptivFloat(n=n, e=3).effective_bits(shape) == n + 8 / n_elem
        assert BlockFloat(bits=n, granularity="tensor").effective_bits(shape) == n + 8 / n_elem
    # (out, in) weight, one bias per output row: n + 8 / in, e.g. 4 + 8/576 = 4.01389
    assert AdaptivFloat(n=4, e=3, granularity="channel").effective_bits((576, 576)) == \
        pytest.approx(4.013888888888889, abs=1e-15)


@SETTINGS
@given(x=arrays(np.float64, (4, 11), elements=finite), bits=st.sampled_from([3, 4, 6, 8]),
       axis=st.sampled_from([0, 1]))
def test_bfp_channel_equals_per_tensor_row_by_row(x, bits, axis):
    chan = BlockFloat(bits=bits, granularity="channel", axis=axis)
    tensor = BlockFloat(bits=bits, granularity="tensor")
    assert np.array_equal(chan.quantize(x), _per_slice(tensor, x, axis))
    if axis == 0:  # one exponent per row = one block spanning the row
        assert np.array_equal(chan.quantize(x),
                              BlockFloat(bits=bits, block_size=11, axis=1).quantize(x))


def test_bfp_granularity_names_and_legacy_tensor():
    x = np.array([[3.0, -0.26], [0.1, 1.0]])
    legacy, tensor = BlockFloat(bits=4, block_size=None), BlockFloat(bits=4, granularity="tensor")
    assert legacy.name == tensor.name == "bfp4_tensor"
    assert np.array_equal(legacy.quantize(x), tensor.quantize(x))
    chan = BlockFloat(bits=4, granularity="channel", axis=0)
    assert chan.name == "bfp4_channel"
    # rows: floor(log2 3) = 1 -> step 2**-1; floor(log2 1) = 0 -> step 2**-2
    assert chan.quantize(x).tolist() == [[3.0, -0.5], [0.0, 1.0]]
    assert BlockFloat(bits=4, granularity="channel", axis=0).quantize(
        np.zeros((2, 3, 4))).shape == (2, 3, 4)


def test_bad_arguments_exact_messages():
    with pytest.raises(ValueError) as err:
        AdaptivFloat(n=8, e=3, granularity="row")
    assert str(err.value) == "granularity must be one of ('tensor', 'channel'), not 'row'"
    with pytest.raises(ValueError) as err:
        AdaptivFloat(n=8, e=3, granularity="channel", axis=1.5)
    assert str(err.value) == "axis must be an integer, not 1.5"
    with pytest.raises(ValueError) as err:
        AdaptivFloat(n=8, e=3, bias_bits=0)
    assert str(err.value) == "bias_bits must be a positive integer, not 0"
    fmt = AdaptivFloat(n=8, e=3, granularity="channel", axis=2)
    with pytest.raises(FormatError) as ferr:
        fmt.encode(np.ones((2, 2)))
    assert str(ferr.value) == "axis 2 is out of range for an array of 2 dimensions"
    with pytest.raises(FormatError) as ferr:
        fmt.effective_bits((2, 2))
    assert str(ferr.value) == "axis 2 is out of range for an array of 2 dimensions"
    with pytest.raises(FormatError) as ferr:
        AdaptivFloat(n=8, e=3, granularity="channel").encode(1.0)
    assert str(ferr.value) == "granularity 'channel' needs an array, not a scalar"
    with pytest.raises(ValueError) as err:
        BlockFloat(bits=4, granularity="group")
    assert str(err.value) == ("granularity must be one of ('block', 'tensor', 'channel'), "
                              "not 'group'")
    with pytest.raises(ValueError) as err:
        BlockFloat(bits=4, axis="0")
    assert str(err.value) == "axis must be an integer, not '0'"
    with pytest.raises(FormatError) as ferr:
        BlockFloat(bits=4, granularity="channel", axis=-3).encode(np.ones((2, 2)))
    assert str(ferr.value) == "axis -3 is out of range for an array of 2 dimensions"
    with pytest.raises(FormatError) as ferr:
        BlockFloat(bits=4, granularity="channel").encode(2.0)
    assert str(ferr.value) == "granularity 'channel' needs an array, not a scalar"
    with pytest.raises(FormatError) as ferr:
        BlockFloat(bits=4, granularity="channel").effective_bits()
    assert str(ferr.value) == "effective_bits of bfp4_channel needs the tensor shape"
