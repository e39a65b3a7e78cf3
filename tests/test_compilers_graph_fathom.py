"""The eight Fathom workloads against closed forms of the reference code's layer sizes
(github.com/rdadolf/fathom) and the published DQN shapes (Mnih et al. 2015, Methods)."""

import pytest

from archsim.compilers.graph.fathom import (
    FATHOM_WORKLOADS,
    fathom_autoenc,
    fathom_deepq,
    fathom_memnet,
    fathom_residual,
    fathom_seq2seq,
    fathom_speech,
    fathom_workload,
)
from archsim.errors import ConfigError


def _matmul_flops(g):
    return sum(op.flops for op in g if op.kind == "matmul")


def test_the_eight_workloads_build_and_are_acyclic():
    assert set(FATHOM_WORKLOADS) == {"seq2seq", "memnet", "speech", "autoenc", "residual",
                                     "vgg", "alexnet", "deepq"}
    for name in FATHOM_WORKLOADS:
        g = fathom_workload("fathom-" + name, batch=2)
        g.validate()
        assert g.metadata["batch"] == 2
        assert "rdadolf/fathom" in g.metadata["source"]
        assert g.total_flops > 0


def test_deepq_matches_the_dqn_architecture():
    g = fathom_deepq(batch=32)
    # Mnih et al. 2015: 20x20x32, 9x9x64, 7x7x64 feature maps, 512 hidden units.
    assert g["conv1"].outputs[0].shape == (32, 32, 20, 20)
    assert g["conv2"].outputs[0].shape == (32, 64, 9, 9)
    assert g["conv3"].outputs[0].shape == (32, 64, 7, 7)
    assert g["fc5"].outputs[0].shape == (32, 4)
    params = ((8 * 8 * 4 * 32 + 32) + (4 * 4 * 32 * 64 + 64) + (3 * 3 * 64 * 64 + 64)
              + (3136 * 512 + 512) + (512 * 4 + 4))
    assert g.parameter_count == params == 1_686_180
    macs = 32 * (20 * 20 * 32 * 8 * 8 * 4 + 9 * 9 * 64 * 4 * 4 * 32 + 7 * 7 * 64 * 3 * 3 * 64
                 + 3136 * 512 + 512 * 4)
    assert sum(op.attrs.get("macs", 0) for op in g) == macs


def test_alexnet_and_vgg_follow_the_reference_code():
    a = fathom_workload("alexnet")
    assert a["pool1"].outputs[0].shape == (64, 64, 27, 27)
    assert a["fc1"].attrs["k"] == 6 * 6 * 256
    assert len(a.by_kind()["norm"]) == 2  # two LRNs
    v = fathom_workload("vgg")
    assert len(v.by_kind()["conv2d"]) == 12  # block 3 has conv3_1 and conv3_2 only
    assert v["fc6"].attrs["k"] == 7 * 7 * 512
    assert v["fc8"].outputs[0].shape == (8, 1001)


def test_residual_stays_at_56x56_as_written():
    g = fathom_residual(batch=1)
    convs = g.by_kind()["conv2d"]
    assert len(convs) == 1 + 1 + 4 * 3 * 3 + 3
    assert all(op.outputs[0].shape[2:] == (56, 56) for op in convs[1:])
    params = 7 * 7 * 3 * 64 + 64 + 64 * 128 + 128
    widths = [(128, 32), (256, 64), (512, 128), (1024, 256)]
    for i, (f, b) in enumerate(widths):
        params += 3 * (f * b + b + 9 * b * b + b + b * f + f)
        if i < 3:
            params += f * widths[i + 1][0]
    params += 1024 * 1001
    assert g.parameter_count == params


def test_speech_flops_closed_form():
    b, t, h = 2, 100, 64
    g = fathom_speech(batch=b, max_frames=t, hidden=h)
    fc = 2 * b * t * (26 * h + 2 * h * h + h * 62)
    rnn = 2 * (2 * b * t * h * (h + h) + b * t * h)  # two directions, clipped-ReLU cells
    elementwise = 3 * b * t * h + b * t * h  # three clipped ReLUs, the direction sum
    assert g.total_flops == fc + rnn + elementwise
    assert g["fc5"].outputs[0].shape == (b, t, 62)


def test_autoenc_flops_and_parameters():
    g = fathom_autoenc(batch=128)
    assert g.total_flops == 2 * 128 * (784 * 200 * 2 + 200 * 784) + 4 * 128 * 200
    assert g.parameter_count == 2 * (784 * 200 + 200) + 200 * 784 + 784


def test_memnet_shares_weights_across_hops():
    g = fathom_memnet()
    e, v, m = 20, 20, 10
    # A, B, TA, H (shared by the three hops), W; the position encoding is a constant.
    assert g.parameter_count == 2 * v * e + m * e + e * e + e * v
    assert sum(1 for op in g if any(t.name == "H" for t in op.inputs)) == 3
    assert g["answer"].outputs[0].shape == (32, v)


def test_seq2seq_vocabulary_projection_and_recurrences():
    g = fathom_seq2seq()
    assert g["vocab_proj"].flops == 2 * 64 * 50 * 256 * 40000
    lstms = g.by_kind()["recurrent"]
    assert [op.attrs["seq_len"] for op in lstms] == [40] * 3 + [50] * 3
    assert g["attention"].attrs["kv_len"] == 40
    # Matmul share: the vocabulary projection dominates a 40,000-word decoder.
    assert g["vocab_proj"].flops / _matmul_flops(g) > 0.9


def test_bad_names_and_sizes_are_config_errors():
    with pytest.raises(ConfigError, match="unknown Fathom workload 'fathom-lenet'") as info:
        fathom_workload("fathom-lenet")
    assert "seq2seq" in info.value.allowed
    with pytest.raises(ConfigError, match="must be a positive integer, not -1"):
        fathom_workload("memnet", batch=-1)
