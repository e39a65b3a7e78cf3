"""Transformer models by configuration and their operator graphs.

One place for the decoder/encoder shapes that the serving model, the
distributed-training model and the SoC simulator share. Shapes come from each
model's paper or released configuration (cited per preset).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TypedDict, Unpack

from pydantic import BaseModel, ConfigDict, model_validator

from ...errors import ConfigError
from ...fields import PositiveInt, PositiveIntOrNone
from .ir import Operator, TensorSpec, WorkloadGraph, dtype_bytes, matmul

__all__ = ["TransformerConfig", "TransformerChanges", "TRANSFORMER_PRESETS", "get_transformer", "transformer_graph",
           "dense_group_operator", "attention_group_operator", "GroupOperators"]


class TransformerChanges(TypedDict, total=False):
    """Fields :meth:`TransformerConfig.scaled` may change (any subset), with their types."""

    name: str
    num_layers: int
    hidden: int
    num_heads: int
    ffn_hidden: int
    vocab: int
    num_kv_heads: int | None
    gated_mlp: bool
    tied_embeddings: bool
    decoder: bool
    max_seq_len: int
    source: str




class TransformerConfig(BaseModel):
    """Shape of a transformer (frozen, keyword-only; a ConfigError names a bad field).

    ``num_kv_heads`` below ``num_heads`` gives grouped-query attention (``None``:
    as many as ``num_heads``, resolved on construction); ``gated_mlp`` gives a
    SwiGLU MLP (three matrices) instead of two. ``tied_embeddings`` shares the
    input embedding with the output head.
    """

    # ConfigError (not a ValueError) passes through pydantic unchanged, with its field.
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    num_layers: PositiveInt
    hidden: PositiveInt
    num_heads: PositiveInt
    ffn_hidden: PositiveInt
    vocab: PositiveInt
    num_kv_heads: PositiveIntOrNone = None
    gated_mlp: bool = False
    tied_embeddings: bool = False
    decoder: bool = True
    max_seq_len: PositiveInt = 2048
    source: str = ""

    @model_validator(mode="before")
    @classmethod
    def _resolve_kv_heads(cls, data: object) -> object:
        if isinstance(data, dict) and data.get("num_kv_heads") is None \
                and "num_heads" in data:
            data = {**data, "num_kv_heads": data["num_heads"]}
        return data

    @model_validator(mode="after")
    def _check(self) -> TransformerConfig:
        if self.hidden % self.num_heads:
            raise ConfigError(f"hidden {self.hidden} is not divisible by num_heads "
                              f"{self.num_heads}", field="num_heads")
        if self.num_heads % self.kv_heads:
            raise ConfigError(f"num_heads {self.num_heads} is not divisible by num_kv_heads "
                              f"{self.num_kv_heads}", field="num_kv_heads")
        return self

    @property
    def head_dim(self) -> int:
        return self.hidden // self.num_heads

    @property
    def kv_heads(self) -> int:
        """Number of K/V heads: ``num_kv_heads``, which construction resolves from None."""
        if self.num_kv_heads is None:
            raise ConfigError("num_kv_heads was not resolved on construction",
                              field="num_kv_heads")
        return self.num_kv_heads

    def tp_problem(self, tp: int) -> str | None:
        """Why Megatron tensor parallelism over ``tp`` GPUs cannot split this model, or None.

        The attention heads are split over the TP group, so ``tp`` must divide
        ``num_heads``; the K/V heads are split too, or replicated once ``tp``
        exceeds them, so ``tp`` and ``num_kv_heads`` must divide one another
        (Shoeybi et al. 2019, Megatron-LM, section 3: heads are partitioned
        across GPUs). The one rule the serving and training models share.
        """
        if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
            return f"tensor parallelism must be a positive integer, not {tp!r}"
        if self.num_heads % tp:
            return f"tp {tp} does not divide the {self.num_heads} attention heads of '{self.name}'"
        kv = self.kv_heads
        if kv % tp and tp % kv:
            return (f"tp {tp} and the {kv} KV heads of '{self.name}' do not divide one "
                    "another")
        return None

    def tp_degrees(self) -> tuple[int, ...]:
        """Every tensor-parallel degree :meth:`tp_problem` accepts, ascending."""
        return tuple(t for t in range(1, self.num_heads + 1) if self.tp_problem(t) is None)

    def check_tp(self, tp: int, *, field: str = "tp") -> None:
        """Raise :class:`~archsim.errors.ConfigError` naming ``field``, the head counts and
        the allowed degrees if ``tp`` cannot split this model (see :meth:`tp_problem`)."""
        problem = self.tp_problem(tp)
        if problem is not None:
            raise ConfigError(f"{problem} (num_heads {self.num_heads}, num_kv_heads "
                              f"{self.kv_heads})", field=field,
                              allowed=", ".join(map(str, self.tp_degrees())))

    @property
    def kv_hidden(self) -> int:
        """Width of the K (or V) projection: ``num_kv_heads * head_dim``."""
        return self.kv_heads * self.head_dim

    @property
    def params_per_layer(self) -> int:
        """Weights of one block (attention + MLP; norms and biases ignored)."""
        attn = 2 * self.hidden * self.hidden + 2 * self.hidden * self.kv_hidden
        mlp = (3 if self.gated_mlp else 2) * self.hidden * self.ffn_hidden
        return attn + mlp

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def num_params(self) -> int:
        return self.num_layers * self.params_per_layer + self.embedding_params

    def kv_cache_bytes_per_token(self, dtype: str = "fp16") -> float:
        """KV-cache bytes per token: ``2 * layers * kv_hidden * bytes`` (K and V)."""
        return 2 * self.num_layers * self.kv_hidden * dtype_bytes(dtype)

    def weight_bytes(self, dtype: str = "fp16") -> float:
        return self.num_params * dtype_bytes(dtype)

    def forward_flops(self, *, batch: int, new_tokens: int, context_len: int) -> float:
        """Matmul and attention FLOPs of one forward pass (norms and activations excluded).

        ``2 * layers * params_per_layer * tokens`` for the projections and MLP,
        ``4 * layers * tokens * context_len * hidden`` for scores and context, and
        ``2 * vocab * hidden`` per position whose logits are computed (the last
        one per sequence for a decoder, every one for an encoder).
        """
        tokens = batch * new_tokens
        head_rows = batch if self.decoder else tokens
        return (2.0 * self.num_layers * self.params_per_layer * tokens
                + 4.0 * self.num_layers * tokens * context_len * self.hidden
                + 2.0 * self.vocab * self.hidden * head_rows)

    def scaled(self, **changes: Unpack[TransformerChanges]) -> TransformerConfig:
        """A copy with ``changes`` applied (validated again, unlike ``model_copy``)."""
        return type(self)(**{**self.model_dump(), **changes})


def _p(name, layers, hidden, heads, ffn, vocab, *, source, **kw) -> TransformerConfig:
    return TransformerConfig(name=name, num_layers=layers, hidden=hidden, num_heads=heads,
                             ffn_hidden=ffn, vocab=vocab, source=source, **kw)


TRANSFORMER_PRESETS: dict[str, TransformerConfig] = {c.name: c for c in [
    _p("gpt-j-6b", 28, 4096, 16, 16384, 50400, source="EleutherAI GPT-J-6B config"),
    _p("gpt-neox-20b", 44, 6144, 64, 24576, 50432, source="Black et al. 2022, GPT-NeoX-20B"),
    _p("opt-13b", 40, 5120, 40, 20480, 50272, source="Zhang et al. 2022, OPT Table 1"),
    _p("opt-30b", 48, 7168, 56, 28672, 50272, source="Zhang et al. 2022, OPT Table 1"),
    _p("opt-66b", 64, 9216, 72, 36864, 50272, source="Zhang et al. 2022, OPT Table 1"),
    _p("llama-7b", 32, 4096, 32, 11008, 32000, gated_mlp=True,
       source="Touvron et al. 2023, LLaMA Table 2 / released config"),
    _p("llama-13b", 40, 5120, 40, 13824, 32000, gated_mlp=True,
       source="Touvron et al. 2023, LLaMA Table 2 / released config"),
    _p("llama-33b", 60, 6656, 52, 17920, 32000, gated_mlp=True,
       source="Touvron et al. 2023, LLaMA Table 2 / released config"),
    _p("llama-65b", 80, 8192, 64, 22016, 32000, gated_mlp=True,
       source="Touvron et al. 2023, LLaMA Table 2 / released config"),
    _p("llama-2-7b", 32, 4096, 32, 11008, 32000, gated_mlp=True, max_seq_len=4096,
       source="Touvron et al. 2023, Llama 2, Table 1 (4k context) / released 7B config"),
    _p("llama-70b", 80, 8192, 64, 28672, 32000, gated_mlp=True, num_kv_heads=8, max_seq_len=4096,
       source="Touvron et al. 2023, Llama 2 70B released config (GQA, 8 KV heads)"),
    _p("gpt3-175b", 96, 12288, 96, 49152, 50257, source="Brown et al. 2020, GPT-3 Table 2.1"),
    _p("bert-base", 12, 768, 12, 3072, 30522, decoder=False, tied_embeddings=True,
       max_seq_len=512, source="Devlin et al. 2019, BERT-base"),
    _p("minilm-l6", 6, 384, 12, 1536, 30522, decoder=False, tied_embeddings=True,
       max_seq_len=512, source="sentence-transformers all-MiniLM-L6-v2 config"),
]}


def get_transformer(name: str) -> TransformerConfig:
    """Look up a preset by name (see :data:`TRANSFORMER_PRESETS`)."""
    try:
        return TRANSFORMER_PRESETS[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown model '{name}'", field="model",
                          allowed=sorted(TRANSFORMER_PRESETS)) from None


def transformer_graph(
    cfg: TransformerConfig,
    *,
    batch: int,
    new_tokens: int,
    context_len: int | None = None,
    dtype: str = "fp16",
    include_lm_head: bool = True,
    layers: int | None = None,
) -> WorkloadGraph:
    """The operator graph of one forward pass.

    ``new_tokens`` tokens per sequence are processed (the prompt for a prefill,
    1 for a decode step); each attends to ``context_len`` positions (defaults
    to ``new_tokens``, i.e. a prefill without cache; the mean over the causal
    triangle is not modelled -- every new token sees the whole context, which
    is exact for decode steps). K and V of the context are read from a
    ``kv_cache`` tensor for decode steps.
    """
    if batch <= 0 or new_tokens <= 0:
        raise ConfigError(f"batch and new_tokens must be positive, not {batch}, {new_tokens}",
                          field="batch")
    ctx = new_tokens if context_len is None else context_len
    if ctx < new_tokens:
        raise ConfigError(f"context_len {ctx} is shorter than new_tokens {new_tokens}",
                          field="context_len")
    n_layers = cfg.num_layers if layers is None else layers
    h, hk, f, hd = cfg.hidden, cfg.kv_hidden, cfg.ffn_hidden, cfg.head_dim
    tok = batch * new_tokens
    g = WorkloadGraph(f"{cfg.name}-b{batch}-t{new_tokens}-c{ctx}",
                      metadata={"model": cfg.name, "batch": batch, "new_tokens": new_tokens,
                                "context_len": ctx, "dtype": dtype})

    def act(name: str, *shape: int) -> TensorSpec:
        return TensorSpec(name, shape, dtype)

    def w(name: str, *shape: int) -> TensorSpec:
        return TensorSpec(name, shape, dtype, role="weight")

    x = TensorSpec("tokens", (batch, new_tokens), "int32", role="input")
    emb = w("embedding", cfg.vocab, h)
    hidden = act("x0", tok, h)
    g.add(Operator("embed", "embedding", (x, emb), (hidden,), 0.0, {"rows": tok}))
    for i in range(n_layers):
        p = f"l{i}."
        ln1 = act(p + "ln1", tok, h)
        g.add(Operator(p + "norm1", "norm", (hidden,), (ln1,), 5.0 * tok * h))
        qkv_n = h + 2 * hk
        g.add(matmul(p + "qkv", ln1, w(p + "w_qkv", h, qkv_n), p + "qkv", m=tok, n=qkv_n, k=h))
        qkv = g[p + "qkv"].outputs[0]
        kv = TensorSpec(p + "kv_cache", (2, batch, ctx, hk), dtype, role="kv_cache")
        ctx_out = act(p + "attn", tok, h)
        attn_flops = 4.0 * batch * new_tokens * ctx * h  # QK^T and PV
        g.add(Operator(p + "attention", "attention", (qkv, kv), (ctx_out,), attn_flops,
                       {"batch": batch, "heads": cfg.num_heads, "kv_heads": cfg.num_kv_heads,
                        "head_dim": hd, "q_len": new_tokens, "kv_len": ctx,
                        "softmax_flops": 5.0 * batch * cfg.num_heads * new_tokens * ctx}))
        g.add(matmul(p + "proj", ctx_out, w(p + "w_o", h, h), p + "proj", m=tok, n=h, k=h))
        res1 = act(p + "res1", tok, h)
        g.add(Operator(p + "add1", "elementwise", (hidden, g[p + "proj"].outputs[0]), (res1,),
                       float(tok * h)))
        ln2 = act(p + "ln2", tok, h)
        g.add(Operator(p + "norm2", "norm", (res1,), (ln2,), 5.0 * tok * h))
        up_n = 2 * f if cfg.gated_mlp else f
        g.add(matmul(p + "mlp_up", ln2, w(p + "w_up", h, up_n), p + "up", m=tok, n=up_n, k=h))
        a = act(p + "mlp_act", tok, f)
        g.add(Operator(p + "act", "activation", (g[p + "mlp_up"].outputs[0],), (a,),
                       (4.0 if cfg.gated_mlp else 8.0) * tok * f))
        g.add(matmul(p + "mlp_down", a, w(p + "w_down", f, h), p + "down", m=tok, n=h, k=f))
        out = act(p + "out", tok, h)
        g.add(Operator(p + "add2", "elementwise", (res1, g[p + "mlp_down"].outputs[0]), (out,),
                       float(tok * h)))
        hidden = out
    if include_lm_head:
        last = batch if cfg.decoder else tok  # decoders only need the last position's logits
        head_w = emb if cfg.tied_embeddings else w("lm_head", h, cfg.vocab)
        g.add(matmul("lm_head", hidden, head_w, "logits", m=last, n=cfg.vocab, k=h))
    return g


class GroupOperators:
    """Builds the dense and attention group operators of one model at one data type.

    The serving engine builds a group operator for every iteration shape it prices, so
    what does not depend on the shape -- the per-token byte and FLOP coefficients, the
    weight tensor, the attributes' constant part -- is computed once here, and the
    attention group's QKV and output tensors are kept per token count (decode runs
    repeat it). :func:`dense_group_operator` and :func:`attention_group_operator`
    describe the operators.

    Raises
    ------
    ConfigError
        ``dtype`` is not a known data type.
    """

    __slots__ = ("cfg", "dtype", "_dense_reads", "_dense_writes", "_dense_head_reads",
                 "_dense_macs", "_dense_vector", "_weights", "_dense_attrs", "_attn_flops",
                 "_attn_macs", "_attn_attrs", "_kv_shape", "_io", "_attn_qkv_per_token",
                 "_attn_kv_per_context", "_attn_out_per_token", "_bytes")

    #: Token counts whose attention tensors are kept before the store starts afresh.
    _IO_LIMIT = 4096

    def __init__(self, cfg: TransformerConfig, dtype: str = "fp16") -> None:
        dtype_bytes(dtype)
        self.cfg, self.dtype = cfg, dtype
        h, hk, f, v, n_l = cfg.hidden, cfg.kv_hidden, cfg.ffn_hidden, cfg.vocab, cfg.num_layers
        qkv_n = h + 2 * hk
        up_n = 2 * f if cfg.gated_mlp else f
        # per layer, reads: norm1 h, qkv h, proj h, add1 2h, norm2 h, up h, act up_n, down f,
        # add2 2h; writes: norm1 h, qkv qkv_n, proj h, add1 h, norm2 h, up up_n, act f, down
        # h, add2 h. The embedding writes and the head reads t x h; the head writes s x vocab.
        self._dense_reads = n_l * (9 * h + up_n + f) + h
        self._dense_writes = n_l * (6 * h + qkv_n + up_n + f) + h
        self._dense_head_reads = v * h  # per sequence: the LM head's MACs
        self._dense_macs = n_l * (h * qkv_n + h * h + h * up_n + f * h)
        self._dense_vector = n_l * (12.0 * h + (4.0 if cfg.gated_mlp else 8.0) * f)
        head_w = v * h  # the LM head's matrix (or the tied embedding read again)
        self._weights = TensorSpec("weights", (n_l * cfg.params_per_layer + v * h + head_w,),
                                   dtype, role="weight")
        self._dense_attrs = {"fused": ("embedding", "norm", "matmul", "elementwise",
                                       "activation"), "layers": n_l}
        self._attn_flops = 4.0 * n_l * h
        self._attn_macs = 2 * n_l * h
        self._attn_attrs = {"layers": n_l, "heads": cfg.num_heads, "kv_heads": cfg.num_kv_heads,
                            "head_dim": cfg.head_dim}
        self._kv_shape = (n_l, 2)
        self._io: dict[int, tuple[TensorSpec, TensorSpec]] = {}
        # elements of the attention group's tensors per token / context token, as integers
        # (Python ints are exact, so their product equals math.prod of the tensors' shapes)
        self._attn_qkv_per_token = n_l * (h + 2 * hk)
        self._attn_kv_per_context = n_l * 2 * hk
        self._attn_out_per_token = n_l * h
        self._bytes = dtype_bytes(dtype)

    def dense(self, *, tokens: int, sequences: int) -> Operator:
        """The dense group of ``tokens`` new tokens of ``sequences`` sequences."""
        if tokens < 0 or sequences < 0 or sequences > tokens:
            raise ConfigError(f"need 0 <= sequences <= tokens, not {sequences} and {tokens}",
                              field="tokens")
        t, s, dtype = int(tokens), int(sequences), self.dtype
        macs = self._dense_macs * t + s * self._dense_head_reads
        inputs = (TensorSpec("tokens", (t,), "int32", role="input"), self._weights,
                  TensorSpec("activations_in", (self._dense_reads * t,), dtype))
        outputs = (TensorSpec("activations_out", (self._dense_writes * t,), dtype),
                   TensorSpec("logits", (s, self.cfg.vocab), dtype))
        return Operator("dense", "fused", inputs, outputs, 2.0 * macs + self._dense_vector * t,
                        {**self._dense_attrs, "tokens": t, "sequences": s, "macs": macs})

    def attention(self, *, tokens: int, attn_pairs: int, context_tokens: int) -> Operator:
        """Every layer's attention over ``attn_pairs`` pairs and ``context_tokens`` KV reads."""
        if tokens < 0 or attn_pairs < 0 or context_tokens < 0:
            raise ConfigError("tokens, attention pairs and context tokens must be >= 0",
                              field="tokens")
        t, ctx = int(tokens), int(context_tokens)
        io = self._io.get(t)
        if io is None:
            if len(self._io) >= self._IO_LIMIT:
                self._io.clear()
            cfg = self.cfg
            n_l, h = cfg.num_layers, cfg.hidden
            io = self._io[t] = (TensorSpec("qkv", (n_l, t, h + 2 * cfg.kv_hidden), self.dtype),
                                TensorSpec("attn", (n_l, t, h), self.dtype))
        qkv, out = io
        kv = _tensor("kv_cache", (*self._kv_shape, ctx, self.cfg.kv_hidden), self.dtype,
                     "kv_cache")  # ctx >= 0 was checked above; dtype in __init__
        # attn_pairs >= 0 was checked above, so the FLOPs are too
        return _operator("attention", "attention", (qkv, kv), (out,),
                         self._attn_flops * float(attn_pairs),
                         {**self._attn_attrs, "tokens": t, "context_tokens": ctx,
                          "attn_pairs": attn_pairs, "macs": self._attn_macs * int(attn_pairs)})

    def attention_terms(self, *, tokens: int, attn_pairs: int,
                        context_tokens: int) -> tuple[float, float, float, int]:
        """:meth:`attention`'s roofline terms without building the operator.

        Returns ``(flops, input_bytes, output_bytes, macs)``: the operator's ``flops``,
        ``input_bytes``, ``output_bytes`` and ``attrs["macs"]``, computed by the same
        operations in the same order (each tensor's bytes are its element count, an exact
        integer, times the bytes per element; the inputs are the QKV tensor then the KV
        cache), so the floats are identical, not merely close. The serving cost model
        prices a new attention shape at every decode step, where building the operator
        dominates.

        Raises
        ------
        ConfigError
            A negative count (as :meth:`attention`).
        """
        if tokens < 0 or attn_pairs < 0 or context_tokens < 0:
            raise ConfigError("tokens, attention pairs and context tokens must be >= 0",
                              field="tokens")
        qkv_n, kv_n, out_n, b, flops, macs = self.attention_coefficients
        t, ctx, pairs = int(tokens), int(context_tokens), int(attn_pairs)
        return (flops * float(pairs), qkv_n * t * b + kv_n * ctx * b, out_n * t * b,
                macs * pairs)

    @property
    def attention_coefficients(self) -> tuple[int, int, int, float, float, int]:
        """What :meth:`attention_terms` multiplies the counts by.

        ``(qkv_elements_per_token, kv_elements_per_context_token,
        out_elements_per_token, bytes_per_element, flops_per_pair, macs_per_pair)``;
        the element counts are exact integers (a tensor's ``nbytes`` is its integer
        element count times the bytes per element).
        """
        return (self._attn_qkv_per_token, self._attn_kv_per_context, self._attn_out_per_token,
                self._bytes, self._attn_flops, self._attn_macs)


def _tensor(name: str, shape: tuple[int, ...], dtype: str, role: str) -> TensorSpec:
    # The TensorSpec that TensorSpec(name, shape, dtype, role) builds, for arguments the
    # caller has already checked (non-negative Python ints, a known dtype and role): the
    # serving engine builds one per priced iteration shape, where the checks dominate.
    spec = object.__new__(TensorSpec)
    spec.__dict__.update(name=name, shape=shape, dtype=dtype, role=role)
    return spec


def _operator(name: str, kind: str, inputs: tuple[TensorSpec, ...],
              outputs: tuple[TensorSpec, ...], flops: float,
              attrs: dict[str, object]) -> Operator:
    # Likewise the Operator(...) of a known kind, tuples of tensors and flops >= 0.
    op = object.__new__(Operator)
    op.__dict__.update(name=name, kind=kind, inputs=inputs, outputs=outputs, flops=flops,
                       attrs=attrs)
    return op


@lru_cache(maxsize=64)
def _groups(cfg: TransformerConfig, dtype: str) -> GroupOperators:
    return GroupOperators(cfg, dtype)


def dense_group_operator(cfg: TransformerConfig, *, tokens: int, sequences: int,
                         dtype: str = "fp16") -> Operator:
    """Every non-attention operator of one forward pass over a packed batch, as one group.

    A continuous-batching iteration processes ``tokens`` new tokens of
    ``sequences`` sequences (any mix of prefills and decode steps). The group is
    the embedding, every layer's norms, QKV/output projections, MLP and residual
    adds, and the LM head over the last position of each sequence: its FLOPs and
    the bytes of its tensors (each operator's reads and writes counted once, as
    :func:`transformer_graph`'s operators count them) are the sums over those
    operators; a uniform batch gives exactly the sums over ``transformer_graph``.
    Kernels of a group are taken to overlap (one roofline over the group).
    """
    return _groups(cfg, dtype).dense(tokens=tokens, sequences=sequences)


def attention_group_operator(cfg: TransformerConfig, *, tokens: int, attn_pairs: int,
                             context_tokens: int, dtype: str = "fp16") -> Operator:
    """Every layer's attention over a packed batch, as one group.

    ``attn_pairs`` is ``sum_i n_i * c_i`` over the batch's sequences (new tokens
    times attended positions) and ``context_tokens`` is ``sum_i c_i`` (KV-cache
    positions read). FLOPs are ``4 * hidden`` per pair per layer (QK^T and PV) and
    the tensors are the QKV input, the packed KV cache and the output, as
    :func:`transformer_graph`'s attention operators count them.
    """
    return _groups(cfg, dtype).attention(tokens=tokens, attn_pairs=attn_pairs,
                                         context_tokens=context_tokens)
