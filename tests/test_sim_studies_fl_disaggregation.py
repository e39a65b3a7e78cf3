"""The fl-disaggregation study's quick run: statuses, recovery and inference figures."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from archsim.sim.studies import StudyResult, study_names
from archsim.sim.studies.fl_disaggregation import run
from archsim.tests.study_runs import quick_run


@pytest.fixture(scope="module")
def result() -> StudyResult:
    if "fl-disaggregation" in study_names():
        return quick_run("fl-disaggregation")
    # a worktree that is not pip-installed has no entry point for the study yet
    return run(out_dir=Path(tempfile.mkdtemp(prefix="fl-disagg-")), seed=0, quick=True)


def test_statuses_are_the_expected_ones(result):
    assert len(result.comparisons) == 4
    for c in result.comparisons:
        assert c.status == c.expected, c.metric


def test_noiseless_and_fedavg_recovery(result):
    exact = result.tables["noiseless"][0]
    assert exact["users_exact"] == exact["users"] == 20
    assert exact["max_abs_update_error"] < 1e-8
    row = result.tables["fedavg"][0]
    assert row["dim"] == 7850  # 784 pixels x 10 classes + 10 biases
    assert row["p_entries_exact"] == 1.0 and row["users_exact"] == row["users"]
    # with P exact, G* is the least squares of drifting updates: close to their chunk means
    assert row["update_rel_error"] < 0.2


def test_inference_beats_aggregates_and_chance(result):
    row = result.tables["fedavg"][0]
    assert row["inference_recovered"] > row["inference_round_aggregates"]
    assert row["inference_recovered"] >= row["inference_true_updates"] - 0.125
    assert row["inference_round_aggregates"] > row["inference_chance"]
    assert all("assumed" in a or "objective" in a or "Bernoulli" in a
               for a in result.assumptions)
