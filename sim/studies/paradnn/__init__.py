"""ParaDnn (Wang, Wei & Brooks, arXiv 1907.10701): rooflines and a per-kernel training-step
model of the FC/CNN/RNN sweep grids on TPU v2/v3, V100 and Skylake, next to the paper's
qualitative findings (see README.md)."""

from .kernels import KernelPlatform, ModelTiming, StepTime, kernel_platforms, time_model
from .study import (
    FAMILIES,
    PLATFORMS,
    ModelPoint,
    Platform,
    attainable_flops,
    loglinear_fit,
    model_point,
    run,
    sweep_points,
    wins_table,
)

__all__ = ["run", "Platform", "PLATFORMS", "FAMILIES", "ModelPoint", "model_point",
           "attainable_flops", "sweep_points", "wins_table", "loglinear_fit",
           "KernelPlatform", "ModelTiming", "StepTime", "kernel_platforms", "time_model"]
