"""Energy per action at a reference technology node, and first-order scaling to another.

The reference figures are Horowitz's 45 nm / 0.9 V table (M. Horowitz, "Computing's energy
problem (and what we can do about it)", ISSCC 2014): a 16-bit floating-point multiply
1.1 pJ plus add 0.4 pJ (a MAC 1.5 pJ), a vector operation taken as one 16-bit FP add
(0.4 pJ), a 64-bit read of a 32 KB SRAM 20 pJ (2.5 pJ/byte), of a 1 MB SRAM 100 pJ
(12.5 pJ/byte), and a 64-bit DRAM access 1.3-2.6 nJ (the low end, 20.3125 pJ/bit).

For another node or supply, dynamic energies scale to first order with switched capacitance
(~ feature size) and ``V**2``: :func:`node_scale` = ``(node / ref) * (V / V_ref) ** 2`` --
an assumption, to be stated by whoever uses it. DRAM energy is the memory's own and does not
scale with the logic node.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ActionEnergies", "HOROWITZ_45NM", "node_scale"]


@dataclass(frozen=True)
class ActionEnergies:
    """Energy per action at ``node_nm`` and ``voltage_v`` (units in the field names)."""

    mac_pj: float
    vector_op_pj: float
    sram_32kb_pj_per_byte: float
    sram_1mb_pj_per_byte: float
    dram_pj_per_bit: float
    node_nm: int
    voltage_v: float
    source: str = ""


#: Horowitz, ISSCC 2014, 45 nm at 0.9 V.
HOROWITZ_45NM = ActionEnergies(
    mac_pj=1.1 + 0.4, vector_op_pj=0.4, sram_32kb_pj_per_byte=20.0 / 8,
    sram_1mb_pj_per_byte=100.0 / 8, dram_pj_per_bit=1300.0 / 64, node_nm=45, voltage_v=0.9,
    source="M. Horowitz, Computing's energy problem (and what we can do about it), ISSCC 2014",
)


def node_scale(node_nm: float, voltage_v: float, *, reference_nm: float = 45,
               reference_voltage_v: float = 0.9) -> float:
    """First-order scale of dynamic energy from the reference node and supply to
    ``node_nm`` and ``voltage_v``: ``(node_nm / reference_nm) * (voltage_v /
    reference_voltage_v) ** 2``."""
    for name, value in (("node_nm", node_nm), ("voltage_v", voltage_v),
                        ("reference_nm", reference_nm),
                        ("reference_voltage_v", reference_voltage_v)):
        if not value > 0:
            raise ValueError(f"{name} must be > 0, not {value!r}")
    return (node_nm / reference_nm) * (voltage_v / reference_voltage_v) ** 2
