"""The eDRAM trace bench: the ROM-driven player in pysim equals the reference model, and one
Verilator run of a recorded training-like trace (CSV) gives the model's counters."""

from __future__ import annotations

import pytest

from archsim.errors import ConfigError
from archsim.hw.models.edram_refresh import AccessTrace, simulate_refresh
from archsim.sim.rtl.edram_run import run_edram_trace


@pytest.mark.parametrize(("policy", "tick"), [("always", 1), ("lifetime", 3), ("none", 1)])
def test_player_in_pysim_equals_model(policy, tick):
    trace = AccessTrace.random(16, 250, 11, width=12)
    model = simulate_refresh(trace, rows=16, policy=policy, retention_cycles=48,
                             tick_cycles=tick, allow_violation=True)
    run = run_edram_trace(trace, rows=16, width=12, policy=policy, retention_cycles=48,
                          tick_cycles=tick, end_cycle=model.end_cycle)
    assert run.done and run.cycles == model.end_cycle
    assert run.accept_cycles == model.accept_cycles
    assert run.read_data == model.read_data
    assert run.refresh_cycles == model.refresh_cycles
    assert run.refresh_rows == model.refresh_rows
    assert (run.refreshes, run.stolen_cycles, run.accesses) == \
        (model.refreshes, model.stolen_cycles, model.accesses)
    assert run.violation == model.violation
    assert run.violation_cycle == model.violation_cycle
    if policy == "none":
        assert model.violation  # the random trace holds some rows past 48 cycles


def test_player_unrecorded_and_cut_short():
    trace = AccessTrace.random(8, 60, 4, width=8)
    model = simulate_refresh(trace, rows=8, policy="always", retention_cycles=32)
    run = run_edram_trace(trace, rows=8, width=8, policy="always", retention_cycles=32,
                          end_cycle=model.end_cycle, record=False)
    assert run.accept_cycles is None and run.refresh_cycles is None
    assert (run.refreshes, run.stolen_cycles, run.accesses) == \
        (model.refreshes, model.stolen_cycles, model.accesses)
    # Stopped before the last request: not done, fewer accesses.
    short = run_edram_trace(trace, rows=8, width=8, policy="always", retention_cycles=32,
                            end_cycle=model.accept_cycles[-1], record=False)
    assert not short.done and short.accesses == len(trace) - 1


def test_bench_errors():
    trace = AccessTrace([(0, "write", 9, 300)])
    with pytest.raises(ValueError, match="the trace touches row 9; the macro has 8 rows"):
        run_edram_trace(trace, rows=8, width=16, policy="always", retention_cycles=64,
                        end_cycle=10)
    with pytest.raises(ValueError, match="the trace writes 300, wider than width 8"):
        run_edram_trace(trace, rows=16, width=8, policy="always", retention_cycles=64,
                        end_cycle=10)
    with pytest.raises(ConfigError, match="unknown simulation backend 'spice'"):
        run_edram_trace(trace, rows=16, width=16, policy="always", retention_cycles=64,
                        end_cycle=10, backend="spice")


@pytest.mark.slow
@pytest.mark.parametrize("banks", [1, 4])
def test_verilator_recorded_training_trace(tmp_path, banks):
    # A training iteration's pattern (activations written forward, released on their last,
    # backward read; gradients short-lived) recorded as CSV, read back, run on the RTL, in
    # one array and in four banks.
    rows, retention = 64, 1024
    recorded = AccessTrace.training_like(rows=rows, layers=5, rows_per_tensor=8, seed=3,
                                         compute_cycles=256)
    path = recorded.write_csv(tmp_path / "training.csv")
    trace = AccessTrace.read_csv(path)
    assert trace == recorded
    for policy, tick in (("always", 1), ("lifetime", 16)):
        model = simulate_refresh(trace, rows=rows, policy=policy, retention_cycles=retention,
                                 tick_cycles=tick, banks=banks)
        assert model.refreshes > 0
        run = run_edram_trace(trace, rows=rows, width=16, policy=policy,
                              retention_cycles=retention, tick_cycles=tick, banks=banks,
                              end_cycle=model.end_cycle, backend="verilator")
        assert run.done and not run.violation
        assert (run.refreshes, run.stolen_cycles, run.accesses) == \
            (model.refreshes, model.stolen_cycles, model.accesses)
        assert run.accept_cycles == model.accept_cycles
        assert run.refresh_cycles == model.refresh_cycles
        assert run.refresh_rows == model.refresh_rows
        assert run.read_data == model.read_data


@pytest.mark.parametrize(("policy", "tick", "banks"), [("always", 1, 4), ("lifetime", 4, 2),
                                                       ("lifetime", 1, 4)])
def test_banked_player_in_pysim_equals_model(policy, tick, banks):
    trace = AccessTrace.random(16, 250, 12, width=12)
    model = simulate_refresh(trace, rows=16, policy=policy, retention_cycles=24,
                             tick_cycles=tick, banks=banks)
    run = run_edram_trace(trace, rows=16, width=12, policy=policy, retention_cycles=24,
                          tick_cycles=tick, banks=banks, end_cycle=model.end_cycle)
    assert run.done and not run.violation
    assert run.accept_cycles == model.accept_cycles
    assert run.read_data == model.read_data
    assert run.refresh_cycles == model.refresh_cycles
    assert run.refresh_rows == model.refresh_rows
    assert (run.refreshes, run.stolen_cycles, run.accesses) == \
        (model.refreshes, model.stolen_cycles, model.accesses)
    assert model.refreshes > len(set(model.refresh_cycles)) or policy == "lifetime"
