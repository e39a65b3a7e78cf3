"""EdgeBERT's AdaptivFloat GEMM unit: golden vs an exact float64 reference built from the
decoded values (and a hand-built wrapping case), RTL (pysim) == golden on small tiles,
measured cycles == the closed form, named errors, and one Verilator run at size 16 inside
an accelerator (golden == RTL == model)."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl.accel import Accelerator
from archsim.hw.accel.adpfloat_codec import adpfloat_from_fixed, adpfloat_value
from archsim.hw.accel.adpfloat_gemm import AdaptivFloatGemm, adpfloat_gemm_accumulate
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit


def model_unit(**kw):
    u = AdaptivFloatGemm(**kw)
    silence_unused(u)  # model-only: never elaborated
    return u


def closed_form_cycles(size, m, k, n):
    """Written from the schedule: G chunk periods, one of loading ahead, one of drain, the
    argument latch and the visibility cycle."""
    return size * ((m // size) * (n // size) * (k // size) + 2) + 2


def float_accumulators(a_codes, w_codes, acc_width):
    """The accumulators from the decoded real values: at bias 0 a product's integer P is
    value_a * value_b * 2**28, and every partial sum here is an integer below 2**53, so the
    float64 matmul is exact; then the acc_width-bit two's complement wrap."""
    va = adpfloat_value(a_codes, bias=0)
    vw = adpfloat_value(w_codes, bias=0)
    exact = np.ldexp(va @ vw.T, 28)
    assert np.abs(exact).max() < 2.0**53
    ints = exact.astype(np.int64)
    assert np.array_equal(ints.astype(np.float64), exact)
    half = 1 << (acc_width - 1)
    return ((ints + half) % (1 << acc_width)) - half


def signed16(words):
    w = np.asarray(words, dtype=np.int64) & 0xFFFF
    return w - ((w >> 15) << 16)


def args_for(m, k, n, **over):
    args = dict(a_addr=0, b_addr=0, bias_addr=0, c_addr=0, c_fixed_addr=0, m=m, k=k, n=n,
                a_stride=k, b_stride=k, c_stride=n, shift=0, use_bias=0, relu=0,
                out_fixed=0, transpose_c=0, out_frac=0, out_bias=0)
    args.update(over)
    return args


def random_codes(rng, shape, zero_fraction=0.1):
    codes = rng.integers(0, 256, shape)
    return np.where(rng.random(shape) < zero_fraction, 0, codes)


# --- golden vs independent references ----------------------------------------------------

@pytest.mark.parametrize("acc_width", [16, 24, 32, 40])
def test_accumulators_equal_the_float_reference(acc_width):
    rng = np.random.default_rng(acc_width)
    a, w = random_codes(rng, (8, 64)), random_codes(rng, (12, 64))
    got = adpfloat_gemm_accumulate(a, w, acc_width=acc_width)
    assert np.array_equal(got, float_accumulators(a, w, acc_width))
    if acc_width <= 24:  # random codes reach 2**24 products: these widths do wrap
        assert not np.array_equal(got, float_accumulators(a, w, 60))


def test_hand_built_wrapping_case():
    # 0x7F * 0x7F: (16 + 15)**2 << (7 + 7) = 961 * 2**14 = 15745024; two of them 31490048.
    a = np.array([[0x7F, 0x7F, 0x00, 0x80], [0x7F, 0x00, 0x00, 0x00], [0xFF, 0x00, 0x00, 0x00]])
    w = np.array([[0x7F, 0x7F, 0x11, 0x11]])   # 0x00 and 0x80 are zeros: they add nothing
    # 16 bits: 31490048 = 480 * 65536 + 32768 -> -32768; 15745024 = 240 * 65536 + 16384
    assert adpfloat_gemm_accumulate(a, w, acc_width=16).ravel().tolist() == \
        [-32768, 16384, -16384]
    # 24 bits: 31490048 - 2 * 2**24 = -2064384; 15745024 >= 2**23, so 15745024 - 2**24
    assert adpfloat_gemm_accumulate(a, w, acc_width=24).ravel().tolist() == \
        [-2064384, 15745024 - 2**24, 2**24 - 15745024]
    assert adpfloat_gemm_accumulate(a, w, acc_width=32).ravel().tolist() == \
        [31490048, 15745024, -15745024]


def test_golden_post_processing_against_the_reference():
    m, k, n = 8, 32, 8
    rng = np.random.default_rng(5)
    a, w = random_codes(rng, (m, k)), random_codes(rng, (n, k))
    bias = rng.integers(-3000, 3000, n)
    u = model_unit(size=4, acc_width=32, addr_width=8)
    shift = 8
    for relu in (0, 1):
        args = args_for(m, k, n, shift=shift, use_bias=1, relu=relu, out_fixed=1)
        bufs = {"a": a.ravel(), "b": w.ravel(), "bias": bias & 0xFFFF,
                "c": np.zeros(64, np.int64), "c_fixed": np.zeros(64, np.int64)}
        u.golden(bufs, args)
        ref = np.floor(float_accumulators(a, w, 32) / 2.0**shift) + bias  # arithmetic shift
        if relu:
            ref = np.maximum(ref, 0)
        ref = np.clip(ref, -32767, 32767)
        got = signed16(bufs["c_fixed"]).reshape(m, n)
        assert np.array_equal(got, ref)
        assert (np.abs(ref) == 32767).any() and ((ref != 0) & (np.abs(ref) < 32767)).any()
        # the code output is the codec applied to the same words
        args = dict(args, out_fixed=0, out_frac=7, out_bias=4)
        u.golden(bufs, args)
        assert np.array_equal(bufs["c"].reshape(m, n),
                              adpfloat_from_fixed(ref.astype(np.int64), frac=7, bias=4))


def test_real_values_through_the_fractional_bits():
    # with out_frac = F = 28 - bias_a - bias_b - shift, y * 2**-F approximates A @ W.T
    rng = np.random.default_rng(9)
    m, k, n = 4, 16, 4
    a, w = random_codes(rng, (m, k), 0.0), random_codes(rng, (n, k), 0.0)
    ba, bb, shift = 5, 1, 12
    frac = 28 - ba - bb - shift
    u = model_unit(size=4, acc_width=40, addr_width=8)
    bufs = {"a": a.ravel(), "b": w.ravel(), "bias": np.zeros(16, np.int64),
            "c": np.zeros(16, np.int64), "c_fixed": np.zeros(16, np.int64)}
    u.golden(bufs, args_for(m, k, n, shift=shift, out_fixed=1))
    real = adpfloat_value(a, bias=ba) @ adpfloat_value(w, bias=bb).T
    y = signed16(bufs["c_fixed"]).reshape(m, n)
    inside = np.abs(real) < 32767 * 2.0**-frac
    assert inside.sum() > 8
    err = np.abs(np.ldexp(y.astype(np.float64), -frac) - real)[inside]
    assert err.max() <= 2.0**-frac  # the floor of the shift: under one unit


# --- RTL == golden (pysim), cycles == closed form ----------------------------------------

RTL_CASES = [
    # m, k, n, acc_width, overrides
    (4, 4, 4, 16, dict(shift=6, out_frac=4, out_bias=5)),
    (8, 8, 4, 16, dict(shift=3, out_fixed=1, relu=1)),
    (4, 8, 8, 24, dict(shift=10, use_bias=1, bias_addr=8, out_fixed=1, transpose_c=1,
                       c_stride=8, c_fixed_addr=4)),
    (8, 4, 8, 16, dict(a_stride=8, b_stride=12, c_stride=12, c_addr=4, a_addr=4, b_addr=8,
                       shift=2, use_bias=1, out_frac=9, out_bias=2)),
    (8, 8, 8, 32, dict(transpose_c=1, c_stride=12, shift=14, relu=1, use_bias=1,
                       out_frac=15, out_bias=0)),
    (8, 8, 8, 20, dict(shift=8, out_fixed=1, c_stride=16, c_fixed_addr=8)),
]


def run_case(m, k, n, acc_width, over, *, stall_probability=0.0, seed=0):
    unit = AdaptivFloatGemm(size=4, acc_width=acc_width, addr_width=6)
    rng = np.random.default_rng(m * 100 + k * 10 + n + acc_width)
    bufs = {"a": random_codes(rng, 256), "b": random_codes(rng, 256),
            "bias": rng.integers(-2000, 2000, 256) & 0xFFFF,
            "c": np.zeros(256, np.int64), "c_fixed": np.zeros(256, np.int64)}
    args = args_for(m, k, n, **over)
    golden = {name: v.copy() for name, v in bufs.items()}
    unit.golden(golden, args)
    result = run_unit(unit, bufs, args, stall_probability=stall_probability, seed=seed)
    return unit, args, bufs, golden, result


@pytest.mark.parametrize("case", RTL_CASES)
def test_rtl_equals_golden_and_cycles_equal_the_formula(case):
    m, k, n, acc_width, over = case
    unit, args, bufs, golden, result = run_case(m, k, n, acc_width, over)
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    written = "c_fixed" if args["out_fixed"] else "c"
    other = "c" if args["out_fixed"] else "c_fixed"
    assert not np.array_equal(golden[written], bufs[written])   # something was written
    assert len(np.unique(golden[written])) > 4                  # and not one saturated value
    assert np.array_equal(golden[other], bufs[other])          # the other output untouched
    assert result.cycles == unit.cycles(args) == closed_form_cycles(4, m, k, n)
    if acc_width < 24:  # these cases exercise the wrap: some accumulator differs from exact
        rows = args["a_addr"] + np.arange(m)[:, None] * args["a_stride"] + np.arange(k)
        cols = args["b_addr"] + np.arange(n)[:, None] * args["b_stride"] + np.arange(k)
        a, w = bufs["a"][rows], bufs["b"][cols]
        assert not np.array_equal(float_accumulators(a, w, acc_width),
                                  float_accumulators(a, w, 60))


@pytest.mark.parametrize("size, m, k, n, transpose, acc_width, shift", [
    (3, 6, 9, 3, 1, 18, 5), (3, 3, 6, 6, 0, 40, 14), (2, 4, 2, 6, 1, 16, 5),
    (8, 8, 16, 16, 0, 24, 9),
])
def test_rtl_other_sizes(size, m, k, n, transpose, acc_width, shift):
    # sizes that are not 4, one not a power of two; offsets and padded strides
    unit = AdaptivFloatGemm(size=size, acc_width=acc_width, addr_width=7)
    args = args_for(m, k, n, a_addr=size, b_addr=2 * size, bias_addr=size, c_addr=size,
                    a_stride=k + size, c_stride=(m if transpose else n) + size, shift=shift,
                    use_bias=1, transpose_c=transpose, out_frac=15, out_bias=0)
    rng = np.random.default_rng(size * 7 + m)
    bufs = {"a": random_codes(rng, size * 128), "b": random_codes(rng, size * 128),
            "bias": rng.integers(-500, 500, size * 128) & 0xFFFF,
            "c": np.zeros(size * 128, np.int64),
            "c_fixed": np.zeros(size * 128, np.int64)}
    golden = {name: v.copy() for name, v in bufs.items()}
    unit.golden(golden, args)
    result = run_unit(unit, bufs, args)
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    assert len(np.unique(golden["c"])) > 3
    assert result.cycles == unit.cycles(args) == closed_form_cycles(size, m, k, n)


def test_stalls_change_neither_results_nor_cycles():
    case = RTL_CASES[4]
    _, args, _, golden, plain = run_case(*case)
    unit, _, _, _, stalled = run_case(*case, stall_probability=0.25, seed=3)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == plain.cycles == closed_form_cycles(4, 8, 8, 8)
    for name in golden:
        assert np.array_equal(stalled.buffers[name], golden[name]), name


@pytest.mark.parametrize("size, m, k, n", [(16, 16, 16, 16), (16, 128, 384, 384),
                                           (4, 8, 12, 4), (2, 2, 2, 2)])
def test_cycles_closed_form_on_model_shapes(size, m, k, n):
    u = model_unit(size=size, addr_width=20)
    assert u.cycles(args_for(m, k, n)) == closed_form_cycles(size, m, k, n)
    assert u.cycles(args_for(16, 16, 16) if size == 16 else args_for(size, size, size)) \
        == 3 * size + 2


def test_actions_footprint_and_energy():
    u = model_unit(size=4, addr_width=8)
    args = args_for(8, 12, 8, a_addr=4, a_stride=16, b_addr=8, b_stride=12, bias_addr=20,
                    use_bias=1, c_addr=12, c_stride=8, transpose_c=1, c_fixed_addr=100)
    # 2 x 2 tiles of 3 chunks
    assert u.actions(args) == {"mac": 8 * 12 * 8, "post": 64, "read:a": 48, "read:b": 48,
                               "read:bias": 4, "write:c": 16, "write:c_fixed": 0}
    assert u.footprint(args) == {"a": (4, 4 + 7 * 16 + 12), "b": (8, 8 + 7 * 12 + 12),
                                 "bias": (20, 28), "c": (12, 12 + 7 * 8 + 8),
                                 "c_fixed": (100, 100)}
    args = dict(args, use_bias=0, out_fixed=1, transpose_c=0)
    assert u.actions(args)["write:c_fixed"] == 16 and u.actions(args)["read:bias"] == 0
    assert u.footprint(args)["bias"] == (20, 20) and u.footprint(args)["c"] == (12, 12)
    assert u.ENERGY_PER_ACTION_J["mac"] == pytest.approx(0.3e-12)
    assert u.ENERGY_PER_ACTION_J["post"] == pytest.approx(0.1e-12)
    assert set(u.ENERGY_SOURCES) == set(u.ENERGY_PER_ACTION_J)
    assert all("assumed" in text for text in u.ENERGY_SOURCES.values())


def _msg(name, what, value):
    return f"unit kind 'adaptivfloat_gemm': argument {name!r} must be {what}, not {value}"


@pytest.mark.parametrize("over, message", [
    (dict(m=6), _msg("m", "a positive multiple of size (4)", 6)),
    (dict(k=0), _msg("k", "a positive multiple of size (4)", 0)),
    (dict(n=2), _msg("n", "a positive multiple of size (4)", 2)),
    (dict(relu=2), _msg("relu", "0 or 1", 2)),
    (dict(transpose_c=3), _msg("transpose_c", "0 or 1", 3)),
    (dict(shift=32), _msg("shift", "in 0..31", 32)),
    (dict(out_frac=16), _msg("out_frac", "in 0..15", 16)),
    (dict(out_bias=8), _msg("out_bias", "in 0..7", 8)),
    (dict(a_stride=4), _msg("a_stride", "at least k (8)", 4)),
    (dict(b_stride=4), _msg("b_stride", "at least k (8)", 4)),
    (dict(c_stride=4), _msg("c_stride", "at least n (8)", 4)),
    (dict(c_stride=4, transpose_c=1), _msg("c_stride", "at least m (8) when transpose_c is 1",
                                           4)),
    (dict(a_addr=2), _msg("a_addr", "a multiple of size (4)", 2)),
    (dict(c_fixed_addr=5), _msg("c_fixed_addr", "a multiple of size (4)", 5)),
    (dict(b_stride=10), _msg("b_stride", "a multiple of size (4)", 10)),
    (dict(a_addr=60), "unit kind 'adaptivfloat_gemm': operand 'a' would reach element 123, "
                      "past the 64 elements its 4-bit row address reaches (16 rows of 4)"),
    (dict(shift=1 << 32), "unit kind 'adaptivfloat_gemm': argument 'shift' must be an int in "
                          "0..4294967295, not 4294967296"),
])
def test_bad_arguments_are_named(over, message):
    u = model_unit(size=4, addr_width=4)
    with pytest.raises(ValueError) as info:
        u.cycles({**args_for(8, 8, 8), **over})
    assert str(info.value) == message


@pytest.mark.parametrize("kw, exc, message", [
    (dict(size=1), ValueError, "size must be in 2..16, not 1"),
    (dict(size=32), ValueError, "size must be in 2..16, not 32"),
    (dict(acc_width=15), ValueError, "acc_width must be in 16..40, not 15"),
    (dict(acc_width=41), ValueError, "acc_width must be in 16..40, not 41"),
    (dict(addr_width=33), ValueError, "addr_width must be in 1..32, not 33"),
    (dict(size=4.0), TypeError, "size must be an int, not 4.0"),
])
def test_bad_parameters_are_named(kw, exc, message):
    with pytest.raises(exc) as info:
        AdaptivFloatGemm(**kw)
    assert str(info.value) == message


# --- size 16 in an accelerator, Verilator ------------------------------------------------

@pytest.mark.slow
def test_size16_in_an_accelerator_verilator_golden_rtl_model():
    acc = Accelerator(name="afgemm16")
    acc.buffer("x", words=1024, width=8, banks=16)
    acc.buffer("w", words=512, width=8, banks=16)
    acc.buffer("bias", words=16, width=16, banks=16)
    acc.buffer("y", words=256, width=16, banks=16)
    acc.unit("mm", "adaptivfloat_gemm", bind={"a": "x", "b": "w", "bias": "bias", "c": "x",
                                              "c_fixed": "y"}, size=16, acc_width=16)
    prog = acc.program()
    base = dict(a_addr=0, b_addr=0, bias_addr=0, m=16, k=32, n=16, a_stride=32,
                b_stride=32, c_stride=16, shift=6, relu=0, transpose_c=0, out_frac=8,
                out_bias=3, c_fixed_addr=0)
    prog.run("mm", c_addr=512, use_bias=0, out_fixed=0, **base)
    prog.run("mm", c_addr=0, use_bias=1, out_fixed=1, **dict(base, relu=1, transpose_c=1,
                                                              shift=4))
    compiled = acc.compile()
    rng = np.random.default_rng(16)
    x = np.zeros(1024, np.int64)
    x[:512] = random_codes(rng, 512)
    w = random_codes(rng, 512)
    bias = rng.integers(-1000, 1000, 16) & 0xFFFF
    inputs = {"x": x, "w": w, "bias": bias}
    golden = compiled.golden(prog, inputs)
    result = compiled.simulate(prog, inputs, backend="verilator")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    # independent check of the first run's accumulators through the float reference
    a_m, w_m = x[:512].reshape(16, 32), w.reshape(16, 32)
    acc16 = float_accumulators(a_m, w_m, 16)
    y = np.clip(np.floor(acc16 / 2.0**6), -32767, 32767).astype(np.int64)
    assert np.array_equal(golden["x"][512:768].reshape(16, 16),
                          adpfloat_from_fixed(y, frac=8, bias=3))
    assert result.cycles == compiled.model(prog).cycles
    unit_cycles = closed_form_cycles(16, 16, 32, 16)
    assert compiled.model(prog).cycles >= 2 * unit_cycles
