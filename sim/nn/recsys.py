"""A numpy forward pass of the eight DeepRecSys models on random tables and weights.

The operators are the ones :func:`archsim.compilers.graph.recsys.recsys_graph` lists:
SparseLengthsSum (sum of the gathered rows of each sample), FC (+ReLU), concat, DIN's
attention unit and DIEN's two GRUs with attention, in the same order, so a timed forward pass
here is the graph run for real. Initialisation follows the authors' Caffe2 builders
(``harvard-acc/DeepRecSys`` ``models/din.py`` ``create_emb`` / ``create_mlp``): tables
uniform in ``+-sqrt(1/rows)``, FC weights normal with std ``sqrt(2/(in+out))``, biases normal
with std ``sqrt(1/out)``. GRU weights are uniform in ``+-1/sqrt(hidden)`` (assumed, PyTorch's
default; the authors' ``randn`` saturates tanh). ``table_rows_cap`` shrinks every table to at
most that many rows (tests, timing without gigabytes of tables): the work per sample is
unchanged, only the tables' footprint (and so cache behaviour) is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from ...compilers.graph.recsys import RecModelConfig
from ...errors import ConfigError

__all__ = ["RecInputs", "RecOutput", "RecModel", "compose_towers", "random_inputs", "sparse_lengths_sum", "fc",
           "gru_layer", "rnn_layer", "OP_GROUPS", "GroupClock",
           "check_inputs"]

F32 = NDArray[np.float32]


class _Addable(Protocol):
    def __add__(self, other: Any, /) -> Any: ...


#: A backend's array type (numpy's or torch's) in :func:`compose_towers`.
_Array = TypeVar("_Array", bound=_Addable)
I64 = NDArray[np.int64]

#: Operator groups :meth:`RecModel.forward` times (``timings``).
OP_GROUPS = ("sls", "fc", "concat", "attention", "gru")


@dataclass(frozen=True)
class RecInputs:
    """One batch: ``dense`` ``(batch, dense_width)``; per table the flat ``indices`` and the
    per-sample ``lengths`` (SparseLengthsSum's inputs)."""

    dense: F32
    indices: tuple[I64, ...]
    lengths: tuple[NDArray[np.int32], ...]

    @property
    def batch(self) -> int:
        return int(self.dense.shape[0])


@dataclass(frozen=True)
class RecOutput:
    """Final-layer ``logits`` ``(batch, output_width)`` and their sigmoid ``probabilities``."""

    logits: F32
    probabilities: F32


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"must be a non-negative integer, not {seed!r}", field="seed")
    return int(seed)


def _capped_rows(config: RecModelConfig, cap: int | None) -> tuple[int, ...]:
    if cap is None:
        return config.table_rows
    if isinstance(cap, bool) or not isinstance(cap, int) or cap <= 0:
        raise ConfigError(f"must be a positive integer or None, not {cap!r}",
                          field="table_rows_cap")
    return tuple(min(r, cap) for r in config.table_rows)


def sparse_lengths_sum(table: F32, indices: I64, lengths: NDArray[np.int32]) -> F32:
    """Caffe2 SparseLengthsSum: sample ``b`` sums ``table`` rows
    ``indices[sum(lengths[:b]) : sum(lengths[:b+1])]``."""
    lengths = np.asarray(lengths)
    if int(lengths.sum()) != len(indices):
        raise ConfigError(f"lengths sum to {int(lengths.sum())} but there are {len(indices)} "
                          f"indices", field="lengths")
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= table.shape[0]):
        raise ConfigError(f"indices must lie in [0, {table.shape[0]})", field="indices")
    batch, d = len(lengths), table.shape[1]
    rows = table[indices]
    if batch and np.all(lengths == lengths[0]):
        # Fixed lookups per sample (every DeepRecSys config): one reshaped sum.
        return rows.reshape(batch, int(lengths[0]), d).sum(axis=1, dtype=np.float32)
    out = np.zeros((batch, d), dtype=np.float32)
    np.add.at(out, np.repeat(np.arange(batch), lengths), rows)
    return out


def fc(x: F32, w: F32, b: F32, *, relu: bool) -> F32:
    """``x @ w + b`` (``w`` is ``(in, out)``), then ReLU if asked."""
    y = x @ w + b
    return np.maximum(y, 0, out=y) if relu else y


def _sigmoid(x: F32) -> F32:
    # exp of a non-positive argument only: no overflow, and small probabilities keep their
    # relative precision (1 - tanh would cancel).
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(np.float32)


def gru_layer(x: F32, w: F32, r: F32, b: F32, h0: F32 | None = None) -> F32:
    """A GRU over ``x`` ``(batch, seq, in)``; returns every step's state ``(batch, seq, h)``.

    Gates in order (reset, update, new): ``w`` ``(3h, in)``, ``r`` ``(3h, h)``, ``b`` ``(3h,)``;
    ``n = tanh(W_n x + b_n + reset * (R_n h))``, ``h' = (1 - update) * n + update * h``.
    """
    batch, seq, _ = x.shape
    hid = r.shape[1]
    h = np.zeros((batch, hid), np.float32) if h0 is None else h0.astype(np.float32)
    xw = x @ w.T + b  # the input projections of all steps at once; only R h is sequential
    out = np.empty((batch, seq, hid), np.float32)
    for t in range(seq):
        hr = h @ r.T
        rz = _sigmoid(xw[:, t, :2 * hid] + hr[:, :2 * hid])
        reset, update = rz[:, :hid], rz[:, hid:]
        n = np.tanh(xw[:, t, 2 * hid:] + reset * hr[:, 2 * hid:])
        h = (1.0 - update) * n + update * h
        out[:, t] = h
    return out


def rnn_layer(x: F32, w: F32, r: F32, b: F32, h0: F32 | None = None) -> F32:
    """A tanh RNN (Caffe2 ``BasicRNN``, one bias) over ``x`` ``(batch, seq, in)``:
    ``h' = tanh(W x + R h + b)``; returns every step's state ``(batch, seq, h)``."""
    batch, seq, _ = x.shape
    hid = r.shape[1]
    h = np.zeros((batch, hid), np.float32) if h0 is None else h0.astype(np.float32)
    xw = x @ w.T + b
    out = np.empty((batch, seq, hid), np.float32)
    for t in range(seq):
        h = np.tanh(xw[:, t] + h @ r.T)
        out[:, t] = h
    return out


def compose_towers(model: Any, dense: _Array, pooled: list[_Array], *, clock: GroupClock,
                   run_mlp: Callable[[_Array, Any, bool], _Array],
                   cat: Callable[[list[_Array]], _Array],
                   din_attention: Callable[[list[_Array]], _Array],
                   dien_sequence: Callable[[list[_Array]], _Array]) -> _Array:
    """The models' dense side after SparseLengthsSum, for any array backend: the feature
    interaction of each model kind and its top tower(s), timed by ``clock``; the logits.

    ``model`` (a :class:`RecModel` or :class:`archsim.sim.nn.recsys_torch.TorchRecModel`)
    holds the layers (``bottom``, ``top``, ``final``, ``tasks``) in the backend's arrays; ``run_mlp(x, layers, last_relu)``, ``cat(parts)`` (along features) and DIN's
    attention / DIEN's sequence are the backend's. The numpy and the PyTorch forward passes
    share it, so the two cannot drift apart.
    """
    c = model.config
    if c.kind == "dlrm":
        with clock("fc"):
            z = run_mlp(dense, model.bottom, True)
        parts = [z, *pooled]
    elif c.kind in ("wnd", "mtwnd"):
        parts = [dense, *pooled]
    elif c.kind == "ncf":
        mf = pooled[0] + pooled[1]
        parts = pooled[2:]
    elif c.kind == "din":
        with clock("attention"):
            att = din_attention(pooled)
        nb = c.behavior_tables
        parts = [pooled[0], att, pooled[1 + nb], pooled[-1]]
    else:
        with clock("gru"):
            last = dien_sequence(pooled)
        parts = [last, pooled[0], pooled[-2], pooled[-1]]
    with clock("concat"):
        x = cat(parts)
    with clock("fc"):
        if c.kind == "mtwnd":
            shared = run_mlp(x, model.top, True)
            # One output per task tower, side by side.
            return cat([run_mlp(shared, tw, False) for tw in model.tasks])
        if c.kind == "ncf":
            return run_mlp(cat([mf, run_mlp(x, model.top, True)]), model.final, False)
        return run_mlp(x, model.top, False)


class RecModel:
    """A DeepRecSys model with random tables and weights, runnable in numpy.

    Parameters
    ----------
    config
        The model (:data:`~archsim.compilers.graph.recsys.RECSYS_MODELS`).
    seed
        Seed of every table and weight.
    table_rows_cap
        If given, every table has ``min(rows, table_rows_cap)`` rows.
    """

    def __init__(self, config: RecModelConfig, *, seed: int,
                 table_rows_cap: int | None = None) -> None:
        if not isinstance(config, RecModelConfig):
            raise ConfigError(f"must be a RecModelConfig, not {type(config).__name__}",
                              field="config")
        self.config = config
        self.seed = _check_seed(seed)
        self.table_rows = _capped_rows(config, table_rows_cap)
        rng = np.random.default_rng(self.seed)
        d = config.embedding_dim
        self.tables = [rng.uniform(-np.sqrt(1 / n), np.sqrt(1 / n), (n, d)).astype(np.float32)
                       for n in self.table_rows]

        def mlp(layers: list[tuple[int, int]], lead: tuple[int, ...] = ()
                ) -> list[tuple[F32, F32]]:
            return [(rng.normal(0, np.sqrt(2 / (i + o)), (*lead, i, o)).astype(np.float32),
                     rng.normal(0, np.sqrt(1 / o), (*lead, 1, o) if lead else (o,)
                                ).astype(np.float32)) for i, o in layers]

        self.bottom = mlp(config.bottom_layers)
        self.top = mlp(config.top_layers)
        self.final = mlp(config.final_layers)
        self.tasks = [mlp(config.task_layers) for _ in range(config.num_tasks)] \
            if config.kind == "mtwnd" else []
        # DIN: one attention MLP per behaviour, stacked on a leading axis (batched matmul).
        self.attention = mlp(config.attention_layers, (config.behavior_tables,))
        self.grus: list[tuple[F32, F32, F32]] = []
        self.gru_att: tuple[F32, F32] | None = None
        if config.kind == "dien":
            h = config.hidden_size
            s = 1 / np.sqrt(h)
            gates = 3 if config.rnn_cell == "gru" else 1
            for i in (d, h):
                self.grus.append(tuple(rng.uniform(-s, s, shape).astype(np.float32)  # type: ignore[arg-type]
                                       for shape in ((gates * h, i), (gates * h, h), (gates * h,))))
            self.gru_att = mlp([(h, h)])[0]

    @property
    def num_params(self) -> int:
        """Parameters actually held (capped tables count their capped rows)."""
        arrays: list[NDArray[np.float32]] = list(self.tables)
        for layers in (self.bottom, self.top, self.final, self.attention, *self.tasks):
            for w, b in layers:
                arrays += [w, b]
        for gru in self.grus:
            arrays += list(gru)
        if self.gru_att is not None:
            arrays += list(self.gru_att)
        return int(sum(a.size for a in arrays))

    def forward(self, dense: F32, indices: tuple[I64, ...] | list[I64],
                lengths: tuple[NDArray[np.int32], ...] | list[NDArray[np.int32]], *,
                timings: dict[str, float] | None = None,
                timer: Callable[[], float] = time.perf_counter) -> RecOutput:
        """Run the model on one batch.

        Parameters
        ----------
        dense
            ``(batch, bottom_mlp[0])`` dense features (unused by NCF, DIN, DIEN, as in the
            authors' models).
        indices, lengths
            Per table, SparseLengthsSum's flat indices and per-sample lengths.
        timings
            If given, seconds per operator group (:data:`OP_GROUPS`) are added to it.
        timer
            The clock ``timings`` are read from (:class:`GroupClock`).
        """
        c = self.config
        check_inputs(c, dense, indices, lengths)
        dense = np.asarray(dense, dtype=np.float32)
        clock = GroupClock(timings, timer=timer)

        def run_mlp(x: F32, layers: list[tuple[F32, F32]], last_relu: bool) -> F32:
            for j, (w, b) in enumerate(layers):
                x = fc(x, w, b, relu=last_relu or j < len(layers) - 1)
            return x

        with clock("sls"):
            pooled = []
            for t, (idx, ln) in enumerate(zip(indices, lengths, strict=True)):
                pooled.append(sparse_lengths_sum(self.tables[t], np.asarray(idx), ln))
        logits = compose_towers(
            self, dense, pooled, clock=clock, run_mlp=run_mlp,
            cat=lambda parts: np.concatenate(parts, axis=1),
            din_attention=self._din_attention, dien_sequence=self._dien_sequence)
        return RecOutput(logits=logits, probabilities=_sigmoid(logits))

    def _din_attention(self, pooled: list[F32]) -> F32:
        nb = self.config.behavior_tables
        keys = np.stack(pooled[1:1 + nb])               # (nb, batch, d)
        ad = pooled[1 + nb]
        q = np.broadcast_to(ad, keys.shape)
        x = np.concatenate([keys, q, keys + ad], axis=2)  # (nb, batch, 3d), din.py's order
        for w, b in self.attention:
            x = np.maximum(np.matmul(x, w) + b, 0)
        return x.sum(axis=0, dtype=np.float32)

    def _dien_sequence(self, pooled: list[F32]) -> F32:
        nb = self.config.behavior_tables
        seq = np.stack(pooled[1:1 + nb], axis=1)         # (batch, nb, d)
        layer = gru_layer if self.config.rnn_cell == "gru" else rnn_layer
        h1 = layer(seq, *self.grus[0])
        assert self.gru_att is not None
        w, b = self.gru_att
        e = h1 @ w + b
        e = np.exp(e - e.max(axis=2, keepdims=True))
        x2 = h1 + e / e.sum(axis=2, keepdims=True)       # softmax over the hidden axis (dien.py)
        return layer(x2, *self.grus[1])[:, -1]


def check_inputs(config: RecModelConfig, dense: F32,
                 indices: tuple[I64, ...] | list[I64],
                 lengths: tuple[NDArray[np.int32], ...] | list[NDArray[np.int32]]) -> None:
    """Raise :class:`~archsim.errors.ConfigError` unless ``dense``, ``indices`` and
    ``lengths`` are one batch of ``config``'s inputs (shared by every backend)."""
    c = config
    if len(indices) != c.num_tables or len(lengths) != c.num_tables:
        raise ConfigError(f"needs indices and lengths for {c.num_tables} tables, got "
                          f"{len(indices)} and {len(lengths)}", field="indices")
    shape = np.shape(dense)
    if len(shape) != 2 or shape[1] != c.bottom_mlp[0]:
        raise ConfigError(f"dense must be (batch, {c.bottom_mlp[0]}), got {shape}",
                          field="dense")
    for t, ln in enumerate(lengths):
        if len(ln) != shape[0]:
            raise ConfigError(f"table {t}: {len(ln)} lengths for a batch of {shape[0]}",
                              field="lengths")


class GroupClock:
    """Adds the time of a ``with`` block to ``timings[group]`` (nothing if None), read from
    ``timer`` (wall clock by default; :func:`time.thread_time` measures the calling thread's
    CPU time, which other processes' load does not inflate)."""

    def __init__(self, timings: dict[str, float] | None, *,
                 timer: Callable[[], float] = time.perf_counter) -> None:
        self.timings = timings
        self.timer = timer
        self.group = ""
        self.t0 = 0.0

    def __call__(self, group: str) -> GroupClock:
        self.group = group
        return self

    def __enter__(self) -> None:
        self.t0 = self.timer()

    def __exit__(self, *exc: object) -> None:
        if self.timings is not None:
            dt = self.timer() - self.t0
            self.timings[self.group] = self.timings.get(self.group, 0.0) + dt


def random_inputs(config: RecModelConfig, batch: int, seed: int, *,
                  table_rows_cap: int | None = None) -> RecInputs:
    """A batch of uniform random indices (``lookups_per_table`` per sample per table, below
    each table's, possibly capped, rows) and standard-normal dense features."""
    if isinstance(batch, bool) or not isinstance(batch, int) or batch <= 0:
        raise ConfigError(f"must be a positive integer, not {batch!r}", field="batch")
    rng = np.random.default_rng(_check_seed(seed))
    rows = _capped_rows(config, table_rows_cap)
    n = config.lookups_per_table
    indices = tuple(rng.integers(0, r, batch * n, dtype=np.int64) for r in rows)
    lengths = tuple(np.full(batch, n, dtype=np.int32) for _ in rows)
    dense = rng.standard_normal((batch, config.bottom_mlp[0])).astype(np.float32)
    return RecInputs(dense=dense, indices=indices, lengths=lengths)
