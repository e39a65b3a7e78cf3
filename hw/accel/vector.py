"""The element-wise vector unit: add, multiply, max, ReLU, requantize, scale, transpose.

One :class:`VectorUnit` invocation streams ``n`` elements (``rows * cols`` for a transpose)
from operand ``a`` (and ``b``) to operand ``z``, one element per cycle through a two-stage
pipeline, under the unit contract of :mod:`archsim.hw.accel.interface`. Every operand word is
a signed two's-complement number of its operand's width. The operation is chosen per
invocation by the ``op`` argument, a code of :data:`VECTOR_OPS`:

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
=============== ============================================= ===========================

``rshift(x, s)`` is an arithmetic right shift rounding half up, ``floor(x / 2**s + 1/2)``
(so ``-1.5`` rounds to ``-1`` and ``1.5`` to ``2``), and every result saturates to the signed
range of ``z_width`` bits: e.g. ``requant`` of int32 accumulators to int8 (``z_width=8``) or
to Q6.10 (``z_width=16``). A transpose reads ``a`` as a ``rows x cols`` row-major matrix and
writes its ``cols x rows`` transpose; it ignores ``n``. Ops that do not use ``b`` never read
it; ``scale`` reads ``b[0]`` once (the read port holds its data while not enabled).
An element-wise op may run in place (``z`` bound to ``a``'s buffer at the same base):
element ``i`` is written after element ``i + 2`` is read. A transpose may not.

Timing: element ``i`` is read in cycle ``s + 1 + i``, its result registered in ``s + 2 + i``
and written in ``s + 3 + i``; ``done`` is raised in the cycle after the last write (when the
results are visible to reads), so an invocation of ``m >= 1`` elements takes ``m + 3`` cycles
(``m = 0``: 1 cycle).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from amaranth.hdl import Module, Mux, Signal, signed

from ...errors import ConfigError
from ..checks import check_int, silence_unused
from ..hls_ops import op_cost
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["VECTOR_OPS", "SHIFTED_OPS", "BINARY_OPS", "MAX_SHIFT", "VectorUnit",
           "vector_op_code", "vector_op_golden", "round_shift", "saturate"]

#: Operation name -> the code the ``op`` argument takes.
VECTOR_OPS: Mapping[str, int] = {
    "add": 0, "sub": 1, "mul": 2, "max": 3, "relu": 4, "copy": 5, "requant": 6,
    "scale": 7, "transpose": 8, "add_requant": 9,
}
_NAMES = {code: name for name, code in VECTOR_OPS.items()}
#: Ops whose result is shifted right by the ``shift`` argument (with rounding).
SHIFTED_OPS = frozenset({"mul", "requant", "scale", "add_requant", "transpose"})
#: Ops that read ``b`` element by element (``scale`` reads only ``b[0]``).
BINARY_OPS = frozenset({"add", "sub", "mul", "max", "add_requant"})
#: Largest ``shift`` argument (the latched shift amount is 6 bits wide).
MAX_SHIFT = 63


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


def vector_op_golden(op: str, a: np.ndarray, b: np.ndarray, shift: int, z_width: int, *,
                     rows: int = 0, cols: int = 0) -> np.ndarray:
    """One vector operation on signed integer values (not raw words), as the unit does it.

    Parameters
    ----------
    op : str
        A name of :data:`VECTOR_OPS`.
    a, b : numpy.ndarray
        Signed operand values (``b`` unused by unary ops; ``scale`` uses ``b[0]``).
    shift : int
        Right shift of the shifted ops (:data:`SHIFTED_OPS`), in ``0..MAX_SHIFT``.
    z_width : int
        The result saturates to the signed range of this many bits.
    rows, cols : int
        The shape of ``a`` for ``transpose``.

    Returns
    -------
    numpy.ndarray
        Signed ``int64`` results (``rows * cols`` of them for a transpose).
    """
    vector_op_code(op)
    check_int("shift", shift, 0, MAX_SHIFT)
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
    elif op == "scale":
        pre = a * b[0]
    else:  # copy, requant
        pre = a
    if op in SHIFTED_OPS:
        pre = round_shift(pre, shift)
    return saturate(pre, z_width)


def _signed(words: np.ndarray, width: int) -> np.ndarray:
    w = np.asarray(words, dtype=np.int64) & ((1 << width) - 1)
    return np.where(w >= 1 << (width - 1), w - (1 << width), w)


class VectorUnit(Unit):
    """The element-wise vector unit (see the module docstring for ops and timing).

    Parameters
    ----------
    a_width, b_width, z_width : int
        Bits per element of operands ``a``, ``b`` (read) and ``z`` (write), 2..32.
    addr_width : int
        Address bits of each operand's port, 1..16.

    Notes
    -----
    Arguments: ``a_addr``, ``b_addr``, ``z_addr``, ``op`` (a :data:`VECTOR_OPS` code),
    ``n``, ``shift``, ``rows``, ``cols``. Energy per action (at 45 nm, 0.9 V, the default
    32-bit widths): ``"alu"`` is one 32-bit add (Horowitz: 0.1 pJ), counted once per element
    for the add/compare/round/saturate pass of every op (an assumption: the rounding adder
    and the saturating comparators are taken as one adder's worth); ``"mul"`` one 32-bit
    multiply (3.1 pJ), per element of ``mul`` and ``scale``.
    """

    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        "alu": op_cost("add", 32).energy_j,
        "mul": op_cost("mul", 32).energy_j,
    }
    ENERGY_SOURCES: Mapping[str, str] = {
        "alu": "M. Horowitz, ISSCC 2014, 45 nm: 32-bit add 0.1 pJ (one per element; the "
               "rounding and saturation logic assumed to cost no more than that adder)",
        "mul": "M. Horowitz, ISSCC 2014, 45 nm: 32-bit multiply 3.1 pJ",
    }

    def __init__(self, *, a_width: int = 32, b_width: int = 32, z_width: int = 32,
                 addr_width: int = 16) -> None:
        try:
            for name, value in (("a_width", a_width), ("b_width", b_width),
                                ("z_width", z_width)):
                check_int(name, value, 2, 32)
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.a_width, self.b_width, self.z_width = a_width, b_width, z_width
        self.addr_width = addr_width
        self.contract = UnitContract(
            kind="vector", args=("op", "n", "shift", "rows", "cols"),
            operands=(Operand("a", "read", a_width), Operand("b", "read", b_width),
                      Operand("z", "write", z_width)))
        super().__init__(self.contract.members({"a": addr_width, "b": addr_width,
                                                "z": addr_width}))

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
        count = checked["rows"] * checked["cols"] if op == "transpose" else checked["n"]
        if count > 1 << self.addr_width:
            raise ValueError(f"unit kind 'vector': {count} elements do not fit a "
                             f"{self.addr_width}-bit address space")
        return checked, op, count

    def cycles(self, args: Mapping[str, int]) -> int:
        """``m + 3`` for ``m >= 1`` elements (read, register, write, done), 1 for ``m = 0``."""
        _, _, count = self._check(args)
        return count + 3 if count else 1

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Per element one ``"alu"`` pass, plus one ``"mul"`` for ``mul`` and ``scale``;
        the port accesses (``b`` only for binary ops; once for ``scale``)."""
        _, op, count = self._check(args)
        b_reads = count if op in BINARY_OPS else (min(count, 1) if op == "scale" else 0)
        return {"alu": count, "mul": count if op in ("mul", "scale") else 0,
                "read:a": count, "read:b": b_reads, "write:z": count}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """``a`` and ``z``: ``m`` elements from their bases; ``b``: ``m``, 1 (``scale``) or
        none."""
        checked, op, count = self._check(args)
        b_len = count if op in BINARY_OPS else (min(count, 1) if op == "scale" else 0)
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
        """Issue one read per cycle, register the raw result, round, saturate and write."""
        m = Module()
        aw = self.addr_width
        op = Signal(4)
        shamt = Signal(range(MAX_SHIFT + 1))  # 0 for ops that do not shift
        count = Signal(2 * ARG_WIDTH)
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
        is_transpose_arg = self.arg_op == code["transpose"]
        start_count = Mux(is_transpose_arg, self.arg_rows * self.arg_cols, self.arg_n)

        with m.If(self.start & ~self.busy):
            m.d.sync += [
                op.eq(self.arg_op),
                shamt.eq(Mux(is_shifted, self.arg_shift[:6], 0)),
                count.eq(start_count), issued.eq(0),
                a_ptr.eq(self.arg_a_addr), col_ptr.eq(self.arg_a_addr),
                b_ptr.eq(self.arg_b_addr), z_ptr.eq(self.arg_z_addr),
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
            | (op == code["max"]) | (op == code["add_requant"])
        m.d.comb += [
            self.a.addr.eq(a_ptr), self.a.en.eq(issuing),
            self.b.addr.eq(b_ptr),
            self.b.en.eq(issuing & (uses_b | ((op == code["scale"]) & (issued == 0)))),
        ]
        with m.If(issuing):
            m.d.sync += [issued.eq(issued + 1), b_ptr.eq(b_ptr + 1)]
            with m.If(op == code["transpose"]):
                # walk a down each column: + cols per row, then the next column's top
                with m.If(r == rows - 1):
                    m.d.sync += [r.eq(0), col_ptr.eq(col_ptr + 1), a_ptr.eq(col_ptr + 1)]
                with m.Else():
                    m.d.sync += [r.eq(r + 1), a_ptr.eq(a_ptr + cols)]
            with m.Else():
                m.d.sync += a_ptr.eq(a_ptr + 1)
        m.d.sync += [v1.eq(issuing), last1.eq(issuing & (issued == count - 1))]

        # stage 1: the raw result from the read data
        sa, sb = self.a.data.as_signed(), self.b.data.as_signed()
        pw = max(self.a_width + self.b_width, max(self.a_width, self.b_width) + 1)
        pre = Signal(signed(pw))
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
            with m.Default():
                m.d.comb += pre.eq(sa)
        pre_r = Signal.like(pre)
        m.d.sync += [pre_r.eq(pre), v2.eq(v1), last2.eq(last1)]
        with m.If(finished):
            m.d.sync += busy.eq(0)

        # stage 2: round half up, saturate, write. t = floor(2x / 2**s), result ceil(t / 2).
        t = Signal(signed(pw + 1))
        m.d.comb += t.eq((pre_r << 1) >> shamt)
        rounded = Signal(signed(pw + 1))
        m.d.comb += rounded.eq((t >> 1) + t[0])
        hi, lo = (1 << (self.z_width - 1)) - 1, -(1 << (self.z_width - 1))
        sat = Signal(range(lo, hi + 1))
        m.d.comb += sat.eq(Mux(rounded > hi, hi, Mux(rounded < lo, lo, rounded)))
        m.d.comb += [self.z.en.eq(v2), self.z.addr.eq(z_ptr), self.z.data.eq(sat)]
        with m.If(v2):
            m.d.sync += z_ptr.eq(z_ptr + 1)
        return m
