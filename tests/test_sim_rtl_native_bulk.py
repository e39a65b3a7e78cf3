"""simulate(..., backend="native"): the bulk-stimulus C++ harness against closed forms, numpy,
Amaranth's simulator and the cocotb flow on the same vectors.

Expected values come from the designs' closed forms (tests/test_sim_rtl.py's, worked from
their specifications with numpy), from numpy's matrix product, and from the two other
backends, which share no code with the harness past the stimulus checks.
"""

import numpy as np
import pytest
from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from archsim.errors import ConfigError, SimulationError
from archsim.hw.checks import silence_unused
from archsim.hw.systolic import SystolicArray
from archsim.sim.rtl import BACKENDS, simulate
from archsim.sim.rtl._ports import Port, component_ports, prepare_stimulus
from archsim.sim.rtl.matmul import run_matmul
from archsim.sim.rtl.native_bulk import _decode, bulk_wrapper, element_bytes
from archsim.tests.rtl_designs import Combo, Counter, SignedAdder
from archsim.tests.test_sim_rtl import check_combo, combo_stimulus, counter_expected

N = 300  # cycles of the random tests


@pytest.fixture(scope="module")
def rtl_cache(tmp_path_factory):
    """One ARCHSIM_CACHE for this module's builds (caching itself is tested elsewhere)."""
    path = tmp_path_factory.mktemp("archsim-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARCHSIM_CACHE", str(path))
        yield path


class FreeCounters(wiring.Component):
    """No inputs but a zero-width one; two 16-bit counters that step every edge, ``free``
    never reset, and a zero-width output (reads 0).

    The reset edge is an edge: ``count[k] = k`` and ``free[k] = k + 1`` (mod 2**16). An extra
    edge before the reset would make ``free`` one more; no reset edge, ``count`` one more.
    """

    def __init__(self) -> None:
        super().__init__({"count": Out(16), "free": Out(16), "void_in": In(0),
                          "void_out": Out(0)})

    def elaborate(self, platform):
        m = Module()
        free = Signal(16, reset_less=True)
        m.d.sync += [self.count.eq(self.count + 1), free.eq(free + 1)]
        m.d.comb += self.free.eq(free)
        return m


# --- no Verilator ------------------------------------------------------------------------------

def test_native_is_a_backend_and_refuses_waveforms(tmp_path):
    assert "native" in BACKENDS
    with pytest.raises(ConfigError, match="native backend writes no waveform") as info:
        simulate(Counter(), {"en": [1, 0]}, backend="native", waveform=tmp_path / "w.vcd")
    assert info.value.field == "waveform"
    assert list(tmp_path.iterdir()) == []


def test_element_bytes_are_verilators_c_types():
    # CData/SData/IData/QData up to 64 bits, then 32-bit VlWide words (Verilator's manual).
    table = {1: 1, 8: 1, 9: 2, 16: 2, 17: 4, 32: 4, 33: 8, 64: 8, 65: 12, 96: 12, 97: 16,
             100: 16, 128: 16, 129: 20}
    assert {w: element_bytes(w) for w in table} == table


def test_wrapper_maps_ports_and_starts_in_reset():
    combo = Combo()
    silence_unused(combo)
    ports = component_ports(combo)
    ins = [p for p in ports.values() if p.is_input]
    outs = [p for p in ports.values() if not p.is_input]
    name, text = bulk_wrapper("top", ins, outs, has_clk=True, has_rst=True)
    assert name == "top_archsim_bulk"
    assert ".inp__data(in8)" in text and "input [3:0] in8;" in text
    assert ".wq(out3)" in text and "output [99:0] out3;" in text
    assert "reg rst_q = 1'b1;" in text and ".rst(rst_q)" in text
    _, comb = bulk_wrapper("adder", ins[:1], outs[:1], has_clk=False, has_rst=False)
    assert "clk" not in comb and "rst" not in comb


def test_array_stimulus_takes_the_same_checks_as_lists():
    combo = Combo()
    silence_unused(combo)
    ports = component_ports(combo)
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, 50)
    fast = prepare_stimulus(ports, {"a": a}, ["sum"], None, None).inputs["a"]
    # Two's complement by hand: a negative int8 v is the pattern 256 + v.
    assert fast == [int(v) + 256 if v < 0 else int(v) for v in a]
    bad = a.copy()
    bad[17] = 128
    with pytest.raises(SimulationError, match=r"input value 128 at cycle 17 does not fit port "
                                              r"'a' \(signed, 8 bits: -128..127\)"):
        prepare_stimulus(ports, {"a": bad}, ["sum"], None, None)
    with pytest.raises(SimulationError, match=r"input value -1 at cycle 2 does not fit port "
                                              r"'en' \(unsigned, 1 bits: 0..1\)"):
        prepare_stimulus(ports, {"en": np.array([0, 1, -1])}, ["count"], None, None)


def test_a_bad_result_file_is_a_simulation_error():
    adder = SignedAdder()
    silence_unused(adder)
    ports = component_ports(adder)
    stimulus = prepare_stimulus(ports, {"a": [1, 2], "b": [3, 4]}, None, None, None)
    outputs: list[Port] = [p for p in ports.values() if not p.is_input]
    with pytest.raises(SimulationError, match="'adder' wrote no valid result"):
        _decode(b"", outputs, stimulus, "adder")
    # The right header (magic "BRK1", 2 cycles, 0 ns) but no columns after it.
    header = np.array([0x314B5242, 2, 0], dtype="<u8").tobytes()
    with pytest.raises(SimulationError, match="'adder' wrote a truncated result"):
        _decode(header, outputs, stimulus, "adder")
    # 2 cycles of the 9-bit sum (2-byte elements, padded to 8) and the final value: decodes.
    body = np.array([4, 6, 0, 0, 6, 0, 0, 0], dtype="<u2").tobytes()
    recorded, final, _ = _decode(header + body, outputs, stimulus, "adder")
    assert recorded["sum"].tolist() == [4, 6] and final == {"sum": 6}


# --- Verilator ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_native_matches_closed_forms_pysim_and_cocotb(rtl_cache):
    rng = np.random.default_rng(11)
    stim = combo_stimulus(rng, N)
    native = simulate(Combo(), stim, backend="native")
    assert native.backend == "native" and native.cycles == N and not native.build_cached
    check_combo(stim, native.outputs)  # wide ports (100, 70 bits) included
    by_pysim = simulate(Combo(), stim)
    by_cocotb = simulate(Combo(), stim, backend="cocotb")
    for other in (by_pysim, by_cocotb):
        assert list(native.outputs) == list(other.outputs)
        for name, values in other.outputs.items():
            assert native.outputs[name].dtype == values.dtype, name
            assert native.outputs[name].tolist() == values.tolist(), name
        assert native.final_outputs == other.final_outputs
    assert native.wall_time_s > 0 and native.total_time_s >= native.wall_time_s

    again = simulate(Combo(), stim, ["count"], backend="native")
    assert again.build_cached and again.build_time_s == 0.0
    assert again.outputs["count"].tolist() == native.outputs["count"].tolist()


@pytest.mark.slow
def test_native_held_inputs_expected_and_mismatch(rtl_cache):
    en = np.ones(40, dtype=np.int64)
    held = simulate(Combo(), {"en": [1]}, ["count"], cycles=40, backend="native")
    np.testing.assert_array_equal(held.outputs["count"], counter_expected(en, init=3))
    # Nothing recorded (free-running): the final state is still reported, count = 3 + 40.
    free = simulate(Combo(), {"en": [1]}, [], cycles=40, backend="native")
    assert free.outputs == {} and free.final_outputs["count"] == 43
    want = counter_expected(en, init=3).tolist()
    simulate(Combo(), {"en": en}, expected={"count": [None] * 5 + want[5:]}, backend="native")
    want[23] += 1
    with pytest.raises(SimulationError, match="output mismatch") as info:
        simulate(Combo(), {"en": en}, expected={"count": want}, backend="native")
    assert (info.value.signal, info.value.cycle) == ("count", 23)


@pytest.mark.slow
def test_native_without_inputs_and_without_clock(rtl_cache):
    for backend in ("native", "pysim"):
        free = simulate(FreeCounters(), cycles=N, backend=backend)
        np.testing.assert_array_equal(free.outputs["count"], np.arange(N))
        np.testing.assert_array_equal(free.outputs["free"], np.arange(N) + 1)
        np.testing.assert_array_equal(free.outputs["void_out"], np.zeros(N))
        assert free.final_outputs["void_out"] == 0 and free.final_outputs["count"] == N
    rng = np.random.default_rng(5)
    a, b = rng.integers(-128, 128, N), rng.integers(-128, 128, N)
    adder = simulate(SignedAdder(), {"a": a, "b": b}, backend="native")  # combinational only
    np.testing.assert_array_equal(adder.outputs["sum"], a + b)
    assert adder.final_outputs["sum"] == int(a[-1] + b[-1])


@pytest.mark.slow
def test_native_systolic_array_matches_numpy_pysim_and_cocotb(rtl_cache):
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (6, 5))
    b = rng.integers(-128, 128, (5, 7))
    run = run_matmul(a, b, rows=4, cols=4, dataflow="os", backend="native")
    np.testing.assert_array_equal(run.product, a @ b)
    assert run.cycles == run.predicted_cycles

    # Random vectors on every input port, every output recorded every cycle.
    array = SystolicArray(rows=4, cols=4, dataflow="os")
    stim = {}
    for name, port in component_ports(array).items():
        if port.is_input:
            half = 1 << (port.width - 1)
            stim[name] = (rng.integers(0, 2, N) if port.width == 1
                          else rng.integers(-half, half, N))
    native = simulate(array, stim, backend="native", name="sa4")
    for backend in ("pysim", "cocotb"):
        other = simulate(SystolicArray(rows=4, cols=4, dataflow="os"), stim, backend=backend,
                         name="sa4")
        for name, values in other.outputs.items():
            assert native.outputs[name].tolist() == values.tolist(), (backend, name)
        assert native.final_outputs == other.final_outputs, backend
