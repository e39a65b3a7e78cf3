"""The CNN policy family: FLOPs and parameters by hand, graph vs spec, training loss falls."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.autonomy.policies import (
    DAggerSettings,
    NavPolicyNet,
    NavPolicySpec,
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
