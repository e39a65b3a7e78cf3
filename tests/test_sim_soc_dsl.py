"""DSL designs as SoC accelerators: model-view cycles against the RTL, energy and area."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph, linear
from archsim.dsl.library import gemm_tile, gemm_tile_kernel, vector_add_kernel
from archsim.errors import ConfigError
from archsim.sim.soc import (
    DSLAcceleratorConfig,
    SoCConfig,
    SystolicAcceleratorConfig,
    load_design,
    load_soc_config,
    make_accelerator_model,
    simulate,
)
from archsim.sim.soc.area import accelerator_area, area_components_mm2, soc_area_mm2
from archsim.sim.soc.carbon import add_carbon

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"
SMALL = {"kind": "dsl", "kernel": "archsim.dsl.library:gemm_tile_kernel", "tile": [4, 4, 4],
         "clock_ns": 2.0}


def _fc(m: int, k: int, n: int) -> WorkloadGraph:
    g = WorkloadGraph("tile")
    g.add(linear("fc", TensorSpec("x", (m, k), "int8"), out_features=n, bias=False))
    return g


def test_gemm_tile_golden_is_acc_plus_a_wt():
    rng = np.random.default_rng(3)
    kern = gemm_tile_kernel(m=3, k=4, n=5)
    a, w = rng.integers(-128, 128, (3, 4)), rng.integers(-128, 128, (5, 4))
    acc, c = rng.integers(-1000, 1000, (3, 5)), np.zeros((3, 5), dtype=np.int64)
    kern(a, w, acc, c)
    np.testing.assert_array_equal(c, acc + a @ w.T)
    z = np.zeros(8, dtype=np.int64)
    vector_add_kernel(n=8)(np.arange(8), np.arange(8) * 3, z)
    np.testing.assert_array_equal(z, np.arange(8) * 4)


def test_library_errors():
    with pytest.raises(ValueError, match="k must be a power of two"):
        gemm_tile_kernel(m=4, k=3, n=4)
    with pytest.raises(ValueError, match="m must be a positive int, not 0"):
        gemm_tile_kernel(m=0, k=4, n=4)


def test_soc_invocation_cycles_equal_rtl_cycles_on_the_shipped_tile():
    """dsl_soc.toml's accelerator: predicted cycles per invocation == pysim's measured."""
    cfg = load_soc_config(CONFIGS / "dsl_soc.toml")
    model = make_accelerator_model(cfg.accelerators[0], cfg.energy)
    rng = np.random.default_rng(0)
    a, w = rng.integers(-128, 128, (16, 16)), rng.integers(-128, 128, (16, 16))
    acc = rng.integers(-2**20, 2**20, (16, 16))
    run = load_design(cfg.accelerators[0]).simulate(a, w, acc,
                                                    np.zeros((16, 16), dtype=np.int64))
    np.testing.assert_array_equal(run.outputs["c"], acc + a @ w.T)
    assert model.invocation_cycles == run.cycles
    assert model.gemm_cycles(16, 16, 16) == run.cycles


def test_soc_step_runs_as_padded_invocations_equal_to_rtl():
    """A 6x10x5 GEMM on a 4x4x4 DSL tile: 2*3*2 zero-padded invocations, partial sums passed
    from c to the next acc. Running exactly those invocations on the RTL gives x @ W^T, and
    the SoC simulator's compute time is the sum of their measured cycles."""
    m, k, n = 6, 10, 5
    g = _fc(m, k, n)
    cfg = SoCConfig.from_dict({"accelerators": [SMALL]})
    result = simulate(cfg, g)
    rng = np.random.default_rng(1)
    x, wt = rng.integers(-128, 128, (m, k)), rng.integers(-128, 128, (n, k))
    design = load_design(cfg.accelerators[0])
    t = 4
    pad = lambda v, r, c: np.pad(v, ((0, r - v.shape[0]), (0, c - v.shape[1])))  # noqa: E731
    out = np.zeros((m, n), dtype=np.int64)
    measured = []
    for i0 in range(0, m, t):
        for j0 in range(0, n, t):
            acc = np.zeros((t, t), dtype=np.int64)
            for k0 in range(0, k, t):
                a = pad(x[i0:i0 + t, k0:k0 + t], t, t)
                w = pad(wt[j0:j0 + t, k0:k0 + t], t, t)
                run = design.simulate(a, w, acc, np.zeros((t, t), dtype=np.int64))
                measured.append(run.cycles)
                acc = run.outputs["c"]
            out[i0:i0 + t, j0:j0 + t] = acc[:min(t, m - i0), :min(t, n - j0)]
    np.testing.assert_array_equal(out, x @ wt.T)
    assert len(measured) == math.ceil(m / 4) * math.ceil(k / 4) * math.ceil(n / 4)
    freq = 1e9 / max(2.0, design.critical_path_ns())
    assert result.breakdown_s["accelerator_compute"] == pytest.approx(sum(measured) / freq,
                                                                      rel=1e-12)


@pytest.mark.slow
def test_invocation_cycles_equal_verilator_cycles():
    design = gemm_tile.synthesize(clock_ns=2.0)
    rng = np.random.default_rng(2)
    a, w = rng.integers(-128, 128, (16, 16)), rng.integers(-128, 128, (16, 16))
    acc = rng.integers(-2**20, 2**20, (16, 16))
    run = design.simulate(a, w, acc, np.zeros((16, 16), dtype=np.int64), backend="verilator")
    np.testing.assert_array_equal(run.outputs["c"], acc + a @ w.T)
    cfg = load_soc_config(CONFIGS / "dsl_soc.toml")
    assert make_accelerator_model(cfg.accelerators[0]).invocation_cycles == run.cycles


def test_dsl_energy_and_area_from_the_design():
    m, k, n = 6, 10, 5
    cfg = SoCConfig.from_dict({"accelerators": [SMALL], "cpu": {"area_mm2": 3.0}})
    r = simulate(cfg, _fc(m, k, n))
    design = gemm_tile_kernel(m=4, k=4, n=4).synthesize(clock_ns=2.0)
    est = design.estimate()
    invocations = math.ceil(m / 4) * math.ceil(k / 4) * math.ceil(n / 4)
    # Energy per invocation from the schedule's estimate, at the 45 nm reference node.
    assert r.energy.accelerators_j == {"dsl": pytest.approx(invocations * est.energy_j)}
    assert r.energy.compute_j == pytest.approx(invocations * est.energy_j)
    # Area: the Design's estimate plus 3 x 32768 two-byte elements of SRAM at 0.692 um^2/bit.
    sram = 3 * 32768 * 2 * 8 * 0.692e-6
    area = accelerator_area(cfg.accelerators[0])
    assert (area.core_mm2, area.scratchpad_mm2) == (pytest.approx(est.area_mm2),
                                                    pytest.approx(sram))
    assert soc_area_mm2(cfg) == pytest.approx(3.0 + est.area_mm2 + sram)


def test_components_sum_to_totals_with_two_accelerator_kinds():
    cfg = SoCConfig.from_dict({"accelerators": [
        {**SMALL, "name": "tile4", "count": 2},
        {"kind": "smv", "name": "smv", "area_mm2": 1.5}]})
    r = simulate(cfg, _fc(512, 256, 256))  # 6 jobs, round-robin over 3 accelerators
    comps = r.energy.components_j()
    assert list(comps)[:2] == ["accelerator:tile4", "accelerator:smv"]
    assert comps["accelerator:tile4"] > 0 and comps["accelerator:smv"] > 0
    assert sum(comps.values()) == pytest.approx(r.energy.total_j, rel=1e-12)
    carbon = add_carbon(r, cfg, location="usa")
    rows = {row["component"]: row for row in r.carbon_components}
    assert sum(row["total_kg"] for row in rows.values()) == pytest.approx(carbon["total_kg"])
    assert sum(row["embodied_kg"] for row in rows.values()) == pytest.approx(
        carbon["embodied_soc_kg"])
    # Operational carbon of each component: 380 g/kWh (ACT, USA) times its energy.
    for name, e_j in comps.items():
        assert rows[name]["operational_kg"] == pytest.approx(380 * e_j / 3.6e6 / 1000)
    areas = area_components_mm2(cfg)
    assert rows["accelerator:smv"]["area_mm2"] == 1.5
    assert rows["scratchpads"]["area_mm2"] == pytest.approx(2 * 3 * 32768 * 16 * 0.692e-6)
    assert rows["packaging"]["embodied_kg"] == pytest.approx(0.150)
    assert sum(areas.values()) == pytest.approx(soc_area_mm2(cfg))


def test_dsl_soc_runs_resnet50_from_the_cli(tmp_path):
    from archsim.sim.cli import main

    out = tmp_path / "o"
    assert main(["run", str(CONFIGS / "dsl_soc.toml"), "--workload", "resnet50", "--out",
                 str(out), "--no-plots", "--no-progress"]) == 0
    import json

    data = json.loads((out / "result.json").read_text())
    assert data["summary"]["soc"] == "dsl-gemm-tile"
    assert sum(data["breakdown_s"].values()) == pytest.approx(data["summary"]["latency_s"])
    assert data["energy_components_j"]["accelerator:gemm16"] > 0


def test_with_changes_keeps_a_dsl_accelerator_valid():
    cfg = load_soc_config(CONFIGS / "dsl_soc.toml").with_changes(accelerators=2, threads=2,
                                                                 policy="dma")
    assert cfg.accelerators[0].count == 2 and cfg.cpu.data_prep_threads == 2


@pytest.mark.parametrize(("acc", "field", "message"), [
    ({"kind": "dsl"}, "accelerators[0].kernel", "needs kernel"),
    ({**SMALL, "frequency_hz": 1e9}, "accelerators[0].frequency_hz", "not frequency_hz"),
    ({"kind": "smv", "clock_ns": 1.0}, "accelerators[0].clock_ns",
     "clock_ns only used with kind 'dsl'"),
    ({**SMALL, "tile": [4, 0, 4]}, "accelerators[0].tile", "three positive ints"),
    ({"kind": "smv", "area_from": "model"}, "accelerators[0].area_from", "needs kind 'dsl'"),
    ({"kind": "smv", "area_from": "synthesis"}, "accelerators[0].area_from",
     "needs kind 'systolic', 'dsl' or 'accelerator'"),
    ({"kind": "systolic", "area_from": "synthesis", "area_mm2": 1.0}, "accelerators[0]",
     "leave it out"),
    ({"kind": "systolic", "area_from": "rtl"}, "accelerators[0].area_from", "invalid value"),
])
def test_dsl_and_area_config_errors(acc, field, message):
    with pytest.raises(ConfigError, match=message) as exc:
        SoCConfig.from_dict({"accelerators": [acc]}, file="x.toml")
    assert exc.value.file == "x.toml" and exc.value.field == field


@pytest.mark.parametrize(("acc", "field", "message"), [
    ({**SMALL, "kernel": "archsim.dsl.library:nope"}, "accelerators[0].kernel",
     "cannot load DSL kernel"),
    ({**SMALL, "tile": None}, "accelerators[0].tile", "give tile"),
    ({**SMALL, "kernel": "archsim.dsl.library:gemm_tile"}, "accelerators[0].tile",
     "differs from kernel 'gemm_tile''s static tile"),
    ({**SMALL, "kernel": "archsim.dsl.library:vector_add", "tile": None},
     "accelerators[0].kernel", "GEMM-tile kernel takes four arrays"),
    ({**SMALL, "kernel": "archsim.dsl.library:GEMM_TILE_SHAPE", "tile": None},
     "accelerators[0].kernel", "neither a DSL kernel nor a kernel factory"),
])
def test_dsl_kernel_load_errors(acc, field, message):
    cfg = SoCConfig.from_dict({"accelerators": [acc]})
    with pytest.raises(ConfigError, match=message) as exc:
        simulate(cfg, _fc(4, 4, 4))
    assert exc.value.field == field  # the entry's index in the accelerator table


def test_systolic_area_from_synthesis():
    from archsim.hw.synth import synthesize
    from archsim.hw.systolic import SystolicArray

    cfg = SystolicAcceleratorConfig(kind="systolic", rows=2, cols=2, area_from="synthesis",
                            scratchpads={"input_elements": 64, "weight_elements": 64,
                                         "output_elements": 64, "element_bytes": 1})
    area = accelerator_area(cfg)
    report = synthesize(SystolicArray(rows=2, cols=2, dataflow="os", input_width=8),
                        name="systolic_2x2_os", fpga=False)
    assert not report.unmapped_cells
    assert area.core_mm2 == pytest.approx(report.area_mm2) and area.core_mm2 > 0
    assert area.scratchpad_mm2 == pytest.approx(3 * 64 * 8 * 0.692e-6)
    assert area.source == "synthesis"


def test_dsl_area_from_synthesis():
    cfg = DSLAcceleratorConfig(kind="dsl", kernel="archsim.dsl.library:gemm_tile_kernel",
                            tile=(2, 2, 2), area_from="synthesis",
                            scratchpads={"input_elements": 8, "weight_elements": 8,
                                         "output_elements": 8, "element_bytes": 1})
    area = accelerator_area(cfg)
    report = gemm_tile_kernel(m=2, k=2, n=2).synthesize(clock_ns=2.0).area(fpga=False)
    assert area.source == "synthesis" and area.core_mm2 == pytest.approx(report.area_mm2)
    assert area.core_mm2 > 0 and area.scratchpad_mm2 == pytest.approx(3 * 8 * 8 * 0.692e-6)


def test_dsl_accelerator_is_a_hardware_model():
    from archsim.hw.models import HardwareModel

    cfg = SoCConfig.from_dict({"accelerators": [SMALL]})
    model = make_accelerator_model(cfg.accelerators[0])
    assert isinstance(model, HardwareModel)
    cost = model.operator_cost(next(iter(_fc(6, 10, 5))))
    # One step (fits the scratchpads): 2 * 3 * 2 invocations of the 4x4x4 tile.
    design = gemm_tile_kernel(m=4, k=4, n=4).synthesize(clock_ns=2.0)
    assert cost.latency_s == pytest.approx(12 * design.static_cycles() * 2e-9)
    assert cost.energy_j == pytest.approx(12 * design.estimate().energy_j)
