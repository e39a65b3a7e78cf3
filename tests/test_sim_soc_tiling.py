"""SMAUG-style tiling: legal, maximal (against exhaustive enumeration) and work-preserving."""

from __future__ import annotations

import itertools
import math

import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph, conv2d, linear
from archsim.compilers.graph.cnn import elementwise
from archsim.errors import ConfigError
from archsim.sim.soc import ScratchpadConfig, best_tiling, plan_operator


def _exhaustive(rows, red, cols, in_cap, w_cap, out_cap):
    """Best total tile size over every (r, c, k) in the full box (no candidate pruning)."""
    best = -1
    for r, c, k in itertools.product(range(1, rows + 1), range(1, red + 1), range(1, cols + 1)):
        i, w, o = r * c, c * k, r * k
        if i <= in_cap and w <= w_cap and o <= out_cap:
            best = max(best, i + w + o)
    return best


@pytest.mark.parametrize("rows,red,cols,caps", [
    (7, 9, 5, (20, 30, 12)), (12, 5, 13, (40, 40, 40)), (3, 3, 3, (100, 100, 100)),
    (10, 10, 10, (9, 9, 9)),
])
def test_best_matmul_tiling_is_the_exhaustive_maximum(rows, red, cols, caps):
    t = best_tiling(rows=rows, reduction=red, cols=cols, in_per_row=1, in_fixed_rows=1,
                    w_per=1, out_per_row=1, in_cap=caps[0], w_cap=caps[1], out_cap=caps[2])
    assert t is not None
    assert t.rows * t.reduction <= caps[0]
    assert t.reduction * t.cols <= caps[1]
    assert t.rows * t.cols <= caps[2]
    assert t.total_tile_elements == _exhaustive(rows, red, cols, *caps)
    assert (t.n_rows, t.n_reduction, t.n_cols) == (
        math.ceil(rows / t.rows), math.ceil(red / t.reduction), math.ceil(cols / t.cols))


def test_no_legal_tiling_is_none_and_error():
    assert best_tiling(rows=4, reduction=4, cols=4, in_per_row=10, in_fixed_rows=3, w_per=1,
                       out_per_row=1, in_cap=5, w_cap=100, out_cap=100) is None
    x = TensorSpec("x", (1, 4, 8, 8), "fp16")
    op = conv2d("c", x, out_channels=4, kernel=3, padding=1)
    with pytest.raises(ConfigError, match="no tiling that fits") as exc:
        plan_operator(op, ScratchpadConfig(input_elements=8))
    assert exc.value.field == "accelerators.scratchpads"


def test_conv_plan_preserves_macs_and_fits():
    x = TensorSpec("x", (1, 64, 56, 56), "fp16")
    op = conv2d("c", x, out_channels=128, kernel=3, padding=1)
    sp = ScratchpadConfig()
    plan = plan_operator(op, sp)
    assert sum(st.macs for j in plan.jobs for st in j.steps) == op.attrs["macs"]
    for job in plan.jobs:
        for st in job.steps:
            assert st.input_bytes <= sp.input_elements * sp.element_bytes
            assert st.weight_bytes <= sp.weight_elements * sp.element_bytes
        assert job.output_bytes <= sp.output_elements * sp.element_bytes
    # Outputs are written exactly once: the op's output tensor.
    assert sum(j.output_bytes for j in plan.jobs) == op.output_bytes
    # The CPU tiles every weight exactly once.
    wkeys = {st.weight_key: st.weight_bytes for j in plan.jobs for st in j.steps}
    assert sum(wkeys.values()) == op.weight_bytes


def test_matmul_plan_block_counts():
    x = TensorSpec("x", (300, 500), "fp16")
    op = linear("fc", x, out_features=700, bias=False)
    sp = ScratchpadConfig(input_elements=4096, weight_elements=4096, output_elements=4096)
    plan = plan_operator(op, sp)
    t = plan.tiling
    assert len(plan.jobs) == math.ceil(300 / t.rows) * math.ceil(700 / t.cols)
    assert all(len(j.steps) == math.ceil(500 / t.reduction) for j in plan.jobs)
    assert sum(st.macs for j in plan.jobs for st in j.steps) == 300 * 500 * 700


def test_vector_and_cpu_plans():
    g = WorkloadGraph("v")
    a = TensorSpec("a", (1, 10, 100, 100), "fp16")
    b = TensorSpec("b", (1, 10, 100, 100), "fp16")
    op = g.add(elementwise("add", a, b))
    sp = ScratchpadConfig(input_elements=1000, weight_elements=1000, output_elements=1000)
    plan = plan_operator(op, sp)
    assert len(plan.jobs) == math.ceil(100_000 / 1000)
    assert sum(st.input_bytes + st.weight_bytes for j in plan.jobs for st in j.steps) == \
        2 * 100_000 * 2


def test_attention_plan_is_two_gemms_per_head():
    from archsim.compilers.graph import build_workload

    op = next(o for o in build_workload("minilm-l6") if o.kind == "attention")
    a = op.attrs
    plan = plan_operator(op, ScratchpadConfig())
    # Q K^T and P V per (batch, head): 2 * q_len * kv_len * head_dim MACs each head.
    macs = sum(st.macs for j in plan.jobs for st in j.steps)
    assert macs == 2 * a["batch"] * a["heads"] * a["q_len"] * a["kv_len"] * a["head_dim"]
    assert 2 * macs == op.flops
    # Every head has its own K and V: no B operand is shared between heads.
    b_keys = {st.weight_key for j in plan.jobs for st in j.steps}
    assert sum(bytes_ for bytes_ in {st.weight_key: st.weight_bytes for j in plan.jobs
                                     for st in j.steps}.values()) == \
        2 * a["batch"] * a["heads"] * a["kv_len"] * a["head_dim"] * 2
    assert len(b_keys) >= 2 * a["heads"]


def test_conv_with_unequal_stride_and_dilation_from_onnx_is_planned():
    from onnx import TensorProto, helper

    from archsim.compilers.graph import from_onnx

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor("w", TensorProto.FLOAT, [16, 8, 3, 3], [0.0] * (16 * 8 * 9))
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[2, 1],
                            dilations=[1, 2], pads=[1, 1, 1, 1])
    model = helper.make_model(helper.make_graph([node], "g", [x], [y], [w]))
    op = from_onnx(model)["conv"]
    assert (op.attrs["stride"], op.attrs["dilation"]) == ((2, 1), (1, 2))
    # Output 16 x 30: rows (32 + 2 - 3) // 2 + 1, columns (32 + 2 - 5) // 1 + 1.
    assert op.attrs["macs"] == 16 * 30 * 16 * 8 * 9
    plan = plan_operator(op, ScratchpadConfig())
    assert sum(st.macs for j in plan.jobs for st in j.steps) == op.attrs["macs"]
