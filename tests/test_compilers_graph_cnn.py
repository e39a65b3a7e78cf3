"""Layer helpers and the torchvision CNN builders, checked against published counts and
closed forms enumerated here."""

import numpy as np
import pytest

from archsim.compilers.graph import TensorSpec, WorkloadGraph
from archsim.compilers.graph.cnn import (
    NetBuilder,
    alexnet,
    conv2d,
    global_avg_pool,
    linear,
    pool2d,
    recurrent,
    resnet50,
    resolve_padding,
    vgg16,
)
from archsim.errors import ConfigError

CONV_ATTRS = {"batch", "in_channels", "out_channels", "in_h", "in_w", "out_h", "out_w",
              "kernel_h", "kernel_w", "stride", "padding", "groups"}


def _macs(g: WorkloadGraph) -> int:
    return sum(op.attrs["macs"] for op in g if op.kind in ("conv2d", "matmul"))


def _resnet50_reference() -> tuple[int, int, int]:
    """(conv weights, batch-norm channels, MACs) of ResNet-50 v1.5 enumerated by hand."""
    conv_w = 7 * 7 * 3 * 64
    bn_c = 64
    macs = 112 * 112 * 7 * 7 * 3 * 64
    in_c, hw = 64, 56
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for b in range(blocks):
            s = stride if b == 0 else 1
            out_hw = hw // s
            conv_w += in_c * width + 9 * width * width + width * 4 * width
            bn_c += width + width + 4 * width
            macs += hw * hw * in_c * width + out_hw * out_hw * (9 * width * width
                                                               + width * 4 * width)
            if b == 0:
                conv_w += in_c * 4 * width
                bn_c += 4 * width
                macs += out_hw * out_hw * in_c * 4 * width
            in_c, hw = 4 * width, out_hw
    macs += 2048 * 1000
    return conv_w, bn_c, macs


def test_resnet50_matches_torchvision_parameter_count_and_reconciles():
    g = resnet50()
    conv_w, bn_c, macs = _resnet50_reference()
    # torchvision.models.resnet50: 25,557,032 parameters = conv weights + BN gamma/beta +
    # fc weight and bias.
    assert conv_w + 2 * bn_c + 2048 * 1000 + 1000 == 25_557_032
    assert g.parameter_count == 25_557_032
    conv_params = sum(t.numel for n, t in g.weights().items() if n.endswith(".weight")
                      and len(t.shape) == 4)
    assert conv_params == conv_w
    assert _macs(g) == macs
    # ~4.1 GMACs at 224x224 (torchvision reports 4.09 GFLOPs as multiply-adds).
    assert 4.05e9 < _macs(g) < 4.15e9


def test_resnet50_structure_and_batch_scaling():
    g = resnet50(batch=4)
    g.validate()
    assert len(g.by_kind()["conv2d"]) == 53
    assert g["layer4.2.conv3"].outputs[0].shape == (4, 2048, 7, 7)
    assert {p.name for p in g.predecessors("layer1.0.add")} == {"layer1.0.conv3.bn",
                                                               "layer1.0.downsample.bn"}
    one = resnet50(batch=1)
    assert g.total_flops == pytest.approx(4 * one.total_flops)
    assert g.parameter_count == one.parameter_count
    for op in g.by_kind()["conv2d"]:
        assert CONV_ATTRS <= set(op.attrs)
        assert op.flops == 2 * op.attrs["macs"]


def test_vgg16_and_alexnet_match_published_counts():
    v = vgg16()
    assert v.parameter_count == 138_357_544  # torchvision vgg16
    assert _macs(v) == pytest.approx(15.47e9, rel=2e-3)  # 15.5 GMACs
    assert v["fc6"].attrs["k"] == 512 * 7 * 7
    a = alexnet()
    assert a.parameter_count == 61_100_840  # torchvision alexnet
    assert _macs(a) == pytest.approx(0.714e9, rel=2e-3)
    assert a["pool5"].outputs[0].shape == (1, 256, 6, 6)


def _numpy_conv_out_shape(x, k, stride, pads):
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))
    return win[:, :, ::stride, ::stride].shape[2:4]


@pytest.mark.parametrize("h,k,s,padding", [(15, 3, 2, 1), (16, 5, 1, "same"), (17, 7, 3, "same"),
                                           (9, 3, 2, "valid"), (10, 4, 2, (1, 2))])
def test_conv_shapes_and_macs_match_a_numpy_sliding_window(h, k, s, padding):
    x = TensorSpec("x", (2, 6, h, h), "fp32", role="input")
    op = conv2d("c", x, out_channels=4, kernel=k, stride=s, padding=padding, groups=2)
    oh, ow = _numpy_conv_out_shape(np.zeros(x.shape), k, s, op.attrs["padding"])
    assert op.outputs[0].shape == (2, 4, oh, ow)
    assert op.attrs["macs"] == 2 * 4 * oh * ow * (6 // 2) * k * k
    assert op.inputs[1].shape == (4, 3, k, k)
    if padding == "same":
        assert oh == -(-h // s)  # TensorFlow: ceil(in / stride)


def test_pool_linear_and_global_pool_counts():
    x = TensorSpec("x", (1, 8, 13, 13), "fp16")
    p = pool2d("p", x, kernel=3, stride=2)
    assert p.outputs[0].shape == (1, 8, 6, 6)
    assert p.flops == 8 * 6 * 6 * 9
    x14 = TensorSpec("x14", (1, 8, 14, 14), "fp16")
    assert pool2d("q", x14, kernel=3, stride=2).outputs[0].shape == (1, 8, 6, 6)
    assert pool2d("q", x14, kernel=3, stride=2, ceil_mode=True).outputs[0].shape == (1, 8, 7, 7)
    gp = global_avg_pool("g", x)
    assert gp.outputs[0].shape == (1, 8, 1, 1) and gp.flops == 8 * 13 * 13
    fc = linear("fc", TensorSpec("h", (3, 5, 16), "fp16"), out_features=7)
    assert (fc.attrs["m"], fc.attrs["n"], fc.attrs["k"]) == (15, 7, 16)
    assert fc.flops == 2 * 15 * 7 * 16
    assert [t.shape for t in fc.inputs[1:]] == [(16, 7), (7,)]


def test_recurrent_flops_closed_form():
    x = TensorSpec("x", (4, 10, 32), "fp32")
    op = recurrent("lstm", x, hidden=16, cell="lstm", bidirectional=True)
    assert op.outputs[0].shape == (4, 10, 32)
    assert op.flops == 2 * 2 * 10 * 4 * 4 * 16 * (32 + 16) + 2 * 10 * 4 * 16 * 9
    gru = recurrent("gru", x, hidden=16, cell="gru", bias=False)
    assert gru.attrs["n"] == 48 and len(gru.inputs) == 3


def test_resolve_padding_forms():
    assert resolve_padding(2, in_hw=(8, 8), kernel_hw=(3, 3), stride=1) == (2, 2, 2, 2)
    assert resolve_padding((1, 2), in_hw=(8, 8), kernel_hw=(3, 3), stride=1) == (1, 1, 2, 2)
    # TF "same", 224 -> 112 with a 7x7/2 kernel needs 5 pixels: 2 before, 3 after.
    assert resolve_padding("same", in_hw=(224, 224), kernel_hw=(7, 7), stride=2) == (2, 3, 2, 3)


def test_bad_layer_arguments_are_config_errors():
    x3 = TensorSpec("x", (1, 3, 8), "fp16")
    x = TensorSpec("x", (1, 6, 8, 8), "fp16")
    with pytest.raises(ConfigError, match=r"conv2d 'c' needs an NCHW input, but 'x' has shape"):
        conv2d("c", x3, out_channels=4, kernel=3)
    with pytest.raises(ConfigError, match="not divisible by groups 4"):
        conv2d("c", x, out_channels=4, kernel=3, groups=4)
    with pytest.raises(ConfigError, match="unknown padding 'full'") as info:
        conv2d("c", x, out_channels=4, kernel=3, padding="full")
    assert info.value.allowed == ["same", "valid"]
    with pytest.raises(ConfigError, match="window 9 is larger than the padded input 8"):
        conv2d("c", x, out_channels=4, kernel=9)
    with pytest.raises(ConfigError, match="must be a positive integer, not 0") as info:
        conv2d("c", x, out_channels=0, kernel=3)
    assert info.value.field == "out_channels"
    with pytest.raises(ConfigError, match="unknown pooling mode 'min'"):
        pool2d("p", x, kernel=2, mode="min")
    with pytest.raises(ConfigError, match="unknown recurrent cell 'qrnn'"):
        recurrent("r", x3, hidden=4, cell="qrnn")
    with pytest.raises(ConfigError, match="padding must have 1, 2 or 4 values"):
        resolve_padding((1, 2, 3), in_hw=(8, 8), kernel_hw=(3, 3), stride=1)
    with pytest.raises(ConfigError, match="unknown data type 'fp7'"):
        NetBuilder(WorkloadGraph("g"), TensorSpec("x", (1,), "fp7"))
    with pytest.raises(ConfigError, match="must be a positive integer, not 0") as info:
        resnet50(batch=0)
    assert info.value.field == "batch"
