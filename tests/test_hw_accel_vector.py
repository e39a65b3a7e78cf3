"""The element-wise vector unit: RTL (pysim) == golden == numpy written here, cycles measured."""

import numpy as np
import pytest
from scipy.special import erf

from archsim.errors import ConfigError
from archsim.hw.accel.vector import (
    FUNCTION_OPS,
    VECTOR_OPS,
    VectorUnit,
    gelu_q610,
    tanh_q610,
    vector_op_code,
    vector_op_golden,
)
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit

WORDS = 32  # addr_width=5: small buffers keep pysim fast


def words(values, width):
    """Signed values -> raw unsigned words."""
    return np.asarray(values, dtype=np.int64) & ((1 << width) - 1)


def signed(w, width):
    w = np.asarray(w, dtype=np.int64)
    return np.where(w >= 1 << (width - 1), w - (1 << width), w)


def clip(x, width):
    return np.clip(x, -(1 << (width - 1)), (1 << (width - 1)) - 1)


def half_up(x, shift):
    """floor(x / 2**shift + 1/2) in exact Python integers (an independent spelling)."""
    if shift == 0:
        return [int(v) for v in x]
    return [(int(v) + (1 << (shift - 1))) // (1 << shift) for v in x]


def reference(op, a, b, shift, zw, rows=0, cols=0):
    """The op written directly in numpy / Python ints, not through the module's helpers."""
    a = [int(v) for v in a]
    b = [int(v) for v in b]
    if op == "add":
        r = [x + y for x, y in zip(a, b, strict=True)]
    elif op == "sub":
        r = [x - y for x, y in zip(a, b, strict=True)]
    elif op == "mul":
        r = half_up([x * y for x, y in zip(a, b, strict=True)], shift)
    elif op == "max":
        r = [max(x, y) for x, y in zip(a, b, strict=True)]
    elif op == "relu":
        r = [max(x, 0) for x in a]
    elif op == "relu_grad":
        r = [x if y > 0 else 0 for x, y in zip(a, b, strict=True)]
    elif op == "copy":
        r = a
    elif op == "requant":
        r = half_up(a, shift)
    elif op == "scale":
        r = half_up([x * b[0] for x in a], shift)
    elif op == "transpose":
        r = half_up(list(np.array(a[:rows * cols]).reshape(rows, cols).T.ravel()), shift)
    else:  # add_requant
        r = half_up([x + y for x, y in zip(a, b, strict=True)], shift)
    return clip(np.array(r, dtype=np.int64), zw)


def edge_values(width, n, rng):
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    fixed = [lo, hi, 0, -1, 1, lo + 1, hi - 1, -6, 6, -2, 2, -10]
    rand = rng.integers(lo, hi + 1, n).tolist()
    return np.array((fixed + rand)[:n], dtype=np.int64)


def run(unit, a, b, args, *, stall=0.0, seed=0):
    bufs = {"a": words(a, unit.a_width), "b": words(b, unit.b_width),
            "z": np.zeros(WORDS, np.int64)}
    gold = {k: np.zeros(WORDS, np.int64) for k in bufs}
    for k in bufs:
        gold[k][:len(bufs[k])] = bufs[k]
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=stall, seed=seed)
    return res, gold


@pytest.mark.parametrize("op", [o for o in VECTOR_OPS if o not in FUNCTION_OPS])
def test_each_op_rtl_equals_golden_and_numpy(op):
    rng = np.random.default_rng(VECTOR_OPS[op])
    aw, bw, zw, n, shift = 16, 16, 8, 12, 3
    a = edge_values(aw, 16, rng)
    b = np.roll(edge_values(bw, 16, rng), 3)
    rows, cols = 3, 4
    unit = VectorUnit(a_width=aw, b_width=bw, z_width=zw, addr_width=5)
    args = dict(a_addr=2, b_addr=1, z_addr=5, op=VECTOR_OPS[op], n=n, shift=shift,
                rows=rows, cols=cols)
    bufs_a = np.zeros(WORDS, np.int64)
    bufs_a[2:2 + len(a)] = a
    bufs_b = np.zeros(WORDS, np.int64)
    bufs_b[1:1 + len(b)] = b
    res, gold = run(unit, bufs_a, bufs_b, args)
    m = rows * cols if op == "transpose" else n
    expect = reference(op, a[:m], b[:m], shift, zw, rows, cols)
    assert signed(res.buffers["z"][5:5 + m], zw).tolist() == expect.tolist()
    assert np.array_equal(res.buffers["z"], gold["z"])
    # nothing outside the footprint is written
    assert not res.buffers["z"][:5].any() and not res.buffers["z"][5 + m:].any()
    assert res.cycles == unit.cycles(args)
    assert vector_op_golden(op, a[:m], b[:m], shift, zw, rows=rows, cols=cols).tolist() \
        == expect.tolist()


def test_requant_int32_to_int8_and_q6_10_saturates_and_rounds_half_up():
    acc = np.array([-(1 << 31), (1 << 31) - 1, 0, -1, 1, 1 << 9, -(1 << 9), 3 << 9,
                    -(3 << 9), (5 << 8), -(5 << 8), 127 << 10, -128 << 10, 1000000],
                   dtype=np.int64)
    for zw, shift in ((8, 10), (16, 6)):
        unit = VectorUnit(a_width=32, b_width=32, z_width=zw, addr_width=5)
        args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["requant"], n=len(acc),
                    shift=shift, rows=0, cols=0)
        res, gold = run(unit, acc, np.zeros(1), args)
        expect = np.clip(np.floor(acc / 2.0 ** shift + 0.5), -(1 << (zw - 1)),
                         (1 << (zw - 1)) - 1).astype(np.int64)
        got = signed(res.buffers["z"][:len(acc)], zw)
        assert got.tolist() == expect.tolist()
        assert np.array_equal(res.buffers["z"], gold["z"])
    # int8 at shift 10: 2**9 is exactly one half -> 1, -2**9 -> 0, 3 * 2**9 -> 2, -3*2**9 -> -1
    assert vector_op_golden("requant", acc[5:9], acc[:1], 10, 8).tolist() == [1, 0, 2, -1]


def test_rounding_of_negative_values_is_half_up():
    # hand-computed: x / 2 for x = -3, -1, 1, 3, -4 -> -1.5, -0.5, 0.5, 1.5, -2 -> -1, 0, 1, 2, -2
    got = vector_op_golden("requant", np.array([-3, -1, 1, 3, -4]), np.zeros(1), 1, 8)
    assert got.tolist() == [-1, 0, 1, 2, -2]
    unit = VectorUnit(a_width=8, b_width=8, z_width=8, addr_width=5)
    a = np.array([-3, -1, 1, 3, -4, -7, 7, -8])
    args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["mul"], n=8, shift=2,
                rows=0, cols=0)
    # a * 2 / 4 = a / 2: -1.5 -> -1, -0.5 -> 0, 0.5 -> 1, 1.5 -> 2, -2, -3.5 -> -3, 3.5 -> 4, -4
    res, _ = run(unit, a, np.full(8, 2), args)
    assert signed(res.buffers["z"][:8], 8).tolist() == [-1, 0, 1, 2, -2, -3, 4, -4]


def test_wide_multiply_saturates_at_32_bits():
    big = (1 << 31) - 1
    a = np.array([-(1 << 31), -(1 << 31), big, big, -5, 123456789])
    b = np.array([-(1 << 31), big, big, -(1 << 31), 7, -987654])
    unit = VectorUnit(addr_width=5)
    for shift in (0, 31, 62):
        args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["mul"], n=6, shift=shift,
                    rows=0, cols=0)
        res, gold = run(unit, a, b, args)
        expect = reference("mul", a, b, shift, 32)
        assert signed(res.buffers["z"][:6], 32).tolist() == expect.tolist()
        assert np.array_equal(res.buffers["z"], gold["z"])


def test_mul_rounds_half_up_at_every_kind_of_shift():
    # 64-bit products near both ends, odd ones and ones that are exactly half a step: the
    # rounding bit comes from bit s - 1 for s >= 1 and from nowhere for s = 0; the reference
    # is floor(x / 2**s + 1/2) in Python integers, clipped to int32.
    big = (1 << 31) - 1
    a = np.array([-(1 << 31), -(1 << 31), big, big, -3, 3, -1, 1 << 20, -(1 << 20), 77])
    b = np.array([-(1 << 31), big, big, -(1 << 31), 1, 1, 1, (1 << 11) + 1, 1 << 11, -3])
    unit = VectorUnit(addr_width=5)
    for shift in (0, 1, 2, 31, 32, 33, 62, 63):
        args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["mul"], n=len(a), shift=shift,
                    rows=0, cols=0)
        res, gold = run(unit, a, b, args)
        exact = [int(x) * int(y) for x, y in zip(a, b, strict=True)]
        rounded = [x if shift == 0 else (x + (1 << (shift - 1))) >> shift for x in exact]
        expect = [min(max(r, -(1 << 31)), big) for r in rounded]
        assert signed(res.buffers["z"][:len(a)], 32).tolist() == expect
        assert np.array_equal(res.buffers["z"], gold["z"])


@pytest.mark.parametrize("op", ["mul", "transpose", "scale"])
def test_stalls_change_neither_results_nor_enabled_cycles(op):
    rng = np.random.default_rng(5)
    a = rng.integers(-500, 500, 20)
    b = rng.integers(-500, 500, 20)
    unit_args = dict(a_addr=0, b_addr=3, z_addr=1, op=VECTOR_OPS[op], n=10, shift=4,
                     rows=2, cols=5)
    calm, _ = run(VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=5), a, b,
                  unit_args)
    unit = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=5)
    stalled, gold = run(unit, a, b, unit_args, stall=0.25, seed=3)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == calm.cycles == unit.cycles(unit_args)
    assert np.array_equal(stalled.buffers["z"], calm.buffers["z"])
    assert np.array_equal(stalled.buffers["z"], gold["z"])


def test_transpose_of_a_non_square_matrix():
    a = np.arange(15) - 7
    unit = VectorUnit(a_width=8, b_width=8, z_width=8, addr_width=5)
    args = dict(a_addr=0, b_addr=0, z_addr=16, op=VECTOR_OPS["transpose"], n=0, shift=0,
                rows=3, cols=5)
    res, _ = run(unit, a, np.zeros(1), args)
    assert signed(res.buffers["z"][16:31], 8).tolist() == a.reshape(3, 5).T.ravel().tolist()
    assert res.cycles == unit.cycles(args)


def test_zero_elements_take_one_cycle_and_write_nothing():
    unit = VectorUnit(a_width=8, b_width=8, z_width=8, addr_width=5)
    args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["add"], n=0, shift=0,
                rows=0, cols=0)
    res, _ = run(unit, np.ones(4), np.ones(4), args)
    assert res.cycles == unit.cycles(args) == 1
    assert not res.buffers["z"].any()


def test_actions_and_footprint():
    unit = VectorUnit(addr_width=8)
    base = dict(a_addr=4, b_addr=20, z_addr=40, n=6, shift=2, rows=2, cols=3)
    scale = unit.actions({**base, "op": VECTOR_OPS["scale"]})
    assert scale == {"alu": 6, "mul": 6, "read:a": 6, "read:b": 1, "write:z": 6}
    relu = unit.actions({**base, "op": VECTOR_OPS["relu"]})
    assert relu["read:b"] == 0 and relu["mul"] == 0
    assert unit.footprint({**base, "op": VECTOR_OPS["add"]}) == {
        "a": (4, 10), "b": (20, 26), "z": (40, 46)}
    assert unit.footprint({**base, "op": VECTOR_OPS["transpose"]})["z"] == (40, 46)
    assert set(unit.ENERGY_PER_ACTION_J) == set(unit.ENERGY_SOURCES) == {
        "alu", "mul", "rom", "interp"}
    silence_unused(unit)  # a model-only use: never elaborated


def test_bad_arguments_raise_exact_errors():
    with pytest.raises(ConfigError) as info:
        vector_op_code("softplus")
    assert str(info.value) == (
        "field 'op': unknown vector op 'softplus' (allowed: 'add', 'add_requant', 'copy', "
        "'gelu', 'max', 'mul', 'relu', 'relu_grad', 'requant', 'scale', 'sub', 'tanh', "
        "'transpose')")
    with pytest.raises(ConfigError, match="unknown vector op 'div'"):
        vector_op_golden("div", np.zeros(1), np.zeros(1), 0, 8)
    assert vector_op_code("scale") == VECTOR_OPS["scale"] == 7
    with pytest.raises(ValueError, match=r"^a_width must be in 2\.\.32, not 1$"):
        VectorUnit(a_width=1)
    with pytest.raises(TypeError, match=r"^z_width must be an int, not 8\.0$"):
        VectorUnit(z_width=8.0)
    unit = VectorUnit(addr_width=4)
    args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["add"], n=4, shift=0, rows=0,
                cols=0)
    with pytest.raises(ValueError, match=r"argument 'op' must be one of .*'transpose': 8.*"
                                         r"'tanh': 11, 'relu_grad': 12}, not 13$"):
        unit.cycles({**args, "op": 13})
    with pytest.raises(ValueError, match=r"argument 'shift' must be in 0\.\.63, not 64$"):
        unit.cycles({**args, "shift": 64})
    with pytest.raises(ValueError, match="17 elements do not fit a 4-bit address space"):
        unit.cycles({**args, "n": 17})
    with pytest.raises(ValueError, match="argument 'rows' is missing"):
        unit.cycles({k: v for k, v in args.items() if k != "rows"})
    silence_unused(unit)


def test_in_place_requant_on_a_shared_buffer():
    acc = np.array([1000, -1000, 123456, -7, 8, 2047, -2048, 5000, 0, 3])
    unit = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=5)
    args = dict(a_addr=4, b_addr=0, z_addr=4, op=VECTOR_OPS["requant"], n=10, shift=4,
                rows=0, cols=0)
    buf = np.zeros(WORDS, np.int64)
    buf[4:14] = words(np.clip(acc, -32768, 32767), 16)
    res = run_unit(unit, {"x": buf, "b": np.zeros(WORDS, np.int64)}, args,
                   bind={"a": "x", "z": "x", "b": "b"})
    expect = np.clip(np.floor(np.clip(acc, -32768, 32767) / 16.0 + 0.5), -32768, 32767)
    assert signed(res.buffers["x"][4:14], 16).tolist() == expect.astype(np.int64).tolist()
    gold = buf.copy()
    unit.golden({"a": gold, "z": gold, "b": np.zeros(WORDS, np.int64)}, args)
    assert np.array_equal(res.buffers["x"], gold)


def test_converts_to_verilog():
    from archsim.hw.verilog import to_verilog
    text = to_verilog(VectorUnit(a_width=16, b_width=8, z_width=8, addr_width=6), name="vec")
    assert "module vec" in text and "z__data" in text


# --- lanes -------------------------------------------------------------------------------

@pytest.mark.parametrize("op", [o for o in VECTOR_OPS if o not in FUNCTION_OPS
                                and o != "transpose"])
def test_each_op_with_four_lanes_equals_numpy(op):
    rng = np.random.default_rng(40 + VECTOR_OPS[op])
    aw, zw, n, shift, lanes = 16, 8, 24, 3, 4
    unit = VectorUnit(a_width=aw, b_width=aw, z_width=zw, addr_width=4, lanes=lanes)
    a_buf = np.zeros(64, np.int64)
    b_buf = np.zeros(64, np.int64)
    a_buf[8:8 + 24] = edge_values(aw, 24, rng)
    b_buf[4:4 + 24] = np.roll(edge_values(aw, 24, rng), 5)
    b_buf[4] = -7  # scale's b[0]
    args = dict(a_addr=8, b_addr=4, z_addr=12, op=VECTOR_OPS[op], n=n, shift=shift, rows=0,
                cols=0)
    bufs = {"a": words(a_buf, aw), "b": words(b_buf, aw), "z": np.zeros(64, np.int64)}
    gold = {k: v.copy() for k, v in bufs.items()}
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=0.3, seed=1)
    expect = reference(op, a_buf[8:8 + n], b_buf[4:4 + n], shift, zw)
    assert signed(res.buffers["z"][12:12 + n], zw).tolist() == expect.tolist()
    assert np.array_equal(res.buffers["z"], gold["z"])
    assert not res.buffers["z"][:12].any() and not res.buffers["z"][12 + n:].any()
    assert res.stall_cycles > 0
    assert res.cycles == unit.cycles(args) == n // lanes + 3


def test_lane_model_views():
    unit = VectorUnit(addr_width=6, lanes=8)
    silence_unused(unit)
    base = dict(a_addr=16, b_addr=64, z_addr=8, n=48, shift=2, rows=0, cols=0)
    assert unit.cycles({**base, "op": VECTOR_OPS["add"]}) == 48 // 8 + 3
    assert unit.cycles({**base, "n": 0, "op": VECTOR_OPS["add"]}) == 1
    assert unit.actions({**base, "op": VECTOR_OPS["add"]}) == {
        "alu": 48, "mul": 0, "read:a": 6, "read:b": 6, "write:z": 6}
    assert unit.actions({**base, "op": VECTOR_OPS["scale"]})["read:b"] == 1
    assert unit.footprint({**base, "op": VECTOR_OPS["scale"]}) == {
        "a": (16, 64), "b": (64, 72), "z": (8, 56)}
    assert unit.contract.operand("z").lanes == 8
    # 8 << 6 = 512 elements fit, 520 do not
    assert unit.cycles({**base, "a_addr": 0, "n": 512, "op": VECTOR_OPS["copy"]}) == 67
    with pytest.raises(ValueError, match="520 elements do not fit"):
        unit.cycles({**base, "a_addr": 0, "n": 520, "op": VECTOR_OPS["copy"]})


# --- GELU and tanh in Q6.10 --------------------------------------------------------------

ALL_CODES = np.arange(-(1 << 15), 1 << 15)


def gelu_float(x):
    """BERT's exact GELU in float64: x * Phi(x) = x / 2 * (1 + erf(x / sqrt 2))."""
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


FLOAT = {"gelu": gelu_float, "tanh": np.tanh}
Q610 = {"gelu": gelu_q610, "tanh": tanh_q610}
# Documented in archsim.hw.accel.vector (measured over every input): max |error| in LSB,
# mean |error| over all inputs and over |x| < 8, and the share not correctly rounded.
BOUNDS = {"gelu": (0.58, 0.033, 0.13, 0.0031), "tanh": (0.60, 0.041, 0.162, 0.0034)}


@pytest.mark.parametrize("op", ["gelu", "tanh"])
def test_function_error_against_float64_over_every_q6_10_input(op):
    z = Q610[op](ALL_CODES)
    exact = FLOAT[op](ALL_CODES / 1024.0) * 1024.0
    err = np.abs(z - exact)
    max_lsb, mean_lsb, mean_inner, miss_share = BOUNDS[op]
    assert err.max() <= max_lsb
    assert err.mean() <= mean_lsb
    assert err[np.abs(ALL_CODES) < 8192].mean() <= mean_inner
    nearest = np.floor(exact + 0.5)
    assert np.abs(z - nearest).max() == 1
    assert np.mean(z != nearest) <= miss_share
    # the same figures through the op's golden (a Q6.10 result: no saturation at 16 bits)
    assert np.array_equal(vector_op_golden(op, ALL_CODES, np.zeros(1), 0, 16), z)


def test_function_shapes():
    t = tanh_q610(ALL_CODES)
    assert np.array_equal(t[1:], -t[1:][::-1])                   # exactly odd
    assert t.min() == -1024 and t.max() == 1024
    g = gelu_q610(ALL_CODES)
    assert g.min() == np.floor(gelu_float(-0.75) * 1024 + 0.5) == -174  # near GELU's minimum
    big = ALL_CODES >= 8192
    assert np.array_equal(g[big], ALL_CODES[big])                # GELU(x) = x for x >= 8
    assert not g[ALL_CODES <= -8192].any()                       # and 0 for x <= -8
    assert gelu_q610([0, 1024, -1024]).tolist() == [0, 862, -162]  # 0.8413, -0.1587


def test_function_bad_inputs():
    with pytest.raises(ValueError, match=r"^gelu_q610: x must hold Q6\.10 codes in "
                                         r"-32768\.\.32767, not 0\.\.32768$"):
        gelu_q610([0, 32768])
    with pytest.raises(TypeError, match=r"^tanh_q610: x must hold integer Q6\.10 codes, "
                                        r"not float64$"):
        tanh_q610([0.5])
    with pytest.raises(ValueError, match=r"^vector op 'tanh' gives Q6\.10: z_width must be "
                                         r"16, not 8$"):
        vector_op_golden("tanh", np.zeros(2), np.zeros(1), 0, 8)


def function_inputs(n, rng):
    """Extremes, the clamp at |x| = 8, segment edges, then the whole range and |x| < 8."""
    fixed = [-32768, 32767, 0, -1, 1, 8191, 8192, -8191, -8192, 8190, -8193, 4260, -4260,
             1024, -1024, 31, 32, 33, -31, -32, -33, 768, -768, 32000, -32000]
    wide = rng.integers(-32768, 32768, n // 2).tolist()
    inner = rng.integers(-8192, 8193, n).tolist()
    return np.array((fixed + wide + inner)[:n], dtype=np.int64)


@pytest.mark.parametrize("lanes", [1, 4])
@pytest.mark.parametrize("op", ["gelu", "tanh"])
def test_function_rtl_equals_golden_and_float(op, lanes):
    rng = np.random.default_rng(lanes * 7 + VECTOR_OPS[op])
    n = 320
    # 1024 elements either way: 2**10 words, or 2**8 rows of 4
    unit = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width={1: 10, 4: 8}[lanes],
                      lanes=lanes)
    x = function_inputs(n, rng)
    a = np.zeros(1024, np.int64)
    a[8:8 + n] = words(x, 16)
    args = dict(a_addr=8, b_addr=0, z_addr=16, op=VECTOR_OPS[op], n=n, shift=5, rows=0,
                cols=0)
    bufs = {"a": a, "b": np.zeros(1024, np.int64), "z": np.zeros(1024, np.int64)}
    gold = {k: v.copy() for k, v in bufs.items()}
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=0.15, seed=lanes)
    z = signed(res.buffers["z"][16:16 + n], 16)
    assert np.array_equal(res.buffers["z"], gold["z"])
    assert np.abs(z - FLOAT[op](x / 1024.0) * 1024.0).max() <= BOUNDS[op][0]
    assert not res.buffers["z"][:16].any() and not res.buffers["z"][16 + n:].any()
    assert res.stall_cycles > 0
    assert res.cycles == unit.cycles(args) == n // lanes + 3


def test_function_rtl_equals_golden_on_every_input_with_sixteen_lanes():
    unit = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=12, lanes=16)
    for op in ("gelu", "tanh"):
        args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS[op], n=1 << 16, shift=0,
                    rows=0, cols=0)
        res = run_unit(unit, {"a": words(ALL_CODES, 16), "b": np.zeros(16, np.int64),
                              "z": np.zeros(1 << 16, np.int64)}, args)
        assert signed(res.buffers["z"], 16).tolist() == Q610[op](ALL_CODES).tolist(), op
        assert res.cycles == unit.cycles(args) == (1 << 16) // 16 + 3


def test_gelu_in_place_with_lanes():
    x = function_inputs(64, np.random.default_rng(9))
    buf = np.zeros(128, np.int64)
    buf[32:96] = words(x, 16)
    unit = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=5, lanes=4)
    args = dict(a_addr=32, b_addr=0, z_addr=32, op=VECTOR_OPS["gelu"], n=64, shift=0,
                rows=0, cols=0)
    res = run_unit(unit, {"x": buf, "b": np.zeros(128, np.int64)}, args,
                   bind={"a": "x", "z": "x", "b": "b"})
    got = signed(res.buffers["x"][32:96], 16)
    assert np.abs(got - gelu_float(x / 1024.0) * 1024.0).max() <= BOUNDS["gelu"][0]
    assert got.tolist() == gelu_q610(x).tolist()


def test_function_actions_and_energy():
    unit = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=6, lanes=4)
    silence_unused(unit)
    args = dict(a_addr=0, b_addr=0, z_addr=64, n=32, shift=0, rows=0, cols=0,
                op=VECTOR_OPS["tanh"])
    assert unit.actions(args) == {"alu": 64, "mul": 0, "rom": 32, "interp": 32,
                                  "read:a": 8, "read:b": 0, "write:z": 8}
    assert unit.actions({**args, "op": VECTOR_OPS["add"]})["rom"] == 0
    assert unit.footprint(args)["b"] == (0, 0)
    e = unit.ENERGY_PER_ACTION_J
    # Horowitz ISSCC 2014 (45 nm): 10 pJ per 64-bit read of 8 KB, scaled to a 512 x 26-bit
    # ROM by width and sqrt(size); 8-bit mult 0.2 pJ -> 32-bit 3.1 pJ power law at 11 bits;
    # 8-bit add 0.03 pJ -> 32-bit 0.1 pJ linear at 22 bits
    assert e["rom"] == pytest.approx(10e-12 * 26 / 64 * np.sqrt(512 * 26 / 8 / 8192))
    mul11 = 0.2e-12 * (11 / 8) ** (np.log(3.1 / 0.2) / np.log(4))
    assert e["interp"] == pytest.approx(mul11 + (0.03 + 14 * 0.07 / 24) * 1e-12)
    assert "assumed" in unit.ENERGY_SOURCES["rom"]


def test_function_and_lane_errors_are_exact():
    wide = VectorUnit(addr_width=5)
    narrow = VectorUnit(a_width=16, b_width=16, z_width=8, addr_width=5)
    lanes = VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=4, lanes=4)
    base = dict(a_addr=0, b_addr=0, z_addr=0, n=8, shift=0, rows=2, cols=4,
                op=VECTOR_OPS["gelu"])
    cases = [
        (wide, {}, "unit kind 'vector': op 'gelu' needs a_width 16 and z_width 16 (Q6.10), "
                   "not a_width 32 and z_width 32"),
        (narrow, {"op": VECTOR_OPS["tanh"]},
         "unit kind 'vector': op 'tanh' needs a_width 16 and z_width 16 (Q6.10), not "
         "a_width 16 and z_width 8"),
        (lanes, {"op": VECTOR_OPS["transpose"]},
         "unit kind 'vector': op 'transpose' needs lanes 1, not 4"),
        (lanes, {"n": 6}, "unit kind 'vector': argument 'n' must be a multiple of lanes (4), "
                          "not 6"),
        (lanes, {"a_addr": 2}, "unit kind 'vector': argument 'a_addr' must be a multiple of "
                               "lanes (4), not 2"),
        (lanes, {"b_addr": 1}, "unit kind 'vector': argument 'b_addr' must be a multiple of "
                               "lanes (4), not 1"),
        (lanes, {"z_addr": 6}, "unit kind 'vector': argument 'z_addr' must be a multiple of "
                               "lanes (4), not 6"),
        (lanes, {"n": 68}, "unit kind 'vector': 68 elements do not fit a 4-bit address "
                           "space of 4-element rows"),
    ]
    for unit, over, message in cases:
        with pytest.raises(ValueError) as info:
            unit.cycles({**base, **over})
        assert str(info.value) == message
    assert lanes.cycles({**base, "n": 64}) == 19
    for unit in (wide, narrow, lanes):
        silence_unused(unit)
    with pytest.raises(ValueError, match=r"^lanes must be one of \(1, 2, 4, 8, 16, 32, 64\), "
                                         r"not 3$"):
        VectorUnit(lanes=3)
    with pytest.raises(ValueError, match=r"^lanes must be in 1\.\.64, not 128$"):
        VectorUnit(lanes=128)
    with pytest.raises(TypeError, match=r"^lanes must be an int, not True$"):
        VectorUnit(lanes=True)


def test_only_q6_10_units_hold_the_rom():
    from archsim.hw.verilog import to_verilog
    q = to_verilog(VectorUnit(a_width=16, b_width=16, z_width=16, addr_width=4, lanes=2),
                   name="vq")
    plain = to_verilog(VectorUnit(a_width=16, b_width=16, z_width=8, addr_width=4), name="vp")
    assert "lut_rom" in q and "lut_rom" not in plain


@pytest.mark.slow
def test_sixteen_lane_gelu_and_tanh_in_an_accelerator_in_verilator():
    from archsim.dsl.accel import Accelerator

    acc = Accelerator(name="vecfn")
    acc.buffer("x", words=512, width=16, banks=16)
    acc.buffer("y", words=512, width=16, banks=16)
    acc.unit("v", "vector", bind={"a": "x", "b": "y", "z": "y"}, a_width=16, b_width=16,
             z_width=16, lanes=16)
    prog = acc.program()
    prog.run("v", a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["gelu"], n=256, shift=0,
             rows=0, cols=0)
    prog.run("v", a_addr=256, b_addr=0, z_addr=256, op=VECTOR_OPS["tanh"], n=240, shift=0,
             rows=0, cols=0)
    compiled = acc.compile()
    x = function_inputs(512, np.random.default_rng(16))
    buffers = {"x": words(x, 16)}
    golden = compiled.golden(prog, buffers)
    result = compiled.simulate(prog, buffers, backend="verilator")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    y = signed(result.buffers["y"], 16)
    assert np.abs(y[:256] - gelu_float(x[:256] / 1024.0) * 1024.0).max() <= BOUNDS["gelu"][0]
    assert np.abs(y[256:496] - np.tanh(x[256:496] / 1024.0) * 1024.0).max() \
        <= BOUNDS["tanh"][0]
    assert not y[496:].any()
    report = compiled.model(prog)
    assert result.cycles == report.cycles
    assert [s.unit_cycles for s in report.steps] == [256 // 16 + 3, 240 // 16 + 3]
    assert result.stats == report.stats


# --- relu_grad ---------------------------------------------------------------------------

@pytest.mark.parametrize(("aw", "bw", "zw"), [(3, 3, 3), (4, 2, 3), (2, 4, 2), (4, 4, 4)])
def test_relu_grad_golden_exhaustive_over_small_widths(aw, bw, zw):
    a_vals = np.arange(-(1 << (aw - 1)), 1 << (aw - 1))
    b_vals = np.arange(-(1 << (bw - 1)), 1 << (bw - 1))
    a, b = (g.ravel() for g in np.meshgrid(a_vals, b_vals, indexing="ij"))
    expect = np.clip(a * (b > 0), -(1 << (zw - 1)), (1 << (zw - 1)) - 1)
    assert vector_op_golden("relu_grad", a, b, 0, zw).tolist() == expect.tolist()
    # the unit's golden view on raw words agrees (a and b of different widths)
    unit = VectorUnit(a_width=aw, b_width=bw, z_width=zw, addr_width=8)
    args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["relu_grad"], n=a.size,
                shift=0, rows=0, cols=0)
    bufs = {"a": words(a, aw), "b": words(b, bw), "z": np.zeros(a.size, np.int64)}
    unit.golden(bufs, args)
    assert signed(bufs["z"], zw).tolist() == expect.tolist()
    silence_unused(unit)


@pytest.mark.parametrize("lanes", [1, 4])
def test_relu_grad_rtl_equals_golden_on_every_pair_of_3_bit_inputs(lanes):
    # a: a 4-bit gradient, b: a wider 6-bit pre-activation; z saturates to 3 bits
    aw, bw, zw = 4, 6, 3
    a_vals = np.arange(-8, 8)
    b_vals = np.array([-32, -5, -1, 0, 1, 2, 31, 7])
    a, b = (g.ravel() for g in np.meshgrid(a_vals, b_vals, indexing="ij"))
    n = a.size  # 128
    unit = VectorUnit(a_width=aw, b_width=bw, z_width=zw, addr_width=8 - (lanes > 1) * 2,
                      lanes=lanes)
    args = dict(a_addr=0, b_addr=0, z_addr=0, op=VECTOR_OPS["relu_grad"], n=n, shift=0,
                rows=0, cols=0)
    bufs = {"a": words(a, aw), "b": words(b, bw), "z": np.zeros(n, np.int64)}
    gold = {k: v.copy() for k, v in bufs.items()}
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=0.2, seed=3)
    expect = np.clip(np.where(b > 0, a, 0), -4, 3)
    assert signed(res.buffers["z"][:n], zw).tolist() == expect.tolist()
    assert np.array_equal(res.buffers["z"][:n], gold["z"])
    assert res.cycles == unit.cycles(args) == n // lanes + 3
    assert unit.actions(args)["read:b"] == n // lanes
