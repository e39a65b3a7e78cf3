"""Strategy search: enumerate legal strategies, rank them by throughput, compare to a baseline."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import ConfigError
from ...hw.models.base import HardwareModel
from ...loading import ProgressCallback
from .cluster import ClusterSpec
from .models import DLRMWorkload, LLMWorkload
from .parallelism import (
    EMBEDDING_SHARDINGS,
    DLRMStrategy,
    Efficiency,
    IterationBreakdown,
    Strategy,
    StrategyRejected,
    _llm_evaluator,
    evaluate,
)

__all__ = ["SearchResult", "enumerate_strategies", "baseline_strategies", "search",
           "max_usable_gpus", "BASELINES"]

#: The baselines a search compares its best strategy against: ``"tp-node"`` (data parallel x
#: tensor parallel across one node) and ``"madmax"``, the strategies of MAD-Max's published
#: task configurations (Hsia et al. 2024; samhsia/MADMax ``task_cfgs/llm/llm_train.json``: the
#: transformer FSDP over every GPU with a local batch of 1; ``task_cfgs/dlrm/dlrm_train.json``:
#: embedding tables model-parallel over every GPU, MLPs data parallel).
BASELINES = ("tp-node", "madmax")

_MICRO_BATCHES = (1, 2, 4, 8)
_CP_DEGREES = (1, 2, 4, 8)
_INTERLEAVE = (1, 2, 4)


@dataclass
class SearchResult:
    """Ranked legal strategies (fastest first), the baseline and the rejected ones."""

    model: str
    mode: str
    num_gpus: int
    global_batch: int
    ranked: list[IterationBreakdown]
    baseline: IterationBreakdown | None
    baseline_description: str
    rejected: list[tuple[str, str]] = field(default_factory=list)

    @property
    def best(self) -> IterationBreakdown:
        return self.ranked[0]

    @property
    def speedup(self) -> float | None:
        """Throughput of the best over the baseline (``None`` when the baseline cannot run)."""
        if self.baseline is None:
            return None
        return self.baseline.iteration_s / self.best.iteration_s

    @property
    def num_evaluated(self) -> int:
        return len(self.ranked) + len(self.rejected)

    def rejection_summary(self) -> dict[str, int]:
        """Rejection reasons with the numbers in them stripped, counted."""
        import re

        return dict(Counter(re.sub(r"[\d.]+", "#", r) for _, r in self.rejected).most_common())

    def to_dict(self, top: int = 10) -> dict[str, object]:
        return {"model": self.model, "mode": self.mode, "num_gpus": self.num_gpus,
                "global_batch": self.global_batch, "num_evaluated": self.num_evaluated,
                "num_legal": len(self.ranked), "speedup_vs_baseline": self.speedup,
                "baseline_description": self.baseline_description,
                "baseline": self.baseline.to_row() if self.baseline else None,
                "best": self.best.to_row(), "top": [r.to_row() for r in self.ranked[:top]],
                "rejections": self.rejection_summary()}


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def max_usable_gpus(workload: LLMWorkload | DLRMWorkload, cluster: ClusterSpec,
                    global_batch: int) -> int:
    """The most GPUs any enumerated strategy can occupy for this batch."""
    if isinstance(workload, DLRMWorkload):
        return global_batch
    cfg = workload.model
    max_tp = max(t for t in cfg.tp_degrees() if t <= cluster.gpus_per_node)
    max_cp = max(c for c in _CP_DEGREES if workload.seq_len % c == 0)
    return global_batch * max_tp * cfg.num_layers * max_cp


def enumerate_strategies(workload: LLMWorkload | DLRMWorkload, cluster: ClusterSpec, *,
                         global_batch: int,
                         mode: str = "training") -> list[Strategy] | list[DLRMStrategy]:
    """Every candidate strategy for the cluster's GPU count (legality is checked by
    :func:`~archsim.sim.distributed.parallelism.evaluate`)."""
    if isinstance(workload, DLRMWorkload):
        return [DLRMStrategy(embedding=e) for e in EMBEDDING_SHARDINGS]
    n = cluster.num_gpus
    cfg = workload.model
    out: list[Strategy] = []
    allowed = set(cfg.tp_degrees())  # the heads rule serving shares (TransformerConfig)
    tps = [t for t in _divisors(cluster.gpus_per_node) if t in allowed and n % t == 0]
    training = mode == "training"
    cps = (1,) if mode == "decode" else _CP_DEGREES
    for tp, cp in itertools.product(tps, cps):
        if n % (tp * cp) or workload.seq_len % cp:
            continue
        for pp in _divisors(n // (tp * cp)):
            if pp > cfg.num_layers:
                continue
            dp = n // (tp * cp * pp)
            zeros = (0, 1, 2, 3) if training and dp * cp > 1 else (0,)
            recomputes = ("none", "full") if training else ("none",)
            sps = (False, True) if tp > 1 else (False,)
            vs = [v for v in _INTERLEAVE if v == 1 or cfg.num_layers % (pp * v) == 0]
            if pp == 1 or mode == "decode":
                vs = [1]
            # also the whole per-replica batch as one micro-batch (the natural inference choice)
            mbs = sorted(set(_MICRO_BATCHES) | ({global_batch // dp} if global_batch >= dp
                                                  else set()))
            for zero, mb, rc, sp, v in itertools.product(zeros, mbs, recomputes, sps, vs):
                if global_batch % (dp * mb):
                    continue
                # Validated like any Strategy: measured, validation (pydantic's core) costs
                # about what model_construct does (~4 us per candidate, 0.05 s of a
                # 12,000-candidate search), so skipping it would buy nothing.
                out.append(Strategy(dp=dp, tp=tp, pp=pp, cp=cp, zero=zero, micro_batch=mb,
                                    recompute=rc, sequence_parallel=sp, interleave=v))
    return out


def baseline_strategies(workload: LLMWorkload | DLRMWorkload, cluster: ClusterSpec, *,
                        mode: str = "training", global_batch: int = 1,
                        baseline: str = "tp-node",
                        ) -> tuple[list[Strategy] | list[DLRMStrategy], str]:
    """The baseline, in order of preference (the first that runs is used), and its description.

    ``baseline="tp-node"``, LLMs: data parallel + tensor parallel across one node (TP = GPUs
    per node, or the largest degree the heads allow), no pipeline or context parallelism, the
    lowest ZeRO stage and no recomputation unless memory forces them; micro-batch 1 for
    training, the whole per-replica batch for inference (prefill and decode).

    ``baseline="madmax"``, LLMs: MAD-Max's published configuration, FSDP (ZeRO-3) over every
    GPU with one sequence per micro-batch, for training and (as MAD-Max's inference is the
    forward stream of the same task) for inference and decode; full recomputation only when
    memory forces it.

    DLRMs (both): embedding tables sharded table-wise over all GPUs (column-wise when there are
    fewer tables than GPUs), MLPs data parallel.
    """
    if baseline not in BASELINES:
        raise ConfigError(f"unknown baseline '{baseline}'", field="baseline", allowed=BASELINES)
    n = cluster.num_gpus
    if isinstance(workload, DLRMWorkload):
        kind = "table" if workload.model.num_tables >= n else "column"
        return [DLRMStrategy(embedding=kind)], (f"embeddings sharded {kind}-wise over all GPUs, "
                                      "MLPs data parallel")
    if baseline == "madmax":
        if mode == "training":
            return ([Strategy(dp=n, zero=3 if n > 1 else 0, recompute=rc)
                     for rc in ("none", "full")],
                    f"FSDP over all {n} GPUs, micro-batch 1 (MAD-Max's llm_train task), "
                    "recomputation only if memory forces it")
        return ([Strategy(dp=n, zero=3 if n > 1 else 0)],
                f"FSDP over all {n} GPUs, micro-batch 1, forward only (MAD-Max's inference "
                "of its llm_train task)")
    cfg = workload.model
    tp = max(t for t in _divisors(min(cluster.gpus_per_node, n))
             if cfg.tp_problem(t) is None and n % t == 0)
    dp = n // tp
    if mode == "training":
        cands = [Strategy(dp=dp, tp=tp, zero=z if dp > 1 else 0, recompute=rc)
                 for z in (0, 1, 2, 3) for rc in ("none", "full")]
        return cands, (f"DP {dp} x TP {tp} (in a node), micro-batch 1, lowest ZeRO stage and "
                       "recomputation that fit")
    local = max(1, global_batch // dp)
    cands = [Strategy(dp=dp, tp=tp, micro_batch=local), Strategy(dp=dp, tp=tp)]
    return cands, (f"DP {dp} x TP {tp} (in a node), the replica's {local} sequences as one "
                   "micro-batch (else 1)")


def _evaluator(workload: LLMWorkload | DLRMWorkload, cluster: ClusterSpec, *,
               global_batch: int, mode: str, efficiency: Efficiency | None,
               executor: HardwareModel | None,
               ) -> Callable[[Strategy | DLRMStrategy], IterationBreakdown]:
    """:func:`evaluate` of one candidate; for LLMs the shared-term evaluator (same results,
    the strategy-independent work done once per search)."""
    if isinstance(workload, LLMWorkload):
        llm = _llm_evaluator(workload, cluster, global_batch=global_batch, mode=mode,
                             efficiency=efficiency, executor=executor)

        def run(st: Strategy | DLRMStrategy) -> IterationBreakdown:
            if isinstance(st, Strategy):
                return llm(st)
            return evaluate(workload, cluster, st, global_batch=global_batch, mode=mode,
                            efficiency=efficiency, executor=executor)
        return run

    def run_any(st: Strategy | DLRMStrategy) -> IterationBreakdown:
        return evaluate(workload, cluster, st, global_batch=global_batch, mode=mode,
                        efficiency=efficiency, executor=executor)
    return run_any


def search(
    workload: LLMWorkload | DLRMWorkload,
    cluster: ClusterSpec,
    *,
    global_batch: int,
    mode: str = "training",
    efficiency: Efficiency | None = None,
    executor: HardwareModel | None = None,
    progress: ProgressCallback | None = None,
    baseline: str = "tp-node",
) -> SearchResult:
    """Evaluate every candidate strategy and rank the legal ones by iteration time.

    ``progress(done, total)`` is called after each candidate; ``executor`` prices every
    kernel (see :func:`~archsim.sim.distributed.parallelism.evaluate`); ``baseline`` (one of
    :data:`BASELINES`, see :func:`baseline_strategies`) is what the speedup is measured
    against. The baseline is ranked too, so the best is never slower than it.

    Raises :class:`ConfigError` when the cluster has more GPUs than the model can use
    at this batch, or when no strategy fits (with the most common reasons).
    """
    if not isinstance(global_batch, int) or global_batch < 1:
        raise ConfigError(f"must be a positive integer, not {global_batch!r}",
                          field="global_batch")
    if baseline not in BASELINES:
        raise ConfigError(f"unknown baseline '{baseline}'", field="baseline", allowed=BASELINES)
    usable = max_usable_gpus(workload, cluster, global_batch)
    if cluster.num_gpus > usable:
        raise ConfigError(
            f"{cluster.num_gpus} GPUs is more than {workload.name} can use with a global batch "
            f"of {global_batch} (at most {usable})", field="num_gpus")
    cands = enumerate_strategies(workload, cluster, global_batch=global_batch, mode=mode)
    ranked: list[IterationBreakdown] = []
    rejected: list[tuple[str, str]] = []
    candidates: list[Strategy | DLRMStrategy] = list(cands)
    run = _evaluator(workload, cluster, global_batch=global_batch, mode=mode,
                     efficiency=efficiency, executor=executor)
    for done, st in enumerate(candidates, start=1):
        try:
            ranked.append(run(st))
        except StrategyRejected as exc:
            rejected.append((str(st), exc.reason))
        if progress is not None:
            progress(done, len(candidates))
    if not ranked:
        reasons = Counter(r for _, r in rejected).most_common(3)
        raise ConfigError(
            f"no strategy runs {workload.name} on {cluster.num_gpus} GPUs with global batch "
            f"{global_batch}; e.g. " + "; ".join(f"{r} ({c}x)" for r, c in reasons)
            if reasons else f"no candidate strategy for {cluster.num_gpus} GPUs",
            field="strategy")
    base_cands, description = baseline_strategies(workload, cluster, mode=mode,
                                                  global_batch=global_batch, baseline=baseline)
    base = None
    for st in base_cands:
        try:
            base = evaluate(workload, cluster, st, global_batch=global_batch, mode=mode,
                            efficiency=efficiency, executor=executor)
            break
        except StrategyRejected as exc:
            description_reason = exc.reason
    else:
        description += f" -- cannot run: {description_reason}"
    if base is not None and all(r.strategy != base.strategy for r in ranked):
        ranked.append(base)  # a baseline outside the enumerated space (FSDP inference)
    ranked.sort(key=lambda r: r.iteration_s)
    return SearchResult(model=workload.name, mode=mode, num_gpus=cluster.num_gpus,
                        global_batch=global_batch, ranked=ranked, baseline=base,
                        baseline_description=description, rejected=rejected)
