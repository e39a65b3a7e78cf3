"""``archsim train``: strategy search and variability from the command line."""

import json

from archsim.sim.cli import main


def test_cli_train(tmp_path, capsys):
    code = main(["train", "--model", "llama-7b", "--gpus", "64", "--gpu", "a100",
                 "--network", "ib-hdr", "--search", "--variability", "--samples", "500",
                 "--top", "3", "--out", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    assert "best/baseline" in out and "expected slowdown" in out
    data = json.loads((tmp_path / "search.json").read_text())
    assert data["num_legal"] > 0
    assert (tmp_path / "iteration_distribution.png").exists()


def test_cli_bad_inputs(capsys):
    assert main(["train", "--model", "llama-70b", "--gpus", "64", "--gpu", "tpu"]) == 2
    # the GPU choices are the datasheets (an Enum built from GPU_SPECS), so typer names them
    err = capsys.readouterr().err
    assert "'tpu' is not one of" in err and "'h100-80gb'" in err and "'a100'" in err
    assert main(["train", "--model", "llama-7b", "--gpus", "8192", "--global-batch", "2"]) == 2
    assert "more than llama-7b can use" in capsys.readouterr().err
