"""Run an access trace on the eDRAM macro's RTL (Amaranth's simulator or Verilator).

The bench is RTL too: a *player* holds the trace in a ROM and drives the macro's access port
as :mod:`archsim.hw.models.edram_refresh` specifies (request ``k`` presented from
``max(issue_k, accept_{k-1} + 1)`` until accepted; a 32-bit cycle counter from 0 in the first
cycle after reset), so the same design runs under both backends with no Python per clock
edge in its logic. :func:`run_edram_trace` records, per cycle, the accept strobe, the
response and the refresh strobe (``record=True``), or lets Verilator run free and reads only
the final counters (``record=False``, fast).

>>> run = run_edram_trace(trace, rows=16, width=16, policy="lifetime",              # doctest: +SKIP
...                       retention_cycles=64, end_cycle=model.end_cycle)
>>> run.refreshes == model.refreshes and run.accept_cycles == model.accept_cycles   # doctest: +SKIP
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import Out

from ...errors import ConfigError
from ...hw.accel.edram import COUNTER_WIDTH, EdramMacro
from ...hw.checks import check_bool, check_int, silence_unused
from ...hw.models.edram_refresh import AccessTrace
from . import BACKENDS, simulate

__all__ = ["EdramTracePlayer", "EdramTraceResult", "run_edram_trace", "RECORDED"]

#: Outputs recorded per cycle when ``record=True``.
RECORDED = ("accept", "rsp_valid", "rsp_rdata", "refresh", "refresh_row")
_CYCLE_BITS = 32


class EdramTracePlayer(wiring.Component):
    """An :class:`~archsim.hw.accel.edram.EdramMacro` driven by a trace from a ROM.

    Outputs: ``accept`` (a request accepted this cycle), ``done`` (every request accepted),
    and the macro's ``rsp_valid``, ``rsp_rdata``, ``refresh`` (a bit per bank),
    ``refresh_row`` (a global row per bank), ``refreshes``, ``stolen_cycles``, ``accesses``
    and ``violation``.
    """

    def __init__(self, trace: AccessTrace, *, rows: int, width: int, policy: str,
                 retention_cycles: int, tick_cycles: int = 1, banks: int = 1) -> None:
        self.macro = EdramMacro(rows=rows, width=width, policy=policy,
                                retention_cycles=retention_cycles, tick_cycles=tick_cycles,
                                banks=banks)
        problem = (f"the trace touches row {trace.max_row}; the macro has {rows} rows"
                   if trace.max_row >= rows else
                   f"the trace writes {trace.max_data}, wider than width {width}"
                   if trace.max_data >= 1 << width else None)
        if problem is not None:
            silence_unused(self.macro)
            silence_unused(self)
            raise ValueError(problem)
        self.trace = trace
        rb = self.macro.parameters.row_bits
        super().__init__({
            "accept": Out(1), "done": Out(1), "rsp_valid": Out(1), "rsp_rdata": Out(width),
            "refresh": Out(banks), "refresh_row": Out(rb * banks),
            "refreshes": Out(COUNTER_WIDTH), "stolen_cycles": Out(COUNTER_WIDTH),
            "accesses": Out(COUNTER_WIDTH), "violation": Out(1),
        })

    def elaborate(self, platform: object) -> Module:
        m = Module()
        macro = self.macro
        m.submodules.macro = macro
        width, rb = macro.width, macro.parameters.row_bits
        n = len(self.trace)
        # Entry: issue cycle | write | release | row | data (LSB first).
        entries = [r.issue_cycle | (r.kind == "write") << _CYCLE_BITS
                   | (r.kind == "release") << (_CYCLE_BITS + 1)
                   | r.row << (_CYCLE_BITS + 2) | r.data << (_CYCLE_BITS + 2 + rb)
                   for r in self.trace]
        rom = Memory(shape=_CYCLE_BITS + 2 + rb + width, depth=n + 1, init=entries + [0])
        m.submodules.rom = rom
        rd = rom.read_port(domain="comb")
        k = Signal(range(n + 1))
        now = Signal(_CYCLE_BITS)
        entry = rd.data
        valid = Signal()
        m.d.comb += [
            rd.addr.eq(k),
            valid.eq((k < n) & (now >= entry[:_CYCLE_BITS])),
            macro.req_valid.eq(valid),
            macro.req_write.eq(entry[_CYCLE_BITS]),
            macro.req_release.eq(entry[_CYCLE_BITS + 1]),
            macro.req_row.eq(entry[_CYCLE_BITS + 2:_CYCLE_BITS + 2 + rb]),
            macro.req_wdata.eq(entry[_CYCLE_BITS + 2 + rb:]),
            self.accept.eq(valid & macro.req_ready),
            self.done.eq(k == n),
        ]
        m.d.sync += now.eq(now + 1)
        with m.If(self.accept):
            m.d.sync += k.eq(k + 1)
        for name in ("rsp_valid", "rsp_rdata", "refresh", "refresh_row", "refreshes",
                     "stolen_cycles", "accesses", "violation"):
            m.d.comb += getattr(self, name).eq(getattr(macro, name))
        return m


@dataclass(frozen=True)
class EdramTraceResult:
    """What :func:`run_edram_trace` measured on the RTL over ``cycles`` cycles.

    The per-cycle fields are ``None`` when the run was not recorded.

    Attributes
    ----------
    accept_cycles : tuple of int or None
        The cycle each request was accepted.
    read_data : tuple of int or None
        ``rsp_rdata`` in every cycle ``rsp_valid`` was high, in order.
    refresh_cycles, refresh_rows : tuple of int or None
        Every row refresh: its cycle and its global row, sorted by (cycle, row) (several
        per cycle with several banks).
    refreshes, stolen_cycles, accesses : int
        The macro's counters after the last cycle.
    violation : bool
        The macro's sticky ``violation`` after the last cycle.
    violation_cycle : int or None
        Recorded runs: the cycle before ``violation`` first rose (the violating cycle).
    done : bool
        Every request was accepted.
    """

    cycles: int
    backend: str
    accept_cycles: tuple[int, ...] | None
    read_data: tuple[int, ...] | None
    refresh_cycles: tuple[int, ...] | None
    refresh_rows: tuple[int, ...] | None
    refreshes: int
    stolen_cycles: int
    accesses: int
    violation: bool
    violation_cycle: int | None
    done: bool
    wall_time_s: float
    build_time_s: float


def run_edram_trace(trace: AccessTrace, *, rows: int, width: int, policy: str,
                    retention_cycles: int, end_cycle: int, tick_cycles: int = 1,
                    banks: int = 1, backend: str = "pysim",
                    record: bool = True) -> EdramTraceResult:
    """Simulate ``trace`` on an :class:`EdramMacro` for cycles ``0 .. end_cycle - 1``.

    Parameters
    ----------
    trace : AccessTrace
    rows, width, policy, retention_cycles, tick_cycles, banks
        The macro's parameters.
    end_cycle : int
        Cycles simulated, e.g. :attr:`RefreshRun.end_cycle
        <archsim.hw.models.edram_refresh.RefreshRun.end_cycle>`.
    backend : {"pysim", "verilator"}
    record : bool
        Record per-cycle strobes (accept, response, refresh); without, only the final
        counters (Verilator then runs free).

    Raises
    ------
    ConfigError
        Unknown backend.
    ValueError
        Bad macro parameters, a trace row ``>= rows`` or a word wider than ``width``.
    """
    if backend not in BACKENDS:
        raise ConfigError(f"unknown simulation backend {backend!r}", field="backend",
                          allowed=list(BACKENDS))
    check_int("end_cycle", end_cycle, 0, (1 << _CYCLE_BITS) - 1)
    check_bool("record", record)
    player = EdramTracePlayer(trace, rows=rows, width=width, policy=policy,
                              retention_cycles=retention_cycles, tick_cycles=tick_cycles,
                              banks=banks)
    outputs = list(RECORDED) + ["violation"] if record else []
    result = simulate(player, {}, outputs, cycles=end_cycle, backend=backend,
                      name="edram_player")
    final = result.final_outputs
    fields: dict[str, tuple[int, ...] | None] = dict.fromkeys(
        ("accept_cycles", "read_data", "refresh_cycles", "refresh_rows"))
    violation_cycle = None
    if record:
        out = {k: np.asarray(v) for k, v in result.outputs.items()}
        fields["accept_cycles"] = tuple(int(c) for c in np.flatnonzero(out["accept"]))
        fields["read_data"] = tuple(int(d) for d in out["rsp_rdata"][out["rsp_valid"] != 0])
        # Each refreshing bank's field of refresh_row holds its global row.
        rb = player.macro.parameters.row_bits
        records = sorted((int(c), int(out["refresh_row"][c]) >> (b * rb) & ((1 << rb) - 1))
                         for c in np.flatnonzero(out["refresh"])
                         for b in range(banks) if int(out["refresh"][c]) >> b & 1)
        fields["refresh_cycles"] = tuple(c for c, _ in records)
        fields["refresh_rows"] = tuple(r for _, r in records)
        high = np.flatnonzero(out["violation"])
        if high.size:
            violation_cycle = int(high[0]) - 1
        elif final["violation"]:
            violation_cycle = end_cycle - 1
    return EdramTraceResult(
        cycles=end_cycle, backend=backend, **fields,
        refreshes=int(final["refreshes"]), stolen_cycles=int(final["stolen_cycles"]),
        accesses=int(final["accesses"]), violation=bool(final["violation"]),
        violation_cycle=violation_cycle, done=bool(final["done"]),
        wall_time_s=result.wall_time_s, build_time_s=result.build_time_s)
