"""AutoPilot's accelerator design space, generated from the DSL and priced per point.

AutoPilot (Krishnan et al., arXiv 2102.02988) co-designs a UAV's CNN navigation policy with
a systolic-array accelerator. Here a point of the accelerator space is an
:class:`AcceleratorPoint` (array ``rows x cols``, activation/weight/accumulator buffer sizes,
clock, dataflow: output- or weight-stationary); :meth:`AcceleratorPoint.description` is the DSL description
(:func:`archsim.dsl.examples.uav_npu.uav_npu`) and :func:`price_point` prices it on a
workload graph:

cycles and latency
    The SoC engine (:func:`archsim.sim.soc.simulate`) runs the graph with the accelerator's
    *model view* for one GEMM tile (:func:`archsim.dsl.examples.uav_npu.uav_tile_program`,
    whose cycles equal the RTL's CYCLES count: tested on Verilator): each step's ``(m, k,
    n)`` GEMM (a convolution as its implicit im2col GEMM) is ``ceil(m/M) ceil(k/K)
    ceil(n/N)`` tile invocations. ``compute_cycles`` sums them; ``latency_s`` is the SoC's
    end-to-end time (DRAM transfers of the tiles included).
energy and power
    Counted: the units' actions and the buffers' port accesses of every tile (model view,
    45 nm / 0.9 V tables of :mod:`archsim.hw.models.energy` and
    :mod:`archsim.hw.models.memtech`), the SoC's vector work (ReLU, pooling) at its
    ``vector_op_pj``, and the buffers' leakage (memtech table, an assumed 50 pW/bit) over the
    whole inference. Not counted: the logic's leakage (the cell table gives no leakage), the
    controller's and the bus's own energy, clock tree. DRAM traffic is a separate field
    (off-chip). ``average_power_w`` is the chip's energy over the latency.
area
    The units' and controller's cells from Yosys synthesis on NanGate45
    (:func:`archsim.compilers.accel.area.accelerator_area`), cached per ``(rows, cols,
    dataflow)``:
    the logic is synthesized once per array shape with the widest buffer addresses the space
    allows (16 bits), so buffer sizes change only the memory macros, priced from the point's
    buffers.
board (assumed)
    :class:`BoardOverhead`: what carrying the chip costs a UAV -- a PCB mass and a heatsink
    mass per watt, and the regulator's efficiency turning the chip's power into battery
    power. All three are assumed (no source); kept apart from the chip's own figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from ...compilers.accel.area import accelerator_area
from ...compilers.graph import WorkloadGraph
from ...dsl.accel import Accelerator
from ...dsl.examples.uav_npu import DATAFLOWS as UAV_DATAFLOWS
from ...dsl.examples.uav_npu import (
    MAIN_VOLTAGE_V,
    design_name,
    uav_npu,
    uav_tile_program,
    vector_lanes,
)
from ...errors import ConfigError
from ...fields import is_positive_int
from ...hw.models import DSLModel
from ...hw.models.memtech import MemoryModel
from ..soc import SoCConfig, simulate
from ..soc.tiling import ScratchpadTiler, plan_operator

__all__ = ["AcceleratorPoint", "AcceleratorPrice", "BoardOverhead", "BoardPrice",
           "DATAFLOWS", "ARRAY_SIZES", "MAX_BUFFER_WORDS", "price_point", "logic_area_mm2",
           "tile_report_figures", "uav_soc_config", "ASSUMPTIONS"]

#: Dataflows a point may have: the library GEMM unit's (output- and weight-stationary).
DATAFLOWS: tuple[str, ...] = UAV_DATAFLOWS
#: Array rows and columns allowed: powers of two (they are the buffers' bank counts).
ARRAY_SIZES: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
#: The most elements a buffer may hold: 16-bit element addresses (the width the logic is
#: synthesized with, so that one synthesis per array shape serves every buffer size).
MAX_BUFFER_WORDS = 1 << 16
_ACC_BYTES = 4  # int32 accumulators

#: What every price assumes (listed by the bench and any study using it).
ASSUMPTIONS: tuple[str, ...] = (
    "node nangate45 (45 nm cell areas), supply 0.9 V: the reference of the energy tables",
    "clock_hz is taken as reachable; synthesis gives area, no timing check",
    "tile program: one GEMM tile accumulated in acc (c_in = c); the tile shape "
    "(tile_m_folds * rows, tile_k, cols) is a design parameter (defaults 4 and 16: assumed)",
    "host CPU dispatch overheads 0 (assumed: the accelerator's controller runs the network "
    "from a host-loaded program); tiles move over DMA from DRAM at 12.8 GB/s, 100 ns, "
    "20.3 pJ/bit (bandwidth/latency assumed, energy Horowitz ISSCC 2014)",
    "energy: unit actions + buffer accesses (model view) + SoC vector ops + buffer leakage "
    "over the inference; logic leakage, controller, bus and clock tree not counted",
    "logic synthesized with 16-bit buffer addresses for every buffer size",
    "board overhead (PCB mass, heatsink mass per W, regulator efficiency): assumed",
)


def _pow2_choice(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in ARRAY_SIZES:
        raise ConfigError(f"{name} must be one of {list(ARRAY_SIZES)} (a power of two: the "
                          f"buffers' bank count), not {value!r}", field=name,
                          allowed=[str(v) for v in ARRAY_SIZES])
    return value


def _positive_int(name: str, value: object) -> int:
    if not is_positive_int(value):
        raise ConfigError(f"{name} must be a positive int, not {value!r}", field=name)
    return value


@dataclass(frozen=True)
class AcceleratorPoint:
    """One accelerator of the design space (module docstring).

    Attributes
    ----------
    rows, cols : int
        The GEMM array (:data:`ARRAY_SIZES`).
    act_kib, wgt_kib, acc_kib : int
        Buffer sizes in KiB: int8 activations and weights, int32 accumulators (each at most
        :data:`MAX_BUFFER_WORDS` elements).
    clock_hz : float
        The accelerator's clock, a whole number of hertz in 1 MHz .. 2 GHz, assumed
        reachable (not timing-checked).
    dataflow : str
        :data:`DATAFLOWS`: ``"os"`` (output-stationary) or ``"ws"`` (weight-stationary).
    tile_m_folds, tile_k : int
        The tile program's GEMM tile is ``(tile_m_folds * rows, tile_k, cols)``; defaults
        4 and 16 are assumed. The weight-stationary array folds ``k`` over its rows, so
        there ``tile_k`` must be a multiple of ``rows``.
    """

    rows: int
    cols: int
    act_kib: int = 16
    wgt_kib: int = 16
    acc_kib: int = 16
    clock_hz: float = 500e6
    dataflow: str = "os"
    tile_m_folds: int = 4
    tile_k: int = 16

    def __post_init__(self) -> None:
        _pow2_choice("rows", self.rows)
        _pow2_choice("cols", self.cols)
        for name, width_bytes in (("act_kib", 1), ("wgt_kib", 1), ("acc_kib", _ACC_BYTES)):
            kib = _positive_int(name, getattr(self, name))
            if kib * 1024 // width_bytes > MAX_BUFFER_WORDS:
                most = MAX_BUFFER_WORDS * width_bytes // 1024
                raise ConfigError(f"{name} must be at most {most} KiB ({MAX_BUFFER_WORDS} "
                                  f"elements), not {kib}", field=name)
        clock = self.clock_hz
        if isinstance(clock, bool) or not isinstance(clock, int | float) \
                or not math.isfinite(clock) or not 1e6 <= clock <= 2e9 \
                or clock != int(clock):
            raise ConfigError(f"clock_hz must be a whole number of hertz in 1e6..2e9, not "
                              f"{clock!r}", field="clock_hz")
        if self.dataflow not in DATAFLOWS:
            raise ConfigError(
                f"dataflow {self.dataflow!r} cannot be described: the library GEMM unit "
                "(archsim.hw.accel.gemm) is output- or weight-stationary ('os', 'ws'); no "
                "input-stationary unit exists", field="dataflow", allowed=list(DATAFLOWS))
        _positive_int("tile_m_folds", self.tile_m_folds)
        _positive_int("tile_k", self.tile_k)
        if self.dataflow == "ws" and self.tile_k % self.rows:
            raise ConfigError(f"tile_k must be a multiple of rows ({self.rows}) for the "
                              f"weight-stationary array, not {self.tile_k}", field="tile_k")
        m, k, n = self.tile
        for name, words, need in (("act_kib", self.act_words, m * k),
                                  ("wgt_kib", self.wgt_words, k * n),
                                  ("acc_kib", self.acc_words, m * n)):
            if words < need:
                raise ConfigError(f"{name}: the buffer holds {words} elements, less than the "
                                  f"{need} of one {m}x{k}x{n} tile", field=name)

    @property
    def act_words(self) -> int:
        """Elements of the int8 activation buffer."""
        return self.act_kib * 1024

    @property
    def wgt_words(self) -> int:
        """Elements of the int8 weight buffer."""
        return self.wgt_kib * 1024

    @property
    def acc_words(self) -> int:
        """Elements of the int32 accumulator buffer."""
        return self.acc_kib * 1024 // _ACC_BYTES

    @property
    def tile(self) -> tuple[int, int, int]:
        """The tile program's ``(m, k, n)``."""
        return (self.tile_m_folds * self.rows, self.tile_k, self.cols)

    @property
    def label(self) -> str:
        """A short name: ``8x8-a16w16c16`` (a weight-stationary point ends in ``-ws``)."""
        base = f"{self.rows}x{self.cols}-a{self.act_kib}w{self.wgt_kib}c{self.acc_kib}"
        return base + ("-ws" if self.dataflow == "ws" else "")

    @property
    def design_name(self) -> str:
        """This point's name in :data:`archsim.dsl.examples.uav_npu.DESIGNS`."""
        return design_name(rows=self.rows, cols=self.cols, act_words=self.act_words,
                           wgt_words=self.wgt_words, acc_words=self.acc_words,
                           clock_hz=self.clock_hz, dataflow=self.dataflow)

    def description(self) -> Accelerator:
        """The DSL description of this point (:func:`archsim.dsl.examples.uav_npu.uav_npu`)."""
        return uav_npu(rows=self.rows, cols=self.cols, act_words=self.act_words,
                       wgt_words=self.wgt_words, acc_words=self.acc_words,
                       clock_hz=float(self.clock_hz), name="uav_npu",
                       dataflow=self.dataflow)


@dataclass(frozen=True)
class BoardOverhead:
    """What carrying the chip costs a UAV (all assumed; no source).

    Attributes
    ----------
    pcb_mass_kg : float
        The chip's board and package: 5 g (assumed, a small carrier PCB).
    heatsink_kg_per_w : float
        Heatsink mass per watt of chip power: 10 g/W (assumed).
    regulator_efficiency : float
        Battery-to-chip power conversion: 0.85 (assumed, a buck regulator).
    """

    pcb_mass_kg: float = 0.005
    heatsink_kg_per_w: float = 0.010
    regulator_efficiency: float = 0.85

    def __post_init__(self) -> None:
        for name in ("pcb_mass_kg", "heatsink_kg_per_w"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0:
                raise ConfigError(f"{name} must be a number >= 0, not {v!r}", field=name)
        e = self.regulator_efficiency
        if isinstance(e, bool) or not isinstance(e, int | float) or not 0 < e <= 1:
            raise ConfigError(f"regulator_efficiency must be in (0, 1], not {e!r}",
                              field="regulator_efficiency")


@dataclass(frozen=True)
class BoardPrice:
    """The board overhead of one point (assumed figures, :class:`BoardOverhead`).

    Attributes
    ----------
    mass_kg : float
        PCB plus heatsink for the chip's average power.
    battery_power_w : float
        The chip's average power over the regulator's efficiency.
    """

    mass_kg: float
    battery_power_w: float


@dataclass(frozen=True)
class AcceleratorPrice:
    """A point priced on one workload (module docstring).

    Attributes
    ----------
    point : AcceleratorPoint
    workload : str
    node : str
    clock_hz, voltage_v : float
    tile : (int, int, int)
    tile_cycles : int
        Cycles of one tile program (model view, equal to the RTL's).
    compute_cycles : int
        Tile cycles summed over the inference's steps (the accelerator busy).
    latency_s : float
        End-to-end inference time on the SoC (compute, DRAM transfers, vector work).
    dynamic_energy_j, leakage_energy_j : float
        The chip's energy per inference (what is counted: module docstring).
    dram_energy_j : float
        Off-chip DRAM and interconnect energy of the inference (not the chip's).
    logic_area_mm2, memory_area_mm2 : float
        Synthesized cells and memory macros (buffers and program memory).
    board : BoardPrice
        Assumed board overhead, apart from the chip's figures.
    """

    point: AcceleratorPoint
    workload: str
    node: str
    clock_hz: float
    voltage_v: float
    tile: tuple[int, int, int]
    tile_cycles: int
    compute_cycles: int
    latency_s: float
    dynamic_energy_j: float
    leakage_energy_j: float
    dram_energy_j: float
    logic_area_mm2: float
    memory_area_mm2: float
    board: BoardPrice
    assumptions: tuple[str, ...] = field(default=ASSUMPTIONS, repr=False)

    @property
    def energy_j(self) -> float:
        """The chip's energy per inference: dynamic plus leakage."""
        return self.dynamic_energy_j + self.leakage_energy_j

    @property
    def average_power_w(self) -> float:
        """The chip's energy over the inference latency."""
        return self.energy_j / self.latency_s

    @property
    def area_mm2(self) -> float:
        """Logic plus memories."""
        return self.logic_area_mm2 + self.memory_area_mm2

    def row(self) -> dict[str, object]:
        """A flat table row."""
        p = self.point
        return {"point": p.label, "rows": p.rows, "cols": p.cols, "dataflow": p.dataflow,
                "act_kib": p.act_kib,
                "wgt_kib": p.wgt_kib, "acc_kib": p.acc_kib, "clock_hz": self.clock_hz,
                "node": self.node, "tile": "x".join(map(str, self.tile)),
                "tile_cycles": self.tile_cycles, "compute_cycles": self.compute_cycles,
                "latency_s": self.latency_s, "energy_j": self.energy_j,
                "dynamic_energy_j": self.dynamic_energy_j,
                "leakage_energy_j": self.leakage_energy_j, "dram_energy_j": self.dram_energy_j,
                "power_w": self.average_power_w, "logic_area_mm2": self.logic_area_mm2,
                "memory_area_mm2": self.memory_area_mm2, "area_mm2": self.area_mm2,
                "board_mass_kg": self.board.mass_kg,
                "board_battery_power_w": self.board.battery_power_w}


@dataclass(frozen=True)
class _ModelTile:
    """The tile program's model figures as the SoC's ``CompiledTile``: its dynamic energy
    only (leakage is charged over the whole inference instead)."""

    invocation_cycles: int
    invocation_energy_j: float
    frequency_hz: float


@lru_cache(maxsize=64)
def tile_report_figures(point: AcceleratorPoint) -> tuple[int, float, float]:
    """``(cycles, dynamic_energy_j, time_s)`` of one tile program on ``point``'s model view
    (dynamic: every energy component but the buffers' leakage)."""
    npu = point.description()
    m, k, n = point.tile
    report = npu.compile().model(uav_tile_program(npu, m=m, k=k, n=n))
    dynamic = math.fsum(v for key, v in report.energy_j.items()
                        if not key.startswith("leakage:"))
    return report.cycles, dynamic, report.time_s


def uav_soc_config(point: AcceleratorPoint) -> SoCConfig:
    """The SoC around ``point``: the accelerator with its buffers as scratchpads, DRAM over
    DMA, no host dispatch overhead (:data:`ASSUMPTIONS`)."""
    m, k, n = point.tile
    return SoCConfig.from_dict({
        "soc": {"name": f"uav-{point.label}", "technology_nm": 45,
                "voltage_v": MAIN_VOLTAGE_V},
        "cpu": {"framework_overhead_s_per_op": 0.0, "framework_overhead_s_per_tile": 0.0,
                "active_power_w": 0.0, "area_mm2": 0.0},
        "accelerators": [{
            "kind": "accelerator", "name": "uav_npu",
            "description": f"archsim.dsl.examples.uav_npu:DESIGNS.{point.design_name}",
            "tile_program": "archsim.dsl.examples.uav_npu:uav_tile_program",
            "tile": [m, k, n], "vector_lanes": vector_lanes(point.rows, point.cols),
            "pipeline_cycles": 0,
            # the scratchpads are the act, wgt and acc buffers (the output one holds int32
            # partial sums: its size is counted in elements)
            "scratchpad_buffers": {"input": "act", "weight": "wgt", "output": "acc"},
            "scratchpads": {"element_bytes": 1},
        }],
        "dram": {"bandwidth_bytes_per_s": 12.8e9, "latency_s": 100e-9,
                 "energy_pj_per_bit": 20.3125},
        "host_memory": {"inputs": "dma", "weights": "dma", "outputs": "dma"},
    })


@lru_cache(maxsize=32)
def logic_area_mm2(rows: int, cols: int, *, node: str = "nangate45",
                   dataflow: str = "os") -> float:
    """Synthesized cell area of the ``rows x cols`` accelerator's units and controller, with
    :data:`MAX_BUFFER_WORDS`-element buffers (16-bit addresses) whatever the point's buffer
    sizes: one synthesis per array shape and dataflow (also cached on disk by
    :mod:`archsim.hw.synth`)."""
    _pow2_choice("rows", rows)
    _pow2_choice("cols", cols)
    if dataflow not in DATAFLOWS:
        raise ConfigError(f"dataflow must be one of {list(DATAFLOWS)}, not {dataflow!r}",
                          field="dataflow", allowed=list(DATAFLOWS))
    suffix = "_ws" if dataflow == "ws" else ""
    canon = uav_npu(rows=rows, cols=cols, act_words=MAX_BUFFER_WORDS,
                    wgt_words=MAX_BUFFER_WORDS, acc_words=MAX_BUFFER_WORDS,
                    name=f"uav_npu_{rows}x{cols}{suffix}", dataflow=dataflow)
    report = accelerator_area(canon.compile(), node=node)
    return math.fsum(report.logic_mm2.values())


def _memory_area_mm2(point: AcceleratorPoint) -> float:
    """The point's buffers and program memory as SRAM macros (the same pricing as
    :func:`~archsim.compilers.accel.area.accelerator_area`)."""
    compiled = point.description().compile()
    total = math.fsum(compiled.memory_model(b).area_mm2 for b in compiled.buffers)
    return total + MemoryModel(technology="sram", words=compiled.program_words_pow2,
                               width=32).area_mm2


def _leakage_power_w(point: AcceleratorPoint) -> float:
    compiled = point.description().compile()
    return math.fsum(compiled.memory_model(b).leakage_power_w(MAIN_VOLTAGE_V)
                     for b in compiled.buffers)


def price_point(point: AcceleratorPoint, graph: WorkloadGraph, *, node: str = "nangate45",
                board: BoardOverhead | None = None, synthesize: bool = True) -> AcceleratorPrice:
    """Price ``point`` on ``graph`` (module docstring).

    Parameters
    ----------
    point
        The accelerator.
    graph
        The workload (a CNN policy's inference graph).
    node
        The synthesis cell table (:func:`archsim.hw.synth.available_nodes`).
    board
        The assumed board overhead (default :class:`BoardOverhead`).
    synthesize
        False leaves ``logic_area_mm2`` at 0 (no Yosys run): for latency/energy-only sweeps.

    Raises
    ------
    ConfigError
        ``point`` is not an :class:`AcceleratorPoint` or ``node`` is unknown.
    """
    if not isinstance(point, AcceleratorPoint):
        raise ConfigError(f"point must be an AcceleratorPoint, not {type(point).__name__}",
                          field="point")
    if not isinstance(graph, WorkloadGraph):
        raise ConfigError(f"graph must be a WorkloadGraph, not {type(graph).__name__}",
                          field="graph")
    board = board if board is not None else BoardOverhead()
    cycles, dyn_j, time_s = tile_report_figures(point)
    clock = cycles / time_s
    config = uav_soc_config(point)
    acc = config.accelerators[0]
    model = DSLModel(design=_ModelTile(cycles, dyn_j, clock), tile=point.tile,
                     name=acc.label, vector_lanes=acc.vector_lanes,
                     pipeline_cycles=acc.pipeline_cycles, mac_pj=config.energy.mac_pj,
                     vector_op_pj=config.energy.vector_op_pj,
                     tiler=ScratchpadTiler(acc.scratchpads))
    result = simulate(config, graph, models=[model])
    compute_cycles = 0
    for op in graph:
        plan = plan_operator(op, acc.scratchpads, align=point.tile)
        for job in plan.jobs:
            for step in job.steps:
                if step.tile.gemm is not None:
                    compute_cycles += model.gemm_cycles(*step.tile.gemm)
    latency_s = result.latency_s
    dynamic_j = result.energy.accelerators_j[acc.label]
    leakage_j = _leakage_power_w(point) * latency_s
    logic = (logic_area_mm2(point.rows, point.cols, node=node, dataflow=point.dataflow)
             if synthesize else 0.0)
    power_w = (dynamic_j + leakage_j) / latency_s
    return AcceleratorPrice(
        point=point, workload=graph.name, node=node, clock_hz=float(point.clock_hz),
        voltage_v=MAIN_VOLTAGE_V, tile=point.tile, tile_cycles=cycles,
        compute_cycles=compute_cycles, latency_s=latency_s, dynamic_energy_j=dynamic_j,
        leakage_energy_j=leakage_j,
        dram_energy_j=result.energy.dram_j + result.energy.interconnect_j,
        logic_area_mm2=logic, memory_area_mm2=_memory_area_mm2(point),
        board=BoardPrice(mass_kg=board.pcb_mass_kg + board.heatsink_kg_per_w * power_w,
                         battery_power_w=power_w / board.regulator_efficiency))
