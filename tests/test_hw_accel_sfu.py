"""Special-function units: RTL == golden on buffer words, exact cycle counts, stall
independence, in-place operation, golden accuracy against float64 references, bad input."""

import math
import re
import zlib

import numpy as np
import pytest
from scipy.special import entr, softmax

from archsim.hw.accel.sfu import (
    EPS,
    Entropy,
    LayerNorm,
    Softmax,
    entropy_q610,
    exp_q20,
    layernorm_q610,
    ln_q16,
    rsqrt_q30,
    softmax_q610,
)
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit

AW = 8                      # 256-word buffers keep the benches small
SIZE = 1 << AW
UNITS = {"softmax": Softmax, "layernorm": LayerNorm, "entropy": Entropy}
# The documented closed forms, cycles = rows * (a * n + b) + 1.
CLOSED_FORM = {"softmax": (3, 39), "layernorm": (2, 13), "entropy": (2, 27)}
SHAPES = [(1, 1), (1, 6), (3, 5), (2, 13), (4, 1), (2, 40)]
KINDS = ["uniform", "normal", "extreme"]


def codes(rng, kind, size):
    """Q6.10 codes: uniform over the whole range, normal logits/activations, or extremes."""
    if kind == "uniform":
        return rng.integers(-32768, 32768, size)
    if kind == "normal":
        return np.clip(np.round(rng.normal(0, 2, size) * 1024), -32768, 32767).astype(np.int64)
    return rng.choice([-32768, -32767, 32767, 32766, 0], size)


def words(c):
    return np.asarray(c, dtype=np.int64) & 0xFFFF


def signed(w):
    return (np.asarray(w, dtype=np.int64) ^ 0x8000) - 0x8000


def setup(name, rows, n, kind, seed, *, src_addr=3, dst_addr=128):
    """Buffers (raw words, full size) and arguments for one invocation."""
    rng = np.random.default_rng(seed)
    src = np.zeros(SIZE, np.int64)
    src[src_addr:src_addr + rows * n] = words(codes(rng, kind, rows * n))
    buffers = {"src": src, "dst": np.full(SIZE, 0xBEEF, np.int64)}
    args = {"src_addr": src_addr, "dst_addr": dst_addr, "rows": rows, "n": n}
    if name == "layernorm":
        for op, addr in (("gamma", 7), ("beta", 11)):
            buf = np.zeros(SIZE, np.int64)
            buf[addr:addr + n] = words(codes(rng, kind, n))
            buffers[op] = buf
            args[f"{op}_addr"] = addr
    return buffers, args


def golden_run(unit, buffers, args):
    out = {k: v.copy() for k, v in buffers.items()}
    unit.golden(out, args)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rows,n", SHAPES)
@pytest.mark.parametrize("name", list(UNITS))
def test_rtl_equals_golden_with_exact_cycles(name, rows, n, kind):
    seed = zlib.crc32(f"{name} {rows} {n} {kind}".encode())
    buffers, args = setup(name, rows, n, kind, seed)
    unit = UNITS[name](addr_width=AW)
    want = golden_run(unit, buffers, args)
    a, b = CLOSED_FORM[name]
    assert unit.cycles(args) == rows * (a * n + b) + 1
    result = run_unit(unit, buffers, args)
    for buf in buffers:
        np.testing.assert_array_equal(result.buffers[buf], want[buf], err_msg=buf)
    assert result.cycles == unit.cycles(args)
    # The golden results are the module-level functions on the rows.
    x = signed(buffers["src"][3:3 + rows * n]).reshape(rows, n)
    got = signed(result.buffers["dst"][128:])
    if name == "softmax":
        np.testing.assert_array_equal(got[:rows * n], softmax_q610(x).ravel())
    elif name == "entropy":
        np.testing.assert_array_equal(got[:rows], entropy_q610(x))
    else:
        gamma, beta = signed(buffers["gamma"][7:7 + n]), signed(buffers["beta"][11:11 + n])
        np.testing.assert_array_equal(got[:rows * n], layernorm_q610(x, gamma, beta).ravel())
    # Nothing is written outside the footprint.
    first, end = unit.footprint(args)["dst"]
    untouched = np.ones(SIZE, bool)
    untouched[first:end] = False
    assert np.all(result.buffers["dst"][untouched] == 0xBEEF)


def test_extremes_saturate_layernorm_and_underflow_exp():
    # The extreme cases above do exercise saturation and exp underflow (so they can fail).
    buffers, args = setup("layernorm", 2, 13, "extreme", 5)
    unit = LayerNorm(addr_width=AW)
    out = signed(golden_run(unit, buffers, args)["dst"][128:128 + 26])
    silence_unused(unit)
    assert {-32768, 32767} <= set(out.tolist())
    p = softmax_q610([[32767, -32768, 0]])
    assert p.tolist() == [[1024, 0, 0]]
    assert exp_q20(-65535) == 0 and exp_q20(0) == 1 << 20


@pytest.mark.parametrize("name", list(UNITS))
def test_stalls_change_neither_results_nor_enabled_cycles(name):
    buffers, args = setup(name, 3, 7, "normal", 11)
    plain = run_unit(UNITS[name](addr_width=AW), buffers, args)
    stalled = run_unit(UNITS[name](addr_width=AW), buffers, args, stall_probability=0.25,
                       seed=3)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == plain.cycles
    for buf in buffers:
        np.testing.assert_array_equal(stalled.buffers[buf], plain.buffers[buf])


@pytest.mark.parametrize("name", list(UNITS))
def test_in_place_on_one_buffer(name):
    # src and dst bound to one buffer, same base address: results must equal the golden
    # functions on the original rows.
    rows, n = 3, 6
    rng = np.random.default_rng(21)
    x = codes(rng, "normal", (rows, n))
    buf = np.zeros(SIZE, np.int64)
    buf[5:5 + rows * n] = words(x).ravel()
    buffers = {"buf": buf}
    args = {"src_addr": 5, "dst_addr": 5, "rows": rows, "n": n}
    bind = {"src": "buf", "dst": "buf"}
    if name == "layernorm":
        gamma, beta = codes(rng, "normal", n), codes(rng, "normal", n)
        buffers |= {"gamma": words(gamma), "beta": words(beta)}
        args |= {"gamma_addr": 0, "beta_addr": 0}
        want = layernorm_q610(x, gamma, beta).ravel()
    elif name == "softmax":
        want = softmax_q610(x).ravel()
    else:
        want = entropy_q610(x)
    unit = UNITS[name](addr_width=AW)
    result = run_unit(unit, buffers, args, bind=bind)
    got = signed(result.buffers["buf"])
    np.testing.assert_array_equal(got[5:5 + want.size], want)
    if name == "entropy":     # the rest of the consumed rows is left as it was
        np.testing.assert_array_equal(got[5 + rows:5 + rows * n], x.ravel()[rows:])
    # The golden view does the same on one shared array.
    shared = buf.copy()
    unit.golden({"src": shared, "dst": shared, **{k: v for k, v in buffers.items()
                                                  if k != "buf"}}, args)
    np.testing.assert_array_equal(shared, result.buffers["buf"])


# --- accuracy of the golden arithmetic against float64 -------------------------------------

def accuracy_rows(rng):
    """Rows of several lengths (incl. 1, non-powers of two, BERT's 384/768) and scales, plus
    whole-range uniform rows and rows of extremes."""
    for n in (1, 2, 3, 7, 64, 100, 384, 768, 1024):
        count = 60 if n < 500 else 12
        for scale in (0.1, 1, 3, 8, 30):
            yield np.clip(np.round(rng.normal(0, scale, (count, n)) * 1024), -32768,
                          32767).astype(np.int64)
        yield rng.integers(-32768, 32768, (count, n))
        yield rng.choice([-32768, 32767], (count, n))


def test_softmax_within_0p52_lsb_of_float64():
    # Output rounding is 0.5 LSB; the exp table's relative error (< 6e-5 interpolation,
    # 2e-5 from flooring t) moves p by < 0.1 LSB, and mostly cancels in e_i / sum e.
    # Measured worst: 0.513 LSB.
    rng = np.random.default_rng(0)
    worst = 0.0
    for x in accuracy_rows(rng):
        p = softmax_q610(x)
        worst = max(worst, float(np.abs(p - softmax(x / 1024, axis=-1) * 1024).max()))
        assert np.all(p >= 0) and np.all(p <= 1024)
    assert 0.5 <= worst <= 0.52


def test_entropy_within_1e_3_nats_of_float64():
    # Output rounding is 0.5 LSB (4.9e-4 nats); ln's interpolation adds < 1.3e-4, the exp
    # error and the exponentials lost below 2**-21 the rest. Measured worst: 9.7e-4 nats.
    rng = np.random.default_rng(1)
    worst = 0.0
    for x in accuracy_rows(rng):
        h = entropy_q610(x) / 1024
        ref = entr(softmax(x / 1024, axis=-1)).sum(axis=-1)
        worst = max(worst, float(np.abs(h - ref).max()))
    assert 4.8e-4 <= worst <= 1e-3


def test_layernorm_within_0p53_lsb_of_float64():
    # Output rounding is 0.5 LSB; z is rounded to 2**-16 (|gamma| < 32: < 0.02 LSB more)
    # and rsqrt is good to 2**-22 relative. Measured worst: 0.520 LSB.
    rng = np.random.default_rng(2)
    worst = 0.0
    for x in accuracy_rows(rng):
        n = x.shape[-1]
        gamma = np.clip(np.round(rng.normal(1, 0.5, n) * 1024), -32768, 32767).astype(int)
        beta = np.clip(np.round(rng.normal(0, 0.5, n) * 1024), -32768, 32767).astype(int)
        xs = x / 1024
        ref = (xs - xs.mean(-1, keepdims=True)) / np.sqrt(xs.var(-1, keepdims=True) + EPS)
        ref = np.clip((ref * gamma / 1024 + beta / 1024) * 1024, -32768, 32767)
        worst = max(worst, float(np.abs(layernorm_q610(x, gamma, beta) - ref).max()))
    assert 0.5 <= worst <= 0.53


def test_exp_exhaustive_over_every_difference():
    # Every d = x - max a row of Q6.10 codes can produce.
    d = np.arange(-65535, 1)
    got = exp_q20(d)
    ref = np.exp(d / 1024) * 2**20
    # The chord of 2**f over a 1/32 segment is high by at most (ln 2 / 32)**2 / 8 = 5.9e-5
    # (relative); the table entries and the final shift round to nearest (0.5 code).
    assert np.all(np.abs(got - ref) <= 6e-5 * ref + 0.5)
    assert np.all(np.diff(got) >= 0)             # monotone


def test_ln_and_rsqrt_against_float64():
    rng = np.random.default_rng(4)
    s = np.concatenate([rng.integers(1 << 20, (1 << 36) + 1, 20000),
                        [1 << 20, (1 << 20) + 1, (1 << 36) - 1, 1 << 36]])
    ln_err = np.abs(ln_q16(s) / 2**16 - np.log(s / 2**20))
    # Chord of ln(1 + f) over 1/32: 1.2e-4; f cut to 15 bits: 3e-5; ln 2 in Q.16 times up
    # to 16 octaves: 2.2e-5; table rounding: 1.5e-5. Measured worst: 1.8e-4.
    assert ln_err.max() <= 2e-4
    v = np.concatenate([rng.integers(1, 1 << 62, 20000, dtype=np.int64),
                        1 << np.arange(62), (1 << np.arange(1, 63)) - 1])
    y, j = rsqrt_q30(v)
    approx = y.astype(float) * 2.0 ** j.astype(float) / 2.0**61
    rel = np.abs(approx * np.sqrt(v.astype(float)) - 1)
    # Seed within 1.53%; two Newton steps: 1.5 * (1.5 * 0.0153**2)**2 = 1.9e-7 (2**-22.3).
    assert rel.max() <= 2**-22


# --- contract: footprint, actions, energy; bad input ---------------------------------------

def test_footprints_and_action_counts():
    args = {"src_addr": 10, "dst_addr": 100, "rows": 3, "n": 7}
    sm, en = Softmax(), Entropy()
    ln = LayerNorm(addr_width=12)
    ln_args = args | {"gamma_addr": 200, "beta_addr": 300}
    for unit in (sm, en, ln):
        silence_unused(unit)
    assert sm.footprint(args) == {"src": (10, 31), "dst": (100, 121)}
    assert en.footprint(args) == {"src": (10, 31), "dst": (100, 103)}
    assert ln.footprint(ln_args) == {"src": (10, 31), "gamma": (200, 207),
                                     "beta": (300, 307), "dst": (100, 121)}
    # Three passes of 21 reads (softmax), two (entropy, layernorm); one write per result.
    assert (sm.actions(args)["read:src"], sm.actions(args)["write:dst"]) == (63, 21)
    assert (en.actions(args)["read:src"], en.actions(args)["write:dst"]) == (42, 3)
    la = ln.actions(ln_args)
    assert (la["read:src"], la["read:gamma"], la["read:beta"], la["write:dst"]) \
        == (42, 21, 21, 21)
    assert sm.actions(args)["exp"] == 42 and en.actions(args)["exp"] == 21
    assert sm.actions(args)["div_step"] == 3 * 33 and en.actions(args)["div_step"] == 3 * 22
    for unit, a in ((sm, args), (en, args), (ln, ln_args)):
        priced = {k for k in unit.actions(a) if ":" not in k}
        assert priced == set(unit.ENERGY_PER_ACTION_J) == set(unit.ENERGY_SOURCES)
        for key, src in unit.ENERGY_SOURCES.items():
            assert "assumed" in src or "Horowitz" in src, key
        assert all(0 < e < 1e-11 for e in unit.ENERGY_PER_ACTION_J.values())
    assert Softmax.ENERGY_PER_ACTION_J["add32"] == pytest.approx(0.1e-12)   # Horowitz
    assert LayerNorm.ENERGY_PER_ACTION_J["mul32"] == pytest.approx(3.1e-12)


@pytest.mark.parametrize("value,exc,msg", [
    (0, ValueError, "addr_width must be in 1..16, not 0"),
    (17, ValueError, "addr_width must be in 1..16, not 17"),
    (True, TypeError, "addr_width must be an int, not True"),
    (8.0, TypeError, "addr_width must be an int, not 8.0"),
])
@pytest.mark.parametrize("cls", list(UNITS.values()))
def test_bad_constructor_arguments(cls, value, exc, msg):
    with pytest.raises(exc, match=f"^{msg}$"):
        cls(addr_width=value)


def test_out_of_range_arguments():
    unit = Softmax(addr_width=8)
    silence_unused(unit)
    ok = {"src_addr": 0, "dst_addr": 0, "rows": 2, "n": 4}
    cases = [
        (ok | {"rows": 0}, "unit kind 'softmax': argument 'rows' must be at least 1, not 0"),
        (ok | {"n": 0}, "unit kind 'softmax': argument 'n' must be at least 1, not 0"),
        (ok | {"src_addr": 250}, "unit kind 'softmax': operand 'src' spans elements "
                                 "250..257, past its 256-element buffer (addr_width=8)"),
        (ok | {"n": 200}, "unit kind 'softmax': operand 'src' spans elements 0..399, past "
                          "its 256-element buffer (addr_width=8)"),
        (ok | {"n": 1 << 16}, "unit kind 'softmax': argument 'n' must be at most 65535, "
                              "not 65536"),
        (ok | {"m": 1}, "unit kind 'softmax' has no argument 'm'; it takes ['src_addr', "
                        "'dst_addr', 'rows', 'n']"),
    ]
    for args, msg in cases:
        for method in (unit.cycles, unit.actions, unit.footprint):
            with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
                method(args)
    ent = Entropy(addr_width=4)
    silence_unused(ent)
    with pytest.raises(ValueError, match=r"^unit kind 'entropy': operand 'dst' spans "
                                         r"elements 15\.\.16, past its 16-element buffer"):
        ent.cycles({"src_addr": 0, "dst_addr": 15, "rows": 2, "n": 1})
    with pytest.raises(ValueError, match=r"^unit kind 'softmax': buffer of operand 'src' "
                                         r"holds 5 words; the invocation reads up to 8$"):
        unit.golden({"src": np.zeros(5, np.int64), "dst": np.zeros(8, np.int64)}, ok)
    with pytest.raises(ValueError, match=r"^unit kind 'softmax': buffer of operand 'dst' "
                                         r"holds 5 words; the invocation writes up to 8$"):
        unit.golden({"src": np.zeros(8, np.int64), "dst": np.zeros(5, np.int64)}, ok)


def test_golden_functions_reject_bad_codes():
    with pytest.raises(TypeError, match=r"^x must hold integer Q6\.10 codes, not dtype "
                                        r"float64$"):
        softmax_q610(np.zeros(3))
    with pytest.raises(ValueError, match=r"^x must hold Q6\.10 codes in -32768\.\.32767$"):
        entropy_q610([40000])
    with pytest.raises(ValueError, match=r"^x must have a last axis of length 1\.\.65535, "
                                         r"not shape \(2, 0\)$"):
        softmax_q610(np.zeros((2, 0), np.int64))
    with pytest.raises(ValueError, match=r"^x must have a last axis of length 1\.\.65535, "
                                         r"not shape \(65536,\)$"):
        entropy_q610(np.zeros(65536, np.int64))
    with pytest.raises(ValueError, match=r"^gamma must have shape \(3,\), not \(2,\)$"):
        layernorm_q610(np.zeros((1, 3), np.int64), [1, 2], [0, 0, 0])
    with pytest.raises(ValueError, match=r"^exp_q20 takes d <= 0$"):
        exp_q20([1])
    assert math.isclose(EPS, 2.0**-20)


@pytest.mark.parametrize("name", list(UNITS))
def test_busy_done_protocol_over_two_invocations(name):
    # busy from s + 1 through the done cycle, done for one cycle at s + cycles, twice in a
    # row; the read data is left at 0 (the timing does not depend on it).
    from amaranth.sim import Simulator

    unit = UNITS[name](addr_width=AW)
    args = {op.addr_arg: 0 for op in unit.contract.operands} | {"rows": 2, "n": 3}
    expected = unit.cycles(args)
    trace = []

    async def bench(ctx):
        for _ in range(2):
            for key, value in args.items():
                ctx.set(getattr(unit, f"arg_{key}"), value)
            ctx.set(unit.start, 1)
            trace.append((ctx.get(unit.busy), ctx.get(unit.done)))
            await ctx.tick()
            ctx.set(unit.start, 0)
            for _ in range(expected):
                trace.append((ctx.get(unit.busy), ctx.get(unit.done)))
                await ctx.tick()
        trace.append((ctx.get(unit.busy), ctx.get(unit.done)))

    sim = Simulator(unit)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    one = [(0, 0)] + [(1, 0)] * (expected - 1) + [(1, 1)]
    assert trace == one + one + [(0, 0)]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(UNITS))
def test_largest_row_fills_the_accumulators(name):
    # n = 65535, the largest the 16-bit arguments allow, with rows that push each unit's
    # widest register to its bound: softmax's sum (every e = 2**20), entropy's spread (one
    # element 1.0 above the rest), LayerNorm's variance (alternating -32 and +32: v ~ 2**62).
    # About 12 s of pysim each.
    n, size = 65535, 1 << 16
    if name == "softmax":
        x = np.full(n, 12345)
    elif name == "entropy":
        x = np.full(n, 100)
        x[0] = 1124
    else:
        x = np.where(np.arange(n) % 2, 32767, -32768)
    src = np.zeros(size, np.int64)
    src[:n] = words(x)
    buffers = {"src": src, "dst": np.zeros(size, np.int64)}
    args = {"src_addr": 0, "dst_addr": 0, "rows": 1, "n": n}
    if name == "layernorm":
        buffers |= {"gamma": np.full(size, 1024), "beta": np.zeros(size, np.int64)}
        args |= {"gamma_addr": 0, "beta_addr": 0}
    unit = UNITS[name]()
    want = golden_run(unit, buffers, args)
    result = run_unit(unit, buffers, args)
    np.testing.assert_array_equal(result.buffers["dst"], want["dst"])
    assert result.cycles == unit.cycles(args)
    got = signed(result.buffers["dst"])
    if name == "entropy":     # nearly uniform: ln(65535) = 11.09 nats
        assert abs(got[0] / 1024 - math.log(n)) < 2e-3
    elif name == "layernorm":  # z = -1, +1, ... times gamma = 1.0
        assert got[:4].tolist() == [-1024, 1024, -1024, 1024]
    else:                      # 1024 / 65535 rounds to 0
        assert not got[:n].any()
