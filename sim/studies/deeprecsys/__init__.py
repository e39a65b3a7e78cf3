"""DeepRecSys (Gupta et al., ISCA 2020) and HPCA 2020's server generations.

``study``: ``archsim study deeprecsys``: DeepRecSched's latency-bounded throughput over a
static baseline across the eight models, with GPU offload of large queries, on engines
timed on this CPU; the parameterized Haswell/Broadwell/Skylake servers and co-location of
:mod:`archsim.sim.recsys.servers`.
"""

from .study import (
    ACCEL_CONFIGS,
    BATCH_CONFIGS,
    COMPUTE_HEAVY,
    ENGINES,
    LOGNORMAL_SIZES,
    MEMORY_BOUND,
    MODELS,
    NORMAL_SIZES,
    STATIC_BATCH,
    TARGETS_S,
    capacity_gap_ms,
    engine_latency,
    geomean,
    run,
    scheduler_settings,
)

__all__ = ["run", "ACCEL_CONFIGS", "BATCH_CONFIGS", "COMPUTE_HEAVY", "ENGINES",
           "LOGNORMAL_SIZES", "MEMORY_BOUND", "MODELS", "NORMAL_SIZES", "STATIC_BATCH",
           "TARGETS_S", "capacity_gap_ms", "engine_latency", "geomean", "scheduler_settings"]
