"""Read-modify-write forwarding: histogram-style loops at II = 1, RTL (pysim) == numpy on
inputs that exercise the bypass (every sample in one bin, two alternating bins, random)."""

import numpy as np
import pytest

from archsim.compilers.hls import suite
from archsim.dsl import Array, Int, UInt, kernel, pipeline

N, BINS = 48, 16
RNG = np.random.default_rng(22)


@kernel
def weighted(x: Array[UInt(4), N], w: Array[Int(8), N], h: Array[Int(16), BINS]):
    for i in pipeline(range(N), ii=1):
        h[x[i]] += w[i]


@kernel
def guarded(x: Array[UInt(4), N], h: Array[UInt(16), BINS]):
    for i in pipeline(range(N), ii=1):
        if x[i] >= 4:  # a predicated store: the bypass must follow its enable
            h[x[i]] += 3


def _inputs() -> dict[str, np.ndarray]:
    return {"all equal": np.full(N, 7), "alternating": np.tile([2, 11], N // 2),
            "pairs": np.repeat(RNG.integers(0, BINS, N // 2), 2),
            "random": RNG.integers(0, BINS, N)}


def _pipelined(d):
    return next(x for x in d.report().loops if x.kind == "pipelined")


def _forwards(d) -> int:
    return sum(len(d.schedule.region(r).forwards) for r in d.schedule.all_regions())


@pytest.mark.parametrize("case", list(_inputs()))
def test_histogram_suite_kernel_at_ii_1(case):
    x = _inputs()[case]
    d = suite.histogram(N, BINS).synthesize()
    loop = _pipelined(d)
    assert loop.ii_achieved == 1 and _forwards(d) == 1
    assert loop.ii_reason.startswith("requested II met (read-modify-write forwarding: array 'h'")
    r = d.simulate(x, np.zeros(BINS, dtype=np.int64), backend="pysim")
    assert np.array_equal(r.outputs["h"], np.bincount(x, minlength=BINS))
    assert r.cycles == d.cycles(x, None) == 1 + (N - 1) + loop.depth


@pytest.mark.parametrize("case", ["all equal", "alternating", "random"])
def test_weighted_read_modify_write(case):
    x = _inputs()[case]
    w = RNG.integers(-128, 128, N)
    h0 = RNG.integers(-100, 100, BINS)
    want = h0.copy()
    np.add.at(want, x, w)
    want = (want + 2**15) % 2**16 - 2**15  # Int(16) wraps
    d = weighted.synthesize()
    assert _pipelined(d).ii_achieved == 1 and _forwards(d) == 1
    r = d.simulate(x, w, h0.copy(), backend="pysim")
    assert np.array_equal(r.outputs["h"], want) and r.cycles == d.cycles(x, w, h0)


@pytest.mark.parametrize("case", ["all equal", "alternating", "random"])
def test_predicated_read_modify_write(case):
    x = _inputs()[case]
    x = np.where(np.arange(N) % 3 == 0, 1, x)  # some samples fail the guard
    want = np.zeros(BINS, dtype=np.int64)
    sel = x[x >= 4]
    np.add.at(want, sel, 3)
    d = guarded.synthesize()
    assert _pipelined(d).ii_achieved == 1
    r = d.simulate(x, np.zeros(BINS, dtype=np.int64), backend="pysim")
    assert np.array_equal(r.outputs["h"], want)


def test_without_forwarding_the_ii_is_2_and_the_rtl_still_matches():
    x = _inputs()["all equal"]
    d = suite.histogram(N, BINS).synthesize(forwarding=False)
    assert _pipelined(d).ii_achieved == 2 and _forwards(d) == 0
    assert "_fwd" not in d.verilog()
    r = d.simulate(x, np.zeros(BINS, dtype=np.int64), backend="pysim")
    assert np.array_equal(r.outputs["h"], np.bincount(x, minlength=BINS))


@kernel
def two_reads(x: Array[UInt(3), 32], h: Array[Int(16), 8]):
    for i in pipeline(range(32), ii=1):
        h[x[i]] += h[0] + 1  # two reads of h's one port: II 2, h[0] itself is updated too


@pytest.mark.parametrize("scheduler", ["list", "sdc"])
def test_forwarding_at_ii_2_with_a_second_aliasing_read(scheduler):
    d = two_reads.synthesize(scheduler=scheduler)
    assert _pipelined(d).ii_achieved == 2
    for x in (np.zeros(32, dtype=np.int64), np.tile([0, 3], 16), RNG.integers(0, 8, 32)):
        h0 = RNG.integers(-5, 5, 8)
        want = [int(v) for v in h0]
        for v in x:  # the sequential semantics, by hand (Int(16) wraps)
            want[v] = ((want[v] + want[0] + 1) + 2**15) % 2**16 - 2**15
        r = d.simulate(x, h0.copy(), backend="pysim")
        assert r.outputs["h"].tolist() == want and r.cycles == d.cycles(x, h0)
