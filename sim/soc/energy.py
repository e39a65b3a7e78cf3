"""Energy of a simulated run: per action at each level of the memory hierarchy, plus leakage.

Technology: the per-action energies of :class:`~archsim.sim.soc.config.EnergyConfig` default
to :data:`archsim.hw.models.energy.HOROWITZ_45NM`, Horowitz's 45 nm / 0.9 V figures (ISSCC 2014, "Computing's energy problem (and what we can
do about it)"): 16-bit FP MAC 1.5 pJ, 32 KB SRAM 2.5 pJ/byte, 1 MB SRAM 12.5 pJ/byte (the LLC
behind the coherent port), DRAM 20.3 pJ/bit (the low end of his 1.3-2.6 nJ per 64 bits). For
another node or supply the accelerator's dynamic energies scale to first order with switched
capacitance (~ feature size) and ``V**2``: ``(node / 45) * (V / 0.9) ** 2``
(:func:`archsim.hw.models.energy.node_scale`) -- an assumption, stated in every result. DRAM energy is the memory's own and does not scale with the SoC node.
The CPU is charged its ``active_power_w`` while its threads are busy; leakage is
``leakage_w_per_mm2`` over the SoC area (:mod:`~archsim.sim.soc.area`) for the whole run.
Compute energy is kept per accelerator (by its label): each model answers its steps'
energy (``operator_cost(step.tile).energy_j``; a DSL design from its schedule's estimate), so :meth:`EnergyBreakdown.components_j` splits the total into
accelerators, scratchpads, LLC, DRAM, interconnect, CPU and leakage.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ...hw.models.energy import node_scale as _node_scale
from .area import soc_area_mm2
from .config import SoCConfig

__all__ = ["EnergyBreakdown", "soc_area_mm2", "energy_breakdown", "node_scale",
           "ENERGY_COMPONENTS"]

#: Components of :meth:`EnergyBreakdown.components_j` after the accelerators.
ENERGY_COMPONENTS: tuple[str, ...] = ("scratchpads", "llc", "dram", "interconnect", "cpu",
                                      "leakage")


@dataclass(frozen=True)
class EnergyBreakdown:
    """Joules per component of one run; :attr:`total_j` is their sum.

    ``accelerators_j`` splits ``compute_j`` by accelerator label (empty when the energy was
    computed from action counts alone).
    """

    compute_j: float
    scratchpad_j: float
    llc_j: float
    dram_j: float
    interconnect_j: float
    cpu_j: float
    leakage_j: float
    accelerators_j: dict[str, float] = field(default_factory=dict)

    @property
    def total_j(self) -> float:
        return (self.compute_j + self.scratchpad_j + self.llc_j + self.dram_j +
                self.interconnect_j + self.cpu_j + self.leakage_j)

    def as_dict(self) -> dict[str, float]:
        """The scalar fields and ``total_j``."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "accelerators_j"}
        return {**out, "total_j": self.total_j}

    def components_j(self) -> dict[str, float]:
        """Joules per component: ``accelerator:<label>`` for each accelerator, then
        :data:`ENERGY_COMPONENTS`; the values sum to :attr:`total_j`."""
        accs = {f"accelerator:{k}": v for k, v in self.accelerators_j.items()} or \
            {"accelerator": self.compute_j}
        return {**accs, "scratchpads": self.scratchpad_j, "llc": self.llc_j,
                "dram": self.dram_j, "interconnect": self.interconnect_j, "cpu": self.cpu_j,
                "leakage": self.leakage_j}


def node_scale(config: SoCConfig) -> float:
    """First-order scaling of the reference energies to the SoC's node and voltage."""
    e = config.energy
    return _node_scale(config.soc.technology_nm, config.soc.voltage_v,
                       reference_nm=e.reference_nm, reference_voltage_v=e.reference_voltage_v)


def energy_breakdown(config: SoCConfig, *, macs: float, vector_ops: float, spad_bytes: float,
                     dram_bytes: float, acp_bytes: float, cpu_busy_s: float,
                     latency_s: float,
                     accelerator_j: dict[str, float] | None = None) -> EnergyBreakdown:
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
    accelerator_j
        Dynamic compute energy per accelerator label at the reference node, as the
        accelerators' models answered it; when given, it replaces the ``macs`` and
        ``vector_ops`` estimate of the compute energy.
    """
    e = config.energy
    s = node_scale(config)
    pj = 1e-12
    if accelerator_j is not None:
        per_acc = {k: v * s for k, v in accelerator_j.items()}
        compute_j = sum(per_acc.values())
    else:
        per_acc = {}
        compute_j = (macs * e.mac_pj + vector_ops * e.vector_op_pj) * s * pj
    return EnergyBreakdown(
        compute_j=compute_j,
        scratchpad_j=spad_bytes * e.scratchpad_pj_per_byte * s * pj,
        llc_j=acp_bytes * config.llc.energy_pj_per_byte * s * pj,
        dram_j=dram_bytes * 8 * config.dram.energy_pj_per_bit * pj,
        interconnect_j=(dram_bytes + acp_bytes) * config.interconnect.energy_pj_per_byte * s * pj,
        cpu_j=cpu_busy_s * config.cpu.active_power_w,
        leakage_j=e.leakage_w_per_mm2 * soc_area_mm2(config) * latency_s,
        accelerators_j=per_acc,
    )
