"""The eight DeepRecSys recommendation models (Gupta et al., ISCA 2020) and their operator graph.

Configurations are the authors' ``harvard-acc/DeepRecSys`` ``models/configs/*.json``; the model
structure follows the authors' Caffe2 builders (``models/dlrm_s_caffe2.py``, ``models/din.py``,
``models/dien.py``, ``models/wide_and_deep.py``, ``models/multi_task_wnd.py``,
``models/ncf.py``). Conventions shared with :mod:`.dlrm`: an embedding lookup is one
SparseLengthsSum operator per table (sum pooling, ``lookups * dim`` adds), an FC layer is a
:func:`~.ir.matmul` (``2*m*n*k`` FLOPs, bias not counted) followed by a ReLU.

Structure per family (``kind``):

* ``dlrm`` (RMC1-3, ``dlrm_s_caffe2.py``): bottom MLP on the dense features, concat with the
  pooled embeddings (``arch_interaction_op = cat``), top MLP.
* ``wnd`` / ``mtwnd`` (``wide_and_deep.py``, ``multi_task_wnd.py``): ``arch_mlp_bot`` is
  the dense width only (no layers, the authors assert it); the dense features are
  concatenated with the pooled embeddings into the top MLP (the authors' builders have no
  separate wide linear branch); MT-WnD then runs ``num_tasks`` towers of ``task_mlp`` widths
  over the shared top output (the tower string's first width is its input, asserted equal
  to the top MLP's last).
* ``ncf`` (``ncf.py``): tables 0-1 are the matrix-factorisation pair, summed (the authors'
  code sums, its comment says multiply); tables 2-3 are concatenated (``2d``) into the MLP
  ``2d -> top_mlp[:-1]`` (ReLU); the MF vector and the MLP output are concatenated into a
  final FC ``d + top_mlp[-2] -> top_mlp[-1]``. The dense input is unused.
* ``din``: tables = user profile, ``behavior_tables`` copies of the user-behaviour table,
  candidate ad, context (``utils/utils.py`` replicates the second table
  ``user_behavior_tables`` times; that script replicates before ``--config_file`` is
  applied, so a run given only the JSON would see 4 tables: this follows the JSON's stated
  250). Attention per behaviour (``din.py``
  ``create_attention_unit``): ``s = key + query``, FC over ``[key, query, s]``
  (``3d -> 1 -> d``, own weights per behaviour, ReLU), summed over behaviours; top MLP over
  ``[profile, attention, ad, context]`` (``4d``). The authors' unit is this, not the
  original DIN paper's ``[q, k, q*k, q-k]`` product form.
* ``dien``: the behaviour embeddings form a sequence of ``len(tables) - 3`` steps; a first
  GRU (hidden ``hidden_size`` = 64, ``utils/utils.py`` default), attention (FC
  ``hidden -> hidden``, softmax over the hidden axis, added to the GRU output, as in
  ``dien.py``), a second GRU standing for the attention-GRU; its last state is concatenated
  with profile, ad and context for the top MLP (``hidden + 3d``). The authors' code uses
  Caffe2 ``BasicRNN`` (tanh) cells for both layers; by default this graph uses GRU cells as
  the DIEN paper does (assumed; the GRU costs 3x the RNN cell's matmuls), and
  ``rnn_cell="rnn"`` gives the authors' cells.

The last layer of every MLP head gives logits (no ReLU); the authors apply ReLU after every
FC (assumed difference, it does not change FLOPs beyond one op per output).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from ...errors import ConfigError
from .cnn import RECURRENT_CELLS, recurrent
from .dlrm import DLRMSampleWork
from .ir import Operator, TensorSpec, WorkloadGraph, dtype_bytes, matmul

__all__ = ["RecModelConfig", "RECSYS_MODELS", "RECSSD_MODELS", "RECSYS_KINDS", "get_recsys",
           "recsys_graph", "recsys_sample_work", "operator_group", "gathered_bytes"]

RECSYS_KINDS = ("dlrm", "wnd", "mtwnd", "ncf", "din", "dien")

_Concat = Callable[[str, list[TensorSpec], int], TensorSpec]

_SRC = "harvard-acc/DeepRecSys models/configs/"


class RecModelConfig(BaseModel):
    """One DeepRecSys model's shape (keyword-only, validated, frozen).

    Parameters
    ----------
    name
        Display name (``DLRM-RMC1``...).
    kind
        Model family, one of :data:`RECSYS_KINDS`.
    table_rows
        Rows of each embedding table, in the order the model uses them (for DIN, after the
        behaviour table's replication).
    embedding_dim
        Width of every embedding row (``arch_sparse_feature_size``).
    lookups_per_table
        Indices per table per sample (``num_indices_per_lookup``, fixed).
    bottom_mlp
        ``arch_mlp_bot`` widths, dense input first (one width = no layers). For DIN it is the
        attention unit's hidden widths.
    top_mlp
        ``arch_mlp_top`` widths after the (derived) interaction width (for NCF the last
        width is the final predictor's, see the module docstring).
    task_mlp
        MT-WnD tower widths (``arch_mlp_tasks``), input first.
    num_tasks
        MT-WnD towers (``num_multi_tasks``, default 1).
    hidden_size
        DIEN GRU hidden width.
    rnn_cell
        DIEN's recurrent cell: ``"gru"`` (DIEN paper) or ``"rnn"`` (the authors' tanh
        ``BasicRNN``).
    source
        Where the numbers come from.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: Literal["dlrm", "wnd", "mtwnd", "ncf", "din", "dien"]
    table_rows: tuple[int, ...]
    embedding_dim: int
    lookups_per_table: int
    bottom_mlp: tuple[int, ...]
    top_mlp: tuple[int, ...]
    task_mlp: tuple[int, ...] = ()
    num_tasks: int = 1
    hidden_size: int = 64
    rnn_cell: Literal["gru", "rnn"] = "gru"
    source: str = ""

    @model_validator(mode="after")
    def _check(self) -> RecModelConfig:
        if not self.table_rows or min(self.table_rows) <= 0:
            raise ConfigError("needs at least one table, all with rows > 0", field="table_rows")
        for f in ("embedding_dim", "lookups_per_table", "num_tasks", "hidden_size"):
            if getattr(self, f) <= 0:
                raise ConfigError(f"must be > 0, not {getattr(self, f)!r}", field=f)
        for f in ("bottom_mlp", "top_mlp", "task_mlp"):
            if any(w <= 0 for w in getattr(self, f)):
                raise ConfigError("every width must be > 0", field=f)
        if not self.bottom_mlp or not self.top_mlp:
            raise ConfigError("needs at least one width", field="bottom_mlp"
                              if not self.bottom_mlp else "top_mlp")
        if self.kind in ("din", "dien") and self.num_tables < 4:
            raise ConfigError(f"{self.kind} needs at least 4 tables (profile, behaviour, ad, "
                              f"context), got {self.num_tables}", field="table_rows")
        if self.kind == "ncf" and (self.num_tables != 4 or len(self.top_mlp) < 2):
            raise ConfigError(f"ncf needs exactly 4 tables (2 matrix-factorisation, 2 MLP) and "
                              f"at least 2 top_mlp widths, got {self.num_tables} and "
                              f"{len(self.top_mlp)}", field="table_rows")
        if self.kind == "mtwnd" and (len(self.task_mlp) < 2
                                     or self.task_mlp[0] != self.top_mlp[-1]):
            raise ConfigError(f"mtwnd task_mlp must start at top_mlp's last width "
                              f"{self.top_mlp[-1]}", field="task_mlp")
        return self

    # derived shapes -----------------------------------------------------------------------
    @property
    def workload(self) -> str:
        """Registry name (``dlrm-rmc1``, ``mt-wnd``...)."""
        return self.name.lower()

    @property
    def num_tables(self) -> int:
        return len(self.table_rows)

    @property
    def behavior_tables(self) -> int:
        """DIN/DIEN behaviour tables (all but profile, ad, context); 0 for other kinds."""
        return self.num_tables - 3 if self.kind in ("din", "dien") else 0

    @property
    def bottom_layers(self) -> list[tuple[int, int]]:
        """``(in, out)`` of the bottom MLP (DLRM only; DIN's attention uses
        :attr:`attention_layers`)."""
        if self.kind != "dlrm":
            return []
        return list(zip(self.bottom_mlp[:-1], self.bottom_mlp[1:], strict=True))

    @property
    def attention_layers(self) -> list[tuple[int, int]]:
        """DIN's per-behaviour attention FCs, ``3d -> bottom_mlp... -> d``."""
        if self.kind != "din":
            return []
        w = (3 * self.embedding_dim, *self.bottom_mlp, self.embedding_dim)
        return list(zip(w[:-1], w[1:], strict=True))

    @property
    def interaction_width(self) -> int:
        """Width of the concat that feeds the top MLP."""
        d = self.embedding_dim
        if self.kind == "dlrm":
            return self.bottom_mlp[-1] + self.num_tables * d
        if self.kind in ("wnd", "mtwnd"):
            return self.bottom_mlp[0] + self.num_tables * d
        if self.kind == "ncf":
            return 2 * d  # the MLP branch's two tables
        if self.kind == "din":
            return 4 * d
        return self.hidden_size + 3 * d

    @property
    def top_layers(self) -> list[tuple[int, int]]:
        top = self.top_mlp[:-1] if self.kind == "ncf" else self.top_mlp
        w = (self.interaction_width, *top)
        return list(zip(w[:-1], w[1:], strict=True))

    @property
    def final_layers(self) -> list[tuple[int, int]]:
        """NCF's predictor over ``[MF sum, MLP output]``; empty for other kinds."""
        if self.kind != "ncf":
            return []
        return [(self.embedding_dim + self.top_mlp[-2], self.top_mlp[-1])]

    @property
    def task_layers(self) -> list[tuple[int, int]]:
        """One tower's ``(in, out)`` layers (MT-WnD)."""
        if self.kind != "mtwnd":
            return []
        return list(zip(self.task_mlp[:-1], self.task_mlp[1:], strict=True))

    @property
    def output_width(self) -> int:
        return self.task_mlp[-1] if self.kind == "mtwnd" else self.top_mlp[-1]

    @property
    def gru_params(self) -> int:
        """DIEN: both GRUs (W, R, one bias each) plus the attention FC."""
        if self.kind != "dien":
            return 0
        g, h, d = RECURRENT_CELLS[self.rnn_cell][0], self.hidden_size, self.embedding_dim
        return g * h * (d + h + 1) + g * h * (2 * h + 1) + h * h + h

    @property
    def dense_params(self) -> int:
        """FC weights and biases, GRU weights."""
        fc = sum(i * o + o for i, o in self.bottom_layers + self.top_layers + self.final_layers)
        fc += self.num_tasks * sum(i * o + o for i, o in self.task_layers)
        fc += self.behavior_tables * sum(i * o + o for i, o in self.attention_layers)
        return fc + self.gru_params

    @property
    def embedding_params(self) -> int:
        return sum(self.table_rows) * self.embedding_dim

    @property
    def num_params(self) -> int:
        return self.dense_params + self.embedding_params


def _cfg(**kw: object) -> RecModelConfig:
    return RecModelConfig.model_validate(kw)


_DIN_BEHAVIOR_TABLES = 250  # din.json "user_behavior_tables"

RECSYS_MODELS: dict[str, RecModelConfig] = {c.name: c for c in [
    _cfg(name="DLRM-RMC1", kind="dlrm", table_rows=(4_000_000,) * 8, embedding_dim=32,
         lookups_per_table=80, bottom_mlp=(128, 64, 32), top_mlp=(256, 64, 1),
         source=_SRC + "dlrm_rm1.json"),
    _cfg(name="DLRM-RMC2", kind="dlrm", table_rows=(500_000,) * 32, embedding_dim=64,
         lookups_per_table=120, bottom_mlp=(256, 128, 64), top_mlp=(128, 64, 1),
         source=_SRC + "dlrm_rm2.json"),
    _cfg(name="DLRM-RMC3", kind="dlrm", table_rows=(2_000_000,) * 10, embedding_dim=32,
         lookups_per_table=20, bottom_mlp=(2560, 1024, 256, 32), top_mlp=(512, 256, 1),
         source=_SRC + "dlrm_rm3.json"),
    _cfg(name="NCF", kind="ncf", table_rows=(140_000, 140_000, 28_000, 28_000),
         embedding_dim=64, lookups_per_table=1, bottom_mlp=(512,),
         top_mlp=(256, 256, 128, 64, 64), source=_SRC + "ncf.json"),
    _cfg(name="WnD", kind="wnd", table_rows=(1_000_000,) * 27, embedding_dim=32,
         lookups_per_table=1, bottom_mlp=(512,), top_mlp=(1024, 512, 256, 1),
         source=_SRC + "wide_and_deep.json"),
    _cfg(name="MT-WnD", kind="mtwnd", table_rows=(500_000,) * 41 + (5_000_000,) * 2,
         embedding_dim=32, lookups_per_table=1, bottom_mlp=(512,), top_mlp=(1024, 512),
         task_mlp=(512, 256, 128), num_tasks=1, source=_SRC + "mtwnd.json"),
    _cfg(name="DIN", kind="din",
         table_rows=(1_000_000,) + (100_000,) * _DIN_BEHAVIOR_TABLES + (10_000_000,) * 2,
         embedding_dim=32, lookups_per_table=3, bottom_mlp=(1,), top_mlp=(200, 80, 2),
         source=_SRC + "din.json (behaviour table x user_behavior_tables=250, utils/utils.py)"),
    _cfg(name="DIEN", kind="dien", table_rows=(500_000,) * 41 + (5_000_000,) * 2,
         embedding_dim=32, lookups_per_table=1, bottom_mlp=(512,), top_mlp=(200, 80, 2),
         hidden_size=64, source=_SRC + "dien.json (hidden_size 64: utils/utils.py default)"),
]}


_SSD_SRC = "wilkening-mark/RecSSD-RecInfra models/sweep_*.py"

#: RecSSD's eight models (Wilkening et al., ASPLOS 2021): the authors' modified DeepRecInfra
#: (``wilkening-mark/RecSSD-RecInfra`` ``models/sweep_*.py``, classes from
#: ``sweep/Description.txt``). Smaller tables than DeepRecSys's, fp32, fixed lookups. Where
#: the sweep gives no bottom MLP (NCF: "-") the dense width is 1, unused by NCF (assumed
#: placeholder; :class:`RecModelConfig` needs one width). DIN's four tables are profile
#: 10,000, behaviour 1,000 (x 250 user-behaviour tables), ad 100,000, context 100,000.
RECSSD_MODELS: dict[str, RecModelConfig] = {c.name: c for c in [
    _cfg(name="RecSSD-RM1", kind="dlrm", table_rows=(1_000_000,) * 8, embedding_dim=32,
         lookups_per_table=80, bottom_mlp=(128, 64, 32), top_mlp=(256, 64, 1),
         source=_SSD_SRC + " (RM1, embedding-dominated)"),
    _cfg(name="RecSSD-RM2", kind="dlrm", table_rows=(1_000_000,) * 32, embedding_dim=64,
         lookups_per_table=120, bottom_mlp=(128, 64, 64), top_mlp=(128, 64, 1),
         source=_SSD_SRC + " (RM2, embedding-dominated)"),
    _cfg(name="RecSSD-RM3", kind="dlrm", table_rows=(1_000_000,) * 10, embedding_dim=32,
         lookups_per_table=20, bottom_mlp=(2560, 1024, 256, 32), top_mlp=(512, 256, 1),
         source=_SSD_SRC + " (RM3, MLP-dominated)"),
    _cfg(name="RecSSD-WnD", kind="wnd", table_rows=(100_000,) * 27, embedding_dim=32,
         lookups_per_table=1, bottom_mlp=(512,), top_mlp=(1024, 512, 256),
         source=_SSD_SRC + " (WnD, MLP-dominated)"),
    _cfg(name="RecSSD-MT-WnD", kind="mtwnd", table_rows=(10_000,) * 41 + (100_000,) * 2,
         embedding_dim=32, lookups_per_table=1, bottom_mlp=(512,), top_mlp=(1024, 512),
         task_mlp=(512, 256, 128), num_tasks=8,
         source=_SSD_SRC + " (MT-WnD, MLP-dominated, 8 tasks)"),
    _cfg(name="RecSSD-NCF", kind="ncf", table_rows=(100_000,) * 4, embedding_dim=32,
         lookups_per_table=1, bottom_mlp=(1,), top_mlp=(256, 256, 128, 64, 64),
         source=_SSD_SRC + " (NCF, MLP-dominated; no bottom MLP, dense width 1 assumed)"),
    _cfg(name="RecSSD-DIN", kind="din",
         table_rows=(10_000,) + (1_000,) * _DIN_BEHAVIOR_TABLES + (100_000,) * 2,
         embedding_dim=32, lookups_per_table=3, bottom_mlp=(1,), top_mlp=(200, 80, 2),
         source=_SSD_SRC + " (DIN, attention-based, 250 user-behaviour tables)"),
    _cfg(name="RecSSD-DIEN", kind="dien", table_rows=(10_000,) * 41 + (100_000,) * 2,
         embedding_dim=32, lookups_per_table=3, bottom_mlp=(512,), top_mlp=(200, 80, 2),
         hidden_size=64, source=_SSD_SRC + " (DIEN, attention-based, hidden 64)"),
]}


def get_recsys(name: str) -> RecModelConfig:
    """Look up a DeepRecSys (:data:`RECSYS_MODELS`) or RecSSD (:data:`RECSSD_MODELS`) model
    by display or workload name (case-insensitive)."""
    models = {**RECSYS_MODELS, **RECSSD_MODELS}
    by_lower = {k.lower(): v for k, v in models.items()}
    try:
        return by_lower[name.lower()]
    except KeyError:
        raise ConfigError(f"unknown recommendation model '{name}'", field="model",
                          allowed=sorted(models)) from None


def recsys_graph(config: RecModelConfig, *, batch: int, dtype: str = "fp32") -> WorkloadGraph:
    """The forward operator graph of ``config`` on ``batch`` samples.

    Embedding operators carry ``attrs`` ``rows`` (table rows), ``dim``, ``lookups`` (per
    sample), ``rows_read`` (``batch * lookups``), ``table_rows`` and ``pooling="sum"``.
    """
    if isinstance(batch, bool) or not isinstance(batch, int) or batch <= 0:
        raise ConfigError(f"must be a positive integer, not {batch!r}", field="batch")
    dtype_bytes(dtype)  # validates dtype
    c = config
    d = c.embedding_dim
    g = WorkloadGraph(f"{c.workload}-b{batch}",
                      metadata={"model": c.name, "batch": batch, "source": c.source})
    pooled: list[TensorSpec] = []
    for i, rows in enumerate(c.table_rows):
        n = batch * c.lookups_per_table
        idx = TensorSpec(f"idx{i}", (n,), "int64", role="input")
        lengths = TensorSpec(f"len{i}", (batch,), "int32", role="input")
        table = TensorSpec(f"table{i}", (rows, d), dtype, role="weight")
        out = TensorSpec(f"emb{i}", (batch, d), dtype)
        g.add(Operator(f"sls{i}", "embedding", (idx, lengths, table), (out,), float(n * d),
                       {"op": "SparseLengthsSum", "rows": rows, "table_rows": rows, "dim": d,
                        "lookups": c.lookups_per_table, "rows_read": n, "pooling": "sum"}))
        pooled.append(out)

    def fc_stack(prefix: str, x: TensorSpec, layers: list[tuple[int, int]], *,
                 last_relu: bool) -> TensorSpec:
        for j, (i_w, o_w) in enumerate(layers):
            w = TensorSpec(f"{prefix}{j}.w", (i_w, o_w), dtype, role="weight")
            op = g.add(matmul(f"{prefix}{j}", x, w, f"{prefix}{j}.y", m=batch, n=o_w, k=i_w,
                              out_dtype=dtype))
            x = op.outputs[0]
            if last_relu or j < len(layers) - 1:
                y = TensorSpec(f"{prefix}{j}.a", (batch, o_w), dtype)
                g.add(Operator(f"{prefix}{j}.relu", "activation", (x,), (y,),
                               float(batch * o_w), {"fn": "relu"}))
                x = y
        return x

    def concat(name: str, parts: list[TensorSpec], width: int) -> TensorSpec:
        y = TensorSpec(name, (batch, width), dtype)
        g.add(Operator(f"{name}.concat", "data_movement", tuple(parts), (y,), 0.0,
                       {"fn": "concat"}))
        return y

    dense = TensorSpec("dense", (batch, c.bottom_mlp[0]), dtype, role="input")
    if c.kind == "dlrm":
        z = fc_stack("bot", dense, c.bottom_layers, last_relu=True)
        feats = concat("features", [z, *pooled], c.interaction_width)
    elif c.kind in ("wnd", "mtwnd"):
        feats = concat("features", [dense, *pooled], c.interaction_width)
    elif c.kind == "ncf":
        mf = TensorSpec("mf.sum", (batch, d), dtype)
        g.add(Operator("mf.add", "elementwise", (pooled[0], pooled[1]), (mf,), float(batch * d),
                       {"fn": "add"}))
        mlp_out = fc_stack("top", concat("features", pooled[2:], c.interaction_width),
                           c.top_layers, last_relu=True)
        fin = concat("final_in", [mf, mlp_out], c.final_layers[0][0])
        fc_stack("final", fin, c.final_layers, last_relu=False)
        return g
    elif c.kind == "din":
        feats = _din_attention(g, c, pooled, batch, dtype, concat)
    else:
        feats = _dien_sequence(g, c, pooled, batch, dtype, concat)
    if c.kind == "mtwnd":
        shared = fc_stack("top", feats, c.top_layers, last_relu=True)
        for t in range(c.num_tasks):
            fc_stack(f"task{t}.", shared, c.task_layers, last_relu=False)
    else:
        fc_stack("top", feats, c.top_layers, last_relu=False)
    return g


def _din_attention(g: WorkloadGraph, c: RecModelConfig, pooled: list[TensorSpec], batch: int,
                   dtype: str, concat: _Concat) -> TensorSpec:
    """DIN's attention over the behaviour embeddings, as batched operators over behaviours."""
    d, nb = c.embedding_dim, c.behavior_tables
    beh, ad = pooled[1:1 + nb], pooled[1 + nb]
    keys = TensorSpec("att.keys", (nb, batch, d), dtype)
    g.add(Operator("att.stack", "data_movement", tuple(beh), (keys,), 0.0, {"fn": "concat"}))
    s = TensorSpec("att.sum", (nb, batch, d), dtype)
    g.add(Operator("att.add", "elementwise", (keys, ad), (s,), float(nb * batch * d),
                   {"fn": "add"}))
    x = TensorSpec("att.in", (nb, batch, 3 * d), dtype)
    g.add(Operator("att.in.concat", "data_movement", (keys, ad, s), (x,), 0.0, {"fn": "concat"}))
    for j, (i_w, o_w) in enumerate(c.attention_layers):
        w = TensorSpec(f"att{j}.w", (nb, i_w, o_w), dtype, role="weight")
        op = g.add(matmul(f"att{j}", x, w, f"att{j}.y", m=batch, n=o_w, k=i_w, batch=nb,
                          out_dtype=dtype))
        y = TensorSpec(f"att{j}.a", (nb, batch, o_w), dtype)
        g.add(Operator(f"att{j}.relu", "activation", op.outputs, (y,), float(nb * batch * o_w),
                       {"fn": "relu"}))
        x = y
    att = TensorSpec("att.out", (batch, d), dtype)
    g.add(Operator("att.pool", "reduce", (x,), (att,), float((nb - 1) * batch * d),
                   {"fn": "sum", "axis": 0}))
    out: TensorSpec = concat("features", [pooled[0], att, ad, pooled[-1]], c.interaction_width)
    return out


def _dien_sequence(g: WorkloadGraph, c: RecModelConfig, pooled: list[TensorSpec], batch: int,
                   dtype: str, concat: _Concat) -> TensorSpec:
    """DIEN's interest extractor GRU, attention and interest-evolving GRU."""
    d, h, nb = c.embedding_dim, c.hidden_size, c.behavior_tables
    seq = TensorSpec("gru.seq", (batch, nb, d), dtype)
    g.add(Operator("gru.seq.concat", "data_movement", tuple(pooled[1:1 + nb]), (seq,), 0.0,
                   {"fn": "concat"}))
    h1 = g.add(recurrent("gru0", seq, hidden=h, cell=c.rnn_cell, out="gru0.out")).outputs[0]
    w = TensorSpec("gru.att.w", (h, h), dtype, role="weight")
    e = g.add(matmul("gru.att.fc", h1, w, "gru.att.e", m=batch * nb, n=h, k=h,
                     out_dtype=dtype, out_shape=(batch, nb, h))).outputs[0]
    a = TensorSpec("gru.att.p", (batch, nb, h), dtype)
    g.add(Operator("gru.att.softmax", "softmax", (e,), (a,), 5.0 * batch * nb * h, {"axis": -1}))
    x2 = TensorSpec("gru.att.out", (batch, nb, h), dtype)
    g.add(Operator("gru.att.add", "elementwise", (h1, a), (x2,), float(batch * nb * h),
                   {"fn": "add"}))
    h2 = g.add(recurrent("gru1", x2, hidden=h, cell=c.rnn_cell, out="gru1.out")).outputs[0]
    last = TensorSpec("gru.last", (batch, h), dtype)
    g.add(Operator("gru.last.slice", "data_movement", (h2,), (last,), 0.0, {"fn": "slice"}))
    out: TensorSpec = concat("features", [last, pooled[0], pooled[-2], pooled[-1]],
                             c.interaction_width)
    return out


def operator_group(op: Operator) -> str:
    """The timed group of a recommendation-graph operator: ``sls`` (embeddings), ``gru``
    (recurrent), ``concat`` (data movement), ``attention`` (reductions and batched matmuls),
    ``fc`` (the other matmuls), ``other`` for the rest (activations, element-wise)."""
    if op.kind == "embedding":
        return "sls"
    if op.kind == "recurrent":
        return "gru"
    if op.kind == "data_movement":
        return "concat"
    if op.kind == "reduce" or (op.kind == "matmul" and op.attrs.get("batch", 1) > 1):
        return "attention"
    if op.kind == "matmul":
        return "fc"
    return "other"


def gathered_bytes(op: Operator) -> float:
    """Bytes of the embedding rows an SLS operator gathers (not its whole table)."""
    out = op.outputs[0]
    return float(op.attrs["rows_read"] * op.attrs["dim"] * out.nbytes / out.numel)


def recsys_sample_work(config: RecModelConfig, *, dtype: str = "fp32",
                       batch: int = 64) -> DLRMSampleWork:
    """Per-sample forward work of ``config`` (the split of
    :func:`~.dlrm.dlrm_sample_work`): embedding rows read plus pooled outputs vs the rest."""
    g = recsys_graph(config, batch=batch, dtype=dtype)
    b = dtype_bytes(dtype)
    dense_flops = dense_bytes = emb_bytes = emb_flops = 0.0
    for op in g:
        if op.kind == "embedding":
            emb_flops += op.flops
            emb_bytes += op.attrs["rows_read"] * op.attrs["dim"] * b + op.output_bytes
        elif op.kind != "data_movement":
            dense_flops += op.flops
            dense_bytes += op.input_bytes - op.weight_bytes + op.output_bytes
    return DLRMSampleWork(dense_flops=dense_flops / batch, dense_act_bytes=dense_bytes / batch,
                          emb_flops=emb_flops / batch, emb_bytes=emb_bytes / batch)
