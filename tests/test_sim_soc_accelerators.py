"""Accelerator execution models against the RTL, and the carbon / energy closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph, linear
from archsim.errors import ConfigError
from archsim.hw.models import Tile
from archsim.sim.rtl.matmul import run_matmul
from archsim.sim.soc import (
    ModelAcceleratorConfig,
    SMVAcceleratorConfig,
    SoCConfig,
    SystolicAcceleratorConfig,
    energy_breakdown,
    make_accelerator_model,
    simulate,
)
from archsim.sim.soc.carbon import (
    add_carbon,
    carbon_per_cm2_g,
    embodied_carbon_kg,
    operational_carbon_kg,
)

TILES = [(6, 5, 7), (4, 4, 4), (3, 9, 2)]


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_systolic_tile_latency_equals_rtl_cycles(dataflow):
    rng = np.random.default_rng(0)
    model = make_accelerator_model(SystolicAcceleratorConfig(kind="systolic", rows=4, cols=4,
                                                     dataflow=dataflow))
    for m, k, n in TILES:
        a = rng.integers(-8, 8, size=(m, k))
        b = rng.integers(-8, 8, size=(k, n))
        run = run_matmul(a, b, rows=4, cols=4, dataflow=dataflow, backend="pysim")
        np.testing.assert_array_equal(run.product, a @ b)
        assert model.gemm_cycles(m, k, n) == run.cycles


def test_simulated_systolic_compute_time_is_rtl_cycles():
    m, k, n = 6, 5, 7
    rng = np.random.default_rng(1)
    run = run_matmul(rng.integers(-4, 4, (m, k)), rng.integers(-4, 4, (k, n)), rows=4, cols=4,
                     dataflow="os", backend="pysim")
    g = WorkloadGraph("tile")
    g.add(linear("fc", TensorSpec("x", (m, k), "int8"), out_features=n, bias=False))
    cfg = SoCConfig.from_dict({"accelerators": [{"kind": "systolic", "rows": 4, "cols": 4,
                                                 "dataflow": "os", "frequency_hz": 5e8}]})
    r = simulate(cfg, g)
    assert r.breakdown_s["accelerator_compute"] == pytest.approx(run.cycles / 5e8, rel=1e-12)


def test_smv_cycles_nvdla_like():
    model = make_accelerator_model(SMVAcceleratorConfig(kind="smv", pipeline_cycles=3))
    # 100 output pixels, 70 input channels, 20 output channels, 3x3 window:
    # ceil(20 / 8 PEs) * ceil(70 / 32 lanes) * 100 * 9 + 3 pipeline cycles.
    op = linear("fc", TensorSpec("x", (1, 1), "fp16"), out_features=1, bias=False)
    tile = Tile(op=op, gemm=(100, 630, 20), conv=(100, 70, 20, 9))
    assert model.tile_cycles(tile) == 3 * 3 * 100 * 9 + 3
    assert model.operator_cost(tile).latency_s == pytest.approx((3 * 3 * 900 + 3) / 1e9)
    assert model.operator_cost(tile).cycles == 3 * 3 * 100 * 9 + 3


def test_energy_closed_form():
    cfg = SoCConfig.from_dict({"accelerators": [{"kind": "smv", "area_mm2": 2.0}],
                               "cpu": {"area_mm2": 3.0, "active_power_w": 2.0}})
    e = energy_breakdown(cfg, macs=1e9, vector_ops=1e6, spad_bytes=1e6, dram_bytes=1e6,
                         acp_bytes=2e6, cpu_busy_s=0.5, latency_s=0.1)
    # Horowitz ISSCC 2014, 45 nm: fp16 mult 1.1 pJ + add 0.4 pJ; 32 KB SRAM 20 pJ / 64 bit;
    # 1 MB SRAM 100 pJ / 64 bit; DRAM 1.3 nJ / 64 bit (low end of 1.3-2.6).
    assert e.compute_j == pytest.approx(1e9 * 1.5e-12 + 1e6 * 0.4e-12)
    assert e.scratchpad_j == pytest.approx(1e6 * 20e-12 / 8)
    assert e.llc_j == pytest.approx(2e6 * 100e-12 / 8)
    assert e.dram_j == pytest.approx(1e6 * 8 * 1.3e-9 / 64)
    assert e.cpu_j == pytest.approx(1.0)
    assert e.leakage_j == pytest.approx(0.01 * 5.0 * 0.1)
    assert e.total_j == pytest.approx(sum(v for k, v in e.as_dict().items() if k != "total_j"))


def test_act_carbon_closed_form():
    # ACT (Gupta et al., ISCA 2022) tables, 7 nm: EPA 2.15 kWh/cm^2, GPA 350 (95 %) and
    # 200 (99 %) g/cm^2, MPA 500 g/cm^2; Taiwan 583 g/kWh; yield 0.875; 150 g per package.
    cpa = (583 * 2.15 + (350 + 200) / 2 + 500) / 0.875
    assert carbon_per_cm2_g(7, fab_location="taiwan", gpa="97") == pytest.approx(cpa)
    assert embodied_carbon_kg(50.0, 7) == pytest.approx((0.5 * cpa + 150) / 1000)
    coal = (820 * 2.15 + 350 + 500) / 0.875
    assert carbon_per_cm2_g(7, fab_location="coal", gpa="95") == pytest.approx(coal)
    # 1 kWh in the USA at 380 g/kWh.
    assert operational_carbon_kg(3.6e6, "usa") == pytest.approx(0.380)


def test_carbon_errors_and_old_nodes():
    with pytest.raises(ConfigError) as exc:
        operational_carbon_kg(1.0, "mars")
    assert exc.value.field == "location" and "world" in exc.value.allowed
    with pytest.raises(ConfigError) as exc:
        carbon_per_cm2_g(2)
    assert exc.value.field == "technology_nm" and 3 in exc.value.allowed
    with pytest.raises(ConfigError) as exc:
        carbon_per_cm2_g(7, gpa="90")
    assert exc.value.allowed == ("95", "97", "99")
    # 45 nm is older than ACT's oldest row: the 28 nm row is used.
    assert carbon_per_cm2_g(45) == carbon_per_cm2_g(28)


def test_add_carbon_amortizes_embodied():
    cfg = SoCConfig.from_dict({"accelerators": [{"kind": "smv", "area_mm2": 2.0}],
                               "cpu": {"area_mm2": 8.0}, "soc": {"technology_nm": 7}})
    g = WorkloadGraph("tile")
    g.add(linear("fc", TensorSpec("x", (8, 64), "fp16"), out_features=64, bias=False))
    r = simulate(cfg, g)
    c = add_carbon(r, cfg, location="europe", lifetime_years=2.0)
    emb = embodied_carbon_kg(10.0, 7)
    assert c["embodied_per_inference_kg"] == pytest.approx(
        emb * r.latency_s / (2.0 * 365.25 * 86400))
    assert c["operational_per_inference_kg"] == pytest.approx(
        295 * r.energy.total_j / 3.6e6 / 1000)
    assert r.carbon is c


def test_accelerator_is_a_hardware_model():
    from archsim.hw.models import HardwareModel

    cfg = SystolicAcceleratorConfig(kind="systolic", rows=8, cols=8, dataflow="os", frequency_hz=1e9)
    model = make_accelerator_model(cfg)
    assert isinstance(model, HardwareModel)
    op = linear("fc", TensorSpec("x", (20, 30), "fp16"), out_features=12, bias=False)
    cost = model.operator_cost(op)
    # One tile (fits the default scratchpads); SCALE-Sim OS: ceil(20/8)*ceil(12/8) folds of
    # 8 + 8 + 30 - 2 cycles.
    assert cost.latency_s == pytest.approx(3 * 2 * (8 + 8 + 30 - 2) / 1e9)
    assert cost.energy_j == pytest.approx(20 * 30 * 12 * 1.5e-12)


def test_model_accelerator_uses_the_designs_cycles(tmp_path, monkeypatch):
    (tmp_path / "soc_cycles_probe.py").write_text(
        "from archsim.hw.systolic import matmul_cycles\n"
        "def os4(*, m, k, n):\n"
        "    return matmul_cycles(rows=4, cols=4, m=m, k=k, n=n, dataflow='os')\n"
        "def bad(*, m, k, n):\n"
        "    return -1.5\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    g = WorkloadGraph("tile")
    g.add(linear("fc", TensorSpec("x", (6, 5), "int8"), out_features=7, bias=False))
    model = SoCConfig.from_dict({"accelerators": [{"kind": "model", "frequency_hz": 5e8,
                                                   "cycles_model": "soc_cycles_probe:os4"}]})
    r = simulate(model, g)
    # ceil(6/4) * ceil(7/4) folds of 4 + 4 + 5 - 2 cycles (SCALE-Sim OS).
    assert r.breakdown_s["accelerator_compute"] == pytest.approx(2 * 2 * 11 / 5e8, rel=1e-12)
    bad = SoCConfig.from_dict({"accelerators": [{"kind": "model",
                                                 "cycles_model": "soc_cycles_probe:bad"}]})
    from archsim.errors import SimulationError

    with pytest.raises(SimulationError, match="returned -1.5"):
        simulate(bad, g)
    with pytest.raises(ConfigError, match="cannot load cycles model") as exc:
        make_accelerator_model(ModelAcceleratorConfig(kind="model",
                                                 cycles_model="soc_cycles_probe:nope"))
    assert exc.value.field == "accelerators.cycles_model"


def test_model_accelerator_config_errors():
    with pytest.raises(ConfigError) as exc:
        SoCConfig.from_dict({"accelerators": [{"kind": "model"}]}, file="x.toml")
    assert exc.value.file == "x.toml" and exc.value.field == "accelerators[0].cycles_model"
    assert "needs cycles_model" in str(exc.value)
    with pytest.raises(ConfigError, match="only used with kind 'model'"):
        SoCConfig.from_dict({"accelerators": [{"kind": "smv", "cycles_model": "a:b"}]})
