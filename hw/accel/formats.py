"""Format datapath units: an AdaptivFloat matrix-vector product, as in EdgeBERT's datapath.

:class:`AdaptivFloatDot` wraps ``lanes`` :class:`~archsim.hw.formats.adaptivfloat_mac.AdaptivFloatMAC`
PEs (exact Kulisch accumulation) and an exact adder tree in the unit contract of
:mod:`archsim.hw.accel.interface`. It computes, for a ``rows x n`` matrix ``A`` (row-major)
and a vector ``b`` of ``n``, both AdaptivFloat(``n_bits``, ``e``) codes::

    z[r] = saturate(round_half_up(sum_i A[r, i] * b[i] * 2**shift))

``z`` is a signed fixed-point number with ``shift`` fractional bits: its value is
``z[r] * 2**-shift``. The sum is exact (no rounding before the one at the end), so
``round_half_up`` (``floor(x + 1/2)``) is the only rounding and ``saturate`` clamps to the
signed range of ``out_width`` bits.

Operands
--------
``a`` (read, ``n_bits`` per element, ``lanes`` lanes)
    ``A`` row-major at ``a_addr``: row access ``a_addr / lanes + r * n / lanes + j`` gives
    ``A[r, j*lanes : (j+1)*lanes]``.
``b`` (read, ``n_bits``, ``lanes`` lanes)
    The vector at ``b_addr``, read again for every row (so ``b`` may share ``a``'s buffer
    at another address).
``z`` (write, ``out_width`` bits, 1 lane)
    ``z[r]`` at element address ``z_addr + r``, two's complement.

Arguments
---------
``rows`` (>= 1), ``n`` (the dot length, a positive multiple of ``lanes``), ``bias_a``,
``bias_b`` (the tensors' ``exp_bias`` of :class:`archsim.dsl.formats.AdaptivFloatEncoding`)
and ``shift`` (fractional bits of ``z``). The last three are signed: pass the 32-bit two's
complement code of an int in ``-128..127`` (:func:`signed_arg`). ``a_addr`` and ``b_addr``
must be multiples of ``lanes``.

Scale relation: each PE accumulates ``acc`` in units of ``2**scale_exp`` with ``scale_exp
= bias_a + bias_b - 2 * m`` (``m = n_bits - 1 - e`` mantissa bits), so the exact dot product
is ``S * 2**scale_exp`` where ``S`` is the adder tree's integer sum, and
``z = saturate(round_half_up(S * 2**(scale_exp + shift)))``: a left shift when ``scale_exp
+ shift >= 0``, else an arithmetic right shift rounding half up.

Schedule and cycles
-------------------
With ``start`` sampled in cycle ``s``, one row of ``a`` and one of ``b`` are read per cycle
from ``s + 1`` on, ``K = n / lanes`` per output, rows back to back (``rows * K`` reads). Read
data reach the PEs one cycle later (synchronous reads), each PE's accumulator holds the row's
sum of its lane the cycle after that; the adder tree's sum is registered, then shifted,
rounded, saturated and written; ``done`` follows the last write, so::

    cycles = rows * n / lanes + 4

(read latency 1, PE accumulate 1, tree register 1, write 1). The lanes are the parallel
choice: ``lanes`` PEs each take one element pair per cycle (``lanes=1``: one PE, ``n``
cycles per row).

Energy per action
-----------------
Horowitz's table (ISSCC 2014, 45 nm, 0.9 V) has no 8-bit floating-point MAC. ``"mac"`` is
*assumed* to cost an 8-bit integer multiply (0.2 pJ: the ``(m+1) x (m+1)``-bit significand
multiply, exponent add and alignment shift taken to cost no more) plus a 32-bit integer add
(0.1 pJ: the wide Kulisch accumulate, taken as one 32-bit add although it is wider).
``"reduce"``, counted ``lanes`` times per output (``lanes - 1`` tree adds and one
shift/round/saturate pass), is a 32-bit add (0.1 pJ), the rounding logic *assumed* to cost
no more than that. Port accesses are priced by the buffers' technology.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from amaranth.hdl import Module, Mux, Signal, signed

from ...dsl.formats import AdaptivFloat, AdaptivFloatEncoding
from ..checks import check_int, silence_unused
from ..formats._common import balanced_sum
from ..formats.adaptivfloat_mac import MAX_EXP_BITS, AdaptivFloatMAC
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["AdaptivFloatDot", "signed_arg", "SIGNED_ARG_RANGE", "MAC_ENERGY_J",
           "REDUCE_ENERGY_J", "adaptivfloat_dot_reference"]

_KIND = "adaptivfloat_dot"
#: Allowed values of the signed arguments ``bias_a``, ``bias_b``, ``shift`` (the PEs'
#: 8-bit two's complement bias registers).
SIGNED_ARG_RANGE = (-128, 127)
#: Accumulator bits beyond one product's: every PE sums up to 2**16 products exactly.
_ACC_GUARD_BITS = 16
#: Assumed: 8-bit int multiply 0.2 pJ + 32-bit int add 0.1 pJ (Horowitz, ISSCC 2014, 45 nm).
MAC_ENERGY_J = 0.2e-12 + 0.1e-12
#: 32-bit int add, 45 nm (Horowitz, ISSCC 2014); the round/saturate pass assumed the same.
REDUCE_ENERGY_J = 0.1e-12


def signed_arg(value: int) -> int:
    """The unsigned ``ARG_WIDTH``-bit (32-bit) two's complement code of ``value`` (an argument word).

    Raises
    ------
    ValueError
        If ``value`` is not an int in ``-32768..32767``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not -(1 << (ARG_WIDTH - 1)) <= int(value) < 1 << (ARG_WIDTH - 1):
        raise ValueError(f"signed_arg: value must be an int in {-(1 << (ARG_WIDTH - 1))}.."
                         f"{(1 << (ARG_WIDTH - 1)) - 1}, not {value!r}")
    return int(value) & ((1 << ARG_WIDTH) - 1)


def _from_code(code: int) -> int:
    return code - (1 << ARG_WIDTH) if code >> (ARG_WIDTH - 1) else code


def _round_saturate(total: int, net: int, out_width: int) -> int:
    """``saturate(floor(total * 2**net + 1/2))`` on Python ints (exact)."""
    if net >= 0:
        q = total << net
    else:
        q = (total + (1 << (-net - 1))) >> -net  # floor((total + 2**(k-1)) / 2**k)
    hi = (1 << (out_width - 1)) - 1
    return max(-hi - 1, min(hi, q))


def adaptivfloat_dot_reference(fmt: AdaptivFloat, a_codes: np.ndarray, b_codes: np.ndarray,
                               bias_a: int, bias_b: int, shift: int,
                               out_width: int) -> np.ndarray:
    """The golden matrix-vector product on codes (``a_codes``: ``rows x n``; ``b_codes``: n).

    Decodes with ``fmt.decode`` (float64, exact for these formats), scales every value to an
    integer at the common scale ``2**(bias - m)``, sums exactly in Python ints, then rounds
    half up and saturates. Returns signed ``int64`` results.
    """
    m = fmt.m
    a = fmt.decode(AdaptivFloatEncoding(codes=np.asarray(a_codes), exp_bias=bias_a))
    b = fmt.decode(AdaptivFloatEncoding(codes=np.asarray(b_codes), exp_bias=bias_b))
    # value * 2**(m - bias) is sig * 2**E: an exact integer in float64
    ai = [[int(v) for v in row] for row in np.ldexp(np.atleast_2d(a), m - bias_a)]
    bi = [int(v) for v in np.ldexp(b, m - bias_b)]
    net = bias_a + bias_b - 2 * m + shift
    return np.array([_round_saturate(sum(x * y for x, y in zip(row, bi, strict=True)), net,
                                     out_width) for row in ai], dtype=np.int64)


class AdaptivFloatDot(Unit):
    """An AdaptivFloat matrix-vector product unit (see the module docstring).

    Parameters
    ----------
    n : int
        Bits per AdaptivFloat code (the format's ``n``), 2..16.
    e : int
        Exponent bits, ``1..min(n - 1, 6)``.
    lanes : int
        Elements of ``a`` and ``b`` per access and PEs in parallel: 1, 2, 4, 8 or 16.
    out_width : int
        Bits of each ``z`` element, 2..32.
    addr_width : int
        Address bits of every port, 1..16 (``a``, ``b``: row addresses; ``z``: elements).

    Raises
    ------
    TypeError, ValueError
        A parameter that is not an int in its range (the message names it).
    """

    ENERGY_PER_ACTION_J: Mapping[str, float] = {"mac": MAC_ENERGY_J,
                                                "reduce": REDUCE_ENERGY_J}
    ENERGY_SOURCES: Mapping[str, str] = {
        "mac": "assumed: M. Horowitz, ISSCC 2014, 45 nm, has no 8-bit float MAC; taken as an "
               "8-bit int multiply (0.2 pJ) plus a 32-bit int add (0.1 pJ)",
        "reduce": "M. Horowitz, ISSCC 2014, 45 nm: 32-bit int add 0.1 pJ per tree add and "
                  "per output's round/saturate pass (assumed to cost no more than the add)",
    }

    def __init__(self, *, n: int = 8, e: int = 3, lanes: int = 4, out_width: int = 32,
                 addr_width: int = 16) -> None:
        try:
            check_int("n", n, 2, 16)
            check_int("e", e, 1, min(n - 1, MAX_EXP_BITS))
            check_int("lanes", lanes, 1, 16)
            if lanes & (lanes - 1):
                raise ValueError(f"lanes must be one of (1, 2, 4, 8, 16), not {lanes}")
            check_int("out_width", out_width, 2, 32)
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.format = AdaptivFloat(n=n, e=e)
        self.n_bits, self.e, self.lanes = n, e, lanes
        self.out_width, self.addr_width = out_width, addr_width
        self.contract = UnitContract(
            kind=_KIND, args=("rows", "n", "bias_a", "bias_b", "shift"),
            operands=(Operand("a", "read", n, lanes), Operand("b", "read", n, lanes),
                      Operand("z", "write", out_width)))
        super().__init__(self.contract.members({"a": addr_width, "b": addr_width,
                                                "z": addr_width}))

    @property
    def m(self) -> int:
        """Mantissa bits of the format."""
        return self.format.m

    # --- the contract's views ------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        """Checked arguments, the signed ones decoded (``ValueError`` naming the bad one)."""
        a = self.contract.check_args(args)
        lanes = self.lanes

        def fail(name: str, what: str) -> ValueError:
            return ValueError(f"unit kind {_KIND!r}: argument {name!r} must be {what}, "
                              f"not {a[name]}")

        if a["rows"] < 1:
            raise fail("rows", "at least 1")
        if a["n"] < 1 or a["n"] % lanes:
            raise fail("n", f"a positive multiple of lanes ({lanes})")
        for name in ("a_addr", "b_addr"):
            if a[name] % lanes:
                raise fail(name, f"a multiple of lanes ({lanes})")
        low, high = SIGNED_ARG_RANGE
        for name in ("bias_a", "bias_b", "shift"):
            value = _from_code(a[name])
            if not low <= value <= high:
                raise ValueError(
                    f"unit kind {_KIND!r}: argument {name!r} must be the {ARG_WIDTH}-bit two's "
                    f"complement code of an int in {low}..{high}, not {a[name]} (= {value})")
            a[name] = value
        self.contract.check_reach(self._footprint(a), self.addr_width)
        return a

    @staticmethod
    def _footprint(a: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        return {"a": (a["a_addr"], a["a_addr"] + a["rows"] * a["n"]),
                "b": (a["b_addr"], a["b_addr"] + a["n"]),
                "z": (a["z_addr"], a["z_addr"] + a["rows"])}

    def cycles(self, args: Mapping[str, int]) -> int:
        """``rows * n / lanes + 4`` (see the module docstring)."""
        a = self._check(args)
        return a["rows"] * (a["n"] // self.lanes) + 4

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``mac``: ``rows * n``; ``reduce``: ``rows * lanes``; row reads of ``a`` and ``b``:
        ``rows * n / lanes`` each; ``write:z``: ``rows``."""
        a = self._check(args)
        reads = a["rows"] * (a["n"] // self.lanes)
        return {"mac": a["rows"] * a["n"], "reduce": a["rows"] * self.lanes,
                "read:a": reads, "read:b": reads, "write:z": a["rows"]}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Element ranges: ``a`` ``rows * n`` from ``a_addr``, ``b`` ``n``, ``z`` ``rows``."""
        return self._footprint(self._check(args))

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Decode with the format's own decode, sum exactly, round half up, saturate, and
        write ``z`` as unsigned ``out_width``-bit words (:func:`adaptivfloat_dot_reference`)."""
        a = self._check(args)
        rows, n = a["rows"], a["n"]

        def window(name: str, start: int, size: int) -> np.ndarray:
            words = np.asarray(buffers[name]).ravel()
            if start + size > len(words):
                raise ValueError(f"unit kind {_KIND!r}: buffer of operand {name!r} holds "
                                 f"{len(words)} words; the invocation reaches {start + size}")
            return words[start:start + size]

        mask = (1 << self.n_bits) - 1
        a_codes = (window("a", a["a_addr"], rows * n).astype(np.int64) & mask).reshape(rows, n)
        b_codes = window("b", a["b_addr"], n).astype(np.int64) & mask
        z = adaptivfloat_dot_reference(self.format, a_codes, b_codes, a["bias_a"],
                                       a["bias_b"], a["shift"], self.out_width)
        window("z", a["z_addr"], rows)
        buffers["z"][a["z_addr"]:a["z_addr"] + rows] = z & ((1 << self.out_width) - 1)

    # --- the RTL -------------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        m = Module()
        lanes, nb, ow, aw = self.lanes, self.n_bits, self.out_width, self.addr_width
        log_lanes = lanes.bit_length() - 1
        pes = [AdaptivFloatMAC(n=nb, e=self.e, bias_width=8,
                               acc_width=2 * (self.m + 1) + 2 * (2**self.e - 1) + 1
                               + _ACC_GUARD_BITS) for _ in range(lanes)]
        for i, pe in enumerate(pes):
            m.submodules[f"pe{i}"] = pe

        busy = Signal()
        rows, k = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        r, j = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        a_ptr, b_ptr, b_base, z_ptr = Signal(aw), Signal(aw), Signal(aw), Signal(aw)
        bias_a, bias_b, shift = Signal(signed(8)), Signal(signed(8)), Signal(signed(8))
        issuing = Signal()
        v1, first1, last1, final1 = Signal(), Signal(), Signal(), Signal()
        v2, final2, v3, final3, finished = Signal(), Signal(), Signal(), Signal(), Signal()

        with m.If(self.start & ~busy):
            m.d.sync += [
                busy.eq(1), rows.eq(self.arg_rows), k.eq(self.arg_n >> log_lanes),
                r.eq(0), j.eq(0),
                a_ptr.eq(self.arg_a_addr >> log_lanes),
                b_ptr.eq(self.arg_b_addr >> log_lanes),
                b_base.eq(self.arg_b_addr >> log_lanes), z_ptr.eq(self.arg_z_addr),
                bias_a.eq(self.arg_bias_a[:8]), bias_b.eq(self.arg_bias_b[:8]),
                shift.eq(self.arg_shift[:8]), issuing.eq(1),
            ]
        m.d.comb += [self.busy.eq(busy), self.done.eq(finished)]

        # Stage 0: one row of a and of b per cycle; a is contiguous, b restarts every row.
        row_end = j == k - 1
        m.d.comb += [self.a.addr.eq(a_ptr), self.a.en.eq(issuing),
                     self.b.addr.eq(b_ptr), self.b.en.eq(issuing)]
        with m.If(issuing):
            m.d.sync += a_ptr.eq(a_ptr + 1)
            with m.If(row_end):
                m.d.sync += [j.eq(0), r.eq(r + 1), b_ptr.eq(b_base)]
                with m.If(r == rows - 1):
                    m.d.sync += issuing.eq(0)
            with m.Else():
                m.d.sync += [j.eq(j + 1), b_ptr.eq(b_ptr + 1)]
        m.d.sync += [v1.eq(issuing), first1.eq(issuing & (j == 0)),
                     last1.eq(issuing & row_end), final1.eq(issuing & row_end & (r == rows - 1))]

        # Stage 1: the PEs accumulate their lane's exact products; a row starts afresh.
        for i, pe in enumerate(pes):
            m.d.comb += [pe.a.eq(self.a.data[i * nb:(i + 1) * nb]),
                         pe.b.eq(self.b.data[i * nb:(i + 1) * nb]),
                         pe.exp_bias_a.eq(bias_a), pe.exp_bias_b.eq(bias_b),
                         pe.valid.eq(v1), pe.start.eq(first1)]
        m.d.sync += [v2.eq(v1 & last1), final2.eq(v1 & final1)]

        # Stage 2: the accumulators hold the row's sums: exact adder tree, registered with
        # the net shift (the PEs' reported LSB exponent plus the output's fraction bits).
        total = balanced_sum([pe.acc for pe in pes])
        total_r = Signal(signed(len(pes[0].acc) + log_lanes + 1))
        net = Signal(signed(11))
        with m.If(v2):
            m.d.sync += [total_r.eq(total), net.eq(pes[0].scale_exp + shift)]
        m.d.sync += [v3.eq(v2), final3.eq(final2)]

        # Stage 3: shift (left, or right rounding half up), saturate, write.
        tw = len(total_r)
        left_amt = Signal(range(ow + 1))   # beyond ow bits any nonzero value saturates anyway
        right_amt = Signal(range(tw + 2))  # beyond tw + 1 bits every value rounds to 0
        m.d.comb += [left_amt.eq(Mux(net > ow, ow, net[:len(left_amt)])),
                     right_amt.eq(Mux(-net > tw + 1, tw + 1, (-net)[:len(right_amt)]))]
        left = Signal(signed(tw + ow))
        t = Signal(signed(tw + 1))
        right = Signal(signed(tw + 1))
        m.d.comb += [left.eq(total_r << left_amt),
                     t.eq((total_r << 1) >> right_amt),  # floor(2x / 2**k)
                     right.eq((t >> 1) + t[0])]          # floor(x / 2**k + 1/2)
        shifted = Mux(net >= 0, left, right)
        hi, lo = (1 << (ow - 1)) - 1, -(1 << (ow - 1))
        sat = Signal(signed(ow))
        m.d.comb += sat.eq(Mux(shifted > hi, hi, Mux(shifted < lo, lo, shifted)))
        m.d.comb += [self.z.en.eq(v3), self.z.addr.eq(z_ptr), self.z.data.eq(sat)]
        with m.If(v3):
            m.d.sync += z_ptr.eq(z_ptr + 1)
        m.d.sync += finished.eq(v3 & final3)
        with m.If(finished):
            m.d.sync += busy.eq(0)
        return m

