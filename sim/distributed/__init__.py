"""Distributed training and inference at data-centre scale.

MAD-Max-style parallelization modelling (clusters, alpha-beta collectives,
DP/ZeRO/TP/PP/SP/CP and DLRM embedding sharding, strategy search), PRISM-style
runtime variability (Monte Carlo and order statistics) and the MLPerf
time-to-train methodology. The models trained (transformers, DLRMs) are built by
:mod:`archsim.compilers.graph`; every kernel is priced by a
:class:`~archsim.hw.models.base.HardwareModel`. The studies that use this engine
(``archsim study madmax``, ``archsim study prism``) live apart from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .cluster import NETWORKS, ClusterSpec, GroupPlacement, LinkSpec, make_cluster
    from .collectives import (
        COLLECTIVES,
        all_gather_s,
        all_to_all_s,
        collective_time_s,
        hierarchical_all_gather_s,
        hierarchical_all_reduce_s,
        hierarchical_all_to_all_s,
        p2p_s,
        reduce_scatter_s,
        ring_all_reduce_s,
        tree_all_reduce_s,
    )
    from .mlperf import ConvergenceModel, MLPerfScore, mlperf_score, simulate_time_to_train
    from .models import TP_SPLIT_KINDS, DLRMWorkload, LLMWorkload, get_workload, tp_splits
    from .parallelism import (
        EMBEDDING_SHARDINGS,
        DLRMStrategy,
        Efficiency,
        IterationBreakdown,
        MemoryBreakdown,
        Strategy,
        StrategyRejected,
        evaluate,
        evaluate_dlrm,
        evaluate_llm,
        shard_tile,
    )
    from .placement import (
        PLACEMENTS,
        Layout,
        SpeedModel,
        iteration_factor,
        place,
        placement_gain,
        sigma_from_variation,
        variation_from_sigma,
    )
    from .search import BASELINES, SearchResult, baseline_strategies, enumerate_strategies, search
    from .variability import (
        PRISM_DEFAULT,
        VARIABILITY_DEFINITIONS,
        IterationDistribution,
        VariabilityModel,
        expected_max_over_median,
        finish_time_quantiles,
        gpu_time_variability,
        iteration_distribution,
        probability_of_finishing,
        slowdown_vs_gpus,
        total_time_quantiles,
    )

#: Each public name and its submodule, imported on first use (see :mod:`archsim.lazy`).
_EXPORTS = {
    "NETWORKS": ".cluster",
    "ClusterSpec": ".cluster",
    "GroupPlacement": ".cluster",
    "LinkSpec": ".cluster",
    "make_cluster": ".cluster",
    "COLLECTIVES": ".collectives",
    "all_gather_s": ".collectives",
    "all_to_all_s": ".collectives",
    "collective_time_s": ".collectives",
    "hierarchical_all_gather_s": ".collectives",
    "hierarchical_all_reduce_s": ".collectives",
    "hierarchical_all_to_all_s": ".collectives",
    "p2p_s": ".collectives",
    "reduce_scatter_s": ".collectives",
    "ring_all_reduce_s": ".collectives",
    "tree_all_reduce_s": ".collectives",
    "ConvergenceModel": ".mlperf",
    "MLPerfScore": ".mlperf",
    "mlperf_score": ".mlperf",
    "simulate_time_to_train": ".mlperf",
    "TP_SPLIT_KINDS": ".models",
    "DLRMWorkload": ".models",
    "LLMWorkload": ".models",
    "get_workload": ".models",
    "tp_splits": ".models",
    "EMBEDDING_SHARDINGS": ".parallelism",
    "DLRMStrategy": ".parallelism",
    "Efficiency": ".parallelism",
    "IterationBreakdown": ".parallelism",
    "MemoryBreakdown": ".parallelism",
    "Strategy": ".parallelism",
    "StrategyRejected": ".parallelism",
    "evaluate": ".parallelism",
    "evaluate_dlrm": ".parallelism",
    "evaluate_llm": ".parallelism",
    "shard_tile": ".parallelism",
    "BASELINES": ".search",
    "SearchResult": ".search",
    "baseline_strategies": ".search",
    "enumerate_strategies": ".search",
    "search": ".search",
    "PRISM_DEFAULT": ".variability",
    "IterationDistribution": ".variability",
    "VariabilityModel": ".variability",
    "iteration_distribution": ".variability",
    "probability_of_finishing": ".variability",
    "slowdown_vs_gpus": ".variability",
    "total_time_quantiles": ".variability",
    "VARIABILITY_DEFINITIONS": ".variability",
    "expected_max_over_median": ".variability",
    "finish_time_quantiles": ".variability",
    "gpu_time_variability": ".variability",
    "PLACEMENTS": ".placement",
    "Layout": ".placement",
    "SpeedModel": ".placement",
    "iteration_factor": ".placement",
    "place": ".placement",
    "placement_gain": ".placement",
    "sigma_from_variation": ".placement",
    "variation_from_sigma": ".placement",
}

__all__ = [
    "NETWORKS", "ClusterSpec", "GroupPlacement", "LinkSpec", "make_cluster",
    "COLLECTIVES", "all_gather_s", "all_to_all_s", "collective_time_s",
    "hierarchical_all_gather_s", "hierarchical_all_reduce_s", "hierarchical_all_to_all_s",
    "p2p_s", "reduce_scatter_s", "ring_all_reduce_s", "tree_all_reduce_s",
    "ConvergenceModel", "MLPerfScore", "mlperf_score", "simulate_time_to_train",
    "TP_SPLIT_KINDS", "DLRMWorkload", "LLMWorkload", "get_workload", "tp_splits",
    "EMBEDDING_SHARDINGS", "DLRMStrategy", "Efficiency", "IterationBreakdown", "MemoryBreakdown",
    "Strategy", "StrategyRejected", "evaluate", "evaluate_dlrm", "evaluate_llm", "shard_tile",
    "BASELINES", "SearchResult", "baseline_strategies", "enumerate_strategies", "search",
    "PRISM_DEFAULT", "IterationDistribution", "VariabilityModel", "iteration_distribution",
    "probability_of_finishing", "slowdown_vs_gpus", "total_time_quantiles",
    "VARIABILITY_DEFINITIONS", "expected_max_over_median", "finish_time_quantiles",
    "gpu_time_variability",
    "PLACEMENTS", "Layout", "SpeedModel", "iteration_factor", "place", "placement_gain",
    "sigma_from_variation", "variation_from_sigma",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
