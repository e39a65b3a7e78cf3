"""MAD-Max (Hsia et al. 2024): exposed communication 14-32%, best-strategy speedups 2.24x / 5.27x.

Parallelization-strategy search on the distributed-training model against MAD-Max's own
baselines, with the compute efficiency calibrated on Megatron-LM Table 1 and Llama 2's
GPU-hours (train / held-out split; see README.md and :mod:`.calibration`).
"""

from .calibration import (
    LLAMA2_GPU_HOURS,
    MEASURED_RUNS,
    MEGATRON_TABLE1,
    CurveFit,
    EfficiencyFit,
    GEMMSizeRoofline,
    MeasuredRun,
    fit_compute_efficiency,
    fit_gemm_curve,
    implied_efficiency,
    megatron_flops,
    predict,
)
from .study import CLUSTERS, EXPECTED_HELD_OUT, gpu_hour_weighted_exposed_comm, run

__all__ = ["run", "CLUSTERS", "EXPECTED_HELD_OUT", "gpu_hour_weighted_exposed_comm",
           "LLAMA2_GPU_HOURS", "MEASURED_RUNS", "MEGATRON_TABLE1", "EfficiencyFit", "MeasuredRun",
           "fit_compute_efficiency", "implied_efficiency", "megatron_flops", "predict",
           "CurveFit", "GEMMSizeRoofline", "fit_gemm_curve"]
