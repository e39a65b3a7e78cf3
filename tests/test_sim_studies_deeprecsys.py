"""The DeepRecSys study: its helpers against hand-worked values, and the quick run."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import gmean

from archsim.sim.studies.deeprecsys import (
    BATCH_CONFIGS,
    COMPUTE_HEAVY,
    ENGINES,
    MEMORY_BOUND,
    MODELS,
    STATIC_BATCH,
    TARGETS_S,
    capacity_gap_ms,
    engine_latency,
    geomean,
    scheduler_settings,
)
from archsim.sim.studies.framework import Status
from archsim.tests.study_runs import quick_run


def test_setup_constants_from_the_notes() -> None:
    # Notes §1.6 [R] Table I "medium" targets; §1.2: 32 engines; code default configs.
    assert TARGETS_S == {"DLRM-RMC1": 0.1, "DLRM-RMC2": 0.4, "DLRM-RMC3": 0.1,
                         "NCF": 0.005, "WnD": 0.025, "MT-WnD": 0.025, "DIN": 0.1,
                         "DIEN": 0.035}
    assert set(MODELS) == set(TARGETS_S) and len(MODELS) == 8
    assert ENGINES == 32
    assert BATCH_CONFIGS == (32, 64, 128, 256, 512, 1024) and STATIC_BATCH == 32


def test_capacity_gap_by_hand() -> None:
    # 1 ms per item: 165 items cut into 5 x 32 + 5 -> 165 ms of engine time over 32
    # engines = 5.15625 ms per query.
    assert capacity_gap_ms(lambda b: 1e-3 * b) == pytest.approx(165 / 32)
    # A fixed 2 ms per part: 6 parts -> 12 ms / 32 engines.
    assert capacity_gap_ms(lambda b: 2e-3) == pytest.approx(12 / 32)
    # Whole query on one engine of 4: one part.
    assert capacity_gap_ms(lambda b: 1e-3, batch=1024, engines=4) == pytest.approx(0.25)


def test_scheduler_grid_scaled() -> None:
    s = scheduler_settings(0.025, 2.0)
    assert s.min_gap_ms == pytest.approx(0.4) and s.max_gap_ms == pytest.approx(8.0)
    assert s.start_gap_ms == pytest.approx(4.0) and s.gap_steps == 50
    assert s.target_latency_s == 0.025
    assert s.gaps_ms[0] == pytest.approx(0.4) and s.gaps_ms[-1] == pytest.approx(8.0)


def test_geomean_and_memo() -> None:
    vals = [1.2, 3.5, 0.7, 2.0]
    assert geomean(vals) == pytest.approx(float(gmean(vals)))
    calls: list[int] = []

    class Fake:
        def predict_s(self, config: object, batch: int) -> float:
            calls.append(batch)
            return batch * 1e-3

    from archsim.compilers.graph.recsys import get_recsys
    lat = engine_latency(Fake(), get_recsys("NCF"))
    assert lat(8) == pytest.approx(8e-3) and lat(8) == pytest.approx(8e-3)
    assert calls == [8]


@pytest.fixture(scope="module")
def result():
    return quick_run("deeprecsys")


def test_quick_run_statuses(result) -> None:
    for c in result.comparisons:
        assert c.status == c.expected, c.metric
    statuses = {c.metric.split(",")[0]: c.status for c in result.comparisons}
    assert statuses["DeepRecSched-CPU QPS gain over static"] == Status.IN_SHAPE


def test_quick_run_headlines_recomputed_from_tables(result) -> None:
    rows = {r["model"]: r for r in result.tables["scheduling"]}
    assert set(rows) == set(MODELS)
    gains = []
    for r in rows.values():
        assert r["chosen_batch"] in BATCH_CONFIGS
        assert r["gain_over_static"] == pytest.approx(r["deeprecsched_cpu_qps"]
                                                      / r["static_qps"])
        # The climb's chosen configuration is never worse than the static one it starts
        # from (the static batch is the first configuration tried).
        assert r["deeprecsched_cpu_qps"] >= r["static_qps"] * (1 - 1e-9)
        gains.append(r["gain_over_static"])
    by_metric = {c.metric: c for c in result.comparisons}
    head = next(c for m, c in by_metric.items() if m.startswith("DeepRecSched-CPU QPS"))
    assert head.ours == pytest.approx(float(np.exp(np.mean(np.log(gains)))))
    shape = next(o for o in result.observations if o.metric.startswith("chosen batch"))
    heavy = np.exp(np.mean(np.log([rows[m]["chosen_batch"] for m in COMPUTE_HEAVY])))
    light = np.exp(np.mean(np.log([rows[m]["chosen_batch"] for m in MEMORY_BOUND])))
    assert shape.ours == pytest.approx(heavy / light)
    off = next(c for m, c in by_metric.items() if m.startswith("GPU offload of large "
                                                               "queries / CPU-only"))
    assert off.ours == pytest.approx(float(gmean([r["deeprecsched_gpu_qps"]
                                                  / r["lognormal_cpu_qps"]
                                                  for r in rows.values()])))


def test_quick_run_server_variation_from_table(result) -> None:
    rows = result.tables["server_generations"]
    var = max(max(r[f"{s}_ms"] for s in ("Haswell", "Broadwell", "Skylake"))
              / min(r[f"{s}_ms"] for s in ("Haswell", "Broadwell", "Skylake")) - 1
              for r in rows)
    c = next(c for c in result.comparisons if c.metric.startswith("latency variation"))
    assert c.ours == pytest.approx(var)
    coloc = [r for r in result.tables["colocation"] if r["instances"] == 1]
    assert all(r["throughput_vs_one"] == pytest.approx(1.0) for r in coloc)


def test_quick_run_files_and_labels(result) -> None:
    names = {p.name for p in result.files}
    for f in ("throughput_vs_p95.png", "chosen_batch.png", "server_generations.png",
              "qps.png", "scheduling.csv", "result.json"):
        assert f in names
    text = " ".join(result.assumptions)
    assert "assumed" in text and "unverified recollection" in text
