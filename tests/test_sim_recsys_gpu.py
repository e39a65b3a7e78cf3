"""The GPU recommendation model against hand-worked roofline sums."""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph.recsys import get_recsys
from archsim.errors import ConfigError
from archsim.hw.models.gpu import GPURoofline, get_gpu
from archsim.sim.recsys.gpu import GPU_GROUPS, GpuRecModel

SPEC = get_gpu("gtx-1080-ti")


def _model(**kw: object) -> GpuRecModel:
    args: dict[str, object] = dict(
        roofline=GPURoofline(spec=SPEC, dtype="fp32", compute_efficiency=0.5,
                             memory_efficiency=0.5),
        kernel_launch_s=1e-5, gather_efficiency=0.25, pcie_bw_bytes_per_s=1e10,
        copy_latency_s=2e-6)
    args.update(kw)
    return GpuRecModel(**args)  # type: ignore[arg-type]


def test_gtx_1080_ti_datasheet_peaks() -> None:
    # 3584 cores x 2 x 1.582 GHz; 11 Gb/s x 352 bits; PCIe 3.0 x16 after 128b/130b.
    assert SPEC.peak("fp32") == pytest.approx(11.34e12, rel=1e-3)
    assert SPEC.hbm_bw_bytes_per_s == pytest.approx(484e9)
    assert SPEC.pcie_bw_bytes_per_s == pytest.approx(15.75e9, rel=1e-3)
    assert get_gpu("1080ti") is SPEC


def test_rmc1_groups_by_hand() -> None:
    # DLRM-RMC1 (8 tables x 80 lookups, dim 32; bottom 128-64-32, top 288-256-64-1) at
    # batch 4: 18 kernels (8 SLS, 5 FC, 4 ReLU, 1 concat).
    m = _model()
    b = 4
    groups = m.group_s(get_recsys("DLRM-RMC1"), b)
    assert set(groups) == set(GPU_GROUPS)
    assert groups["launch"] == pytest.approx(18 * 1e-5)
    peak, bw = 11.339776e12 * 0.5, 484e9 * 0.5
    # One SLS: rows gathered + int64 indices + int32 lengths + pooled output, / 0.25.
    sls_bytes = b * 80 * 32 * 4 + b * 80 * 8 + b * 4 + b * 32 * 4
    sls_flops = b * 80 * 32
    assert groups["sls"] == pytest.approx(
        8 * max(sls_flops / peak, sls_bytes / 0.25 / bw), rel=1e-9)
    fc_s = 0.0
    for k, n in ((128, 64), (64, 32), (288, 256), (256, 64), (64, 1)):
        flops = 2 * b * k * n
        bytes_moved = 4 * (b * k + k * n + b * n)
        fc_s += max(flops / peak, bytes_moved / bw)
    assert groups["fc"] == pytest.approx(fc_s, rel=1e-9)
    # In: dense (b x 128 fp32), 8 x (indices + lengths); out: the b x 1 prediction.
    host_bytes = b * 128 * 4 + 8 * (b * 80 * 8 + b * 4) + b * 4
    assert groups["transfer"] == pytest.approx(2 * 2e-6 + host_bytes / 1e10, rel=1e-9)
    assert m.predict_s(get_recsys("DLRM-RMC1"), b) == pytest.approx(
        math.fsum(groups.values()))


def test_large_batches_amortize_launches() -> None:
    m = GpuRecModel.gtx_1080_ti()
    c = get_recsys("WnD")
    per_item = [m.predict_s(c, b) / b for b in (1, 16, 256, 1024)]
    assert per_item == sorted(per_item, reverse=True)
    assert m.group_s(c, 1)["launch"] > 0.5 * m.predict_s(c, 1)
    assert len(m.assumptions) >= 4 and all("assumed" in a for a in m.assumptions)


@pytest.mark.parametrize(("kw", "message"), [
    ({"gather_efficiency": 0.0}, "gather_efficiency must be in"),
    ({"kernel_launch_s": -1.0}, "kernel_launch_s must be a finite number >= 0"),
    ({"pcie_bw_bytes_per_s": 0.0}, "pcie_bw_bytes_per_s must be > 0"),
    ({"roofline": GPURoofline(spec=SPEC, dtype="fp32", launch_overhead_s=1e-6)},
     "launch_overhead_s must be 0"),
    ({"roofline": "a100"}, "roofline must be a GPURoofline"),
])
def test_errors(kw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _model(**kw)


def test_recurrent_layers_run_their_steps_in_sequence() -> None:
    # DIEN: two GRU layers (3 gates) over its behaviour sequence;
    # each step moves the layer's weights and 1/steps of its activations, and launches
    # recurrent_kernels_per_step kernels.
    from archsim.compilers.graph.recsys import recsys_graph

    m = _model(recurrent_kernels_per_step=3)
    c = get_recsys("DIEN")
    b = 8
    peak, bw = 11.339776e12 * 0.5, 484e9 * 0.5
    want_s = want_launch = 0.0
    for op in recsys_graph(c, batch=b):
        if op.kind != "recurrent":
            continue
        t, i, h = op.attrs["steps"], op.attrs["input_size"], op.attrs["hidden_size"]
        weights = 4 * (3 * h * i + 3 * h * h + 3 * h)  # GRU: 3 gates, W, R, B in fp32
        acts = 4 * (b * t * i + b * t * h)  # the sequence in, the hidden states out
        want_s += t * max(op.flops / t / peak, (weights + acts / t) / bw)
        want_launch += t * 3 * 1e-5
    groups = m.group_s(c, b)
    assert want_s > 0 and groups["gru"] == pytest.approx(want_s, rel=1e-9)
    launches = groups["launch"] - 1e-5 * sum(1 for op in recsys_graph(c, batch=b)
                                               if op.kind != "recurrent")
    assert launches == pytest.approx(want_launch, rel=1e-9)
    with pytest.raises(ConfigError, match="recurrent_kernels_per_step must be an int >= 1"):
        _model(recurrent_kernels_per_step=0)


def test_launches_in_groups_moves_each_kernels_launch_to_its_group() -> None:
    m = _model(recurrent_kernels_per_step=2)
    for name in ("DLRM-RMC1", "DIEN"):
        c = get_recsys(name)
        apart, within = m.group_s(c, 4), m.group_s(c, 4, launches_in_groups=True)
        assert "launch" not in within
        assert math.fsum(within.values()) == pytest.approx(math.fsum(apart.values()))
    # RMC1: 8 SLS kernels, 5 FC, 4 ReLU ("other"), 1 concat, each 10 us.
    c = get_recsys("DLRM-RMC1")
    apart, within = m.group_s(c, 4), m.group_s(c, 4, launches_in_groups=True)
    for group, kernels in (("sls", 8), ("fc", 5), ("other", 4), ("concat", 1)):
        assert within[group] == pytest.approx(apart[group] + kernels * 1e-5, rel=1e-9)
