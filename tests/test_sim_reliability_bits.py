"""Bit flips in stored formats, checked bit-exactly against numpy's own bit patterns."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from archsim.dsl.formats import BF16, FP16, FP32, AdaptivFloat, IntFormat
from archsim.errors import ConfigError
from archsim.sim.reliability import encode_tensor, random_masks


def _values(rng: np.random.Generator) -> np.ndarray:
    # normals of several magnitudes, subnormals of FP16, zeros of both signs
    v = np.concatenate([rng.standard_normal(20) * 10.0 ** rng.integers(-6, 6, 20),
                        [0.0, -0.0, 1e-6, -3e-7, 65504.0, 1.0, -2.0]])
    return v.astype(np.float32)


@pytest.mark.parametrize(("fmt", "np_float", "np_uint"), [
    (FP32, np.float32, np.uint32), (FP16, np.float16, np.uint16),
    (BF16, ml_dtypes.bfloat16, np.uint16)])
def test_every_single_bit_flip_matches_numpy_view(fmt, np_float, np_uint) -> None:
    x = _values(np.random.default_rng(1)).astype(np_float)
    enc = encode_tensor(x.astype(np.float64), fmt=fmt)
    np.testing.assert_array_equal(enc.codes, x.view(np_uint).astype(np.uint64))
    bits = np.dtype(np_uint).itemsize * 8
    idx = np.repeat(np.arange(x.size), bits)
    pos = np.tile(np.arange(bits), x.size).astype(np.uint64)
    ours = enc.flipped(idx, np.uint64(1) << pos)
    ref = (x.view(np_uint)[idx] ^ (np_uint(1) << pos.astype(np_uint))).view(np_float)
    ref = ref.astype(np.float64)
    same = (ours == ref) | (np.isnan(ours) & np.isnan(ref))
    assert same.all()
    # signs of zeros too
    assert np.array_equal(np.signbit(ours), np.signbit(ref))


def test_multi_bit_flip_matches_numpy_view() -> None:
    rng = np.random.default_rng(2)
    x = _values(rng)
    enc = encode_tensor(x, fmt=FP32)
    masks = random_masks(n=500, bits=32, flips_per_fault=3, rng=rng)
    assert all(bin(int(m)).count("1") == 3 for m in masks)
    idx = rng.integers(0, x.size, 500)
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        ref = (x.view(np.uint32)[idx] ^ masks.astype(np.uint32)).view(np.float32)
        ref = ref.astype(np.float64)
    ours = enc.flipped(idx, masks)
    assert ((ours == ref) | (np.isnan(ours) & np.isnan(ref))).all()


def test_int8_flip_is_twos_complement_of_the_code() -> None:
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 5))
    fmt = IntFormat(bits=8, granularity="channel", axis=0)
    enc = encode_tensor(w, fmt=fmt)
    amax = np.abs(w).max(axis=1, keepdims=True)
    scale = amax / 127
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    np.testing.assert_allclose(enc.values.reshape(w.shape), q * scale, rtol=0, atol=1e-15)
    for b in range(8):
        flipped = (q.view(np.uint8) ^ np.uint8(1 << b)).view(np.int8)
        ours = enc.flipped(np.arange(w.size), np.full(w.size, 1 << b, np.uint64))
        np.testing.assert_allclose(ours, (flipped * scale).ravel(), rtol=0, atol=1e-15)
    assert enc.flipped(np.array([0]), np.array([128], np.uint64))[0] * (
        1 if q.ravel()[0] >= 0 else -1) <= 0  # sign bit moves the value across zero


def test_adaptivfloat_flip_decodes_with_the_tensor_bias() -> None:
    fmt = AdaptivFloat(n=8, e=3)
    x = np.random.default_rng(4).standard_normal(32)
    enc = encode_tensor(x, fmt=fmt)
    codes = fmt.encode(x)
    for b in range(8):
        ref = fmt.decode(type(codes)(codes=codes.codes ^ (1 << b), exp_bias=codes.exp_bias))
        np.testing.assert_array_equal(
            enc.flipped(np.arange(32), np.full(32, 1 << b, np.uint64)), ref)


def test_rejects_grouped_int_and_wide_masks() -> None:
    with pytest.raises(ConfigError, match="granularity"):
        encode_tensor(np.ones(8), fmt=IntFormat(bits=8, granularity="group", group_size=4))
    enc = encode_tensor(np.ones(4), fmt=FP16)
    with pytest.raises(ValueError, match="below 2\\*\\*16"):
        enc.flipped(np.array([0]), np.array([1 << 16], np.uint64))
    with pytest.raises(ValueError, match="flips_per_fault must be in 1..16"):
        random_masks(n=3, bits=16, flips_per_fault=17, rng=np.random.default_rng(0))
