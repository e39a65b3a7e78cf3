"""Design-space sweeps: a spec in TOML, run in-process or on Dask, stored in SQLite.

- :mod:`~archsim.sim.sweep.models` -- the registry of sweep models (one interface:
  ``(params, seed) -> objectives`` plus a pydantic parameter schema);
- :mod:`~archsim.sim.sweep.spec` -- :class:`SweepSpec` (grid / random / Latin
  hypercube, constraints, seed) and :func:`load_spec`;
- :mod:`~archsim.sim.sweep.engine` -- :func:`run_sweep` (in-process, Dask
  LocalCluster, or ``tcp://`` scheduler; batched, retried, resumable);
- :mod:`~archsim.sim.sweep.store` -- :class:`ResultStore`, the SQLite results file;
- :mod:`~archsim.sim.sweep.analysis` -- tables, filters, Pareto fronts, CSV/Parquet, plots;
- :mod:`~archsim.sim.sweep.optimize` -- :func:`run_optimization`, model-based search (Optuna
  TPE) or random search over a spec's grid, on the same store and workers, resumable.
"""

from .analysis import (
    ResultTable,
    export,
    load_results,
    pareto_front,
    pareto_mask,
    plot_heatmap,
    plot_line,
    plot_scatter,
)
from .engine import (
    LOCAL_CLUSTER_CONFIG,
    TINY_SWEEP_POINTS,
    SweepProgress,
    SweepReport,
    default_db_path,
    local_cluster,
    run_batch,
    run_sweep,
)
from .models import (
    HLS_GEMM_OBJECTIVES,
    MODELS,
    SERVING_OBJECTIVES,
    SOC_OBJECTIVES,
    TRAINING_OBJECTIVES,
    GPURooflineParams,
    HLSGemmParams,
    ServingParams,
    SoCParams,
    SweepModel,
    TrainingParams,
    get_model,
    gpu_roofline,
    hls_gemm,
    register_model,
    serving,
    soc,
    training,
)
from .optimize import (
    OptimizationProgress,
    OptimizationReport,
    OptimizeSettings,
    Trial,
    load_optimization,
    run_optimization,
)
from .spec import Expression, ParameterSpec, SweepPoint, SweepSpec, load_spec, point_key
from .store import STATUSES, PointRecord, PointResult, ResultStore

__all__ = [
    "OptimizeSettings", "OptimizationProgress", "OptimizationReport", "Trial",
    "load_optimization", "run_optimization",
    "MODELS", "SweepModel", "register_model", "get_model", "GPURooflineParams", "gpu_roofline",
    "ServingParams", "serving", "SERVING_OBJECTIVES", "TrainingParams", "training",
    "TRAINING_OBJECTIVES", "SoCParams", "soc", "SOC_OBJECTIVES",
    "HLSGemmParams", "hls_gemm", "HLS_GEMM_OBJECTIVES",
    "Expression", "ParameterSpec", "SweepSpec", "SweepPoint", "load_spec", "point_key",
    "STATUSES", "PointResult", "PointRecord", "ResultStore",
    "TINY_SWEEP_POINTS", "SweepProgress", "SweepReport", "run_sweep", "run_batch",
    "default_db_path", "local_cluster", "LOCAL_CLUSTER_CONFIG",
    "ResultTable", "load_results", "pareto_mask", "pareto_front", "export",
    "plot_scatter", "plot_line", "plot_heatmap",
]
