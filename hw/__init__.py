"""Hardware: Amaranth components and cost models (a lower layer: imports no upper package)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
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

#: Each public name and its submodule, imported on first use (see :mod:`archsim.lazy`).
_EXPORTS = {
    "GPU_SPECS": ".models",
    "CalibratedGPU": ".models",
    "GPURoofline": ".models",
    "GPUSpec": ".models",
    "HardwareModel": ".models",
    "OperatorCost": ".models",
    "Tile": ".models",
    "fold_count": ".models",
    "fold_cycles": ".models",
    "fold_t": ".models",
    "get_gpu": ".models",
    "matmul_cycles": ".models",
    "MACPE": ".pe",
    "SystolicArray": ".systolic",
}

__all__ = [
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu", "CalibratedGPU",
    "HardwareModel", "OperatorCost", "Tile",
    "MACPE", "SystolicArray", "fold_count", "fold_cycles", "fold_t", "matmul_cycles",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
