"""``archsim study all``: run every registered study and write one scoreboard.

Each study runs into its own sub-folder of the output folder. A study that raises does not
stop the others: it becomes an ``error`` row of the scoreboard, and its traceback is written
to ``<study>/error.txt``. The scoreboard (one row per comparison: study, metric, published,
ours, band, status, the assumption that drives it) is written as ``scoreboard.md`` and
``scoreboard.csv``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...outputs import atomic_write_text, write_csv
from .framework import Status, StudyResult, StudyRunner
from .registry import get_study, run_runner, study_names

__all__ = ["ERROR_STATUS", "SCOREBOARD_COLUMNS", "StudyOutcome", "Scoreboard", "iter_studies",
           "run_all"]

#: The status of a scoreboard row whose study raised instead of returning a result.
ERROR_STATUS = "error"
SCOREBOARD_COLUMNS = ["study", "metric", "published", "ours", "unit", "band", "status", "expected",
                      "assumption", "note"]


@dataclass(frozen=True, kw_only=True)
class StudyOutcome:
    """What running one study gave: its result, or the error it raised, and its wall time."""

    name: str
    wall_s: float
    result: StudyResult | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.result is not None


def iter_studies(names: Sequence[str] | None = None, *, out_dir: str | Path, seed: int = 0,
                 quick: bool = False,
                 load: Callable[[str], StudyRunner] = get_study) -> Iterator[StudyOutcome]:
    """Run the studies ``names`` (default: every registered one) one after another.

    Each writes its files to ``out_dir/<name>``; each outcome is yielded as soon as its
    study ends, so a caller can show progress. An ``Exception`` raised by a study (or by
    loading it) is caught and reported in the outcome; ``KeyboardInterrupt`` is not.
    """
    root = Path(out_dir)
    for name in (study_names() if names is None else list(names)):
        start = time.perf_counter()
        sub = root / name
        try:
            result = run_runner(name, load(name), out_dir=sub, seed=seed, quick=quick)
        except Exception as exc:  # one failing study must not lose the others
            atomic_write_text(sub / "error.txt", traceback.format_exc())
            yield StudyOutcome(name=name, wall_s=time.perf_counter() - start,
                               error=f"{type(exc).__name__}: {exc}")
            continue
        yield StudyOutcome(name=name, wall_s=time.perf_counter() - start, result=result)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@dataclass
class Scoreboard:
    """Every study's comparisons in one table."""

    outcomes: list[StudyOutcome] = field(default_factory=list)
    quick: bool = False
    seed: int = 0

    def rows(self) -> list[dict[str, str | float | None]]:
        """One row per comparison; one ``error`` row per study that failed."""
        rows: list[dict[str, str | float | None]] = []
        for o in self.outcomes:
            if o.result is None:
                rows.append({"study": o.name, "metric": "(study failed)", "published": "",
                             "ours": None, "unit": "", "band": "", "status": ERROR_STATUS,
                             "expected": "",
                             "assumption": "", "note": o.error or ""})
                continue
            for c in o.result.comparisons:
                row = c.to_row()
                entry: dict[str, str | float | None] = {"study": o.name}
                entry.update((k, row[k]) for k in SCOREBOARD_COLUMNS[1:])
                rows.append(entry)
        return rows

    def counts(self) -> dict[str, int]:
        """How many rows have each status (``error`` included)."""
        out = {s.value: 0 for s in Status} | {ERROR_STATUS: 0}
        for r in self.rows():
            out[str(r["status"])] += 1
        return out

    def unexpected(self) -> list[dict[str, str | float | None]]:
        """Rows whose status differs from the one their study declares, and error rows."""
        return [r for r in self.rows() if r["status"] != r["expected"]]

    def markdown(self) -> str:
        """The scoreboard as a Markdown document (a summary line, the table, wall times)."""
        mode = "quick" if self.quick else "full"
        counts = ", ".join(f"{n} {s}" for s, n in self.counts().items() if n)
        lines = [f"# archsim study scoreboard ({mode} mode, seed {self.seed})", "",
                 f"{len(self.outcomes)} studies: {counts}.", "",
                 "| study | metric | published | ours | band | status | assumption that "
                 "drives it |",
                 "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in self.rows():
            status = str(r["status"])
            if r["expected"] and r["status"] != r["expected"]:
                status += f" (expected {r['expected']})"
            if status == ERROR_STATUS:
                status += f": {r['note']}"
            ours, unit = r["ours"], r["unit"]
            ours_text = "" if ours is None else f"{ours:.4g}{(' ' + str(unit)) if unit else ''}"
            cells = [str(r["study"]), str(r["metric"]), str(r["published"]), ours_text,
                     str(r["band"]), status, str(r["assumption"])]
            lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
        lines += ["", "| study | wall time (s) | comparisons |", "| --- | --- | --- |"]
        for o in self.outcomes:
            n = len(o.result.comparisons) if o.result is not None else 0
            lines.append(f"| {o.name} | {o.wall_s:.1f} | {n if o.ok else ERROR_STATUS} |")
        return "\n".join(lines) + "\n"

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write ``scoreboard.md`` and ``scoreboard.csv`` to ``out_dir`` (atomically)."""
        out = Path(out_dir)
        return [atomic_write_text(out / "scoreboard.md", self.markdown()),
                write_csv(out / "scoreboard.csv", self.rows(), columns=SCOREBOARD_COLUMNS)]


def run_all(names: Sequence[str] | None = None, *, out_dir: str | Path, seed: int = 0,
            quick: bool = False, load: Callable[[str], StudyRunner] = get_study) -> Scoreboard:
    """Run every study (or ``names``), write the scoreboard to ``out_dir`` and return it."""
    board = Scoreboard(outcomes=list(iter_studies(names, out_dir=out_dir, seed=seed,
                                                  quick=quick, load=load)),
                       quick=quick, seed=seed)
    board.write(out_dir)
    return board
