"""ACT-style carbon accounting of an SoC run (Gupta et al., ISCA 2022).

The ACT model itself (per-node fabrication tables, carbon intensities, embodied and
operational carbon) is :mod:`archsim.hw.models.carbon`; this module charges an SoC run with
it. Embodied carbon of the SoC die: ``area x (CI_fab x EPA + GPA + MPA) / yield +
packaging``; operational carbon: ``CI_use x energy``. An inference is charged its share of
the embodied carbon as ``latency / lifetime`` (the SoC assumed busy running inferences for
its whole lifetime), so embodied and operational carbon per inference can be compared.

Per component (:attr:`SocResult.carbon_components`), operational carbon follows each
component's energy (accelerators, scratchpads, LLC, DRAM, interconnect, CPU, leakage) and the
embodied carbon each component's share of the die area (:mod:`~archsim.sim.soc.area`:
accelerators, scratchpads when their area is known apart, the CPU with its caches); the
package is its own row. DRAM is off-chip: its embodied carbon is not counted.

ACT's oldest logic node is 28 nm; an older node (archsim's 45 nm reference) uses the 28 nm
rows -- an assumption stated in the result, since ACT gives no data for older nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ConfigError
from ...hw.models.carbon import (
    GPA_LEVELS,
    SECONDS_PER_YEAR,
    ActTables,
    act_tables,
    carbon_intensity_g_per_kwh,
    carbon_per_cm2_g,
    embodied_carbon_kg,
    node_row_nm,
    operational_carbon_kg,
)
from .area import area_components_mm2, soc_area_mm2
from .config import SoCConfig

if TYPE_CHECKING:
    from .results import SocResult

__all__ = ["ActTables", "act_tables", "carbon_intensity_g_per_kwh", "carbon_per_cm2_g",
           "embodied_carbon_kg", "operational_carbon_kg", "add_carbon", "GPA_LEVELS"]


def add_carbon(result: SocResult, config: SoCConfig, *, location: str = "world",
               fab_location: str = "taiwan", gpa: str = "97",
               lifetime_years: float = 3.0) -> dict[str, float]:
    """Compute the carbon breakdown of ``result`` (a :class:`SocResult`) and store it in
    ``result.carbon``; also returns it. Keys end in their unit."""
    if not lifetime_years > 0:
        raise ConfigError(f"lifetime must be positive, not {lifetime_years!r}",
                          field="lifetime_years")
    area = soc_area_mm2(config)
    embodied = embodied_carbon_kg(area, config.soc.technology_nm, fab_location=fab_location,
                                  gpa=gpa)
    share = result.latency_s / (lifetime_years * SECONDS_PER_YEAR)
    per_inf = embodied * share
    operational = operational_carbon_kg(result.energy.total_j, location)
    g_per_mm2 = carbon_per_cm2_g(config.soc.technology_nm, fab_location=fab_location,
                                 gpa=gpa) / 100.0
    energy = result.energy.components_j()
    areas = area_components_mm2(config)
    rows = []
    for name in [*energy, *(k for k in areas if k not in energy), "packaging"]:
        e_j = energy.get(name, 0.0)
        a_mm2 = areas.get(name, 0.0)
        emb = (act_tables().packaging_g_per_ic if name == "packaging" else a_mm2 * g_per_mm2) \
            / 1000.0
        op = operational_carbon_kg(e_j, location)
        rows.append({"component": name, "energy_j": e_j, "area_mm2": a_mm2,
                     "operational_kg": op, "embodied_kg": emb,
                     "embodied_per_inference_kg": emb * share,
                     "total_kg": op + emb * share})
    result.carbon_components = rows
    carbon = {"area_mm2": area, "node_row_nm": float(node_row_nm(config.soc.technology_nm)),
              "embodied_soc_kg": embodied, "embodied_per_inference_kg": per_inf,
              "operational_per_inference_kg": operational,
              "total_kg": per_inf + operational, "lifetime_years": lifetime_years,
              "ci_use_g_per_kwh": carbon_intensity_g_per_kwh(location),
              "ci_fab_g_per_kwh": carbon_intensity_g_per_kwh(fab_location)}
    result.carbon = carbon
    result.assumptions.append(
        f"carbon: ACT tables (node row {int(carbon['node_row_nm'])} nm), fab in "
        f"{fab_location}, use in {location}, GPA {gpa}, embodied amortized over "
        f"{lifetime_years} years of back-to-back inferences")
    return carbon
