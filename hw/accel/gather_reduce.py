"""RecSSD's near-data gather-reduce unit: SparseLengthsSum of one flash page into fp32 results.

RecSSD (Wilkening et al., ASPLOS 2021) runs SparseLengthsSum in the SSD's FTL: for each flash
page read back, every embedding row of that page that a lookup wants is added into its
result, ``result[result_idx] += row`` (fp32, results zeroed first; the firmware's
``trans_buffer.c``). :class:`GatherReduce` does that in hardware, under the unit contract of
:mod:`archsim.hw.accel.interface`, with ``lanes`` pipelined fp32 adders
(:class:`archsim.hw.accel.fp32_add.FloatAdder`).

Operands (all 32-bit words; ``page``, ``acc_in`` and ``acc`` move a row of ``lanes`` words
per access, so they bind to buffers of ``lanes`` banks)

=========== ===== ===========================================================================
operand     dir   holds
=========== ===== ===========================================================================
``page``    read  the flash page's words (``page_words``: 16 KiB / 4 B = 4096 by default)
``pairs``   read  one word per lookup: ``row_in_page`` in bits 0..15, ``result_idx`` in
                  bits 16..31, in the firmware's order (sorted by embedding id)
``acc_in``  read  the result memory (``max_results x dim`` fp32), bound to the same buffer as
``acc``     write ``acc``: the accumulators read and written back
=========== ===== ===========================================================================

Arguments: ``op`` (:data:`GR_OPS`: ``accumulate`` 0, ``clear`` 1) and ``n`` (pairs to
accumulate, or result rows to zero from ``acc_addr``); ``page_addr``, ``acc_addr`` and
``acc_in_addr`` (equal to ``acc_addr``) are multiples of ``lanes``.

Schedule and the read-after-write hazard
----------------------------------------
A pair takes ``B = dim / lanes`` beats; beat ``j`` reads a row of the page and of the result
in cycle ``r``, the adders take the data in ``r + 1`` and their sums are written in
``r + 1 + LATENCY``, readable from ``r + 2 + LATENCY``. When two consecutive pairs name the
same result, the second must not read a result row before the first has written it. The unit
stalls *statically*: pairs start every ``I = max(B, LATENCY + 2)`` cycles, whatever their
result indices. This costs nothing when ``B >= LATENCY + 2`` (RecSSD's dim 32 on 4 lanes:
``B = 8``) and makes the time a function of the pair count only -- which is all the SSD model
(``reduce_s(rows, dim)``) knows, so the model is exact without the data. So

* ``accumulate`` of ``n >= 1`` pairs: ``(n - 1) * I + B + LATENCY + 3`` cycles (one to read
  the first pair, the beats, the read and adder latency, the write, ``done``);
* ``clear`` of ``n >= 1`` rows: ``n * B + 1``; either with ``n = 0``: 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from amaranth import Cat, Const, Module, Mux, Signal

from ..checks import silence_unused
from .fp32_add import FloatAdder, float_add_bits
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["GatherReduce", "GR_OPS", "gather_reduce_cycles", "ndp_reduce_s", "pack_pair",
           "FP32_ADD_LATENCY"]

#: Opcodes of the ``op`` argument.
GR_OPS: Mapping[str, int] = {"accumulate": 0, "clear": 1}

#: Cycles of the fp32 adder (:attr:`FloatAdder.LATENCY`).
FP32_ADD_LATENCY = FloatAdder.LATENCY

_FIELD_BITS = 16


def pack_pair(result_idx: int, row_in_page: int) -> int:
    """The ``pairs`` word of one lookup: ``row_in_page | result_idx << 16``."""
    for name, value in (("result_idx", result_idx), ("row_in_page", row_in_page)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                or not 0 <= int(value) < 1 << _FIELD_BITS:
            raise ValueError(f"{name} must be an int in 0..{(1 << _FIELD_BITS) - 1}, "
                             f"not {value!r}")
    return int(row_in_page) | int(result_idx) << _FIELD_BITS


def _check_shape(dim: object, lanes: object) -> tuple[int, int]:
    for name, value in (("dim", dim), ("lanes", lanes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, not {value!r}")
    assert isinstance(dim, int) and isinstance(lanes, int)
    if lanes & (lanes - 1):
        raise ValueError(f"lanes must be a power of two, not {lanes}")
    if dim % lanes:
        raise ValueError(f"dim ({dim}) must be a multiple of lanes ({lanes})")
    return dim, lanes


def gather_reduce_cycles(*, op: str, n: int, dim: int, lanes: int) -> int:
    """Cycles of one invocation (the module docstring's formulas): the one cycle formula the
    unit's model view and :func:`ndp_reduce_s` use."""
    dim, lanes = _check_shape(dim, lanes)
    if op not in GR_OPS:
        raise ValueError(f"op must be one of {list(GR_OPS)}, not {op!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative int, not {n!r}")
    if n == 0:
        return 1
    beats = dim // lanes
    if op == "clear":
        return n * beats + 1
    interval = max(beats, FP32_ADD_LATENCY + 2)
    return (n - 1) * interval + beats + FP32_ADD_LATENCY + 3


def ndp_reduce_s(*, dim: int, lanes: int, clock_hz: float) -> Callable[[int, int], float]:
    """A ``reduce_s(rows, dim)`` for :func:`archsim.sim.recsys.recssd.recssd_sls`: seconds
    for one page's ``accumulate`` of ``rows`` rows on the unit at ``clock_hz``
    (:func:`gather_reduce_cycles`; the controller's issue cycles are not counted), and 0
    for ``rows = 0`` (no invocation: the FTL issues none for a request without cache hits).

    The returned callable raises ``ValueError`` for a ``dim`` other than the unit's.
    """
    dim, lanes = _check_shape(dim, lanes)
    if isinstance(clock_hz, bool) or not isinstance(clock_hz, (int, float)) or clock_hz <= 0:
        raise ValueError(f"clock_hz must be a positive number, not {clock_hz!r}")
    unit_dim, f = dim, float(clock_hz)

    def reduce_s(rows: int, dim: int) -> float:
        if dim != unit_dim:
            raise ValueError(f"this gather-reduce unit has dim {unit_dim}, not {dim}")
        if rows == 0:
            return 0.0
        return gather_reduce_cycles(op="accumulate", n=int(rows), dim=dim, lanes=lanes) / f

    return reduce_s


class GatherReduce(Unit):
    """The gather-reduce unit (module docstring).

    Parameters
    ----------
    addr_width : int
        Element-address width of the buffers it binds to.
    dim : int
        Embedding dimension (fp32 elements per row).
    lanes : int
        fp32 adders in parallel (a power of two dividing ``dim``).
    max_results : int
        Result rows (RecSSD's per-request limit: 128, RecSSD-RecInfra ``dlrm_s_caffe2.py``).
    page_words : int
        Words per flash page (16 KiB / 4 B = 4096, RecSSD-OpenSSDFirmware ``init_ftl.h``).
    """

    #: Energy per action, 45 nm.
    ENERGY_PER_ACTION_J: Mapping[str, float] = {"fadd": 0.9e-12}
    ENERGY_SOURCES: Mapping[str, str] = {
        "fadd": "M. Horowitz, ISSCC 2014, 45 nm: 32-bit float add 0.9 pJ"}

    def __init__(self, *, addr_width: int, dim: int, lanes: int = 1, max_results: int = 128,
                 page_words: int = 4096) -> None:
        try:
            dim, lanes = _check_shape(dim, lanes)
            for name, value, hi in (("addr_width", addr_width, ARG_WIDTH),
                                    ("max_results", max_results, 1 << _FIELD_BITS),
                                    ("page_words", page_words, 1 << ARG_WIDTH)):
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
                    raise ValueError(f"{name} must be an int in 1..{hi}, not {value!r}")
            if page_words % dim:
                raise ValueError(f"page_words ({page_words}) must be a multiple of dim ({dim})")
            if page_words // dim > 1 << _FIELD_BITS:
                raise ValueError(f"page_words / dim must be at most {1 << _FIELD_BITS}")
        except ValueError:
            silence_unused(self)
            raise
        self.addr_width, self.dim, self.lanes = addr_width, dim, lanes
        self.max_results, self.page_words = max_results, page_words
        self.contract = UnitContract(
            kind="gather_reduce", args=("op", "n"),
            operands=(Operand("page", "read", 32, lanes), Operand("pairs", "read", 32),
                      Operand("acc_in", "read", 32, lanes), Operand("acc", "write", 32, lanes)))
        super().__init__(self.contract.members(dict.fromkeys(
            ("page", "pairs", "acc_in", "acc"), addr_width)))

    @property
    def beats(self) -> int:
        """Accesses per row: ``dim / lanes``."""
        return self.dim // self.lanes

    @property
    def interval(self) -> int:
        """Cycles between the starts of consecutive pairs: ``max(beats, LATENCY + 2)``."""
        return max(self.beats, FP32_ADD_LATENCY + 2)

    # -- the model view ------------------------------------------------------------------
    def _check(self, args: Mapping[str, int]) -> tuple[dict[str, int], str]:
        checked = self.contract.check_args(args)
        names = {v: k for k, v in GR_OPS.items()}
        if checked["op"] not in names:
            raise ValueError(f"unit kind 'gather_reduce': argument 'op' must be one of "
                             f"{dict(GR_OPS)}, not {checked['op']}")
        op = names[checked["op"]]
        for name in ("page_addr", "acc_addr", "acc_in_addr"):
            if checked[name] % self.lanes:
                raise ValueError(f"unit kind 'gather_reduce': argument {name!r} must be a "
                                 f"multiple of lanes ({self.lanes}), not {checked[name]}")
        if checked["acc_in_addr"] != checked["acc_addr"]:
            raise ValueError("unit kind 'gather_reduce': acc_in_addr must equal acc_addr "
                             f"({checked['acc_addr']}), not {checked['acc_in_addr']}")
        limit = self.max_results if op == "clear" else 1 << _FIELD_BITS
        if checked["n"] > limit:
            raise ValueError(f"unit kind 'gather_reduce': argument 'n' must be at most "
                             f"{limit} for {op}, not {checked['n']}")
        return checked, op

    def cycles(self, args: Mapping[str, int]) -> int:
        """:func:`gather_reduce_cycles` (exact, whatever the pairs hold)."""
        checked, op = self._check(args)
        return gather_reduce_cycles(op=op, n=checked["n"], dim=self.dim, lanes=self.lanes)

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``accumulate``: ``n * dim`` ``"fadd"``, ``n`` pair reads, ``n * beats`` page and
        result reads and result writes; ``clear``: ``n * beats`` result writes."""
        checked, op = self._check(args)
        n, rows = checked["n"], checked["n"] * self.beats
        if op == "clear":
            return {"fadd": 0, "read:page": 0, "read:pairs": 0, "read:acc_in": 0,
                    "write:acc": rows}
        return {"fadd": n * self.dim, "read:page": rows, "read:pairs": n,
                "read:acc_in": rows, "write:acc": rows}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """``accumulate``: the whole page, ``n`` pair words, all ``max_results`` result rows
        (the pairs choose which); ``clear``: ``n`` result rows."""
        checked, op = self._check(args)
        acc0, dim = checked["acc_addr"], self.dim
        if op == "clear":
            rows = (acc0, acc0 + checked["n"] * dim)
            return {"page": (0, 0), "pairs": (0, 0), "acc_in": (acc0, acc0), "acc": rows}
        rows = (acc0, acc0 + self.max_results * dim)
        p0, q0 = checked["page_addr"], checked["pairs_addr"]
        return {"page": (p0, p0 + self.page_words), "pairs": (q0, q0 + checked["n"]),
                "acc_in": rows, "acc": rows}

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Zero the rows, or add each pair's page row into its result row element by element
        with :func:`float_add_bits`, pairs in order.

        Raises
        ------
        ValueError
            A pair whose ``result_idx`` is not below ``max_results`` or whose
            ``row_in_page`` is not below ``page_words / dim``.
        """
        checked, op = self._check(args)
        acc, dim, n = buffers["acc"], self.dim, checked["n"]
        acc0 = checked["acc_addr"]
        if op == "clear":
            acc[acc0:acc0 + n * dim] = 0
            return
        page, pairs = buffers["page"], buffers["pairs"]
        p0, q0 = checked["page_addr"], checked["pairs_addr"]
        for k in range(n):
            word = int(pairs[q0 + k])
            row, res = word & 0xFFFF, word >> _FIELD_BITS
            if res >= self.max_results or row >= self.page_words // dim:
                raise ValueError(f"unit kind 'gather_reduce': pair {k} (word {word:#x}) has "
                                 f"result_idx {res} (< {self.max_results} allowed) and "
                                 f"row_in_page {row} (< {self.page_words // dim} allowed)")
            src, dst = p0 + row * dim, acc0 + res * dim
            for e in range(dim):
                acc[dst + e] = float_add_bits(int(page[src + e]), int(acc[dst + e]))

    # -- the RTL view --------------------------------------------------------------------
    def elaborate(self, platform: object) -> Module:
        """Fetch a pair, issue its ``beats`` row reads every :attr:`interval` cycles, add in
        ``lanes`` adders, write the sums back ``LATENCY + 1`` cycles after each read."""
        m = Module()
        aw, lanes, beats, interval = self.addr_width, self.lanes, self.beats, self.interval
        log_lanes = lanes.bit_length() - 1
        lat = FP32_ADD_LATENCY
        op, n = Signal(), Signal(ARG_WIDTH)
        page_base, acc_base, pair_ptr = Signal(aw), Signal(aw), Signal(aw)
        fetch, run, clr, zero_done, busy = (Signal(name=x) for x in
                                            ("fetch", "run", "clr", "zero_done", "busy_r"))
        k = Signal(ARG_WIDTH)
        j = Signal(range(interval))
        cnt = Signal(2 * ARG_WIDTH)
        z_ptr = Signal(aw)
        finished = Signal()

        with m.If(self.start & ~self.busy):
            m.d.sync += [op.eq(self.arg_op[0]), n.eq(self.arg_n),
                         page_base.eq(self.arg_page_addr >> log_lanes),
                         acc_base.eq(self.arg_acc_addr >> log_lanes),
                         pair_ptr.eq(self.arg_pairs_addr), z_ptr.eq(self.arg_acc_addr >> log_lanes),
                         k.eq(0), j.eq(0), cnt.eq(0)]
            with m.If(self.arg_n == 0):
                m.d.sync += zero_done.eq(1)
            with m.Elif(self.arg_op == GR_OPS["clear"]):
                m.d.sync += [clr.eq(1), busy.eq(1)]
            with m.Else():
                m.d.sync += [fetch.eq(1), busy.eq(1)]
        with m.If(zero_done):
            m.d.sync += zero_done.eq(0)
        m.d.comb += [self.done.eq(zero_done | finished), self.busy.eq(busy | zero_done)]
        m.d.sync += finished.eq(0)

        # pair fetch: first in the cycle after start, then in each pair's last slot
        next_pair = run & (j == interval - 1) & (k != n - 1)
        m.d.comb += [self.pairs.addr.eq(pair_ptr), self.pairs.en.eq(fetch | next_pair)]
        with m.If(fetch | next_pair):
            m.d.sync += pair_ptr.eq(pair_ptr + 1)
        with m.If(fetch):
            m.d.sync += [fetch.eq(0), run.eq(1)]
        with m.If(run):
            with m.If(j == interval - 1):
                m.d.sync += j.eq(0)
                with m.If(k == n - 1):
                    m.d.sync += run.eq(0)
                with m.Else():
                    m.d.sync += k.eq(k + 1)
            with m.Else():
                m.d.sync += j.eq(j + 1)

        row = self.pairs.data[:_FIELD_BITS]
        res = self.pairs.data[_FIELD_BITS:]
        issue = Signal()
        m.d.comb += issue.eq(run & (j < beats))
        read_page = Signal(aw)
        read_acc = Signal(aw)
        m.d.comb += [read_page.eq(page_base + row * beats + j),
                     read_acc.eq(acc_base + res * beats + j),
                     self.page.addr.eq(read_page), self.page.en.eq(issue),
                     self.acc_in.addr.eq(read_acc), self.acc_in.en.eq(issue)]
        last = issue & (k == n - 1) & (j == beats - 1)
        # delay line: read (1 cycle) + adders (lat cycles)
        valid, lastd, addr = issue, last, read_acc
        for stage in range(1 + lat):
            v2, l2, a2 = Signal(name=f"v{stage}"), Signal(name=f"l{stage}"), \
                Signal(aw, name=f"a{stage}")
            m.d.sync += [v2.eq(valid), l2.eq(lastd), a2.eq(addr)]
            valid, lastd, addr = v2, l2, a2
        sums = []
        for lane in range(lanes):
            adder = FloatAdder()
            m.submodules[f"fadd{lane}"] = adder
            m.d.comb += [adder.a.eq(self.page.data.word_select(lane, 32)),
                         adder.b.eq(self.acc_in.data.word_select(lane, 32))]
            sums.append(adder.z)
        with m.If(valid & lastd):
            m.d.sync += [finished.eq(1), busy.eq(0)]

        # clear: one zero row per cycle
        with m.If(clr):
            m.d.sync += [cnt.eq(cnt + 1), z_ptr.eq(z_ptr + 1)]
            with m.If(cnt == n * beats - 1):
                m.d.sync += [clr.eq(0), finished.eq(1), busy.eq(0)]
        m.d.comb += [self.acc.en.eq(clr | valid),
                     self.acc.addr.eq(Mux(clr, z_ptr, addr)),
                     self.acc.data.eq(Mux(clr, Const(0, 32 * lanes), Cat(*sums)))]
        return m
