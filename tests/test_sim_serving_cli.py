"""``archsim serve``."""

import json

import pytest

from archsim.sim.cli import main


def test_serve_writes_outputs(tmp_path, capsys):
    out = tmp_path / "o"
    code = main(["serve", "--model", "gpt-j-6b", "--gpu", "a100-40gb", "--policy", "paged",
                 "--rate", "20", "--requests", "200", "--out", str(out)])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["policy"] == "paged-recompute"
    assert summary["metrics"]["requests"] == 200
    for name in ("metrics.csv", "requests.csv", "timeline.csv", "memory.png"):
        assert (out / name).stat().st_size > 0
    assert "throughput_tokens_per_s" in capsys.readouterr().out


def test_serve_from_trace(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,prompt_tokens,output_tokens\n0,10,5\n0.01,20,7\n")
    assert main(["serve", "--policy", "oracle", "--trace", str(trace)]) == 0
    assert "12" in capsys.readouterr().out  # 5 + 7 output tokens


@pytest.mark.parametrize("args,pattern", [
    (["--rate", "0"], r"field '--rate': must be a finite number > 0 and <= 1e\+06, not 0.0"),
    (["--rate", "-3"], "not -3.0"),
    (["--model", "llama-65b", "--gpu", "a100-40gb"], "llama-65b.*does not|needs 130"),
    (["--policy", "lifo"], r"'lifo' is not one of 'worst-case', 's3', 'oracle', 'paged'"),
    (["--model", "gpt-5"], "unknown model 'gpt-5'"),
    (["--slo-tbt-s", "0"], "field '--slo-tbt-s': must be a finite number > 0, not 0.0"),
    (["--tp", "0"], "tensor parallelism must be a positive integer, not 0"),
    (["--predictor-accuracy", "1.5"], r"'--predictor-accuracy': must be a finite number >= 0 and <= 1, not 1.5"),
])
def test_serve_bad_inputs_exit_2(args, pattern, capsys):
    import re

    assert main(["serve", "--requests", "10", *args]) == 2
    assert re.search(pattern, capsys.readouterr().err)


def test_serve_with_calibration_table(tmp_path, capsys):
    cal = tmp_path / "cal.csv"
    cal.write_text("batch,context_len,latency_s\n1,10,0.02\n1,4000,0.02\n"
                   "5000,10,0.02\n5000,4000,0.02\n")
    out = tmp_path / "o"
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,prompt_tokens,output_tokens\n0,10,5\n")
    assert main(["serve", "--trace", str(trace), "--calibration", str(cal), "--out",
                 str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    # a constant 20 ms per iteration: 5 iterations (1 prefill + 4 decodes)
    assert summary["metrics"]["makespan_s"] == pytest.approx(5 * 0.02)
    assert summary["config"]["calibrated"] is True


def test_serve_malformed_trace(tmp_path, capsys):
    trace = tmp_path / "bad.csv"
    trace.write_text("arrival_s,prompt_tokens,output_tokens\n0,ten,5\n")
    assert main(["serve", "--trace", str(trace)]) == 2
    assert "line 2: prompt_tokens = 'ten'" in capsys.readouterr().err
