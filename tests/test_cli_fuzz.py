"""The CLI's error contract under generated bad input (property-based, hypothesis).

For malformed SoC descriptions, sweep specifications, serving and training options and
kernel sources the properties are the README's contract: a user error never escapes as a
traceback, ``main`` returns exit status 2 with one line ``error: ...`` that names the file,
field, option or source line, and nothing is written or changed on disk. Every generated
input here is invalid by construction (a wrong type, a non-finite or negative number, an
unknown name, a missing key, undecodable bytes...), except where a property says it allows a
valid outcome. Example counts are small and fixed (derandomized) so CI time stays bounded.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archsim.sim.cli import main

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"

FUZZ = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def _sandbox() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="archsim-fuzz-") as name:
        yield Path(name)


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (a changed or new file shows)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _cli(argv: list[str]) -> tuple[int, str]:
    """Run ``main``; an exception escaping it fails the test with its traceback."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def _assert_user_error(code: int, err: str, *, names: tuple[str, ...]) -> None:
    assert "Traceback" not in err, err
    assert code == 2, (code, err)
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    if lines and lines[0].startswith("Usage: "):
        # The command-line parser's own usage error (a value outside an option's declared
        # range): usage, a hint and one "Error: ..." line naming the option.
        message = lines[-1]
        assert message.startswith("Error: "), err
    else:
        assert len(lines) == 1, err
        message = lines[0]
        assert message.startswith("error: "), err
    assert any(name in message for name in names), (names, err)


def _leaves(tree: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every scalar leaf of a parsed TOML document with its key path."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(tree, list) and tree and isinstance(tree[0], dict):
        for index, value in enumerate(tree):
            yield from _leaves(value, (*path, index))
    else:
        yield path, tree


def _set(tree: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value


def _delete(tree: Any, path: tuple[Any, ...]) -> None:
    for key in path[:-1]:
        tree = tree[key]
    del tree[path[-1]]


def _field_names(path: tuple[Any, ...]) -> tuple[str, ...]:
    """What a message may call the field: its key, or the table holding it."""
    keys = [str(k) for k in path if not isinstance(k, int)]
    return tuple(keys)


# --- SoC descriptions (``archsim run``) -------------------------------------------------

SOC_BASE = tomllib.loads((CONFIGS / "smaug_baseline.toml").read_text())
# Free text: any string is a valid value, so only type errors are generated for them.
_FREE_TEXT = {"name", "description"}
SOC_NUMBERS = [(p, v) for p, v in _leaves(SOC_BASE)
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
SOC_STRINGS = [(p, v) for p, v in _leaves(SOC_BASE)
               if isinstance(v, str) and p[-1] not in _FREE_TEXT]
SOC_ALL = list(_leaves(SOC_BASE))

NOT_A_NUMBER = st.sampled_from(["fast", [1, 2], {"x": 1}, True])
NON_FINITE = st.sampled_from([math.inf, -math.inf, math.nan])
NEGATIVE = st.sampled_from([-1, -0.5, -1e9])


def _run_soc(document: dict[str, Any] | bytes, names: tuple[str, ...]) -> None:
    with _sandbox() as root:
        config = root / "soc.toml"
        if isinstance(document, bytes):
            config.write_bytes(document)
        else:
            config.write_text(tomli_w.dumps(document))
        before = _snapshot(root)
        code, err = _cli(["run", str(config), "-w", "alexnet", "--no-plots",
                          "-o", str(root / "out")])
        _assert_user_error(code, err, names=(*names, "soc.toml"))
        assert _snapshot(root) == before
        assert not (root / "out").exists()


@FUZZ
@given(leaf=st.sampled_from(SOC_NUMBERS),
       bad=st.one_of(NOT_A_NUMBER, NON_FINITE, NEGATIVE))
def test_soc_number_fields_reject_wrong_types_non_finite_and_negative(leaf, bad):
    path, _ = leaf
    document = _copy(SOC_BASE)
    _set(document, path, bad)
    _run_soc(document, _field_names(path))


@FUZZ
@given(leaf=st.sampled_from(SOC_STRINGS),
       bad=st.one_of(st.sampled_from([7, 2.5, [1], {"x": 1}]),
                     st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=8)
                     .map(lambda s: f"no-such-{s}")))
def test_soc_closed_names_reject_unknown_values(leaf, bad):
    path, _ = leaf
    document = _copy(SOC_BASE)
    _set(document, path, bad)
    _run_soc(document, _field_names(path))


@FUZZ
@given(leaf=st.sampled_from(SOC_ALL), extra=st.booleans())
def test_soc_missing_and_unknown_keys(leaf, extra):
    path, _ = leaf
    document = _copy(SOC_BASE)
    if extra:
        _set(document, (*path[:-1], "no_such_field"), 1)
        names = ("no_such_field",)
    else:
        if not _required(path):
            return
        _delete(document, path)
        names = _field_names(path)
    _run_soc(document, names)


@FUZZ
@given(position=st.floats(0.0, 1.0), junk=st.binary(min_size=1, max_size=4)
       .filter(lambda b: not _decodes(b)))
def test_soc_undecodable_bytes_name_the_file(position, junk):
    text = (CONFIGS / "smaug_baseline.toml").read_bytes()
    cut = int(position * len(text))
    _run_soc(text[:cut] + junk + text[cut:], ("soc.toml",))


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _copy(document: Any) -> Any:
    return tomllib.loads(tomli_w.dumps(document))


def _required(path: tuple[Any, ...]) -> bool:
    """Keys whose absence the schema must reject: a check against the schema's own
    defaults would take its expectations from the code under test, so the test asks the
    loader itself only through the CLI and accepts exit 0 for optional keys (below)."""
    return path[-1] in _REQUIRED_SOC_KEYS


# The keys without which a SMAUG-style SoC cannot be simulated (the accelerator's shape,
# the clocks and the memory system's bandwidths), read off the config format's docs.
_REQUIRED_SOC_KEYS = {"kind", "frequency_hz", "bandwidth_bytes_per_s", "pes", "macs_per_pe"}


# --- Sweep specifications (``archsim sweep --dry-run``) ---------------------------------

SWEEP_BASE = tomllib.loads((CONFIGS / "sweep_gpu_roofline.toml").read_text())

_BAD_CONSTRAINTS = [
    "batch ** 10 ** 10 > 0",
    "context_len ** context_len ** batch > 1",
    "__import__('os').system('true')",
    "().__class__.__bases__",
    "batch.real > 0",
    "[x for x in (1, 2)]",
    "lambda: 1",
    "batch >",
    "no_such_name > 1",
    "open('x', 'w')",
]


def _run_sweep(document: dict[str, Any], names: tuple[str, ...]) -> None:
    with _sandbox() as root:
        spec = root / "spec.toml"
        spec.write_text(tomli_w.dumps(document))
        before = _snapshot(root)
        code, err = _cli(["sweep", str(spec), "--dry-run", "--db", str(root / "r.db"),
                          "-q"])
        _assert_user_error(code, err, names=(*names, "spec.toml"))
        assert _snapshot(root) == before


@FUZZ
@given(constraint=st.sampled_from(_BAD_CONSTRAINTS))
def test_sweep_constraints_that_are_unsafe_unbounded_or_malformed(constraint):
    document = _copy(SWEEP_BASE)
    document["constraints"] = [constraint]
    _run_sweep(document, ("constraints[0]",))


@FUZZ
@given(axis=st.sampled_from(["model", "gpu"]),
       name=st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=10)
       .map(lambda s: f"zz-{s}"))
def test_sweep_unknown_names_fail_at_load(axis, name):
    document = _copy(SWEEP_BASE)
    document["parameters"][axis]["values"].append(name)
    _run_sweep(document, (axis, name))


@FUZZ
@given(num=st.one_of(st.sampled_from([0, -3, 10**9, 10**12]),
                     st.integers(10**8, 10**15)))
def test_sweep_grids_too_large_or_empty_are_refused_without_materializing(num):
    document = _copy(SWEEP_BASE)
    document["parameters"]["context_len"]["num"] = num
    _run_sweep(document, ("context_len", "num"))


@FUZZ
@given(key=st.sampled_from(["low", "high"]), bad=st.one_of(NOT_A_NUMBER, NON_FINITE))
def test_sweep_range_bounds_must_be_finite_numbers(key, bad):
    document = _copy(SWEEP_BASE)
    document["parameters"]["context_len"][key] = bad
    _run_sweep(document, ("context_len", key))


# --- Serving and training options -------------------------------------------------------

@FUZZ
@given(option=st.sampled_from(["--rate", "--burst-cv", "--compute-efficiency",
                               "--memory-efficiency", "--predictor-accuracy"]),
       bad=st.sampled_from(["0", "-1", "nan", "inf", "-inf", "1e30"]))
def test_serve_real_options_must_be_finite_and_in_range(option, bad):
    # Rates and CVs are > 0, fractions in (0, 1]; 1e30 requests/s is no serving load.
    if option == "--predictor-accuracy" and bad == "0":
        bad = "1.5"  # an accuracy of 0 is a (useless) valid predictor
    _run_serve([option, bad], option)


@FUZZ
@given(option=st.sampled_from(["--requests", "--buckets", "--block-tokens", "--window"]),
       bad=st.sampled_from(["0", "-5", str(10**15)]))
def test_serve_integer_options_must_be_positive_and_bounded(option, bad):
    _run_serve([option, bad], option)


def _run_serve(extra: list[str], option: str) -> None:
    with _sandbox() as root:
        code, err = _cli(["serve", "--model", "llama-13b", "--requests", "10",
                          "--arrival", "bursty", *extra, "-o", str(root / "out")])
        _assert_user_error(code, err, names=(option,))
        assert not any(root.iterdir())


@FUZZ
@given(tp=st.integers(2, 64).filter(lambda t: 40 % t != 0))
def test_serve_tensor_parallel_degree_must_divide_the_heads(tp):
    # LLaMA-13B has 40 attention heads (Touvron et al. 2023, Table 2).
    with _sandbox() as root:
        code, err = _cli(["serve", "--model", "llama-13b", "--tp", str(tp), "--requests", "10",
                          "-o", str(root / "out")])
        _assert_user_error(code, err, names=("--tp",))
        assert not any(root.iterdir())


@FUZZ
@given(option=st.sampled_from(["--seq-len", "--global-batch", "--samples", "--gpus",
                               "--gpus-per-node", "--kernel-sigma", "--gpu-sigma",
                               "--comm-sigma", "--train-samples"]),
       bad=st.sampled_from(["0", "-1", "-100", str(10**15), "nan", "inf"]))
def test_train_numeric_options(option, bad):
    if option.endswith("-sigma") and bad == "0":
        bad = "-0.5"  # a sigma of 0 is a valid (deterministic) model
    if not option.endswith(("-sigma", "-samples")) and bad in ("nan", "inf"):
        bad = "1.5"  # integer options: not an integer
    if option == "--train-samples" and bad == str(10**15):
        bad = "-inf"  # 1e15 training samples is only arithmetic, not an unbounded run
    with _sandbox() as root:
        argv = ["train", "--model", "llama-7b", "--gpus", "64", "--search", "--variability",
                "-o", str(root / "out")]
        argv[argv.index("--gpus") + 1: argv.index("--gpus") + 2] = (
            [bad] if option == "--gpus" else ["64"])
        if option != "--gpus":
            argv += [option, bad]
        code, err = _cli(argv)
        _assert_user_error(code, err, names=(option, option.lstrip("-").replace("-", "_")))
        assert not any(root.iterdir())


# --- Kernel sources (``archsim hls``) ----------------------------------------------------

KERNEL = '''from archsim.dsl import kernel, Int, UInt, Array, pipeline

@kernel
def mac(a: {a_type}, b: Array[Int(8), 16], n: UInt(5)) -> Int(32):
    acc = Int(32)(0)
    for i in pipeline(range({trip}), ii=1):
        acc += a[i] * b[i]
    {tail}
'''
_BAD_TYPES = ["Array[int, 16]", "Array[Int(8), 0]", "Array[Int(8), -4]", "Array[Int(0), 16]",
              "Array[float, 16]", "Array[Int(8)]", "Array[Int(8), 'x']", "Array[16, Int(8)]"]


def _run_kernel(source: str, *, argv: list[str] = (), line: int | None) -> None:
    with _sandbox() as root:
        path = root / "kern.py"
        path.write_text(source)
        before = _snapshot(root)
        code, err = _cli(["hls", f"{path}:mac", "-o", str(root / "mac.v"), *argv])
        where = f"kern.py:{line}" if line is not None else "kern.py"
        _assert_user_error(code, err, names=(where,))
        assert _snapshot(root) == before


@FUZZ
@given(a_type=st.sampled_from(_BAD_TYPES))
def test_kernel_bad_array_types_point_at_the_line(a_type):
    source = KERNEL.format(a_type=a_type, trip="n", tail="return acc")
    _run_kernel(source, line=4)


@FUZZ
@given(tail=st.sampled_from(["return acc +", "return undefined_name", "raise ValueError('x')",
                             "return acc)", "1/0"]))
def test_kernel_files_that_fail_to_import_or_compile(tail):
    source = KERNEL.format(a_type="Array[Int(8), 16]", trip="n", tail=tail)
    # A syntax error is reported where the parser stops, at line 8; a kernel that
    # compiles but fails later is reported at its own line -- both name the file.
    _run_kernel(source, line=None)


@FUZZ
@given(trip=st.integers(17, 300))
def test_kernel_constant_loops_past_the_array_end_are_compile_errors(trip):
    # a[i] and b[i] for i in range(trip) with 16-element arrays: index trip-1 >= 16.
    source = KERNEL.format(a_type="Array[Int(8), 16]", trip=trip, tail="return acc")
    _run_kernel(source, line=7)


@FUZZ
@given(value=st.one_of(st.integers(32, 10**6), st.integers(-10**6, -1)))
def test_kernel_scalar_arguments_out_of_range(value):
    # n: UInt(5) holds 0..31.
    source = KERNEL.format(a_type="Array[Int(8), 16]", trip="n", tail="return acc")
    with _sandbox() as root:
        path = root / "kern.py"
        path.write_text(source)
        code, err = _cli(["hls", f"{path}:mac", "--simulate", "--arg", f"n={value}"])
        _assert_user_error(code, err, names=("'n'", " n ", "n="))
        assert [p.name for p in root.iterdir()] == ["kern.py"]


@pytest.mark.parametrize("command", [
    ["rtl", "verilog"], ["accel", "report"], ["hls"], ["run"], ["sweep"],
])
def test_a_directory_given_as_an_input_file_is_named_as_such(command, tmp_path):
    folder = tmp_path / "design.py"
    folder.mkdir()
    target = f"{folder}:x" if command[0] in ("rtl", "accel", "hls") else str(folder)
    before = _snapshot(tmp_path)
    code, err = _cli([*command, target])
    _assert_user_error(code, err, names=("design.py",))
    assert "directory" in err
    assert _snapshot(tmp_path) == before
