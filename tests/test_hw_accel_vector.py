"""The element-wise vector unit: RTL (pysim) == golden == numpy written here, cycles measured."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.hw.accel.vector import VECTOR_OPS, VectorUnit, vector_op_code, vector_op_golden
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


@pytest.mark.parametrize("op", list(VECTOR_OPS))
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
    assert set(unit.ENERGY_PER_ACTION_J) == set(unit.ENERGY_SOURCES) == {"alu", "mul"}
    silence_unused(unit)  # a model-only use: never elaborated


def test_bad_arguments_raise_exact_errors():
    with pytest.raises(ConfigError) as info:
        vector_op_code("gelu")
    assert str(info.value) == (
        "field 'op': unknown vector op 'gelu' (allowed: 'add', 'add_requant', 'copy', "
        "'max', 'mul', 'relu', 'requant', 'scale', 'sub', 'transpose')")
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
                                         r"not 10$"):
        unit.cycles({**args, "op": 10})
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
