"""Every cost model in archsim behind the one hardware-model interface (:mod:`.base`)."""

from .base import BOUNDS, HardwareModel, OperatorCost, Tile, Work, work_operator
from .gpu import GPU_SPECS, GPURoofline, GPUSpec, get_gpu

__all__ = [
    "BOUNDS", "HardwareModel", "OperatorCost", "Tile", "Work", "work_operator",
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu",
]
