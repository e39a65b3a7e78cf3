"""The ``serving`` and ``training`` sweep models: thin adapters to archsim.sim.serving and
archsim.sim.distributed."""

from __future__ import annotations

import dataclasses

import pytest

from archsim.errors import ConfigError
from archsim.sim.sweep import (
    SERVING_OBJECTIVES,
    TRAINING_OBJECTIVES,
    SweepSpec,
    get_model,
    load_results,
    run_sweep,
)


def test_serving_objectives_are_the_metrics_fields():
    from archsim.sim.serving import ServingMetrics

    assert SERVING_OBJECTIVES == tuple(f.name for f in dataclasses.fields(ServingMetrics))


def test_serving_adapter_runs_the_simulator_under_the_point_seed():
    from archsim.sim.serving import Deployment, generate_requests, make_policy, simulate

    model = get_model("serving")
    params = model.validate_params({"model": "llama-7b", "requests": 200, "rate_per_s": 4.0,
                                    "policy": "paged"})
    got = model.load_function()(params, 11)
    dep = Deployment.build(model="llama-7b", gpu="a100-80gb")
    reqs = generate_requests(200, rate_per_s=4.0, dataset="alpaca", seed=11)
    want = simulate(dep, reqs, make_policy("paged"), seed=11).metrics
    assert got == {k: float(getattr(want, k)) for k in SERVING_OBJECTIVES}
    assert got["requests"] == 200
    assert model.load_function()(params, 12) != got  # another seed, other requests


def test_training_adapter_closed_forms_and_rejection(tmp_path):
    spec = SweepSpec.from_dict({
        "model": "training", "fixed": {"model": "llama-7b", "global_batch": 64, "seq_len": 2048},
        "parameters": {"dp": {"values": [1, 8]}, "tp": {"values": [1, 8]}},
        "constraints": ["dp * tp >= 8"],
    })
    report = run_sweep(spec, db=tmp_path / "t.db", workers=0)
    assert report.total == 3
    done = load_results(tmp_path / "t.db")
    for row in done.rows:  # tokens per iteration = global batch x sequence length
        assert row["tokens_per_s"] == pytest.approx(64 * 2048 / row["iteration_s"], rel=1e-12)
        assert set(TRAINING_OBJECTIVES) <= set(row)
    failed = load_results(tmp_path / "t.db", status="failed")
    # Mixed-precision Adam without ZeRO keeps 16 bytes per parameter on every GPU (2 weights,
    # 2 gradients, 12 optimizer): unsharded (tp = 1) LLaMA-7B cannot fit in 80 GiB, tp = 8 can.
    from archsim.compilers.graph import get_transformer

    p = get_transformer("llama-7b").num_params
    assert 16 * p > 80 * 2**30 and 16 * p / 8 < 40 * 2**30
    assert [(r["dp"], r["tp"]) for r in failed.rows] == [(8, 1)]
    assert "rejected" in failed.rows[0]["error"] and "80.0 GiB" in failed.rows[0]["error"]
    assert sorted((r["dp"], r["tp"]) for r in done.rows) == [(1, 8), (8, 8)]


def test_adapter_parameters_are_validated():
    with pytest.raises(ConfigError) as e:
        SweepSpec.from_dict({"model": "training", "fixed": {"gpu": "v100"}}).points()
    assert e.value.field == "fixed.gpu" and "unknown GPU 'v100'" in str(e.value)
    with pytest.raises(ConfigError) as e:
        SweepSpec.from_dict({"model": "serving", "parameters": {"rate": {"values": [1.0]}}})
    assert e.value.field == "parameters.rate" and "rate_per_s" in e.value.allowed


def test_soc_adapter_runs_the_soc_simulator(tmp_path):
    import tomllib
    from importlib.resources import files

    from archsim.compilers.graph import build_workload
    from archsim.sim.soc import load_soc_config, simulate

    path = files("archsim.soc_configs") / "smaug_baseline.toml"
    spec = SweepSpec.from_dict({
        "model": "soc", "fixed": {"config": "smaug_baseline", "workload": "minilm-l6",
                                  "policy": "acp"},
        "parameters": {"accelerators": {"values": [1, 2]}}})
    run_sweep(spec, db=tmp_path / "s.db", workers=0)
    done = {r["accelerators"]: r for r in load_results(tmp_path / "s.db").rows}
    assert sorted(done) == [1, 2]
    want = simulate(load_soc_config(path).with_changes(accelerators=2, policy="acp"),
                    build_workload("minilm-l6"))
    assert done[2]["latency_s"] == want.latency_s
    assert done[2]["energy_j"] == want.energy.total_j
    # area: the CPU cluster plus each accelerator instance, read from the TOML file itself
    raw = tomllib.loads(path.read_text())
    for n in (1, 2):
        assert done[n]["area_mm2"] == pytest.approx(
            raw["cpu"]["area_mm2"] + n * sum(a["area_mm2"] for a in raw["accelerators"]))
    assert 0 < done[1]["accelerator_share"] < 1
    with pytest.raises(ConfigError) as e:
        SweepSpec.from_dict({"model": "soc", "fixed": {"config": "no_such_soc"}}).points()
    assert e.value.field == "fixed.config" and "smaug_baseline" in str(e.value)
    with pytest.raises(ConfigError) as e:
        SweepSpec.from_dict({"model": "soc", "parameters": {
            "policy": {"values": ["dma", "dram"]}}}).points()
    assert e.value.field == "parameters.policy" and "unknown host-memory policy" in str(e.value)
