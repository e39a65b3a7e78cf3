"""The workload-graph representation and the transformer builders."""

import pytest

from archsim.compilers.graph import (
    Operator,
    TensorSpec,
    WorkloadGraph,
    get_transformer,
    matmul,
    transformer_graph,
)
from archsim.errors import ConfigError


def test_tensor_bytes_follow_dtype():
    t = TensorSpec("x", (4, 8, 16), "bf16")
    assert t.numel == 4 * 8 * 16
    assert t.nbytes == 4 * 8 * 16 * 2
    assert TensorSpec("w", (3, 5), "int4", role="weight").nbytes == 7.5


def test_bad_tensor_and_operator_are_rejected_with_the_field():
    with pytest.raises(ConfigError, match="unknown data type 'fp7'"):
        TensorSpec("x", (2,), "fp7")
    with pytest.raises(ConfigError, match="negative dimension"):
        TensorSpec("x", (2, -1))
    with pytest.raises(ConfigError, match="unsupported kind 'fft'") as info:
        Operator("f", "fft", (), (), 0.0)
    assert info.value.field == "kind"
    assert "matmul" in info.value.allowed


def test_edges_follow_tensor_names_and_order_is_topological():
    g = WorkloadGraph("tiny")
    a = TensorSpec("a", (2, 3))
    w1 = TensorSpec("w1", (3, 4), role="weight")
    w2 = TensorSpec("w2", (4, 5), role="weight")
    op2 = matmul("fc2", TensorSpec("h", (2, 4)), w2, "y", m=2, n=5, k=4)
    op1 = matmul("fc1", a, w1, "h", m=2, n=4, k=3)
    g.add(op1)
    g.add(op2)
    assert [op.name for op in g] == ["fc1", "fc2"]
    assert [p.name for p in g.predecessors("fc2")] == ["fc1"]
    assert g.total_flops == 2 * 2 * 4 * 3 + 2 * 2 * 5 * 4
    assert g.parameter_count == 3 * 4 + 4 * 5
    with pytest.raises(ConfigError, match="already has an operator named 'fc1'"):
        g.add(op1)


def test_a_tensor_produced_twice_is_an_error():
    g = WorkloadGraph("dup")
    g.add(Operator("a", "activation", (TensorSpec("x", (1,)),), (TensorSpec("y", (1,)),), 1.0))
    with pytest.raises(ConfigError, match="tensor 'y' is produced by both 'a' and 'b'"):
        g.add(Operator("b", "activation", (TensorSpec("x", (1,)),), (TensorSpec("y", (1,)),), 1.0))


def test_llama_7b_parameter_count_matches_the_released_checkpoint():
    cfg = get_transformer("llama-7b")
    # The released LLaMA-7B checkpoint has 6,738,415,616 parameters; archsim counts matrices
    # only, so add the RMSNorm weights (2 per layer + the final one, each of width hidden).
    norms = (2 * cfg.num_layers + 1) * cfg.hidden
    assert cfg.num_params + norms == 6_738_415_616


def test_gpt3_is_175_billion_parameters():
    assert get_transformer("gpt3-175b").num_params == pytest.approx(175e9, rel=0.005)


def test_kv_cache_per_token_matches_the_vllm_paper_figure_for_opt_13b():
    # vLLM (Kwon et al. 2023), section 3: 2 x 5120 x 40 x 2 bytes = 800 KB per token.
    assert get_transformer("opt-13b").kv_cache_bytes_per_token("fp16") == 2 * 5120 * 40 * 2


def test_grouped_query_attention_shrinks_the_kv_cache():
    cfg = get_transformer("llama-70b")
    assert cfg.kv_hidden == 8 * 128
    assert cfg.kv_cache_bytes_per_token("fp16") == 2 * 80 * 1024 * 2


@pytest.mark.parametrize("batch,new_tokens,context", [(1, 16, 16), (3, 1, 100), (2, 8, 40)])
def test_graph_flops_equal_the_closed_form(batch, new_tokens, context):
    cfg = get_transformer("llama-7b").scaled(num_layers=2)
    g = transformer_graph(cfg, batch=batch, new_tokens=new_tokens, context_len=context)
    matmul_and_attention = sum(op.flops for op in g if op.kind in ("matmul", "attention"))
    # Independent count: per token, each weight matrix costs 2 FLOPs per element; attention
    # costs 2 (QK^T) + 2 (PV) FLOPs per (query, key, hidden) triple; logits for the last token.
    h, f, v = cfg.hidden, cfg.ffn_hidden, cfg.vocab
    per_token = 2 * (4 * h * h + 3 * h * f)
    expected = (cfg.num_layers * (batch * new_tokens * per_token
                                  + 4 * batch * new_tokens * context * h)
                + 2 * batch * h * v)
    assert matmul_and_attention == expected
    assert cfg.forward_flops(batch=batch, new_tokens=new_tokens, context_len=context) == expected


def test_graph_weights_equal_the_parameter_count():
    cfg = get_transformer("gpt-j-6b")
    g = transformer_graph(cfg, batch=1, new_tokens=4)
    assert g.parameter_count == cfg.num_params


def test_unknown_model_lists_the_presets():
    with pytest.raises(ConfigError, match="unknown model 'llama-8b'") as info:
        get_transformer("llama-8b")
    assert "llama-7b" in info.value.allowed


def test_invalid_shapes_are_rejected():
    cfg = get_transformer("llama-7b")
    with pytest.raises(ConfigError, match="context_len 4 is shorter than new_tokens 8"):
        transformer_graph(cfg, batch=1, new_tokens=8, context_len=4)
    with pytest.raises(ConfigError, match="not divisible by num_heads"):
        cfg.scaled(num_heads=33)


def test_transformer_config_is_a_frozen_validated_model():
    from pydantic import ValidationError

    from archsim.compilers.graph import TransformerConfig

    cfg = TransformerConfig(name="t", num_layers=2, hidden=64, num_heads=8, ffn_hidden=128,
                            vocab=100)
    assert cfg.num_kv_heads == 8  # None resolves to num_heads
    assert cfg.scaled(num_kv_heads=2).kv_hidden == 2 * 8
    with pytest.raises(ValidationError):
        cfg.hidden = 128  # frozen
    with pytest.raises(ConfigError, match="must be a positive integer, not 0") as e:
        cfg.scaled(vocab=0)
    assert e.value.field == "vocab"


def test_unchecked_fast_constructors_build_the_checked_objects():
    # The serving engine's per-iteration operators skip re-validation; they must be the very
    # objects the validating constructors build (equal, same hash, same derived figures).
    from archsim.compilers.graph.transformer import _operator, _tensor
    from archsim.operators import Operator

    fast = _tensor("kv", (2, 3, 5), "bf16", "kv_cache")
    slow = TensorSpec("kv", (2, 3, 5), "bf16", role="kv_cache")
    assert fast == slow and hash(fast) == hash(slow) and fast.nbytes == slow.nbytes == 60
    out = TensorSpec("o", (3, 4), "bf16")
    op_fast = _operator("attn", "attention", (fast,), (out,), 12.0, {"layers": 2})
    op_slow = Operator("attn", "attention", (slow,), (out,), 12.0, {"layers": 2})
    assert op_fast == op_slow and op_fast.bytes_accessed == op_slow.bytes_accessed == 84


def test_validate_names_a_cycle_and_passes_a_dag():
    g = WorkloadGraph("g")
    a, b = TensorSpec("a", (2,)), TensorSpec("b", (2,))
    g.add(Operator("f", "elementwise", (a,), (b,), 2.0))
    g.add(Operator("h", "elementwise", (b,), (TensorSpec("c", (2,)),), 2.0))
    g.validate()
    g.nx_graph.add_edge("h", "f")  # only a caller editing the networkx graph makes a cycle
    with pytest.raises(ConfigError, match="graph 'g' has a cycle through"):
        g.validate()
