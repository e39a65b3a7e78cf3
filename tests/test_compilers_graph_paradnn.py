"""ParaDnn generators against the reference code's own FLOP formula, published ResNet-18
figures and closed forms; the sweep ranges against the reference run scripts."""

import math

import pytest

from archsim.compilers.graph.paradnn import (
    PARADNN_SWEEPS,
    paradnn_cnn,
    paradnn_fc,
    paradnn_model,
    paradnn_rnn,
    paradnn_sweep,
)
from archsim.errors import ConfigError


@pytest.mark.parametrize("layers,nodes,inp,out,batch", [(4, 32, 2000, 1000, 64),
                                                        (16, 1024, 8000, 200, 128)])
def test_fc_flops_equal_paradnn_fc_py_formula(layers, nodes, inp, out, batch):
    g = paradnn_fc(layers=layers, nodes=nodes, input_size=inp, output_size=out, batch=batch)
    # paradnn/fc.py: flops = batch * (node*node*(layer-1) + node*input + node*output), x2 fwd.
    ref = 2 * batch * (nodes * nodes * (layers - 1) + nodes * inp + nodes * out)
    assert sum(op.flops for op in g if op.kind == "matmul") == ref
    assert g.parameter_count == (inp * nodes + nodes + (layers - 1) * (nodes * nodes + nodes)
                                 + nodes * out + out)


def test_cnn_residual_two_blocks_is_resnet18_plus_one_projection():
    g = paradnn_cnn(block="residual", blocks=2, filters=64, image_size=224, output_size=1000,
                    batch=1)
    # torchvision resnet18 has 11,689,512 parameters; ParaDnn also projects the first block
    # of group 1 (1x1 conv 64->64 + BN): 4,096 + 128 more.
    assert g.parameter_count == 11_689_512 + 64 * 64 + 2 * 64
    macs = sum(op.attrs["macs"] for op in g if "macs" in op.attrs)
    extra = 56 * 56 * 64 * 64  # that projection's MACs
    # He et al. 2016, Table 1: ResNet-18 is 1.8 x 10^9 multiply-adds.
    assert macs - extra == pytest.approx(1.8e9, rel=0.02)


def test_cnn_bottleneck_shapes_and_final_pool():
    g = paradnn_cnn(block="bottleneck", blocks=1, filters=16, image_size=300,
                    output_size=500, batch=2)
    # 300 -> 150 (conv) -> 75 (pool) -> 75, 38, 19, 10 over the groups; 7x7/1 valid pool -> 4.
    assert g["block_group4_block0_conv2"].outputs[0].shape == (2, 16 * 8 * 4, 10, 10)
    assert g["final_avg_pool"].outputs[0].shape == (2, 512, 4, 4)
    assert g["final_dense"].attrs["k"] == 512 * 16
    assert len(g.by_kind()["conv2d"]) == 1 + 4 * (3 + 1)


def test_rnn_flops_and_parameters_closed_form():
    b, t, e, v, n = 8, 10, 32, 50, 3
    g = paradnn_rnn(cell="lstm", layers=n, max_length=t, vocab_size=v, embedding_size=e,
                    batch=b)
    cells = n * (2 * t * b * 4 * e * (e + e) + t * b * e * 9)
    logits = 2 * b * t * e * v
    assert g.total_flops == cells + logits
    assert g.parameter_count == v * e + n * (4 * e * e * 2 + 4 * e) + e * v + v
    gru = paradnn_rnn(cell="gru", layers=1, max_length=t, vocab_size=v, embedding_size=e,
                      batch=b)
    assert gru["cell_0"].attrs["gates"] == 3


def test_sweeps_follow_the_reference_run_scripts():
    fc, cnn, rnn = PARADNN_SWEEPS["fc"], PARADNN_SWEEPS["cnn"], PARADNN_SWEEPS["rnn"]
    assert fc["nodes"] == (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
    assert fc["batch"][0] == 64 and fc["batch"][-1] == 16384
    assert fc["layers"] == (4, 16, 32, 64, 128)
    assert cnn["blocks"] == (1, 2, 3, 4, 5, 6, 7, 8) and cnn["filters"] == (16, 32, 64)
    assert cnn["batch"] == (64, 128, 256, 512, 1024)
    assert rnn["layers"] == (1, 5, 9, 13) and rnn["embedding_size"] == (100, 500, 900)
    points = list(paradnn_sweep("fc"))
    assert len(points) == math.prod(len(v) for v in fc.values())
    assert len({tuple(sorted(p.items())) for p in points}) == len(points)


def test_every_fc_point_and_a_sample_of_cnn_rnn_points_build():
    for p in paradnn_sweep("fc", overrides={"batch": 64}):
        assert paradnn_model("fc", **p).metadata["nodes"] == p["nodes"]
    for family, step in [("cnn", 97), ("rnn", 53)]:
        for i, p in enumerate(paradnn_sweep(family, overrides={"batch": 64})):
            if i % step == 0:
                paradnn_model(family, **p).validate()


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError, match="unknown ParaDnn family 'mlp'") as info:
        paradnn_model("mlp")
    assert info.value.allowed == ["cnn", "fc", "rnn"]
    with pytest.raises(ConfigError, match="image_size 100 leaves a 4x4 map") as info:
        paradnn_cnn(image_size=100)
    assert info.value.field == "image_size"
    with pytest.raises(ConfigError, match="unknown block 'dense'"):
        paradnn_cnn(block="dense")
    with pytest.raises(ConfigError, match="unknown recurrent cell 'sru'"):
        paradnn_rnn(cell="sru")
    with pytest.raises(ConfigError, match="'depth' is not a swept parameter of ParaDnn fc"):
        list(paradnn_sweep("fc", overrides={"depth": 3}))
    with pytest.raises(ConfigError, match="must be a positive integer, not 0") as info:
        paradnn_fc(nodes=0)
    assert info.value.field == "nodes"
