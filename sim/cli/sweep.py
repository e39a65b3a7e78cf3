"""``archsim sweep SPEC.toml`` and ``archsim results ...``: design-space sweeps and their results."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["register"]

_PLOT_KINDS = ("scatter", "line", "heatmap")


def _split(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _table(rows: list[dict], columns: list[str], title: str, limit: int | None):
    from rich.table import Table

    table = Table(title=title)
    for c in columns:
        table.add_column(c, overflow="fold")
    shown = rows if limit is None or limit <= 0 else rows[:limit]
    for row in shown:
        table.add_row(*[_fmt(row.get(c)) for c in columns])
    if len(shown) < len(rows):
        table.caption = f"{len(shown)} of {len(rows)} rows (--limit 0 shows all)"
    return table


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _load(db: Path, filters: list[str] | None, status: str | None, sweep: str | None):
    from ..sweep import load_results

    table = load_results(db, status=status, sweep=sweep)
    for expr in filters or []:
        table = table.filter(expr)
    return table


def _varying(table, names) -> list[str]:
    """The names whose value differs between rows (constant columns are noise in a table)."""
    out = []
    for name in names:
        values = {repr(r.get(name)) for r in table.rows}
        if len(values) > 1:
            out.append(name)
    return out


def register(app: typer.Typer) -> None:
    @app.command("sweep")
    def sweep(
        spec: Path = typer.Argument(..., help="Sweep specification (TOML)."),
        workers: int = typer.Option(None, "--workers", "-w",
                                    help="Worker processes of a local Dask cluster; 0 runs "
                                         "in-process. Default: one per CPU (in-process for "
                                         "tiny sweeps)."),
        scheduler: str = typer.Option(None, "--scheduler",
                                      help="Use an existing Dask scheduler, e.g. "
                                           "tcp://host:8786."),
        db: Path = typer.Option(None, "--db", help="Results database (default: SPEC with "
                                                   "the suffix .db)."),
        points_per_task: int = typer.Option(None, "--points-per-task",
                                            help="Points batched into one Dask task."),
        skip_failed: bool = typer.Option(False, "--skip-failed",
                                         help="Do not retry points stored as failed."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
        dry_run: bool = typer.Option(False, "--dry-run",
                                     help="Validate the spec and count the points to run; "
                                          "run nothing."),
    ) -> None:
        """Run a design-space sweep; finished points are stored and skipped when re-run."""
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from ..sweep import default_db_path, load_spec, run_sweep

        console = Console(stderr=True)
        loaded = load_spec(spec)
        db_path = db or default_db_path(spec)
        if dry_run:
            from ..sweep import ResultStore

            points = loaded.points()
            stored: dict[str, str] = {}
            if db_path.is_file():
                with ResultStore(db_path, create=False) as store:
                    stored = store.statuses(p.key for p in points)
            done = sum(1 for s in stored.values() if s == "done")
            Console().print(f"{loaded.name}: model '{loaded.model}', {len(points)} points "
                            f"({loaded.method}), {done} already done in {db_path}, "
                            f"{len(points) - done} to run")
            return
        progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("done [green]{task.fields[done]}[/] failed [red]{task.fields[failed]}"
                       "[/] remaining {task.fields[remaining]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=console, disable=quiet, transient=False,
        )
        task_id = None

        def on_progress(p) -> None:
            nonlocal task_id
            if task_id is None:
                task_id = progress.add_task(loaded.name, total=p.done + p.failed + p.remaining,
                                            done=0, failed=0, remaining=p.remaining)
            progress.update(task_id, completed=p.done + p.failed, done=p.done, failed=p.failed,
                            remaining=p.remaining)

        try:
            with progress:
                report = run_sweep(loaded, db=db_path, workers=workers, scheduler=scheduler,
                                   points_per_task=points_per_task,
                                   retry_failed=not skip_failed, on_progress=on_progress)
        except KeyboardInterrupt:
            console.print(f"interrupted: every finished point is stored in {db_path}; "
                          f"run the same command again to resume")
            raise
        tasks = ("" if report.executor == "in-process" else
                 f", {report.tasks} tasks of <= {report.points_per_task} points")
        out = Console()
        out.print(f"{report.name}: {report.total} points, {report.skipped} already stored, "
                  f"{report.done} done, {report.failed} failed in {report.wall_s:.2f} s "
                  f"({report.executor}{tasks}) -> {report.db}")

    results = typer.Typer(help="Inspect a sweep results database.", no_args_is_help=True)
    app.add_typer(results, name="results")

    db_arg = typer.Argument(..., help="Results database (SQLite).")
    filter_opt = typer.Option(None, "--filter", "-f",
                              help="Keep rows where this expression holds, e.g. "
                                   "\"latency_s < 0.01 and gpu == 'h100-80gb'\" (repeatable).")
    sweep_opt = typer.Option(None, "--sweep", help="Only this sweep's points.")

    @results.command("show")
    def show(
        db: Path = db_arg,
        filters: list[str] = filter_opt,
        sweep_name: str = sweep_opt,
        failed: bool = typer.Option(False, "--failed", help="Show failed points and errors."),
        columns: str = typer.Option(None, "--columns", "-c",
                                    help="Comma-separated columns (default: varying "
                                         "parameters and the objectives)."),
        sort: str = typer.Option(None, "--sort", help="Sort by this column."),
        limit: int = typer.Option(50, "--limit", "-n", help="Rows shown (0: all)."),
    ) -> None:
        """Print the stored points as a table."""
        from rich.console import Console

        table = _load(db, filters, "failed" if failed else "done", sweep_name)
        if sort:
            table = table.sorted_by(sort)
        if columns:
            cols = _split(columns)
            for c in cols:
                table.column(c)  # validates the name
        elif failed:
            cols = [*_varying(table, table.params), "error"]
        else:
            cols = [*_varying(table, table.params), *table.objectives]
        title = f"{db}: {len(table)} {'failed' if failed else 'done'} points"
        Console().print(_table(list(table.rows), cols, title, limit))

    @results.command("pareto")
    def pareto(
        db: Path = db_arg,
        objectives: str = typer.Option(..., "--objectives",
                                       help="Comma-separated objectives, e.g. "
                                            "latency_s,energy_j."),
        maximize: str = typer.Option(None, "--maximize",
                                     help="Comma-separated objectives to maximize "
                                          "(others are minimized)."),
        filters: list[str] = filter_opt,
        sweep_name: str = sweep_opt,
        csv: Path = typer.Option(None, "--csv", help="Also write the front as CSV."),
    ) -> None:
        """Print the Pareto front over the chosen objectives."""
        from rich.console import Console

        from ..sweep import export, pareto_front

        table = _load(db, filters, "done", sweep_name)
        objs = _split(objectives)
        front = pareto_front(table, objs, maximize=_split(maximize))
        cols = [*_varying(table, table.params), *objs]
        Console().print(_table(list(front.rows), cols,
                               f"Pareto front of {', '.join(objs)}: {len(front)} of "
                               f"{len(table)} points", None))
        if csv is not None:
            export(front, csv)

    @results.command("export")
    def export_cmd(
        db: Path = db_arg,
        output: Path = typer.Option(..., "--output", "-o", help="Output file (.csv or "
                                                               ".parquet)."),
        filters: list[str] = filter_opt,
        sweep_name: str = sweep_opt,
        failed: bool = typer.Option(False, "--failed", help="Export failed points instead."),
    ) -> None:
        """Export the stored points to CSV or Parquet."""
        from ..sweep import export

        table = _load(db, filters, "failed" if failed else "done", sweep_name)
        path = export(table, output)
        typer.echo(f"{len(table)} rows -> {path}")

    @results.command("plot")
    def plot(
        db: Path = db_arg,
        kind: str = typer.Option("scatter", "--kind", "-k",
                                 help="scatter (two objectives, Pareto front), line "
                                      "(objective vs parameter) or heatmap (two parameters)."),
        x: str = typer.Option(..., "--x", help="x column."),
        y: str = typer.Option(..., "--y", help="y column."),
        z: str = typer.Option(None, "--z", help="Heatmap colour (an objective)."),
        group_by: str = typer.Option(None, "--group-by", help="Line plot: one line per value."),
        maximize: str = typer.Option(None, "--maximize", help="Scatter: objectives to "
                                                              "maximize for the front."),
        log: bool = typer.Option(False, "--log", help="Log axes (scatter, line)."),
        output: Path = typer.Option(..., "--output", "-o", help="PNG file."),
        filters: list[str] = filter_opt,
        sweep_name: str = sweep_opt,
    ) -> None:
        """Plot stored points as PNG."""
        from ...errors import ConfigError
        from ..sweep import plot_heatmap, plot_line, plot_scatter

        if kind not in _PLOT_KINDS:
            raise ConfigError(f"unknown plot kind '{kind}'", field="kind", allowed=_PLOT_KINDS)
        table = _load(db, filters, "done", sweep_name)
        if kind == "scatter":
            path = plot_scatter(table, x, y, output, maximize=_split(maximize), log=log)
        elif kind == "line":
            path = plot_line(table, x, y, output, group_by=group_by, log=log)
        else:
            if z is None:
                raise ConfigError("a heatmap needs --z (the objective to colour by)", field="z")
            path = plot_heatmap(table, x, y, z, output)
        typer.echo(f"{kind} plot -> {path}")
