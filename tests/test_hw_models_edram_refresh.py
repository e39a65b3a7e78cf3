"""The eDRAM refresh model against closed forms derived by hand, ages recomputed here from the
run's accept and refresh cycles, and the traces' validation and CSV round trip."""

from __future__ import annotations

import math
import os

import pytest

from archsim.errors import ConfigError, SimulationError
from archsim.hw.models.edram_refresh import (
    AccessTrace,
    Request,
    refresh_energy_j,
    refresh_parameters,
    simulate_refresh,
)
from archsim.hw.models.memtech import memory_technology


def recomputed_ages(trace: AccessTrace, accept: tuple[int, ...], refresh_cycles: tuple[int, ...],
                    refresh_rows: tuple[int, ...], end_cycle: int) -> list[int]:
    """Every age a live row's data reached before its next write, refresh or release (or the
    last cycle), from the cycles alone: a write (re)starts a row's data at its accept cycle,
    a refresh of a live row restarts it, a release ends it."""
    events = [(t, req.kind, req.row) for req, t in zip(trace, accept, strict=True)]
    events += [(t, "refresh", row) for t, row in zip(refresh_cycles, refresh_rows, strict=True)]
    since: dict[int, int] = {}
    ages = []
    for t, kind, row in sorted(events):
        if row in since:
            ages.append(t - since[row])
            if kind in ("write", "refresh"):
                since[row] = t
            elif kind == "release":
                del since[row]
        elif kind == "write":
            since[row] = t
    return ages + [end_cycle - 1 - s for s in since.values()]


# --- "always" ------------------------------------------------------------------------------
@pytest.mark.parametrize(("rows", "retention", "end"), [(16, 64, 1000), (16, 70, 999),
                                                        (5, 23, 200), (256, 4096, 50_000)])
def test_always_idle_refreshes_every_interval(rows, retention, end):
    run = simulate_refresh(AccessTrace([]), rows=rows, policy="always",
                           retention_cycles=retention, end_cycle=end)
    interval = retention // rows
    assert run.refreshes == end // interval
    assert run.refresh_cycles == tuple(k * interval - 1 for k in range(1, end // interval + 1))
    assert run.refresh_rows == tuple(k % rows for k in range(end // interval))
    assert run.stolen_cycles == 0 and run.accesses == 0 and not run.violation


def test_always_steals_the_cycle_of_a_waiting_request():
    # rows 4, retention 16: interval 4, refreshes in cycles 3, 7, 11, ...; a request issued
    # in cycle 3 waits one cycle, one issued in 5 does not.
    trace = AccessTrace([(3, "write", 0, 9), (5, "read", 0, 0), (7, "release", 0, 0)])
    run = simulate_refresh(trace, rows=4, policy="always", retention_cycles=16)
    assert run.accept_cycles == (4, 5, 8)
    assert run.read_data == (9, 9)
    assert run.stolen_cycles == 2
    assert run.end_cycle == 10 and run.refresh_cycles == (3, 7)


# --- "lifetime": one row held L cycles -------------------------------------------------------
@pytest.mark.parametrize("hold", [1, 63, 64, 65, 127, 128, 200, 640])
def test_lifetime_tick_1_refreshes_every_retention(hold):
    # Tick 1, retention 64: deadline 63 ticks; a row written in cycle 0 has age a in cycle
    # a + 1, so it is due in cycle 64, then every 64 cycles: refreshes in 64k <= hold (a
    # refresh in the release's own cycle comes first and delays the release by one).
    trace = AccessTrace.from_rows([(5, 0, hold)])
    run = simulate_refresh(trace, rows=8, policy="lifetime", retention_cycles=64)
    assert run.refresh_cycles == tuple(64 * k for k in range(1, hold // 64 + 1))
    assert set(run.refresh_rows) <= {5}
    assert run.accept_cycles == (0, hold + (hold % 64 == 0))
    assert run.stolen_cycles == (hold % 64 == 0)
    assert run.max_age_cycles == min(hold + (hold % 64 == 0), 64)


@pytest.mark.parametrize(("write", "tick", "firsts", "period"), [
    # Tick 8, retention 64: deadline 7 ticks; ticks in cycles 7, 15, ...; written in 0..6 the
    # 7th tick is cycle 55, due 56; written in 7 (its own tick is overridden) the first tick
    # is 15, the 7th 63, due 64. Then due every 7 * 8 = 56 cycles after each refresh.
    (0, 8, 56, 56), (3, 8, 56, 56), (6, 8, 56, 56), (7, 8, 64, 56),
    # Tick 5: 64 // 5 = 12 ticks, deadline 11; ticks in 4, 9, ...; written in 0 the 11th tick
    # is 54, due 55, then every 55.
    (0, 5, 55, 55), (4, 5, 60, 55),
])
@pytest.mark.parametrize("hold", [40, 100, 300])
def test_lifetime_coarse_tick_by_hand(write, tick, firsts, period, hold):
    release = write + hold
    trace = AccessTrace.from_rows([(2, write, release)])
    run = simulate_refresh(trace, rows=8, policy="lifetime", retention_cycles=64,
                           tick_cycles=tick)
    expected = [firsts + k * period for k in range(0, 20) if firsts + k * period <= release]
    assert run.refresh_cycles == tuple(expected)
    assert run.max_age_cycles <= 64


def test_released_before_deadline_never_refreshed():
    # Tick 1: a row is due 64 cycles after its write, so holds of 63 are never refreshed.
    # Tick 8: due 50..57 cycles after the write (the first tick 1..8 cycles after it, then
    # 6 more ticks of 8 cycles, plus one): holds of 49 are never refreshed, and a write in a
    # cycle just before a tick (cycle 6: tick in 7) held 50 cycles is refreshed once.
    for tick, hold in ((1, 63), (8, 49)):
        lifetimes = [(r, 10 * r, 10 * r + hold) for r in range(8)] + [(3, 200, 200 + hold)]
        trace = AccessTrace.from_rows(lifetimes)
        run = simulate_refresh(trace, rows=8, policy="lifetime", retention_cycles=64,
                               tick_cycles=tick)
        assert run.refreshes == 0 and run.stolen_cycles == 0
        always = simulate_refresh(trace, rows=8, policy="always", retention_cycles=64)
        assert always.refreshes == always.end_cycle // 8
    once = simulate_refresh(AccessTrace.from_rows([(0, 6, 56)]), rows=8, policy="lifetime",
                            retention_cycles=64, tick_cycles=8)
    assert once.refresh_cycles == (56,)


@pytest.mark.parametrize("tick", [1, 3, 8, 32])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dense_random_trace_never_outlives_retention(tick, seed):
    rows, retention = 16, 64
    trace = AccessTrace.random(rows, 600, seed, max_gap_cycles=2)
    run = simulate_refresh(trace, rows=rows, policy="lifetime", retention_cycles=retention,
                           tick_cycles=tick)
    ages = recomputed_ages(trace, run.accept_cycles, run.refresh_cycles, run.refresh_rows,
                           run.end_cycle)
    assert max(ages) <= retention
    assert max(ages) == run.max_age_cycles
    assert not run.violation
    # Only live rows are refreshed: replay liveness from the accept cycles.
    live_at: dict[int, list[tuple[int, int]]] = {}
    open_at: dict[int, int] = {}
    for req, t in zip(trace, run.accept_cycles, strict=True):
        if req.kind == "write" and req.row not in open_at:
            open_at[req.row] = t
        elif req.kind == "release":
            live_at.setdefault(req.row, []).append((open_at.pop(req.row), t))
    for row, t0 in open_at.items():
        live_at.setdefault(row, []).append((t0, run.end_cycle))
    for t, row in zip(run.refresh_cycles, run.refresh_rows, strict=True):
        assert any(a < t < b for a, b in live_at.get(row, [])), (t, row)
    # The stolen cycles are refresh cycles in which a request was waiting.
    presented = []
    prev = -1
    for req, t in zip(trace, run.accept_cycles, strict=True):
        presented.append(range(max(req.issue_cycle, prev + 1), t + 1))
        prev = t
    refresh = set(run.refresh_cycles)
    assert run.stolen_cycles == sum(len(refresh & set(r)) for r in presented)


def test_always_random_trace_ages_and_reads():
    trace = AccessTrace.random(16, 400, 5)
    run = simulate_refresh(trace, rows=16, policy="always", retention_cycles=64)
    ages = recomputed_ages(trace, run.accept_cycles, run.refresh_cycles, run.refresh_rows,
                           run.end_cycle)
    assert max(ages) <= 64 and max(ages) == run.max_age_cycles
    # Reads return the last word written to the row.
    word: dict[int, int] = {}
    reads = []
    for req in trace:
        if req.kind == "write":
            word[req.row] = req.data
        else:
            reads.append(word[req.row])
    assert run.read_data == tuple(reads)
    assert sorted(run.accept_cycles) == list(run.accept_cycles)
    assert all(a >= r.issue_cycle for a, r in zip(run.accept_cycles, trace, strict=True))


# --- "none" and the retention check ----------------------------------------------------------
def test_none_raises_when_data_outlives_retention():
    ok = AccessTrace.from_rows([(1, 10, 74)])  # age 64 at its release: within
    assert not simulate_refresh(ok, rows=4, policy="none", retention_cycles=64).violation
    late = AccessTrace.from_rows([(1, 10, 74), (2, 20, 85)])  # age 65 in cycle 85
    with pytest.raises(SimulationError) as info:
        simulate_refresh(late, rows=4, policy="none", retention_cycles=64)
    assert info.value.cycle == 85
    assert "row 2's data outlived the retention of 64 cycles" in str(info.value)
    run = simulate_refresh(late, rows=4, policy="none", retention_cycles=64,
                           allow_violation=True)
    assert run.violation_cycle == 85 and run.max_age_cycles == 65
    # Still live at the end: the age of the last cycle counts.
    held = AccessTrace([(0, "write", 0, 1)])
    run = simulate_refresh(held, rows=4, policy="none", retention_cycles=64, end_cycle=70,
                           allow_violation=True)
    assert run.violation_cycle == 65 and run.max_age_cycles == 69


# --- parameters, energy ------------------------------------------------------------------------
@pytest.mark.parametrize(("tick", "bits"), [(1, 14), (2, 13), (64, 8), (2048, 3)])
def test_state_bits(tick, bits):
    # valid + ceil(log2(4096 // tick + 1)) age bits.
    p = refresh_parameters(rows=256, policy="lifetime", retention_cycles=4096, tick_cycles=tick)
    assert p.state_bits_per_row == bits == 1 + math.ceil(math.log2(4096 // tick + 1))
    assert p.controller_state_bits == 256 * bits + math.ceil(math.log2(tick))
    assert p.deadline_ticks == 4096 // tick - 1
    always = refresh_parameters(rows=256, policy="always", retention_cycles=4096)
    assert always.state_bits_per_row == 0 and always.controller_state_bits == 4 + 8


def test_refresh_energy_from_the_technology_table():
    trace = AccessTrace.random(16, 300, 3)
    tech = memory_technology("edram")
    for policy in ("always", "lifetime"):
        run = simulate_refresh(trace, rows=16, policy=policy, retention_cycles=64)
        # memtech's closed form: row bits x energy per bit x (macro bits / reference bits)
        # ** size exponent (reference node and supply: no node scaling).
        scale = (16 * 32 / tech.reference_macro_bits) ** tech.energy_size_exponent
        expected = run.refreshes * 32 * tech.refresh_energy_j_per_bit * scale
        assert refresh_energy_j(run, width=32) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="not refreshed"):
        refresh_energy_j(run, width=32, technology="sram")


def test_end_cycle_too_early():
    trace = AccessTrace([(0, "write", 0, 1), (5, "read", 0, 0)])
    with pytest.raises(ValueError, match="end_cycle 6 is too early: a response"):
        simulate_refresh(trace, rows=4, policy="none", retention_cycles=64, end_cycle=6)
    with pytest.raises(ValueError, match="end_cycle 3 is too early: request 1 is not"):
        simulate_refresh(trace, rows=4, policy="none", retention_cycles=64, end_cycle=3)
    with pytest.raises(ValueError, match="touches row 7; the macro has 4 rows"):
        simulate_refresh(AccessTrace([(0, "write", 7, 1)]), rows=4, policy="none",
                         retention_cycles=64)


# --- traces ------------------------------------------------------------------------------------
def test_trace_validation_messages():
    with pytest.raises(ValueError, match=r"^request 1: read of row 2, which holds no live data"):
        AccessTrace([(0, "write", 1, 5), (1, "read", 2, 0)])
    with pytest.raises(ValueError, match=r"^request 2: release of row 1, which holds no"):
        AccessTrace([(0, "write", 1, 5), (1, "release", 1, 0), (2, "release", 1, 0)])
    with pytest.raises(ValueError, match=r"^request 1: issue_cycle 3 is before the previous"):
        AccessTrace([(4, "write", 1, 5), (3, "read", 1, 0)])
    with pytest.raises(ValueError, match=r"^request 0: kind must be one of"):
        AccessTrace([(0, "erase", 1, 5)])
    with pytest.raises(ValueError, match=r"^request 0: row must be an int >= 0, not -1"):
        AccessTrace([(0, "write", -1, 5)])
    with pytest.raises(ValueError, match=r"^request 1: a read carries no data"):
        AccessTrace([(0, "write", 1, 5), (1, "read", 1, 3)])
    assert AccessTrace([Request(0, "write", 1, 5)])[0] == Request(0, "write", 1, 5)


def test_random_and_training_like_are_seeded_and_valid():
    assert AccessTrace.random(16, 200, 7) == AccessTrace.random(16, 200, 7)
    assert AccessTrace.random(16, 200, 7) != AccessTrace.random(16, 200, 8)
    trace = AccessTrace.training_like(rows=64, layers=4, rows_per_tensor=8, seed=1,
                                      compute_cycles=100)
    # 5 activations written, read once forward (4 of them) and released once; gradients
    # written 4 times and released 4 times; 8 rows each.
    kinds = [r.kind for r in trace]
    assert kinds.count("write") == (5 + 4) * 8
    assert kinds.count("read") == 4 * 8
    assert kinds.count("release") == (5 + 4) * 8
    # Activation a_0 (rows 0..7) lives from the first cycles to the end of the iteration.
    first = min(r.issue_cycle for r in trace if r.row == 0)
    last = max(r.issue_cycle for r in trace if r.row == 0)
    assert last - first > 0.9 * trace[len(trace) - 1].issue_cycle
    with pytest.raises(ValueError, match="7 tensors of 8 rows need 56 rows; the macro has 50"):
        AccessTrace.training_like(rows=50, layers=4, rows_per_tensor=8, seed=1)


def test_csv_round_trip_and_atomic(tmp_path):
    trace = AccessTrace.random(16, 100, 2)
    path = trace.write_csv(tmp_path / "t.csv")
    assert AccessTrace.read_csv(path) == trace
    assert os.listdir(tmp_path) == ["t.csv"]
    assert path.read_text().splitlines()[0] == "issue_cycle,kind,row,data"


@pytest.mark.parametrize(("body", "message"), [
    ("issue,kind,row,data\n", "field 'header': line 1: the header must be"),
    ("issue_cycle,kind,row,data\n0,write,1,5\n1,rd,1,0\n",
     "field 'kind': line 3: kind 'rd' is not a request kind"),
    ("issue_cycle,kind,row,data\n0,write,x,5\n", "field 'row': line 2: row = 'x' is not an int"),
    ("issue_cycle,kind,row,data\n0,write,1,5\n1,read,2,0\n",
     "field 'row': line 3: read of row 2, which holds no live data"),
    ("issue_cycle,kind,row,data\n0,write,1,5\n1,read,1\n",
     "field 'fields': line 3: 3 fields, expected 4"),
    ("issue_cycle,kind,row,data\n9,write,1,5\n\n3,read,1,0\n",
     "field 'issue_cycle': line 4: issue_cycle 3 is before"),
])
def test_csv_errors_name_file_line_field(tmp_path, body, message):
    path = tmp_path / "bad.csv"
    path.write_text(body)
    with pytest.raises(ConfigError) as info:
        AccessTrace.read_csv(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)
    with pytest.raises(ConfigError, match="cannot read the trace"):
        AccessTrace.read_csv(tmp_path / "missing.csv")


# --- banks -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rows", "banks", "retention", "end"), [
    (16, 2, 64, 1000), (16, 4, 70, 999), (256, 4, 4096, 50_000), (256, 16, 4096, 20_000)])
def test_banked_always_idle_refreshes_every_bank_every_interval(rows, banks, retention, end):
    # Each bank refreshes its rows / banks local rows in turn every retention // (rows /
    # banks) cycles, all banks in the same cycles: bank b's local row j is global j*B + b.
    run = simulate_refresh(AccessTrace([]), rows=rows, policy="always",
                           retention_cycles=retention, banks=banks, end_cycle=end)
    interval = retention // (rows // banks)
    assert run.refreshes == banks * (end // interval)
    assert run.refresh_cycles == tuple(k * interval - 1 for k in range(1, end // interval + 1)
                                       for _ in range(banks))
    assert run.refresh_rows == tuple((k % (rows // banks)) * banks + b
                                     for k in range(end // interval) for b in range(banks))
    assert run.stolen_cycles == 0 and not run.violation


def spaced(trace: AccessTrace, gap: int) -> AccessTrace:
    """The trace's requests issued ``gap`` cycles apart (so a short wait of one request never
    delays the next one's presentation)."""
    return AccessTrace(Request(gap * i, r.kind, r.row, r.data) for i, r in enumerate(trace))


@pytest.mark.parametrize(("policy", "tick"), [("always", 1), ("lifetime", 1), ("lifetime", 4)])
@pytest.mark.parametrize("banks", [2, 4])
def test_each_bank_refreshes_as_a_macro_of_its_own_rows(policy, tick, banks):
    # Requests 12 cycles apart: every wait (at most rows / banks refreshes in a row) ends
    # before the next request is issued, so no bank's traffic delays another's. Then bank b
    # sees exactly a single-bank macro of rows / banks rows running bank b's sub-trace (rows
    # r -> r // banks): same refreshes, same accept cycles, same stalls.
    rows, retention = 16, 40
    trace = spaced(AccessTrace.random(rows, 300, 21, max_gap_cycles=0), 12)
    run = simulate_refresh(trace, rows=rows, policy=policy, retention_cycles=retention,
                           tick_cycles=tick, banks=banks)
    total_stolen = 0
    for b in range(banks):
        idx = [i for i, r in enumerate(trace) if r.row % banks == b]
        sub = AccessTrace(Request(trace[i].issue_cycle, trace[i].kind, trace[i].row // banks,
                                  trace[i].data) for i in idx)
        alone = simulate_refresh(sub, rows=rows // banks, policy=policy,
                                 retention_cycles=retention, tick_cycles=tick,
                                 end_cycle=run.end_cycle)
        mine = [(t, r // banks) for t, r in zip(run.refresh_cycles, run.refresh_rows,
                                                strict=True) if r % banks == b]
        assert mine == list(zip(alone.refresh_cycles, alone.refresh_rows, strict=True))
        assert [run.accept_cycles[i] for i in idx] == list(alone.accept_cycles)
        total_stolen += alone.stolen_cycles
    assert run.stolen_cycles == total_stolen
    assert run.refreshes > 10 * banks and not run.violation


def test_banked_request_waits_only_for_its_own_bank():
    # 8 rows, 2 banks, retention 16: each bank has 4 rows, interval 4, both banks refresh in
    # cycles 3, 7, ...; with "lifetime" (tick 1) row 0 (bank 0) written in 0 is due in 16,
    # so in cycle 16 a request to bank 1 (row 1) passes and one to bank 0 (row 2) waits.
    trace = AccessTrace([(0, "write", 0, 5), (16, "write", 1, 6), (17, "write", 2, 7),
                         (20, "release", 0, 0), (21, "release", 1, 0), (22, "release", 2, 0)])
    run = simulate_refresh(trace, rows=8, policy="lifetime", retention_cycles=16, banks=2)
    assert run.refresh_cycles == (16,) and run.refresh_rows == (0,)
    assert run.accept_cycles == (0, 16, 17, 20, 21, 22) and run.stolen_cycles == 0
    late = AccessTrace([(0, "write", 0, 5), (16, "write", 2, 7), (20, "release", 0, 0),
                        (21, "release", 2, 0)])
    run = simulate_refresh(late, rows=8, policy="lifetime", retention_cycles=16, banks=2)
    assert run.accept_cycles == (0, 17, 20, 21) and run.stolen_cycles == 1
    always = simulate_refresh(trace, rows=8, policy="always", retention_cycles=16, banks=2)
    assert always.refresh_cycles[:4] == (3, 3, 7, 7)
    assert always.refresh_rows[:4] == (0, 1, 2, 3)


def test_banked_state_bits_and_errors():
    # Per bank: "always" a timer of ceil(log2(interval)) and a pointer of ceil(log2(rows/B))
    # bits; "lifetime" the same per-row state and a prescaler per bank.
    always = refresh_parameters(rows=256, policy="always", retention_cycles=4096, banks=4)
    assert always.interval_cycles == 64
    assert always.controller_state_bits == 4 * (6 + 6)
    life = refresh_parameters(rows=256, policy="lifetime", retention_cycles=4096,
                              tick_cycles=64, banks=16)
    assert life.state_bits_per_row == 8
    assert life.controller_state_bits == 256 * 8 + 16 * 6
    with pytest.raises(ValueError, match="^banks must be a power of two, not 3$"):
        refresh_parameters(rows=12, policy="always", retention_cycles=64, banks=3)
    with pytest.raises(ValueError, match=r"^rows \(4\) must be a multiple of banks \(8\)$"):
        refresh_parameters(rows=4, policy="always", retention_cycles=64, banks=8)
    with pytest.raises(ValueError, match=r"^banks must be in 1\.\.65536, not 0$"):
        refresh_parameters(rows=4, policy="always", retention_cycles=64, banks=0)
    with pytest.raises(ValueError, match=r"in 8\.\.4294967295 \(at least 2 \* rows // banks"):
        refresh_parameters(rows=16, policy="always", retention_cycles=7, banks=4)
    assert refresh_parameters(rows=16, policy="always", retention_cycles=8, banks=4)
