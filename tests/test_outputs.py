"""Atomic writers and the cache folder."""

import csv
import json

import numpy as np
import pytest

from archsim import cache
from archsim.outputs import atomic_write_text, write_csv, write_json


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
    import os
    import stat

    umask = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "x.v", "module x; endmodule\n")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
