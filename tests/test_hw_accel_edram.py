"""EdramMacro in Amaranth's simulator, driven through its handshake by a Python testbench,
against the reference model (simulate_refresh): accept cycles, read data, refresh cycles and
rows, counters and the violation flag identical; and its constructor's messages."""

from __future__ import annotations

import pytest
from amaranth.sim import Simulator

from archsim.errors import ConfigError
from archsim.hw.accel.edram import EdramMacro
from archsim.hw.checks import silence_unused
from archsim.hw.models.edram_refresh import AccessTrace, simulate_refresh


def drive(dut: EdramMacro, trace: AccessTrace, end_cycle: int) -> dict[str, object]:
    """Present the trace's requests in order (request k from max(issue_k, accept_{k-1} + 1)
    until req_ready), for cycles 0 .. end_cycle - 1 after reset; record what the macro does:
    accept cycles, read data, refresh records (cycle, global row; refresh is a bit per bank
    and refresh_row a row field per bank), counters and the cycle violation first reads high.
    req_ready must be low exactly when the presented request's bank (row % banks)
    refreshes."""
    reqs = list(trace)
    banks, rb = dut.banks, dut.parameters.row_bits
    seen: dict[str, object] = {"accept": [], "rdata": [], "refresh": [],
                               "violation_from": None}

    async def bench(ctx) -> None:
        k, present = 0, (reqs[0].issue_cycle if reqs else 0)
        for t in range(end_cycle):
            on = k < len(reqs) and t >= present
            if on:
                r = reqs[k]
                ctx.set(dut.req_write, r.kind == "write")
                ctx.set(dut.req_release, r.kind == "release")
                ctx.set(dut.req_row, r.row)
                ctx.set(dut.req_wdata, r.data)
            ctx.set(dut.req_valid, on)
            if ctx.get(dut.rsp_valid):
                seen["rdata"].append(ctx.get(dut.rsp_rdata))
            strobes, fields = ctx.get(dut.refresh), ctx.get(dut.refresh_row)
            for b in range(banks):
                if strobes >> b & 1:
                    seen["refresh"].append((t, fields >> (b * rb) & ((1 << rb) - 1)))
            if on:
                assert ctx.get(dut.req_ready) == (not strobes >> (reqs[k].row % banks) & 1)
            if ctx.get(dut.violation) and seen["violation_from"] is None:
                seen["violation_from"] = t
            if on and ctx.get(dut.req_ready):
                seen["accept"].append(t)
                k += 1
                if k < len(reqs):
                    present = max(reqs[k].issue_cycle, t + 1)
            await ctx.tick()
        seen["counters"] = (ctx.get(dut.refreshes), ctx.get(dut.stolen_cycles),
                            ctx.get(dut.accesses))
        if ctx.get(dut.violation) and seen["violation_from"] is None:
            seen["violation_from"] = end_cycle

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


@pytest.mark.parametrize(("policy", "tick"), [("always", 1), ("lifetime", 1), ("lifetime", 4),
                                              ("lifetime", 7)])
@pytest.mark.parametrize("seed", [0, 1])
def test_rtl_equals_model_on_random_traces(policy, tick, seed):
    rows, retention = 16, 40
    trace = AccessTrace.random(rows, 300, seed, width=16)
    model = simulate_refresh(trace, rows=rows, policy=policy, retention_cycles=retention,
                             tick_cycles=tick)
    assert model.refreshes > 5 and model.stolen_cycles > 0  # the trace exercises refresh
    dut = EdramMacro(rows=rows, width=16, policy=policy, retention_cycles=retention,
                     tick_cycles=tick)
    seen = drive(dut, trace, model.end_cycle)
    assert tuple(seen["accept"]) == model.accept_cycles
    assert tuple(seen["rdata"]) == model.read_data
    assert sorted(seen["refresh"]) == list(zip(model.refresh_cycles, model.refresh_rows,
                                               strict=True))
    assert seen["counters"] == (model.refreshes, model.stolen_cycles, model.accesses)
    assert seen["violation_from"] is None


@pytest.mark.parametrize("seed", [0, 3])
def test_violation_flag_rises_the_cycle_after_the_model_violation(seed):
    trace = AccessTrace.random(8, 200, seed, width=8)
    model = simulate_refresh(trace, rows=8, policy="none", retention_cycles=32,
                             allow_violation=True)
    assert model.violation and model.refreshes == 0
    seen = drive(EdramMacro(rows=8, width=8, policy="none", retention_cycles=32), trace,
                 model.end_cycle)
    assert seen["violation_from"] == model.violation_cycle + 1
    assert tuple(seen["rdata"]) == model.read_data


def test_no_violation_at_exactly_retention():
    # Written in 0, released when issued in 32: age 32 at the release, within retention 32;
    # a second row held 33 cycles is late in cycle 33 + 2.
    ok = AccessTrace.from_rows([(0, 0, 32)])
    seen = drive(EdramMacro(rows=4, width=4, policy="none", retention_cycles=32), ok, 40)
    assert seen["violation_from"] is None
    late = AccessTrace.from_rows([(0, 0, 32), (1, 2, 40)])
    seen = drive(EdramMacro(rows=4, width=4, policy="none", retention_cycles=32), late, 45)
    assert seen["violation_from"] == 2 + 33 + 1


def test_state_bits():
    # valid + ceil(log2(4096 // tick + 1)) age bits per row; the prescaler log2(64) bits.
    macros = [EdramMacro(rows=256, width=32, policy=policy, retention_cycles=4096,
                         tick_cycles=tick)
              for policy, tick in (("lifetime", 1), ("lifetime", 64), ("always", 1))]
    for macro in macros:
        silence_unused(macro)  # never elaborated
    assert [m.state_bits_per_row for m in macros] == [1 + 13, 1 + 7, 0]
    assert macros[1].controller_state_bits == 256 * 8 + 6


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"rows": 0}, ValueError, "rows must be in 1..65536, not 0"),
    ({"rows": 2.0}, TypeError, "rows must be an int, not 2.0"),
    ({"width": 65}, ValueError, "width must be in 1..64, not 65"),
    ({"width": True}, TypeError, "width must be an int, not True"),
    ({"policy": "never"}, ConfigError,
     "field 'policy': unknown refresh policy 'never' (allowed: 'always', 'lifetime', 'none')"),
    ({"retention_cycles": 31}, ValueError,
     "retention_cycles must be in 32..4294967295 (at least 2 * rows, so every row is "
     "refreshed within it with every other cycle free), not 31"),
    ({"retention_cycles": "64"}, TypeError, "retention_cycles must be an int, not '64'"),
    ({"tick_cycles": 0}, ValueError, "tick_cycles must be at least 1, not 0"),
    ({"tick_cycles": 33}, ValueError,
     "tick_cycles must be at most retention_cycles // 2 (32), so the deadline is at least "
     "one tick, not 33"),
])
def test_constructor_errors(kwargs, error, message):
    args = {"rows": 16, "width": 8, "policy": "lifetime", "retention_cycles": 64,
            "tick_cycles": 1} | kwargs
    with pytest.raises(error) as info:
        EdramMacro(**args)
    assert str(info.value) == message


@pytest.mark.parametrize(("policy", "tick"), [("always", 1), ("lifetime", 1), ("lifetime", 4)])
@pytest.mark.parametrize("banks", [2, 4])
@pytest.mark.parametrize("seed", [0, 1])
def test_banked_rtl_equals_model_on_random_traces(policy, tick, banks, seed):
    rows, retention = 16, 24
    trace = AccessTrace.random(rows, 300, seed, width=16)
    model = simulate_refresh(trace, rows=rows, policy=policy, retention_cycles=retention,
                             tick_cycles=tick, banks=banks)
    # The trace exercises refresh, stalls, cycles with several banks refreshing ("lifetime"
    # with tick 1 makes those rare: one event per cycle) and, with "lifetime", accesses in
    # a cycle another bank refreshes.
    assert model.refreshes > 20 and model.stolen_cycles > 0
    if (policy, tick) != ("lifetime", 1):
        assert len(set(model.refresh_cycles)) < model.refreshes
    if policy == "lifetime":
        assert set(model.accept_cycles) & set(model.refresh_cycles)
    dut = EdramMacro(rows=rows, width=16, policy=policy, retention_cycles=retention,
                     tick_cycles=tick, banks=banks)
    seen = drive(dut, trace, model.end_cycle)
    assert tuple(seen["accept"]) == model.accept_cycles
    assert tuple(seen["rdata"]) == model.read_data
    # (Recorded in bank order within a cycle; the model lists (cycle, row) sorted.)
    assert sorted(seen["refresh"]) == list(zip(model.refresh_cycles, model.refresh_rows,
                                               strict=True))
    assert seen["counters"] == (model.refreshes, model.stolen_cycles, model.accesses)
    assert seen["violation_from"] is None


def test_banked_state_bits():
    macro = EdramMacro(rows=256, width=32, policy="lifetime", retention_cycles=4096,
                       tick_cycles=64, banks=4)
    silence_unused(macro)
    assert macro.state_bits_per_row == 1 + 7
    assert macro.controller_state_bits == 256 * 8 + 4 * 6
