"""Hardware: Amaranth components and cost models (a lower layer: imports no upper package)."""

from .models import (
    GPU_SPECS,
    CalibratedGPU,
    GPURoofline,
    GPUSpec,
    HardwareModel,
    OperatorCost,
    Tile,
    fold_count,
    fold_cycles,
    fold_t,
    get_gpu,
    matmul_cycles,
)
from .pe import MACPE
from .systolic import SystolicArray

__all__ = [
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu", "CalibratedGPU",
    "HardwareModel", "OperatorCost", "Tile",
    "MACPE", "SystolicArray", "fold_count", "fold_cycles", "fold_t", "matmul_cycles",
]
