"""The SoC's executors, built from its description: one hardware model per accelerator entry.

The execution models themselves are in :mod:`archsim.hw.models.accelerators` (systolic
folds, SMV, a callable cycles model, a compiled DSL tile) and :mod:`archsim.hw.models.cpu`;
each answers ``operator_cost`` for a :class:`~archsim.hw.models.Tile` (one step of the
SoC's tiling) and for a whole operator (tiled into the accelerator's scratchpads by
:class:`~archsim.sim.soc.tiling.ScratchpadTiler` and summed). This module turns the
validated configuration into those models, with their own typed parameters:

``systolic`` -> :class:`~archsim.hw.models.SystolicModel` (blocks aligned to the array's
folds); ``smv`` -> :class:`~archsim.hw.models.SMVModel`; ``model`` ->
:class:`~archsim.hw.models.CallableModel` (the TOML names ``function(*, m, k, n) -> int``,
loaded with :func:`archsim.loading.load_object`); ``dsl`` ->
:class:`~archsim.hw.models.DSLModel`.

A ``dsl`` accelerator is a kernel written in :mod:`archsim.dsl` with the GEMM-tile contract
of :func:`archsim.dsl.library.gemm_tile_kernel` -- four arrays ``a[M, K]``, ``w[N, K]``,
``acc[M, N]``, ``c[M, N]`` computing ``c = acc + a @ w.T`` on a *static* ``M x K x N`` tile
-- compiled once per process (:func:`load_design`). A step's ``(m, k, n)`` GEMM (a
convolution step as its implicit im2col GEMM) runs as ``ceil(m / M) * ceil(k / K) *
ceil(n / N)`` invocations: edge blocks are zero-padded to the full tile, and the reduction
blocks run back to back with the partial sums passed ping-pong from ``c`` to the next
invocation's ``acc``. The tiler prefers blocks that are multiples of the kernel tile
(``tile_align``), so padding is left only where a whole dimension is not a multiple (a
batch-1 layer's single row fills 1 of ``M`` rows). Each invocation costs what the Design
answers through the hardware-model interface, ``Design.operator_cost()``: its predicted
cycles (equal to its RTL's measured cycles: the cross-check in the tests) and its estimated
energy (its operators and its own memory accesses, so the engine does not charge scratchpad
reads for its compute again). Moving operands between
the scratchpads and the kernel's memories is not modelled (the kernel's arrays are taken to
be the scratchpads' tile views), nor is the one-cycle start handshake between invocations.
It runs at ``1 / max(clock_ns, critical path)``.

All run vector work (element-wise, pooling, normalization, the recurrent cell's point-wise
math) at ``vector_lanes`` operations per cycle.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ...errors import ArchsimError, ConfigError, DSLError
from ...hw.models import (
    CallableModel,
    CPUModel,
    DSLModel,
    GemmCycles,
    OperatorCost,
    SMVModel,
    SystolicModel,
    TileModel,
)
from ...loading import import_failure, load_object
from .config import (
    AcceleratorConfig,
    CPUConfig,
    DescribedAcceleratorConfig,
    DSLAcceleratorConfig,
    EnergyConfig,
    ModelAcceleratorConfig,
    SMVAcceleratorConfig,
    SystolicAcceleratorConfig,
)
from .tiling import ScratchpadTiler

if TYPE_CHECKING:  # the compiler is loaded lazily, when a dsl accelerator needs it
    from ...compilers.accel.model import ProgramReport
    from ...compilers.hls.design import Design
    from ...dsl.accel import Accelerator

__all__ = ["AcceleratorModel", "SystolicModel", "SMVModel", "CallableModel", "DSLModel",
           "DesignTile", "AcceleratorTile", "load_accelerator_tile", "load_described",
           "make_accelerator_model", "accelerator_error", "check_accelerators",
           "CYCLES_SIGNATURE", "make_cpu_model", "load_design", "gemm_tile_shape"]

#: Every accelerator model the SoC builds (the common base of the hw models).
AcceleratorModel = TileModel


@dataclass(frozen=True, eq=False)
class DesignTile:
    """A compiled DSL ``Design`` as a :class:`~archsim.hw.models.CompiledTile`: the design's
    own answer through the hardware-model interface (``Design.operator_cost()``: predicted
    cycles and estimated energy of one invocation) at its achieved clock,
    ``1 / max(clock_ns, critical path)``."""

    design: Design

    @property
    def invocation_cycles(self) -> int:
        cycles = _invocation_cost(self.design).cycles
        assert cycles is not None  # a Design's cost always has cycles (it has a clock)
        return cycles

    @property
    def invocation_energy_j(self) -> float:
        return _invocation_cost(self.design).energy_j

    @property
    def frequency_hz(self) -> float:
        return 1e9 / self.design.achieved_clock_ns()


@lru_cache(maxsize=64)
def _invocation_cost(design: Design) -> OperatorCost:
    try:
        return design.operator_cost()
    except ConfigError as exc:
        raise ConfigError(f"{exc.reason}; {_CONTRACT}",
                          field="accelerators.kernel") from None


_CONTRACT = ("a GEMM-tile kernel takes four arrays a[M, K], w[N, K], acc[M, N], c[M, N] "
             "(c = acc + a @ w.T) and no scalars; see archsim.dsl.library.gemm_tile_kernel")


def gemm_tile_shape(kern: object) -> tuple[int, int, int]:
    """``(M, K, N)`` of a kernel with the GEMM-tile contract; ConfigError otherwise."""
    from ...dsl import Kernel

    if not isinstance(kern, Kernel):
        raise ConfigError(f"{kern!r} is not a DSL kernel; {_CONTRACT}",
                          field="accelerators.kernel")
    arrays = [kern.array_types.get(p) for p in kern.param_names]
    shapes = [a.shape if a is not None else None for a in arrays]
    pairs = [s for s in shapes if s is not None and len(s) == 2]
    ok = len(shapes) == 4 and len(pairs) == 4
    if ok:
        (m, k), (n, k2), acc, out = pairs
        ok = k == k2 and acc == (m, n) and out == (m, n)
    if not ok:
        raise ConfigError(f"kernel '{kern.name}' has arguments "
                          f"{', '.join(kern.param_names)} of shapes {shapes}; {_CONTRACT}",
                          field="accelerators.kernel")
    return m, k, n


@lru_cache(maxsize=32)
def _load_design(target: str, tile: tuple[int, int, int] | None, clock_ns: float,
                 resources: tuple[tuple[str, int], ...]) -> Design:
    from ...dsl import Kernel

    obj = load_object(target, field="accelerators.kernel", what="DSL kernel")
    if not isinstance(obj, Kernel):
        if not callable(obj):
            raise ConfigError(f"'{target}' is neither a DSL kernel nor a kernel factory",
                              field="accelerators.kernel")
        if tile is None:
            raise ConfigError(f"'{target}' is a kernel factory: give tile = [m, k, n]",
                              field="accelerators.tile")
        try:
            obj = obj(m=tile[0], k=tile[1], n=tile[2])
        except DSLError:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's factory failed
            raise import_failure(exc, what="kernel factory", target=target) from None
    shape = gemm_tile_shape(obj)
    kern: Kernel = obj
    if tile is not None and tuple(tile) != shape:
        raise ConfigError(f"tile {list(tile)} differs from kernel '{kern.name}''s static tile "
                          f"{list(shape)}", field="accelerators.tile")
    design = kern.synthesize(clock_ns=clock_ns, resources=dict(resources))
    if design.static_cycles() is None:
        raise ConfigError(f"kernel '{kern.name}' has loop bounds that are not constant; "
                          f"{_CONTRACT}", field="accelerators.kernel")
    return design


def load_design(config: AcceleratorConfig) -> Design:
    """The compiled :class:`~archsim.compilers.hls.design.Design` of a ``dsl`` accelerator,
    built once per process for each (kernel, tile, clock, resources).

    Raises
    ------
    ConfigError
        The kernel cannot be imported or does not have the GEMM-tile contract.
    """
    if not isinstance(config, DSLAcceleratorConfig):
        raise ConfigError(f"accelerator '{config.label}' is not of kind 'dsl'",
                          field="accelerators.kind", allowed=["dsl"])
    return _load_design(config.kernel, config.tile, float(config.clock_ns),
                        tuple(sorted(config.resources.items())))


#: The signature a ``cycles_model`` function must accept, for messages.
CYCLES_SIGNATURE = "function(*, m, k, n) -> int"


@lru_cache(maxsize=64)
def _load_callable(target: str) -> GemmCycles:
    fn = load_object(target, field="accelerators.cycles_model", what="cycles model")
    if not callable(fn):
        raise ConfigError(f"cycles model '{target}' is not callable; expected "
                          f"{CYCLES_SIGNATURE}", field="accelerators.cycles_model")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return fn
    try:  # the engine calls it as fn(m=..., k=..., n=...)
        signature.bind(m=1, k=1, n=1)
    except TypeError as exc:
        raise ConfigError(f"cycles model '{target}' has the signature {signature}, which "
                          f"cannot be called as {CYCLES_SIGNATURE} ({exc})",
                          field="accelerators.cycles_model") from None
    return fn


def accelerator_error(exc: ArchsimError, index: int, config: AcceleratorConfig,
                      file: str | None) -> ArchsimError:
    """``exc`` (raised while building or tiling accelerator ``index``) re-raised naming the
    accelerator table entry ``accelerators[index]`` with its name, and the description's file.

    A :class:`ConfigError`'s field ``accelerators.kernel`` becomes
    ``accelerators[2].kernel``; a :class:`DSLError` (the user's kernel or cycles-model file
    failed) keeps its own ``file:line:col`` and says which entry of which file loaded it.
    """
    entry = f"accelerators[{index}]"
    if isinstance(exc, DSLError):
        where = f" of {file}" if file else ""
        return DSLError(f"{exc.reason} (loading {entry} '{config.label}'{where})",
                        filename=exc.filename, lineno=exc.lineno, col=exc.col, hint=exc.hint)
    if isinstance(exc, ConfigError):
        field = exc.field or entry
        if field.startswith("accelerators."):
            field = entry + field.removeprefix("accelerators")
        elif not field.startswith("accelerators["):
            field = f"{entry}.{field}"
        reason = exc.reason
        if f"'{config.label}'" not in reason:
            reason = f"accelerator '{config.label}': {reason}"
        return ConfigError(reason, file=exc.file or file, field=field, allowed=exc.allowed)
    return exc


def check_accelerators(configs: Sequence[AcceleratorConfig], *, file: str | None) -> None:
    """Load what each accelerator entry names -- a ``model``'s cycles function (its signature
    checked), a ``dsl`` kernel (compiled once per process), an ``accelerator`` description and
    its tile program -- so that a wrong name, a file that fails to import or a function of
    the wrong signature is reported when the description is loaded, naming the entry.

    Raises
    ------
    ConfigError, DSLError
        Via :func:`accelerator_error`.
    """
    for index, config in enumerate(configs):
        try:
            if isinstance(config, ModelAcceleratorConfig):
                _load_callable(config.cycles_model)
            elif isinstance(config, DSLAcceleratorConfig):
                load_design(config)
            elif isinstance(config, DescribedAcceleratorConfig):
                load_accelerator_tile(config)
        except (ConfigError, DSLError) as exc:
            raise accelerator_error(exc, index, config, file) from None


@dataclass(frozen=True, eq=False)
class AcceleratorTile:
    """An accelerator description's GEMM-tile program as a
    :class:`~archsim.hw.models.CompiledTile`: the cycles and energy its model view gives for
    one tile at the run's operating points; its clock is the program's cycles over its time
    (its domains may run at different clocks)."""

    report: ProgramReport

    @property
    def invocation_cycles(self) -> int:
        return self.report.cycles

    @property
    def invocation_energy_j(self) -> float:
        return self.report.total_energy_j

    @property
    def frequency_hz(self) -> float:
        return self.report.cycles / self.report.time_s


def load_accelerator_tile(config: DescribedAcceleratorConfig) -> AcceleratorTile:
    """The model of an ``accelerator`` config's tile program, built once per process for each
    (description, tile program, tile, operating points).

    Raises
    ------
    ConfigError
        The description or the tile program cannot be loaded, or does not build a program
        for the tile (naming the field); a description error (a DSLError) is re-raised as is.
    """
    return _load_accelerator_tile(config.description, config.tile_program, config.tile,
                                  tuple(sorted(config.operating_points.items())))


def load_described(config: DescribedAcceleratorConfig) -> Accelerator:
    """The :class:`~archsim.dsl.accel.Accelerator` an ``accelerator`` config names (built
    once per process per name)."""
    return _load_described(config.description)


@lru_cache(maxsize=32)
def _load_described(description: str) -> Accelerator:
    from ...dsl.accel import as_accelerator

    obj = load_object(description, field="accelerators.description", what="accelerator")
    return as_accelerator(obj, name=description, field="accelerators.description")


@lru_cache(maxsize=32)
def _load_accelerator_tile(description: str, tile_program: str, tile: tuple[int, int, int],
                           points: tuple[tuple[str, str], ...]) -> AcceleratorTile:
    from ...dsl.accel import as_program

    acc = _load_described(description)
    make = load_object(tile_program, field="accelerators.tile_program", what="tile program")
    if not callable(make):
        raise ConfigError(f"tile program '{tile_program}' is not callable",
                          field="accelerators.tile_program")
    program = acc.program()
    for domain, point in points:
        if domain not in acc.domains:
            raise ConfigError(f"accelerator '{acc.name}' has no domain '{domain}'",
                              field="accelerators.operating_points", allowed=list(acc.domains))
        program.set_operating_point(domain, point)
    m, k, n = tile
    body = as_program(make(acc, m=m, k=k, n=n), name=tile_program,
                      field="accelerators.tile_program")
    program.steps.extend(body.steps)
    return AcceleratorTile(acc.compile().model(program))


def make_accelerator_model(config: AcceleratorConfig,
                           energy: EnergyConfig | None = None) -> TileModel:
    """The execution model of ``config`` (energies from ``energy``, default Horowitz), named
    by its label and tiling whole operators into its scratchpads.

    Raises
    ------
    ConfigError
        A ``model`` accelerator's cycles function or a ``dsl`` accelerator's kernel cannot
        be loaded (naming the field).
    """
    energy = energy if energy is not None else EnergyConfig()
    name, lanes, fill = config.label, config.vector_lanes, config.pipeline_cycles
    mac_pj, vec_pj = energy.mac_pj, energy.vector_op_pj
    tiler = ScratchpadTiler(config.scratchpads)
    if isinstance(config, SystolicAcceleratorConfig):
        return SystolicModel(rows=config.rows, cols=config.cols, dataflow=config.dataflow,
                             frequency_hz=config.frequency_hz, name=name, vector_lanes=lanes,
                             pipeline_cycles=fill, mac_pj=mac_pj, vector_op_pj=vec_pj,
                             tiler=tiler)
    if isinstance(config, SMVAcceleratorConfig):
        return SMVModel(pes=config.pes, macs_per_pe=config.macs_per_pe,
                        frequency_hz=config.frequency_hz, name=name, vector_lanes=lanes,
                        pipeline_cycles=fill, mac_pj=mac_pj, vector_op_pj=vec_pj, tiler=tiler)
    if isinstance(config, ModelAcceleratorConfig):
        return CallableModel(cycles=_load_callable(config.cycles_model),
                             cycles_name=config.cycles_model, frequency_hz=config.frequency_hz,
                             name=name, vector_lanes=lanes, pipeline_cycles=fill,
                             mac_pj=mac_pj, vector_op_pj=vec_pj, tiler=tiler)
    if isinstance(config, DSLAcceleratorConfig):
        design = load_design(config)
        return DSLModel(design=DesignTile(design), tile=gemm_tile_shape(design.kernel),
                        name=name, vector_lanes=lanes, pipeline_cycles=fill, mac_pj=mac_pj,
                        vector_op_pj=vec_pj, tiler=tiler)
    if isinstance(config, DescribedAcceleratorConfig):
        return DSLModel(design=load_accelerator_tile(config), tile=config.tile, name=name,
                        vector_lanes=lanes, pipeline_cycles=fill, mac_pj=mac_pj,
                        vector_op_pj=vec_pj, tiler=tiler)
    raise ConfigError(f"accelerator '{config.label}' has kind '{config.kind}' no model runs",
                      field="accelerators.kind",
                      allowed=["systolic", "smv", "model", "dsl", "accelerator"])


def make_cpu_model(config: CPUConfig) -> CPUModel:
    """The host's execution model from ``[cpu]``."""
    return CPUModel(framework_overhead_s_per_op=config.framework_overhead_s_per_op,
                    framework_overhead_s_per_tile=config.framework_overhead_s_per_tile,
                    data_prep_bytes_per_s_per_thread=config.data_prep_bytes_per_s_per_thread,
                    data_prep_threads=config.data_prep_threads,
                    active_power_w=config.active_power_w)
