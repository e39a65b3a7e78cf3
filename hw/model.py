"""The hardware-model interface every executor of operators answers.

A systolic array, a DSL design, a CPU, a GPU roofline or an SSD with near-data
units all answer the same question -- how long and how much energy for this
operator -- so a study can swap one for another. Operators are taken
structurally (:class:`OperatorLike`) so this low layer does not import the
workload-graph package that defines them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["OperatorCost", "OperatorLike", "HardwareModel"]


@dataclass(frozen=True)
class OperatorCost:
    """Latency and energy of executing one operator (or tile) on one executor.

    ``bound`` says what limits it (``"compute"``, ``"memory"``, ``"overhead"``...).
    """

    latency_s: float
    energy_j: float = 0.0
    bound: str = "compute"

    def __post_init__(self) -> None:
        if not self.latency_s >= 0:
            raise ValueError(f"latency_s must be >= 0, not {self.latency_s!r}")
        if not self.energy_j >= 0:
            raise ValueError(f"energy_j must be >= 0, not {self.energy_j!r}")


@runtime_checkable
class OperatorLike(Protocol):
    """What a hardware model needs to know of an operator."""

    @property
    def kind(self) -> str: ...

    @property
    def flops(self) -> float: ...

    @property
    def bytes_accessed(self) -> float: ...


@runtime_checkable
class HardwareModel(Protocol):
    """Anything that executes operators."""

    name: str

    def operator_cost(self, op: OperatorLike) -> OperatorCost:
        """Latency and energy of ``op`` on this executor."""
        ...
