"""RTL == golden (pysim) and predicted cycles == measured cycles for the kernel suite."""

import numpy as np
import pytest

from archsim.dsl import Array, Fixed, Int, UInt, kernel, partition, pipeline, unroll

N = 6


@kernel
def dot(a: Array[Int(8), 32], b: Array[Int(8), 32]) -> Int(32):
    acc = Int(32)(0)
    for i in range(32):
        acc += a[i] * b[i]
    return acc


@kernel
def fir(x: Array[Int(16), 24], h: Array[Int(16), 5], y: Array[Int(32), 24]):
    for n in range(24):
        acc = Int(32)(0)
        for k in range(5):
            if n >= k:
                acc += x[n - k] * h[k]
        y[n] = acc


@kernel
def gemm(a: Array[Int(8), N, N], b: Array[Int(8), N, N], c: Array[Int(32), N, N]):
    for i in range(N):
        for j in range(N):
            acc = Int(32)(0)
            for k in pipeline(range(N), ii=1):
                acc += a[i][k] * b[k][j]
            c[i][j] = acc


@kernel
def histogram(x: Array[UInt(4), 48], h: Array[UInt(8), 16], n: UInt(6)):
    for i in pipeline(range(n), ii=1):
        h[x[i]] += 1


@kernel
def clamp_stats(a: Array[Int(16), 16], lo: Int(16), hi: Int(16)) -> (Int(16), Int(16), Int(32)):
    mn = Int(16)(32767)
    mx = Int(16)(-32768)
    s = Int(32)(0)
    for i in range(16):
        v = min(max(a[i], lo), hi)
        mn = min(mn, a[i])
        mx = max(mx, a[i])
        s += (v & 0xFF) ^ (v >> 2) | (a[i] << 1)
    return mn, mx, s


@kernel
def bits(a: Array[UInt(8), 8], b: Array[UInt(8), 8]):
    for i in range(8):
        u = a[i]
        b[i] = ~u ^ (u >> 3) | (u % 4) + (u // 8) - abs(Int(8)(u)) + (UInt(3)(i) << UInt(2)(i))


@kernel
def triangle(a: Array[Int(16), 8, 8], n: UInt(4)) -> Int(32):
    s = Int(32)(0)
    for i in range(n):
        for j in range(i, n):
            if a[i][j] > 0:
                s += a[i][j]
            elif a[i][j] < -100:
                s -= 1
            else:
                s = s - a[i][j] if a[i][j] != -7 else s
    return s


T = Fixed(12, 6, rounding="round", overflow="saturate")
A = Fixed(16, 8, overflow="saturate")


@kernel
def fixed_mac(x: Array[T, 16], w: Array[T, 16], y: Array[A, 16], g: Fixed(8, 4)) -> A:
    acc = A(0)
    for i in pipeline(range(16), ii=1):
        p = x[i] * w[i]
        y[i] = p + g
        acc += p
    return acc


@kernel
def dot_unrolled(a: Array[Int(8), 32], b: Array[Int(8), 32]) -> Int(32):
    partition(a, factor=4, kind="cyclic")
    partition(b, factor=4, kind="cyclic")
    acc = Int(32)(0)
    for i in unroll(range(32), factor=4):
        acc += a[i] * b[i]
    return acc


def _check(k, args, array_names=(), **synth):
    """Golden on copies vs RTL (pysim); predicted cycles vs measured."""
    golden_args = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    expected = k(*golden_args)
    d = k.synthesize(**synth)
    r = d.simulate(*args)
    if isinstance(expected, tuple):
        assert r.value == expected
    else:
        assert r.value == expected
    names = list(k.param_names)
    for name in array_names:
        assert np.array_equal(r.outputs[name], golden_args[names.index(name)]), name
    assert d.cycles(*args) == r.cycles
    return d, r


RNG = np.random.default_rng(11)


def test_dot_random_and_edges():
    a = RNG.integers(-128, 128, 32)
    b = RNG.integers(-128, 128, 32)
    _check(dot, (a, b))
    _check(dot, (np.full(32, -128), np.full(32, -128)))  # largest products
    _, r = _check(dot, (np.full(32, 127), np.full(32, -128)))
    assert r.value == 32 * 127 * -128


def test_fir():
    x = RNG.integers(-2**15, 2**15, 24)
    h = RNG.integers(-2**15, 2**15, 5)
    d, r = _check(fir, (x, h, np.zeros(24, dtype=np.int64)), ("y",))
    full = np.convolve(x.astype(object), h.astype(object))[:24]
    assert list(r.outputs["y"]) == [(int(v) + 2**31) % 2**32 - 2**31 for v in full]


def test_gemm_int8_int32():
    a = RNG.integers(-128, 128, (N, N))
    b = RNG.integers(-128, 128, (N, N))
    d, r = _check(gemm, (a, b, np.zeros((N, N), dtype=np.int64)), ("c",))
    assert np.array_equal(r.outputs["c"], a @ b)
    # closed form: per (i, j) a pipelined loop of N iterations (II 1) whose last iteration
    # also stores c[i][j] (the epilogue is folded in: no straight-line region of its own)
    k = next(x for x in d.report().loops if x.name.endswith("_k"))
    assert (k.ii_achieved, k.trip) == (1, N)
    assert not [x for x in d.report().loops if x.kind == "straight" and x.depth]
    assert r.cycles == 1 + N * N * ((N - 1) * 1 + k.depth)


@pytest.mark.parametrize("n", [0, 1, 48])
def test_histogram_scalar_bound(n):
    x = np.concatenate([np.full(20, 5), RNG.integers(0, 16, 28)])
    d, r = _check(histogram, (x, np.zeros(16, dtype=np.int64), n), ("h",))
    assert np.array_equal(r.outputs["h"], np.bincount(x[:n], minlength=16))


def test_min_max_bitwise_and_tuple_return():
    a = np.concatenate([RNG.integers(-2**15, 2**15, 14), [-2**15, 2**15 - 1]])
    _check(clamp_stats, (a, -100, 2000))


def test_unsigned_bit_operations():
    _check(bits, (RNG.integers(0, 256, 8), np.zeros(8, dtype=np.int64)), ("b",))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_triangular_loops_and_elif(n):
    a = RNG.integers(-300, 300, (8, 8))
    a[0, 0] = -7
    _check(triangle, (a, n))


def test_fixed_point_round_and_saturate():
    x = RNG.uniform(-40, 40, 16)
    w = RNG.uniform(-4, 4, 16)
    _check(fixed_mac, (x, w, np.zeros(16), 0.3), ("y",))


def test_unroll_with_cyclic_partition():
    a = RNG.integers(-128, 128, 32)
    b = RNG.integers(-128, 128, 32)
    _check(dot_unrolled, (a, b))
    _check(dot_unrolled, (a, b), resources={"mul": 1})


@kernel
def unrolled_invert(a: Array[UInt(8), 8], b: Array[UInt(8), 8]):
    partition(a, factor=2)
    partition(b, factor=2)
    for i in unroll(range(8), factor=2):
        for k in unroll(range(2)):
            b[i] = a[i] + ~i + (~k << 2)


def test_unrolled_loop_variables_keep_the_loop_type():
    a = np.arange(8) * 7
    # i is UInt(4) (range(8) needs 4 bits), k is UInt(2): ~i = 15 - i, ~k = 3 - k
    expected = [(7 * i + (15 - i) + ((3 - 1) << 2)) % 256 for i in range(8)]
    d, r = _check(unrolled_invert, (a, np.zeros(8, dtype=np.int64)), ("b",))
    assert list(r.outputs["b"]) == expected


@kernel
def cube(v: Array[Int(8), 3, 4, 5], lo: UInt(3), hi: UInt(3)) -> (Int(32), UInt(8)):
    s = Int(32)(0)
    c = UInt(8)(0)
    for i in range(3):
        for j in range(lo, hi, 2):
            for k in pipeline(range(5)):
                s += v[i][j][k] * (i + 1)
                c += 1 if v[i][j][k] < 0 else 0
    return s, c


@pytest.mark.parametrize("lo,hi", [(0, 4), (1, 4), (3, 2)])
def test_3d_array_scalar_bounds_with_step_and_empty_loops(lo, hi):
    v = RNG.integers(-128, 128, (3, 4, 5))
    rows = [(i, j) for i in range(3) for j in range(lo, hi, 2)]
    expected = (int(sum((i + 1) * v[i, j].sum() for i, j in rows)),
                int(sum((v[i, j] < 0).sum() for i, j in rows)))
    _, r = _check(cube, (v, lo, hi))
    assert r.value == expected


@kernel
def reversed_prefix(x: Array[Int(16), 16], y: Array[Int(32), 16]) -> Int(32):
    buf = Array[Int(32), 16]()
    s = Int(32)(0)
    for i in pipeline(range(16), ii=1):
        s += x[i]
        buf[i] = s
    for i in range(16):
        y[i] = buf[15 - i]
    return buf[7]


def test_local_array():
    x = RNG.integers(-2**15, 2**15, 16)
    d, r = _check(reversed_prefix, (x, np.zeros(16, dtype=np.int64)), ("y",))
    assert np.array_equal(r.outputs["y"], np.cumsum(x)[::-1]) and r.value == np.cumsum(x)[7]
    assert "buf" not in r.outputs and "buf_host_addr" not in d.verilog()


@kernel
def mac3(w: Array[Int(8), 3], x0: Int(8), x1: Int(8), x2: Int(8)) -> Int(20):
    t = w[0] * x0 + w[1] * x1
    if x2 > 0:
        t += w[2] * x2
    return t


@kernel
def clamp16(v: Int(32), hi: Int(16)) -> Int(16):
    return min(max(v, -hi), hi)


@kernel
def conv3(x: Array[Int(8), 16], w: Array[Int(8), 3], y: Array[Int(16), 16], hi: Int(16)):
    for i in pipeline(range(14), ii=1):
        y[i] = clamp16(mac3(w, x[i], x[i + 1], x[i + 2]), hi)


def test_calls_to_other_kernels_are_inlined():
    x = RNG.integers(-128, 128, 16)
    w = RNG.integers(-128, 128, 3)
    ref = np.zeros(16, dtype=np.int64)
    for i in range(14):
        t = w[0] * x[i] + w[1] * x[i + 1] + (w[2] * x[i + 2] if x[i + 2] > 0 else 0)
        ref[i] = min(max(t, -5000), 5000)
    _, r = _check(conv3, (x, w, np.zeros(16, dtype=np.int64), 5000), ("y",))
    assert np.array_equal(r.outputs["y"], ref)


def test_bool_arguments_and_returns_golden_rtl_and_python():
    from archsim.dsl import Array, Int, kernel

    @kernel
    def signed_digest(a: Array[Int(8), 8], floor: bool) -> (Int(16), bool):
        s = Int(16)(0)
        for i in range(8):
            if floor and a[i] > 0:
                s += a[i] // 3
            else:
                s += a[i] % 5
        return s, s > 10

    a = np.array([3, -4, 7, 0, -1, 9, 2, -8])
    design = signed_digest.synthesize()
    for flag in (True, False):
        want = sum(int(x) // 3 if flag and x > 0 else int(x) % 5 for x in a)
        assert tuple(signed_digest(a, flag)) == (want, want > 10)
        run = design.simulate(a, flag)
        assert tuple(run.value) == (want, want > 10)
        assert run.cycles == design.cycles(a, flag)


def test_a_bool_for_a_non_bool_argument_is_an_error():
    from archsim.dsl import Int, kernel
    from archsim.errors import DSLError

    @kernel
    def inc(x: Int(8)) -> Int(9):
        return x + 1

    with pytest.raises(DSLError, match="argument 'x' must be a number, not bool"):
        inc(True)


@kernel
def scaled_sum(a: Array[Int(8), 8], k: Int(4)) -> Int(32):
    acc = Int(32)(0)
    for i in range(8):
        acc += a[i] * k
    return acc


@pytest.mark.parametrize("run", ["golden", "rtl"])
def test_out_of_range_arguments_name_the_element_unless_wrap(run):
    from archsim.errors import DSLError

    design = scaled_sum.synthesize()

    def call(*args, **kw):
        return scaled_sum(*args, **kw) if run == "golden" else \
            design.simulate(*args, **kw).outputs["return"]

    a = np.array([1, 2, -128, 127, 1000, 5, -129, 0])
    # Int(8) holds -128..127: element 4 (1000) is the first outside it
    with pytest.raises(DSLError, match=r"argument 'a' element \[4\] is 1000, outside the range "
                                       r"-128\.\.127 of Int\(8\)") as info:
        call(a, 3)
    assert info.value.lineno is not None and info.value.filename.endswith(".py")
    with pytest.raises(DSLError, match=r"argument 'k' is 8, outside the range -8\.\.7 of "
                                       r"Int\(4\)"):
        call(np.zeros(8, dtype=np.int64), 8)
    # wrap=True: two's complement, worked here with numpy: (v + 128) % 256 - 128, k = 8 -> -8
    wrapped = (a + 128) % 256 - 128
    assert call(a, 8, wrap=True) == int(np.sum(wrapped * -8))
    assert call(np.clip(a, -128, 127), 7) == int(np.sum(np.clip(a, -128, 127) * 7))
