"""Bad input on the way in (issue 21, items 2, 3, 6, 7 and the enum fields of item 4).

Each case runs the user's command through :func:`archsim.sim.cli.main` in an empty folder and
asserts exit status 2, a one-line message with its key content (file, line, field, allowed
values or bound) and that nothing was written. Unit tests of the validators follow.
"""

from __future__ import annotations

import math
import re
import sys
import tomllib
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel, ValidationError

from archsim.errors import ConfigError
from archsim.fields import ElementBytes, FrequencyHz, UnitCount, plausible
from archsim.sim.cli import main
from archsim.sim.sweep.spec import MAX_POINTS, Expression, SweepSpec

SOC = Path(__file__).resolve().parent.parent / "soc_configs" / "smaug_baseline.toml"
COUNTER = "archsim.tests.rtl_designs:Counter"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty working folder on sys.path (user modules named by ``module:attr`` live here);
    yields a function returning the files in it now."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)

    def files() -> set[str]:
        return {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                if "__pycache__" not in p.parts}

    yield files
    for name in set(sys.modules) - before:  # user modules of one test are not another's
        if name.startswith(("user_", "_archsim_user_")):
            del sys.modules[name]


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    """Exit status and stderr of ``archsim argv``; the message must be one line."""
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    return code, err


def one_line(err: str) -> str:
    assert err.count("\n") == 0, err
    assert "Traceback" not in err
    return err


def write(path: str, text: str | bytes) -> str:
    if isinstance(text, bytes):
        Path(path).write_bytes(text)
    else:
        Path(path).write_text(text, encoding="utf-8")
    return path


# -- 2. kernel and design files that fail to import -------------------------------------------

KERNEL_HEAD = "from archsim.dsl import Array, Int, UInt, kernel\n\n"
CASES_IMPORT = [
    # (source, line, col, text in the message); positions counted by hand in the sources
    ("def f(:\n    pass\n", 1, 7, "SyntaxError: invalid syntax"),
    (KERNEL_HEAD + "y = undefined_name + 1\n", 3, 5,
     "NameError: name 'undefined_name' is not defined"),
    ("def helper():\n    raise RuntimeError('boom at import')\n\n\nhelper()\n", 2, 5,
     "RuntimeError: boom at import"),
    ("import json\nx = json.no_such_thing\n", 2, 5,
     "AttributeError: module 'json' has no attribute 'no_such_thing'"),
    ("import user_no_such_module_xyz\n", 1, 1,
     "ModuleNotFoundError: No module named 'user_no_such_module_xyz'"),
]


@pytest.mark.parametrize(("source", "line", "col", "text"), CASES_IMPORT)
def test_hls_kernel_file_that_fails_to_import(capsys, folder, source, line, col, text):
    write("k.py", source)
    code, err = run_cli(capsys, "hls", "k.py:k", "-o", "k.v")
    assert code == 2
    assert one_line(err).startswith(f"error: {Path('k.py').resolve()}:{line}:{col}: "
                                    f"cannot load kernel 'k.py': ")
    assert err.endswith(text)
    assert folder() == {"k.py"}


@pytest.mark.parametrize(("annotation", "col", "text"), [
    ("Array[int, 4]", 10, "Array element type must be a hardware type (Int(w), UInt(w), "
                          "Fixed(w, f), Bool; w in 1..64) or a number format of "
                          "archsim.dsl.formats, not int"),
    ("Array[Int(8), 0]", 10, "Array shape must be 1 to 3 integer sizes >= 1, not (0,)"),
    ("Array[Int(8), -1]", 10, "Array shape must be 1 to 3 integer sizes >= 1, not (-1,)"),
    ("Array[Int(8), 4, 4, 4, 4]", 10, "Array shape must be 1 to 3 integer sizes >= 1"),
    ("Array[Int(0), 4]", 16, "Int width must be an integer in 1..64"),
    ("Array[UInt(65), 4]", 16, "UInt width must be an integer in 1..64"),
])
def test_hls_bad_types_are_dsl_errors_at_the_users_line(capsys, folder, annotation, col, text):
    # "@kernel" is line 3 and the signature line 4 (KERNEL_HEAD is two lines); the column is
    # where the bad expression starts in "def k(a: <annotation>) -> None:" (counted by hand:
    # "def k(a: " is 9 characters, "Array[" 6 more).
    write("k.py", KERNEL_HEAD + f"@kernel\ndef k(a: {annotation}) -> None:\n    pass\n")
    code, err = run_cli(capsys, "hls", "k.py:k")
    assert code == 2
    assert one_line(err).startswith(f"error: {Path('k.py').resolve()}:4:{col}: ")
    assert text in err
    assert folder() == {"k.py"}


def test_hls_kernel_path_that_is_a_directory(capsys, folder):
    Path("k.py").mkdir()
    code, err = run_cli(capsys, "hls", "k.py:k")
    assert code == 2 and "k.py is a directory, not a Python file" in one_line(err)


def test_accel_and_rtl_designs_that_fail_to_import(capsys, folder):
    write("user_acc_broken.py", "X = 1\nraise ValueError('no accelerator today')\n")
    code, err = run_cli(capsys, "accel", "verilog", "user_acc_broken.py:X", "-o", "a.v")
    assert code == 2
    assert one_line(err).startswith(f"error: {Path('user_acc_broken.py').resolve()}:2:1: "
                                    "cannot load accelerator 'user_acc_broken.py': ValueError: "
                                    "no accelerator today")
    # The same module by its import name (archsim rtl takes module:Class).
    code, err = run_cli(capsys, "rtl", "verilog", "user_acc_broken:X", "-o", "d.v")
    assert code == 2
    assert one_line(err).startswith(f"error: {Path('user_acc_broken.py').resolve()}:2:1: "
                                    "cannot load design 'user_acc_broken:X': ValueError")
    assert folder() == {"user_acc_broken.py"}


# -- 3, 6, 7. SoC descriptions ----------------------------------------------------------------

def soc_text(*replacements: tuple[str, str]) -> str:
    text = SOC.read_text(encoding="utf-8")
    for old, new in replacements:
        assert re.search(old, text, flags=re.M), old
        text = re.sub(old, new, text, count=1, flags=re.M)
    return text


@pytest.mark.parametrize(("replacement", "field", "text"), [
    ((r"^frequency_hz = 1e9.*$", "frequency_hz = inf"), "accelerators[0].frequency_hz",
     "must be a finite number in the plausible range 1..1e+11 (1 Hz to 100 GHz)"),
    ((r"^frequency_hz = 2.5e9.*$", "frequency_hz = nan"), "cpu.frequency_hz",
     "plausible range 1..1e+11"),
    ((r"^element_bytes = 2 .*$", "element_bytes = 9223372036854775807"),
     "accelerators[0].scratchpads.element_bytes",
     "must be an integer in the plausible range 1..64"),
    ((r"^count = 1$", "count = 1e12"), "accelerators[0].count",
     "must be an integer in the plausible range 1..1048576 (at most 2**20 units)"),
    ((r"^cores = 8.*$", "cores = 4.5"), "cpu.cores", "must be an integer"),
    ((r"^input_elements = 32768.*$", "input_elements = 4294967296000"), "accelerators[0]."
     "scratchpads.input_elements", "plausible range 1..1099511627776"),
    ((r"^latency_s = 100e-9.*$", "latency_s = inf"), "dram.latency_s", "finite number"),
])
def test_run_rejects_non_finite_and_absurd_numbers(capsys, folder, replacement, field, text):
    write("soc.toml", soc_text(replacement))
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    assert code == 2
    assert one_line(err).startswith(f"error: soc.toml: field '{field}': ")
    assert text in err
    assert folder() == {"soc.toml"}


def test_run_scratchpads_larger_than_dram(capsys, folder):
    write("soc.toml", soc_text((r"^\[dram\]$", "[dram]\ncapacity_bytes = 65536")))
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    # 3 x 32768 elements x 2 bytes = 196608 bytes > 65536 (the shipped scratchpads)
    assert code == 2 and "the scratchpads hold 196608 bytes, more than the DRAM's " \
                         "capacity_bytes (65536)" in one_line(err)
    assert folder() == {"soc.toml"}


def test_run_undecodable_config_and_directory(capsys, folder):
    good = SOC.read_bytes()
    at = good.index(b"[cpu]")
    write("soc.toml", good[:at] + b"# caf\xe9\n" + good[at:])
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    assert code == 2
    # b"# caf" is 5 bytes, so the undecodable 0xe9 sits at offset at + 5.
    assert one_line(err) == (f"error: soc.toml: cannot read SoC description: not UTF-8 text "
                             f"(byte 0xe9 at offset {at + 5} does not decode: invalid "
                             f"continuation byte)")
    Path("dir.toml").mkdir()
    code, err = run_cli(capsys, "run", "dir.toml", "-o", "out")
    assert code == 2
    assert one_line(err) == "error: dir.toml: cannot read SoC description: is a directory"
    assert folder() == {"soc.toml", "dir.toml"}


def _with_model_accelerator(cycles_model: str) -> str:
    """The baseline with two more accelerators: a copy of the SMV (index 1) and a ``model``
    named 'mine' (index 2) using ``cycles_model``."""
    text = SOC.read_text(encoding="utf-8")
    start, end = text.index("[[accelerators]]"), text.index("[dram]")
    smv = text[start:end]
    model = re.sub(r'^kind = "smv"$', 'kind = "model"', smv, flags=re.M)
    model = re.sub(r"^(pes|macs_per_pe) = .*\n", "", model, flags=re.M)
    model = re.sub(r'^name = "smv"$', f'name = "mine"\ncycles_model = "{cycles_model}"', model,
                   flags=re.M)
    return text[:end] + smv.replace('name = "smv"', 'name = "smv2"') + model + text[end:]


def test_run_cycles_model_of_the_wrong_signature(capsys, folder):
    write("user_cycles_sig.py", "def cycles(m, k):\n    return m * k\n")
    write("soc.toml", _with_model_accelerator("user_cycles_sig:cycles"))
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    assert code == 2
    assert one_line(err).startswith(
        "error: soc.toml: field 'accelerators[2].cycles_model': accelerator 'mine': cycles "
        "model 'user_cycles_sig:cycles' has the signature (m, k), which cannot be called as "
        "function(*, m, k, n) -> int")
    assert folder() == {"user_cycles_sig.py", "soc.toml"}


def test_run_cycles_model_module_that_fails_to_import(capsys, folder):
    write("user_cycles_bad.py", "import math\n\n\ndef cycles(*, m, k, n):\n    return m\n\n"
                                "math.nope()\n")
    write("soc.toml", _with_model_accelerator("user_cycles_bad:cycles"))
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    assert code == 2
    assert one_line(err) == (
        f"error: {Path('user_cycles_bad.py').resolve()}:7:1: cannot load cycles model "
        "'user_cycles_bad:cycles': AttributeError: module 'math' has no attribute 'nope' "
        "(loading accelerators[2] 'mine' of soc.toml)")
    # A module that does not exist: the field, with the entry's index.
    write("soc.toml", _with_model_accelerator("user_cycles_absent:cycles"))
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    assert code == 2
    assert one_line(err).startswith("error: soc.toml: field 'accelerators[2].cycles_model': "
                                    "accelerator 'mine': cannot load cycles model")
    assert folder() == {"user_cycles_bad.py", "soc.toml"}


def test_run_tiling_error_names_the_file_and_the_entry(capsys, folder):
    write("soc.toml", soc_text((r"^input_elements = 32768.*$", "input_elements = 1"),
                               (r"^weight_elements = 32768.*$", "weight_elements = 1")))
    code, err = run_cli(capsys, "run", "soc.toml", "-o", "out")
    assert code == 2
    assert one_line(err).startswith("error: soc.toml: field 'accelerators[0].scratchpads': "
                                    "accelerator 'smv': operator 'conv1' (conv2d) has no "
                                    "tiling that fits scratchpads of 1/1/32768 elements")
    assert folder() == {"soc.toml"}


@pytest.mark.parametrize("option", ["--batch", "--accelerators", "--threads"])
def test_run_integer_options_are_bounded(capsys, folder, option):
    code, err = run_cli(capsys, "run", str(SOC), option, "100000000000", "-o", "out")
    assert code == 2 and "Invalid value for" in err and option in err
    assert folder() == set()


# -- 3, 4, 6. sweep specs ---------------------------------------------------------------------

def _sweep(body: str) -> str:
    return write("s.toml", 'name = "s"\n' + body)


def test_sweep_grid_with_a_billion_points_is_refused_at_load(capsys, folder):
    _sweep('model = "gpu-roofline"\n[parameters]\n'
           "batch = { low = 1, high = 100000000000, num = 1e9 }\n")
    code, err = run_cli(capsys, "sweep", "s.toml", "--dry-run")
    assert code == 2
    assert one_line(err) == ("error: s.toml: field 'parameters.batch': num = 1000000000 grid "
                             f"points is more than a sweep may have ({MAX_POINTS})")
    assert folder() == {"s.toml"}


def test_sweep_grid_product_is_counted_arithmetically(capsys, folder):
    # 1000 x 1000 x 3 = 3,000,000 > 1,000,000; each axis alone is small.
    _sweep('model = "gpu-roofline"\n[parameters]\n'
           "batch = { low = 1, high = 1000, num = 1000 }\n"
           "new_tokens = { low = 1, high = 5000, num = 1000 }\n"
           "context_len = { values = [128, 256, 512] }\n")
    code, err = run_cli(capsys, "sweep", "s.toml")
    assert code == 2
    assert one_line(err) == ("error: s.toml: field 'parameters': a grid of 1000 x 1000 x 3 = "
                             f"3000000 points is more than a sweep may have ({MAX_POINTS}); "
                             "split it or narrow the ranges")
    assert folder() == {"s.toml"}


def test_sweep_constraint_with_a_huge_exponent_is_bounded(capsys, folder):
    _sweep('model = "gpu-roofline"\nconstraints = ["batch ** 10 ** 10 > 0"]\n'
           "[parameters]\nbatch = { values = [1, 2] }\n")
    code, err = run_cli(capsys, "sweep", "s.toml", "--dry-run")
    assert code == 2
    # The exponent 10 ** 10 is made of constants: rejected when the spec is loaded.
    assert one_line(err) == ("error: s.toml: field 'constraints[0]': expression "
                             "'batch ** 10 ** 10 > 0' has an exponent of 10000000000 (at most "
                             "64)")
    assert folder() == {"s.toml"}


@pytest.mark.parametrize(("model", "axis", "value", "allowed"), [
    ("serving", "policy", "bogus", "worst-case, s3, oracle, paged, paged-swap"),
    ("serving", "arrival", "uniform", "poisson, bursty"),
    ("training", "recompute", "half", "none, full"),
    ("training", "mode", "serve", "training, inference, decode"),
    ("soc", "workload", "resnet5000", "resnet50"),
    ("gpu-roofline", "gpu", "tpu-v4", "a100-80gb"),
])
def test_sweep_unknown_enum_value_fails_at_load(capsys, folder, model, axis, value, allowed):
    _sweep(f'model = "{model}"\n[parameters]\n{axis} = {{ values = ["{value}"] }}\n')
    code, err = run_cli(capsys, "sweep", "s.toml")
    assert code == 2
    assert one_line(err).startswith(f"error: s.toml: field 'parameters.{axis}': unknown ")
    assert f"'{value}'" in err and allowed in err
    assert folder() == {"s.toml"}  # no database: nothing ran


def test_sweep_unknown_fixed_enum_value_fails_at_load(capsys, folder):
    _sweep('model = "serving"\n[fixed]\ndataset = "imagenet"\n'
           "[parameters]\nrate_per_s = { values = [1.0] }\n")
    code, err = run_cli(capsys, "sweep", "s.toml", "--dry-run")
    assert code == 2
    assert one_line(err).startswith("error: s.toml: field 'fixed.dataset': unknown dataset "
                                    "'imagenet' (allowed: ")


def test_sweep_undecodable_spec(capsys, folder):
    write("s.toml", b'name = "x"\nmodel = "serving"\n# \xff\n')
    code, err = run_cli(capsys, "sweep", "s.toml")
    assert code == 2
    # 'name = "x"\n' is 11 bytes, 'model = "serving"\n' 18 and "# " 2: offset 31.
    assert one_line(err) == ("error: s.toml: cannot read sweep spec: not UTF-8 text (byte "
                             "0xff at offset 31 does not decode: invalid start byte)")
    assert folder() == {"s.toml"}


# -- 6, 7. RTL vectors -------------------------------------------------------------------------

def test_rtl_vectors_undecodable_and_one_bit_port_range(capsys, folder):
    write("v.json", b'{"en": [1, 0]}\xff')
    code, err = run_cli(capsys, "rtl", "sim", COUNTER, "-i", "v.json", "-o", "o.json")
    assert code == 2
    # b'{"en": [1, 0]}' is 14 bytes.
    assert one_line(err).startswith("error: v.json: cannot read input vectors: not UTF-8 "
                                    "text (byte 0xff at offset 14")
    write("v.json", '{"en": [1, -1]}')
    code, err = run_cli(capsys, "rtl", "sim", COUNTER, "-i", "v.json", "-o", "o.json")
    assert code == 2
    assert one_line(err) == ("error: input value -1 at cycle 1 does not fit port 'en' "
                             "(unsigned, 1 bits: 0..1) (signal 'en', cycle 1)")
    Path("d.json").mkdir()
    code, err = run_cli(capsys, "rtl", "sim", COUNTER, "-i", "d.json")
    assert code == 2 and one_line(err) == "error: d.json: input vectors: is a directory"
    assert folder() == {"v.json", "d.json"}


# -- unit tests of the validators --------------------------------------------------------------

class _Plausible(BaseModel):
    f: FrequencyHz = 1e9
    n: UnitCount = 1
    b: ElementBytes = 2
    x: float = 0.0


@pytest.mark.parametrize(("field", "value", "ok"), [
    ("f", 1.0, True), ("f", 100e9, True), ("f", 100e9 * (1 + 1e-12), False), ("f", 0.5, False),
    ("f", math.inf, False), ("f", -math.inf, False), ("f", math.nan, False),
    ("n", 2**20, True), ("n", 2**20 + 1, False), ("n", 0, False), ("n", 3.0, True),
    ("n", 3.5, False), ("n", 1e12, False),
    ("b", 64, True), ("b", 65, False), ("b", 2**63 - 1, False), ("b", 1, True),
])
def test_plausible_bounds(field, value, ok):
    if ok:
        got = getattr(_Plausible(**{field: value}), field)
        assert got == value and (field == "f" or isinstance(got, int))
    else:
        with pytest.raises(ValidationError, match="plausible range"):
            _Plausible(**{field: value})


class _Tens(BaseModel):
    v: Annotated[int, plausible(1, 10, reason="r", integer=True)]


def test_plausible_leaves_type_errors_to_the_field():
    with pytest.raises(ValidationError, match="valid integer"):
        _Tens(v="many")  # type: ignore[arg-type]
    assert _Tens(v=10).v == 10
    with pytest.raises(ValidationError, match=r"must be an integer in the plausible range "
                                              r"1\.\.10 \(r\)"):
        _Tens(v=11)


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("b ** 64 > 0", {"b": 2}, True),        # the largest exponent allowed
    ("b ** -64 > 0", {"b": 2}, True),
    ("(b ** 64) ** 60 > 0", {"b": 2}, True),  # 2**3840: 3841 bits, under 4096
    ("b * 3 == 6", {"b": 2}, True),
])
def test_expression_bounds_allow_ordinary_arithmetic(text, values, expected):
    assert Expression(text, names=values)(values) is expected


@pytest.mark.parametrize(("text", "values", "reason"), [
    ("b ** 65 > 0", {"b": 2}, "an exponent of 65 (at most 64)"),
    ("b ** 10 ** 10 > 0", {"b": 1}, "an exponent of 10000000000"),
    ("(b ** 64) ** 64 > 0", {"b": 2}, "an integer of more than 4096 bits"),
    ("len > 0 and [0] * b == []", {"b": 10**9, "len": 1}, "a sequence of more than 1000000"),
    ("b * b * b * b * b > 0", {"b": 2**1000}, "an integer of more than 4096 bits"),
])
def test_expression_bounds_reject_unbounded_evaluation(text, values, reason):
    with pytest.raises(ConfigError, match=re.escape(reason)):
        Expression(text, names=values, field="constraints[0]")(values)


def test_expression_exponent_of_a_name_is_checked_at_evaluation(capsys, folder):
    _sweep('model = "gpu-roofline"\nconstraints = ["new_tokens ** batch > 0"]\n'
           "[parameters]\nbatch = { values = [1, 100] }\n")
    code, err = run_cli(capsys, "sweep", "s.toml", "--dry-run")
    assert code == 2
    assert one_line(err).startswith("error: s.toml: field 'constraints[0]': expression "
                                    "'new_tokens ** batch > 0' would compute an exponent of "
                                    "100 (at most 64)")
    assert folder() == {"s.toml"}


def test_expression_constant_exponent_is_checked_at_parse():
    with pytest.raises(ConfigError, match=r"an exponent of 100 \(at most 64\)"):
        Expression("b ** (10 ** 2) > 0", names=["b"])


def test_sweep_grid_size_is_the_product_of_the_axes():
    data = tomllib.loads('model = "gpu-roofline"\n[parameters]\n'
                         "batch = { low = 1, high = 4, num = 10 }\n"   # 4 integers
                         "new_tokens = { low = 1, high = 100, num = 7 }\n"
                         'gpu = { values = ["a100-80gb", "h100-80gb"] }\n')
    spec = SweepSpec.from_dict(data)
    # 4 x 7 x 2, by hand; and the brute-force count of the materialized design agrees.
    assert spec.design_size() == 56 == len(spec.design())
    assert len({p.key for p in spec.iter_points()}) == len(spec.points()) == 56
