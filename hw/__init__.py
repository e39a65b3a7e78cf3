"""Hardware: Amaranth components and cost models (a lower layer: imports no upper package)."""

from .gpus import GPU_SPECS, GPURoofline, GPUSpec, get_gpu
from .model import HardwareModel, OperatorCost, OperatorLike

__all__ = [
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu",
    "HardwareModel", "OperatorCost", "OperatorLike",
]
