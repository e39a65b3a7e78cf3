"""``archsim hls FILE.py:KERNEL``."""

import textwrap

from archsim.sim.cli import main

KERNEL_SRC = textwrap.dedent('''
    from archsim.dsl import kernel, Int, UInt, Array, pipeline

    @kernel
    def mac(a: Array[Int(8), 16], b: Array[Int(8), 16], n: UInt(5)) -> Int(32):
        acc = Int(32)(0)
        for i in pipeline(range(n), ii=1):
            acc += a[i] * b[i]
        return acc
''')


def test_hls_report_verilog_and_simulate(tmp_path, capsys):
    src = tmp_path / "kern.py"
    src.write_text(KERNEL_SRC)
    out = tmp_path / "mac.v"
    code = main(["hls", f"{src}:mac", "--report", "-o", str(out), "--simulate", "--arg",
                 "n=12"])
    text = capsys.readouterr().out
    assert code == 0
    assert "requested II met" in text
    assert "outputs match the golden run" in text
    measured = int(text.split("simulated (pysim): ")[1].split(" ")[0])
    predicted = int(text.split("cycles measured, ")[1].split(" ")[0])
    assert measured == predicted
    verilog = out.read_text()
    assert "module mac(" in verilog
    assert "L7_i_issuing" in verilog  # the loop (line 7, variable i) keeps its name


def test_hls_errors(tmp_path, capsys):
    src = tmp_path / "kern.py"
    src.write_text(KERNEL_SRC)
    assert main(["hls", f"{src}:nope"]) == 2
    assert "has no @kernel named 'nope' (allowed: 'mac')" in capsys.readouterr().err
    assert main(["hls", f"{src}:mac", "--simulate"]) == 2
    assert "needs a value for scalar argument(s) n" in capsys.readouterr().err
    assert main(["hls", f"{src}:mac", "--resource", "mul"]) == 2
    assert "'mul' is not of the form name=integer" in capsys.readouterr().err
    assert main(["hls", "kern.py"]) == 2
    assert "is not of the form FILE.py:KERNEL" in capsys.readouterr().err


FORMAT_KERNEL_SRC = textwrap.dedent('''
    from archsim.dsl import kernel, Array, Fixed, FormatType, pipeline
    from archsim.dsl.formats import AdaptivFloat, FP8_E4M3

    AF8 = FormatType(AdaptivFloat(n=8, e=3), exp_bias=-7)

    @kernel
    def af_dot(a: Array[AF8, 16], b: Array[FP8_E4M3, 16]) -> Fixed(48, 20):
        acc = Fixed(48, 20)(0)
        for i in pipeline(range(16), ii=1):
            acc += a[i] * b[i]
        return acc
''')


def test_hls_simulate_draws_representable_values_for_format_arrays(tmp_path, capsys):
    src = tmp_path / "afdot.py"
    src.write_text(FORMAT_KERNEL_SRC)
    assert main(["hls", f"{src}:af_dot", "--simulate", "--seed", "3"]) == 0
    assert "outputs match the golden run" in capsys.readouterr().out
