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
