"""Stream pipelines: RTL (pysim) == composed goldens == numpy here; measured cycles vs model."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.hw.accel.stream import MapStage, ReluStage, StreamPipeline, StreamStage, ThrottleStage
from archsim.hw.checks import silence_unused
from archsim.sim.rtl.unit_run import run_unit

WORDS = 32  # addr_width=5


def signed(w, width):
    w = np.asarray(w, dtype=np.int64) & ((1 << width) - 1)
    return np.where(w >= 1 << (width - 1), w - (1 << width), w)


def map_ref(x, scale, shift, offset, width):
    """sat(floor(x * scale / 2**shift + 1/2) + offset), in floats (exact at these sizes)."""
    y = np.floor(x * float(scale) / 2.0 ** shift + 0.5) + offset
    return np.clip(y, -(1 << (width - 1)), (1 << (width - 1)) - 1).astype(np.int64)


def run(pipe, x, n, *, src_addr=0, dst_addr=0, stall=0.0, seed=0):
    src = np.zeros(WORDS, np.int64)
    src[:len(x)] = np.asarray(x, dtype=np.int64) & ((1 << pipe.width) - 1)
    args = dict(src_addr=src_addr, dst_addr=dst_addr, n=n)
    gold = {"src": src.copy(), "dst": np.zeros(WORDS, np.int64)}
    pipe.golden(gold, args)
    res = run_unit(pipe, {"src": src, "dst": np.zeros(WORDS, np.int64)}, args,
                   stall_probability=stall, seed=seed)
    return res, gold, args


def inputs(n, width=16, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    return np.array(([lo, hi, 0, -1, 1, -6, 6, -2] + rng.integers(lo, hi + 1, n).tolist())[:n])


@pytest.mark.parametrize("depths", [(2, 2, 2), (4, 4, 4), (2, 3, 8)])
def test_ii1_pipeline_measured_cycles_equal_the_model(depths):
    x = inputs(12)
    pipe = StreamPipeline(stages=[MapStage(width=16, scale=3, shift=2, offset=-5),
                                  ReluStage(width=16)],
                          fifo_depths=depths, width=16, addr_width=5)
    res, gold, args = run(pipe, x, 12, src_addr=1, dst_addr=17)
    x_in = signed(res.buffers["src"][1:13], 16)
    expect = np.maximum(map_ref(x_in, 3, 2, -5, 16), 0)
    assert signed(res.buffers["dst"][17:29], 16).tolist() == expect.tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    assert not res.buffers["dst"][:17].any() and not res.buffers["dst"][29:].any()
    assert pipe.exact
    assert res.cycles == pipe.cycles(args) == pipe.cycles_event(args)
    assert pipe.cycles_bounds(args) == (res.cycles, res.cycles)


def test_fifo_depth_1_and_4_are_both_correct():
    x = inputs(10, seed=2)
    expect = map_ref(x, -7, 1, 100, 16)
    measured = {}
    for depth in (1, 4):
        pipe = StreamPipeline(stages=[MapStage(width=16, scale=-7, shift=1, offset=100)],
                              fifo_depths=(depth, depth), width=16, addr_width=5)
        res, gold, args = run(pipe, x, 10)
        assert signed(res.buffers["dst"][:10], 16).tolist() == expect.tolist()
        assert np.array_equal(res.buffers["dst"], gold["dst"])
        # fixed-interval stages: the closed form is exact at either depth
        assert res.cycles == pipe.cycles(args) == pipe.cycles_event(args)
        measured[depth] = res.cycles
    # a depth-1 SyncFIFO is full or empty, so it passes one word every other cycle
    assert measured[1] - measured[4] == 10 - 1


def test_fixed_rate_throttle_is_exact():
    x = inputs(9, seed=3)
    pipe = StreamPipeline(stages=[MapStage(width=16, scale=5, shift=3),
                                  ThrottleStage(width=16, ii=3), ReluStage(width=16)],
                          fifo_depths=(2, 1, 2, 4), width=16, addr_width=5)
    res, gold, args = run(pipe, x, 9)
    expect = np.maximum(map_ref(x, 5, 3, 0, 16), 0)
    assert signed(res.buffers["dst"][:9], 16).tolist() == expect.tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    assert pipe.exact and res.cycles == pipe.cycles(args) == pipe.cycles_event(args)
    assert res.cycles > pipe.cycles_bounds({**args, "n": 1})[0] + 8 * 2  # throttled


@pytest.mark.parametrize("depths", [(1, 1, 1), (2, 4, 2), (4, 1, 3)])
def test_variable_throttle_lies_within_the_bounds(depths):
    x = inputs(14, seed=4)
    pipe = StreamPipeline(stages=[ThrottleStage(width=16, ii=1, ii_max=4, seed=77),
                                  MapStage(width=16, scale=5, shift=3)],
                          fifo_depths=depths, width=16, addr_width=5)
    res, gold, args = run(pipe, x, 14)
    assert signed(res.buffers["dst"][:14], 16).tolist() == map_ref(x, 5, 3, 0, 16).tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    low, high = pipe.cycles_bounds(args)
    assert not pipe.exact and low < high
    assert low <= res.cycles <= high
    assert pipe.cycles(args) == low
    assert res.cycles == pipe.cycles_event(args)  # the event-level recurrence is exact


def test_throttle_intervals_follow_the_lfsr_range():
    st = ThrottleStage(width=8, ii=2, ii_max=6, seed=5)
    gaps = st.intervals(200)
    assert min(gaps) >= 2 and max(gaps) <= 6 and len(set(gaps)) == 5
    silence_unused(st)


@pytest.mark.parametrize("kind", ["ii1", "throttle"])
def test_stalls_change_neither_results_nor_enabled_cycles(kind):
    def make():
        stages = [MapStage(width=16, scale=3, shift=1)]
        if kind == "throttle":
            stages.append(ThrottleStage(width=16, ii=2, ii_max=5, seed=9))
        return StreamPipeline(stages=stages, fifo_depths=[2] * (len(stages) + 1), width=16,
                              addr_width=5)

    x = inputs(10, seed=6)
    calm, _, args = run(make(), x, 10)
    stalled, gold, _ = run(make(), x, 10, stall=0.25, seed=1)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == calm.cycles
    assert np.array_equal(stalled.buffers["dst"], calm.buffers["dst"])
    assert np.array_equal(stalled.buffers["dst"], gold["dst"])


def test_narrowing_pipeline_requantizes_int32_to_int8():
    x = np.array([-(1 << 31), (1 << 31) - 1, 0, 512, -512, 1536, -1536, 130000])
    pipe = StreamPipeline(stages=[MapStage(width=32, out_width=8, scale=1, shift=10)],
                          fifo_depths=(2, 2), width=32, out_width=8, addr_width=5)
    res, gold, args = run(pipe, x, 8)
    expect = np.clip(np.floor(x / 1024.0 + 0.5), -128, 127).astype(np.int64)
    assert signed(res.buffers["dst"][:8], 8).tolist() == expect.tolist()
    assert np.array_equal(res.buffers["dst"], gold["dst"])
    assert res.cycles == pipe.cycles(args)


def test_empty_pipeline_copies_and_zero_elements_take_one_cycle():
    x = inputs(6, seed=7)
    pipe = StreamPipeline(stages=[], fifo_depths=[3], width=16, addr_width=5)
    res, _, args = run(pipe, x, 6, dst_addr=4)
    assert signed(res.buffers["dst"][4:10], 16).tolist() == x.tolist()
    assert res.cycles == pipe.cycles(args)
    pipe = StreamPipeline(stages=[ReluStage()], fifo_depths=[2, 2], addr_width=5)
    res, _, args = run(pipe, x, 0)
    assert res.cycles == pipe.cycles(args) == 1 and not res.buffers["dst"].any()


def test_actions_and_footprint():
    pipe = StreamPipeline(stages=[MapStage(), ReluStage(), ThrottleStage()],
                          fifo_depths=[2, 2, 2, 2], addr_width=8)
    args = dict(src_addr=3, dst_addr=100, n=20)
    assert pipe.actions(args) == {"read:src": 20, "write:dst": 20, "fifo": 80, "mul": 20,
                                  "alu": 40}
    assert pipe.footprint(args) == {"src": (3, 23), "dst": (100, 120)}
    assert set(pipe.ENERGY_PER_ACTION_J) == set(pipe.ENERGY_SOURCES) == {"mul", "alu", "fifo"}
    assert all(v > 0 for v in pipe.ENERGY_PER_ACTION_J.values())
    for part in (pipe, *pipe.stages):  # a model-only use: never elaborated
        silence_unused(part)


def test_bad_arguments_raise_exact_errors():
    with pytest.raises(ConfigError) as info:
        StreamPipeline(stages=[MapStage(width=16, out_width=8), ReluStage(width=16)],
                       fifo_depths=[2, 2, 2])
    assert str(info.value) == (
        "field 'stages': stream width mismatch: stage 0 (MapStage (16 -> 8 bits)) produces "
        "8-bit words but stage 1 (ReluStage (16 -> 16 bits)) takes 16-bit words")
    with pytest.raises(ConfigError) as info:
        StreamPipeline(stages=[ReluStage(width=8)], fifo_depths=[2, 2], width=16)
    assert str(info.value) == (
        "field 'stages': stream width mismatch: the load stage produces 16-bit words but "
        "stage 0 (ReluStage (8 -> 8 bits)) takes 8-bit words")
    with pytest.raises(ConfigError) as info:
        StreamPipeline(stages=[ReluStage(), ReluStage()], fifo_depths=[2, 2])
    assert str(info.value) == (
        "field 'fifo_depths': 2 FIFO depths given; 2 stages need 3 (one before each stage "
        "and one before the store)")
    relu = ReluStage()
    with pytest.raises(ConfigError, match="a stage appears twice"):
        StreamPipeline(stages=[relu, relu], fifo_depths=[2, 2, 2])
    with pytest.raises(ValueError, match=r"^fifo_depths\[1\] must be at least 1, not 0$"):
        StreamPipeline(stages=[ReluStage()], fifo_depths=[2, 0])
    with pytest.raises(TypeError, match=r"^stages\[0\] must be a StreamStage, not 'relu'$"):
        StreamPipeline(stages=["relu"], fifo_depths=[2, 2])
    with pytest.raises(ValueError, match=r"^ii_max must be in 3\.\.65536, not 2$"):
        ThrottleStage(ii=3, ii_max=2)
    with pytest.raises(ValueError, match=r"^shift must be in 0\.\.63, not 64$"):
        MapStage(shift=64)
    assert issubclass(MapStage, StreamStage)


def test_converts_to_verilog():
    from archsim.hw.verilog import to_verilog
    pipe = StreamPipeline(stages=[MapStage(), ThrottleStage(ii=1, ii_max=4), ReluStage()],
                          fifo_depths=[2, 1, 2, 4], addr_width=6)
    text = to_verilog(pipe, name="pipe")
    assert "module pipe" in text and "dst__data" in text
