"""Atomic writers, output-location checks, atomic output folders and the cache folder."""

import csv
import errno
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from archsim import cache
from archsim.errors import ConfigError, OutputError
from archsim.outputs import (
    FigureRenderer,
    atomic_dir,
    atomic_path,
    atomic_write_text,
    check_output_dir,
    check_output_file,
    os_error_reason,
    write_csv,
    write_json,
)


def test_json_and_csv_round_trip(tmp_path):
    write_json(tmp_path / "r.json", {"a": np.float64(1.5), "b": np.arange(3), "c": float("nan")})
    assert json.loads((tmp_path / "r.json").read_text()) == {"a": 1.5, "b": [0, 1, 2], "c": None}
    write_csv(tmp_path / "t.csv", [{"x": 1, "y": 2}, {"x": 3, "z": 4}])
    rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert rows == [{"x": "1", "y": "2", "z": ""}, {"x": "3", "y": "", "z": "4"}]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "keep.txt"
    atomic_write_text(target, "old")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_cache_root_honours_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path / "c"))
    assert cache.cache_dir("verilator") == tmp_path / "c" / "verilator"
    assert (tmp_path / "c" / "verilator").is_dir()


def test_content_hash_separates_parts():
    assert cache.content_hash("ab", "c") != cache.content_hash("a", "bc")
    assert cache.content_hash("x") == cache.content_hash(b"x")


def test_written_files_get_the_usual_permissions(tmp_path):
    import stat

    umask = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "x.v", "module x; endmodule\n")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


# -- output locations checked before any work; folders written as a whole --------------------

needs_non_root = pytest.mark.skipif(os.geteuid() == 0,
                                    reason="root ignores folder permissions")


def _tree(root: Path) -> dict[str, str]:
    """Every path under ``root`` (hidden ones too) with a hash of its bytes ('' for folders)."""
    return {str(p.relative_to(root)): ("" if p.is_dir() else
                                       hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(root.rglob("*"))}


def test_check_output_dir_accepts_new_and_existing_folders(tmp_path):
    (tmp_path / "old").mkdir()
    assert check_output_dir(tmp_path / "old", field="--out") == tmp_path / "old"
    assert check_output_dir(tmp_path / "a" / "b" / "c", field="--out") == tmp_path / "a/b/c"
    assert _tree(tmp_path) == {"old": ""}  # nothing created


def test_check_output_dir_rejects_a_file_and_a_path_through_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match=r"field '--out': cannot write to .*f: it is a file, "
                                          r"not a folder"):
        check_output_dir(tmp_path / "f", field="--out")
    with pytest.raises(ConfigError, match=r"field '-o': cannot write .*f/sub/deeper: .*f is a "
                                          r"file, not a folder"):
        check_output_dir(tmp_path / "f" / "sub" / "deeper", field="-o")


def test_check_output_file_rejects_a_folder_and_a_path_through_a_file(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="field '--output': cannot write .*d: it is a folder"):
        check_output_file(tmp_path / "d", field="--output")
    with pytest.raises(ConfigError, match="f is a file, not a folder"):
        check_output_file(tmp_path / "f" / "x.v", field="--output")
    assert check_output_file(tmp_path / "f", field="--output") == tmp_path / "f"  # replaced
    assert check_output_file(tmp_path / "new" / "x.v", field="--output")
    assert _tree(tmp_path) == {"d": "", "f": hashlib.sha256(b"x").hexdigest()}


@needs_non_root
def test_checks_reject_a_folder_without_write_permission(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(ConfigError, match="no write permission"):
            check_output_dir(locked, field="--out")
        with pytest.raises(ConfigError, match="no write permission in folder .*locked"):
            check_output_dir(locked / "run", field="--out")
        with pytest.raises(ConfigError, match="no write permission in folder .*locked"):
            check_output_file(locked / "x.csv", field="--output")
    finally:
        locked.chmod(0o700)


def test_atomic_dir_renames_a_complete_new_folder_into_place(tmp_path):
    target = tmp_path / "parent" / "run"
    with atomic_dir(target) as tmp:
        assert tmp.parent == tmp_path / "parent" and tmp.name.startswith(".run.tmp-")
        write_json(tmp / "a.json", {"a": 1})
        (tmp / "sub").mkdir()
        atomic_write_text(tmp / "sub" / "b.txt", "b")
        assert not target.exists()  # nothing visible until the block ends
    assert sorted(_tree(tmp_path)) == ["parent", "parent/run", "parent/run/a.json",
                                       "parent/run/sub", "parent/run/sub/b.txt"]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o777 & ~umask  # not mkdtemp's 0700


def test_atomic_dir_over_an_existing_folder_replaces_only_the_files_it_writes(tmp_path):
    target = tmp_path / "run"
    target.mkdir()
    (target / "result.json").write_text("old")
    (target / "notes.txt").write_text("mine")
    with atomic_dir(target) as tmp:
        atomic_write_text(tmp / "result.json", "new")
        assert (target / "result.json").read_text() == "old"
    assert (target / "result.json").read_text() == "new"
    assert (target / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # temporary folder gone


def test_atomic_dir_failure_leaves_the_old_files_and_no_new_folders(tmp_path):
    target = tmp_path / "run"
    target.mkdir()
    (target / "result.json").write_text("old")
    before = _tree(tmp_path)
    with pytest.raises(RuntimeError, match="simulated"):
        with atomic_dir(target) as tmp:
            atomic_write_text(tmp / "result.json", "new")
            raise RuntimeError("simulated failure after one file")
    assert _tree(tmp_path) == before
    with pytest.raises(KeyboardInterrupt):
        with atomic_dir(tmp_path / "a" / "b" / "new") as tmp:
            atomic_write_text(tmp / "x", "x")
            raise KeyboardInterrupt
    assert _tree(tmp_path) == before  # the parents it created are removed too


def test_disk_full_while_writing_is_an_output_error_naming_the_users_path(tmp_path, monkeypatch):
    target = tmp_path / "run"
    real = Path.write_bytes
    calls = []

    def full_after_one(self, data):
        calls.append(self)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as write() raises it
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full_after_one)
    with pytest.raises(OutputError) as info:
        with atomic_dir(target) as tmp:
            atomic_write_text(tmp / "a.csv", "a")
            atomic_write_text(tmp / "b.csv", "b")
    assert str(info.value) == f"cannot write {target / 'b.csv'}: disk full"
    assert info.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []  # nothing partial: not even a.csv


@pytest.mark.parametrize("code,reason", [
    (errno.ENOSPC, "disk full"), (errno.EROFS, "read-only file system"),
    (errno.EACCES, "permission denied"), (errno.EDQUOT, "disk quota exceeded")])
def test_write_errors_of_the_output_path_become_one_line(tmp_path, monkeypatch, code, reason):
    def refuse(src, dst):
        raise OSError(code, os.strerror(code), str(src), None, str(dst))

    monkeypatch.setattr("os.replace", refuse)
    with pytest.raises(OutputError, match=f"^cannot write .*x.v: {reason}$"):
        atomic_write_text(tmp_path / "x.v", "module x; endmodule\n")
    assert list(tmp_path.iterdir()) == []
    assert os_error_reason(OSError(code, "whatever")) == reason


def test_an_unrelated_os_error_is_not_disguised_as_an_output_error(tmp_path):
    # A missing input read inside the block is a bug or an input problem, not an output one.
    with pytest.raises(FileNotFoundError):
        with atomic_dir(tmp_path / "run"):
            (tmp_path / "no-such-input.txt").read_text()
    with pytest.raises(PermissionError):
        with atomic_path(tmp_path / "x.txt"):
            raise PermissionError(errno.EACCES, "denied", "/etc/some-other-file")
    assert list(tmp_path.iterdir()) == []


def test_writing_a_file_over_a_folder_is_one_line(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputError, match=r"cannot write .*d: is a folder, not a file"):
        atomic_write_text(tmp_path / "d", "x")
    assert _tree(tmp_path) == {"d": ""}


def _bytes_of(n):
    return bytes([n]) * n


def _pid_bytes():
    return str(os.getpid()).encode()


def _fails():
    raise RuntimeError("no figure here")


@pytest.mark.parametrize("parallel", [True, False])
def test_figure_renderer_returns_each_jobs_bytes_in_order(parallel):
    with FigureRenderer(parallel=parallel) as renderer:
        got = renderer.render([(_bytes_of, (n,)) for n in (3, 1, 2)]).result()
    assert got == [b"\x03" * 3, b"\x01", b"\x02" * 2]


def test_figure_renderer_renders_elsewhere_only_when_parallel():
    with FigureRenderer(parallel=False) as renderer:
        assert not renderer.parallel
        assert renderer.render([(_pid_bytes, ())]).result() == [str(os.getpid()).encode()]
    with FigureRenderer() as renderer:
        if not renderer.parallel:  # one usable CPU, or no fork
            pytest.skip("this machine renders in the caller's process")
        pids = renderer.render([(_pid_bytes, ()), (_pid_bytes, ())]).result()
    assert str(os.getpid()).encode() not in pids
    assert len(set(pids)) == 2  # the second figure renders in a process of its own


@pytest.mark.parametrize("parallel", [True, False])
def test_figure_renderer_raises_a_jobs_error_from_the_result(parallel):
    with FigureRenderer(parallel=parallel) as renderer:
        future = renderer.render([(_bytes_of, (1,)), (_fails, ())])
        with pytest.raises(RuntimeError, match="no figure here"):
            future.result()


def test_figure_renderer_validates_its_argument():
    with pytest.raises(TypeError, match="parallel must be a bool, not 2"):
        FigureRenderer(parallel=2)  # type: ignore[arg-type]
