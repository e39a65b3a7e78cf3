"""CAMEL (Zhang, Tambe, Cuevas, Wei, Brooks; HPCA 2024): eDRAM + reversible nets for on-device training.

``platforms``: the training engine (``soc_configs/camel.toml``) with an SRAM or eDRAM global
buffer, one network and one refresh policy, simulated for one training iteration and priced
(time, energy per component, traffic, refreshes). ``study``: ``archsim study camel``, the
paper's baselines, its 2.5x / 2.8x headlines next to ours, real accuracies of a ResNet and a
RevNet trained on offline digit images, and the sensitivity to retention, temperature,
density ratio and buffer size.
"""

from .platforms import (
    ENGINE_CONFIG,
    NETWORKS,
    REFRESH_POLICIES,
    SUBARRAY_BYTES,
    IterationCost,
    Network,
    Platform,
    PlatformRun,
    density_ratio,
    engine_config,
    equal_area_sram_bytes,
    iteration_cost,
    network_graph,
    simulate_platform,
)
from .study import (
    BATCH,
    PAIRS,
    QUICK_BATCH,
    StudySetup,
    accuracy_rows,
    headline_ratios,
    platforms_for,
    run,
    sized_capacity_bytes,
)

__all__ = ["run", "ENGINE_CONFIG", "NETWORKS", "REFRESH_POLICIES", "SUBARRAY_BYTES",
           "IterationCost", "Network", "Platform", "PlatformRun", "density_ratio",
           "engine_config", "equal_area_sram_bytes", "iteration_cost", "network_graph",
           "simulate_platform", "BATCH", "PAIRS", "QUICK_BATCH", "StudySetup", "accuracy_rows",
           "headline_ratios", "platforms_for", "sized_capacity_bytes"]
