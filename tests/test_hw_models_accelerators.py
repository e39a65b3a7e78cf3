"""The tiled accelerator models of hw.models: closed forms, alignment, whole operators."""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph import TensorSpec, build_workload, conv2d, linear
from archsim.errors import ConfigError, SimulationError
from archsim.hw.models import (
    CallableModel,
    CPUModel,
    DSLModel,
    HardwareModel,
    SMVModel,
    SystolicModel,
    Tile,
    untiled_tiles,
)

FC = linear("fc", TensorSpec("x", (40, 70), "fp16"), out_features=33, bias=False)


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_systolic_tile_cost_is_the_fold_formula(dataflow):
    model = SystolicModel(rows=8, cols=4, dataflow=dataflow, frequency_hz=5e8, vector_lanes=4,
                          pipeline_cycles=3)
    assert isinstance(model, HardwareModel)
    m, k, n = 20, 30, 9
    tile = Tile(op=FC, gemm=(m, k, n), conv=(m, k, n, 1), macs=m * k * n, vector_ops=10)
    if dataflow == "os":
        gemm = math.ceil(m / 8) * math.ceil(n / 4) * (8 + 4 + k - 2)
        assert model.tile_align == (8, 1, 4)
    else:
        gemm = math.ceil(k / 8) * math.ceil(n / 4) * (2 * 8 + 4 + m - 2)
        assert model.tile_align == (1, 8, 4)
    cycles = gemm + math.ceil(10 / 4) + 3
    cost = model.operator_cost(tile)
    assert cost.cycles == cycles and cost.latency_s == pytest.approx(cycles / 5e8)
    assert cost.energy_j == pytest.approx((m * k * n * 1.5 + 10 * 0.4) * 1e-12)


def test_untiled_operator_is_one_gemm_per_image_and_group():
    x = TensorSpec("x", (2, 6, 10, 10), "fp16")
    op = conv2d("c", x, out_channels=8, kernel=3, padding=1, groups=2)
    tiles = untiled_tiles(op)
    assert len(tiles) == 2 * 2 and all(t.conv == (100, 3, 4, 9) for t in tiles)
    assert sum(t.macs for t in tiles) == op.flops // 2
    smv = SMVModel(pes=2, macs_per_pe=2)
    # NVDLA-like: ceil(k / pes) * ceil(c / macs_per_pe) * pixels * window per tile.
    assert smv.operator_cost(op).cycles == 4 * (2 * 2 * 100 * 9)


def test_systolic_tiler_blocks_are_array_aligned_on_resnet50():
    from archsim.sim.soc import ScratchpadConfig, plan_operator

    spads = ScratchpadConfig()
    for dataflow in ("os", "ws"):
        model = SystolicModel(rows=32, cols=32, dataflow=dataflow)
        for op in build_workload("resnet50"):
            if op.kind not in ("conv2d", "matmul"):
                continue
            t = plan_operator(op, spads, align=model.tile_align).tiling
            full_n = op.attrs["out_channels"] if op.kind == "conv2d" else op.attrs["n"]
            # Column blocks (the array's columns) are multiples of 32 or the whole dimension
            # (only the last block of a dimension is cut short).
            assert t.cols == full_n or t.cols % 32 == 0, (op.name, t)
            if op.kind == "matmul" and dataflow == "os":
                assert t.rows == op.attrs["m"] or t.rows % 32 == 0, (op.name, t)


def test_callable_and_dsl_models():
    model = CallableModel(cycles=lambda *, m, k, n: m + k + n, cycles_name="sum")
    tile = Tile(op=FC, gemm=(2, 3, 4), macs=24)
    assert model.operator_cost(tile).cycles == 9
    bad = CallableModel(cycles=lambda *, m, k, n: 1.5, cycles_name="float")
    with pytest.raises(SimulationError, match="cycles model 'float' returned 1.5"):
        bad.operator_cost(tile)

    class Compiled:
        invocation_cycles = 50
        invocation_energy_j = 3e-9
        frequency_hz = 4e8

    dsl = DSLModel(design=Compiled(), tile=(4, 4, 4))
    # ceil(6/4) * ceil(10/4) * ceil(5/4) = 12 invocations.
    tile = Tile(op=FC, gemm=(6, 10, 5), macs=300)
    cost = dsl.operator_cost(tile)
    assert cost.cycles == 12 * 50 and cost.latency_s == pytest.approx(600 / 4e8)
    assert cost.energy_j == pytest.approx(12 * 3e-9)
    assert dsl.tile_align == (4, 4, 4) and not dsl.counts_scratchpad_reads


def test_models_validate_their_parameters():
    with pytest.raises(ConfigError) as exc:
        SystolicModel(rows=0)
    assert exc.value.field == "rows"
    with pytest.raises(ConfigError) as exc:
        SystolicModel(dataflow="is")
    assert exc.value.allowed == ["os", "ws"]
    with pytest.raises(ConfigError) as exc:
        SMVModel(frequency_hz=0.0)
    assert exc.value.field == "frequency_hz"
    with pytest.raises(TypeError):
        SystolicModel(16, 16)  # type: ignore[misc]  # keyword-only


def test_cpu_model_closed_form():
    cpu = CPUModel(framework_overhead_s_per_op=50e-6, framework_overhead_s_per_tile=2e-6,
                   data_prep_bytes_per_s_per_thread=1e9, data_prep_threads=4,
                   active_power_w=2.0)
    # A reshape: dispatch, then its 40*70*2 output bytes copied over 4 threads at 1 GB/s each.
    from archsim.compilers.graph.cnn import data_movement

    op = data_movement("r", TensorSpec("x", (40, 70), "fp16"), (70, 40))
    nbytes = 40 * 70 * 2
    cost = cpu.operator_cost(op)
    assert cost.latency_s == pytest.approx(50e-6 + nbytes / 4 / 1e9)
    assert cost.energy_j == pytest.approx(2.0 * (50e-6 + nbytes / 1e9))
    tile = Tile(op=FC, input_bytes=4000.0, weight_bytes=4000.0)
    assert cpu.operator_cost(tile).latency_s == pytest.approx(2e-6 + 8000 / 4 / 1e9)
    with pytest.raises(ConfigError) as exc:
        CPUModel(data_prep_threads=0)
    assert exc.value.field == "data_prep_threads"
