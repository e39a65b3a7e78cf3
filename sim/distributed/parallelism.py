"""Parallelization strategies: per-iteration time breakdown and per-GPU memory.

LLMs: data parallelism (DP) with ZeRO stages 0-3 (3 = FSDP), Megatron tensor
parallelism (TP) with optional sequence parallelism (SP), pipeline parallelism
(PP, 1F1B schedule with its bubble), context parallelism (CP, ring attention)
and full activation recomputation. DLRMs: embedding tables sharded table-,
column- or row-wise across all GPUs (all-to-all), row-wise within a node and
replicated across nodes, or fully replicated; MLPs data parallel.

What overlaps with what (per layer):

* TP all-reduces (or SP all-gather/reduce-scatter) sit between dependent matmuls:
  never overlapped, always exposed.
* CP key/value exchange overlaps the attention of the same layer.
* PP sends/receives between stages are on the critical path of each micro-batch.
* DP gradient reduction (ZeRO 0-2) overlaps the backward pass of the last
  micro-batch (bucketed; the last bucket is always exposed); the ZeRO-1/2 parameter
  all-gather overlaps the next iteration's first forward.
* ZeRO-3 parameter all-gathers are prefetched one layer ahead (forward and
  backward) and gradient reduce-scatters overlap the next layer's backward.
* DLRM pooled-embedding all-to-all overlaps the bottom MLP (forward and backward);
  the MLP gradient all-reduce overlaps the dense backward.

Backward costs twice the forward (two matmuls per forward matmul). Compute runs
on a :class:`~archsim.hw.models.gpu.GPURoofline` with stated efficiencies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...compilers.graph import dtype_bytes
from ...errors import ConfigError
from ...hw.models.gpu import GPURoofline
from .cluster import ClusterSpec
from .collectives import collective_time_s
from .models import DLRMWorkload, LLMWorkload

__all__ = [
    "Efficiency", "Strategy", "DLRMStrategy", "EMBEDDING_SHARDINGS", "MemoryBreakdown",
    "IterationBreakdown", "StrategyRejected", "evaluate", "evaluate_llm", "evaluate_dlrm",
    "WEIGHT_BYTES", "GRAD_BYTES", "OPTIMIZER_BYTES",
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


class StrategyRejected(ConfigError):
    """A strategy that cannot run; ``reason`` says why."""

    def __init__(self, strategy: Any, reason: str) -> None:
        self.strategy = strategy
        super().__init__(f"strategy {strategy} rejected: {reason}", field="strategy")
        self.reason = reason


@dataclass(frozen=True)
class Efficiency:
    """Achieved fractions of datasheet peaks and reserved memory (assumptions, stated).

    ``compute`` is the fraction of dense peak FLOP/s large GEMMs reach, ``memory``
    the fraction of HBM bandwidth streaming kernels reach; ``reserved_bytes`` is
    HBM lost to the CUDA context, NCCL buffers and fragmentation.
    """

    compute: float = 0.75
    memory: float = 0.8
    reserved_bytes: float = 3 * _GIB
    dtype: str = "bf16"

    def __post_init__(self) -> None:
        for attr in ("compute", "memory"):
            v = getattr(self, attr)
            if not 0 < v <= 1:
                raise ConfigError(f"must be in (0, 1], not {v!r}", field=attr)
        if self.reserved_bytes < 0:
            raise ConfigError(f"must be >= 0, not {self.reserved_bytes!r}",
                              field="reserved_bytes")

    def roofline(self, cluster: ClusterSpec, dtype: str | None = None) -> GPURoofline:
        return GPURoofline(cluster.gpu, dtype=dtype or self.dtype, compute_efficiency=self.compute,
                           memory_efficiency=self.memory)


@dataclass(frozen=True)
class Strategy:
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

    dp: int = 1
    tp: int = 1
    pp: int = 1
    cp: int = 1
    zero: int = 0
    micro_batch: int = 1
    recompute: str = "none"
    sequence_parallel: bool = False
    interleave: int = 1

    def __post_init__(self) -> None:
        for attr in ("dp", "tp", "pp", "cp", "micro_batch", "interleave"):
            v = getattr(self, attr)
            if not isinstance(v, int) or v < 1:
                raise ConfigError(f"must be a positive integer, not {v!r}", field=attr)
        if self.zero not in (0, 1, 2, 3):
            raise ConfigError(f"unknown ZeRO stage {self.zero!r}", field="zero",
                              allowed=[0, 1, 2, 3])
        if self.recompute not in ("none", "full"):
            raise ConfigError(f"unknown recompute policy '{self.recompute}'", field="recompute",
                              allowed=["none", "full"])
        if self.sequence_parallel and self.tp == 1:
            raise ConfigError("sequence parallelism needs tp > 1", field="sequence_parallel")
        if self.interleave > 1 and self.pp == 1:
            raise ConfigError("an interleaved schedule needs pp > 1", field="interleave")

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


EMBEDDING_SHARDINGS = ("table", "column", "row", "node-row", "replicated")


@dataclass(frozen=True)
class DLRMStrategy:
    """A DLRM parallelization: MLPs data parallel over all GPUs, embeddings sharded by
    ``embedding`` (one of :data:`EMBEDDING_SHARDINGS`)."""

    embedding: str = "table"

    def __post_init__(self) -> None:
        if self.embedding not in EMBEDDING_SHARDINGS:
            raise ConfigError(f"unknown embedding sharding '{self.embedding}'",
                              field="embedding", allowed=EMBEDDING_SHARDINGS)

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
    details: dict[str, Any] = field(default_factory=dict)

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

    def to_row(self) -> dict[str, Any]:
        row = {"model": self.model, "strategy": self.strategy, "mode": self.mode,
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


def evaluate_llm(
    workload: LLMWorkload,
    cluster: ClusterSpec,
    strategy: Strategy,
    *,
    global_batch: int,
    mode: str = "training",
    efficiency: Efficiency | None = None,
) -> IterationBreakdown:
    """Time and memory of one iteration of ``workload`` under ``strategy``.

    ``global_batch`` is in sequences. Raises :class:`StrategyRejected` (a
    :class:`ConfigError`) naming the reason when the strategy cannot run.
    """
    _check_common(global_batch, mode)
    eff = efficiency or Efficiency()
    st = strategy
    cfg = workload.model
    n = cluster.num_gpus
    if st.num_gpus != n:
        raise StrategyRejected(st, f"dp*tp*pp*cp = {st.num_gpus} but the cluster has {n} GPUs")
    if cfg.num_heads % st.tp:
        raise StrategyRejected(st, f"tp {st.tp} does not divide {cfg.num_heads} attention heads")
    if cfg.num_kv_heads % st.tp and st.tp % cfg.num_kv_heads:
        raise StrategyRejected(st, f"tp {st.tp} and {cfg.num_kv_heads} KV heads do not divide "
                               "one another")
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
    training = mode == "training"
    decode = mode == "decode"
    if not training and (st.zero or st.recompute != "none"):
        raise StrategyRejected(st, "ZeRO and recomputation apply to training only")
    if decode and (st.cp > 1 or v > 1):
        raise StrategyRejected(st, "context parallelism and interleaving do not apply to "
                               "decode steps")

    roof = eff.roofline(cluster)
    mb, tp, cp, pp, dp = st.micro_batch, st.tp, st.cp, st.pp, st.dp
    sp = st.sequence_parallel
    m = global_batch // (dp * mb)
    layers_stage = math.ceil(cfg.num_layers / pp)

    # -- compute of one layer and of the head for one micro-batch ------------------------
    f_layer = attn_f = 0.0
    tokens = workload.tokens_per_sequence(mode)
    act_layer_bytes = workload.hidden_bytes(mb, tokens) / cp / (tp if sp else 1)  # layer input
    for o in workload.ops(mode):
        split = tp if (o.tp_split or sp) else 1
        t, _ = roof.time_s(o.flops * mb / (cp * split),
                           (o.act_bytes * mb / cp + o.weight_bytes) / split)
        f_layer += t
        if o.kind == "attention":
            attn_f = t
        act_layer_bytes += o.out_bytes * mb / cp / split
    h = workload.head(mode)
    head_f, _ = roof.time_s(h.flops * mb / (cp * tp), (h.act_bytes * mb / cp + h.weight_bytes) / tp)

    # -- communication per layer per micro-batch ---------------------------------------------
    hid = workload.hidden_bytes(mb, tokens) / cp
    if tp > 1:
        if sp:
            tp_f = 2 * (collective_time_s("all_gather", hid, cluster, size=tp)
                        + collective_time_s("reduce_scatter", hid, cluster, size=tp))
        else:
            tp_f = 2 * collective_time_s("all_reduce", hid, cluster, size=tp)
    else:
        tp_f = 0.0
    if cp > 1:
        # Ring attention: every rank receives the other ranks' K and V chunks of the sequence.
        kv_bytes = 2 * mb * workload.seq_len * cfg.kv_hidden * dtype_bytes(workload.dtype) / tp
        cp_f = collective_time_s("all_gather", kv_bytes, cluster, size=cp, stride=tp)
    else:
        cp_f = 0.0
    cp_exp_f = max(0.0, cp_f - attn_f)
    cp_exp_b = max(0.0, 2 * cp_f - 2 * attn_f)
    # One send per virtual stage boundary crossed by the micro-batch on this GPU.
    p2p = v * (collective_time_s("p2p", hid / (tp if sp else 1), cluster, size=2,
                                 stride=tp * cp * dp) if pp > 1 else 0.0)

    # -- parameters on the most loaded stage ----------------------------------------------
    emb_stage = cfg.embedding_params if pp == 1 else cfg.vocab * cfg.hidden
    params_gpu = (layers_stage * cfg.params_per_layer + emb_stage) / tp
    layer_params_gpu = cfg.params_per_layer / tp
    shard = dp * cp  # ZeRO shards over every rank holding the same weights

    comm: dict[str, float] = {"tp": 0.0, "cp": 0.0, "pp": 0.0, "dp": 0.0}
    exposed: dict[str, float] = {"tp": 0.0, "cp": 0.0, "pp": 0.0, "dp": 0.0}
    if training:
        rec = st.recompute == "full"
        z3_f = z3_b = z3_comm_mb = 0.0
        if st.zero == 3 and shard > 1:
            ag = collective_time_s("all_gather", layer_params_gpu * WEIGHT_BYTES, cluster,
                                   size=shard, stride=tp)
            rs = collective_time_s("reduce_scatter", layer_params_gpu * GRAD_BYTES, cluster,
                                   size=shard, stride=tp)
            z3_f = ag + layers_stage * max(0.0, ag - f_layer)
            z3_b = layers_stage * max(0.0, ag + rs - 2 * f_layer)
            z3_comm_mb = layers_stage * (2 * ag + rs)
        fwd = layers_stage * (f_layer + tp_f + cp_exp_f) + head_f + p2p + z3_f
        # Backward: twice the forward compute and the same two TP collectives.
        bwd = layers_stage * (2 * f_layer + tp_f + cp_exp_b) + 2 * head_f + p2p + z3_b
        if rec:
            bwd += layers_stage * (f_layer + tp_f + cp_exp_f)
        per_mb = fwd + bwd
        bubble = (pp - 1) * per_mb / v
        pipeline_s = m * per_mb + bubble
        # Gradient reduction and parameter all-gather (ZeRO 0-2).
        dp_exp = 0.0
        if shard > 1 and st.zero < 3:
            grad_bytes = params_gpu * GRAD_BYTES
            if st.zero == 0:
                red = collective_time_s("all_reduce", grad_bytes, cluster, size=shard, stride=tp)
                gat = 0.0
            else:
                red = collective_time_s("reduce_scatter", grad_bytes, cluster, size=shard,
                                        stride=tp)
                gat = collective_time_s("all_gather", params_gpu * WEIGHT_BYTES, cluster,
                                        size=shard, stride=tp)
            window_b = layers_stage * 2 * f_layer
            window_f = layers_stage * f_layer
            dp_exp = (max(red / layers_stage, red - window_b)
                      + (max(gat / layers_stage, gat - window_f) if gat else 0.0))
            comm["dp"] = red + gat
        else:
            comm["dp"] = m * z3_comm_mb
        opt_params = params_gpu / (shard if st.zero >= 1 else 1)
        optimizer_s = opt_params * _ADAM_STEP_BYTES / (cluster.gpu.hbm_bw_bytes_per_s
                                                       * eff.memory)
        iteration = pipeline_s + dp_exp + optimizer_s
        compute_s = m * (layers_stage * 3 * f_layer + 3 * head_f) + optimizer_s
        recompute_s = m * layers_stage * f_layer if rec else 0.0
        n_tp = 3 if rec else 2
        exposed["tp"] = m * layers_stage * n_tp * tp_f
        exposed["cp"] = m * layers_stage * (cp_exp_f * (2 if rec else 1) + cp_exp_b)
        exposed["pp"] = m * 2 * p2p
        exposed["dp"] = dp_exp + m * (z3_f + z3_b)
        comm["tp"] = exposed["tp"]
        comm["cp"] = m * layers_stage * cp_f * (4 if rec else 3)
        comm["pp"] = exposed["pp"]
        model_flops = workload.training_flops(global_batch)
        # memory
        weights = params_gpu * WEIGHT_BYTES / (shard if st.zero == 3 else 1)
        grads = params_gpu * GRAD_BYTES / (shard if st.zero >= 2 else 1)
        optim = params_gpu * OPTIMIZER_BYTES / (shard if st.zero >= 1 else 1)
        buffers = 2 * layer_params_gpu * WEIGHT_BYTES if st.zero == 3 and shard > 1 else 0.0
        # 1F1B: the first stage holds pp micro-batches; interleaving adds (pp-1)/(pp v) more
        # (Narayanan et al. 2021, Sec. 2.2.2).
        in_flight = min(pp, m) * (1 + (pp - 1) / (pp * v) if v > 1 else 1)
        stored = (workload.hidden_bytes(mb) / cp / (tp if sp else 1) if rec
                  else act_layer_bytes)
        logits = mb * workload.seq_len * cfg.vocab * 4 / (tp * cp)  # fp32 for the loss
        activations = in_flight * layers_stage * stored + (act_layer_bytes if rec else 0) + logits
        sync_points = 1 + (2 * layers_stage * m if st.zero == 3 and shard > 1 else 0)
    else:
        fwd = layers_stage * (f_layer + tp_f + cp_exp_f) + head_f + p2p
        if decode:
            # Steady-state generation: every stage busy once there are pp micro-batches.
            bubble = max(0, pp - m) * fwd
        else:
            bubble = (pp - 1) * fwd / v
        iteration = m * fwd + bubble
        compute_s = m * (layers_stage * f_layer + head_f)
        recompute_s = 0.0
        exposed["tp"] = comm["tp"] = m * layers_stage * tp_f
        exposed["cp"] = m * layers_stage * cp_exp_f
        comm["cp"] = m * layers_stage * cp_f
        exposed["pp"] = comm["pp"] = m * p2p
        model_flops = global_batch * (workload.decode_flops_per_sequence() if decode
                                      else workload.forward_flops_per_sequence())
        weights = params_gpu * WEIGHT_BYTES
        grads = optim = buffers = 0.0
        # KV heads split over TP up to their number (then replicated). Prefill keeps one
        # micro-batch's cache; decode keeps every resident sequence's.
        resident = global_batch // dp if decode else mb
        kv = (2 * layers_stage * cfg.kv_hidden * resident * workload.seq_len
              * dtype_bytes(workload.dtype) / (min(tp, cfg.num_kv_heads) * cp))
        activations = kv + act_layer_bytes + mb * tokens * cfg.vocab * 4 / (tp * cp)
        sync_points = 1
    memory = MemoryBreakdown(weights, grads, optim, activations, buffers, eff.reserved_bytes,
                             cluster.memory_bytes)
    if not memory.fits:
        raise StrategyRejected(st, memory.describe())
    return IterationBreakdown(
        model=workload.name, strategy=str(st), mode=mode, num_gpus=n, global_batch=global_batch,
        iteration_s=iteration, compute_s=compute_s, recompute_s=recompute_s, bubble_s=bubble,
        exposed_comm_s=exposed, comm_s=comm,
        memory=memory, tokens_per_iteration=global_batch * tokens,
        model_flops=model_flops, peak_flops_per_s=cluster.gpu.peak(eff.dtype),
        sync_points=sync_points,
        details={"micro_batches": m, "layers_per_stage": layers_stage,
                 "collectives": _llm_collectives(st, m, layers_stage, mode),
                 "kernels": m * (layers_stage * len(workload.ops(mode)) + 1)
                 * ((4 if st.recompute == "full" else 3) if training else 1),
                 "layer_fwd_s": f_layer, "tp_comm_per_layer_s": tp_f,
                 "optimizer_s": optimizer_s if training else 0.0},
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


def evaluate_dlrm(
    workload: DLRMWorkload,
    cluster: ClusterSpec,
    strategy: DLRMStrategy,
    *,
    global_batch: int,
    mode: str = "training",
    efficiency: Efficiency | None = None,
) -> IterationBreakdown:
    """Time and memory of one DLRM iteration (``global_batch`` samples) under ``strategy``.

    Embeddings and MLPs are fp32; the optimizer is row-wise Adagrad for embeddings
    (one fp32 per row) and Adam for the MLPs (fp32 weights, grads, two moments).
    """
    _check_common(global_batch, mode)
    eff = efficiency or Efficiency()
    cfg = workload.model
    n, g = cluster.num_gpus, min(cluster.gpus_per_node, cluster.num_gpus)
    nodes = n // g
    if global_batch % n:
        raise StrategyRejected(strategy, f"global batch {global_batch} is not divisible by "
                               f"the {n} data-parallel GPUs")
    if mode == "decode":
        raise ConfigError("decode steps apply to LLMs only", field="mode",
                          allowed=["inference", "training"])
    training = mode == "training"
    roof = eff.roofline(cluster, "fp32" if workload.dtype == "fp32" else eff.dtype)
    b_local = global_batch // n
    ps = workload.per_sample
    d = cfg.embedding_dim
    eb = dtype_bytes(workload.dtype)
    row_bytes = d * eb
    pooled = workload.pooled_bytes_per_sample()
    idx = workload.index_bytes_per_sample()
    bw = cluster.gpu.hbm_bw_bytes_per_s * eff.memory
    opt_row = 4 if training else 0  # row-wise Adagrad state

    # dense part (bottom and top MLP + interaction), bottom MLP share overlaps the lookups
    dense_f, _ = roof.time_s(ps["dense_flops"] * b_local,
                             ps["dense_act_bytes"] * b_local + cfg.mlp_params * 4)
    bottom_share = (sum(i * o for i, o in cfg.mlp_layers[:len(cfg.bottom_mlp) - 1])
                    / sum(i * o for i, o in cfg.mlp_layers))
    bottom_f = dense_f * bottom_share
    lookups_per_table = global_batch * cfg.pooling_factor
    lookups_per_sample = cfg.num_tables * cfg.pooling_factor
    emb_sync = 0.0
    kind = strategy.embedding
    if kind in ("table", "column"):
        if kind == "column":
            splits = 1
            while cfg.num_tables * splits < n and d % (2 * splits) == 0:
                splits *= 2
        else:
            splits = 1
        sizes = [r * (d // splits * eb + opt_row) for r in cfg.table_rows for _ in range(splits)]
        loads = [lookups_per_table * d / splits * eb] * len(sizes)
        max_load_bytes, emb_mem = _lpt_max_load(sizes, loads, n)
        lookup_s = max_load_bytes / bw
        shards_busiest = round(max_load_bytes / loads[0])
        # The busiest GPU sends its shards' pooled vectors for the whole batch; every GPU
        # receives its own samples' vectors of every table.
        pooled_n = max(shards_busiest * global_batch * d / splits * eb, b_local * pooled)
        idx_s = collective_time_s("all_to_all", b_local * idx, cluster, size=n)
        comm_b = collective_time_s("all_to_all", pooled_n, cluster, size=n)
        comm_f = idx_s + comm_b
    elif kind == "row":
        emb_mem = sum(r * (row_bytes + opt_row) for r in cfg.table_rows) / n
        lookup_s = global_batch * lookups_per_sample * row_bytes / n / bw
        comm_f = (collective_time_s("all_gather", global_batch * idx, cluster, size=n)
                  + collective_time_s("reduce_scatter", global_batch * pooled, cluster, size=n))
        comm_b = collective_time_s("all_gather", global_batch * pooled, cluster, size=n)
    elif kind == "node-row":
        b_node = global_batch // nodes
        emb_mem = sum(r * (row_bytes + opt_row) for r in cfg.table_rows) / g
        lookup_s = b_node * lookups_per_sample * row_bytes / g / bw
        comm_f = (collective_time_s("all_gather", b_node * idx, cluster, size=g)
                  + collective_time_s("reduce_scatter", b_node * pooled, cluster, size=g))
        comm_b = collective_time_s("all_gather", b_node * pooled, cluster, size=g)
        if training and nodes > 1:
            # Sparse gradient exchange of the touched rows across the replicas, one rail per GPU.
            touched = global_batch * lookups_per_sample * (row_bytes + 8)  # row + index
            emb_sync = collective_time_s("all_gather", touched / g, cluster, size=nodes, stride=g)
    else:  # replicated
        emb_mem = sum(r * (row_bytes + opt_row) for r in cfg.table_rows)
        lookup_s = b_local * lookups_per_sample * row_bytes / bw
        comm_f = comm_b = 0.0
        if training and n > 1:
            touched = global_batch * lookups_per_sample * (row_bytes + 8)  # row + index
            emb_sync = collective_time_s("all_gather", touched, cluster, size=n)
    fwd_crit = max(bottom_f, lookup_s + comm_f) + (dense_f - bottom_f)
    fwd_compute = max(bottom_f, lookup_s) + (dense_f - bottom_f)
    exposed = {"all_to_all": fwd_crit - fwd_compute, "dp": 0.0, "embedding_sync": 0.0}
    comm = {"all_to_all": comm_f, "dp": 0.0, "embedding_sync": 0.0}
    if training:
        dense_b = 2 * dense_f
        bottom_b = 2 * bottom_f
        update_s = lookup_s  # write the touched rows back
        bwd_crit = (dense_b - bottom_b) + max(bottom_b, comm_b + update_s)
        bwd_compute = (dense_b - bottom_b) + max(bottom_b, update_s)
        exposed["all_to_all"] += bwd_crit - bwd_compute
        comm["all_to_all"] += comm_b
        ar = collective_time_s("all_reduce", cfg.mlp_params * 4, cluster, size=n)
        comm["dp"], comm["embedding_sync"] = ar, emb_sync
        hidden = max(0.0, dense_b - bottom_b)
        total_sync = ar + emb_sync
        exposed_sync = max(0.0, total_sync - hidden)
        if total_sync > 0:
            exposed["dp"] = exposed_sync * ar / total_sync
            exposed["embedding_sync"] = exposed_sync * emb_sync / total_sync
        optimizer_s = cfg.mlp_params * 32 / bw
        compute_s = fwd_compute + bwd_compute + optimizer_s
        model_flops = 3 * global_batch * (ps["dense_flops"] + ps["emb_flops"])
    else:
        compute_s = fwd_compute
        model_flops = global_batch * (ps["dense_flops"] + ps["emb_flops"])
    iteration = compute_s + sum(exposed.values())
    activations = b_local * (ps["dense_act_bytes"] + 2 * pooled) * (2 if training else 1)
    memory = MemoryBreakdown(weights_bytes=emb_mem + cfg.mlp_params * 4,
                             grads_bytes=cfg.mlp_params * 4 if training else 0.0,
                             optimizer_bytes=cfg.mlp_params * 8 if training else 0.0,
                             activations_bytes=activations, buffers_bytes=0.0,
                             reserved_bytes=eff.reserved_bytes,
                             capacity_bytes=cluster.memory_bytes)
    if not memory.fits:
        raise StrategyRejected(strategy, memory.describe())
    return IterationBreakdown(
        model=workload.name, strategy=str(strategy), mode=mode, num_gpus=n,
        global_batch=global_batch, iteration_s=iteration, compute_s=compute_s, recompute_s=0.0,
        bubble_s=0.0, exposed_comm_s=exposed, comm_s=comm, memory=memory,
        tokens_per_iteration=float(global_batch), model_flops=model_flops,
        peak_flops_per_s=cluster.gpu.peak("fp32" if workload.dtype == "fp32" else eff.dtype),
        sync_points=1, details={"lookup_s": lookup_s, "dense_fwd_s": dense_f,
                                "collectives": (3 if training else 2) + (2 if training else 0),
                                "kernels": 2 * (len(cfg.mlp_layers) + cfg.num_tables + 2)
                                * (3 if training else 1)},
    )


def evaluate(workload: LLMWorkload | DLRMWorkload, cluster: ClusterSpec,
             strategy: Strategy | DLRMStrategy, *, global_batch: int, mode: str = "training",
             efficiency: Efficiency | None = None) -> IterationBreakdown:
    """Dispatch to :func:`evaluate_llm` or :func:`evaluate_dlrm` by workload type."""
    if isinstance(workload, LLMWorkload) and isinstance(strategy, Strategy):
        return evaluate_llm(workload, cluster, strategy, global_batch=global_batch, mode=mode,
                            efficiency=efficiency)
    if isinstance(workload, DLRMWorkload) and isinstance(strategy, DLRMStrategy):
        return evaluate_dlrm(workload, cluster, strategy, global_batch=global_batch, mode=mode,
                             efficiency=efficiency)
    raise ConfigError(f"strategy {strategy} does not apply to model {workload.name}",
                      field="strategy")
