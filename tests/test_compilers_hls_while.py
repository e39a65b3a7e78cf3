"""``while bounded(cond, max_iter=N)``: golden == RTL, data-dependent cycles == measured."""

import numpy as np
import pytest

from archsim.compilers.hls import suite
from archsim.dsl import Array, Int, UInt, bounded, kernel
from archsim.errors import DSLError

collatz = suite.collatz()


@kernel
def first_at_least(a: Array[Int(16), 4, 16], key: Int(16), pos: Array[UInt(5), 4]):
    for r in range(4):
        i = UInt(5)(0)
        while bounded(a[r][i] < key, max_iter=16):
            i += 1
        pos[r] = i


def _collatz_steps(x):
    steps = 0
    while x != 1:
        x = 3 * x + 1 if x % 2 else x // 2
        steps += 1
    return steps


def test_collatz_golden_rtl_and_cycles():
    d = collatz.synthesize()
    base = d.simulate(1)
    assert base.value == 0 and base.cycles == d.cycles(1)
    ii = d.report().loops[-1].ii_achieved
    for x in (6, 7, 27, 97):
        steps = _collatz_steps(x)
        assert collatz(x) == steps
        r = d.simulate(x)
        assert r.value == steps and r.cycles == d.cycles(x)
        # one more sequential iteration per true condition
        assert r.cycles - base.cycles == steps * ii
        assert d.cycles(x, worst_case=True) == base.cycles + 199 * ii >= r.cycles


def test_while_inside_a_loop_counts_each_entry():
    rng = np.random.default_rng(3)
    a = np.sort(rng.integers(-100, 100, (4, 16)), axis=1)
    a[3] = np.arange(16) * 10 - 50  # found at index 9
    key = 40
    expected = [int(np.searchsorted(row, key)) for row in a]
    pos = np.zeros(4, dtype=np.int64)
    first_at_least(a, key, pos)
    assert pos.tolist() == expected
    d = first_at_least.synthesize()
    r = d.simulate(a, key, np.zeros(4, dtype=np.int64))
    assert r.outputs["pos"].tolist() == expected
    assert r.cycles == d.cycles(a, key, np.zeros(4, dtype=np.int64))
    with pytest.raises(DSLError, match="its cycles depend on the array contents"):
        d.cycles(None, key, None)
    assert d.cycles(None, key, None, worst_case=True) > r.cycles


def test_exceeding_max_iter_is_an_error_in_the_golden_run():
    @kernel
    def countdown(x: UInt(8)) -> UInt(8):
        n = UInt(8)(x)
        while bounded(n > 0, max_iter=4):
            n = n - 1
        return n

    assert countdown(4) == 0
    with pytest.raises(DSLError, match="the while loop at line .* did not finish within "
                       "max_iter=4 iterations"):
        countdown(5)
    d = countdown.synthesize()
    # the hardware stops after max_iter iterations in any case
    assert d.simulate(5).value == 1 and d.simulate(4).value == 0


def test_while_errors():
    def no_bound(x: UInt(8)) -> UInt(8):
        n = UInt(8)(x)
        while n > 0:
            n = n - 1
        return n

    with pytest.raises(DSLError, match="'while' needs a declared iteration bound"):
        kernel(no_bound)(3)

    def bad_bound(x: UInt(8)) -> UInt(8):
        n = UInt(8)(x)
        while bounded(n > 0, max_iter=0):
            n = n - 1
        return n

    with pytest.raises(DSLError, match="max_iter must be a positive int, not 0"):
        kernel(bad_bound)(3)

    def nested(a: Array[UInt(8), 4]) -> UInt(8):
        n = UInt(8)(0)
        while bounded(n < 3, max_iter=4):
            for i in range(4):
                n = n + a[i]
        return n

    with pytest.raises(DSLError, match="a while loop cannot contain rolled loops yet"):
        kernel(nested)(np.zeros(4, dtype=np.int64))


def test_bounded_under_a_module_alias():
    import archsim.dsl as dsl

    @kernel
    def halvings(x: UInt(16)) -> UInt(5):
        n = UInt(16)(x)
        k = UInt(5)(0)
        while dsl.bounded(n > 1, max_iter=16):
            n = n >> 1
            k += 1
        return k

    d = halvings.synthesize()
    for x in (1, 2, 1000, 65535):
        r = d.simulate(x)
        assert halvings(x) == r.value == max(0, int(x).bit_length() - 1)
        assert r.cycles == d.cycles(x)
