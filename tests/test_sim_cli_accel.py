"""``archsim accel``: report (with a DVFS sweep), verilog, sim and the errors of its targets."""

from __future__ import annotations

import json

from archsim.sim.cli import main

NPU = "archsim.dsl.examples.npu"


def test_report_with_program_and_sweep(tmp_path, capsys):
    out = tmp_path / "report.json"
    assert main(["accel", "report", f"{NPU}:dvfs_npu", "--program", f"{NPU}:layer_program",
                 "--sweep", "core", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "unit   gemm" in text and "buffer acc" in text and "domain core" in text
    data = json.loads(out.read_text())
    assert [r["point"] for r in data["sweep"]] == ["nominal", "mid", "low", "min"]
    energies = [r["energy_j"] for r in data["sweep"]]
    assert energies == sorted(energies, reverse=True)
    assert data["model"]["cycles"] == sum(s["cycles"] for s in data["model"]["steps"]) + 1


def test_sim_in_pysim_matches_golden_and_model(capsys):
    assert main(["accel", "sim", f"{NPU}:small_npu", "--program", f"{NPU}:layer_program",
                 "--inputs", f"{NPU}:layer_inputs", "--backend", "pysim"]) == 0
    text = capsys.readouterr().out
    assert "4/4 buffers equal the golden run" in text
    measured, predicted = text.split(" cycles measured, ")
    assert measured.split()[-1] == predicted.split()[0]


def test_verilog_is_written(tmp_path):
    out = tmp_path / "npu.v"
    assert main(["accel", "verilog", f"{NPU}:small_npu", "-o", str(out)]) == 0
    assert "module npu(" in out.read_text()


def test_bad_targets_are_one_line_errors(tmp_path, capsys):
    assert main(["accel", "report", "nofile.py:npu"]) == 2
    assert "no such file: nofile.py" in capsys.readouterr().err
    assert main(["accel", "report", f"{NPU}:DVFS_POINTS"]) == 2
    assert "not an archsim.dsl.accel.Accelerator" in capsys.readouterr().err
    assert main(["accel", "report", f"{NPU}"]) == 2
    assert "is not of the form FILE.py:ACCELERATOR" in capsys.readouterr().err
    assert main(["accel", "report", f"{NPU}:small_npu", "--sweep", "core"]) == 2
    assert "--sweep needs --program" in capsys.readouterr().err
    out = tmp_path / "x.json"
    assert main(["accel", "report", f"{NPU}:small_npu", "--program", f"{NPU}:layer_program",
                 "--sweep", "main", "-o", str(out)]) == 2
    assert "no regulated domain 'main'" in capsys.readouterr().err
    assert not out.exists()
