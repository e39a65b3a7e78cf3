"""EdgeBERT's sparse weight format: a bitmask per row and the nonzero codes packed.

A pruned matrix of 8-bit codes (AdaptivFloat weights) is stored as, per ``lanes``-element row
``r``, a ``lanes``-bit mask in a mask memory (bit ``i`` set: lane ``i`` is nonzero; EdgeBERT's
is 4096 x 16 b, ``hw/cmod/include/Spec.h`` of harvard-acc/EdgeBERT) and the nonzero codes of
all rows packed one after another, row by row and lane by lane, in a buffer of ``lanes``
banks, padded with zeros to a whole buffer row (:func:`bitmask_encode`). A code is "zero" when
its word is 0: the format is bit-exact, so the AdaptivFloat negative zero (``0x80``) is kept
as a nonzero code (encode its tensor with canonical zeros to drop it).

Deviation from the authors' layout (``hw/cmod/Encode/Encode.h``, ``Decode_N0.h``): there,
every lane compacts its own nonzeros into its own bank (one counter per bank), so a row's
elements stay in their lanes and the decoder only masks. Here the codes are packed
contiguously across lanes, which fills every buffer row whatever the per-lane imbalance, at
the price of the crossbar below that moves each code to its lane.

:class:`BitmaskDecode` (library kind ``"bitmask_decode"``) turns ``rows`` masks and the packed
codes back into dense rows, one dense row per cycle sustained whatever the sparsity: it holds
a window of at most ``2 * lanes - 1`` packed codes, takes ``popcount(mask)`` of them per row
(lane ``i`` of the dense row gets window element ``popcount(mask & (2**i - 1))``, a prefix
count and a crossbar), and reads the next packed row whenever fewer than ``lanes`` codes are
left, so the window never runs dry.

Timing, with ``start`` sampled in cycle ``s``: cycle ``s + 1`` reads mask 0 and packed row 0;
row ``r`` is decoded in cycle ``s + 2 + r`` (its mask and any packed row it needs arrive
then; mask ``r + 1`` is read and, if fewer than ``lanes`` codes remain and a row follows, the
next packed row) and written in ``s + 3 + r``; ``done`` is high the cycle after the last
write::

    cycles = rows + 3

:class:`BitmaskEncode` (library kind ``"bitmask_encode"``) is the reverse, one dense row per
cycle: it writes each row's mask, appends the row's nonzero codes to a window of fewer than
``lanes`` codes and writes a packed row whenever ``lanes`` have gathered; after the last row
it writes what is left, zero-padded (if anything is). Row ``r`` is read in cycle ``s + 1 + r``,
compacted in ``s + 2 + r``, its mask (and any full packed row) written in ``s + 3 + r``, the
last partial packed row in ``s + 3 + rows``::

    cycles = rows + 4

Energy per action (assumed, 45 nm, 0.9 V): ``"decode"``, one per row, the prefix counts as
``lanes`` 8-bit adds (M. Horowitz, ISSCC 2014: 0.03 pJ each) plus the crossbar and the
window's shifters as ``lanes**2`` 8-bit 2:1 selects, each taken as a tenth of that add (as
:mod:`archsim.hw.hls_ops` prices a select). Port accesses are priced by the buffers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from amaranth.hdl import Cat, Module, Mux, Signal

from ..checks import check_int, silence_unused
from ..hls_ops import op_cost
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["BitmaskDecode", "BitmaskEncode", "bitmask_encode", "bitmask_decode_reference",
           "bitmask_packed_reads", "CODE_WIDTH", "MAX_LANES", "UNIT_LANES",
           "decode_energy_j"]

_KIND = "bitmask_decode"
#: Bits per code (EdgeBERT's AdaptivFloat(8, 3) weights).
CODE_WIDTH = 8
#: Most lanes a mask word of the host functions may describe.
MAX_LANES = 32
#: Lanes the unit may have (powers of two: row addresses are element addresses shifted).
UNIT_LANES = (2, 4, 8, 16, 32)


def _check_lanes(lanes: object) -> int:
    return check_int("lanes", lanes, 1, MAX_LANES)


def bitmask_encode(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Encode a ``(rows, lanes)`` matrix of 8-bit codes as masks and packed nonzero codes.

    Parameters
    ----------
    dense : numpy.ndarray
        Integer codes in ``0..255``, shape ``(rows, lanes)``, ``lanes`` in ``1..32``.

    Returns
    -------
    masks : numpy.ndarray
        ``int64``, shape ``(rows,)``: bit ``i`` of ``masks[r]`` is set iff ``dense[r, i] != 0``.
    packed : numpy.ndarray
        ``int64``: the nonzero codes in row-major order, then zeros up to a multiple of
        ``lanes`` elements (length 0 when every code is zero).

    Raises
    ------
    ValueError
        If ``dense`` is not 2-D, has a lane count outside ``1..32``, or holds a value that is
        not an integer code in ``0..255``.
    """
    arr = np.asarray(dense)
    if arr.ndim != 2:
        raise ValueError(f"bitmask_encode: dense must be 2-D (rows, lanes), not shape "
                         f"{arr.shape}")
    lanes = arr.shape[1]
    if not 1 <= lanes <= MAX_LANES:
        raise ValueError(f"bitmask_encode: dense must have 1..{MAX_LANES} lanes (columns), "
                         f"not {lanes}")
    if arr.size and (not np.issubdtype(arr.dtype, np.integer)
                     or arr.min() < 0 or arr.max() >= 1 << CODE_WIDTH):
        raise ValueError(f"bitmask_encode: dense must hold integer codes in "
                         f"0..{(1 << CODE_WIDTH) - 1}")
    codes = arr.astype(np.int64)
    nonzero = codes != 0
    masks = (nonzero.astype(np.int64) << np.arange(lanes, dtype=np.int64)).sum(
        axis=1, dtype=np.int64)
    values = codes[nonzero]  # boolean indexing walks row-major: row by row, lane by lane
    packed = np.zeros(-(-len(values) // lanes) * lanes, dtype=np.int64)
    packed[:len(values)] = values
    return masks.reshape(codes.shape[0]), packed


def _mask_bits(masks: np.ndarray, lanes: int) -> np.ndarray:
    """``(rows, lanes)`` booleans of the masks (``ValueError`` for a bad mask)."""
    m = np.asarray(masks)
    if m.ndim != 1:
        raise ValueError(f"masks must be 1-D (one per row), not shape {m.shape}")
    if m.size and (not np.issubdtype(m.dtype, np.integer) or m.min() < 0
                   or m.max() >= 1 << lanes):
        raise ValueError(f"masks must be integers in 0..{(1 << lanes) - 1} ({lanes} lanes)")
    return ((m.astype(np.int64)[:, None] >> np.arange(lanes, dtype=np.int64)) & 1).astype(bool)


def bitmask_decode_reference(masks: np.ndarray, packed: np.ndarray, lanes: int) -> np.ndarray:
    """Decode masks and packed codes (as :func:`bitmask_encode` makes them) to dense rows.

    Parameters
    ----------
    masks : numpy.ndarray
        One ``lanes``-bit mask per row (integers in ``0..2**lanes - 1``).
    packed : numpy.ndarray
        The packed codes; at least as many as the masks' set bits (the rest are ignored).
    lanes : int
        Elements per row, ``1..32``.

    Returns
    -------
    numpy.ndarray
        ``int64``, shape ``(len(masks), lanes)``: zero where a mask bit is clear.

    Raises
    ------
    ValueError
        A bad mask or lane count, or fewer packed codes than the masks need.
    """
    _check_lanes(lanes)
    bits = _mask_bits(masks, lanes)
    need = int(bits.sum())
    values = np.asarray(packed).astype(np.int64).ravel()
    if len(values) < need:
        raise ValueError(f"bitmask_decode_reference: the masks select {need} codes; packed "
                         f"holds {len(values)}")
    dense = np.zeros(bits.shape, dtype=np.int64)
    dense[bits] = values[:need]
    return dense


def bitmask_packed_reads(masks: np.ndarray, lanes: int) -> int:
    """Packed rows :class:`BitmaskDecode` reads decoding ``masks`` (its policy, exactly).

    Row 0 is read before the first row is decoded; after decoding row ``r < rows - 1`` the
    next packed row is read when fewer than ``lanes`` codes remain in the window. The count
    lies between ``ceil(nnz / lanes)`` (at least 1) and ``rows``; :meth:`BitmaskDecode.actions`
    charges the bound ``rows``, since the model sees only the arguments.
    """
    _check_lanes(lanes)
    pops = _mask_bits(masks, lanes).sum(axis=1)
    reads, window = 1, lanes
    for r, p in enumerate(pops):
        window -= int(p)
        if r < len(pops) - 1 and window < lanes:
            reads, window = reads + 1, window + lanes
    return reads


def decode_energy_j(lanes: int) -> float:
    """The assumed energy of decoding one row at ``lanes`` lanes (module docstring), J."""
    add8 = op_cost("add", CODE_WIDTH).energy_j
    select8 = op_cost("select", CODE_WIDTH).energy_j
    return lanes * add8 + lanes * lanes * select8


class BitmaskDecode(Unit):
    """The bitmask decoder (see the module docstring for the format and the timing).

    Parameters
    ----------
    lanes : int
        Elements per row, one of :data:`UNIT_LANES`; the mask words are ``lanes`` bits.
    addr_width : int
        Address bits of every port (``mask``: element addresses; ``packed``, ``dst``: row
        addresses), ``1..32``.

    Raises
    ------
    TypeError, ValueError
        A parameter that is not an int in its allowed values (the message names it).

    Notes
    -----
    Operands: ``mask`` (read, ``lanes`` bits, 1 lane), ``packed`` (read, 8 b, ``lanes``
    lanes), ``dst`` (write, 8 b, ``lanes`` lanes). Arguments: ``mask_addr``, ``packed_addr``
    and ``dst_addr`` (element addresses; the last two multiples of ``lanes``), ``rows``
    (at least 1). Dense row ``r`` goes to element ``dst_addr + r * lanes``.
    """

    def __init__(self, *, lanes: int = 16, addr_width: int = 16) -> None:
        try:
            check_int("lanes", lanes, UNIT_LANES[0], UNIT_LANES[-1])
            if lanes not in UNIT_LANES:
                raise ValueError(f"lanes must be one of {UNIT_LANES}, not {lanes}")
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.lanes, self.addr_width = lanes, addr_width
        self.ENERGY_PER_ACTION_J = {"decode": decode_energy_j(lanes)}
        self.ENERGY_SOURCES = {
            "decode": f"assumed: {lanes} 8-bit adds (M. Horowitz, ISSCC 2014, 45 nm: 0.03 pJ "
                      f"each) for the prefix counts plus {lanes * lanes} 8-bit 2:1 selects for "
                      "the crossbar and window shifters, each a tenth of that add"}
        self.contract = UnitContract(
            kind=_KIND, args=("rows",),
            operands=(Operand("mask", "read", lanes), Operand("packed", "read", CODE_WIDTH, lanes),
                      Operand("dst", "write", CODE_WIDTH, lanes)))
        super().__init__(self.contract.members({"mask": addr_width, "packed": addr_width,
                                                "dst": addr_width}))

    # --- the model view ------------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        """Checked arguments (``ValueError`` naming the bad one)."""
        a = self.contract.check_args(args)
        lanes = self.lanes
        if a["rows"] < 1:
            raise ValueError(f"unit kind {_KIND!r}: argument 'rows' must be at least 1, "
                             f"not {a['rows']}")
        for name in ("packed_addr", "dst_addr"):
            if a[name] % lanes:
                raise ValueError(f"unit kind {_KIND!r}: argument {name!r} must be a multiple "
                                 f"of lanes ({lanes}), not {a[name]}")
        self.contract.check_reach(self._footprint(a), self.addr_width)
        return a

    def _footprint(self, a: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        dense = a["rows"] * self.lanes
        return {"mask": (a["mask_addr"], a["mask_addr"] + a["rows"]),
                "packed": (a["packed_addr"], a["packed_addr"] + dense),
                "dst": (a["dst_addr"], a["dst_addr"] + dense)}

    def cycles(self, args: Mapping[str, int]) -> int:
        """``rows + 3`` (see the module docstring), whatever the masks hold."""
        return self._check(args)["rows"] + 3

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``decode``, ``read:mask`` and ``write:dst``: ``rows`` each; ``read:packed``: the
        bound ``rows`` (a dense tile; :func:`bitmask_packed_reads` gives the exact count for
        given masks)."""
        rows = self._check(args)["rows"]
        return {"decode": rows, "read:mask": rows, "read:packed": rows, "write:dst": rows}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Element ranges: ``mask`` ``rows`` words, ``dst`` ``rows * lanes``; ``packed`` at
        most ``rows * lanes`` (the reads of a dense tile; sparser masks read fewer)."""
        return self._footprint(self._check(args))

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Decode ``rows`` masks and their packed codes (:func:`bitmask_decode_reference`)
        and write the dense rows to ``dst``."""
        a = self._check(args)
        rows, lanes = a["rows"], self.lanes

        def window(name: str, start: int, size: int) -> np.ndarray:
            words = np.asarray(buffers[name]).ravel()
            if start + size > len(words):
                raise ValueError(f"unit kind {_KIND!r}: buffer of operand {name!r} holds "
                                 f"{len(words)} words; the invocation reaches {start + size}")
            return words[start:start + size].astype(np.int64)

        masks = window("mask", a["mask_addr"], rows) & ((1 << lanes) - 1)
        need = int(_mask_bits(masks, lanes).sum())
        packed = window("packed", a["packed_addr"], need) & ((1 << CODE_WIDTH) - 1)
        dense = bitmask_decode_reference(masks, packed, lanes)
        window("dst", a["dst_addr"], rows * lanes)
        buffers["dst"][a["dst_addr"]:a["dst_addr"] + rows * lanes] = dense.ravel()

    # --- the RTL -------------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        m = Module()
        lanes, w, aw = self.lanes, CODE_WIDTH, self.addr_width
        log_lanes = lanes.bit_length() - 1
        span = 2 * lanes  # window elements (at most 2 * lanes - 1 are ever held)

        busy, prime, cons = Signal(), Signal(), Signal()
        rows, r = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        mask_ptr, packed_ptr, dst_ptr = Signal(aw), Signal(aw), Signal(aw)
        win = Signal(span * w)            # the codes left, element 0 first, zero beyond rem
        rem = Signal(range(span))         # how many
        arriving = Signal()               # the packed row read last cycle is on the port
        out_row, out_valid, out_last = Signal(lanes * w), Signal(), Signal()
        finished = Signal()

        with m.If(self.start & ~busy):
            m.d.sync += [busy.eq(1), prime.eq(1), rows.eq(self.arg_rows), r.eq(0),
                         mask_ptr.eq(self.arg_mask_addr),
                         packed_ptr.eq(self.arg_packed_addr >> log_lanes),
                         dst_ptr.eq(self.arg_dst_addr >> log_lanes),
                         win.eq(0), rem.eq(0), arriving.eq(0)]
        m.d.comb += [self.busy.eq(busy), self.done.eq(finished)]

        # The window as this cycle sees it: what is left, then the arriving row after it.
        # A row arrives only when fewer than `lanes` were left, so it always fits.
        incoming = Mux(arriving, self.packed.data, 0)
        combined = Signal(span * w)
        count = Signal(range(span))
        m.d.comb += [combined.eq(win | (incoming << (rem * w))[:span * w]),
                     count.eq(rem + Mux(arriving, lanes, 0))]

        # Lane i takes window element popcount(mask[0:i]) when its bit is set.
        bits = self.mask.data[:lanes]
        prefix = [Signal(range(i + 1), name=f"prefix{i}") for i in range(lanes + 1)]
        m.d.comb += prefix[0].eq(0)
        for i in range(lanes):
            m.d.comb += prefix[i + 1].eq(prefix[i] + bits[i])
        dense = [Mux(bits[i], combined[:(i + 1) * w].word_select(prefix[i], w), 0)
                 for i in range(lanes)]
        taken = prefix[lanes]
        left = Signal(range(span))
        m.d.comb += left.eq(count - taken)

        last = r == rows - 1
        m.d.comb += [self.mask.addr.eq(mask_ptr), self.packed.addr.eq(packed_ptr),
                     self.mask.en.eq(prime | (cons & ~last)),
                     self.packed.en.eq(prime | (cons & ~last & (left < lanes)))]
        with m.If(self.mask.en):
            m.d.sync += mask_ptr.eq(mask_ptr + 1)
        with m.If(self.packed.en):
            m.d.sync += packed_ptr.eq(packed_ptr + 1)
        m.d.sync += arriving.eq(self.packed.en)
        with m.If(prime):
            m.d.sync += [prime.eq(0), cons.eq(1)]
        with m.If(cons):
            m.d.sync += [win.eq(combined >> (taken * w)), rem.eq(left), r.eq(r + 1),
                         out_row.eq(Cat(*dense))]
            with m.If(last):
                m.d.sync += cons.eq(0)
        m.d.sync += [out_valid.eq(cons), out_last.eq(cons & last)]

        # Registered write; done follows the last write so the rows are readable then.
        m.d.comb += [self.dst.en.eq(out_valid), self.dst.addr.eq(dst_ptr),
                     self.dst.data.eq(out_row)]
        with m.If(out_valid):
            m.d.sync += dst_ptr.eq(dst_ptr + 1)
        m.d.sync += finished.eq(out_valid & out_last)
        with m.If(finished):
            m.d.sync += busy.eq(0)
        return m


class BitmaskEncode(Unit):
    """The bitmask encoder, the reverse of :class:`BitmaskDecode` (module docstring).

    Parameters
    ----------
    lanes : int
        Elements per row, one of :data:`UNIT_LANES`; the mask words are ``lanes`` bits.
    addr_width : int
        Address bits of every port (``mask``: element addresses; ``src``, ``packed``: row
        addresses), ``1..32``.

    Raises
    ------
    TypeError, ValueError
        A parameter that is not an int in its allowed values (the message names it).

    Notes
    -----
    Operands: ``src`` (read, 8 b, ``lanes`` lanes), ``mask`` (write, ``lanes`` bits, 1 lane),
    ``packed`` (write, 8 b, ``lanes`` lanes). Arguments: ``src_addr``, ``mask_addr`` and
    ``packed_addr`` (element addresses; ``src_addr`` and ``packed_addr`` multiples of
    ``lanes``), ``rows`` (at least 1). It writes ``ceil(nnz / lanes)`` packed rows, exactly
    :func:`bitmask_encode`'s ``packed``; the words after them are left alone.
    """

    def __init__(self, *, lanes: int = 16, addr_width: int = 16) -> None:
        try:
            check_int("lanes", lanes, UNIT_LANES[0], UNIT_LANES[-1])
            if lanes not in UNIT_LANES:
                raise ValueError(f"lanes must be one of {UNIT_LANES}, not {lanes}")
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.lanes, self.addr_width = lanes, addr_width
        self.ENERGY_PER_ACTION_J = {"encode": decode_energy_j(lanes)}
        self.ENERGY_SOURCES = {
            "encode": f"assumed: as bitmask_decode's row, {lanes} 8-bit adds (M. Horowitz, "
                      f"ISSCC 2014, 45 nm: 0.03 pJ each) plus {lanes * lanes} 8-bit 2:1 "
                      "selects, each a tenth of that add"}
        self.contract = UnitContract(
            kind="bitmask_encode", args=("rows",),
            operands=(Operand("src", "read", CODE_WIDTH, lanes),
                      Operand("mask", "write", lanes),
                      Operand("packed", "write", CODE_WIDTH, lanes)))
        super().__init__(self.contract.members({"src": addr_width, "mask": addr_width,
                                                "packed": addr_width}))

    # --- the model view ------------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        a = self.contract.check_args(args)
        kind, lanes = self.contract.kind, self.lanes
        if a["rows"] < 1:
            raise ValueError(f"unit kind {kind!r}: argument 'rows' must be at least 1, "
                             f"not {a['rows']}")
        for name in ("src_addr", "packed_addr"):
            if a[name] % lanes:
                raise ValueError(f"unit kind {kind!r}: argument {name!r} must be a multiple "
                                 f"of lanes ({lanes}), not {a[name]}")
        self.contract.check_reach(self._footprint(a), self.addr_width)
        return a

    def _footprint(self, a: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        dense = a["rows"] * self.lanes
        return {"src": (a["src_addr"], a["src_addr"] + dense),
                "mask": (a["mask_addr"], a["mask_addr"] + a["rows"]),
                "packed": (a["packed_addr"], a["packed_addr"] + dense)}

    def cycles(self, args: Mapping[str, int]) -> int:
        """``rows + 4`` (see the module docstring), whatever the data hold."""
        return self._check(args)["rows"] + 4

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``encode``, ``read:src`` and ``write:mask``: ``rows`` each; ``write:packed``: the
        bound ``rows`` (a dense tile; the RTL writes ``ceil(nnz / lanes)``)."""
        rows = self._check(args)["rows"]
        return {"encode": rows, "read:src": rows, "write:mask": rows, "write:packed": rows}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Element ranges: ``src`` ``rows * lanes``, ``mask`` ``rows``; ``packed`` at most
        ``rows * lanes`` (a dense tile; sparser rows write fewer)."""
        return self._footprint(self._check(args))

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Encode the rows (:func:`bitmask_encode`), write the masks and the packed rows."""
        a = self._check(args)
        rows, lanes, kind = a["rows"], self.lanes, self.contract.kind
        for name, (_, end) in self._footprint(a).items():
            if end > len(np.asarray(buffers[name]).ravel()):
                raise ValueError(f"unit kind {kind!r}: buffer of operand {name!r} holds "
                                 f"{len(np.asarray(buffers[name]).ravel())} words; the "
                                 f"invocation reaches {end}")
        src = np.asarray(buffers["src"]).ravel()[a["src_addr"]:a["src_addr"] + rows * lanes]
        dense = (src.astype(np.int64) & ((1 << CODE_WIDTH) - 1)).reshape(rows, lanes)
        masks, packed = bitmask_encode(dense)
        buffers["mask"][a["mask_addr"]:a["mask_addr"] + rows] = masks
        buffers["packed"][a["packed_addr"]:a["packed_addr"] + len(packed)] = packed

    # --- the RTL -------------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        m = Module()
        lanes, w, aw = self.lanes, CODE_WIDTH, self.addr_width
        log_lanes = lanes.bit_length() - 1

        busy, issuing = Signal(), Signal()
        rows, j = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        src_ptr, mask_ptr, packed_ptr = Signal(aw), Signal(aw), Signal(aw)
        win = Signal(lanes * w)            # codes not yet written, element 0 first
        rem = Signal(range(lanes))         # how many (always fewer than lanes)
        v1, last1, v2, last2, flush, finished = (Signal() for _ in range(6))
        mask_out, emit, emit_row = Signal(lanes), Signal(), Signal(lanes * w)

        with m.If(self.start & ~busy):
            m.d.sync += [busy.eq(1), issuing.eq(1), j.eq(0), rows.eq(self.arg_rows),
                         src_ptr.eq(self.arg_src_addr >> log_lanes),
                         mask_ptr.eq(self.arg_mask_addr),
                         packed_ptr.eq(self.arg_packed_addr >> log_lanes),
                         win.eq(0), rem.eq(0)]
        m.d.comb += [self.busy.eq(busy), self.done.eq(finished)]

        # Stage 0: one dense row read per cycle.
        row_last = j == rows - 1
        m.d.comb += [self.src.addr.eq(src_ptr), self.src.en.eq(issuing)]
        with m.If(issuing):
            m.d.sync += [src_ptr.eq(src_ptr + 1), j.eq(j + 1)]
            with m.If(row_last):
                m.d.sync += issuing.eq(0)
        m.d.sync += [v1.eq(issuing), last1.eq(issuing & row_last)]

        # Stage 1: the row's mask; its nonzeros compacted (slot k takes the lane whose
        # prefix count is k: a zero lane with the same count adds only zeros) and appended.
        x = [self.src.data[i * w:(i + 1) * w] for i in range(lanes)]
        bits = [xi != 0 for xi in x]
        prefix = [Signal(range(i + 1), name=f"prefix{i}") for i in range(lanes + 1)]
        m.d.comb += prefix[0].eq(0)
        for i in range(lanes):
            m.d.comb += prefix[i + 1].eq(prefix[i] + bits[i])
        slots = []
        for k in range(lanes):
            slot = Signal(w, name=f"slot{k}")
            terms = [Mux(prefix[i] == k, x[i], 0) for i in range(k, lanes)]
            expr = terms[0]
            for t in terms[1:]:
                expr = expr | t
            m.d.comb += slot.eq(expr)
            slots.append(slot)
        compacted = Cat(*slots)
        combined = Signal(2 * lanes * w)
        count = Signal(range(2 * lanes))
        m.d.comb += [combined.eq(win | (compacted << (rem * w))[:2 * lanes * w]),
                     count.eq(rem + prefix[lanes])]
        full = count >= lanes
        with m.If(v1):
            m.d.sync += [mask_out.eq(Cat(*bits)), emit_row.eq(combined[:lanes * w])]
            with m.If(full):
                m.d.sync += [win.eq(combined[lanes * w:]), rem.eq(count - lanes)]
            with m.Else():
                m.d.sync += [win.eq(combined[:lanes * w]), rem.eq(count)]
        m.d.sync += [v2.eq(v1), last2.eq(v1 & last1), emit.eq(v1 & full)]

        # Stage 2: the mask and any full packed row; then the partial last row, if any.
        m.d.comb += [self.mask.en.eq(v2), self.mask.addr.eq(mask_ptr),
                     self.mask.data.eq(mask_out),
                     self.packed.en.eq(emit | (flush & (rem != 0))),
                     self.packed.addr.eq(packed_ptr),
                     self.packed.data.eq(Mux(flush, win, emit_row))]
        with m.If(v2):
            m.d.sync += mask_ptr.eq(mask_ptr + 1)
        with m.If(self.packed.en):
            m.d.sync += packed_ptr.eq(packed_ptr + 1)
        m.d.sync += [flush.eq(v2 & last2), finished.eq(flush)]
        with m.If(finished):
            m.d.sync += busy.eq(0)
        return m
