"""``archsim study madmax`` (quick): the calibration against published runs, MAD-Max's
baselines and the GPU-hour-weighted exposed communication."""

import dataclasses
import json

import numpy as np
import pytest

from archsim.sim.studies.madmax import (
    LLAMA2_GPU_HOURS,
    MEASURED_RUNS,
    MEGATRON_TABLE1,
    fit_compute_efficiency,
    implied_efficiency,
    megatron_flops,
    predict,
)
from archsim.tests.study_runs import quick_run

_RUNS = {r.name: r for r in MEASURED_RUNS}


def test_megatron_flops_formula_from_first_principles():
    # per layer forward: 24 b s h^2 (QKV, proj, 4h MLP) + 4 b s^2 h (scores and context);
    # with full recomputation each layer runs 4 passes (fwd, recompute, 2x bwd); the LM head 3.
    b, s, layers, h, v = 8, 2048, 24, 2048, 51200
    per_layer = 24 * b * s * h * h + 4 * b * s * s * h
    expected = 4 * layers * per_layer + 3 * 2 * b * s * h * v
    assert megatron_flops(b, s, layers, h, v) == pytest.approx(expected)


def test_megatron_runs_have_table1_shapes():
    # Megatron's eq. (2) parameter count (tied embeddings, learned positions s*h, which our
    # rotary-free graph does not hold) and the table's own rounded column.
    megatron = [r for r in MEASURED_RUNS if r.name.startswith("megatron")]
    assert len(megatron) == len(MEGATRON_TABLE1) == 10
    for run, (size_b, *_, gpus, batch, tflops) in zip(megatron, MEGATRON_TABLE1, strict=True):
        c = run.model
        eq2 = 12 * c.num_layers * c.hidden**2 * (
            1 + 13 / (12 * c.hidden) + (c.vocab + 2048) / (12 * c.num_layers * c.hidden))
        assert c.num_params + 2048 * c.hidden == pytest.approx(eq2, rel=1e-3)
        assert eq2 / 1e9 == pytest.approx(size_b, abs=0.06)
        assert (run.num_gpus, run.global_batch, run.published) == (gpus, batch, tflops)
        assert run.strategies[0].num_gpus == gpus
    # the split is fixed: alternate rows train, and Llama 2 7B
    train = {r.name for r in MEASURED_RUNS if r.split == "train"}
    assert train == {"megatron-1.7b", "megatron-7.5b", "megatron-39.1b", "megatron-145.6b",
                     "megatron-529.6b", "llama2-7b"}
    assert {n: _RUNS[n].published for n in LLAMA2_GPU_HOURS} == {
        "llama2-7b": 184_320, "llama2-13b": 368_640, "llama2-70b": 1_720_320}


@pytest.mark.parametrize("name", ["megatron-1.7b", "llama2-7b"])
def test_implied_efficiency_reproduces_the_measurement(name):
    run = _RUNS[name]
    eta = implied_efficiency(run)
    assert 0.05 < eta < 1
    assert predict(run, eta)[0] == pytest.approx(run.published, rel=1e-6)
    # throughput rises (GPU-hours fall) with the fraction: the root is unique
    lower, higher = predict(run, 0.9 * eta)[0], predict(run, min(1.0, 1.1 * eta))[0]
    if run.metric == "tflops_per_gpu":
        assert lower < run.published < higher
    else:
        assert lower > run.published > higher


def test_fit_is_least_squares_on_train_runs_only():
    runs = [_RUNS["megatron-1.7b"], _RUNS["megatron-7.5b"], _RUNS["megatron-3.6b"]]
    fit = fit_compute_efficiency(runs)
    train = [fit.implied[r.name] for r in runs if r.split == "train"]
    # numpy's least squares of log(implied) on a constant
    coef, *_ = np.linalg.lstsq(np.ones((len(train), 1)), np.log(train), rcond=None)
    assert fit.compute["a100-80gb"] == pytest.approx(float(np.exp(coef[0])), rel=1e-12)
    held = runs[2]
    assert fit.error[held.name] == pytest.approx(
        predict(held, fit.compute["a100-80gb"])[0] / held.published - 1)
    # a held-out measurement never moves the fit
    moved = dataclasses.replace(held, published=2 * held.published)
    refit = fit_compute_efficiency([*runs[:2], moved])
    assert refit.compute == fit.compute
    assert fit.mean_abs_error("held-out") == pytest.approx(abs(fit.error[held.name]))


def test_madmax_quick():
    res = quick_run("madmax")
    out = res.files[0].parent
    assert (out / "speedups.png").stat().st_size > 1000
    assert (out / "breakdown.png").exists()
    data = json.loads((out / "result.json").read_text())
    tables = data["tables"]
    for row in tables["strategies"]:
        # the search ranks the baseline, so the best is never slower
        assert row["speedup"] is None or row["speedup"] >= 1.0 - 1e-12
        if not row["model"].startswith("dlrm"):
            # MAD-Max's llm_train task: FSDP over every GPU, one sequence per GPU
            assert row["baseline"].startswith(f"dp{row['gpus']}-tp1-pp1-z3-mb1")
    cal = {r["run"]: r for r in tables["calibration"]}
    assert set(cal) == set(_RUNS)
    fraction = cal["megatron-1.7b"]["calibrated_compute_fraction"]
    train = [r["implied_compute_fraction"] for r in cal.values() if r["split"] == "train"]
    assert fraction == pytest.approx(float(np.exp(np.mean(np.log(train)))))
    held = [abs(r["ours"] / r["published"] - 1) for r in cal.values() if r["split"] == "held-out"]
    obs = {o["metric"]: o["ours"] for o in data["observations"]}
    assert obs["calibration mean |error|, HELD-OUT runs"] == pytest.approx(100 * np.mean(held))
    # GPU-hour weighting of the Llama 2 suite, recomputed from the per-job rows
    comps = {c["metric"]: c["ours"] for c in data["comparisons"]}
    for cluster in ("a100+hdr", "h100+ndr"):
        jobs = [r for r in tables["exposed_comm_suite"] if r["cluster"] == cluster]
        assert sorted(j["job"] for j in jobs) == sorted(LLAMA2_GPU_HOURS)
        hours = np.array([j["gpu_hours"] for j in jobs])
        frac = np.array([j["exposed_comm_fraction"] for j in jobs])
        metric = next(m for m in comps if m.startswith("exposed communication, GPU-hour")
                      and cluster in m)
        assert comps[metric] == pytest.approx(100 * float(hours @ frac / hours.sum()))


def test_gemm_size_roofline_closed_form():
    from archsim.hw.models.base import Tile
    from archsim.hw.models.gpu import get_gpu
    from archsim.sim.distributed.models import LLMWorkload
    from archsim.sim.studies.madmax import GEMMSizeRoofline

    a100 = get_gpu("a100-80gb")
    gpu = GEMMSizeRoofline(spec=a100, intercept=0.4, slope=0.1, memory_efficiency=0.8)
    assert gpu.fraction(1e9) == pytest.approx(0.4)
    assert gpu.fraction(1e12) == pytest.approx(0.7)
    assert gpu.fraction(1e20) == 1.0 and gpu.fraction(1.0) == 0.05  # clipped
    op = LLMWorkload(model="llama-7b", seq_len=2048).layer_ops[0]
    big = Tile(op, macs=10**12 // 2, input_bytes=1e6)  # 1 TFLOP, compute-bound
    assert gpu.operator_cost(big).latency_s == pytest.approx(1e12 / (312e12 * 0.7))
    small = Tile(op, macs=1, input_bytes=1e9)  # memory-bound
    assert gpu.operator_cost(small).latency_s == pytest.approx(1e9 / (2039e9 * 0.8))


def test_gemm_curve_through_two_train_runs_is_exact():
    # two parameters, two TRAIN runs: the least-squares curve reproduces both
    from archsim.sim.studies.madmax import fit_gemm_curve

    runs = [_RUNS["megatron-1.7b"], _RUNS["megatron-7.5b"], _RUNS["megatron-3.6b"]]
    curve = fit_gemm_curve(runs)
    assert abs(curve.error["megatron-1.7b"]) < 1e-4
    assert abs(curve.error["megatron-7.5b"]) < 1e-4
    assert curve.mean_abs_error("held-out") == pytest.approx(abs(curve.error["megatron-3.6b"]))
