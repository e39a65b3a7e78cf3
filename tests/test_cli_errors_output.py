"""Issue 21, output side: every command's output location, the results databases and the
sweep's shutdown, run as a user types them (``archsim.sim.cli.main``).

Each case asserts the exit status (0 / 1 run failed / 2 user error / 130 interrupted), the
key words of the one-line message, and that nothing was written or changed on disk (a
listing with a hash of every file, hidden ones included, before and after).
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from archsim.sim.cli import main

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"
SOC = str(CONFIGS / "smaug_baseline.toml")
COUNTER = "archsim.tests.rtl_designs:Counter"
NPU = "archsim.dsl.examples.npu"

needs_non_root = pytest.mark.skipif(os.geteuid() == 0,
                                    reason="root ignores folder and file permissions")

KERNEL_SRC = textwrap.dedent('''
    from archsim.dsl import kernel, Int, UInt, Array, pipeline

    @kernel
    def mac(a: Array[Int(8), 16], b: Array[Int(8), 16], n: UInt(5)) -> Int(32):
        acc = Int(32)(0)
        for i in pipeline(range(n), ii=1):
            acc += a[i] * b[i]
        return acc
''')

SPEC = textwrap.dedent("""
    name = "cli"
    model = "gpu-roofline"
    objectives = ["latency_s", "energy_j", "tokens_per_s"]
    [fixed]
    model = "llama-7b"
    [parameters]
    gpu = { values = ["a100-80gb", "h100-80gb"] }
    batch = { values = [1, 8] }
    dtype = { values = ["fp16", "fp8"] }
""")
# The A100 has no fp8 peak rate (its datasheet): with dtype fp8 only, every point fails.
ALL_FAIL_SPEC = SPEC.replace('dtype = { values = ["fp16", "fp8"] }', "").replace(
    'model = "llama-7b"', 'model = "llama-7b"\ndtype = "fp8"').replace(
    '["a100-80gb", "h100-80gb"]', '["a100-80gb"]')


def tree(root: Path) -> dict[str, str]:
    """Every path under ``root`` with the SHA-256 of its bytes ('' for a folder)."""
    return {str(p.relative_to(root)): ("" if p.is_dir() else
                                       hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(root.rglob("*"))}


def one_error_line(capsys) -> str:
    """The stderr of the last command: exactly one line, no traceback."""
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def no_simulation(monkeypatch):
    """Fail the test if a simulation starts (the output check must come first)."""

    def refuse(*args, **kwargs):
        raise AssertionError("the simulation ran before the output location was checked")

    monkeypatch.setattr("archsim.sim.soc.simulate", refuse)
    monkeypatch.setattr("archsim.sim.serving.simulate", refuse)
    monkeypatch.setattr("archsim.sim.cli.hls.load_kernel", refuse)
    monkeypatch.setattr("archsim.sim.cli.rtl.load_component", refuse)
    monkeypatch.setattr("archsim.sim.cli.accel.load_accelerator", refuse)
    monkeypatch.setattr("archsim.sim.distributed.search", refuse)


def disk_full_after(monkeypatch, files: int) -> None:
    """Let ``files`` files be written, then fail every write as a full disk does."""
    real = Path.write_bytes
    written = []

    def write_bytes(self, data):
        if len(written) >= files:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(self)
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", write_bytes)


# -- output paths, checked before any work -------------------------------------------------

FOLDER_COMMANDS = {
    "run": ["run", SOC, "-w", "alexnet", "--no-progress", "-o"],
    "serve": ["serve", "--requests", "20", "-o"],
    "train": ["train", "-m", "llama-7b", "-n", "8", "-o"],
    "study": ["study", "camel", "--quick", "-o"],  # --quick: bounded even if a check broke
}
FILE_COMMANDS = {
    "hls": ["hls", "KERNEL", "-o"],
    "rtl verilog": ["rtl", "verilog", COUNTER, "-o"],
    "rtl sim": ["rtl", "sim", COUNTER, "-i", "VECTORS", "-o"],
    "accel verilog": ["accel", "verilog", f"{NPU}:small_npu", "-o"],
    "accel report": ["accel", "report", f"{NPU}:small_npu", "-o"],
}


def _args(template: list[str], tmp_path: Path, out: Path) -> list[str]:
    (tmp_path / "kern.py").write_text(KERNEL_SRC)
    (tmp_path / "v.json").write_text('{"en": [1, 0, 1]}')
    subst = {"KERNEL": f"{tmp_path / 'kern.py'}:mac", "VECTORS": str(tmp_path / "v.json")}
    return [subst.get(a, a) for a in template] + [str(out)]


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_output_folder_that_is_a_file(command, tmp_path, capsys, no_simulation):
    (tmp_path / "afile").write_text("mine")
    args = _args(FOLDER_COMMANDS[command], tmp_path, tmp_path / "afile")
    before = tree(tmp_path)
    assert main(args) == 2
    line = one_error_line(capsys)
    assert "field '--out'" in line and "afile: it is a file, not a folder" in line
    assert tree(tmp_path) == before


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_output_folder_below_a_file(command, tmp_path, capsys, no_simulation):
    (tmp_path / "afile").write_text("mine")
    args = _args(FOLDER_COMMANDS[command], tmp_path, tmp_path / "afile" / "sub")
    before = tree(tmp_path)
    assert main(args) == 2
    line = one_error_line(capsys)
    assert "afile/sub" in line and "afile is a file, not a folder" in line
    assert tree(tmp_path) == before


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_output_file_that_is_a_folder_or_below_a_file(command, tmp_path, capsys,
                                                      no_simulation):
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("mine")
    into_folder = _args(FILE_COMMANDS[command], tmp_path, tmp_path / "adir")
    below_file = _args(FILE_COMMANDS[command], tmp_path, tmp_path / "afile" / "x.v")
    before = tree(tmp_path)
    assert main(into_folder) == 2
    line = one_error_line(capsys)
    assert "field '--output'" in line and "adir: it is a folder, not a file" in line
    assert main(below_file) == 2
    assert "afile is a file, not a folder" in one_error_line(capsys)
    assert tree(tmp_path) == before


@needs_non_root
@pytest.mark.parametrize("command", ["run", "serve"])
def test_output_folder_without_write_permission(command, tmp_path, capsys, no_simulation):
    locked = tmp_path / "locked"
    locked.mkdir()
    args = _args(FOLDER_COMMANDS[command], tmp_path, locked / "out")
    locked.chmod(0o500)
    try:
        before = tree(tmp_path)
        assert main(args) == 2
        assert "no write permission in folder" in one_error_line(capsys)
        assert tree(tmp_path) == before
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("command", ["run", "serve", "train"])
def test_output_folder_without_write_permission_as_root_sees_it(command, tmp_path, capsys,
                                                                monkeypatch, no_simulation):
    """The same check where the tests run as root: ``os.access`` answers as for a user."""
    locked = tmp_path / "locked"
    locked.mkdir()
    args = _args(FOLDER_COMMANDS[command], tmp_path, locked / "out")
    real_access = os.access

    def access(path, mode, **kwargs):
        if Path(path).absolute() == locked and mode & os.W_OK:
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr("os.access", access)
    before = tree(tmp_path)
    assert main(args) == 2
    line = one_error_line(capsys)
    assert "field '--out'" in line and f"no write permission in folder {locked}" in line
    assert tree(tmp_path) == before


@pytest.mark.parametrize("args,option", [
    (["results", "export", "DB", "-o", "OUT"], "--output"),
    (["results", "plot", "DB", "--x", "batch", "--y", "latency_s", "-o", "OUT"], "--output"),
    (["results", "pareto", "DB", "--objectives", "latency_s,energy_j", "--csv", "OUT"],
     "--csv"),
    (["sweep", "SPEC", "--workers", "0", "-q", "--db", "OUT"], "--db"),
])
def test_sweep_and_results_outputs_that_are_folders(args, option, tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 0
    capsys.readouterr()
    (tmp_path / "adir").mkdir()
    before = tree(tmp_path)
    subst = {"DB": str(tmp_path / "s.db"), "SPEC": str(spec), "OUT": str(tmp_path / "adir")}
    assert main([subst.get(a, a) for a in args]) == 2
    line = one_error_line(capsys)
    assert f"field '{option}'" in line and "it is a folder, not a file" in line
    assert tree(tmp_path) == before


# -- a full disk: one line, exit 2, nothing partial ------------------------------------------

def test_run_on_a_full_disk_leaves_nothing(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    disk_full_after(monkeypatch, 2)  # result.json and operators.csv fit, timeline.csv not
    assert main(["run", SOC, "-w", "alexnet", "--no-progress", "-o", str(out)]) == 2
    line = one_error_line(capsys)
    assert line == f"error: cannot write {out / 'timeline.csv'}: disk full"
    assert tree(tmp_path) == {}  # no output folder, no temporary folder


def test_run_on_a_full_disk_keeps_the_previous_results(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert main(["run", SOC, "-w", "alexnet", "--no-progress", "--no-plots", "-o",
                 str(out)]) == 0
    capsys.readouterr()
    before = tree(tmp_path)
    disk_full_after(monkeypatch, 3)
    assert main(["run", SOC, "-w", "alexnet", "--no-progress", "--no-plots", "-a", "2",
                 "-o", str(out)]) == 2
    assert "disk full" in one_error_line(capsys)
    assert tree(tmp_path) == before  # every old file as it was, no temporary folder


def test_serve_on_a_full_disk_leaves_nothing(tmp_path, capsys, monkeypatch):
    disk_full_after(monkeypatch, 1)
    assert main(["serve", "--requests", "20", "-o", str(tmp_path / "o")]) == 2
    assert one_error_line(capsys) == f"error: cannot write {tmp_path / 'o' / 'metrics.csv'}: " \
                                     "disk full"
    assert tree(tmp_path) == {}


def test_hls_verilog_on_a_read_only_file_system(tmp_path, capsys, monkeypatch):
    src = tmp_path / "kern.py"
    src.write_text(KERNEL_SRC)
    before = tree(tmp_path)

    def read_only(src_path, dst_path):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(src_path), None, str(dst_path))

    monkeypatch.setattr("os.replace", read_only)
    assert main(["hls", f"{src}:mac", "-o", str(tmp_path / "mac.v")]) == 2
    assert one_error_line(capsys) == (f"error: cannot write {tmp_path / 'mac.v'}: "
                                      "read-only file system")
    assert tree(tmp_path) == before


def test_train_validates_options_before_writing(tmp_path, capsys):
    before = tree(tmp_path)
    assert main(["train", "-m", "llama-7b", "-n", "8", "--variability", "--samples", "0",
                 "-o", str(tmp_path / "out")]) == 2
    assert "--samples" in capsys.readouterr().err
    assert tree(tmp_path) == before


def test_a_plain_os_error_is_not_hidden(monkeypatch):
    """Only archsim's OutputError is turned into one line: any other OSError is a bug."""
    import typer

    from archsim.sim import cli

    app = typer.Typer()

    @app.command()
    def broken() -> None:
        raise FileNotFoundError(errno.ENOENT, "No such file", "/a/bug")

    @app.command()
    def other() -> None:
        pass

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(FileNotFoundError):
        cli.main(["broken"])


# -- results databases: read-only readers, schema version, nothing created early -------------

@pytest.mark.parametrize("kind", ["empty", "other", "directory"])
@pytest.mark.parametrize("command", [["show"], ["pareto", "--objectives", "latency_s,energy_j"],
                                     ["export", "-o", "OUT"],
                                     ["plot", "--x", "batch", "--y", "latency_s", "-o", "OUT"]])
def test_results_commands_leave_foreign_databases_untouched(kind, command, tmp_path, capsys):
    db = tmp_path / "x.db"
    if kind == "empty":
        db.write_bytes(b"")
    elif kind == "other":
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE t (x)")
        conn.close()
    else:
        db.mkdir()
    before = tree(tmp_path)
    args = [str(tmp_path / "out.csv") if a == "OUT" else a for a in command]
    assert main(["results", args[0], str(db), *args[1:]]) == 2
    line = one_error_line(capsys)
    expected = {"empty": "not an archsim results database (no table 'points'; an empty file)",
                "other": "not an archsim results database (no table 'points'; tables: t)",
                "directory": "is a directory, not a results database"}[kind]
    assert str(db) in line and expected in line
    assert tree(tmp_path) == before


def test_sweep_does_not_write_its_schema_into_another_programs_database(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    db = tmp_path / "x.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    before = tree(tmp_path)
    assert main(["sweep", str(spec), "--workers", "0", "-q", "--db", str(db)]) == 2
    assert "no table 'points'; tables: t" in one_error_line(capsys)
    assert tree(tmp_path) == before


def test_a_read_only_database_can_be_read_and_is_not_changed(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 0
    db = tmp_path / "s.db"
    db.chmod(0o400)
    capsys.readouterr()
    before = tree(tmp_path)
    assert main(["results", "show", str(db)]) == 0
    # rich wraps a long temporary path onto the next line: compare the words
    assert "6 done points" in " ".join(capsys.readouterr().out.split())  # 8 points, 2 failed
    assert main(["results", "pareto", str(db), "--objectives", "latency_s,energy_j"]) == 0
    assert tree(tmp_path) == before  # no -wal/-shm left, the database byte-identical


def test_the_schema_version_is_recorded_and_checked(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 0
    db = tmp_path / "s.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)
        conn.execute("PRAGMA user_version = 7")
    conn.close()
    capsys.readouterr()
    before = tree(tmp_path)
    assert main(["results", "show", str(db)]) == 2
    line = one_error_line(capsys)
    assert "schema version 7, written by a newer archsim; this archsim reads version 1" in line
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 2
    assert "schema version 7" in one_error_line(capsys)
    assert tree(tmp_path) == before


def test_an_unreachable_scheduler_leaves_no_database(tmp_path, capsys, monkeypatch):
    import distributed

    def refused(address, **kwargs):
        raise OSError(errno.ECONNREFUSED, f"connection to {address} refused")

    # distributed retries a refused address for 10 s; refuse at once, as it does in the end
    monkeypatch.setattr(distributed, "Client", refused)
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    before = tree(tmp_path)
    assert main(["sweep", str(spec), "--scheduler", "tcp://127.0.0.1:1", "-q"]) == 2
    line = one_error_line(capsys)
    assert "field 'scheduler': cannot connect to Dask scheduler 'tcp://127.0.0.1:1'" in line
    assert tree(tmp_path) == before  # no s.db


# -- sweeps: all points failing, a full disk mid-sweep, Ctrl-C -------------------------------

def test_a_sweep_whose_points_all_fail_exits_1(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(ALL_FAIL_SPEC)
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("error: all 2 points failed; first error: ConfigError: ")
    assert "no peak rate for data type 'fp8'" in captured.err
    assert "0 done, 2 failed" in captured.out


def test_a_sweep_with_some_failed_points_exits_0_and_counts_them(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 0
    assert "6 done, 2 failed" in capsys.readouterr().out


@pytest.mark.parametrize("sqlite_message,reason", [
    ("database or disk is full", "disk full (the points stored before are kept)"),
    ("attempt to write a readonly database", "the database is read-only"),
])
def test_a_full_disk_mid_sweep_is_one_line_and_keeps_committed_rows(
        tmp_path, capsys, monkeypatch, sqlite_message, reason):
    from archsim.sim.sweep import ResultStore, engine, load_results

    real = ResultStore._insert
    commits = []

    def insert(self, rows):
        if commits:
            raise sqlite3.OperationalError(sqlite_message)
        commits.append(len(rows))
        return real(self, rows)

    monkeypatch.setattr(ResultStore, "_insert", insert)
    monkeypatch.setattr(engine, "_FLUSH_S", 0.0)  # commit after every batch
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--workers", "0", "-q"]) == 2
    line = one_error_line(capsys)
    assert line == f"error: cannot write {tmp_path / 's.db'}: {reason}"
    monkeypatch.undo()
    stored = load_results(tmp_path / "s.db", status=None)
    assert len(stored) == commits[0] == 1  # the first batch (one point) is kept


def test_other_sqlite_errors_of_a_write_are_not_disguised(tmp_path, monkeypatch):
    from archsim.sim.sweep import PointResult, ResultStore

    def insert(self, rows):
        raise sqlite3.OperationalError("no such column: objectives")  # a bug, not the disk

    monkeypatch.setattr(ResultStore, "_insert", insert)
    with ResultStore(tmp_path / "s.db") as store:
        with pytest.raises(sqlite3.OperationalError, match="no such column"):
            store.write([PointResult("k", "done", objectives={})], sweep="s", model="m",
                        points={"k": ({}, 0)})


INTERRUPTED_SWEEP = textwrap.dedent("""
    import signal
    import sys

    if __name__ == "__main__":  # the cluster's worker processes re-import this file
        # Ctrl-C must raise KeyboardInterrupt even if the test runner ignores SIGINT
        # (as background jobs of a non-interactive shell do).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import archsim.tests.test_sim_sweep_engine  # registers the model 'toy-test'
        from archsim.sim.cli import main

        sys.exit(main(["sweep", sys.argv[1], "--workers", "2", "-q", "--db", sys.argv[2]]))
""")


def test_ctrl_c_during_a_local_cluster_sweep_is_one_line(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(textwrap.dedent("""
        name = "toy"
        model = "toy-test"
        [fixed]
        delay_s = 0.2
        [parameters]
        x = { values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19] }
    """))
    script = tmp_path / "child.py"
    script.write_text(INTERRUPTED_SWEEP)
    db = tmp_path / "s.db"

    def stored() -> int:
        try:
            with sqlite3.connect(db, timeout=5) as conn:
                return int(conn.execute("SELECT COUNT(*) FROM points").fetchone()[0])
        except sqlite3.OperationalError:  # not created yet
            return 0

    # A session of its own: Ctrl-C in a terminal signals the whole process group (client
    # and worker processes), and so does killpg here.
    child = subprocess.Popen([sys.executable, str(script), str(spec), str(db)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while stored() < 2 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.05)
        assert child.poll() is None, child.communicate()
        os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    text = err.decode()
    assert child.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert text.splitlines() == [f"interrupted: every finished point is stored in {db}; run "
                                 "the same command again to resume"]
    assert 2 <= stored() < 19
