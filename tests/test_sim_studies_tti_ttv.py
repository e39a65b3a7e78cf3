"""The TTI/TTV study: roofline pricing against closed forms, and the quick run's tables."""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph.ir import TensorSpec
from archsim.compilers.graph.tti import attention_operator, stable_diffusion
from archsim.operators import Operator
from archsim.sim.studies.tti_ttv import (
    CATEGORIES,
    a100_roofline,
    max_step_ratio,
    operator_time_s,
    pipeline_breakdown,
)
from archsim.tests.study_runs import quick_run

PEAK, BW = 312e12 * 0.7, 2039e9 * 0.8  # A100-80GB FP16 dense / HBM2e, assumed efficiencies


def test_matmul_and_attention_times_against_the_roofline_by_hand():
    gpu = a100_roofline()
    x = TensorSpec("x", (4096, 320), "fp16")
    w = TensorSpec("w", (320, 320), "fp16", role="weight")
    y = TensorSpec("y", (4096, 320), "fp16")
    mm = Operator("mm", "matmul", (x, w), (y,), 2.0 * 4096 * 320 * 320)
    by = 2 * (2 * 4096 * 320 + 320 * 320)
    assert operator_time_s(mm, gpu, impl="flash") == pytest.approx(
        max(2 * 4096 * 320 * 320 / PEAK, by / BW) + 5e-6)
    q = TensorSpec("q", (2 * 4096, 320), "fp16")
    att = attention_operator("a", q, q, q, batch=2, heads=8, head_dim=40, q_len=4096,
                             kv_len=4096, attention="spatial")
    s = 2 * 8 * 4096 * 4096  # scores
    qo = 2 * 4096 * 320      # elements of Q (= K = V = O)
    base = (max(2 * s * 40 / PEAK, 2 * (2 * qo + s) / BW)      # S = QK^T
            + max(5 * s / PEAK, 2 * 2 * s / BW)                # softmax
            + max(2 * s * 40 / PEAK, 2 * (s + 2 * qo) / BW)    # O = PV
            + 3 * 5e-6)
    flash = max((4 * s * 40 + 5 * s) / PEAK, 2 * (2 * qo + 2 * qo * 32) / BW) + 5e-6
    assert operator_time_s(att, gpu, impl="baseline") == pytest.approx(base)
    assert operator_time_s(att, gpu, impl="flash") == pytest.approx(flash)


def test_flash_changes_only_attention_time():
    p = stable_diffusion(steps=2)
    gpu = a100_roofline()
    b = pipeline_breakdown(p, gpu, impl="baseline")
    f = pipeline_breakdown(p, gpu, impl="flash")
    for c in CATEGORIES:
        if c != "attention":
            assert b.by_category_s[c] == pytest.approx(f.by_category_s[c], rel=1e-12)
    assert b.by_category_s["attention"] > f.by_category_s["attention"]
    assert math.fsum(f.share(c) for c in CATEGORIES) == pytest.approx(1.0)
    assert f.total_s == pytest.approx(math.fsum(f.by_stage_s.values()))


def test_max_step_ratio():
    assert max_step_ratio([4096, 1024, 256, 64, 256]) == 4.0
    assert max_step_ratio([16]) == 1.0
    assert max_step_ratio([100, 300, 200]) == 3.0


def test_quick_run_tables_and_headlines():
    r = quick_run("tti-ttv")
    by = {c.metric: c for c in r.comparisons}
    assert len(by) == len(r.comparisons)
    rows = r.tables["operator_breakdown"]
    for row in rows:
        assert sum(row[f"{c}_pct"] for c in CATEGORIES) == pytest.approx(100.0)
    flash = {x["model"]: x for x in r.tables["attention_traffic"]}
    # Flash never moves more bytes nor runs slower than the baseline
    assert all(x["ratio"] >= 1 and x["flash_speedup_end_to_end"] >= 1 for x in flash.values())
    # prefill-like diffusion (Stable Diffusion) gains more than decode-like Parti
    assert flash["stable-diffusion"]["flash_speedup_end_to_end"] > \
        flash["parti"]["flash_speedup_end_to_end"]
    seq = [x["seq_len"] for x in r.tables["sequence_lengths"]
           if x["model"] == "make-a-video" and x["stage"] == "unet_3d"]
    assert 16 in seq  # temporal attention over 16 frames
    assert any(a.startswith("A100-80GB roofline") for a in r.assumptions)
