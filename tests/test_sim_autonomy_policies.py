"""The CNN policy family: FLOPs and parameters by hand, graph vs spec, training loss falls."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.autonomy.policies import (
    DAggerSettings,
    NavPolicyNet,
    NavPolicySpec,
    airlearning_specs,
    airlearning_world,
    nav_policy_graph,
    train_dagger,
)


def test_flops_and_parameters_hand_count() -> None:
    # c2f8 on 16x32: conv0 1->8 stride 2 -> 8x16; conv1 8->8 stride 2 -> 4x8.
    conv0 = 8 * 16 * 8 * 1 * 9          # MACs = out pixels x cout x cin x 9
    conv1 = 4 * 8 * 8 * 8 * 9
    relu = 8 * 8 * 16 + 8 * 4 * 8       # one FLOP per element
    fc_h = (8 * 4 * 8 + 3) * 32         # 259 -> 32
    fc_o = 32 * 5
    flops = 2 * (conv0 + conv1 + fc_h + fc_o) + relu + 32
    params = 8 * 9 + 8 * 8 * 9 + (259 * 32 + 32) + (32 * 5 + 5)
    spec = NavPolicySpec(conv_layers=2, filters=8)
    assert spec.flops == flops == 73504
    assert spec.parameters == params == NavPolicyNet(spec).num_parameters


@pytest.mark.parametrize("layers,filters", [(2, 8), (3, 16), (5, 32)])
def test_graph_matches_spec(layers: int, filters: int) -> None:
    spec = NavPolicySpec(conv_layers=layers, filters=filters)
    g = nav_policy_graph(spec)
    convs = g.by_kind()["conv2d"]
    assert len(convs) == layers
    assert all(op.attrs["out_channels"] == filters for op in convs)
    assert convs[-1].outputs[0].shape[1:] == spec.feature_shape()
    assert g.parameter_count == NavPolicyNet(spec).num_parameters
    net = NavPolicyNet(spec)
    x = np.zeros((2, 1, 17, 32), np.float32)
    assert net.forward(x, train=False).shape == (2, spec.num_actions)


def test_training_loss_falls() -> None:
    spec = NavPolicySpec(conv_layers=2, filters=8)
    _, rep = train_dagger(spec, seed=0,
                          settings=DAggerSettings(rounds=0, episodes_per_round=6, epochs=4))
    assert rep.loss[-1] < 0.8 * rep.loss[0]


def test_bad_spec() -> None:
    with pytest.raises(ConfigError, match="filters"):
        NavPolicySpec(conv_layers=2, filters=12)
    with pytest.raises(ConfigError, match="conv_layers"):
        NavPolicySpec(conv_layers=7, filters=8)


def test_airlearning_family_flops_by_hand() -> None:
    # c3f32 on 32x64 with one strided conv: conv0 1->32 stride 2 -> 16x32; conv1, conv2
    # 32->32 stride 1 at 16x32.
    px = 16 * 32
    convs = px * 32 * 1 * 9 + 2 * px * 32 * 32 * 9
    relu = 3 * px * 32
    fc_h = (px * 32 + 3) * 32
    flops = 2 * (convs + fc_h + 32 * 5) + relu + 32
    spec = next(s for s in airlearning_specs() if (s.conv_layers, s.filters) == (3, 32))
    assert spec.name == "c3f32-32x64s1" and spec.strides() == (2, 1, 1)
    assert spec.flops == flops
    assert {(s.conv_layers, s.filters) for s in airlearning_specs()} == {
        (c, f) for c in (3, 4, 5) for f in (32, 48, 64)}
    world = airlearning_world()
    assert (world.sensor.rows, world.sensor.cols) == (spec.rows, spec.cols) == (32, 64)


def test_small_family_names_and_strides_are_unchanged() -> None:
    spec = NavPolicySpec(conv_layers=2, filters=8)
    assert spec.name == "c2f8" and spec.strides() == (2, 2)  # every conv strided
    assert NavPolicySpec(conv_layers=5, filters=8).strides() == (2, 2, 2, 1, 1)
    with pytest.raises(ConfigError, match="strided_layers"):
        NavPolicySpec(conv_layers=3, filters=32, strided_layers=-1)
