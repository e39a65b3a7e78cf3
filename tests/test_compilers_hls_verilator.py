"""RTL == golden under Verilator (run to done, memories through VPI); cycles == prediction."""

import numpy as np
import pytest

from archsim.dsl import Array, Int, UInt, kernel, partition, pipeline, unroll

pytestmark = pytest.mark.slow


@kernel
def hv_hist_dot(x: Array[UInt(4), 64], h: Array[UInt(8), 16], a: Array[Int(8), 64],
                b: Array[Int(8), 64], n: UInt(7)) -> Int(32):
    for i in range(n):
        h[x[i]] += 1
    acc = Int(32)(0)
    for i in pipeline(range(64), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def hv_stencil(orig: Array[Int(32), 8, 6], filt: Array[Int(32), 3, 3],
               sol: Array[Int(32), 8, 6]):
    partition(filt, kind="complete")
    for r in range(6):
        for c in pipeline(range(4), ii=1):
            t = Int(32)(0)
            for k1 in unroll(range(3)):
                for k2 in unroll(range(3)):
                    t += filt[k1][k2] * orig[r + k1][c + k2]
            sol[r][c] = t


@pytest.mark.parametrize("case", ["random", "edges"])
def test_hist_and_dot_under_verilator(case):
    rng = np.random.default_rng(5)
    if case == "random":
        x, a, b, n = rng.integers(0, 16, 64), rng.integers(-128, 128, 64), \
            rng.integers(-128, 128, 64), 57
    else:
        x, a, b, n = np.full(64, 15), np.full(64, -128), np.full(64, -128), 64
    d = hv_hist_dot.synthesize()
    r = d.simulate(x, np.zeros(16, dtype=np.int64), a, b, n, backend="verilator")
    assert r.value == int(a @ b)
    assert np.array_equal(r.outputs["h"], np.bincount(x[:n], minlength=16) % 256)
    assert r.cycles == d.cycles(x, None, a, b, n)
    p = d.simulate(x, np.zeros(16, dtype=np.int64), a, b, n, backend="pysim")
    assert (p.value, p.cycles) == (r.value, r.cycles)


def test_stencil2d_under_verilator():
    from scipy.signal import correlate2d

    rng = np.random.default_rng(6)
    orig = rng.integers(-2**20, 2**20, (8, 6))
    filt = rng.integers(-100, 100, (3, 3))
    d = hv_stencil.synthesize()
    r = d.simulate(orig, filt, np.zeros((8, 6), dtype=np.int64), backend="verilator")
    assert np.array_equal(r.outputs["sol"][:6, :4], correlate2d(orig, filt, mode="valid"))
    assert r.cycles == d.cycles(orig, filt, None)
