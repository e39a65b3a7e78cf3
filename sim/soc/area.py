"""Area of the SoC's components: given in the description, or derived from a design.

An accelerator's area (``AcceleratorConfig.area_from``):

``config``
    ``area_mm2`` from the TOML, covering the accelerator with its scratchpads (absent: 0).
``model``
    A ``dsl`` accelerator's pre-RTL estimate (``Design.estimate().area_mm2``: operators and
    registers from :mod:`archsim.hw.hls_ops`) plus its scratchpads' SRAM.
``synthesis``
    The Yosys cell area on NanGate45 of the RTL block -- for ``systolic``, the
    :class:`archsim.hw.systolic.SystolicArray` of that shape with ``8 * element_bytes``-bit
    operands and 32-bit accumulators; for ``dsl``, the compiled Design's component -- via
    :func:`archsim.hw.synth.synthesize` (cached on disk by a hash of the Verilog, and per
    process here), plus the scratchpads' SRAM; for ``accelerator``, the description's
    synthesized logic plus its own buffers as memory macros (in place of the scratchpads).

The scratchpads' SRAM is ``bits x ScratchpadConfig.area_um2_per_bit``; the standard-cell
area of synthesis has no wiring or placement overhead (stated, not corrected for). The area
models themselves (SRAM from a bit cell, the systolic array's synthesis) are
:mod:`archsim.hw.models.area`; this module applies them to an SoC description.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from ...hw.models.area import sram_area_mm2, systolic_array_area_mm2
from .config import (
    AcceleratorConfig,
    DescribedAcceleratorConfig,
    ScratchpadConfig,
    SoCConfig,
    SystolicAcceleratorConfig,
    parse_accelerator,
)

__all__ = ["AcceleratorArea", "accelerator_area", "scratchpad_area_mm2", "area_components_mm2",
           "soc_area_mm2"]


@dataclass(frozen=True)
class AcceleratorArea:
    """One accelerator instance's area: its logic and, when known apart, its scratchpads.

    ``source`` is the :attr:`AcceleratorConfig.area_source` used; with ``"config"`` the
    scratchpads are inside ``core_mm2`` and ``scratchpad_mm2`` is 0.
    """

    core_mm2: float
    scratchpad_mm2: float
    source: str

    @property
    def total_mm2(self) -> float:
        return self.core_mm2 + self.scratchpad_mm2


def scratchpad_area_mm2(spads: ScratchpadConfig) -> float:
    """SRAM area of the three scratchpads: their bits at ``area_um2_per_bit``."""
    return sram_area_mm2(spads.total_bytes * 8, area_um2_per_bit=spads.area_um2_per_bit)


@lru_cache(maxsize=64)
def _accelerator_area(config_json: str) -> AcceleratorArea:
    config = parse_accelerator(config_json)
    source = config.area_source
    if source == "config":
        return AcceleratorArea(config.area_mm2 or 0.0, 0.0, source)
    sram = scratchpad_area_mm2(config.scratchpads)
    if isinstance(config, SystolicAcceleratorConfig):  # synthesis (validation allows no other)
        core = systolic_array_area_mm2(rows=config.rows, cols=config.cols,
                                       dataflow=config.dataflow,
                                       input_width=8 * config.scratchpads.element_bytes)
        return AcceleratorArea(core, sram, source)
    if isinstance(config, DescribedAcceleratorConfig):  # synthesis: logic + memory macros
        from .accelerators import load_described

        report = load_described(config).compile().area()
        return AcceleratorArea(sum(report.logic_mm2.values()), sum(report.memory_mm2.values()),
                               source)
    from .accelerators import load_design

    design = load_design(config)
    if source == "model":
        core = design.estimate().area_mm2
    else:
        core = design.area(fpga=False).area_mm2
    return AcceleratorArea(core, sram, source)


def accelerator_area(config: AcceleratorConfig) -> AcceleratorArea:
    """The area of one instance of ``config`` (see the module docstring).

    Raises
    ------
    ConfigError
        A ``dsl`` kernel cannot be loaded.
    ToolchainError
        Synthesis was asked for and Yosys is missing or fails.
    """
    # The fields given (validators that tell a field given from a default see the same
    # document again) and the kind, the union's tag; as JSON, a cache key.
    given = {**config.model_dump(mode="json", exclude_unset=True), "kind": config.kind}
    return _accelerator_area(json.dumps(given, sort_keys=True))


def area_components_mm2(config: SoCConfig) -> dict[str, float]:
    """Area per component: ``accelerator:<label>`` (all instances of that label, without
    separately known scratchpads), ``scratchpads`` (SRAM known apart) and ``cpu`` (the CPU
    with its caches, ``cpu.area_mm2``)."""
    out: dict[str, float] = {}
    spads = 0.0
    for acc in config.accelerators:
        a = accelerator_area(acc)
        key = f"accelerator:{acc.label}"
        out[key] = out.get(key, 0.0) + a.core_mm2 * acc.count
        spads += a.scratchpad_mm2 * acc.count
    out["scratchpads"] = spads
    out["cpu"] = config.cpu.area_mm2
    return out


def soc_area_mm2(config: SoCConfig) -> float:
    """The SoC's area: the sum of :func:`area_components_mm2`."""
    return sum(area_components_mm2(config).values())
