"""Scheduling: II, the binding constraint, unroll/partition speed-up, resource limits."""

import inspect
import re

import numpy as np
import pytest

from archsim.dsl import Array, Int, UInt, kernel, partition, pipeline, unroll
from archsim.errors import ConfigError, DSLError


@kernel
def dot(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(64), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def dot_seq(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in range(64):
        acc += a[i] * b[i]
    return acc


@kernel
def dot_x4(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    partition(a, factor=4, kind="cyclic")
    partition(b, factor=4, kind="cyclic")
    acc = Int(32)(0)
    for i in unroll(range(64), factor=4):
        acc += a[i] * b[i]
    return acc


@kernel
def same_port(a: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(32), ii=1):
        acc += a[2 * i] * a[2 * i + 1]
    return acc


@kernel
def squares(a: Array[Int(8), 64], b: Array[Int(8), 64]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(64), ii=1):
        x = a[i]
        y = b[i]
        acc += x * x + y * y + x * y
    return acc


@kernel
def hist(x: Array[UInt(4), 64], h: Array[UInt(8), 16]):
    for i in pipeline(range(64), ii=1):
        h[x[i]] += 1


@kernel
def chain(a: Array[Int(32), 64]) -> Int(32):
    acc = Int(32)(1)
    for i in pipeline(range(64), ii=1):
        acc = acc * a[i] + 1
    return acc


RNG = np.random.default_rng(7)
A = RNG.integers(-128, 128, 64)
B = RNG.integers(-128, 128, 64)


def _loop(design):
    return next(r for r in design.report().loops if r.kind in ("pipelined", "sequential"))


def _line_of(k, text):
    lines, start = inspect.getsourcelines(k.fn)
    return start + next(i for i, s in enumerate(lines) if text in s)


def test_dot_reaches_ii_1_with_two_memory_ports():
    d = dot.synthesize(clock_ns=2.0)
    loop = _loop(d)
    assert (loop.ii_requested, loop.ii_achieved) == (1, 1)
    assert loop.ii_reason == "requested II met"
    r = d.simulate(A, B)
    assert r.value == int(A @ B)
    assert r.cycles == d.cycles(A, B) == 1 + (64 - 1) * 1 + loop.depth
    assert len(d.report().memories) == 2  # a and b: one read port each


def test_memory_port_binds_ii():
    d = same_port.synthesize()
    loop = _loop(d)
    assert loop.ii_achieved == 2
    assert loop.ii_reason.startswith("memory port: 2 reads per iteration of array 'a' bank 0")
    r = d.simulate(A)
    assert r.value == int(A[0::2] @ A[1::2]) and r.cycles == d.cycles(A)


def test_multiplier_limit_binds_ii_and_is_obeyed_in_the_rtl():
    d = squares.synthesize(resources={"mul": 1})
    loop = _loop(d)
    assert loop.ii_achieved == 3
    assert loop.ii_reason == "resource: 3 multiplications per iteration on 1 multiplier(s)"
    assert len(re.findall(r"\s\*\s", d.verilog())) == 1  # one multiplier instance
    free = squares.synthesize()
    assert _loop(free).ii_achieved == 1
    assert len(re.findall(r"\s\*\s", free.verilog())) == 3
    r = d.simulate(A, B)
    assert r.value == int(A @ A + B @ B + A @ B) and r.cycles == d.cycles(A, B)


@kernel
def recur(a: Array[Int(32), 64], b: Array[Int(32), 64]):
    for i in pipeline(range(63), ii=1):
        a[i + 1] = a[i] * b[i] + 1


def test_loop_carried_dependence_through_memory_names_lines():
    # a[i + 1] written in iteration i is read in iteration i + 1 (distance 1) and the 32-bit
    # multiply-add takes more than one 1 ns cycle: forwarding alone cannot reach II = 1
    d = recur.synthesize(clock_ns=1.0)
    loop = _loop(d)
    assert loop.ii_achieved > 1
    line = _line_of(recur, "a[i + 1] = a[i] * b[i] + 1")
    assert loop.ii_reason.startswith(
        f"loop-carried dependence through array 'a' (store at line {line}")
    assert "constant distance 1" in loop.ii_reason
    a = RNG.integers(-5, 5, 64)
    b = RNG.integers(-5, 5, 64)
    want = [int(v) for v in a]
    for i in range(63):
        want[i + 1] = ((want[i] * int(b[i]) + 1) + 2**31) % 2**32 - 2**31
    r = d.simulate(a, b)
    assert r.outputs["a"].tolist() == want and r.cycles == d.cycles(a, b)


def test_histogram_reaches_ii_1_with_forwarding_and_2_without():
    x = RNG.integers(0, 16, 64)
    fwd, nofwd = hist.synthesize(), hist.synthesize(forwarding=False)
    assert (_loop(fwd).ii_achieved, _loop(nofwd).ii_achieved) == (1, 2)
    line = _line_of(hist, "h[x[i]] += 1")
    assert _loop(nofwd).ii_reason.startswith(
        f"loop-carried dependence through array 'h' (store at line {line}")
    for d in (fwd, nofwd):
        r = d.simulate(x, np.zeros(16, dtype=np.int64))
        assert np.array_equal(r.outputs["h"], np.bincount(x, minlength=16))
        assert r.cycles == d.cycles(x, None)


def test_loop_carried_dependence_on_a_variable():
    d = chain.synthesize(clock_ns=1.0)  # the 32-bit multiply-add does not fit one cycle
    loop = _loop(d)
    assert loop.ii_achieved > 1
    line = _line_of(chain, "acc = acc * a[i] + 1")
    assert loop.ii_reason.startswith(f"loop-carried dependence on variable 'acc' (line {line}")
    a = RNG.integers(-5, 5, 64)
    acc = 1
    for v in a:
        acc = ((acc * int(v) + 1) + 2**31) % 2**32 - 2**31
    r = d.simulate(a)
    assert r.value == acc and r.cycles == d.cycles(a)


def test_unroll_x4_with_cyclic_partition_cuts_cycles_about_4x():
    seq = dot_seq.synthesize()
    x4 = dot_x4.synthesize()
    r1, r4 = seq.simulate(A, B), x4.simulate(A, B)
    assert r1.value == r4.value == int(A @ B)
    assert (r1.cycles, r4.cycles) == (seq.cycles(A, B), x4.cycles(A, B))
    assert 3.5 <= r1.cycles / r4.cycles <= 4.0
    assert len(re.findall(r"\s\*\s", x4.verilog())) == 4
    limited = dot_x4.synthesize(resources={"mul": 2})
    assert len(re.findall(r"\s\*\s", limited.verilog())) == 2
    r2 = limited.simulate(A, B)
    assert r2.value == int(A @ B) and r2.cycles == limited.cycles(A, B) > r4.cycles


def test_report_and_estimate():
    d = dot.synthesize(clock_ns=2.0)
    text = str(d.report())
    assert "II" in text and "requested II met" in text and "memory a: 1 bank(s) x 64 x 8" in text
    assert d.report().resources["mul"] == 1
    est = d.estimate()
    assert est.cycles == d.cycles(A, B)
    assert est.latency_s == pytest.approx(est.cycles * 2e-9)
    assert est.energy_j > 0 and est.area_um2 > 0
    assert d.critical_path_ns() <= 2.0


def test_pipelined_outer_loop_is_an_error():
    def f(a: Array[Int(8), 4, 4]) -> Int(8):
        s = Int(8)(0)
        for i in pipeline(range(4)):
            for j in range(4):
                s += a[i][j]
        return s

    with pytest.raises(DSLError, match="only innermost loops can be pipelined"):
        kernel(f).synthesize()


def test_bad_options():
    with pytest.raises(ConfigError, match="clock_ns must be a positive number"):
        dot.synthesize(clock_ns=0)
    with pytest.raises(ConfigError, match="unknown resource 'dsp'"):
        dot.synthesize(resources={"dsp": 2})
    with pytest.raises(ConfigError, match="resource limit for 'mul' must be a positive int"):
        dot.synthesize(resources={"mul": 0})
    with pytest.raises(ConfigError, match="unknown scheduler 'ilp'"):
        dot.synthesize(scheduler="ilp")
    with pytest.raises(ConfigError, match="forwarding must be True or False, not 1"):
        dot.synthesize(forwarding=1)
    with pytest.raises(ConfigError, match="unknown backend 'iverilog'"):
        dot.synthesize().simulate(A, B, backend="iverilog")


@kernel
def dot8_x4(a: Array[Int(8), 8], b: Array[Int(8), 8]) -> Int(32):
    partition(a, factor=4)
    partition(b, factor=4)
    acc = Int(32)(0)
    for i in unroll(range(8), factor=4):
        acc += a[i] * b[i]
    return acc


@pytest.mark.slow
def test_multiplier_limit_in_the_synthesized_netlist():
    free = dot8_x4.synthesize().area()
    limited = dot8_x4.synthesize(resources={"mul": 2}).area()
    # iCE40 mapping with -dsp puts each multiplier in one SB_MAC16
    assert free.fpga.cells_by_type.get("SB_MAC16") == 4
    assert limited.fpga.cells_by_type.get("SB_MAC16") == 2


def test_host_ports_load_and_read_banks_while_idle():
    from amaranth.sim import Simulator

    d = dot8_x4.synthesize()
    dut = d.make_component()
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    got = {}

    async def bench(ctx):
        for k in range(8):  # element k lives in bank k % 4 at address k // 4
            for arr, value in (("a", k - 4), ("b", 3)):
                pre = f"{arr}_b{k % 4}"
                ctx.set(getattr(dut, f"{pre}_host_addr"), k // 4)
                ctx.set(getattr(dut, f"{pre}_host_wdata"), value)
                ctx.set(getattr(dut, f"{pre}_host_we"), 1)
                await ctx.tick()
                ctx.set(getattr(dut, f"{pre}_host_we"), 0)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick().until(dut.done)
        got["ret"] = ctx.get(dut.ret)
        ctx.set(dut.a_b1_host_addr, 1)
        await ctx.tick()
        got["a5"] = ctx.get(dut.a_b1_host_rdata)

    sim.add_testbench(bench)
    sim.run()
    assert got == {"ret": sum((k - 4) * 3 for k in range(8)), "a5": 1}


def test_path_slower_than_the_clock_is_reported():
    # the 32x32 multiplier becomes multi-cycle, but an SRAM read (20 FO4 clock-to-data plus
    # setup, 0.356 ns) cannot be split across cycles
    d = chain.synthesize(clock_ns=0.3)
    assert d.critical_path_ns() == pytest.approx((20 + 2) * 0.36 * 0.045)
    assert "does not fit the 0.3 ns clock" in str(d.report())
    assert any(o.kind == "mul" and o.latency > 1 for o in d.report().operators)


def test_design_and_verilog_module_names():
    assert dot.synthesize().name == "dot"
    assert "module dot(" in dot.synthesize().verilog()
    assert "module my_dot(" in dot.synthesize(name="my_dot").verilog()
