"""``archsim sweep SPEC.toml``, ``archsim optimize SPEC.toml`` and ``archsim results ...``:
design-space sweeps, optimization over their grids, and their results."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import choice_parser

if TYPE_CHECKING:
    from rich.progress import TaskID
    from rich.table import Table

    from ..sweep import ResultTable, SweepProgress

__all__ = ["register", "PlotKind"]


class PlotKind(StrEnum):
    """The plots of ``archsim results plot``."""

    scatter = "scatter"
    line = "line"
    heatmap = "heatmap"


def _split(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _table(rows: list[dict[str, object]], columns: list[str], title: str,
           limit: int | None) -> Table:
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


def _fmt(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _load(db: Path, filters: list[str] | None, status: str | None,
          sweep: str | None) -> ResultTable:
    from ..sweep import load_results

    table = load_results(db, status=status, sweep=sweep)
    for expr in filters or []:
        table = table.filter(expr)
    return table


def _varying(table: ResultTable, names: Iterable[str]) -> list[str]:
    """The names whose value differs between rows (constant columns are noise in a table)."""
    out = []
    for name in names:
        values = {repr(r.get(name)) for r in table.rows}
        if len(values) > 1:
            out.append(name)
    return out


Database = Annotated[Path, typer.Argument(help="Results database (SQLite).")]
Filters = Annotated[list[str] | None, typer.Option(
    "--filter", "-f", help="Keep rows where this expression over columns holds, e.g. "
                           "\"latency_s < 0.01 and batch >= 8\" (repeatable).")]
SweepName = Annotated[str | None, typer.Option("--sweep", help="Only this sweep's points.")]


def register(app: typer.Typer) -> None:
    """Add the ``sweep`` and ``optimize`` commands and the ``results`` group to ``app``."""

    @app.command("sweep")
    def sweep(
        spec: Annotated[Path, typer.Argument(help="Sweep specification (TOML).")],
        workers: Annotated[int | None, typer.Option(
            "--workers", "-w", help="Worker processes of a local Dask cluster; 0 runs "
                                    "in-process. Default: one per CPU (in-process for tiny "
                                    "sweeps).")] = None,
        scheduler: Annotated[str | None, typer.Option(
            "--scheduler", help="Use an existing Dask scheduler, e.g. tcp://host:8786.")
        ] = None,
        db: Annotated[Path | None, typer.Option(
            "--db", help="Results database (default: SPEC with the suffix .db).")] = None,
        points_per_task: Annotated[int | None, typer.Option(
            "--points-per-task", help="Points batched into one Dask task.")] = None,
        skip_failed: Annotated[bool, typer.Option(
            "--skip-failed", help="Do not retry points stored as failed.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Validate the spec and count the points to run; run nothing.")
        ] = False,
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

        from ...errors import RunFailedError
        from ...outputs import check_output_file
        from ..sweep import default_db_path, load_spec, run_sweep

        console = Console(stderr=True)
        loaded = load_spec(spec)
        db_path = db or default_db_path(spec)
        if not dry_run:
            check_output_file(db_path, field="--db")
        if dry_run:
            from ..sweep import ResultStore

            # Only the keys are kept: the design is walked lazily (its size was bounded
            # arithmetically when the spec was loaded).
            keys = {p.key for p in loaded.iter_points()}
            stored: dict[str, str] = {}
            if db_path.is_file():
                with ResultStore(db_path, create=False) as store:
                    stored = store.statuses(keys)
            done = sum(1 for s in stored.values() if s == "done")
            Console().print(f"{loaded.name}: model '{loaded.model}', {len(keys)} points "
                            f"({loaded.method}), {done} already done in {db_path}, "
                            f"{len(keys) - done} to run")
            return
        progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("done [green]{task.fields[done]}[/] failed [red]{task.fields[failed]}"
                       "[/] remaining {task.fields[remaining]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=console, disable=quiet, transient=False,
        )
        task_id: TaskID | None = None

        def on_progress(p: SweepProgress) -> None:
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
                          f"run the same command again to resume", soft_wrap=True)
            raise
        tasks = ("" if report.executor == "in-process" else
                 f", {report.tasks} tasks of <= {report.points_per_task} points")
        out = Console()
        out.print(f"{report.name}: {report.total} points, {report.skipped} already stored, "
                  f"{report.done} done, {report.failed} failed in {report.wall_s:.2f} s "
                  f"({report.executor}{tasks}) -> {report.db}")
        # Some failed points are results (the sweep succeeded, exit 0; the summary counts
        # them). Every point failing, none done now or before, means the sweep itself
        # failed: exit status 1.
        if report.failed and not report.done and not report.skipped:
            raise RunFailedError(f"all {report.failed} points failed; first error: "
                                  f"{report.first_error}")

    @app.command("optimize")
    def optimize(
        spec: Annotated[Path, typer.Argument(
            help="Sweep specification (TOML) with an [optimize] table.")],
        workers: Annotated[int, typer.Option(
            "--workers", "-w", help="Worker processes of a local Dask cluster; 0 (the "
                                    "default) evaluates in-process.")] = 0,
        db: Annotated[Path | None, typer.Option(
            "--db", help="Results database (default: SPEC with the suffix .db).")] = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="Write every trial to this CSV file.")] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    ) -> None:
        """Optimize an objective over a sweep's grid (Optuna TPE or random search); an
        interrupted run resumes from its results database."""
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        from ...outputs import check_output_file, write_csv
        from ..sweep import default_db_path
        from ..sweep.optimize import OptimizationProgress, load_optimization, run_optimization

        if out is not None:
            check_output_file(out, field="--out")
        loaded, settings = load_optimization(spec)
        check_output_file(db or default_db_path(spec), field="--db")
        progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TextColumn("best {task.fields[best]}"),
                            console=Console(stderr=True), disable=quiet)
        with progress:
            task = progress.add_task(loaded.name, total=settings.budget, best="-")

            def show(p: OptimizationProgress) -> None:
                progress.update(task, completed=p.trials, best=_fmt(p.best))

            report = run_optimization(loaded, settings, db=db or default_db_path(spec),
                                      workers=workers, on_progress=show)
        rows = report.rows()
        if out is not None:
            write_csv(out, rows)
        best = report.best
        console = Console()
        console.print(f"{report.name}: {len(report.trials)} trials ({settings.sampler}), "
                      f"{report.distinct_points} distinct points, {report.computed} computed "
                      f"now, {report.wall_s:.1f} s")
        if best is None:
            console.print("no feasible point found")
            raise typer.Exit(1)
        varied = {name: best.params[name] for name in loaded.parameters}
        console.print(_table([{**varied, settings.objective: best.value,
                               "trial": best.number}],
                             [*varied, settings.objective, "trial"],
                             f"best ({settings.direction} {settings.objective})", None))

    results = typer.Typer(help="Inspect a sweep results database.", no_args_is_help=True)
    app.add_typer(results, name="results")

    @results.command("show")
    def show(
        db: Database,
        filters: Filters = None,
        sweep_name: SweepName = None,
        failed: Annotated[bool, typer.Option(
            "--failed", help="Show failed points and errors.")] = False,
        columns: Annotated[str | None, typer.Option(
            "--columns", "-c", help="Comma-separated columns (default: varying parameters "
                                    "and the objectives).")] = None,
        sort: Annotated[str | None, typer.Option("--sort", help="Sort by this column.")] = None,
        limit: Annotated[int, typer.Option("--limit", "-n", help="Rows shown (0: all).")] = 50,
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
        db: Database,
        objectives: Annotated[str, typer.Option(
            "--objectives", help="Comma-separated objectives, e.g. latency_s,energy_j.")],
        maximize: Annotated[str | None, typer.Option(
            "--maximize", help="Comma-separated objectives to maximize (others are "
                               "minimized).")] = None,
        filters: Filters = None,
        sweep_name: SweepName = None,
        csv: Annotated[Path | None, typer.Option(
            "--csv", help="Also write the front as CSV.")] = None,
    ) -> None:
        """Print the Pareto front over the chosen objectives."""
        from rich.console import Console

        from ...outputs import check_output_file
        from ..sweep import export, pareto_front

        if csv is not None:
            check_output_file(csv, field="--csv")
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
        db: Database,
        output: Annotated[Path, typer.Option(
            "--output", "-o", help="Output file (.csv or .parquet).")],
        filters: Filters = None,
        sweep_name: SweepName = None,
        failed: Annotated[bool, typer.Option(
            "--failed", help="Export failed points instead.")] = False,
    ) -> None:
        """Export the stored points to CSV or Parquet."""
        from ...outputs import check_output_file
        from ..sweep import export

        check_output_file(output, field="--output")
        table = _load(db, filters, "failed" if failed else "done", sweep_name)
        path = export(table, output)
        typer.echo(f"{len(table)} rows -> {path}")

    @results.command("plot")
    def plot(
        db: Database,
        x: Annotated[str, typer.Option("--x", help="x column.")],
        y: Annotated[str, typer.Option("--y", help="y column.")],
        output: Annotated[Path, typer.Option("--output", "-o", help="PNG file.")],
        kind: Annotated[PlotKind, typer.Option(
            "--kind", "-k", help="scatter: two objectives and their Pareto front; line: an "
                                 "objective against a parameter; heatmap: two parameters.",
            parser=choice_parser(PlotKind, option="--kind", what="plot kind"),
        )] = PlotKind.scatter,
        z: Annotated[str | None, typer.Option(
            "--z", help="Heatmap colour (an objective).")] = None,
        group_by: Annotated[str | None, typer.Option(
            "--group-by", help="Line plot: one line per value.")] = None,
        maximize: Annotated[str | None, typer.Option(
            "--maximize", help="Scatter: objectives to maximize for the front.")] = None,
        log: Annotated[bool, typer.Option("--log", help="Log axes (scatter, line).")] = False,
        filters: Filters = None,
        sweep_name: SweepName = None,
    ) -> None:
        """Plot stored points as PNG."""
        from ...errors import ConfigError
        from ...outputs import check_output_file
        from ..sweep import plot_heatmap, plot_line, plot_scatter

        check_output_file(output, field="--output")
        table = _load(db, filters, "done", sweep_name)
        if kind is PlotKind.scatter:
            path = plot_scatter(table, x, y, output, maximize=_split(maximize), log=log)
        elif kind is PlotKind.line:
            path = plot_line(table, x, y, output, group_by=group_by, log=log)
        else:
            if z is None:
                raise ConfigError("a heatmap needs --z (the objective to colour by)", field="z")
            path = plot_heatmap(table, x, y, z, output)
        typer.echo(f"{kind.value} plot -> {path}")
