"""``archsim study NAME``: reproduce a published result."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("study")
    def study(
        name: str = typer.Argument(None, help="Study to run; omit to list them."),
        out: Path = typer.Option(None, "--out", "-o", help="Output folder (default archsim-out/NAME)."),
        seed: int = typer.Option(0, help="Seed for every stochastic part."),
        quick: bool = typer.Option(False, help="A smaller, faster version (fewer points)."),
    ) -> None:
        """Run a study: print the paper's headline next to ours and write tables and plots."""
        from rich.console import Console
        from rich.table import Table

        from ..studies import STUDIES, run_study

        console = Console()
        if name is None:
            table = Table(title="studies")
            table.add_column("name")
            table.add_column("what it reproduces")
            for key, (_, description) in sorted(STUDIES.items()):
                table.add_row(key, description)
            console.print(table)
            return
        out_dir = out or Path("archsim-out") / name
        result = run_study(name, out_dir=out_dir, seed=seed, quick=quick)
        result.print(console)
