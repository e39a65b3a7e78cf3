"""Hardware: Amaranth components and cost models (a lower layer: imports no upper package)."""

from .gpus import GPU_SPECS, GPURoofline, GPUSpec, get_gpu
from .model import HardwareModel, OperatorCost, OperatorLike
from .pe import MACPE
from .systolic import SystolicArray, fold_count, fold_cycles, matmul_cycles

__all__ = [
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu",
    "HardwareModel", "OperatorCost", "OperatorLike",
    "MACPE", "SystolicArray", "fold_count", "fold_cycles", "matmul_cycles",
]
