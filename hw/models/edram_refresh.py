"""Cycle-accurate reference of the eDRAM macro's refresh controllers, and access traces.

:class:`archsim.hw.accel.edram.EdramMacro` is an eDRAM macro of ``rows`` rows in ``banks``
independent arrays behind one access port, each bank with its own refresh controller of one
of three policies; this module is its reference model, written from the same specification
(below), plus the access traces both run.

Banks
-----
``banks`` is a power of two dividing ``rows`` (default 1). Row ``r`` lives in bank ``r %
banks`` at local row ``r // banks`` (the bank is the address's low bits, so consecutive rows
spread over the banks). Each bank is an independent array of ``rows // banks`` local rows
with its own controller of the macro's policy, applying the rules below to its local rows as
a one-bank macro of ``rows // banks`` rows would. With ``banks = 1`` the macro is a single
array and everything below reads as for one controller.

Cycles
------
Cycle 0 is the first cycle after reset. Everything a cycle ``t`` does takes effect from
cycle ``t + 1`` (registers update on the clock edge that ends ``t``).

Access port and trace semantics
-------------------------------
An :class:`AccessTrace` is a sequence of requests ``(issue_cycle, kind, row, data)``, issue
cycles non-decreasing, kind ``"write"``, ``"read"`` or ``"release"`` (a read that is the
data's last use: the row holds no live data after it). Requests are served in order, one per
cycle at most, through the one port: request ``k`` is *presented* (``req_valid`` high with
its fields) from cycle ``p_k = max(issue_k, a_{k-1} + 1)`` (``p_0 = issue_0``) until the
cycle ``a_k`` it is *accepted*: the first cycle ``>= p_k`` in which its row's bank is not
refreshing (``req_ready`` is low exactly then; other banks' refreshes do not block it). The data of a read accepted in cycle ``a`` is on ``rsp_rdata`` with
``rsp_valid`` in cycle ``a + 1`` (read latency 1). A trace may read or release a row only
while it holds live data (written and not released since); that is checked when the trace
is built.

Refresh
-------
Each bank refreshes at most one of its rows per cycle (so a cycle may refresh up to
``banks`` rows); a refresh takes its bank's array, so a request to that bank presented in
that cycle waits: a *stolen cycle* (counted, once, in each cycle in which the presented
request's bank refreshes). ``refreshes`` counts row refreshes over all banks; the refresh
records are (cycle, global row) pairs sorted by (cycle, row).

``"always"`` (the conventional controller)
    With ``interval = retention_cycles // (rows // banks)``, cycles ``t`` with ``(t + 1) %
    interval == 0`` (the ``interval``-th, ``2 * interval``-th, ... cycle after reset)
    refresh, in every bank, its local rows ``0, 1, ..., rows // banks - 1, 0, ...`` in turn,
    whatever they hold. Every row is refreshed every ``(rows // banks) * interval <=
    retention_cycles`` cycles, and a refresh is never postponed. The banks' controllers are
    identical and start together, so their refresh cycles coincide: every refresh cycle
    refreshes ``banks`` rows (local row ``j`` of each bank) and blocks every request.
``"lifetime"`` (CAMEL's idea: refresh only live data)
    Per row a ``valid`` bit (set by a write, cleared by a release) and an age counter in
    *ticks*: a prescaler pulses a tick in cycles ``t`` with ``t % tick_cycles ==
    tick_cycles - 1``; the age becomes 0 after a write or a refresh of the row and grows by
    one per tick otherwise, saturating at ``2 ** age_bits - 1`` with ``age_bits =
    ceil(log2(retention_cycles // tick_cycles + 1))``. A row is *due* when it is valid and
    its age is at least ``deadline_ticks = retention_cycles // tick_cycles - 1``; each cycle
    each bank refreshes its lowest-numbered due row (if any). Dead and never-written rows
    are never refreshed. Each bank has its own prescaler (identical, so the ticks coincide).
``"none"``
    No refresh: correct only for traces whose every lifetime is within the retention (the
    case CAMEL's reversible schedules aim for); it also exercises the retention checker.

Why "lifetime" keeps every row's data within ``retention_cycles`` (``R``, tick ``T``,
``D = R // T - 1 >= 1``): the argument is per bank, since a bank's rows, ages, due rows and
refreshes depend on other banks only through the cycles its own requests are accepted, and
it holds for any such cycles. Within a bank, call a write or refresh of a row at cycle ``s``
an *event*. The
age counts the ticks in cycles ``s + 1 .. t - 1``, so the row is due from ``b = c_D + 1``,
``c_D`` being the ``D``-th tick after ``s``; the first tick is at most ``T`` cycles after
``s`` and the next ones every ``T``, so ``b <= s + D * T + 1``. Every due cycle ``b`` is a
tick cycle plus one (a multiple of ``T``), and the rows due at ``b`` are those whose events
fell in the ``T`` cycles before their common first tick: at most ``T`` rows, since there is
at most one event per cycle in a bank (the one port accepts at most one request per cycle,
and none to a bank while it refreshes). The bank's refresh has priority over requests to it
and serves one row per cycle, so the rows due at ``b`` are all refreshed in ``b .. b + T - 1``, before the next
batch (at ``b + T``) is due. Hence a row is refreshed by ``s + D * T + 1 + T - 1 = s + T *
(R // T) <= s + R``: no data ever gets older than ``R`` (with ``T = 1`` every row is
refreshed exactly ``R`` cycles after its event, and no two rows of a bank are ever due
together).

Data age and the retention check
--------------------------------
A row's data age in cycle ``t`` is ``t - s`` with ``s`` the row's last write or refresh before
``t``; it matters while the row is valid (from the cycle after its write through its release
cycle). A *violation* is a cycle in which a valid row's age exceeds ``retention_cycles``: the
model raises :class:`~archsim.errors.SimulationError` (unless told to allow it), and the
RTL's sticky ``violation`` output rises in the cycle after the first one.
"""

from __future__ import annotations

import csv
import heapq
import io
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import ConfigError, SimulationError
from ...outputs import atomic_write_text
from ..checks import check_int, check_positive
from .memtech import MemoryModel, MemoryTechnology

__all__ = ["POLICIES", "KINDS", "CSV_COLUMNS", "MAX_ROWS", "Request", "AccessTrace",
           "RefreshParameters", "refresh_parameters", "RefreshRun", "simulate_refresh",
           "refresh_energy_j"]

#: Refresh policies of the macro.
POLICIES = ("always", "lifetime", "none")
#: Kinds of request.
KINDS = ("write", "read", "release")
#: Columns of a trace's CSV file, in order.
CSV_COLUMNS = ("issue_cycle", "kind", "row", "data")
#: Most rows a macro may have.
MAX_ROWS = 1 << 16
#: Cycles are counted in 32-bit registers by the RTL bench.
_MAX_CYCLE = (1 << 32) - 1


@dataclass(frozen=True)
class Request:
    """One request of a trace: presented from ``issue_cycle`` (see the module docstring);
    ``data`` is the word written (0 for reads and releases)."""

    issue_cycle: int
    kind: str
    row: int
    data: int = 0


class _TraceError(ValueError):
    """A bad request: ``index`` in the trace, ``field`` the culprit."""

    def __init__(self, index: int, field: str, message: str) -> None:
        super().__init__(f"request {index}: {message}")
        self.index, self.field, self.reason = index, field, message


def _check_request(index: int, issue_cycle: object, kind: object, row: object,
                   data: object) -> Request:
    for name, value in (("issue_cycle", issue_cycle), ("row", row), ("data", data)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise _TraceError(index, name, f"{name} must be an int >= 0, not {value!r}")
    if kind not in KINDS:
        raise _TraceError(index, "kind", f"kind must be one of {KINDS}, not {kind!r}")
    if int(issue_cycle) > _MAX_CYCLE:  # type: ignore[call-overload]
        raise _TraceError(index, "issue_cycle", f"issue_cycle must be at most {_MAX_CYCLE}, "
                          f"not {issue_cycle}")
    return Request(int(issue_cycle), str(kind), int(row), int(data))  # type: ignore[call-overload]


class AccessTrace:
    """A validated sequence of requests to one macro (semantics: the module docstring).

    Parameters
    ----------
    requests : iterable of Request or (issue_cycle, kind, row, data) tuples
        Issue cycles non-decreasing; a read or release only of a row holding live data
        (written, and not released since).

    Raises
    ------
    ValueError
        Naming the first bad request and why.
    """

    def __init__(self, requests: Iterable[Request | tuple[int, str, int, int]]) -> None:
        checked: list[Request] = []
        live: set[int] = set()
        last_issue = 0
        for i, req in enumerate(requests):
            fields = (req.issue_cycle, req.kind, req.row, req.data) if isinstance(req, Request) \
                else tuple(req)
            if len(fields) != 4:
                raise ValueError(f"request {i} must be (issue_cycle, kind, row, data), not "
                                 f"{req!r}")
            r = _check_request(i, *fields)
            if r.issue_cycle < last_issue:
                raise _TraceError(i, "issue_cycle", f"issue_cycle {r.issue_cycle} is before "
                                  f"the previous request's ({last_issue}); issue cycles must "
                                  "not decrease")
            if r.kind == "write":
                live.add(r.row)
            else:
                if r.row not in live:
                    raise _TraceError(i, "row", f"{r.kind} of row {r.row}, which holds no "
                                      "live data (never written, or released)")
                if r.kind == "release":
                    live.discard(r.row)
                if r.data:
                    raise _TraceError(i, "data", f"a {r.kind} carries no data; data must be "
                                      f"0, not {r.data}")
            last_issue = r.issue_cycle
            checked.append(r)
        self.requests: tuple[Request, ...] = tuple(checked)

    def __len__(self) -> int:
        return len(self.requests)

    def __iter__(self) -> Iterator[Request]:
        return iter(self.requests)

    def __getitem__(self, index: int) -> Request:
        return self.requests[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AccessTrace) and other.requests == self.requests

    def __hash__(self) -> int:
        return hash(self.requests)

    def __repr__(self) -> str:
        return f"AccessTrace({len(self)} requests)"

    @property
    def max_row(self) -> int:
        """Highest row the trace touches (-1 when empty)."""
        return max((r.row for r in self.requests), default=-1)

    @property
    def max_data(self) -> int:
        """Largest word the trace writes (0 when none)."""
        return max((r.data for r in self.requests), default=0)

    # --- builders ------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, lifetimes: Sequence[tuple[int, int, int] | tuple[int, int, int, int]]
                  ) -> AccessTrace:
        """One write and one release per entry ``(row, write_cycle, release_cycle[, data])``
        (``release_cycle > write_cycle``; ``data`` default ``row + 1``), all requests sorted
        by issue cycle (ties keep the entries' order, writes before releases)."""
        events: list[tuple[int, int, int, Request]] = []
        for i, entry in enumerate(lifetimes):
            if len(entry) not in (3, 4):
                raise ValueError(f"lifetimes[{i}] must be (row, write_cycle, release_cycle"
                                 f"[, data]), not {entry!r}")
            row, write, release = entry[0], entry[1], entry[2]
            data = entry[3] if len(entry) == 4 else row + 1
            if not release > write:
                raise ValueError(f"lifetimes[{i}]: release_cycle ({release}) must be after "
                                 f"write_cycle ({write})")
            events.append((write, 0, i, Request(write, "write", row, data)))
            events.append((release, 1, i, Request(release, "release", row, 0)))
        return cls(e[3] for e in sorted(events, key=lambda e: e[:3]))

    @classmethod
    def random(cls, rows: int, n: int, seed: int, *, width: int = 16,
               max_gap_cycles: int = 4) -> AccessTrace:
        """``n`` random requests over ``rows`` rows: gaps of 0..``max_gap_cycles`` cycles,
        writes of random ``width``-bit words, reads and releases of live rows only (a mix
        that keeps some rows live for long and recycles others quickly)."""
        check_positive("rows", rows)
        check_int("n", n, 0, 1 << 24)
        check_int("width", width, 1, 64)
        check_int("max_gap_cycles", max_gap_cycles, 0, 1 << 16)
        rng = np.random.default_rng(seed)
        live: list[int] = []
        t = 0
        out: list[Request] = []
        for _ in range(n):
            t += int(rng.integers(0, max_gap_cycles + 1))
            u = rng.random()
            if not live or (u < 0.4 and len(live) < rows):
                row = int(rng.integers(0, rows))
                if row not in live:
                    live.append(row)
                out.append(Request(t, "write", row, int(rng.integers(0, 1 << width,
                                                                     dtype=np.uint64))))
            else:
                row = live[int(rng.integers(0, len(live)))]
                if u < 0.75:
                    out.append(Request(t, "read", row))
                else:
                    live.remove(row)
                    out.append(Request(t, "release", row))
        return cls(out)

    @classmethod
    def training_like(cls, *, rows: int, layers: int, rows_per_tensor: int, seed: int,
                      compute_cycles: int = 64, width: int = 16) -> AccessTrace:
        """A training iteration's pattern on one buffer (standard back-propagation).

        Activations ``a_0 .. a_layers`` and two gradient tensors, ``rows_per_tensor`` rows
        each, at consecutive rows. Forward: write ``a_0``; for each layer read ``a_{l-1}``,
        compute (``compute_cycles``, jittered by up to a quarter), write ``a_l``. Backward:
        read ``a_layers`` and release it (its last use), write the output gradient; for
        ``l = layers .. 1`` read and release the incoming gradient and ``a_{l-1}`` (their
        last use), compute, and write the next gradient (except after ``l = 1``). Early
        activations so live for almost the whole iteration, gradients briefly. The cycle
        counts are illustrative (assumed), not CAMEL's schedule: lifetimes from a simulated
        schedule come from the SoC engine.
        """
        check_positive("rows", rows)
        check_positive("layers", layers)
        check_positive("rows_per_tensor", rows_per_tensor)
        check_positive("compute_cycles", compute_cycles)
        check_int("width", width, 1, 64)
        need = (layers + 3) * rows_per_tensor
        if need > rows:
            raise ValueError(f"{layers + 3} tensors of {rows_per_tensor} rows need {need} rows; "
                             f"the macro has {rows}")
        rng = np.random.default_rng(seed)
        out: list[Request] = []
        t = 0

        def tensor(i: int) -> range:
            return range(i * rows_per_tensor, (i + 1) * rows_per_tensor)

        def access(kind: str, i: int) -> None:
            nonlocal t
            for row in tensor(i):
                data = int(rng.integers(0, 1 << width, dtype=np.uint64)) if kind == "write" \
                    else 0
                out.append(Request(t, kind, row, data))
                t += 1

        def compute() -> None:
            nonlocal t
            t += compute_cycles + int(rng.integers(0, compute_cycles // 4 + 1))

        grads = (layers + 1, layers + 2)
        access("write", 0)
        for layer in range(1, layers + 1):
            access("read", layer - 1)
            compute()
            access("write", layer)
        access("release", layers)
        compute()
        access("write", grads[0])
        for k, layer in enumerate(range(layers, 0, -1)):
            access("release", grads[k % 2])
            access("release", layer - 1)
            compute()
            if layer > 1:
                access("write", grads[(k + 1) % 2])
        return cls(out)

    # --- CSV -------------------------------------------------------------------------------
    def write_csv(self, path: str | os.PathLike[str]) -> Path:
        """Write the trace as CSV (columns :data:`CSV_COLUMNS`, a header line) atomically."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for r in self.requests:
            writer.writerow((r.issue_cycle, r.kind, r.row, r.data))
        return atomic_write_text(path, buf.getvalue())

    @classmethod
    def read_csv(cls, path: str | os.PathLike[str]) -> AccessTrace:
        """Read a trace written by :meth:`write_csv`.

        Raises
        ------
        ConfigError
            Naming the file, the line and the field of the first bad value (or the header).
        """
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read the trace: {exc.strerror}", file=name) from None
        lines = text.splitlines()
        reader = csv.reader(lines)
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header) != CSV_COLUMNS:
            raise ConfigError(f"line 1: the header must be {','.join(CSV_COLUMNS)}, not "
                              f"{','.join(header or [])!r}", file=name, field="header")
        requests: list[Request] = []
        lines_of: list[int] = []   # the line of each request
        for lineno, cells in enumerate(reader, start=2):
            if not cells:
                continue
            lines_of.append(lineno)
            if len(cells) != len(CSV_COLUMNS):
                raise ConfigError(f"line {lineno}: {len(cells)} fields, expected "
                                  f"{len(CSV_COLUMNS)}", file=name, field="fields")
            values: dict[str, int | str] = {}
            for column, cell in zip(CSV_COLUMNS, cells, strict=True):
                cell = cell.strip()
                if column == "kind":
                    if cell not in KINDS:
                        raise ConfigError(f"line {lineno}: kind {cell!r} is not a request "
                                          "kind", file=name, field="kind", allowed=list(KINDS))
                    values[column] = cell
                    continue
                try:
                    number = int(cell)
                except ValueError:
                    number = -1
                if number < 0 or not cell.isdigit():
                    raise ConfigError(f"line {lineno}: {column} = {cell!r} is not an int "
                                      ">= 0", file=name, field=column)
                values[column] = number
            requests.append(Request(int(values["issue_cycle"]), str(values["kind"]),
                                    int(values["row"]), int(values["data"])))
        try:
            return cls(requests)
        except _TraceError as exc:
            raise ConfigError(f"line {lines_of[exc.index]}: {exc.reason}", file=name,
                              field=exc.field) from None


@dataclass(frozen=True)
class RefreshParameters:
    """A macro's validated refresh parameters and what follows from them (the module
    docstring's rules), shared by the RTL and this model."""

    rows: int
    policy: str
    retention_cycles: int
    tick_cycles: int
    banks: int = 1

    @property
    def rows_per_bank(self) -> int:
        """Local rows of each bank, ``rows // banks``."""
        return self.rows // self.banks

    @property
    def interval_cycles(self) -> int:
        """``"always"``: cycles between two refreshes of a bank,
        ``retention_cycles // rows_per_bank`` (every bank refreshes in the same cycles)."""
        return self.retention_cycles // self.rows_per_bank

    @property
    def retention_ticks(self) -> int:
        """``retention_cycles // tick_cycles``."""
        return self.retention_cycles // self.tick_cycles

    @property
    def deadline_ticks(self) -> int:
        """``"lifetime"``: the age (ticks) at which a valid row is due,
        ``retention_ticks - 1``."""
        return self.retention_ticks - 1

    @property
    def age_bits(self) -> int:
        """Bits of a row's saturating age counter: ``ceil(log2(retention_ticks + 1))``."""
        return self.retention_ticks.bit_length()

    @property
    def row_bits(self) -> int:
        """Bits of a row address."""
        return max(1, (self.rows - 1).bit_length())

    @property
    def bank_bits(self) -> int:
        """Bits of a bank number (0 with one bank): the low bits of a row address."""
        return (self.banks - 1).bit_length()

    @property
    def local_row_bits(self) -> int:
        """Bits of a row address within a bank."""
        return max(1, (self.rows_per_bank - 1).bit_length())

    @property
    def state_bits_per_row(self) -> int:
        """State the controller adds per row: ``"lifetime"`` a valid bit and an age counter,
        the others none."""
        return 1 + self.age_bits if self.policy == "lifetime" else 0

    @property
    def controller_state_bits(self) -> int:
        """Every state bit of the controllers, summed over the banks (the retention
        checker, a verification aid, excluded): per bank, ``"lifetime"`` the per-row state
        of its rows plus its tick prescaler; ``"always"`` its interval timer and row
        pointer; ``"none"`` 0."""
        if self.policy == "lifetime":
            return self.rows * self.state_bits_per_row \
                + self.banks * (self.tick_cycles - 1).bit_length()
        if self.policy == "always":
            return self.banks * ((self.interval_cycles - 1).bit_length()
                                 + (self.rows_per_bank - 1).bit_length())
        return 0

    def due_cycle(self, event_cycle: int) -> int:
        """``"lifetime"``: the first cycle a row written or refreshed in ``event_cycle`` is
        due (the ``deadline_ticks``-th tick after it, plus one)."""
        t = self.tick_cycles
        first_tick = event_cycle + 1 + (t - 2 - event_cycle) % t
        return first_tick + (self.deadline_ticks - 1) * t + 1


def refresh_parameters(*, rows: int, policy: str, retention_cycles: int,
                       tick_cycles: int = 1, banks: int = 1) -> RefreshParameters:
    """Validate a macro's refresh parameters (the messages :class:`EdramMacro
    <archsim.hw.accel.edram.EdramMacro>` raises too).

    Raises
    ------
    TypeError
        A parameter is not an int.
    ValueError
        ``rows`` outside ``1..MAX_ROWS``; ``banks`` not a power of two or not dividing
        ``rows``; ``retention_cycles`` under ``2 * rows // banks`` (every row of a bank
        must be refreshable within it with every other cycle free for requests);
        ``tick_cycles`` over ``retention_cycles // 2`` (the deadline must be at least one
        tick).
    ConfigError
        Unknown ``policy`` (``field="policy"``, the allowed ones listed).
    """
    check_int("rows", rows, 1, MAX_ROWS)
    check_int("banks", banks, 1, MAX_ROWS)
    if banks & (banks - 1):
        raise ValueError(f"banks must be a power of two, not {banks}")
    if rows % banks:
        raise ValueError(f"rows ({rows}) must be a multiple of banks ({banks})")
    if policy not in POLICIES:
        raise ConfigError(f"unknown refresh policy {policy!r}", field="policy",
                          allowed=list(POLICIES))
    if isinstance(retention_cycles, bool) or not isinstance(retention_cycles, int):
        raise TypeError(f"retention_cycles must be an int, not {retention_cycles!r}")
    per_bank = rows // banks
    if not 2 * per_bank <= retention_cycles <= _MAX_CYCLE:
        what = "2 * rows" if banks == 1 else "2 * rows // banks"
        raise ValueError(f"retention_cycles must be in {2 * per_bank}..{_MAX_CYCLE} (at "
                         f"least {what}, so every row is refreshed within it with every "
                         f"other cycle free), not {retention_cycles}")
    check_positive("tick_cycles", tick_cycles)
    if tick_cycles > retention_cycles // 2:
        raise ValueError(f"tick_cycles must be at most retention_cycles // 2 "
                         f"({retention_cycles // 2}), so the deadline is at least one tick, "
                         f"not {tick_cycles}")
    return RefreshParameters(rows, policy, retention_cycles, tick_cycles, banks)


@dataclass(frozen=True)
class RefreshRun:
    """What :func:`simulate_refresh` computed, over cycles ``0 .. end_cycle - 1``.

    Attributes
    ----------
    parameters : RefreshParameters
    end_cycle : int
    accept_cycles : tuple of int
        The cycle each request was accepted, in trace order.
    read_data : tuple of int
        The word each read or release returned, in trace order of those requests.
    refresh_cycles, refresh_rows : tuple of int
        Every row refresh: its cycle and its (global) row, sorted by (cycle, row); with
        several banks a cycle may appear several times.
    stolen_cycles : int
        Cycles in which a presented request waited because its bank was refreshing.
    max_age_cycles : int
        Oldest data age any valid row reached (module docstring), 0 when none was valid.
    violation_cycle : int or None
        First cycle a valid row's data age exceeded ``retention_cycles`` (None: never).
    """

    parameters: RefreshParameters
    end_cycle: int
    accept_cycles: tuple[int, ...]
    read_data: tuple[int, ...]
    refresh_cycles: tuple[int, ...]
    refresh_rows: tuple[int, ...]
    stolen_cycles: int
    max_age_cycles: int
    violation_cycle: int | None

    @property
    def refreshes(self) -> int:
        """Row refresh operations, over all banks."""
        return len(self.refresh_cycles)

    @property
    def accesses(self) -> int:
        """Requests accepted."""
        return len(self.accept_cycles)

    @property
    def violation(self) -> bool:
        """Whether some valid row's data outlived ``retention_cycles``."""
        return self.violation_cycle is not None

    @property
    def rows(self) -> int:
        """Rows of the macro."""
        return self.parameters.rows

    @property
    def policy(self) -> str:
        """The refresh policy."""
        return self.parameters.policy

    @property
    def banks(self) -> int:
        """Banks of the macro."""
        return self.parameters.banks


def simulate_refresh(trace: AccessTrace, *, rows: int, policy: str, retention_cycles: int,
                     tick_cycles: int = 1, banks: int = 1, end_cycle: int | None = None,
                     allow_violation: bool = False) -> RefreshRun:
    """Run ``trace`` on the macro's controllers, cycle by cycle (the module docstring's rules).

    Idle stretches are skipped (nothing changes in them but ages), so long runs are cheap.

    Parameters
    ----------
    trace : AccessTrace
    rows, policy, retention_cycles, tick_cycles, banks
        As :func:`refresh_parameters` takes them.
    end_cycle : int, optional
        Cycles simulated (``0 .. end_cycle - 1``); default the cycle after the last response
        (last accept + 2), or 0 for an empty trace. Every request must be accepted and every
        response delivered before it.
    allow_violation : bool
        Return a run with a :attr:`~RefreshRun.violation_cycle` instead of raising.

    Raises
    ------
    ValueError
        A row of the trace is ``>= rows``; ``end_cycle`` too early.
    SimulationError
        A valid row's data age exceeded ``retention_cycles`` (names the row and cycle).
    """
    p = refresh_parameters(rows=rows, policy=policy, retention_cycles=retention_cycles,
                           tick_cycles=tick_cycles, banks=banks)
    if trace.max_row >= rows:
        raise ValueError(f"the trace touches row {trace.max_row}; the macro has {rows} rows")
    if end_cycle is not None:
        check_int("end_cycle", end_cycle, 0, _MAX_CYCLE)
    reqs = trace.requests
    n = len(reqs)

    valid = [False] * rows
    last = [0] * rows            # cycle of the row's last write or refresh
    stored = [0] * rows          # the word each row holds
    version = [0] * rows         # invalidates a row's stale entries in `pending`
    pending: list[tuple[int, int, int]] = []   # "lifetime": (due cycle, row, version)
    # "lifetime": per bank, its rows due, lowest first (global order = local order in a bank).
    due_now: list[list[int]] = [[] for _ in range(banks)]
    due_count = 0                # rows in all of due_now
    pointer = 0                  # "always": next local row (the same in every bank)
    interval = p.interval_cycles

    accept: list[int] = []
    read_data: list[int] = []
    refresh_cycles: list[int] = []
    refresh_rows: list[int] = []
    stolen = 0
    max_age = 0
    violation: tuple[int, int] | None = None   # (first cycle, row)

    def aged(row: int, t: int) -> None:
        # The valid row's data is age t - last[row] in cycle t.
        nonlocal max_age, violation
        age = t - last[row]
        max_age = max(max_age, age)
        if age > p.retention_cycles:
            first = last[row] + p.retention_cycles + 1
            if violation is None or first < violation[0]:
                violation = (first, row)

    def restored(row: int, t: int) -> None:
        # A write or refresh of `row` in cycle t: age 0 from t + 1, due again later.
        last[row] = t
        version[row] += 1
        if p.policy == "lifetime":
            heapq.heappush(pending, (p.due_cycle(t), row, version[row]))

    k = 0
    present = reqs[0].issue_cycle if n else 0
    # Without an end_cycle the run ends with the last response (set when it is known).
    limit = (0 if n == 0 else _MAX_CYCLE + 1) if end_cycle is None else end_cycle
    t = 0
    while t < limit:
        while pending and pending[0][0] <= t:
            _, row, ver = heapq.heappop(pending)
            if ver == version[row] and valid[row]:
                heapq.heappush(due_now[row % banks], row)
                due_count += 1
        refreshed: list[int] = []   # this cycle's rows, ascending
        if p.policy == "always" and (t + 1) % interval == 0:
            refreshed = [pointer * banks + b for b in range(banks)]
            pointer = (pointer + 1) % p.rows_per_bank
        elif p.policy == "lifetime" and due_count:
            # (No request reaches a bank while one of its rows is due, so a due row is still
            # valid.)
            refreshed = sorted(heapq.heappop(q) for q in due_now if q)
            due_count -= len(refreshed)
        waiting = k < n and t >= present
        busy = waiting and any(row % banks == reqs[k].row % banks for row in refreshed)
        for row in refreshed:
            refresh_cycles.append(t)
            refresh_rows.append(row)
            if valid[row]:
                aged(row, t)
            restored(row, t)
        stolen += busy
        if waiting and not busy:
            r = reqs[k]
            if valid[r.row]:
                aged(r.row, t)
            if r.kind == "write":
                valid[r.row] = True
                stored[r.row] = r.data
                restored(r.row, t)
            else:
                read_data.append(stored[r.row])
                if r.kind == "release":
                    valid[r.row] = False
                    version[r.row] += 1
            accept.append(t)
            k += 1
            if k < n:
                present = max(reqs[k].issue_cycle, t + 1)
            elif end_cycle is None:
                limit = t + 2
        # Skip to the next cycle in which something but ages changes.
        nxt = limit
        if k < n:
            nxt = min(nxt, present)
        if p.policy == "always":
            nxt = min(nxt, ((t + 1) // interval + 1) * interval - 1)
        elif due_count:
            nxt = t + 1
        elif pending:
            nxt = min(nxt, pending[0][0])
        t = max(nxt, t + 1)

    end = limit
    last_response = max((a + 1 for a, r in zip(accept, reqs[:len(accept)], strict=True)
                         if r.kind != "write"), default=-1)
    if k < n or end <= last_response:
        what = f"request {k} is not accepted" if k < n \
            else f"a response (cycle {last_response}) is not delivered"
        raise ValueError(f"end_cycle {end_cycle} is too early: {what} by then")
    for row in range(rows):
        if valid[row] and end > 0:
            aged(row, end - 1)
    run = RefreshRun(parameters=p, end_cycle=end, accept_cycles=tuple(accept),
                     read_data=tuple(read_data), refresh_cycles=tuple(refresh_cycles),
                     refresh_rows=tuple(refresh_rows), stolen_cycles=stolen,
                     max_age_cycles=max_age,
                     violation_cycle=None if violation is None else violation[0])
    if violation is not None and not allow_violation:
        raise SimulationError(f"row {violation[1]}'s data outlived the retention of "
                              f"{p.retention_cycles} cycles (policy {policy!r})",
                              signal="violation", cycle=violation[0])
    return run


def refresh_energy_j(run: RefreshRun, *, width: int,
                     technology: str | MemoryTechnology = "edram") -> float:
    """Energy of the run's refresh operations, joules: each restores one row of ``width``
    bits at :class:`~archsim.hw.models.memtech.MemoryModel`'s refresh energy per operation
    (the technology's ``refresh_energy_j_per_bit``, scaled to the macro as memtech scales
    every per-bit figure); no new numbers.

    Raises
    ------
    ValueError
        The technology is not refreshed.
    """
    check_positive("width", width)
    model = MemoryModel(technology=technology, words=run.rows, width=width)
    if not model.technology.refreshed:
        raise ValueError(f"memory technology {model.technology.name!r} is not refreshed")
    return run.refreshes * model.refresh_energy_per_operation_j

