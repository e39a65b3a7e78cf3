"""Reading a results database: tables, filters, Pareto fronts, exports and plots."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ConfigError, ToolchainError
from ...outputs import atomic_write_bytes, save_figure, write_csv
from .spec import Expression
from .store import PointRecord, ResultStore

__all__ = ["ResultTable", "load_results", "pareto_mask", "pareto_front", "export",
           "plot_scatter", "plot_line", "plot_heatmap"]


@dataclass(frozen=True)
class ResultTable:
    """Stored points as flat rows, with the names of their parameters and objectives.

    ``rows`` hold ``key, sweep, model, status, seed``, every parameter, every
    objective, then ``error, duration_s, worker, finished_at, archsim_version``.
    """

    rows: tuple[dict[str, Any], ...]
    params: tuple[str, ...]
    objectives: tuple[str, ...]

    @classmethod
    def from_records(cls, records: Iterable[PointRecord]) -> ResultTable:
        records = list(records)
        params: dict[str, None] = {}
        objectives: dict[str, None] = {}
        for r in records:
            params.update(dict.fromkeys(r.params))
            objectives.update(dict.fromkeys(r.objectives))
        return cls(rows=tuple(r.row() for r in records), params=tuple(params),
                   objectives=tuple(objectives))

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def columns(self) -> list[str]:
        """Every column name, in row order."""
        cols: dict[str, None] = {}
        for row in self.rows:
            cols.update(dict.fromkeys(row))
        return list(cols)

    def _replace(self, rows: Iterable[dict[str, Any]]) -> ResultTable:
        return ResultTable(rows=tuple(rows), params=self.params, objectives=self.objectives)

    def filter(self, expression: str) -> ResultTable:
        """Rows where ``expression`` holds, e.g. ``"latency_s < 0.01 and gpu == 'h100-80gb'"``.

        Names are column names; a row missing a name the expression uses is
        dropped.
        """
        expr = Expression(expression, names=self.columns, field="filter")
        return self._replace(r for r in self.rows
                             if expr.names <= r.keys() and expr(r))

    def column(self, name: str) -> np.ndarray:
        """One column as a numpy array (``nan`` where a row lacks it, for numbers)."""
        if name not in self.columns:
            raise ConfigError(f"no column '{name}'", field="column", allowed=self.columns)
        values = [r.get(name) for r in self.rows]
        try:
            return np.array([np.nan if v is None else v for v in values], dtype=float)
        except (TypeError, ValueError):
            return np.array(values, dtype=object)

    def sorted_by(self, name: str) -> ResultTable:
        self.column(name)
        return self._replace(sorted(self.rows, key=lambda r: (r.get(name) is None, r.get(name))))


def load_results(db: str | Path, *, status: str | None = "done", sweep: str | None = None,
                 model: str | None = None) -> ResultTable:
    """Load the rows of a results database (default: the ``done`` points)."""
    with ResultStore(db, create=False) as store:
        return ResultTable.from_records(store.records(status=status, sweep=sweep, model=model))


def _objective_matrix(table: ResultTable, objectives: Sequence[str],
                      maximize: Iterable[str]) -> np.ndarray:
    if not objectives:
        raise ConfigError("name at least one objective", field="objectives",
                          allowed=table.objectives)
    maximize = set(maximize)
    for name in [*objectives, *maximize]:
        if name not in table.objectives:
            raise ConfigError(f"no objective '{name}'", field="objectives",
                              allowed=table.objectives)
    unknown = maximize - set(objectives)
    if unknown:
        raise ConfigError(f"'{sorted(unknown)[0]}' is maximized but not among the objectives",
                          field="maximize", allowed=list(objectives))
    cols = [table.column(o) * (-1.0 if o in maximize else 1.0) for o in objectives]
    return np.column_stack(cols) if cols else np.empty((len(table), 0))


def pareto_mask(values: np.ndarray) -> np.ndarray:
    """Mask of the non-dominated rows of ``values`` (every column minimized).

    Row ``i`` is dominated when some row is ``<=`` in every column and ``<`` in
    one. Rows with a ``nan`` are never on the front. Vectorized over blocks of rows.
    """
    values = np.asarray(values, dtype=float)
    n = len(values)
    valid = ~np.isnan(values).any(axis=1)
    mask = valid.copy()
    finite = values[valid]
    idx = np.flatnonzero(valid)
    block = max(1, 2_000_000 // max(1, len(finite) * max(1, values.shape[1])))
    for start in range(0, len(finite), block):
        chunk = finite[start:start + block]
        le = (finite[None, :, :] <= chunk[:, None, :]).all(axis=2)
        lt = (finite[None, :, :] < chunk[:, None, :]).any(axis=2)
        mask[idx[start:start + block]] = ~(le & lt).any(axis=1)
    return mask if n else np.zeros(0, dtype=bool)


def pareto_front(table: ResultTable, objectives: Sequence[str], *,
                 maximize: Iterable[str] = ()) -> ResultTable:
    """The rows on the Pareto front of ``objectives`` (minimized unless in ``maximize``),
    sorted by the first objective."""
    mask = pareto_mask(_objective_matrix(table, objectives, maximize))
    front = table._replace(r for r, keep in zip(table.rows, mask, strict=True) if keep)
    return front.sorted_by(objectives[0])


def export(table: ResultTable, path: str | Path) -> Path:
    """Write the table as CSV (``.csv``) or Parquet (``.parquet``, needs pyarrow)."""
    path = Path(path)
    if path.suffix == ".csv":
        return write_csv(path, table.rows, columns=table.columns)
    if path.suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ToolchainError("Parquet export needs pyarrow", install="pyarrow") from None
        import io

        columns = table.columns
        arrow = pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in table.rows])
        buf = io.BytesIO()
        pq.write_table(arrow, buf)
        return atomic_write_bytes(path, buf.getvalue())
    raise ConfigError(f"unknown export format '{path.suffix}'", field="output",
                      allowed=[".csv", ".parquet"])


def _numeric(table: ResultTable, name: str) -> np.ndarray:
    col = table.column(name)
    if col.dtype == object:
        raise ConfigError(f"column '{name}' is not numeric", field=name)
    return col


def plot_scatter(table: ResultTable, x: str, y: str, path: str | Path, *,
                 pareto: bool = True, maximize: Iterable[str] = (),
                 log: bool = False) -> Path:
    """Scatter two objectives against each other, the Pareto front highlighted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, ys = _numeric(table, x), _numeric(table, y)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.scatter(xs, ys, s=14, color="0.6", label=f"{len(table)} points")
    if pareto and len(table):
        front = pareto_front(table, [x, y], maximize=maximize)
        ax.plot(front.column(x), front.column(y), "o-", color="C3", ms=5,
                drawstyle="steps-post", label=f"Pareto front ({len(front)})")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path)


def plot_line(table: ResultTable, param: str, objective: str, path: str | Path, *,
              group_by: str | None = None, log: bool = False) -> Path:
    """An objective against one parameter; one line per value of ``group_by``.

    Points sharing ``param`` (and group) are averaged; the other parameters'
    spread is shown as a band between minimum and maximum.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _numeric(table, param)
    ys = _numeric(table, objective)
    groups = [None] if group_by is None else list(dict.fromkeys(table.column(group_by)))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    xs_all = table.column(param)
    gcol = None if group_by is None else table.column(group_by)
    for g in groups:
        sel = np.ones(len(table), bool) if g is None else gcol == g
        xs = np.unique(xs_all[sel])
        mean = np.array([np.nanmean(ys[sel & (xs_all == v)]) for v in xs])
        lo = np.array([np.nanmin(ys[sel & (xs_all == v)]) for v in xs])
        hi = np.array([np.nanmax(ys[sel & (xs_all == v)]) for v in xs])
        label = objective if g is None else f"{group_by}={g}"
        ax.plot(xs, mean, "o-", label=label)
        if np.any(hi > lo):
            ax.fill_between(xs, lo, hi, alpha=0.15)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(param)
    ax.set_ylabel(objective)
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path)


def plot_heatmap(table: ResultTable, x: str, y: str, objective: str, path: str | Path) -> Path:
    """The mean of ``objective`` over each pair of values of parameters ``x`` and ``y``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs_all, ys_all, zs = table.column(x), table.column(y), _numeric(table, objective)
    xv = sorted(set(xs_all.tolist()), key=str if xs_all.dtype == object else float)
    yv = sorted(set(ys_all.tolist()), key=str if ys_all.dtype == object else float)
    grid = np.full((len(yv), len(xv)), np.nan)
    for i, b in enumerate(yv):
        for j, a in enumerate(xv):
            sel = (xs_all == a) & (ys_all == b)
            if sel.any():
                grid[i, j] = np.nanmean(zs[sel])
    fig, ax = plt.subplots(figsize=(1.2 + 0.7 * len(xv), 1.2 + 0.5 * len(yv)))
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xv)), [f"{v:g}" if isinstance(v, float) else str(v) for v in xv],
                  rotation=45)
    ax.set_yticks(range(len(yv)), [f"{v:g}" if isinstance(v, float) else str(v) for v in yv])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    fig.colorbar(im, ax=ax, label=objective)
    return save_figure(fig, path)
