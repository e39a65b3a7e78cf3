"""EdgeBERT's AdaptivFloat GEMM: a 16 x 16 tile of 16-element AdaptivFloat dot products per
chunk, integer accumulation that wraps in ``acc_width`` bits, then shift, bias, ReLU,
saturation and conversion back to AdaptivFloat, as the authors' Datapath and Accum modules.

:class:`AdaptivFloatGemm` computes ``C = A @ W.T`` for ``A[M, K]`` and ``W[N, K]`` (PyTorch's
``(out, in)`` layout, so both operands are K-contiguous) of AdaptivFloat(8, 3) codes
(:mod:`archsim.hw.accel.adpfloat_codec`).

Semantics (harvard-acc/EdgeBERT ``hw/cmod/Datapath/Datapath.h``, ``include/AdpfloatUtils.h``
``adpfloat_mul``, ``Accum/Accum.h``, ``include/Spec.h``)
----------------------------------------------------------------------------------------
The product of two codes is the integer ``P = +-((16 + man_a) * (16 + man_b) << (exp_a +
exp_b))``, 0 if either is zero, in a signed ``acc_width``-bit word (Spec.h's
``kAccumWordWidth`` is 16: it *wraps*). A ``size``-element dot product sums ``P`` in that
width; the ``K / size`` partial sums accumulate in it too, so each accumulator ends as the
exact sum of its products reduced modulo ``2**acc_width`` (two's complement). Its real
value is ``acc * 2**(bias_a + bias_b - 28)`` for the operands' tensor biases. Then::

    y = saturate(relu((acc >> shift) + bias[n]))      # arithmetic shift; [-32767, 32767]

and the output is either ``y`` itself (``out_fixed = 1``, 16-bit words) or its code,
``adpfloat_from_fixed(y, frac=out_frac, bias=out_bias)``. ``y`` has ``F = 28 - bias_a -
bias_b - shift`` fractional bits; the caller passes ``out_frac = F`` (0..15) to keep the
value. Deviations from the authors: ``bias`` is a per-column vector of signed 16-bit words
with ``F`` fractional bits, added exactly (the authors add one int8 ``weight_bias`` to every
column in the 16-bit accumulator word); the conversion keeps the sign on overflow (see the
codec). ``relu`` and the saturation bound ``kActWordMax = 32767`` (symmetric) are theirs.

Operands (every one ``size`` lanes, so every access is a whole buffer row)
-------------------------------------------------------------------------
``a`` (read, 8 b): ``A[m, k0:k0 + size]`` at element ``a_addr + m * a_stride + k0``.
``b`` (read, 8 b): ``W[n, k0:k0 + size]`` at ``b_addr + n * b_stride + k0``.
``bias`` (read, 16 b): ``bias[n0:n0 + size]`` at ``bias_addr + n0``; read only with
``use_bias = 1``.
``c`` (write, 8 b) the codes of ``C``, or ``c_fixed`` (write, 16 b) the words ``y``
(``out_fixed`` selects; the other is not written): ``C[m, n]`` at ``c_addr + m * c_stride +
n`` (``c_fixed_addr`` likewise), or with ``transpose_c = 1`` ``C.T``: ``+ n * c_stride + m``.

Arguments: ``m``, ``k``, ``n`` (positive multiples of ``size``), ``a_stride``, ``b_stride``
(at least ``k``), ``c_stride`` (at least ``n``, or ``m`` when transposed); every address and
stride a multiple of ``size``; ``shift`` 0..31; ``use_bias``, ``relu``, ``out_fixed``,
``transpose_c`` 0 or 1; ``out_frac`` 0..15; ``out_bias`` 0..7.

Schedule and cycles
-------------------
Output tiles of ``size x size`` go row-of-tiles-major, ``T = (M / S) * (N / S)`` tiles of
``KC = K / S`` chunks each (``S = size``), ``G = T * KC`` chunks in all, processed in periods
of ``S`` cycles. In period ``q`` the unit reads the ``S`` rows of ``W`` of chunk ``q`` (one
per cycle, into one of two ``S x S`` weight banks) and the ``S`` rows of ``A`` of chunk
``q - 1``; each ``A`` row, the cycle it arrives, meets the complete weight bank of its
chunk: ``S`` dot products of ``S`` elements (``S * S`` = 256 MACs per cycle at ``S = 16``)
add into that row's accumulators. So the next chunk loads while the current one computes,
and chunks follow back to back across tiles. A finished tile (its accumulators are double
buffered by tile parity) drains in the period after its last chunk's: the bias row is read
in its first cycle, and one output row (a row of ``C``, or with ``transpose_c`` a column of
the tile) is written per cycle, overlapped with the following tiles. With ``start`` sampled
in cycle ``s``, period ``q`` is cycles ``s + 1 + q * S .. s + (q + 1) * S``; the last tile's
rows are written in period ``G + 1`` (one cycle late, read latency), the last in cycle
``s + 1 + (G + 2) * S``, and ``done`` is high the cycle after it::

    cycles = S * ((M / S) * (N / S) * (K / S) + 2) + 2

(``G`` periods of MACs, one period of weight loading ahead of the first, one of drain after
the last, one cycle to latch the arguments and one so the last row written is visible).

Energy per action
-----------------
Horowitz's table (ISSCC 2014, 45 nm, 0.9 V) has no 8-bit float MAC. ``"mac"`` is *assumed*
to cost an 8-bit integer multiply (0.2 pJ: the 5 x 5-bit significand product and the
exponent shift taken to cost no more) plus a 32-bit integer add (0.1 pJ: the accumulate;
taken for every ``acc_width``, not rescaled). ``"post"`` (per output element: shift, bias
add, ReLU, saturate, convert) is *assumed* to cost one 32-bit add (0.1 pJ). Port accesses
are priced by the buffers' technology.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value, signed

from ..checks import check_int, silence_unused
from ..formats._common import balanced_sum
from .adpfloat_codec import FIXED_MAX, adpfloat_from_fixed, adpfloat_from_fixed_hw
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["AdaptivFloatGemm", "adpfloat_gemm_accumulate", "ACC_WIDTH_RANGE",
           "MAC_ENERGY_J", "POST_ENERGY_J"]

_KIND = "adaptivfloat_gemm"
#: Allowed accumulator widths: Spec.h's 16 up to 40 (a 384-long sum of the largest products,
#: 961 << 14, needs 34 bits).
ACC_WIDTH_RANGE = (16, 40)
#: Assumed: 8-bit int multiply 0.2 pJ + 32-bit int add 0.1 pJ (Horowitz, ISSCC 2014, 45 nm).
MAC_ENERGY_J = 0.2e-12 + 0.1e-12
#: Assumed: one 32-bit int add (Horowitz, ISSCC 2014, 45 nm) per output's post-processing.
POST_ENERGY_J = 0.1e-12

_ARGS = ("m", "k", "n", "a_stride", "b_stride", "c_stride", "shift", "use_bias", "relu",
         "out_fixed", "transpose_c", "out_frac", "out_bias")
_FLAGS = ("use_bias", "relu", "out_fixed", "transpose_c")


def _wrap(x: np.ndarray, width: int) -> np.ndarray:
    """Signed two's complement reduction of int64 ``x`` to ``width`` bits."""
    mask = (1 << width) - 1
    u = x & mask
    return u - ((u >> (width - 1)) << width)


def adpfloat_gemm_accumulate(a_codes: np.ndarray, w_codes: np.ndarray, *,
                             acc_width: int) -> np.ndarray:
    """The accumulators of ``A @ W.T`` on codes (``A[M, K]``, ``W[N, K]``): the exact sum of
    the integer products ``+-((16 + man_a) * (16 + man_b) << (exp_a + exp_b))``, wrapped to
    ``acc_width`` bits (signed ``int64``, ``M x N``)."""
    def scaled(codes: np.ndarray) -> np.ndarray:
        c = np.asarray(codes, dtype=np.int64)
        exp, man = (c >> 4) & 7, c & 15
        sig = np.where((exp == 0) & (man == 0), 0, 16 + man) << exp
        return np.where(c >> 7 == 1, -sig, sig)   # sig * 2**exp: |.| <= 31 * 128

    # int64 matmul is exact: |sum| <= K * 961 * 2**14, below 2**63 for any K a buffer holds
    total = scaled(a_codes) @ scaled(w_codes).T
    return _wrap(total, acc_width)


class AdaptivFloatGemm(Unit):
    """``C = A @ W.T`` on AdaptivFloat(8, 3) codes, EdgeBERT's datapath and accumulator (see
    the module docstring for operands, arguments, semantics and cycles).

    Parameters
    ----------
    size : int
        Tile size ``S`` (lanes of every operand, dot-product length): 2..16 (the authors'
        ``VECTOR_SIZE`` is 16).
    acc_width : int
        Bits of products, dot products and accumulators, 16..40 (Spec.h: 16); they wrap.
    addr_width : int
        Row-address bits of every port, 1..32.

    Raises
    ------
    TypeError, ValueError
        A parameter that is not an int in its range (the message names it).
    """

    ENERGY_PER_ACTION_J: Mapping[str, float] = {"mac": MAC_ENERGY_J, "post": POST_ENERGY_J}
    ENERGY_SOURCES: Mapping[str, str] = {
        "mac": "assumed: M. Horowitz, ISSCC 2014, 45 nm, has no 8-bit float MAC; taken as an "
               "8-bit int multiply (0.2 pJ) plus a 32-bit int add (0.1 pJ), for every "
               "acc_width",
        "post": "assumed: one 32-bit int add (M. Horowitz, ISSCC 2014, 45 nm: 0.1 pJ) per "
                "output element's shift, bias, ReLU, saturation and conversion",
    }

    def __init__(self, *, size: int = 16, acc_width: int = 16, addr_width: int = 16) -> None:
        try:
            check_int("size", size, 2, 16)
            check_int("acc_width", acc_width, *ACC_WIDTH_RANGE)
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.size, self.acc_width, self.addr_width = size, acc_width, addr_width
        self.contract = UnitContract(
            kind=_KIND, args=_ARGS,
            operands=(Operand("a", "read", 8, size), Operand("b", "read", 8, size),
                      Operand("bias", "read", 16, size), Operand("c", "write", 8, size),
                      Operand("c_fixed", "write", 16, size)))
        super().__init__(self.contract.members({o.name: addr_width
                                                for o in self.contract.operands}))

    # --- the contract's views ------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        """Complete, validated arguments (``ValueError`` naming the bad one)."""
        a = self.contract.check_args(args)
        s = self.size

        def fail(name: str, what: str) -> ValueError:
            return ValueError(f"unit kind {_KIND!r}: argument {name!r} must be {what}, "
                              f"not {a[name]}")

        for name in ("m", "k", "n"):
            if a[name] < s or a[name] % s:
                raise fail(name, f"a positive multiple of size ({s})")
        for name in _FLAGS:
            if a[name] not in (0, 1):
                raise fail(name, "0 or 1")
        for name, high in (("shift", 31), ("out_frac", 15), ("out_bias", 7)):
            if a[name] > high:
                raise fail(name, f"in 0..{high}")
        for name, low, what in (("a_stride", a["k"], "k"), ("b_stride", a["k"], "k")):
            if a[name] < low:
                raise fail(name, f"at least {what} ({low})")
        if a["transpose_c"]:
            if a["c_stride"] < a["m"]:
                raise fail("c_stride", f"at least m ({a['m']}) when transpose_c is 1")
        elif a["c_stride"] < a["n"]:
            raise fail("c_stride", f"at least n ({a['n']})")
        for name in ("a_addr", "b_addr", "bias_addr", "c_addr", "c_fixed_addr", "a_stride",
                     "b_stride", "c_stride"):
            if a[name] % s:
                raise fail(name, f"a multiple of size ({s})")
        limit = s << self.addr_width
        for name, (_, end) in self._footprint(a).items():
            if end > limit:
                raise ValueError(
                    f"unit kind {_KIND!r}: operand {name!r} would reach element {end - 1}, "
                    f"past the {limit} elements its {self.addr_width}-bit row address "
                    f"reaches ({1 << self.addr_width} rows of {s})")
        return a

    @staticmethod
    def _footprint(a: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        m, k, n = a["m"], a["k"], a["n"]
        rows, cols = (n, m) if a["transpose_c"] else (m, n)
        c_len = (rows - 1) * a["c_stride"] + cols

        def span(name: str, length: int, used: int) -> tuple[int, int]:
            base = a[f"{name}_addr"]
            return base, base + (length if used else 0)

        return {"a": span("a", (m - 1) * a["a_stride"] + k, 1),
                "b": span("b", (n - 1) * a["b_stride"] + k, 1),
                "bias": span("bias", n, a["use_bias"]),
                "c": span("c", c_len, not a["out_fixed"]),
                "c_fixed": span("c_fixed", c_len, a["out_fixed"])}

    def chunks(self, args: Mapping[str, int]) -> int:
        """``G = (m / size) * (n / size) * (k / size)``: chunk periods of MACs."""
        a = self._check(args)
        s = self.size
        return (a["m"] // s) * (a["n"] // s) * (a["k"] // s)

    def cycles(self, args: Mapping[str, int]) -> int:
        """``size * (G + 2) + 2`` with ``G`` = :meth:`chunks` (see the module docstring)."""
        return self.size * (self.chunks(args) + 2) + 2

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``mac``: ``m * k * n``; ``post``: ``m * n``; row accesses: ``read:a`` and
        ``read:b`` ``size`` per chunk, ``read:bias`` one per tile (with ``use_bias``), and
        ``size`` per tile of ``write:c`` or ``write:c_fixed``."""
        a = self._check(args)
        s = self.size
        tiles = (a["m"] // s) * (a["n"] // s)
        reads = self.chunks(a) * s
        return {"mac": a["m"] * a["k"] * a["n"], "post": a["m"] * a["n"],
                "read:a": reads, "read:b": reads, "read:bias": tiles * a["use_bias"],
                "write:c": tiles * s * (1 - a["out_fixed"]),
                "write:c_fixed": tiles * s * a["out_fixed"]}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Element ranges: ``a`` from ``a_addr`` to ``(m - 1) * a_stride + k`` past it, ``b``
        likewise, ``bias`` ``n`` (if used), the written one of ``c`` / ``c_fixed``
        ``(rows - 1) * c_stride + cols`` (the other: the empty range at its address)."""
        return self._footprint(self._check(args))

    def post_process(self, acc: np.ndarray, bias: np.ndarray | None, *, shift: int,
                     relu: bool) -> np.ndarray:
        """``y = saturate(relu((acc >> shift) + bias))`` on signed accumulators (``bias``
        broadcast over rows; ``None``: no bias)."""
        y = np.asarray(acc, dtype=np.int64) >> shift
        if bias is not None:
            y = y + np.asarray(bias, dtype=np.int64)
        if relu:
            y = np.maximum(y, 0)
        return np.clip(y, -FIXED_MAX, FIXED_MAX)

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Decode, accumulate with wrapping (:func:`adpfloat_gemm_accumulate`), shift, add
        the bias, ReLU, saturate, convert; write ``c`` or ``c_fixed`` in place."""
        a = self._check(args)
        m, k, n = a["m"], a["k"], a["n"]

        def words(name: str) -> np.ndarray:
            return np.asarray(buffers[name]).ravel()

        def need(name: str, end: int) -> None:
            if end > len(words(name)):
                raise ValueError(f"unit kind {_KIND!r}: buffer of operand {name!r} holds "
                                 f"{len(words(name))} words; the invocation reaches {end}")

        spans = self._footprint(a)
        for name in ("a", "b", "bias", "c", "c_fixed"):
            need(name, spans[name][1])
        rows_a = a["a_addr"] + np.arange(m)[:, None] * a["a_stride"] + np.arange(k)
        rows_b = a["b_addr"] + np.arange(n)[:, None] * a["b_stride"] + np.arange(k)
        a_codes = words("a")[rows_a].astype(np.int64) & 0xFF
        w_codes = words("b")[rows_b].astype(np.int64) & 0xFF
        acc = adpfloat_gemm_accumulate(a_codes, w_codes, acc_width=self.acc_width)
        bias = None
        if a["use_bias"]:
            raw = words("bias")[a["bias_addr"]:a["bias_addr"] + n].astype(np.int64) & 0xFFFF
            bias = raw - ((raw >> 15) << 16)
        y = self.post_process(acc, bias, shift=a["shift"], relu=bool(a["relu"]))
        if a["out_fixed"]:
            name, out = "c_fixed", y & 0xFFFF
        else:
            name = "c"
            out = adpfloat_from_fixed(y, frac=a["out_frac"], bias=a["out_bias"])
        mi, ni = np.arange(m)[:, None], np.arange(n)[None, :]
        index = a[f"{name}_addr"] + (ni * a["c_stride"] + mi if a["transpose_c"]
                                     else mi * a["c_stride"] + ni)
        buffers[name][index.ravel()] = out.ravel()

    # --- the RTL -------------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        m = Module()
        s, aw = self.size, self.acc_width
        log_s = (s - 1).bit_length()
        pow2 = s & (s - 1) == 0
        wide = max(self.addr_width, ARG_WIDTH) + 2  # row pointers and their sums

        def arg(name: str) -> Value:
            return getattr(self, f"arg_{name}")

        def rows_of(value: Value) -> Value:
            """An element count or address (a multiple of ``size``) in rows."""
            return value[log_s:] if pow2 else value // s

        def reg(name: str, width: int = wide) -> Signal:
            return Signal(width, name=name)

        def node(name: str, value: Value) -> Signal:
            sig = Signal(Value.cast(value).shape(), name=name)
            m.d.comb += sig.eq(value)
            return sig

        # --- latched arguments
        kc, nt_n, mt_n = reg("kc"), reg("nt_n"), reg("mt_n")        # chunks, tile counts
        a_srow, b_srow, c_srow = reg("a_srow"), reg("b_srow"), reg("c_srow")  # strides, rows
        a_stile, b_stile = reg("a_stile"), reg("b_stile")          # per tile, in rows
        c_step_m, c_step_n = reg("c_step_m"), reg("c_step_n")
        b_base, bias_base = reg("b_base"), reg("bias_base")
        shift = reg("shift", 5)
        use_bias, relu, out_fixed, transpose = (reg(f, 1) for f in _FLAGS)
        out_frac, out_bias = reg("out_frac", 4), reg("out_bias", 3)

        # --- stage B (weights of chunk q), A (activations of chunk q - 1), D (drain)
        b_valid, b_c, b_nt, b_mt = reg("b_valid", 1), reg("b_c"), reg("b_nt"), reg("b_mt")
        b_atb, b_btb, b_crow, b_ctb, b_brow = (reg(f"b_{x}") for x in
                                               ("atb", "btb", "crow", "ctb", "brow"))
        b_wb, b_tp, b_lastt = reg("b_wb", 1), reg("b_tp", 1), reg("b_lastt", 1)
        a_valid, a_c, a_atb, a_ctb, a_brow = (reg("a_valid", 1), reg("a_c"), reg("a_atb"),
                                              reg("a_ctb"), reg("a_brow"))
        a_wb, a_tp, a_lastt = reg("a_wb", 1), reg("a_tp", 1), reg("a_lastt", 1)
        d_valid, d_ctb, d_brow = reg("d_valid", 1), reg("d_ctb"), reg("d_brow")
        d_tp, d_lastt = reg("d_tp", 1), reg("d_lastt", 1)
        running, r = reg("running", 1), reg("r", max(log_s, 1))
        a_ptr, b_ptr, c_ptr = reg("a_ptr"), reg("b_ptr"), reg("c_ptr")
        finished = reg("finished", 1)

        m.d.comb += [self.busy.eq(running), self.done.eq(finished)]
        with m.If(~running & self.start):
            a_base = rows_of(arg("a_addr"))
            c_base = rows_of(Mux(arg("out_fixed")[0], arg("c_fixed_addr"), arg("c_addr")))
            tr = arg("transpose_c")[0]
            c_stride = arg("c_stride")
            m.d.sync += [
                running.eq(1), r.eq(0),
                kc.eq(rows_of(arg("k"))), nt_n.eq(rows_of(arg("n"))),
                mt_n.eq(rows_of(arg("m"))),
                a_srow.eq(rows_of(arg("a_stride"))), b_srow.eq(rows_of(arg("b_stride"))),
                c_srow.eq(rows_of(c_stride)),
                a_stile.eq(arg("a_stride")), b_stile.eq(arg("b_stride")),
                c_step_m.eq(Mux(tr, 1, c_stride)), c_step_n.eq(Mux(tr, c_stride, 1)),
                b_base.eq(rows_of(arg("b_addr"))), bias_base.eq(rows_of(arg("bias_addr"))),
                shift.eq(arg("shift")[:5]), out_frac.eq(arg("out_frac")[:4]),
                out_bias.eq(arg("out_bias")[:3]),
                use_bias.eq(arg("use_bias")[0]), relu.eq(arg("relu")[0]),
                out_fixed.eq(arg("out_fixed")[0]), transpose.eq(tr),
                b_valid.eq(1), b_c.eq(0), b_nt.eq(0), b_mt.eq(0),
                b_atb.eq(a_base), b_btb.eq(rows_of(arg("b_addr"))),
                b_crow.eq(c_base), b_ctb.eq(c_base), b_brow.eq(rows_of(arg("bias_addr"))),
                b_wb.eq(0), b_tp.eq(0),
                b_lastt.eq((arg("m") == s) & (arg("n") == s)),
                a_valid.eq(0), d_valid.eq(0),
            ]
        with m.If(finished):
            m.d.sync += running.eq(0)

        period_end = running & (r == s - 1)
        with m.If(running):
            m.d.sync += r.eq(Mux(r == s - 1, 0, r + 1))
        with m.If(period_end):
            # Stage A takes stage B's chunk; stage D takes stage A's if it ends a tile.
            m.d.sync += [a_valid.eq(b_valid), a_c.eq(b_c), a_atb.eq(b_atb), a_ctb.eq(b_ctb),
                         a_brow.eq(b_brow), a_wb.eq(b_wb), a_tp.eq(b_tp),
                         a_lastt.eq(b_lastt),
                         d_valid.eq(a_valid & (a_c == kc - 1)), d_ctb.eq(a_ctb),
                         d_brow.eq(a_brow), d_tp.eq(a_tp), d_lastt.eq(a_lastt),
                         b_wb.eq(~b_wb)]
            with m.If(b_c == kc - 1):   # next tile
                m.d.sync += [b_c.eq(0), b_tp.eq(~b_tp)]
                with m.If(b_nt == nt_n - 1):
                    m.d.sync += [b_nt.eq(0), b_mt.eq(b_mt + 1), b_atb.eq(b_atb + a_stile),
                                 b_btb.eq(b_base), b_brow.eq(bias_base),
                                 b_crow.eq(b_crow + c_step_m), b_ctb.eq(b_crow + c_step_m),
                                 b_lastt.eq((b_mt + 1 == mt_n - 1) & (nt_n == 1))]
                    with m.If(b_mt == mt_n - 1):
                        m.d.sync += b_valid.eq(0)
                with m.Else():
                    m.d.sync += [b_nt.eq(b_nt + 1), b_btb.eq(b_btb + b_stile),
                                 b_brow.eq(b_brow + 1), b_ctb.eq(b_ctb + c_step_n),
                                 b_lastt.eq((b_mt == mt_n - 1) & (b_nt + 1 == nt_n - 1))]
            with m.Else():
                m.d.sync += b_c.eq(b_c + 1)

        # --- issue: one row of b and of a per cycle; the drain's bias row and row address
        first = r == 0
        b_issue, a_issue, d_issue = running & b_valid, running & a_valid, running & d_valid
        b_addr = Mux(first, b_btb + b_c, b_ptr)
        a_addr = Mux(first, a_atb + a_c, a_ptr)
        c_addr = Mux(first, d_ctb, c_ptr)
        m.d.sync += [b_ptr.eq(b_addr + b_srow), a_ptr.eq(a_addr + a_srow),
                     c_ptr.eq(c_addr + c_srow)]
        m.d.comb += [self.b.addr.eq(b_addr), self.b.en.eq(b_issue),
                     self.a.addr.eq(a_addr), self.a.en.eq(a_issue),
                     self.bias.addr.eq(d_brow), self.bias.en.eq(d_issue & first & use_bias)]

        # --- one cycle later: the rows arrive
        b_v1, a_v1, d_v1 = reg("b_v1", 1), reg("a_v1", 1), reg("d_v1", 1)
        r1, bw1, aw1, first1, tp1 = (reg("r1", len(r)), reg("bw1", 1), reg("aw1", 1),
                                     reg("first1", 1), reg("tp1", 1))
        dtp1, dlast1, waddr1 = reg("dtp1", 1), reg("dlast1", 1), reg("waddr1")
        m.d.sync += [b_v1.eq(b_issue), a_v1.eq(a_issue), d_v1.eq(d_issue), r1.eq(r),
                     bw1.eq(b_wb), aw1.eq(a_wb), first1.eq(a_c == 0), tp1.eq(a_tp),
                     dtp1.eq(d_tp), dlast1.eq(d_issue & d_lastt & (r == s - 1)),
                     waddr1.eq(c_addr)]
        m.d.sync += finished.eq(dlast1)

        # Weight banks: wbank[bank][j][i] = W[n0 + j, k0 + i] of the bank's chunk.
        wbank = [[[Signal(8, name=f"w{bk}_{j}_{i}") for i in range(s)] for j in range(s)]
                 for bk in range(2)]
        for bk in range(2):
            for j in range(s):
                with m.If(b_v1 & (bw1 == bk) & (r1 == j)):
                    m.d.sync += [wbank[bk][j][i].eq(self.b.data.word_select(i, 8))
                                 for i in range(s)]

        # Decoded operands: sig * 2**exp with sig = 16 + man (0 for zero) and the sign.
        def decode(code: Value, name: str) -> tuple[Value, Value, Value]:
            man, exp, sign = code[:4], code[4:7], code[7]
            zero = (exp == 0) & (man == 0)
            return node(f"{name}_sig", Mux(zero, 0, Cat(man, Const(1, 1)))), exp, sign

        a_dec = [decode(self.a.data.word_select(i, 8), f"a{i}") for i in range(s)]
        w_dec = [[decode(node(f"wsel{j}_{i}", Mux(aw1, wbank[1][j][i], wbank[0][j][i])),
                         f"w{j}_{i}")
                  for i in range(s)] for j in range(s)]

        acc = [[[Signal(signed(aw), name=f"acc{p}_{i}_{j}") for j in range(s)]
                for i in range(s)] for p in range(2)]
        for j in range(s):
            terms = []
            for i in range(s):
                sa, ea, na = a_dec[i]
                sb, eb, nb = w_dec[j][i]
                mag = (sa * sb) << (ea + eb)           # <= 961 << 14: 24 bits
                prod = Mux(na ^ nb, -mag, mag)
                terms.append(node(f"p{j}_{i}", prod[:aw].as_signed()))  # wraps like Spec.h
            dot = node(f"dot{j}", balanced_sum(terms)[:aw].as_signed())
            for p in range(2):
                for i in range(s):
                    with m.If(a_v1 & (tp1 == p) & (r1 == i)):
                        m.d.sync += acc[p][i][j].eq(Mux(first1, dot, acc[p][i][j] + dot))

        # --- drain: output row d of the finished tile (transposed: its column d)
        bias_lanes = [self.bias.data.word_select(j, 16).as_signed() for j in range(s)]
        bias_sel = Array(bias_lanes)[r1]
        sel = dtp1 * s + r1  # (bank, row d) or (bank, column d)
        codes, fixed = [], []
        for lane in range(s):
            by_row = Array([acc[p][i][lane] for p in range(2) for i in range(s)])
            by_col = Array([acc[p][lane][j] for p in range(2) for j in range(s)])
            raw = node(f"raw{lane}", Mux(transpose, by_col[sel], by_row[sel]))
            bias = Mux(use_bias, Mux(transpose, bias_sel, bias_lanes[lane]), 0)
            shifted = raw >> shift
            biased = node(f"biased{lane}", shifted + bias)
            relued = Mux(relu & (biased < 0), 0, biased)
            y = node(f"y{lane}", Mux(relued > FIXED_MAX, FIXED_MAX,
                                     Mux(relued < -FIXED_MAX, -FIXED_MAX, relued))[:16])
            fixed.append(y)
            codes.append(adpfloat_from_fixed_hw(y, out_frac, out_bias, m=m))
        m.d.comb += [self.c.addr.eq(waddr1), self.c.data.eq(Cat(*codes)),
                     self.c.en.eq(d_v1 & ~out_fixed),
                     self.c_fixed.addr.eq(waddr1), self.c_fixed.data.eq(Cat(*fixed)),
                     self.c_fixed.en.eq(d_v1 & out_fixed)]
        return m
