"""The area of a compiled accelerator: its logic from synthesis, its memories as macros.

Each unit, the controller (sequencer, CSR block and bus decoder, with a two-word program
memory so that only logic is synthesized) and each DVFS controller is synthesized with Yosys
on the NanGate45 cell table (:func:`archsim.hw.synth.synthesize`, cached); every buffer and
the program memory are priced as macros of their technology
(:meth:`archsim.hw.models.memtech.MemoryModel.area_mm2`). Wiring, placement utilization and
the LDO/ADPLL themselves are not included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from amaranth.hdl import Module
from amaranth.lib import wiring

from ...hw.accel.bus import BusDecoder, CSRBlock
from ...hw.accel.controller import Sequencer
from ...hw.accel.dvfs import DVFSController
from ...hw.models.dvfs import OperatingPoint
from ...hw.models.memtech import MemoryModel
from ...hw.synth import synthesize
from ...loading import ProgressCallback

if TYPE_CHECKING:
    from .compiled import CompiledAccelerator

__all__ = ["AreaReport", "accelerator_area"]


@dataclass(frozen=True)
class AreaReport:
    """Area components of an accelerator, mm^2.

    Attributes
    ----------
    logic_mm2 : dict of str to float
        ``unit:<name>``, ``controller``, ``dvfs:<domain>``: synthesized cell area.
    memory_mm2 : dict of str to float
        ``buffer:<name>`` and ``program``: macro area of their technology.
    node : str
    """

    logic_mm2: dict[str, float]
    memory_mm2: dict[str, float]
    node: str

    @property
    def total_mm2(self) -> float:
        """Logic plus memories."""
        return sum(self.logic_mm2.values()) + sum(self.memory_mm2.values())

    def rows(self) -> list[dict[str, object]]:
        """One row per component."""
        return ([{"component": k, "kind": "logic", "area_mm2": v}
                 for k, v in self.logic_mm2.items()]
                + [{"component": k, "kind": "memory", "area_mm2": v}
                   for k, v in self.memory_mm2.items()])

    def __str__(self) -> str:
        lines = [f"{r['component']:<24} {r['kind']:<7} {r['area_mm2']:>10.5f} mm^2"
                 for r in self.rows()]
        lines.append(f"{'total':<24} {'':<7} {self.total_mm2:>10.5f} mm^2 ({self.node}; "
                     "cells and macros only)")
        return "\n".join(lines)


class _Controller(wiring.Component):
    """The controller's logic for synthesis: sequencer, CSR block and decoder side by side
    (their ports left open, so none is optimized away)."""

    def __init__(self, compiled: CompiledAccelerator) -> None:
        units = list(compiled.units.values())
        nargs = [len(u.contract.all_args) for u in units]
        domains = compiled.description.domains.values()
        self.seq = Sequencer(units=len(units), max_args=max(max(nargs), 1), program_words=2,
                             domains=len(domains), unit_args=nargs,
                             op_points=[len(d.operating_points) for d in domains])
        self.csr = CSRBlock(stats=compiled.stat_names())
        self.decoder = BusDecoder(region_addr_widths=[self.csr.addr_width, 1] + [
            max(1, (b.words - 1).bit_length()) for b in compiled.buffers.values()])
        members = {}
        for prefix, part in (("seq", self.seq), ("csr", self.csr), ("dec", self.decoder)):
            for name, member in part.signature.members.items():
                members[f"{prefix}_{name}"] = member
        super().__init__(members)

    def elaborate(self, platform: object) -> Module:
        m = Module()
        for prefix, part in (("seq", self.seq), ("csr", self.csr), ("dec", self.decoder)):
            m.submodules[prefix] = part
            for name, member in part.signature.members.items():
                outer, inner = getattr(self, f"{prefix}_{name}"), getattr(part, name)
                if member.is_port:
                    _tie(m, outer, inner, member.flow == wiring.In)
                else:
                    wiring.connect(m, wiring.flipped(outer), inner)
        return m


def _tie(m: Module, outer: object, inner: object, inward: bool) -> None:
    """Connect an outer port to the part's port of the same shape (arrays element-wise)."""
    if isinstance(outer, list):
        assert isinstance(inner, list)
        for o, i in zip(outer, inner, strict=True):
            _tie(m, o, i, inward)
        return
    m.d.comb += inner.eq(outer) if inward else outer.eq(inner)  # type: ignore[attr-defined]


def accelerator_area(compiled: CompiledAccelerator, *, node: str = "nangate45",
                     progress: ProgressCallback | None = None) -> AreaReport:
    """The :class:`AreaReport` of ``compiled`` (see the module docstring); ``progress`` is
    told ``(blocks synthesized, blocks)`` as each block finishes (synthesis is cached, but a
    cold run of a whole accelerator takes minutes)."""
    regulated = [d for d in compiled.description.domains.values() if d.regulated]
    blocks = len(compiled.units) + 1 + len(regulated)
    logic: dict[str, float] = {}

    def done() -> None:
        if progress is not None:
            progress(len(logic), blocks)

    for name, unit in compiled.fresh_units().items():
        logic[f"unit:{name}"] = synthesize(unit, name=f"{compiled.name}_{name}", node=node,
                                           fpga=False).area_mm2
        done()
    logic["controller"] = synthesize(_Controller(compiled), name=f"{compiled.name}_ctrl",
                                     node=node, fpga=False).area_mm2
    done()
    for dom in regulated:
        ctrl = DVFSController(
            operating_points=[OperatingPoint(voltage_v=v, frequency_hz=f)
                              for v, f in dom.operating_points.values()],
            ldo=compiled.ldo, adpll=compiled.adpll,
            clock_hz=compiled.controller_clock_hz, domains=1)
        logic[f"dvfs:{dom.name}"] = synthesize(ctrl, name=f"{compiled.name}_dvfs_{dom.name}",
                                               node=node, fpga=False).area_mm2
        done()
    memory = {f"buffer:{b}": compiled.memory_model(b).area_mm2 for b in compiled.buffers}
    memory["program"] = MemoryModel(technology="sram", words=compiled.program_words_pow2,
                                    width=32).area_mm2
    return AreaReport(logic, memory, node)
