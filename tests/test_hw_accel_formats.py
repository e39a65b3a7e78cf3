"""The AdaptivFloat matrix-vector unit: RTL (pysim) == golden == an exact Fraction reference,
measured cycles == the closed form, stalls change nothing, and bad input is named."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from archsim.dsl.accel import Accelerator
from archsim.dsl.formats import AdaptivFloat, AdaptivFloatEncoding
from archsim.hw.accel.formats import AdaptivFloatDot, signed_arg
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit


def _fraction_reference(n_bits, e, a_codes, b_codes, bias_a, bias_b, shift, out_width):
    """Decode each code with AdaptivFloat.decode, sum exactly as Fractions, scale by
    2**shift, round half up (floor(x + 1/2)) and saturate."""
    fmt = AdaptivFloat(n=n_bits, e=e)
    a = fmt.decode(AdaptivFloatEncoding(codes=np.asarray(a_codes), exp_bias=bias_a))
    b = fmt.decode(AdaptivFloatEncoding(codes=np.asarray(b_codes), exp_bias=bias_b))
    hi, lo = 2 ** (out_width - 1) - 1, -(2 ** (out_width - 1))
    out = []
    for row in np.asarray(a).reshape(-1, len(b)):
        total = sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(row, b, strict=True)),
                    Fraction(0))
        q = math.floor(total * Fraction(2) ** shift + Fraction(1, 2))
        out.append(min(hi, max(lo, q)))
    return out


def _signed(words, width):
    return [int(w) - (1 << width) if int(w) >> (width - 1) else int(w) for w in words]


def _run(unit, a_words, b_words, *, rows, n, bias_a, bias_b, shift, a_addr=0, b_addr=0,
         z_addr=0, stall_probability=0.0, seed=0):
    args = dict(a_addr=a_addr, b_addr=b_addr, z_addr=z_addr, rows=rows, n=n,
                bias_a=signed_arg(bias_a), bias_b=signed_arg(bias_b), shift=signed_arg(shift))
    bufs = {"a": np.asarray(a_words, np.int64), "b": np.asarray(b_words, np.int64),
            "z": np.zeros(1 << unit.addr_width, np.int64)}  # as deep as the bench's
    golden = {k: v.copy() for k, v in bufs.items()}
    unit.golden(golden, args)
    result = run_unit(unit, bufs, args, stall_probability=stall_probability, seed=seed)
    return args, golden, result


CASES = [
    # lanes, n_bits, e, rows, n, bias_a, bias_b, shift, out_width, a_addr, b_addr, z_addr
    (4, 8, 3, 3, 8, -5, -3, 6, 32, 4, 8, 2),
    (1, 8, 3, 2, 5, -9, -10, 14, 16, 3, 1, 1),
    (2, 6, 2, 4, 4, 2, -1, -2, 12, 0, 6, 5),
    (4, 8, 4, 2, 12, -12, -20, 24, 32, 8, 0, 0),
]


@pytest.mark.parametrize("case", CASES)
def test_rtl_equals_golden_equals_fraction_reference(case):
    lanes, nb, e, rows, n, ba, bb, shift, ow, a0, b0, z0 = case
    unit = AdaptivFloatDot(n=nb, e=e, lanes=lanes, out_width=ow, addr_width=6)
    rng = np.random.default_rng(sum(case) + 17)
    a = rng.integers(0, 1 << nb, 64)
    b = rng.integers(0, 1 << nb, 64)
    args, golden, result = _run(unit, a, b, rows=rows, n=n, bias_a=ba, bias_b=bb,
                                shift=shift, a_addr=a0, b_addr=b0, z_addr=z0)
    expected = _fraction_reference(nb, e, a[a0:a0 + rows * n], b[b0:b0 + n], ba, bb, shift,
                                   ow)
    assert any(v != 0 for v in expected)  # a case whose values all round to 0 proves little
    assert _signed(golden["z"][z0:z0 + rows], ow) == expected
    assert np.array_equal(result.buffers["z"], golden["z"])
    assert np.array_equal(result.buffers["a"][:64], a)
    assert np.array_equal(result.buffers["b"][:64], b)
    assert result.cycles == unit.cycles(args) == rows * n // lanes + 4


def test_stalls_change_neither_results_nor_cycles():
    unit = AdaptivFloatDot(lanes=4, addr_width=5)
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 256, 64), rng.integers(0, 256, 64)
    kw = dict(rows=3, n=8, bias_a=-4, bias_b=-6, shift=10)
    _, golden, plain = _run(unit, a, b, **kw)
    _, _, stalled = _run(unit, a, b, stall_probability=0.2, seed=5, **kw)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == plain.cycles == unit.cycles(_run(unit, a, b, **kw)[0])
    for name in ("a", "b", "z"):
        assert np.array_equal(stalled.buffers[name], plain.buffers[name])
    assert np.array_equal(plain.buffers["z"], golden["z"])


def test_zero_codes_of_either_sign_contribute_nothing():
    unit = AdaptivFloatDot(lanes=4, addr_width=4)
    # 0x00 and 0x80 are both zero; 0x10 is 2**(1 + bias) (E=1, M=0), 0x90 its negative
    a = np.array([0x00, 0x80, 0x10, 0x80, 0x80, 0x00, 0x80, 0x00])
    b = np.array([0x10, 0x10, 0x10, 0x90])
    _, golden, result = _run(unit, a, b, rows=2, n=4, bias_a=0, bias_b=0, shift=0)
    # row 0: 2**1 * 2**1 = 4; row 1: all zero
    assert _signed(result.buffers["z"][:2], 32) == [4, 0]
    assert np.array_equal(result.buffers["z"], golden["z"])


def test_round_half_up_ties_and_negative_shift():
    unit = AdaptivFloatDot(lanes=1, addr_width=4)
    fmt = AdaptivFloat(n=8, e=3)
    # 1.5 * 1 and -1.5 * 1 at shift 0: ties round up, to 2 and -1; 2.5 -> 3, -2.5 -> -2
    vals = np.array([1.5, -1.5, 2.5, -2.5])
    a = fmt.encode(vals, exp_bias=-3).codes.astype(np.int64)
    b = fmt.encode(np.array([1.0]), exp_bias=-3).codes.astype(np.int64)
    assert np.array_equal(fmt.decode(AdaptivFloatEncoding(codes=a, exp_bias=-3)), vals)
    _, golden, result = _run(unit, a, b, rows=4, n=1, bias_a=-3, bias_b=-3, shift=0)
    assert _signed(result.buffers["z"][:4], 32) == [2, -1, 3, -2]
    assert np.array_equal(result.buffers["z"], golden["z"])
    # shift -1: z counts units of 2 (1.5/2 = 0.75 -> 1, -0.75 -> -1, 1.25 -> 1, -1.25 -> -1)
    _, golden, result = _run(unit, a, b, rows=4, n=1, bias_a=-3, bias_b=-3, shift=-1)
    assert _signed(result.buffers["z"][:4], 32) == [1, -1, 1, -1]
    assert np.array_equal(result.buffers["z"], golden["z"])


def test_saturation_both_ways():
    unit = AdaptivFloatDot(lanes=2, out_width=8, addr_width=4)
    big_pos, big_neg = 0x7F, 0xFF   # E=7, M=15: +-2**(7 - 4) * 31/16 = +-15.5 at bias -4
    a = np.array([big_pos, big_pos, big_neg, big_pos, 0x00, 0x00])
    b = np.array([big_pos, big_pos])
    ba = bb = -4
    _, golden, result = _run(unit, a, b, rows=3, n=2, bias_a=ba, bias_b=bb, shift=2)
    # row 0: 2 * 15.5**2 * 4 = 1922 -> 127; row 1: -240.25 + 240.25 = 0; row 2: 0
    assert _fraction_reference(8, 3, a, b, ba, bb, 2, 8) == [127, 0, 0]
    assert _signed(result.buffers["z"][:3], 8) == [127, 0, 0]
    assert np.array_equal(result.buffers["z"], golden["z"])
    a2 = np.array([big_neg, big_neg])
    b2 = np.array([big_pos, big_pos])
    _, golden, result = _run(unit, a2, b2, rows=1, n=2, bias_a=ba, bias_b=bb, shift=2)
    assert _signed(result.buffers["z"][:1], 8) == [-128]
    assert np.array_equal(result.buffers["z"], golden["z"])


def test_actions_footprint_and_energy():
    unit = AdaptivFloatDot(lanes=4, addr_width=6)
    silence_unused(unit)  # a model-only use: never elaborated
    args = dict(a_addr=8, b_addr=4, z_addr=3, rows=5, n=12, bias_a=signed_arg(-2),
                bias_b=0, shift=3)
    assert unit.cycles(args) == 5 * 3 + 4
    assert unit.actions(args) == {"mac": 60, "reduce": 20, "read:a": 15, "read:b": 15,
                                  "write:z": 5}
    assert unit.footprint(args) == {"a": (8, 68), "b": (4, 16), "z": (3, 8)}
    assert unit.ENERGY_PER_ACTION_J["mac"] == pytest.approx(0.3e-12)
    assert unit.ENERGY_PER_ACTION_J["reduce"] == pytest.approx(0.1e-12)
    assert "assumed" in unit.ENERGY_SOURCES["mac"]
    assert set(unit.ENERGY_SOURCES) == set(unit.ENERGY_PER_ACTION_J)


def _base_args(**over):
    args = dict(a_addr=0, b_addr=0, z_addr=0, rows=1, n=4, bias_a=0, bias_b=0, shift=0)
    args.update(over)
    return args


@pytest.mark.parametrize("over, message", [
    (dict(rows=0), "unit kind 'adaptivfloat_dot': argument 'rows' must be at least 1, not 0"),
    (dict(n=6), "unit kind 'adaptivfloat_dot': argument 'n' must be a positive multiple of "
                "lanes (4), not 6"),
    (dict(n=0), "unit kind 'adaptivfloat_dot': argument 'n' must be a positive multiple of "
                "lanes (4), not 0"),
    (dict(a_addr=2), "unit kind 'adaptivfloat_dot': argument 'a_addr' must be a multiple of "
                     "lanes (4), not 2"),
    (dict(b_addr=5), "unit kind 'adaptivfloat_dot': argument 'b_addr' must be a multiple of "
                     "lanes (4), not 5"),
    (dict(bias_a=200), "unit kind 'adaptivfloat_dot': argument 'bias_a' must be the 32-bit "
                       "two's complement code of an int in -128..127, not 200 (= 200)"),
    (dict(shift=signed_arg(-129)), "unit kind 'adaptivfloat_dot': argument 'shift' must be "
                                   "the 32-bit two's complement code of an int in -128..127, "
                                   "not 4294967167 (= -129)"),
    (dict(rows=5, n=16), "unit kind 'adaptivfloat_dot': operand 'a' would reach element 79, "
                         "past the 64 elements its 4-bit address reaches"),
    (dict(z_addr=16), "unit kind 'adaptivfloat_dot': operand 'z' would reach element 16, "
                      "past the 16 elements its 4-bit address reaches"),
    (dict(n=1 << 32), "unit kind 'adaptivfloat_dot': argument 'n' must be an int in "
                     "0..4294967295, not 4294967296"),
])
def test_bad_args_are_named(over, message):
    unit = AdaptivFloatDot(lanes=4, addr_width=4)
    silence_unused(unit)
    with pytest.raises(ValueError) as info:
        unit.cycles(_base_args(**over))
    assert str(info.value) == message


@pytest.mark.parametrize("kw, exc, message", [
    (dict(lanes=3), ValueError, "lanes must be one of (1, 2, 4, 8, 16), not 3"),
    (dict(lanes=32), ValueError, "lanes must be in 1..16, not 32"),
    (dict(n=8, e=7), ValueError, "e must be in 1..6, not 7"),
    (dict(out_width=33), ValueError, "out_width must be in 2..32, not 33"),
    (dict(n=8.0), TypeError, "n must be an int, not 8.0"),
])
def test_bad_parameters_are_named(kw, exc, message):
    with pytest.raises(exc) as info:
        AdaptivFloatDot(**kw)
    assert str(info.value) == message


def test_signed_arg():
    assert [signed_arg(v) for v in (0, 5, -1, -128)] == [0, 5, 2**32 - 1, 2**32 - 128]
    with pytest.raises(ValueError, match=r"signed_arg: value must be an int in "
                                         r"-2147483648\.\.2147483647, not 2147483648"):
        signed_arg(1 << 31)


def test_in_an_accelerator_golden_equals_rtl_and_model():
    acc = Accelerator(name="afnpu")
    acc.buffer("x", words=64, width=8, banks=4)
    acc.buffer("w", words=32, width=8, banks=4)
    acc.buffer("y", words=16, width=32)
    acc.unit("dot", "adaptivfloat_dot", bind={"a": "x", "b": "w", "z": "y"},
             n=8, e=3, lanes=4)
    prog = acc.program()
    prog.run("dot", a_addr=0, b_addr=0, z_addr=0, rows=3, n=8, bias_a=signed_arg(-4),
             bias_b=signed_arg(-5), shift=8)
    prog.run("dot", a_addr=24, b_addr=8, z_addr=3, rows=2, n=16, bias_a=signed_arg(-6),
             bias_b=signed_arg(-2), shift=signed_arg(-1))
    compiled = acc.compile()
    rng = np.random.default_rng(11)
    x, w = rng.integers(0, 256, 64), rng.integers(0, 256, 32)
    golden = compiled.golden(prog, {"x": x, "w": w})
    result = compiled.simulate(prog, {"x": x, "w": w}, backend="pysim")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    y = _fraction_reference(8, 3, x[0:24], w[0:8], -4, -5, 8, 32) \
        + _fraction_reference(8, 3, x[24:56], w[8:24], -6, -2, -1, 32)
    assert _signed(golden["y"][:5], 32) == y and any(v != 0 for v in y)
    assert result.cycles == compiled.model(prog).cycles


@pytest.mark.parametrize("bias, shift, expected", [
    (127, 127, [2**31 - 1, -(2**31), 0]),  # net shift 373 left: any nonzero sum saturates
    (-128, -128, [0, 0, 0]),               # net shift -392 right: everything rounds to 0
])
def test_extreme_net_shifts(bias, shift, expected):
    unit = AdaptivFloatDot(lanes=1, addr_width=4)
    # rows: +tiny (E=0, M=1), -tiny, zero; b = +tiny
    a = np.array([0x01, 0x81, 0x00])
    b = np.array([0x01])
    _, golden, result = _run(unit, a, b, rows=3, n=1, bias_a=bias, bias_b=bias, shift=shift)
    assert _fraction_reference(8, 3, a, b, bias, bias, shift, 32) == expected
    assert _signed(result.buffers["z"][:3], 32) == expected
    assert np.array_equal(result.buffers["z"], golden["z"])
