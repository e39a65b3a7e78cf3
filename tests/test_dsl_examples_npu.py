"""The example NPU: a transformer layer end to end, golden == RTL == model, and its DVFS
variant's energy against latency at each operating point."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.compilers.accel.model import sweep_operating_points
from archsim.dsl.examples import npu as example
from archsim.dsl.examples.npu import (
    read_output,
    reference_layer,
    small_npu,
    transformer_inputs,
    transformer_layer,
)
from archsim.hw.accel.vector import VECTOR_OPS


def test_opcodes_agree_with_the_vector_unit():
    assert {k: VECTOR_OPS[k] for k in example._OP} == example._OP


def test_golden_layer_matches_a_float_reference():
    npu = small_npu()
    program, layout = transformer_layer(npu)
    buffers, floats = transformer_inputs(layout, seed=3)
    out = read_output(layout, npu.compile().golden(program, buffers))
    ref = reference_layer(floats)
    # int8 activations/weights with Q6.10 softmax and LayerNorm: a few percent of the unit
    # variance of a LayerNorm output (measured 0.07 max abs error, correlation 0.9997)
    assert np.abs(out - ref).max() < 0.2
    assert np.corrcoef(out.ravel(), ref.ravel())[0, 1] > 0.999


def test_rtl_equals_golden_and_model_in_pysim():
    npu = small_npu()
    program, layout = transformer_layer(npu)
    buffers, _ = transformer_inputs(layout, seed=0)
    compiled = npu.compile()
    golden = compiled.golden(program, buffers)
    result = compiled.simulate(program, buffers, backend="pysim")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    report = compiled.model(program)
    assert result.cycles == report.cycles
    assert result.stats == report.stats


def test_dvfs_points_trade_energy_for_latency():
    npu = small_npu(dvfs=True)
    compiled = npu.compile()
    results = sweep_operating_points(compiled, "core",
                                     lambda p: transformer_layer(npu, program=p))
    assert [r.point for r in results] == list(example.DVFS_POINTS)
    times = [r.time_s for r in results]
    energies = [r.energy_j for r in results]
    assert times == sorted(times) and energies == sorted(energies, reverse=True)
    # the layer's unit energy scales with V**2 between the two extreme points
    fast, slow = results[0].report, results[-1].report
    units = [k for k in fast.energy_j if k.startswith("unit:")]
    ratio = sum(slow.energy_j[k] for k in units) / sum(fast.energy_j[k] for k in units)
    assert ratio == pytest.approx((0.5 / 0.8) ** 2)


@pytest.mark.slow
def test_dvfs_npu_in_verilator_equals_golden_and_model():
    npu = small_npu(dvfs=True)
    program = npu.program()
    program.set_operating_point("core", "low")
    program, layout = transformer_layer(npu, program=program)
    program.set_operating_point("core", "nominal")
    buffers, _ = transformer_inputs(layout, seed=1)
    compiled = npu.compile()
    golden = compiled.golden(program, buffers)
    result = compiled.simulate(program, buffers, backend="verilator")
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    report = compiled.model(program)
    assert result.cycles == report.cycles and result.stats == report.stats
    dvfs = [s for s in report.steps if s.kind == "dvfs"]
    assert all(s.stall_cycles > 0 for s in dvfs)  # both changes stall the core domain


@pytest.mark.slow
def test_npu_layer_in_verilator_and_a_new_program_without_a_rebuild():
    npu = small_npu()
    compiled = npu.compile()
    program, layout = transformer_layer(npu)
    buffers, _ = transformer_inputs(layout, seed=2)
    first = compiled.simulate(program, buffers, backend="verilator")
    golden = compiled.golden(program, buffers)
    assert all(np.array_equal(first.buffers[b], golden[b]) for b in golden)
    assert first.cycles == compiled.model(program).cycles
    # programs are data: another program runs on the same build
    tile = example.gemm_tile_program(npu, m=8, k=16, n=8)
    rng = np.random.default_rng(5)
    words = {"act": rng.integers(0, 256, 128), "wgt": rng.integers(0, 256, 128)}
    second = compiled.simulate(tile, words, backend="verilator")
    assert second.build_cached
    tile_golden = compiled.golden(tile, words)
    assert all(np.array_equal(second.buffers[b], tile_golden[b]) for b in tile_golden)
    assert second.cycles == compiled.model(tile).cycles
