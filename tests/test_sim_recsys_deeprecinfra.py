"""DeepRecInfra's load generator and serving, and DeepRecSched's climb, against hand-derived
cases and brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.recsys.deeprecinfra import (
    LoadGenerator,
    QuerySizes,
    SchedulerSettings,
    ServingSystem,
    climb,
    deeprecsched,
    serve,
)


def linear_cpu(batch: int) -> float:
    """1 ms fixed + 0.1 ms per item (a test double)."""
    return 1e-3 + 1e-4 * batch


def test_sizes_are_clamped_and_follow_their_distribution():
    rng = np.random.default_rng(0)
    sizes = QuerySizes(distribution="normal", mean=165, sd=16, max_size=1024).draw(20000, rng)
    assert sizes.min() >= 1 and sizes.max() <= 1024
    assert abs(sizes.mean() - 165) < 0.5 and abs(sizes.std() - 16) < 0.5
    clamped = QuerySizes(distribution="normal", mean=10, sd=100, max_size=50).draw(5000, rng)
    assert clamped.min() == 1 and clamped.max() == 50
    picks = QuerySizes(distribution="percentiles", percentiles=(3, 7, 1000),
                       max_size=512).draw(3000, rng)
    assert set(picks.tolist()) == {3, 7, 512}
    logn = QuerySizes(distribution="lognormal", mean=math.log(100), sd=0.1,
                      max_size=4096).draw(20000, rng)
    assert abs(np.median(logn) - 100) <= 1
    assert (QuerySizes(distribution="fixed", mean=42).draw(5, rng) == 42).all()


def test_split_queries_on_the_engine_pool_hand_cases():
    load = LoadGenerator(sizes=QuerySizes(distribution="fixed", mean=10), poisson=False)
    # 10 items in sub-batches of 4: parts 4, 4, 2. Three engines: all at once -> the
    # slowest part; one engine: one after the other. Gaps of 100 ms: no queueing.
    three = serve(ServingSystem(engines=3, cpu_latency_s=linear_cpu, per_core_batch=4), load,
                  mean_gap_ms=100, queries=5)
    assert np.allclose(three.latency_s, linear_cpu(4))
    one = serve(ServingSystem(engines=1, cpu_latency_s=linear_cpu, per_core_batch=4), load,
                mean_gap_ms=100, queries=5)
    assert np.allclose(one.latency_s, 2 * linear_cpu(4) + linear_cpu(2))
    # Queueing: one engine, 1 ms gaps, each query takes 2 ms (one part of 10): query k
    # waits k ms (D/D/1 with service 2x the gap).
    busy = serve(ServingSystem(engines=1, cpu_latency_s=linear_cpu, per_core_batch=16), load,
                 mean_gap_ms=1, queries=6)
    assert np.allclose(busy.latency_s, linear_cpu(10) * (1 + np.arange(6)) -
                       1e-3 * np.arange(6))


def test_large_queries_go_whole_to_the_accelerator():
    load = LoadGenerator(sizes=QuerySizes(distribution="percentiles", percentiles=(8, 600),
                                          max_size=1024), poisson=False)
    system = ServingSystem(engines=2, cpu_latency_s=linear_cpu, per_core_batch=64,
                           accel_latency_s=lambda n: 5e-4, accel_threshold=256)
    run = serve(system, load, mean_gap_ms=50, queries=64)
    assert (run.on_accel == (run.size >= 256)).all()
    assert np.allclose(run.latency_s[run.on_accel], 5e-4)
    assert np.allclose(run.latency_s[~run.on_accel], linear_cpu(8))


def test_poisson_gaps_are_integer_milliseconds_with_the_mean():
    load = LoadGenerator(sizes=QuerySizes(distribution="fixed", mean=1))
    run = serve(ServingSystem(engines=64, cpu_latency_s=lambda n: 1e-6), load, mean_gap_ms=7,
                queries=4000, seed=3)
    gaps_ms = np.diff(run.arrival_s) * 1e3
    assert np.allclose(gaps_ms, np.rint(gaps_ms))
    assert abs(gaps_ms.mean() - 7) < 0.2 and abs(gaps_ms.var() - 7) < 0.6


def test_the_controller_settles_near_the_gap_where_the_tail_meets_the_target():
    # One engine, fixed 4 ms queries, fixed gaps: the p95 stays at 4 ms while the gap is
    # >= 4 ms and grows without bound below it. Target 5 ms: the controller must settle on
    # the grid points around 4 ms (brute force: the smallest grid gap with no queueing).
    load = LoadGenerator(sizes=QuerySizes(distribution="fixed", mean=30), poisson=False)
    system = ServingSystem(engines=1, cpu_latency_s=linear_cpu, per_core_batch=64)
    settings = SchedulerSettings(target_latency_s=5e-3, min_gap_ms=1, max_gap_ms=20,
                                 gap_steps=50, req_granularity=16, sched_timeout=60)
    result = climb(system, load, settings)
    grid = settings.gaps_ms
    stable = grid[grid >= linear_cpu(30) * 1e3]
    assert stable[0] / 1.2 <= result.gap_ms <= stable[0] * 1.2
    assert result.qps == pytest.approx(1000 / result.gap_ms)


def test_hill_climb_picks_the_batch_size_a_brute_force_sweep_picks():
    # Per-core batch b: service 2 ms fixed + 0.05 ms per item; 8 engines; queries of 256.
    def cpu(n: int) -> float:
        return 2e-3 + 5e-5 * n

    load = LoadGenerator(sizes=QuerySizes(distribution="fixed", mean=256), poisson=False)
    settings = SchedulerSettings(target_latency_s=12e-3, min_gap_ms=0.2, max_gap_ms=20,
                                 gap_steps=40, req_granularity=16, sched_timeout=50)
    configs = (256, 128, 64, 32)
    result = deeprecsched(ServingSystem(engines=8, cpu_latency_s=cpu), load, settings,
                          batch_configs=configs, accel_configs=())
    gaps = {b: climb(ServingSystem(engines=8, cpu_latency_s=cpu, per_core_batch=b), load,
                     settings).gap_ms for b in configs}
    # The authors' climb stops at the first worse configuration: brute force the same rule.
    tried = []
    for b in configs:
        tried.append((b, gaps[b]))
        if len(tried) >= 2 and tried[-1][1] > tried[-2][1]:
            expected = tried[-2]
            break
    else:
        expected = min(tried, key=lambda t: t[1])
    assert (result.per_core_batch, result.gap_ms) == expected
    assert result.accel_threshold is None


def test_errors():
    with pytest.raises(ConfigError, match="unknown query-size distribution 'zipf'"):
        QuerySizes(distribution="zipf")
    with pytest.raises(ConfigError, match="needs a list of percentile values"):
        QuerySizes(distribution="percentiles")
    with pytest.raises(ConfigError, match="engines must be an int >= 1, not 0"):
        ServingSystem(engines=0, cpu_latency_s=linear_cpu)
    with pytest.raises(ConfigError, match=r"max_gap_ms \(1\) must exceed min_gap_ms \(2\)"):
        SchedulerSettings(target_latency_s=1e-3, min_gap_ms=2, max_gap_ms=1)
    with pytest.raises(ConfigError, match="mean_gap_ms must be a finite number > 0"):
        serve(ServingSystem(engines=1, cpu_latency_s=linear_cpu), LoadGenerator(),
              mean_gap_ms=0, queries=1)
