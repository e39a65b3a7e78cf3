"""Workloads to train: dense decoder LLMs and DLRM-style recommendation models.

The models themselves live in :mod:`archsim.compilers.graph`: LLM shapes are
``TransformerConfig`` presets whose per-layer operators come from ``transformer_graph``,
DLRMs are ``DLRMConfig`` presets built by ``dlrm_graph``. This module wraps them with
what training needs: the operators of one block for one sequence (as shared
:class:`~archsim.operators.Operator` objects), which of them tensor parallelism splits
(:func:`tp_splits`), FLOP totals and the bytes collectives move.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated

from pydantic import BeforeValidator, ConfigDict, InstanceOf, ValidationInfo

from ...compilers.graph import (
    DLRM_PRESETS,
    DLRMConfig,
    Operator,
    TensorSpec,
    TransformerConfig,
    WorkloadGraph,
    dlrm_sample_work,
    dtype_bytes,
    get_dlrm,
    get_transformer,
    matmul,
    transformer_graph,
)
from ...errors import ConfigError
from ._fields import Config, PositiveInt

__all__ = ["TP_SPLIT_KINDS", "tp_splits", "activation_input_bytes", "LLMWorkload",
           "DLRMWorkload", "get_workload"]

#: Operators whose work Megatron tensor parallelism splits over the TP group; the rest
#: (norms, residual adds) are replicated unless sequence parallelism splits them.
TP_SPLIT_KINDS = frozenset({"matmul", "attention", "activation", "softmax"})


def tp_splits(op: Operator) -> bool:
    """Whether Megatron tensor parallelism splits ``op``'s work over the TP group."""
    return op.kind in TP_SPLIT_KINDS


def activation_input_bytes(op: Operator) -> float:
    """Bytes of ``op``'s activation and KV-cache inputs (what scales with the batch)."""
    return sum(t.nbytes for t in op.inputs if t.role in ("activation", "kv_cache"))


def _transformer(v: object, info: ValidationInfo) -> object:
    return get_transformer(v) if isinstance(v, str) else v


def _dlrm(v: object, info: ValidationInfo) -> object:
    return get_dlrm(v) if isinstance(v, str) else v


def _dtype(v: object, info: ValidationInfo) -> object:
    if not isinstance(v, str):
        raise ConfigError(f"must be a data type name, not {v!r}", field=info.field_name)
    dtype_bytes(v)
    return v


_DType = Annotated[str, BeforeValidator(_dtype)]


class LLMWorkload(Config):
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

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Annotated[InstanceOf[TransformerConfig], BeforeValidator(_transformer)]
    seq_len: PositiveInt = 2048
    dtype: _DType = "bf16"

    @property
    def name(self) -> str:
        return self.model.name

    @cached_property
    def layer_graph(self) -> WorkloadGraph:
        """The shared graph of one block for one sequence (no embedding or head)."""
        return transformer_graph(self.model, batch=1, new_tokens=self.seq_len, dtype=self.dtype,
                                 include_lm_head=False, layers=1)

    @cached_property
    def layer_ops(self) -> tuple[Operator, ...]:
        """Forward operators of one block for one sequence."""
        return tuple(op for op in self.layer_graph if op.kind != "embedding")

    @cached_property
    def decode_ops(self) -> tuple[Operator, ...]:
        """Forward operators of one block for one decode step of one sequence: one new token
        attending to ``seq_len`` cached positions (K and V read from the KV cache)."""
        g = transformer_graph(self.model, batch=1, new_tokens=1, context_len=self.seq_len,
                              dtype=self.dtype, include_lm_head=False, layers=1)
        return tuple(op for op in g if op.kind != "embedding")

    @cached_property
    def _byte_counts(self) -> dict[str, tuple[tuple[float, float, float], ...]]:
        return {mode: tuple((activation_input_bytes(o), o.weight_bytes, o.output_bytes)
                            for o in (*self.ops(mode), self.head(mode)))
                for mode in ("training", "decode")}

    def byte_counts(self, mode: str) -> tuple[tuple[float, float, float], ...]:
        """``(activation inputs, weights, outputs)`` bytes of each operator of
        :meth:`ops` and then of :meth:`head` (computed once: the search asks thousands of
        times)."""
        return self._byte_counts["decode" if mode == "decode" else "training"]

    def tokens_per_sequence(self, mode: str) -> int:
        """Tokens each sequence processes in one pass: 1 for a decode step, else ``seq_len``."""
        return 1 if mode == "decode" else self.seq_len

    def ops(self, mode: str) -> tuple[Operator, ...]:
        """Forward operators of one block for one sequence in ``mode``."""
        return self.decode_ops if mode == "decode" else self.layer_ops

    def _lm_head(self, positions: int) -> Operator:
        m = self.model
        x = TensorSpec("h", (positions, m.hidden), self.dtype)
        w = TensorSpec("lm_head", (m.hidden, m.vocab), self.dtype, role="weight")
        return matmul("lm_head", x, w, "logits", m=positions, n=m.vocab, k=m.hidden)

    def head(self, mode: str) -> Operator:
        """The LM head: every position for training and prefill, one for a decode step."""
        return self._decode_head if mode == "decode" else self.head_op

    @cached_property
    def _decode_head(self) -> Operator:
        return self._lm_head(1)

    @cached_property
    def head_op(self) -> Operator:
        """The LM head for training: logits of every position (the graph's decoder head keeps
        only the last position, which is right for generation but not for training)."""
        return self._lm_head(self.seq_len)

    @property
    def num_layers(self) -> int:
        return self.model.num_layers

    # The figures below are cached: the strategy search reads them for every candidate, and
    # the (frozen) model they come from cannot change.
    @cached_property
    def params_per_layer(self) -> int:
        return self.model.params_per_layer

    @cached_property
    def embedding_params(self) -> int:
        """Input embedding (+ untied output projection) parameters."""
        return self.model.embedding_params

    @property
    def num_params(self) -> int:
        return self.model.num_params

    def forward_flops_per_sequence(self) -> float:
        """All forward FLOPs of one sequence: every block's operators plus the LM head."""
        return self._forward_flops

    @cached_property
    def _forward_flops(self) -> float:
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


class DLRMWorkload(Config):
    """Training or inference of a DLRM; per-sample work read from
    :func:`~archsim.compilers.graph.dlrm_graph`.

    Parameters
    ----------
    model
        A :class:`~archsim.compilers.graph.DLRMConfig` or a preset name (``dlrm-mlperf``).
    dtype
        Data type of embeddings and MLPs.
    index_dtype
        Data type of the sparse-feature indices.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Annotated[InstanceOf[DLRMConfig], BeforeValidator(_dlrm)]
    dtype: _DType = "fp32"
    index_dtype: _DType = "int64"

    @property
    def name(self) -> str:
        return self.model.name

    @cached_property
    def per_sample(self) -> dict[str, float]:
        """Forward FLOPs and bytes per sample of the dense part (MLPs + interaction) and of the
        embedding lookups (``dense_flops``, ``dense_act_bytes``, ``emb_flops``,
        ``emb_bytes``), from a graph of a 1024-sample batch."""
        return dlrm_sample_work(self.model, dtype=self.dtype, batch=1024).model_dump()

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
        return DLRMWorkload(model=DLRM_PRESETS[key])
    if key not in TRANSFORMER_PRESETS:
        raise ConfigError(f"unknown model '{name}'", field="model",
                          allowed=sorted(TRANSFORMER_PRESETS) + sorted(DLRM_PRESETS))
    cfg = TRANSFORMER_PRESETS[key]
    # ``is None``, not ``or``: seq_len=0 must fail LLMWorkload's check, not become the default.
    return LLMWorkload(model=cfg, seq_len=cfg.max_seq_len if seq_len is None else seq_len)
