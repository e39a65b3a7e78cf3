"""Tests of archsim.sim.rtl: pysim and Verilator against closed forms and each other."""

import multiprocessing
import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from archsim.errors import ConfigError, SimulationError, ToolchainError
from archsim.sim.rtl import SimulationResult, _toolchain, _verilator, simulate, to_verilog
from archsim.tests.rtl_designs import (
    Accumulator,
    Combo,
    Counter,
    Nested,
    SignedAdder,
    WideXor,
    simulate_in_subprocess,
)

N = 200  # cycles of the random tests


@pytest.fixture(scope="module")
def rtl_cache(tmp_path_factory):
    """One ARCHSIM_CACHE for this module's Verilator builds (caching itself is tested apart)."""
    path = tmp_path_factory.mktemp("archsim-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARCHSIM_CACHE", str(path))
        yield path


# --- closed forms, computed with numpy from the designs' specifications ------------------------

def counter_expected(en: np.ndarray, *, width: int = 8, init: int = 0) -> np.ndarray:
    """count[k] = init + sum(en[:k]) mod 2**width (registered: sees cycles before k)."""
    before = np.concatenate([[0], np.cumsum(en)[:-1]])
    return (init + before) % (1 << width)


def accumulator_expected(x: np.ndarray, en: np.ndarray, clear: np.ndarray) -> np.ndarray:
    """acc[k]: the 16-bit wrapped sum of x[j] over enabled j since the last clear before k."""
    out = np.zeros(len(x), dtype=np.int64)
    total = 0
    for k in range(len(x)):
        out[k] = total
        if clear[k]:
            total = 0
        elif en[k]:
            total = ((total + int(x[k]) + 2**15) % 2**16) - 2**15
    return out


def combo_stimulus(rng: np.random.Generator, n: int) -> dict[str, np.ndarray | list[int]]:
    return {
        "en": rng.integers(0, 2, n),
        "a": rng.integers(-128, 128, n),
        "b": rng.integers(-128, 128, n),
        "x": rng.integers(-128, 128, n),
        "acc_en": rng.integers(0, 2, n),
        "clear": (rng.random(n) < 0.05).astype(int),
        "wa": [int(hi) << 38 | int(lo)
               for hi, lo in zip(rng.integers(0, 2**62, n), rng.integers(0, 2**38, n), strict=True)],
        "wb": [int(v) << 37 | 12345 for v in rng.integers(0, 2**62, n)],
        "inp__data": rng.integers(0, 16, n),
        "inp__valid": rng.integers(0, 2, n),
    }


def check_combo(stim, outputs) -> None:
    np.testing.assert_array_equal(outputs["count"], counter_expected(stim["en"], init=3))
    np.testing.assert_array_equal(outputs["sum"], stim["a"] + stim["b"])
    np.testing.assert_array_equal(outputs["acc"],
                                  accumulator_expected(stim["x"], stim["acc_en"], stim["clear"]))
    wq = [0] + [a ^ b for a, b in zip(stim["wa"][:-1], stim["wb"][:-1], strict=True)]
    assert outputs["wq"].dtype == object and outputs["wq"].tolist() == wq
    assert outputs["ws"].tolist() == [-(a % 2**69) for a in stim["wa"]]
    np.testing.assert_array_equal(outputs["out__data"],
                                  np.concatenate([[0], (stim["inp__data"][:-1] + 1) % 16]))
    np.testing.assert_array_equal(outputs["out__valid"],
                                  np.concatenate([[0], stim["inp__valid"][:-1]]))


# --- pysim -------------------------------------------------------------------------------------

def test_pysim_counter_signed_adder_accumulator():
    rng = np.random.default_rng(1)
    en = rng.integers(0, 2, N)
    result = simulate(Counter(), {"en": en})
    assert isinstance(result, SimulationResult)
    assert result.backend == "pysim" and result.cycles == N and result.build_time_s == 0.0
    assert not result.build_cached and result.waveform is None
    np.testing.assert_array_equal(result.outputs["count"], counter_expected(en))
    assert result.outputs["count"].dtype == np.int64
    assert result.cycles_per_s > 0

    a, b = rng.integers(-128, 128, N), rng.integers(-128, 128, N)
    np.testing.assert_array_equal(simulate(SignedAdder(), {"a": a, "b": b}).outputs["sum"], a + b)

    x, acc_en, clear = rng.integers(-128, 128, N), rng.integers(0, 2, N), rng.integers(0, 2, N)
    result = simulate(Accumulator(), {"x": x, "en": acc_en, "clear": clear})
    np.testing.assert_array_equal(result.outputs["acc"], accumulator_expected(x, acc_en, clear))


def test_pysim_extremes_and_twos_complement_inputs():
    result = simulate(SignedAdder(), {"a": [-128, 127, -128, 0], "b": [-128, 127, 127, -1]})
    assert result.outputs["sum"].tolist() == [-256, 254, -1, -1]
    # An unsigned port takes 0..2**width - 1 only: a negative value is rejected, naming the
    # range (a 1-bit unsigned port is 0..1; 4-bit unsigned 0..15).
    with pytest.raises(SimulationError, match=r"input value -1 at cycle 0 does not fit port "
                                              r"'inp__valid' \(unsigned, 1 bits: 0\.\.1\)"):
        simulate(Nested(), {"inp__data": [1, 8, 7], "inp__valid": [-1, 1, 0]})
    with pytest.raises(SimulationError, match=r"input value -8 at cycle 1 does not fit port "
                                              r"'inp__data' \(unsigned, 4 bits: 0\.\.15\)"):
        simulate(Nested(), {"inp__data": [1, -8, 7], "inp__valid": [1, 1, 0]})


def test_pysim_reset_and_initial_values():
    # The reset edge puts registers at their initial value before cycle 0.
    result = simulate(Counter(init=250), {"en": [1] * 8})
    assert result.outputs["count"].tolist() == [250, 251, 252, 253, 254, 255, 0, 1]
    assert result.final_outputs == {"count": 2}


def test_pysim_wide_ports_and_nested_names():
    a = [2**99 + 5, 3, 2**100 - 1]
    b = [1, 2**98, 2**100 - 1]
    result = simulate(WideXor(), {"a": a, "b": b})
    assert result.outputs["q"].dtype == object
    assert result.outputs["q"].tolist() == [0, 2**99 + 4, 2**98 + 3]
    assert result.outputs["s"].tolist() == [-5, -3, -(2**69 - 1)]
    result = simulate(Nested(), {"inp__data": [1, 15, 3], "inp__valid": [1, 0, 1]},
                      ["out__data"])
    assert list(result.outputs) == ["out__data"]
    assert result.outputs["out__data"].tolist() == [0, 2, 0]


def test_pysim_held_inputs_and_free_running():
    result = simulate(Counter(width=16), {"en": [1]}, cycles=300)
    np.testing.assert_array_equal(result.outputs["count"], np.arange(300))
    result = simulate(Counter(width=16), {"en": [1]}, [], cycles=1000)
    assert result.outputs == {} and result.cycles == 1000
    assert result.final_outputs == {"count": 1000}
    result = simulate(Counter(), cycles=5)  # undriven inputs stay at their initial value
    assert result.outputs["count"].tolist() == [0] * 5


def test_pysim_expected_passes_with_dont_cares():
    en = [1, 1, 0, 1]
    simulate(Counter(), {"en": en}, expected={"count": [0, None, 2, 2]})
    simulate(Counter(), {"en": en}, expected={"count": None})


def test_pysim_waveform(tmp_path):
    path = tmp_path / "counter.vcd"
    result = simulate(Counter(), {"en": [1, 0, 1]}, waveform=path)
    assert result.waveform == path
    text = path.read_text()
    assert "count" in text and " en " in text
    assert [p.name for p in tmp_path.iterdir()] == ["counter.vcd"]


# --- errors (pysim: the checks are shared by both backends) ------------------------------------

def test_error_unknown_ports():
    with pytest.raises(SimulationError, match=r"unknown input port 'enable' \(the component's "
                                              r"input ports are: en\)") as info:
        simulate(Counter(), {"enable": [1]})
    assert info.value.signal == "enable"
    with pytest.raises(SimulationError, match=r"unknown output port 'cnt' .*: count\)"):
        simulate(Counter(), {"en": [1]}, ["cnt"])
    with pytest.raises(SimulationError, match=r"unknown output port 'en'"):
        simulate(Counter(), {"en": [1]}, expected={"en": [1]})


def test_error_unequal_lengths():
    with pytest.raises(SimulationError, match=r"unequal lengths: port 'b' has 2 values, "
                                              r"port 'a' has 3") as info:
        simulate(SignedAdder(), {"a": [1, 2, 3], "b": [1, 2]})
    assert info.value.signal == "b"
    with pytest.raises(SimulationError, match=r"input port 'a' has 2 values; it needs one per "
                                              r"cycle \(5\)"):
        simulate(SignedAdder(), {"a": [1, 2]}, cycles=5)
    with pytest.raises(SimulationError, match=r"cycles must be given"):
        simulate(Counter())
    with pytest.raises(SimulationError, match=r"expected values for port 'count' have length 2"):
        simulate(Counter(), {"en": [1, 1, 1]}, expected={"count": [0, 1]})


def test_error_value_out_of_range():
    with pytest.raises(SimulationError, match=r"input value 128 at cycle 2 does not fit port 'a' "
                                              r"\(signed, 8 bits: -128..127\)") as info:
        simulate(SignedAdder(), {"a": [0, 1, 128], "b": [0, 0, 0]})
    assert (info.value.signal, info.value.cycle) == ("a", 2)
    with pytest.raises(SimulationError, match=r"input value 2 at cycle 0 does not fit port 'en' "
                                              r"\(unsigned, 1 bits: 0..1\)"):
        simulate(Counter(), {"en": [2]})
    with pytest.raises(SimulationError, match=r"input value -129 at cycle 1"):
        simulate(SignedAdder(), {"a": [0, -129], "b": [0, 0]})
    with pytest.raises(SimulationError, match=r"input value 1.5 for port 'en' is not an int"):
        simulate(Counter(), {"en": [1.5]})


def test_error_output_mismatch_names_first():
    with pytest.raises(SimulationError) as info:
        simulate(Counter(), {"en": [1, 1, 1, 1]}, expected={"count": [0, 1, 7, 9]})
    err = info.value
    assert (err.signal, err.cycle, err.expected, err.actual) == ("count", 2, 7, 2)
    assert str(err) == "output mismatch (signal 'count', cycle 2, expected 7, actual 2)"
    # Lowest cycle first, then port order: both ports mismatch at cycle 1.
    with pytest.raises(SimulationError) as info:
        simulate(Nested(), {"inp__data": [1, 1], "inp__valid": [1, 1]},
                 expected={"out__valid": [0, 0], "out__data": [0, 5]})
    assert (info.value.signal, info.value.cycle) == ("out__data", 1)
    with pytest.raises(SimulationError) as info:
        simulate(SignedAdder(), {"a": [-5], "b": [0]}, expected={"sum": [5]})
    assert (info.value.expected, info.value.actual) == (5, -5)


def test_error_bad_backend_and_waveform(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown simulation backend 'icarus' "
                                          r"\(allowed: 'cocotb', 'native', 'pysim', 'verilator'\)"):
        simulate(Counter(), {"en": [1]}, backend="icarus")
    with pytest.raises(ConfigError, match=r"pysim backend cannot write waveform 'w.fst' "
                                          r"\(allowed: '.vcd'\)"):
        simulate(Counter(), {"en": [1]}, waveform=tmp_path / "w.fst")
    with pytest.raises(ConfigError, match=r"does not exist"):
        simulate(Counter(), {"en": [1]}, waveform=tmp_path / "missing" / "w.vcd")
    with pytest.raises(TypeError, match=r"must be an amaranth.lib.wiring.Component"):
        simulate(object(), {"en": [1]})


# --- toolchain errors --------------------------------------------------------------------------

def _which_without(*names):
    real = shutil.which

    def which(cmd, *args, **kwargs):
        return None if cmd in names else real(cmd, *args, **kwargs)

    return which


def test_toolchain_no_compiler(monkeypatch, tmp_path):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    monkeypatch.setattr(_toolchain.shutil, "which", _which_without("c++", "g++"))
    with pytest.raises(ToolchainError, match=r"needs a C\+\+ compiler \(c\+\+/g\+\+\), not found "
                                             r"on PATH; install .*apt-get install g\+\+ make perl"):
        simulate(Counter(width=3), {"en": [1]}, backend="verilator")


def test_toolchain_no_make(monkeypatch, tmp_path):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    monkeypatch.setattr(_toolchain.shutil, "which", _which_without("make"))
    with pytest.raises(ToolchainError, match=r"needs make, not found on PATH; install .*make"):
        simulate(Counter(width=3), {"en": [1]}, backend="verilator")


def test_toolchain_no_perl(monkeypatch, tmp_path):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    monkeypatch.setattr(_toolchain.shutil, "which", _which_without("make", "perl"))
    with pytest.raises(ToolchainError, match=r"needs make and perl, not found on PATH; "
                                             r"install .*apt-get install g\+\+ make perl"):
        simulate(Counter(width=3), {"en": [1]}, backend="verilator")


def test_toolchain_no_shared_libpython(monkeypatch, tmp_path):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    real = sysconfig.get_config_var
    monkeypatch.setattr(_toolchain.sysconfig, "get_config_var",
                        lambda name: 0 if name == "Py_ENABLE_SHARED" else real(name))
    monkeypatch.setattr(_toolchain, "find_libpython", lambda: None)
    with pytest.raises(ToolchainError, match=r"has no shared libpython .*--enable-shared.*; "
                                             r"install a Python with a shared libpython"):
        simulate(Counter(width=3), {"en": [1]}, backend="cocotb")


@pytest.mark.slow
def test_verilator_compile_error_quotes_the_line(rtl_cache):
    verilog = ("module top(input wire clk, input wire a, output wire y);\n"
               "  assign y = a;\n"
               "  assign y = a +;  // the broken line\n"
               "endmodule\n")
    with pytest.raises(ToolchainError, match=r"Verilator rejected the Verilog of module 'top' at "
                                             r"line 3: .*\n  3 \| assign y = a \+;  // the broken"):
        _verilator.ensure_build(verilog, toplevel="top")
    # Nothing half-built is left in the cache.
    assert [p for p in (rtl_cache / "verilator").iterdir() if not p.name.endswith(".lock")] == []


# --- Verilator ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_verilator_matches_pysim_and_closed_forms(rtl_cache):
    rng = np.random.default_rng(7)
    stim = combo_stimulus(rng, N)
    by_pysim = simulate(Combo(), stim)
    check_combo(stim, by_pysim.outputs)
    # "verilator" streams the stimulus to a C++ main; "cocotb" is the Python-per-edge flow.
    for backend in ("verilator", "cocotb"):
        by_verilator = simulate(Combo(), stim, backend=backend)
        assert by_verilator.backend == backend and by_verilator.cycles == N
        check_combo(stim, by_verilator.outputs)
        assert list(by_verilator.outputs) == list(by_pysim.outputs)
        for name, values in by_pysim.outputs.items():
            assert by_verilator.outputs[name].dtype == values.dtype
            assert by_verilator.outputs[name].tolist() == values.tolist(), (backend, name)
        assert by_verilator.final_outputs == by_pysim.final_outputs
        assert by_verilator.wall_time_s > 0
        assert by_verilator.total_time_s >= by_verilator.wall_time_s


@pytest.mark.slow
def test_verilator_second_run_is_cached_and_checks(rtl_cache, monkeypatch):
    stim = {"en": [1] * 10 + [0] * 5}
    first = simulate(Combo(), stim, ["count"], backend="cocotb")
    (entry,) = [p for p in (rtl_cache / "verilator").iterdir() if p.is_dir()]
    executable = entry / "top"
    mtime = executable.stat().st_mtime_ns

    def no_build(*args, **kwargs):
        raise AssertionError("the design was rebuilt")

    monkeypatch.setattr(_verilator, "_build_into", no_build)
    second = simulate(Combo(), stim, ["count"], backend="cocotb")
    assert second.build_cached and second.build_time_s == 0.0
    assert executable.stat().st_mtime_ns == mtime
    assert second.outputs["count"].tolist() == first.outputs["count"].tolist()
    assert second.outputs["count"].tolist() == counter_expected(np.array(stim["en"]),
                                                                init=3).tolist()

    # Reset, held inputs, free-running and the mismatch error, on the same cached build.
    result = simulate(Combo(), {"en": [1]}, [], cycles=1000, backend="cocotb")
    assert result.outputs == {} and result.cycles == 1000
    assert result.final_outputs["count"] == (3 + 1000) % 256
    assert result.final_outputs == simulate(Combo(), {"en": [1]}, [], cycles=1000).final_outputs
    with pytest.raises(SimulationError) as info:
        simulate(Combo(), {"en": [1, 1, 1], "a": [1, 2, 3]}, ["sum"], backend="cocotb",
                 expected={"count": [3, 4, 6], "sum": [1, 2, 3]})
    err = info.value
    assert (err.signal, err.cycle, err.expected, err.actual) == ("count", 2, 6, 5)
    assert "output mismatch (signal 'count', cycle 2, expected 6, actual 5)" == str(err)


@pytest.mark.slow
def test_verilator_cache_concurrent_builds(tmp_path, monkeypatch):
    cache = str(tmp_path / "cache")
    # What a build killed half-way leaves behind; the next build of that design clears it.
    key = _verilator._cache_key(to_verilog(Counter(width=5)), "top", None)
    stale = tmp_path / "cache" / "verilator" / f".{key}.tmp-killed"
    stale.mkdir(parents=True)
    (stale / "Vtop.mk").write_text("half")
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        results = pool.map(simulate_in_subprocess, [cache, cache])
    expected = (np.arange(40) % 32).tolist()
    assert [counts for counts, _ in results] == [expected, expected]
    assert sorted(cached for _, cached in results) in ([False, True], [False, False])
    entries = sorted(p.name for p in (Path(cache) / "verilator").iterdir())
    dirs = [name for name in entries if not name.endswith(".lock")]
    assert len(dirs) == 1 and dirs[0] == key  # one entry, no temporary folder
    assert not stale.exists()
    # A third run reuses the entry.
    monkeypatch.setenv("ARCHSIM_CACHE", cache)
    result = simulate(Counter(width=5), {"en": [1] * 40}, backend="cocotb")
    assert result.build_cached and result.outputs["count"].tolist() == expected


@pytest.mark.slow
def test_verilator_waveforms(rtl_cache, tmp_path):
    vcd = tmp_path / "counter.vcd"
    # A waveform sends a "verilator" call to the cocotb flow (the streaming build traces
    # nothing), and the result says so.
    result = simulate(Counter(), {"en": [1, 0, 1, 1]}, backend="verilator", waveform=vcd)
    assert result.waveform == vcd and result.outputs["count"].tolist() == [0, 1, 1, 2]
    assert result.backend == "cocotb"
    text = vcd.read_text()
    assert "$var wire 8" in text and " count " in text and " en " in text
    fst = tmp_path / "counter.fst"
    toolchain = _toolchain.find_toolchain()
    try:
        _toolchain.check_fst_support(toolchain)
    except ToolchainError:
        with pytest.raises(ToolchainError, match=r"FST waveforms need the C headers .*lz4.h.*; "
                                                 r"install liblz4-dev"):
            simulate(Counter(), {"en": [1, 0, 1, 1]}, backend="verilator", waveform=fst)
    else:
        simulate(Counter(), {"en": [1, 0, 1, 1]}, backend="verilator", waveform=fst)
        assert fst.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) in (["counter.vcd"],
                                                          ["counter.fst", "counter.vcd"])


def test_to_verilog_is_reexported():
    text = to_verilog(Counter(), name="cnt")
    assert "module cnt(" in text and "count" in text
