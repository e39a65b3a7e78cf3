"""The hardware-model interface: every executor of work answers one question.

A systolic array, SMAUG's SMV engine, a DSL design, a CPU, a GPU roofline or a GPU
calibrated from measured profiles -- and later SSDs with near-data units, eDRAM
training engines and UAV compute -- all answer ``operator_cost(work)``: how long,
how much energy, what bounds it, and (where a clock exists) how many cycles, for a
whole :class:`~archsim.operators.Operator` or a :class:`Tile` of one. The SoC
engine, the serving and distributed models, sweeps and the DSL ``Design`` all ask
through this seam, so a study swaps one executor for another by passing a
different object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ...operators import Operator

__all__ = ["BOUNDS", "OperatorCost", "Tile", "Work", "HardwareModel", "work_operator"]

#: What can limit an operator's execution.
BOUNDS: frozenset[str] = frozenset({"compute", "memory", "overhead", "io", "measured"})


@dataclass(frozen=True, slots=True)
class OperatorCost:
    """Latency and energy of executing one operator (or tile) on one executor.

    Parameters
    ----------
    latency_s
        Wall time from start to finish, seconds.
    energy_j
        Dynamic energy (and static energy over ``latency_s`` where the model has it), joules.
    bound
        What limits it: one of :data:`BOUNDS`.
    cycles
        Clock cycles at the executor's clock, where the executor has one; ``None`` otherwise.
    """

    latency_s: float
    energy_j: float = 0.0
    bound: str = "compute"
    cycles: int | None = None

    def __post_init__(self) -> None:
        if not (self.latency_s >= 0 and math.isfinite(self.latency_s)):
            raise ValueError(f"latency_s must be finite and >= 0, not {self.latency_s!r}")
        if not (self.energy_j >= 0 and math.isfinite(self.energy_j)):
            raise ValueError(f"energy_j must be finite and >= 0, not {self.energy_j!r}")
        if self.bound not in BOUNDS:
            raise ValueError(f"bound must be one of {sorted(BOUNDS)}, not {self.bound!r}")
        if self.cycles is not None and (isinstance(self.cycles, bool) or self.cycles < 0):
            raise ValueError(f"cycles must be a non-negative int or None, not {self.cycles!r}")

    def __add__(self, other: OperatorCost) -> OperatorCost:
        """Run back to back: latencies, energies and cycles add; the longer one's bound wins."""
        cycles = (self.cycles + other.cycles
                  if self.cycles is not None and other.cycles is not None else None)
        bound = self.bound if self.latency_s >= other.latency_s else other.bound
        return OperatorCost(self.latency_s + other.latency_s, self.energy_j + other.energy_j,
                            bound, cycles)


@dataclass(frozen=True, slots=True)
class Tile:
    """A slice of an operator that one executor runs at once, with the slice's shape.

    Parameters
    ----------
    op
        The operator this tile is a slice of.
    gemm
        The tile's ``(m, k, n)`` matmul shape (a convolution as its implicit im2col GEMM:
        ``m`` output pixels, ``k = c * kh * kw``, ``n`` output channels), or ``None``.
    conv
        The ``(pixels, c, k, kh * kw)`` shape a convolution dataflow needs, or ``None``.
    macs
        Multiply-accumulates in the tile.
    vector_ops
        Element-wise (vector-unit) operations in the tile.
    input_bytes, weight_bytes, output_bytes
        Bytes of the tile's operands and result.
    """

    op: Operator
    gemm: tuple[int, int, int] | None = None
    conv: tuple[int, int, int, int] | None = None
    macs: int = 0
    vector_ops: float = 0.0
    input_bytes: float = 0.0
    weight_bytes: float = 0.0
    output_bytes: float = 0.0

    @property
    def kind(self) -> str:
        return self.op.kind

    @property
    def flops(self) -> float:
        """Two per multiply-accumulate plus the vector operations."""
        return 2.0 * self.macs + self.vector_ops

    @property
    def bytes_accessed(self) -> float:
        return self.input_bytes + self.weight_bytes + self.output_bytes


#: What an executor is asked to price: a whole operator or a tile of one.
Work = Operator | Tile


def work_operator(work: Work) -> Operator:
    """The operator ``work`` is (or is a tile of)."""
    return work.op if isinstance(work, Tile) else work


@runtime_checkable
class HardwareModel(Protocol):
    """Anything that executes operators: one class per executor, one method to answer."""

    @property
    def name(self) -> str: ...

    def operator_cost(self, work: Work) -> OperatorCost:
        """Latency, energy, bound (and cycles, where a clock exists) of ``work`` here."""
        ...
