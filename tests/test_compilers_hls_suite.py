"""More of the kernel suite (small shapes under pysim): stencil2d, SpMV ELLPACK, NW, sort."""

import numpy as np
from scipy.signal import correlate2d

from archsim.compilers.hls import suite

R, C = 8, 6
NR, L = 6, 4
S = 6
NS = 8

stencil2d = suite.stencil2d(R, C)
spmv_ell = suite.spmv_ellpack(NR, L, 16)
nw = suite.needleman_wunsch(S)
oddeven_sort = suite.oddeven_sort(NS)


RNG = np.random.default_rng(21)


def _run(k, args):
    d = k.synthesize()
    r = d.simulate(*args)
    assert r.cycles == d.cycles(*args)
    return d, r


def test_stencil2d_matches_scipy():
    orig = RNG.integers(-1000, 1000, (R, C))
    filt = RNG.integers(-10, 10, (3, 3))
    sol = np.zeros((R, C), dtype=np.int64)
    stencil2d(orig, filt, sol)
    ref = correlate2d(orig, filt, mode="valid")
    assert np.array_equal(sol[:R - 2, :C - 2], ref)
    d, r = _run(stencil2d, (orig, filt, np.zeros((R, C), dtype=np.int64)))
    assert np.array_equal(r.outputs["sol"], sol)
    loop = next(x for x in d.report().loops if x.kind == "pipelined")
    assert loop.ii_achieved == 9 and "array 'orig' bank 0" in loop.ii_reason


def test_spmv_ellpack_indirect_reads():
    val = RNG.integers(-100, 100, (NR, L))
    cols = RNG.integers(0, 16, (NR, L))
    x = RNG.integers(-100, 100, 16)
    _, r = _run(spmv_ell, (val, cols, x, np.zeros(NR, dtype=np.int64)))
    assert np.array_equal(r.outputs["y"], (val * x[cols]).sum(axis=1))


def _nw_reference(a, b):
    m = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        m[i][0] = -i
    for j in range(len(b) + 1):
        m[0][j] = -j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            s = 1 if a[i - 1] == b[j - 1] else -1
            m[i][j] = max(m[i - 1][j - 1] + s, m[i - 1][j] - 1, m[i][j - 1] - 1)
    return np.array(m)


def test_needleman_wunsch():
    a = RNG.integers(0, 4, S)
    b = RNG.integers(0, 4, S)
    ref = _nw_reference(a, b)
    _, r = _run(nw, (a, b, np.zeros((S + 1, S + 1), dtype=np.int64)))
    assert np.array_equal(r.outputs["m"], ref) and r.value == ref[S, S]


def test_odd_even_sort():
    for arr in (RNG.integers(-1000, 1000, NS), np.arange(NS)[::-1].copy(), np.full(NS, -3)):
        _, r = _run(oddeven_sort, (arr,))
        assert np.array_equal(r.outputs["a"], np.sort(arr))
