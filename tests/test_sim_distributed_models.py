import pytest

from archsim.compilers.graph import get_transformer, transformer_graph
from archsim.errors import ConfigError
from archsim.sim.distributed import DLRMConfig, DLRMWorkload, LLMWorkload, dlrm_graph, get_workload


@pytest.mark.parametrize("name,seq", [("llama-7b", 2048), ("llama-70b", 4096),
                                      ("gpt3-175b", 2048)])
def test_training_flops_closed_form(name, seq):
    cfg = get_transformer(name)
    wl = LLMWorkload(cfg, seq_len=seq)
    batch = 3
    tokens = batch * seq
    # 6 x params x tokens for every weight that multiplies (input embedding excluded: a lookup)
    multiplying = cfg.num_layers * cfg.params_per_layer + cfg.vocab * cfg.hidden
    attention = 12 * cfg.num_layers * tokens * seq * cfg.hidden  # 3 x (QK^T + PV), no causal 1/2
    matmul_attn = sum(o.flops for o in wl.layer_ops if o.kind in ("matmul", "attention"))
    assert 3 * batch * (cfg.num_layers * matmul_attn + wl.head_op.flops) == pytest.approx(
        6 * multiplying * tokens + attention, rel=1e-12)
    # norms/activations/adds are a small extra on top
    assert wl.training_flops(batch) > 6 * multiplying * tokens + attention
    assert wl.training_flops(batch) < 1.01 * (6 * multiplying * tokens + attention)


@pytest.mark.parametrize("name", ["llama-13b", "gpt3-175b"])
def test_training_flops_equal_the_shared_graph(name):
    cfg = get_transformer(name)
    seq, batch = 1024, 2
    wl = LLMWorkload(cfg, seq_len=seq)
    g = transformer_graph(cfg, batch=batch, new_tokens=seq, include_lm_head=False, dtype="bf16")
    head = 2 * batch * seq * cfg.hidden * cfg.vocab  # training computes every position's logits
    assert wl.training_flops(batch) == pytest.approx(3 * (g.total_flops + head), rel=1e-12)


def test_dlrm_graph_and_parameters():
    cfg = DLRMConfig("tiny", (100, 2000, 30), 16, (13, 64, 16), (32, 1), pooling_factor=2.0)
    f = 4  # 3 tables + dense
    assert cfg.interaction_width == f * (f - 1) // 2 + 16
    mlp = [(13, 64), (64, 16), (cfg.interaction_width, 32), (32, 1)]
    assert cfg.mlp_params == sum(i * o + o for i, o in mlp)
    assert cfg.embedding_params == (100 + 2000 + 30) * 16
    b = 8
    g = dlrm_graph(cfg, batch=b)
    by_kind = g.flops_by_kind()
    assert by_kind["matmul"] == pytest.approx(2 * b * sum(i * o for i, o in mlp)
                                              + 2 * b * f * f * 16)
    assert by_kind["embedding"] == pytest.approx(3 * b * 2.0 * 16)
    wl = DLRMWorkload(cfg)
    assert wl.per_sample["emb_flops"] == pytest.approx(3 * 2.0 * 16)
    assert wl.pooled_bytes_per_sample() == 3 * 16 * 4


def test_mlperf_dlrm_preset_size():
    # MLPerf DLRM on Criteo 1TB: about 204M embedding rows of dimension 128
    wl = get_workload("dlrm-mlperf")
    assert sum(wl.model.table_rows) == 204_184_588
    assert wl.model.num_tables == 26


def test_bad_model_inputs():
    with pytest.raises(ConfigError, match="unknown model 'gpt5'"):
        get_workload("gpt5")
    with pytest.raises(ConfigError, match="must be a positive integer"):
        LLMWorkload("llama-7b", seq_len=0)
    with pytest.raises(ConfigError, match="bottom_mlp must end at embedding_dim 16"):
        DLRMConfig("bad", (10,), 16, (13, 8), (1,))
    with pytest.raises(ConfigError, match="needs at least one table"):
        DLRMConfig("bad", (), 16, (13, 16), (1,))
