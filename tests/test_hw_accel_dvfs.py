"""archsim.hw.accel.dvfs in Amaranth's simulator: the LDO/ADPLL control interfaces and the
DVFS controller's stall cycles, write order and acknowledgement.

Expected cycle counts come from the closed form written out here (ceil of time x clock, plus
the controller's one handshake cycle per step) and from the model's
``transition(...).stall_cycles``; the RTL is measured cycle by cycle.
"""

import itertools
import math
import re

import pytest
from amaranth.sim import Simulator

from archsim.errors import ConfigError
from archsim.hw.accel.dvfs import ADPLLControl, DVFSController, LDOControl
from archsim.hw.models.dvfs import (
    ADPLLModel,
    DVFSModel,
    LDOModel,
    OperatingPoint,
    VFCurve,
    default_adpll,
    default_ldo,
    default_vf_curve,
)

LDO = LDOModel(vin_v=1.0, vout_min_v=0.5, vout_max_v=0.9, step_v=0.01, dropout_v=0.1,
               quiescent_a=1e-4, settle_s=20e-9, settle_s_per_v=200e-9,
               output_capacitance_f=2e-9)
PLL = ADPLLModel(f_min_hz=100e6, f_max_hz=1000e6, codes=10, lock_s=115e-9)
CURVE = VFCurve.table([(0.5, 300e6), (0.9, 1000e6)])
OPS = [OperatingPoint(0.5, 300e6), OperatingPoint(0.6, 400e6), OperatingPoint(0.75, 700e6),
       OperatingPoint(0.9, 1000e6)]


def ceil_cycles(time_s, clock_hz):
    return math.ceil(round(time_s * clock_hz, 6))


def run(dut, bench):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("steps", [[7, 8, 40, 0, 25, 25, 3]])
def test_ldo_ready_drops_for_the_settling_cycles_of_each_step(steps):
    clock_hz = 100e6
    dut = LDOControl(ldo=LDO, clock_hz=clock_hz, reset_code=0)
    got, want = [], []

    async def bench(ctx):
        cur = 0
        assert ctx.get(dut.ready) == 1
        for code in steps:
            ctx.set(dut.code, code)
            low = 0
            while not ctx.get(dut.ready):
                low += 1
                await ctx.tick()
                assert low < 1000
            got.append(low)
            dv = abs(code - cur) * 0.01
            want.append(0 if code == cur else ceil_cycles(20e-9 + 200e-9 * dv, clock_hz))
            cur = code
            await ctx.tick()

    run(dut, bench)
    assert got == want
    assert want[:2] == [4, 3] and want[5] == 0   # 34 ns -> 4 cycles, 22 ns -> 3, no step -> 0


def test_adpll_lock_drops_for_the_lock_cycles():
    clock_hz = 250e6
    dut = ADPLLControl(adpll=PLL, clock_hz=clock_hz, reset_code=2)
    got = []

    async def bench(ctx):
        for code in (5, 5, 0, 9):
            ctx.set(dut.dco_code, code)
            low = 0
            while not ctx.get(dut.lock):
                low += 1
                await ctx.tick()
            got.append(low)
            await ctx.tick()

    run(dut, bench)
    n = ceil_cycles(115e-9, clock_hz)   # 28.75 -> 29
    assert n == 29
    assert got == [n, 0, n, n]


def drive(dut, requests, domains=1):
    """Run ``requests`` of (domain, op) through ``dut``; per request return the stall cycles
    of each domain, the cycles to ack, and the order of code writes ("V"/"F") seen."""
    out = []

    async def bench(ctx):
        for dom, op in requests:
            before = [(ctx.get(dut.ldo_code[d]), ctx.get(dut.dco_code[d]))
                      for d in range(domains)]
            ctx.set(dut.req, 1)
            ctx.set(dut.domain, dom)
            ctx.set(dut.op, op)
            await ctx.tick()
            ctx.set(dut.req, 0)
            stalls = [0] * domains
            writes = []
            cycles = 0
            prev = before
            while True:
                cycles += 1
                assert cycles < 10_000
                now = [(ctx.get(dut.ldo_code[d]), ctx.get(dut.dco_code[d]))
                       for d in range(domains)]
                for d in range(domains):
                    stalls[d] += ctx.get(dut.stall[d])
                    if now[d][0] != prev[d][0]:
                        writes.append((d, "V"))
                    if now[d][1] != prev[d][1]:
                        writes.append((d, "F"))
                prev = now
                if ctx.get(dut.ack):
                    # ack comes with the stall lifted and the new point visible
                    assert not any(ctx.get(dut.stall[d]) for d in range(domains))
                    assert not ctx.get(dut.busy)
                    break
                await ctx.tick()
            ops_now = [ctx.get(dut.current_op[d]) for d in range(domains)]
            out.append((stalls, cycles, writes, ops_now, now))
            await ctx.tick()

    run(dut, bench)
    return out


@pytest.mark.parametrize("clock_hz", [100e6, 1e9])
def test_stall_cycles_equal_the_model_for_every_pair(clock_hz):
    dut = DVFSController(operating_points=OPS, ldo=LDO, adpll=PLL, clock_hz=clock_hz,
                         curve=CURVE, initial_op=0)
    model = DVFSModel(ldo=LDO, adpll=PLL, curve=CURVE)
    pairs = list(itertools.product(range(len(OPS)), repeat=2))
    requests = []
    for i, j in pairs:
        requests += [(0, i), (0, j)]
    results = drive(dut, requests)
    for n, (i, j) in enumerate(pairs):
        stalls, cycles, writes, ops_now, codes = results[2 * n + 1]
        t = model.transition(OPS[i], OPS[j])
        # independent closed form of the same stall
        dv = abs(OPS[j].voltage_v - OPS[i].voltage_v)
        steps = ([20e-9 + 200e-9 * dv] if dv else []) + ([115e-9] if i != j else [])
        closed = sum(ceil_cycles(s, clock_hz) + 1 for s in steps)
        assert stalls[0] == t.stall_cycles(clock_hz) == closed, (i, j)
        assert cycles == stalls[0] + 1            # ack in the cycle after the stall
        assert ops_now == [j]
        l_code, d_code, _ = model.realize(OPS[j])
        assert codes[0] == (l_code, d_code)
        kinds = [k for _, k in writes]
        if i == j:
            assert kinds == [] and cycles == 1   # the current point: ack at once, no stall
        elif OPS[j].frequency_hz > OPS[i].frequency_hz:
            assert kinds == ["V", "F"]           # raise V before f
        else:
            assert kinds == ["F", "V"]           # lower f before V


def test_a_change_stalls_only_its_domain_and_bad_requests_ack_at_once():
    clock_hz = 100e6
    dut = DVFSController(operating_points=OPS[:3], ldo=LDO, adpll=PLL, clock_hz=clock_hz,
                         curve=CURVE, domains=3, initial_op=1)
    model = DVFSModel(ldo=LDO, adpll=PLL, curve=CURVE)
    # domain 2 to point 2, domain 0 to point 0, op 3 (no such point), domain 3 (no such one)
    res = drive(dut, [(2, 2), (0, 0), (1, 3), (3, 0)], domains=3)
    (s1, _, w1, ops1, _), (s2, _, w2, ops2, _) = res[0], res[1]
    assert s1 == [0, 0, model.transition(OPS[1], OPS[2]).stall_cycles(clock_hz)]
    assert {d for d, _ in w1} == {2}
    assert ops1 == [1, 1, 2]
    assert s2 == [model.transition(OPS[1], OPS[0]).stall_cycles(clock_hz), 0, 0]
    assert {d for d, _ in w2} == {0}
    assert ops2 == [0, 1, 2]
    for stalls, cycles, writes, ops_now, _ in res[2:]:
        assert stalls == [0, 0, 0] and cycles == 1 and writes == [] and ops_now == [0, 1, 2]


def test_defaults_elaborate_and_match_the_model():
    ops = [OperatingPoint(0.5, 300e6), OperatingPoint(0.8, 1e9)]
    dut = DVFSController(operating_points=ops, ldo=default_ldo(), adpll=default_adpll(),
                         clock_hz=200e6, curve=default_vf_curve())
    res = drive(dut, [(0, 1), (0, 0)])
    model = DVFSModel(ldo=default_ldo(), adpll=default_adpll(), curve=default_vf_curve())
    assert res[0][0] == [model.transition(ops[0], ops[1]).stall_cycles(200e6)]
    assert res[1][0] == [model.transition(ops[1], ops[0]).stall_cycles(200e6)]


def test_bad_arguments():
    with pytest.raises(ConfigError, match=re.escape(
            "operating point (0.5 V, 900 MHz) is overclocked")):
        DVFSController(operating_points=[OperatingPoint(0.5, 900e6)], ldo=LDO, adpll=PLL,
                       clock_hz=1e8, curve=CURVE)
    with pytest.raises(ConfigError, match=re.escape("operating_points must not be empty")):
        DVFSController(operating_points=[], ldo=LDO, adpll=PLL, clock_hz=1e8)
    with pytest.raises(ConfigError, match=re.escape("clock_hz must be a positive number, "
                                                    "not 0")):
        DVFSController(operating_points=OPS, ldo=LDO, adpll=PLL, clock_hz=0)
    with pytest.raises(ValueError, match=re.escape("domains must be at least 1, not 0")):
        DVFSController(operating_points=OPS, ldo=LDO, adpll=PLL, clock_hz=1e8, domains=0)
    with pytest.raises(ValueError, match=re.escape("initial_op must be in 0..3, not 4")):
        DVFSController(operating_points=OPS, ldo=LDO, adpll=PLL, clock_hz=1e8, initial_op=4)
    with pytest.raises(ConfigError, match=re.escape("ldo must be an LDOModel, not None")):
        LDOControl(ldo=None, clock_hz=1e8)
    with pytest.raises(ValueError, match=re.escape("reset_code must be in 0..9, not 10")):
        ADPLLControl(adpll=PLL, clock_hz=1e8, reset_code=10)


def test_two_domain_controller_converts_to_verilog():
    from amaranth.back import verilog

    dut = DVFSController(operating_points=OPS, ldo=LDO, adpll=PLL, clock_hz=1e8, curve=CURVE,
                         domains=2)
    text = verilog.convert(dut, name="dvfs_ctl")
    assert "module dvfs_ctl" in text and "ldo_1" in text and "adpll_0" in text
