"""An eDRAM macro with a refresh controller: always-refresh or lifetime-aware (CAMEL).

:class:`EdramMacro` is ``rows`` words of ``width`` bits in ``banks`` independent arrays
(:class:`amaranth.lib.memory.Memory`, row ``r`` at local row ``r // banks`` of bank ``r %
banks``), one access port with a valid/ready handshake, and per bank a refresh controller of
one of the policies of :mod:`archsim.hw.models.edram_refresh`, whose module docstring is the
specification (cycle conventions, banks, the policies' exact rules, the proof that the
lifetime controller keeps every live row's data within ``retention_cycles``);
:func:`~archsim.hw.models.edram_refresh.simulate_refresh` is its cycle-accurate reference and
the tests hold the two equal.

Members
-------
``req_valid``, ``req_ready``, ``req_write``, ``req_release``, ``req_row``, ``req_wdata``
    A request is accepted in a cycle with ``req_valid`` and ``req_ready`` high. ``req_ready``
    is low exactly in the cycles in which ``req_row``'s bank refreshes (the refresh takes
    that bank's array; it depends on ``req_row``). ``req_write`` high: write
    ``req_wdata`` to ``req_row`` (visible to reads from the next cycle; ``req_release`` is
    ignored). Low: read ``req_row``; with ``req_release`` the read is the data's last use
    and the row holds no live data after it. ``req_row`` must be below ``rows``.
``rsp_valid``, ``rsp_rdata``
    The data of a read accepted in cycle ``t``, with ``rsp_valid`` high, in cycle ``t + 1``
    (read latency 1 cycle); ``rsp_rdata`` holds until the next read's data.
``refresh`` (Out ``banks``), ``refresh_row`` (Out ``row_bits * banks``)
    Bit ``b`` of ``refresh`` high when bank ``b`` refreshes this cycle, and field ``b``
    (bits ``b * row_bits ..``) of ``refresh_row`` the global row it refreshes
    (observability for benches; with one bank, one bit and one row).
``refreshes``, ``stolen_cycles``, ``accesses`` (Out 32)
    Row refreshes over all banks (several may add in one cycle), cycles in which
    ``req_valid`` was high and its bank refreshed, and accepted requests, in the cycles
    before the current one (wrapping).
``violation`` (Out 1)
    Sticky: high from the cycle after the first cycle in which a valid row's data age (cycles
    since its last write or refresh) exceeded ``retention_cycles``. A shadow checker (an exact
    age per row, saturating at ``retention_cycles + 1``, and a valid bit per row for every
    policy) computes it: a verification aid, not counted in
    :attr:`EdramMacro.controller_state_bits`.

The data never decays in the RTL; the checker flags what would have been lost.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..checks import check_int, silence_unused
from ..models.edram_refresh import RefreshParameters, refresh_parameters

__all__ = ["EdramMacro", "COUNTER_WIDTH", "MAX_WIDTH"]

#: Width of the counters.
COUNTER_WIDTH = 32
#: Widest word the macro holds.
MAX_WIDTH = 64


class EdramMacro(wiring.Component):
    """eDRAM array, one access port, and a refresh controller (see the module docstring).

    Parameters
    ----------
    rows : int
        Words (one per row; a refresh restores one row), ``1..MAX_ROWS``.
    width : int
        Bits per word, ``1..64``.
    policy : {"always", "lifetime", "none"}
        The refresh controller.
    retention_cycles : int
        Longest a row's data may go without a write or refresh, at least ``2 * rows //
        banks``
        (e.g. :meth:`MemoryModel.retention_cycles
        <archsim.hw.models.memtech.MemoryModel.retention_cycles>`).
    tick_cycles : int
        ``"lifetime"``: cycles per tick of the age counters (coarser ticks, narrower
        counters), at most ``retention_cycles // 2``.
    banks : int
        Independent arrays, each with its own controller over its ``rows // banks`` rows: a
        power of two dividing ``rows`` (then ``retention_cycles`` need only be at least
        ``2 * rows // banks``).

    Raises
    ------
    TypeError, ValueError, ConfigError
        As :func:`~archsim.hw.models.edram_refresh.refresh_parameters`, and ``width``
        outside ``1..64``.
    """

    def __init__(self, *, rows: int, width: int, policy: str, retention_cycles: int,
                 tick_cycles: int = 1, banks: int = 1) -> None:
        try:
            self.parameters: RefreshParameters = refresh_parameters(
                rows=rows, policy=policy, retention_cycles=retention_cycles,
                tick_cycles=tick_cycles, banks=banks)
            check_int("width", width, 1, MAX_WIDTH)
        except Exception:  # TypeError, ValueError, ConfigError: a user error
            silence_unused(self)
            raise
        self.rows, self.width, self.policy = rows, width, policy
        self.retention_cycles, self.tick_cycles, self.banks = retention_cycles, tick_cycles, banks
        rb = self.parameters.row_bits
        super().__init__({
            "req_valid": In(1), "req_ready": Out(1), "req_write": In(1),
            "req_release": In(1), "req_row": In(rb), "req_wdata": In(width),
            "rsp_valid": Out(1), "rsp_rdata": Out(width),
            "refresh": Out(banks), "refresh_row": Out(rb * banks),
            "refreshes": Out(COUNTER_WIDTH), "stolen_cycles": Out(COUNTER_WIDTH),
            "accesses": Out(COUNTER_WIDTH), "violation": Out(1),
        })

    @property
    def state_bits_per_row(self) -> int:
        """Bits the controller adds per row (``"lifetime"``: valid + age counter)."""
        return self.parameters.state_bits_per_row

    @property
    def controller_state_bits(self) -> int:
        """Every state bit of the banks' refresh controllers, summed (the checker excluded)."""
        return self.parameters.controller_state_bits

    def elaborate(self, platform: object) -> Module:
        m = Module()
        p = self.parameters
        rows, banks, per_bank = self.rows, self.banks, p.rows_per_bank
        bb, lb = p.bank_bits, p.local_row_bits

        # Row r is local row r // banks of bank r % banks: the bank is the address's low bits.
        req_bank = self.req_row[:bb] if bb else Const(0, 1)
        req_local = self.req_row[bb:] if per_bank > 1 else Const(0, 1)
        bank_refresh = Signal(banks)            # bank b refreshes this cycle
        ref_local = [Signal(lb, name=f"ref_local_{b}") for b in range(banks)]
        busy = Signal()                         # the presented request's bank refreshes
        accept = Signal()
        m.d.comb += [
            busy.eq(bank_refresh.bit_select(req_bank, 1) if bb else bank_refresh[0]),
            self.req_ready.eq(~busy),
            accept.eq(self.req_valid & ~busy),
            self.refresh.eq(bank_refresh),
        ]
        reads: list[Value] = []
        for b in range(banks):
            mem = Memory(shape=self.width, depth=per_bank, init=[])
            m.submodules["array" if banks == 1 else f"array_{b}"] = mem
            wp, rp = mem.write_port(), mem.read_port()
            mine = req_bank == b
            m.d.comb += [
                wp.en.eq(accept & self.req_write & mine), wp.addr.eq(req_local),
                wp.data.eq(self.req_wdata),
                rp.en.eq(accept & ~self.req_write & mine), rp.addr.eq(req_local),
            ]
            reads.append(rp.data)
            glob = Signal(p.row_bits, name=f"ref_row_{b}")
            m.d.comb += [glob.eq(Cat(Const(b, bb), ref_local[b]) if bb else ref_local[b]),
                         self.refresh_row[b * p.row_bits:(b + 1) * p.row_bits].eq(glob)]
        if banks == 1:
            m.d.comb += self.rsp_rdata.eq(reads[0])
        else:
            # The bank of the last read selects the response (each port holds its data).
            rsp_bank = Signal(bb)
            with m.If(accept & ~self.req_write):
                m.d.sync += rsp_bank.eq(req_bank)
            m.d.comb += self.rsp_rdata.eq(Array(reads)[rsp_bank])
        m.d.sync += [
            self.rsp_valid.eq(accept & ~self.req_write),
            self.refreshes.eq(self.refreshes + sum(bank_refresh[b] for b in range(banks))),
            self.stolen_cycles.eq(self.stolen_cycles + (busy & self.req_valid)),
            self.accesses.eq(self.accesses + accept),
        ]

        # Per row: a write accepted, a release accepted, a refresh.
        hit = [Signal(name=f"hit_{r}") for r in range(rows)]
        for r in range(rows):
            m.d.comb += hit[r].eq(self.req_row == r)
        written = [accept & self.req_write & hit[r] for r in range(rows)]
        released = [accept & ~self.req_write & self.req_release & hit[r] for r in range(rows)]
        refreshed = [bank_refresh[r % banks] & (ref_local[r % banks] == r // banks)
                     for r in range(rows)]
        valid = Signal(rows)
        for r in range(rows):
            with m.If(written[r]):
                m.d.sync += valid[r].eq(1)
            with m.Elif(released[r]):
                m.d.sync += valid[r].eq(0)

        # One controller per bank, over its own rows (b, b + banks, ...).
        for b in range(banks):
            mine = range(b, rows, banks)
            if p.policy == "always":
                last = p.interval_cycles - 1
                timer = Signal(range(last + 1), name=f"timer_{b}")
                m.d.comb += bank_refresh[b].eq(timer == last)
                m.d.sync += timer.eq(Mux(timer == last, 0, timer + 1))
                with m.If(bank_refresh[b]):
                    m.d.sync += ref_local[b].eq(
                        Mux(ref_local[b] == per_bank - 1, 0, ref_local[b] + 1))
            elif p.policy == "lifetime":
                self._lifetime(m, p, b, valid, [written[r] for r in mine],
                               [refreshed[r] for r in mine], bank_refresh[b], ref_local[b])
            else:
                m.d.comb += bank_refresh[b].eq(0)

        self._checker(m, valid, [w | f for w, f in zip(written, refreshed, strict=True)])
        return m

    def _lifetime(self, m: Module, p: RefreshParameters, bank: int, valid: Signal,
                  written: list[Value], refreshed: list[Value], refresh: Value,
                  ref_local: Signal) -> None:
        """One bank's tick prescaler, per-row saturating ages, its lowest due local row
        (``written``, ``refreshed``: the bank's rows in local order)."""
        banks, per_bank = self.banks, p.rows_per_bank
        sfx = "" if banks == 1 else f"_{bank}"
        tick = Signal(name=f"tick{sfx}")
        if self.tick_cycles == 1:
            m.d.comb += tick.eq(1)
        else:
            pre = Signal(range(self.tick_cycles), name=f"pre{sfx}")
            m.d.comb += tick.eq(pre == self.tick_cycles - 1)
            m.d.sync += pre.eq(Mux(tick, 0, pre + 1))
        top = (1 << p.age_bits) - 1
        due = Signal(per_bank, name=f"due{sfx}")
        choice: Value = Const(0, p.local_row_bits)
        for j in reversed(range(per_bank)):
            r = j * banks + bank
            age = Signal(p.age_bits, name=f"age_{r}")
            with m.If(written[j] | refreshed[j]):
                m.d.sync += age.eq(0)
            with m.Elif(tick & (age != top)):
                m.d.sync += age.eq(age + 1)
            m.d.comb += due[j].eq(valid[r] & (age >= p.deadline_ticks))
            # Built from the top row down, so the lowest due row wins.
            choice = Mux(due[j], j, choice)
        m.d.comb += [refresh.eq(due.any()), ref_local.eq(choice)]

    def _checker(self, m: Module, valid: Signal, restored: list[Value]) -> None:
        """Exact data age per row; ``violation`` when a valid row's exceeds retention."""
        limit = self.retention_cycles
        late = []
        for r in range(self.rows):
            age = Signal(range(limit + 2), name=f"check_age_{r}")
            with m.If(restored[r]):
                m.d.sync += age.eq(1)
            with m.Elif(age != limit + 1):
                m.d.sync += age.eq(age + 1)
            late.append(valid[r] & (age > limit))
        seen = Signal()
        m.d.sync += seen.eq(seen | Cat(*late).any())
        m.d.comb += self.violation.eq(seen)
