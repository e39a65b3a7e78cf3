"""The ``hls-gemm`` sweep model: DSL design points, checked on their RTL, sharing builds."""

from __future__ import annotations

import math

import pytest

from archsim.errors import ConfigError
from archsim.sim.sweep import SweepSpec, get_model, load_results, run_sweep


def test_model_view_points_follow_the_pipeline_closed_form(tmp_path):
    spec = SweepSpec.from_dict({
        "model": "hls-gemm", "fixed": {"clock_ns": 2.0},
        "parameters": {"m": {"values": [2, 4]}, "k": {"values": [2, 4]}, "n": {"values": [3]}},
    })
    run_sweep(spec, db=tmp_path / "h.db", workers=0)
    rows = load_results(tmp_path / "h.db").rows
    assert len(rows) == 4
    depths = set()
    for row in rows:
        # One cycle to start, then per output row a pipelined loop of n iterations at
        # II = 1: the loop's depth is what remains (the library kernel's documented form).
        depth = (row["cycles"] - 1) / row["m"] - (row["n"] - 1)
        assert depth == int(depth) and depth >= 1
        depths.add((row["k"], depth))
        assert row["macs_per_cycle"] == pytest.approx(row["m"] * row["k"] * row["n"]
                                                      / row["cycles"])
        assert row["latency_s"] == pytest.approx(row["cycles"] * 2e-9)
        assert math.isnan(row["measured_cycles"])
    assert len({d for k, d in depths if k == 2}) == 1  # depth depends on k only, not on m


def test_rtl_points_measure_the_predicted_cycles(tmp_path):
    spec = SweepSpec.from_dict({
        "model": "hls-gemm", "fixed": {"m": 2, "n": 2, "backend": "pysim"},
        "parameters": {"k": {"values": [1, 2, 4]}, "input_seed": {"values": [0, 1]}},
    })
    report = run_sweep(spec, db=tmp_path / "p.db", workers=0)
    assert report.failed == 0
    for row in load_results(tmp_path / "p.db").rows:
        assert row["measured_cycles"] == row["cycles"]


def test_bad_parameters_name_the_field():
    model = get_model("hls-gemm")
    with pytest.raises(ConfigError, match="k must be a power of two"):
        model.validate_params({"k": 3})
    with pytest.raises(ConfigError, match="unknown backend 'icarus'"):
        model.validate_params({"backend": "icarus"})


@pytest.mark.slow
def test_two_workers_share_one_verilator_build(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("ARCHSIM_CACHE", str(cache))  # inherited by the worker processes
    spec = SweepSpec.from_dict({
        "model": "hls-gemm", "fixed": {"m": 2, "k": 2, "n": 2, "backend": "verilator"},
        "parameters": {"input_seed": {"values": [0, 1, 2, 3]}},
    })
    report = run_sweep(spec, db=tmp_path / "v.db", workers=2, points_per_task=1)
    assert report.failed == 0
    assert report.executor.startswith("local-cluster") and report.workers == 2
    rows = load_results(tmp_path / "v.db").rows
    assert len(rows) == 4
    assert all(row["measured_cycles"] == row["cycles"] for row in rows)
    builds = [p for p in (cache / "verilator").iterdir() if p.is_dir()]
    assert len(builds) == 1  # four simulations on two workers, one design, one build
