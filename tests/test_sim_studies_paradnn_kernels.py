"""ParaDnn kernel model: kernel times and footprints against hand-computed closed forms."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from archsim.compilers.graph.paradnn import paradnn_model
from archsim.errors import ConfigError
from archsim.sim.studies.paradnn.kernels import (
    GIB,
    KernelPlatform,
    kernel_platforms,
    op_time,
    step_time,
    time_model,
    training_footprint_bytes,
)
from archsim.sim.studies.paradnn.platforms import Platform

_FAM16 = {"fc": "bf16", "cnn": "bf16", "rnn": "bf16"}


def _toy(**kw: object) -> KernelPlatform:
    """One device, 1 GFLOP/s, 100 MB/s, 1 us per kernel, TPU-like padding."""
    base = dict(roofline=Platform(name="toy", peak_flops_per_s={"bf16": 1e9},
                                  mem_bw_bytes_per_s=1e8, dtype_by_family=_FAM16,
                                  source="test"),
                devices=1, compute_efficiency=1.0, bandwidth_efficiency=1.0,
                kernel_overhead_s=1e-6, step_overhead_s=1e-5, row_multiple=8, min_rows=128,
                col_multiple=128, fused_kinds=frozenset({"activation"}),
                memory_capacity_bytes=1e6, recurrent_weights_cached=False)
    base.update(kw)
    return KernelPlatform(**base)  # type: ignore[arg-type]


def _fc() -> list:
    return list(paradnn_model("fc", layers=1, nodes=100, input_size=50, output_size=10,
                              batch=16, dtype="bf16"))


def test_matmul_kernel_padded_to_tiles() -> None:
    fc0 = _fc()[0]
    t = op_time(fc0, _toy(), "fc")
    # 16 x 50 @ 50 x 100: every dim padded to 128 (rows: at least 128), 2 FLOP per MAC.
    flops = 2 * 128 * 128 * 128
    byts = 2 * (16 * 50 + 50 * 100 + 100 + 16 * 100)  # x, W, bias, y in bf16
    assert t.padded_flops == flops
    assert t.compute_s == pytest.approx(flops / 1e9)
    assert t.memory_s == pytest.approx(byts / 1e8)
    assert t.time_s == pytest.approx(max(flops / 1e9, byts / 1e8) + 1e-6)
    assert t.kernels == 1
    # Without padding the same kernel is memory-bound: 15000 B / 1e8 > 160000 / 1e9.
    flat = op_time(fc0, _toy(row_multiple=1, min_rows=1, col_multiple=1), "fc")
    assert flat.time_s == pytest.approx(max(2 * 16 * 50 * 100 / 1e9, byts / 1e8) + 1e-6)


def test_fused_activation_has_no_overhead() -> None:
    relu = _fc()[1]
    t = op_time(relu, _toy(), "fc")
    assert t.kernels == 0 and t.overhead_s == 0
    assert t.time_s == pytest.approx(max(16 * 100 / 1e9, 2 * 2 * 16 * 100 / 1e8))


def test_recurrent_steps_are_sequential_kernels() -> None:
    g = paradnn_model("rnn", cell="rnn", layers=1, max_length=4, vocab_size=3,
                      embedding_size=20, batch=8, dtype="bf16")
    cell = g["cell_0"]
    # Per step: [8 x (20 + 20)] @ [(20 + 20) x 20] -> padded 128^3; plus 8 x 20 tanh.
    step_flops = 2 * 128 ** 3 + 8 * 20
    weights = 2 * (20 * 20 + 20 * 20 + 20)
    acts = 2 * (8 * 20 + 8 * 20)  # one step's x_t in and h_t out
    per_step = max(step_flops / 1e9, (weights + acts) / 1e8) + 1e-6
    t = op_time(cell, _toy(), "rnn")
    assert t.kernels == 4
    assert t.time_s == pytest.approx(4 * per_step)
    cached = op_time(cell, _toy(recurrent_weights_cached=True), "rnn")
    assert cached.memory_s == pytest.approx(4 * (weights / 4 + acts) / 1e8)


def test_step_time_backward_factor_and_step_overhead() -> None:
    ops = _fc()
    plat = _toy()
    one = sum(op_time(op, plat, "fc").time_s for op in ops)
    st = step_time(ops, plat, "fc", backward_factor=3.0)
    assert st.time_s == pytest.approx(3 * one + 1e-5)
    assert st.kernels == 6  # two matmuls (the ReLU is fused), three times
    with pytest.raises(ConfigError, match="backward_factor"):
        step_time(ops, plat, "fc", backward_factor=0.5)


def test_training_footprint_closed_form() -> None:
    g = paradnn_model("fc", layers=1, nodes=100, input_size=50, output_size=10, batch=16,
                      dtype="bf16")
    params = 50 * 100 + 100 + 100 * 10 + 10
    outputs = 2 * (16 * 100 + 16 * 100 + 16 * 10)
    assert training_footprint_bytes(g) == 12 * params + outputs


def test_tpu_splits_batch_and_largest_fc_fits_only_on_cpu() -> None:
    plats = kernel_platforms()
    by = {t.platform: t for t in time_model(
        "fc", {"layers": 128, "nodes": 8192, "input_size": 2000, "output_size": 1000,
               "batch": 64}, plats)}
    # 128 x 8192^2 weights alone need > 100 GB at 12 B/parameter.
    params = 2000 * 8192 + 127 * 8192 ** 2 + 8192 * 1000
    assert by["tpu-v3"].footprint_bytes > 12 * params > 16 * GIB
    assert [p for p, t in by.items() if t.fits] == ["skylake"]
    # A TPU core sees batch 64 / 8 = 8: its activations are 1/8 of V100's.
    small = {t.platform: t for t in time_model(
        "fc", {"layers": 4, "nodes": 256, "input_size": 2000, "output_size": 1000,
               "batch": 64}, plats)}
    p_small = 2000 * 256 + 256 + 3 * (256 * 256 + 256) + 256 * 1000 + 1000
    act_v100 = small["v100"].footprint_bytes - 12 * p_small
    act_tpu = small["tpu-v3"].footprint_bytes - 12 * p_small
    assert act_v100 == pytest.approx(2 * 8 * act_tpu)  # fp32 on V100, bf16 on TPU
    assert all(t.method == "training_graph" for t in small.values())


def test_rnn_trains_through_its_bptt_graph() -> None:
    ts = time_model("rnn", {"cell": "lstm", "layers": 1, "max_length": 10, "vocab_size": 5,
                            "embedding_size": 100, "batch": 64}, kernel_platforms())
    v100 = next(t for t in ts if t.platform == "v100")
    g = paradnn_model("rnn", cell="lstm", layers=1, max_length=10, vocab_size=5,
                      embedding_size=100, batch=64, dtype="fp16")
    assert v100.method == "training_graph"
    # BPTT: data + weight gradients are 2x the forward's GEMMs, plus point-wise backward
    # and SGD updates, so a training step is a little over 3x the forward.
    assert 3.0 < v100.train_flops / g.total_flops < 3.1
    # More kernels than the forward's 10 step kernels + logits matmul + embedding, each
    # priced at V100's 5 us launch.
    assert v100.step.kernels > 12
    assert v100.step.overhead_s == pytest.approx(v100.step.kernels * 5e-6)


def test_kernel_platform_validates() -> None:
    with pytest.raises(ConfigError, match="devices"):
        _toy(devices=0)
    with pytest.raises(ConfigError, match="compute_efficiency"):
        _toy(compute_efficiency=1.5)
    with pytest.raises(ConfigError, match="kernel_overhead_s"):
        _toy(kernel_overhead_s=math.inf)
    with pytest.raises(ConfigError, match="batch"):
        time_model("fc", {"layers": 1, "nodes": 8, "input_size": 8, "output_size": 8,
                          "batch": 12}, [replace(_toy(), devices=8)])
