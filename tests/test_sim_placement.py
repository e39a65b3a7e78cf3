"""Placement: exhaustive optimum vs a hand closed form on a 3-layer chain."""

from __future__ import annotations

import itertools

import pytest

from archsim.errors import ConfigError
from archsim.sim.placement import Layer, Link, Split, Tier, evaluate_split, optimal_split

LAYERS = [Layer(name="a", flops=1e9, output_bytes=4e6),
          Layer(name="b", flops=4e9, output_bytes=1e5),
          Layer(name="c", flops=8e9, output_bytes=1e3)]
DEV = Tier(name="device", flops_per_s=1e10, power_w=2.0)
EDGE = Tier(name="edge", flops_per_s=1e11, power_w=50.0)
CLOUD = Tier(name="cloud", flops_per_s=1e12, power_w=300.0, pue=1.5)
UP = Link(name="wifi", bandwidth_bps=1e8, latency_s=0.005, energy_per_bit_j=1e-7)
WAN = Link(name="wan", bandwidth_bps=1e9, latency_s=0.05, energy_per_bit_j=1e-8)
IN = 6e5
KW = dict(layers=LAYERS, input_bytes=IN, device=DEV, edge=EDGE, cloud=CLOUD, uplink=UP, wan=WAN)


def hand_latency(ce: int, cc: int) -> float:
    # Written out from the model definition, independent of the code's loops.
    f = [1e9, 4e9, 8e9]
    out = [IN, 4e6, 1e5, 1e3]  # bytes crossing a cut before layer i
    t = sum(f[:ce]) / 1e10 + sum(f[ce:cc]) / 1e11 + sum(f[cc:]) / 1e12
    if ce < 3:
        t += 0.005 + 8 * out[ce] / 1e8
    if cc < 3:
        t += 0.05 + 8 * out[cc] / 1e9
    return t


def test_latency_matches_closed_form_and_brute_force() -> None:
    pairs = [(a, b) for a, b in itertools.product(range(4), repeat=2) if a <= b]
    for a, b in pairs:
        s = evaluate_split(**KW, cut_edge=a, cut_cloud=b)
        assert s.latency_s == pytest.approx(hand_latency(a, b), rel=1e-12)
    best = min(pairs, key=lambda p: hand_latency(*p))
    opt = optimal_split(**KW, objective="latency")
    assert (opt.cut_edge, opt.cut_cloud) == best


def test_privacy_enforced() -> None:
    opt = optimal_split(**KW, objective="latency", min_device_layers=2)
    assert opt.cut_edge >= 2
    with pytest.raises(ConfigError) as e:
        evaluate_split(**KW, cut_edge=0, cut_cloud=3, min_device_layers=1)
    assert e.value.field == "min_device_layers"


@pytest.mark.parametrize(("ctor", "kwargs", "field"), [
    (Tier, dict(name="x", flops_per_s=0.0, power_w=1.0), "flops_per_s"),
    (Tier, dict(name="x", flops_per_s=1.0, power_w=1.0, pue=0.5), "pue"),
    (Link, dict(name="x", bandwidth_bps=-1.0, latency_s=0.0, energy_per_bit_j=0.0),
     "bandwidth_bps"),
    (Layer, dict(name="x", flops=float("nan"), output_bytes=1.0), "flops"),
])
def test_bad_parameters_name_field(ctor: type, kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as e:
        ctor(**kwargs)
    assert e.value.field == field


def test_bad_objective() -> None:
    with pytest.raises(ConfigError) as e:
        optimal_split(**KW, objective="cost")
    assert e.value.field == "objective"


def test_energy_optimum_matches_brute_force() -> None:
    f = [1e9, 4e9, 8e9]
    out = [IN, 4e6, 1e5, 1e3]

    def hand_energy(ce: int, cc: int) -> float:
        e = sum(f[:ce]) / 1e10 * 2.0 + sum(f[ce:cc]) / 1e11 * 50.0
        e += sum(f[cc:]) / 1e12 * 300.0 * 1.5
        if ce < 3:
            e += 8 * out[ce] * 1e-7
        if cc < 3:
            e += 8 * out[cc] * 1e-8
        return e

    pairs = [(a, b) for a, b in itertools.product(range(4), repeat=2) if a <= b]
    best = min(pairs, key=lambda p: hand_energy(*p))
    opt = optimal_split(**KW, objective="energy")
    assert (opt.cut_edge, opt.cut_cloud) == best
    assert opt.energy_j == pytest.approx(hand_energy(*best), rel=1e-12)


def test_split_layer_ranges_and_flop_shares() -> None:
    layers = [Layer(name=f"l{i}", flops=f, output_bytes=1.0)
              for i, f in enumerate([1.0, 2.0, 3.0, 4.0])]
    split = Split(cut_edge=1, cut_cloud=3, latency_s=0.0, energy_j=0.0)
    assert split.layer_ranges(4) == {"device": (0, 1), "edge": (1, 3), "cloud": (3, 4)}
    assert split.flop_shares(layers) == {"device": 0.1, "edge": 0.5, "cloud": 0.4}
