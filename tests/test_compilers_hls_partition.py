"""``partition(a, factor=k, kind="block")``: contiguous banks, golden == RTL, ports per bank."""

import numpy as np
import pytest

from archsim.dsl import Array, Int, kernel, partition, pipeline, unroll
from archsim.errors import DSLError

D = 16


@kernel
def quarter_sums(a: Array[Int(16), 4 * D], y: Array[Int(32), 12]) -> Int(32):
    partition(a, factor=4, kind="block")
    partition(y, factor=3, kind="block")
    tot = Int(32)(0)
    for i in pipeline(range(D), ii=1):
        s = Int(32)(0)
        for u in unroll(range(4)):
            s += a[u * D + i]
        tot += s
    for j in range(4):
        y[j] = a[j]
        y[j + 4] = a[D + j]
        y[j + 8] = a[4 * D - 1 - j]
    return tot


@kernel
def quarter_sums_flat(a: Array[Int(16), 4 * D], y: Array[Int(32), 12]) -> Int(32):
    tot = Int(32)(0)
    for i in pipeline(range(D), ii=1):
        s = Int(32)(0)
        for u in unroll(range(4)):
            s += a[u * D + i]
        tot += s
    return tot


def test_block_partition_golden_rtl_and_ii():
    a = np.random.default_rng(8).integers(-2**15, 2**15, 4 * D)
    y = np.zeros(12, dtype=np.int64)
    assert quarter_sums(a, y) == int(a.sum())
    ref_y = np.concatenate([a[:4], a[D:D + 4], a[::-1][:4]])
    assert np.array_equal(y, ref_y)
    d = quarter_sums.synthesize()
    r = d.simulate(a, np.zeros(12, dtype=np.int64))
    assert r.value == int(a.sum()) and np.array_equal(r.outputs["y"], ref_y)
    assert r.cycles == d.cycles(a, None)
    rep = d.report()
    assert rep.loops[0].ii_achieved == 1  # four reads per iteration on four banks
    assert [m["banks"] for m in rep.memories] == [4, 3]
    assert [m["depth"] for m in rep.memories] == [D, 4]
    # unpartitioned: one read port, four reads per iteration
    flat = quarter_sums_flat.synthesize().report().loops[0]
    assert flat.ii_achieved == 4 and "memory port" in flat.ii_reason


def test_block_partition_errors():
    def dynamic(a: Array[Int(16), 64]) -> Int(32):
        partition(a, factor=4, kind="block")
        s = Int(32)(0)
        for i in range(32):
            s += a[2 * i]
        return s

    with pytest.raises(DSLError, match="cannot tell which bank of block-partitioned array 'a'"):
        kernel(dynamic)(np.zeros(64, dtype=np.int64))

    def bad_factor(a: Array[Int(16), 64]) -> Int(16):
        partition(a, factor=5, kind="block")
        return a[0]

    with pytest.raises(DSLError, match="block partition factor must be a positive int "
                       "dividing the array size 64, not 5"):
        kernel(bad_factor)(np.zeros(64, dtype=np.int64))


def test_a_bool_partition_factor_is_rejected():
    from archsim.dsl import Array, Int, kernel, partition
    from archsim.errors import DSLError

    @kernel
    def k(a: Array[Int(8), 8]) -> Int(8):
        partition(a, factor=True, kind="cyclic")
        return a[0]

    with pytest.raises(DSLError, match="partition factor must be a power of two"):
        k.synthesize()
