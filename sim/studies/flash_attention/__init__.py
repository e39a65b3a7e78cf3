"""Flash Attention numeric deviation vs baseline attention (Golden et al. 2024).

Emulated BF16/FP16/FP32 baseline and Flash attention against an FP64 reference (see
README.md).
"""

from .study import (
    MODES,
    PRECISIONS,
    DeviationPoint,
    baseline_attention,
    flash_attention,
    reference_attention,
    rounder,
    run,
    sweep,
)

__all__ = ["PRECISIONS", "MODES", "rounder", "baseline_attention", "flash_attention",
           "reference_attention", "DeviationPoint", "sweep", "run"]
