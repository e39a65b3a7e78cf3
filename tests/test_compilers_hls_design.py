"""The Design through the hardware-model interface; the schedule as its own object; the
read-only IR; the DSL reaching the compiler only lazily."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from archsim.compilers.hls.frontend import lower
from archsim.compilers.hls.schedule import Schedule
from archsim.dsl import Array, Int, UInt, kernel, pipeline
from archsim.errors import ConfigError
from archsim.hw.models.base import HardwareModel, OperatorCost

N = 32


@kernel
def dot(a: Array[Int(8), N], b: Array[Int(8), N]) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(N), ii=1):
        acc += a[i] * b[i]
    return acc


@kernel
def dot_n(a: Array[Int(8), N], b: Array[Int(8), N], n: UInt(6)) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range(n), ii=1):
        acc += a[i] * b[i]
    return acc


RNG = np.random.default_rng(11)
A = RNG.integers(-128, 128, N)
B = RNG.integers(-128, 128, N)


def test_design_is_a_hardware_model():
    d = dot.synthesize(clock_ns=2.0)
    assert isinstance(d, HardwareModel)
    assert d.name == "dot"


def test_operator_cost_of_one_invocation():
    d = dot.synthesize(clock_ns=2.0)
    cost = d.operator_cost()
    assert isinstance(cost, OperatorCost)
    measured = d.simulate(A, B).cycles  # the RTL is the independent count
    assert cost.cycles == measured
    assert cost.bound == "compute"
    assert cost.energy_j == pytest.approx(d.estimate().energy_j)
    assert cost.latency_s == pytest.approx(measured * 2.0e-9)  # the path fits the clock


def test_operator_cost_runs_at_the_achieved_clock():
    # at 0.3 ns the memory read into a register does not fit: the design runs slower
    d = dot.synthesize(clock_ns=0.3)
    period = d.critical_path_ns()
    assert period > 0.3
    cost = d.operator_cost()
    assert cost.latency_s == pytest.approx(d.static_cycles() * period * 1e-9)
    assert d.estimate().cost == OperatorCost(
        latency_s=d.estimate().latency_s, energy_j=d.estimate().energy_j, bound="compute",
        cycles=d.estimate().cycles)


def test_operator_cost_needs_static_bounds():
    d = dot_n.synthesize()
    with pytest.raises(ConfigError, match="not constant"):
        d.operator_cost()
    assert d.estimate().cost is None


def test_one_ir_several_schedules():
    fast, slow = dot.synthesize(clock_ns=0.4), dot.synthesize(clock_ns=4.0)
    assert fast.ir is slow.ir is lower(dot)  # lowered once, never annotated
    assert isinstance(fast.schedule, Schedule) and fast.schedule is not slow.schedule
    loop = next(r for r in fast.ir.regions() if r.is_loop)
    assert fast.schedule.region(loop).depth > slow.schedule.region(loop).depth
    # each design's cycles still match its own RTL
    for d in (fast, slow):
        assert d.simulate(A, B).cycles == d.cycles(A, B)


def test_ir_is_read_only():
    ir = lower(dot)
    region = ir.regions()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        region.name = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        region.nodes[0].kind = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ir.arrays["a"] = ir.arrays["b"]  # type: ignore[index]
    assert not hasattr(dot, "fresh_ir") and not hasattr(dot, "ir")


def test_dsl_does_not_import_the_compiler():
    code = ("import sys, archsim.dsl, archsim.dsl.library\n"
            "print(sorted(m for m in sys.modules if m.startswith('archsim.compilers')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_golden_run_uses_the_kernel_facts():
    facts = dot_n.facts
    assert facts.written == frozenset()
    (t,) = facts.loopvar_types.values()
    assert t == UInt(6)  # the loop counter is as wide as its bound n
    assert dot_n(A, B, 7) == int(A[:7] @ B[:7])
