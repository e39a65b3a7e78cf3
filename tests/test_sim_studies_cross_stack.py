"""The cross-stack study: share, speedup, crossover and deployment-ratio arithmetic against
hand-worked values on fake measurements, and the quick run's statuses."""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph.recsys import RECSYS_MODELS, get_recsys, recsys_graph
from archsim.errors import ConfigError
from archsim.sim.recsys.gpu import GpuRecModel
from archsim.sim.studies.cross_stack import (
    batching_gain,
    best_deployment_ratio,
    category_shares,
    crossover_band,
    crossover_batch,
    deployment_ratio,
    gpu_group_s,
    share_band,
    speedup_grid,
)
from archsim.tests.study_runs import quick_run


def test_category_shares_fold_attention_into_fc_and_count_untimed_time_as_other():
    groups = {"sls": 2.0, "fc": 1.0, "attention": 1.0, "gru": 0.0, "concat": 0.5}
    # Measured total 5 s: FC (1 + 1) / 5, SLS 2 / 5, GRU 0, other (0.5 concat + 0.5 untimed) / 5.
    assert category_shares(groups, 5.0) == pytest.approx(
        {"fc": 0.4, "sls": 0.4, "gru": 0.0, "other": 0.2})
    # Without a total the groups' sum 4.5 s is the whole.
    assert category_shares(groups) == pytest.approx(
        {"fc": 2 / 4.5, "sls": 2 / 4.5, "gru": 0.0, "other": 0.5 / 4.5})


def test_category_shares_reject_a_total_below_the_groups():
    with pytest.raises(ConfigError) as err:
        category_shares({"fc": 2.0}, 1.0)
    assert err.value.field == "total_s"


def test_speedup_grid_is_cpu_over_gpu():
    assert speedup_grid({"A": [2.0, 8.0]}, {"A": [4.0, 2.0]}) == {"A": [0.5, 4.0]}
    with pytest.raises(ConfigError):
        speedup_grid({"A": [1.0]}, {"B": [1.0]})


def test_crossover_interpolates_in_log_batch():
    # Between 4 (0.8x) and 16 (2.0x): 1x is 1/6 of the way, so 4 * 4**(1/6) = 4**(7/6).
    assert crossover_batch([1, 4, 16], [0.5, 0.8, 2.0]) == pytest.approx(4 ** (7 / 6))
    assert crossover_batch([1, 4, 16], [1.5, 2.0, 3.0]) == 1.0
    assert crossover_batch([1, 4, 16], [0.1, 0.2, 0.9]) == math.inf


def test_deployment_ratios_on_a_fake_grid():
    assert deployment_ratio([3.0, 0.5]) == pytest.approx(6.0)
    batches = (1, 4)
    times = {"cpu": {"A": [1.0, 2.0], "B": [1.0, 10.0]},
             "gpu": {"A": [4.0, 1.0], "B": [0.5, 1.0]}}
    # Slowest / fastest: A 4 and 2, B 2 and 10 -> B at batch 4, GPU over CPU, 10x.
    best = best_deployment_ratio(batches, times)
    assert (best.ratio, best.model, best.batch, best.fastest, best.slowest) == \
        (pytest.approx(10.0), "B", 4, "gpu", "cpu")
    # Per-item throughputs of A: cpu 1/1, 4/2; gpu 1/4, 4/1 -> best gpu at 4, 4x over cpu at 1.
    assert batching_gain(batches, {"cpu": [1.0, 2.0], "gpu": [4.0, 1.0]}, "cpu") == \
        (pytest.approx(4.0), "gpu", 4)


def test_bands():
    assert (share_band(58, 58).lo, share_band(58, 58).hi) == (46, 70)  # +-2 reading +10
    assert (share_band(94, 96).lo, share_band(94, 96).hi) == (82, 100)  # clipped at 100
    assert (crossover_band(16, 64).lo, crossover_band(16, 64).hi) == (8, 128)


def test_gpu_launches_go_to_their_operators_group():
    gpu = GpuRecModel.gtx_1080_ti()
    config = get_recsys("WnD")
    plain = gpu.group_s(config, 4)
    mine = gpu_group_s(gpu, config, 4)
    graph = list(recsys_graph(config, batch=4))
    matmuls = sum(op.kind == "matmul" for op in graph)
    # 10 us per kernel: the FC group gains one launch per matmul of the graph.
    assert mine["fc"] == pytest.approx(plain["fc"] + 10e-6 * matmuls)
    assert "launch" not in mine
    assert math.fsum(mine.values()) == pytest.approx(gpu.predict_s(config, 4))


def test_quick_run_statuses_and_tables():
    result = quick_run("cross-stack")
    for c in result.comparisons:
        assert c.status == c.expected, c.metric
    metrics = {c.metric for c in result.comparisons}
    assert {f"GPU-over-CPU speedup at batch 1024, {m}" for m in RECSYS_MODELS} <= metrics
    assert sum(m.startswith("GPU ") and "share" in m for m in metrics) == 13
    numpy_rows = [r for r in result.tables["cpu_times"] if r["backend"] == "numpy"]
    assert len(numpy_rows) == len(RECSYS_MODELS) * 6
    # The headline from the speedup table, by hand: max over cells of max(s, 1/s).
    cells = [r[f"b{b}"] for r in result.tables["speedup"] for b in (1, 4, 16, 64, 256, 1024)]
    headline = next(c for c in result.comparisons if c.metric.startswith("best over naive"))
    assert headline.ours == pytest.approx(max(max(s, 1 / s) for s in cells))
    # Shares of each platform's breakdown add up to 100 %.
    for r in result.tables["operator_breakdown"]:
        assert sum(r[f"{c}_pct"] for c in ("fc", "sls", "gru", "other")) == pytest.approx(100)
    names = {p.name for p in result.files}
    assert {"operator_breakdown.png", "speedup_heatmap.png", "speedup.csv"} <= names
    assert any("GPU compute efficiency" in a for a in result.assumptions)
