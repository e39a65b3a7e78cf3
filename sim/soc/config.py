"""The SoC description: pydantic models loaded from TOML and validated.

A description has a ``[soc]`` header (name, clock, voltage, technology node), a ``[cpu]``
(cores, frequency, framework-overhead and data-preparation cost model), one or more
``[[accelerators]]`` (kind, count, compute shape, scratchpads), ``[dram]``, ``[llc]`` (last-level
cache, coherent port and flush cost), ``[interconnect]``, ``[host_memory]`` (the policy per
tensor class: ``dma`` or ``acp``) and, optionally, ``[global_buffer]`` (an on-chip SRAM or
eDRAM buffer holding the tensors a simulation names resident). Every validation error is a
:class:`~archsim.errors.ConfigError` naming the file, the field path (``accelerators[0].kind``)
and, for closed sets, the allowed values.
"""

from __future__ import annotations

import inspect
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from ...errors import ConfigError
from ...fields import (
    BandwidthBytesPerS,
    CapacityBytes,
    ElementBytes,
    FrequencyHz,
    UnitCount,
    plausible,
)
from ...hw.models.area import DEFAULT_SRAM_UM2_PER_BIT
from ...hw.models.energy import HOROWITZ_45NM
from ...hw.models.memtech import MemoryModel, memory_technology
from ...loading import read_text_file

__all__ = [
    "ACCELERATOR_KINDS", "AREA_SOURCES", "HOST_MEMORY_POLICIES", "SocHeader", "CPUConfig",
    "ScratchpadConfig", "AcceleratorConfig", "SystolicAcceleratorConfig", "SMVAcceleratorConfig",
    "ModelAcceleratorConfig", "DSLAcceleratorConfig", "DescribedAcceleratorConfig",
    "AnyAcceleratorConfig",
    "ACCELERATOR_CONFIGS", "parse_accelerator", "DRAMConfig", "LLCConfig", "InterconnectConfig", "HostMemoryConfig",
    "EnergyConfig", "GLOBAL_BUFFER_TECHNOLOGIES", "GlobalBufferConfig", "SoCConfig",
    "load_soc_config",
]

#: Accelerator kinds the simulator executes.
ACCELERATOR_KINDS: tuple[str, ...] = ("systolic", "smv", "model", "dsl", "accelerator")
#: Where an accelerator's area comes from (see :class:`AcceleratorConfig`).
AREA_SOURCES: tuple[str, ...] = ("config", "model", "synthesis")
#: Host-memory policies per tensor class (SMAUG's DMA and ACP).
HOST_MEMORY_POLICIES: tuple[str, ...] = ("dma", "acp")
#: Technologies of the on-chip global buffer (rows of ``hw/data/memory_technologies.toml``).
GLOBAL_BUFFER_TECHNOLOGIES: tuple[str, ...] = ("sram", "edram")
# memtech's own default, read from its signature so that the number lives in one place.
_MEMTECH_REFRESH_PERCENTILE: float = inspect.signature(MemoryModel).parameters[
    "refresh_percentile"].default


# Plausible ranges of the quantities fields.py has no shared type for (a cycle count, a
# clock period, a scratchpad's elements).
_Cycles = Annotated[int, plausible(0, 2**32, integer=True, reason="at most 2**32 cycles")]
_ClockNs = Annotated[float, plausible(0.01, 1e9, reason="10 ps to 1 s: 100 GHz to 1 Hz")]
_Elements = Annotated[int, plausible(1, 2**40, integer=True, reason="at most 2**40 elements")]


class _Model(BaseModel):
    # allow_inf_nan=False: an infinite or NaN number is never a valid setting.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class SocHeader(_Model):
    """Name, technology node and the accelerator-side clock and supply."""

    name: str = "soc"
    technology_nm: int = Field(45, gt=0)
    voltage_v: float = Field(0.9, gt=0)
    description: str = ""


class CPUConfig(_Model):
    """The host CPU and the cost model of the software framework running on it.

    ``framework_overhead_s_per_op`` is the framework's fixed cost to dispatch one operator
    (graph traversal, tensor allocation, accelerator invocation setup);
    ``framework_overhead_s_per_tile`` the cost to launch one tile on an accelerator.
    Data preparation (tiling a tensor into scratchpad-sized blocks with the accelerator's
    layout, and gathering output tiles back) copies every byte at
    ``data_prep_bytes_per_s_per_thread`` on each of ``data_prep_threads`` threads.
    """

    cores: UnitCount = Field(8, ge=1)
    frequency_hz: FrequencyHz = Field(2.5e9, gt=0)
    framework_overhead_s_per_op: float = Field(50e-6, ge=0)
    framework_overhead_s_per_tile: float = Field(2e-6, ge=0)
    data_prep_bytes_per_s_per_thread: BandwidthBytesPerS = Field(1e9, gt=0)
    data_prep_threads: UnitCount = Field(1, ge=1)
    active_power_w: float = Field(1.0, ge=0)
    area_mm2: float = Field(2.0, ge=0)

    @model_validator(mode="after")
    def _threads_fit(self) -> CPUConfig:
        if self.data_prep_threads > self.cores:
            raise ValueError(f"data_prep_threads ({self.data_prep_threads}) exceeds cores "
                             f"({self.cores})")
        return self


class ScratchpadConfig(_Model):
    """The three scratchpads of an accelerator, in elements of ``element_bytes`` bytes.

    ``area_um2_per_bit`` prices them when an accelerator's area is derived rather than given
    (``area_from = "model"`` or ``"synthesis"``): default 0.692 um^2 per bit = Intel's 45 nm
    6T bit cell of 0.346 um^2 (Mistry et al., IEDM 2007) at an assumed 50 % array
    efficiency (decoders, sense amplifiers, I/O).

    ``double_buffered`` splits each scratchpad into two halves: tiles are sized for a half,
    and an accelerator loads the next step's tiles (and stores the last job's output) while
    it computes (:mod:`archsim.sim.soc.engine`).
    """

    input_elements: _Elements = Field(32768, ge=1)
    weight_elements: _Elements = Field(32768, ge=1)
    output_elements: _Elements = Field(32768, ge=1)
    element_bytes: ElementBytes = Field(2, ge=1)
    area_um2_per_bit: float = Field(DEFAULT_SRAM_UM2_PER_BIT, ge=0)
    double_buffered: bool = False

    def buffer(self) -> ScratchpadConfig:
        """The capacity one tile may use: half of each scratchpad when double-buffered."""
        if not self.double_buffered:
            return self
        return self.model_copy(update={"input_elements": max(self.input_elements // 2, 1),
                                       "weight_elements": max(self.weight_elements // 2, 1),
                                       "output_elements": max(self.output_elements // 2, 1),
                                       "double_buffered": False})

    @property
    def total_bytes(self) -> int:
        return (self.input_elements + self.weight_elements + self.output_elements) * \
            self.element_bytes


class AcceleratorConfig(_Model):
    """What every kind of accelerator has: a name, how many of it, its vector unit, its
    scratchpads and where its area comes from. One subclass per ``kind`` adds its own fields
    (a discriminated union on ``kind``: :data:`AnyAcceleratorConfig`):

    ``systolic`` (:class:`SystolicAcceleratorConfig`): a ``rows x cols`` array with
    ``dataflow`` ``os`` or ``ws`` (SCALE-Sim fold model, :mod:`archsim.hw.models.systolic`).
    ``smv`` (:class:`SMVAcceleratorConfig`): SMAUG's SMV engine, ``pes`` processing elements
    each with a ``macs_per_pe``-wide MAC tree (NVDLA-like: PEs split output channels, each
    PE's MAC tree reduces input channels). ``model`` (:class:`ModelAcceleratorConfig`): any
    design whose model view gives its cycles -- ``cycles_model = "package.module:function"``
    names a callable ``function(*, m, k, n) -> int`` returning the cycles of an
    ``[m, k] x [k, n]`` tile (the hook for any model). ``dsl``
    (:class:`DSLAcceleratorConfig`): a kernel written in the DSL, compiled once per process
    (``kernel = "package.module:name"`` names an :func:`archsim.dsl.kernel` with the
    GEMM-tile contract of :func:`archsim.dsl.library.gemm_tile_kernel`, or a factory
    ``f(*, m, k, n) -> kernel`` called with ``tile = [m, k, n]``), scheduled at ``clock_ns``
    under ``resources`` (e.g. ``{ mul = 4 }``); its cycles per tile are the Design's
    predicted cycles (:mod:`archsim.sim.soc.accelerators`), its clock
    ``1 / max(clock_ns, critical path)``. All run element-wise, pooling and normalization on
    a ``vector_lanes``-wide vector unit.

    Area (``area_from``): ``"config"`` (the default, except for ``dsl``) takes ``area_mm2`` as
    the accelerator with its scratchpads (absent: 0); ``"model"`` (``dsl`` only, its
    default) is the Design's pre-RTL estimate plus the scratchpads' SRAM; ``"synthesis"``
    (``systolic`` or ``dsl``) is the Yosys cell area of the RTL block on NanGate45
    (:func:`archsim.hw.synth.synthesize`, cached) plus the scratchpads' SRAM.
    """

    kind: str
    name: str = ""
    count: UnitCount = Field(1, ge=1)
    vector_lanes: UnitCount = Field(8, ge=1)
    pipeline_cycles: _Cycles = Field(0, ge=0)
    scratchpads: ScratchpadConfig = ScratchpadConfig()
    area_mm2: float | None = Field(None, ge=0)
    area_from: Literal["config", "model", "synthesis"] | None = None

    #: The ``area_from`` values this kind supports (with why the others do not).
    _area_sources: ClassVar[tuple[str, ...]] = ("config",)
    #: Hints for a field given to the wrong kind (``field -> message``).
    field_hints: ClassVar[dict[str, str]] = {}

    @field_validator("area_from")
    @classmethod
    def _area_source_fits_kind(cls, value: str | None) -> str | None:
        kind = cls.model_fields["kind"].default
        if value == "model" and "model" not in cls._area_sources:
            raise ValueError(f"area_from = 'model' needs kind 'dsl' (the Design's estimate), "
                             f"not '{kind}'")
        if value == "synthesis" and "synthesis" not in cls._area_sources:
            raise ValueError(f"area_from = 'synthesis' needs kind 'systolic', 'dsl' or "
                             f"'accelerator' (an RTL block), not '{kind}'")
        return value

    @model_validator(mode="after")
    def _area_given_once(self) -> AcceleratorConfig:
        source = self.area_source
        if source != "config" and self.area_mm2 is not None:
            raise ValueError(f"area_mm2 is the area itself: leave it out with area_from = "
                             f"'{source}'")
        return self

    @property
    def area_source(self) -> str:
        """``area_from``, or its default: ``"model"`` for ``dsl`` without an ``area_mm2``,
        else ``"config"``."""
        if self.area_from is not None:
            return self.area_from
        return "model" if self.kind == "dsl" and self.area_mm2 is None else "config"

    @property
    def label(self) -> str:
        return self.name or self.kind

    @property
    def macs_per_cycle(self) -> int | None:
        """Peak MACs per cycle (``None`` for ``model`` and ``dsl``: only their model knows)."""
        return None


class SystolicAcceleratorConfig(AcceleratorConfig):
    """``kind = "systolic"``: an R x C systolic array (:class:`AcceleratorConfig`)."""

    kind: Literal["systolic"] = "systolic"
    frequency_hz: FrequencyHz = Field(1e9, gt=0)
    rows: UnitCount = Field(16, ge=1)
    cols: UnitCount = Field(16, ge=1)
    dataflow: Literal["os", "ws"] = "os"

    _area_sources: ClassVar[tuple[str, ...]] = ("config", "synthesis")

    @property
    def macs_per_cycle(self) -> int | None:
        return self.rows * self.cols


class SMVAcceleratorConfig(AcceleratorConfig):
    """``kind = "smv"``: SMAUG's SMV engine (:class:`AcceleratorConfig`)."""

    kind: Literal["smv"] = "smv"
    frequency_hz: FrequencyHz = Field(1e9, gt=0)
    pes: UnitCount = Field(8, ge=1)
    macs_per_pe: UnitCount = Field(32, ge=1)

    @property
    def macs_per_cycle(self) -> int | None:
        return self.pes * self.macs_per_pe


class ModelAcceleratorConfig(AcceleratorConfig):
    """``kind = "model"``: a design's own cycles model (:class:`AcceleratorConfig`)."""

    kind: Literal["model"] = "model"
    frequency_hz: FrequencyHz = Field(1e9, gt=0)
    cycles_model: str

    @field_validator("cycles_model")
    @classmethod
    def _import_path(cls, value: str) -> str:
        if ":" not in value:
            raise ValueError("an accelerator of kind 'model' needs cycles_model = "
                             "\"package.module:function\"")
        return value


class DSLAcceleratorConfig(AcceleratorConfig):
    """``kind = "dsl"``: a DSL kernel compiled by the HLS compiler (:class:`AcceleratorConfig`);
    its clock is ``clock_ns`` (there is no ``frequency_hz``)."""

    kind: Literal["dsl"] = "dsl"
    kernel: str
    tile: tuple[int, int, int] | None = None
    clock_ns: _ClockNs = Field(2.0, gt=0)
    resources: dict[str, int] = Field(default_factory=dict)

    _area_sources: ClassVar[tuple[str, ...]] = ("config", "model", "synthesis")
    field_hints: ClassVar[dict[str, str]] = {
        "frequency_hz": "a 'dsl' accelerator's clock is its clock_ns (the period it is "
                        "scheduled for), not frequency_hz"}

    @field_validator("kernel")
    @classmethod
    def _import_path(cls, value: str) -> str:
        if ":" not in value:
            raise ValueError("an accelerator of kind 'dsl' needs kernel = "
                             "\"package.module:name\"")
        return value

    @field_validator("tile")
    @classmethod
    def _positive_tile(cls, value: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
        if value is not None and min(value) < 1:
            raise ValueError(f"tile must be three positive ints [m, k, n], not {list(value)}")
        return value


class DescribedAcceleratorConfig(AcceleratorConfig):
    """``kind = "accelerator"``: an accelerator written with the accelerator DSL
    (:mod:`archsim.dsl.accel`), through its model view (:class:`AcceleratorConfig`).

    ``description = "package.module:name"`` names an
    :class:`~archsim.dsl.accel.Accelerator` or a factory returning one;
    ``tile_program = "package.module:name"`` a function ``f(accelerator, *, m, k, n)``
    returning the :class:`~archsim.dsl.accel.Program` of one ``[m, k] x [k, n]`` GEMM tile
    (or a tuple whose first item is that program) for ``tile = [m, k, n]``;
    ``operating_points = { domain = "point" }`` picks the run's DVFS setting (each domain at
    its first point otherwise). Its buffers are the scratchpads the SoC tiles operators into;
    its cycles, time and energy per tile come from its model
    (:mod:`archsim.compilers.accel.model`). ``scratchpad_buffers`` names the buffers that
    are the input, weight and output scratchpads: their sizes then come from the
    description. ``area_from = "synthesis"`` takes its area from
    :meth:`~archsim.compilers.accel.compiled.CompiledAccelerator.area`: the units' and
    controller's synthesized cells plus its buffers as macros of their technologies (which
    then stand for the scratchpads' area).
    """

    kind: Literal["accelerator"] = "accelerator"
    description: str
    tile_program: str
    tile: tuple[int, int, int]
    operating_points: dict[str, str] = Field(default_factory=dict)
    scratchpad_buffers: dict[str, str] | None = None

    _area_sources: ClassVar[tuple[str, ...]] = ("config", "synthesis")

    @model_validator(mode="after")
    def _scratchpads_are_its_buffers(self) -> DescribedAcceleratorConfig:
        """With ``scratchpad_buffers = { input = "act", weight = "wgt", output = "acc" }``
        the scratchpads' sizes are those buffers' words (the description is loaded)."""
        if self.scratchpad_buffers is None:
            return self
        roles = ("input", "weight", "output")
        if sorted(self.scratchpad_buffers) != sorted(roles):
            raise ValueError(f"scratchpad_buffers must map each of {list(roles)} to a buffer, "
                             f"not {sorted(self.scratchpad_buffers)}")
        from .accelerators import load_described  # the description, loaded on use

        acc = load_described(self)
        words = {}
        for role in roles:
            buf = self.scratchpad_buffers[role]
            if buf not in acc.buffers:
                raise ValueError(f"scratchpad_buffers.{role}: accelerator '{acc.name}' has no "
                                 f"buffer '{buf}'; its buffers are {list(acc.buffers)}")
            words[f"{role}_elements"] = acc.buffers[buf].words
        for key in sorted(words):  # given sizes must agree (a re-validated dump gives them)
            if key in self.scratchpads.model_fields_set and \
                    getattr(self.scratchpads, key) != words[key]:
                raise ValueError(f"scratchpad_buffers sizes the scratchpads from the "
                                 f"description's buffers ({key} = {words[key]}): leave out "
                                 f"scratchpads.{key}")
        # frozen model: set the derived field in place during validation
        self.__dict__["scratchpads"] = self.scratchpads.model_copy(update=words)
        return self

    @field_validator("description", "tile_program")
    @classmethod
    def _import_path(cls, value: str) -> str:
        if ":" not in value:
            raise ValueError("must name an object as \"package.module:name\"")
        return value

    @field_validator("tile")
    @classmethod
    def _positive_tile(cls, value: tuple[int, int, int]) -> tuple[int, int, int]:
        if min(value) < 1:
            raise ValueError(f"tile must be three positive ints [m, k, n], not {list(value)}")
        return value


#: The accelerator kinds, by their ``kind`` tag.
ACCELERATOR_CONFIGS: dict[str, type[AcceleratorConfig]] = {
    "systolic": SystolicAcceleratorConfig, "smv": SMVAcceleratorConfig,
    "model": ModelAcceleratorConfig, "dsl": DSLAcceleratorConfig,
    "accelerator": DescribedAcceleratorConfig,
}
#: One accelerator of any kind: a pydantic discriminated union on ``kind``.
AnyAcceleratorConfig = Annotated[
    SystolicAcceleratorConfig | SMVAcceleratorConfig | ModelAcceleratorConfig
    | DSLAcceleratorConfig | DescribedAcceleratorConfig,
    Field(discriminator="kind"),
]
_ACCELERATOR_ADAPTER: TypeAdapter[AcceleratorConfig] = TypeAdapter(AnyAcceleratorConfig)


def parse_accelerator(data: Mapping[str, object] | str, *,
                      file: str | None = None) -> AcceleratorConfig:
    """Validate one accelerator description (a mapping, or its JSON) into its kind's model.

    Raises
    ------
    ConfigError
        Naming ``file``, the field and, for closed sets, the allowed values.
    """
    try:
        if isinstance(data, str):
            return _ACCELERATOR_ADAPTER.validate_json(data)
        return _ACCELERATOR_ADAPTER.validate_python(dict(data))
    except ValidationError as exc:
        raise _config_error(exc, file, root_is_accelerator=True) from None


class DRAMConfig(_Model):
    """Main memory: one bandwidth shared by every DMA transfer, a latency per transfer."""

    bandwidth_bytes_per_s: BandwidthBytesPerS = Field(25.6e9, gt=0)
    latency_s: float = Field(100e-9, ge=0)
    energy_pj_per_bit: float = Field(HOROWITZ_45NM.dram_pj_per_bit, ge=0)  # 1.3 nJ / 64 bit
    capacity_bytes: CapacityBytes = Field(4 << 30, ge=1)


class LLCConfig(_Model):
    """Last-level cache, its coherent accelerator port (ACP) and the DMA flush cost.

    Before a DMA read the CPU flushes the tile's dirty lines from its caches, and before it
    reads a DMA-written output it invalidates them; both walk the lines at
    ``flush_bytes_per_s`` plus ``flush_fixed_s`` per operation. ACP transfers are coherent
    (no flush) and go through the LLC at ``acp_bandwidth_bytes_per_s`` (one port shared by
    every accelerator).

    ``acp_hits`` says whether a coherent access finds its data in the LLC: ``"always"``, or
    ``"footprint"`` -- an operator's ACP accesses hit when the bytes it moves over the port
    (its distinct tiles of every tensor class routed to ACP) fit in ``size_bytes``, and
    otherwise all miss (the data-preparation threads write the tiles in the order the
    accelerators read them, a sequential scan larger than an LRU cache evicts every line
    before its reuse). A miss is served from DRAM through the port: it occupies the shared
    DRAM at ``dram.bandwidth_bytes_per_s`` (plus its latency) and costs DRAM energy besides
    the LLC's.
    """

    size_bytes: CapacityBytes = Field(2 << 20, ge=1)
    acp_hits: Literal["always", "footprint"] = "always"
    acp_bandwidth_bytes_per_s: BandwidthBytesPerS = Field(25.6e9, gt=0)
    acp_latency_s: float = Field(20e-9, ge=0)
    flush_bytes_per_s: BandwidthBytesPerS = Field(8e9, gt=0)
    flush_fixed_s: float = Field(1e-6, ge=0)
    energy_pj_per_byte: float = Field(HOROWITZ_45NM.sram_1mb_pj_per_byte, ge=0)


class InterconnectConfig(_Model):
    """The system bus: a per-transfer setup time (descriptor programming, arbitration)."""

    transfer_setup_s: float = Field(0.5e-6, ge=0)
    energy_pj_per_byte: float = Field(1.0, ge=0)


class HostMemoryConfig(_Model):
    """How each tensor class reaches the scratchpads (SMAUG's host-memory policies)."""

    inputs: Literal["dma", "acp"] = "dma"
    weights: Literal["dma", "acp"] = "dma"
    outputs: Literal["dma", "acp"] = "dma"

    def policy(self, tensor_class: str) -> str:
        return {"input": self.inputs, "weight": self.weights, "output": self.outputs}[
            tensor_class]


class EnergyConfig(_Model):
    """Energy per action and leakage, at ``SocHeader.technology_nm`` and ``voltage_v``.

    Defaults (:data:`archsim.hw.models.energy.HOROWITZ_45NM`): Horowitz, "Computing's energy
    problem", ISSCC 2014, 45 nm at 0.9 V: a 16-bit
    floating-point multiply 1.1 pJ plus add 0.4 pJ (MAC 1.5 pJ), vector op = one 16-bit FP
    add (0.4 pJ), a 64-bit read of a 32 KB SRAM 20 pJ (2.5 pJ/byte; the scratchpads).
    DRAM and LLC energies are in ``[dram]`` and ``[llc]`` (Horowitz: DRAM 1.3-2.6 nJ per
    64-bit access = 20-40 pJ/bit; 1 MB SRAM 100 pJ per 64 bits = 12.5 pJ/byte).
    ``leakage_w_per_mm2`` is an assumption (no source; set it from your library).
    """

    mac_pj: float = Field(HOROWITZ_45NM.mac_pj, ge=0)
    vector_op_pj: float = Field(HOROWITZ_45NM.vector_op_pj, ge=0)
    scratchpad_pj_per_byte: float = Field(HOROWITZ_45NM.sram_32kb_pj_per_byte, ge=0)
    leakage_w_per_mm2: float = Field(0.01, ge=0)
    reference_nm: int = Field(HOROWITZ_45NM.node_nm, gt=0)
    reference_voltage_v: float = Field(HOROWITZ_45NM.voltage_v, gt=0)


class GlobalBufferConfig(_Model):
    """An on-chip global buffer between the host memory and the scratchpads (``[global_buffer]``).

    A simulation given ``resident`` tensor names (:func:`~archsim.sim.soc.simulate`) loads and
    stores those tensors' tiles here, over one port shared by every accelerator at
    ``bandwidth_bytes_per_s`` plus ``latency_s`` per transfer (no transfer setup, no cache
    flush, no CPU data preparation); every other tensor takes the host-memory path.

    The buffer is a :class:`~archsim.hw.models.memtech.MemoryModel` of ``capacity_bytes * 8``
    bits in ``banks`` banks of ``word_bits``-bit words (:meth:`memory_model`): its access,
    leakage and refresh energies, its area and (eDRAM) its retention come from memtech's
    table, never from numbers here. ``latency_s`` defaults to the technology's read latency
    from that table. ``word_bits`` sets the refresh row (``banks * word_bits`` bits); its
    default 64 is assumed. ``temperature_c`` (eDRAM only; default 25 C, the table's reference
    temperature) and ``refresh_percentile`` (default memtech's) set the refresh period.
    """

    capacity_bytes: CapacityBytes = Field(gt=0)
    technology: Literal["sram", "edram"]
    bandwidth_bytes_per_s: BandwidthBytesPerS = Field(gt=0)
    latency_s: float | None = Field(None, ge=0)
    temperature_c: float = Field(25.0, gt=-273.15)
    refresh_percentile: float = Field(_MEMTECH_REFRESH_PERCENTILE, gt=0, lt=1)
    banks: UnitCount = Field(1, ge=1)
    word_bits: int = Field(64, ge=1)  # assumed: a 64-bit word per bank
    rows_per_refresh: int = Field(1, ge=1)

    @model_validator(mode="after")
    def _shape_fits(self) -> GlobalBufferConfig:
        if "temperature_c" in self.model_fields_set and self.technology != "edram":
            raise ValueError("temperature_c only applies to technology 'edram' (the refresh "
                             "period); leave it out for 'sram'")
        row_bits = self.banks * self.word_bits
        if (self.capacity_bytes * 8) % row_bits:
            raise ValueError(f"capacity_bytes * 8 ({self.capacity_bytes * 8} bits) must be a "
                             f"multiple of banks * word_bits ({row_bits} bits, one row)")
        rows = self.capacity_bytes * 8 // row_bits
        if self.rows_per_refresh > rows:
            raise ValueError(f"rows_per_refresh must be in 1..{rows} (the rows), not "
                             f"{self.rows_per_refresh}")
        return self

    @property
    def rows(self) -> int:
        """Refresh rows (``capacity_bytes * 8 / row_bits``)."""
        return self.capacity_bytes * 8 // self.row_bits

    @property
    def words(self) -> int:
        """Words of ``word_bits`` bits over all banks."""
        return self.capacity_bytes * 8 // self.word_bits

    @property
    def row_bits(self) -> int:
        """Bits of one refresh row (one address across all banks)."""
        return self.banks * self.word_bits

    @property
    def access_latency_s(self) -> float:
        """``latency_s``, or the technology's read latency (memtech's table) when unset."""
        if self.latency_s is not None:
            return self.latency_s
        return memory_technology(self.technology).read_latency_s

    def memory_model(self, *, node_nm: float | None = None,
                     voltage_v: float | None = None) -> MemoryModel:
        """The buffer's cost model at ``node_nm`` and ``voltage_v`` (default the table's
        reference); eDRAM at :attr:`temperature_c`."""
        temperature = self.temperature_c if self.technology == "edram" else None
        return MemoryModel(technology=self.technology, words=self.words, width=self.word_bits,
                           banks=self.banks, temperature_c=temperature,
                           refresh_percentile=self.refresh_percentile, node_nm=node_nm,
                           voltage_v=voltage_v, rows_per_refresh=self.rows_per_refresh)


class SoCConfig(_Model):
    """A whole SoC description (see the module docstring)."""

    soc: SocHeader = SocHeader()
    cpu: CPUConfig = CPUConfig()
    accelerators: list[AnyAcceleratorConfig] = Field(min_length=1)
    dram: DRAMConfig = DRAMConfig()
    llc: LLCConfig = LLCConfig()
    interconnect: InterconnectConfig = InterconnectConfig()
    host_memory: HostMemoryConfig = HostMemoryConfig()
    energy: EnergyConfig = EnergyConfig()
    global_buffer: GlobalBufferConfig | None = None
    _file: str | None = PrivateAttr(default=None)

    @property
    def file(self) -> str | None:
        """The TOML file the description was read from, if any (errors name it)."""
        return self._file

    @model_validator(mode="after")
    def _one_scratchpad_shape(self) -> SoCConfig:
        first = self.accelerators[0].scratchpads
        for acc in self.accelerators[1:]:
            if acc.scratchpads != first:
                raise ValueError("every accelerator of the pool must have the same scratchpads "
                                 "(tiles are dispatched to any of them)")
        if first.total_bytes > self.dram.capacity_bytes:
            raise ValueError(f"the scratchpads hold {first.total_bytes} bytes, more than the "
                             f"DRAM's capacity_bytes ({self.dram.capacity_bytes}): scratchpads "
                             f"are on-chip buffers of tiles of tensors held in DRAM")
        return self

    @classmethod
    def from_dict(cls, data: Mapping[str, object], *, file: str | None = None) -> SoCConfig:
        """Validate a parsed TOML document; errors name ``file``, the field and allowed values."""
        try:
            config = cls.model_validate(data)
        except ValidationError as exc:
            raise _config_error(exc, file) from None
        config._file = file
        return config

    def with_changes(self, *, accelerators: int | None = None, policy: str | None = None,
                     threads: int | None = None, double_buffered: bool | None = None,
                     acp_hits: str | None = None) -> SoCConfig:
        """A copy with every accelerator's ``count``, all host-memory policies or the data-prep
        threads replaced (the knobs of SMAUG's SoC studies), or with double-buffered
        scratchpads or the LLC's ``acp_hits`` model switched; validated like a file."""
        # Only the fields the description set: validators that tell a field given from a
        # default (a dsl accelerator's frequency_hz) see the same document again.
        data = self.model_dump(exclude_unset=True)
        for acc, given in zip(data["accelerators"], self.accelerators, strict=True):
            acc["kind"] = given.kind  # the union's tag, even where it was a default
            if accelerators is not None:
                acc["count"] = accelerators
            if double_buffered is not None:
                acc.setdefault("scratchpads", {})["double_buffered"] = double_buffered
        if acp_hits is not None:
            data.setdefault("llc", {})["acp_hits"] = acp_hits
        if policy is not None:
            data["host_memory"] = {"inputs": policy, "weights": policy, "outputs": policy}
        if threads is not None:
            cpu = data.setdefault("cpu", {})
            cpu["data_prep_threads"] = threads
            cpu["cores"] = max(self.cpu.cores, threads)
        return SoCConfig.from_dict(data, file=self._file)


_MODELS_BY_SECTION: dict[str, type[BaseModel]] = {
    "soc": SocHeader, "cpu": CPUConfig, "accelerators": AcceleratorConfig, "dram": DRAMConfig,
    "llc": LLCConfig, "interconnect": InterconnectConfig, "host_memory": HostMemoryConfig,
    "energy": EnergyConfig, "scratchpads": ScratchpadConfig,
    "global_buffer": GlobalBufferConfig,
}
#: How a required field of an accelerator kind is written, for the error message.
_REQUIRED_EXAMPLES = {"cycles_model": '"package.module:function"',
                      "kernel": '"package.module:name"'}


def _field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _split_kind(loc: tuple[Any, ...], root_is_accelerator: bool) -> tuple[tuple[Any, ...],
                                                                         str | None]:
    """``loc`` without the union's kind tag (``accelerators[0].systolic.rows`` ->
    ``accelerators[0].rows``) and the kind it names."""
    for i, part in enumerate(loc):
        at_root = root_is_accelerator and i == 0
        in_list = i >= 2 and loc[i - 2] == "accelerators" and isinstance(loc[i - 1], int)
        if (at_root or in_list) and part in ACCELERATOR_CONFIGS:
            return loc[:i] + loc[i + 1:], part
    return loc, None


def _config_error(exc: ValidationError, file: str | None, *,
                  root_is_accelerator: bool = False) -> ConfigError:
    err = exc.errors()[0]
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    loc, kind = _split_kind(loc, root_is_accelerator)
    etype = err["type"]
    if etype in ("union_tag_invalid", "union_tag_not_found"):
        kind_field = _field_path((*loc, "kind"))
        kinds = list(ACCELERATOR_KINDS)
        if etype == "union_tag_not_found":
            return ConfigError("required field is missing", file=file, field=kind_field,
                               allowed=kinds)
        tag = err.get("ctx", {}).get("tag", err.get("input"))
        return ConfigError(f"invalid value {tag!r}", file=file, field=kind_field,
                           allowed=kinds)
    field = _field_path(loc) or None
    name = loc[-1] if loc and isinstance(loc[-1], str) else None
    # A field directly on an accelerator of a known kind (not inside its scratchpads).
    on_kind = kind is not None and len(loc) == (1 if root_is_accelerator else 3)
    if etype == "extra_forbidden":
        if on_kind and kind is not None and name is not None:
            cls = ACCELERATOR_CONFIGS[kind]
            fields_of_kind = sorted(cls.model_fields)
            if name in cls.field_hints:
                return ConfigError(cls.field_hints[name], file=file, field=field,
                                   allowed=fields_of_kind)
            owners = [k for k, c in ACCELERATOR_CONFIGS.items() if name in c.model_fields]
            if owners:
                owned_by = " or ".join(f"'{k}'" for k in sorted(owners))
                return ConfigError(f"{name} only used with kind {owned_by}, not '{kind}'",
                                   file=file, field=field, allowed=fields_of_kind)
            return ConfigError("unknown field", file=file, field=field, allowed=fields_of_kind)
        parent = [p for p in loc[:-1] if isinstance(p, str)]
        model = _MODELS_BY_SECTION.get(parent[-1]) if parent else SoCConfig
        allowed = sorted(model.model_fields) if model is not None else None
        return ConfigError("unknown field", file=file, field=field, allowed=allowed)
    if etype == "missing":
        if on_kind and name is not None:
            example = _REQUIRED_EXAMPLES.get(name)
            what = f"{name} = {example}" if example else name
            return ConfigError(f"an accelerator of kind '{kind}' needs {what}", file=file,
                               field=field)
        return ConfigError("required field is missing", file=file, field=field)
    if etype == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        allowed = [s.strip().strip("'") for s in expected.replace(" or ", ",").split(",")
                   if s.strip()]
        return ConfigError(f"invalid value {err.get('input')!r}", file=file, field=field,
                           allowed=allowed)
    msg = err["msg"].removeprefix("Value error, ")
    return ConfigError(f"{msg} (value {err.get('input')!r})", file=file, field=field)


def load_soc_config(path: str | Path) -> SoCConfig:
    """Read and validate an SoC description from a TOML file, and load what its accelerators
    name (cycles models, DSL kernels, accelerator descriptions).

    Raises
    ------
    ConfigError
        The file cannot be read (missing, a directory, not UTF-8: with the byte's offset), is
        not TOML, or does not validate, or an accelerator names something that cannot be
        loaded or a cycles model of the wrong signature (names file and field,
        ``accelerators[2].cycles_model``).
    DSLError
        A kernel or design file an accelerator names fails while it is imported (at the
        user's ``file:line:col``, naming the accelerator entry and this file).
    """
    path = Path(path)
    text = read_text_file(path, what="SoC description")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=str(path)) from None
    config = SoCConfig.from_dict(data, file=str(path))
    from .accelerators import check_accelerators  # it imports this module

    check_accelerators(config.accelerators, file=str(path))
    return config
