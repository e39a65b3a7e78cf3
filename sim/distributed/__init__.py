"""Distributed training and inference at data-centre scale.

MAD-Max-style parallelization modelling (clusters, alpha-beta collectives,
DP/ZeRO/TP/PP/SP/CP and DLRM embedding sharding, strategy search), PRISM-style
runtime variability (Monte Carlo and order statistics) and the MLPerf
time-to-train methodology. The MAD-Max and PRISM studies that use it live in
:mod:`archsim.sim.studies.madmax` and :mod:`archsim.sim.studies.prism`.
"""

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
from .models import (
    DLRM_PRESETS,
    DLRMConfig,
    DLRMWorkload,
    LLMWorkload,
    OpWork,
    dlrm_graph,
    get_dlrm,
    get_workload,
)
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
)
from .search import SearchResult, baseline_strategies, enumerate_strategies, search
from .variability import (
    PRISM_DEFAULT,
    IterationDistribution,
    VariabilityModel,
    iteration_distribution,
    probability_of_finishing,
    slowdown_vs_gpus,
    total_time_quantiles,
)

__all__ = [
    "NETWORKS", "ClusterSpec", "GroupPlacement", "LinkSpec", "make_cluster",
    "COLLECTIVES", "all_gather_s", "all_to_all_s", "collective_time_s",
    "hierarchical_all_gather_s", "hierarchical_all_reduce_s", "hierarchical_all_to_all_s",
    "p2p_s", "reduce_scatter_s", "ring_all_reduce_s", "tree_all_reduce_s",
    "ConvergenceModel", "MLPerfScore", "mlperf_score", "simulate_time_to_train",
    "DLRM_PRESETS", "DLRMConfig", "DLRMWorkload", "LLMWorkload", "OpWork", "dlrm_graph",
    "get_dlrm", "get_workload",
    "EMBEDDING_SHARDINGS", "DLRMStrategy", "Efficiency", "IterationBreakdown", "MemoryBreakdown",
    "Strategy", "StrategyRejected", "evaluate", "evaluate_dlrm", "evaluate_llm",
    "SearchResult", "baseline_strategies", "enumerate_strategies", "search",
    "PRISM_DEFAULT", "IterationDistribution", "VariabilityModel", "iteration_distribution",
    "probability_of_finishing", "slowdown_vs_gpus", "total_time_quantiles",
]
