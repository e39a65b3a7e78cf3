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
    A design's own model view (e.g. a DSL kernel's predicted cycles): the TOML names a callable
    ``function(*, m, k, n) -> int`` giving the cycles of one GEMM tile.

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
from ...hw.model import OperatorCost
from ...hw.systolic import matmul_cycles
from .config import AcceleratorConfig, EnergyConfig
from .tiling import Step, plan_operator

__all__ = ["AcceleratorModel", "SystolicModel", "SMVModel", "CallableModel",
           "make_accelerator_model"]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class AcceleratorModel:
    """Cycles per step of one accelerator kind; :meth:`step_cost` answers in seconds.

    Also a :class:`~archsim.hw.model.HardwareModel`: :meth:`operator_cost` tiles a whole
    operator into the scratchpads and sums its steps (compute only, one accelerator, no
    transfers -- the SoC simulation adds those); energy is MACs and vector operations at
    ``energy`` (Horowitz 45 nm defaults).
    """

    config: AcceleratorConfig
    energy: EnergyConfig = EnergyConfig()

    @property
    def name(self) -> str:
        return self.config.label

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
        """The :class:`~archsim.hw.model.HardwareModel`-style answer for one step."""
        return OperatorCost(latency_s=self.step_cycles(step) / self.config.frequency_hz,
                            energy_j=self._energy_j(step.macs, step.vector_ops),
                            bound="compute")

    def _energy_j(self, macs: float, vector_ops: float) -> float:
        return (macs * self.energy.mac_pj + vector_ops * self.energy.vector_op_pj) * 1e-12

    def operator_cost(self, op: Any) -> OperatorCost:
        """Compute latency and energy of a workload-graph operator on this accelerator."""
        plan = plan_operator(op, self.config.scratchpads)
        steps = [st for job in plan.jobs for st in job.steps]
        cycles = sum(self.step_cycles(st) for st in steps)
        return OperatorCost(latency_s=cycles / self.config.frequency_hz,
                            energy_j=self._energy_j(sum(st.macs for st in steps),
                                                    sum(st.vector_ops for st in steps)),
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


@lru_cache(maxsize=64)
def _load_callable(target: str) -> Callable[..., Any]:
    module_name, _, attr = target.partition(":")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"cannot load cycles model '{target}': {exc}",
                          field="accelerators.cycles_model") from None
    if not callable(fn):
        raise ConfigError(f"cycles model '{target}' is not callable",
                          field="accelerators.cycles_model")
    return fn


def make_accelerator_model(config: AcceleratorConfig,
                           energy: EnergyConfig | None = None) -> AcceleratorModel:
    """The execution model of ``config.kind`` (energies from ``energy``, default Horowitz)."""
    cls = {"systolic": SystolicModel, "smv": SMVModel, "model": CallableModel}[config.kind]
    if config.kind == "model":
        _load_callable(config.cycles_model or "")  # fail at load time, naming the field
    return cls(config, energy if energy is not None else EnergyConfig())
