"""The study framework (bands, statuses, results), the registry, the scoreboard, and one
parametrized test that runs every registered study in quick mode."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from archsim.errors import ConfigError, ToolchainError
from archsim.sim import studies
from archsim.sim.studies import (
    Band,
    Comparison,
    Direction,
    Observation,
    Status,
    StudyResult,
    run_all,
    study_description,
    study_names,
)
from archsim.tests.study_runs import QUICK_WALL_S, quick_run

ROOT = Path(__file__).resolve().parent.parent


def _comparison(ours: float, band: Band, direction: Direction | None = None,
                expected: Status = Status.REPRODUCED) -> Comparison:
    return Comparison(metric="m", ours=ours, published="p", band=band, direction=direction,
                      expected=expected, assumption="a")


# -- bands and statuses -------------------------------------------------------------------

def test_band_around_a_value_and_a_range():
    b = Band.around(2.0, rel=0.1)
    assert (b.lo, b.hi) == pytest.approx((1.8, 2.2))
    r = Band.around(1.8, 5.0, rel=0.1)
    assert (r.lo, r.hi) == pytest.approx((1.62, 5.5))
    assert r.contains(1.62 + 1e-9) and r.contains(5.5 - 1e-9)
    assert not r.contains(1.6) and not r.contains(5.6) and not r.contains(math.nan)
    assert r.text("x") == "[1.62, 5.5] x"
    with pytest.raises(ConfigError, match="relative tolerance must be in"):
        Band.around(1.0, rel=1.5)
    with pytest.raises(ConfigError, match="lower end 2 is above its upper end 1"):
        Band(lo=2, hi=1)


def test_open_and_one_sided_bands():
    above = Band.above(1.0)
    assert not above.contains(1.0) and above.contains(1.0000001)
    assert Band.at_least(1.0).contains(1.0)
    assert above.text("x") == "> 1 x" and Band.at_least(14).text("%") == ">= 14 %"
    assert Band(hi=3.0).text() == "<= 3"


def test_status_is_computed_from_band_and_direction():
    band = Band.around(1.8, 5.0, rel=0.1)  # [1.62, 5.5]
    faster = Direction(above=1.0)
    assert _comparison(3.0, band, faster).status == Status.REPRODUCED
    assert _comparison(6.7, band, faster).status == Status.IN_SHAPE  # too fast, right side
    assert _comparison(1.2, band, faster).status == Status.IN_SHAPE  # a gain, but too small
    assert _comparison(0.9, band, faster).status == Status.NOT_REPRODUCED  # a slowdown
    assert _comparison(6.7, band).status == Status.NOT_REPRODUCED  # no stated direction
    assert _comparison(math.nan, band, faster).status == Status.NOT_REPRODUCED
    minority = Direction(below=50.0)
    assert _comparison(4.2, Band.around(25, 40), minority).status == Status.IN_SHAPE
    assert _comparison(60.0, Band.around(25, 40), minority).status == Status.NOT_REPRODUCED


def test_comparison_validates_its_fields():
    with pytest.raises(ConfigError, match="needs the assumption that drives it"):
        Comparison(metric="m", ours=1.0, published="p", band=Band(), expected=Status.REPRODUCED,
                   assumption=" ")
    with pytest.raises(ConfigError, match="not a Status"):
        Comparison(metric="m", ours=1.0, published="p", band=Band(), expected="reproduced",
                   assumption="a")
    with pytest.raises(ConfigError, match="exactly one of 'above' and 'below'"):
        Direction()
    with pytest.raises(ConfigError, match="both published_low and published_high"):
        Comparison(metric="m", ours=1.0, published="p", band=Band(), expected=Status.REPRODUCED,
                   assumption="a", published_low=1.0)


def test_result_writes_comparisons_observations_and_tables(tmp_path):
    result = StudyResult(
        name="demo", title="Demo",
        comparisons=[Comparison(metric="speedup", ours=1.5, published="up to 2x",
                                published_low=2.0, published_high=2.0, unit="x",
                                band=Band.around(2.0), direction=Direction(above=1.0),
                                expected=Status.IN_SHAPE, assumption="assumed link speed")],
        observations=[Observation(metric="extra", ours=3.0)],
        tables={"points": [{"n": 1, "t": 0.5}]}, assumptions=["none"],
    )
    files = result.write(tmp_path)
    assert {p.name for p in files} == {"comparisons.csv", "observations.csv", "points.csv",
                                       "result.json"}
    data = json.loads((tmp_path / "result.json").read_text())
    row = data["comparisons"][0]
    assert row["ratio_to_published"] == 0.75
    assert (row["band_lo"], row["band_hi"]) == pytest.approx((1.8, 2.2))
    assert row["status"] == "in-shape"  # 1.5 is below [1.8, 2.2] but above 1
    assert data["assumptions"] == ["none"]
    with open(tmp_path / "comparisons.csv", newline="") as f:
        (csv_row,) = list(csv.DictReader(f))
    assert csv_row["status"] == "in-shape" and csv_row["band"] == "[1.8, 2.2] x; in-shape if > 1 x"
    assert csv_row["assumption"] == "assumed link speed"


def test_print_shows_band_and_status():
    from rich.console import Console

    result = StudyResult(name="demo", title="Demo", comparisons=[
        _comparison(0.5, Band.around(2.0), expected=Status.REPRODUCED)])
    console = Console(record=True, width=200)
    result.print(console)
    text = console.export_text()
    assert "[1.8, 2.2]" in text
    assert "not-reproduced (expected reproduced)" in text


# -- the registry -------------------------------------------------------------------------

def test_registry_is_the_entry_points_of_pyproject():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert study_names() == sorted(declared["archsim.studies"])
    for name in study_names():
        assert study_description(name)


def test_listing_does_not_import_the_studies():
    code = ("import sys; from archsim.sim.studies import study_names, study_description; "
            "[study_description(n) for n in study_names()]; "
            "print(sorted(m for m in sys.modules if m.startswith('archsim.sim.studies.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str(sorted(["archsim.sim.studies.framework",
                                      "archsim.sim.studies.registry",
                                      "archsim.sim.studies.scoreboard"]))


def test_unknown_study_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown study 'nope'.*'smaug'"):
        studies.get_study("nope")
    with pytest.raises(ConfigError, match="unknown study 'all'"):
        studies.get_study("all")


# -- the scoreboard -----------------------------------------------------------------------

def _ok(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    return StudyResult(name="ok", title="OK", comparisons=[
        _comparison(2.0, Band.around(2.0)),
        _comparison(9.0, Band.around(2.0), Direction(above=1.0), expected=Status.IN_SHAPE)])


def _boom(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    raise RuntimeError("engine exploded")


def test_scoreboard_keeps_the_others_when_a_study_fails(tmp_path):
    runners = {"boom": _boom, "ok": _ok}
    board = run_all(["boom", "ok"], out_dir=tmp_path, quick=True, load=runners.__getitem__)
    assert [o.ok for o in board.outcomes] == [False, True]
    assert board.counts() == {"reproduced": 1, "in-shape": 1, "not-reproduced": 0, "error": 1}
    assert "engine exploded" in (tmp_path / "boom" / "error.txt").read_text()
    assert (tmp_path / "ok" / "comparisons.csv").exists()
    with open(tmp_path / "scoreboard.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["study"], r["status"]) for r in rows] == [
        ("boom", "error"), ("ok", "reproduced"), ("ok", "in-shape")]
    md = (tmp_path / "scoreboard.md").read_text()
    assert "| boom | (study failed) |" in md and "RuntimeError: engine exploded" in md
    assert "| ok | m | p | 9 | [1.8, 2.2]; in-shape if > 1 | in-shape | a |" in md
    assert [r["study"] for r in board.unexpected()] == ["boom"]


def test_cli_study_all_writes_the_scoreboard(tmp_path, monkeypatch, capsys):
    from archsim.sim import cli
    from archsim.sim.cli import study as cli_study
    from archsim.sim.studies import scoreboard

    runners = {"boom": _boom, "ok": _ok}
    real = scoreboard.iter_studies
    monkeypatch.setattr(cli_study, "study_names", lambda: ["boom", "ok"])
    monkeypatch.setattr(scoreboard, "iter_studies",
                        lambda names, **kw: real(names, load=runners.__getitem__, **kw))
    assert cli.main(["study", "all", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "failed boom" in out and "done ok" in out
    assert (tmp_path / "scoreboard.md").exists() and (tmp_path / "scoreboard.csv").exists()


# -- every registered study, quick: statuses as declared ----------------------------------

@pytest.mark.parametrize("name", study_names())
def test_every_study_reports_the_statuses_it_declares(name):
    try:
        result = quick_run(name)
    except ToolchainError as exc:  # e.g. the MiniLM weights package is not installed
        pytest.skip(str(exc))
    assert result.comparisons, f"{name} compares nothing with a published number"
    wrong = [f"{c.metric}: ours {c.ours:.4g} in band {c.band_text()} is {c.status.value}, "
             f"declared {c.expected.value}" for c in result.comparisons
             if c.status != c.expected]
    assert not wrong, "\n".join(wrong)
    print(f"{name} quick: {QUICK_WALL_S.get(name, float('nan')):.1f} s")
