"""DLRM-style recommendation models: configurations, presets and their operator graph.

A DLRM (Naumov et al. 2019, arXiv:1906.00091) sends sparse features through
embedding tables (one pooled lookup per table), dense features through a bottom
MLP, takes the pairwise dot products of all the resulting vectors and feeds them
with the dense vector to a top MLP. Training, serving and near-data studies all
build it from here: ``dlrm_graph(get_dlrm("dlrm-mlperf"), batch=2048)``.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, model_validator

from ...errors import ConfigError
from .ir import Operator, TensorSpec, WorkloadGraph, dtype_bytes, matmul

__all__ = ["DLRMConfig", "DLRM_PRESETS", "DLRMSampleWork", "get_dlrm", "dlrm_graph",
           "dlrm_sample_work"]


class DLRMConfig(BaseModel):
    """A DLRM's shape (keyword-only, validated).

    Parameters
    ----------
    name
        Preset or model name.
    table_rows
        Rows of each embedding table.
    embedding_dim
        Width of every embedding vector (and of the bottom MLP's output).
    bottom_mlp
        Layer widths of the bottom MLP, starting with the dense-feature count and ending
        at ``embedding_dim``.
    top_mlp
        Layer widths after the interaction (its input width is derived).
    pooling_factor
        Mean lookups per table per sample (1 = one-hot).
    source
        Where the configuration comes from.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    table_rows: tuple[int, ...]
    embedding_dim: int
    bottom_mlp: tuple[int, ...]
    top_mlp: tuple[int, ...]
    pooling_factor: float = 1.0
    source: str = ""

    @model_validator(mode="after")
    def _check(self) -> DLRMConfig:
        # ConfigError (not ValueError) passes through pydantic unchanged, with its field.
        if not self.table_rows or min(self.table_rows) <= 0:
            raise ConfigError("needs at least one table, all with rows > 0", field="table_rows")
        if self.embedding_dim <= 0 or self.pooling_factor <= 0:
            raise ConfigError("embedding_dim and pooling_factor must be > 0",
                              field="embedding_dim")
        if len(self.bottom_mlp) < 2 or self.bottom_mlp[-1] != self.embedding_dim:
            raise ConfigError(f"bottom_mlp must end at embedding_dim {self.embedding_dim}",
                              field="bottom_mlp")
        if not self.top_mlp:
            raise ConfigError("top_mlp needs at least one layer", field="top_mlp")
        return self

    @property
    def num_tables(self) -> int:
        return len(self.table_rows)

    @property
    def interaction_width(self) -> int:
        """Top-MLP input: ``F(F-1)/2`` pairwise dots of ``F = tables + 1`` vectors plus the dense
        vector."""
        f = self.num_tables + 1
        return f * (f - 1) // 2 + self.embedding_dim

    @property
    def mlp_layers(self) -> list[tuple[int, int]]:
        """``(in, out)`` widths of every MLP layer, bottom first."""
        bottom = list(zip(self.bottom_mlp[:-1], self.bottom_mlp[1:], strict=True))
        widths = (self.interaction_width, *self.top_mlp)
        return bottom + list(zip(widths[:-1], widths[1:], strict=True))

    @property
    def num_bottom_layers(self) -> int:
        return len(self.bottom_mlp) - 1

    @property
    def mlp_params(self) -> int:
        """MLP weights and biases."""
        return sum(i * o + o for i, o in self.mlp_layers)

    @property
    def embedding_params(self) -> int:
        return sum(self.table_rows) * self.embedding_dim

    @property
    def num_params(self) -> int:
        return self.mlp_params + self.embedding_params


# Criteo Terabyte row counts (with MLPerf's 40M-row cap) from the MLPerf Training DLRM
# reference (v1.0: dim 128, bottom 13-512-256-128, top 1024-1024-512-256-1, one-hot).
_CRITEO_TB_ROWS = (40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956,
                   405282, 10, 2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000,
                   590152, 12973, 108, 36)

DLRM_PRESETS: dict[str, DLRMConfig] = {c.name: c for c in [
    DLRMConfig(name="dlrm-mlperf", table_rows=_CRITEO_TB_ROWS, embedding_dim=128,
               bottom_mlp=(13, 512, 256, 128), top_mlp=(1024, 1024, 512, 256, 1),
               pooling_factor=1.0,
               source="MLPerf Training v1.0 DLRM reference on Criteo Terabyte"),
    # Not a published configuration: a synthetic production-scale multi-hot model (the
    # production models MAD-Max studies are not public). 256 tables x 10M rows, dim 128,
    # 32 lookups per table per sample.
    DLRMConfig(name="dlrm-prod-synthetic", table_rows=(10_000_000,) * 256, embedding_dim=128,
               bottom_mlp=(1024, 512, 256, 128), top_mlp=(2048, 2048, 1024, 512, 1),
               pooling_factor=32.0,
               source="archsim synthetic production-scale DLRM (assumption, see docstring)"),
]}


def get_dlrm(name: str) -> DLRMConfig:
    """Look up a DLRM preset by name."""
    try:
        return DLRM_PRESETS[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown DLRM model '{name}'", field="model",
                          allowed=sorted(DLRM_PRESETS)) from None


def dlrm_graph(cfg: DLRMConfig, *, batch: int, dtype: str = "fp32") -> WorkloadGraph:
    """The forward operator graph of a DLRM on ``batch`` samples (one pooled lookup operator
    per table, the MLPs as matmuls with ReLU, the dot interaction as a batched matmul)."""
    if batch <= 0:
        raise ConfigError(f"must be a positive integer, not {batch!r}", field="batch")
    g = WorkloadGraph(f"{cfg.name}-b{batch}", metadata={"model": cfg.name, "batch": batch})
    d = cfg.embedding_dim
    lookups = batch * cfg.pooling_factor
    pooled = []
    for i, rows in enumerate(cfg.table_rows):
        idx = TensorSpec(f"idx{i}", (math.ceil(lookups),), "int64", role="input")
        table = TensorSpec(f"table{i}", (rows, d), dtype, role="weight")
        out = TensorSpec(f"emb{i}", (batch, d), dtype)
        # Sum pooling: one add per looked-up element; the bytes are the rows read, not the table.
        g.add(Operator(f"sls{i}", "embedding", (idx, table), (out,), lookups * d,
                       {"rows_read": lookups, "table_rows": rows}))
        pooled.append(out)

    def mlp(prefix: str, x: TensorSpec, widths: list[tuple[int, int]]) -> TensorSpec:
        for j, (i_w, o_w) in enumerate(widths):
            w = TensorSpec(f"{prefix}{j}.w", (i_w, o_w), dtype, role="weight")
            op = g.add(matmul(f"{prefix}{j}", x, w, f"{prefix}{j}.y", m=batch, n=o_w, k=i_w,
                              out_dtype=dtype))
            y = TensorSpec(f"{prefix}{j}.a", (batch, o_w), dtype)
            g.add(Operator(f"{prefix}{j}.relu", "activation", op.outputs, (y,), float(batch * o_w)))
            x = y
        return x

    n_bottom = cfg.num_bottom_layers
    dense = TensorSpec("dense", (batch, cfg.bottom_mlp[0]), dtype, role="input")
    z = mlp("bot", dense, cfg.mlp_layers[:n_bottom])
    f = cfg.num_tables + 1
    feats = TensorSpec("features", (batch, f, d), dtype)
    g.add(Operator("concat", "data_movement", (z, *pooled), (feats,), 0.0))
    dots = TensorSpec("dots", (batch, f, f), dtype)
    g.add(Operator("interaction", "matmul", (feats,), (dots,), 2.0 * batch * f * f * d,
                   {"m": f, "n": f, "k": d, "batch": batch}))
    inter = TensorSpec("interaction_out", (batch, cfg.interaction_width), dtype)
    g.add(Operator("flatten", "data_movement", (dots, z), (inter,), 0.0))
    mlp("top", inter, cfg.mlp_layers[n_bottom:])
    return g


class DLRMSampleWork(BaseModel):
    """Forward work of one sample, split into the dense part and the embedding lookups.

    ``dense_act_bytes`` counts every dense operator's activation inputs and outputs (weights
    excluded); ``emb_bytes`` the embedding rows read plus the pooled outputs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    dense_flops: float
    dense_act_bytes: float
    emb_flops: float
    emb_bytes: float


def dlrm_sample_work(cfg: DLRMConfig, *, dtype: str = "fp32",
                     batch: int = 1024) -> DLRMSampleWork:
    """Per-sample forward work of ``cfg``, read from the graph of a ``batch``-sample batch."""
    g = dlrm_graph(cfg, batch=batch, dtype=dtype)
    b = dtype_bytes(dtype)
    dense_flops = dense_bytes = emb_bytes = emb_flops = 0.0
    for op in g:
        if op.kind == "embedding":
            emb_flops += op.flops
            emb_bytes += op.attrs["rows_read"] * cfg.embedding_dim * b + op.output_bytes
        elif op.kind != "data_movement":
            dense_flops += op.flops
            dense_bytes += op.input_bytes - op.weight_bytes + op.output_bytes
    return DLRMSampleWork(dense_flops=dense_flops / batch, dense_act_bytes=dense_bytes / batch,
                          emb_flops=emb_flops / batch, emb_bytes=emb_bytes / batch)
