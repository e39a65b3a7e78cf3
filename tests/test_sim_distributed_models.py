import pytest

from archsim.compilers.graph import DLRMConfig, Operator, get_transformer, transformer_graph
from archsim.errors import ConfigError
from archsim.sim.distributed import DLRMWorkload, LLMWorkload, get_workload, tp_splits


@pytest.mark.parametrize("name,seq", [("llama-7b", 2048), ("llama-70b", 4096),
                                      ("gpt3-175b", 2048)])
def test_training_flops_closed_form(name, seq):
    cfg = get_transformer(name)
    wl = LLMWorkload(model=cfg, seq_len=seq)
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
    wl = LLMWorkload(model=cfg, seq_len=seq)
    g = transformer_graph(cfg, batch=batch, new_tokens=seq, include_lm_head=False, dtype="bf16")
    head = 2 * batch * seq * cfg.hidden * cfg.vocab  # training computes every position's logits
    assert wl.training_flops(batch) == pytest.approx(3 * (g.total_flops + head), rel=1e-12)


def test_mlperf_dlrm_preset_size():
    # MLPerf DLRM on Criteo 1TB: about 204M embedding rows of dimension 128
    wl = get_workload("dlrm-mlperf")
    assert sum(wl.model.table_rows) == 204_184_588
    assert wl.model.num_tables == 26


def test_bad_model_inputs():
    with pytest.raises(ConfigError, match="unknown model 'gpt5'"):
        get_workload("gpt5")
    with pytest.raises(ConfigError, match="must be a positive integer"):
        LLMWorkload(model="llama-7b", seq_len=0)


def test_dlrm_workload_per_sample_work():
    cfg = DLRMConfig(name="tiny", table_rows=(100, 2000, 30), embedding_dim=16,
                     bottom_mlp=(13, 64, 16), top_mlp=(32, 1), pooling_factor=2.0)
    wl = DLRMWorkload(model=cfg)
    assert wl.per_sample["emb_flops"] == pytest.approx(3 * 2.0 * 16)
    assert wl.pooled_bytes_per_sample() == 3 * 16 * 4


def test_llm_operators_are_the_shared_graph_operators():
    wl = LLMWorkload(model="llama-7b", seq_len=256)
    g = transformer_graph(get_transformer("llama-7b"), batch=1, new_tokens=256, dtype="bf16",
                          include_lm_head=False, layers=1)
    assert [o.name for o in wl.layer_ops] == [o.name for o in g if o.kind != "embedding"]
    assert all(isinstance(o, Operator) for o in wl.layer_ops)
    # Megatron splits matmuls, attention and activations over TP; norms and adds are replicated
    assert {o.kind for o in wl.layer_ops if tp_splits(o)} == {"matmul", "attention", "activation"}
    assert {o.kind for o in wl.layer_ops if not tp_splits(o)} <= {"norm", "elementwise"}
