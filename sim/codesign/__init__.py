"""Co-design of a UAV's navigation policy and its accelerator (AutoPilot, arXiv 2102.02988).

:mod:`~archsim.sim.codesign.accelerators`: the accelerator design space, each point a DSL
description (:func:`archsim.dsl.examples.uav_npu.uav_npu`) priced on a workload graph --
cycles and latency from the SoC engine on its model view, energy and power, area from
synthesis plus memory macros, and an assumed board overhead.
"""

from .accelerators import (
    ARRAY_SIZES,
    ASSUMPTIONS,
    DATAFLOWS,
    MAX_BUFFER_WORDS,
    AcceleratorPoint,
    AcceleratorPrice,
    BoardOverhead,
    BoardPrice,
    logic_area_mm2,
    price_point,
    tile_report_figures,
    uav_soc_config,
)

__all__ = ["AcceleratorPoint", "AcceleratorPrice", "BoardOverhead", "BoardPrice", "DATAFLOWS",
           "ARRAY_SIZES", "MAX_BUFFER_WORDS", "ASSUMPTIONS", "price_point", "logic_area_mm2",
           "tile_report_figures", "uav_soc_config"]
