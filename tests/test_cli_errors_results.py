"""Issue 21, item 4: inputs that gave silently wrong answers now give a one-line error.

Each case runs the user's command through the CLI and checks the exit code, the message's key
content and that nothing was written; expected values (allowed TP degrees, index extremes,
type ranges) are worked out here independently of the code under test."""

import textwrap

import pytest

from archsim.compilers.graph import TRANSFORMER_PRESETS, get_transformer
from archsim.errors import ConfigError
from archsim.sim.cli import main


def _allowed_tp(num_heads, kv_heads):
    """Megatron TP: tp divides the heads; KV heads are split or replicated (one divides the
    other). Brute force over every degree up to the head count."""
    return [t for t in range(1, num_heads + 1)
            if num_heads % t == 0 and (kv_heads % t == 0 or t % kv_heads == 0)]


def _error_line(capsys):
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err


# --- serve --tp ---------------------------------------------------------------------------

def test_serve_tp_that_does_not_divide_the_heads_is_rejected(tmp_path, capsys):
    out = tmp_path / "out"
    assert get_transformer("llama-13b").num_heads == 40  # the case of the issue
    code = main(["serve", "--model", "llama-13b", "--tp", "3", "--requests", "20",
                 "-o", str(out)])
    err = _error_line(capsys)
    assert code == 2
    assert "--tp" in err and "tp 3 does not divide the 40 attention heads" in err
    allowed = ", ".join(map(str, _allowed_tp(40, 40)))
    assert allowed == "1, 2, 4, 5, 8, 10, 20, 40"
    assert f"(allowed: {allowed})" in err
    assert not out.exists()


def test_serve_accepts_a_tp_that_divides_the_heads(capsys):
    assert main(["serve", "--model", "llama-13b", "--tp", "4", "--requests", "20"]) == 0
    assert "llama-13b on 4x" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(k for k, c in TRANSFORMER_PRESETS.items()
                                        if c.decoder))
def test_one_tp_rule_for_serving_and_training(name):
    from archsim.hw.models.gpu import get_gpu
    from archsim.sim.serving.config import CostConfig

    cfg = get_transformer(name)
    allowed = _allowed_tp(cfg.num_heads, cfg.kv_heads)
    assert list(cfg.tp_degrees()) == allowed
    bad = next(t for t in range(2, cfg.num_heads + 2) if t not in allowed)
    with pytest.raises(ConfigError) as info:
        CostConfig(model=cfg, gpu=get_gpu("a100-80gb"), tp=bad)
    assert info.value.field == "tp"
    assert f"tp {bad} " in str(info.value)
    CostConfig(model=cfg, gpu=get_gpu("a100-80gb"), tp=allowed[-1])


def test_training_search_ranks_only_tp_degrees_the_rule_allows():
    from archsim.sim.distributed import Strategy, StrategyRejected, get_workload, make_cluster
    from archsim.sim.distributed.parallelism import evaluate

    wl = get_workload("llama-13b", seq_len=2048)
    cluster = make_cluster(gpu="h100", num_gpus=24, gpus_per_node=8, network="ib-ndr")
    with pytest.raises(StrategyRejected, match="tp 3 does not divide the 40 attention heads"):
        evaluate(wl, cluster, Strategy(dp=8, tp=3, pp=1, micro_batch=1), global_batch=64)


# --- train --seq-len 0 and the `x or default` pattern -------------------------------------

def test_train_seq_len_zero_is_rejected(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["train", "-m", "llama-13b", "-n", "8", "--seq-len", "0", "-o", str(out)])
    err = _error_line(capsys)
    assert code == 2 and "--seq-len" in err
    assert not out.exists()


def test_get_workload_seq_len_zero_is_not_the_default():
    from archsim.sim.distributed import get_workload

    with pytest.raises(ConfigError) as info:
        get_workload("llama-13b", seq_len=0)
    assert info.value.field == "seq_len"
    assert get_workload("llama-13b").seq_len == get_transformer("llama-13b").max_seq_len


@pytest.mark.parametrize("field", ["kernels_per_iteration", "collectives_per_iteration"])
def test_variability_counts_of_zero_are_rejected_not_defaulted(field):
    from archsim.sim.distributed.variability import _resolve_inputs

    kw = {"kernels_per_iteration": None, "collectives_per_iteration": None, field: 0}
    with pytest.raises(ConfigError) as info:
        _resolve_inputs(None, deterministic_s=1.0, noisy_s=0.5, num_ranks=4, segments=2,
                        samples=10, **kw)
    assert info.value.field == field


# --- archsim hls: static bounds and out-of-range arguments --------------------------------

OOB = textwrap.dedent("""\
    from archsim.dsl import kernel, Array, Int


    @kernel
    def total(a: Array[Int(8), 64]) -> Int(32):
        s = Int(32)(0)
        for i in range(65):
            s += a[i]
        return s
""")

MAC = textwrap.dedent("""\
    from archsim.dsl import kernel, Int, UInt, Array, pipeline


    @kernel
    def mac(a: Array[Int(8), 16], b: Array[Int(8), 16], n: UInt(5)) -> Int(32):
        acc = Int(32)(0)
        for i in pipeline(range(n), ii=1):
            acc += a[i] * b[i]
        return acc
""")


def test_hls_loop_one_past_the_array_is_a_compile_error(tmp_path, capsys):
    src = tmp_path / "oob.py"
    src.write_text(OOB)
    verilog = tmp_path / "total.v"
    code = main(["hls", f"{src}:total", "-o", str(verilog), "--simulate"])
    err = _error_line(capsys)
    assert code == 2
    # line 8 is `s += a[i]`; the index `i` starts at column 16 (1-based)
    assert err.startswith(f"error: {src}:8:16: index 'i' reaches 64 (it takes 0..64")
    assert "out of bounds for array 'a' dimension of size 64" in err
    assert not verilog.exists()
    src.write_text(OOB.replace("range(65)", "range(64)"))
    assert main(["hls", f"{src}:total", "--simulate"]) == 0
    assert "outputs match the golden run" in capsys.readouterr().out


@pytest.mark.parametrize(("value", "shown"), [("40", "40"), ("32", "32"), ("-1", "-1")])
def test_hls_scalar_argument_out_of_range_is_rejected(tmp_path, capsys, value, shown):
    src = tmp_path / "mac.py"
    src.write_text(MAC)
    code = main(["hls", f"{src}:mac", "--simulate", "--arg", f"n={value}"])
    err = _error_line(capsys)
    assert code == 2
    # UInt(5) holds 0 .. 2**5 - 1; the parameter `n` is at line 5, column 53 (1-based)
    assert f"{src}:5:53: argument 'n' is {shown}, outside the range 0..{2**5 - 1} of UInt(5)" \
        in err
    assert main(["hls", f"{src}:mac", "--simulate", "--arg", "n=16"]) == 0  # in range


@pytest.mark.parametrize("value", ["0", "-5", "inf", "nan"])
def test_train_samples_that_are_not_positive_are_rejected_before_any_work(tmp_path, capsys,
                                                                          value):
    # max(1, ceil(samples / batch)) turned these into "1 iterations"
    out = tmp_path / "out"
    code = main(["train", "-m", "llama-7b", "-n", "8", "--variability", "--samples", "10",
                 "--train-samples", value, "-o", str(out)])
    err = _error_line(capsys)
    assert code == 2 and "field '--train-samples': must be a positive finite number" in err
    assert not out.exists()
