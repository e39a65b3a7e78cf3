"""The accelerator's three views agree: RTL (pysim) outputs == golden, CYCLES == the model,
statistics (stalls, refreshes, per-domain busy cycles) == the model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.dsl import Array, Int, UInt, bounded, kernel
from archsim.dsl.accel import Accelerator
from archsim.hw.models.memtech import MemoryModel

from .accel_units import AddConst


def _two_domain(technology: str = "sram", temperature_c: float | None = None) -> Accelerator:
    acc = Accelerator(name="tiny")
    acc.domain("core", operating_points={"fast": (0.8, 500e6), "slow": (0.6, 250e6)})
    acc.buffer("x", words=64, width=16, domain="core")
    kw = {} if temperature_c is None else {"temperature_c": temperature_c}
    acc.buffer("y", words=32, width=16, domain="core", technology=technology, **kw)
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "y"}, domain="core")
    acc.unit("back", AddConst, bind={"src": "y", "dst": "x"}, domain="core")
    return acc


def _program(acc: Accelerator):
    prog = acc.program()
    prog.run("inc", src_addr=4, dst_addr=0, n=8, c=3)
    prog.set_operating_point("core", "slow")
    prog.run("inc", src_addr=8, dst_addr=4, n=28, c=65535)
    prog.run("back", src_addr=0, dst_addr=40, n=20, c=1)
    prog.set_operating_point("core", "fast")
    prog.set_operating_point("core", "fast")  # already there: acknowledged at once
    return prog


def _enumerated_cycles(runs, interval: int | None, dvfs_ack: list[int]) -> tuple[int, int]:
    """An independent cycle-by-cycle count of the program's CYCLES and stalled cycles.

    ``runs`` are ``(nargs, unit_cycles, uses_refreshed_buffer)`` in program order with DVFS
    steps as None; the sequencer decodes each step's header in the cycle after the previous
    step ends (cycle 1 first), loads nargs words, starts the unit in the next cycle; the unit
    needs ``unit_cycles + 1`` enabled cycles from its start to its done, and cycles
    ``interval, 2 * interval, ...`` after go are refresh cycles.
    """
    t = 1
    stalled = 0
    acks = iter(dvfs_ack)
    for step in runs:
        if step is None:
            t += 1 + next(acks)
            continue
        nargs, cycles, refreshed = step
        t += nargs + 1  # decode .. the start cycle
        need = cycles + 1
        cur = t
        while need:
            if refreshed and interval is not None and cur % interval == 0:
                stalled += 1
            else:
                need -= 1
            cur += 1
        t = cur - 1  # the done cycle decodes the next header
    return t, stalled


@pytest.mark.parametrize("technology, temperature_c", [("sram", None), ("edram", 65.0)])
def test_rtl_equals_golden_and_model(technology, temperature_c):
    acc = _two_domain(technology, temperature_c)
    prog = _program(acc)
    compiled = acc.compile()
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 16, 64)
    golden = compiled.golden(prog, {"x": x})
    report = compiled.model(prog)
    result = compiled.simulate(prog, {"x": x}, backend="pysim")
    assert result.error_code == 0
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    # the golden run against plain numpy
    y = np.zeros(32, dtype=np.int64)
    y[0:8] = (x[4:12] + 3) % 65536
    y[4:32] = (x[8:36] - 1) % 65536
    x2 = x.copy()
    x2[40:60] = (y[0:20] + 1) % 65536
    assert np.array_equal(golden["y"], y) and np.array_equal(golden["x"], x2)

    assert result.cycles == report.cycles
    assert result.stats == report.stats
    interval = compiled.refresh_interval_cycles("y")
    if technology == "edram":
        expected = MemoryModel(technology="edram", words=32, width=16,
                               temperature_c=temperature_c).refresh_interval_cycles(500e6)
        assert interval == expected and interval < 30  # hot: refreshes fall inside runs
    dvfs = [s.stall_cycles + 1 for s in report.steps if s.kind == "dvfs"]
    total, stalled = _enumerated_cycles(
        [(4, 10, True), None, (4, 30, True), (4, 22, True), None, None], interval, dvfs)
    assert (result.cycles, result.stats["stall_cycles"]) == (total, stalled)
    if technology == "edram":
        assert stalled > 0
        assert result.stats["refreshes_y"] == total // interval
    assert result.stats["busy_core"] == 10 + 30 + 22 + stalled  # busy: start+1 .. done


def test_energy_components_sum_and_scale_with_voltage():
    acc = _two_domain()
    compiled = acc.compile()
    prog = acc.program()
    prog.run("inc", src_addr=0, dst_addr=0, n=16, c=1)
    slow = acc.program()
    slow.set_operating_point("core", "slow")
    slow.run("inc", src_addr=0, dst_addr=0, n=16, c=1)
    fast_report, slow_report = compiled.model(prog), compiled.model(slow)
    for report in (fast_report, slow_report):
        assert math.isclose(report.total_energy_j, math.fsum(report.energy_j.values()))
        assert report.total_energy_j == pytest.approx(
            sum(s.energy_j for s in report.steps) + sum(
                v for k, v in report.energy_j.items() if k.startswith(("leakage", "refresh"))))
    run_fast = fast_report.steps[0]
    run_slow = slow_report.steps[1]
    # dynamic energy of the same run scales as V**2 of the realised points
    assert run_slow.energy_j / run_fast.energy_j == pytest.approx(
        (run_slow.voltage_v / run_fast.voltage_v) ** 2)
    # the unit's cycles take longer at the slower clock; its own cycle count does not change
    assert run_slow.unit_cycles == run_fast.unit_cycles
    assert run_slow.time_s > run_fast.time_s


def test_a_stream_pipeline_unit_in_an_accelerator():
    from archsim.hw.accel.stream import MapStage, ReluStage, ThrottleStage

    acc = Accelerator(name="dataflow")
    acc.buffer("x", words=64, width=16)
    acc.buffer("y", words=64, width=16)
    acc.unit("pipe", "stream", stages=[MapStage(width=16, scale=3, shift=1, offset=-5),
                                       ThrottleStage(width=16, ii=2), ReluStage(width=16)],
             fifo_depths=[2, 2, 1, 2], bind={"src": "x", "dst": "y"})
    prog = acc.program()
    prog.run("pipe", src_addr=3, dst_addr=10, n=20)
    compiled = acc.compile()
    x = np.random.default_rng(4).integers(0, 1 << 16, 64)
    golden = compiled.golden(prog, {"x": x})
    signed = np.where(x >= 1 << 15, x - (1 << 16), x)[3:23]
    mapped = np.clip(np.floor(signed * 3 / 2 + 0.5).astype(np.int64) - 5, -32768, 32767)
    assert np.array_equal(golden["y"][10:30], np.maximum(mapped, 0))
    result = compiled.simulate(prog, {"x": x}, backend="pysim")
    assert np.array_equal(result.buffers["y"], golden["y"])
    assert result.cycles == compiled.model(prog).cycles  # a fixed-interval throttle: exact


def test_stream_width_mismatch_names_the_unit():
    from archsim.errors import DSLError
    from archsim.hw.accel.stream import MapStage

    acc = Accelerator(name="bad")
    acc.buffer("x", words=64, width=16)
    acc.unit("pipe", "stream", stages=[MapStage(width=8)], fifo_depths=[2, 2],
             bind={"src": "x", "dst": "x"})
    with pytest.raises(DSLError, match="unit 'pipe': .*width"):
        acc.compile()


@kernel
def first_at_least(a: Array[Int(16), 8], key: Int(16)) -> UInt(4):
    i = UInt(4)(0)
    while bounded(a[i] < key, max_iter=7):
        i += 1
    return i


def test_a_data_dependent_kernel_unit_is_bounded_by_the_model():
    acc = Accelerator(name="search")
    acc.buffer("x", words=16, width=16)
    acc.buffer("r", words=4, width=4)
    acc.unit("find", first_at_least, clock_ns=2.0, bind={"a": "x", "ret_out": "r"})
    prog = acc.program()
    prog.run("find", a_addr=0, ret_out_addr=1, key=40)
    compiled = acc.compile()
    x = np.array([-9, -3, 0, 12, 40, 41, 50, 99]) & 0xFFFF
    golden = compiled.golden(prog, {"x": x})
    assert golden["r"][1] == 4  # np.searchsorted of 40
    report = compiled.model(prog)
    result = compiled.simulate(prog, {"x": x}, backend="pysim")
    assert np.array_equal(result.buffers["r"], golden["r"])
    assert not report.exact and result.cycles < report.cycles
    # the bound is tight for the worst case: a key above every element runs every trip
    worst = acc.program()
    worst.run("find", a_addr=0, ret_out_addr=1, key=1000)
    assert compiled.simulate(worst, {"x": x}, backend="pysim").cycles == \
        compiled.model(worst).cycles


def _concurrent() -> Accelerator:
    acc = Accelerator(name="fork")
    acc.domain("core", operating_points={"fast": (0.8, 500e6), "slow": (0.6, 250e6)})
    for name in ("x", "y", "z", "w"):
        acc.buffer(name, words=64, width=16, domain="core")
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "y"}, domain="core")
    acc.unit("back", AddConst, bind={"src": "z", "dst": "w"}, domain="core")
    acc.unit("inc2", AddConst, bind={"src": "x", "dst": "w"}, domain="core")  # shares x's port
    return acc


def _check(compiled, prog, inputs):
    golden = compiled.golden(prog, inputs)
    result = compiled.simulate(prog, inputs, backend="pysim")
    for name in golden:
        assert np.array_equal(result.buffers[name], golden[name]), name
    return result, compiled.model(prog)


def test_units_started_without_waiting_overlap_exactly_on_disjoint_ports():
    acc = _concurrent()
    compiled = acc.compile()
    rng = np.random.default_rng(7)
    inputs = {"x": rng.integers(0, 1 << 16, 64), "z": rng.integers(0, 1 << 16, 64)}
    prog = acc.program()
    prog.start("inc", src_addr=0, dst_addr=0, n=30, c=1)
    prog.run("back", src_addr=0, dst_addr=0, n=20, c=2)
    prog.wait()
    prog.start("inc", src_addr=30, dst_addr=30, n=2, c=3)
    prog.start("inc", src_addr=32, dst_addr=32, n=2, c=4)  # waits for its own previous run
    result, report = _check(compiled, prog, inputs)
    assert report.exact and result.cycles == report.cycles
    assert result.stats == report.stats
    serial = acc.program()
    serial.run("inc", src_addr=0, dst_addr=0, n=30, c=1)
    serial.run("back", src_addr=0, dst_addr=0, n=20, c=2)
    serial.run("inc", src_addr=30, dst_addr=30, n=2, c=3)
    serial.run("inc", src_addr=32, dst_addr=32, n=2, c=4)
    assert report.cycles < compiled.model(serial).cycles
    # both units were busy together: the per-domain busy count exceeds the elapsed cycles
    # of the first region
    assert result.stats["busy_core"] == (30 + 2) + (20 + 2) + (2 + 2) * 2


def test_a_shared_port_is_arbitrated_and_the_model_bounds_it():
    acc = _concurrent()
    compiled = acc.compile()
    inputs = {"x": np.random.default_rng(8).integers(0, 1 << 16, 64)}
    prog = acc.program()
    prog.start("inc", src_addr=0, dst_addr=0, n=24, c=1)
    prog.start("inc2", src_addr=24, dst_addr=0, n=24, c=5)   # both read x's one read port
    prog.wait()
    result, report = _check(compiled, prog, inputs)
    assert not report.exact
    assert report.cycles_without_contention < result.cycles <= report.cycles


def test_concurrent_steps_must_not_touch_the_same_words():
    acc = _concurrent()
    prog = acc.program()
    prog.start("inc", src_addr=0, dst_addr=0, n=8, c=1)
    prog.run("inc2", src_addr=40, dst_addr=0, n=8, c=1)
    prog.start("back", src_addr=0, dst_addr=4, n=8, c=1)  # writes w[4:12], inc2 wrote w[0:8]
    from archsim.errors import DSLError

    compiled = acc.compile()
    compiled.check_program(prog)  # inc2 ran to completion before back started: fine
    bad = acc.program()
    bad.start("inc2", src_addr=40, dst_addr=0, n=8, c=1)
    bad.run("back", src_addr=0, dst_addr=4, n=8, c=1)
    with pytest.raises(DSLError, match=r"unit 'back' writes w\[4:12\] while unit 'inc2' "
                                       r"\(started at step 0, not waited for\) writes w\[0:8\]"):
        compiled.check_program(bad)
    dvfs = acc.program()
    dvfs.start("inc", src_addr=0, dst_addr=0, n=8, c=1)
    dvfs.set_operating_point("core", "slow")
    with pytest.raises(DSLError, match="changes its operating point while unit 'inc'"):
        compiled.check_program(dvfs)


def test_verilog_is_generated_once_per_state_of_the_description():
    acc = _two_domain()
    compiled = acc.compile()
    first = compiled.verilog()
    assert compiled.verilog() is first  # cached: not generated again
    acc.buffer("z", words=16, width=16, domain="core")  # the description changed
    again = compiled.verilog()
    assert again != first  # a new memory in the top level
