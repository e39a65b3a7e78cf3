"""Studies that reproduce published results, and the registry ``archsim study NAME`` uses.

A study prints the paper's headline next to ours, states every assumption and
writes CSV/JSON tables and PNG plots to an output folder. Studies are listed
here by import path and loaded only when run, so listing them is cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ...errors import ConfigError
from ...outputs import write_csv, write_json

__all__ = ["Comparison", "StudyResult", "StudyRunner", "STUDIES", "get_study", "run_study"]


@dataclass(frozen=True)
class Comparison:
    """One headline number: what the paper published next to what archsim obtains.

    ``published`` is text because papers state ranges and bounds ("up to 6.49x",
    "25-40%"); ``published_value`` is the number compared against, when one is.
    """

    metric: str
    published: str
    ours: float
    unit: str = ""
    published_value: float | None = None
    note: str = ""

    @property
    def ratio_to_published(self) -> float | None:
        if self.published_value in (None, 0):
            return None
        return self.ours / self.published_value


@dataclass
class StudyResult:
    """The typed outcome of a study: comparisons, tables, assumptions and written files."""

    name: str
    title: str
    comparisons: list[Comparison] = field(default_factory=list)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "comparisons": [
                {**c.__dict__, "ratio_to_published": c.ratio_to_published}
                for c in self.comparisons
            ],
            "assumptions": self.assumptions,
            "tables": self.tables,
            "files": [str(f) for f in self.files],
        }

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write ``result.json``, ``comparisons.csv`` and one CSV per table to ``out_dir``."""
        out = Path(out_dir)
        written = [write_csv(out / "comparisons.csv", self.to_dict()["comparisons"],
                             columns=["metric", "published", "ours", "unit", "published_value",
                                      "ratio_to_published", "note"])]
        for table_name, rows in self.tables.items():
            written.append(write_csv(out / f"{table_name}.csv", rows))
        self.files.extend(p for p in written if p not in self.files)
        json_path = out / "result.json"
        if json_path not in self.files:
            self.files.append(json_path)
        write_json(json_path, self.to_dict())
        return list(self.files)

    def print(self, console: Any = None) -> None:
        """Print the headline table and assumptions with rich."""
        from rich.console import Console
        from rich.table import Table

        console = console or Console()
        table = Table(title=self.title)
        for col in ("metric", "published", "archsim", "note"):
            table.add_column(col)
        for c in self.comparisons:
            ours = f"{c.ours:.4g}{(' ' + c.unit) if c.unit else ''}"
            table.add_row(c.metric, c.published, ours, c.note)
        console.print(table)
        if self.assumptions:
            console.print("[bold]Assumptions[/bold]")
            for a in self.assumptions:
                console.print(f"  - {a}")
        if self.files:
            console.print(f"[bold]Wrote[/bold] {len(self.files)} files to "
                          f"{Path(self.files[0]).parent}")


class StudyRunner(Protocol):
    def __call__(self, *, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult: ...


#: name -> (import path "module:function", one-line description)
STUDIES: dict[str, tuple[str, str]] = {}


def register(name: str, target: str, description: str) -> None:
    """List a study by name; ``target`` is ``"package.module:function"``."""
    STUDIES[name] = (target, description)


def get_study(name: str) -> Callable[..., StudyResult]:
    """Import and return the runner of study ``name``."""
    try:
        target, _ = STUDIES[name]
    except KeyError:
        raise ConfigError(f"unknown study '{name}'", field="study", allowed=sorted(STUDIES)) from None
    module_name, func_name = target.split(":")
    return getattr(importlib.import_module(module_name), func_name)


def run_study(name: str, *, out_dir: str | Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Run study ``name``, write its files to ``out_dir`` and return its result."""
    runner = get_study(name)
    out = Path(out_dir)
    result = runner(out_dir=out, seed=seed, quick=quick)
    result.write(out)
    return result


register("s3", "archsim.sim.serving.study:run",
         "S3 (Jin et al.): length prediction vs worst-case / oracle / paged KV cache")
register("formats", "archsim.sim.studies.formats:run",
         "Number formats on MiniLM-L6 weights: INT, IEEE-like, block float, AdaptivFloat, MX, NxFP")
register("flash-attention", "archsim.sim.studies.flash_attention:run",
         "Flash Attention numeric deviation vs baseline attention (Golden et al.)")
register("smaug", "archsim.sim.soc.study:run",
         "SMAUG: accelerator share of single-batch latency and SoC-level speedups")
register("madmax", "archsim.sim.distributed.study:run_madmax",
         "MAD-Max: exposed communication 14-32%, best-strategy speedups 2.24x / 5.2x")
register("prism", "archsim.sim.distributed.study:run_prism",
         "PRISM: ~9% GPU-time variability at 64k GPUs, P(finish by T), MLPerf time-to-train")
