"""Calls to ``@kernel`` functions that contain loops: inlined into the caller's FSM."""

import numpy as np
import pytest

from archsim.dsl import Array, Int, UInt, kernel, pipeline, unroll
from archsim.errors import DSLError


@kernel
def in_dot(a: Array[Int(8), 16], b: Array[Int(8), 16]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(16), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def in_scale(x: Array[Int(32), 8], s: Int(8), n: UInt(4)):
    for i in range(n):
        x[i] = x[i] * s


@kernel
def in_prefix(x: Array[Int(16), 8], n: UInt(4)) -> Int(32):
    s = Int(32)(0)
    for i in range(n):
        s += x[i]
    return s


@kernel
def in_sum4(a: Array[Int(8), 4]) -> Int(16):
    s = Int(16)(0)
    for i in unroll(range(4)):
        s += a[i]
    return s


@kernel
def in_caller(a: Array[Int(8), 16], b: Array[Int(8), 16], y: Array[Int(32), 8],
              m: UInt(4)) -> Int(32):
    d = in_dot(a, b)
    e = in_dot(b, b)
    for _r in range(2):
        in_scale(y, Int(8)(3), m)
    return d - e


@kernel
def in_triangle(x: Array[Int(16), 8]) -> Int(32):
    t = Int(32)(0)
    for k in range(9):
        p = in_prefix(x, k)  # the callee's loop bound is the caller's loop variable
        t += p
    return t


@kernel
def in_unrolled(a: Array[Int(8), 4], b: Array[Int(8), 4]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(3), ii=1):
        acc += in_sum4(a) * i + in_sum4(b)  # fully unrolled: inlined into the expression
    return acc


@kernel
def in_rowsum(x: Array[Int(16), 4, 8], r: UInt(2)) -> Int(32):
    s = Int(32)(0)
    for j in pipeline(range(8), ii=1):
        s += x[r][j]
    return s


@kernel
def in_total(x: Array[Int(16), 4, 8]) -> Int(32):
    t = Int(32)(0)
    for i in range(4):
        v = in_rowsum(x, i)
        t += v
    return t


@kernel
def in_twice(x: Array[Int(16), 4, 8]) -> Int(33):
    a = in_total(x)  # a callee that itself calls a kernel with loops
    return a + a


RNG = np.random.default_rng(21)


def _loops(design):
    return {r.name: r for r in design.report().loops}


def test_pipelined_and_sequential_callees():
    a, b = RNG.integers(-128, 128, 16), RNG.integers(-128, 128, 16)
    y = RNG.integers(-1000, 1000, 8)
    for m in (0, 5, 8):
        want_y = y * np.where(np.arange(8) < m, 9, 1)
        gy = y.copy()
        assert in_caller(a, b, gy, m) == int(a @ b - b @ b)
        assert np.array_equal(gy, want_y)
        d = in_caller.synthesize()
        r = d.simulate(a, b, y.copy(), m)
        assert r.value == int(a @ b - b @ b) and np.array_equal(r.outputs["y"], want_y)
        assert r.cycles == d.cycles(a, b, None, m)
    # each inlined copy keeps the callee's schedule: II 1, and its cycles
    alone = next(x for x in in_dot.synthesize().report().loops if x.kind == "pipelined")
    copies = [x for x in d.report().loops if x.kind == "pipelined"]
    assert len(copies) == 2
    assert all((c.ii_achieved, c.cycles) == (1, alone.cycles) for c in copies)
    assert all(c.name.startswith(f"L{alone.line}_in_dot") for c in copies)


def test_callee_bound_from_an_outer_loop_variable():
    x = RNG.integers(-1000, 1000, 8)
    want = sum(int(x[:k].sum()) for k in range(9))
    assert in_triangle(x) == want
    d = in_triangle.synthesize()
    r = d.simulate(x)
    assert r.value == want and r.cycles == d.cycles(x)
    # the inner loop's trip count follows k (no static trip); the closed form is exact
    inner = next(x for x in d.report().loops if x.kind == "sequential")
    assert inner.trip is None and inner.name.startswith("L") and "in_prefix" in inner.name


def test_fully_unrolled_callee_inlines_into_an_expression():
    a, b = RNG.integers(-128, 128, 4), RNG.integers(-128, 128, 4)
    want = sum(int(a.sum()) * i + int(b.sum()) for i in range(3))
    assert in_unrolled(a, b) == want
    d = in_unrolled.synthesize()
    r = d.simulate(a, b)
    assert r.value == want and r.cycles == d.cycles(a, b)


def test_nested_calls():
    x = RNG.integers(-1000, 1000, (4, 8))
    assert in_twice(x) == 2 * int(x.sum())
    d = in_twice.synthesize()
    r = d.simulate(x)
    assert r.value == 2 * int(x.sum()) and r.cycles == d.cycles(x)
    inner = next(x for x in d.report().loops if x.kind == "pipelined")
    assert (inner.trip, inner.ii_achieved) == (8, 1)


@pytest.mark.parametrize("body,message", [
    ("return in_prefix(x, 4) + 1", "kernel 'in_prefix' has loops, so its call must be a "
     "statement of its own"),
    ("n = UInt(4)(x[0])\n    t = in_prefix(x, n)\n    return t",
     "a loop bound of inlined kernel 'in_prefix' reads its parameter 'n'"),
    ("t = Int(32)(0)\n    for i in pipeline(range(2)):\n        t = in_prefix(x, 3)\n"
     "    return t", "only innermost loops can be pipelined"),
    ("t = Int(32)(0)\n    if x[0] > 0:\n        t = in_prefix(x, 3)\n    return t",
     "a loop inside an if is not supported yet"),
])
def test_bad_calls(tmp_path, body, message):
    src = ("from archsim.dsl import kernel, Int, UInt, Array, pipeline\n"
           "from tests_inline_callee import in_prefix\n"
           f"def k(x: Array[Int(16), 8]) -> Int(32):\n    {body}\n")
    (tmp_path / "tests_inline_callee.py").write_text(
        "from archsim.dsl import kernel, Int, UInt, Array\n"
        "@kernel\n"
        "def in_prefix(x: Array[Int(16), 8], n: UInt(4)) -> Int(32):\n"
        "    s = Int(32)(0)\n"
        "    for i in range(n):\n"
        "        s += x[i]\n"
        "    return s\n")
    (tmp_path / "kmod_inline.py").write_text(src)
    import importlib
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module("kmod_inline")
        with pytest.raises(DSLError, match=message) as ei:
            kernel(mod.k).synthesize()
        # the loop-bound error points at the callee's range(n); the others at the caller
        where = "tests_inline_callee.py" if "loop bound" in message else "kmod_inline.py"
        assert ei.value.filename == str(tmp_path / where)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kmod_inline", None)
        sys.modules.pop("tests_inline_callee", None)


@pytest.mark.slow
def test_inlined_loops_under_verilator():
    x = RNG.integers(-1000, 1000, 8)
    d = in_triangle.synthesize()
    r = d.simulate(x, backend="verilator")
    assert r.value == sum(int(x[:k].sum()) for k in range(9)) and r.cycles == d.cycles(x)
