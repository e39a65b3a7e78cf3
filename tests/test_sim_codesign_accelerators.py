"""AutoPilot's accelerator space: points generated from the DSL, priced on CNN graphs.

Expected values are worked by hand here: the GEMM unit's fold formula, tile counts of the
output-stationary array, SRAM bits times the memory table's per-bit figures; the slow tests
measure the RTL (Verilator) and synthesize (Yosys)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph
from archsim.compilers.graph.cnn import NetBuilder
from archsim.dsl.examples.uav_npu import uav_tile_program
from archsim.errors import ConfigError
from archsim.loading import load_object
from archsim.sim.codesign import (
    AcceleratorPoint,
    BoardOverhead,
    logic_area_mm2,
    price_point,
    tile_report_figures,
)

# 45 nm figures of hw/data/memory_technologies.toml (sram): 50 pW/bit leakage (assumed
# there), 0.346 um^2 bit cell at 50 % array efficiency.
SRAM_LEAK_W_PER_BIT = 5.0e-11
SRAM_UM2_PER_BIT = 0.346 / 0.5


def _conv_graph() -> WorkloadGraph:
    g = WorkloadGraph("conv")
    NetBuilder(g, TensorSpec("x", (1, 8, 8, 8), "int8")).conv("conv", 16, 3, padding=1)
    return g


def _fc_graph() -> WorkloadGraph:
    g = WorkloadGraph("fc")
    NetBuilder(g, TensorSpec("x", (1, 256), "int8")).fc("fc", 10, bias=False)
    return g


def _dronet_like() -> WorkloadGraph:
    g = WorkloadGraph("dronet-like")
    nb = NetBuilder(g, TensorSpec("img", (1, 1, 32, 32), "int8"))
    for i, c in enumerate([16, 32, 32, 64]):
        nb.conv(f"conv{i}", c, 3, stride=1 if i == 0 else 2, padding=1)
        nb.act(f"relu{i}")
    nb.flatten("flat")
    nb.fc("fc", 2)
    return g


def _gemm_unit_cycles(rows: int, cols: int, m: int, k: int, n: int) -> int:
    """The OS array's fold formula (hw/accel/gemm.py docstring), worked here."""
    folds = (m // rows) * (n // cols)
    return folds * (rows + cols + k - 2) + rows + 2


def test_tile_program_unit_cycles_follow_the_fold_formula():
    point = AcceleratorPoint(rows=4, cols=4)
    assert point.tile == (16, 16, 4)
    npu = point.description()
    report = npu.compile().model(uav_tile_program(npu, m=16, k=16, n=4))
    # 4 folds of 4 + 4 + 16 - 2 cycles, plus rows + 2
    assert report.steps[0].unit_cycles == 4 * 22 + 6 == _gemm_unit_cycles(4, 4, 16, 16, 4)
    assert tile_report_figures(point)[0] == report.cycles


def _ws_unit_cycles(rows: int, cols: int, m: int, k: int, n: int) -> int:
    """SCALE-Sim's WS fold, (k / rows) * (n / cols) folds of 2 rows + cols + m - 2, plus
    the unit's stated overhead of 3 (hw/accel/gemm.py docstring), worked here."""
    return (k // rows) * (n // cols) * (2 * rows + cols + m - 2) + 3


def test_ws_tile_program_unit_cycles_follow_the_ws_fold_formula():
    point = AcceleratorPoint(rows=4, cols=4, dataflow="ws")
    assert point.tile == (16, 16, 4) and point.label.endswith("-ws")
    npu = point.description()
    report = npu.compile().model(uav_tile_program(npu, m=16, k=16, n=4))
    # 4 K tiles x 1 N tile, each 8 + 4 + 16 - 2 = 26 cycles, plus 3
    assert report.steps[0].unit_cycles == 4 * 26 + 3 == _ws_unit_cycles(4, 4, 16, 16, 4)
    assert tile_report_figures(point)[0] == report.cycles
    # a tall tile favours WS: 64 rows of A stream past each weight tile
    tall_ws = AcceleratorPoint(rows=4, cols=4, dataflow="ws", tile_m_folds=16)
    tall_os = AcceleratorPoint(rows=4, cols=4, tile_m_folds=16)
    assert tile_report_figures(tall_ws)[0] < tile_report_figures(tall_os)[0]


@pytest.mark.parametrize(("graph", "tiles"), [
    # conv 8 -> 16 channels, 3x3 pad 1 on 8x8: im2col GEMM 64 x 72 x 16 on a 16x16x4 tile
    (_conv_graph(), math.ceil(64 / 16) * math.ceil(72 / 16) * math.ceil(16 / 4)),
    # FC 256 -> 10 for one sample: 1 x 256 x 10, the single row padded to 16
    (_fc_graph(), 1 * (256 // 16) * math.ceil(10 / 4)),
])
def test_layer_cycles_are_the_hand_counted_tiles(graph, tiles):
    point = AcceleratorPoint(rows=4, cols=4)
    price = price_point(point, graph, synthesize=False)
    assert tiles in (80, 48)
    assert price.compute_cycles == tiles * price.tile_cycles
    assert price.latency_s >= price.compute_cycles / 500e6
    # at least the tiles' MACs at 0.2 + 0.1 pJ (Horowitz, 45 nm int8 mult + int32 add)
    assert price.dynamic_energy_j >= tiles * 16 * 16 * 4 * 0.3e-12


def test_leakage_area_and_board_from_the_buffers_bits():
    point = AcceleratorPoint(rows=4, cols=4, act_kib=16, wgt_kib=8, acc_kib=32)
    price = price_point(point, _conv_graph(), synthesize=False)
    bits = (16 + 8 + 32) * 1024 * 8
    assert price.leakage_energy_j == pytest.approx(bits * SRAM_LEAK_W_PER_BIT
                                                   * price.latency_s, rel=1e-9)
    program_bits = 1024 * 32  # the controller's program memory
    assert price.memory_area_mm2 == pytest.approx((bits + program_bits) * SRAM_UM2_PER_BIT
                                                  * 1e-6, rel=1e-9)
    assert price.logic_area_mm2 == 0.0  # synthesize=False
    power = price.energy_j / price.latency_s
    assert price.average_power_w == pytest.approx(power)
    assert price.board.mass_kg == pytest.approx(0.005 + 0.010 * power)
    assert price.board.battery_power_w == pytest.approx(power / 0.85)
    heavy = price_point(point, _conv_graph(), synthesize=False,
                        board=BoardOverhead(pcb_mass_kg=0.02, regulator_efficiency=0.5))
    assert heavy.board.mass_kg == pytest.approx(0.02 + 0.010 * power)
    assert heavy.board.battery_power_w == pytest.approx(2 * power)


def test_bigger_arrays_take_fewer_cycles_on_a_dronet_like_policy():
    g = _dronet_like()
    cycles = [price_point(AcceleratorPoint(rows=r, cols=r), g, synthesize=False).compute_cycles
              for r in (4, 8, 16)]
    assert cycles[0] > cycles[1] > cycles[2]


def test_the_soc_config_names_a_loadable_description():
    point = AcceleratorPoint(rows=8, cols=4, act_kib=4, wgt_kib=2, acc_kib=8)
    npu = load_object(f"archsim.dsl.examples.uav_npu:DESIGNS.{point.design_name}",
                      field="description")()
    words = {b: s.words for b, s in npu.buffers.items()}
    assert words == {"act": 4096, "wgt": 2048, "acc": 2048}
    assert npu.domains["main"].operating_points["nominal"] == (0.9, 500e6)
    assert npu.compile().units["to_act"].contract.operand("a").lanes == 1  # not square
    with pytest.raises(ConfigError, match="no object"):
        load_object("archsim.dsl.examples.uav_npu:DESIGNS.r8_c8", field="description")
    ws = AcceleratorPoint(rows=4, cols=4, dataflow="ws")
    assert ws.design_name.endswith("_ws")
    loaded = load_object(f"archsim.dsl.examples.uav_npu:DESIGNS.{ws.design_name}",
                         field="description")()
    assert loaded.compile().units["gemm"].dataflow == "ws"


@pytest.mark.parametrize(("kwargs", "field", "message"), [
    ({"rows": 3, "cols": 4}, "rows", "must be one of"),
    ({"rows": 4, "cols": 128}, "cols", "must be one of"),
    ({"rows": 4, "cols": 4, "dataflow": "is"}, "dataflow", "no input-stationary"),
    ({"rows": 4, "cols": 4, "dataflow": "ws", "tile_k": 6}, "tile_k", "multiple of rows"),
    ({"rows": 4, "cols": 4, "act_kib": 0}, "act_kib", "positive int"),
    ({"rows": 4, "cols": 4, "acc_kib": 512}, "acc_kib", "at most 256 KiB"),
    ({"rows": 4, "cols": 4, "wgt_kib": 128}, "wgt_kib", "at most 64 KiB"),
    ({"rows": 32, "cols": 32, "act_kib": 1}, "act_kib", "less than"),
    ({"rows": 4, "cols": 4, "clock_hz": 5e5}, "clock_hz", "1e6..2e9"),
    ({"rows": 4, "cols": 4, "clock_hz": 5e8 + 0.5}, "clock_hz", "whole number"),
    ({"rows": 4, "cols": 4, "tile_k": 0}, "tile_k", "positive int"),
])
def test_point_errors_name_the_field(kwargs, field, message):
    with pytest.raises(ConfigError, match=message) as exc:
        AcceleratorPoint(**kwargs)
    assert exc.value.field == field


def test_price_and_board_errors_name_the_field():
    with pytest.raises(ConfigError) as exc:
        price_point((4, 4), _conv_graph())  # type: ignore[arg-type]
    assert exc.value.field == "point"
    with pytest.raises(ConfigError) as exc:
        BoardOverhead(regulator_efficiency=1.5)
    assert exc.value.field == "regulator_efficiency"


@pytest.mark.slow
@pytest.mark.parametrize(("rows", "cols", "dataflow"),
                         [(2, 2, "os"), (4, 4, "os"), (4, 2, "os"), (2, 2, "ws"), (4, 4, "ws")])
def test_tile_model_cycles_equal_verilator_cycles(rows, cols, dataflow):
    """One GEMM tile on the RTL: C = A-tile @ W + C0 (numpy) and the CYCLES count equals
    the model view's, for small arrays (one not square: a one-lane vector unit) of both
    dataflows."""
    point = AcceleratorPoint(rows=rows, cols=cols, act_kib=1, wgt_kib=1, acc_kib=1,
                             tile_m_folds=2, tile_k=8, dataflow=dataflow)
    m, k, n = point.tile
    npu = point.description()
    compiled = npu.compile()
    program = uav_tile_program(npu, m=m, k=k, n=n)
    rng = np.random.default_rng(rows)
    a = rng.integers(-128, 128, (m, k))
    w = rng.integers(-128, 128, (k, n))
    c0 = rng.integers(-1000, 1000, (m, n))
    # OS stores the activations transposed (k x m), WS row-major (m x k)
    stored = a.T if dataflow == "os" else a
    words = {"act": stored.ravel() & 0xFF, "wgt": w.ravel() & 0xFF,
             "acc": c0.ravel() & 0xFFFFFFFF}
    run = compiled.simulate(program, words, backend="verilator")
    got = run.buffers["acc"][:m * n].astype(np.int64)
    got = np.where(got >= 1 << 31, got - (1 << 32), got).reshape(m, n)
    np.testing.assert_array_equal(got, a @ w + c0)
    assert run.cycles == compiled.model(program).cycles == tile_report_figures(point)[0]
    if dataflow == "ws":
        assert run.cycles - compiled.model(program).steps[0].unit_cycles \
            == tile_report_figures(AcceleratorPoint(
                rows=rows, cols=cols, act_kib=1, wgt_kib=1, acc_kib=1, tile_m_folds=2,
                tile_k=8))[0] - _gemm_unit_cycles(rows, cols, m, k, n)  # same controller


@pytest.mark.slow
def test_synthesis_prices_the_ws_array():
    """Yosys synthesizes the weight-stationary accelerator: more cells than nothing, and not
    the OS design's count (its own controller, weight registers and output skew buffer)."""
    os_area, ws_area = logic_area_mm2(2, 2), logic_area_mm2(2, 2, dataflow="ws")
    assert ws_area > 0 and ws_area != os_area
    price = price_point(AcceleratorPoint(rows=2, cols=2, dataflow="ws"), _fc_graph())
    assert price.logic_area_mm2 == ws_area


@pytest.mark.slow
def test_a_bigger_array_has_more_logic_and_buffers_only_change_macros():
    small, big = logic_area_mm2(2, 2), logic_area_mm2(4, 4)
    assert 0 < small < big
    g = _fc_graph()
    a = price_point(AcceleratorPoint(rows=2, cols=2, act_kib=4), g)
    b = price_point(AcceleratorPoint(rows=2, cols=2, act_kib=8), g)
    assert a.logic_area_mm2 == b.logic_area_mm2 == small
    assert b.memory_area_mm2 - a.memory_area_mm2 == pytest.approx(
        4 * 1024 * 8 * SRAM_UM2_PER_BIT * 1e-6, rel=1e-9)
