"""R x C systolic arrays of :class:`~archsim.hw.pe.MACPE` (the RTL of SCALE-Sim's fold model).

Two dataflows, after SCALE-Sim (Samajdar et al., "A Systematic Methodology for
Characterizing Scalability of DNN Accelerators using SCALE-Sim", ISPASS 2020). For
``C[M, N] = A[M, K] @ B[K, N]``:

``"os"`` (output-stationary)
    PE ``(i, j)`` accumulates ``C[m0 + i, n0 + j]`` in place. Row ``i`` of ``A`` enters from
    the left, column ``j`` of ``B`` from the top, each skewed by one cycle per row/column so
    matching operands meet. One fold computes an R x C output tile; ``T = K`` operand pairs
    stream through it. Folds: ``ceil(M / R) * ceil(N / C)``.
``"ws"`` (weight-stationary)
    An R x C tile of ``B`` is preloaded (R cycles, shifted down the columns), then the ``T = M``
    rows of ``A`` (restricted to the tile's R values of ``K``) stream in from the left, skewed
    by row, while partial sums flow down and leave at the bottom of each column. Folds:
    ``ceil(K / R) * ceil(N / C)``; the partial sums of the ``ceil(K / R)`` folds that share an
    output tile are added in the output buffer (:meth:`MatmulStimulus.decode` models it, with
    the accumulator's wrap-around).

Cycles per fold, counted from the fold's first input on the array's ports to the cycle its
last result is complete (OS: ``done``, the bottom-right accumulator is final; WS: the last
partial sum is on ``psum``): ``R + C + T - 2`` (OS: the operands stream for ``T`` cycles
and the skew adds ``R - 1`` and ``C - 1``) and ``2R + C + T - 2`` (WS: ``R`` more for the
weight preload). The OS figure is the one SCALE-Sim v3 uses for output-stationary; the
ISPASS 2020 paper writes one expression, ``2R + C + T - 2``, for every dataflow, ``R`` more
than this for OS (the output drain). Here the OS tile drains through a row multiplexer in
the ``R`` cycles after ``done`` while the next fold already streams in, so only the last
fold's drain (``R - 1`` cycles) goes uncounted. Folds run one after another without overlap, as SCALE-Sim
assumes, so a matmul takes ``folds * cycles_per_fold``. The skew is done by delay registers
inside the array, so the stimulus presents a fold's operands unskewed, one ``K`` (OS) or
``M`` (WS) index per cycle.

The analytical model (:func:`fold_count`, :func:`fold_t`, :func:`fold_cycles`,
:func:`matmul_cycles`) lives with the other cost models in :mod:`archsim.hw.models.systolic`
and is re-exported here; the RTL's measured cycles are tested against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from amaranth.hdl import Const, Module, Mux, Shape, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..errors import SimulationError
from .checks import check_bool, check_positive, silence_unused
from .models.systolic import (
    DATAFLOWS,
    fold_count,
    fold_cycles,
    fold_t,
    matmul_cycles,
)
from .models.systolic import check_dataflow as _check_dataflow
from .pe import MACPE

__all__ = [
    "DATAFLOWS", "SystolicArray", "MatmulStimulus",
    "fold_count", "fold_cycles", "fold_t", "matmul_cycles",
]

# --- the RTL ----------------------------------------------------------------------------------

def _widen(m: Module, value: Value, shape: Shape, name: str) -> Value:
    """``value`` sign- or zero-extended (by its own signedness) to ``shape``."""
    wide = Signal(shape, name=name)
    m.d.comb += wide.eq(value)
    return wide


def _delay(m: Module, value: Value, count: int, name: str) -> list[Value]:
    """Return ``[value, value delayed 1 cycle, ..., value delayed count cycles]``."""
    taps = [value]
    for d in range(1, count + 1):
        reg = Signal(value.shape(), name=f"{name}_d{d}")
        m.d.sync += reg.eq(taps[-1])
        taps.append(reg)
    return taps


class SystolicArray(wiring.Component):
    """An R x C systolic array of :class:`~archsim.hw.pe.MACPE` (see the module docstring).

    Parameters
    ----------
    rows, cols : int
        Array size ``R`` x ``C``.
    dataflow : str
        ``"os"`` (output-stationary) or ``"ws"`` (weight-stationary).
    input_width, acc_width : int
        Operand and accumulator widths in bits.
    signed : bool
        Two's complement (``True``) or unsigned arithmetic.

    Attributes
    ----------
    a : array of R Signal(input_width), in
        One operand per row, entering from the left (skewed inside the array).
    valid : Signal(1), in
        The operands on ``a`` (and ``b`` for OS) are to be used this cycle.
    b : array of C Signal(input_width), in  (``"os"``)
        One operand per column, entering from the top.
    first, last : Signal(1), in  (``"os"``)
        This cycle carries the first / last operand pair of a fold.
    done : Signal(1), out  (``"os"``)
        High for the one cycle in which the fold's last result (bottom-right PE) is in its
        accumulator; then the tile is read out, one row per cycle.
    c : array of C Signal(acc_width), out  (``"os"``)
        One row of the finished tile's accumulators (row ``c_row``) while ``c_valid`` is high:
        row 0 in the ``done`` cycle, row ``r`` ``r`` cycles later. The next fold may already
        be streaming in; its products reach row ``r`` only after the row has been read.
    c_row : Signal(range(max(R, 2))), out  (``"os"``)
        The row on ``c``.
    c_valid : Signal(1), out  (``"os"``)
        ``c`` holds a row of results.
    w : array of C Signal(input_width), in  (``"ws"``)
        Weights entering at the top of each column while ``w_load`` is high; the value fed
        last ends in row 0.
    w_load : Signal(1), in  (``"ws"``)
        Shift the weight registers down by one row.
    psum : array of C Signal(acc_width), out  (``"ws"``)
        The partial sum leaving the bottom of each column.
    psum_valid : array of C Signal(1), out  (``"ws"``)
        ``psum[j]`` holds a finished partial sum.
    """

    def __init__(self, *, rows: int, cols: int, dataflow: str = "os", input_width: int = 8,
                 acc_width: int = 32, signed: bool = True):
        try:
            self._rows = check_positive("rows", rows)
            self._cols = check_positive("cols", cols)
            self._dataflow = _check_dataflow(dataflow)
            self._input_width = check_positive("input_width", input_width)
            self._acc_width = check_positive("acc_width", acc_width)
            self._signed = check_bool("signed", signed)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        operand, acc = self.operand_shape, self.acc_shape
        if dataflow == "os":
            members = {
                "a": In(operand).array(rows),
                "b": In(operand).array(cols),
                "valid": In(1),
                "first": In(1),
                "last": In(1),
                "done": Out(1),
                "c": Out(acc).array(cols),
                "c_row": Out(range(max(rows, 2))),
                "c_valid": Out(1),
            }
        else:
            members = {
                "a": In(operand).array(rows),
                "valid": In(1),
                "w": In(operand).array(cols),
                "w_load": In(1),
                "psum": Out(acc).array(cols),
                "psum_valid": Out(1).array(cols),
            }
        super().__init__(members)

    @property
    def rows(self) -> int:
        """Number of PE rows ``R``."""
        return self._rows

    @property
    def cols(self) -> int:
        """Number of PE columns ``C``."""
        return self._cols

    @property
    def dataflow(self) -> str:
        """``"os"`` or ``"ws"``."""
        return self._dataflow

    @property
    def input_width(self) -> int:
        """Operand width in bits."""
        return self._input_width

    @property
    def acc_width(self) -> int:
        """Accumulator width in bits."""
        return self._acc_width

    @property
    def signed(self) -> bool:
        """Whether the arithmetic is two's complement."""
        return self._signed

    @property
    def operand_shape(self) -> Shape:
        """Amaranth shape of the operands."""
        return Shape(self._input_width, signed=self._signed)

    @property
    def acc_shape(self) -> Shape:
        """Amaranth shape of the accumulators."""
        return Shape(self._acc_width, signed=self._signed)

    def elaborate(self, platform) -> Module:
        m = Module()
        rows, cols = self._rows, self._cols
        # The operands travel sign-extended to the accumulator's width (when it fits a
        # machine word), so each PE's multiply-accumulate is plain word arithmetic in a
        # Verilator model instead of per-PE sign extensions (-11% instructions on the DSL's
        # GEMM accelerator, bench/accel_native.py). Synthesis merges the copied sign bits
        # (same flip-flop count) and narrows the multiplier again.
        carried = self._acc_width if self._acc_width <= 32 else self._input_width
        pes = [[MACPE(input_width=self._input_width, acc_width=self._acc_width,
                      signed=self._signed, carried_width=carried) for _ in range(cols)]
               for _ in range(rows)]
        wide = Shape(carried, signed=self._signed)
        for i in range(rows):
            for j in range(cols):
                m.submodules[f"pe_r{i}_c{j}"] = pes[i][j]

        # Row i enters i cycles late, so its operands meet column j's at PE (i, j).
        # OS: PE (i, j) sees `valid` delayed i + j cycles, which one shared delay line gives
        # (rows + cols - 2 registers instead of a chain through every PE, rows * cols: the
        # same values, as every register is frozen by the same enable; a Verilator model
        # evaluates every register every cycle). WS chains it through the PEs.
        os = self._dataflow == "os"
        valid_rows = _delay(m, self.valid, rows - 1 + (cols - 1 if os else 0), "valid_skew")
        for i in range(rows):
            a_in = (self.a[i] if carried == self._input_width
                    else _widen(m, self.a[i], wide, f"a_wide_r{i}"))
            a_row = _delay(m, a_in, i, f"a_skew_r{i}")[-1]
            for j in range(cols):
                pe = pes[i][j]
                left = None if j == 0 else pes[i][j - 1]
                m.d.comb += [
                    pe.a.eq(a_row if left is None else left.a_out),
                    pe.valid.eq(valid_rows[i + j] if os
                                else valid_rows[i] if left is None else left.valid_out),
                ]

        if self._dataflow == "os":
            self._elaborate_os(m, pes)
        else:
            self._elaborate_ws(m, pes)
        return m

    def _elaborate_os(self, m: Module, pes: list[list[MACPE]]) -> None:
        rows, cols = self._rows, self._cols
        # `first` reaches PE (i, j) i + j cycles late, as `valid` does (one delay line).
        first_taps = _delay(m, self.first, rows + cols - 2, "first_skew")
        for j in range(cols):
            carried = pes[0][0].operand_shape
            b_in = (self.b[j] if carried.width == self._input_width
                    else _widen(m, self.b[j], carried, f"b_wide_c{j}"))
            b_col = _delay(m, b_in, j, f"b_skew_c{j}")[-1]
            for i in range(rows):
                pe = pes[i][j]
                m.d.comb += [
                    pe.b.eq(b_col if i == 0 else pes[i - 1][j].b_out),
                    # `first` restarts the accumulator from zero: a new output tile.
                    pe.load.eq(first_taps[i + j]),
                    pe.acc_in.eq(0),
                ]
        # `last` follows the bottom row's operands to the bottom-right PE, which finishes last,
        # plus one register for its final accumulation.
        m.d.comb += self.done.eq(_delay(m, self.last, rows - 1 + cols, "last_skew")[-1])

        # Read the tile out through a row multiplexer, row r in cycle done + r. No result
        # buffer is needed: the next fold's first product reaches PE (r, j) r + j + 1 cycles
        # after it starts, and it cannot start before `done`.
        drain_row = Signal(range(max(rows, 2)), name="drain_row")
        draining = Signal(name="draining")
        m.d.comb += [
            self.c_valid.eq(self.done | draining),
            self.c_row.eq(Mux(self.done, 0, drain_row)),
        ]
        for j in range(cols):
            with m.Switch(self.c_row):
                for i in range(rows):
                    with m.Case(i):
                        m.d.comb += self.c[j].eq(pes[i][j].acc)
        if rows > 1:
            with m.If(self.done):
                m.d.sync += [draining.eq(1), drain_row.eq(1)]
            with m.Elif(draining):
                m.d.sync += drain_row.eq(drain_row + 1)
                with m.If(drain_row == rows - 1):
                    m.d.sync += draining.eq(0)

    def _elaborate_ws(self, m: Module, pes: list[list[MACPE]]) -> None:
        rows, cols = self._rows, self._cols
        weights = [[Signal(self.operand_shape, name=f"weight_r{i}_c{j}") for j in range(cols)]
                   for i in range(rows)]
        with m.If(self.w_load):
            for j in range(cols):
                for i in range(rows):
                    m.d.sync += weights[i][j].eq(self.w[j] if i == 0 else weights[i - 1][j])
        for i in range(rows):
            for j in range(cols):
                pe = pes[i][j]
                # Every MAC restarts from the partial sum above: the accumulator is a
                # pipeline stage of the column's adder chain.
                m.d.comb += [
                    pe.b.eq(weights[i][j]),
                    pe.load.eq(1),
                    pe.acc_in.eq(Const(0, self.acc_shape) if i == 0 else pes[i - 1][j].acc),
                ]
        for j in range(cols):
            m.d.comb += [
                self.psum[j].eq(pes[rows - 1][j].acc),
                self.psum_valid[j].eq(pes[rows - 1][j].valid_out),
            ]

    def stimulus(self, a: np.ndarray, b: np.ndarray, *, idle_cycles: int = 0
                 ) -> MatmulStimulus:
        """Port values that make the array compute ``a @ b``, fold after fold.

        Parameters
        ----------
        a, b : array-like of int, shapes ``(M, K)`` and ``(K, N)``
            Operands; every value must fit the operand width and signedness.
        idle_cycles : int
            Idle cycles inserted after each fold (the measured cycles do not change; tests
            use this to show the measurement does not depend on the schedule).

        Returns
        -------
        MatmulStimulus
            ``inputs`` and ``cycles`` for a simulation, ``outputs`` to record, and
            :meth:`~MatmulStimulus.decode` / :meth:`~MatmulStimulus.fold_latencies` to read
            the product and the measured cycles back from the recorded outputs.

        Raises
        ------
        SimulationError
            If the operands are not 2-D integer matrices of matching inner size, or a value
            does not fit the operand width.
        """
        if isinstance(idle_cycles, bool) or not isinstance(idle_cycles, int) or idle_cycles < 0:
            raise ValueError(f"idle_cycles must be a non-negative int, not {idle_cycles!r}")
        a = self._operand(a, "a")
        b = self._operand(b, "b")
        if a.shape[1] != b.shape[0]:
            raise SimulationError(f"cannot multiply a of shape {a.shape} by b of shape "
                                  f"{b.shape}: a has {a.shape[1]} columns, b has "
                                  f"{b.shape[0]} rows")
        (m_dim, k_dim), n_dim = a.shape, b.shape[1]
        rows, cols, dataflow = self._rows, self._cols, self._dataflow
        t = fold_t(m=m_dim, k=k_dim, n=n_dim, dataflow=dataflow)
        period = fold_cycles(rows=rows, cols=cols, t=t, dataflow=dataflow) + idle_cycles
        if dataflow == "os":
            tiles = [(m0, n0) for m0 in range(0, m_dim, rows) for n0 in range(0, n_dim, cols)]
        else:
            tiles = [(k0, n0) for n0 in range(0, n_dim, cols) for k0 in range(0, k_dim, rows)]
        starts = [f * period for f in range(len(tiles))]
        # Spare cycles after the last fold: a design slower than the model gets measured as
        # slower instead of being cut off.
        cycles = starts[-1] + period + rows + cols

        def zeros() -> np.ndarray:
            return np.zeros(cycles, dtype=np.int64)

        inputs: dict[str, np.ndarray] = {f"a__{i}": zeros() for i in range(rows)}
        inputs["valid"] = zeros()
        if dataflow == "os":
            inputs.update({f"b__{j}": zeros() for j in range(cols)})
            inputs.update(first=zeros(), last=zeros())
            for s, (m0, n0) in zip(starts, tiles, strict=True):
                span = slice(s, s + k_dim)
                inputs["valid"][span] = 1
                inputs["first"][s] = 1
                inputs["last"][s + k_dim - 1] = 1
                for i in range(min(rows, m_dim - m0)):
                    inputs[f"a__{i}"][span] = a[m0 + i, :]
                for j in range(min(cols, n_dim - n0)):
                    inputs[f"b__{j}"][span] = b[:, n0 + j]
            outputs = [f"c__{j}" for j in range(cols)] + ["c_row", "c_valid", "done"]
        else:
            inputs.update({f"w__{j}": zeros() for j in range(cols)})
            inputs["w_load"] = zeros()
            for s, (k0, n0) in zip(starts, tiles, strict=True):
                inputs["w_load"][s:s + rows] = 1
                # Row rows-1 is fed first: after `rows` shifts it sits at the bottom.
                for r in range(rows):
                    k_index = k0 + rows - 1 - r
                    if k_index < k_dim:
                        for j in range(min(cols, n_dim - n0)):
                            inputs[f"w__{j}"][s + r] = b[k_index, n0 + j]
                span = slice(s + rows, s + rows + m_dim)
                inputs["valid"][span] = 1
                for i in range(min(rows, k_dim - k0)):
                    inputs[f"a__{i}"][span] = a[:, k0 + i]
            outputs = ([f"psum__{j}" for j in range(cols)]
                       + [f"psum_valid__{j}" for j in range(cols)])
        return MatmulStimulus(
            dataflow=dataflow, rows=rows, cols=cols, m=m_dim, k=k_dim, n=n_dim,
            acc_width=self._acc_width, signed=self._signed, inputs=inputs, outputs=outputs,
            cycles=cycles, fold_starts=starts, fold_tiles=tiles,
        )

    def _operand(self, value: object, name: str) -> np.ndarray:
        arr = np.asarray(value)
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise SimulationError(f"{name} must be a non-empty 2-D matrix, not of shape "
                                  f"{arr.shape}")
        if arr.dtype.kind not in "iu":
            raise SimulationError(f"{name} must hold integers, not {arr.dtype}")
        width = self._input_width
        low, high = ((-(1 << (width - 1)), (1 << (width - 1)) - 1) if self._signed
                     else (0, (1 << width) - 1))
        bad = (arr < low) | (arr > high)
        if bad.any():
            i, j = (int(x) for x in np.argwhere(bad)[0])
            kind = "signed" if self._signed else "unsigned"
            raise SimulationError(f"{name}[{i}, {j}] = {arr[i, j]} does not fit the array's "
                                  f"{width}-bit {kind} operands ({low}..{high})")
        return arr.astype(np.int64)


@dataclass
class MatmulStimulus:
    """Port values for a whole (folded) matmul on a :class:`SystolicArray`, and its readback.

    Attributes
    ----------
    inputs : dict of str to numpy.ndarray
        Flat input port name to one value per cycle.
    outputs : list of str
        The output ports to record.
    cycles : int
        Cycles to simulate.
    fold_starts : list of int
        Cycle at which each fold's first input is on the ports.
    fold_tiles : list of (int, int)
        Each fold's tile origin: ``(m0, n0)`` for OS, ``(k0, n0)`` for WS.
    """

    dataflow: str
    rows: int
    cols: int
    m: int
    k: int
    n: int
    acc_width: int
    signed: bool
    inputs: dict[str, np.ndarray] = field(repr=False)
    outputs: list[str] = field(repr=False)
    cycles: int
    fold_starts: list[int]
    fold_tiles: list[tuple[int, int]]

    @property
    def folds(self) -> int:
        """Number of folds."""
        return len(self.fold_starts)

    def _high_cycles(self, outputs: dict[str, np.ndarray], name: str, count: int
                     ) -> np.ndarray:
        """The cycles in which flag ``name`` is high; there must be ``count`` of them."""
        if name not in outputs:
            raise SimulationError(f"output '{name}' was not recorded", signal=name)
        high = np.flatnonzero(np.asarray(outputs[name]) != 0)
        if len(high) != count:
            raise SimulationError(f"'{name}' was high in {len(high)} cycles; {self.folds} "
                                  f"folds should give {count}", signal=name)
        return high

    def _psum_cycles(self, outputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        return [self._high_cycles(outputs, f"psum_valid__{j}", self.folds * self.m)
                for j in range(self.cols)]

    def fold_latencies(self, outputs: dict[str, np.ndarray]) -> list[int]:
        """Measured cycles of each fold, from its first input to its last result.

        The end of a fold is the cycle in which ``done`` is high (OS), or in which the last
        of its partial sums is on ``psum`` (WS); fold ``f`` ends at the ``f``-th such event.

        Parameters
        ----------
        outputs : dict of str to numpy.ndarray
            Recorded outputs (at least :attr:`outputs`), one value per cycle.
        """
        if self.dataflow == "os":
            ends = [int(t) for t in self._high_cycles(outputs, "done", self.folds)]
        else:
            columns = self._psum_cycles(outputs)
            ends = [max(int(high[(f + 1) * self.m - 1]) for high in columns)
                    for f in range(self.folds)]
        return [end - start for end, start in zip(ends, self.fold_starts, strict=True)]

    def decode(self, outputs: dict[str, np.ndarray]) -> np.ndarray:
        """The product ``a @ b`` read from recorded outputs, shape ``(M, N)``.

        Values wrap at the accumulator width like the hardware (the WS output buffer adds the
        partial sums of successive ``K`` tiles with the same wrap-around). The result is
        ``int64`` when every accumulator value fits, else an object array of Python ints.
        """
        product = [[0] * self.n for _ in range(self.m)]
        if self.dataflow == "os":
            high = self._high_cycles(outputs, "c_valid", self.folds * self.rows)
            for f, (m0, n0) in enumerate(self.fold_tiles):
                for t in high[f * self.rows:(f + 1) * self.rows]:
                    row = m0 + int(outputs["c_row"][t])
                    if row >= self.m:
                        continue
                    for j in range(min(self.cols, self.n - n0)):
                        product[row][n0 + j] = int(outputs[f"c__{j}"][t])
        else:
            for j, high in enumerate(self._psum_cycles(outputs)):
                psum = outputs[f"psum__{j}"]
                for f, (_, n0) in enumerate(self.fold_tiles):
                    if n0 + j >= self.n:
                        continue
                    for row, t in enumerate(high[f * self.m:(f + 1) * self.m]):
                        product[row][n0 + j] += int(psum[int(t)])
        mask = (1 << self.acc_width) - 1
        half = 1 << (self.acc_width - 1)
        wrapped = [[((v & mask) ^ half) - half if self.signed else v & mask for v in row]
                   for row in product]
        fits = self.acc_width <= (64 if self.signed else 63)
        return np.array(wrapped, dtype=np.int64 if fits else object)
