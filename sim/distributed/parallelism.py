"""Parallelization strategies: per-iteration time breakdown and per-GPU memory.

LLMs: data parallelism (DP) with ZeRO stages 0-3 (3 = FSDP), Megatron tensor
parallelism (TP) with optional sequence parallelism (SP), pipeline parallelism
(PP, 1F1B schedule with its bubble), context parallelism (CP, ring attention)
and full activation recomputation. DLRMs: embedding tables sharded table-,
column- or row-wise across all GPUs (all-to-all), row-wise within a node and
replicated across nodes, or fully replicated; MLPs data parallel.

Each part of an iteration is its own cost term -- compute, tensor-parallel,
context-parallel, pipeline (send/receive and bubble), ZeRO-3 and data-parallel
communication, recomputation, memory -- a small function returning a typed
result; :func:`evaluate_llm` and :func:`evaluate_dlrm` compose them.

What overlaps with what (per layer):

* TP all-reduces (or SP all-gather/reduce-scatter) sit between dependent matmuls:
  never overlapped, always exposed.
* CP key/value exchange overlaps the attention of the same layer.
* PP sends/receives between stages are on the critical path of each micro-batch.
* DP gradient reduction (ZeRO 0-2) overlaps the backward pass of the last
  micro-batch (bucketed; the last bucket is always exposed); the ZeRO-1/2 parameter
  all-gather overlaps the next iteration's first forward.
* ZeRO-3 parameter all-gathers are prefetched one layer ahead (forward and
  backward) and gradient reduce-scatters overlap the next layer's backward; a
  forward-only pass (inference, decode) under ZeRO-3 (FSDP) gathers the same way.
* DLRM pooled-embedding all-to-all overlaps the bottom MLP (forward and backward);
  the MLP gradient all-reduce overlaps the dense backward.

Backward costs twice the forward (two matmuls per forward matmul). Every kernel --
each operator's shard, the optimizer step, the embedding lookups -- is priced by a
:class:`~archsim.hw.models.base.HardwareModel` (``executor``); by default a
:class:`~archsim.hw.models.gpu.GPURoofline` at the stated efficiencies.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BeforeValidator, model_validator

from ...compilers.graph import Operator, dtype_bytes
from ...errors import ConfigError
from ...hw.models.base import HardwareModel, Tile
from ...hw.models.gpu import GPURoofline
from ._fields import Config, Fraction, NonNegative, PositiveInt, one_of
from .cluster import ClusterSpec
from .collectives import collective_time_s
from .models import DLRMWorkload, LLMWorkload, activation_input_bytes, tp_splits

__all__ = [
    "Efficiency", "Strategy", "DLRMStrategy", "EMBEDDING_SHARDINGS", "MODES", "MemoryBreakdown",
    "IterationBreakdown", "StrategyRejected", "evaluate", "evaluate_llm", "evaluate_dlrm",
    "WEIGHT_BYTES", "GRAD_BYTES", "OPTIMIZER_BYTES", "LLMPlan", "LLMCompute", "TPComm",
    "CPComm", "ZeRO3Comm", "DPComm", "Recompute", "Pipeline", "llm_plan", "llm_compute",
    "tp_communication", "cp_communication", "zero3_communication", "dp_communication",
    "recomputation", "pipeline", "llm_memory", "optimizer_step_s", "shard_tile",
    "DLRMCompute", "EmbeddingTerm", "DLRMSync", "dlrm_compute", "embedding_term", "dlrm_sync",
    "dlrm_memory",
]

_GIB = 1024**3
#: Mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020): bf16 weights and gradients,
#: fp32 master weights + two moments = 12 bytes of optimizer state per parameter.
WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2, 2, 12
#: Adam step traffic per (sharded) parameter: read master, m, v, grad; write master, m, v, weight.
_ADAM_STEP_BYTES = 4 * 3 + 2 + 4 * 3 + 2

#: ``inference`` is a forward pass of whole sequences (prefill); ``decode`` one generation step
#: of every sequence against a ``seq_len`` KV cache (LLMs only).
MODES = ("training", "inference", "decode")

EMBEDDING_SHARDINGS = ("table", "column", "row", "node-row", "replicated")

# Kernels that are pure traffic in this model (their few FLOPs never bound them).
_ADAM_STEP = Operator("adam_step", "elementwise", (), (), 0.0)
_EMBEDDING_ROWS = Operator("embedding_rows", "embedding", (), (), 0.0)
# MAC-based kinds: their FLOPs are two per multiply-accumulate.
_MAC_KINDS = frozenset({"matmul", "attention", "conv2d", "recurrent"})


class StrategyRejected(ConfigError):
    """A strategy that cannot run; ``reason`` says why."""

    def __init__(self, strategy: Strategy | DLRMStrategy, reason: str) -> None:
        self.strategy = strategy
        super().__init__(f"strategy {strategy} rejected: {reason}", field="strategy")
        self.reason = reason


class Efficiency(Config):
    """Achieved fractions of datasheet peaks and reserved memory (assumptions, stated).

    ``compute`` is the fraction of dense peak FLOP/s large GEMMs reach, ``memory``
    the fraction of HBM bandwidth streaming kernels reach; ``reserved_bytes`` is
    HBM lost to the CUDA context, NCCL buffers and fragmentation.
    """

    compute: Fraction = 0.75
    memory: Fraction = 0.8
    reserved_bytes: NonNegative = 3 * _GIB
    dtype: str = "bf16"

    def roofline(self, cluster: ClusterSpec, dtype: str | None = None) -> GPURoofline:
        """The default executor: a roofline of the cluster's GPU at these efficiencies."""
        return GPURoofline(cluster.gpu, dtype=dtype or self.dtype, compute_efficiency=self.compute,
                           memory_efficiency=self.memory)


class Strategy(Config):
    """An LLM parallelization: ``dp * tp * pp * cp`` GPUs.

    Parameters
    ----------
    dp, tp, pp, cp
        Data, tensor, pipeline and context parallel degrees.
    zero
        ZeRO stage over the data-parallel group: 0 (none), 1 (optimizer state),
        2 (+ gradients), 3 (+ weights; FSDP).
    micro_batch
        Sequences per micro-batch per data-parallel rank.
    recompute
        ``"none"`` or ``"full"`` (keep only each layer's input, recompute the rest).
    sequence_parallel
        Split norms/residuals over the TP group (Korthikanti et al. 2022); needs ``tp > 1``.
    interleave
        Virtual pipeline stages per GPU (Megatron's interleaved 1F1B, Narayanan et al. 2021):
        the bubble shrinks by this factor, pipeline sends grow by it; needs ``pp > 1``.
    """

    dp: PositiveInt = 1
    tp: PositiveInt = 1
    pp: PositiveInt = 1
    cp: PositiveInt = 1
    zero: Annotated[int, BeforeValidator(one_of((0, 1, 2, 3), "unknown ZeRO stage {v!r}"))] = 0
    micro_batch: PositiveInt = 1
    recompute: Annotated[str, BeforeValidator(
        one_of(("none", "full"), "unknown recompute policy '{v}'"))] = "none"
    sequence_parallel: bool = False
    interleave: PositiveInt = 1

    @model_validator(mode="after")
    def _check(self) -> Strategy:
        if self.sequence_parallel and self.tp == 1:
            raise ConfigError("sequence parallelism needs tp > 1", field="sequence_parallel")
        if self.interleave > 1 and self.pp == 1:
            raise ConfigError("an interleaved schedule needs pp > 1", field="interleave")
        return self

    @property
    def num_gpus(self) -> int:
        return self.dp * self.tp * self.pp * self.cp

    def __str__(self) -> str:
        s = f"dp{self.dp}-tp{self.tp}-pp{self.pp}"
        if self.cp > 1:
            s += f"-cp{self.cp}"
        if self.interleave > 1:
            s += f"-v{self.interleave}"
        s += f"-z{self.zero}-mb{self.micro_batch}"
        if self.sequence_parallel:
            s += "-sp"
        if self.recompute != "none":
            s += "-rc"
        return s


class DLRMStrategy(Config):
    """A DLRM parallelization: MLPs data parallel over all GPUs, embeddings sharded by
    ``embedding`` (one of :data:`EMBEDDING_SHARDINGS`)."""

    embedding: Annotated[str, BeforeValidator(
        one_of(EMBEDDING_SHARDINGS, "unknown embedding sharding '{v}'"))] = "table"

    def __str__(self) -> str:
        return f"emb-{self.embedding}"


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes per GPU on the most loaded GPU; ``total_bytes`` is the sum of the parts."""

    weights_bytes: float
    grads_bytes: float
    optimizer_bytes: float
    activations_bytes: float
    buffers_bytes: float
    reserved_bytes: float
    capacity_bytes: float

    @property
    def total_bytes(self) -> float:
        return (self.weights_bytes + self.grads_bytes + self.optimizer_bytes
                + self.activations_bytes + self.buffers_bytes + self.reserved_bytes)

    @property
    def fits(self) -> bool:
        return self.total_bytes <= self.capacity_bytes

    def describe(self) -> str:
        parts = ", ".join(f"{k.removesuffix('_bytes')} {getattr(self, k) / _GIB:.1f}"
                          for k in ("weights_bytes", "grads_bytes", "optimizer_bytes",
                                    "activations_bytes", "buffers_bytes", "reserved_bytes"))
        return (f"needs {self.total_bytes / _GIB:.1f} GiB per GPU ({parts}) but has "
                f"{self.capacity_bytes / _GIB:.1f} GiB")


@dataclass(frozen=True)
class IterationBreakdown:
    """One iteration (training step, or one forward pass of the global batch for inference).

    ``iteration_s == compute_s + recompute_s + sum(exposed_comm_s) + bubble_s``.
    ``comm_s`` is all communication time, overlapped or not. ``sync_points`` counts the
    synchronizations that span the data-parallel dimension (used by the variability model).
    ``details`` holds counts and per-layer figures (``kernels``, ``collectives``...).
    """

    model: str
    strategy: str
    mode: str
    num_gpus: int
    global_batch: int
    iteration_s: float
    compute_s: float
    recompute_s: float
    bubble_s: float
    exposed_comm_s: dict[str, float]
    comm_s: dict[str, float]
    memory: MemoryBreakdown
    tokens_per_iteration: float
    model_flops: float
    peak_flops_per_s: float
    sync_points: int = 1
    details: dict[str, float] = field(default_factory=dict)

    @property
    def exposed_comm_total_s(self) -> float:
        return sum(self.exposed_comm_s.values())

    @property
    def exposed_comm_fraction(self) -> float:
        return self.exposed_comm_total_s / self.iteration_s

    @property
    def samples_per_s(self) -> float:
        return self.global_batch / self.iteration_s

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_iteration / self.iteration_s

    @property
    def mfu(self) -> float:
        """Model FLOPs utilization: model FLOPs (no recompute) / (time x GPUs x dense peak)."""
        return self.model_flops / (self.iteration_s * self.num_gpus * self.peak_flops_per_s)

    def to_row(self) -> dict[str, str | float]:
        row: dict[str, str | float] = {
            "model": self.model, "strategy": self.strategy, "mode": self.mode,
            "num_gpus": self.num_gpus, "global_batch": self.global_batch,
            "iteration_s": self.iteration_s, "compute_s": self.compute_s,
            "recompute_s": self.recompute_s, "bubble_s": self.bubble_s,
            "exposed_comm_s": self.exposed_comm_total_s,
            "exposed_comm_fraction": self.exposed_comm_fraction,
            "samples_per_s": self.samples_per_s, "tokens_per_s": self.tokens_per_s,
            "mfu": self.mfu, "memory_gib": self.memory.total_bytes / _GIB}
        row.update({f"exposed_{k}_s": v for k, v in self.exposed_comm_s.items()})
        return row


def _check_common(global_batch: int, mode: str) -> None:
    if not isinstance(global_batch, int) or global_batch < 1:
        raise ConfigError(f"must be a positive integer, not {global_batch!r}",
                          field="global_batch")
    if mode not in MODES:
        raise ConfigError(f"unknown mode '{mode}'", field="mode", allowed=MODES)


def shard_tile(op: Operator, *, sequences: float = 1, seq_split: int = 1, split: int = 1,
               byte_counts: tuple[float, float, float] | None = None) -> Tile:
    """The slice of ``op`` (the work of one sequence) one GPU runs for ``sequences``
    sequences: context parallelism divides the activations by ``seq_split``, tensor
    parallelism everything by ``split``.

    A shard's multiply-accumulates are whole only when the split divides the shape; the
    fractional remainder is counted as vector operations so the tile's FLOPs stay exact.
    ``byte_counts`` (activation inputs, weights, outputs of ``op``) saves recounting them.
    """
    act_in, weights, out = byte_counts or (activation_input_bytes(op), op.weight_bytes,
                                           op.output_bytes)
    flops = op.flops * sequences / (seq_split * split)
    macs = math.floor(flops / 2) if op.kind in _MAC_KINDS else 0
    return Tile(op, macs=macs, vector_ops=flops - 2 * macs,
                input_bytes=act_in * sequences / seq_split / split,
                weight_bytes=weights / split,
                output_bytes=out * sequences / seq_split / split)


def optimizer_step_s(executor: HardwareModel, params: float, *,
                     bytes_per_param: float = _ADAM_STEP_BYTES) -> float:
    """One Adam step over ``params`` parameters (pure HBM traffic; mixed precision by
    default)."""
    return executor.operator_cost(Tile(_ADAM_STEP, input_bytes=params * bytes_per_param)
                                  ).latency_s


# -- LLM cost terms ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LLMPlan:
    """The shape of one LLM evaluation: degrees, micro-batches and per-stage parameters."""

    mode: str
    mb: int
    dp: int
    tp: int
    pp: int
    cp: int
    interleave: int
    sequence_parallel: bool
    recompute: bool
    zero: int
    micro_batches: int
    layers_per_stage: int
    tokens: int
    params_gpu: float
    layer_params_gpu: float

    @property
    def training(self) -> bool:
        return self.mode == "training"

    @property
    def decode(self) -> bool:
        return self.mode == "decode"

    @property
    def shard(self) -> int:
        """ZeRO shards over every rank holding the same weights."""
        return self.dp * self.cp

    @property
    def sp_split(self) -> int:
        """What sequence parallelism divides replicated activations by."""
        return self.tp if self.sequence_parallel else 1


def _reject_llm(workload: LLMWorkload, cluster: ClusterSpec, st: Strategy, global_batch: int,
                mode: str) -> None:
    cfg = workload.model
    n = cluster.num_gpus
    if st.num_gpus != n:
        raise StrategyRejected(st, f"dp*tp*pp*cp = {st.num_gpus} but the cluster has {n} GPUs")
    tp_problem = cfg.tp_problem(st.tp)  # the rule serving shares (TransformerConfig)
    if tp_problem is not None:
        raise StrategyRejected(st, tp_problem)
    if st.pp > cfg.num_layers:
        raise StrategyRejected(st, f"pp {st.pp} exceeds the {cfg.num_layers} layers")
    if workload.seq_len % st.cp:
        raise StrategyRejected(st, f"cp {st.cp} does not divide sequence length "
                               f"{workload.seq_len}")
    if global_batch % (st.dp * st.micro_batch):
        raise StrategyRejected(st, f"global batch {global_batch} is not divisible by dp x "
                               f"micro_batch = {st.dp * st.micro_batch}")
    v = st.interleave
    if v > 1 and cfg.num_layers % (st.pp * v):
        raise StrategyRejected(st, f"{cfg.num_layers} layers do not split into pp x interleave "
                               f"= {st.pp * v} virtual stages")
    if v > 1 and (global_batch // (st.dp * st.micro_batch)) % st.pp:
        raise StrategyRejected(st, f"the interleaved schedule needs the micro-batch count "
                               f"{global_batch // (st.dp * st.micro_batch)} to be a multiple "
                               f"of pp {st.pp}")
    if mode != "training" and (st.zero in (1, 2) or st.recompute != "none"):
        # ZeRO-3 (FSDP) also shards the weights of a forward-only pass: MAD-Max's inference is
        # the forward stream of the task's (FSDP) strategy (samhsia/MADMax, tasks/llm_tasks.py).
        raise StrategyRejected(st, "ZeRO and recomputation apply to training only (ZeRO-3 "
                               "weight sharding excepted)")
    if mode == "decode" and (st.cp > 1 or v > 1):
        raise StrategyRejected(st, "context parallelism and interleaving do not apply to "
                               "decode steps")


def llm_plan(workload: LLMWorkload, cluster: ClusterSpec, strategy: Strategy, *,
             global_batch: int, mode: str = "training") -> LLMPlan:
    """Check that ``strategy`` can run (else :class:`StrategyRejected`) and lay it out."""
    _check_common(global_batch, mode)
    _reject_llm(workload, cluster, strategy, global_batch, mode)
    cfg, st = workload.model, strategy
    layers_stage = math.ceil(cfg.num_layers / st.pp)
    emb_stage = workload.embedding_params if st.pp == 1 else cfg.vocab * cfg.hidden
    return LLMPlan(
        mode=mode, mb=st.micro_batch, dp=st.dp, tp=st.tp, pp=st.pp, cp=st.cp,
        interleave=st.interleave, sequence_parallel=st.sequence_parallel,
        recompute=st.recompute == "full", zero=st.zero,
        micro_batches=global_batch // (st.dp * st.micro_batch), layers_per_stage=layers_stage,
        tokens=workload.tokens_per_sequence(mode),
        params_gpu=(layers_stage * workload.params_per_layer + emb_stage) / st.tp,
        layer_params_gpu=workload.params_per_layer / st.tp)


@dataclass(frozen=True)
class LLMCompute:
    """Forward compute of one micro-batch on one GPU: a layer, its attention, the LM head;
    and the activation bytes one layer keeps for the backward pass."""

    layer_fwd_s: float
    attention_fwd_s: float
    head_fwd_s: float
    layer_activation_bytes: float


def llm_compute(workload: LLMWorkload, plan: LLMPlan, executor: HardwareModel) -> LLMCompute:
    """Every operator's shard priced by ``executor``: TP splits the operators it splits (all
    of them with sequence parallelism), CP splits the sequence."""
    mb, tp, cp, sp = plan.mb, plan.tp, plan.cp, plan.sequence_parallel
    f_layer = attn_f = 0.0
    act_layer_bytes = workload.hidden_bytes(mb, plan.tokens) / cp / plan.sp_split  # layer input
    *counts, head_counts = workload.byte_counts(plan.mode)
    for o, c in zip(workload.ops(plan.mode), counts, strict=True):
        split = tp if (tp_splits(o) or sp) else 1
        tile = shard_tile(o, sequences=mb, seq_split=cp, split=split, byte_counts=c)
        t = executor.operator_cost(tile).latency_s
        f_layer += t
        if o.kind == "attention":
            attn_f = t
        act_layer_bytes += c[2] * mb / cp / split
    head = shard_tile(workload.head(plan.mode), sequences=mb, seq_split=cp, split=tp,
                      byte_counts=head_counts)
    return LLMCompute(f_layer, attn_f, executor.operator_cost(head).latency_s, act_layer_bytes)


@dataclass(frozen=True)
class TPComm:
    """Tensor-parallel collectives of one layer, one pass, one micro-batch (always exposed)."""

    per_layer_s: float


def tp_communication(workload: LLMWorkload, plan: LLMPlan, cluster: ClusterSpec) -> TPComm:
    """Two all-reduces of the layer's hidden state per pass (an all-gather and a
    reduce-scatter each with sequence parallelism)."""
    tp = plan.tp
    if tp == 1:
        return TPComm(0.0)
    hid = workload.hidden_bytes(plan.mb, plan.tokens) / plan.cp
    if plan.sequence_parallel:
        return TPComm(2 * (collective_time_s("all_gather", hid, cluster, size=tp)
                           + collective_time_s("reduce_scatter", hid, cluster, size=tp)))
    return TPComm(2 * collective_time_s("all_reduce", hid, cluster, size=tp))


@dataclass(frozen=True)
class CPComm:
    """Context-parallel key/value exchange of one layer and micro-batch: its time and what
    attention does not hide in the forward and the backward pass."""

    per_layer_s: float
    exposed_fwd_s: float
    exposed_bwd_s: float


def cp_communication(workload: LLMWorkload, plan: LLMPlan, cluster: ClusterSpec,
                     compute: LLMCompute) -> CPComm:
    """Ring attention: every rank receives the other ranks' K and V chunks of the sequence,
    overlapped with the layer's attention."""
    cp = plan.cp
    if cp > 1:
        kv_bytes = (2 * plan.mb * workload.seq_len * workload.model.kv_hidden
                    * dtype_bytes(workload.dtype) / plan.tp)
        cp_f = collective_time_s("all_gather", kv_bytes, cluster, size=cp, stride=plan.tp)
    else:
        cp_f = 0.0
    attn_f = compute.attention_fwd_s
    return CPComm(cp_f, max(0.0, cp_f - attn_f), max(0.0, 2 * cp_f - 2 * attn_f))


def _p2p_s(workload: LLMWorkload, plan: LLMPlan, cluster: ClusterSpec) -> float:
    """One send per virtual stage boundary crossed by the micro-batch on this GPU."""
    if plan.pp == 1:
        return 0.0
    hid = workload.hidden_bytes(plan.mb, plan.tokens) / plan.cp
    return plan.interleave * collective_time_s("p2p", hid / plan.sp_split, cluster, size=2,
                                               stride=plan.tp * plan.cp * plan.dp)


@dataclass(frozen=True)
class ZeRO3Comm:
    """ZeRO-3 parameter gathers and gradient reduce-scatters of one micro-batch: what the
    layer-ahead prefetch leaves exposed in the forward and backward pass, and their time."""

    exposed_fwd_s: float
    exposed_bwd_s: float
    per_micro_batch_s: float


def zero3_communication(plan: LLMPlan, cluster: ClusterSpec, compute: LLMCompute) -> ZeRO3Comm:
    """Gathers prefetched one layer ahead; reduce-scatters overlap the next layer's backward
    (zero unless ZeRO-3 over more than one shard). A forward-only pass (inference, decode)
    gathers and never reduces."""
    if not (plan.zero == 3 and plan.shard > 1):
        return ZeRO3Comm(0.0, 0.0, 0.0)
    ls, f_layer = plan.layers_per_stage, compute.layer_fwd_s
    ag = collective_time_s("all_gather", plan.layer_params_gpu * WEIGHT_BYTES, cluster,
                           size=plan.shard, stride=plan.tp)
    if not plan.training:
        return ZeRO3Comm(ag + ls * max(0.0, ag - f_layer), 0.0, ls * ag)
    rs = collective_time_s("reduce_scatter", plan.layer_params_gpu * GRAD_BYTES, cluster,
                           size=plan.shard, stride=plan.tp)
    return ZeRO3Comm(ag + ls * max(0.0, ag - f_layer), ls * max(0.0, ag + rs - 2 * f_layer),
                     ls * (2 * ag + rs))


@dataclass(frozen=True)
class Recompute:
    """Full recomputation: the extra forward pass of one micro-batch's layers in the backward
    (compute and its TP/CP communication) and its compute over the iteration."""

    per_micro_batch_s: float
    compute_s: float


def recomputation(plan: LLMPlan, compute: LLMCompute, tp: TPComm, cp: CPComm) -> Recompute:
    """Zero unless training with ``recompute="full"``."""
    if not (plan.training and plan.recompute):
        return Recompute(0.0, 0.0)
    ls = plan.layers_per_stage
    return Recompute(ls * (compute.layer_fwd_s + tp.per_layer_s + cp.exposed_fwd_s),
                     plan.micro_batches * ls * compute.layer_fwd_s)


@dataclass(frozen=True)
class Pipeline:
    """The pipeline schedule: one micro-batch's time on a stage, the bubble, the pipelined
    total (``micro_batches x per_micro_batch + bubble``) and the send/receive per pass."""

    p2p_s: float
    per_micro_batch_s: float
    bubble_s: float
    pipeline_s: float


def pipeline(workload: LLMWorkload, plan: LLMPlan, cluster: ClusterSpec, compute: LLMCompute,
             tp: TPComm, cp: CPComm, z3: ZeRO3Comm, rec: Recompute, *,
             p2p_s: float | None = None) -> Pipeline:
    """1F1B (training, bubble ``(pp - 1) / interleave`` micro-batches), a forward pipeline
    (prefill) or steady-state generation (decode: idle only with fewer than ``pp``
    micro-batches). ``p2p_s`` is the send/receive per pass when already known."""
    p2p = _p2p_s(workload, plan, cluster) if p2p_s is None else p2p_s
    ls, m, pp, v = plan.layers_per_stage, plan.micro_batches, plan.pp, plan.interleave
    f_layer, head_f, tp_f = compute.layer_fwd_s, compute.head_fwd_s, tp.per_layer_s
    if plan.training:
        fwd = ls * (f_layer + tp_f + cp.exposed_fwd_s) + head_f + p2p + z3.exposed_fwd_s
        # Backward: twice the forward compute and the same two TP collectives.
        bwd = ls * (2 * f_layer + tp_f + cp.exposed_bwd_s) + 2 * head_f + p2p + z3.exposed_bwd_s
        if plan.recompute:
            bwd += rec.per_micro_batch_s
        per_mb = fwd + bwd
        bubble = (pp - 1) * per_mb / v
    else:
        per_mb = ls * (f_layer + tp_f + cp.exposed_fwd_s) + head_f + p2p + z3.exposed_fwd_s
        bubble = max(0, pp - m) * per_mb if plan.decode else (pp - 1) * per_mb / v
    return Pipeline(p2p, per_mb, bubble, m * per_mb + bubble)


@dataclass(frozen=True)
class DPComm:
    """Data-parallel gradient reduction and parameter gather (ZeRO 0-2) after the last
    micro-batch: the part its backward does not hide, and the total."""

    exposed_s: float
    total_s: float


def dp_communication(plan: LLMPlan, cluster: ClusterSpec, compute: LLMCompute,
                     z3: ZeRO3Comm) -> DPComm:
    """Bucketed reduction overlapping the last backward (the last bucket always exposed);
    ZeRO-1/2's gather overlapping the next forward. ZeRO-3's traffic is per micro-batch."""
    if not plan.training:
        return DPComm(0.0, 0.0)
    if plan.zero == 3 and plan.shard > 1:
        return DPComm(0.0, plan.micro_batches * z3.per_micro_batch_s)
    shard, ls = plan.shard, plan.layers_per_stage
    if shard == 1:
        return DPComm(0.0, 0.0)
    grad_bytes = plan.params_gpu * GRAD_BYTES
    if plan.zero == 0:
        red = collective_time_s("all_reduce", grad_bytes, cluster, size=shard, stride=plan.tp)
        gat = 0.0
    else:
        red = collective_time_s("reduce_scatter", grad_bytes, cluster, size=shard,
                                stride=plan.tp)
        gat = collective_time_s("all_gather", plan.params_gpu * WEIGHT_BYTES, cluster,
                                size=shard, stride=plan.tp)
    window_b = ls * 2 * compute.layer_fwd_s
    window_f = ls * compute.layer_fwd_s
    exposed = (max(red / ls, red - window_b)
               + (max(gat / ls, gat - window_f) if gat else 0.0))
    return DPComm(exposed, red + gat)


def llm_memory(workload: LLMWorkload, plan: LLMPlan, cluster: ClusterSpec, compute: LLMCompute,
               efficiency: Efficiency, *, global_batch: int) -> MemoryBreakdown:
    """Weights, gradients, optimizer state (sharded by ZeRO), activations (1F1B in-flight
    micro-batches, or the KV cache for inference) and ZeRO-3 gather buffers on one GPU."""
    cfg = workload.model
    tp, cp, pp, v, m = plan.tp, plan.cp, plan.pp, plan.interleave, plan.micro_batches
    shard, ls, params_gpu = plan.shard, plan.layers_per_stage, plan.params_gpu
    act_layer_bytes = compute.layer_activation_bytes
    if plan.training:
        rec = plan.recompute
        weights = params_gpu * WEIGHT_BYTES / (shard if plan.zero == 3 else 1)
        grads = params_gpu * GRAD_BYTES / (shard if plan.zero >= 2 else 1)
        optim = params_gpu * OPTIMIZER_BYTES / (shard if plan.zero >= 1 else 1)
        buffers = (2 * plan.layer_params_gpu * WEIGHT_BYTES if plan.zero == 3 and shard > 1
                   else 0.0)
        # 1F1B: the first stage holds pp micro-batches; interleaving adds (pp-1)/(pp v) more
        # (Narayanan et al. 2021, Sec. 2.2.2).
        in_flight = min(pp, m) * (1 + (pp - 1) / (pp * v) if v > 1 else 1)
        stored = (workload.hidden_bytes(plan.mb) / cp / plan.sp_split if rec
                  else act_layer_bytes)
        logits = plan.mb * workload.seq_len * cfg.vocab * 4 / (tp * cp)  # fp32 for the loss
        activations = in_flight * ls * stored + (act_layer_bytes if rec else 0) + logits
    else:
        sharded = plan.zero == 3 and shard > 1
        weights = params_gpu * WEIGHT_BYTES / (shard if sharded else 1)
        grads = optim = 0.0
        buffers = 2 * plan.layer_params_gpu * WEIGHT_BYTES if sharded else 0.0
        # KV heads split over TP up to their number (then replicated). Prefill keeps one
        # micro-batch's cache; decode keeps every resident sequence's.
        resident = global_batch // plan.dp if plan.decode else plan.mb
        kv = (2 * ls * cfg.kv_hidden * resident * workload.seq_len
              * dtype_bytes(workload.dtype) / (min(tp, cfg.kv_heads) * cp))
        activations = kv + act_layer_bytes + plan.mb * plan.tokens * cfg.vocab * 4 / (tp * cp)
    return MemoryBreakdown(weights, grads, optim, activations, buffers,
                           efficiency.reserved_bytes, cluster.memory_bytes)


def evaluate_llm(
    workload: LLMWorkload,
    cluster: ClusterSpec,
    strategy: Strategy,
    *,
    global_batch: int,
    mode: str = "training",
    efficiency: Efficiency | None = None,
    executor: HardwareModel | None = None,
) -> IterationBreakdown:
    """Time and memory of one iteration of ``workload`` under ``strategy``.

    ``global_batch`` is in sequences; ``executor`` prices every kernel on one GPU (default:
    ``efficiency.roofline(cluster)``). Raises :class:`StrategyRejected` (a
    :class:`ConfigError`) naming the reason when the strategy cannot run.
    """
    plan = llm_plan(workload, cluster, strategy, global_batch=global_batch, mode=mode)
    eff = efficiency or Efficiency()
    gpu = executor or eff.roofline(cluster)
    return _evaluate_llm(workload, cluster, strategy, plan, eff, gpu, global_batch, None)


@dataclass
class _SearchCache:
    """Cost terms shared between the strategies of one search (same workload, mode, cluster,
    batch and executor), each keyed by every value its function reads that can differ
    between strategies: thousands of candidates differ only in degrees those terms ignore,
    so each is computed once per key -- the same numbers from far fewer ``operator_cost``
    and collective calls (the executor is a pure function of the work it prices)."""

    #: (micro-batch, tp, cp, sp) -> :func:`llm_compute`, :func:`tp_communication`,
    #: :func:`cp_communication`
    shard: dict[tuple[int, int, int, bool], tuple[LLMCompute, TPComm, CPComm]] = field(
        default_factory=dict)
    #: (pp, micro-batch, cp, interleave, sp split, tp, dp) -> :func:`_p2p_s`
    p2p: dict[tuple[int, ...], float] = field(default_factory=dict)
    #: every input of :func:`zero3_communication` -> its result
    zero3: dict[tuple[object, ...], ZeRO3Comm] = field(default_factory=dict)
    #: every input of :func:`dp_communication` -> its result
    dp: dict[tuple[object, ...], DPComm] = field(default_factory=dict)
    #: parameters stepped -> :func:`optimizer_step_s`
    optimizer: dict[float, float] = field(default_factory=dict)


def _evaluate_llm(workload: LLMWorkload, cluster: ClusterSpec, strategy: Strategy,
                  plan: LLMPlan, eff: Efficiency, gpu: HardwareModel, global_batch: int,
                  cache: _SearchCache | None) -> IterationBreakdown:
    """The body of :func:`evaluate_llm` once the plan, efficiency and executor are known;
    ``cache`` (one per search, see :class:`_SearchCache`) or ``None`` to compute every term."""
    if cache is None:
        compute = llm_compute(workload, plan, gpu)
        tp = tp_communication(workload, plan, cluster)
        cp = cp_communication(workload, plan, cluster, compute)
        p2p = _p2p_s(workload, plan, cluster)
    else:
        key = (plan.mb, plan.tp, plan.cp, plan.sequence_parallel)
        terms = cache.shard.get(key)
        if terms is None:
            compute = llm_compute(workload, plan, gpu)
            terms = cache.shard[key] = (compute, tp_communication(workload, plan, cluster),
                                        cp_communication(workload, plan, cluster, compute))
        compute, tp, cp = terms
        p2p_key = (plan.pp, plan.mb, plan.cp, plan.interleave, plan.sp_split, plan.tp, plan.dp)
        p2p_s = cache.p2p.get(p2p_key)
        if p2p_s is None:
            p2p_s = cache.p2p[p2p_key] = _p2p_s(workload, plan, cluster)
        p2p = p2p_s
    if cache is None:
        z3 = zero3_communication(plan, cluster, compute)
    else:
        z3_key = (plan.training, plan.zero, plan.shard, plan.layers_per_stage,
                  compute.layer_fwd_s, plan.layer_params_gpu, plan.tp)
        z3_term = cache.zero3.get(z3_key)
        if z3_term is None:
            z3_term = cache.zero3[z3_key] = zero3_communication(plan, cluster, compute)
        z3 = z3_term
    rec = recomputation(plan, compute, tp, cp)
    pipe = pipeline(workload, plan, cluster, compute, tp, cp, z3, rec, p2p_s=p2p)
    if cache is None:
        dp = dp_communication(plan, cluster, compute, z3)
    else:
        dp_key = (plan.training, plan.zero, plan.shard, plan.micro_batches,
                  z3.per_micro_batch_s, plan.layers_per_stage, plan.params_gpu, plan.tp,
                  compute.layer_fwd_s)
        dp_term = cache.dp.get(dp_key)
        if dp_term is None:
            dp_term = cache.dp[dp_key] = dp_communication(plan, cluster, compute, z3)
        dp = dp_term
    memory = llm_memory(workload, plan, cluster, compute, eff, global_batch=global_batch)
    if not memory.fits:
        raise StrategyRejected(strategy, memory.describe())

    m, ls = plan.micro_batches, plan.layers_per_stage
    f_layer, head_f = compute.layer_fwd_s, compute.head_fwd_s
    if plan.training:
        stepped = plan.params_gpu / (plan.shard if plan.zero >= 1 else 1)
        opt_s = cache.optimizer.get(stepped) if cache is not None else None
        if opt_s is None:
            opt_s = optimizer_step_s(gpu, stepped)
            if cache is not None:
                cache.optimizer[stepped] = opt_s
        optimizer_s = opt_s
        iteration = pipe.pipeline_s + dp.exposed_s + optimizer_s
        compute_s = m * (ls * 3 * f_layer + 3 * head_f) + optimizer_s
        passes = 3 if plan.recompute else 2  # TP collectives: forward, backward (, recompute)
        exposed = {"tp": m * ls * passes * tp.per_layer_s,
                   "cp": m * ls * (cp.exposed_fwd_s * (2 if plan.recompute else 1)
                                   + cp.exposed_bwd_s),
                   "pp": m * 2 * pipe.p2p_s,
                   "dp": dp.exposed_s + m * (z3.exposed_fwd_s + z3.exposed_bwd_s)}
        comm = {"tp": exposed["tp"], "cp": m * ls * cp.per_layer_s * (4 if plan.recompute else 3),
                "pp": exposed["pp"], "dp": dp.total_s}
        model_flops = workload.training_flops(global_batch)
        sync_points = 1 + (2 * ls * m if plan.zero == 3 and plan.shard > 1 else 0)
    else:
        optimizer_s = 0.0
        iteration = pipe.pipeline_s
        compute_s = m * (ls * f_layer + head_f)
        exposed = {"tp": m * ls * tp.per_layer_s, "cp": m * ls * cp.exposed_fwd_s,
                   "pp": m * pipe.p2p_s, "dp": m * z3.exposed_fwd_s}
        comm = {"tp": exposed["tp"], "cp": m * ls * cp.per_layer_s, "pp": exposed["pp"],
                "dp": m * z3.per_micro_batch_s}
        model_flops = global_batch * (workload.decode_flops_per_sequence() if plan.decode
                                      else workload.forward_flops_per_sequence())
        sync_points = 1
    return IterationBreakdown(
        model=workload.name, strategy=str(strategy), mode=plan.mode, num_gpus=cluster.num_gpus,
        global_batch=global_batch, iteration_s=iteration, compute_s=compute_s,
        recompute_s=rec.compute_s, bubble_s=pipe.bubble_s, exposed_comm_s=exposed, comm_s=comm,
        memory=memory, tokens_per_iteration=global_batch * plan.tokens,
        model_flops=model_flops, peak_flops_per_s=cluster.gpu.peak(eff.dtype),
        sync_points=sync_points,
        details={"micro_batches": m, "layers_per_stage": ls,
                 "collectives": _llm_collectives(strategy, m, ls, plan.mode),
                 "kernels": m * (ls * len(workload.ops(plan.mode)) + 1)
                 * ((4 if plan.recompute else 3) if plan.training else 1),
                 "layer_fwd_s": f_layer, "tp_comm_per_layer_s": tp.per_layer_s,
                 "optimizer_s": optimizer_s},
    )


def _llm_collectives(st: Strategy, m: int, layers_stage: int, mode: str) -> int:
    """Collective calls per iteration on one GPU (what the variability model's
    ``comm_sigma`` applies to): TP 2 per layer per pass (x2 with SP), CP 1 per layer per
    pass, PP 1 send per pass per virtual stage, DP 1-2 (3 per layer per micro-batch for
    ZeRO-3)."""
    passes = (4 if st.recompute == "full" else 3) if mode == "training" else 1
    n = 0
    if st.tp > 1:
        n += m * layers_stage * passes * 2 * (2 if st.sequence_parallel else 1)
    if st.cp > 1:
        n += m * layers_stage * passes
    if st.pp > 1:
        n += m * (2 if mode == "training" else 1) * st.interleave
    if mode == "training" and st.dp * st.cp > 1:
        n += 3 * layers_stage * m if st.zero == 3 else (1 if st.zero == 0 else 2)
    elif st.zero == 3 and st.dp * st.cp > 1:
        n += layers_stage * m  # forward-only: one weight gather per layer
    return max(1, n)


def _lpt_max_load(sizes: list[float], loads: list[float], bins: int) -> tuple[float, float]:
    """Longest-processing-time assignment of shards (largest first) to ``bins`` GPUs by load;
    returns the maximum load and the maximum size on one GPU."""
    import heapq

    heap = [(0.0, 0.0, i) for i in range(bins)]
    max_size = 0.0
    for size, load in sorted(zip(sizes, loads, strict=True), key=lambda x: -x[1]):
        cur_load, cur_size, i = heapq.heappop(heap)
        cur_load += load
        cur_size += size
        max_size = max(max_size, cur_size)
        heapq.heappush(heap, (cur_load, cur_size, i))
    return max(x[0] for x in heap), max_size


# -- DLRM cost terms --------------------------------------------------------------------------

#: fp32 Adam step of the MLPs, bytes per parameter: read weight, grad, two moments; write
#: weight, two moments and the updated copy.
_ADAM_FP32_STEP_BYTES = 32


@dataclass(frozen=True)
class DLRMCompute:
    """Forward compute of the dense part (MLPs + interaction) of one GPU's samples, and the
    bottom MLP's share of it (which overlaps the embedding lookups)."""

    dense_fwd_s: float
    bottom_fwd_s: float


def _dense_operator(workload: DLRMWorkload, samples: int) -> Operator:
    return Operator(f"{workload.name}.dense", "matmul", (), (),
                    workload.per_sample["dense_flops"] * samples,
                    {"fused": "bottom MLP, interaction, top MLP", "samples": samples})


def dlrm_compute(workload: DLRMWorkload, samples: int, executor: HardwareModel) -> DLRMCompute:
    """The dense part priced as one fused kernel over ``samples`` samples (activations of every
    operator plus the fp32 MLP weights and biases)."""
    cfg = workload.model
    op = _dense_operator(workload, samples)
    macs = math.floor(op.flops / 2)
    tile = Tile(op, macs=macs, vector_ops=op.flops - 2 * macs,
                input_bytes=workload.per_sample["dense_act_bytes"] * samples,
                weight_bytes=cfg.mlp_params * 4)
    dense_f = executor.operator_cost(tile).latency_s
    bottom_share = (sum(i * o for i, o in cfg.mlp_layers[:cfg.num_bottom_layers])
                    / sum(i * o for i, o in cfg.mlp_layers))
    return DLRMCompute(dense_f, dense_f * bottom_share)


@dataclass(frozen=True)
class EmbeddingTerm:
    """Embeddings under one sharding: bytes on the busiest GPU, its lookup time, the
    forward (indices + pooled vectors) and backward (pooled gradients) communication, and
    the replicas' sparse gradient exchange (training only)."""

    memory_bytes: float
    lookup_s: float
    comm_fwd_s: float
    comm_bwd_s: float
    sync_s: float


def _rows_s(executor: HardwareModel, n_bytes: float) -> float:
    return executor.operator_cost(Tile(_EMBEDDING_ROWS, input_bytes=n_bytes)).latency_s


def embedding_term(workload: DLRMWorkload, cluster: ClusterSpec, strategy: DLRMStrategy, *,
                   global_batch: int, training: bool, executor: HardwareModel) -> EmbeddingTerm:
    """Table- or column-wise shards placed largest first (all-to-all), row-wise over all GPUs
    or a node (all-gather of indices, reduce-scatter of pooled vectors), or replicated."""
    cfg = workload.model
    n, g = cluster.num_gpus, min(cluster.gpus_per_node, cluster.num_gpus)
    nodes = n // g
    b_local = global_batch // n
    d = cfg.embedding_dim
    eb = dtype_bytes(workload.dtype)
    row_bytes = d * eb
    pooled = workload.pooled_bytes_per_sample()
    idx = workload.index_bytes_per_sample()
    opt_row = 4 if training else 0  # row-wise Adagrad state
    lookups_per_table = global_batch * cfg.pooling_factor
    lookups_per_sample = cfg.num_tables * cfg.pooling_factor
    emb_sync = 0.0
    kind = strategy.embedding
    if kind in ("table", "column"):
        splits = 1
        if kind == "column":
            while cfg.num_tables * splits < n and d % (2 * splits) == 0:
                splits *= 2
        sizes = [r * (d // splits * eb + opt_row) for r in cfg.table_rows for _ in range(splits)]
        loads = [lookups_per_table * d / splits * eb] * len(sizes)
        max_load_bytes, emb_mem = _lpt_max_load(sizes, loads, n)
        lookup_s = _rows_s(executor, max_load_bytes)
        shards_busiest = round(max_load_bytes / loads[0])
        # The busiest GPU sends its shards' pooled vectors for the whole batch; every GPU
        # receives its own samples' vectors of every table.
        pooled_n = max(shards_busiest * global_batch * d / splits * eb, b_local * pooled)
        idx_s = collective_time_s("all_to_all", b_local * idx, cluster, size=n)
        comm_b = collective_time_s("all_to_all", pooled_n, cluster, size=n)
        comm_f = idx_s + comm_b
    elif kind == "row":
        emb_mem = sum(r * (row_bytes + opt_row) for r in cfg.table_rows) / n
        lookup_s = _rows_s(executor, global_batch * lookups_per_sample * row_bytes / n)
        comm_f = (collective_time_s("all_gather", global_batch * idx, cluster, size=n)
                  + collective_time_s("reduce_scatter", global_batch * pooled, cluster, size=n))
        comm_b = collective_time_s("all_gather", global_batch * pooled, cluster, size=n)
    elif kind == "node-row":
        b_node = global_batch // nodes
        emb_mem = sum(r * (row_bytes + opt_row) for r in cfg.table_rows) / g
        lookup_s = _rows_s(executor, b_node * lookups_per_sample * row_bytes / g)
        comm_f = (collective_time_s("all_gather", b_node * idx, cluster, size=g)
                  + collective_time_s("reduce_scatter", b_node * pooled, cluster, size=g))
        comm_b = collective_time_s("all_gather", b_node * pooled, cluster, size=g)
        if training and nodes > 1:
            # Sparse gradient exchange of the touched rows across the replicas, one rail per GPU.
            touched = global_batch * lookups_per_sample * (row_bytes + 8)  # row + index
            emb_sync = collective_time_s("all_gather", touched / g, cluster, size=nodes, stride=g)
    else:  # replicated
        emb_mem = sum(r * (row_bytes + opt_row) for r in cfg.table_rows)
        lookup_s = _rows_s(executor, b_local * lookups_per_sample * row_bytes)
        comm_f = comm_b = 0.0
        if training and n > 1:
            touched = global_batch * lookups_per_sample * (row_bytes + 8)  # row + index
            emb_sync = collective_time_s("all_gather", touched, cluster, size=n)
    return EmbeddingTerm(emb_mem, lookup_s, comm_f, comm_b, emb_sync)


@dataclass(frozen=True)
class DLRMSync:
    """Training's gradient synchronization after the dense backward: the MLP all-reduce and
    the embedding replicas' exchange, their total times and the exposed share of each."""

    dp_s: float
    embedding_s: float
    exposed_dp_s: float
    exposed_embedding_s: float


def dlrm_sync(workload: DLRMWorkload, cluster: ClusterSpec, emb: EmbeddingTerm,
              hidden_s: float) -> DLRMSync:
    """Both overlap the top-MLP backward (``hidden_s``); what is left is split between them
    in proportion to their times."""
    ar = collective_time_s("all_reduce", workload.model.mlp_params * 4, cluster,
                           size=cluster.num_gpus)
    total = ar + emb.sync_s
    exposed = max(0.0, total - hidden_s)
    if total > 0:
        return DLRMSync(ar, emb.sync_s, exposed * ar / total, exposed * emb.sync_s / total)
    return DLRMSync(ar, emb.sync_s, 0.0, 0.0)


def dlrm_memory(workload: DLRMWorkload, cluster: ClusterSpec, emb: EmbeddingTerm,
                efficiency: Efficiency, *, samples: int, training: bool) -> MemoryBreakdown:
    """Embedding shards and fp32 MLP weights (+ gradients and Adam moments when training),
    activations of ``samples`` samples (kept for the backward when training)."""
    mlp_params = workload.model.mlp_params
    activations = (samples * (workload.per_sample["dense_act_bytes"]
                              + 2 * workload.pooled_bytes_per_sample())
                   * (2 if training else 1))
    return MemoryBreakdown(weights_bytes=emb.memory_bytes + mlp_params * 4,
                           grads_bytes=mlp_params * 4 if training else 0.0,
                           optimizer_bytes=mlp_params * 8 if training else 0.0,
                           activations_bytes=activations, buffers_bytes=0.0,
                           reserved_bytes=efficiency.reserved_bytes,
                           capacity_bytes=cluster.memory_bytes)


def evaluate_dlrm(
    workload: DLRMWorkload,
    cluster: ClusterSpec,
    strategy: DLRMStrategy,
    *,
    global_batch: int,
    mode: str = "training",
    efficiency: Efficiency | None = None,
    executor: HardwareModel | None = None,
) -> IterationBreakdown:
    """Time and memory of one DLRM iteration (``global_batch`` samples) under ``strategy``.

    Embeddings and MLPs are fp32; the optimizer is row-wise Adagrad for embeddings
    (one fp32 per row) and Adam for the MLPs (fp32 weights, grads, two moments).
    ``executor`` prices every kernel on one GPU (default: ``efficiency.roofline``).
    """
    _check_common(global_batch, mode)
    eff = efficiency or Efficiency()
    n = cluster.num_gpus
    if global_batch % n:
        raise StrategyRejected(strategy, f"global batch {global_batch} is not divisible by "
                               f"the {n} data-parallel GPUs")
    if mode == "decode":
        raise ConfigError("decode steps apply to LLMs only", field="mode",
                          allowed=["inference", "training"])
    training = mode == "training"
    dtype = "fp32" if workload.dtype == "fp32" else eff.dtype
    gpu = executor or eff.roofline(cluster, dtype)
    b_local = global_batch // n
    dense = dlrm_compute(workload, b_local, gpu)
    emb = embedding_term(workload, cluster, strategy, global_batch=global_batch,
                         training=training, executor=gpu)
    memory = dlrm_memory(workload, cluster, emb, eff, samples=b_local, training=training)
    if not memory.fits:
        raise StrategyRejected(strategy, memory.describe())

    dense_f, bottom_f = dense.dense_fwd_s, dense.bottom_fwd_s
    # The lookups and their all-to-all overlap the bottom MLP.
    fwd_crit = max(bottom_f, emb.lookup_s + emb.comm_fwd_s) + (dense_f - bottom_f)
    fwd_compute = max(bottom_f, emb.lookup_s) + (dense_f - bottom_f)
    exposed = {"all_to_all": fwd_crit - fwd_compute, "dp": 0.0, "embedding_sync": 0.0}
    comm = {"all_to_all": emb.comm_fwd_s, "dp": 0.0, "embedding_sync": 0.0}
    ps = workload.per_sample
    if training:
        dense_b = 2 * dense_f
        bottom_b = 2 * bottom_f
        update_s = emb.lookup_s  # write the touched rows back
        bwd_crit = (dense_b - bottom_b) + max(bottom_b, emb.comm_bwd_s + update_s)
        bwd_compute = (dense_b - bottom_b) + max(bottom_b, update_s)
        exposed["all_to_all"] += bwd_crit - bwd_compute
        comm["all_to_all"] += emb.comm_bwd_s
        sync = dlrm_sync(workload, cluster, emb, max(0.0, dense_b - bottom_b))
        comm["dp"], comm["embedding_sync"] = sync.dp_s, sync.embedding_s
        exposed["dp"], exposed["embedding_sync"] = sync.exposed_dp_s, sync.exposed_embedding_s
        optimizer_s = optimizer_step_s(gpu, workload.model.mlp_params,
                                       bytes_per_param=_ADAM_FP32_STEP_BYTES)
        compute_s = fwd_compute + bwd_compute + optimizer_s
        model_flops = 3 * global_batch * (ps["dense_flops"] + ps["emb_flops"])
    else:
        compute_s = fwd_compute
        model_flops = global_batch * (ps["dense_flops"] + ps["emb_flops"])
    cfg = workload.model
    return IterationBreakdown(
        model=workload.name, strategy=str(strategy), mode=mode, num_gpus=n,
        global_batch=global_batch, iteration_s=compute_s + sum(exposed.values()),
        compute_s=compute_s, recompute_s=0.0, bubble_s=0.0, exposed_comm_s=exposed,
        comm_s=comm, memory=memory, tokens_per_iteration=float(global_batch),
        model_flops=model_flops, peak_flops_per_s=cluster.gpu.peak(dtype),
        sync_points=1, details={"lookup_s": emb.lookup_s, "dense_fwd_s": dense_f,
                                "collectives": (3 if training else 2) + (2 if training else 0),
                                "kernels": 2 * (len(cfg.mlp_layers) + cfg.num_tables + 2)
                                * (3 if training else 1)},
    )


def _llm_evaluator(workload: LLMWorkload, cluster: ClusterSpec, *, global_batch: int,
                   mode: str, efficiency: Efficiency | None,
                   executor: HardwareModel | None) -> Callable[[Strategy], IterationBreakdown]:
    """:func:`evaluate_llm` for many strategies of one workload, cluster, batch and mode (what
    the search runs): the efficiency and default executor are built once and the per-shard
    terms shared between strategies (see :func:`_evaluate_llm`). Same results, same
    rejections."""
    eff = efficiency or Efficiency()
    gpu = executor or eff.roofline(cluster)
    cache = _SearchCache()

    def run(strategy: Strategy) -> IterationBreakdown:
        plan = llm_plan(workload, cluster, strategy, global_batch=global_batch, mode=mode)
        return _evaluate_llm(workload, cluster, strategy, plan, eff, gpu, global_batch, cache)
    return run


def evaluate(workload: LLMWorkload | DLRMWorkload, cluster: ClusterSpec,
             strategy: Strategy | DLRMStrategy, *, global_batch: int, mode: str = "training",
             efficiency: Efficiency | None = None,
             executor: HardwareModel | None = None) -> IterationBreakdown:
    """Dispatch to :func:`evaluate_llm` or :func:`evaluate_dlrm` by workload type."""
    if isinstance(workload, LLMWorkload) and isinstance(strategy, Strategy):
        return evaluate_llm(workload, cluster, strategy, global_batch=global_batch, mode=mode,
                            efficiency=efficiency, executor=executor)
    if isinstance(workload, DLRMWorkload) and isinstance(strategy, DLRMStrategy):
        return evaluate_dlrm(workload, cluster, strategy, global_batch=global_batch, mode=mode,
                             efficiency=efficiency, executor=executor)
    raise ConfigError(f"strategy {strategy} does not apply to model {workload.name}",
                      field="strategy")
