"""``archsim run``: breakdown table, files written, user errors as exit status 2."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from archsim.sim.cli import main
from archsim.sim.cli import run as run_module

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"


def _app() -> typer.Typer:
    app = typer.Typer()
    run_module.register(app)

    @app.callback()
    def _root() -> None:
        pass

    return app


def test_run_prints_breakdown_and_writes_files(tmp_path):
    out = tmp_path / "o"
    res = CliRunner().invoke(_app(), ["run", str(CONFIGS / "smaug_baseline.toml"),
                                      "--workload", "alexnet", "--out", str(out),
                                      "--accelerators", "2", "--threads", "2",
                                      "--no-progress"])
    assert res.exit_code == 0, res.output
    for word in ("accelerator_compute", "data_transfer", "data_prep", "cpu_framework",
                 "end-to-end", "alexnet-b1 on smaug-baseline"):
        assert word in res.output
    assert sorted(p.name for p in out.iterdir()) == [
        "breakdown.csv", "breakdown.png", "components.csv", "gantt.png", "operators.csv",
        "result.json", "timeline.csv"]
    data = json.loads((out / "result.json").read_text())
    assert data["summary"]["accelerators"] == 2
    assert data["carbon"]["total_kg"] > 0
    # Per-component energy and carbon sum to the totals (JSON and CSV alike).
    rows = data["components"]
    assert [r["component"] for r in rows] == [
        "accelerator:smv", "scratchpads", "llc", "dram", "interconnect", "cpu", "leakage",
        "packaging"]
    assert sum(r["energy_j"] for r in rows) == pytest.approx(data["energy_j"]["total_j"])
    assert sum(r["total_kg"] for r in rows) == pytest.approx(data["carbon"]["total_kg"])
    with (out / "components.csv").open() as f:
        csv_rows = list(csv.DictReader(f))
    assert sum(float(r["total_kg"]) for r in csv_rows) == pytest.approx(
        data["carbon"]["total_kg"])


def test_run_errors_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[accelerators]]\nkind = "gpu"\n')
    assert main(["run", str(bad), "--workload", "alexnet", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "accelerators[0].kind" in err and "'systolic'" in err
    assert main(["run", str(CONFIGS / "smaug_baseline.toml"), "--workload", "nonet",
                 "--out", str(tmp_path)]) == 2
    assert "unknown workload 'nonet'" in capsys.readouterr().err
    assert main(["run", str(CONFIGS / "smaug_baseline.toml"), "--policy", "cache",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--policy" in err and "'acp'" in err
    assert main(["run", str(CONFIGS / "smaug_baseline.toml"), "--accelerators", "0",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "'--accelerators'" in err and "greater than or equal to 1" in err
    assert not any(tmp_path.glob("*.json"))
