"""``archsim study NAME``: reproduce a published result; ``archsim study all``: the scoreboard.

Study names are the entry points of group ``archsim.studies`` (see
:mod:`archsim.sim.studies.registry`); listing them reads their descriptions without running
them.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ...errors import ConfigError
from ..studies.registry import study_names

__all__ = ["StudyName", "ALL", "register"]

#: The name that runs every study.
ALL = "all"

#: The registered studies and ``all``, as the CLI's choices (built from the entry points).
StudyName = Enum("StudyName", {n: n for n in [*study_names(), ALL]}, type=str)  # type: ignore[misc]


def _parse_name(value: str | Enum) -> Enum:
    # An unknown name is a ConfigError (one line, status 2) that lists the studies, as
    # every other name archsim looks up.
    if isinstance(value, StudyName):
        return value
    try:
        return StudyName(value)
    except ValueError:
        raise ConfigError(f"unknown study '{value}'", field="study",
                          allowed=[s.value for s in StudyName]) from None


def _list_studies() -> None:
    from rich.console import Console
    from rich.table import Table

    from ..studies.registry import study_description

    table = Table(title="studies (archsim study NAME; archsim study all for the scoreboard)")
    table.add_column("name")
    table.add_column("what it reproduces")
    for name in study_names():
        table.add_row(name, study_description(name))
    Console().print(table)


def _run_all(out_dir: Path, seed: int, quick: bool) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..studies.scoreboard import Scoreboard, iter_studies

    console = Console()
    names = study_names()
    board = Scoreboard(quick=quick, seed=seed)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task(f"study {names[0]}" if names else "studies", total=len(names))
        for index, outcome in enumerate(iter_studies(names, out_dir=out_dir, seed=seed,
                                                     quick=quick)):
            board.outcomes.append(outcome)
            if outcome.result is not None:
                counts: dict[str, int] = {}
                for c in outcome.result.comparisons:
                    counts[c.status.value] = counts.get(c.status.value, 0) + 1
                summary = ", ".join(f"{n} {s}" for s, n in counts.items()) or "no comparisons"
                progress.console.print(f"[green]done[/] {outcome.name} ({outcome.wall_s:.1f} s): "
                                       f"{summary}")
            else:
                progress.console.print(f"[red]failed[/] {outcome.name} ({outcome.wall_s:.1f} s): "
                                       f"{outcome.error}")
            following = names[index + 1] if index + 1 < len(names) else None
            progress.update(task, advance=1,
                            description=f"study {following}" if following else "studies")
    files = board.write(out_dir)
    counts_all = ", ".join(f"{n} {s}" for s, n in board.counts().items() if n)
    console.print(f"[bold]Scoreboard[/bold] ({counts_all}): " + ", ".join(str(f) for f in files))
    for row in board.unexpected():
        console.print(f"[yellow]unexpected[/] {row['study']}: {row['metric']} is "
                      f"{row['status']}" + (f", declared {row['expected']}"
                                            if row["expected"] else ""))


def register(app: typer.Typer) -> None:
    @app.command("study")
    def study(
        name: Annotated[StudyName | None, typer.Argument(
            parser=_parse_name, show_default=False,
            help="Study to run, or 'all' for every study and the scoreboard; omit to list "
                 "them.")] = None,
        out: Annotated[Path | None, typer.Option(
            "--out", "-o", help="Output folder (default archsim-out/NAME).")] = None,
        seed: Annotated[int, typer.Option(help="Seed for every stochastic part.")] = 0,
        quick: Annotated[bool, typer.Option(
            help="A smaller, faster version (fewer points).")] = False,
    ) -> None:
        """Run a study: print the paper's headline next to ours with a tolerance band and a
        status, and write tables and plots; 'all' writes scoreboard.md and scoreboard.csv."""
        if name is None:
            _list_studies()
            return
        from ...outputs import check_output_dir

        out_dir = check_output_dir(out or Path("archsim-out") / name.value, field="--out")
        if name.value == ALL:
            _run_all(out_dir, seed, quick)
            return
        from rich.console import Console

        from ..studies.registry import run_study

        result = run_study(name.value, out_dir=out_dir, seed=seed, quick=quick)
        result.print(Console())
