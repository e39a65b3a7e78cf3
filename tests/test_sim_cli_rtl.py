"""Tests of ``archsim rtl ...`` and ``archsim demo``."""

import json
import re

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.cli import main
from archsim.sim.cli.rtl import load_component, parse_params, parse_value, run_demo

COUNTER = "archsim.tests.rtl_designs:Counter"

# A constructor that raises leaves a half-made component behind, which Amaranth reports as
# "created but never used" whenever it is collected.
pytestmark = pytest.mark.filterwarnings("ignore:.*created but never used")


@pytest.fixture(scope="module")
def rtl_cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("archsim-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARCHSIM_CACHE", str(path))
        yield path


def test_parse_values_and_params():
    assert parse_value("4") == 4 and parse_value("0x10") == 16 and parse_value("-3") == -3
    assert parse_value("1.5") == 1.5 and parse_value("true") is True
    assert parse_value("False") is False and parse_value("os") == "os"
    assert parse_params(["rows=4", "dataflow=ws", "signed=false"]) == {
        "rows": 4, "dataflow": "ws", "signed": False}
    with pytest.raises(ConfigError, match=r"field '--param': parameter 'rows' is not of the "
                                          r"form name=value"):
        parse_params(["rows"])


def test_load_component_errors():
    with pytest.raises(ConfigError, match=r"'Counter' is not of the form MODULE:OBJECT"):
        load_component("Counter")
    with pytest.raises(ConfigError, match=r"cannot import module 'archsim.nope'"):
        load_component("archsim.nope:Thing")
    with pytest.raises(ConfigError, match=r"module 'archsim.tests.rtl_designs' has no object "
                                          r"'Counterr'"):
        load_component("archsim.tests.rtl_designs:Counterr")
    with pytest.raises(ConfigError, match=r"Counter rejected width=0: Width must be a positive"):
        load_component(COUNTER, {"width": 0})
    with pytest.raises(ConfigError, match=r"rejected depth=3: .*unexpected keyword argument"):
        load_component(COUNTER, {"depth": 3})
    with pytest.raises(ConfigError, match=r"returned list, not an amaranth.lib.wiring.Component"):
        load_component("builtins:list")


def test_verilog_to_stdout_and_file(capsys, tmp_path):
    assert main(["rtl", "verilog", COUNTER, "--param", "width=5"]) == 0
    text = capsys.readouterr().out
    assert "module Counter(" in text and "[4:0] count" in text
    out = tmp_path / "cnt.v"
    assert main(["rtl", "verilog", COUNTER, "-o", str(out), "--name", "cnt"]) == 0
    assert "module cnt(" in out.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["cnt.v"]


def test_verilog_of_the_systolic_array(tmp_path):
    out = tmp_path / "sa.v"
    assert main(["rtl", "verilog", "archsim.hw.systolic:SystolicArray", "--param", "rows=4",
                 "--param", "cols=4", "-o", str(out)]) == 0
    text = out.read_text()
    assert "module SystolicArray(" in text
    # One operand port per row (a__i) and per column (b__j) of the 4x4 array.
    assert "a__3" in text and "b__3" in text and "a__4" not in text and "b__4" not in text


def test_verilog_errors_exit_2(capsys):
    assert main(["rtl", "verilog", "archsim.nope:Thing"]) == 2
    assert "cannot import module 'archsim.nope'" in capsys.readouterr().err
    assert main(["rtl", "verilog", COUNTER, "--param", "width=-1"]) == 2
    assert "rejected width=-1" in capsys.readouterr().err
    assert main(["rtl", "verilog", COUNTER, "--param", "=3"]) == 2
    assert "'=3' is not of the form name=value" in capsys.readouterr().err


def test_sim_command_json_and_npz(capsys, tmp_path):
    en = np.array([1, 1, 0, 1, 1, 0, 1])
    vectors = tmp_path / "v.json"
    vectors.write_text(json.dumps({"en": en.tolist()}))
    out = tmp_path / "out.csv"
    assert main(["rtl", "sim", COUNTER, "-i", str(vectors), "-o", str(out)]) == 0
    lines = out.read_text().split()
    expected = np.concatenate([[0], np.cumsum(en)[:-1]])
    assert lines == ["cycle,count"] + [f"{k},{c}" for k, c in enumerate(expected)]
    npz = tmp_path / "v.npz"
    np.savez(npz, en=en)
    assert main(["rtl", "sim", COUNTER, "-i", str(npz), "-p", "width=2"]) == 0
    printed = capsys.readouterr().out
    assert "pysim: 7 cycles" in printed
    bad = tmp_path / "v.txt"
    bad.write_text("en 1")
    assert main(["rtl", "sim", COUNTER, "-i", str(bad)]) == 2
    assert "unsupported input vectors format (allowed: '.json', '.npz')" in capsys.readouterr().err
    vectors.write_text(json.dumps({"enable": [1]}))
    assert main(["rtl", "sim", COUNTER, "-i", str(vectors)]) == 2
    assert "unknown input port 'enable'" in capsys.readouterr().err


@pytest.mark.slow
def test_area_command(capsys):
    assert main(["rtl", "area", COUNTER, "--param", "width=4", "--no-fpga"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"flip-flops\s*│\s*4\s*│", out)  # a 4-bit counter is 4 flip-flops
    assert re.search(r"ASIC area \(nangate45\)\s*│\s*[\d.,]+ µm²", out)
    assert "iCE40" not in out


@pytest.mark.slow
def test_demo_small_array(rtl_cache, capsys):
    figures = run_demo(size=2, seed=3, area=True)
    out = capsys.readouterr().out
    assert "product matches numpy" in out
    # A[4x64] @ B[64x4] on 2x2, output-stationary: ceil(4/2)*ceil(4/2) folds of R+C+T-2 cycles.
    cycles = 2 * 2 * (2 + 2 + 64 - 2)
    assert figures["folds"] == 4 and figures["cycles"] == cycles
    assert re.search(rf"cycles measured\s*│\s*{cycles}\s*│", out)
    assert re.search(r"area \(nangate45\)\s*│\s*[\d.]+ mm²", out)
    assert figures["area_um2"] > 0 and not figures["build_cached"]
    # The command itself, now on the cached build, without synthesis.
    assert main(["demo", "--size", "2", "--seed", "3", "--no-area"]) == 0
    out = capsys.readouterr().out
    assert "product matches numpy" in out and re.search(r"Verilator build\s*│\s*cached", out)
    assert "area" not in out
