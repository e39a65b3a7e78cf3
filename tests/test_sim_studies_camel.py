"""The CAMEL study: platforms, iteration costs, the recorded eDRAM trace and the quick run."""

from __future__ import annotations

import math
import tomllib
from importlib import resources

import pytest

from archsim.errors import ConfigError
from archsim.hw.models.edram_refresh import simulate_refresh
from archsim.hw.models.memtech import MemoryModel
from archsim.sim.soc.lifetime import edram_access_trace, edram_refresh_period_s, refresh_operations
from archsim.sim.studies.camel import (
    Platform,
    density_ratio,
    equal_area_sram_bytes,
    iteration_cost,
    simulate_platform,
    sized_capacity_bytes,
)
from archsim.tests.study_runs import quick_run

MIB = 2**20


def _table() -> dict:
    text = resources.files("archsim.hw").joinpath("data/memory_technologies.toml").read_text()
    return tomllib.loads(text)


def test_density_ratio_and_equal_area_capacity_from_the_table():
    t = _table()
    bits_per_um2 = {k: t[k]["array_efficiency"]["value"] / t[k]["cell_area_um2"]["value"]
                    for k in ("sram", "edram")}
    ratio = bits_per_um2["edram"] / bits_per_um2["sram"]
    assert density_ratio() == pytest.approx(ratio)
    assert ratio == pytest.approx(1 / 0.6)
    # 8 MiB of eDRAM in SRAM: 8 MiB * 0.6, rounded down to 512-byte rows (64 banks x 64 bits).
    assert equal_area_sram_bytes(8 * MIB) == (8 * MIB * 3 // 5) // 512 * 512
    assert equal_area_sram_bytes(8 * MIB, ratio=2.0) == 4 * MIB


def test_capacity_is_the_next_power_of_two_mib():
    assert sized_capacity_bytes(6.5 * MIB) == 8 * MIB
    assert sized_capacity_bytes(4 * MIB) == 4 * MIB
    assert sized_capacity_bytes(1) == MIB


def test_platform_validation_messages():
    with pytest.raises(ConfigError, match="platform 'p': technology must be 'sram' or 'edram'"):
        Platform(name="p", technology="dram", capacity_bytes=MIB, network="resnet20",
                 refresh="none")
    with pytest.raises(ConfigError, match="an SRAM buffer takes refresh 'none'"):
        Platform(name="p", technology="sram", capacity_bytes=MIB, network="resnet20",
                 refresh="always")
    with pytest.raises(ConfigError, match="unknown refresh policy 'sometimes'"):
        Platform(name="p", technology="edram", capacity_bytes=MIB, network="resnet20",
                 refresh="sometimes")
    with pytest.raises(ConfigError, match="unknown network 'vgg'"):
        Platform(name="p", technology="edram", capacity_bytes=MIB, network="vgg",
                 refresh="always")


@pytest.fixture(scope="module")
def small_camel_run():
    p = Platform(name="camel", technology="edram", capacity_bytes=MIB, network="revnet20",
                 refresh="lifetime")
    return simulate_platform(p, batch=2, image_size=16)


def test_iteration_cost_components(small_camel_run):
    run = small_camel_run
    gb = run.config.global_buffer
    aware = iteration_cost(run)
    always = iteration_cost(run, refresh="always")
    # Refresh energy: row refreshes x row bits x memtech's per-bit refresh energy (memtech's
    # model of the same macro, built here from the config's fields).
    mm = MemoryModel(technology="edram", words=gb.capacity_bytes * 8 // gb.word_bits,
                     width=gb.word_bits, banks=gb.banks, temperature_c=gb.temperature_c,
                     rows_per_refresh=gb.rows_per_refresh)
    per_bit = mm.refresh_energy_per_operation_j / (gb.rows_per_refresh * gb.banks * gb.word_bits)
    assert aware.energy_j["refresh"] == pytest.approx(aware.row_refreshes * gb.row_bits * per_bit)
    assert aware.refresh_period_s == pytest.approx(mm.refresh_period_s)
    # The conventional controller refreshes every row every period.
    assert always.row_refreshes == math.floor(run.result.latency_s / mm.refresh_period_s) * \
        (gb.capacity_bytes * 8 // gb.row_bits)
    assert 0 < aware.row_refreshes < always.row_refreshes
    # Leakage over the iteration, and the total is the sum of the components.
    assert aware.energy_j["buffer_leakage"] == pytest.approx(
        mm.leakage_power_w() * aware.iteration_s)
    assert aware.total_energy_j == pytest.approx(sum(aware.energy_j.values()))
    assert aware.iteration_s >= run.result.latency_s
    # A period longer than every lifetime leaves the lifetime-aware controller nothing to do.
    longest = max(t.lifetime_s for t in run.lifetimes.lifetimes)
    assert iteration_cost(run, refresh_period_s=2 * longest).row_refreshes == 0


def test_recorded_trace_on_the_refresh_model_matches_the_lifetime_count(small_camel_run):
    run = small_camel_run
    period_s = edram_refresh_period_s(run.config.global_buffer)
    retention = int(period_s * 1e9)
    trace = edram_access_trace(run.lifetimes, names=run.allocation.resident, row_bytes=4096,
                               rows=512, clock_hz=1e9)
    model = simulate_refresh(trace, rows=512, policy="lifetime", retention_cycles=retention)
    est = refresh_operations(run.lifetimes, refresh_period_s=retention * 1e-9, row_bits=4096 * 8,
                             capacity_bits=512 * 4096 * 8, names=run.allocation.resident)
    # The analytic count refreshes a row every period of its tensor's lifetime; the
    # controller serializes one request per cycle, which moves a few refreshes.
    assert model.refreshes == pytest.approx(est.lifetime_aware_row_refreshes, rel=1e-3)
    always = simulate_refresh(trace, rows=512, policy="always", retention_cycles=retention,
                              end_cycle=model.end_cycle)
    assert always.refreshes == model.end_cycle // (retention // 512)
    assert model.refreshes < always.refreshes


@pytest.mark.slow
def test_recorded_trace_in_verilator_equals_the_model(small_camel_run):
    from archsim.sim.rtl.edram_run import run_edram_trace
    run = small_camel_run
    retention = int(edram_refresh_period_s(run.config.global_buffer) * 1e9)
    # 16 KiB rows: the 1 MiB buffer's tensors fit in 256 of them (rounded up per tensor).
    trace = edram_access_trace(run.lifetimes, names=run.allocation.resident, row_bytes=16384,
                               rows=256, clock_hz=1e9)
    # One array, and four banks refreshing in parallel (the study's sub-array refresh).
    for banks, policy in ((1, "lifetime"), (1, "always"), (4, "lifetime")):
        model = simulate_refresh(trace, rows=256, policy=policy, retention_cycles=retention,
                                 banks=banks)
        rtl = run_edram_trace(trace, rows=256, width=16, policy=policy,
                              retention_cycles=retention, end_cycle=model.end_cycle,
                              banks=banks, backend="verilator", record=False)
        assert rtl.done
        assert (rtl.refreshes, rtl.stolen_cycles, rtl.accesses) == \
            (model.refreshes, model.stolen_cycles, model.accesses), (banks, policy)
        assert not rtl.violation


def test_quick_study_tables_and_files():
    result = quick_run("camel")
    names = {r["platform"] for r in result.tables["platforms"]}
    assert {"sram", "edram-full", "camel", "sram-rev", "edram-rev-full",
            "edram-lifetime"} <= names
    rows = {r["platform"]: r for r in result.tables["platforms"]}
    # CAMEL's buffer holds its network's training data: nothing spills.
    assert rows["camel"]["spilled_mb"] == 0.0
    # Same timeline, two refresh policies: lifetime-aware never refreshes more.
    assert rows["camel"]["row_refreshes"] <= rows["edram-rev-full"]["row_refreshes"]
    assert rows["edram-lifetime"]["row_refreshes"] <= rows["edram-full"]["row_refreshes"]
    assert rows["sram"]["refresh_mj"] == 0.0
    for f in result.files:
        assert f.exists(), f
    assert {f.name for f in result.files} >= {
        "live_bytes.png", "sensitivity_retention.png", "sensitivity_temperature.png",
        "sensitivity_density.png", "sensitivity_buffer_size.png", "platforms.csv"}
    # The retention sweep: a longer period never costs CAMEL more refresh energy, so its
    # saving over SRAM (which does not refresh) does not fall.
    sweep = [r for r in result.tables["sensitivity_retention"] if r["against"] == "sram"]
    savings = [r["energy_saving"] for r in sorted(sweep, key=lambda r: r["refresh_period_us"])]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(savings, savings[1:], strict=False))


def test_real_block_in_rtl_equals_the_integer_reference_and_numpy():
    # A RevMLP trained on real (pooled) digits; block 0 of one real training step on the
    # engine in RTL (pysim): bit-exact against the independent integer reference, and
    # within the formats' resolution of numpy's own float64 backward pass.
    from archsim.dsl.examples.camel import (
        ACT_FRAC_BITS,
        block_inputs,
        quantize,
        read_block_outputs,
        reference_block_fixed,
        reversible_block_program,
    )
    from archsim.sim.studies.camel.block import real_block, real_block_engine

    rb = real_block()
    assert rb.test_accuracy > 0.8
    engine, shape = real_block_engine()
    program, layout = reversible_block_program(engine, shape)
    compiled = engine.compile()
    inputs = block_inputs(layout, rb.x, rb.wf, rb.wg, rb.dy1, rb.dy2)
    result = compiled.simulate(program, inputs, backend="pysim")
    assert result.cycles == compiled.model(program).cycles
    out = read_block_outputs(layout, result.buffers)
    ref = reference_block_fixed(rb.x, rb.wf, rb.wg, rb.dy1, rb.dy2, lr_shift=shape.lr_shift)
    for name, codes in ref.items():
        assert (out[name] == codes).all(), name
    names = {"y1": "y1_f", "y2": "y2_f", "dx1": "dx1_f", "dx2": "dx2_f", "dWF": "dwf_f",
             "dWG": "dwg_f"}
    for name, expected in rb.expected.items():
        got = out[names[name]]
        # Q7.8 / Q3.12 / Q1.14 operands: a few LSBs of error relative to the tensor's range.
        assert abs(got - expected).max() <= 5e-3 * abs(expected).max(), name
    # The recompute gives back the stored inputs exactly (integer additive coupling).
    d = shape.d
    assert (out["x1r"] == quantize(rb.x[:, :d], ACT_FRAC_BITS)).all()
    assert (out["x2r"] == quantize(rb.x[:, d:], ACT_FRAC_BITS)).all()
