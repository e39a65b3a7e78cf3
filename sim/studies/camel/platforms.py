"""CAMEL's hardware platforms and the cost of one training iteration on each.

A :class:`Platform` is the training engine of ``soc_configs/camel.toml`` with one global
buffer (SRAM or gain-cell eDRAM, a capacity) running one network (standard back-propagation
or its reversible counterpart) with one refresh policy (``"none"`` for SRAM, ``"always"`` --
the conventional controller refreshing every row every period -- or ``"lifetime"`` --
CAMEL's, refreshing only the rows of data held longer than a period).

:func:`simulate_platform` runs the SoC simulator twice on the training graph
(:func:`archsim.sim.soc.lifetime.simulate_with_buffer`: a timeline with everything on chip,
an allocation of the transient tensors into the capacity, shortest-lived first, then the
timeline with the spills); :func:`iteration_cost` prices that run at a refresh period, so a
sweep of retention reuses one simulation:

* time: the simulated iteration plus the refresh's stolen global-buffer cycles that meet an
  access (stolen port cycles x the port's utilisation in the run: a first-order expected
  collision count, as memtech's stolen-cycle rule for a busy unit);
* energy: the SoC's compute, scratchpad, DRAM and interconnect energy (its own model), the
  global buffer's accesses and leakage (memtech, over the iteration) and its refresh
  (row refreshes x row bits x memtech's refresh energy per bit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ....compilers.graph import WorkloadGraph
from ....compilers.graph.revnet import resnet_cifar, revnet_cifar
from ....compilers.graph.training import training_graph
from ....errors import ConfigError
from ....hw.models.memtech import memory_technology
from ...soc import SoCConfig, SocResult, load_soc_config
from ...soc.accelerators import load_accelerator_tile
from ...soc.config import (
    DescribedAcceleratorConfig,
    GlobalBufferConfig,
    SystolicAcceleratorConfig,
)
from ...soc.lifetime import (
    Allocation,
    LifetimeReport,
    refresh_energy_j_per_bit,
    refresh_for_buffer,
    simulate_with_buffer,
)

__all__ = ["ENGINE_CONFIG", "REFRESH_POLICIES", "SUBARRAY_BYTES", "Network", "NETWORKS",
           "Platform", "PlatformRun", "IterationCost", "DSL_ENGINE", "engine_config", "density_ratio",
           "equal_area_sram_bytes", "simulate_platform", "iteration_cost", "network_graph"]

#: The engine's SoC description (shipped with archsim).
ENGINE_CONFIG = Path(__file__).resolve().parents[3] / "soc_configs" / "camel.toml"
#: Refresh policies: none (SRAM), the conventional controller, CAMEL's lifetime-aware one.
REFRESH_POLICIES = ("none", "always", "lifetime")
#: Bytes of one gain-cell sub-array, the unit that refreshes one of its rows per refresh
#: operation in parallel with the others: the 64 kB macro of Harel et al., IEEE SSC-L 2022
#: (the memory table's retention anchor). Building a large buffer of such sub-arrays, all
#: refreshing at once, is assumed.
SUBARRAY_BYTES = 64 * 1024


@dataclass(frozen=True)
class Network:
    """A CIFAR-shaped network pair member: ``builder`` is ``resnet_cifar`` or ``revnet_cifar``
    with ``blocks_per_stage`` and ``widths``; ``reversible`` selects RevNet."""

    name: str
    reversible: bool
    blocks_per_stage: tuple[int, ...]
    widths: tuple[int, ...]


#: The study's networks: He et al.'s CIFAR ResNet-20 and ResNet-56 and RevNets of the same
#: depths whose widths (20, 40, 80) give ResNet-20's parameter count (0.27 M; the RevNet's
#: F and G work on half the channels, so equal widths would make it 36 % smaller).
NETWORKS: dict[str, Network] = {
    "resnet20": Network("resnet20", False, (3, 3, 3), (16, 32, 64)),
    "revnet20": Network("revnet20", True, (3, 3, 3), (20, 40, 80)),
    "resnet56": Network("resnet56", False, (9, 9, 9), (16, 32, 64)),
    "revnet56": Network("revnet56", True, (9, 9, 9), (20, 40, 80)),
}


def network_graph(network: Network, *, batch: int, image_size: int = 32) -> WorkloadGraph:
    """The forward graph of ``network`` (fp16, CIFAR-10 shapes: 3 channels, 10 classes)."""
    build = revnet_cifar if network.reversible else resnet_cifar
    return build(blocks_per_stage=network.blocks_per_stage, widths=network.widths,
                 batch=batch, image_size=image_size)


@dataclass(frozen=True)
class Platform:
    """One hardware platform running one network (module docstring)."""

    name: str
    technology: str
    capacity_bytes: int
    network: str
    refresh: str

    def __post_init__(self) -> None:
        if self.technology not in ("sram", "edram"):
            raise ConfigError(f"platform {self.name!r}: technology must be 'sram' or 'edram', "
                              f"not {self.technology!r}", field="technology",
                              allowed=["sram", "edram"])
        if self.refresh not in REFRESH_POLICIES:
            raise ConfigError(f"platform {self.name!r}: unknown refresh policy "
                              f"{self.refresh!r}", field="refresh", allowed=REFRESH_POLICIES)
        if (self.technology == "sram") != (self.refresh == "none"):
            raise ConfigError(f"platform {self.name!r}: an SRAM buffer takes refresh 'none' "
                              "and an eDRAM one 'always' or 'lifetime'", field="refresh")
        if self.network not in NETWORKS:
            raise ConfigError(f"platform {self.name!r}: unknown network {self.network!r}",
                              field="network", allowed=sorted(NETWORKS))


def density_ratio() -> float:
    """Bits per area of eDRAM over SRAM from the memory table (cell area / array
    efficiency of each technology)."""
    s, e = memory_technology("sram"), memory_technology("edram")
    return (s.cell_area_um2 / s.array_efficiency) / (e.cell_area_um2 / e.array_efficiency)


def _row_bytes(base: SoCConfig) -> int:
    gb = base.global_buffer
    assert gb is not None  # engine_config's base has one (checked when it is loaded)
    return gb.banks * gb.word_bits // 8


def equal_area_sram_bytes(edram_bytes: int, *, ratio: float | None = None,
                          base: SoCConfig | None = None) -> int:
    """The SRAM capacity in the area of ``edram_bytes`` of eDRAM at density ``ratio``
    (default :func:`density_ratio`), rounded down to whole refresh rows of the engine's
    buffer."""
    base = base or _base_config()
    r = density_ratio() if ratio is None else ratio
    row = _row_bytes(base)
    return max(row, int(edram_bytes / r) // row * row)


@lru_cache(maxsize=1)
def _base_config() -> SoCConfig:
    cfg = load_soc_config(ENGINE_CONFIG)
    if cfg.global_buffer is None:
        raise ConfigError(f"{ENGINE_CONFIG} has no [global_buffer] section",
                          field="global_buffer")
    return cfg


def engine_config(*, technology: str, capacity_bytes: int, temperature_c: float = 25.0,
                  base: SoCConfig | None = None) -> SoCConfig:
    """The engine with a global buffer of ``technology`` and ``capacity_bytes``: refresh in
    parallel over its sub-arrays of :data:`SUBARRAY_BYTES` (``rows_per_refresh``)."""
    base = base or _base_config()
    gb = base.global_buffer
    assert gb is not None
    fields = gb.model_dump(exclude_unset=True)
    fields.update(capacity_bytes=capacity_bytes, technology=technology,
                  rows_per_refresh=max(1, capacity_bytes // SUBARRAY_BYTES))
    fields.pop("temperature_c", None)
    if technology == "edram":
        fields["temperature_c"] = temperature_c
    return base.model_copy(update={"global_buffer": GlobalBufferConfig(**fields)})


@dataclass(frozen=True)
class PlatformRun:
    """A platform's simulated iteration: the SoC result (pass 2), its tensor lifetimes and
    the allocation; ``config`` is the engine it ran on."""

    platform: Platform
    config: SoCConfig
    graph: WorkloadGraph
    result: SocResult
    lifetimes: LifetimeReport
    allocation: Allocation


#: The DSL training engine as the SoC's accelerator (:func:`simulate_platform` with
#: ``dsl_engine=True``): its model view prices every 16 x 16 x 16 GEMM tile of the network.
DSL_ENGINE = DescribedAcceleratorConfig(
    kind="accelerator", name="camel16", description="archsim.dsl.examples.camel:soc_camel_25c",
    tile_program="archsim.dsl.examples.camel:gemm_tile_program", tile=(16, 16, 16),
    vector_lanes=16, scratchpad_buffers={"input": "spa", "weight": "spb", "output": "acc"})


def simulate_platform(platform: Platform, *, batch: int, image_size: int = 32,
                      temperature_c: float = 25.0, dsl_engine: bool = False) -> PlatformRun:
    """One training iteration of ``platform`` (module docstring); with ``dsl_engine`` on the
    DSL engine (:data:`DSL_ENGINE`) instead of the configuration's systolic array."""
    network = NETWORKS[platform.network]
    graph = training_graph(network_graph(network, batch=batch, image_size=image_size),
                           reversible=network.reversible)
    config = engine_config(technology=platform.technology,
                           capacity_bytes=platform.capacity_bytes, temperature_c=temperature_c)
    if dsl_engine:
        config = config.model_copy(update={"accelerators": [DSL_ENGINE]})
    # The updated weights stay on chip in place of the old ones (they take no space of
    # their own: nothing reads them in the iteration); the input batch comes from DRAM.
    result, lifetimes, allocation = simulate_with_buffer(
        config, graph, roles=("activation", "gradient", "weight"), order="shortest")
    return PlatformRun(platform, config, graph, result, lifetimes, allocation)


@dataclass(frozen=True)
class IterationCost:
    """Time, energy (joules per component) and traffic of one training iteration."""

    platform: str
    network: str
    technology: str
    refresh: str
    capacity_bytes: int
    refresh_period_s: float | None
    iteration_s: float
    refresh_stall_s: float
    energy_j: dict[str, float]
    offchip_bytes: float
    onchip_bytes: float
    spilled_bytes: float
    peak_live_bytes: float
    row_refreshes: int
    refresh_stolen_fraction: float

    @property
    def total_energy_j(self) -> float:
        return math.fsum(self.energy_j.values())

    def row(self) -> dict[str, float | str | int | None]:
        return {"platform": self.platform, "network": self.network,
                "technology": self.technology, "refresh": self.refresh,
                "capacity_mib": self.capacity_bytes / 2**20,
                "refresh_period_us": (self.refresh_period_s * 1e6
                                      if self.refresh_period_s else None),
                "iteration_ms": self.iteration_s * 1e3,
                "refresh_stall_ms": self.refresh_stall_s * 1e3,
                "energy_mj": self.total_energy_j * 1e3,
                **{f"{k}_mj": v * 1e3 for k, v in self.energy_j.items()},
                "offchip_mb": self.offchip_bytes / 1e6, "onchip_mb": self.onchip_bytes / 1e6,
                "spilled_mb": self.spilled_bytes / 1e6,
                "peak_live_mb": self.peak_live_bytes / 1e6,
                "row_refreshes": self.row_refreshes,
                "refresh_stolen_fraction": self.refresh_stolen_fraction}


def iteration_cost(run: PlatformRun, *, refresh_period_s: float | None = None,
                   refresh: str | None = None) -> IterationCost:
    """Price ``run`` (module docstring) with its platform's refresh policy (or ``refresh``)
    at ``refresh_period_s`` (default: the buffer's own, memtech's retention at its
    temperature and percentile)."""
    policy = refresh or run.platform.refresh
    gb = run.config.global_buffer
    assert gb is not None  # engine_config always gives one
    res = run.result
    e = res.energy
    energy = {"compute": e.compute_j, "scratchpad": e.scratchpad_j, "dram": e.dram_j,
              "interconnect": e.interconnect_j + e.llc_j + e.cpu_j + e.leakage_j,
              "buffer_access": res.global_buffer_energy_j.get("access", 0.0)}
    t = res.latency_s
    stall_s = 0.0
    refreshes = 0
    stolen_fraction = 0.0
    period: float | None = None
    if policy != "none":
        est = refresh_for_buffer(run.lifetimes, gb, names=run.allocation.resident,
                                 refresh_period_s=refresh_period_s)
        period = est.refresh_period_s
        lifetime = policy == "lifetime"
        refreshes = est.lifetime_aware_row_refreshes if lifetime else est.always_row_refreshes
        stolen = est.lifetime_aware_stolen_cycles if lifetime else est.always_stolen_cycles
        engine = run.config.accelerators[0]
        if isinstance(engine, SystolicAcceleratorConfig):
            clock_hz = engine.frequency_hz
        elif isinstance(engine, DescribedAcceleratorConfig):
            clock_hz = load_accelerator_tile(engine).frequency_hz
        else:
            raise ConfigError(f"the CAMEL engine is a systolic array or a DSL description, "
                              f"not {engine.kind!r}", field="accelerators")
        stolen_fraction = stolen / (t * clock_hz) if t > 0 else 0.0
        port_busy_s = res.transfers.gb_bytes / gb.bandwidth_bytes_per_s
        stall_s = stolen / clock_hz * min(1.0, port_busy_s / t if t > 0 else 0.0)
        energy["refresh"] = refreshes * gb.row_bits * refresh_energy_j_per_bit(gb)
    else:
        energy["refresh"] = 0.0
    iteration_s = t + stall_s
    energy["buffer_leakage"] = gb.memory_model().leakage_power_w() * iteration_s
    peak = run.lifetimes.peak_live_bytes(roles=("activation", "gradient"))
    return IterationCost(
        platform=run.platform.name, network=run.platform.network,
        technology=run.platform.technology, refresh=policy,
        capacity_bytes=run.platform.capacity_bytes, refresh_period_s=period,
        iteration_s=iteration_s, refresh_stall_s=stall_s, energy_j=energy,
        offchip_bytes=res.transfers.offchip_bytes, onchip_bytes=res.transfers.gb_bytes,
        spilled_bytes=run.allocation.spilled_bytes, peak_live_bytes=peak,
        row_refreshes=refreshes, refresh_stolen_fraction=stolen_fraction)
