"""General ``//`` and ``%``: a sequential divider with Python's floor semantics."""

import inspect

import numpy as np
import pytest

from archsim.dsl import Array, Fixed, Int, UInt, kernel, pipeline
from archsim.dsl.types import div_types
from archsim.errors import DSLError


def _pairs(ta, tb, *, zero=False):
    """Every (a, b) of the two types (b != 0 unless ``zero``), by enumeration."""
    ra = range(-(1 << (ta.width - 1)), 1 << (ta.width - 1)) if ta.signed else range(1 << ta.width)
    rb = range(-(1 << (tb.width - 1)), 1 << (tb.width - 1)) if tb.signed else range(1 << tb.width)
    pairs = [(x, y) for x in ra for y in rb if zero or y != 0]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def _divmod_kernel(ta, tb, n):
    qt, rt = div_types(ta, tb)

    @kernel
    def divmod_all(a: Array[ta, n], b: Array[tb, n], q: Array[qt, n], r: Array[rt, n]):
        for i in pipeline(range(n), ii=1):
            x = a[i]
            y = b[i]
            q[i] = x // y
            r[i] = x % y

    return divmod_all


CASES = [(Int(5), Int(5), {}), (UInt(5), UInt(4), {"div": 1}), (UInt(4), Int(4), {}),
         (Int(4), UInt(3), {})]


@pytest.mark.parametrize("ta,tb,res", CASES, ids=["i5_i5", "u5_u4_shared", "u4_i4", "i4_u3"])
def test_every_pair_matches_python_floor_division(ta, tb, res):
    a, b = _pairs(ta, tb)
    n = len(a)
    k = _divmod_kernel(ta, tb, n)
    q, r = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    k(a, b, q, r)  # golden
    assert np.array_equal(q, a // b) and np.array_equal(r, a % b)  # numpy floors like Python
    d = k.synthesize(resources=res)
    lat = ta.width + 2  # operand latch, one quotient bit per cycle, sign fix-up
    rep = d.report()
    assert {(o.kind, o.latency, o.pipelined) for o in rep.operators} == \
        {("div", lat, False), ("mod", lat, False)}
    loop = next(x for x in rep.loops if x.kind == "pipelined")
    # each divider is busy `lat` cycles per iteration: II = lat, or 2 * lat on one shared unit;
    # depth: load, registered data, divide (lat; one after the other when shared), store
    ops = 2 if res else 1
    assert loop.ii_achieved == ops * lat
    assert loop.depth == 3 + ops * lat
    assert d.report().resources["div"] == (1 if res else 2)
    out = d.simulate(a, b, np.zeros_like(a), np.zeros_like(a))
    assert np.array_equal(out.outputs["q"], a // b)
    assert np.array_equal(out.outputs["r"], a % b)
    assert out.cycles == d.cycles(a, b, None, None) == 1 + (n - 1) * ops * lat + 3 + ops * lat


@kernel
def div_scalar(x: Int(8), y: Int(8)) -> (Int(9), Int(8), Int(9)):
    return x // y, x % y, 100 // x


def test_scalar_division_and_constant_operands():
    for x, y in ((-7, 2), (7, -2), (-128, -1), (127, 5), (-128, 127), (1, -128)):
        want = (x // y, x % y, 100 // x)
        assert div_scalar(x, y) == want
        d = div_scalar.synthesize()
        r = d.simulate(x, y)
        assert r.value == want and r.cycles == d.cycles(x, y)


@kernel
def div_by_zero(a: Array[Int(6), 8], b: Array[Int(6), 8], q: Array[Int(7), 8],
                r: Array[Int(6), 8]):
    for i in range(8):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def test_division_by_zero():
    a = np.array([-32, -7, -1, 0, 1, 7, 31, 5])
    b = np.zeros(8, dtype=np.int64)
    with pytest.raises(DSLError, match=r"division by zero: -32 // 0") as ei:
        div_by_zero(a, b, np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.int64))
    line = inspect.getsourcelines(div_by_zero.fn)[1] + 4
    assert (ei.value.filename, ei.value.lineno) == (__file__, line)
    # the hardware's documented result (as RISC-V): quotient -1, remainder the dividend
    d = div_by_zero.synthesize()
    out = d.simulate(a, b, np.zeros_like(a), np.zeros_like(a))
    assert np.array_equal(out.outputs["q"], np.full(8, -1))
    assert np.array_equal(out.outputs["r"], a)


def test_division_errors():
    def const0(a: Array[Int(8), 4]):
        a[0] = a[1] // 0

    def fixed(a: Array[Fixed(8, 4), 4]):
        a[0] = a[1] % a[2]

    with pytest.raises(DSLError, match="division by zero"):
        kernel(const0).synthesize()
    with pytest.raises(DSLError, match="// and % are defined for integer types only"):
        kernel(fixed).synthesize()
    with pytest.raises(TypeError, match="% is defined for integer types only"):
        Fixed(8, 4)(1.5) % Int(4)(3)


def test_division_types():
    assert div_types(Int(8), Int(4)) == (Int(9), Int(4))
    assert div_types(UInt(8), UInt(4)) == (UInt(8), UInt(4))
    assert div_types(UInt(8), Int(4)) == (Int(9), Int(4))
    assert (Int(8)(-7) // 2).value == -4 and (Int(8)(-7) % 2).value == 1  # shift and mask
    assert (Int(8)(-7) // 3).value == -3 and (Int(8)(-7) % 3).value == 2
    assert (Int(8)(-7) % Int(4)(-3)).value == -1 and (5 // Int(4)(-2)).value == -3


@pytest.mark.slow
def test_divider_under_verilator():
    ta, tb = Int(5), Int(5)
    a, b = _pairs(ta, tb)
    k = _divmod_kernel(ta, tb, len(a))
    d = k.synthesize(resources={"div": 1})
    out = d.simulate(a, b, np.zeros_like(a), np.zeros_like(a), backend="verilator")
    assert np.array_equal(out.outputs["q"], a // b)
    assert np.array_equal(out.outputs["r"], a % b)
    assert out.cycles == d.cycles(a, b, None, None)
