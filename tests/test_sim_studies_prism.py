"""``archsim study prism`` (quick): the variability model's distributions and curves."""

import pytest

from archsim.tests.study_runs import quick_run


def test_prism_quick():
    res = quick_run("prism")
    out = res.files[0].parent
    q = res.tables["iteration_quantiles"]
    for row in q:
        assert row["monte_carlo_s"] == pytest.approx(row["analytic_s"], rel=1e-3)
    p = [r["p_finish"] for r in res.tables["probability_of_finishing"]]
    assert p == sorted(p)
    for name in ("iteration_distribution.png", "slowdown_vs_gpus.png",
                 "probability_of_finishing.png", "time_to_train.png"):
        assert (out / name).exists()
