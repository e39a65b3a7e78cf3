"""Flash Attention numeric deviation vs baseline attention (Golden et al. 2024).

Emulated BF16/FP16/FP32 baseline and Flash attention against an FP64 reference, on random
inputs and on SmolLM2-135M's real Q/K/V (see README.md).
"""

from .study import (
    MODES,
    PRECISIONS,
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
)

__all__ = ["PRECISIONS", "MODES", "rounder", "baseline_attention", "flash_attention",
           "reference_attention", "DeviationPoint", "sweep", "RealHead",
           "capture_smollm2_heads", "RealDeviationPoint", "real_sweep", "run"]
