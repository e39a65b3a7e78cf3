"""``archsim study prism`` (quick): variability definitions, placement, P(finish by T)."""

import pytest

from archsim.tests.study_runs import quick_run


def test_prism_quick():
    res = quick_run("prism")
    out = res.files[0].parent
    q = res.tables["iteration_quantiles"]
    for row in q:
        assert row["monte_carlo_s"] == pytest.approx(row["analytic_s"], rel=1e-3)
    # the GPU-time variability by Monte Carlo over clusters and by the closed form
    defs = {r["definition"]: r for r in res.tables["variability_definitions"]}
    assert defs["max_over_median"]["ours_pct"] == pytest.approx(
        defs["max_over_median, closed form"]["ours_pct"], rel=0.1)
    # placement: the aware placement never loses, and spares only help it
    rows = res.tables["placement"]
    for r in rows:
        assert r["aware_factor"] <= min(r["random_factor"], r["contiguous_factor"]) + 1e-12
    for r in rows:
        if r["spare_nodes"] == 0:
            twin = next(t for t in rows if t["spare_nodes"] > 0 and all(
                t[k] == r[k] for k in ("gpu_spread", "outlier_fraction", "rack_share")))
            assert twin["gain_vs_random"] >= r["gain_vs_random"]
    # P(finish by T) is a CDF for each placement; quantiles rise; aware finishes sooner
    finish = res.tables["probability_of_finishing"]
    for kind in ("random", "aware"):
        p = [r["p_finish"] for r in finish if r["placement"] == kind]
        assert p == sorted(p) and p[0] < 0.01 and p[-1] > 0.99
    totals = res.tables["total_time"]
    for kind in ("random", "aware"):
        v = [r[f"total_days_{kind}"] for r in totals]
        assert v == sorted(v)
    assert all(r["total_days_aware"] <= r["total_days_random"] for r in totals)
    for name in ("iteration_distribution.png", "slowdown_vs_gpus.png",
                 "probability_of_finishing.png", "time_to_train.png"):
        assert (out / name).exists()


def _csv_rows(path):
    import csv

    with open(path) as f:
        return list(csv.DictReader(ln for ln in f if not ln.startswith("#")))


def test_collective_spread_csv_pools_its_rows():
    """The shipped CSV's ``all`` rows are the pooled variance of its per-job rows."""
    import numpy as np

    from archsim.sim.studies.prism.study import COLLECTIVE_SPREAD_CSV

    rows = _csv_rows(COLLECTIVE_SPREAD_CSV)
    per_job = [r for r in rows if r["trace"] != "all"]
    assert {r["trace"] for r in per_job} == {"AR", "SE", "ST"}
    for name in ("params-all-gather", "grads-reduce-scatter", "pooled"):
        part = [r for r in per_job if name in ("pooled", r["collective"])]
        dof = np.array([int(r["instances"]) - int(r["collectives"]) for r in part])
        var = np.array([float(r["log_sigma"]) for r in part]) ** 2
        row = next(r for r in rows if r["trace"] == "all" and r["collective"] == name)
        assert float(row["log_sigma"]) == pytest.approx(np.sqrt(var @ dof / dof.sum()),
                                                         rel=1e-4)
        assert int(row["instances"]) == sum(int(r["instances"]) for r in part)


def test_collective_spread_reducer_on_synthetic_trace():
    """Known transfer times behind staggered starts: the straggler wait is removed and the
    log-sigma is numpy's pooled standard deviation about each collective's mean."""
    import numpy as np

    from archsim.sim.studies.prism.make_collective_spread import pooled_rows

    rng = np.random.default_rng(3)
    cols = {k: [] for k in ("optype", "step", "stage", "seq_id", "start_ts", "duration")}
    truth = {}
    for op in ("params-all-gather", "grads-reduce-scatter"):
        for stage in range(2):
            t = rng.lognormal(np.log(0.01 * (stage + 1)), 0.1, 6)
            truth[(op, stage)] = t
            for step, ts in enumerate(t):
                starts = 10.0 * step + rng.uniform(0, 0.5, 4)  # 4 DP ranks arrive apart
                for s0 in starts:
                    cols["optype"].append(op)
                    cols["step"].append(step)
                    cols["stage"].append(stage)
                    cols["seq_id"].append(0)
                    cols["start_ts"].append(s0)
                    cols["duration"].append(starts.max() + ts - s0)
    rows = {r["collective"]: r for r in pooled_rows({"X": cols}) if r["trace"] == "all"}
    for op in ("params-all-gather", "grads-reduce-scatter"):
        resid = np.concatenate([np.log(truth[(op, s)]) - np.log(truth[(op, s)]).mean()
                                for s in range(2)])
        assert rows[op]["log_sigma"] == pytest.approx(np.sqrt(resid @ resid / (12 - 2)))
        assert rows[op]["instances"] == 12 and rows[op]["collectives"] == 2


def test_prism_uses_the_collective_spread_csv(tmp_path):
    """The study's collective noise is the CSV's pooled row: with the pooled log-sigma
    replaced by the widest per-job one, its p1-p99 spread equals the shipped run's
    sensitivity line for that widest value, and differs from the shipped run's."""
    from archsim.sim.studies.prism.study import COLLECTIVE_SPREAD_CSV, run

    base = quick_run("prism")
    obs = {o.metric: o.ours for o in base.observations}
    rows = _csv_rows(COLLECTIVE_SPREAD_CSV)
    pooled = next(r for r in rows if r["trace"] == "all" and r["collective"] == "pooled")
    widest = max((r for r in rows if r["trace"] != "all"), key=lambda r: float(r["log_sigma"]))
    assert obs["measured collective transfer-time log-sigma: pooled"] == pytest.approx(
        float(pooled["log_sigma"]))
    assert [r["log_sigma"] for r in base.tables["collective_spread"]] == pytest.approx(
        [float(r["log_sigma"]) for r in rows])
    text = COLLECTIVE_SPREAD_CSV.read_text().replace(
        f"all,pooled,{pooled['instances']},{pooled['collectives']},{pooled['log_sigma']},",
        f"all,pooled,{pooled['instances']},{pooled['collectives']},{widest['log_sigma']},")
    assert text != COLLECTIVE_SPREAD_CSV.read_text()
    changed = tmp_path / "spread.csv"
    changed.write_text(text)
    res = run(out_dir=tmp_path / "out", seed=0, quick=True, collective_spread_csv=changed)
    key = "iteration time p1-p99 spread / median (transient noise)"
    new = next(o.ours for o in res.observations if o.metric == key)
    sens = next(v for m, v in obs.items() if m.startswith(
        "sensitivity: iteration p1-p99") and "widest" in m)
    assert new == pytest.approx(sens, rel=1e-6)
    assert new > 1.5 * obs[key]
