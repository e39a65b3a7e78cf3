"""Energy of a simulated run: per action at each level of the memory hierarchy, plus leakage.

Technology: the per-action energies of :class:`~archsim.sim.soc.config.EnergyConfig` are
Horowitz's 45 nm / 0.9 V figures (ISSCC 2014, "Computing's energy problem (and what we can
do about it)"): 16-bit FP MAC 1.5 pJ, 32 KB SRAM 2.5 pJ/byte, 1 MB SRAM 12.5 pJ/byte (the LLC
behind the coherent port), DRAM 20.3 pJ/bit (the low end of his 1.3-2.6 nJ per 64 bits). For
another node or supply the accelerator's dynamic energies scale to first order with switched
capacitance (~ feature size) and ``V**2``: ``(node / 45) * (V / 0.9) ** 2`` -- an assumption,
stated in every result. DRAM energy is the memory's own and does not scale with the SoC node.
The CPU is charged its ``active_power_w`` while its threads are busy; leakage is
``leakage_w_per_mm2`` over the SoC area for the whole run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .config import SoCConfig

__all__ = ["EnergyBreakdown", "soc_area_mm2", "energy_breakdown", "node_scale"]


@dataclass(frozen=True)
class EnergyBreakdown:
    """Joules per component of one run; :attr:`total_j` is their sum."""

    compute_j: float
    scratchpad_j: float
    llc_j: float
    dram_j: float
    interconnect_j: float
    cpu_j: float
    leakage_j: float

    @property
    def total_j(self) -> float:
        return (self.compute_j + self.scratchpad_j + self.llc_j + self.dram_j +
                self.interconnect_j + self.cpu_j + self.leakage_j)

    def as_dict(self) -> dict[str, float]:
        return {**asdict(self), "total_j": self.total_j}


def node_scale(config: SoCConfig) -> float:
    """First-order scaling of the reference energies to the SoC's node and voltage."""
    e = config.energy
    return (config.soc.technology_nm / e.reference_nm) * \
        (config.soc.voltage_v / e.reference_voltage_v) ** 2


def soc_area_mm2(config: SoCConfig) -> float:
    """CPU area plus every accelerator instance's ``area_mm2`` (unknown areas count 0)."""
    return config.cpu.area_mm2 + sum((a.area_mm2 or 0.0) * a.count for a in config.accelerators)


def energy_breakdown(config: SoCConfig, *, macs: float, vector_ops: float, spad_bytes: float,
                     dram_bytes: float, acp_bytes: float, cpu_busy_s: float,
                     latency_s: float) -> EnergyBreakdown:
    """Energy of a run from its action counts.

    Parameters
    ----------
    macs, vector_ops
        Multiply-accumulates and vector operations executed.
    spad_bytes
        Bytes read or written in the scratchpads (transfers and compute operand reads).
    dram_bytes, acp_bytes
        Bytes moved over DMA (DRAM) and over the coherent port (LLC).
    cpu_busy_s
        Sum of busy time over the CPU threads.
    latency_s
        End-to-end latency (leakage time).
    """
    e = config.energy
    s = node_scale(config)
    pj = 1e-12
    return EnergyBreakdown(
        compute_j=(macs * e.mac_pj + vector_ops * e.vector_op_pj) * s * pj,
        scratchpad_j=spad_bytes * e.scratchpad_pj_per_byte * s * pj,
        llc_j=acp_bytes * config.llc.energy_pj_per_byte * s * pj,
        dram_j=dram_bytes * 8 * config.dram.energy_pj_per_bit * pj,
        interconnect_j=(dram_bytes + acp_bytes) * config.interconnect.energy_pj_per_byte * s * pj,
        cpu_j=cpu_busy_s * config.cpu.active_power_w,
        leakage_j=e.leakage_w_per_mm2 * soc_area_mm2(config) * latency_s,
    )
