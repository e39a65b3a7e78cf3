"""Tests of the INT2.1 study: quantizer, low-rank correction, memory model, quick run."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.nn.llama import LINEAR_NAMES, Llama, LlamaConfig, rms_norm
from archsim.sim.studies.framework import Status
from archsim.sim.studies.int2 import (
    LLAMA_7B,
    DecoderDims,
    FineTuneSetup,
    activation_bytes,
    budget_rank,
    calibration_grams,
    finetune_memory,
    lora_param_count,
    output_error,
    param_count,
    quantize_groupwise,
    run,
    sequential_corrections,
    svd_correction,
    weight_bytes,
    whitened_correction,
)


def _minmax_reference(w: np.ndarray, bits: int, group: int) -> np.ndarray:
    """Group-by-group asymmetric min-max INTk written out plainly (GPTQ's recipe)."""
    out = np.empty_like(w, dtype=np.float64)
    qmax = 2**bits - 1
    for r in range(w.shape[0]):
        for c0 in range(0, w.shape[1], group):
            g = w[r, c0 : c0 + group].astype(np.float64)
            lo, hi = min(g.min(), 0.0), max(g.max(), 0.0)
            s = float(np.float16((hi - lo) / qmax))
            z = min(max(round(-lo / s), 0), qmax)
            q = np.clip(np.round(g / s) + z, 0, qmax)
            out[r, c0 : c0 + group] = s * (q - z)
    return out


@pytest.mark.parametrize("bits", [2, 3, 4, 8])
def test_quantizer_matches_reference_and_clip_search_helps(bits: int) -> None:
    rng = np.random.default_rng(bits)
    w = rng.standard_t(4, size=(6, 128)).astype(np.float32) * 0.02
    plain = quantize_groupwise(w, bits=bits, group=64, clip_grid=(1.0,))
    np.testing.assert_allclose(plain, _minmax_reference(w, bits, 64), rtol=0, atol=1e-7)
    searched = quantize_groupwise(w, bits=bits, group=64)
    per_group = lambda q: ((q - w) ** 2).reshape(-1, 64).sum(1)  # noqa: E731
    assert np.all(per_group(searched) <= per_group(plain) + 1e-12)
    if bits == 2:  # heavy tails: clipping must pay off at 2 bits
        assert per_group(searched).sum() < 0.9 * per_group(plain).sum()
    # At most 2^bits distinct values per group.
    assert all(len(np.unique(g)) <= 2**bits for g in searched.reshape(-1, 64))


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_groupwise_round_trip_exact_for_representable_values(bits: int) -> None:
    rng = np.random.default_rng(0)
    qmax = 2**bits - 1
    rows, group, n_groups = 4, 64, 3
    w = np.empty((rows, group * n_groups))
    for r in range(rows):
        for g in range(n_groups):
            s = float(np.float16(rng.uniform(0.001, 0.05)))
            z = int(rng.integers(1, qmax)) if qmax > 1 else 1
            codes = rng.integers(0, qmax + 1, size=group)
            codes[:2] = (0, qmax)  # the group's min and max are the end codes
            w[r, g * group : (g + 1) * group] = s * (codes - z)
    w32 = w.astype(np.float32)
    assert np.array_equal(w32.astype(np.float64), w)  # representable in float32 as well
    np.testing.assert_array_equal(quantize_groupwise(w32, bits=bits, group=group), w32)


def test_svd_correction_is_the_eckart_young_optimum() -> None:
    rng = np.random.default_rng(1)
    e = rng.standard_normal((40, 30))
    s = np.linalg.svd(e, compute_uv=False)
    for r in (1, 5, 12):
        a, b = svd_correction(e, r)
        assert a.shape == (40, r) and b.shape == (r, 30)
        assert np.sum((e - a @ b) ** 2) == pytest.approx(np.sum(s[r:] ** 2), rel=1e-10)


def test_whitened_correction_is_the_output_error_optimum() -> None:
    rng = np.random.default_rng(2)
    e = rng.standard_normal((24, 16))
    x = rng.standard_normal((200, 16)) @ np.diag(np.linspace(0.1, 3.0, 16))
    gram = x.T @ x
    damp = 0.01
    h = gram + damp * np.mean(np.diag(gram)) * np.eye(16)
    # Independent optimum: the Eckart-Young tail of E H^(1/2), H^(1/2) from eigh.
    vals, vecs = np.linalg.eigh(h)
    sing = np.linalg.svd(e @ (vecs * np.sqrt(vals)) @ vecs.T, compute_uv=False)
    r = 4
    a, b = whitened_correction(e, gram, r, damping=damp)
    best = output_error(e, a, b, h)
    assert best == pytest.approx(np.sum(sing[r:] ** 2), rel=1e-9)
    a0, b0 = svd_correction(e, r)
    assert best < output_error(e, a0, b0, h)  # data-aware beats the data-free start
    for _ in range(20):  # no random perturbation of the factors improves it
        da, db = 1e-3 * rng.standard_normal(a.shape), 1e-3 * rng.standard_normal(b.shape)
        assert output_error(e, a + da, b + db, h) >= best
    # With isotropic inputs the whitened fit is the plain truncated SVD.
    a1, b1 = whitened_correction(e, 5.0 * np.eye(16), r)
    np.testing.assert_allclose(a1 @ b1, a0 @ b0, atol=1e-10)
    with pytest.raises(ConfigError):
        whitened_correction(e, gram, 17)


def test_calibration_grams_equal_explicit_inputs() -> None:
    cfg = LlamaConfig(num_layers=1, dim=8, ffn_dim=12, num_heads=2, num_kv_heads=1,
                      vocab_size=20)
    rng = np.random.default_rng(3)
    shapes = {"attn_q": (8, 8), "attn_k": (4, 8), "attn_v": (4, 8), "attn_output": (8, 8),
              "ffn_gate": (12, 8), "ffn_up": (12, 8), "ffn_down": (8, 12)}
    w = {f"blk.0.{n}.weight": rng.standard_normal(shapes[n]).astype(np.float32)
         for n in LINEAR_NAMES}
    w["blk.0.attn_norm.weight"] = rng.uniform(0.5, 1.5, 8).astype(np.float32)
    w["blk.0.ffn_norm.weight"] = np.ones(8, np.float32)
    w["token_embd.weight"] = rng.standard_normal((20, 8)).astype(np.float32)
    w["output_norm.weight"] = np.ones(8, np.float32)
    model = Llama(config=cfg, weights=w)
    ids = np.array([1, 5, 7, 3, 2, 9])
    grams = calibration_grams(model, ids, window=3)
    ref = np.zeros((8, 8))
    for s in (0, 3):  # two windows, each from the embedding through the first norm
        h = rms_norm(w["token_embd.weight"][ids[s : s + 3]], w["blk.0.attn_norm.weight"],
                     cfg.norm_eps).astype(np.float64)
        ref += h.T @ h
    for n in ("attn_q", "attn_k", "attn_v"):
        np.testing.assert_allclose(grams[f"blk.0.{n}.weight"], ref, rtol=1e-6)
    assert grams["blk.0.ffn_down.weight"].shape == (12, 12)


def _tiny_llama(layers: int, seed: int) -> Llama:
    cfg = LlamaConfig(num_layers=layers, dim=8, ffn_dim=12, num_heads=2, num_kv_heads=1,
                      vocab_size=20)
    rng = np.random.default_rng(seed)
    shapes = {"attn_q": (8, 8), "attn_k": (4, 8), "attn_v": (4, 8), "attn_output": (8, 8),
              "ffn_gate": (12, 8), "ffn_up": (12, 8), "ffn_down": (8, 12)}
    w: dict[str, np.ndarray] = {
        "token_embd.weight": rng.standard_normal((20, 8)).astype(np.float32),
        "output_norm.weight": np.ones(8, np.float32)}
    for i in range(layers):
        for n in LINEAR_NAMES:
            w[f"blk.{i}.{n}.weight"] = (0.5 * rng.standard_normal(shapes[n])).astype(
                np.float32)
        w[f"blk.{i}.attn_norm.weight"] = np.ones(8, np.float32)
        w[f"blk.{i}.ffn_norm.weight"] = np.ones(8, np.float32)
    return Llama(config=cfg, weights=w)


def test_sequential_corrections_start_layer_wise_and_fit_propagated_inputs() -> None:
    model = _tiny_llama(2, 4)
    ids = np.random.default_rng(5).integers(0, 20, 48)
    names = model.linear_weight_names()
    q = {n: quantize_groupwise(model.weights[n], bits=2, group=4) for n in names}
    seq = sequential_corrections(model, ids, window=16, quantized=q, rank=1)
    grams = calibration_grams(model, ids, window=16)
    for n in names[:3]:  # block 0 sees the FP inputs: the layer-wise fit (in FP16)
        e = model.weights[n].astype(np.float64) - q[n]
        a, b = whitened_correction(e, grams[n], 1)
        ab = a.astype(np.float16).astype(np.float64) @ b.astype(np.float16).astype(np.float64)
        # Equal up to the FP16 rounding of the (differently balanced) stored factors.
        np.testing.assert_allclose(seq[n], (q[n] + ab).astype(np.float32),
                                   atol=2e-3 * float(np.abs(ab).max()) + 1e-6)
    # Block 1's q: on the inputs of the corrected block 0 the sequential fit reproduces the
    # FP layer's outputs better than the layer-wise fit does.
    got: dict[str, list[np.ndarray]] = {"fp": [], "q": []}
    layer_wise = {n: q[n] + np.dot(*whitened_correction(
        model.weights[n].astype(np.float64) - q[n], grams[n], 1)) for n in names}
    name = "blk.1.attn_q.weight"
    for key, wts in (("fp", None), ("q", {n: seq[n] for n in names[:7]})):
        for s in range(0, 48, 16):
            model.forward(ids[s : s + 16], weights=wts, on_linear=lambda nm, x, k=key: (
                got[k].append(np.asarray(x, np.float64)) if nm == name else None))
    x_fp, x_q = np.vstack(got["fp"]), np.vstack(got["q"])
    y = x_fp @ model.weights[name].T.astype(np.float64)
    err_seq = np.sum((y - x_q @ seq[name].T.astype(np.float64)) ** 2)
    err_lw = np.sum((y - x_q @ layer_wise[name].T) ** 2)
    assert err_seq < err_lw


def test_memory_model_closed_forms() -> None:
    lin, other = param_count(LLAMA_7B)
    # 32 (4 d^2 + 3 d f) and 2 V d + 65 d, by hand; total is LLaMA-7B's 6.74B parameters.
    assert lin == 32 * (4 * 4096**2 + 3 * 4096 * 11008) == 6_476_005_376
    assert lin + other == 6_738_415_616
    # alpaca-lora's printed "trainable params: 4194304" for r=8 on q_proj, v_proj.
    assert lora_param_count(LLAMA_7B, 8, ("q", "v")) == 4_194_304
    assert weight_bytes(LLAMA_7B, "fp16") == 2 * 6_738_415_616
    assert weight_bytes(LLAMA_7B, "int", bits=4, group=128) == pytest.approx(
        lin * (4 + 20 / 128) / 8 + 2 * other)
    assert weight_bytes(LLAMA_7B, "nf4") == pytest.approx(lin * 4.127 / 8 + 2 * other,
                                                           rel=1e-5)
    tiny = DecoderDims(layers=2, dim=4, ffn_dim=6, heads=2, vocab=10)
    # seq 3, batch 2: no checkpointing 2 B * 6 tokens * 2 layers * (28 + 18 + 6) + logits.
    assert activation_bytes(tiny, seq=3, batch=2, checkpointing=False) == \
        2 * 6 * 2 * 52 + 4 * 6 * 10
    assert activation_bytes(tiny, seq=3, batch=2, checkpointing=True) == \
        2 * 6 * (2 * 4 + 52) + 4 * 6 * 10
    full = finetune_memory(LLAMA_7B, FineTuneSetup(method="full", base_format="fp32"))
    assert full.weights_b + full.gradients_b + full.optimizer_b == 16 * 6_738_415_616
    lora = finetune_memory(LLAMA_7B, FineTuneSetup(method="lora"))
    assert lora.adapters_b + lora.gradients_b + lora.optimizer_b == 16 * 4_194_304
    emef2 = finetune_memory(LLAMA_7B, FineTuneSetup(method="emef", bits=2))
    assert emef2.workspace_b == 2 * 4096 * 11008 and emef2.total_b < lora.total_b / 4
    with pytest.raises(ConfigError):
        FineTuneSetup(method="sgd")
    with pytest.raises(ConfigError):
        lora_param_count(LLAMA_7B, 8, ("qkv",))


def test_budget_rank_keeps_the_paper_overhead() -> None:
    shapes = [(576, 576), (192, 576), (1536, 576)]
    r = budget_rank(shapes, bits=2, group=64)
    size = sum(o * i for o, i in shapes) * (2 + 18 / 64)
    lr = lambda k: sum(16 * k * (o + i) for o, i in shapes)  # noqa: E731
    assert lr(r) <= 0.05 * size < lr(r + 1)


def test_quick_run_rows(tmp_path: Path) -> None:
    res = run(out_dir=tmp_path, quick=True)
    rows = res.tables["lrec"]
    variants = {(r["bits"], r["variant"]) for r in rows}
    assert variants == {(32, "FP (dequantized Q4_1)"), (2, "quantized"),
                        (2, "LREC (whitened)"), (4, "quantized"), (4, "LREC (whitened)")}
    q2 = next(r for r in rows if r["bits"] == 2 and r["variant"] == "quantized")
    assert q2["effective_bits"] == pytest.approx(2 + 18 / 64)
    for bits in (2, 4):  # the fit lowers the calibration output error it minimizes
        b = next(r for r in rows if r["bits"] == bits and r["variant"] == "quantized")
        a = next(r for r in rows if r["bits"] == bits and r["variant"] != "quantized")
        assert a["calib_output_error_rel"] < b["calib_output_error_rel"]
        assert 1.0 < a["size_over_quantized"] <= 1.05
    assert all(math.isfinite(r["perplexity"]) for r in rows)
    assert {s["model"] for s in res.tables["samples"]} == {"FP", "INT2", "INT2 + LREC (r=2)"}
    for c in res.comparisons:
        assert c.status == c.expected, c.metric
    assert isinstance(res.comparisons[0].status, Status)
    assert (tmp_path / "comparisons.csv").is_file()
