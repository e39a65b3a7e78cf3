"""Area models: SRAM arrays from a bit-cell figure, RTL blocks from synthesis.

``sram_area_mm2`` prices an SRAM as its bits at ``area_um2_per_bit`` (default 0.692 um^2 per
bit = Intel's 45 nm 6T bit cell of 0.346 um^2, Mistry et al., IEDM 2007, at an assumed 50 %
array efficiency for decoders, sense amplifiers and I/O). ``systolic_array_area_mm2`` is the
Yosys cell area on NanGate45 of :class:`archsim.hw.systolic.SystolicArray` of a shape
(:func:`archsim.hw.synth.synthesize`, cached on disk by a hash of the Verilog, and per
process here); the standard-cell area has no wiring or placement overhead (stated, not
corrected for).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["BIT_CELL_45NM_UM2", "SRAM_ARRAY_EFFICIENCY", "DEFAULT_SRAM_UM2_PER_BIT",
           "sram_area_mm2", "systolic_array_area_mm2"]

#: Intel's 45 nm 6T SRAM bit cell (Mistry et al., IEDM 2007), um^2.
BIT_CELL_45NM_UM2 = 0.346
#: Fraction of an SRAM macro that is bit cells (assumed).
SRAM_ARRAY_EFFICIENCY = 0.5
#: Area per bit of an SRAM macro at 45 nm: :data:`BIT_CELL_45NM_UM2` over the efficiency.
DEFAULT_SRAM_UM2_PER_BIT = BIT_CELL_45NM_UM2 / SRAM_ARRAY_EFFICIENCY  # 0.692


def sram_area_mm2(bits: float, *, area_um2_per_bit: float = DEFAULT_SRAM_UM2_PER_BIT) -> float:
    """Area of ``bits`` of SRAM at ``area_um2_per_bit``, mm^2."""
    if not bits >= 0:
        raise ValueError(f"bits must be >= 0, not {bits!r}")
    if not area_um2_per_bit >= 0:
        raise ValueError(f"area_um2_per_bit must be >= 0, not {area_um2_per_bit!r}")
    return bits * area_um2_per_bit * 1e-6


@lru_cache(maxsize=16)
def systolic_array_area_mm2(*, rows: int, cols: int, dataflow: str, input_width: int,
                            acc_width: int = 32) -> float:
    """Yosys NanGate45 cell area of a ``rows x cols`` :class:`~archsim.hw.systolic.SystolicArray`.

    Raises
    ------
    ToolchainError
        Yosys is missing or fails.
    """
    # Lazy: synthesis pulls in Amaranth elaboration and yowasp, which pricing never needs.
    from ..synth import synthesize
    from ..systolic import SystolicArray

    array = SystolicArray(rows=rows, cols=cols, dataflow=dataflow, input_width=input_width,
                          acc_width=acc_width)
    report = synthesize(array, name=f"systolic_{rows}x{cols}_{dataflow}", fpga=False)
    return float(report.area_mm2)
