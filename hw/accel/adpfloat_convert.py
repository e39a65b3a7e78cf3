"""EdgeBERT's format-conversion unit: AdaptivFloat(8, 3) codes to 16-bit fixed point and back.

The authors' global-buffer special functions (LayerNorm, softmax, element-wise add, entropy)
work on 16-bit fixed point, so every one is wrapped in ``Adpfloat2Fixed`` and
``Fixed2Adpfloat`` conversions (harvard-acc/EdgeBERT, ``hw/cmod/include/PPU.h``). Here the
conversions are one unit, :class:`AdaptivFloatConvert` (library kind
``"adaptivfloat_convert"``), so a program converts a tensor once between the GEMM's codes and
the special-function units' Q-format words. The arithmetic is the codec's
(:mod:`archsim.hw.accel.adpfloat_codec`): ``direction="to_fixed"`` is
:func:`~archsim.hw.accel.adpfloat_codec.adpfloat_to_fixed` (``sign * floor(|v| * 2**frac)``,
saturated to +-32767), ``direction="to_adaptivfloat"`` is
:func:`~archsim.hw.accel.adpfloat_codec.adpfloat_from_fixed` (round half up on the magnitude,
flush below the smallest exponent, saturate with the sign).

Operands (``lanes`` elements per access): ``src`` (read) and ``dst`` (write), 8-bit codes and
16-bit two's-complement words (which is which follows ``direction``). Arguments ``src_addr``
and ``dst_addr`` (element addresses, multiples of ``lanes``), ``n`` (elements, a positive
multiple of ``lanes``), ``frac`` (fractional bits of the fixed-point side, 0..15) and
``bias`` (the codes' exponent bias, 0..7). Element ``i`` of ``src`` becomes element ``i`` of
``dst``; in place (``dst`` on ``src``'s buffer) is impossible, the widths differ.

Timing, with ``start`` sampled in cycle ``s`` and ``R = n / lanes`` rows: row ``j`` is read in
cycle ``s + 1 + j``, converted (all lanes at once, combinationally) and registered when its
data arrive in ``s + 2 + j``, and written in ``s + 3 + j``; ``done`` follows the last write::

    cycles = n / lanes + 3

Energy per action (assumed compositions of M. Horowitz, ISSCC 2014, 45 nm figures as
:mod:`archsim.hw.hls_ops` interpolates them): ``"convert"``, one per element, is for
``to_fixed`` a 16-bit barrel shift, a 16-bit saturating compare and a 16-bit negate; for
``to_adaptivfloat`` a 16-bit negate (the magnitude), a 16-bit priority encode (taken as a
16-bit compare), a 16-bit normalising barrel shift and an 8-bit rounding add. Port accesses
are priced by the buffers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from amaranth.hdl import Cat, Module, Signal

from ..checks import check_int, silence_unused
from ..hls_ops import op_cost
from .adpfloat_codec import (
    ADPFLOAT_BIAS_RANGE,
    ADPFLOAT_FRAC_RANGE,
    adpfloat_from_fixed,
    adpfloat_from_fixed_hw,
    adpfloat_to_fixed,
    adpfloat_to_fixed_hw,
)
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["AdaptivFloatConvert", "CONVERT_DIRECTIONS", "CONVERT_LANES", "CODE_WIDTH",
           "FIXED_WIDTH", "convert_energy_j"]

_KIND = "adaptivfloat_convert"
#: The two conversions: codes to fixed point, fixed point to codes.
CONVERT_DIRECTIONS = ("to_fixed", "to_adaptivfloat")
#: Lanes the unit may have (powers of two: row addresses are element addresses shifted).
CONVERT_LANES = (1, 2, 4, 8, 16, 32)
#: Bits of an AdaptivFloat(8, 3) code.
CODE_WIDTH = 8
#: Bits of a fixed-point word (``kActWordWidth``, Spec.h).
FIXED_WIDTH = 16


def convert_energy_j(direction: str) -> float:
    """The assumed energy of converting one element (see the module docstring), J."""
    if direction not in CONVERT_DIRECTIONS:
        raise ValueError(f"direction must be one of {CONVERT_DIRECTIONS}, not {direction!r}")
    shift = op_cost("shl", FIXED_WIDTH).energy_j
    neg = op_cost("neg", FIXED_WIDTH).energy_j
    compare = op_cost("lt", FIXED_WIDTH).energy_j
    if direction == "to_fixed":
        return shift + compare + neg
    return neg + compare + shift + op_cost("add", CODE_WIDTH).energy_j


class AdaptivFloatConvert(Unit):
    """AdaptivFloat(8, 3) <-> 16-bit fixed-point conversion (see the module docstring).

    Parameters
    ----------
    direction : {"to_fixed", "to_adaptivfloat"}
        ``"to_fixed"``: ``src`` holds codes (8 b), ``dst`` fixed-point words (16 b);
        ``"to_adaptivfloat"`` the other way round.
    lanes : int
        Elements per access and converters in parallel, one of :data:`CONVERT_LANES`.
    addr_width : int
        Address bits of both ports (row addresses), ``1..32``.

    Raises
    ------
    TypeError, ValueError
        A parameter of the wrong type or outside its allowed values (the message names it
        and them).
    """

    def __init__(self, *, direction: str, lanes: int = 16, addr_width: int = 16) -> None:
        try:
            if direction not in CONVERT_DIRECTIONS:
                raise ValueError(f"direction must be one of {CONVERT_DIRECTIONS}, not "
                                 f"{direction!r}")
            check_int("lanes", lanes, CONVERT_LANES[0], CONVERT_LANES[-1])
            if lanes not in CONVERT_LANES:
                raise ValueError(f"lanes must be one of {CONVERT_LANES}, not {lanes}")
            check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.direction, self.lanes, self.addr_width = direction, lanes, addr_width
        to_fixed = direction == "to_fixed"
        self.src_width = CODE_WIDTH if to_fixed else FIXED_WIDTH
        self.dst_width = FIXED_WIDTH if to_fixed else CODE_WIDTH
        self.ENERGY_PER_ACTION_J = {"convert": convert_energy_j(direction)}
        self.ENERGY_SOURCES = {"convert": (
            "assumed: M. Horowitz, ISSCC 2014, 45 nm (via archsim.hw.hls_ops): a 16-bit barrel "
            "shift, compare and negate per element" if to_fixed else
            "assumed: M. Horowitz, ISSCC 2014, 45 nm (via archsim.hw.hls_ops): a 16-bit "
            "negate, priority encode (as a compare) and barrel shift and an 8-bit rounding add "
            "per element")}
        self.contract = UnitContract(
            kind=_KIND, args=("n", "frac", "bias"),
            operands=(Operand("src", "read", self.src_width, lanes),
                      Operand("dst", "write", self.dst_width, lanes)))
        super().__init__(self.contract.members({"src": addr_width, "dst": addr_width}))

    # --- the model view ------------------------------------------------------------------

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        """Checked arguments (``ValueError`` naming the bad one and its allowed values)."""
        a = self.contract.check_args(args)
        lanes = self.lanes
        if a["n"] < 1 or a["n"] % lanes:
            raise ValueError(f"unit kind {_KIND!r}: argument 'n' must be a positive multiple "
                             f"of lanes ({lanes}), not {a['n']}")
        for name in ("src_addr", "dst_addr"):
            if a[name] % lanes:
                raise ValueError(f"unit kind {_KIND!r}: argument {name!r} must be a multiple "
                                 f"of lanes ({lanes}), not {a[name]}")
        for name, (low, high) in (("frac", ADPFLOAT_FRAC_RANGE), ("bias", ADPFLOAT_BIAS_RANGE)):
            if not low <= a[name] <= high:
                raise ValueError(f"unit kind {_KIND!r}: argument {name!r} must be in "
                                 f"{low}..{high}, not {a[name]}")
        self.contract.check_reach(self._footprint(a), self.addr_width)
        return a

    @staticmethod
    def _footprint(a: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        return {"src": (a["src_addr"], a["src_addr"] + a["n"]),
                "dst": (a["dst_addr"], a["dst_addr"] + a["n"])}

    def cycles(self, args: Mapping[str, int]) -> int:
        """``n / lanes + 3`` (see the module docstring)."""
        return self._check(args)["n"] // self.lanes + 3

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """``convert``: ``n``; ``read:src`` and ``write:dst``: ``n / lanes`` row accesses."""
        n = self._check(args)["n"]
        return {"convert": n, "read:src": n // self.lanes, "write:dst": n // self.lanes}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Element ranges: ``n`` elements of ``src`` and of ``dst`` from their bases."""
        return self._footprint(self._check(args))

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Convert with the codec's numpy functions and write ``dst`` as unsigned words."""
        a = self._check(args)
        n, frac, bias = a["n"], a["frac"], a["bias"]

        def window(name: str, start: int) -> np.ndarray:
            words = np.asarray(buffers[name]).ravel()
            if start + n > len(words):
                raise ValueError(f"unit kind {_KIND!r}: buffer of operand {name!r} holds "
                                 f"{len(words)} words; the invocation reaches {start + n}")
            return words[start:start + n].astype(np.int64)

        src = window("src", a["src_addr"]) & ((1 << self.src_width) - 1)
        window("dst", a["dst_addr"])
        if self.direction == "to_fixed":
            out = adpfloat_to_fixed(src, frac=frac, bias=bias)
        else:
            signed = np.where(src >= 1 << (FIXED_WIDTH - 1), src - (1 << FIXED_WIDTH), src)
            out = adpfloat_from_fixed(signed, frac=frac, bias=bias)
        buffers["dst"][a["dst_addr"]:a["dst_addr"] + n] = out & ((1 << self.dst_width) - 1)

    # --- the RTL -------------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        m = Module()
        lanes, aw, sw, dw = self.lanes, self.addr_width, self.src_width, self.dst_width
        log_lanes = lanes.bit_length() - 1

        busy, issuing = Signal(), Signal()
        count, j = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        src_ptr, dst_ptr = Signal(aw), Signal(aw)
        frac, bias = Signal(4), Signal(3)
        v1, last1, v2, last2, finished = Signal(), Signal(), Signal(), Signal(), Signal()
        out_row = Signal(lanes * dw)

        with m.If(self.start & ~busy):
            m.d.sync += [busy.eq(1), issuing.eq(1), j.eq(0),
                         count.eq(self.arg_n >> log_lanes),
                         src_ptr.eq(self.arg_src_addr >> log_lanes),
                         dst_ptr.eq(self.arg_dst_addr >> log_lanes),
                         frac.eq(self.arg_frac[:4]), bias.eq(self.arg_bias[:3])]
        m.d.comb += [self.busy.eq(busy), self.done.eq(finished)]

        # Stage 0: one row read per cycle.
        row_last = j == count - 1
        m.d.comb += [self.src.addr.eq(src_ptr), self.src.en.eq(issuing)]
        with m.If(issuing):
            m.d.sync += [src_ptr.eq(src_ptr + 1), j.eq(j + 1)]
            with m.If(row_last):
                m.d.sync += issuing.eq(0)
        m.d.sync += [v1.eq(issuing), last1.eq(issuing & row_last)]

        # Stage 1: the row has arrived; every lane converts it, the result is registered.
        lane_in = [self.src.data[i * sw:(i + 1) * sw] for i in range(lanes)]
        convert = adpfloat_to_fixed_hw if self.direction == "to_fixed" \
            else adpfloat_from_fixed_hw
        lane_out = [convert(x, frac, bias, m=m) for x in lane_in]  # named nodes: faster sims
        with m.If(v1):
            m.d.sync += out_row.eq(Cat(*(v[:dw] for v in lane_out)))
        m.d.sync += [v2.eq(v1), last2.eq(v1 & last1)]

        # Stage 2: write; done the cycle after the last write, when it is readable.
        m.d.comb += [self.dst.en.eq(v2), self.dst.addr.eq(dst_ptr), self.dst.data.eq(out_row)]
        with m.If(v2):
            m.d.sync += dst_ptr.eq(dst_ptr + 1)
        m.d.sync += finished.eq(v2 & last2)
        with m.If(finished):
            m.d.sync += busy.eq(0)
        return m
