"""The AutoPilot study: its evaluation pieces against hand-worked sums, and its quick run."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from archsim.sim.autonomy.policies import nav_policy_graph
from archsim.sim.codesign import AcceleratorPoint, price_point
from archsim.sim.studies.autopilot import (
    MISSION_DISTANCE_M,
    SUCCESS_SLACK,
    accelerator_load,
    best_baseline,
    evaluate_point,
    policy_table,
)
from archsim.sim.uav import compute_platform, evaluate_design, platform_load, uav_class
from archsim.tests.study_runs import quick_run

CSV = (Path(__file__).resolve().parents[1] / "sim" / "autonomy" / "data"
       / "policy_results_airlearning.csv")


def test_policy_table_reads_the_shipped_measurements() -> None:
    rows = [r for r in csv.DictReader(CSV.open()) if r["conv_layers"]]
    table = policy_table()
    assert len(table) == len({r["policy"] for r in rows}) >= 3
    for r in rows:
        assert table[r["policy"]].success[r["density"]] == float(r["success_rate"])
        spec = table[r["policy"]].spec
        assert (spec.rows, spec.cols) == (32, 64)  # the Air-Learning-like image
        assert spec.flops == float(r["flops"])


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_accelerator_load_by_hand(dataflow: str) -> None:
    name = min(policy_table(), key=lambda n: policy_table()[n].spec.flops)
    spec = policy_table()[name].spec
    price = price_point(AcceleratorPoint(rows=2, cols=2, act_kib=8, wgt_kib=8, acc_kib=8,
                                         dataflow=dataflow),
                        nav_policy_graph(spec, dtype="int8"))
    load = accelerator_load(name, 2, 8, sensor_fps=30.0, dataflow=dataflow)
    energy = price.dynamic_energy_j + price.leakage_energy_j + price.dram_energy_j
    period = max(price.latency_s, 1 / 30)
    assert load.latency_s == price.latency_s
    assert load.power_w == pytest.approx(energy / period / 0.85)
    assert load.mass_kg == price.board.mass_kg


@pytest.mark.parametrize("env", ["low", "medium", "dense"])
def test_score_is_fractional_missions_or_zero_below_the_floor(env: str) -> None:
    # The floor in exact arithmetic from the CSV's decimal strings: best rate - slack.
    rates = {r["policy"]: Fraction(r["success_rate"]) for r in csv.DictReader(CSV.open())
             if r["conv_layers"] and r["density"] == env}
    floor = max(rates.values()) - Fraction(str(SUCCESS_SLACK))
    assert any(rate == floor for rate in rates.values()) or env != "low"  # c4f48 at 0.70
    for name, rate in rates.items():
        out = evaluate_point({"uav": "micro", "environment": env, "policy": name,
                              "rows": 2, "buffer_kib": 8}, 0)
        assert out["buildable"] == 1.0
        assert out["success_floor"] == pytest.approx(float(floor))
        uav = uav_class("micro")
        r = evaluate_design(uav, accelerator_load(name, 2, 8, sensor_fps=uav.sensor_fps),
                            distance_m=MISSION_DISTANCE_M)
        assert out["fractional_missions"] == pytest.approx(uav.battery_energy_j
                                                           / r.mission_energy_j)
        assert out["missions"] == r.missions == int(out["fractional_missions"])
        feasible = rate >= floor
        assert (out["success_rate"] >= out["success_floor"]) == feasible
        assert out["score"] == (out["fractional_missions"] if feasible else 0.0)


def test_a_tile_that_does_not_fit_its_buffers_is_unbuildable() -> None:
    # 16x16 array, tile 256 x 16 x 16: 4096 int32 partial sums need 16 KiB, not 8
    name = sorted(policy_table())[0]
    out = evaluate_point({"uav": "micro", "environment": "low", "policy": name, "rows": 16,
                          "buffer_kib": 8, "dataflow": "ws", "tile_m_folds": 16}, 0)
    assert out["buildable"] == 0.0 and out["score"] == out["fractional_missions"] == 0.0
    assert out["success_rate"] == policy_table()[name].success["low"]  # still reported


def test_best_baseline_is_the_brute_force_best_feasible_policy() -> None:
    table = policy_table()
    floor = max(e.success["medium"] for e in table.values()) - SUCCESS_SLACK
    for platform in ("jetson-tx2", "gap8"):
        brute = max(
            evaluate_design(uav_class("mini"), platform_load(compute_platform(platform),
                                                               e.spec.flops),
                             distance_m=MISSION_DISTANCE_M).missions
             for e in table.values() if e.success["medium"] >= floor)
        assert best_baseline("mini", "medium", platform)[1].missions == brute


def test_quick_run_gains_from_its_designs_table() -> None:
    result = quick_run("autopilot")
    rows = result.tables["designs"]
    for c in result.comparisons:
        uav = next(u for u in ("nano", "micro", "mini") if f", {u} (" in c.metric)
        ratios = [r["missions"] / r[f"{p}_missions"] for r in rows if r["uav"] == uav
                  for p in ("jetson-tx2", "xavier-nx", "gap8") if r[f"{p}_missions"] > 0]
        assert c.ours == pytest.approx(float(np.mean(ratios)))
    assert len(rows) == 9 and {p.name for p in result.files} >= {"f1.png",
                                                                 "bo_convergence.png"}
