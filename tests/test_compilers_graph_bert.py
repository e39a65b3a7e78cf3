"""BERT-base, ALBERT-base and MiniLM-L6: parameter counts reconciled with the released
checkpoints, ALBERT's sharing and its FLOPs as closed forms."""

import pytest

from archsim.compilers.graph import get_transformer, transformer_graph
from archsim.compilers.graph.bert import albert_base, bert_base, minilm_l6, share_layer_weights
from archsim.errors import ConfigError


def _not_modelled(h, layers, *, pos=512, ffn, pooler=True, emb_dim=None):
    """Position + segment embeddings, embedding LN, biases and LNs of ``layers`` layers,
    and the pooler: what a released BERT-family checkpoint has beyond the matrices."""
    e = emb_dim or h
    per_layer = 3 * h + h + 2 * h + ffn + h + 2 * h  # qkv, out, LN1, inter, out, LN2
    return pos * e + 2 * e + 2 * e + layers * per_layer + (h * h + h if pooler else 0)


def _matmul_flops(g):
    return sum(op.flops for op in g if op.kind == "matmul")


def test_bert_base_reconciles_with_bert_base_uncased():
    g = bert_base()
    assert g.parameter_count == 30522 * 768 + 12 * (4 * 768 * 768 + 2 * 768 * 3072)
    # bert-base-uncased: 109,482,240 parameters.
    assert g.parameter_count + _not_modelled(768, 12, ffn=3072) == 109_482_240


def test_minilm_l6_reconciles_with_all_minilm_l6_v2():
    g = minilm_l6()
    assert g.parameter_count + _not_modelled(384, 6, ffn=1536) == 22_713_216
    assert len([op for op in g if op.name.endswith(".qkv")]) == 6


def test_albert_shares_layers_but_keeps_twelve_layers_of_flops():
    a, b = albert_base(seq_len=128), bert_base(seq_len=128)
    # albert-base-v2: 11,683,584 parameters ("12M" in Lan et al. 2020, Table 1); one layer
    # of biases/LNs is shared too, plus the 128->768 projection bias.
    assert a.parameter_count == 30000 * 128 + 128 * 768 + (4 * 768 * 768 + 2 * 768 * 3072)
    assert a.parameter_count + _not_modelled(768, 1, ffn=3072, emb_dim=128) + 768 \
        == 11_683_584
    tok = 128
    layer_mm = 2 * tok * (4 * 768 * 768 + 2 * 768 * 3072)
    assert _matmul_flops(b) == 12 * layer_mm
    assert _matmul_flops(a) == 12 * layer_mm + 2 * tok * 128 * 768
    assert a.flops_by_kind()["attention"] == b.flops_by_kind()["attention"] \
        == 12 * 4 * tok * tok * 768
    qkv_weights = {op.inputs[1].name for op in a if op.name.endswith(".qkv")}
    assert qkv_weights == {"shared.w_qkv"}
    assert a["embed_proj"].outputs[0].shape == (tok, 768)


def test_share_layer_weights_removes_all_but_one_layer():
    cfg = get_transformer("bert-base").scaled(num_layers=3)
    g = transformer_graph(cfg, batch=1, new_tokens=8, include_lm_head=False)
    s = share_layer_weights(g)
    assert g.parameter_count - s.parameter_count == 2 * cfg.params_per_layer
    assert s.total_flops == g.total_flops
    assert [op.name for op in s] == [op.name for op in g]


def test_bad_sequence_lengths_are_config_errors():
    with pytest.raises(ConfigError, match="seq_len 1024 exceeds bert-base's maximum 512"):
        bert_base(seq_len=1024)
    with pytest.raises(ConfigError, match="must be a positive integer, not 0") as info:
        albert_base(seq_len=0)
    assert info.value.field == "seq_len"
