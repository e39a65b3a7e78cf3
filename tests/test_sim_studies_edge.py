"""Tests of the edge placement study (sim/studies/edge)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from archsim.compilers.graph.cnn import resnet50
from archsim.sim.placement import evaluate_split
from archsim.sim.studies import Status
from archsim.sim.studies.edge import (
    PARAMS,
    chain_from_graph,
    cloud_tier,
    device_tier,
    edge_tier,
    uplink,
    wan_link,
)
from archsim.sim.studies.edge import run as run_edge


def test_quick_run_headlines_and_files(tmp_path: Path) -> None:
    res = run_edge(out_dir=tmp_path, seed=0, quick=True)
    assert len(res.comparisons) == 4
    for c in res.comparisons:
        assert c.status == c.expected == Status.REPRODUCED, c.metric
    assert (tmp_path / "regions.png").stat().st_size > 1000
    regions = (tmp_path / "regions.csv").read_text().splitlines()
    assert regions[0].startswith("model,device_scale,uplink_bps")
    assert len(regions) == 1 + 2 * 5 * 3 * 2 * 2  # models x bandwidths x scales x obj x privacy
    text = "\n".join(res.assumptions)
    for name in PARAMS:
        assert name in text


def test_chain_cuts_carry_the_live_tensor() -> None:
    g = resnet50()
    chain = chain_from_graph(g)
    # FLOPs are conserved and the raw input is the 3x224x224 fp16 image.
    assert sum(la.flops for la in chain.layers) == pytest.approx(g.total_flops)
    assert chain.input_bytes == 3 * 224 * 224 * 2
    # The stem conv (64 ch, stride 2 -> 112x112) is its own layer.
    assert chain.layers[0].output_bytes == 64 * 112 * 112 * 2


def test_fast_link_slow_device_offloads_past_privacy_layers() -> None:
    """1 Tb/s uplink, device x1e-3, first layer private: the enumerated optimum over every
    split runs exactly layer 0 on the device and the rest off-device."""
    chain = chain_from_graph(resnet50())
    n = len(chain.layers)
    dev, up, wan = device_tier(1e-3), uplink(1e12), wan_link()
    splits = [evaluate_split(layers=chain.layers, input_bytes=chain.input_bytes, device=dev,
                             edge=edge_tier(), cloud=cloud_tier(), uplink=up, wan=wan,
                             cut_edge=ce, cut_cloud=cc, min_device_layers=1)
              for ce, cc in itertools.combinations_with_replacement(range(n + 1), 2)
              if ce >= 1]
    best = min(splits, key=lambda s: s.latency_s)
    assert best.cut_edge == 1
    # Closed form of the all-on-edge remainder: stem on device, one uplink hop, rest on edge
    # (the cloud's 20 ms WAN hop outweighs its faster compute for 8 GFLOP).
    f0 = chain.layers[0].flops
    rest = sum(la.flops for la in chain.layers[1:])
    expect = (f0 / dev.flops_per_s + up.latency_s + 8 * chain.layers[0].output_bytes / 1e12
              + rest / edge_tier().flops_per_s)
    assert best.cut_cloud == n
    assert best.latency_s == pytest.approx(expect, rel=1e-12)
