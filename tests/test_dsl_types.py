"""Hardware types: exact arithmetic checked against numpy and exhaustive enumeration."""

import itertools

import numpy as np
import pytest

from archsim.dsl import Fixed, Int, UInt
from archsim.dsl.types import HWValue, binop_type, const_type, hw_max, hw_min


def _wrap(x, bits, signed):
    x = np.asarray(x, dtype=np.int64) & ((1 << bits) - 1)
    if signed:
        x = np.where(x >= 1 << (bits - 1), x - (1 << bits), x)
    return x


def test_int_wrap_matches_numpy_int8():
    vals = np.arange(-1000, 1000)
    got = np.array([Int(8)(int(v)).raw for v in vals])
    assert np.array_equal(got, vals.astype(np.int8).astype(np.int64))
    assert np.array_equal(Int(8).encode(vals), vals.astype(np.int8))


def test_uint_wrap_matches_numpy_uint16():
    vals = np.arange(-70000, 70000, 37)
    assert np.array_equal(UInt(16).encode(vals), vals.astype(np.uint16).astype(np.int64))


def test_saturate():
    t = Int(8, overflow="saturate")
    assert t(300).raw == 127 and t(-300).raw == -128 and t(5).raw == 5
    assert np.array_equal(t.encode([-300, 0, 300]), [-128, 0, 127])


@pytest.mark.parametrize("op", ["add", "sub", "mul", "and", "or", "xor"])
def test_exhaustive_4bit_ops_are_exact(op):
    import operator

    fn = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "and": operator.and_,
          "or": operator.or_, "xor": operator.xor}[op]
    for ta, tb in [(Int(4), Int(4)), (UInt(4), Int(3)), (UInt(4), UInt(4))]:
        rt = binop_type(op, ta, tb)
        for a, b in itertools.product(range(ta.min_raw, ta.max_raw + 1),
                                      range(tb.min_raw, tb.max_raw + 1)):
            r = fn(HWValue(ta, a), HWValue(tb, b))
            assert r.raw == fn(a, b)  # exact: no overflow at any width
            assert r.type == rt
            assert rt.min_raw <= r.raw <= rt.max_raw  # the result type holds it


def test_dot_product_wraps_like_int32_numpy():
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, 5000)
    b = rng.integers(-128, 128, 5000)
    acc = Int(16)(0)
    for x, y in zip(a, b, strict=True):
        acc = Int(16)(acc + Int(8)(int(x)) * Int(8)(int(y)))
    expected = np.sum(a.astype(np.int16) * b.astype(np.int16), dtype=np.int16)
    assert acc.raw == int(expected)


def test_fixed_rounding_modes():
    t = Fixed(8, 2)  # trunc = floor
    assert t(1.74).raw == 6 and t(-1.74).raw == -7
    r = Fixed(8, 2, rounding="round")
    assert r(1.74).raw == 7 and r(-1.74).raw == -7 and r(0.125).raw == 1
    prod = Fixed(8, 4)(1.5) * Fixed(8, 4)(-2.25)
    assert prod.value == -3.375 and prod.type.frac == 8
    assert Fixed(8, 2)(prod).value == -3.5  # floor of -3.375 at 0.25 steps
    assert Fixed(8, 2, rounding="round")(prod).value == -3.25  # half up


def test_fixed_encode_matches_scalar_conversion():
    t = Fixed(10, 4, rounding="round", overflow="saturate")
    vals = np.linspace(-40, 40, 301)
    assert np.array_equal(t.encode(vals), [t(float(v)).raw for v in vals])


def test_const_type_and_shifts_and_minmax():
    assert const_type(0) == UInt(1) and const_type(255) == UInt(8)
    assert const_type(-1) == Int(1) and const_type(-129) == Int(9)
    x = Int(8)(-3)
    assert (x << 2).raw == -12 and (x << 2).type == Int(10)
    assert (x >> 1).raw == -2  # arithmetic shift
    assert (~UInt(4)(3)).raw == 12 and (~x).raw == 2
    assert hw_min(Int(8)(-5), UInt(8)(200)).raw == -5
    assert hw_max(Int(8)(-5), UInt(8)(200)).type == Int(9)


def test_bad_type_arguments():
    with pytest.raises(ValueError, match=r"^Int width must be an integer in 1\.\.64 .*not 0$"):
        Int(0)
    with pytest.raises(ValueError, match=r"^UInt width must be an integer in 1\.\.64 .*not 65$"):
        UInt(65)
    with pytest.raises(ValueError, match=r"^Fixed width must be .* not 8\.0$"):
        Fixed(8.0, 2)  # type: ignore[arg-type]
    assert Int(64).max_raw == 2**63 - 1  # the widest a user may write
    with pytest.raises(ValueError, match="overflow must be one of"):
        Int(8, overflow="clip")
    with pytest.raises(ValueError, match=r"frac must be an integer in \[0, width\]"):
        Fixed(8, 9)
    with pytest.raises(TypeError, match="cannot mix float"):
        Int(8)(1) + 0.5
