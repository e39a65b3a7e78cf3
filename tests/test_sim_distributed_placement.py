"""Slow GPUs with locality and variability-aware placement (sim/distributed/placement.py)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from archsim.errors import ConfigError
from archsim.sim.distributed.placement import (
    TUKEY_WHISKER_Z,
    Layout,
    SpeedModel,
    iteration_factor,
    place,
    placement_gain,
    sigma_from_variation,
    variation_from_sigma,
)


def test_whisker_constant_and_calibration_round_trip():
    # Tukey's upper whisker of a standard normal: Q3 + 1.5 IQR, from scipy's quantiles
    q1, q3 = stats.norm.ppf([0.25, 0.75])
    assert TUKEY_WHISKER_Z == pytest.approx(q3 + 1.5 * (q3 - q1), rel=1e-9)
    for v in (0.0, 0.08, 0.14, 0.22):
        s = sigma_from_variation(v)
        assert variation_from_sigma(s) == pytest.approx(v, abs=1e-12)
    # the box plot of many draws with that sigma spans the stated variation
    s = sigma_from_variation(0.08)
    x = np.exp(np.random.default_rng(0).normal(0, s, 400_000))
    a, b = np.quantile(x, [0.25, 0.75])
    inside = x[(x >= a - 1.5 * (b - a)) & (x <= b + 1.5 * (b - a))]
    assert (inside.max() - inside.min()) / np.median(x) == pytest.approx(0.08, rel=0.03)


def test_speed_model_levels_and_outliers():
    sm = SpeedModel(gpu_sigma=0.05, rack_share=0.6, node_share=0.2)
    t = sm.draw(8 * 4 * 8 * 40, seed=3)
    log_t = np.log(t)
    assert np.std(log_t) == pytest.approx(0.05, rel=0.05)
    racks = log_t.reshape(-1, 32)
    # within a rack: the GPUs' own share plus the node share seen through 4 nodes of 8
    # (expected sample variance of grouped data: (32 - 4 * 8**2 / 32) / 31 of it)
    expected = 0.05**2 * (0.2 + 0.2 * (32 - 4 * 64 / 32) / 31)
    assert np.mean(np.var(racks, axis=1, ddof=1)) == pytest.approx(expected, rel=0.05)
    out = SpeedModel(gpu_sigma=0.01, outlier_fraction=0.01, outlier_max_slowdown=1.5)
    t = out.draw(80_000, seed=1)
    slow = t > math.exp(TUKEY_WHISKER_Z * 0.01) * 1.0001
    # outliers plus the regular GPUs beyond the upper whisker
    assert slow.mean() == pytest.approx(0.01 + 0.99 * stats.norm.sf(TUKEY_WHISKER_Z), rel=0.1)
    assert t.max() <= 1.5
    assert np.array_equal(out.draw(800, seed=5), out.draw(800, seed=5))
    with pytest.raises(ConfigError, match="add up to"):
        SpeedModel(gpu_sigma=0.1, rack_share=0.7, node_share=0.5)
    with pytest.raises(ConfigError, match="multiple of 8"):
        out.draw(12, seed=0)


def _pipeline_closed_form(stage_times, m, v):
    t = np.asarray(stage_times, dtype=float)
    return (m * t.max() + (t.sum() - t.max()) / v) / (m + (len(t) - 1) / v)


def test_iteration_factor_closed_forms():
    lay = Layout(tp=2, cp=1, pp=4, dp=3, micro_batches=8, interleave=2)
    assert iteration_factor(lay, np.ones(lay.num_gpus)) == pytest.approx(1.0)
    # one slow GPU of factor k: its pipeline has one slow stage, equal others
    x = np.ones(lay.num_gpus)
    x[5] = 1.3  # rank 5 = t1 + 2 (c0 + 1 (d2 + 3 s0)): stage 0 of replica 2
    assert iteration_factor(lay, x) == pytest.approx(_pipeline_closed_form([1.3, 1, 1, 1], 8, 2))
    # two slow GPUs in one pipeline, different stages (ranks of replica 0: s * 6 + t)
    x = np.ones(lay.num_gpus)
    x[0], x[6 + 1] = 1.3, 1.2
    assert iteration_factor(lay, x) == pytest.approx(
        _pipeline_closed_form([1.3, 1.2, 1, 1], 8, 2))
    # ZeRO-3: every stage waits for its slowest replica, so slow GPUs of different replicas
    # add up along the pipeline
    z3 = Layout(tp=2, cp=1, pp=4, dp=3, micro_batches=8, interleave=2, dp_sync="layer")
    x = np.ones(lay.num_gpus)
    x[0], x[6 * 1 + 2 * 1] = 1.3, 1.2  # replica 0 stage 0; replica 1 stage 1
    assert iteration_factor(z3, x) == pytest.approx(_pipeline_closed_form([1.3, 1.2, 1, 1], 8, 2))
    assert iteration_factor(lay, x) == pytest.approx(_pipeline_closed_form([1.3, 1, 1, 1], 8, 2))


def test_layout_from_strategy_and_errors():
    lay = Layout.from_strategy("dp256-tp4-pp8-cp8-v2-z1-mb1-sp", micro_batches=16)
    assert (lay.dp, lay.tp, lay.pp, lay.cp, lay.interleave, lay.dp_sync) == \
        (256, 4, 8, 8, 2, "iteration")
    assert Layout.from_strategy("dp8-tp8-pp1-cp1-z3-mb2", micro_batches=1).dp_sync == "layer"
    with pytest.raises(ConfigError, match="cannot read"):
        Layout.from_strategy("tp8", micro_batches=1)
    with pytest.raises(ConfigError, match="positive integer"):
        Layout(pp=0)
    with pytest.raises(ConfigError, match="unknown data-parallel"):
        Layout(dp_sync="never")
    with pytest.raises(ConfigError, match="unknown placement"):
        place(Layout(dp=8), np.ones(8), kind="best", gpus_per_node=1)


def test_aware_placement_against_every_permutation():
    """On a small cluster (1-GPU nodes) the aware placement is compared with all 8!
    placements: never worse than their median, and its gap to the optimum is small."""
    lay = Layout(pp=4, dp=2, micro_batches=4)
    rng = np.random.default_rng(7)
    worse_than_optimum = []
    for _trial in range(5):
        pool = np.exp(rng.normal(0, 0.1, 8))
        perms = np.array(list(itertools.permutations(range(8))))
        every = iteration_factor(lay, pool[perms])  # one draw per row
        aware = float(iteration_factor(lay, place(lay, pool, kind="aware", gpus_per_node=1)))
        assert aware <= np.median(every)
        worse_than_optimum.append(aware / every.min() - 1)
    assert max(worse_than_optimum) < 0.02


def test_spares_remove_the_slowest_nodes():
    lay = Layout(tp=2, pp=2, dp=2, micro_batches=4)
    pool = np.ones(lay.num_gpus + 2 * 2)
    pool[1] = 1.5   # node 0
    pool[6] = 1.2   # node 3
    aware = place(lay, pool, kind="aware", gpus_per_node=2, spare_nodes=2)
    assert aware.max() == pytest.approx(1.0)
    assert iteration_factor(lay, aware) == pytest.approx(1.0)
    # speed-blind placements use the first nodes, the slow ones among them
    assert place(lay, pool, kind="contiguous", gpus_per_node=2, spare_nodes=2).max() == 1.5
    assert sorted(place(lay, pool, kind="random", gpus_per_node=2, spare_nodes=2, seed=1)) \
        == sorted(pool[:8])
    with pytest.raises(ConfigError, match="pool of 12"):
        place(lay, pool[:8], kind="aware", gpus_per_node=2, spare_nodes=2)


def test_placement_gain_from_excluding_outliers():
    """With outliers and enough spares the aware placement runs at the regular GPUs' pace;
    without spares it cannot beat the slowest GPU (the steady state runs at it)."""
    lay = Layout(tp=8, pp=4, dp=16, micro_batches=8)
    sm = SpeedModel(gpu_sigma=0.0, outlier_fraction=0.002, outlier_max_slowdown=1.5)
    g = placement_gain(lay, sm, spare_nodes=8, draws=6, seed=2)
    assert g["aware_factor"] == pytest.approx(1.0)
    assert g["random_factor"] > 1.1
    g0 = placement_gain(lay, sm, spare_nodes=0, draws=6, seed=2)
    assert 1.0 <= g0["gain_vs_random"] < g["gain_vs_random"]
    assert placement_gain(lay, sm, spare_nodes=8, draws=6, seed=2) == g
