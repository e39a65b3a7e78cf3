"""The IEEE-754 adder: golden against numpy float32 and ml_dtypes e5m2, RTL against golden."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from archsim.hw.accel.fp32_add import FloatAdder, canonical_nan, float_add_bits
from archsim.sim.rtl import simulate

NAN32 = 0x7FC00000


def _numpy_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (a.astype(np.uint32).view(np.float32)
                + b.astype(np.uint32).view(np.float32)).view(np.uint32)


def _check_f32(a: np.ndarray, b: np.ndarray, got: np.ndarray) -> None:
    ref = _numpy_f32(a, b)
    nan = np.isnan(ref.view(np.float32))
    bad = np.flatnonzero((got != ref) & ~nan)
    assert bad.size == 0, [hex(int(x)) for x in (a[bad[0]], b[bad[0]], got[bad[0]],
                                                   ref[bad[0]])]
    assert np.all(got[nan] == NAN32)


def _golden(a: np.ndarray, b: np.ndarray, e: int = 8, m: int = 23) -> np.ndarray:
    return np.array([float_add_bits(int(x), int(y), exp_bits=e, man_bits=m)
                     for x, y in zip(a, b, strict=True)], dtype=np.uint64)


def _e5m2_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All 65536 pairs and the oracle: the exact float32 sum rounded once to e5m2."""
    v = np.arange(256, dtype=np.uint8)
    a, b = (x.ravel() for x in np.meshgrid(v, v, indexing="ij"))
    fa = a.view(ml_dtypes.float8_e5m2).astype(np.float32)
    fb = b.view(ml_dtypes.float8_e5m2).astype(np.float32)
    with np.errstate(all="ignore"):
        ref = (fa + fb).astype(ml_dtypes.float8_e5m2).view(np.uint8)
    return a.astype(np.uint64), b.astype(np.uint64), ref.astype(np.uint64)


EDGES = [
    (0x00000001, 0x00000001),  # smallest subnormals: 2 * 2**-149
    (0x007FFFFF, 0x00000001),  # largest subnormal + smallest -> smallest normal
    (0x80000001, 0x00000001),  # x + -x = +0
    (0x80000000, 0x80000000),  # -0 + -0 = -0
    (0x80000000, 0x00000000),  # -0 + +0 = +0
    (0x7F7FFFFF, 0x7F7FFFFF),  # overflow to inf
    (0x7F7FFFFF, 0x73800000),  # max + half an ulp: a tie, rounds to even = inf
    (0x7F7FFFFF, 0x73000000),  # max + a quarter ulp: stays max
    (0x3F800000, 0x33800000),  # 1 + 2**-24: tie, rounds to even (1)
    (0x3F800001, 0x33800000),  # (1 + ulp) + half ulp: tie, rounds up to even
    (0x3F800000, 0xBF7FFFFF),  # 1 - (1 - 2**-24): cancellation to 2**-24
    (0x3F800000, 0xB3800001),  # 1 - just over half an ulp below
    (0x7F800000, 0xFF800000),  # inf - inf = NaN
    (0x7F800000, 0x3F800000),  # inf + 1 = inf
    (0xFF800000, 0x7F7FFFFF),  # -inf + max = -inf
    (0x7FC00001, 0x3F800000),  # NaN with payload -> canonical
    (0xFFA00000, 0x7F800000),  # signalling NaN -> canonical
    (0x00800000, 0x80000001),  # smallest normal - smallest subnormal -> subnormal
    (0x4B800000, 0x3F800000),  # 2**24 + 1: tie to even
    (0x4B800000, 0x3F800001),  # 2**24 + (1 + ulp): rounds up
]


def test_canonical_nan() -> None:
    assert canonical_nan() == NAN32
    assert canonical_nan(exp_bits=5, man_bits=2) == 0x7E


def test_golden_edges_match_numpy() -> None:
    a = np.array([x for x, _ in EDGES] + [y for _, y in EDGES], dtype=np.uint64)
    b = np.array([y for _, y in EDGES] + [x for x, _ in EDGES], dtype=np.uint64)
    _check_f32(a, b, _golden(a, b))


def test_golden_hand_worked() -> None:
    # 1.5 + 2.25 = 3.75 = 0x40700000; x + -x = +0; -0 + -0 = -0
    assert float_add_bits(0x3FC00000, 0x40100000) == 0x40700000
    assert float_add_bits(0x40490FDB, 0xC0490FDB) == 0
    assert float_add_bits(0x80000000, 0x80000000) == 0x80000000
    assert float_add_bits(0x7F800000, 0xFF800000) == NAN32


def test_golden_random_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    # half the pairs with near exponents (cancellation and ties are frequent there)
    b[: n // 2] = (a[: n // 2] & 0xFF800000) ^ rng.integers(0, 1 << 24, n // 2, dtype=np.uint64)
    b[: n // 4] ^= 0x80000000
    _check_f32(a, b, _golden(a, b))


def test_golden_exhaustive_e5m2() -> None:
    a, b, ref = _e5m2_pairs()
    got = _golden(a, b, 5, 2)
    nan = np.isnan(ref.astype(np.uint8).view(ml_dtypes.float8_e5m2).astype(np.float32))
    assert nan.sum() > 0
    assert np.array_equal(got[~nan], ref[~nan])
    assert np.all(got[nan] == 0x7E)


def test_bad_format_and_operands() -> None:
    with pytest.raises(ValueError, match="exp_bits must be an int in 2..11"):
        FloatAdder(exp_bits=1)
    with pytest.raises(ValueError, match="man_bits must be an int in 1..52"):
        float_add_bits(0, 0, man_bits=0)
    with pytest.raises(ValueError, match="a must be a 8-bit pattern"):
        float_add_bits(256, 0, exp_bits=5, man_bits=2)


def _rtl(adder: FloatAdder, a: np.ndarray, b: np.ndarray, backend: str) -> np.ndarray:
    lat = adder.latency
    pad = np.zeros(lat, dtype=np.uint64)
    out = simulate(adder, {"a": np.r_[a, pad], "b": np.r_[b, pad]}, ["z"],
                   backend=backend).outputs["z"]
    return np.asarray(out, dtype=np.uint64)[lat:]


def test_rtl_pysim_e5m2_sample() -> None:
    a, b, _ = _e5m2_pairs()
    rng = np.random.default_rng(1)
    idx = rng.choice(a.size, 2000, replace=False)
    assert np.array_equal(_rtl(FloatAdder(exp_bits=5, man_bits=2), a[idx], b[idx], "pysim"),
                          _golden(a[idx], b[idx], 5, 2))


@pytest.mark.slow
def test_rtl_verilator_e5m2_exhaustive() -> None:
    a, b, _ = _e5m2_pairs()
    got = _rtl(FloatAdder(exp_bits=5, man_bits=2), a, b, "verilator")
    assert np.array_equal(got, _golden(a, b, 5, 2))


@pytest.mark.slow
def test_rtl_verilator_binary32() -> None:
    rng = np.random.default_rng(2)
    n = 4000
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    b[: n // 2] = (a[: n // 2] & 0xFF800000) ^ rng.integers(0, 1 << 24, n // 2, dtype=np.uint64)
    edges_a = np.array([x for x, _ in EDGES], dtype=np.uint64)
    edges_b = np.array([y for _, y in EDGES], dtype=np.uint64)
    a, b = np.r_[edges_a, a], np.r_[edges_b, b]
    got = _rtl(FloatAdder(), a, b, "verilator")
    _check_f32(a, b, got)
