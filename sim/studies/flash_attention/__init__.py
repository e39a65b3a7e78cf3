"""Flash Attention numeric deviation vs baseline attention (Golden et al. 2024).

Emulated BF16/FP16/FP32 baseline and Flash attention against an FP64 reference, on random
inputs and on SmolLM2-135M's real Q/K/V; and paired training runs of a small transformer
(Flash vs baseline attention at BF16, BF16 vs FP32) compared by the Wasserstein distance
between their weights (see README.md).
"""

from .study import (
    MODES,
    PRECISIONS,
    TRAINING_DATA,
    TRAINING_DISTANCES_CSV,
    TRAINING_LOSSES_CSV,
    DeviationPoint,
    RealDeviationPoint,
    RealHead,
    baseline_attention,
    capture_smollm2_heads,
    flash_attention,
    real_sweep,
    reference_attention,
    rounder,
    run,
    sweep,
    training_tables,
)

__all__ = ["PRECISIONS", "MODES", "rounder", "baseline_attention", "flash_attention",
           "reference_attention", "DeviationPoint", "sweep", "RealHead",
           "capture_smollm2_heads", "RealDeviationPoint", "real_sweep", "TRAINING_DATA",
           "TRAINING_DISTANCES_CSV", "TRAINING_LOSSES_CSV", "training_tables", "run"]
