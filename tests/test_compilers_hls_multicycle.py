"""Multi-cycle operators: pipelined multipliers at short clocks, sequential dividers."""

import math
import re

import numpy as np
import pytest

from archsim.dsl import Array, Int, kernel, pipeline

# the operator table's published first-order delays (hw/hls_ops docstring), recomputed here:
# FO4 = 0.36 ns/um x 45 nm; register overhead 5 FO4; SRAM clock-to-data 20 FO4
FO4 = 0.36 * 0.045


def mul_delay_ns(w):
    return (4 * math.log2(w) + 2 * math.log2(2 * w) + 8) * FO4


def mul_latency(w, clock_ns):
    return math.ceil(mul_delay_ns(w) / (clock_ns - 5 * FO4))


@kernel
def mc_dot(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(64), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def mc_gemm(a: Array[Int(8), 4, 4], b: Array[Int(8), 4, 4], c: Array[Int(32), 4, 4]):
    for i in range(4):
        for j in range(4):
            acc = Int(32)(0)
            for k in pipeline(range(4), ii=1):
                acc += a[i][k] * b[k][j]
            c[i][j] = acc


@kernel
def mc_squares(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(64), ii=1):
        x = a[i]
        y = b[i]
        acc += x * x + y * y + x * y
    return acc


RNG = np.random.default_rng(11)
A = RNG.integers(-128, 128, 64)
B = RNG.integers(-128, 128, 64)


def _loop(design):
    return next(r for r in design.report().loops if r.kind == "pipelined")


@pytest.mark.parametrize("clock_ns", [0.6, 0.4])
def test_dot_meets_a_short_clock_with_a_pipelined_multiplier(clock_ns):
    # Int(8) x Int(8) -> Int(16): the table costs it at 16 bits; 0.551 ns > the window
    lat = mul_latency(16, clock_ns)
    assert lat >= 2
    d = mc_dot.synthesize(clock_ns=clock_ns)
    rep = d.report()
    assert [(o.kind, o.latency, o.pipelined) for o in rep.operators] == [("mul", lat, True)]
    assert f"latency {lat} cycles (pipelined" in str(rep)
    assert "warning" not in str(rep) and d.critical_path_ns() <= clock_ns
    # closed form: load (cycle 0), data registered (1), multiply issues (2), its result is in
    # a register L cycles later, where the add and the write of acc chain: depth 3 + L; the
    # accumulation reads and writes acc in the same cycle, so II stays 1
    loop = _loop(d)
    assert (loop.ii_achieved, loop.depth) == (1, 3 + lat)
    r = d.simulate(A, B)
    assert r.value == int(A @ B)
    assert r.cycles == d.cycles(A, B) == 1 + 63 + 3 + lat
    # at a long clock the load, multiply and add chain into 2 cycles
    slow = mc_dot.synthesize(clock_ns=2.0)
    assert slow.report().operators == [] and _loop(slow).depth == 2


def test_gemm_at_a_short_clock():
    a = RNG.integers(-128, 128, (4, 4))
    b = RNG.integers(-128, 128, (4, 4))
    lat = mul_latency(16, 0.5)
    d = mc_gemm.synthesize(clock_ns=0.5)
    assert {o.latency for o in d.report().operators} == {lat}
    assert "warning" not in str(d.report())
    r = d.simulate(a, b, np.zeros((4, 4), dtype=np.int64))
    assert np.array_equal(r.outputs["c"], a @ b)
    # 16 pipelined inner loops of 4 iterations, II 1, depth 3 + L; plus the store of c
    inner = _loop(d)
    assert (inner.ii_achieved, inner.depth) == (1, 3 + lat)
    assert r.cycles == d.cycles(a, b, None)


def test_shared_pipelined_multiplier_issues_every_cycle():
    # three products on one pipelined multiplier: II 3 (one issue per cycle), not 3 x L
    d = mc_squares.synthesize(clock_ns=0.6, resources={"mul": 1})
    assert {o.latency for o in d.report().operators} == {mul_latency(16, 0.6)} == {2}
    assert _loop(d).ii_achieved == 3
    assert len(re.findall(r"\s\*\s", d.verilog())) == 1
    r = d.simulate(A, B)
    assert r.value == int(A @ A + B @ B + A @ B) and r.cycles == d.cycles(A, B)


@pytest.mark.slow
def test_pipelined_multiplier_under_verilator():
    d = mc_dot.synthesize(clock_ns=0.4)
    for a, b in ((A, B), (np.full(64, -128), np.full(64, -128))):
        r = d.simulate(a, b, backend="verilator")
        assert r.value == int(a @ b) and r.cycles == d.cycles(a, b)


def test_a_constant_multiplier_costs_the_same_on_either_side():
    from archsim.dsl import Array, Int, kernel, pipeline

    @kernel
    def right(x: Array[Int(16), 8], y: Array[Int(32), 8]):
        for i in pipeline(range(8), ii=1):
            y[i] = x[i] * 3

    @kernel
    def left(x: Array[Int(16), 8], y: Array[Int(32), 8]):
        for i in pipeline(range(8), ii=1):
            y[i] = 3 * x[i]

    a, b = right.synthesize(clock_ns=1.0), left.synthesize(clock_ns=1.0)
    assert a.critical_path_ns() == b.critical_path_ns()
    assert a.static_cycles() == b.static_cycles()
