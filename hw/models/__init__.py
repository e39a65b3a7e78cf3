"""Every cost model in archsim behind the one hardware-model interface (:mod:`.base`).

:mod:`.systolic` (SCALE-Sim folds), :mod:`.accelerators` (systolic, SMV, callable and DSL
tile models), :mod:`.cpu` (the host), :mod:`.gpu` (roofline and calibrated from profiles),
:mod:`.energy` (Horowitz per-action table), :mod:`.carbon` (ACT), :mod:`.area` and
:mod:`.edram_refresh` (the eDRAM refresh controllers' cycle-accurate reference),
:mod:`.attention` (baseline vs Flash Attention kernels and their memory traffic).
"""

from .accelerators import (
    CallableModel,
    CompiledTile,
    DSLModel,
    GemmCycles,
    SMVModel,
    SystolicModel,
    TileModel,
    Tiler,
    untiled_tiles,
)
from .attention import (
    ATTENTION_IMPLS,
    FLASH_BLOCK_COLS,
    FLASH_BLOCK_ROWS,
    AttentionKernel,
    attention_bytes,
    attention_kernels,
)
from .base import BOUNDS, HardwareModel, OperatorCost, Tile, Work, work_operator
from .cpu import CPUModel
from .edram_refresh import AccessTrace, RefreshRun, refresh_energy_j, simulate_refresh
from .energy import HOROWITZ_45NM, ActionEnergies, node_scale
from .gpu import GPU_SPECS, CalibratedGPU, GPURoofline, GPUSpec, get_gpu
from .gpu_profile import (
    AttentionProfile,
    KernelProfile,
    ProfiledGPU,
    vidur_a100_llama2_7b,
    vidur_a100_llama2_70b,
    vidur_a100_llama2_70b_attention,
)
from .systolic import fold_count, fold_cycles, fold_dims, fold_t, matmul_cycles

__all__ = [
    "BOUNDS", "HardwareModel", "OperatorCost", "Tile", "Work", "work_operator",
    "GPU_SPECS", "GPURoofline", "GPUSpec", "get_gpu", "CalibratedGPU", "KernelProfile",
    "ProfiledGPU", "vidur_a100_llama2_7b", "vidur_a100_llama2_70b", "AttentionProfile",
    "vidur_a100_llama2_70b_attention",
    "TileModel", "SystolicModel", "SMVModel", "CallableModel", "DSLModel", "CompiledTile",
    "GemmCycles", "Tiler", "untiled_tiles", "CPUModel",
    "AccessTrace", "RefreshRun", "simulate_refresh", "refresh_energy_j",
    "ActionEnergies", "HOROWITZ_45NM", "node_scale",
    "ATTENTION_IMPLS", "FLASH_BLOCK_COLS", "FLASH_BLOCK_ROWS", "AttentionKernel", "attention_kernels",
    "attention_bytes",
    "fold_count", "fold_cycles", "fold_dims", "fold_t", "matmul_cycles",
]
