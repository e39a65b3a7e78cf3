"""What a study returns: comparisons with a tolerance band and a computed status.

A :class:`Comparison` is one headline of a paper next to archsim's number. It carries the
published value or range, the tolerance :class:`Band` our number must fall in to count as
*reproduced*, optionally the :class:`Direction` the paper's claim states (so a number outside
the band but on the stated side is *in-shape*), the assumption that drives our number, and
the status the study currently expects. :attr:`Comparison.status` is computed from the band,
never written by hand, so a regression that moves a number out of its band shows up as a
status that differs from the expected one (the parametrized study test fails on it).

Bands are set from the paper's own spread and from how precisely its number can be read,
never tuned to make a status pass. Unless a study gives a per-comparison reason,
:data:`DEFAULT_REL_TOL` applies.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import ConfigError
from ...outputs import write_csv, write_json

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "DEFAULT_REL_TOL",
    "Status",
    "Band",
    "Direction",
    "Comparison",
    "Observation",
    "StudyResult",
    "StudyRunner",
    "COMPARISON_COLUMNS",
    "full_run_main",
]

#: The default relative tolerance around a published value or range: headline figures are
#: read from abstracts and bar charts (a few percent of reading error) and are maxima or
#: ranges over the paper's own configurations, which a study approximates with public
#: ones; within +-10% we call a number reproduced. A study that uses another band says why.
DEFAULT_REL_TOL = 0.10


class Status(StrEnum):
    """How a number compares with its published counterpart."""

    REPRODUCED = "reproduced"
    """Ours is inside the tolerance band."""
    IN_SHAPE = "in-shape"
    """Ours is outside the band but on the side the paper's claim states."""
    NOT_REPRODUCED = "not-reproduced"
    """Ours is outside the band and not on the stated side (or there is no stated side)."""


def _check_number(value: float, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ConfigError(f"{what} must be a number, not {value!r}", field=what)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


@dataclass(frozen=True, kw_only=True)
class Band:
    """An interval on our number: ``[lo, hi]``, an end open where ``open_lo``/``open_hi``.

    Use the constructors: :meth:`around` (a published value or range widened by a relative
    tolerance), :meth:`at_least` / :meth:`above` (a one-sided claim) or ``Band(lo=, hi=)``.
    """

    lo: float = -math.inf
    hi: float = math.inf
    open_lo: bool = False
    open_hi: bool = False

    def __post_init__(self) -> None:
        _check_number(self.lo, "band.lo")
        _check_number(self.hi, "band.hi")
        if self.lo > self.hi:
            raise ConfigError(f"band lower end {self.lo} is above its upper end {self.hi}",
                              field="band")

    @classmethod
    def around(cls, low: float, high: float | None = None, *,
               rel: float = DEFAULT_REL_TOL) -> Band:
        """``[low (1 - rel), high (1 + rel)]`` (``high`` defaults to ``low``), for values > 0."""
        high = low if high is None else high
        if not 0 <= rel < 1:
            raise ConfigError(f"relative tolerance must be in [0, 1), not {rel}", field="rel")
        if low <= 0 or high < low:
            raise ConfigError(f"Band.around needs 0 < low <= high, not {low}, {high}",
                              field="band")
        return cls(lo=low * (1 - rel), hi=high * (1 + rel))

    @classmethod
    def at_least(cls, lo: float) -> Band:
        """``[lo, inf)``."""
        return cls(lo=lo)

    @classmethod
    def above(cls, lo: float) -> Band:
        """``(lo, inf)``: strictly above ``lo`` (a claim such as "beats", "> 1x")."""
        return cls(lo=lo, open_lo=True)

    def contains(self, x: float) -> bool:
        """Whether ``x`` is inside the band (NaN never is)."""
        if math.isnan(x):
            return False
        above_lo = x > self.lo if self.open_lo else x >= self.lo
        below_hi = x < self.hi if self.open_hi else x <= self.hi
        return above_lo and below_hi

    def text(self, unit: str = "") -> str:
        """``[1.62, 5.5] x``, ``> 0 dB``, ``>= 14 %``."""
        suffix = f" {unit}" if unit else ""
        if math.isinf(self.hi) and not math.isinf(self.lo):
            return f"{'>' if self.open_lo else '>='} {_fmt(self.lo)}{suffix}"
        if math.isinf(self.lo) and not math.isinf(self.hi):
            return f"{'<' if self.open_hi else '<='} {_fmt(self.hi)}{suffix}"
        left = "(" if self.open_lo else "["
        right = ")" if self.open_hi else "]"
        return f"{left}{_fmt(self.lo)}, {_fmt(self.hi)}{right}{suffix}"


@dataclass(frozen=True, kw_only=True)
class Direction:
    """The direction a claim states: ours strictly ``above`` (or ``below``) a value.

    ``Direction(above=1.0)`` reads "Flash deviates more than baseline" for a ratio;
    ``Direction(below=50.0)`` reads "the accelerator is a minority of latency" for a share.
    """

    above: float | None = None
    below: float | None = None

    def __post_init__(self) -> None:
        if (self.above is None) == (self.below is None):
            raise ConfigError("a direction gives exactly one of 'above' and 'below'",
                              field="direction")
        value = self.above if self.above is not None else self.below
        assert value is not None
        _check_number(value, "direction")

    def holds(self, x: float) -> bool:
        """Whether ``x`` goes the stated direction (NaN never does)."""
        if math.isnan(x):
            return False
        if self.above is not None:
            return x > self.above
        assert self.below is not None
        return x < self.below

    def text(self, unit: str = "") -> str:
        suffix = f" {unit}" if unit else ""
        if self.above is not None:
            return f"> {_fmt(self.above)}{suffix}"
        assert self.below is not None
        return f"< {_fmt(self.below)}{suffix}"


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """One headline: the published value next to ours, the band, and the computed status.

    Parameters
    ----------
    metric
        What is compared.
    ours
        archsim's number.
    published
        The paper's statement as text for display ("up to 6.49x", "25-40%").
    band
        The tolerance band on ``ours``: inside it the headline is *reproduced*.
    expected
        The status the study declares for this number today; the study test checks
        :attr:`status` against it, so a number that leaves its band fails the test.
    assumption
        The assumption that drives our number (the one a reader should check first).
    published_low, published_high
        The published value (``low == high``) or range, when the paper gives numbers.
    direction
        The direction the claim states, if it states one; a number outside ``band`` but
        going this direction is *in-shape*.
    unit
        The unit of ``ours``, ``band`` and the published values.
    note
        Anything else worth printing next to the number (which configuration it is from).
    """

    metric: str
    ours: float
    published: str
    band: Band
    expected: Status
    assumption: str
    published_low: float | None = None
    published_high: float | None = None
    direction: Direction | None = None
    unit: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if not self.metric.strip():
            raise ConfigError("a comparison needs a metric name", field="metric")
        if not self.assumption.strip():
            raise ConfigError(f"comparison '{self.metric}' needs the assumption that drives "
                              "it", field="assumption")
        if not isinstance(self.expected, Status):
            raise ConfigError(f"expected status {self.expected!r} is not a Status",
                              field="expected", allowed=[s.value for s in Status])
        if isinstance(self.ours, bool) or not isinstance(self.ours, int | float):
            raise ConfigError(f"ours must be a number, not {self.ours!r}", field="ours")
        if (self.published_low is None) != (self.published_high is None):
            raise ConfigError("give both published_low and published_high (equal for a "
                              "single value) or neither", field="published_low")

    @property
    def status(self) -> Status:
        """``reproduced`` inside the band, ``in-shape`` outside it but going the stated
        direction, ``not-reproduced`` otherwise (a NaN is never reproduced)."""
        if self.band.contains(self.ours):
            return Status.REPRODUCED
        if self.direction is not None and self.direction.holds(self.ours):
            return Status.IN_SHAPE
        return Status.NOT_REPRODUCED

    @property
    def ratio_to_published(self) -> float | None:
        """``ours / published`` when the paper gives a single non-zero value."""
        if self.published_low is None or self.published_low != self.published_high \
                or self.published_low == 0:
            return None
        return self.ours / self.published_low

    def band_text(self) -> str:
        """The band, with the direction that makes a number in-shape: ``[1.62, 5.5] x; > 1``."""
        text = self.band.text(self.unit)
        if self.direction is not None:
            text += f"; in-shape if {self.direction.text(self.unit)}"
        return text

    def ours_text(self) -> str:
        return f"{self.ours:.4g}{(' ' + self.unit) if self.unit else ''}"

    def to_row(self) -> dict[str, str | float | None]:
        """The CSV/JSON row: every field, the band's ends, the status and the expectation."""
        return {
            "metric": self.metric, "published": self.published,
            "published_low": self.published_low, "published_high": self.published_high,
            "ours": self.ours, "unit": self.unit,
            "band_lo": self.band.lo, "band_hi": self.band.hi, "band": self.band_text(),
            "direction": self.direction.text() if self.direction else None,
            "status": self.status.value, "expected": self.expected.value,
            "ratio_to_published": self.ratio_to_published,
            "assumption": self.assumption, "note": self.note,
        }


#: Columns of ``comparisons.csv`` (and of each study's part of the scoreboard CSV).
COMPARISON_COLUMNS = ["metric", "published", "published_low", "published_high", "ours", "unit",
                      "band_lo", "band_hi", "band", "direction", "status", "expected",
                      "ratio_to_published", "assumption", "note"]


@dataclass(frozen=True, kw_only=True)
class Observation:
    """A number the study reports that has no published counterpart (nothing to reproduce)."""

    metric: str
    ours: float
    unit: str = ""
    note: str = ""

    def to_row(self) -> dict[str, str | float]:
        return {"metric": self.metric, "ours": self.ours, "unit": self.unit, "note": self.note}


@dataclass
class StudyResult:
    """The typed outcome of a study: comparisons, observations, tables, assumptions, files."""

    name: str
    title: str
    comparisons: list[Comparison] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "comparisons": [c.to_row() for c in self.comparisons],
            "observations": [o.to_row() for o in self.observations],
            "assumptions": self.assumptions,
            "tables": self.tables,
            "files": [str(f) for f in self.files],
        }

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write ``result.json``, ``comparisons.csv``, ``observations.csv`` (when there are
        observations) and one CSV per table to ``out_dir``."""
        out = Path(out_dir)
        written = [write_csv(out / "comparisons.csv", [c.to_row() for c in self.comparisons],
                             columns=COMPARISON_COLUMNS)]
        if self.observations:
            written.append(write_csv(out / "observations.csv",
                                     [o.to_row() for o in self.observations],
                                     columns=["metric", "ours", "unit", "note"]))
        for table_name, rows in self.tables.items():
            written.append(write_csv(out / f"{table_name}.csv", rows))
        self.files.extend(p for p in written if p not in self.files)
        json_path = out / "result.json"
        if json_path not in self.files:
            self.files.append(json_path)
        write_json(json_path, self.to_dict())
        return list(self.files)

    def print(self, console: Console | None = None) -> None:
        """Print published, ours, band and status of every comparison, then the
        observations and assumptions, with rich."""
        from rich.console import Console
        from rich.table import Table

        console = console or Console()
        table = Table(title=self.title)
        for col in ("metric", "published", "archsim", "band", "status", "note"):
            table.add_column(col)
        colors = {Status.REPRODUCED: "green", Status.IN_SHAPE: "yellow",
                  Status.NOT_REPRODUCED: "red"}
        for c in self.comparisons:
            status = f"[{colors[c.status]}]{c.status.value}[/]"
            if c.status != c.expected:
                status += f" (expected {c.expected.value})"
            table.add_row(c.metric, c.published, c.ours_text(), c.band_text(), status, c.note)
        console.print(table)
        if self.observations:
            extra = Table(title="Beyond the paper (no published counterpart)")
            for col in ("metric", "archsim", "note"):
                extra.add_column(col)
            for o in self.observations:
                extra.add_row(o.metric, f"{o.ours:.4g}{(' ' + o.unit) if o.unit else ''}",
                              o.note)
            console.print(extra)
        if self.assumptions:
            console.print("[bold]Assumptions[/bold]")
            for a in self.assumptions:
                console.print(f"  - {a}")
        if self.files:
            console.print(f"[bold]Wrote[/bold] {len(self.files)} files to "
                          f"{Path(self.files[0]).parent}")


class StudyRunner(Protocol):
    """What an ``archsim.studies`` entry point is: ``run(*, out_dir, seed, quick)``."""

    def __call__(self, *, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult: ...


def full_run_main(argv: list[str] | None, *, runner: StudyRunner, usage: str, command: str,
                  filename: str, record: Callable[[StudyResult], Mapping[str, object]]) -> int:
    """A study's ``make_full_run`` command: run full mode and keep what the quick mode reads.

    Runs ``runner`` in full mode into the one directory named by ``argv`` (``sys.argv[1:]``
    when None) and writes ``record(result)`` there as ``filename``, with the command, the
    run's wall and CPU seconds and the load average at its end (the measurements are only
    read next to the load they were made under). The file is then copied by hand into the
    study's ``data/``.

    Returns
    -------
    int
        The exit status: 0, or 2 (``usage`` printed) without exactly one argument.
    """
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(usage)
        return 2
    out = Path(args[0])
    t0, c0 = time.perf_counter(), time.process_time()
    res = runner(out_dir=out, quick=False)
    write_json(out / filename, {
        "command": command, "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - c0, "loadavg_end": list(os.getloadavg()),
        **record(res)})
    res.print()
    return 0
