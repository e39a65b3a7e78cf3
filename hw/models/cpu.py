"""The host CPU as an executor: the software framework's overheads and data preparation.

The SoC simulator's CPU does three kinds of work (SMAUG's split): the framework's fixed cost
to dispatch one operator (graph traversal, tensor allocation, accelerator set-up,
``framework_overhead_s_per_op``) and to launch one tile (``framework_overhead_s_per_tile``);
data preparation -- tiling tensors into scratchpad-shaped buffers and gathering output tiles
back -- which copies every byte at ``data_prep_bytes_per_s_per_thread`` on each of
``data_prep_threads`` threads, the bytes split evenly; and the operators no accelerator runs
(reshapes, embeddings), which are such copies of their output after the dispatch.

:meth:`CPUModel.operator_cost` prices an operator run on the CPU that way (dispatch, then its
output copied on every thread) and a tile as its launch plus the copy of its input and
weight bytes; energy is ``active_power_w`` over the busy time of every thread.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import ConfigError
from .base import OperatorCost, Tile, Work

__all__ = ["CPUModel"]


@dataclass(frozen=True, kw_only=True)
class CPUModel:
    """Framework overheads and data preparation on a multi-threaded host (module docstring).

    Parameters
    ----------
    framework_overhead_s_per_op, framework_overhead_s_per_tile
        Fixed cost of dispatching an operator and of launching a tile, seconds.
    data_prep_bytes_per_s_per_thread
        Copy bandwidth of one data-preparation thread.
    data_prep_threads
        Threads the copies are split over.
    active_power_w
        Power of one busy thread.
    name
        The executor's name.
    """

    framework_overhead_s_per_op: float = 50e-6
    framework_overhead_s_per_tile: float = 2e-6
    data_prep_bytes_per_s_per_thread: float = 1e9
    data_prep_threads: int = 1
    active_power_w: float = 1.0
    name: str = "cpu"

    def __post_init__(self) -> None:
        for attr in ("framework_overhead_s_per_op", "framework_overhead_s_per_tile",
                     "active_power_w"):
            value = getattr(self, attr)
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f"must be a finite number >= 0, not {value!r}", field=attr)
        bw = self.data_prep_bytes_per_s_per_thread
        if isinstance(bw, bool) or not isinstance(bw, int | float) or not bw > 0:
            raise ConfigError(f"must be > 0, not {bw!r}", field="data_prep_bytes_per_s_per_thread")
        threads = self.data_prep_threads
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"must be a positive int, not {threads!r}",
                              field="data_prep_threads")

    def prep_s_per_thread(self, nbytes: float) -> float:
        """Time each thread spends copying its share of ``nbytes`` (the threads run at once)."""
        return nbytes / self.data_prep_threads / self.data_prep_bytes_per_s_per_thread

    def operator_cost(self, work: Work) -> OperatorCost:
        """An operator: dispatch, then its output bytes copied on every thread. A tile: its
        launch, then its input and weight bytes copied on every thread."""
        if isinstance(work, Tile):
            overhead_s = self.framework_overhead_s_per_tile
            nbytes = work.input_bytes + work.weight_bytes
        else:
            overhead_s = self.framework_overhead_s_per_op
            nbytes = work.output_bytes
        copy_s = self.prep_s_per_thread(nbytes) if nbytes > 0 else 0.0
        busy_s = overhead_s + copy_s * self.data_prep_threads
        return OperatorCost(latency_s=overhead_s + copy_s,
                            energy_j=busy_s * self.active_power_w,
                            bound="overhead" if overhead_s >= copy_s else "memory")
