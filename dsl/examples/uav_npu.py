"""A parameterized int8 systolic-array accelerator for a UAV's navigation CNN (AutoPilot).

:func:`uav_npu` declares the accelerator of one point of AutoPilot's design space
(arXiv 2102.02988): an ``rows x cols`` int8 GEMM array, output- or weight-stationary (the
library's ``gemm`` unit, :mod:`archsim.hw.accel.gemm`, with its ``dataflow``), reading activations from ``act`` (8-bit,
``rows`` banks) and weights from ``wgt`` (8-bit, ``cols`` banks) and accumulating int32
partial sums in ``acc`` (``cols`` banks); one vector unit, ``to_act``, requantizes (or
ReLUs) accumulators back into ``act`` for the next layer. The buffer sizes are parameters
(the design space's SRAM sizes); everything sits in the ``main`` domain at
``(0.9 V, clock_hz)`` (0.9 V: the 45 nm reference supply of the energy tables).

Both dataflows of :mod:`archsim.hw.systolic` are describable (``dataflow="os"`` or
``"ws"``); an input-stationary array does not exist in the library.

:func:`uav_tile_program` is the SoC engine's tile program: one ``[m, k] x [k, n]`` GEMM tile
accumulated in place (``acc += A-tile @ wgt-tile``), the partial sums of consecutive
reduction blocks staying in ``acc`` (as the SoC engine passes them from one invocation to
the next). The activation tile is stored ``k x m`` (transposed) for the output-stationary
array and ``m x k`` (row-major) for the weight-stationary one (the GEMM unit's layouts).

>>> from archsim.dsl.examples.uav_npu import uav_npu, uav_tile_program
>>> npu = uav_npu(rows=4, cols=4, act_words=1024, wgt_words=1024, acc_words=512)
>>> program = uav_tile_program(npu, m=16, k=16, n=4)
>>> npu.compile().model(program).cycles > 0                    # doctest: +SKIP
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from ..accel import Accelerator, Program

__all__ = ["uav_npu", "uav_tile_program", "vector_lanes", "MAIN_VOLTAGE_V", "DESIGNS",
           "design_name", "DATAFLOWS"]

#: The GEMM unit's dataflows (:mod:`archsim.hw.accel.gemm`).
DATAFLOWS: tuple[str, ...] = ("os", "ws")

#: The supply of the accelerator's only domain: the 45 nm / 0.9 V reference of
#: :mod:`archsim.hw.models.energy` (Horowitz, ISSCC 2014), so the energy tables apply as given.
MAIN_VOLTAGE_V = 0.9


def vector_lanes(rows: int, cols: int) -> int:
    """Elements per cycle of the ``to_act`` vector unit: a row port of ``rows`` lanes when the
    array is square (``acc`` and ``act`` then have as many banks), else one element a cycle
    (a row port needs as many banks as lanes on both of its buffers)."""
    return rows if rows == cols else 1


def uav_npu(*, rows: int, cols: int, act_words: int, wgt_words: int, acc_words: int,
            clock_hz: float = 500e6, name: str = "uav_npu", dataflow: str = "os"
            ) -> Accelerator:
    """The accelerator description (module docstring).

    Parameters
    ----------
    rows, cols : int
        The GEMM array's shape (powers of two: they are the buffers' bank counts).
    act_words, wgt_words : int
        8-bit elements of the activation and weight buffers (multiples of ``rows`` and
        ``cols``).
    acc_words : int
        32-bit elements of the accumulator buffer (a multiple of ``cols``).
    clock_hz : float
        The clock of the ``main`` domain (controller, bus, units and buffers).
    name : str
        The Verilog module name.
    dataflow : str
        The GEMM array's dataflow, ``"os"`` (output-stationary) or ``"ws"``
        (weight-stationary).

    Raises
    ------
    ValueError
        ``dataflow`` is not one of :data:`DATAFLOWS`.
    """
    if dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow must be one of {list(DATAFLOWS)}, not {dataflow!r}")
    npu = Accelerator(name=name, main_point=(MAIN_VOLTAGE_V, clock_hz))
    lanes = vector_lanes(rows, cols)
    npu.buffer("act", words=act_words, width=8, banks=rows)
    npu.buffer("wgt", words=wgt_words, width=8, banks=cols)
    # read ports: the vector unit's a and b (b unused by requant/relu), and the GEMM's c_in,
    # which shares the vector unit's first port only when their lanes agree
    npu.buffer("acc", words=acc_words, width=32, banks=cols,
               read_ports=2 if lanes == cols else 3)
    npu.unit("gemm", "gemm", rows=rows, cols=cols, dataflow=dataflow,
             bind={"a": "act", "b": "wgt", "c": "acc", "c_in": "acc"})
    npu.unit("to_act", "vector", a_width=32, b_width=32, z_width=8, lanes=lanes,
             bind={"a": "acc", "b": "acc", "z": "act"})
    return npu


def uav_tile_program(npu: Accelerator, *, m: int, k: int, n: int) -> Program:
    """One GEMM tile accumulated in place: the activations at ``act[0]`` (``k x m``,
    transposed, for OS; ``m x k`` for WS), ``w`` (``k x n``) at ``wgt[0]``, ``acc[0:m*n] +=
    A @ w`` (int32)."""
    prog = npu.program()
    prog.run("gemm", a_addr=0, b_addr=0, c_addr=0, c_in_addr=0, m=m, k=k, n=n, accumulate=1)
    return prog


_NAME = re.compile(r"r(\d+)_c(\d+)_act(\d+)_wgt(\d+)_acc(\d+)_f(\d+)(_ws)?")


def design_name(*, rows: int, cols: int, act_words: int, wgt_words: int, acc_words: int,
                clock_hz: float, dataflow: str = "os") -> str:
    """The attribute of :data:`DESIGNS` that builds this :func:`uav_npu` (``clock_hz`` a whole
    number of hertz; a weight-stationary design ends in ``_ws``), so that an SoC config names
    it as ``description = "archsim.dsl.examples.uav_npu:DESIGNS.<name>"``."""
    if float(clock_hz) != int(clock_hz):
        raise ValueError(f"clock_hz must be a whole number of hertz, not {clock_hz!r}")
    if dataflow not in DATAFLOWS:
        raise ValueError(f"dataflow must be one of {list(DATAFLOWS)}, not {dataflow!r}")
    return (f"r{rows}_c{cols}_act{act_words}_wgt{wgt_words}_acc{acc_words}"
            f"_f{int(clock_hz)}" + ("_ws" if dataflow == "ws" else ""))


class _Designs:
    """Every :func:`uav_npu` point as a no-argument factory named by :func:`design_name`
    (``DESIGNS.r8_c8_act16384_wgt16384_acc4096_f500000000``): SoC configs load descriptions
    by name and call them with no arguments."""

    def __getattr__(self, name: str) -> Callable[[], Accelerator]:
        match = _NAME.fullmatch(name)
        if match is None:
            raise AttributeError(f"{name!r} is not a uav_npu design name "
                                 "(r<rows>_c<cols>_act<words>_wgt<words>_acc<words>_f<hz>"
                                 "[_ws])")
        rows, cols, act, wgt, acc, hz = (int(g) for g in match.groups()[:6])
        return partial(uav_npu, rows=rows, cols=cols, act_words=act, wgt_words=wgt,
                       acc_words=acc, clock_hz=float(hz),
                       dataflow="ws" if match.group(7) else "os")


#: The named factories of :class:`_Designs`.
DESIGNS = _Designs()
