"""Hardware: Amaranth components and cost models (a lower layer: imports no upper package).

The cost models import at once; the Amaranth components (:class:`MACPE`,
:class:`SystolicArray`) load on first use, so code that only prices operators (the SoC
simulator, ``archsim run``) never imports Amaranth.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from .pe import MACPE
    from .systolic import SystolicArray

#: Names loaded on first access, and the submodule each comes from (they import Amaranth).
_LAZY = {"MACPE": ".pe", "SystolicArray": ".systolic"}

__all__ = [
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu", "CalibratedGPU",
    "HardwareModel", "OperatorCost", "Tile",
    "MACPE", "SystolicArray", "fold_count", "fold_cycles", "fold_t", "matmul_cycles",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:  # a submodule not imported yet (``archsim.sim.soc.engine``) loads too
        try:
            return import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
