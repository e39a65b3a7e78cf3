"""The workload registry: every name builds, parameters pass through, errors list choices."""

import pytest

from archsim.compilers.graph.registry import WORKLOADS, build_workload, workload_params
from archsim.errors import ConfigError

REQUIRED = {"resnet50", "vgg16", "alexnet", "paradnn-fc", "paradnn-cnn", "paradnn-rnn",
            "bert-base", "albert-base", "minilm-l6", "llama-7b", "llama-70b", "gpt3-175b",
            "gpt-j-6b", "opt-13b"} | {f"fathom-{n}" for n in
                                      ["seq2seq", "memnet", "speech", "autoenc", "residual",
                                       "vgg", "alexnet", "deepq"]}


def test_every_required_name_is_registered_and_builds():
    assert REQUIRED <= set(WORKLOADS)
    for name, entry in WORKLOADS.items():
        g = build_workload(name)
        g.validate()
        assert len(g) > 0 and g.total_flops > 0, name
        assert entry.description


def test_parameters_pass_through():
    assert build_workload("ResNet50", batch=2).total_flops == \
        pytest.approx(2 * build_workload("resnet50").total_flops)
    assert build_workload("paradnn-fc", layers=8).metadata["layers"] == 8
    assert workload_params("bert-base") == {"batch": 1, "seq_len": 128, "dtype": "fp16"}


def test_llama_7b_graph_matches_the_released_checkpoint_without_norms():
    g = build_workload("llama-7b", new_tokens=16)
    # LLaMA-7B: 6,738,415,616 parameters, of which 65 RMS norms x 4096 are not modelled.
    assert g.parameter_count == 6_738_415_616 - 65 * 4096
    assert g.metadata["new_tokens"] == 16


def test_unknown_names_and_parameters_are_config_errors():
    with pytest.raises(ConfigError, match="unknown workload 'resnet51'") as info:
        build_workload("resnet51")
    assert info.value.field == "workload"
    assert "resnet50" in info.value.allowed and "fathom-deepq" in info.value.allowed
    with pytest.raises(ConfigError, match="workload 'vgg16' has no parameter 'seq_len'") as info:
        build_workload("vgg16", seq_len=3)
    assert "batch" in info.value.allowed
