"""Memory dependence analysis: every verdict (independent / exact distances) checked against
brute-force enumeration of the iteration space, with the addresses written out by hand in
the test; then its effect on the suite's pipelined loops (sort, NW, SpMV) and RTL == golden.
"""

import numpy as np
import pytest

from archsim.compilers.hls import suite
from archsim.compilers.hls.dependence import affine_address, dependence
from archsim.compilers.hls.frontend import lower
from archsim.dsl import Array, Int, UInt, kernel, pipeline


@kernel
def shift_up(a: Array[Int(16), 16], b: Array[Int(16), 16]):
    for i in pipeline(range(15), ii=1):
        a[i] = a[i + 1] + b[i]


@kernel
def even_odd(a: Array[Int(16), 32], b: Array[Int(16), 16]):
    for i in pipeline(range(16), ii=1):
        a[2 * i] = a[2 * i + 1] + b[i]


@kernel
def strides(a: Array[Int(16), 32], b: Array[Int(16), 16]):
    for i in pipeline(range(16), ii=1):
        a[2 * i] = a[i] + b[i]


@kernel
def far(a: Array[Int(16), 16], b: Array[Int(16), 16]):
    for i in pipeline(range(12), ii=1):
        a[i + 4] = a[i] + b[i]


@kernel
def rows(m: Array[Int(16), 5, 6], b: Array[Int(16), 6]):
    for i in range(1, 5):
        for j in pipeline(range(1, 6), ii=1):
            m[i][j] = m[i - 1][j] + m[i][j - 1] + b[j]


@kernel
def stepped(a: Array[Int(16), 16]):
    for k in pipeline(range(1, 15, 2), ii=1):
        a[k] = a[k + 1] + a[k - 1]


@kernel
def same_word(a: Array[Int(16), 8], b: Array[Int(16), 8]):
    for i in pipeline(range(8), ii=1):
        a[3] = a[3] + b[i]


@kernel
def offset(a: Array[Int(16), 32], b: Array[Int(16), 16], n: UInt(4)):
    for i in pipeline(range(16), ii=1):
        a[n + i] = a[i] + b[i]


@kernel
def indirect(x: Array[UInt(3), 8], a: Array[Int(16), 8]):
    for i in pipeline(range(8), ii=1):
        a[x[i]] = a[x[i]] + 1


@kernel
def wraps(a: Array[Int(16), 8], b: Array[Int(16), 8]):
    for i in pipeline(range(8), ii=1):
        a[UInt(3)(i + 4)] = a[i] + b[i]  # (i + 4) mod 8: the cast wraps


#: kernel, array, iteration values of the loop variable, store address, load addresses (flat
#: row-major, written from the source by hand), and the enclosing loop's value if any
CASES = {
    "a[i] = a[i+1]": (shift_up, "a", range(15), lambda i, o: i, [lambda i, o: i + 1]),
    "a[2i] = a[2i+1]": (even_odd, "a", range(16), lambda i, o: 2 * i,
                        [lambda i, o: 2 * i + 1]),
    "a[2i] = a[i]": (strides, "a", range(16), lambda i, o: 2 * i, [lambda i, o: i]),
    "a[i+4] = a[i]": (far, "a", range(12), lambda i, o: i + 4, [lambda i, o: i]),
    "m[i][j] = m[i-1][j] + m[i][j-1]": (
        rows, "m", range(1, 6), lambda j, i: i * 6 + j,
        [lambda j, i: (i - 1) * 6 + j, lambda j, i: i * 6 + j - 1]),
    "a[k] = a[k+1] + a[k-1], step 2": (
        stepped, "a", range(1, 15, 2), lambda k, o: k, [lambda k, o: k + 1,
                                                         lambda k, o: k - 1]),
    "a[3] = a[3]": (same_word, "a", range(8), lambda i, o: 3, [lambda i, o: 3]),
}


def _region_and_accesses(k, array):
    ir = lower(k)
    region = next(r for r in ir.regions() if r.ii_requested is not None)
    store = next(n for n in region.nodes if n.kind == "store" and n.attrs["array"] == array)
    loads = [n for n in region.nodes if n.kind == "load" and n.attrs["array"] == array]
    return region, store, loads


def _brute(first, second, values, outer):
    """Distances d >= 0 with second(iteration n + d) == first(iteration n)."""
    vs = list(values)
    return tuple(sorted({n2 - n1 for n1 in range(len(vs)) for n2 in range(n1, len(vs))
                         if first(vs[n1], outer) == second(vs[n2], outer)}))


@pytest.mark.parametrize("case", list(CASES))
def test_verdicts_match_brute_force(case):
    k, array, values, st_addr, ld_addrs = CASES[case]
    region, store, loads = _region_and_accesses(k, array)
    assert len(loads) == len(ld_addrs)
    # the loads appear in source order; an outer loop variable (rows: i) takes each value
    for outer in (1, 2, 4):
        for ld, ld_addr in zip(loads, ld_addrs, strict=True):
            raw = dependence(store, ld, region)  # load in iteration n + d reads store's word
            war = dependence(ld, store, region)  # store in iteration n + d writes load's word
            assert raw.distances == _brute(st_addr, ld_addr, values, outer), case
            assert war.distances == _brute(ld_addr, st_addr, values, outer), case


def test_expected_verdicts_by_hand():
    # the same facts worked by hand: a[i] = a[i+1]: the store reaches the word a later
    # iteration loads only backwards (independent RAW), the anti-dependence has distance 1
    region, st, (ld,) = _region_and_accesses(shift_up, "a")
    assert dependence(st, ld, region).independent
    assert dependence(ld, st, region).distances == (1,)
    region, st, (ld,) = _region_and_accesses(even_odd, "a")
    assert "GCD test" in dependence(st, ld, region).reason
    region, st, (up, left) = _region_and_accesses(rows, "m")
    assert dependence(st, up, region).independent  # the row above is never written here
    assert dependence(st, left, region).distances == (1,)


def test_unknown_addresses_are_conservative():
    region, st, (ld,) = _region_and_accesses(offset, "a")
    assert dependence(st, ld, region).distances is None  # n + i vs i: n unknown
    assert dependence(st, ld, region).min_distance(1) == 1
    region, st, (ld,) = _region_and_accesses(indirect, "a")
    assert affine_address(ld.args[0], region) is None
    assert dependence(st, ld, region).distances is None


def test_a_wrapping_cast_is_not_taken_for_affine():
    region, st, (ld,) = _region_and_accesses(wraps, "a")
    # by hand: the store writes (i + 4) % 8, so iteration i + 4 overwrites (for i < 4) the
    # word iteration i loaded -- an anti-dependence at distance 4 that an unwrapped i + 4
    # (always above the loaded i) would call independent
    assert _brute(lambda i, o: i, lambda i, o: (i + 4) % 8, range(8), None) == (4,)
    assert _brute(lambda i, o: i, lambda i, o: i + 4, range(8), None) == ()
    assert dependence(ld, st, region).distances is None
    assert dependence(st, ld, region).distances is None
    a0, b = RNG.integers(-50, 50, 8), RNG.integers(-50, 50, 8)
    want = [int(v) for v in a0]
    for i in range(8):
        want[(i + 4) % 8] = want[i] + int(b[i])
    r = wraps.synthesize().simulate(a0.copy(), b, backend="pysim")
    assert r.outputs["a"].tolist() == want


def _loop(d):
    return [x for x in d.report().loops if x.kind == "pipelined"]


def test_sort_nw_spmv_are_not_bound_by_false_memory_recurrences():
    for k in (suite.oddeven_sort(8), suite.needleman_wunsch(6), suite.spmv_ellpack(4, 4, 8)):
        d = k.synthesize()
        loops = _loop(d)
        assert loops, k.name
        for loop in loops:
            assert "loop-carried dependence through array" not in loop.ii_reason, k.name


RNG = np.random.default_rng(5)


def test_pipelined_sort_and_nw_match_golden():
    for arr in (RNG.integers(-1000, 1000, 8), np.arange(8)[::-1].copy(), np.full(8, 4)):
        d = suite.oddeven_sort(8).synthesize()
        r = d.simulate(arr.copy(), backend="pysim")
        assert np.array_equal(r.outputs["a"], np.sort(arr)) and r.cycles == d.cycles(arr)
    a, b = RNG.integers(0, 4, 6), RNG.integers(0, 4, 6)
    k = suite.needleman_wunsch(6)
    m = np.zeros((7, 7), dtype=np.int64)
    want = k(a, b, m)
    d = k.synthesize()
    r = d.simulate(a, b, np.zeros((7, 7), dtype=np.int64), backend="pysim")
    assert r.value == want and np.array_equal(r.outputs["m"], m)
    assert r.cycles == d.cycles(a, b, None)


def test_shift_and_far_loops_match_a_python_loop():
    a0, b = RNG.integers(-50, 50, 16), RNG.integers(-50, 50, 16)
    for k, fn, n in ((shift_up, lambda a, i: (i, a[i + 1]), 15),
                     (far, lambda a, i: (i + 4, a[i]), 12)):
        want = [int(v) for v in a0]
        for i in range(n):
            dst, src = fn(want, i)
            want[dst] = src + int(b[i])
        d = k.synthesize()
        r = d.simulate(a0.copy(), b, backend="pysim")
        assert r.outputs["a"].tolist() == want
