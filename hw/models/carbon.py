"""ACT carbon accounting (Gupta et al., "ACT: Designing Sustainable Computer Systems with
an Architectural Carbon Modeling Tool", ISCA 2022).

Embodied carbon of a die: ``area x (CI_fab x EPA + GPA + MPA) / yield + packaging``, with
ACT's per-node tables (EPA: fab electricity per area, GPA: gases per area, MPA: raw
materials per area) and per-location grid carbon intensities, read from the data files in
``archsim/hw/models/data/`` (transcribed from ACT's repository; sources in the files).
Operational carbon: ``CI_use x energy``. The SoC simulator's per-inference accounting is
:func:`archsim.sim.soc.carbon.add_carbon`, built on these.

ACT's oldest logic node is 28 nm; an older node (archsim's 45 nm reference) uses the 28 nm
rows (:func:`node_row_nm`) -- an assumption to be stated by the caller, since ACT gives no
data for older nodes.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...errors import ConfigError

__all__ = ["ActTables", "act_tables", "carbon_intensity_g_per_kwh", "carbon_per_cm2_g",
           "embodied_carbon_kg", "operational_carbon_kg", "node_row_nm", "GPA_LEVELS",
           "SECONDS_PER_YEAR"]

_DATA = Path(__file__).parent / "data"
#: A Julian year, the unit of a lifetime.
SECONDS_PER_YEAR = 365.25 * 86400.0
#: Gas-abatement levels of ACT's GPA tables ("97" is the mean of 95 and 99, as in ACT).
GPA_LEVELS: tuple[str, ...] = ("95", "97", "99")


@dataclass(frozen=True)
class ActTables:
    """ACT's logic fabrication tables and carbon intensities (units in the field names)."""

    fab_yield: float
    packaging_g_per_ic: float
    epa_kwh_per_cm2: dict[int, float]
    gpa_95_g_per_cm2: dict[int, float]
    gpa_99_g_per_cm2: dict[int, float]
    mpa_g_per_cm2: dict[int, float]
    ci_location_g_per_kwh: dict[str, float]
    ci_source_g_per_kwh: dict[str, float]

    @property
    def nodes_nm(self) -> list[int]:
        """Nodes present in every table."""
        keys = (set(self.epa_kwh_per_cm2) & set(self.gpa_95_g_per_cm2) &
                set(self.gpa_99_g_per_cm2) & set(self.mpa_g_per_cm2))
        return sorted(keys)


@lru_cache(maxsize=1)
def act_tables() -> ActTables:
    """Load the ACT data files shipped with archsim."""
    logic = tomllib.loads((_DATA / "act_logic.toml").read_text(encoding="utf-8"))
    ci = tomllib.loads((_DATA / "act_carbon_intensity.toml").read_text(encoding="utf-8"))

    def nodes(table: Mapping[str, float]) -> dict[int, float]:
        return {int(k): float(v) for k, v in table.items()}

    return ActTables(
        fab_yield=float(logic["yield"]), packaging_g_per_ic=float(logic["packaging_g_per_ic"]),
        epa_kwh_per_cm2=nodes(logic["epa_kwh_per_cm2"]),
        gpa_95_g_per_cm2=nodes(logic["gpa_95_g_per_cm2"]),
        gpa_99_g_per_cm2=nodes(logic["gpa_99_g_per_cm2"]),
        mpa_g_per_cm2=nodes(logic["mpa_g_per_cm2"]),
        ci_location_g_per_kwh={k: float(v) for k, v in ci["location"].items()},
        ci_source_g_per_kwh={k: float(v) for k, v in ci["source"].items()})


def carbon_intensity_g_per_kwh(name: str) -> float:
    """Grid carbon intensity of a location (``"taiwan"``) or a source (``"coal"``)."""
    t = act_tables()
    if name in t.ci_location_g_per_kwh:
        return t.ci_location_g_per_kwh[name]
    if name in t.ci_source_g_per_kwh:
        return t.ci_source_g_per_kwh[name]
    raise ConfigError(f"unknown carbon-intensity location or source '{name}'",
                      field="location",
                      allowed=sorted(t.ci_location_g_per_kwh) + sorted(t.ci_source_g_per_kwh))


def node_row_nm(node_nm: int) -> int:
    """The ACT table row used for ``node_nm``: itself, or the oldest row for older nodes."""
    nodes = act_tables().nodes_nm
    if node_nm in nodes:
        return node_nm
    if node_nm > max(nodes):
        return max(nodes)
    raise ConfigError(f"ACT has no fabrication data for {node_nm} nm", field="technology_nm",
                      allowed=nodes)


def carbon_per_cm2_g(node_nm: int, *, fab_location: str = "taiwan", gpa: str = "97") -> float:
    """Embodied carbon per cm^2 of good die: ``(CI_fab * EPA + GPA + MPA) / yield`` (g)."""
    if gpa not in GPA_LEVELS:
        raise ConfigError(f"unknown GPA abatement level '{gpa}'", field="gpa",
                          allowed=GPA_LEVELS)
    t = act_tables()
    row = node_row_nm(node_nm)
    g95, g99 = t.gpa_95_g_per_cm2[row], t.gpa_99_g_per_cm2[row]
    gas = {"95": g95, "99": g99, "97": (g95 + g99) / 2.0}[gpa]
    ci = carbon_intensity_g_per_kwh(fab_location)
    return (ci * t.epa_kwh_per_cm2[row] + gas + t.mpa_g_per_cm2[row]) / t.fab_yield


def embodied_carbon_kg(area_mm2: float, node_nm: int, *, fab_location: str = "taiwan",
                       gpa: str = "97", packages: int = 1) -> float:
    """Embodied carbon of ``area_mm2`` of logic at ``node_nm`` plus ``packages`` IC packages."""
    t = act_tables()
    grams = area_mm2 / 100.0 * carbon_per_cm2_g(node_nm, fab_location=fab_location, gpa=gpa)
    return (grams + packages * t.packaging_g_per_ic) / 1000.0


def operational_carbon_kg(energy_j: float, location: str = "world") -> float:
    """``CI_use x energy``."""
    return carbon_intensity_g_per_kwh(location) * energy_j / 3.6e6 / 1000.0
