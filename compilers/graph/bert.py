"""BERT-family encoders: BERT-base, ALBERT-base (shared layers, factorized embedding) and
MiniLM-L6, built on :func:`~archsim.compilers.graph.transformer.transformer_graph`.

Like :mod:`.transformer`, the graphs model the weight matrices (embeddings, QKV, output
projection, MLP) and the token-level work; position and segment embeddings, biases,
layer-norm parameters and the pooler are not modelled. Each builder's docstring reconciles
its ``parameter_count`` with the released checkpoint. No LM head is included: these are
encoders producing hidden states.
"""

from __future__ import annotations

from dataclasses import replace

from ...errors import ConfigError
from .cnn import positive_int
from .ir import Operator, TensorSpec, WorkloadGraph, matmul
from .transformer import TransformerConfig, get_transformer, transformer_graph

__all__ = ["ALBERT_BASE", "ALBERT_EMBEDDING_SIZE", "bert_base", "albert_base", "minilm_l6",
           "share_layer_weights"]

#: ALBERT-base (Lan et al. 2020, Table 1; released ``albert-base-v2`` config): 12 layers,
#: hidden 768, 12 heads, FFN 3072, 30,000-token SentencePiece vocabulary.
ALBERT_BASE = TransformerConfig(
    name="albert-base", num_layers=12, hidden=768, num_heads=12, ffn_hidden=3072,
    vocab=30000, decoder=False, tied_embeddings=True, max_seq_len=512,
    source="Lan et al. 2020, ALBERT-base (albert-base-v2 config)")

#: ALBERT's factorized embedding size E (the vocabulary is embedded in E, then projected
#: to the hidden size H).
ALBERT_EMBEDDING_SIZE = 128


def _encoder(cfg: TransformerConfig, batch: int, seq_len: int, dtype: str) -> WorkloadGraph:
    positive_int("seq_len", seq_len)
    if seq_len > cfg.max_seq_len:
        raise ConfigError(f"seq_len {seq_len} exceeds {cfg.name}'s maximum {cfg.max_seq_len}",
                          field="seq_len")
    g = transformer_graph(cfg, batch=batch, new_tokens=seq_len, dtype=dtype,
                          include_lm_head=False)
    g.metadata.update(seq_len=seq_len, source=cfg.source)
    return g


def bert_base(batch: int = 1, *, seq_len: int = 128, dtype: str = "fp16") -> WorkloadGraph:
    """BERT-base (Devlin et al. 2019) encoder over ``seq_len`` tokens.

    ``parameter_count`` is 108,375,552 (word embeddings 23,440,896 + 12 x 7,077,888 layer
    matrices). The released ``bert-base-uncased`` has 109,482,240: the difference is
    position (393,216) and segment (1,536) embeddings, the embedding layer norm (1,536),
    12 x 9,984 biases and layer-norm parameters, and the pooler (590,592).
    """
    return _encoder(get_transformer("bert-base"), batch, seq_len, dtype)


def minilm_l6(batch: int = 1, *, seq_len: int = 128, dtype: str = "fp16") -> WorkloadGraph:
    """MiniLM-L6 (``all-MiniLM-L6-v2``: 6 layers, hidden 384, 12 heads, FFN 1536).

    ``parameter_count`` is 22,337,280 (word embeddings 11,720,448 + 6 x 1,769,472); the
    released checkpoint's 22,713,216 adds position (196,608) and segment (768) embeddings,
    the embedding layer norm (768), 6 x 4,992 biases and layer-norm parameters and the
    pooler (147,840).
    """
    return _encoder(get_transformer("minilm-l6"), batch, seq_len, dtype)


def share_layer_weights(graph: WorkloadGraph, *, name: str | None = None) -> WorkloadGraph:
    """A copy of a :func:`transformer_graph` graph whose layers all use layer 0's weights.

    Weight tensors named ``l<i>.<w>`` are renamed ``shared.<w>``, so
    :attr:`WorkloadGraph.parameter_count` counts them once while every layer's FLOPs stay.
    """
    out = WorkloadGraph(name or graph.name, metadata=dict(graph.metadata))
    for op in graph:
        inputs = tuple(_shared(t) for t in op.inputs)
        out.add(replace(op, inputs=inputs, attrs=dict(op.attrs)))
    out.metadata["shared_layers"] = True
    return out


def _shared(t: TensorSpec) -> TensorSpec:
    if t.role != "weight" or not t.name.startswith("l"):
        return t
    layer, dot, rest = t.name.partition(".")
    if not dot or not layer[1:].isdigit():
        return t
    return replace(t, name=f"shared.{rest}")


def albert_base(batch: int = 1, *, seq_len: int = 128, dtype: str = "fp16") -> WorkloadGraph:
    """ALBERT-base (Lan et al. 2020): 12 layers sharing one set of weights, and a factorized
    embedding (30,000 x 128 table, then a 128 x 768 projection).

    FLOPs are those of 12 BERT-base-shaped layers plus the embedding projection;
    ``parameter_count`` is 11,016,192 (3,840,000 embedding + 98,304 projection + one
    layer's 7,077,888). The released ``albert-base-v2`` has 11,683,584: the rest is
    position (65,536) and segment (256) embeddings, the embedding layer norm (256), the
    projection bias (768), one layer's 9,984 biases and layer-norm parameters and the
    pooler (590,592).
    """
    cfg = ALBERT_BASE
    base = _encoder(cfg, batch, seq_len, dtype)
    e = ALBERT_EMBEDDING_SIZE
    tok = batch * seq_len
    g = WorkloadGraph(base.name, metadata=dict(base.metadata))
    for op in share_layer_weights(base):
        if op.name != "embed":
            g.add(op)
            continue
        ids, _table = op.inputs
        small = TensorSpec("x_emb", (tok, e), dtype)
        table = TensorSpec("embedding", (cfg.vocab, e), dtype, role="weight")
        g.add(Operator("embed", "embedding", (ids, table), (small,), 0.0,
                       {"rows": tok, "vocab": cfg.vocab, "dim": e}))
        g.add(matmul("embed_proj", small,
                     TensorSpec("embedding_proj", (e, cfg.hidden), dtype, role="weight"),
                     op.outputs[0].name, m=tok, n=cfg.hidden, k=e))
    g.metadata.update(shared_layers=True, embedding_size=e)
    return g
