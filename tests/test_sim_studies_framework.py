"""full_run_main: the make_full_run command shared by the studies that ship a full run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archsim.sim.studies.framework import StudyResult, full_run_main


def _runner(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    assert quick is False  # the command must run the full mode
    return StudyResult(name="toy", title="a toy study", tables={"t": [{"x": 3}]})


def test_full_run_main_writes_the_record_with_its_timing(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    rc = full_run_main([str(tmp_path)], runner=_runner, usage="u", command="cmd",
                       filename="full.json", record=lambda r: {"rows": r.tables["t"]})
    assert rc == 0
    data = json.loads((tmp_path / "full.json").read_text())
    assert data["command"] == "cmd"
    assert data["rows"] == [{"x": 3}]
    assert data["wall_s"] >= 0 and data["cpu_s"] >= 0 and len(data["loadavg_end"]) == 3


@pytest.mark.parametrize("argv", [[], ["a", "b"]])
def test_full_run_main_wants_exactly_one_directory(argv: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc = full_run_main(argv, runner=_runner, usage="USAGE TEXT", command="cmd",
                       filename="full.json", record=lambda r: {})
    assert rc == 2
    assert "USAGE TEXT" in capsys.readouterr().out
