"""Execution models of the accelerators: cycles (and the hardware-model answer) per tile.

``systolic``
    An R x C systolic array; a step's ``(m, k, n)`` GEMM takes
    :func:`archsim.hw.systolic.matmul_cycles` (SCALE-Sim folds: ``R + C + T - 2`` per fold
    output-stationary, ``2R + C + T - 2`` weight-stationary), the formula the RTL array's
    measured cycles are tested against.
``smv``
    SMAUG's SMV engine: ``pes`` PEs each with a ``macs_per_pe``-wide MAC tree, NVDLA-like
    convolution dataflow -- each PE owns one output channel, its MAC tree reduces
    ``macs_per_pe`` input channels of one output pixel per cycle, so a step of ``P`` output
    pixels, ``c`` input channels, ``k`` output channels and ``kh*kw`` window positions takes
    ``ceil(k / pes) * ceil(c / macs_per_pe) * P * kh*kw`` cycles plus the pipeline fill.

``model``
    A design's own model view given as a callable: the TOML names
    ``function(*, m, k, n) -> int`` giving the cycles of one GEMM tile.
``dsl``
    A kernel written in :mod:`archsim.dsl` with the GEMM-tile contract of
    :func:`archsim.dsl.library.gemm_tile_kernel` -- four arrays ``a[M, K]``, ``w[N, K]``,
    ``acc[M, N]``, ``c[M, N]`` computing ``c = acc + a @ w.T`` on a *static* ``M x K x N``
    tile -- compiled once per process (:func:`load_design`). A step's ``(m, k, n)`` GEMM
    (a convolution step as its implicit im2col GEMM) runs as
    ``ceil(m / M) * ceil(k / K) * ceil(n / N)`` invocations: edge blocks are zero-padded to
    the full tile, and the reduction blocks run back to back with the partial sums passed
    ping-pong from ``c`` to the next invocation's ``acc``. The tiler prefers blocks that are
    multiples of the kernel tile (``tile_align``), so padding is left only where a whole
    dimension is not a multiple (a batch-1 layer's single row fills 1 of ``M`` rows). Each invocation costs the
    Design's predicted cycles (``Design.cycles``, equal to its RTL's measured cycles: the
    cross-check in the tests) and ``Design.estimate().energy_j`` (its operators and its own
    memory accesses, so the engine does not charge scratchpad reads for its compute again).
    Moving operands between the scratchpads and the kernel's memories is not modelled
    (the kernel's arrays are taken to be the scratchpads' tile views), nor is the one-cycle
    start handshake between invocations. It runs at ``1 / max(clock_ns, critical path)``.

All run vector work (element-wise, pooling, normalization, the recurrent cell's point-wise
math) at ``vector_lanes`` operations per cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...errors import ConfigError, SimulationError
from ...hw.models import OperatorCost
from ...hw.systolic import matmul_cycles
from .config import AcceleratorConfig, EnergyConfig
from .tiling import Step, plan_operator

__all__ = ["AcceleratorModel", "SystolicModel", "SMVModel", "CallableModel", "DSLModel",
           "make_accelerator_model", "load_design", "gemm_tile_shape"]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class AcceleratorModel:
    """Cycles per step of one accelerator kind; :meth:`step_cost` answers in seconds.

    Also a :class:`~archsim.hw.models.HardwareModel`: :meth:`operator_cost` tiles a whole
    operator into the scratchpads and sums its steps (compute only, one accelerator, no
    transfers -- the SoC simulation adds those); energy is MACs and vector operations at
    ``energy`` (Horowitz 45 nm defaults).
    """

    config: AcceleratorConfig
    energy: EnergyConfig = EnergyConfig()

    #: Whether the engine charges scratchpad reads for this model's compute (a DSL design's
    #: own energy estimate already counts its memory accesses).
    counts_scratchpad_reads = True

    @property
    def name(self) -> str:
        return self.config.label

    @property
    def frequency_hz(self) -> float:
        """The accelerator's clock."""
        return self.config.frequency_hz

    @property
    def tile_align(self) -> tuple[int, int, int]:
        """``(m, k, n)`` granularity the tiler should align GEMM blocks to (1: none)."""
        return (1, 1, 1)

    def gemm_cycles(self, m: int, k: int, n: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def conv_cycles(self, pixels: int, c: int, k: int, window: int) -> int:
        """Cycles of a convolution step (default: its implicit-im2col GEMM)."""
        return self.gemm_cycles(pixels, c * window, k)

    def vector_cycles(self, ops: float) -> int:
        return _ceil_div(int(round(ops)), self.config.vector_lanes) if ops > 0 else 0

    def step_cycles(self, step: Step) -> int:
        """Cycles of one step: its GEMM/convolution plus its vector work and pipeline fill."""
        cycles = self.vector_cycles(step.vector_ops)
        if step.conv is not None and step.conv[3] > 1:
            cycles += self.conv_cycles(*step.conv)
        elif step.gemm is not None:
            cycles += self.gemm_cycles(*step.gemm)
        return cycles + self.config.pipeline_cycles

    def step_cost(self, step: Step) -> OperatorCost:
        """The :class:`~archsim.hw.models.HardwareModel`-style answer for one step."""
        return OperatorCost(latency_s=self.step_cycles(step) / self.frequency_hz,
                            energy_j=self.step_energy_j(step), bound="compute")

    def step_energy_j(self, step: Step) -> float:
        """Dynamic compute energy of one step at the reference node (MACs and vector ops at
        ``energy``'s per-action figures)."""
        return (step.macs * self.energy.mac_pj + step.vector_ops * self.energy.vector_op_pj) \
            * 1e-12

    def operator_cost(self, op: Any) -> OperatorCost:
        """Compute latency and energy of a workload-graph operator on this accelerator."""
        plan = plan_operator(op, self.config.scratchpads, align=self.tile_align)
        steps = [st for job in plan.jobs for st in job.steps]
        cycles = sum(self.step_cycles(st) for st in steps)
        return OperatorCost(latency_s=cycles / self.frequency_hz,
                            energy_j=sum(self.step_energy_j(st) for st in steps),
                            bound="compute" if plan.target == "accelerator" else "overhead")


@dataclass(frozen=True)
class SystolicModel(AcceleratorModel):
    """SCALE-Sim fold model of an R x C array (see :mod:`archsim.hw.systolic`)."""

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        c = self.config
        return matmul_cycles(rows=c.rows, cols=c.cols, m=m, k=k, n=n, dataflow=c.dataflow)


@dataclass(frozen=True)
class SMVModel(AcceleratorModel):
    """SMAUG's SMV: PEs split output channels, MAC trees reduce input channels."""

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        c = self.config
        return _ceil_div(n, c.pes) * _ceil_div(k, c.macs_per_pe) * m

    def conv_cycles(self, pixels: int, c: int, k: int, window: int) -> int:
        cfg = self.config
        return _ceil_div(k, cfg.pes) * _ceil_div(c, cfg.macs_per_pe) * pixels * window


@dataclass(frozen=True)
class CallableModel(AcceleratorModel):
    """A design's own model view: ``cycles_model`` names ``function(*, m, k, n) -> int``."""

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        cycles = _load_callable(self.config.cycles_model or "")(m=m, k=k, n=n)
        if isinstance(cycles, bool) or not isinstance(cycles, int | np.integer) or cycles < 0:
            raise SimulationError(f"cycles model '{self.config.cycles_model}' returned "
                                  f"{cycles!r} for m={m}, k={k}, n={n}; expected a "
                                  f"non-negative int")
        return int(cycles)


@dataclass(frozen=True)
class DSLModel(AcceleratorModel):
    """A compiled DSL GEMM-tile kernel through its model view (see the module docstring)."""

    design: Any = None

    counts_scratchpad_reads = False

    @property
    def tile(self) -> tuple[int, int, int]:
        """The kernel's static ``(M, K, N)``."""
        return gemm_tile_shape(self.design.kernel)

    @property
    def tile_align(self) -> tuple[int, int, int]:
        return self.tile

    @property
    def invocation_cycles(self) -> int:
        """Predicted cycles of one invocation, ``start`` to ``done``."""
        return _design_figures(self.design)[0]

    @property
    def invocation_energy_j(self) -> float:
        """``Design.estimate().energy_j`` of one invocation (reference node)."""
        return _design_figures(self.design)[1]

    @property
    def frequency_hz(self) -> float:
        return 1e9 / max(self.design.clock_ns, self.design.critical_path_ns())

    def invocations(self, m: int, k: int, n: int) -> int:
        """Kernel invocations of an ``(m, k, n)`` GEMM (edge blocks padded)."""
        tm, tk, tn = self.tile
        return _ceil_div(m, tm) * _ceil_div(k, tk) * _ceil_div(n, tn)

    def gemm_cycles(self, m: int, k: int, n: int) -> int:
        return self.invocations(m, k, n) * self.invocation_cycles

    def step_energy_j(self, step: Step) -> float:
        gemm = self.invocations(*step.gemm) * self.invocation_energy_j \
            if step.gemm is not None else 0.0
        return gemm + step.vector_ops * self.energy.vector_op_pj * 1e-12


@lru_cache(maxsize=64)
def _design_figures(design: Any) -> tuple[int, float]:
    # The model view's cycles; array contents do not matter (static bounds), hence None.
    cycles = design.cycles(*([None] * len(design.kernel.param_names)))
    est = design.estimate()
    return int(cycles), float(est.energy_j)


_CONTRACT = ("a GEMM-tile kernel takes four arrays a[M, K], w[N, K], acc[M, N], c[M, N] "
             "(c = acc + a @ w.T) and no scalars; see archsim.dsl.library.gemm_tile_kernel")


def gemm_tile_shape(kern: Any) -> tuple[int, int, int]:
    """``(M, K, N)`` of a kernel with the GEMM-tile contract; ConfigError otherwise."""
    from ...dsl import Kernel

    if not isinstance(kern, Kernel):
        raise ConfigError(f"{kern!r} is not a DSL kernel; {_CONTRACT}",
                          field="accelerators.kernel")
    arrays = [kern.array_types.get(p) for p in kern.param_names]
    shapes = [a.shape if a is not None else None for a in arrays]
    ok = len(shapes) == 4 and all(s is not None and len(s) == 2 for s in shapes)
    if ok:
        (m, k), (n, k2), acc, out = shapes
        ok = k == k2 and acc == (m, n) and out == (m, n)
    if not ok:
        raise ConfigError(f"kernel '{kern.name}' has arguments "
                          f"{', '.join(kern.param_names)} of shapes {shapes}; {_CONTRACT}",
                          field="accelerators.kernel")
    return m, k, n


def _resolve(target: str, field: str, what: str) -> Any:
    module_name, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"cannot load {what} '{target}': {exc}", field=field) from None


@lru_cache(maxsize=32)
def _load_design(target: str, tile: tuple[int, int, int] | None, clock_ns: float,
                 resources: tuple[tuple[str, int], ...]) -> Any:
    from ...dsl import Kernel

    obj = _resolve(target, "accelerators.kernel", "DSL kernel")
    if not isinstance(obj, Kernel):
        if not callable(obj):
            raise ConfigError(f"'{target}' is neither a DSL kernel nor a kernel factory",
                              field="accelerators.kernel")
        if tile is None:
            raise ConfigError(f"'{target}' is a kernel factory: give tile = [m, k, n]",
                              field="accelerators.tile")
        obj = obj(m=tile[0], k=tile[1], n=tile[2])
    shape = gemm_tile_shape(obj)
    if tile is not None and tuple(tile) != shape:
        raise ConfigError(f"tile {list(tile)} differs from kernel '{obj.name}''s static tile "
                          f"{list(shape)}", field="accelerators.tile")
    design = obj.synthesize(clock_ns=clock_ns, resources=dict(resources))
    if design.static_cycles() is None:
        raise ConfigError(f"kernel '{obj.name}' has loop bounds that are not constant; "
                          f"{_CONTRACT}", field="accelerators.kernel")
    return design


def load_design(config: AcceleratorConfig) -> Any:
    """The compiled :class:`~archsim.compilers.hls.design.Design` of a ``dsl`` accelerator,
    built once per process for each (kernel, tile, clock, resources).

    Raises
    ------
    ConfigError
        The kernel cannot be imported or does not have the GEMM-tile contract.
    """
    if config.kind != "dsl" or config.kernel is None:
        raise ConfigError(f"accelerator '{config.label}' is not of kind 'dsl'",
                          field="accelerators.kind", allowed=["dsl"])
    return _load_design(config.kernel, config.tile, float(config.clock_ns),
                        tuple(sorted(config.resources.items())))


@lru_cache(maxsize=64)
def _load_callable(target: str) -> Callable[..., Any]:
    fn = _resolve(target, "accelerators.cycles_model", "cycles model")
    if not callable(fn):
        raise ConfigError(f"cycles model '{target}' is not callable",
                          field="accelerators.cycles_model")
    return fn


def make_accelerator_model(config: AcceleratorConfig,
                           energy: EnergyConfig | None = None) -> AcceleratorModel:
    """The execution model of ``config.kind`` (energies from ``energy``, default Horowitz)."""
    energy = energy if energy is not None else EnergyConfig()
    if config.kind == "dsl":
        return DSLModel(config, energy, load_design(config))
    cls = {"systolic": SystolicModel, "smv": SMVModel, "model": CallableModel}[config.kind]
    if config.kind == "model":
        _load_callable(config.cycles_model or "")  # fail at load time, naming the field
    return cls(config, energy)
