"""Golden execution of @kernel functions, checked against numpy; DSL errors."""

import inspect

import numpy as np
import pytest

from archsim.dsl import Array, Fixed, Int, UInt, kernel, partition, pipeline, unroll
from archsim.errors import DSLError


@kernel
def dot(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(64), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def dot16(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(16):
    acc = Int(16)(0)
    for i in range(64):
        acc = acc + a[i] * b[i]
    return acc


@kernel
def fir(x: Array[Int(16), 32], h: Array[Int(16), 8], y: Array[Int(32), 32]):
    for n in range(32):
        acc = Int(32)(0)
        for k in unroll(range(8)):
            if n >= k:
                acc += x[n - k] * h[k]
        y[n] = acc


@kernel
def gemm(a: Array[Int(8), 8, 8], b: Array[Int(8), 8, 8], c: Array[Int(32), 8, 8]):
    for i in range(8):
        for j in range(8):
            acc = Int(32)(0)
            for k in range(8):
                acc += a[i][k] * b[k][j]
            c[i][j] = acc


@kernel
def histogram(x: Array[UInt(4), 64], h: Array[UInt(6), 16], n: UInt(8)):
    for i in range(n):
        h[x[i]] += 1


@kernel
def oob(a: Array[Int(8), 4], n: UInt(4)) -> Int(8):
    s = Int(8)(0)
    for i in range(n):
        s += a[i]
    return s


def test_dot_matches_numpy_and_wraps():
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, 64)
    b = rng.integers(-128, 128, 64)
    assert dot(a, b) == int(a @ b)
    # Int(16) accumulator wraps exactly like numpy int16 arithmetic
    a2 = np.full(64, 127)
    b2 = np.full(64, 127)
    expected = np.sum(a2.astype(np.int16) * b2.astype(np.int16), dtype=np.int16)
    assert dot16(a2, b2) == int(expected)


def test_fir_matches_numpy_convolve():
    rng = np.random.default_rng(2)
    x = rng.integers(-2**15, 2**15, 32)
    h = rng.integers(-2**15, 2**15, 8)
    y = np.zeros(32, dtype=np.int64)
    fir(x, h, y)
    full = np.convolve(x.astype(object), h.astype(object))[:32]
    ref = np.array([(int(v) + 2**31) % 2**32 - 2**31 for v in full])
    assert np.array_equal(y, ref)


def test_gemm_int8_to_int32():
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (8, 8))
    b = rng.integers(-128, 128, (8, 8))
    c = np.zeros((8, 8), dtype=np.int32)
    gemm(a, b, c)
    assert np.array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_histogram_matches_bincount_with_wrap():
    rng = np.random.default_rng(4)
    x = np.concatenate([np.full(40, 3), rng.integers(0, 16, 24)])
    h = np.zeros(16, dtype=np.int64)
    histogram(x, h, 64)
    assert np.array_equal(h, np.bincount(x, minlength=16) % 64)  # UInt(6) bins wrap


def test_out_of_range_inputs_are_errors_unless_wrap_is_asked_for():
    a = np.array([0] * 5 + [200] + [0] * 58)  # 200 is outside Int(8): -128..127
    b = np.array([0] * 5 + [1] + [0] * 58)
    with pytest.raises(DSLError, match=r"argument 'a' element \[5\] is 200, outside the range "
                                       r"-128\.\.127 of Int\(8\)"):
        dot(a, b)
    assert dot(a, b, wrap=True) == -56  # 200 - 256, two's complement, as before


def test_fixed_point_golden_matches_numpy_quantisation():
    t = Fixed(12, 6, rounding="round", overflow="saturate")
    acc_t = Fixed(16, 8)

    @kernel
    def fxp(x: Array[t, 16], w: Array[t, 16]) -> acc_t:
        acc = acc_t(0)
        for i in range(16):
            acc += x[i] * w[i]
        return acc

    rng = np.random.default_rng(5)
    x = rng.uniform(-40, 40, 16)
    w = rng.uniform(-2, 2, 16)
    q = lambda v: np.clip(np.floor(v * 64 + 0.5), -2048, 2047)  # noqa: E731
    prods = (q(x) * q(w)).astype(np.int64)  # codes with 12 fraction bits
    acc = 0
    for p in prods:  # Fixed(16, 8): floor to 8 fraction bits, then wrap to 16 bits
        acc = acc + int(p) // 16
        acc = (acc + 2**15) % 2**16 - 2**15
    assert fxp(x, w) == acc / 256


def test_out_of_bounds_names_array_and_index():
    with pytest.raises(DSLError, match=r"index \[4\] out of bounds for array 'a'") as ei:
        oob(np.zeros(4, dtype=np.int64), 5)
    line = inspect.getsourcelines(oob.fn)[1] + 4
    assert ei.value.lineno == line and ei.value.filename == __file__


def test_argument_checks():
    with pytest.raises(DSLError, match=r"argument 'a' must have shape \(64,\), not \(3,\)"):
        dot(np.zeros(3), np.zeros(64))
    with pytest.raises(DSLError, match="kernel 'dot' takes 2 arguments"):
        dot(np.zeros(64))


def _error_of(src_fn):
    with pytest.raises(DSLError) as ei:
        kernel(src_fn)(*([np.zeros(4, dtype=np.int64)]))
    return ei.value


def test_unsupported_syntax_points_at_file_line_col():
    def w(a: Array[Int(8), 4]):
        i = Int(8)(0)
        while i < 4:
            a[i] = 0

    err = _error_of(w)
    line = inspect.getsourcelines(w)[1] + 2
    assert (err.filename, err.lineno, err.col) == (__file__, line, 9)
    assert "'while' needs a declared iteration bound" in str(err) and "hint:" in str(err)
    assert str(err).startswith(f"{__file__}:{line}:9: ")


@pytest.mark.parametrize("body,message", [
    ("x = 0\n    a[0] = x", "variable 'x' is initialised with a plain int"),
    ("a[0] = a[0] / 2", "operator Div is not supported"),
    ("for i in [1, 2]:\n        a[i] = 0", "a loop must iterate over range"),
    ("a[0] = a[1:2]", "slices are not supported"),
    ("a[0] = a[0] // 0", "division by zero"),
    ("a[0] = print(1)", "call of 'print' is not supported"),
    ("a[0][1] = 1", r"array .a. has 1 dimension\(s\), indexed with 2"),
    ("a[7] = 1", "index 7 out of bounds for array 'a'"),
])
def test_unsupported_constructs(tmp_path, body, message):
    src = ("from archsim.dsl import kernel, Int, Array\n"
           f"def k(a: Array[Int(8), 4]):\n    {body}\n")
    path = tmp_path / "kmod.py"
    path.write_text(src)
    import importlib.util

    spec = importlib.util.spec_from_file_location("kmod_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(DSLError, match=message) as ei:
        kernel(mod.k)(np.zeros(4, dtype=np.int64))
    assert ei.value.filename == str(path) and ei.value.lineno >= 3


def test_partition_needs_a_static_bank():
    def g(a: Array[Int(8), 8], n: UInt(4)) -> Int(8):
        partition(a, factor=2)
        s = Int(8)(0)
        for i in range(n):
            s += a[i]
        return s

    with pytest.raises(DSLError, match="cannot tell which bank of partitioned array 'a'"):
        kernel(g)(np.zeros(8, dtype=np.int64), 3)


def test_missing_annotation():
    def f(a, b: Int(8)):
        return a

    with pytest.raises(DSLError, match="argument 'a' needs a hardware type annotation"):
        kernel(f)


def test_block_format_elements_are_golden_only():
    from archsim.dsl.formats import MXFormat

    @kernel
    def fsum(x: Array[MXFormat(element="fp8_e4m3", block_size=8), 8]) -> Fixed(24, 12):
        s = 0.0
        for i in range(8):
            s += x[i]
        return s

    x = np.array([1.0, 0.5, -2.0, 6.0, 0.75, -0.25, 1.25, 0.125])  # all exactly representable
    assert fsum(x) == float(x.sum())
    with pytest.raises(DSLError, match="element type mxfp8_e4m3 has no hardware lowering yet"):
        fsum.synthesize()


def test_local_array_must_be_declared_at_top_level():
    def f(a: Array[Int(8), 4]):
        for i in range(4):
            t = Array[Int(8), 4]()
            t[i] = a[i]

    with pytest.raises(DSLError, match="local array 't' must be declared at the top level"):
        kernel(f)(np.zeros(4, dtype=np.int64))


def test_inlined_kernel_with_loops_is_a_statement_of_its_own():
    @kernel
    def total(a: Array[Int(8), 4]) -> Int(16):
        s = Int(16)(0)
        for i in range(4):
            s += a[i]
        return s

    def outer(a: Array[Int(8), 4]) -> Int(16):
        return total(a) + 1

    with pytest.raises(DSLError, match="kernel 'total' has loops, so its call must be a "
                       "statement of its own"):
        kernel(outer)(np.zeros(4, dtype=np.int64))


def test_fixed_and_wide_arguments_are_range_checked_on_their_codes():
    t = Fixed(8, 4)  # codes -128..127 in steps of 1/16: values -8 .. 7.9375, truncating

    @kernel
    def first(x: Array[t, 4], w: Array[Int(64), 2]) -> Int(64):
        return w[0] + w[1]

    ok = np.array([7.99, -8.0, 0.5, 0.0])  # 7.99 * 16 = 127.84, truncated to code 127
    assert first(ok, np.array([1, 2])) == 3
    with pytest.raises(DSLError, match=r"argument 'x' element \[2\] is 8\.0, outside the "
                                       r"range -8\.\.7\.9375 of Fixed\(8, 4\)"):
        first(np.array([0.0, 1.0, 8.0, -9.0]), np.array([1, 2]))
    big = np.array([2**63 - 1, 2**62], dtype=object)  # fits Int(64): -2**63 .. 2**63 - 1
    assert first(ok, big) == (2**63 - 1 + 2**62 + 2**63) % 2**64 - 2**63
    with pytest.raises(DSLError, match=r"argument 'w' element \[1\] is 9223372036854775808"):
        first(ok, np.array([0, 2**63], dtype=object))
