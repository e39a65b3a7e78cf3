"""``kind = "accelerator"``: an accelerator description composed into the SoC through its
model view, whose per-tile cycles are the RTL's measured cycles."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph, linear
from archsim.dsl.examples.npu import gemm_tile_program, small_npu
from archsim.errors import ConfigError, DSLError
from archsim.sim.soc import SoCConfig, load_soc_config, make_accelerator_model, simulate

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"
NPU = {"kind": "accelerator", "name": "npu", "description": "archsim.dsl.examples.npu:small_npu",
       "tile_program": "archsim.dsl.examples.npu:gemm_tile_program", "tile": [8, 8, 8]}


def _fc(m: int, k: int, n: int) -> WorkloadGraph:
    g = WorkloadGraph("tile")
    g.add(linear("fc", TensorSpec("x", (m, k), "int8"), out_features=n, bias=False))
    return g


def test_tile_cycles_are_the_rtl_measured_cycles():
    cfg = SoCConfig.from_dict({"accelerators": [NPU]})
    model = make_accelerator_model(cfg.accelerators[0])
    npu = small_npu()
    program = gemm_tile_program(npu, m=8, k=8, n=8)
    rng = np.random.default_rng(0)
    inputs = {"act": rng.integers(0, 256, 64), "wgt": rng.integers(0, 256, 64)}
    compiled = npu.compile()
    measured = compiled.simulate(program, inputs, backend="pysim")
    golden = compiled.golden(program, inputs)
    assert all(np.array_equal(measured.buffers[b], golden[b]) for b in golden)
    assert model.invocation_cycles == measured.cycles
    assert model.frequency_hz == pytest.approx(500e6)  # everything in the 500 MHz main domain


def test_soc_energy_is_invocations_times_the_tile_model():
    m, k, n = 20, 12, 9
    cfg = SoCConfig.from_dict({"accelerators": [NPU]})
    r = simulate(cfg, _fc(m, k, n))
    npu = small_npu()
    tile = npu.compile().model(gemm_tile_program(npu, m=8, k=8, n=8))
    invocations = math.ceil(m / 8) * math.ceil(k / 8) * math.ceil(n / 8)
    assert r.energy.accelerators_j == {"npu": pytest.approx(invocations * tile.total_energy_j)}


def test_operating_points_select_the_run_dvfs_setting():
    fast = {**NPU, "description": "archsim.dsl.examples.npu:dvfs_npu"}
    slow = {**fast, "operating_points": {"core": "min"}}
    models = [make_accelerator_model(SoCConfig.from_dict({"accelerators": [c]}).accelerators[0])
              for c in (fast, slow)]
    assert models[1].invocation_energy_j < models[0].invocation_energy_j
    assert models[1].frequency_hz < models[0].frequency_hz


def test_npu_soc_config_runs():
    cfg = load_soc_config(CONFIGS / "npu_soc.toml")
    model = make_accelerator_model(cfg.accelerators[0])
    assert model.tile_align == (16, 16, 16) and model.invocation_cycles > 16


@pytest.mark.parametrize("change, error, message", [
    ({"description": "archsim.dsl.examples.npu:nope"}, ConfigError, "accelerators.description"),
    ({"description": "archsim.dsl.examples.npu:gemm_tile_program"}, ConfigError,
     "not a factory of an accelerator"),
    ({"description": "archsim.dsl.examples.npu:DVFS_POINTS"}, ConfigError,
     "not an archsim.dsl.accel.Accelerator"),
    ({"tile_program": "archsim.dsl.examples.npu:DVFS_POINTS"}, ConfigError, "not callable"),
    ({"operating_points": {"gpu": "x"}}, ConfigError, "has no domain 'gpu'"),
    ({"tile": [64, 64, 64]}, DSLError, "past the end of buffer"),
])
def test_bad_accelerator_configs(change, error, message):
    cfg = SoCConfig.from_dict({"accelerators": [{**NPU, **change}]})
    with pytest.raises(error, match=message):
        make_accelerator_model(cfg.accelerators[0])


def tiny_accelerator():
    """A two-unit accelerator of the test doubles (for a quick synthesis)."""
    from archsim.dsl.accel import Accelerator

    from .accel_units import AddConst

    acc = Accelerator(name="tiny_soc")
    acc.buffer("x", words=64, width=16)
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "x"})
    return acc


def test_area_from_synthesis_is_logic_plus_memory_macros():
    from archsim.sim.soc.area import accelerator_area

    cfg = SoCConfig.from_dict({"accelerators": [{
        **NPU, "description": "archsim.tests.test_sim_soc_described:tiny_accelerator",
        "area_from": "synthesis"}]})
    area = accelerator_area(cfg.accelerators[0])
    report = tiny_accelerator().compile().area()
    assert area.core_mm2 == pytest.approx(sum(report.logic_mm2.values()))
    assert area.scratchpad_mm2 == pytest.approx(sum(report.memory_mm2.values()))
    assert area.core_mm2 > 0 and area.scratchpad_mm2 > 0


def test_scratchpads_are_the_description_buffers():
    cfg = load_soc_config(CONFIGS / "npu_soc.toml")
    spads = cfg.accelerators[0].scratchpads
    assert (spads.input_elements, spads.weight_elements, spads.output_elements) == \
        (32768, 32768, 32768)  # soc_npu's act, wgt and acc words
    small = SoCConfig.from_dict({"accelerators": [{
        **NPU, "scratchpad_buffers": {"input": "act", "weight": "wgt", "output": "acc"}}]})
    spads = small.accelerators[0].scratchpads
    assert (spads.input_elements, spads.weight_elements, spads.output_elements) == \
        (1024, 2304, 1344)  # small_npu's buffers
    for bad, message in (({"input": "act", "weight": "wgt"}, "must map each of"),
                         ({"input": "act", "weight": "wgt", "output": "nope"},
                          "has no buffer 'nope'")):
        with pytest.raises(ConfigError, match=message):
            SoCConfig.from_dict({"accelerators": [{**NPU, "scratchpad_buffers": bad}]})
    with pytest.raises(ConfigError, match=r"\(input_elements = 1024\): leave out scratchpads.input"):
        SoCConfig.from_dict({"accelerators": [{
            **NPU, "scratchpad_buffers": {"input": "act", "weight": "wgt", "output": "acc"},
            "scratchpads": {"input_elements": 10}}]})


def test_npu_soc_runs_from_the_cli(tmp_path):
    from archsim.sim.cli import main

    assert main(["run", str(CONFIGS / "npu_soc.toml"), "--workload", "resnet50", "--out",
                 str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "result.json").is_file()


def test_edgebert_soc_runs_minilm_from_the_cli(tmp_path):
    from archsim.sim.cli import main

    cfg = load_soc_config(CONFIGS / "edgebert.toml")
    model = make_accelerator_model(cfg.accelerators[0])
    # the tile program's two units by their closed forms: the decoder's rows + 3 (64 x 64
    # weights = 256 rows) and the GEMM's S ((M/S)(N/S)(K/S) + 2) + 2; the sequencer's fetch
    # and issue cycles on top (the layer test measures the whole in Verilator)
    units = (256 + 3) + (16 * (1 * 4 * 4 + 2) + 2)
    assert units < model.invocation_cycles < units + 40
    # cycles over time: the units at the core domain's 1 GHz, the sequencer in main (500 MHz)
    assert 500e6 < model.frequency_hz < 1e9
    spads = cfg.accelerators[0].scratchpads
    assert (spads.input_elements, spads.weight_elements) == (65536, 1 << 20)
    assert main(["run", str(CONFIGS / "edgebert.toml"), "--workload", "minilm-l6", "--out",
                 str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "result.json").is_file()
