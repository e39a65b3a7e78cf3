"""SMAUG's own networks (:mod:`archsim.compilers.graph.smaug_nets`) against SMAUG's graphs.

``SMAUG_LAYERS`` is literal data read from SMAUG's ``models/<net>/<net>_smv_topo.pbtxt``
(experiments repository of harvard-acc/smaug, commit 435747732815), every non-``Data`` node
in order: ``("conv", weight KRSC, output NHWC)``, ``("fc", weight (out, in), output NC)``,
``("bn", (channels,), output)``, ``("pool", (), output NHWC)``, ``("add",)``, ``("mul",)``,
``("act",)`` (a stand-alone ReLU/sigmoid/tanh) and ``("cpu",)`` (Reorder, Reshape, Split).
Parameters and MACs are computed here in closed form from those shapes, not from the
builders: a convolution has ``K*R*S*C`` weights and ``out_elements * R*S*C`` MACs, an inner
product ``out*in`` weights and ``rows*out*in`` MACs, a batch norm ``2C`` parameters (gamma,
beta; mean and variance are buffers), no biases anywhere (SMAUG's graphs have none).
"""

from __future__ import annotations

import math

import pytest

from archsim.compilers.graph import WORKLOADS, build_workload
from archsim.compilers.graph.smaug_nets import SMAUG_EXPERIMENTS_COMMIT, SMAUG_NETWORKS

SMAUG_LAYERS: dict[str, list[tuple]] = {
    'smaug-minerva': [
        ('cpu',), ('fc', (256, 784), (1, 256)), ('fc', (256, 256), (1, 256)),
        ('fc', (256, 256), (1, 256)), ('fc', (10, 256), (1, 10)),
    ],
    'smaug-lenet5': [
        ('conv', (32, 3, 3, 1), (1, 26, 26, 32)), ('conv', (32, 3, 3, 32), (1, 24, 24, 32)),
        ('pool', (), (1, 12, 12, 32)), ('cpu',), ('fc', (128, 4608), (1, 128)),
        ('fc', (10, 128), (1, 10)),
    ],
    'smaug-cnn10': [
        ('conv', (32, 3, 3, 3), (1, 32, 32, 32)), ('bn', (32,), (1, 32, 32, 32)),
        ('conv', (32, 3, 3, 32), (1, 32, 32, 32)), ('pool', (), (1, 16, 16, 32)),
        ('bn', (32,), (1, 16, 16, 32)), ('conv', (64, 3, 3, 32), (1, 16, 16, 64)),
        ('conv', (64, 3, 3, 64), (1, 16, 16, 64)), ('pool', (), (1, 8, 8, 64)),
        ('bn', (64,), (1, 8, 8, 64)), ('cpu',), ('fc', (512, 4096), (1, 512)),
        ('fc', (10, 512), (1, 10)),
    ],
    'smaug-vgg': [
        ('conv', (64, 3, 3, 3), (1, 32, 32, 64)), ('conv', (128, 3, 3, 64), (1, 32, 32, 128)),
        ('pool', (), (1, 16, 16, 128)), ('conv', (128, 3, 3, 128), (1, 16, 16, 128)),
        ('conv', (128, 3, 3, 128), (1, 16, 16, 128)), ('pool', (), (1, 8, 8, 128)),
        ('conv', (256, 3, 3, 128), (1, 8, 8, 256)), ('conv', (256, 3, 3, 256), (1, 8, 8, 256)),
        ('conv', (256, 3, 3, 256), (1, 8, 8, 256)), ('pool', (), (1, 4, 4, 256)),
        ('conv', (512, 3, 3, 256), (1, 4, 4, 512)), ('conv', (512, 3, 3, 512), (1, 4, 4, 512)),
        ('conv', (512, 3, 3, 512), (1, 4, 4, 512)), ('pool', (), (1, 2, 2, 512)), ('cpu',),
        ('fc', (512, 2048), (1, 512)), ('fc', (10, 512), (1, 10)),
    ],
    'smaug-elu16': [
        ('conv', (192, 5, 5, 3), (1, 32, 32, 192)), ('pool', (), (1, 16, 16, 192)),
        ('conv', (192, 1, 1, 192), (1, 16, 16, 192)),
        ('conv', (240, 3, 3, 192), (1, 16, 16, 240)), ('pool', (), (1, 8, 8, 240)),
        ('conv', (240, 1, 1, 240), (1, 8, 8, 240)), ('conv', (260, 2, 2, 240), (1, 8, 8, 260)),
        ('pool', (), (1, 4, 4, 260)), ('conv', (260, 1, 1, 260), (1, 4, 4, 260)),
        ('conv', (280, 2, 2, 260), (1, 4, 4, 280)), ('pool', (), (1, 2, 2, 280)),
        ('conv', (280, 1, 1, 280), (1, 2, 2, 280)), ('conv', (300, 2, 2, 280), (1, 2, 2, 300)),
        ('pool', (), (1, 1, 1, 300)), ('conv', (300, 1, 1, 300), (1, 1, 1, 300)),
        ('conv', (100, 1, 1, 300), (1, 1, 1, 100)),
    ],
    'smaug-elu24': [
        ('conv', (384, 3, 3, 3), (1, 32, 32, 384)), ('pool', (), (1, 16, 16, 384)),
        ('conv', (384, 1, 1, 384), (1, 16, 16, 384)),
        ('conv', (384, 2, 2, 384), (1, 16, 16, 384)),
        ('conv', (640, 2, 2, 384), (1, 16, 16, 640)),
        ('conv', (640, 2, 2, 640), (1, 16, 16, 640)), ('pool', (), (1, 8, 8, 640)),
        ('conv', (640, 1, 1, 640), (1, 8, 8, 640)), ('conv', (768, 2, 2, 640), (1, 8, 8, 768)),
        ('conv', (768, 2, 2, 768), (1, 8, 8, 768)), ('conv', (768, 2, 2, 768), (1, 8, 8, 768)),
        ('pool', (), (1, 4, 4, 768)), ('conv', (768, 1, 1, 768), (1, 4, 4, 768)),
        ('conv', (896, 2, 2, 768), (1, 4, 4, 896)), ('conv', (896, 2, 2, 896), (1, 4, 4, 896)),
        ('pool', (), (1, 2, 2, 896)), ('conv', (896, 3, 3, 896), (1, 2, 2, 896)),
        ('conv', (1024, 2, 2, 896), (1, 2, 2, 1024)),
        ('conv', (1024, 2, 2, 1024), (1, 2, 2, 1024)), ('pool', (), (1, 1, 1, 1024)),
        ('conv', (1024, 1, 1, 1024), (1, 1, 1, 1024)),
        ('conv', (1152, 2, 2, 1024), (1, 1, 1, 1152)),
        ('conv', (1152, 1, 1, 1152), (1, 1, 1, 1152)),
        ('conv', (100, 1, 1, 1152), (1, 1, 1, 100)),
    ],
    'smaug-resnet50': [
        ('conv', (64, 7, 7, 3), (1, 113, 113, 64)), ('bn', (64,), (1, 113, 113, 64)),
        ('pool', (), (1, 56, 56, 64)), ('conv', (64, 1, 1, 64), (1, 56, 56, 64)),
        ('bn', (64,), (1, 56, 56, 64)), ('conv', (64, 3, 3, 64), (1, 56, 56, 64)),
        ('bn', (64,), (1, 56, 56, 64)), ('conv', (256, 1, 1, 64), (1, 56, 56, 256)),
        ('bn', (256,), (1, 56, 56, 256)), ('conv', (256, 1, 1, 64), (1, 56, 56, 256)),
        ('bn', (256,), (1, 56, 56, 256)), ('add',), ('act',),
        ('conv', (64, 1, 1, 256), (1, 56, 56, 64)), ('bn', (64,), (1, 56, 56, 64)),
        ('conv', (64, 3, 3, 64), (1, 56, 56, 64)), ('bn', (64,), (1, 56, 56, 64)),
        ('conv', (256, 1, 1, 64), (1, 56, 56, 256)), ('bn', (256,), (1, 56, 56, 256)),
        ('add',), ('act',), ('conv', (64, 1, 1, 256), (1, 56, 56, 64)),
        ('bn', (64,), (1, 56, 56, 64)), ('conv', (64, 3, 3, 64), (1, 56, 56, 64)),
        ('bn', (64,), (1, 56, 56, 64)), ('conv', (256, 1, 1, 64), (1, 56, 56, 256)),
        ('bn', (256,), (1, 56, 56, 256)), ('add',), ('act',),
        ('conv', (128, 1, 1, 256), (1, 56, 56, 128)), ('bn', (128,), (1, 56, 56, 128)),
        ('conv', (128, 3, 3, 128), (1, 28, 28, 128)), ('bn', (128,), (1, 28, 28, 128)),
        ('conv', (512, 1, 1, 128), (1, 28, 28, 512)), ('bn', (512,), (1, 28, 28, 512)),
        ('conv', (512, 1, 1, 256), (1, 28, 28, 512)), ('bn', (512,), (1, 28, 28, 512)),
        ('add',), ('act',), ('conv', (128, 1, 1, 512), (1, 28, 28, 128)),
        ('bn', (128,), (1, 28, 28, 128)), ('conv', (128, 3, 3, 128), (1, 28, 28, 128)),
        ('bn', (128,), (1, 28, 28, 128)), ('conv', (512, 1, 1, 128), (1, 28, 28, 512)),
        ('bn', (512,), (1, 28, 28, 512)), ('add',), ('act',),
        ('conv', (128, 1, 1, 512), (1, 28, 28, 128)), ('bn', (128,), (1, 28, 28, 128)),
        ('conv', (128, 3, 3, 128), (1, 28, 28, 128)), ('bn', (128,), (1, 28, 28, 128)),
        ('conv', (512, 1, 1, 128), (1, 28, 28, 512)), ('bn', (512,), (1, 28, 28, 512)),
        ('add',), ('act',), ('conv', (128, 1, 1, 512), (1, 28, 28, 128)),
        ('bn', (128,), (1, 28, 28, 128)), ('conv', (128, 3, 3, 128), (1, 28, 28, 128)),
        ('bn', (128,), (1, 28, 28, 128)), ('conv', (512, 1, 1, 128), (1, 28, 28, 512)),
        ('bn', (512,), (1, 28, 28, 512)), ('add',), ('act',),
        ('conv', (256, 1, 1, 512), (1, 28, 28, 256)), ('bn', (256,), (1, 28, 28, 256)),
        ('conv', (256, 3, 3, 256), (1, 14, 14, 256)), ('bn', (256,), (1, 14, 14, 256)),
        ('conv', (1024, 1, 1, 256), (1, 14, 14, 1024)), ('bn', (1024,), (1, 14, 14, 1024)),
        ('conv', (1024, 1, 1, 512), (1, 14, 14, 1024)), ('bn', (1024,), (1, 14, 14, 1024)),
        ('add',), ('act',), ('conv', (256, 1, 1, 1024), (1, 14, 14, 256)),
        ('bn', (256,), (1, 14, 14, 256)), ('conv', (256, 3, 3, 256), (1, 14, 14, 256)),
        ('bn', (256,), (1, 14, 14, 256)), ('conv', (1024, 1, 1, 256), (1, 14, 14, 1024)),
        ('bn', (1024,), (1, 14, 14, 1024)), ('add',), ('act',),
        ('conv', (256, 1, 1, 1024), (1, 14, 14, 256)), ('bn', (256,), (1, 14, 14, 256)),
        ('conv', (256, 3, 3, 256), (1, 14, 14, 256)), ('bn', (256,), (1, 14, 14, 256)),
        ('conv', (1024, 1, 1, 256), (1, 14, 14, 1024)), ('bn', (1024,), (1, 14, 14, 1024)),
        ('add',), ('act',), ('conv', (256, 1, 1, 1024), (1, 14, 14, 256)),
        ('bn', (256,), (1, 14, 14, 256)), ('conv', (256, 3, 3, 256), (1, 14, 14, 256)),
        ('bn', (256,), (1, 14, 14, 256)), ('conv', (1024, 1, 1, 256), (1, 14, 14, 1024)),
        ('bn', (1024,), (1, 14, 14, 1024)), ('add',), ('act',),
        ('conv', (256, 1, 1, 1024), (1, 14, 14, 256)), ('bn', (256,), (1, 14, 14, 256)),
        ('conv', (256, 3, 3, 256), (1, 14, 14, 256)), ('bn', (256,), (1, 14, 14, 256)),
        ('conv', (1024, 1, 1, 256), (1, 14, 14, 1024)), ('bn', (1024,), (1, 14, 14, 1024)),
        ('add',), ('act',), ('conv', (256, 1, 1, 1024), (1, 14, 14, 256)),
        ('bn', (256,), (1, 14, 14, 256)), ('conv', (256, 3, 3, 256), (1, 14, 14, 256)),
        ('bn', (256,), (1, 14, 14, 256)), ('conv', (1024, 1, 1, 256), (1, 14, 14, 1024)),
        ('bn', (1024,), (1, 14, 14, 1024)), ('add',), ('act',),
        ('conv', (512, 1, 1, 1024), (1, 14, 14, 512)), ('bn', (512,), (1, 14, 14, 512)),
        ('conv', (512, 3, 3, 512), (1, 7, 7, 512)), ('bn', (512,), (1, 7, 7, 512)),
        ('conv', (2048, 1, 1, 512), (1, 7, 7, 2048)), ('bn', (2048,), (1, 7, 7, 2048)),
        ('conv', (2048, 1, 1, 1024), (1, 7, 7, 2048)), ('bn', (2048,), (1, 7, 7, 2048)),
        ('add',), ('act',), ('conv', (512, 1, 1, 2048), (1, 7, 7, 512)),
        ('bn', (512,), (1, 7, 7, 512)), ('conv', (512, 3, 3, 512), (1, 7, 7, 512)),
        ('bn', (512,), (1, 7, 7, 512)), ('conv', (2048, 1, 1, 512), (1, 7, 7, 2048)),
        ('bn', (2048,), (1, 7, 7, 2048)), ('add',), ('act',),
        ('conv', (512, 1, 1, 2048), (1, 7, 7, 512)), ('bn', (512,), (1, 7, 7, 512)),
        ('conv', (512, 3, 3, 512), (1, 7, 7, 512)), ('bn', (512,), (1, 7, 7, 512)),
        ('conv', (2048, 1, 1, 512), (1, 7, 7, 2048)), ('bn', (2048,), (1, 7, 7, 2048)),
        ('add',), ('act',), ('cpu',), ('fc', (10, 100352), (1, 10)),
    ],
    'smaug-lstm': [
        ('cpu',), ('cpu',), ('cpu',), ('cpu',), ('cpu',), ('fc', (128, 32), (1, 128)),
        ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',), ('act',), ('mul',),
        ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
        ('fc', (128, 32), (1, 128)), ('fc', (128, 32), (1, 128)), ('add',), ('cpu',), ('act',),
        ('act',), ('mul',), ('act',), ('mul',), ('add',), ('act',), ('act',), ('mul',),
    ],
}

#: Each network's output shape in SMAUG's graph (NC, or NHWC for the ELU networks).
SMAUG_OUTPUT = {"smaug-minerva": (1, 10), "smaug-lenet5": (1, 10), "smaug-cnn10": (1, 10),
                "smaug-vgg": (1, 10), "smaug-elu16": (1, 1, 1, 100),
                "smaug-elu24": (1, 1, 1, 100), "smaug-resnet50": (1, 10),
                "smaug-lstm": (1, 32)}

#: archsim operator kind -> the tag used in SMAUG_LAYERS.
_TAG = {"conv2d": "conv", "matmul": "fc", "norm": "bn", "pool": "pool",
        "activation": "act", "data_movement": "cpu"}


def _nchw(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (shape[0], shape[3], shape[1], shape[2]) if len(shape) == 4 else shape


def _expected_params_macs(name: str) -> tuple[int, int]:
    params = macs = 0
    for row in SMAUG_LAYERS[name]:
        if row[0] == "conv":
            (k, r, s, c), out = row[1], row[2]
            params += k * r * s * c
            macs += math.prod(out) * r * s * c
        elif row[0] == "fc":
            (n_out, n_in), out = row[1], row[2]
            params += n_out * n_in
            macs += out[0] * n_out * n_in
        elif row[0] == "bn":
            params += 2 * row[1][0]
    if name == "smaug-lstm":
        # lstm.py declares four weight tensors (w0, u0, w1, u1), each used at every step.
        params = 4 * 128 * 32
    return params, macs


def test_all_eight_registered():
    assert list(SMAUG_NETWORKS) == list(SMAUG_LAYERS)
    for name in SMAUG_LAYERS:
        assert WORKLOADS[name].family == "smaug"


@pytest.mark.parametrize("name", list(SMAUG_LAYERS))
def test_params_macs_and_shapes_match_smaugs_graph(name):
    g = build_workload(name, batch=1, dtype="fp16")
    g.validate()
    ops = list(g)
    rows = SMAUG_LAYERS[name]
    # SMAUG's operator count and order (activations fused as in SMAUG's graph).
    tags = [("add" if o.attrs.get("fn") == "add" else "mul")
            if o.kind == "elementwise" else _TAG[o.kind] for o in ops]
    assert tags == [r[0] for r in rows]
    for op, row in zip(ops, rows, strict=True):
        assert all(t.dtype == "fp16" for t in (*op.inputs, *op.outputs))
        if len(row) == 3:
            assert op.outputs[0].shape == _nchw(row[2]), op.name
        if row[0] in ("conv", "fc"):
            assert all(t.role != "weight" or t.name.endswith((".weight", ".W", ".U"))
                       for t in op.inputs), "no biases"
    params, macs = _expected_params_macs(name)
    assert g.parameter_count == params
    assert sum(int(o.attrs.get("macs", 0)) for o in ops) == macs
    assert g.total_flops >= 2 * macs
    assert ops[-1].outputs[0].shape == _nchw(SMAUG_OUTPUT[name])
    assert SMAUG_EXPERIMENTS_COMMIT[:12] in g.metadata["source"]


def test_fused_activations_are_recorded():
    g = build_workload("smaug-elu16")
    convs = [o for o in g if o.kind == "conv2d"]
    assert len(convs) == 11
    assert all(o.attrs["activation"] == "elu" and o.attrs["elu_alpha"] == 0.1 for o in convs)
    lenet = list(build_workload("smaug-lenet5"))
    assert [o.attrs.get("activation") for o in lenet if o.kind in ("conv2d", "matmul")] \
        == ["relu", "relu", "relu", None]


def test_batch_scales_macs():
    one = sum(o.attrs.get("macs", 0) for o in build_workload("smaug-cnn10", batch=1))
    four = sum(o.attrs.get("macs", 0) for o in build_workload("smaug-cnn10", batch=4))
    assert four == 4 * one
