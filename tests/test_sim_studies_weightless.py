"""The Weightless study's quick run: statuses, sizes recomputed from closed forms, tables."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest

from archsim.sim.studies import StudyResult, study_names
from archsim.sim.studies.registry import run_runner
from archsim.sim.studies.weightless import run, setup_for
from archsim.tests.study_runs import quick_run


@pytest.fixture(scope="module")
def result() -> StudyResult:
    if "weightless" in study_names():
        return quick_run("weightless")
    # A worktree that is not pip-installed has no entry point yet: run the same function.
    out = Path(tempfile.mkdtemp(prefix="archsim-weightless-"))
    return run_runner("weightless", run, out_dir=out, seed=0, quick=True)


def test_statuses_are_the_expected_ones(result):
    assert len(result.comparisons) == 4
    for c in result.comparisons:
        assert c.status == c.expected, (c.metric, c.ours, c.band_text())


def test_sweep_sizes_follow_the_filter_and_csr_formulas(result):
    setup = setup_for("lenet-300-100", quick=True)
    rows = [r for r in result.tables["sweep"] if r["arch"] == "lenet-300-100"]
    assert len(rows) == len(setup.sparsities) * (1 + len(setup.cell_bits))
    for r in rows:
        assert r["dense_bits"] == 32 * 784 * 300
        assert r["nonzero"] == round((1 - r["sparsity"]) * 784 * 300)
        if r["cell_bits"] is None:
            assert r["bits"] == min(r["dc_csr_bits"], r["dc_huffman_bits"])
            continue
        cells = 3 * math.ceil((1.23 * r["nonzero"] + 32) / 3)
        assert r["bits"] == cells * r["cell_bits"] + 64 + 32 * r["clusters"]
        assert r["ratio"] == pytest.approx(r["dense_bits"] / min(r["bits"], r["lzma_bits"]))
        closed = r["clusters"] / 2 ** r["cell_bits"]
        assert r["false_positive_rate_closed"] == pytest.approx(closed)
        pruned = 784 * 300 - r["nonzero"]
        sd = math.sqrt(closed * (1 - closed) / pruned)
        assert abs(r["false_positive_rate"] - closed) < 5 * sd


def test_false_positives_cost_accuracy_at_small_t(result):
    # More false positives (smaller t) never help: at each sparsity the smallest t's
    # accuracy is below the unencoded layer's.
    rows = result.tables["sweep"]
    for s in {r["sparsity"] for r in rows}:
        at = {r["cell_bits"]: r["val_accuracy"] for r in rows if r["sparsity"] == s}
        assert at[min(k for k in at if k is not None)] < at[None]


def test_pipeline_freezes_encoded_layers_and_reports_every_layer(result):
    rows = result.tables["pipeline"]
    assert [r["layer"] for r in rows] == ["fc0", "fc1", "fc2"] * 2
    wl = [r for r in rows if r["pipeline"] == "weightless"]
    assert wl[0]["cell_bits"] is not None and wl[1]["cell_bits"] is not None
    assert wl[2]["cell_bits"] is None  # the output layer is not encoded
    assert {r["dense_bits"] for r in rows} == {32 * 784 * 300, 32 * 300 * 100, 32 * 100 * 10}


def test_outputs_and_assumptions(result):
    names = {Path(f).name for f in result.files}
    assert {"comparisons.csv", "sweep.csv", "pipeline.csv", "result.json",
            "weightless_sweep.png"} <= names
    text = " ".join(result.assumptions)
    assert "5,000 MNIST" in text and "60,000" in text and "assumed" in text



def test_monotone_accuracy_pools_adjacent_violators():
    from archsim.sim.studies.weightless import SweepPoint, monotone_accuracy

    def point(sparsity, t, val):
        return SweepPoint(arch="a", layer="fc0", sparsity=sparsity, clusters=8, cell_bits=t,
                          nonzero=1, dense_bits=32, bits=8, lzma_bits=None, dc_csr_bits=8,
                          dc_huffman_bits=8, false_positive_rate=None,
                          false_positive_rate_closed=None, val_accuracy=val,
                          test_accuracy=val)

    pts = [point(0.9, 5, 0.90), point(0.9, 6, 0.95), point(0.9, 7, 0.92),
           point(0.9, None, 0.94), point(0.95, None, 0.96)]
    fit = [p.val_accuracy_monotone for p in monotone_accuracy(pts)]
    # Rising in t: the 0.95 spike is pooled with the 0.92 after it (mean 0.935); falling in
    # sparsity for the unencoded points: 0.94 then 0.96 pool to 0.95.
    assert fit == pytest.approx([0.90, 0.935, 0.935, 0.95, 0.95])
