"""ParaDnn study: graph FLOPs vs closed form, roofline vs hand numbers, quick run."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.studies import Status
from archsim.sim.studies.paradnn import (
    PLATFORMS,
    ModelPoint,
    Platform,
    attainable_flops,
    loglinear_fit,
    model_point,
    run,
)


def _platform(name: str) -> Platform:
    return next(p for p in PLATFORMS if p.name == name)


def test_fc_flops_and_bytes_closed_form() -> None:
    b, n, layers, i, o = 128, 256, 4, 2000, 1000
    pt = model_point("fc", {"layers": layers, "nodes": n, "input_size": i, "output_size": o,
                            "batch": b})
    # 2 FLOP per MAC in every dense layer, 1 FLOP per ReLU output element.
    macs = b * (i * n + (layers - 1) * n * n + n * o)
    assert pt.flops == 2 * macs + layers * b * n
    # fp32 traffic: every dense reads x, W, bias and writes y; every ReLU reads and writes.
    dense = [(i, n)] + [(n, n)] * (layers - 1) + [(n, o)]
    byts = sum(b * k + k * m + m + b * m for k, m in dense) + layers * 2 * b * n
    assert pt.bytes_by_dtype["fp32"] == 4 * byts
    assert pt.bytes_by_dtype["bf16"] == 2 * byts


def test_roofline_hand_numbers() -> None:
    pt = ModelPoint(family="cnn", params={}, flops=1e12, bytes_by_dtype={
        "fp32": 2e10, "bf16": 1e10, "fp16": 1e10}, restream_bytes_by_dtype={})
    # TPU v3, bf16, AI 100: min(420e12, 100 * 3.6e12) = 360e12, memory-bound.
    att, bound = attainable_flops(_platform("tpu-v3"), pt)
    assert math.isclose(att, 360e12) and bound == "memory"
    # V100 fp16 (CNN), AI 100: min(125e12, 100 * 0.9e12) = 90e12, memory-bound.
    assert math.isclose(attainable_flops(_platform("v100"), pt)[0], 90e12)
    # Skylake fp32, AI 50: min(2e12, 50 * 0.12e12 = 6e12) = 2e12, compute-bound.
    att, bound = attainable_flops(_platform("skylake"), pt)
    assert math.isclose(att, 2e12) and bound == "compute"


def test_loglinear_fit_recovers_known_coefficients() -> None:
    rng = np.random.default_rng(1)
    rows = []
    for _ in range(40):
        layers, nodes, batch = (int(2 ** rng.integers(2, 8)), int(2 ** rng.integers(5, 14)),
                                int(2 ** rng.integers(6, 15)))
        y = 10 ** (3.0 + 0.25 * math.log2(nodes) - 0.1 * math.log2(batch))
        rows.append({"family": "fc", "hp_layers": layers, "hp_nodes": nodes,
                     "hp_input_size": 2000, "hp_output_size": 1000, "hp_batch": batch,
                     "t": y})
    coef, r2 = loglinear_fit(rows, "fc", "t")
    assert r2 == pytest.approx(1.0)
    assert coef["log2 nodes"] == pytest.approx(0.25)
    assert coef["log2 batch"] == pytest.approx(-0.1)
    assert coef["log2 layers"] == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ConfigError):
        loglinear_fit(rows[:2], "fc", "t")


def test_unknown_family_is_config_error() -> None:
    with pytest.raises(ConfigError):
        _platform("tpu-v2").peak("mlp")


def test_quick_run(tmp_path: Path) -> None:
    res = run(out_dir=tmp_path, seed=0, quick=True)
    assert len(res.comparisons) == 12
    for c in res.comparisons:
        assert c.status == c.expected, c.metric
    statuses = [c.status for c in res.comparisons]
    assert statuses.count(Status.NOT_REPRODUCED) == 2
    for png in [tmp_path / "kernel_rnn_batch.png",
                *(tmp_path / f"roofline_{pl.name}.png" for pl in PLATFORMS)]:
        assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    models = len(res.tables["models"])
    assert models <= 200
    wins = res.tables["wins_attainable"]
    assert sum(sum(v for k, v in r.items() if k not in ("family", "models")) for r in wins) \
        == models
    assert (tmp_path / "wins_attainable.csv").exists()
    assert (tmp_path / "comparisons.csv").exists()
    kernel = [c for c in res.comparisons if c.metric.startswith("kernel model")]
    assert len(kernel) == 7
    assert sum(r["models"] for r in res.tables["wins_kernel"]) == models
    assert all(r["train_method"] == "training_graph" for r in res.tables["models"])


def test_platform_validates_fields() -> None:
    with pytest.raises(ConfigError, match="mem_bw_bytes_per_s"):
        Platform(name="x", peak_flops_per_s={"fp32": 1e12}, mem_bw_bytes_per_s=0.0,
                 dtype_by_family={"fc": "fp32", "cnn": "fp32", "rnn": "fp32"}, source="t")
    with pytest.raises(ConfigError, match="dtype_by_family"):
        Platform(name="x", peak_flops_per_s={"fp32": 1e12}, mem_bw_bytes_per_s=1e9,
                 dtype_by_family={"fc": "fp32", "cnn": "bf16", "rnn": "fp32"}, source="t")
