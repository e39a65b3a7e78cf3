"""The AdaptivFloat <-> fixed-point conversion unit: golden == the codec's numpy functions ==
an independent float formulation, RTL (pysim) == golden, cycles measured == formula."""

import math

import numpy as np
import pytest

from archsim.hw.accel.adpfloat_codec import adpfloat_from_fixed, adpfloat_to_fixed
from archsim.hw.accel.adpfloat_convert import AdaptivFloatConvert, convert_energy_j
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit

AW = 4  # 16 rows of 4 lanes: 64 elements per buffer
LANES = 4


def value_of(code, bias):
    """A code's real value, from its fields with math.ldexp (independent of the codec)."""
    sign, exp, man = code >> 7, (code >> 4) & 7, code & 15
    if exp == 0 and man == 0:
        return 0.0
    return (-1.0) ** sign * math.ldexp(16 + man, exp + bias - 10 - 4)


def to_fixed_float(code, frac, bias):
    v = value_of(code, bias)
    mag = min(math.floor(abs(math.ldexp(v, frac))), 32767)
    return -mag if v < 0 else mag


def from_fixed_float(y, frac, bias):
    """frexp-based: |y| = m * 2**e, m in [0.5, 1); 1.mmmm rounded half up."""
    if y == 0:
        return 0
    m, e = math.frexp(abs(y))
    q = math.floor(m * 32 + 0.5)   # (2m) * 16, half up: 16..32
    big_e = e - 1
    if q == 32:
        q, big_e = 16, big_e + 1
    field = big_e - frac - bias + 10
    if field < 0:
        return 0
    code = 0x7F if field > 7 else (field << 4) | (q - 16)
    if code == 0:
        return 0
    return code | 0x80 if y < 0 else code


@pytest.mark.parametrize("frac, bias", [(10, 3), (0, 0), (15, 7), (6, 5)])
def test_codec_functions_against_float_formulation(frac, bias):
    codes = np.arange(256)
    assert adpfloat_to_fixed(codes, frac=frac, bias=bias).tolist() == \
        [to_fixed_float(int(c), frac, bias) for c in codes]
    ys = np.r_[-32768, -32767, -1024, -1000, -33, -31, -17, -1, 0, 1, 15, 16, 17, 31, 33,
               1000, 1023, 1024, 2047, 2048, 4000, 32767]
    assert adpfloat_from_fixed(ys, frac=frac, bias=bias).tolist() == \
        [from_fixed_float(int(y), frac, bias) for y in ys]


def test_hand_values():
    # code 0x3A: exp 3, man 10 -> 26/16 * 2**(3 + 3 - 10) = 0.1015625; Q6.10: 104
    assert to_fixed_float(0x3A, 10, 3) == 104
    assert from_fixed_float(104, 10, 3) == 0x3A
    # 1.0 in Q6.10 (1024) at bias 3: 2**0 -> field 0 - 3 + 10 = 7, man 0 -> 0x70
    assert from_fixed_float(1024, 10, 3) == 0x70 and from_fixed_float(-1024, 10, 3) == 0xF0
    # 63/32 = 1.96875 (2016 in Q6.10) rounds half up to 2.0: the exponent is bumped (bias 4:
    # field 1 - 4 + 10 = 7); one LSB less rounds down to 31/16 (man 15, field 6)
    assert from_fixed_float(2016, 10, 4) == from_fixed_float(2048, 10, 4) == 0x70
    assert from_fixed_float(2015, 10, 4) == 0x6F
    # at bias 3 the bumped exponent is field 8: saturation, with the sign
    assert from_fixed_float(2016, 10, 3) == 0x7F and from_fixed_float(-2016, 10, 3) == 0xFF
    # below the smallest exponent: flushed (2**-11 at bias 0 needs field -1)
    assert from_fixed_float(1, 11, 0) == 0


def words(values, width):
    return np.asarray(values, dtype=np.int64) & ((1 << width) - 1)


def run(direction, src, args, *, stall=0.0):
    unit = AdaptivFloatConvert(direction=direction, lanes=LANES, addr_width=AW)
    bufs = {"src": np.zeros(64, np.int64), "dst": np.full(64, 0xAB, np.int64)}
    bufs["src"][args["src_addr"]:args["src_addr"] + len(src)] = src
    gold = {k: v.copy() for k, v in bufs.items()}
    unit.golden(gold, args)
    res = run_unit(unit, bufs, args, stall_probability=stall, seed=2)
    return unit, res, gold


@pytest.mark.parametrize("frac, bias", [(10, 3), (0, 7), (15, 0), (4, 5)])
def test_to_fixed_rtl_equals_golden_and_float(frac, bias):
    rng = np.random.default_rng(frac * 8 + bias)
    codes = np.r_[0, 0x80, 0x7F, 0xFF, 0x01, 0x10, rng.integers(0, 256, 26)]
    args = dict(src_addr=8, dst_addr=20, n=32, frac=frac, bias=bias)
    unit, res, gold = run("to_fixed", codes, args)
    expect = [to_fixed_float(int(c), frac, bias) for c in codes]
    assert res.buffers["dst"][20:52].tolist() == words(expect, 16).tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    assert (res.buffers["dst"][:20] == 0xAB).all() and (res.buffers["dst"][52:] == 0xAB).all()
    assert res.cycles == 32 // 4 + 3 == unit.cycles(args)


@pytest.mark.parametrize("frac, bias", [(10, 3), (0, 7), (15, 0), (6, 2)])
def test_to_adaptivfloat_rtl_equals_golden_and_float(frac, bias):
    rng = np.random.default_rng(100 + frac * 8 + bias)
    ys = np.r_[0, -32768, 32767, -1, 1, 2016, -2016, 2015,
               rng.integers(-32768, 32768, 20), rng.integers(-64, 64, 8)]
    args = dict(src_addr=0, dst_addr=4, n=36, frac=frac, bias=bias)
    unit, res, gold = run("to_adaptivfloat", words(ys, 16), args)
    expect = [from_fixed_float(int(y), frac, bias) for y in ys]
    assert res.buffers["dst"][4:40].tolist() == expect
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    assert res.cycles == 36 // 4 + 3 == unit.cycles(args)


def test_round_trip_and_stalls():
    # every nonzero code survives code -> Q(frac) -> code when frac keeps all its bits
    codes = np.r_[np.arange(1, 128), np.arange(129, 256)]
    fixed = adpfloat_to_fixed(codes, frac=14, bias=0)
    assert adpfloat_from_fixed(fixed, frac=14, bias=0).tolist() == codes.tolist()
    args = dict(src_addr=4, dst_addr=8, n=48, frac=10, bias=4)
    src = np.random.default_rng(9).integers(0, 256, 48)
    _, still, _ = run("to_fixed", src, args)
    _, stalled, _ = run("to_fixed", src, args, stall=0.3)
    assert stalled.stall_cycles > 0 and stalled.cycles == still.cycles == 48 // 4 + 3
    assert np.array_equal(stalled.buffers["dst"], still.buffers["dst"])


def test_single_row():
    args = dict(src_addr=0, dst_addr=0, n=4, frac=10, bias=3)
    unit, res, gold = run("to_fixed", np.array([0x3A, 0xBA, 0, 0x70]), args)
    assert res.buffers["dst"][:4].tolist() == words([104, -104, 0, 1024], 16).tolist()
    assert res.cycles == 4 == unit.cycles(args)


def test_actions_footprint_and_energy():
    unit = AdaptivFloatConvert(direction="to_adaptivfloat", lanes=16, addr_width=12)
    args = dict(src_addr=32, dst_addr=64, n=1024, frac=10, bias=3)
    assert unit.cycles(args) == 1024 // 16 + 3
    assert unit.actions(args) == {"convert": 1024, "read:src": 64, "write:dst": 64}
    assert unit.footprint(args) == {"src": (32, 1056), "dst": (64, 1088)}
    assert unit.contract.operand("src").width == 16 and unit.contract.operand("dst").width == 8
    assert unit.ENERGY_PER_ACTION_J["convert"] == convert_energy_j("to_adaptivfloat") > 0
    assert "assumed" in unit.ENERGY_SOURCES["convert"]
    # the decode side (a shift, a compare, a negate) is cheaper than the normalising side
    assert convert_energy_j("to_fixed") < convert_energy_j("to_adaptivfloat")
    silence_unused(unit)


@pytest.mark.parametrize("over, message", [
    ({"n": 0}, "unit kind 'adaptivfloat_convert': argument 'n' must be a positive multiple "
               "of lanes (4), not 0"),
    ({"n": 6}, "unit kind 'adaptivfloat_convert': argument 'n' must be a positive multiple "
               "of lanes (4), not 6"),
    ({"src_addr": 2}, "unit kind 'adaptivfloat_convert': argument 'src_addr' must be a "
                      "multiple of lanes (4), not 2"),
    ({"dst_addr": 5}, "unit kind 'adaptivfloat_convert': argument 'dst_addr' must be a "
                      "multiple of lanes (4), not 5"),
    ({"frac": 16}, "unit kind 'adaptivfloat_convert': argument 'frac' must be in 0..15, "
                   "not 16"),
    ({"bias": 8}, "unit kind 'adaptivfloat_convert': argument 'bias' must be in 0..7, not 8"),
    ({"dst_addr": 60}, "unit kind 'adaptivfloat_convert': operand 'dst' would reach element "
                       "67, past the 64 elements its 4-bit address reaches"),
])
def test_bad_args_are_named(over, message):
    unit = AdaptivFloatConvert(direction="to_fixed", lanes=4, addr_width=4)
    args = dict(src_addr=0, dst_addr=0, n=8, frac=10, bias=3) | over
    with pytest.raises(ValueError) as info:
        unit.cycles(args)
    assert str(info.value) == message
    silence_unused(unit)


@pytest.mark.parametrize("kw, exc, message", [
    ({"direction": "to_float"}, ValueError,
     "direction must be one of ('to_fixed', 'to_adaptivfloat'), not 'to_float'"),
    ({"direction": "to_fixed", "lanes": 3}, ValueError,
     "lanes must be one of (1, 2, 4, 8, 16, 32), not 3"),
    ({"direction": "to_fixed", "lanes": 0}, ValueError, "lanes must be in 1..32, not 0"),
    ({"direction": "to_fixed", "addr_width": 33}, ValueError,
     "addr_width must be in 1..32, not 33"),
    ({"direction": "to_fixed", "addr_width": "8"}, TypeError,
     "addr_width must be an int, not '8'"),
])
def test_bad_parameters_are_named(kw, exc, message):
    with pytest.raises(exc) as info:
        AdaptivFloatConvert(**kw)
    assert str(info.value) == message


def test_to_fixed_rtl_on_every_code():
    unit = AdaptivFloatConvert(direction="to_fixed", lanes=8, addr_width=5)
    args = dict(src_addr=0, dst_addr=0, n=256, frac=12, bias=2)
    res = run_unit(unit, {"src": np.arange(256), "dst": np.zeros(256, np.int64)}, args)
    assert res.buffers["dst"].tolist() == words(
        [to_fixed_float(c, 12, 2) for c in range(256)], 16).tolist()
    assert res.cycles == 256 // 8 + 3


def test_to_adaptivfloat_rtl_on_every_word():
    unit = AdaptivFloatConvert(direction="to_adaptivfloat", lanes=32, addr_width=11)
    args = dict(src_addr=0, dst_addr=0, n=1 << 16, frac=10, bias=3)
    res = run_unit(unit, {"src": np.arange(1 << 16), "dst": np.zeros(1 << 16, np.int64)}, args)
    ys = np.arange(1 << 16) - ((np.arange(1 << 16) >= 1 << 15) << 16)
    assert res.buffers["dst"].tolist() == adpfloat_from_fixed(ys, frac=10, bias=3).tolist()
    assert res.cycles == (1 << 16) // 32 + 3
