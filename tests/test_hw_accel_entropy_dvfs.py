"""The entropy-DVFS unit: RTL == golden == numpy on the published bins, and in an accelerator
an entropy -> entropy_dvfs -> indirect switch program whose selected point, stall and cycles
equal numpy, the DVFS model and the accelerator model."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl.accel import Accelerator
from archsim.errors import DSLError
from archsim.hw.accel.entropy_dvfs import EntropyDVFS
from archsim.hw.checks import silence_unused
from archsim.hw.models.dvfs import DVFSModel, OperatingPoint, default_adpll, default_ldo
from archsim.sim.rtl.accel_run import run_accelerator
from archsim.sim.rtl.unit_run import run_unit

# harvard-acc/EdgeBERT hw/cmod/Dvfs/Dvfs.h thresholds, typed from the paper notes (§1.1).
PUBLISHED = np.array([256, 512, 1024, 2048, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 16384,
                      20480, 24576, 28672])
TABLE = np.array([7, 19, 3, 250, 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12])


def expected_pick(code: int, scale: int, table: np.ndarray) -> int:
    signed = code - (1 << 16) if code >= 1 << 15 else code
    scaled = int(np.trunc(signed / scale))
    return int(table[np.searchsorted(PUBLISHED, scaled, side="right")])


def test_contract():
    unit = EntropyDVFS(addr_width=8)
    silence_unused(unit)
    c = unit.contract
    assert c.kind == "entropy_dvfs" and c.result_width == 8
    assert [(o.name, o.direction, o.width) for o in c.operands] == [
        ("entropy", "read", 16), ("table", "read", 8)]
    assert c.all_args == ("entropy_addr", "table_addr", "enpy_scale")
    args = {"entropy_addr": 3, "table_addr": 240, "enpy_scale": 9}
    assert unit.cycles(args) == 5
    assert unit.footprint(args) == {"entropy": (3, 4), "table": (240, 256)}
    with pytest.raises(ValueError, match=r"'enpy_scale': enpy_scale must be an int in 1\.\.255"):
        unit.cycles({**args, "enpy_scale": 0})
    with pytest.raises(ValueError, match=r"operand 'table' spans elements 241\.\.256, past its "
                                         r"256-element buffer"):
        unit.cycles({**args, "table_addr": 241})


# Every threshold's edge (scaled back by the scale), both sides, negatives and the extremes.
def _edge_codes(scale: int) -> list[int]:
    codes = {0, 1, 32767, 0xFFFF, 0x8000, 0x8000 | 300}
    for t in PUBLISHED:
        for c in (t * scale - 1, t * scale):
            if 0 <= c < 1 << 15:
                codes.add(int(c))
    return sorted(codes)


@pytest.mark.parametrize("scale", [1, 3, 255])
def test_rtl_equals_golden_and_numpy_at_every_bin_edge(scale):
    codes = _edge_codes(scale)
    words = np.zeros(64, np.int64)
    words[:len(codes)] = codes
    table = np.zeros(64, np.int64)
    table[40:56] = TABLE
    unit = EntropyDVFS(addr_width=6)
    silence_unused(unit)  # its golden view only
    bufs = {"entropy": words, "table": table}
    for k, code in enumerate(codes):
        args = {"entropy_addr": k, "table_addr": 40, "enpy_scale": scale}
        want = expected_pick(code, scale, TABLE)
        assert unit.golden_result(bufs, args) == want, code
        if k % 2 and scale != 1:
            continue  # the RTL on every edge at scale 1, on half of them at the others
        result = run_unit(EntropyDVFS(addr_width=6), bufs, args,
                          stall_probability=0.3 if k % 3 == 0 else 0.0, seed=k)
        assert (result.result, result.cycles) == (want, 5), code


# -- in an accelerator ------------------------------------------------------------------------

POINTS = {"nominal": (0.8, 1000e6), "mid": (0.7, 800e6), "low": (0.6, 600e6),
          "min": (0.5, 400e6)}


def edvfs_accelerator() -> Accelerator:
    acc = Accelerator(name="edvfs_acc")
    acc.domain("core", operating_points=POINTS)
    acc.buffer("vec", words=64, width=16, read_ports=2, domain="core")
    acc.buffer("dvfs", words=256, width=8, domain="core")  # Spec.h's DVFS memory, 256 x 8 b
    acc.unit("entropy", "entropy", bind={"src": "vec", "dst": "vec"}, domain="core")
    acc.unit("edvfs", "entropy_dvfs", bind={"entropy": "vec", "table": "dvfs"}, domain="core")
    return acc


def layer1_program(acc: Accelerator, *, switch: bool = True, scale: int = 1):
    p = acc.program()
    p.run("entropy", src_addr=0, dst_addr=32, rows=1, n=8)   # the layer-1 off-ramp logits
    p.run("edvfs", entropy_addr=32, table_addr=0, enpy_scale=scale)
    if switch:
        p.set_operating_point("core", from_unit="edvfs")
    return p


# A table whose picks differ per bin (op indices of POINTS: 0 nominal .. 3 min); 8 logits
# reach at most ln 8 = 2.08 nats (2129 codes, bin 4).
POLICY = np.array([3, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])


# (logit spread in codes, seed): entropy codes 2 (bin 0), 1003 (bin 2), 2129 (bin 4: the
# nominal point again, no stall)
@pytest.mark.parametrize("spread, seed", [(20000, 0), (8000, 1), (30, 1)])
def test_indirect_switch_in_pysim_equals_numpy_dvfs_model_and_accelerator_model(spread, seed):
    acc = edvfs_accelerator()
    compiled = acc.compile()
    logits = np.random.default_rng(seed).integers(-spread, spread, 8) & 0xFFFF
    bufs = {"vec": logits, "dvfs": POLICY}
    program = layer1_program(acc)
    golden = compiled.golden_run(program, bufs)
    entropy = int(golden.buffers["vec"][32])
    pick = expected_pick(entropy, 1, POLICY)
    names = list(POINTS)
    assert golden.points == {2: names[pick]}

    rtl = compiled.simulate(program, bufs, backend="pysim")
    assert rtl.error_code == 0
    assert all(np.array_equal(rtl.buffers[b], golden.buffers[b]) for b in golden.buffers)
    report = compiled.model(program, buffers=bufs)
    assert (rtl.cycles, rtl.stats) == (report.cycles, report.stats)
    # the same with the point given instead of the buffers
    assert compiled.model(program, selected=[names[pick]]).cycles == report.cycles

    # The stall the RTL took: the run without the switch is shorter by the DVFS step, decode
    # plus ack latency = 1 + (stall + 1) cycles (controller.Sequencer's timing).
    without = compiled.simulate(layer1_program(acc, switch=False), bufs, backend="pysim")
    v0, f0 = POINTS["nominal"]
    v1, f1 = POINTS[names[pick]]
    move = DVFSModel(ldo=default_ldo(), adpll=default_adpll()).transition(
        OperatingPoint(voltage_v=v0, frequency_hz=f0), OperatingPoint(voltage_v=v1, frequency_hz=f1))
    stall = move.stall_cycles(compiled.controller_clock_hz)
    assert rtl.cycles - without.cycles == 2 + stall
    assert (stall > 0) == (pick != 0)
    dvfs_step = report.steps[2]
    assert (dvfs_step.kind, dvfs_step.stall_cycles, dvfs_step.frequency_hz) == ("dvfs", stall, f1)


def test_indirect_switch_equals_a_direct_switch_to_the_selected_point():
    acc = edvfs_accelerator()
    compiled = acc.compile()
    # four logits at 0, four at -1.0: H = 2016 codes, bin 3 (1024..2048), POLICY[3] = 1, "mid"
    bufs = {"vec": np.array([0, 0, 0, 0, -1024, -1024, -1024, -1024]) & 0xFFFF,
            "dvfs": POLICY}
    assert compiled.golden_run(layer1_program(acc), bufs).points == {2: "mid"}
    direct = layer1_program(acc, switch=False)
    direct.set_operating_point("core", "mid")
    a = compiled.simulate(layer1_program(acc), bufs, backend="pysim")
    b = compiled.simulate(direct, bufs, backend="pysim")
    assert a.cycles == b.cycles == compiled.model(direct).cycles


def test_a_table_entry_past_the_domain_stops_the_rtl_with_error_4_and_the_golden_says_so():
    acc = edvfs_accelerator()
    compiled = acc.compile()
    bufs = {"vec": np.zeros(8, np.int64), "dvfs": np.full(16, 9)}
    program = layer1_program(acc)
    with pytest.raises(DSLError, match=r"selected operating point 9; domain 'core' has 4 "
                                       r"\(0\.\.3\): the controller would stop with error code 4"):
        compiled.golden_run(program, bufs)
    # given max_cycles, the run does not ask the model (whose golden run refuses) for a bound
    result = run_accelerator(compiled, program, bufs, backend="pysim", max_cycles=1000)
    assert result.error_code == 4


def test_misuse_is_a_dsl_error_at_the_users_line():
    acc = edvfs_accelerator()
    p = acc.program()
    with pytest.raises(DSLError, match=r"unit 'edvfs' has not run yet in this program") as info:
        p.set_operating_point("core", from_unit="edvfs")
    assert info.value.filename == __file__
    with pytest.raises(DSLError, match="either an operating point name or from_unit="):
        p.set_operating_point("core", "mid", from_unit="edvfs")
    with pytest.raises(DSLError, match="has no unit 'nope'"):
        p.set_operating_point("core", from_unit="nope")

    compiled = acc.compile()
    # a unit without a result
    q = acc.program()
    q.run("entropy", src_addr=0, dst_addr=32, rows=1, n=8)
    q.set_operating_point("core", from_unit="entropy")
    with pytest.raises(DSLError, match=r"unit 'entropy' \(entropy\) has no result"):
        compiled.check_program(q)
    # started without waiting: its pick may not be ready
    r = acc.program()
    r.start("edvfs", entropy_addr=32, table_addr=0, enpy_scale=1)
    r.set_operating_point("core", from_unit="edvfs")
    with pytest.raises(DSLError, match="was started without waiting") as info:
        compiled.check_program(r)
    assert info.value.filename == __file__
    # the model needs the data or the point
    with pytest.raises(DSLError, match=r"the model needs buffers= .* or selected="):
        compiled.model(layer1_program(acc))
    with pytest.raises(DSLError, match="not an operating point of domain 'core'"):
        compiled.model(layer1_program(acc), selected=["turbo"])


@pytest.mark.slow
def test_indirect_switch_in_verilator_equals_golden_and_model():
    acc = edvfs_accelerator()
    compiled = acc.compile()
    program = layer1_program(acc)
    program.run("entropy", src_addr=8, dst_addr=33, rows=1, n=8)  # a second sentence
    program.run("edvfs", entropy_addr=33, table_addr=16, enpy_scale=2)
    program.set_operating_point("core", from_unit="edvfs")
    rng = np.random.default_rng(7)
    vec = np.zeros(16, np.int64)
    vec[:8] = rng.integers(-2000, 2000, 8) & 0xFFFF
    vec[8:] = rng.integers(-50, 50, 8) & 0xFFFF
    table = np.concatenate([POLICY, POLICY[::-1]])
    bufs = {"vec": vec, "dvfs": table}
    golden = compiled.golden_run(program, bufs)
    names = list(POINTS)
    picks = [expected_pick(int(golden.buffers["vec"][32]), 1, POLICY),
             expected_pick(int(golden.buffers["vec"][33]), 2, POLICY[::-1])]
    assert golden.points == {2: names[picks[0]], 5: names[picks[1]]}
    result = compiled.simulate(program, bufs, backend="verilator")
    assert result.error_code == 0
    assert all(np.array_equal(result.buffers[b], golden.buffers[b]) for b in golden.buffers)
    report = compiled.model(program, buffers=bufs)
    assert (result.cycles, result.stats) == (report.cycles, report.stats)


def test_a_table_from_the_host_policy_drives_the_switch():
    from archsim.hw.models.dvfs import default_vf_curve
    from archsim.hw.models.entropy_dvfs import entropy_dvfs_table

    acc = edvfs_accelerator()
    compiled = acc.compile()
    # one more layer per quarter nat: 4 layers at 0.75 nats -> 1e6 cycles per layer, 10 ms
    # budget after layer 1 and the switch
    table = entropy_dvfs_table(operating_points=POINTS, curve=default_vf_curve(),
                               exit_layer=lambda h: 1 + np.ceil(4 * h), cycles_per_layer=1_000_000,
                               target_latency_s=12e-3, layer1_time_s=1e-3, switch_time_s=1e-3,
                               enpy_scale=1, max_entropy_nats=np.log(8))
    bufs = {"vec": np.array([0, 0, 0, 0, -1024, -1024, -1024, -1024]) & 0xFFFF,
            "dvfs": table.words()}
    # H = 2016 codes (bin 3, 1024..2047 codes): worst case 1 + ceil(4 * 2047 / 1024) = 9
    # layers, f_req = 8e6 / 10e-3 = 800 MHz: "mid" (0.7 V, 800 MHz), index 1
    assert table.exit_layer[3] == 9 and table.f_req_hz[3] == pytest.approx(800e6)
    assert table.entries[3] == 1
    program = layer1_program(acc)
    assert compiled.golden_run(program, bufs).points == {2: "mid"}
    rtl = compiled.simulate(program, bufs, backend="pysim")
    assert rtl.cycles == compiled.model(program, selected=["mid"]).cycles
