"""2-D convolution, MachSuite stencil2d and stencil3d: golden == RTL == numpy/scipy; cycles."""

import numpy as np
import pytest
from scipy.signal import convolve2d

from archsim.compilers.hls.suite import (
    MACHSUITE_STENCIL2D,
    MACHSUITE_STENCIL3D,
    conv2d,
    stencil2d,
    stencil3d,
)

RNG = np.random.default_rng(77)


def _wrap32(v):
    """Two's-complement int32 wrap of exact integers (object arrays of Python ints too)."""
    v = np.asarray(v)
    return (((v % 2**32) + 2**31) % 2**32 - 2**31).astype(np.int64)


def _stencil3d_ref(orig, coef):
    sol = orig.copy()  # boundary faces are copies
    c = orig[1:-1, 1:-1, 1:-1]
    s1 = (orig[2:, 1:-1, 1:-1] + orig[:-2, 1:-1, 1:-1] + orig[1:-1, 2:, 1:-1] +
          orig[1:-1, :-2, 1:-1] + orig[1:-1, 1:-1, 2:] + orig[1:-1, 1:-1, :-2])
    sol[1:-1, 1:-1, 1:-1] = _wrap32(c * coef[0] + s1 * coef[1])
    return sol


def _check(k, args, out):
    golden = [a.copy() for a in args]
    k(*golden)
    d = k.synthesize()
    return d, golden[out]


def test_conv2d_pysim():
    k = conv2d(6, 10)
    x, w = RNG.integers(-128, 128, (6, 10)), RNG.integers(-128, 128, (3, 3))
    d, y = _check(k, (x, w, np.zeros((4, 8), dtype=np.int64)), 2)
    assert np.array_equal(y, convolve2d(x, w, mode="valid"))
    r = d.simulate(x, w, np.zeros((4, 8), dtype=np.int64))
    assert np.array_equal(r.outputs["y"], y) and r.cycles == d.cycles(x, w, None)
    loop = next(x for x in d.report().loops if x.kind == "pipelined")
    assert loop.ii_achieved == 6  # 12 distinct image words per 2 outputs, 2 banks


def test_stencil3d_pysim():
    k = stencil3d(4, 5, 6)
    orig, coef = RNG.integers(-2**20, 2**20, (4, 5, 6)), RNG.integers(-50, 50, 2)
    d, sol = _check(k, (orig, coef, np.zeros((4, 5, 6), dtype=np.int64)), 2)
    assert np.array_equal(sol, _stencil3d_ref(orig, coef))
    r = d.simulate(orig, coef, np.zeros((4, 5, 6), dtype=np.int64))
    assert np.array_equal(r.outputs["sol"], sol) and r.cycles == d.cycles(orig, coef, None)


def test_bad_shapes():
    with pytest.raises(ValueError, match="conv2d needs h >= 3 and an even w >= 4, not 5 x 7"):
        conv2d(5, 7)
    with pytest.raises(ValueError, match="stencil3d needs at least 3 x 3 x 3, not 2 x 5 x 5"):
        stencil3d(2, 5, 5)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["random", "edges"])
def test_machsuite_shapes_under_verilator(case):
    rows, cols = MACHSUITE_STENCIL2D
    hh, cc, rr = MACHSUITE_STENCIL3D
    if case == "random":
        orig2 = RNG.integers(-2**31, 2**31, (rows, cols))
        filt = RNG.integers(-2**31, 2**31, (3, 3))
        orig3 = RNG.integers(-2**31, 2**31, (hh, cc, rr))
        coef = RNG.integers(-2**31, 2**31, 2)
        img, ker = RNG.integers(-128, 128, (34, 34)), RNG.integers(-128, 128, (3, 3))
    else:
        orig2 = np.full((rows, cols), -2**31)
        filt = np.full((3, 3), -2**31)
        orig3 = np.full((hh, cc, rr), 2**31 - 1)
        coef = np.array([2**31 - 1, -2**31])
        img, ker = np.full((34, 34), -128), np.full((3, 3), -128)
    # exact references with Python ints (int64 would overflow), wrapped to int32
    o2, f2 = orig2.astype(object), filt.astype(object)
    ref2 = np.zeros((rows, cols), dtype=np.int64)
    valid = sum(f2[k1, k2] * o2[k1:k1 + rows - 2, k2:k2 + cols - 2]
                for k1 in range(3) for k2 in range(3))  # correlate2d(mode="valid"), exactly
    ref2[:rows - 2, :cols - 2] = _wrap32(valid)
    ref3 = _stencil3d_ref(orig3.astype(object), coef.astype(object)).astype(np.int64)
    for k, args, out, ref in [
        (stencil2d(rows, cols), (orig2, filt, np.zeros((rows, cols), dtype=np.int64)), 2, ref2),
        (stencil3d(hh, cc, rr), (orig3, coef, np.zeros((hh, cc, rr), dtype=np.int64)), 2, ref3),
        (conv2d(34, 34), (img, ker, np.zeros((32, 32), dtype=np.int64)), 2,
         convolve2d(img, ker, mode="valid")),
    ]:
        d, golden = _check(k, args, out)
        assert np.array_equal(golden, ref), k.name
        r = d.simulate(*args, backend="verilator")
        assert np.array_equal(r.outputs[k.param_names[out]], golden), k.name
        assert r.cycles == d.cycles(*args), k.name
