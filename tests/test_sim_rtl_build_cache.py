"""The build cache verifies each entry's artefacts (size, SHA-256) and heals a corrupt one.

Unit tests on fake artefacts in a temporary ARCHSIM_CACHE (no Verilator), then one slow test
that truncates a real Verilator executable of the smallest design (a Counter)."""

import hashlib
import json
import warnings

import numpy as np
import pytest

from archsim.sim.rtl import _build_cache
from archsim.sim.rtl._build_cache import (
    MARKER,
    CorruptCacheWarning,
    cached_build,
    is_cached,
    verify_entry,
)

EXE = bytes(range(256)) * 40  # the fake executable: 10,240 bytes
LIB = b"fake shared data\n" * 3


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    return tmp_path / "fake"


class Builder:
    """Writes the fake build and counts how often it was asked to."""

    def __init__(self):
        self.calls = 0

    def __call__(self, folder):
        self.calls += 1
        (folder / "top").write_bytes(EXE)
        (folder / "lib.dat").write_bytes(LIB)
        (folder / "scratch.o").write_bytes(b"not an artefact")


def _get(builder, **kw):
    return cached_build(kind="fake", key="k1", product="top", build=builder,
                        artefacts=["lib.dat"], facts={"what": "test"}, **kw)


def test_marker_records_size_and_sha256_of_each_artefact(cache):
    b = Builder()
    first = _get(b)
    assert not first.cached and b.calls == 1
    marker = json.loads((first.path / MARKER).read_text())
    assert marker["what"] == "test"
    assert marker["artefacts"] == {
        "top": {"size": 10240, "sha256": hashlib.sha256(EXE).hexdigest()},
        "lib.dat": {"size": 51, "sha256": hashlib.sha256(LIB).hexdigest()}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an intact entry warns about nothing
        second = _get(b)
    assert second.cached and second.build_time_s == 0.0 and b.calls == 1
    assert verify_entry(first.path, "top") == ("ok", "")
    assert is_cached("fake", "k1", "top")


@pytest.mark.parametrize(("cut", "expect"), [
    (lambda p: p.write_bytes(b""), "top: size 0, expected 10240"),
    (lambda p: p.write_bytes(EXE[:5120]), "top: size 5120, expected 10240"),
    (lambda p: p.write_bytes(EXE[:-1] + b"\x00"), "top: SHA-256 "),
    (lambda p: p.unlink(), "top: missing"),
], ids=["empty", "half", "same-size", "deleted"])
def test_a_corrupt_executable_is_reported_and_rebuilt(cache, cut, expect):
    b = Builder()
    entry = _get(b).path
    cut(entry / "top")
    assert verify_entry(entry, "top")[0] == "corrupt"
    assert not is_cached("fake", "k1", "top")
    with pytest.warns(CorruptCacheWarning) as record:
        again = _get(b)
    (w,) = record
    assert str(w.message).startswith(f"cache entry k1 was corrupt ({expect}")
    assert str(w.message).endswith("); rebuilding")
    assert not again.cached and b.calls == 2
    assert (entry / "top").read_bytes() == EXE
    assert _get(b).cached and b.calls == 2
    # Nothing left beside the entry: no temporary or moved-aside folder.
    assert sorted(p.name for p in cache.iterdir()) == ["k1", "k1.lock"]


def test_a_corrupt_second_artefact_and_an_unreadable_marker_are_rebuilt(cache):
    b = Builder()
    entry = _get(b).path
    (entry / "lib.dat").write_bytes(b"")
    with pytest.warns(CorruptCacheWarning, match=r"\(lib\.dat: size 0, expected 51\)"):
        _get(b)
    (entry / MARKER).write_bytes(b"\xff{not json")
    with pytest.warns(CorruptCacheWarning, match="archsim-build.json is unreadable"):
        _get(b)
    assert b.calls == 3 and verify_entry(entry, "top") == ("ok", "")


def test_an_old_marker_without_hashes_is_a_silent_miss(cache):
    b = Builder()
    entry = _get(b).path
    (entry / MARKER).write_text(json.dumps({"toplevel": "top", "build_time_s": 1.0}))
    assert verify_entry(entry, "top")[0] == "missing"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rebuilt = _get(b)
    assert not rebuilt.cached and b.calls == 2
    assert "artefacts" in json.loads((entry / MARKER).read_text())


def test_a_failed_rebuild_leaves_no_half_written_entry(cache):
    _get(Builder())

    def broken(folder):
        (folder / "top").write_bytes(EXE[:100])  # half written, then the compiler dies
        raise RuntimeError("compiler crashed")

    (cache / "k1" / "top").write_bytes(b"")
    with pytest.warns(CorruptCacheWarning), pytest.raises(RuntimeError, match="crashed"):
        _get(broken)
    assert sorted(p.name for p in cache.iterdir()) == ["k1", "k1.lock"]
    # The corrupt entry is still refused, and the next good build heals it.
    with pytest.warns(CorruptCacheWarning):
        assert not _get(Builder()).cached
    assert (cache / "k1" / "top").read_bytes() == EXE


def test_a_build_without_its_product_is_not_cached(cache):
    with pytest.raises(FileNotFoundError, match="did not produce 'top'"):
        cached_build(kind="fake", key="k2", product="top", build=lambda folder: None)
    assert sorted(p.name for p in cache.iterdir()) == ["k2.lock"]


def test_hashes_are_taken_in_blocks(cache, monkeypatch):
    # A file larger than the 1 MiB read block hashes as hashlib does in one go.
    big = np.random.default_rng(0).integers(0, 256, 3 * 2**20 + 17, dtype=np.uint8).tobytes()
    path = cache.parent / "big.bin"
    path.write_bytes(big)
    assert _build_cache._sha256(path) == hashlib.sha256(big).hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["empty", "half"])
def test_truncated_verilator_executable_is_rebuilt_and_the_counter_is_right(
        tmp_path, monkeypatch, how):
    from archsim.sim.rtl import simulate
    from archsim.tests.rtl_designs import Counter

    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    en = [1, 0, 1, 1, 0, 1, 1, 1]
    # count[k] = sum(en[:k]) mod 256 (registered, from init 0), worked by hand.
    expected = [0, 1, 1, 2, 3, 3, 4, 5]
    first = simulate(Counter(), {"en": en}, ["count"], backend="cocotb")
    assert first.outputs["count"].tolist() == expected
    (entry,) = [p for p in (tmp_path / "verilator").iterdir() if p.is_dir()]
    exe = entry / "top"
    size = exe.stat().st_size
    exe.write_bytes(b"" if how == "empty" else exe.read_bytes()[:size // 2])
    with pytest.warns(CorruptCacheWarning,
                      match=rf"cache entry {entry.name} was corrupt \(top: size "
                            rf"{0 if how == 'empty' else size // 2}, expected {size}\); "
                            "rebuilding"):
        again = simulate(Counter(), {"en": en}, ["count"], backend="cocotb")
    assert not again.build_cached
    assert again.outputs["count"].tolist() == expected
    assert exe.stat().st_size == size


def test_a_run_that_prints_nothing_still_says_what_failed(tmp_path, monkeypatch):
    import cocotb_tools.runner

    from archsim.errors import SimulationError
    from archsim.sim.rtl import _verilator
    from archsim.sim.rtl._toolchain import find_toolchain

    class Silent:  # what a broken executable gave: an empty log and no result files
        def test(self, *, log_file, **kwargs):
            log_file.write_text("")
            raise SystemExit(1)

    monkeypatch.setattr(cocotb_tools.runner, "get_runner", lambda name: Silent())
    build = _verilator.VerilatorBuild(tmp_path / "entry", "Counter", None, 0.0, True)
    with pytest.raises(SimulationError) as info:
        _verilator.run_cocotb_job(build, find_toolchain(compiler=False), test_module="m",
                                  job_dir=tmp_path, env_var="X", what="simulation of 'Counter'")
    text = str(info.value)
    assert text.startswith("the Verilator simulation of 'Counter' failed:\nno output from ")
    assert str(tmp_path / "entry" / "Counter") in text
