"""EdgeBERT's entropy-driven DVFS selector as an accelerator unit (library kind
``"entropy_dvfs"``).

EdgeBERT's DVFS block (harvard-acc/EdgeBERT ``hw/cmod/Dvfs/Dvfs.h``, read for the semantics)
takes the layer-1 entropy (a Q6.10 word from the entropy unit), divides it by the 8-bit
``enpy_scale``, puts the quotient in one of 16 bins with fixed thresholds, and pushes the
bin's (ADPLL DCO code, LDO code) pair, from a host-programmed table, to the regulators; its
FSM is ``IDLE -> SCALE_ENPY -> PUSH_VF -> NEXT``. The arithmetic and the thresholds are in
:mod:`archsim.hw.models.entropy_dvfs` (:data:`~archsim.hw.models.entropy_dvfs.ENTROPY_BIN_THRESHOLDS`,
cited to Dvfs.h there).

:class:`EntropyDVFS` does the same in the unit contract (:mod:`archsim.hw.accel.interface`):
it reads the entropy word and the bin's table entry from buffers and latches the entry into
its ``result`` output, which the accelerator copies into its DVFS-select register; an
indirect DVFS instruction (``SetOperatingPoint(domain, op=None)``, :mod:`archsim.hw.accel.isa`)
then moves the domain to that point through the DVFS controller, which stalls the domain for
the LDO settling and ADPLL lock time exactly as for a direct switch.

One level of indirection against the authors: their table holds the code pair itself
(15 DCO values, 16 LDO values; the last two bins share DCO value 14); here an entry is an
*operating-point index* of the target domain, and the DVFS controller's op table holds each
point's LDO and DCO codes (:meth:`archsim.hw.models.dvfs.DVFSModel.realize`). Same
information: a bin still selects one (DCO, LDO) pair, and two bins share a pair by holding
the same index.

The division is done without a divider: for an entropy code ``h >= 0`` and a scale ``s >= 1``,
``h // s >= T`` exactly when ``h >= s * T``, so the bin is the number of thresholds with
``h >= s * T`` (15 comparisons with constant multiples of ``s``); a negative code (the
entropy unit never writes one) has a quotient ``<= 0``, bin 0, as in Dvfs.h's truncating
division. ``enpy_scale = 0`` is rejected: Dvfs.h divides by it, which is undefined there.

Timing (start sampled in cycle ``s``): ``s + 1`` reads the entropy word, ``s + 2`` bins it
(``SCALE_ENPY``), ``s + 3`` reads the table entry (``PUSH_VF``), ``s + 4`` latches it into
``result`` (``NEXT``), ``done`` in ``s + 5``: :meth:`EntropyDVFS.cycles` is 5.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from amaranth.hdl import Const, Module, Signal, Value

from ...errors import ConfigError
from ..checks import check_int, silence_unused
from ..models.entropy_dvfs import (
    ENTROPY_BIN_THRESHOLDS,
    ENTROPY_BINS,
    check_enpy_scale,
    scaled_entropy_bin,
)
from .interface import ARG_WIDTH, Operand, Unit, UnitContract

__all__ = ["EntropyDVFS", "TABLE_ENTRIES", "RESULT_WIDTH", "CYCLES"]

#: Entries of the table the unit reads (one per bin).
TABLE_ENTRIES = ENTROPY_BINS
#: Bits of a table entry and of ``result``: the DVFS memory's 8-bit words (Spec.h
#: ``DVFSMemType``, 256 x 8 b).
RESULT_WIDTH = 8
#: Cycles from start to done (module docstring).
CYCLES = 5

#: Horowitz ISSCC 2014 (45 nm, 0.9 V) based prices, as in :mod:`archsim.hw.accel.sfu`.
_E_ADD16 = 0.05e-12
_ADDS_PER_BIN = len(ENTROPY_BIN_THRESHOLDS) + sum(
    bin(t // (t & -t)).count("1") - 1 for t in ENTROPY_BIN_THRESHOLDS) + 1


class EntropyDVFS(Unit):
    """The entropy-DVFS selector (module docstring).

    Operands: ``entropy`` (read, 16 b) -- the signed Q6.10 entropy word at ``entropy_addr``;
    ``table`` (read, 8 b) -- the 16-entry table at ``table_addr`` (entry ``b`` at
    ``table_addr + b``), operating-point indices of the target domain. Argument
    ``enpy_scale`` (1..255). ``result`` (8 b): the selected index,
    ``table[table_addr + bin(h // enpy_scale)]``.

    Parameters
    ----------
    addr_width : int
        Address bits of the operands' buffers, 1..32.
    """

    KIND = "entropy_dvfs"
    #: One invocation's actions: the 15 threshold comparisons and the shift-adds that form
    #: the constant multiples ``s * T`` (one add per extra set bit of each ``T``'s odd
    #: part), plus the table-index add, all priced as 16-bit adds.
    ENERGY_PER_ACTION_J: Mapping[str, float] = {"add": _E_ADD16}
    ENERGY_SOURCES: Mapping[str, str] = {
        "add": "assumed: 16-bit int add, between Horowitz ISSCC 2014 (45 nm, 0.9 V) 8-bit "
               "add 0.03 pJ and 32-bit add 0.1 pJ (as archsim.hw.accel.sfu); compares count "
               "as adds"}

    def __init__(self, *, addr_width: int = 16) -> None:
        try:
            self._addr_width = check_int("addr_width", addr_width, 1, ARG_WIDTH)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.contract = UnitContract(
            kind=self.KIND, args=("enpy_scale",),
            operands=(Operand("entropy", "read", 16), Operand("table", "read", RESULT_WIDTH)),
            result_width=RESULT_WIDTH)
        super().__init__(self.contract.members({"entropy": addr_width, "table": addr_width}))

    @property
    def addr_width(self) -> int:
        """Address bits of the operands' buffers."""
        return self._addr_width

    def _check(self, args: Mapping[str, int]) -> dict[str, int]:
        a = self.contract.check_args(args)
        try:
            check_enpy_scale(a["enpy_scale"])
        except ConfigError as exc:
            raise ValueError(f"unit kind {self.KIND!r}: argument 'enpy_scale': "
                             f"{exc.reason}") from None
        space = 1 << self._addr_width
        for op, span in (("entropy", 1), ("table", TABLE_ENTRIES)):
            first = a[f"{op}_addr"]
            if first + span > space:
                raise ValueError(f"unit kind {self.KIND!r}: operand {op!r} spans elements "
                                 f"{first}..{first + span - 1}, past its {space}-element "
                                 f"buffer (addr_width={self._addr_width})")
        return a

    def cycles(self, args: Mapping[str, int]) -> int:
        self._check(args)
        return CYCLES

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """One read of each operand and 25 adds (the class's action note)."""
        self._check(args)
        return {"read:entropy": 1, "read:table": 1, "add": _ADDS_PER_BIN}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        a = self._check(args)
        return {"entropy": (a["entropy_addr"], a["entropy_addr"] + 1),
                "table": (a["table_addr"], a["table_addr"] + TABLE_ENTRIES)}

    def selected_bin(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> int:
        """The bin of the entropy word the invocation reads."""
        a = self._check(args)
        words = np.asarray(buffers["entropy"])
        if len(words) <= a["entropy_addr"]:
            raise ValueError(f"unit kind {self.KIND!r}: buffer of operand 'entropy' holds "
                             f"{len(words)} words; the invocation reads {a['entropy_addr']}")
        raw = int(words[a["entropy_addr"]]) & 0xFFFF
        return scaled_entropy_bin((raw ^ 0x8000) - 0x8000, a["enpy_scale"])

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Nothing is written: the result is :meth:`golden_result`'s."""
        self._check(args)

    def golden_result(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> int:
        """The table entry of the entropy's bin (the ``result`` output)."""
        a = self._check(args)
        b = self.selected_bin(buffers, a)
        table = np.asarray(buffers["table"])
        if len(table) < a["table_addr"] + TABLE_ENTRIES:
            raise ValueError(f"unit kind {self.KIND!r}: buffer of operand 'table' holds "
                             f"{len(table)} words; the invocation reads up to "
                             f"{a['table_addr'] + TABLE_ENTRIES}")
        return int(table[a["table_addr"] + b]) & ((1 << RESULT_WIDTH) - 1)

    def elaborate(self, platform: object) -> Module:
        m = Module()
        aw = self._addr_width
        entropy_addr = Signal(aw)
        table_addr = Signal(aw)
        scale = Signal(8)
        bin_r = Signal(range(TABLE_ENTRIES))
        result = Signal(RESULT_WIDTH)
        m.d.comb += self.result.eq(result)

        h = self.entropy.data.as_signed()
        reached = []
        for t in ENTROPY_BIN_THRESHOLDS:
            # h // s >= t  <=>  h >= s * t  (h >= 0, s >= 1); a negative h reaches none.
            reached.append(~h[-1] & (h.as_unsigned() >= scale * Const(t, t.bit_length())))
        count: Value = Const(0, 4)
        for r in reached:
            count = count + r

        with m.FSM() as fsm:
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [entropy_addr.eq(self.arg_entropy_addr),
                                 table_addr.eq(self.arg_table_addr),
                                 scale.eq(self.arg_enpy_scale)]
                    m.next = "READ"
            with m.State("READ"):
                m.d.comb += [self.entropy.en.eq(1), self.entropy.addr.eq(entropy_addr)]
                m.next = "SCALE_ENPY"
            with m.State("SCALE_ENPY"):
                m.d.sync += bin_r.eq(count)
                m.next = "PUSH_VF"
            with m.State("PUSH_VF"):
                m.d.comb += [self.table.en.eq(1), self.table.addr.eq(table_addr + bin_r)]
                m.next = "NEXT"
            with m.State("NEXT"):
                m.d.sync += result.eq(self.table.data)
                m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        m.d.comb += self.busy.eq(~fsm.ongoing("IDLE"))
        return m
