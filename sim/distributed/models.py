"""Workloads: dense decoder LLMs and DLRM-style recommendation models, per layer.

LLM shapes come from :mod:`archsim.compilers.graph` (``TransformerConfig`` and its
presets); the per-layer operators are read from ``transformer_graph`` so every
FLOP counted here is an operator of the shared workload graph. DLRM models
(embedding tables + bottom/top MLPs + dot interaction, Naumov et al. 2019) are
defined here and also built as :class:`~archsim.compilers.graph.WorkloadGraph`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from ...compilers.graph import (
    Operator,
    TensorSpec,
    TransformerConfig,
    WorkloadGraph,
    dtype_bytes,
    get_transformer,
    matmul,
    transformer_graph,
)
from ...errors import ConfigError

__all__ = [
    "OpWork", "LLMWorkload", "DLRMConfig", "DLRM_PRESETS", "get_dlrm", "dlrm_graph",
    "DLRMWorkload", "get_workload",
]

# Operators whose work Megatron tensor parallelism splits over the TP group; the rest
# (norms, residual adds) are replicated unless sequence parallelism splits them.
_TP_SPLIT_KINDS = frozenset({"matmul", "attention", "activation", "softmax"})


@dataclass(frozen=True)
class OpWork:
    """One operator's forward work per sequence (LLM) or per sample (DLRM)."""

    name: str
    kind: str
    flops: float
    act_bytes: float
    weight_bytes: float
    out_bytes: float
    tp_split: bool


@dataclass(frozen=True)
class LLMWorkload:
    """Training (or inference) of a decoder LLM on sequences of ``seq_len`` tokens.

    Parameters
    ----------
    model
        A :class:`TransformerConfig` or a preset name (``llama-70b``...).
    seq_len
        Tokens per sequence.
    dtype
        Activation/weight data type of the matmuls (``bf16``).
    """

    model: TransformerConfig
    seq_len: int = 2048
    dtype: str = "bf16"

    def __post_init__(self) -> None:
        if isinstance(self.model, str):
            object.__setattr__(self, "model", get_transformer(self.model))
        if not isinstance(self.seq_len, int) or self.seq_len <= 0:
            raise ConfigError(f"must be a positive integer, not {self.seq_len!r}",
                              field="seq_len")
        dtype_bytes(self.dtype)

    @property
    def name(self) -> str:
        return self.model.name

    @cached_property
    def layer_graph(self) -> WorkloadGraph:
        """The shared graph of one block for one sequence (no embedding or head)."""
        return transformer_graph(self.model, batch=1, new_tokens=self.seq_len, dtype=self.dtype,
                                 include_lm_head=False, layers=1)

    @cached_property
    def layer_ops(self) -> tuple[OpWork, ...]:
        """Forward work of one block for one sequence, operator by operator."""
        return tuple(self._op_work(op) for op in self.layer_graph if op.kind != "embedding")

    @cached_property
    def decode_ops(self) -> tuple[OpWork, ...]:
        """Forward work of one block for one decode step of one sequence: one new token
        attending to ``seq_len`` cached positions (K and V read from the KV cache)."""
        g = transformer_graph(self.model, batch=1, new_tokens=1, context_len=self.seq_len,
                              dtype=self.dtype, include_lm_head=False, layers=1)
        return tuple(self._op_work(op) for op in g if op.kind != "embedding")

    @staticmethod
    def _op_work(op: Operator) -> OpWork:
        act_in = sum(t.nbytes for t in op.inputs if t.role in ("activation", "kv_cache"))
        return OpWork(op.name, op.kind, op.flops, act_in + op.output_bytes, op.weight_bytes,
                      op.output_bytes, op.kind in _TP_SPLIT_KINDS)

    def tokens_per_sequence(self, mode: str) -> int:
        """Tokens each sequence processes in one pass: 1 for a decode step, else ``seq_len``."""
        return 1 if mode == "decode" else self.seq_len

    def ops(self, mode: str) -> tuple[OpWork, ...]:
        return self.decode_ops if mode == "decode" else self.layer_ops

    def head(self, mode: str) -> OpWork:
        """The LM head: every position for training and prefill, one for a decode step."""
        if mode != "decode":
            return self.head_op
        m = self.model
        x = TensorSpec("h", (1, m.hidden), self.dtype)
        w = TensorSpec("lm_head", (m.hidden, m.vocab), self.dtype, role="weight")
        return self._op_work(matmul("lm_head", x, w, "logits", m=1, n=m.vocab, k=m.hidden))

    @cached_property
    def head_op(self) -> OpWork:
        """The LM head for training: logits of every position (the graph's decoder head keeps
        only the last position, which is right for generation but not for training)."""
        m = self.model
        x = TensorSpec("h", (self.seq_len, m.hidden), self.dtype)
        w = TensorSpec("lm_head", (m.hidden, m.vocab), self.dtype, role="weight")
        op: Operator = matmul("lm_head", x, w, "logits", m=self.seq_len, n=m.vocab, k=m.hidden)
        return OpWork(op.name, op.kind, op.flops, x.nbytes + op.output_bytes, op.weight_bytes,
                      op.output_bytes, True)

    @property
    def num_layers(self) -> int:
        return self.model.num_layers

    @property
    def params_per_layer(self) -> int:
        return self.model.params_per_layer

    @property
    def num_params(self) -> int:
        return self.model.num_params

    def forward_flops_per_sequence(self) -> float:
        """All forward FLOPs of one sequence: every block's operators plus the LM head."""
        return self.num_layers * sum(o.flops for o in self.layer_ops) + self.head_op.flops

    def decode_flops_per_sequence(self) -> float:
        """Forward FLOPs of one decode step of one sequence (blocks + head)."""
        return (self.num_layers * sum(o.flops for o in self.decode_ops)
                + self.head("decode").flops)

    def training_flops(self, sequences: int) -> float:
        """Forward + backward (backward = 2 x forward) FLOPs, without recomputation."""
        return 3.0 * sequences * self.forward_flops_per_sequence()

    def hidden_bytes(self, sequences: int, tokens: int | None = None) -> float:
        """Bytes of one ``[tokens, hidden]`` activation (what TP all-reduces and PP sends);
        ``tokens`` per sequence defaults to ``seq_len``."""
        t = self.seq_len if tokens is None else tokens
        return sequences * t * self.model.hidden * dtype_bytes(self.dtype)


@dataclass(frozen=True)
class DLRMConfig:
    """A DLRM: sparse features through embedding tables, dense through the bottom MLP,
    pairwise dot interaction, top MLP (Naumov et al. 2019, arXiv:1906.00091).

    ``bottom_mlp`` starts with the dense-feature count; ``top_mlp`` lists the layer
    widths after the interaction (its input width is derived). ``pooling_factor`` is
    the mean lookups per table per sample (1 = one-hot).
    """

    name: str
    table_rows: tuple[int, ...]
    embedding_dim: int
    bottom_mlp: tuple[int, ...]
    top_mlp: tuple[int, ...]
    pooling_factor: float = 1.0
    source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "table_rows", tuple(int(r) for r in self.table_rows))
        if not self.table_rows or min(self.table_rows) <= 0:
            raise ConfigError("needs at least one table, all with rows > 0", field="table_rows")
        if self.embedding_dim <= 0 or self.pooling_factor <= 0:
            raise ConfigError("embedding_dim and pooling_factor must be > 0",
                              field="embedding_dim")
        if len(self.bottom_mlp) < 2 or self.bottom_mlp[-1] != self.embedding_dim:
            raise ConfigError(f"bottom_mlp must end at embedding_dim {self.embedding_dim}",
                              field="bottom_mlp")
        if not self.top_mlp:
            raise ConfigError("top_mlp needs at least one layer", field="top_mlp")

    @property
    def num_tables(self) -> int:
        return len(self.table_rows)

    @property
    def interaction_width(self) -> int:
        """Top-MLP input: ``F(F-1)/2`` pairwise dots of ``F = tables + 1`` vectors plus the dense
        vector."""
        f = self.num_tables + 1
        return f * (f - 1) // 2 + self.embedding_dim

    @property
    def mlp_layers(self) -> list[tuple[int, int]]:
        bottom = list(zip(self.bottom_mlp[:-1], self.bottom_mlp[1:], strict=True))
        widths = (self.interaction_width, *self.top_mlp)
        return bottom + list(zip(widths[:-1], widths[1:], strict=True))

    @property
    def mlp_params(self) -> int:
        return sum(i * o + o for i, o in self.mlp_layers)

    @property
    def embedding_params(self) -> int:
        return sum(self.table_rows) * self.embedding_dim

    @property
    def num_params(self) -> int:
        return self.mlp_params + self.embedding_params


# Criteo Terabyte row counts (with MLPerf's 40M-row cap) from the MLPerf Training DLRM
# reference (v1.0: dim 128, bottom 13-512-256-128, top 1024-1024-512-256-1, one-hot).
_CRITEO_TB_ROWS = (40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956,
                   405282, 10, 2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000,
                   590152, 12973, 108, 36)

DLRM_PRESETS: dict[str, DLRMConfig] = {c.name: c for c in [
    DLRMConfig("dlrm-mlperf", _CRITEO_TB_ROWS, 128, (13, 512, 256, 128),
               (1024, 1024, 512, 256, 1), 1.0,
               source="MLPerf Training v1.0 DLRM reference on Criteo Terabyte"),
    # Not a published configuration: a synthetic production-scale multi-hot model (the
    # production models MAD-Max studies are not public). 256 tables x 10M rows, dim 128,
    # 32 lookups per table per sample.
    DLRMConfig("dlrm-prod-synthetic", (10_000_000,) * 256, 128, (1024, 512, 256, 128),
               (2048, 2048, 1024, 512, 1), 32.0,
               source="archsim synthetic production-scale DLRM (assumption, see docstring)"),
]}


def get_dlrm(name: str) -> DLRMConfig:
    """Look up a DLRM preset by name."""
    try:
        return DLRM_PRESETS[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown DLRM model '{name}'", field="model",
                          allowed=sorted(DLRM_PRESETS)) from None


def dlrm_graph(cfg: DLRMConfig, *, batch: int, dtype: str = "fp32") -> WorkloadGraph:
    """The forward operator graph of a DLRM on ``batch`` samples (one pooled lookup operator
    per table, the MLPs as matmuls with ReLU, the dot interaction as a batched matmul)."""
    if batch <= 0:
        raise ConfigError(f"must be a positive integer, not {batch!r}", field="batch")
    g = WorkloadGraph(f"{cfg.name}-b{batch}", metadata={"model": cfg.name, "batch": batch})
    d = cfg.embedding_dim
    lookups = batch * cfg.pooling_factor
    pooled = []
    for i, rows in enumerate(cfg.table_rows):
        idx = TensorSpec(f"idx{i}", (math.ceil(lookups),), "int64", role="input")
        table = TensorSpec(f"table{i}", (rows, d), dtype, role="weight")
        out = TensorSpec(f"emb{i}", (batch, d), dtype)
        # Sum pooling: one add per looked-up element; the bytes are the rows read, not the table.
        g.add(Operator(f"sls{i}", "embedding", (idx, table), (out,), lookups * d,
                       {"rows_read": lookups, "table_rows": rows}))
        pooled.append(out)

    def mlp(prefix: str, x: TensorSpec, widths: list[tuple[int, int]]) -> TensorSpec:
        for j, (i_w, o_w) in enumerate(widths):
            w = TensorSpec(f"{prefix}{j}.w", (i_w, o_w), dtype, role="weight")
            op = g.add(matmul(f"{prefix}{j}", x, w, f"{prefix}{j}.y", m=batch, n=o_w, k=i_w,
                              out_dtype=dtype))
            y = TensorSpec(f"{prefix}{j}.a", (batch, o_w), dtype)
            g.add(Operator(f"{prefix}{j}.relu", "activation", op.outputs, (y,), float(batch * o_w)))
            x = y
        return x

    n_bottom = len(cfg.bottom_mlp) - 1
    dense = TensorSpec("dense", (batch, cfg.bottom_mlp[0]), dtype, role="input")
    z = mlp("bot", dense, cfg.mlp_layers[:n_bottom])
    f = cfg.num_tables + 1
    feats = TensorSpec("features", (batch, f, d), dtype)
    g.add(Operator("concat", "data_movement", (z, *pooled), (feats,), 0.0))
    dots = TensorSpec("dots", (batch, f, f), dtype)
    g.add(Operator("interaction", "matmul", (feats,), (dots,), 2.0 * batch * f * f * d,
                   {"m": f, "n": f, "k": d, "batch": batch}))
    inter = TensorSpec("interaction_out", (batch, cfg.interaction_width), dtype)
    g.add(Operator("flatten", "data_movement", (dots, z), (inter,), 0.0))
    mlp("top", inter, cfg.mlp_layers[n_bottom:])
    return g


@dataclass(frozen=True)
class DLRMWorkload:
    """Training or inference of a DLRM; per-sample work read from :func:`dlrm_graph`."""

    model: DLRMConfig
    dtype: str = "fp32"
    index_dtype: str = "int64"

    def __post_init__(self) -> None:
        if isinstance(self.model, str):
            object.__setattr__(self, "model", get_dlrm(self.model))
        dtype_bytes(self.dtype)

    @property
    def name(self) -> str:
        return self.model.name

    @cached_property
    def per_sample(self) -> dict[str, float]:
        """Forward FLOPs and bytes per sample of the dense part (MLPs + interaction) and of the
        embedding lookups, from a graph of a 1024-sample batch."""
        batch = 1024
        g = dlrm_graph(self.model, batch=batch, dtype=self.dtype)
        b = dtype_bytes(self.dtype)
        dense_flops = dense_bytes = emb_bytes = emb_flops = 0.0
        for op in g:
            if op.kind == "embedding":
                emb_flops += op.flops
                emb_bytes += op.attrs["rows_read"] * self.model.embedding_dim * b + op.output_bytes
            elif op.kind != "data_movement":
                dense_flops += op.flops
                dense_bytes += op.input_bytes - op.weight_bytes + op.output_bytes
        return {"dense_flops": dense_flops / batch, "dense_act_bytes": dense_bytes / batch,
                "emb_flops": emb_flops / batch, "emb_bytes": emb_bytes / batch}

    def pooled_bytes_per_sample(self) -> float:
        """Pooled embedding bytes of one sample (what the all-to-all moves)."""
        return self.model.num_tables * self.model.embedding_dim * dtype_bytes(self.dtype)

    def index_bytes_per_sample(self) -> float:
        return self.model.num_tables * self.model.pooling_factor * dtype_bytes(self.index_dtype)


def get_workload(name: str, *, seq_len: int | None = None) -> LLMWorkload | DLRMWorkload:
    """An LLM preset (``llama-70b``...) or a DLRM preset (``dlrm-mlperf``...) by name."""
    from ...compilers.graph import TRANSFORMER_PRESETS

    key = name.lower()
    if key in DLRM_PRESETS:
        return DLRMWorkload(DLRM_PRESETS[key])
    if key not in TRANSFORMER_PRESETS:
        raise ConfigError(f"unknown model '{name}'", field="model",
                          allowed=sorted(TRANSFORMER_PRESETS) + sorted(DLRM_PRESETS))
    cfg = TRANSFORMER_PRESETS[key]
    return LLMWorkload(cfg, seq_len=seq_len or cfg.max_seq_len)
