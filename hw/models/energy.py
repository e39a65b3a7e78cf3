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

:func:`stillmaker_energy_scale` is the fitted alternative: Stillmaker & Baas's polynomials of
energy per operation in the supply voltage for each node from 180 nm to 7 nm (HSPICE on the
PTM and ITRS models; Integration, the VLSI Journal 58, 2017), read from
``hw/data/stillmaker_baas_2017.toml`` (its header says where the coefficients come from and how
they were checked).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

from ...errors import ConfigError

__all__ = ["ActionEnergies", "HOROWITZ_45NM", "node_scale", "stillmaker_energy_scale",
           "stillmaker_nodes", "STILLMAKER_SOURCE"]

#: The citation of :func:`stillmaker_energy_scale`'s coefficients.
STILLMAKER_SOURCE = ("A. Stillmaker and B. Baas, 'Scaling equations for the accurate prediction "
                     "of CMOS device performance from 180 nm to 7 nm', Integration, the VLSI "
                     "Journal 58:74-81, 2017 (energy polynomials; hw/data/stillmaker_baas_2017.toml)")


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


@cache
def _stillmaker_table() -> Mapping[str, tuple[float, float, float]]:
    text = resources.files("archsim.hw").joinpath("data/stillmaker_baas_2017.toml").read_text(
        encoding="utf-8")
    nodes = tomllib.loads(text)["nodes"]
    return MappingProxyType({name: (float(c["a2"]), float(c["a1"]), float(c["a0"]))
                             for name, c in nodes.items()})


def stillmaker_nodes() -> tuple[str, ...]:
    """The node names :func:`stillmaker_energy_scale` knows (``"65"``, ``"HP45"``,
    ``"HP14"``, ``"LP7"``, ...)."""
    return tuple(_stillmaker_table())


def _energy_factor(node: str, voltage_v: float, what: str) -> float:
    table = _stillmaker_table()
    if node not in table:
        raise ConfigError(f"unknown technology node {node!r} for {what}", field=what,
                          allowed=list(table))
    if isinstance(voltage_v, bool) or not isinstance(voltage_v, (int, float)) \
            or not voltage_v > 0:
        raise ConfigError(f"the {what} voltage must be a positive number of volts, not "
                          f"{voltage_v!r}", field=f"{what}_voltage_v")
    a2, a1, a0 = table[node]
    factor = (a2 * voltage_v + a1) * voltage_v + a0
    if not factor > 0:
        raise ConfigError(f"{voltage_v} V is outside the range where the {node} fit is "
                          f"positive (energy factor {factor:.4g})", field=f"{what}_voltage_v")
    return factor


def stillmaker_energy_scale(from_node: str, from_voltage_v: float, to_node: str,
                            to_voltage_v: float) -> float:
    """Energy per operation at ``to_node`` / ``to_voltage_v`` relative to ``from_node`` /
    ``from_voltage_v``, by Stillmaker & Baas's fitted polynomials (:data:`STILLMAKER_SOURCE`).

    Examples
    --------
    Horowitz's 45 nm / 0.9 V figures carried to a 14 nm high-performance node at 0.8 V:

    >>> round(stillmaker_energy_scale("HP45", 0.9, "HP14", 0.8), 4)
    0.1377

    Raises
    ------
    ConfigError
        For an unknown node (the message lists the known ones) or a voltage that is not
        positive, or where the fit is not positive.
    """
    return (_energy_factor(to_node, to_voltage_v, "to_node")
            / _energy_factor(from_node, from_voltage_v, "from_node"))
