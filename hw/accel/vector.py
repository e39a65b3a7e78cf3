"""The element-wise vector unit: add, multiply, max, ReLU, requantize, scale, transpose, GELU,
tanh and ReLU's gradient.

One :class:`VectorUnit` invocation streams ``n`` elements (``rows * cols`` for a transpose)
from operand ``a`` (and ``b``) to operand ``z``, one element per cycle (one row of ``lanes``
elements per cycle, see *Lanes*) through a two-stage pipeline, under the unit contract of
:mod:`archsim.hw.accel.interface`. Every operand word is a signed two's-complement number of
its operand's width. The operation is chosen per invocation by the ``op`` argument, a code of
:data:`VECTOR_OPS`:

=============== ============================================= ===========================
op              ``z[i]`` (before saturation to ``z_width``)   uses ``shift``
=============== ============================================= ===========================
``add``         ``a[i] + b[i]``                               no
``sub``         ``a[i] - b[i]``                               no
``mul``         ``rshift(a[i] * b[i], shift)``                yes
``max``         ``max(a[i], b[i])``                           no
``relu``        ``max(a[i], 0)``                              no
``copy``        ``a[i]``                                      no
``requant``     ``rshift(a[i], shift)``                       yes
``scale``       ``rshift(a[i] * b[0], shift)``                yes
``transpose``   ``z[c*rows + r] = rshift(a[r*cols + c], s)``  yes (a requantizing move)
``add_requant`` ``rshift(a[i] + b[i], shift)``                yes
``gelu``        ``GELU(a[i])`` in Q6.10 (:func:`gelu_q610`)   no
``tanh``        ``tanh(a[i])`` in Q6.10 (:func:`tanh_q610`)   no
``relu_grad``   ``a[i] if b[i] > 0 else 0``                   no
=============== ============================================= ===========================

``relu_grad`` is the backward pass of a ReLU: ``a`` is the upstream gradient and ``b`` the
forward pre-activation (or the ReLU's output: both are positive exactly where the ReLU
passes its input), so ``a``'s and ``b``'s scales need not agree and ``b`` may be a wider
accumulator than ``a``.

``rshift(x, s)`` is an arithmetic right shift rounding half up, ``floor(x / 2**s + 1/2)``
(so ``-1.5`` rounds to ``-1`` and ``1.5`` to ``2``), and every result saturates to the signed
range of ``z_width`` bits: e.g. ``requant`` of int32 accumulators to int8 (``z_width=8``) or
to Q6.10 (``z_width=16``). A transpose reads ``a`` as a ``rows x cols`` row-major matrix and
writes its ``cols x rows`` transpose; it ignores ``n``. Ops that do not use ``b`` never read
it; ``scale`` reads ``b[0]`` once (the read port holds its data while not enabled).
An element-wise op may run in place (``z`` bound to ``a``'s buffer at the same base):
element ``i`` is written after element ``i + 2`` is read (row ``j`` after row ``j + 2``). A
transpose may not.

GELU and tanh
-------------
``gelu`` and ``tanh`` take and give Q6.10 (a 16-bit code ``c`` is the value ``c / 1024``),
so they are allowed only in a unit whose ``a_width`` and ``z_width`` are 16; they compute
``z = round(f(x / 1024) * 1024)`` with ``f`` BERT's exact GELU, ``x * Phi(x)`` (``Phi`` the
standard normal CDF, the erf form), or the real tanh. Both are one table method:

* Symmetry halves the table: ``tanh(-t) = -tanh(t)``, and ``GELU(x) = x + GELU(-x)`` (as
  ``Phi(x) = 1 - Phi(-x)``), so with ``t = |x|`` and ``g(t) = -GELU(-t) = t * Phi(-t) >= 0``
  (at most 0.17, vanishing as ``t`` grows), ``GELU(x) = max(x, 0) - g(|x|)``. Both tables
  are indexed by ``|x|`` only; GELU's holds the small smooth ``g``, not the unbounded GELU,
  so its entries need only 15 bits.
* ``t = min(|x|, 8191)`` (``8 - 2**-10``): beyond 8 both functions are constant in Q6.10
  (``1 - tanh(8) = 2.3e-7`` and ``g(8) = 5e-15`` are far below half an LSB).
* A ROM (:data:`LUT_ROM`, 512 words of 26 bits, ``amaranth.lib.memory.Memory`` with one
  synchronous read port per lane) holds, for each function, ``f`` at the 257 breakpoints
  ``k / 32`` (``k = 0..256``) in Q.14 (:data:`TANH_LUT`, :data:`GELU_LUT`) as 256 words
  (entry ``k``, difference to entry ``k + 1``). Linear interpolation between them:
  ``y = (lut[s] << 5) + (lut[s + 1] - lut[s]) * p`` in Q.19 with ``s = t >> 5``, ``p = t &
  31`` (exact integers; no rounding before the last step). Segments of ``2**-5`` keep the
  interpolation error below ``h**2 / 8 * max|f''| = 0.1`` LSB for both (``|tanh''| <= 0.77``,
  ``|g''| <= 0.80``), 14 fractional bits keep the entries' rounding below ``2**-5`` LSB.
* The result is rounded once to Q6.10 with the unit's own ``rshift(., 9)``: for tanh of a
  negative ``x`` the one's complement ``~y = -y - 1`` is rounded, which equals ``-rshift(y,
  9)``, so the RTL's tanh is exactly odd; for GELU ``(max(x, 0) << 9) - y`` is rounded.

Measured exhaustively over all 65536 Q6.10 inputs against float64 (``scipy.special.erf`` /
``numpy.tanh``, tests/test_hw_accel_vector.py asserts these bounds): |error| max / mean, in
LSB of the exact ``f(x) * 1024`` (the final rounding alone accounts for up to 0.5): GELU
0.575 / 0.0325 (0.130 over ``|x| < 8``), tanh 0.594 / 0.0403
(0.161 over ``|x| < 8``); the result differs from the correctly rounded one for
198 (0.30%, GELU) and 222 (0.34%, tanh) of the inputs, each time by 1 LSB.

Why a table and not a polynomial or an iteration: one ROM read and one small multiply-add
per element keep the one-element-per-cycle pipeline (the same two stages as every other op:
the ROM's synchronous read takes the place of the first result register), and the
symmetries make the same ``|x|``-indexed ROM and datapath serve both functions.

Lanes
-----
With ``lanes = L > 1`` every operand is an ``L``-lane row port (one row of ``L`` consecutive
elements per access, binding to a buffer of ``L`` banks): ``n`` must be a multiple of ``L``
and ``a_addr``, ``b_addr``, ``z_addr`` multiples of ``L``; each lane has its own datapath
(and its own read port of the ROM). ``scale`` takes lane 0 of ``b``'s row at ``b_addr``.
``transpose`` needs ``lanes == 1``.

Timing: with ``m`` elements in ``r = m / lanes`` rows, row ``j`` is read in cycle
``s + 1 + j``, its result registered in ``s + 2 + j`` and written in ``s + 3 + j``; ``done``
is raised in the cycle after the last write (when the results are visible to reads), so an
invocation of ``m >= 1`` elements takes ``m / lanes + 3`` cycles (``m = 0``: 1 cycle).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from amaranth.hdl import Cat, Module, Mux, Signal, Value, signed
from amaranth.lib.memory import Memory
from numpy.typing import ArrayLike

from ...errors import ConfigError
from ..checks import check_int, silence_unused
from ..hls_ops import op_cost, sram_read_energy_j
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["VECTOR_OPS", "SHIFTED_OPS", "BINARY_OPS", "FUNCTION_OPS", "MAX_SHIFT",
           "MAX_LANES", "VectorUnit", "vector_op_code", "vector_op_golden", "round_shift",
           "saturate", "gelu_q610", "tanh_q610", "TANH_LUT", "GELU_LUT", "LUT_ROM",
           "LUT_FRAC_BITS", "LUT_SEGMENT_BITS", "LUT_INPUT_LIMIT"]

#: Operation name -> the code the ``op`` argument takes (new ops are appended: descriptions
#: such as :mod:`archsim.dsl.examples.npu` repeat some codes).
VECTOR_OPS: Mapping[str, int] = {
    "add": 0, "sub": 1, "mul": 2, "max": 3, "relu": 4, "copy": 5, "requant": 6,
    "scale": 7, "transpose": 8, "add_requant": 9, "gelu": 10, "tanh": 11, "relu_grad": 12,
}
_NAMES = {code: name for name, code in VECTOR_OPS.items()}
#: Ops whose result is shifted right by the ``shift`` argument (with rounding).
SHIFTED_OPS = frozenset({"mul", "requant", "scale", "add_requant", "transpose"})
#: Ops that read ``b`` element by element (``scale`` reads only ``b[0]``).
BINARY_OPS = frozenset({"add", "sub", "mul", "max", "add_requant", "relu_grad"})
#: Ops computed by the interpolation ROM, on Q6.10 operands (``a_width == z_width == 16``).
FUNCTION_OPS = frozenset({"gelu", "tanh"})
#: Largest ``shift`` argument (the latched shift amount is 6 bits wide).
MAX_SHIFT = 63
#: Largest ``lanes`` parameter (a power of two).
MAX_LANES = 64

#: Fractional bits of the ROM's entries (Q.14).
LUT_FRAC_BITS = 14
#: Bits of ``|x|`` below the segment index: segments of ``2**5`` codes (``1/32``).
LUT_SEGMENT_BITS = 5
#: ``|x|`` is clamped to this code (``8 - 2**-10``) before the lookup.
LUT_INPUT_LIMIT = (1 << 13) - 1
_SEGMENTS = (LUT_INPUT_LIMIT + 1) >> LUT_SEGMENT_BITS   # 256
_Q610 = 10
# The interpolated value is in Q.(LUT_FRAC_BITS + LUT_SEGMENT_BITS); this rounds it to Q.10.
_LUT_SHIFT = LUT_FRAC_BITS + LUT_SEGMENT_BITS - _Q610     # 9


def _breakpoints(f: Callable[[float], float]) -> tuple[int, ...]:
    return tuple(round(f(k / (1 << LUT_SEGMENT_BITS)) * (1 << LUT_FRAC_BITS))
                 for k in range(_SEGMENTS + 1))


#: ``tanh(k / 32)`` in Q.14, ``k = 0..256``: the tanh interpolation table.
TANH_LUT: tuple[int, ...] = _breakpoints(math.tanh)
#: ``g(k / 32) = -GELU(-k / 32) = (k / 32) * Phi(-k / 32)`` in Q.14, ``k = 0..256``: the GELU
#: interpolation table (``GELU(x) = max(x, 0) - g(|x|)``).
GELU_LUT: tuple[int, ...] = _breakpoints(
    lambda t: t * 0.5 * math.erfc(t / math.sqrt(2.0)))
_BASE_BITS = max(TANH_LUT + GELU_LUT).bit_length()                        # 15
_DELTA_BITS = 1 + max(abs(b - a) for lut in (TANH_LUT, GELU_LUT)
                      for a, b in zip(lut, lut[1:], strict=False)).bit_length()  # 11, signed
_ROM_WIDTH = _BASE_BITS + _DELTA_BITS


def _rom_words(lut: tuple[int, ...]) -> list[int]:
    mask = (1 << _DELTA_BITS) - 1
    return [a | (((b - a) & mask) << _BASE_BITS) for a, b in zip(lut, lut[1:], strict=False)]


#: The ROM's words: tanh's 256 segments, then GELU's (address ``is_gelu * 256 + segment``);
#: each word is the segment's first entry (low 15 bits) and its signed difference to the next
#: (11 bits above).
LUT_ROM: tuple[int, ...] = tuple(_rom_words(TANH_LUT) + _rom_words(GELU_LUT))


def vector_op_code(name: str) -> int:
    """The ``op`` argument value of the operation called ``name``.

    Raises
    ------
    ConfigError
        If ``name`` is not an operation of :data:`VECTOR_OPS` (the message lists them).
    """
    if name not in VECTOR_OPS:
        raise ConfigError(f"unknown vector op {name!r}", field="op", allowed=list(VECTOR_OPS))
    return VECTOR_OPS[name]


def round_shift(x: np.ndarray, shift: int) -> np.ndarray:
    """``floor(x / 2**shift + 1/2)`` on ``int64`` values (arithmetic shift, round half up).

    Written as ``(x >> s) + ((x >> (s - 1)) & 1)`` so that no intermediate overflows.
    """
    x = np.asarray(x, dtype=np.int64)
    if shift == 0:
        return x.copy()
    return (x >> shift) + ((x >> (shift - 1)) & 1)


def saturate(x: np.ndarray, width: int) -> np.ndarray:
    """Clamp ``int64`` values to the signed range of ``width`` bits."""
    return np.clip(np.asarray(x, dtype=np.int64), -(1 << (width - 1)), (1 << (width - 1)) - 1)


def _q610_codes(x: ArrayLike, name: str) -> np.ndarray:
    codes = np.asarray(x)
    if codes.dtype.kind not in "iu":
        raise TypeError(f"{name}: x must hold integer Q6.10 codes, not {codes.dtype}")
    codes = codes.astype(np.int64)
    if codes.size and (codes.min() < -(1 << 15) or codes.max() >= 1 << 15):
        raise ValueError(f"{name}: x must hold Q6.10 codes in -32768..32767, not "
                         f"{int(codes.min())}..{int(codes.max())}")
    return codes


def _interpolated(lut: tuple[int, ...], x: np.ndarray) -> np.ndarray:
    """``f(min(|x|, limit))`` in Q.19, interpolated in ``lut`` (see the module docstring)."""
    table = np.asarray(lut, dtype=np.int64)
    t = np.minimum(np.abs(x), LUT_INPUT_LIMIT)
    seg, pos = t >> LUT_SEGMENT_BITS, t & ((1 << LUT_SEGMENT_BITS) - 1)
    return (table[seg] << LUT_SEGMENT_BITS) + (table[seg + 1] - table[seg]) * pos


def tanh_q610(x: ArrayLike) -> np.ndarray:
    """``tanh`` of Q6.10 codes as the unit computes it (bit-exact): Q6.10 codes, ``int64``.

    ``rshift(y, 9)`` of the interpolated ``y = tanh(|x|)`` in Q.19, negated for ``x < 0``
    (rounded as ``rshift(~y, 9)``, which is the same), so ``tanh_q610(-x) == -tanh_q610(x)``.
    """
    codes = _q610_codes(x, "tanh_q610")
    y = _interpolated(TANH_LUT, codes)
    return round_shift(np.where(codes < 0, ~y, y), _LUT_SHIFT)


def gelu_q610(x: ArrayLike) -> np.ndarray:
    """BERT's exact GELU, ``x * Phi(x)``, of Q6.10 codes as the unit computes it (bit-exact).

    ``rshift((max(x, 0) << 9) - y, 9)`` with ``y = g(|x|)`` interpolated in Q.19 (module
    docstring); the result is in ``-174..32767``, so never saturates.
    """
    codes = _q610_codes(x, "gelu_q610")
    y = _interpolated(GELU_LUT, codes)
    return round_shift((np.maximum(codes, 0) << _LUT_SHIFT) - y, _LUT_SHIFT)


def vector_op_golden(op: str, a: np.ndarray, b: np.ndarray, shift: int, z_width: int, *,
                     rows: int = 0, cols: int = 0) -> np.ndarray:
    """One vector operation on signed integer values (not raw words), as the unit does it.

    Parameters
    ----------
    op : str
        A name of :data:`VECTOR_OPS`.
    a, b : numpy.ndarray
        Signed operand values (``b`` unused by unary ops; ``scale`` uses ``b[0]``); Q6.10
        codes for :data:`FUNCTION_OPS`.
    shift : int
        Right shift of the shifted ops (:data:`SHIFTED_OPS`), in ``0..MAX_SHIFT``.
    z_width : int
        The result saturates to the signed range of this many bits (16 for
        :data:`FUNCTION_OPS`).
    rows, cols : int
        The shape of ``a`` for ``transpose``.

    Returns
    -------
    numpy.ndarray
        Signed ``int64`` results (``rows * cols`` of them for a transpose).
    """
    vector_op_code(op)
    check_int("shift", shift, 0, MAX_SHIFT)
    if op in FUNCTION_OPS and z_width != 16:
        raise ValueError(f"vector op {op!r} gives Q6.10: z_width must be 16, not {z_width}")
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if op == "transpose":
        pre = a[:rows * cols].reshape(rows, cols).T.ravel()
    elif op in ("add", "add_requant"):
        pre = a + b
    elif op == "sub":
        pre = a - b
    elif op == "mul":
        pre = a * b
    elif op == "max":
        pre = np.maximum(a, b)
    elif op == "relu":
        pre = np.maximum(a, 0)
    elif op == "relu_grad":
        pre = np.where(b > 0, a, 0)
    elif op == "scale":
        pre = a * b[0]
    elif op == "gelu":
        pre = gelu_q610(a)
    elif op == "tanh":
        pre = tanh_q610(a)
    else:  # copy, requant
        pre = a
    if op in SHIFTED_OPS:
        pre = round_shift(pre, shift)
    return saturate(pre, z_width)


def _signed(words: np.ndarray, width: int) -> np.ndarray:
    w = np.asarray(words, dtype=np.int64) & ((1 << width) - 1)
    return np.where(w >= 1 << (width - 1), w - (1 << width), w)


#: The interpolation ROM's geometry, for its read energy.
_ROM_DEPTH = len(LUT_ROM)
#: The interpolation's multiplier: the signed difference times the 5-bit position.
_INTERP_MUL_BITS = _DELTA_BITS
_INTERP_ADD_BITS = _BASE_BITS + LUT_SEGMENT_BITS + 2


class VectorUnit(Unit):
    """The element-wise vector unit (see the module docstring for ops, lanes and timing).

    Parameters
    ----------
    a_width, b_width, z_width : int
        Bits per element of operands ``a``, ``b`` (read) and ``z`` (write), 2..32. ``gelu``
        and ``tanh`` need ``a_width == z_width == 16`` (Q6.10); only such a unit has the ROM.
    addr_width : int
        Address bits of each operand's port (a row address when ``lanes > 1``), 1..32.
    lanes : int
        Elements per access of every operand, a power of two in ``1..MAX_LANES`` (1: one
        element per cycle).

    Notes
    -----
    Arguments: ``a_addr``, ``b_addr``, ``z_addr``, ``op`` (a :data:`VECTOR_OPS` code),
    ``n``, ``shift``, ``rows``, ``cols``. Energy per action (at 45 nm, 0.9 V): ``"alu"`` is
    one 32-bit add (Horowitz: 0.1 pJ), counted once per element for the add/compare/round/
    saturate pass of every op (an assumption: the rounding adder and the saturating
    comparators are taken as one adder's worth) and once more per element of ``gelu`` and
    ``tanh`` (the ``|x|`` and clamp in front of the ROM); ``"mul"`` one 32-bit multiply
    (3.1 pJ), per element of ``mul`` and ``scale``; ``"rom"`` one read of the 512 x 26-bit
    interpolation ROM and ``"interp"`` its 11-bit multiply and 22-bit add, per element of
    ``gelu`` and ``tanh`` (:attr:`ENERGY_SOURCES` gives the figures).
    """

    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        "alu": op_cost("add", 32).energy_j,
        "mul": op_cost("mul", 32).energy_j,
        "rom": sram_read_energy_j(_ROM_WIDTH, _ROM_DEPTH),
        "interp": op_cost("mul", _INTERP_MUL_BITS).energy_j
        + op_cost("add", _INTERP_ADD_BITS).energy_j,
    }
    ENERGY_SOURCES: Mapping[str, str] = {
        "alu": "M. Horowitz, ISSCC 2014, 45 nm: 32-bit add 0.1 pJ (one per element; the "
               "rounding and saturation logic assumed to cost no more than that adder)",
        "mul": "M. Horowitz, ISSCC 2014, 45 nm: 32-bit multiply 3.1 pJ",
        "rom": f"assumed: the {_ROM_DEPTH} x {_ROM_WIDTH}-bit ROM read priced as an SRAM read, "
               "Horowitz ISSCC 2014 (45 nm) 10 pJ per 64-bit read of an 8 KB SRAM scaled by "
               "width and sqrt(size) (archsim.hw.hls_ops.sram_read_energy_j)",
        "interp": f"Horowitz ISSCC 2014 (45 nm) interpolated by archsim.hw.hls_ops.op_cost: "
                  f"a {_INTERP_MUL_BITS}-bit multiply (the {_DELTA_BITS} x "
                  f"{LUT_SEGMENT_BITS}-bit one priced as {_INTERP_MUL_BITS} x "
                  f"{_INTERP_MUL_BITS}: an upper bound) + a {_INTERP_ADD_BITS}-bit add",
    }

    def __init__(self, *, a_width: int = 32, b_width: int = 32, z_width: int = 32,
                 addr_width: int = 16, lanes: int = 1) -> None:
        try:
            for name, value in (("a_width", a_width), ("b_width", b_width),
                                ("z_width", z_width)):
                check_int(name, value, 2, 32)
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
            check_int("lanes", lanes, 1, MAX_LANES)
            if lanes & (lanes - 1):
                allowed = tuple(1 << k for k in range(MAX_LANES.bit_length()))
                raise ValueError(f"lanes must be one of {allowed}, not {lanes}")
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.a_width, self.b_width, self.z_width = a_width, b_width, z_width
        self.addr_width, self.lanes = addr_width, lanes
        self.contract = UnitContract(
            kind="vector", args=("op", "n", "shift", "rows", "cols"),
            operands=(Operand("a", "read", a_width, lanes),
                      Operand("b", "read", b_width, lanes),
                      Operand("z", "write", z_width, lanes)))
        super().__init__(self.contract.members({"a": addr_width, "b": addr_width,
                                                "z": addr_width}))

    @property
    def has_tables(self) -> bool:
        """Whether the unit can run ``gelu`` and ``tanh`` (it has the ROM): ``a_width`` and
        ``z_width`` are 16."""
        return self.a_width == 16 and self.z_width == 16

    # -- the model view ------------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> tuple[dict[str, int], str, int]:
        """Checked arguments, the op's name and the element count."""
        checked = self.contract.check_args(args)
        code = checked["op"]
        if code not in _NAMES:
            raise ValueError(f"unit kind 'vector': argument 'op' must be one of "
                             f"{dict(VECTOR_OPS)}, not {code}")
        if checked["shift"] > MAX_SHIFT:
            raise ValueError(f"unit kind 'vector': argument 'shift' must be in "
                             f"0..{MAX_SHIFT}, not {checked['shift']}")
        op = _NAMES[code]
        if op in FUNCTION_OPS and not self.has_tables:
            raise ValueError(f"unit kind 'vector': op {op!r} needs a_width 16 and z_width 16 "
                             f"(Q6.10), not a_width {self.a_width} and z_width {self.z_width}")
        lanes = self.lanes
        if op == "transpose" and lanes != 1:
            raise ValueError(f"unit kind 'vector': op 'transpose' needs lanes 1, not {lanes}")
        if lanes > 1:
            for name in ("n", "a_addr", "b_addr", "z_addr"):
                if checked[name] % lanes:
                    raise ValueError(f"unit kind 'vector': argument {name!r} must be a "
                                     f"multiple of lanes ({lanes}), not {checked[name]}")
        count = checked["rows"] * checked["cols"] if op == "transpose" else checked["n"]
        if count > lanes << self.addr_width:
            raise ValueError(f"unit kind 'vector': {count} elements do not fit a "
                             f"{self.addr_width}-bit address space"
                             + (f" of {lanes}-element rows" if lanes > 1 else ""))
        return checked, op, count

    def cycles(self, args: Mapping[str, int]) -> int:
        """``m / lanes + 3`` for ``m >= 1`` elements (read, register, write, done), 1 for
        ``m = 0``."""
        _, _, count = self._check(args)
        return count // self.lanes + 3 if count else 1

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Per element one ``"alu"`` pass, plus one ``"mul"`` for ``mul`` and ``scale``, and
        one more ``"alu"``, one ``"rom"`` and one ``"interp"`` for ``gelu`` and ``tanh``; the
        port accesses, one per row of ``lanes`` elements (``b`` only for binary ops; once for
        ``scale``)."""
        _, op, count = self._check(args)
        rows = count // self.lanes
        b_reads = rows if op in BINARY_OPS else (min(rows, 1) if op == "scale" else 0)
        table = count if op in FUNCTION_OPS else 0
        out = {"alu": count + table, "mul": count if op in ("mul", "scale") else 0,
               "read:a": rows, "read:b": b_reads, "write:z": rows}
        if self.has_tables:
            out.update(rom=table, interp=table)
        return out

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """``a`` and ``z``: ``m`` elements from their bases; ``b``: ``m``, 1 (``scale``; a
        whole row when ``lanes > 1``) or none."""
        checked, op, count = self._check(args)
        b_len = count if op in BINARY_OPS else (
            min(count, self.lanes) if op == "scale" else 0)
        return {"a": (checked["a_addr"], checked["a_addr"] + count),
                "b": (checked["b_addr"], checked["b_addr"] + b_len),
                "z": (checked["z_addr"], checked["z_addr"] + count)}

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Decode the words as signed, compute in ``int64`` (:func:`vector_op_golden`),
        saturate and write ``z`` back as unsigned words."""
        checked, op, count = self._check(args)
        if count == 0:
            return
        a0, b0, z0 = checked["a_addr"], checked["b_addr"], checked["z_addr"]
        a = _signed(buffers["a"][a0:a0 + count], self.a_width)
        b_len = count if op in BINARY_OPS else 1
        b = _signed(buffers["b"][b0:b0 + b_len], self.b_width) if (
            op in BINARY_OPS or op == "scale") else np.zeros(count, np.int64)
        z = vector_op_golden(op, a, b, checked["shift"], self.z_width,
                             rows=checked["rows"], cols=checked["cols"])
        buffers["z"][z0:z0 + count] = z & ((1 << self.z_width) - 1)

    # -- the RTL view --------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        """Issue one row read per cycle, register each lane's raw result (or look its
        function up in the ROM), round, saturate and write the row."""
        m = Module()
        aw, lanes = self.addr_width, self.lanes
        log_lanes = lanes.bit_length() - 1
        op = Signal(4)
        shamt = Signal(range(MAX_SHIFT + 1))  # 0 for ops that do not shift
        count = Signal(2 * ARG_WIDTH)         # rows (accesses) of the invocation
        issued = Signal(2 * ARG_WIDTH)        # reads issued so far
        a_ptr, b_ptr, z_ptr = Signal(aw), Signal(aw), Signal(aw)
        col_ptr = Signal(aw)                  # transpose: address of a[0][c]
        r = Signal(ARG_WIDTH)
        rows, cols = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        v1, v2 = Signal(), Signal()           # data arriving / result registered
        last1, last2 = Signal(), Signal()
        zero_done = Signal()
        busy = Signal()                       # registered; the member adds zero_done's cycle

        code = VECTOR_OPS
        is_shifted = Signal()
        m.d.comb += is_shifted.eq(
            (self.arg_op == code["mul"]) | (self.arg_op == code["requant"])
            | (self.arg_op == code["scale"]) | (self.arg_op == code["add_requant"])
            | (self.arg_op == code["transpose"]))
        is_function_arg = (self.arg_op == code["gelu"]) | (self.arg_op == code["tanh"])
        is_transpose_arg = self.arg_op == code["transpose"]
        start_count = Mux(is_transpose_arg, self.arg_rows * self.arg_cols,
                          self.arg_n >> log_lanes)
        start_shift = Mux(is_shifted, self.arg_shift[:6], 0)
        if self.has_tables:
            start_shift = Mux(is_function_arg, _LUT_SHIFT, start_shift)

        with m.If(self.start & ~self.busy):
            m.d.sync += [
                op.eq(self.arg_op), shamt.eq(start_shift),
                count.eq(start_count), issued.eq(0),
                a_ptr.eq(self.arg_a_addr >> log_lanes), col_ptr.eq(self.arg_a_addr),
                b_ptr.eq(self.arg_b_addr >> log_lanes), z_ptr.eq(self.arg_z_addr >> log_lanes),
                r.eq(0), rows.eq(self.arg_rows), cols.eq(self.arg_cols),
            ]
            with m.If(start_count == 0):
                m.d.sync += zero_done.eq(1)
            with m.Else():
                m.d.sync += busy.eq(1)
        with m.If(zero_done):
            m.d.sync += zero_done.eq(0)
        # done follows the last write, so the results are in the buffer when it is seen
        finished = Signal()
        m.d.sync += finished.eq(v2 & last2)
        m.d.comb += [self.done.eq(zero_done | finished), self.busy.eq(busy | zero_done)]

        issuing = Signal()
        m.d.comb += issuing.eq(busy & (issued != count))
        uses_b = (op == code["add"]) | (op == code["sub"]) | (op == code["mul"]) \
            | (op == code["max"]) | (op == code["add_requant"]) | (op == code["relu_grad"])
        m.d.comb += [
            self.a.addr.eq(a_ptr), self.a.en.eq(issuing),
            self.b.addr.eq(b_ptr),
            self.b.en.eq(issuing & (uses_b | ((op == code["scale"]) & (issued == 0)))),
        ]
        with m.If(issuing):
            m.d.sync += [issued.eq(issued + 1), b_ptr.eq(b_ptr + 1)]
            if lanes == 1:  # the model allows a transpose only then
                with m.If(op == code["transpose"]):
                    # walk a down each column: + cols per row, then the next column's top
                    with m.If(r == rows - 1):
                        m.d.sync += [r.eq(0), col_ptr.eq(col_ptr + 1), a_ptr.eq(col_ptr + 1)]
                    with m.Else():
                        m.d.sync += [r.eq(r + 1), a_ptr.eq(a_ptr + cols)]
                with m.Else():
                    m.d.sync += a_ptr.eq(a_ptr + 1)
            else:
                m.d.sync += a_ptr.eq(a_ptr + 1)
        m.d.sync += [v1.eq(issuing), last1.eq(issuing & (issued == count - 1))]
        m.d.sync += [v2.eq(v1), last2.eq(last1)]
        with m.If(finished):
            m.d.sync += busy.eq(0)

        rom = None
        if self.has_tables:
            rom = Memory(shape=_ROM_WIDTH, depth=_ROM_DEPTH, init=LUT_ROM)
            m.submodules.lut_rom = rom
        b_lane0 = self.b.data[:self.b_width].as_signed()
        results = []
        for lane in range(lanes):
            sa = self.a.data.word_select(lane, self.a_width).as_signed()
            sb = self.b.data.word_select(lane, self.b_width).as_signed()
            if lanes > 1:  # scale multiplies every lane by b[0]
                sb = Mux(op == code["scale"], b_lane0, sb)
            stage2 = self._lane_stage1(m, op, sa, sb, lane)
            if rom is not None:
                stage2 = Mux((op == code["gelu"]) | (op == code["tanh"]),
                             self._lane_function(m, rom, op, sa, v1, lane), stage2)
            results.append(self._lane_stage2(m, stage2, shamt, lane))
        m.d.comb += [self.z.en.eq(v2), self.z.addr.eq(z_ptr), self.z.data.eq(Cat(*results))]
        with m.If(v2):
            m.d.sync += z_ptr.eq(z_ptr + 1)
        return m

    def _pre_width(self) -> int:
        return max(self.a_width + self.b_width, max(self.a_width, self.b_width) + 1)

    def _lane_stage1(self, m: Module, op: Signal, sa: Value, sb: Value, lane: int) -> Signal:
        """Stage 1 of one lane: the raw result from the read data, registered."""
        code = VECTOR_OPS
        pre = Signal(signed(self._pre_width()), name=f"pre_{lane}")
        with m.Switch(op):
            with m.Case(code["add"], code["add_requant"]):
                m.d.comb += pre.eq(sa + sb)
            with m.Case(code["sub"]):
                m.d.comb += pre.eq(sa - sb)
            with m.Case(code["mul"], code["scale"]):
                m.d.comb += pre.eq(sa * sb)
            with m.Case(code["max"]):
                m.d.comb += pre.eq(Mux(sa > sb, sa, sb))
            with m.Case(code["relu"]):
                m.d.comb += pre.eq(Mux(sa > 0, sa, 0))
            with m.Case(code["relu_grad"]):
                m.d.comb += pre.eq(Mux(sb > 0, sa, 0))
            with m.Default():
                m.d.comb += pre.eq(sa)
        pre_r = Signal.like(pre, name=f"pre_r_{lane}")
        m.d.sync += pre_r.eq(pre)
        return pre_r

    @staticmethod
    def _lane_function(m: Module, rom: Memory, op: Signal, sa: Value, v1: Signal,
                       lane: int) -> Signal:
        """GELU / tanh of one lane (as :func:`gelu_q610`, :func:`tanh_q610`): stage 1 looks
        ``min(|x|, limit)`` up in the ROM (a synchronous read, the stage's register); stage
        2 interpolates and combines, giving the value ``rshift(., 9)`` makes Q6.10."""
        is_gelu = op == VECTOR_OPS["gelu"]
        neg = sa < 0
        mag = Signal(17, name=f"lut_mag_{lane}")
        t = Signal(range(LUT_INPUT_LIMIT + 1), name=f"lut_t_{lane}")
        m.d.comb += [mag.eq(Mux(neg, -sa, sa)),
                     t.eq(Mux(mag > LUT_INPUT_LIMIT, LUT_INPUT_LIMIT, mag))]
        port = rom.read_port()
        m.d.comb += [port.addr.eq(Cat(t[LUT_SEGMENT_BITS:], is_gelu)), port.en.eq(v1)]
        pos_r = Signal(LUT_SEGMENT_BITS, name=f"lut_pos_{lane}")
        neg_r = Signal(name=f"lut_neg_{lane}")
        relu_r = Signal(15, name=f"lut_relu_{lane}")
        m.d.sync += [pos_r.eq(t[:LUT_SEGMENT_BITS]), neg_r.eq(neg),
                     relu_r.eq(Mux(neg, 0, sa))]
        base = port.data[:_BASE_BITS]
        delta = port.data[_BASE_BITS:].as_signed()
        y = Signal(signed(_INTERP_ADD_BITS), name=f"lut_y_{lane}")
        m.d.comb += y.eq((base << LUT_SEGMENT_BITS) + delta * pos_r)
        out = Signal(signed(15 + _LUT_SHIFT + 2), name=f"lut_pre_{lane}")
        with m.If(is_gelu):
            m.d.comb += out.eq((relu_r << _LUT_SHIFT) - y)
        with m.Else():  # tanh: one's complement for x < 0, so the rounding stays odd
            m.d.comb += out.eq(Mux(neg_r, ~y, y))
        return out

    def _lane_stage2(self, m: Module, pre_r: Value, shamt: Signal, lane: int) -> Signal:
        """Stage 2 of one lane: round half up and saturate: ``ceil(floor(2x / 2**s) / 2)``,
        which is ``(x >> s) + x[s - 1]`` (``x`` for ``s = 0``).

        Written so that no value is wider than ``x`` (for ``s >= 1``, ``x >> s`` fits one bit
        less, so adding the rounding bit cannot overflow): a 32 x 32-bit product stays one
        64-bit word in Verilator's C++, not a 65-bit one whose shifts and adds are library
        loops (a unit's logic is evaluated every cycle, busy or not: bench/accel_native.py)."""
        pw = max(self._pre_width(), len(pre_r))
        x = Signal(signed(pw), name=f"x_{lane}")
        m.d.comb += x.eq(pre_r)
        s_minus_1 = (shamt - 1)[:len(shamt)]  # unsigned; unused when s = 0
        # for s >= 1, x >> s fits pw - 1 bits, and the sum pw (an Amaranth sum widens)
        shifted = (x >> shamt)[:pw - 1].as_signed()
        rounded = Signal(signed(pw), name=f"rounded_{lane}")
        m.d.comb += rounded.eq(Mux(shamt == 0, x, shifted + (x >> s_minus_1)[0]))
        hi, lo = (1 << (self.z_width - 1)) - 1, -(1 << (self.z_width - 1))
        sat = Signal(range(lo, hi + 1), name=f"sat_{lane}")
        m.d.comb += sat.eq(Mux(rounded > hi, hi, Mux(rounded < lo, lo, rounded)))
        return sat
