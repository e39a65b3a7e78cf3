"""Special-function units in Q6.10 fixed point: softmax, LayerNorm and entropy.

Each unit works on a row-major ``rows x n`` matrix in the buffer bound to its ``src`` operand
and makes passes over one row at a time, re-reading the row from the buffer rather than
holding it in a local row memory: a pass is one read per cycle (the buffer's port rate, so a
local copy would not make a pass faster), ``n`` is then bounded only by ``_MAX_N`` (65535),
and the unit has no SRAM of its own. The price is re-reading (and, in softmax, recomputing the
exponential of) each element once more, which :meth:`actions` counts.

Numbers are Q6.10: a signed 16-bit code ``c`` is the value ``c / 1024``; results saturate to
``-32768..32767``. The three datapaths share four fixed-point methods, each written once as
integer numpy code (the golden model) and once in Amaranth (bit-exact with it):

exp
    ``e**d`` for ``d <= 0`` (``d = x - max(row)``): ``t = d * log2(e)`` in Q.15 (one
    multiplication by ``LOG2E_Q20``, floored), ``2**t = 2**floor(t) * 2**frac(t)`` where
    ``2**frac`` is a 32-segment linear interpolation in :data:`EXP2_LUT` (Q.20) and
    ``2**floor(t)`` a right shift rounded to nearest. Result ``0..2**20`` (Q.20: the 20
    fractional bits keep the tail of small exponentials that the entropy needs; with 16 its
    worst error at ``n = 1024`` was 6e-3 nats, with 20 below 1e-3).
ln
    ``ln(s / 2**20)`` for a Q.20 ``s >= 1``: ``s = 2**k * (1 + f)``, a leading-one detector
    for ``k``, then ``(k - 20) * ln 2 + ln(1 + f)`` with ``ln(1 + f)`` a 32-segment linear
    interpolation in :data:`LN_LUT` (Q.16).
reciprocal, division
    A sequential restoring divider, one quotient bit per cycle (softmax: ``2**52 // sum`` once
    per row; entropy: one 22-bit quotient per row).
rsqrt
    ``1 / sqrt(v)``: normalize ``v = u * 2**62 / 4**j`` with ``u`` in ``[1/4, 1)``, a 48-entry
    seed table :data:`RSQRT_LUT` (Q2.30, 1.5% worst case), then two Newton steps
    ``y <- y * (3 - u * y**2) / 2`` (relative error below ``2**-22``).

"Round" below means round half up, ``((v >> (k - 1)) + 1) >> 1`` for a shift by ``k``.

Accuracy of the golden (= RTL) results against float64 on the same Q6.10 inputs, worst case
over rows of ``n`` in 1..1024 (incl. 384 and 768) with normal values of scale 0.1..30,
whole-range uniform values and rows of +-32 extremes (tests/test_hw_accel_sfu.py): softmax
0.51 LSB (``scipy.special.softmax``), LayerNorm 0.52 LSB (float64 with the same ``EPS``,
then saturated), entropy 9.7e-4 nats (``-sum p ln p``); the output rounding alone is 0.5
LSB (4.9e-4 nats). The exp is within ``6e-5`` relative + 0.5 code of ``e**d`` for every
``d`` in ``-65535..0``; ln within 1.8e-4; rsqrt within ``2**-22`` relative.

Energy per action (:attr:`Unit.ENERGY_PER_ACTION_J`) comes from Horowitz, "Computing's energy
problem (and what we can do about it)", ISSCC 2014, 45 nm at 0.9 V, where the table has the
operation; the rest is labelled "assumed" in ``ENERGY_SOURCES``. Port accesses
(``read:<operand>``, ``write:<operand>``) are counted by :meth:`actions` but priced by the
buffer they bind to, not here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from typing import ClassVar

import numpy as np
from amaranth.hdl import Array, Const, Module, Mux, Signal, Value, signed
from numpy.typing import ArrayLike

from ..checks import check_int, silence_unused
from .interface import Operand, Unit, UnitContract

__all__ = ["Softmax", "LayerNorm", "Entropy", "softmax_q610", "layernorm_q610",
           "entropy_q610", "exp_q20", "ln_q16", "rsqrt_q30", "FRAC_BITS", "EXP_FRAC",
           "LOG2E_Q20", "EXP2_LUT", "LN_LUT", "LN2_Q16", "RSQRT_LUT", "EPS"]

#: Fractional bits of a Q6.10 code.
FRAC_BITS = 10
#: ``log2(e)`` in Q1.20.
LOG2E_Q20 = round(math.log2(math.e) * 2**20)
#: Fractional bits of an exponential (and of the sums of exponentials).
EXP_FRAC = 20
#: ``2**(i / 32)`` in Q.20 for ``i = 0..32``: the exp interpolation table.
EXP2_LUT = tuple(round(2 ** (i / 32) * 2**EXP_FRAC) for i in range(33))
#: ``ln(1 + i / 32)`` in Q.16 for ``i = 0..32``: the ln interpolation table.
LN_LUT = tuple(round(math.log1p(i / 32) * 2**16) for i in range(33))
#: ``ln 2`` in Q.16.
LN2_Q16 = round(math.log(2) * 2**16)
#: ``1 / sqrt(u)`` in Q2.30 at the midpoint of ``u`` in ``[k / 64, (k + 1) / 64)``,
#: ``k = 16..63``: the rsqrt seed table.
RSQRT_LUT = tuple(round(2**30 / math.sqrt((k + 0.5) / 64)) for k in range(16, 64))
#: LayerNorm's epsilon, ``2**-20``: the resolution of a squared Q6.10 value (the variance of
#: Q6.10 data is a multiple of it), the smallest epsilon the integer variance can represent
#: exactly. It only keeps a constant row (variance 0) finite; BERT's 1e-12 is below it.
EPS = 2.0**-20

_QMIN, _QMAX = -(1 << 15), (1 << 15) - 1
_MAX_N = (1 << 16) - 1
# Cycles per row spent outside the passes: see each unit's ``cycles``.
_SOFTMAX_RECIP_BITS = 33     # quotient bits of 2**52 // sum (sum >= 2**20, so < 2**33)
_ENTROPY_QUOTIENT_BITS = 22  # E[max - x] < 2**6 in Q.16
_NEWTON_STEPS = 2


def _max_sum_cycles(n: int) -> int:
    """Cycles of softmax's and entropy's first two passes over a row: max, then sum."""
    return (n + 1) + (n + 2)


# --- the golden arithmetic (numpy, int64) -----------------------------------------------

def _round_shift(v: np.ndarray, k: np.ndarray | int) -> np.ndarray:
    """``v / 2**k`` rounded half up, for ``k >= 1``."""
    return ((v >> (np.asarray(k) - 1)) + 1) >> 1


def _bit_length(v: np.ndarray) -> np.ndarray:
    """Elementwise ``int.bit_length`` of non-negative int64 values."""
    return sum(((v >> b) != 0).astype(np.int64) for b in range(63))


def _interpolate(table: tuple[int, ...], x15: np.ndarray) -> np.ndarray:
    """Linear interpolation in a 33-entry table at ``x15 / 2**15`` in ``[0, 1)``."""
    lut = np.asarray(table, dtype=np.int64)
    seg, pos = x15 >> 10, x15 & 0x3FF
    return lut[seg] + (((lut[seg + 1] - lut[seg]) * pos) >> 10)


def exp_q20(d: ArrayLike) -> np.ndarray:
    """``e**(d / 1024)`` in Q.20 (``0..2**20``) for Q.10 codes ``d <= 0``."""
    d = np.asarray(d, dtype=np.int64)
    if np.any(d > 0):
        raise ValueError("exp_q20 takes d <= 0")
    t = (d * LOG2E_Q20) >> 15            # d * log2(e) in Q.15, floored: t <= 0
    whole, frac = t >> 15, t & 0x7FFF    # t = whole + frac / 2**15
    mant = _interpolate(EXP2_LUT, frac)  # 2**(frac / 2**15) in Q.20, [2**20, 2**21)
    # 2**whole: a rounded right shift; past 22 bits every mantissa rounds to 0.
    return _round_shift(mant << 1, np.minimum(-whole, EXP_FRAC + 2) + 1)


def ln_q16(s: ArrayLike) -> np.ndarray:
    """``ln(s / 2**20)`` in Q.16 for integers ``2**20 <= s <= 2**36`` (a Q.20 sum of
    exponentials, at least 1)."""
    s = np.asarray(s, dtype=np.int64)
    if np.any(s < 1 << EXP_FRAC) or np.any(s > 1 << 36):
        raise ValueError("ln_q16 takes 2**20 <= s <= 2**36")
    k = _bit_length(s) - 1                    # s = 2**k * (1 + f)
    f = ((s << (36 - k)) >> 21) & 0x7FFF      # f in Q.15 (its top 15 bits)
    return (k - EXP_FRAC) * LN2_Q16 + _interpolate(LN_LUT, f)


def rsqrt_q30(v: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``1 / sqrt(v)`` for integers ``1 <= v < 2**62``, as ``(y, j)``:
    ``1 / sqrt(v) ~= y * 2**j / 2**61`` with ``y`` in Q2.30.

    ``v`` is normalized to ``u = v * 4**j / 2**62`` in ``[1/4, 1)``; ``1 / sqrt(u)`` starts
    from :data:`RSQRT_LUT` and takes two Newton steps.
    """
    v = np.asarray(v, dtype=np.int64)
    if np.any(v < 1) or np.any(v >= 1 << 62):
        raise ValueError("rsqrt_q30 takes 1 <= v < 2**62")
    j = (62 - _bit_length(v)) >> 1
    u32 = (v << (2 * j)) >> 30                # u in Q0.32, [2**30, 2**32)
    y = np.asarray(RSQRT_LUT, dtype=np.int64)[(u32 >> 26) - 16]
    for _ in range(_NEWTON_STEPS):
        # u * y**2 is within 3.1% of 1 (the seed's 1.53%), so every product is < 2**63.
        t = (u32 * ((y * y) >> 30)) >> 32     # u * y**2, Q.30
        y = (y * ((3 << 30) - t)) >> 31       # y * (3 - u * y**2) / 2, Q2.30
    return y, j


def _codes(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as an int64 array of Q6.10 codes with a last axis of length 1..65535 (a unit's
    ``n``; the golden integers are sized for it)."""
    a = np.asarray(x)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer Q6.10 codes, not dtype {a.dtype}")
    a = a.astype(np.int64)
    if a.ndim == 0 or not 1 <= a.shape[-1] <= _MAX_N:
        raise ValueError(f"{name} must have a last axis of length 1..{_MAX_N}, not shape "
                         f"{a.shape}")
    if np.any(a < _QMIN) or np.any(a > _QMAX):
        raise ValueError(f"{name} must hold Q6.10 codes in {_QMIN}..{_QMAX}")
    return a


def softmax_q610(x: ArrayLike) -> np.ndarray:
    """Softmax over the last axis of Q6.10 codes, as the :class:`Softmax` unit computes it.

    ``p_i = e_i / sum(e)`` with ``e_i = exp(x_i - max(x))`` (:func:`exp_q20`), the division
    as one reciprocal per row, ``r = 2**52 // sum(e)``, and ``p_i = round(e_i * r / 2**42)``
    (Q.10; ``0..1024``).
    """
    x = _codes(x, "x")
    e = exp_q20(x - x.max(axis=-1, keepdims=True))
    total = e.sum(axis=-1, keepdims=True)     # >= 2**20: the maximum contributes e**0
    recip = (1 << 52) // total                # <= 2**32
    return _round_shift(e * recip, 42)


def layernorm_q610(x: ArrayLike, gamma: ArrayLike, beta: ArrayLike) -> np.ndarray:
    """LayerNorm over the last axis of Q6.10 codes, as the :class:`LayerNorm` unit computes it.

    ``y = (x - mean) / sqrt(var + EPS) * gamma + beta`` with the statistics exact in
    integers: with ``s1 = sum(x)``, ``s2 = sum(x**2)``, ``v = n * s2 - s1**2 + n**2`` is
    ``n**2 * (var + EPS) * 2**20`` and ``z = (n * x - s1) / sqrt(v)``; ``1 / sqrt(v)`` is
    :func:`rsqrt_q30`, ``z`` is rounded to Q.16 and ``y = round(z * gamma) + beta``,
    saturated.
    """
    x = _codes(x, "x")
    n = x.shape[-1]
    gamma, beta = _codes(gamma, "gamma"), _codes(beta, "beta")
    for name, vec in (("gamma", gamma), ("beta", beta)):
        if vec.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), not {vec.shape}")
    s1 = x.sum(axis=-1, keepdims=True)
    s2 = (x * x).sum(axis=-1, keepdims=True)
    y, j = rsqrt_q30(n * s2 - s1 * s1 + n * n)
    # 1/sqrt(v) = (y >> 8) * 2**j / 2**53; z in Q.16 is (n x - s1) (y >> 8) / 2**(37 - j).
    z = _round_shift((n * x - s1) * (y >> 8), 37 - j)
    return np.clip(_round_shift(z * gamma, 16) + beta, _QMIN, _QMAX)


def entropy_q610(x: ArrayLike) -> np.ndarray:
    """Entropy (nats, Q6.10) of the softmax of each row (last axis) of Q6.10 logits.

    ``H = ln(sum e**(x - m)) + sum (m - x) e**(x - m) / sum e**(x - m)`` with ``m = max(x)``
    (EdgeBERT's form, no ``p log p`` per element): the exponentials from :func:`exp_q20`,
    ``ln`` from :func:`ln_q16`, the quotient in Q.16 from one integer division per row, and
    the sum rounded to Q.10. Returns one code per row (shape ``x.shape[:-1]``).
    """
    x = _codes(x, "x")
    d = x - x.max(axis=-1, keepdims=True)
    e = exp_q20(d)
    total = e.sum(axis=-1)                    # Q.20, >= 2**20
    spread = (-d * e).sum(axis=-1)            # sum (m - x) e, Q.30, < 2**52
    mean_gap = (spread << 6) // total         # E_p[m - x] in Q.16, < 2**22
    return np.minimum(_round_shift(ln_q16(total) + mean_gap, 6), _QMAX)


# --- the shared RTL pieces -----------------------------------------------------------------

def _rtl_round_shift(v: Value, k_minus_1: int | Value) -> Value:
    """``v / 2**k`` rounded half up (as :func:`_round_shift`); takes ``k - 1`` (unsigned)."""
    return ((v >> k_minus_1) + 1) >> 1


def _rtl_interpolate(m: Module, table: tuple[int, ...], x15: Value, name: str) -> Signal:
    """Linear interpolation in a 33-entry table (as :func:`_interpolate`): two ROMs
    (entries and differences) indexed by the top 5 bits, one small multiplication."""
    width = max(table).bit_length()
    base = Array(Const(v, width) for v in table[:-1])
    delta = Array(Const(b - a, width) for a, b in zip(table, table[1:], strict=False))
    seg, pos = x15[10:15], x15[0:10]
    out = Signal(width + 1, name=name)
    m.d.comb += out.eq(base[seg] + ((delta[seg] * pos) >> 10))
    return out


def _rtl_exp(m: Module, t15: Value) -> Signal:
    """``2**(t15 / 2**15)`` in Q.20 for a signed ``t15 <= 0`` (as :func:`exp_q20`, after its
    multiplication by ``log2(e)``)."""
    mant = _rtl_interpolate(m, EXP2_LUT, t15[0:15], "exp_mant")
    whole = Signal(signed(len(t15) - 14), name="exp_whole")
    shift = Signal(5, name="exp_shift")
    e = Signal(EXP_FRAC + 1, name="exp_e")
    m.d.comb += [whole.eq(t15 >> 15),
                 shift.eq(Mux(-whole > EXP_FRAC + 2, EXP_FRAC + 2, -whole)),
                 e.eq(_rtl_round_shift(mant << 1, shift))]
    return e


def _rtl_log2e(d: Value) -> Value:
    """``d * log2(e)`` in Q.15 (floored) for a signed Q.10 ``d``."""
    return (d * Const(LOG2E_Q20, 21)) >> 15


def _rtl_bit_length(m: Module, v: Value, name: str) -> Signal:
    """A leading-one detector: ``bit_length(v)`` of an unsigned value."""
    out = Signal(range(len(v) + 1), name=name)
    for b in range(len(v)):
        with m.If(v[b]):          # the last assignment wins: the highest set bit
            m.d.comb += out.eq(b + 1)
    return out


def _rtl_ln(m: Module, s: Value) -> Signal:
    """``ln(s / 2**20)`` in Q.16 for ``2**20 <= s <= 2**36`` (as :func:`ln_q16`)."""
    k = Signal(6, name="ln_k")
    lsh = Signal(5, name="ln_lsh")
    norm = Signal(37, name="ln_norm")
    m.d.comb += [k.eq(_rtl_bit_length(m, s[:37], "ln_bits") - 1),
                 lsh.eq(36 - k),
                 norm.eq(s[:37] << lsh)]
    frac = _rtl_interpolate(m, LN_LUT, norm[21:36], "ln_frac")
    out = Signal(21, name="ln_out")
    m.d.comb += out.eq((k - EXP_FRAC) * Const(LN2_Q16, 16) + frac)
    return out


#: An Amaranth statement (what ``Value.eq`` returns); amaranth exports no type for one.
_Statement = object


@dataclass(frozen=True)
class _RowRegs:
    """The row walk every unit keeps: the latched ``n``, the rows still to do, the element
    counter of the current pass, the base of the current ``src`` row (``src.addr`` is
    ``src_row + cnt``), the next ``dst`` address, and the ``src`` port as one pass sees it."""

    n: Signal
    rows_left: Signal
    cnt: Signal
    src_row: Signal
    dst_ptr: Signal
    src_en: Signal
    x: Value          # the element read last cycle, signed
    issue: Value      # ``cnt < n``: read element ``cnt`` this cycle


@dataclass(frozen=True)
class _ExpRow:
    """The registers of the two passes softmax and entropy open every row with: the row
    maximum, then ``sum e**(x - max)`` through a two-stage pipeline (``t15`` = ``(x - max)
    log2 e`` in stage 1, ``e`` its exponential in stage 2; ``v1``, ``v2`` say that each
    stage holds an element)."""

    mx: Signal
    total: Signal     # sum of exps, Q.20, <= 2**36
    t15: Signal
    e: Signal
    v1: Signal
    v2: Signal


def _rtl_exp_row(m: Module) -> _ExpRow:
    """The :class:`_ExpRow` registers and the exponential of ``t15``."""
    t15 = Signal(signed(24), name="t15")
    return _ExpRow(mx=Signal(signed(16), name="mx"), total=Signal(38, name="total"),
                   t15=t15, e=_rtl_exp(m, t15), v1=Signal(name="v1"), v2=Signal(name="v2"))


def _rtl_pass(m: Module, r: _RowRegs, valids: tuple[Signal, ...], then: str | None) -> Value:
    """The skeleton of a pass over a row, in a state's body: read element ``cnt`` while
    ``issue``, with a valid flag per stage behind the read (``valids[0]``: the port holds
    an element's data), for ``n + len(valids)`` cycles. Returns the end-of-pass condition;
    there, with ``then``, the counter is cleared and the FSM goes to ``then``."""
    m.d.comb += r.src_en.eq(r.issue)
    m.d.sync += [valids[0].eq(r.issue), *(b.eq(a) for a, b in pairwise(valids)),
                 r.cnt.eq(r.cnt + 1)]
    end = r.cnt == r.n + (len(valids) - 1)
    if then is not None:
        with m.If(end):
            m.d.sync += r.cnt.eq(0)
            m.next = then
    return end


def _rtl_max_pass(m: Module, r: _RowRegs, p: _ExpRow, then: str) -> Value:
    """A max pass (``n + 1`` cycles): the data of element 0 (arriving at ``cnt == 1``)
    starts the running maximum; at the end ``total`` is cleared for the sum pass. Returns
    the end-of-pass condition, for a unit's own end-of-pass work."""
    end = _rtl_pass(m, r, (p.v1,), then)
    with m.If(p.v1 & ((r.cnt == 1) | (r.x > p.mx))):
        m.d.sync += p.mx.eq(r.x)
    with m.If(end):
        m.d.sync += p.total.eq(0)
    return end


def _rtl_exp_sum_pass(m: Module, r: _RowRegs, p: _ExpRow, then: str) -> Value:
    """An exp-and-sum pass (``n + 2`` cycles): ``t15 = (x - max) log2 e``, then its
    exponential added to ``total``. Returns the end-of-pass condition."""
    end = _rtl_pass(m, r, (p.v1, p.v2), then)
    m.d.sync += p.t15.eq(_rtl_log2e(r.x - p.mx))
    with m.If(p.v2):
        m.d.sync += p.total.eq(p.total + p.e)
    return end


def _rtl_divide_step(m: Module, cnt: Signal, rem: Signal, quot: Signal, divisor: Value,
                     bit_in: Value | int, bits: int, then: str) -> None:
    """The body of a restoring-divider state, one quotient bit a cycle: shift ``bit_in``
    (the dividend's next bit) into the remainder, subtract ``divisor`` where it fits and
    shift the outcome into ``quot``; after ``bits`` cycles clear ``cnt`` and go to
    ``then``."""
    twice = Signal(len(rem) + 1, name="twice")
    m.d.comb += twice.eq((rem << 1) | bit_in)
    fits = twice >= divisor
    m.d.sync += [rem.eq(Mux(fits, twice - divisor, twice)), quot.eq((quot << 1) | fits),
                 cnt.eq(cnt + 1)]
    with m.If(cnt == bits - 1):
        m.d.sync += cnt.eq(0)
        m.next = then


# --- the units --------------------------------------------------------------------------

class _RowUnit(Unit):
    """A unit over ``rows x n`` Q6.10 matrices: the shared constructor, argument checks,
    golden run and cycle count, and the row walk of the RTL (:meth:`_row_regs`,
    :meth:`_row_fsm`, :meth:`_next_row`)."""

    KIND: ClassVar[str] = ""
    READS: ClassVar[tuple[str, ...]] = ("src",)

    def __init__(self, *, addr_width: int = 16) -> None:
        try:
            self._addr_width = check_int("addr_width", addr_width, 1, 16)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        operands = tuple(Operand(name, "read", 16) for name in self.READS) \
            + (Operand("dst", "write", 16),)
        self.contract = UnitContract(kind=self.KIND, args=("rows", "n"), operands=operands)
        super().__init__(self.contract.members({o.name: addr_width for o in operands}))

    @property
    def addr_width(self) -> int:
        """Address bits of every operand's buffer."""
        return self._addr_width

    def _spans(self, a: Mapping[str, int]) -> dict[str, int]:
        """Elements each operand touches from its base address."""
        raise NotImplementedError

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        """The complete, checked arguments (``ValueError`` naming the bad one)."""
        a = self.contract.check_args(args)
        for name in ("rows", "n"):
            if a[name] < 1:
                raise ValueError(f"unit kind {self.KIND!r}: argument {name!r} must be at "
                                 f"least 1, not {a[name]}")
        if a["n"] > _MAX_N:
            raise ValueError(f"unit kind {self.KIND!r}: argument 'n' must be at most "
                             f"{_MAX_N}, not {a['n']}")
        space = 1 << self._addr_width
        for op, span in self._spans(a).items():
            first = a[f"{op}_addr"]
            if first + span > space:
                raise ValueError(f"unit kind {self.KIND!r}: operand {op!r} spans elements "
                                 f"{first}..{first + span - 1}, past its {space}-element "
                                 f"buffer (addr_width={self._addr_width})")
        return a

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        a = self._check(args)
        return {op: (a[f"{op}_addr"], a[f"{op}_addr"] + span)
                for op, span in self._spans(a).items()}

    def _operand(self, buffers: Mapping[str, np.ndarray], a: Mapping[str, int],
                 op: str) -> np.ndarray:
        """The elements ``op`` touches, as signed Q6.10 codes."""
        first, end = a[f"{op}_addr"], a[f"{op}_addr"] + self._spans(a)[op]
        words = np.asarray(buffers[op])
        if len(words) < end:
            raise ValueError(f"unit kind {self.KIND!r}: buffer of operand {op!r} holds "
                             f"{len(words)} words; the invocation reads up to {end}")
        raw = words[first:end].astype(np.int64) & 0xFFFF
        return (raw ^ 0x8000) - 0x8000

    def _store(self, buffers: Mapping[str, np.ndarray], a: Mapping[str, int],
               codes: np.ndarray) -> None:
        """Write Q6.10 codes at ``dst_addr`` as raw 16-bit words."""
        first = a["dst_addr"]
        out = buffers["dst"]
        if len(out) < first + codes.size:
            raise ValueError(f"unit kind {self.KIND!r}: buffer of operand 'dst' holds "
                             f"{len(out)} words; the invocation writes up to "
                             f"{first + codes.size}")
        out[first:first + codes.size] = codes.ravel() & 0xFFFF

    def _result(self, x: np.ndarray, vectors: Mapping[str, np.ndarray]) -> np.ndarray:
        """The golden function on the ``rows x n`` matrix ``x`` and the other read operands'
        ``n``-element vectors (by operand name)."""
        raise NotImplementedError

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        a = self._check(args)
        x = self._operand(buffers, a, "src").reshape(a["rows"], a["n"])
        vectors = {op: self._operand(buffers, a, op) for op in self.READS if op != "src"}
        self._store(buffers, a, self._result(x, vectors))

    def _row_cycles(self, n: int) -> int:
        """Cycles the RTL spends on one row of ``n`` elements."""
        raise NotImplementedError

    def cycles(self, args: Mapping[str, int]) -> int:
        a = self._check(args)
        return a["rows"] * self._row_cycles(a["n"]) + 1     # + 1: the done cycle

    def _row_regs(self, m: Module) -> _RowRegs:
        """The row-walk registers, with ``src.addr`` driven from them."""
        aw = self._addr_width
        n = Signal(16, name="n")
        cnt = Signal(18, name="cnt")
        src_row = Signal(aw, name="src_row")
        r = _RowRegs(n=n, rows_left=Signal(16, name="rows_left"), cnt=cnt, src_row=src_row,
                     dst_ptr=Signal(aw, name="dst_ptr"), src_en=self.src.en,
                     x=self.src.data.as_signed(), issue=cnt < n)
        m.d.comb += self.src.addr.eq(src_row + cnt)
        return r

    @contextmanager
    def _row_fsm(self, m: Module, r: _RowRegs, first: str,
                 load: tuple[_Statement, ...] = ()) -> Iterator[None]:
        """The unit's FSM, its own states written in the ``with`` body: ``IDLE`` latches the
        arguments (and ``load``) on ``start`` and goes to ``first``; ``DONE`` raises ``done``
        for one cycle; ``busy`` outside ``IDLE``."""
        with m.FSM() as fsm:
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [r.n.eq(self.arg_n), r.rows_left.eq(self.arg_rows),
                                 r.src_row.eq(self.arg_src_addr),
                                 r.dst_ptr.eq(self.arg_dst_addr), r.cnt.eq(0), *load]
                    m.next = first
            yield
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        m.d.comb += self.busy.eq(~fsm.ongoing("IDLE"))

    def _next_row(self, m: Module, r: _RowRegs, first: str, *also: _Statement) -> None:
        """End a row (with ``also``): step ``src_row`` to the next row and go to ``first``,
        or to ``DONE`` after the last row."""
        m.d.sync += [r.src_row.eq(r.src_row + r.n), r.rows_left.eq(r.rows_left - 1), *also]
        m.next = first
        with m.If(r.rows_left == 1):
            m.next = "DONE"

    def _write_pass(self, m: Module, r: _RowRegs, v: tuple[Signal, Signal, Signal],
                    data: Value, first: str, *also: _Statement) -> None:
        """The body of a row's last pass (``n + 3`` cycles): read element ``cnt`` while
        ``issue``; its result ``data`` stands three cycles later (``v`` are the stages'
        valid flags) and is written at ``dst_ptr``. At the end the row is done
        (:meth:`_next_row`, with ``also``)."""
        end = _rtl_pass(m, r, v, None)
        m.d.comb += [self.dst.en.eq(v[-1]), self.dst.addr.eq(r.dst_ptr),
                     self.dst.data.eq(data)]
        with m.If(v[-1]):
            m.d.sync += r.dst_ptr.eq(r.dst_ptr + 1)
        with m.If(end):
            self._next_row(m, r, first, r.cnt.eq(0), *also)


#: Horowitz ISSCC 2014 (45 nm, 0.9 V) and what is derived from it.
_E_ADD16 = 0.05e-12
_E_ADD32 = 0.1e-12
_E_MUL16 = 0.8e-12
_E_MUL32 = 3.1e-12
_E_LUT = 0.1e-12
_ENERGY = {
    "add": _E_ADD16, "add32": _E_ADD32, "mul": _E_MUL16, "mul32": _E_MUL32, "lut": _E_LUT,
    # exp: the log2(e) multiplication, the LUT read, the interpolation multiplication,
    # two adds and a shift (priced as an add).
    "exp": 2 * _E_MUL16 + _E_LUT + 3 * _E_ADD16,
    # One restoring-divider iteration: a <=35-bit subtract-and-select.
    "div_step": _E_ADD32,
}
_SOURCES = {
    "add": "assumed: 16-bit int add, between Horowitz ISSCC 2014 (45 nm, 0.9 V) 8-bit add "
           "0.03 pJ and 32-bit add 0.1 pJ; compares, subtracts and shifts count as adds",
    "add32": "Horowitz ISSCC 2014 (45 nm, 0.9 V): 32-bit int add 0.1 pJ (wider "
             "accumulators priced the same: assumed)",
    "mul": "assumed: 16-bit int mult, Horowitz ISSCC 2014 8-bit mult 0.2 pJ scaled by "
           "width**2 (array multiplier; 32-bit would be 3.2 pJ vs the table's 3.1 pJ)",
    "mul32": "Horowitz ISSCC 2014 (45 nm, 0.9 V): 32-bit int mult 3.1 pJ (the 33- to "
             "34-bit products priced the same: assumed)",
    "lut": "assumed: a read of a <=48-entry x <=32-bit constant table (a mux tree), priced "
           "as a 32-bit add",
    "exp": "assumed: composite = 2 x 'mul' + 'lut' + 3 x 'add'",
    "div_step": "assumed: one restoring-divider iteration = a 32-bit add (Horowitz ISSCC "
                "2014, 0.1 pJ)",
}


class Softmax(_RowUnit):
    """Row-wise softmax of a ``rows x n`` Q6.10 matrix (:func:`softmax_q610`, bit-exact).

    Operands: ``src`` (read) holds the matrix row-major at ``src_addr``; ``dst`` (write)
    receives the result at ``dst_addr`` (Q.10 probabilities, ``0..1024``). ``dst`` may be the
    same buffer and region as ``src``: each row's results are written only after its last
    read. Arguments: ``rows``, ``n`` (both >= 1; every touched element inside the buffer).

    Per row, four phases, each pass one read per cycle:

    ========  ==========  ==================================================
    phase     cycles      work
    ========  ==========  ==================================================
    max       ``n + 1``   read, running maximum (1 cycle read latency)
    sum       ``n + 2``   read, ``x - max``, exp, accumulate (2 stages)
    recip     33          restoring divider: ``2**52 // sum``, 1 bit a cycle
    normalize ``n + 3``   read, exp again, ``* recip``, round, write
    ========  ==========  ==================================================

    ``cycles = rows * (3 n + 39) + 1`` (the ``+ 1`` is the ``done`` cycle).

    Parameters
    ----------
    addr_width : int
        Address bits of every operand's buffer, 1..16.
    """

    KIND = "softmax"
    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        k: _ENERGY[k] for k in ("exp", "add", "add32", "mul32", "div_step")}
    ENERGY_SOURCES: Mapping[str, str] = {k: _SOURCES[k] for k in ENERGY_PER_ACTION_J}

    def _spans(self, a: Mapping[str, int]) -> dict[str, int]:
        return {"src": a["rows"] * a["n"], "dst": a["rows"] * a["n"]}

    def _row_cycles(self, n: int) -> int:
        return _max_sum_cycles(n) + _SOFTMAX_RECIP_BITS + (n + 3)

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Per element: 3 reads, 1 write, 2 exps, a compare and two subtracts (``add``), an
        accumulation (``add32``), a multiplication by the reciprocal (``mul32``) and its
        rounding (``add32``); per row 33 divider steps."""
        a = self._check(args)
        rows, n = a["rows"], a["n"]
        return {"read:src": 3 * rows * n, "write:dst": rows * n, "exp": 2 * rows * n,
                "add": 3 * rows * n, "add32": 2 * rows * n, "mul32": rows * n,
                "div_step": _SOFTMAX_RECIP_BITS * rows}

    def _result(self, x: np.ndarray, vectors: Mapping[str, np.ndarray]) -> np.ndarray:
        return softmax_q610(x)

    def elaborate(self, platform: object) -> Module:
        m = Module()
        r = self._row_regs(m)
        p = _rtl_exp_row(m)
        rem = Signal(39)
        recip = Signal(34)          # 2**52 // total, <= 2**32
        e_r = Signal(EXP_FRAC + 1)
        v3 = Signal(name="v3")
        with self._row_fsm(m, r, "MAX"):
            with m.State("MAX"):
                _rtl_max_pass(m, r, p, "SUM")
            with m.State("SUM"):
                with m.If(_rtl_exp_sum_pass(m, r, p, "RECIP")):
                    m.d.sync += [rem.eq(1 << 19), recip.eq(0)]
            with m.State("RECIP"):
                # 2**52 // total: the dividend's top bit is preset in rem, the rest are 0.
                _rtl_divide_step(m, r.cnt, rem, recip, p.total, 0, _SOFTMAX_RECIP_BITS,
                                 "NORM")
            with m.State("NORM"):
                # The exp again (not kept from the sum pass: see the module docstring).
                self._write_pass(m, r, (p.v1, p.v2, v3), _rtl_round_shift(e_r * recip, 41),
                                 "MAX")
                m.d.sync += [p.t15.eq(_rtl_log2e(r.x - p.mx)), e_r.eq(p.e)]
        return m


class Entropy(_RowUnit):
    """Row-wise entropy of the softmax of Q6.10 logits (:func:`entropy_q610`, bit-exact).

    EdgeBERT's early-exit signal: ``H = ln(sum e**(x - m)) + sum (m - x) e**(x - m) /
    sum e**(x - m)`` nats, ``m = max(x)``, the form of its hardware (harvard-acc/EdgeBERT
    ``hw/cmod/Enpy``), which needs one ``ln`` and one division per row instead of a
    ``p log p`` per element. Operands: ``src`` (read) holds the ``rows x n`` logits at
    ``src_addr``; ``dst`` (write) receives one Q6.10 entropy per row, row ``r``'s at
    ``dst_addr + r``. ``dst`` may be ``src`` with ``dst_addr = src_addr``: row ``r``'s result
    lands inside rows ``0..r``, which are consumed by then.

    ========  ==========  ==================================================
    phase     cycles      work
    ========  ==========  ==================================================
    max       ``n + 1``   read, running maximum
    sum       ``n + 2``   read, exp, accumulate ``sum e`` and ``sum (m - x) e``
    setup     1           ``ln(sum e)`` (leading one + table), load the divider
    divide    22          restoring divider, ``E_p[m - x]`` in Q.16
    write     1           round ``ln + E_p[m - x]`` to Q.10, saturate, write
    ========  ==========  ==================================================

    ``cycles = rows * (2 n + 27) + 1``.

    Parameters
    ----------
    addr_width : int
        Address bits of every operand's buffer, 1..16.
    """

    KIND = "entropy"
    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        k: _ENERGY[k] for k in ("exp", "add", "add32", "mul", "lut", "div_step")}
    ENERGY_SOURCES: Mapping[str, str] = {k: _SOURCES[k] for k in ENERGY_PER_ACTION_J}

    def _spans(self, a: Mapping[str, int]) -> dict[str, int]:
        return {"src": a["rows"] * a["n"], "dst": a["rows"]}

    def _row_cycles(self, n: int) -> int:
        # setup, divide, write
        return _max_sum_cycles(n) + 1 + _ENTROPY_QUOTIENT_BITS + 1

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Per element: 2 reads, 1 exp, a compare and a subtract (``add``), two
        accumulations (``add32``), ``(m - x) * e`` (``mul``); per row: one ``ln`` (a
        ``lut`` read, 2 ``mul``, 2 ``add32``), 22 divider steps, the final add (``add32``) and
        rounding (``add``), 1 write."""
        a = self._check(args)
        rows, n = a["rows"], a["n"]
        return {"read:src": 2 * rows * n, "write:dst": rows, "exp": rows * n,
                "add": 2 * rows * n + rows, "add32": 2 * rows * n + 3 * rows,
                "mul": rows * n + 2 * rows, "lut": rows,
                "div_step": _ENTROPY_QUOTIENT_BITS * rows}

    def _result(self, x: np.ndarray, vectors: Mapping[str, np.ndarray]) -> np.ndarray:
        return entropy_q610(x)

    def elaborate(self, platform: object) -> Module:
        m = Module()
        r = self._row_regs(m)
        p = _rtl_exp_row(m)
        spread = Signal(54)         # sum (m - x) e, Q.30, < 2**52
        gap = Signal(16)            # m - x
        rem = Signal(39)
        num = Signal(_ENTROPY_QUOTIENT_BITS)
        quot = Signal(_ENTROPY_QUOTIENT_BITS)
        ln_r = Signal(21)
        ln = _rtl_ln(m, p.total)
        with self._row_fsm(m, r, "MAX"):
            with m.State("MAX"):
                with m.If(_rtl_max_pass(m, r, p, "SUM")):
                    m.d.sync += spread.eq(0)
            with m.State("SUM"):
                _rtl_exp_sum_pass(m, r, p, "SETUP")
                # Alongside the sum of e: the sum of (m - x) e, gap in step with t15.
                m.d.sync += gap.eq(p.mx - r.x)
                with m.If(p.v2):
                    m.d.sync += spread.eq(spread + gap * p.e)
            with m.State("SETUP"):
                # The quotient is < 2**22, so the top bits of the dividend (spread << 6)
                # leave a remainder below the divisor: start from them.
                m.d.sync += [rem.eq(spread >> 16), num.eq(spread[:16] << 6), quot.eq(0),
                             ln_r.eq(ln)]
                m.next = "DIV"
            with m.State("DIV"):
                _rtl_divide_step(m, r.cnt, rem, quot, p.total, num[-1],
                                 _ENTROPY_QUOTIENT_BITS, "WRITE")
                m.d.sync += num.eq(num << 1)
            with m.State("WRITE"):
                h = Signal(17)
                m.d.comb += [h.eq(_rtl_round_shift(ln_r + quot, 5)),
                             self.dst.en.eq(1), self.dst.addr.eq(r.dst_ptr),
                             self.dst.data.eq(Mux(h > _QMAX, _QMAX, h))]
                self._next_row(m, r, "MAX", r.dst_ptr.eq(r.dst_ptr + 1))
        return m


class LayerNorm(_RowUnit):
    """Row-wise LayerNorm of a ``rows x n`` Q6.10 matrix (:func:`layernorm_q610`, bit-exact).

    ``y = (x - mean) / sqrt(var + EPS) * gamma + beta`` per row, with :data:`EPS` ``=
    2**-20`` (the smallest epsilon the integer variance represents). Operands: ``src``
    (read, the matrix at ``src_addr``), ``gamma`` and ``beta`` (read, ``n``-element vectors
    at ``gamma_addr``/``beta_addr``), ``dst`` (write, at ``dst_addr``; may be the same buffer
    and region as ``src``). The statistics are exact integers (``sum x``, ``sum x**2``), so
    one statistics pass suffices and no division by ``n`` is needed.

    ========  ==========  ==================================================
    phase     cycles      work
    ========  ==========  ==================================================
    stats     ``n + 1``   read, accumulate ``sum x`` and ``sum x**2``
    variance  1           ``v = n sum x**2 - (sum x)**2 + n**2``
    normalize 1           leading one: ``v = u * 2**62 / 4**j``
    seed      1           ``1 / sqrt(u)`` from the 48-entry table
    newton    6           two steps of 3 multiplications
    output    ``n + 3``   read x, gamma, beta; ``n x - sum x``; scale; round;
                          ``* gamma + beta``; saturate; write
    ========  ==========  ==================================================

    ``cycles = rows * (2 n + 13) + 1``.

    Parameters
    ----------
    addr_width : int
        Address bits of every operand's buffer, 1..16.
    """

    KIND = "layernorm"
    READS = ("src", "gamma", "beta")
    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        k: _ENERGY[k] for k in ("add32", "mul", "mul32", "lut")}
    ENERGY_SOURCES: Mapping[str, str] = {k: _SOURCES[k] for k in ENERGY_PER_ACTION_J}

    def _spans(self, a: Mapping[str, int]) -> dict[str, int]:
        size = a["rows"] * a["n"]
        return {"src": size, "gamma": a["n"], "beta": a["n"], "dst": size}

    def _row_cycles(self, n: int) -> int:
        # stats, variance, normalize, seed, newton, output
        return (n + 1) + 1 + 1 + 1 + 3 * _NEWTON_STEPS + (n + 3)

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Per element: reads of x (twice), gamma and beta, 1 write; ``x**2`` and ``n x``
        (``mul``), ``(n x - s1) * rsqrt`` and ``z * gamma`` (``mul32``), two accumulations,
        the subtraction, two roundings and ``+ beta`` (``add32``). Per row: the variance (3
        ``mul32``, 2 ``add32``), the seed (``lut``) and the Newton steps (3 ``mul32`` and 1
        ``add32`` each)."""
        a = self._check(args)
        rows, n = a["rows"], a["n"]
        return {"read:src": 2 * rows * n, "read:gamma": rows * n, "read:beta": rows * n,
                "write:dst": rows * n, "mul": 2 * rows * n,
                "mul32": 2 * rows * n + (3 + 3 * _NEWTON_STEPS) * rows,
                "add32": 6 * rows * n + (2 + _NEWTON_STEPS) * rows, "lut": rows}

    def _result(self, x: np.ndarray, vectors: Mapping[str, np.ndarray]) -> np.ndarray:
        return layernorm_q610(x, vectors["gamma"], vectors["beta"])

    def elaborate(self, platform: object) -> Module:
        m = Module()
        r = self._row_regs(m)
        n, cnt, x, issue = r.n, r.cnt, r.x, r.issue
        aw = self._addr_width
        gamma_base, beta_base = Signal(aw, name="gamma_base"), Signal(aw, name="beta_base")
        s1 = Signal(signed(34))     # |sum x| < 2**31
        s2 = Signal(48)             # sum x**2 <= 2**46
        var = Signal(63)            # n**2 (var + EPS) 2**20 < 2**62
        j = Signal(5)
        shr = Signal(6)             # 36 - j: the rounding shift of z, minus one
        u32 = Signal(32)
        y = Signal(32)              # 1 / sqrt(u), Q2.30
        sq = Signal(34)
        t = Signal(34)
        second = Signal()
        d1 = Signal(signed(35))
        z2 = Signal(signed(32))
        g1, g2, b1, b2 = (Signal(signed(16), name=name) for name in ("g1", "g2", "b1", "b2"))
        v1, v2, v3 = Signal(name="v1"), Signal(name="v2"), Signal(name="v3")
        m.d.comb += [self.gamma.addr.eq(gamma_base + cnt), self.beta.addr.eq(beta_base + cnt)]
        bits = _rtl_bit_length(m, var, "var_bits")
        jj = Signal(5)
        m.d.comb += jj.eq((62 - bits) >> 1)
        seed = Array([Const(0, 32)] * 16 + [Const(v, 32) for v in RSQRT_LUT])
        out = Signal(signed(34))
        m.d.comb += out.eq(_rtl_round_shift(z2 * g2, 15) + b2)
        load = (gamma_base.eq(self.arg_gamma_addr), beta_base.eq(self.arg_beta_addr),
                s1.eq(0), s2.eq(0))
        with self._row_fsm(m, r, "STATS", load):
            with m.State("STATS"):
                _rtl_pass(m, r, (v1,), "VAR")
                with m.If(v1):
                    m.d.sync += [s1.eq(s1 + x), s2.eq(s2 + x * x)]
            with m.State("VAR"):
                m.d.sync += var.eq(n * s2 - s1 * s1 + n * n)
                m.next = "NORMALISE"
            with m.State("NORMALISE"):
                m.d.sync += [j.eq(jj), shr.eq(36 - jj),
                             u32.eq((var << (jj << 1))[30:62]), second.eq(0)]
                m.next = "SEED"
            with m.State("SEED"):
                m.d.sync += y.eq(seed[u32[26:32]])
                m.next = "SQUARE"
            with m.State("SQUARE"):
                m.d.sync += sq.eq((y * y) >> 30)
                m.next = "SCALE"
            with m.State("SCALE"):
                m.d.sync += t.eq((u32 * sq) >> 32)
                m.next = "STEP"
            with m.State("STEP"):
                # y * (3 << 30 - t) >> 31 with no value wider than 64 bits (Verilator's
                # wide arithmetic is library loops, run every cycle): split the 35-bit
                # factor into its low 32 bits and its signed top; exact modulo 2**32.
                f = Const(3 << 30, 33) - t
                p_lo, p_hi = y * f[:32], y * f[32:].as_signed()
                m.d.sync += [y.eq((p_lo >> 31) + (p_hi << 1)), second.eq(1)]
                m.next = "SQUARE"
                with m.If(second):
                    m.next = "OUTPUT"
            with m.State("OUTPUT"):
                self._write_pass(m, r, (v1, v2, v3),
                                 Mux(out > _QMAX, _QMAX, Mux(out < _QMIN, _QMIN, out)),
                                 "STATS", s1.eq(0), s2.eq(0))
                m.d.comb += [self.gamma.en.eq(issue), self.beta.en.eq(issue)]
                m.d.sync += [d1.eq(n * x - s1),
                             g1.eq(self.gamma.data.as_signed()),
                             b1.eq(self.beta.data.as_signed()),
                             # y[8:] is y >> 8 as 24 bits: a 60-bit product (64-bit C++)
                             z2.eq(_rtl_round_shift(d1 * y[8:], shr)),
                             g2.eq(g1), b2.eq(b1)]
        return m
