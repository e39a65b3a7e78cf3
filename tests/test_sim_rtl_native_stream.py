"""The streaming harness (simulate(..., backend="verilator"), simulate_stream) against Amaranth's
simulator, numpy's matrix product and hand-worked frame layouts.

Expected values come from pysim (which shares no code with the harness past the stimulus
checks), from numpy, and for the frame layout from the protocol written out by hand. The
Combo design's comparison of this path with pysim and the cocotb flow (wide ports included) is
in tests/test_sim_rtl.py; this module builds one design, a 4x4 array, once.
"""

import numpy as np
import pytest

from archsim.errors import ConfigError, SimulationError
from archsim.hw.checks import silence_unused
from archsim.hw.systolic import SystolicArray
from archsim.sim.rtl import simulate
from archsim.sim.rtl._ports import Port, component_ports
from archsim.sim.rtl.matmul import run_matmul
from archsim.sim.rtl.native_bulk import element_bytes
from archsim.sim.rtl.native_stream import (
    RING_SLOTS,
    StreamChunk,
    _encode_chunks,
    simulate_stream,
    stream_stimulus,
)

NAME = "systolic_os_4x4"  # run_matmul's name: every test here shares the one streaming build


@pytest.fixture(scope="module")
def rtl_cache(tmp_path_factory):
    """One ARCHSIM_CACHE for this module's build."""
    path = tmp_path_factory.mktemp("archsim-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARCHSIM_CACHE", str(path))
        yield path


def _array():
    return SystolicArray(rows=4, cols=4, dataflow="os")


def _random_inputs(rng, cycles):
    stim = {}
    array = _array()
    silence_unused(array)  # only its ports are looked at
    for name, port in component_ports(array).items():
        if port.is_input:
            half = 1 << (port.width - 1)
            stim[name] = (rng.integers(0, 2, cycles) if port.width == 1
                          else rng.integers(-half, half, cycles))
    return stim


# --- no Verilator ------------------------------------------------------------------------------

def test_frames_split_chunks_to_the_capacity_with_padded_columns():
    a = Port("a", 8, True, True, 0, None)
    w = Port("w", 100, False, True, 0, None)
    y = Port("y", 9, False, False, 0, None)
    chunk = StreamChunk(5, {"a": np.array([1, 2, 3, 4, 255], dtype=np.uint64),
                            "w": [1 << 99, 0, 1, 2, 3]},
                        {"y": [7, None, 9, 10, 11]})
    frames = list(_encode_chunks([chunk], [a, w], [y], capacity=3))
    assert len(frames) == 3  # 3 + 2 cycles, then the end marker
    first = frames[0]
    # n, then 3 bytes of a padded to 8, 3 x 16 bytes of w (4 words each: 100 bits), 3 x 2
    # bytes of y padded to 8, 3 care bytes padded to 8.
    assert len(first) == 8 + 8 + 48 + 8 + 8
    assert np.frombuffer(first[:8], "<u8")[0] == 3
    assert first[8:16] == bytes([1, 2, 3, 0, 0, 0, 0, 0])
    words = np.frombuffer(first[16:64], "<u4").reshape(3, 4)
    assert words[0].tolist() == [0, 0, 0, 1 << 3] and words[2].tolist() == [1, 0, 0, 0]
    assert np.frombuffer(first[64:70], "<u2").tolist() == [7, 0, 9]  # a don't-care sends 0
    assert first[72:80] == bytes([1, 0, 1, 0, 0, 0, 0, 0])
    assert np.frombuffer(frames[1][:8], "<u8")[0] == 2 and frames[1][8:10] == bytes([4, 255])
    assert frames[2] == bytes(8)


def test_frames_refuse_a_chunk_with_other_ports():
    a = Port("a", 8, True, True, 0, None)
    with pytest.raises(SimulationError, match=r"every chunk must drive the same inputs \(a\)"):
        list(_encode_chunks([StreamChunk(1, {"b": [1]})], [a], [], capacity=8))


def test_simulate_stream_checks_its_arguments():
    array = _array()
    with pytest.raises(SimulationError, match=r"unknown port 'nope' in the chunk starting at cycle 0"):
        simulate_stream(array, iter([{"nope": [1]}]))
    with pytest.raises(SimulationError, match=r"input value 300 at cycle 5 does not fit port "
                                              r"'valid' \(unsigned, 1 bits: 0..1\) \(in the "
                                              r"chunk starting at cycle 0\)"):
        simulate_stream(_array(), iter([{"valid": [1] * 5 + [300]}]))
    with pytest.raises(SimulationError, match="unknown output port 'valid'"):
        simulate_stream(_array(), iter([]), outputs=["valid"])
    silence_unused(array)


# --- Verilator ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_streamed_array_equals_pysim_for_every_chunk_size(rtl_cache):
    rng = np.random.default_rng(21)
    cycles = 700
    stim = _random_inputs(rng, cycles)
    stim["valid"][:1] = 1  # at least one valid beat
    by_pysim = simulate(_array(), stim, name=NAME)
    streamed = simulate(_array(), stim, backend="verilator", name=NAME)
    assert streamed.backend == "verilator" and streamed.cycles == cycles
    assert list(streamed.outputs) == list(by_pysim.outputs)
    for name, values in by_pysim.outputs.items():
        assert streamed.outputs[name].dtype == values.dtype, name
        assert streamed.outputs[name].tolist() == values.tolist(), name
    assert streamed.final_outputs == by_pysim.final_outputs
    assert streamed.wall_time_s > 0 and streamed.total_time_s >= streamed.wall_time_s

    # Chunk boundaries anywhere (1 cycle, a prime, a whole run in one chunk) change nothing.
    from archsim.hw.verilog import to_verilog
    from archsim.sim.rtl._ports import convert_outputs, prepare_stimulus

    array = _array()
    ports = component_ports(array)
    prepared = prepare_stimulus(ports, stim, None, None, None, as_arrays=True)
    verilog = to_verilog(array, name=NAME)
    for chunk_cycles in (1, 97, cycles):
        run = stream_stimulus(verilog, toplevel=NAME, ports=ports, stimulus=prepared,
                              chunk_cycles=chunk_cycles)
        assert run.cached
        got = convert_outputs(ports, run.outputs)
        for name, values in by_pysim.outputs.items():
            assert got[name].tolist() == values.tolist(), (chunk_cycles, name)

    # Held inputs, nothing recorded (free-running): the final state is pysim's.
    held = {name: values[:1] for name, values in stim.items()}
    free = simulate(_array(), held, [], cycles=5000, backend="verilator", name=NAME)
    assert free.outputs == {}
    assert free.final_outputs == simulate(_array(), held, [], cycles=5000, name=NAME).final_outputs


@pytest.mark.slow
def test_streamed_matmul_equals_numpy(rtl_cache):
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, (9, 6))
    b = rng.integers(-128, 128, (6, 7))
    run = run_matmul(a, b, rows=4, cols=4, dataflow="os", backend="verilator")
    np.testing.assert_array_equal(run.product, a @ b)
    assert run.cycles == run.predicted_cycles and run.backend == "verilator"


@pytest.mark.slow
def test_expected_values_are_compared_in_the_harness(rtl_cache):
    rng = np.random.default_rng(8)
    cycles = 9000  # three chunks of 4096 cycles
    stim = _random_inputs(rng, cycles)
    reference = simulate(_array(), stim, ["c_valid", "c__1"], name=NAME).outputs
    want = {"c_valid": reference["c_valid"].copy(), "c__1": reference["c__1"].copy()}
    passed = simulate(_array(), stim, [], expected=want, backend="verilator", name=NAME)
    assert passed.outputs["c__1"].tolist() == reference["c__1"].tolist()
    # Two wrong values in the second chunk: the earlier cycle is reported, with pysim's value.
    want["c__1"][5000] += 1
    want["c_valid"][6000] ^= 1
    with pytest.raises(SimulationError, match="output mismatch") as info:
        simulate(_array(), stim, [], expected=want, backend="verilator", name=NAME)
    err = info.value
    assert (err.signal, err.cycle) == ("c__1", 5000)
    assert (err.expected, err.actual) == (reference["c__1"][5000] + 1, reference["c__1"][5000])
    # Don't-cares: the wrong value at 5000 masked, the one at 6000 is the first left.
    masked = {"c__1": [None if k == 5000 else int(v) for k, v in enumerate(want["c__1"])],
              "c_valid": want["c_valid"]}
    with pytest.raises(SimulationError) as info:
        simulate(_array(), stim, [], expected=masked, backend="verilator", name=NAME)
    assert (info.value.signal, info.value.cycle) == ("c_valid", 6000)


@pytest.mark.slow
def test_simulate_stream_consumes_a_generator_lazily(rtl_cache):
    rng = np.random.default_rng(13)
    cycles, chunk_cycles, checked_by_pysim = 40_000, 256, 3000
    stim = _random_inputs(rng, cycles)
    # The reference: pysim on the first cycles (pysim runs ~1k cycles/s here), and on all of
    # them simulate()'s own chunking, which the other tests check against pysim.
    reference = simulate(_array(), stim, ["c_valid", "c__3"], backend="verilator",
                         name=NAME).outputs
    by_pysim = simulate(_array(), {k: v[:checked_by_pysim] for k, v in stim.items()},
                        ["c_valid", "c__3"], name=NAME).outputs
    for name, values in by_pysim.items():
        assert reference[name][:checked_by_pysim].tolist() == values.tolist(), name
    produced, delivered, lags = [0], [0], []
    sizes = rng.integers(1, 1500, 200)  # items of random sizes, regrouped into chunks

    def items():
        begin = 0
        for size in sizes:
            if begin >= cycles:
                return
            end = min(begin + int(size), cycles)
            yield {name: values[begin:end] for name, values in stim.items()}
            produced[0] = end
            begin = end
        if begin < cycles:
            yield {name: values[begin:] for name, values in stim.items()}
            produced[0] = cycles

    got = {"c_valid": [], "c__3": []}

    def take(outputs):
        assert len(outputs["c_valid"]) <= chunk_cycles
        for name, values in outputs.items():
            got[name].append(values)
        delivered[0] += len(outputs["c_valid"])
        lags.append(produced[0] - delivered[0])

    result = simulate_stream(_array(), items(), outputs=["c_valid", "c__3"], on_outputs=take,
                             chunk_cycles=chunk_cycles, name=NAME)
    assert result.cycles == cycles and delivered[0] == cycles
    for name, values in reference.items():
        assert np.concatenate(got[name]).tolist() == values.tolist(), name
    # Lazily: the producer is never further ahead than what the ring, the pipes (64 KiB each
    # on Linux: the writer thread's and stdin going in, stdout coming back with outputs not
    # yet read) and one item in hand can hold; a producer drained up front would be 40k
    # cycles ahead at the first delivery.
    frame_bytes = 8 + sum(-(-chunk_cycles // 8) * 8 for _ in stim)  # 1-byte columns
    in_pipes = -(-2 * 65536 // frame_bytes) * chunk_cycles
    array = _array()
    silence_unused(array)  # only its ports are looked at
    ports = component_ports(array)
    out_frame_bytes = 8 + sum(-(-element_bytes(ports[name].width) * chunk_cycles // 8) * 8
                              for name in ("c_valid", "c__3"))
    out_pipe = -(-65536 // out_frame_bytes) * chunk_cycles
    bound = (RING_SLOTS + 2) * chunk_cycles + in_pipes + out_pipe + int(sizes.max())
    assert bound < cycles  # else the check below could not fail
    assert max(lags) <= bound
    assert result.harness_peak_rss_bytes > 0

    # The same run checking expected values in the harness, nothing sent back.
    def checked():
        for begin in range(0, cycles, 5000):
            item = {name: values[begin:begin + 5000] for name, values in stim.items()}
            item["c__3"] = reference["c__3"][begin:begin + 5000]
            yield item

    simulate_stream(_array(), checked(), name=NAME)
    wrong = reference["c__3"].copy()
    wrong[12345] -= 1

    items_wrong = ({**item, "c__3": wrong[k * 5000:(k + 1) * 5000]}
                   for k, item in enumerate(checked()))
    with pytest.raises(SimulationError, match="output mismatch") as info:
        simulate_stream(_array(), items_wrong, name=NAME)
    err = info.value
    assert (err.signal, err.cycle) == ("c__3", 12345)
    assert (err.expected, err.actual) == (reference["c__3"][12345] - 1,
                                          reference["c__3"][12345])
    # A bad value in a later item stops the run with the producer's error, cycle included.
    def bad_later():
        yield {"valid": [1] * 100}
        yield {"valid": [1] * 10 + [2]}

    with pytest.raises(SimulationError, match=r"input value 2 at cycle 10 does not fit port "
                                              r"'valid' .* \(in the chunk starting at cycle "
                                              r"100\)") as info:
        simulate_stream(_array(), bad_later(), name=NAME)
    assert info.value.cycle == 110
    with pytest.raises(ConfigError, match="chunk_cycles must be an int"):
        simulate_stream(_array(), checked(), chunk_cycles=0, name=NAME)
