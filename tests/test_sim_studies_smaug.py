"""``archsim study smaug`` (quick): the shipped CPU calibration, its use, and the tables."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest

import archsim
from archsim.compilers.graph import SMAUG_NETWORKS, build_workload
from archsim.errors import ConfigError
from archsim.sim.studies.smaug import SCENARIOS, load_calibration
from archsim.tests.study_runs import quick_run

ROOT = Path(archsim.__file__).resolve().parent
CALIBRATION = ROOT / "sim" / "studies" / "smaug" / "data" / "cpu_calibration.json"
CALIBRATED = ROOT / "soc_configs" / "smaug_calibrated.toml"
ASSUMED = ROOT / "soc_configs" / "smaug_baseline.toml"


def _doc() -> dict:
    return json.loads(CALIBRATION.read_text())


def test_calibrated_toml_carries_the_benchs_pooled_slope():
    doc = _doc()
    factor = doc["target"]["hz"] / doc["host"]["hz"]
    expected = doc["pooled"]["bytes_per_s"] * factor
    cpu = tomllib.loads(CALIBRATED.read_text())["cpu"]
    # Copied by hand to four significant figures.
    assert cpu["data_prep_bytes_per_s_per_thread"] == pytest.approx(expected, rel=5e-4)
    assert doc["target"]["hz"] == cpu["frequency_hz"] == 2.5e9
    # Everything else is the assumed baseline's.
    base = tomllib.loads(ASSUMED.read_text())
    cal = tomllib.loads(CALIBRATED.read_text())
    for section in base:
        if section not in ("soc", "cpu"):
            assert cal[section] == base[section], section
    assert {k: v for k, v in cal["cpu"].items() if k != "data_prep_bytes_per_s_per_thread"} \
        == {k: v for k, v in base["cpu"].items() if k != "data_prep_bytes_per_s_per_thread"}


def test_per_network_bandwidth_is_bytes_over_measured_time_scaled_by_clock():
    doc = _doc()
    calib = load_calibration()
    factor = doc["target"]["hz"] / doc["host"]["hz"]
    for rec in doc["networks"]:
        expected = rec["nbytes"] / rec["total_s"] * factor
        assert calib.prep_bandwidth(rec["name"]) == pytest.approx(expected, rel=1e-12)
        slope = rec["fit"]["bytes_per_s"] * factor
        assert calib.prep_bandwidth(rec["name"], fixed_cost=False) == pytest.approx(slope)
        # The fit with its per-copy cost predicts the measured total (OLS residuals sum
        # to zero), so the folded bandwidth is the achieved one.
        fit = rec["fit"]
        predicted = rec["copies"] * fit["fixed_s"] + rec["nbytes"] / fit["bytes_per_s"]
        assert predicted == pytest.approx(rec["total_s"], rel=1e-6)
    with pytest.raises(ConfigError, match="field 'network'.*allowed"):
        calib.prep_bandwidth("lenet")


def test_load_calibration_errors(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_calibration(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ConfigError, match="not JSON"):
        load_calibration(bad)
    bad.write_text('{"networks": []}')
    with pytest.raises(ConfigError, match="lacks"):
        load_calibration(bad)


def test_smaug_study_quick():
    res = quick_run("smaug")
    rows = res.tables["scenarios"]
    workloads = {r["workload"] for r in rows}
    # SMAUG's own eight networks; the ImageNet set is the secondary table.
    assert workloads == set(SMAUG_NETWORKS)
    assert len(rows) == 8 * len(SCENARIOS)
    secondary = res.tables["imagenet_scenarios"]
    assert {r["workload"] for r in secondary} == {"resnet50", "vgg16", "alexnet",
                                                  "lstm (fathom-seq2seq)"}
    assert len(secondary) == 4 * len(SCENARIOS)
    # Each row's operator count is its graph's.
    for r in rows:
        assert r["operators"] == len(build_workload(r["workload"]))
    calib = load_calibration()
    for r in [*rows, *secondary]:
        shares = [v for k, v in r.items() if k.endswith("_share")]
        assert math.isclose(sum(shares), 1.0, rel_tol=1e-9)
        if r["scenario"] == "baseline":
            assert r["speedup"] == 1.0
        # Every scenario runs at the network's measured bandwidth.
        assert r["prep_gb_per_s_per_thread"] * 1e9 == \
            pytest.approx(calib.prep_bandwidth(r["workload"]))
    # The comparison's "ours" is the table's value, not a constant.
    combined = [r["speedup"] for r in rows if r["scenario"] == "combined"]
    top = next(c for c in res.comparisons if c.metric.startswith("SoC-level speedup")
               and c.metric.endswith("highest"))
    assert top.ours == max(combined)
    base = {r["workload"]: r for r in rows if r["scenario"] == "baseline"}
    resnet = next(c for c in res.comparisons if c.metric.endswith("ResNet-50"))
    assert resnet.ours == pytest.approx(
        100 * base["smaug-resnet50"]["accelerator_compute_share"])
    low = next(c for c in res.comparisons if c.metric.endswith("lowest network"))
    assert low.ours == pytest.approx(
        100 * min(r["accelerator_compute_share"] for r in base.values()))
    # Quick mode reads the shipped calibration only: no re-measured rows.
    assert {r["source"].split()[0] for r in res.tables["calibration"]} == {"shipped"}
    # The old assumed configuration is a sensitivity case at its 1 GB/s.
    old = [r for r in res.tables["sensitivity"] if r["case"].startswith("assumed")]
    assert len(old) == 8 and all(r["prep_gb_per_s_per_thread"] == 1.0 for r in old)
    # SMAUG's DRAM (LPDDR4_3200_2x16) is a sensitivity case at 12.8 GB/s.
    assert len([r for r in res.tables["sensitivity"] if r["case"] == "SMAUG DRAM 12.8 GB/s"]) == 8
    # More data-prep bandwidth cannot lower the accelerator share (same SoC otherwise).
    sens = {(r["workload"], r["case"]): r for r in res.tables["sensitivity"]}
    for w in workloads:
        assert sens[(w, "calibrated")]["accelerator_share"] >= \
            sens[(w, "prep q75 time")]["accelerator_share"]
    assert any("MEASURED" in a for a in res.assumptions)
    assert any("ASSUMED" in a and "framework" in a for a in res.assumptions)
    pngs = sorted(p.name for p in res.files if p.suffix == ".png")
    assert pngs == ["breakdown.png", "speedup.png"]
    assert all(p.stat().st_size > 0 for p in res.files)
