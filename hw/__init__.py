"""Hardware: Amaranth components and cost models (a lower layer: imports no upper package)."""

from .models import GPU_SPECS, GPURoofline, GPUSpec, HardwareModel, OperatorCost, Tile, get_gpu
from .pe import MACPE
from .systolic import SystolicArray, fold_count, fold_cycles, matmul_cycles

__all__ = [
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu",
    "HardwareModel", "OperatorCost", "Tile",
    "MACPE", "SystolicArray", "fold_count", "fold_cycles", "matmul_cycles",
]
