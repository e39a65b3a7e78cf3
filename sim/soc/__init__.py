"""The SoC simulator: SMAUG-style end-to-end DNN inference on accelerators, memory and CPU.

Describe an SoC in TOML (:func:`load_soc_config`), build a workload
(:func:`archsim.compilers.graph.build_workload`) and :func:`simulate` it::

    cfg = load_soc_config("soc_configs/smaug_baseline.toml")
    result = simulate(cfg, build_workload("resnet50"))
    result.breakdown_s, result.accelerator_share, result.write("out/")

Accelerators are systolic arrays, SMAUG's SMV engine, any cycles model, or a DSL kernel
compiled by the HLS compiler (``kind = "dsl"``, ``soc_configs/dsl_soc.toml``), whose cycles,
energy and area come from its Design; energy and carbon are broken down per component.

An optional ``[global_buffer]`` (SRAM or eDRAM) holds the tensors a run names ``resident``;
:mod:`~archsim.sim.soc.lifetime` reads every tensor's lifetime off the simulated timeline,
counts eDRAM refreshes (lifetime-aware vs always-refresh) and allocates tensors to the
buffer (:func:`simulate_with_buffer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .accelerators import (
        AcceleratorModel,
        CallableModel,
        DesignTile,
        DSLModel,
        SMVModel,
        SystolicModel,
        gemm_tile_shape,
        load_design,
        make_accelerator_model,
        make_cpu_model,
    )
    from .area import AcceleratorArea, accelerator_area, area_components_mm2, scratchpad_area_mm2
    from .carbon import add_carbon, embodied_carbon_kg, operational_carbon_kg
    from .config import (
        ACCELERATOR_CONFIGS,
        ACCELERATOR_KINDS,
        AREA_SOURCES,
        GLOBAL_BUFFER_TECHNOLOGIES,
        HOST_MEMORY_POLICIES,
        AcceleratorConfig,
        AnyAcceleratorConfig,
        CPUConfig,
        DRAMConfig,
        DSLAcceleratorConfig,
        EnergyConfig,
        GlobalBufferConfig,
        HostMemoryConfig,
        InterconnectConfig,
        LLCConfig,
        ModelAcceleratorConfig,
        ScratchpadConfig,
        SMVAcceleratorConfig,
        SoCConfig,
        SocHeader,
        SystolicAcceleratorConfig,
        load_soc_config,
        parse_accelerator,
    )
    from .energy import ENERGY_COMPONENTS, EnergyBreakdown, energy_breakdown, soc_area_mm2
    from .engine import TRANSFER_CLASSES, simulate, transfer_tensors
    from .events import EventQueue, Server
    from .lifetime import (
        DEFAULT_ALLOCATED_ROLES,
        Allocation,
        LifetimeReport,
        RefreshEstimate,
        TensorLifetime,
        allocate,
        edram_refresh_period_s,
        refresh_energy_j_per_bit,
        refresh_for_buffer,
        refresh_operations,
        simulate_with_buffer,
        tensor_lifetimes,
    )
    from .results import CATEGORIES, OperatorRecord, SocResult, TransferTotals, attribute
    from .tiling import (
        Job,
        LoopTiling,
        OperatorPlan,
        ScratchpadTiler,
        Step,
        best_tiling,
        plan_operator,
    )

#: Each public name and its submodule, imported on first use (see :mod:`archsim.lazy`).
_EXPORTS = {
    "AcceleratorModel": ".accelerators",
    "CallableModel": ".accelerators",
    "DesignTile": ".accelerators",
    "DSLModel": ".accelerators",
    "SMVModel": ".accelerators",
    "SystolicModel": ".accelerators",
    "gemm_tile_shape": ".accelerators",
    "load_design": ".accelerators",
    "make_accelerator_model": ".accelerators",
    "make_cpu_model": ".accelerators",
    "AcceleratorArea": ".area",
    "accelerator_area": ".area",
    "area_components_mm2": ".area",
    "scratchpad_area_mm2": ".area",
    "add_carbon": ".carbon",
    "embodied_carbon_kg": ".carbon",
    "operational_carbon_kg": ".carbon",
    "ACCELERATOR_CONFIGS": ".config",
    "ACCELERATOR_KINDS": ".config",
    "AREA_SOURCES": ".config",
    "GLOBAL_BUFFER_TECHNOLOGIES": ".config",
    "HOST_MEMORY_POLICIES": ".config",
    "AcceleratorConfig": ".config",
    "AnyAcceleratorConfig": ".config",
    "CPUConfig": ".config",
    "DRAMConfig": ".config",
    "DSLAcceleratorConfig": ".config",
    "EnergyConfig": ".config",
    "GlobalBufferConfig": ".config",
    "HostMemoryConfig": ".config",
    "InterconnectConfig": ".config",
    "LLCConfig": ".config",
    "ModelAcceleratorConfig": ".config",
    "ScratchpadConfig": ".config",
    "SMVAcceleratorConfig": ".config",
    "SoCConfig": ".config",
    "SocHeader": ".config",
    "SystolicAcceleratorConfig": ".config",
    "load_soc_config": ".config",
    "parse_accelerator": ".config",
    "ENERGY_COMPONENTS": ".energy",
    "EnergyBreakdown": ".energy",
    "energy_breakdown": ".energy",
    "soc_area_mm2": ".energy",
    "TRANSFER_CLASSES": ".engine",
    "simulate": ".engine",
    "transfer_tensors": ".engine",
    "EventQueue": ".events",
    "Server": ".events",
    "DEFAULT_ALLOCATED_ROLES": ".lifetime",
    "Allocation": ".lifetime",
    "LifetimeReport": ".lifetime",
    "RefreshEstimate": ".lifetime",
    "TensorLifetime": ".lifetime",
    "allocate": ".lifetime",
    "edram_refresh_period_s": ".lifetime",
    "refresh_energy_j_per_bit": ".lifetime",
    "refresh_for_buffer": ".lifetime",
    "refresh_operations": ".lifetime",
    "simulate_with_buffer": ".lifetime",
    "tensor_lifetimes": ".lifetime",
    "CATEGORIES": ".results",
    "OperatorRecord": ".results",
    "SocResult": ".results",
    "TransferTotals": ".results",
    "attribute": ".results",
    "Job": ".tiling",
    "LoopTiling": ".tiling",
    "OperatorPlan": ".tiling",
    "ScratchpadTiler": ".tiling",
    "Step": ".tiling",
    "best_tiling": ".tiling",
    "plan_operator": ".tiling",
}

__all__ = [
    "ACCELERATOR_KINDS", "AREA_SOURCES", "HOST_MEMORY_POLICIES", "SocHeader", "CPUConfig",
    "ScratchpadConfig", "AcceleratorConfig", "SystolicAcceleratorConfig", "SMVAcceleratorConfig",
    "ModelAcceleratorConfig", "DSLAcceleratorConfig", "AnyAcceleratorConfig",
    "ACCELERATOR_CONFIGS", "parse_accelerator", "DRAMConfig", "LLCConfig",
    "InterconnectConfig", "HostMemoryConfig", "EnergyConfig", "SoCConfig", "load_soc_config",
    "GLOBAL_BUFFER_TECHNOLOGIES", "GlobalBufferConfig",
    "Step", "Job", "LoopTiling", "OperatorPlan", "ScratchpadTiler", "best_tiling",
    "plan_operator",
    "AcceleratorModel", "SystolicModel", "SMVModel", "CallableModel", "DSLModel", "DesignTile",
    "make_accelerator_model", "make_cpu_model", "load_design", "gemm_tile_shape",
    "AcceleratorArea", "accelerator_area", "area_components_mm2", "scratchpad_area_mm2",
    "EventQueue", "Server", "simulate", "transfer_tensors", "TRANSFER_CLASSES",
    "TensorLifetime", "LifetimeReport", "tensor_lifetimes", "RefreshEstimate",
    "refresh_operations", "refresh_for_buffer", "edram_refresh_period_s",
    "refresh_energy_j_per_bit", "Allocation", "allocate", "simulate_with_buffer",
    "DEFAULT_ALLOCATED_ROLES",
    "CATEGORIES", "TransferTotals", "OperatorRecord", "SocResult", "attribute",
    "ENERGY_COMPONENTS", "EnergyBreakdown", "energy_breakdown", "soc_area_mm2",
    "add_carbon", "embodied_carbon_kg", "operational_carbon_kg",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
