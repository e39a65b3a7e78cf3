"""Run a whole matrix multiplication on a simulated :class:`~archsim.hw.SystolicArray`.

One :func:`~archsim.sim.rtl.simulate` call streams every fold (each Verilator run costs a
process start); the product and the cycle count are both read back from the RTL's outputs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ArchsimError
from ...hw.checks import silence_unused
from ...hw.systolic import SystolicArray, matmul_cycles
from . import simulate

__all__ = ["MatmulRun", "run_matmul"]


@dataclass(frozen=True)
class MatmulRun:
    """The outcome of :func:`run_matmul`.

    Attributes
    ----------
    product : numpy.ndarray
        ``a @ b`` as computed by the RTL, wrapped at the accumulator width: ``int64``
        (an object array of Python ints if the accumulator is wider than int64 holds).
    cycles : int
        Measured cycles: the sum over folds of the cycles from the fold's first input on the
        array's ports to its last result on the outputs (``c_valid`` / ``psum_valid``).
    predicted_cycles : int
        The analytical model, :func:`~archsim.hw.systolic.matmul_cycles`.
    folds : int
        Folds the matmul took.
    fold_cycles : list of int
        Measured cycles of each fold.
    simulated_cycles : int
        Cycles the simulator ran (the folds plus a few spare cycles at the end).
    backend : str
        ``"pysim"`` or ``"verilator"``.
    wall_time_s : float
        Simulation time, without the build.
    build_time_s : float
        Verilator build time (0.0 for pysim or a cached build).
    build_cached : bool
        Whether the Verilator build came from the cache.
    waveform : Path or None
        The waveform written, if asked for.
    """

    product: np.ndarray = field(repr=False)
    cycles: int
    predicted_cycles: int
    folds: int
    fold_cycles: list[int] = field(repr=False)
    simulated_cycles: int
    backend: str
    wall_time_s: float
    build_time_s: float
    build_cached: bool
    waveform: Path | None = None

    @property
    def cycles_per_s(self) -> float:
        """Simulated cycles per second of :attr:`wall_time_s`."""
        return self.simulated_cycles / self.wall_time_s if self.wall_time_s > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        """The scalar figures as a flat dict (a table row), without the product."""
        return {
            "backend": self.backend,
            "folds": self.folds,
            "cycles": self.cycles,
            "predicted_cycles": self.predicted_cycles,
            "simulated_cycles": self.simulated_cycles,
            "wall_time_s": self.wall_time_s,
            "cycles_per_s": self.cycles_per_s,
            "build_time_s": self.build_time_s,
            "build_cached": self.build_cached,
            "waveform": None if self.waveform is None else str(self.waveform),
        }


def run_matmul(
    a: np.ndarray,
    b: np.ndarray,
    *,
    rows: int,
    cols: int,
    dataflow: str = "os",
    input_width: int = 8,
    acc_width: int = 32,
    signed: bool = True,
    backend: str = "pysim",
    waveform: str | os.PathLike[str] | None = None,
) -> MatmulRun:
    """Multiply ``a @ b`` on an R x C systolic array in RTL simulation.

    Parameters
    ----------
    a, b : array-like of int, shapes ``(M, K)`` and ``(K, N)``
        Operands; values must fit ``input_width`` (signed or unsigned).
    rows, cols : int
        Array size.
    dataflow : {"os", "ws"}
        Output- or weight-stationary.
    input_width, acc_width : int
        Operand and accumulator widths in bits.
    signed : bool
        Two's complement or unsigned arithmetic.
    backend : {"pysim", "verilator"}
        Simulator (see :func:`archsim.sim.rtl.simulate`).
    waveform : path, optional
        Waveform file to write (``.vcd``; ``.fst`` with Verilator).

    Returns
    -------
    MatmulRun

    Raises
    ------
    SimulationError
        Bad operands (shape, type, a value out of range), or the RTL produced a different
        number of results than the folds need.
    ConfigError
        Unknown backend or waveform format.
    ToolchainError
        Verilator cannot build (see :func:`archsim.sim.rtl.simulate`).
    TypeError, ValueError
        Bad array parameters (see :class:`~archsim.hw.SystolicArray`).
    """
    array = SystolicArray(rows=rows, cols=cols, dataflow=dataflow, input_width=input_width,
                          acc_width=acc_width, signed=signed)
    try:
        stimulus = array.stimulus(a, b)
        result = simulate(array, stimulus.inputs, stimulus.outputs, cycles=stimulus.cycles,
                          backend=backend, waveform=waveform,
                          name=f"systolic_{dataflow}_{rows}x{cols}")
    except ArchsimError:
        silence_unused(array)  # a user error: Amaranth need not warn it went unused
        raise
    fold_cycles = stimulus.fold_latencies(result.outputs)
    return MatmulRun(
        product=stimulus.decode(result.outputs),
        cycles=sum(fold_cycles),
        predicted_cycles=matmul_cycles(rows=rows, cols=cols, m=stimulus.m, k=stimulus.k,
                                       n=stimulus.n, dataflow=dataflow),
        folds=stimulus.folds,
        fold_cycles=fold_cycles,
        simulated_cycles=result.cycles,
        backend=result.backend,
        wall_time_s=result.wall_time_s,
        build_time_s=result.build_time_s,
        build_cached=result.build_cached,
        waveform=result.waveform,
    )
