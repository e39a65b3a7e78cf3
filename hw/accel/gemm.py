"""The GEMM unit: a systolic array (output- or weight-stationary) fed from, and drained into, buffers.

:class:`GemmUnit` wraps an R x C :class:`~archsim.hw.systolic.SystolicArray` of either
dataflow in the unit contract of :mod:`archsim.hw.accel.interface` and computes ``C = A @ B``
(``+ D`` with ``accumulate``) on int words in three (four) buffers. This section and the
next describe ``dataflow="os"`` (the default); the weight-stationary unit differs in the
layout of ``a``, the alignment rules and the schedule (section "Weight-stationary" below):

``a`` (read, ``input_width`` bits, ``rows`` lanes)
    The activations ``A[M, K]`` stored *transposed*, ``K x M`` row-major: element ``(m, k)``
    of ``A`` is at element address ``a_addr + k * M + m``. One row access gives
    ``A[m0:m0 + rows, k]``, the column the array's rows take in one cycle.
``b`` (read, ``input_width`` bits, ``cols`` lanes)
    The weights ``B[K, N]``, row-major at ``b_addr``: one access gives ``B[k, n0:n0 + cols]``.
``c`` (write, ``acc_width`` bits, ``cols`` lanes)
    The result ``C[M, N]``, row-major at ``c_addr``, wrapped to ``acc_width`` bits (two's
    complement).
``c_in`` (read, ``acc_width`` bits, ``cols`` lanes)
    Read only when ``accumulate`` is 1: ``D[M, N]`` row-major at ``c_in_addr``, added to the
    product before it is written (``C = A @ B + D``, wrapping). Binding ``c_in`` to the buffer
    of ``c`` with ``c_in_addr == c_addr`` gives ``C += A @ B``; another address gives a bias
    or residual add for free.

Arguments ``m``, ``k``, ``n`` (at least 1; ``m`` a multiple of ``rows``, ``n`` of ``cols``)
and ``accumulate`` (0 or 1); ``a_addr`` must be a multiple of ``rows`` and ``b_addr``,
``c_addr`` (and ``c_in_addr`` when accumulating) multiples of ``cols``, so every access is
one whole buffer row.

Schedule and cycles
-------------------
The output tiles (folds) go row-of-tiles-major: ``(mt, nt)`` for ``mt < M / R``, ``nt < N /
C``, ``F = (M / R) * (N / C)`` folds. Fold ``f`` reads its ``K`` rows of ``a`` and ``b`` in
the first ``K`` cycles of a period of ``P = R + C + K - 2`` cycles (the fold formula of
:mod:`archsim.hw.models.systolic`, SCALE-Sim's output-stationary fold); the data reach the
array one cycle later (synchronous reads). The array finishes the fold exactly when the next
fold's first operands arrive, and drains the finished tile one row per cycle (row ``r`` in
the ``r``-th cycle from then) while the next fold streams in, so every drain but the last is
hidden. With ``start`` sampled in cycle ``s``::

    cycles = F * (R + C + K - 2) + R + 2

``F * P`` are the folds back to back; the fixed ``R + 2`` are one cycle to latch the
arguments, one of read latency, ``R - 1`` for the last tile's drain after the array's
``done`` and one so that the last row written is visible when ``done`` is high (a write is
visible from the next cycle). ``accumulate`` does not change the count: the rows of ``c_in``
are read one cycle ahead of the drain, on their own port.

Weight-stationary (``dataflow="ws"``)
-------------------------------------
The array holds an R x C tile of ``B`` (rows ``k0 .. k0 + R - 1``, columns ``n0 .. n0 + C -
1``), preloaded in ``R`` cycles, while the ``M`` rows of ``A`` (restricted to the tile's ``R``
values of ``K``) stream past it; each column's partial sums leave at the bottom. Layouts:

``a``
    ``A[M, K]`` *row-major* at ``a_addr``: one row access gives ``A[m, k0:k0 + rows]``.
``b``, ``c``, ``c_in``
    As for OS. ``c_in`` is also the port through which the partial sums of the earlier
    ``K`` tiles are read back from ``c`` and added (the folds of one output tile share it),
    so it must be bound to the buffer of ``c``; with ``accumulate`` the range of ``D`` must
    be the range of ``C`` (``c_in_addr == c_addr``, in-place ``C += A @ B``) or disjoint
    from it.

Arguments: ``m`` at least 1 (any value), ``k`` a multiple of ``rows``, ``n`` of ``cols``;
``a_addr`` a multiple of ``rows``, ``b_addr``, ``c_addr``, ``c_in_addr`` of ``cols``.

Folds ``(kt, nt)``, ``kt`` inner: ``F = (K / R) * (N / C)``, each a period of ``P = 2R + C +
M - 2`` cycles (:func:`~archsim.hw.models.systolic.fold_cycles`, SCALE-Sim's WS fold): the
weight rows are read in cycles ``0 .. R - 1`` (the last row of the tile first), the rows of
``A`` in cycles ``R .. R + M - 1``. Row ``m``'s partial sum leaves column ``j`` in cycle
``2R + 1 + m + j`` of the period; a skew buffer delays column ``j`` by ``C - 1 - j`` cycles so
that the whole row is written at once, in cycle ``2R + C + m``, after the row it adds to
(``D`` or the earlier folds' partial sums) was read one cycle ahead on ``c_in``. The last
write is in cycle ``P + 1`` of the last fold, so::

    cycles = F * (2R + C + M - 2) + 3

(one cycle to latch the arguments, ``F * P``, the two cycles of the last fold's drain past
its period, one so that the last row is visible when ``done`` is high). The drains of
consecutive folds never overlap (a drain spans ``M + 1`` cycles, ``P >= M + 1``).

Energy per action
-----------------
``"mac"``: one int8 multiply (0.2 pJ) and one 32-bit integer add (0.1 pJ), 45 nm, 0.9 V,
M. Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014,
Fig. 1.1.9. The figure is for ``input_width=8``, ``acc_width=32``; using it for other widths
is assumed (not rescaled). The port accesses (``read:a``, ``read:b``, ``read:c_in``,
``write:c``) are priced by the buffers' technology, not here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from amaranth.hdl import Cat, Module, Mux, Signal, Value

from ..checks import check_int, check_positive, silence_unused
from ..models.systolic import check_dataflow
from ..systolic import SystolicArray
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["GemmUnit", "MAC_MULT_ENERGY_J", "MAC_ADD_ENERGY_J"]

#: 8-bit integer multiply, 45 nm (Horowitz, ISSCC 2014, Fig. 1.1.9).
MAC_MULT_ENERGY_J = 0.2e-12
#: 32-bit integer add, 45 nm (Horowitz, ISSCC 2014, Fig. 1.1.9).
MAC_ADD_ENERGY_J = 0.1e-12

_KIND = "gemm"


def _div_const(value: Value, divisor: int) -> Value:
    """``value // divisor`` for a constant divisor (a bit slice when it is a power of two)."""
    if divisor & (divisor - 1) == 0:
        shift = divisor.bit_length() - 1
        return value[shift:] if shift else value
    return value // divisor


class GemmUnit(Unit):
    """``C = A @ B`` (``+ D``) on an R x C systolic array; see the module docstring for the
    operands, arguments, layouts and cycle count of each dataflow.

    Parameters
    ----------
    rows, cols : int
        Array size ``R`` x ``C`` (also the lanes of ``a`` and of ``b``/``c``/``c_in``).
    dataflow : str
        ``"os"`` (output-stationary, the default) or ``"ws"`` (weight-stationary).
    input_width : int
        Bits of the elements of ``a`` and ``b`` (two's complement).
    acc_width : int
        Bits of the accumulators and of the elements of ``c`` and ``c_in``.
    addr_width : int
        Row-address bits of every port (each buffer holds ``2 ** addr_width`` rows).

    Raises
    ------
    TypeError, ValueError
        A parameter that is not a positive int (``addr_width``: not in 1..32), or a
        ``dataflow`` not in ``("os", "ws")``.
    """

    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        "mac": MAC_MULT_ENERGY_J + MAC_ADD_ENERGY_J,
    }
    ENERGY_SOURCES: Mapping[str, str] = {
        "mac": "M. Horowitz, 'Computing's energy problem (and what we can do about it)', "
               "ISSCC 2014, Fig. 1.1.9, 45 nm: 8-bit int multiply 0.2 pJ + 32-bit int add "
               "0.1 pJ (for other widths the same figure is assumed)",
    }

    def __init__(self, *, rows: int, cols: int, dataflow: str = "os", input_width: int = 8,
                 acc_width: int = 32, addr_width: int = 16):
        try:
            self._dataflow = check_dataflow(dataflow)
            self._rows = check_positive("rows", rows)
            self._cols = check_positive("cols", cols)
            self._input_width = check_positive("input_width", input_width)
            self._acc_width = check_positive("acc_width", acc_width)
            self._addr_width = check_int("addr_width", addr_width, 1, 32)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.contract = UnitContract(
            kind=_KIND,
            args=("m", "k", "n", "accumulate"),
            operands=(
                Operand("a", "read", input_width, rows),
                Operand("b", "read", input_width, cols),
                Operand("c", "write", acc_width, cols),
                Operand("c_in", "read", acc_width, cols),
            ),
        )
        super().__init__(self.contract.members({o.name: addr_width
                                                for o in self.contract.operands}))

    @property
    def rows(self) -> int:
        """Array rows ``R``."""
        return self._rows

    @property
    def cols(self) -> int:
        """Array columns ``C``."""
        return self._cols

    @property
    def dataflow(self) -> str:
        """``"os"`` or ``"ws"``."""
        return self._dataflow

    @property
    def input_width(self) -> int:
        """Bits of the elements of ``a`` and ``b``."""
        return self._input_width

    @property
    def acc_width(self) -> int:
        """Bits of the elements of ``c`` and ``c_in``."""
        return self._acc_width

    @property
    def addr_width(self) -> int:
        """Row-address bits of every port."""
        return self._addr_width

    # --- the contract's views ------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        """The complete, validated arguments (``ValueError`` naming the argument)."""
        a = self.contract.check_args(args)
        rows, cols = self._rows, self._cols

        def fail(name: str, what: str) -> ValueError:
            return ValueError(f"unit kind {_KIND!r}: argument {name!r} must be {what}, "
                              f"not {a[name]}")

        for name in ("m", "k", "n"):
            if a[name] < 1:
                raise fail(name, "at least 1")
        ws = self._dataflow == "ws"
        # OS folds m over the rows; WS folds k over them (module docstring).
        folded = "k" if ws else "m"
        if a[folded] % rows:
            raise fail(folded, f"a multiple of rows ({rows})")
        if a["n"] % cols:
            raise fail("n", f"a multiple of cols ({cols})")
        if a["accumulate"] not in (0, 1):
            raise fail("accumulate", "0 or 1")
        aligned = [("a_addr", rows, "rows"), ("b_addr", cols, "cols"), ("c_addr", cols, "cols")]
        if a["accumulate"]:
            aligned.append(("c_in_addr", cols, "cols"))
        for name, lanes, what in aligned:
            if a[name] % lanes:
                raise fail(name, f"a multiple of {what} ({lanes})")
        if ws and a["accumulate"]:
            c0, d0, size = a["c_addr"], a["c_in_addr"], a["m"] * a["n"]
            if d0 != c0 and d0 < c0 + size and c0 < d0 + size:
                raise fail("c_in_addr", f"c_addr ({c0}) or a range disjoint from c's "
                                        f"{c0}..{c0 + size - 1} (the weight-stationary unit "
                                        "reads partial sums back from c)")
        for name, (_, end) in self._footprint(a).items():
            lanes = self.contract.operand(name).lanes
            limit = lanes << self._addr_width
            if end > limit:
                raise ValueError(
                    f"unit kind {_KIND!r}: operand {name!r} would reach element {end - 1}, "
                    f"past the {limit} elements its {self._addr_width}-bit row address "
                    f"reaches ({1 << self._addr_width} rows of {lanes})")
        return a

    def _footprint(self, a: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        m, k, n = a["m"], a["k"], a["n"]
        c_in = a["c_in_addr"]
        return {
            "a": (a["a_addr"], a["a_addr"] + k * m),
            "b": (a["b_addr"], a["b_addr"] + k * n),
            "c": (a["c_addr"], a["c_addr"] + m * n),
            "c_in": (c_in, c_in + (m * n if a["accumulate"] else 0)),
        }

    def folds(self, args: Mapping[str, int]) -> int:
        """Number of folds: output tiles ``(m / rows) * (n / cols)`` (OS), weight tiles
        ``(k / rows) * (n / cols)`` (WS)."""
        a = self._check(args)
        folded = a["k"] if self._dataflow == "ws" else a["m"]
        return (folded // self._rows) * (a["n"] // self._cols)

    def cycles(self, args: Mapping[str, int]) -> int:
        """``folds * (rows + cols + k - 2) + rows + 2`` (OS) or ``folds * (2 * rows + cols +
        m - 2) + 3`` (WS); see the module docstring."""
        a = self._check(args)
        rows, cols = self._rows, self._cols
        if self._dataflow == "ws":
            return self.folds(a) * (2 * rows + cols + a["m"] - 2) + 3
        return self.folds(a) * (rows + cols + a["k"] - 2) + rows + 2

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``mac`` (``m * k * n``), and row accesses. OS: ``read:a`` and ``read:b`` (``k``
        per fold), ``write:c`` (``rows`` per fold) and ``read:c_in`` (as many, if
        accumulating). WS: ``read:b`` (``rows`` per fold), ``read:a`` and ``write:c`` (``m``
        per fold), ``read:c_in`` (``m`` per fold but the first of each output tile, and ``m``
        for those too if accumulating)."""
        a = self._check(args)
        folds = self.folds(a)
        if self._dataflow == "ws":
            tiles_n = a["n"] // self._cols
            return {
                "mac": a["m"] * a["k"] * a["n"],
                "read:a": folds * a["m"],
                "read:b": folds * self._rows,
                "write:c": folds * a["m"],
                "read:c_in": (folds - tiles_n + tiles_n * a["accumulate"]) * a["m"],
            }
        return {
            "mac": a["m"] * a["k"] * a["n"],
            "read:a": folds * a["k"],
            "read:b": folds * a["k"],
            "write:c": folds * self._rows,
            "read:c_in": folds * self._rows * a["accumulate"],
        }

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Element ranges: ``a`` ``k * m`` from ``a_addr``, ``b`` ``k * n``, ``c`` ``m * n``,
        ``c_in`` ``m * n`` when accumulating (else the empty range at ``c_in_addr``)."""
        return self._footprint(self._check(args))

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """``c = A @ b (+ c_in)`` on the raw words, wrapped to ``acc_width`` bits; ``A`` is
        ``a`` transposed (OS) or ``a`` as stored (WS)."""
        a = self._check(args)
        m, k, n = a["m"], a["k"], a["n"]

        def signed(words: np.ndarray, width: int) -> np.ndarray:
            words = np.asarray(words, dtype=np.int64) & ((1 << width) - 1)
            return words - ((words >> (width - 1)) << width)

        def window(name: str, start: int, size: int) -> np.ndarray:
            words = np.asarray(buffers[name]).ravel()
            if start + size > len(words):
                raise ValueError(f"unit kind {_KIND!r}: buffer of operand {name!r} holds "
                                 f"{len(words)} words; the invocation reads up to "
                                 f"{start + size}")
            return words[start:start + size]

        iw, aw = self._input_width, self._acc_width
        words_a = signed(window("a", a["a_addr"], k * m), iw)
        at = words_a.reshape(m, k).T if self._dataflow == "ws" else words_a.reshape(k, m)
        b = signed(window("b", a["b_addr"], k * n), iw).reshape(k, n)
        # int64 holds every partial sum when 2 * input_width + log2(k) stays below 63;
        # otherwise Python ints (the wrap at the end equals the adders' wrap at each step).
        exact = 2 * iw + k.bit_length() + 1 < 63
        product = (at.T @ b) if exact else (at.T.astype(object) @ b.astype(object))
        if a["accumulate"]:
            d = signed(window("c_in", a["c_in_addr"], m * n), aw).reshape(m, n)
            product = product + (d if exact and aw < 62 else d.astype(object))
        mask = (1 << aw) - 1
        flat = np.asarray(product).ravel()
        out = np.array([int(v) & mask for v in flat], dtype=np.int64) if flat.dtype == object \
            else flat & mask
        target = buffers["c"]
        if a["c_addr"] + m * n > len(target):
            raise ValueError(f"unit kind {_KIND!r}: buffer of operand 'c' holds "
                             f"{len(target)} words; the invocation writes up to "
                             f"{a['c_addr'] + m * n}")
        target[a["c_addr"]:a["c_addr"] + m * n] = out

    # --- the RTL -------------------------------------------------------------------------

    def _begin(self, dataflow: str) -> tuple[Module, SystolicArray, Callable[[str], Value],
                                            Callable[..., Signal]]:
        """The module, its array, and the argument and register helpers both schedules use."""
        m = Module()
        array = m.submodules.array = SystolicArray(
            rows=self._rows, cols=self._cols, dataflow=dataflow,
            input_width=self._input_width, acc_width=self._acc_width, signed=True)

        def arg(name: str) -> Value:
            return getattr(self, f"arg_{name}")

        # Counters and row addresses get a spare bit: a count can equal 2 ** addr_width.
        wide = max(self._addr_width, ARG_WIDTH) + 1

        def reg(name: str, width: int = wide) -> Signal:
            return Signal(width, name=name)

        return m, array, arg, reg

    def elaborate(self, platform) -> Module:
        if self._dataflow == "ws":
            return self._elaborate_ws()
        m, array, arg, reg = self._begin("os")
        rows, cols = self._rows, self._cols
        iw, aw = self._input_width, self._acc_width

        # Latched with `start`.
        # The period counter reaches P - 1 = k + R + C - 3 (k < 2 ** 16), or R + 1 at the end.
        t_width = ((1 << ARG_WIDTH) + rows + cols).bit_length()
        k_q, last_t = reg("k_q", ARG_WIDTH), reg("last_t", t_width)  # last_t = P - 1
        mr_q, nc_q, rnc_q = reg("mr_q"), reg("nc_q"), reg("rnc_q")
        acc_q = reg("acc_q", 1)
        # Fold iteration: (mt, nt) and each operand's row address for the current tile.
        mt, nt = reg("mt"), reg("nt")
        a_tile, b_tile, b_base = reg("a_tile"), reg("b_tile"), reg("b_base")
        c_mrow, c_tile, c_prev = reg("c_mrow"), reg("c_tile"), reg("c_prev")
        d_mrow, d_tile, d_prev = reg("d_mrow"), reg("d_tile"), reg("d_prev")
        a_ptr, b_ptr, c_ptr, d_ptr = reg("a_ptr"), reg("b_ptr"), reg("c_ptr"), reg("d_ptr")
        t = reg("t", t_width)
        running, tail, has_prev = reg("running", 1), reg("tail", 1), reg("has_prev", 1)

        done = Signal()
        m.d.comb += [
            done.eq(running & tail & (t == rows + 1)),
            self.done.eq(done),
            self.busy.eq(running),
        ]

        with m.If(~running):
            with m.If(self.start):
                c_base = _div_const(arg("c_addr"), cols)
                d_base = _div_const(arg("c_in_addr"), cols)
                nc = _div_const(arg("n"), cols)
                m.d.sync += [
                    running.eq(1), tail.eq(0), has_prev.eq(0), t.eq(0),
                    k_q.eq(arg("k")),
                    last_t.eq(arg("k") + (rows + cols - 2) - 1),
                    mr_q.eq(_div_const(arg("m"), rows)),
                    nc_q.eq(nc),
                    rnc_q.eq(nc * rows),
                    acc_q.eq(arg("accumulate")[0]),
                    mt.eq(0), nt.eq(0),
                    a_tile.eq(_div_const(arg("a_addr"), rows)),
                    b_tile.eq(_div_const(arg("b_addr"), cols)),
                    b_base.eq(_div_const(arg("b_addr"), cols)),
                    c_mrow.eq(c_base), c_tile.eq(c_base),
                    d_mrow.eq(d_base), d_tile.eq(d_base),
                ]
        with m.Else():
            m.d.sync += t.eq(t + 1)
            with m.If(done):
                m.d.sync += running.eq(0)
            with m.Elif(~tail & (t == last_t)):
                # End of a fold's period: the tile just fed drains in the next period.
                m.d.sync += [t.eq(0), has_prev.eq(1), c_prev.eq(c_tile), d_prev.eq(d_tile)]
                with m.If(nt == nc_q - 1):
                    with m.If(mt == mr_q - 1):
                        m.d.sync += tail.eq(1)
                    m.d.sync += [
                        mt.eq(mt + 1), nt.eq(0),
                        a_tile.eq(a_tile + 1), b_tile.eq(b_base),
                        c_mrow.eq(c_mrow + rnc_q), c_tile.eq(c_mrow + rnc_q),
                        d_mrow.eq(d_mrow + rnc_q), d_tile.eq(d_mrow + rnc_q),
                    ]
                with m.Else():
                    m.d.sync += [nt.eq(nt + 1), b_tile.eq(b_tile + 1),
                                 c_tile.eq(c_tile + 1), d_tile.eq(d_tile + 1)]

        # Feed: rows k = 0..K-1 of a (stride M / R rows) and b (stride N / C) in the first K
        # cycles of the period; the array sees them one cycle later.
        issue = running & ~tail & (t < k_q)
        a_addr = Mux(t == 0, a_tile, a_ptr)
        b_addr = Mux(t == 0, b_tile, b_ptr)
        m.d.comb += [self.a.addr.eq(a_addr), self.a.en.eq(issue),
                     self.b.addr.eq(b_addr), self.b.en.eq(issue)]
        with m.If(issue):
            m.d.sync += [a_ptr.eq(a_addr + mr_q), b_ptr.eq(b_addr + nc_q)]
        valid_d, first_d, last_d = Signal(), Signal(), Signal()
        m.d.sync += [valid_d.eq(issue), first_d.eq(issue & (t == 0)),
                     last_d.eq(issue & (t == k_q - 1))]
        m.d.comb += [array.valid.eq(valid_d), array.first.eq(first_d),
                     array.last.eq(last_d)]
        for i in range(rows):
            m.d.comb += array.a[i].eq(self.a.data.word_select(i, iw))
        for j in range(cols):
            m.d.comb += array.b[j].eq(self.b.data.word_select(j, iw))

        # Drain: row r of the finished tile is on the array's `c` in cycle r + 1 of the
        # period after the tile's own (r + 1 may pass that period when it is short). Its
        # address, and the c_in row added to it, are looked up one cycle ahead, in cycles
        # 0..R-1 of that period (R <= P, so this never spans two periods).
        look = running & has_prev & (t < rows)
        c_look = Mux(t == 0, c_prev, c_ptr)
        d_look = Mux(t == 0, d_prev, d_ptr)
        c_waddr = reg("c_waddr")
        with m.If(look):
            m.d.sync += [c_ptr.eq(c_look + nc_q), d_ptr.eq(d_look + nc_q), c_waddr.eq(c_look)]
        m.d.comb += [self.c_in.addr.eq(d_look), self.c_in.en.eq(look & acc_q)]
        lanes = []
        for j in range(cols):
            old = self.c_in.data.word_select(j, aw)
            lanes.append(Mux(acc_q, array.c[j] + old, array.c[j])[:aw])
        m.d.comb += [self.c.addr.eq(c_waddr), self.c.en.eq(array.c_valid),
                     self.c.data.eq(Cat(*lanes))]
        return m

    def _elaborate_ws(self) -> Module:
        """The weight-stationary schedule of the module docstring."""
        m, array, arg, reg = self._begin("ws")
        rows, cols = self._rows, self._cols
        iw, aw = self._input_width, self._acc_width

        # The period counter reaches P - 1 = 2R + C + M - 3 (M < 2 ** 32).
        t_width = ((1 << ARG_WIDTH) + 2 * rows + cols).bit_length()
        t, last_t, m_q = reg("t", t_width), reg("last_t", t_width), reg("m_q", ARG_WIDTH)
        kr_q, nc_q, rnc_q = reg("kr_q"), reg("nc_q"), reg("rnc_q")
        acc_q = reg("acc_q", 1)
        kt, nt = reg("kt"), reg("nt")
        a_base, a_fold, a_ptr = reg("a_base"), reg("a_fold"), reg("a_ptr")
        b_nbase, b_fold, b_ptr = reg("b_nbase"), reg("b_fold"), reg("b_ptr")
        c_tile, d_tile = reg("c_tile"), reg("d_tile")
        running, tail = reg("running", 1), reg("tail", 1)

        done = Signal()
        m.d.comb += [done.eq(running & tail & (t == 2)), self.done.eq(done),
                     self.busy.eq(running)]

        with m.If(~running):
            with m.If(self.start):
                nc = _div_const(arg("n"), cols)
                b0 = _div_const(arg("b_addr"), cols) + (rows - 1) * nc
                m.d.sync += [
                    running.eq(1), tail.eq(0), t.eq(0),
                    last_t.eq(arg("m") + (2 * rows + cols - 3)),
                    m_q.eq(arg("m")),
                    kr_q.eq(_div_const(arg("k"), rows)),
                    nc_q.eq(nc), rnc_q.eq(nc * rows),
                    acc_q.eq(arg("accumulate")[0]),
                    kt.eq(0), nt.eq(0),
                    a_base.eq(_div_const(arg("a_addr"), rows)),
                    a_fold.eq(_div_const(arg("a_addr"), rows)),
                    b_nbase.eq(b0), b_fold.eq(b0),
                    c_tile.eq(_div_const(arg("c_addr"), cols)),
                    d_tile.eq(_div_const(arg("c_in_addr"), cols)),
                ]
        with m.Else():
            m.d.sync += t.eq(t + 1)
            with m.If(done):
                m.d.sync += running.eq(0)
            with m.Elif(~tail & (t == last_t)):
                m.d.sync += t.eq(0)
                with m.If(kt == kr_q - 1):
                    with m.If(nt == nc_q - 1):
                        m.d.sync += tail.eq(1)
                    m.d.sync += [kt.eq(0), nt.eq(nt + 1), a_fold.eq(a_base),
                                 b_nbase.eq(b_nbase + 1), b_fold.eq(b_nbase + 1),
                                 c_tile.eq(c_tile + 1), d_tile.eq(d_tile + 1)]
                with m.Else():
                    m.d.sync += [kt.eq(kt + 1), a_fold.eq(a_fold + 1),
                                 b_fold.eq(b_fold + rnc_q)]

        # Weights: rows k0 + R - 1 down to k0 in cycles 0..R-1 (the row fed last ends in
        # array row 0); the array shifts them in one cycle later (synchronous reads).
        feed = running & ~tail
        issue_b = feed & (t < rows)
        b_addr = Mux(t == 0, b_fold, b_ptr)
        m.d.comb += [self.b.addr.eq(b_addr), self.b.en.eq(issue_b)]
        with m.If(issue_b):
            m.d.sync += b_ptr.eq(b_addr - nc_q)
        # Activations: A[m, k0:k0 + R] for m = 0..M-1 in cycles R..R+M-1 (stride K / R rows).
        issue_a = feed & (t >= rows) & (t < m_q + rows)
        a_addr = Mux(t == rows, a_fold, a_ptr)
        m.d.comb += [self.a.addr.eq(a_addr), self.a.en.eq(issue_a)]
        with m.If(issue_a):
            m.d.sync += a_ptr.eq(a_addr + kr_q)
        w_load_d, valid_d = Signal(), Signal()
        m.d.sync += [w_load_d.eq(issue_b), valid_d.eq(issue_a)]
        m.d.comb += [array.w_load.eq(w_load_d), array.valid.eq(valid_d)]
        for i in range(rows):
            m.d.comb += array.a[i].eq(self.a.data.word_select(i, iw))
        for j in range(cols):
            m.d.comb += array.w[j].eq(self.b.data.word_select(j, iw))

        # The fold's drain, latched when its first row of A is read: C's rows, and whether
        # (and where) each adds an earlier value -- D for the first K tile if accumulating,
        # the partial sums already in c for the others.
        first_row = issue_a & (t == rows)
        pend_c, pend_old, pend_use = reg("pend_c"), reg("pend_old"), reg("pend_use", 1)
        with m.If(first_row):
            m.d.sync += [pend_c.eq(c_tile), pend_old.eq(Mux(kt == 0, d_tile, c_tile)),
                         pend_use.eq((kt != 0) | acc_q)]
        # Row 0's old value is read R + C - 1 cycles after its A row (module docstring).
        trigger = _chain(m, first_row, rows + cols - 1, "drain_token")
        drain_on, drain_n = reg("drain_on", 1), reg("drain_n", ARG_WIDTH)
        c_ptr, o_ptr, use_q = reg("c_ptr"), reg("o_ptr"), reg("use_q", 1)
        row_on = trigger | drain_on
        row_c = Mux(trigger, pend_c, c_ptr)
        row_o = Mux(trigger, pend_old, o_ptr)
        row_use = Mux(trigger, pend_use, use_q)
        m.d.comb += [self.c_in.addr.eq(row_o), self.c_in.en.eq(row_on & row_use)]
        wr_on, wr_addr, wr_use = reg("wr_on", 1), reg("wr_addr"), reg("wr_use", 1)
        m.d.sync += wr_on.eq(row_on)
        with m.If(row_on):
            m.d.sync += [c_ptr.eq(row_c + nc_q), o_ptr.eq(row_o + nc_q), use_q.eq(row_use),
                         wr_addr.eq(row_c), wr_use.eq(row_use)]
        with m.If(trigger):
            m.d.sync += [drain_on.eq(m_q > 1), drain_n.eq(1)]
        with m.Elif(drain_on):
            m.d.sync += drain_n.eq(drain_n + 1)
            with m.If(drain_n == m_q - 1):
                m.d.sync += drain_on.eq(0)
        # Column j's partial sum leaves j cycles after column 0's: delay it C - 1 - j.
        lanes = []
        for j in range(cols):
            psum = _chain(m, array.psum[j], cols - 1 - j, f"deskew_c{j}")
            old = self.c_in.data.word_select(j, aw)
            lanes.append(Mux(wr_use, psum + old, psum)[:aw])
        m.d.comb += [self.c.addr.eq(wr_addr), self.c.en.eq(wr_on), self.c.data.eq(Cat(*lanes))]
        return m


def _chain(m: Module, value: Value, count: int, name: str) -> Value:
    """``value`` delayed ``count`` cycles through registers (``value`` itself for 0)."""
    out = value
    for d in range(count):
        r = Signal(value.shape(), name=f"{name}_d{d + 1}")
        m.d.sync += r.eq(out)
        out = r
    return out
