"""Folding a pipelined loop's store epilogue into its last iteration: cycles by closed form,
RTL (pysim) == numpy under both schedulers, and the cases that must not fold."""

import numpy as np
import pytest

from archsim.compilers.hls.frontend import lower
from archsim.compilers.hls.ir import Region
from archsim.compilers.hls.transform import fold_epilogues
from archsim.dsl import Array, Int, kernel, pipeline

N = 5
RNG = np.random.default_rng(9)


@kernel
def matvec(a: Array[Int(8), N, N], x: Array[Int(8), N], y: Array[Int(32), N]):
    for i in range(N):
        acc = Int(32)(0)
        for k in pipeline(range(N), ii=1):
            acc += a[i][k] * x[k]
        y[i] = acc + i  # reads the outer loop's counter too


@kernel
def relu_rows(a: Array[Int(8), N, N], y: Array[Int(32), N]):
    for i in range(N):
        acc = Int(32)(0)
        for k in pipeline(range(N), ii=1):
            acc += a[i][k]
        if acc > 0:  # a predicated epilogue store
            y[i] = acc


@kernel
def counted(y: Array[Int(32), N]):
    for i in range(N):
        acc = Int(32)(0)
        for _k in pipeline(range(3), ii=1):  # the loop variable is not used in the body
            acc += 2
        y[i] = acc


@kernel
def reads_after(a: Array[Int(8), N, N], z: Array[Int(32), N], y: Array[Int(32), N]):
    for i in range(N):
        acc = Int(32)(0)
        for k in pipeline(range(N), ii=1):
            acc += a[i][k]
        y[i] = acc + z[i]  # a load in the epilogue: not folded


@kernel
def same_array(y: Array[Int(32), N]):
    for i in range(N):
        acc = Int(32)(0)
        for k in pipeline(range(N), ii=1):
            acc += y[k]
        y[i] = acc  # the loop reads y: not folded


def _straight_with_cycles(d):
    return [x for x in d.report().loops if x.kind == "straight" and x.depth]


def _pipelined(d):
    return next(x for x in d.report().loops if x.kind == "pipelined")


@pytest.mark.parametrize("scheduler", ["list", "sdc"])
def test_folded_matvec(scheduler):
    a, x = RNG.integers(-128, 128, (N, N)), RNG.integers(-128, 128, N)
    d = matvec.synthesize(scheduler=scheduler)
    assert not _straight_with_cycles(d)
    r = d.simulate(a, x, np.zeros(N, dtype=np.int64), backend="pysim")
    assert np.array_equal(r.outputs["y"], a @ x + np.arange(N))
    depth = _pipelined(d).depth
    assert r.cycles == d.cycles(a, x, None) == 1 + N * ((N - 1) + depth)


@pytest.mark.parametrize("scheduler", ["list", "sdc"])
def test_folded_predicated_store(scheduler):
    a = RNG.integers(-128, 128, (N, N))
    a[1] = -(np.abs(a[1]) % 127) - 1  # a row of -1..-127 (in Int(8)): negative sum, old value kept
    y0 = RNG.integers(-9, 9, N)
    want = np.where(a.sum(axis=1) > 0, a.sum(axis=1), y0)
    d = relu_rows.synthesize(scheduler=scheduler)
    assert not _straight_with_cycles(d)
    r = d.simulate(a, y0.copy(), backend="pysim")
    assert np.array_equal(r.outputs["y"], want)


def test_folded_loop_without_a_used_counter():
    d = counted.synthesize()
    r = d.simulate(np.zeros(N, dtype=np.int64), backend="pysim")
    assert np.array_equal(r.outputs["y"], np.full(N, 6))


@pytest.mark.parametrize("k", [reads_after, same_array])
def test_not_folded(k):
    ir = lower(k)
    assert fold_epilogues(ir) is ir
    d = k.synthesize()
    assert _straight_with_cycles(d)
    if k is reads_after:
        a, z = RNG.integers(-128, 128, (N, N)), RNG.integers(-9, 9, N)
        r = d.simulate(a, z, np.zeros(N, dtype=np.int64), backend="pysim")
        assert np.array_equal(r.outputs["y"], a.sum(axis=1) + z)
    else:
        y0 = RNG.integers(-9, 9, N)
        want = y0.copy()
        for i in range(N):
            want[i] = want.sum()
        r = d.simulate(y0.copy(), backend="pysim")
        assert np.array_equal(r.outputs["y"], want)


def test_fold_keeps_the_region_count_minus_the_epilogues():
    ir = lower(matvec)
    folded = fold_epilogues(ir)
    assert len(folded.regions()) == len(ir.regions()) - 1
    loop = next(r for r in folded.regions() if isinstance(r, Region) and r.is_loop)
    stores = [n for n in loop.nodes if n.kind == "store"]
    assert len(stores) == 1 and len(stores[0].args) == 3  # predicated on the last iteration
