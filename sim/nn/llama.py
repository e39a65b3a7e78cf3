"""A LLaMA decoder forward pass in numpy: RMSNorm, RoPE, grouped-query attention, SwiGLU.

The layout follows llama.cpp's GGUF convention (the one :mod:`archsim.sim.nn.gguf_model`
loads): linear weights are ``(out, in)`` matrices applied as ``x @ W.T``; the Q and K
projections were permuted by the GGUF converter so that RoPE rotates *adjacent* pairs
``(x[2i], x[2i+1])`` (llama.cpp's "normal" RoPE mode), not the two halves of a head.
The output head is tied to the token embedding when the file has no ``output.weight``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...errors import ConfigError

__all__ = [
    "LlamaConfig",
    "Llama",
    "rms_norm",
    "rope",
    "causal_gqa_attention",
    "silu",
    "LINEAR_NAMES",
    "perplexity",
    "next_token_nll",
]

#: The seven linear weights of one block, in GGUF's names.
LINEAR_NAMES: tuple[str, ...] = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate",
                                 "ffn_up", "ffn_down")

#: ``attention_fn(q, k, v) -> o`` for one head, ``q`` ``(T, d)``, causal.
AttentionFn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True, kw_only=True)
class LlamaConfig:
    """Hyper-parameters of a LLaMA decoder (GGUF ``llama.*`` keys).

    Parameters
    ----------
    num_layers, dim, ffn_dim, num_heads, num_kv_heads, vocab_size : int
    rope_base : float
        ``llama.rope.freq_base``.
    norm_eps : float
        ``llama.attention.layer_norm_rms_epsilon``.
    """

    num_layers: int
    dim: int
    ffn_dim: int
    num_heads: int
    num_kv_heads: int
    vocab_size: int
    rope_base: float = 10000.0
    norm_eps: float = 1e-5

    def __post_init__(self) -> None:
        for name in ("num_layers", "dim", "ffn_dim", "num_heads", "num_kv_heads", "vocab_size"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ConfigError(f"{name} must be a positive integer, not {v!r}", field=name)
        if self.dim % self.num_heads:
            raise ConfigError(f"dim {self.dim} is not a multiple of num_heads "
                              f"{self.num_heads}", field="num_heads")
        if self.num_heads % self.num_kv_heads:
            raise ConfigError(f"num_heads {self.num_heads} is not a multiple of num_kv_heads "
                              f"{self.num_kv_heads}", field="num_kv_heads")

    @property
    def head_dim(self) -> int:
        return self.dim // self.num_heads


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    """``x / sqrt(mean(x^2) + eps) * w`` over the last axis."""
    ms = np.mean(np.square(x, dtype=np.float32), axis=-1, keepdims=True)
    return (x / np.sqrt(ms + np.float32(eps)) * w).astype(np.float32)


def rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Rotate adjacent pairs of ``x`` ``(..., T, d)`` by ``pos * base**(-2i/d)`` (llama.cpp).

    Pair ``i`` = ``(x[2i], x[2i+1])`` becomes ``(x0 cos - x1 sin, x0 sin + x1 cos)``.
    """
    d = x.shape[-1]
    if d % 2:
        raise ConfigError(f"RoPE needs an even head dimension, not {d}", field="head_dim")
    inv = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    ang = np.asarray(positions, np.float64)[:, None] * inv[None, :]
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x, dtype=np.float32)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out


def silu(x: np.ndarray) -> np.ndarray:
    """``x * sigmoid(x)``."""
    return (x / (1.0 + np.exp(-x))).astype(np.float32)


def causal_gqa_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, *,
                         attention_fn: AttentionFn | None = None) -> np.ndarray:
    """Causal softmax attention with grouped KV heads.

    Parameters
    ----------
    q : ndarray ``(H, T, d)``; k, v : ndarray ``(H_kv, T, d)``
        Query head ``h`` uses KV head ``h // (H / H_kv)``.
    attention_fn : callable, optional
        Replaces the per-head attention (it must apply the causal mask itself).

    Returns
    -------
    ndarray ``(H, T, d)``
    """
    h, t, d = q.shape
    group = h // k.shape[0]
    out = np.empty((h, t, v.shape[-1]), np.float32)
    mask = np.triu(np.ones((t, t), bool), 1)
    for i in range(h):
        kh, vh = k[i // group], v[i // group]
        if attention_fn is not None:
            out[i] = attention_fn(q[i], kh, vh)
            continue
        s = (q[i] @ kh.T) / np.float32(math.sqrt(d))
        s[mask] = -np.inf
        p = np.exp(s - s.max(-1, keepdims=True))
        out[i] = (p / p.sum(-1, keepdims=True)) @ vh
    return out


@dataclass(kw_only=True)
class Llama:
    """A LLaMA decoder with float32 weights.

    Parameters
    ----------
    config : LlamaConfig
    weights : mapping of str to ndarray
        GGUF names: ``token_embd.weight`` ``(V, dim)``, ``output_norm.weight``, optional
        ``output.weight`` (else tied to the embedding) and per block ``blk.{i}.attn_norm``,
        ``ffn_norm`` and the :data:`LINEAR_NAMES` (``(out, in)`` matrices), each with
        ``.weight``.
    """

    config: LlamaConfig
    weights: Mapping[str, np.ndarray]
    name: str = "llama"
    metadata: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        need = ["token_embd.weight", "output_norm.weight"]
        for i in range(self.config.num_layers):
            need += [f"blk.{i}.{n}.weight" for n in ("attn_norm", "ffn_norm", *LINEAR_NAMES)]
        missing = [n for n in need if n not in self.weights]
        if missing:
            raise ConfigError(f"weights lack {len(missing)} tensors, first {missing[0]!r}",
                              field="weights", allowed=need[:3])

    def linear_weight_names(self) -> list[str]:
        """Names of every block's linear weights (what a format study direct-casts)."""
        return [f"blk.{i}.{n}.weight" for i in range(self.config.num_layers)
                for n in LINEAR_NAMES]

    def truncated(self, num_layers: int) -> Llama:
        """The same model keeping only its first ``num_layers`` blocks (a quick mode)."""
        if not 1 <= num_layers <= self.config.num_layers:
            raise ConfigError(f"num_layers must be in 1..{self.config.num_layers}, not "
                              f"{num_layers!r}", field="num_layers")
        return replace(self, config=replace(self.config, num_layers=num_layers))

    def forward(self, ids: Sequence[int] | np.ndarray, *,
                weights: Mapping[str, np.ndarray] | None = None,
                attention_fn: AttentionFn | None = None,
                capture_qkv: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
                on_linear: Callable[[str, np.ndarray], None] | None = None,
                ) -> np.ndarray:
        """Logits ``(T, vocab)`` for token ids ``(T,)`` (one sequence, causal).

        Parameters
        ----------
        weights : mapping, optional
            Overrides for some weights (e.g. quantized linear weights).
        attention_fn : callable, optional
            Per-head attention replacing the float32 softmax (see
            :func:`causal_gqa_attention`).
        capture_qkv : list, optional
            Receives one ``(q, k, v)`` per layer (after RoPE; ``q`` ``(H, T, d)``, ``k``,
            ``v`` ``(H_kv, T, d)``).
        on_linear : callable, optional
            Called as ``on_linear(weight_name, x)`` with the ``(T, in)`` input of every block
            linear layer before it is applied (calibration statistics of a quantizer).
        """
        c = self.config
        ids = np.asarray(ids, np.int64)
        if ids.ndim != 1 or ids.size == 0:
            raise ConfigError(f"ids must be a non-empty 1-D sequence, got shape {ids.shape}",
                              field="ids")
        if ids.min() < 0 or ids.max() >= c.vocab_size:
            raise ConfigError(f"token ids must be in 0..{c.vocab_size - 1}", field="ids")
        w = dict(self.weights)
        if weights:
            w.update(weights)
        t, hd = ids.size, c.head_dim
        pos = np.arange(t)
        x = np.asarray(w["token_embd.weight"][ids], np.float32)

        def lin(name: str, a: np.ndarray) -> np.ndarray:
            if on_linear is not None:
                on_linear(name, a)
            return np.asarray(a @ w[name].T)

        for i in range(c.num_layers):
            p = f"blk.{i}."
            h = rms_norm(x, w[p + "attn_norm.weight"], c.norm_eps)
            q = lin(p + "attn_q.weight", h).reshape(t, c.num_heads, hd).transpose(1, 0, 2)
            k = lin(p + "attn_k.weight", h).reshape(t, c.num_kv_heads, hd).transpose(1, 0, 2)
            v = lin(p + "attn_v.weight", h).reshape(t, c.num_kv_heads, hd).transpose(1, 0, 2)
            q, k = rope(q, pos, c.rope_base), rope(k, pos, c.rope_base)
            if capture_qkv is not None:
                capture_qkv.append((q, k, np.asarray(v, np.float32)))
            o = causal_gqa_attention(q, k, v, attention_fn=attention_fn)
            x = x + lin(p + "attn_output.weight", o.transpose(1, 0, 2).reshape(t, c.dim))
            h = rms_norm(x, w[p + "ffn_norm.weight"], c.norm_eps)
            g = silu(lin(p + "ffn_gate.weight", h)) * lin(p + "ffn_up.weight", h)
            x = (x + lin(p + "ffn_down.weight", g)).astype(np.float32)
        x = rms_norm(x, w["output_norm.weight"], c.norm_eps)
        head = w.get("output.weight", w["token_embd.weight"])
        return np.asarray(x @ np.asarray(head, np.float32).T, np.float32)

    def greedy(self, ids: Sequence[int], n_new: int, *,
               weights: Mapping[str, np.ndarray] | None = None) -> list[int]:
        """``n_new`` greedy next tokens after ``ids`` (full re-forward per token; short only),
        with ``weights`` in place of the model's own as in :meth:`forward`."""
        out = list(ids)
        for _ in range(n_new):
            out.append(int(np.argmax(self.forward(out, weights=weights)[-1])))
        return out[len(ids):]


def next_token_nll(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Negative log-likelihood of ``targets`` ``(n,)`` under ``logits`` ``(n, vocab)``
    (row ``i`` predicts ``targets[i]``), by a stable log-sum-exp in float64."""
    logits = np.asarray(logits, np.float64)
    mx = logits.max(-1, keepdims=True)
    lse = mx[:, 0] + np.log(np.exp(logits - mx).sum(-1))
    return np.asarray(lse - logits[np.arange(logits.shape[0]), np.asarray(targets)])


def perplexity(model: Llama, ids: Sequence[int] | np.ndarray, *, window: int,
               weights: Mapping[str, np.ndarray] | None = None) -> float:
    """``exp(mean NLL)`` over non-overlapping windows of ``window`` tokens.

    Each window is an independent sequence; its first token is context only, so a window
    scores ``window - 1`` predictions. A trailing part shorter than 2 tokens is dropped.
    """
    ids = np.asarray(ids, np.int64)
    if not isinstance(window, int) or window < 2:
        raise ConfigError(f"window must be an integer >= 2, not {window!r}", field="window")
    nll, count = 0.0, 0
    for s in range(0, ids.size - 1, window):
        chunk = ids[s : s + window]
        if chunk.size < 2:
            break
        logits = model.forward(chunk, weights=weights)[:-1]
        nll += float(np.sum(next_token_nll(logits, chunk[1:])))
        count += chunk.size - 1
    if count == 0:
        raise ConfigError("need at least 2 tokens to score", field="ids")
    return math.exp(nll / count)
