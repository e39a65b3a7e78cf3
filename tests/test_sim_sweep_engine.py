"""The sweep engine: in-process vs Dask workers, killed workers, interrupted clients, failures.

Loopback only. The toy model below is a closed form (plus one draw from the
point's seed), so every stored value can be checked against the formula.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from pydantic import BaseModel, ConfigDict

from archsim.sim.sweep import (
    ResultStore,
    SweepSpec,
    get_model,
    register_model,
    run_sweep,
)

TOY_PATH = "archsim.tests.test_sim_sweep_engine"


class ToyParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    x: int
    y: float = 0.5
    delay_s: float = 0.0


def toy_model(params, seed):
    """f = (x - 3)^2 + y, g = x * y, u = a uniform draw from the point's seed; x = 13 raises."""
    p = ToyParams.model_validate(params)
    if p.x == 13:
        raise ValueError("x = 13 is unlucky")
    if p.x == 99:
        os._exit(1)  # a crash that takes its worker process down (cluster tests only)
    if p.delay_s:
        time.sleep(p.delay_s)  # stands in for a simulation's run time
    return {"f": (p.x - 3) ** 2 + p.y, "g": p.x * p.y,
            "u": float(np.random.default_rng(seed).random())}


register_model("toy-test", function=f"{TOY_PATH}:toy_model", params=ToyParams,
               objectives=("f", "g", "u"), replace=True)


def toy_spec(n: int, *, delay_s: float = 0.0, name: str = "toy") -> SweepSpec:
    return SweepSpec.from_dict({
        "name": name, "model": "toy-test", "fixed": {"delay_s": delay_s},
        "parameters": {"x": {"values": list(range(n))}, "y": {"values": [0.5, 1.5]}},
    })


def rows(db):
    with ResultStore(db, create=False) as store:
        return store.records()


def check_values(records):
    for r in records:
        x, y = r.params["x"], r.params["y"]
        assert r.objectives["f"] == (x - 3) ** 2 + y
        assert r.objectives["g"] == x * y
        assert r.objectives["u"] == np.random.default_rng(r.seed).random()


def test_two_worker_processes_match_in_process(tmp_path):
    spec = toy_spec(20)  # x = 13 fails: 2 failed points out of 40
    local = run_sweep(spec, db=tmp_path / "a.db", workers=0)
    assert (local.executor, local.done, local.failed) == ("in-process", 38, 2)
    dist = run_sweep(spec, db=tmp_path / "b.db", workers=2, points_per_task=3)
    assert (dist.executor, dist.tasks, dist.done, dist.failed) == ("local-cluster(2)", 14, 38, 2)

    def content(db):
        return {r.key: (r.params, r.seed, r.status, r.objectives, r.error) for r in rows(db)}

    a, b = content(tmp_path / "a.db"), content(tmp_path / "b.db")
    assert a == b and len(a) == 40
    # the points ran in two other processes
    assert {r.worker for r in rows(tmp_path / "b.db")}.isdisjoint({r.worker for r in rows(
        tmp_path / "a.db")})
    check_values([r for r in rows(tmp_path / "b.db") if r.status == "done"])
    failed = [r for r in rows(tmp_path / "b.db") if r.status == "failed"]
    assert {r.params["x"] for r in failed} == {13}
    assert all(r.error == "ValueError: x = 13 is unlucky" and "toy_model" in r.traceback
               for r in failed)


@pytest.fixture(scope="module")
def cluster():
    from archsim.sim.sweep import local_cluster

    with local_cluster(2) as c:
        yield c


def test_scheduler_address_matches_in_process(tmp_path, cluster):
    from importlib.resources import files

    from archsim.sim.sweep import load_spec

    spec = load_spec(files("archsim.soc_configs") / "sweep_gpu_roofline.toml")
    local = run_sweep(spec, db=tmp_path / "a.db", workers=0)
    remote = run_sweep(spec, db=tmp_path / "b.db", scheduler=cluster.scheduler_address)
    assert remote.executor == cluster.scheduler_address and remote.workers == 2
    assert remote.done == local.done == len(spec.points()) and remote.failed == 0

    def content(db):
        return {r.key: (r.params, r.objectives) for r in rows(db)}

    assert content(tmp_path / "a.db") == content(tmp_path / "b.db")


def test_a_point_that_kills_its_worker_is_isolated_and_failed(tmp_path):
    import dask
    from distributed import Client

    from archsim.sim.sweep import local_cluster

    spec = SweepSpec.from_dict({"name": "poison", "model": "toy-test",
                                "parameters": {"x": {"values": [1, 99, 2, 3]}}})
    # allowed-failures = 0: the first worker death raises KilledWorker for the task
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            local_cluster(1) as c, Client(c) as client:
        report = run_sweep(spec, db=tmp_path / "p.db", client=client, points_per_task=4)
    assert (report.done, report.failed) == (3, 1)
    assert report.tasks == 1 + 4  # the batch, then each point alone
    recs = {r.params["x"]: r for r in rows(tmp_path / "p.db")}
    assert recs[99].status == "failed"
    assert recs[99].error.startswith("worker process died running this point (KilledWorker")
    check_values([recs[x] for x in (1, 2, 3)])


def test_killing_a_worker_mid_sweep_loses_nothing(tmp_path, cluster):
    from distributed import Client

    spec = toy_spec(12, delay_s=0.04)  # 24 points, x = 13 absent: all succeed
    killed = {}
    with Client(cluster) as client:
        pids = client.run(os.getpid)

        def on_progress(p):
            if killed or p.done < 2:
                return
            busy = [addr for addr, keys in client.processing().items() if keys]
            if busy:
                killed.update(pid=pids[busy[0]], remaining=p.remaining)
                os.kill(pids[busy[0]], signal.SIGKILL)

        report = run_sweep(spec, db=tmp_path / "k.db", client=client, points_per_task=2,
                           on_progress=on_progress)
    assert killed and killed["remaining"] > 0  # the kill happened mid-sweep, on a busy worker
    assert (report.done, report.failed) == (24, 0)
    recs = rows(tmp_path / "k.db")
    assert len(recs) == 24 and len({r.key for r in recs}) == 24
    assert {(r.params["x"], r.params["y"]) for r in recs} == {
        (x, y) for x in range(12) for y in (0.5, 1.5)}
    check_values(recs)


CHILD = textwrap.dedent("""
    import signal
    import sys
    # Ctrl-C must raise KeyboardInterrupt even if the test runner was started with SIGINT
    # ignored (as background jobs of a non-interactive shell are).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from archsim.tests.test_sim_sweep_engine import toy_spec
    from archsim.sim.sweep import run_sweep
    run_sweep(toy_spec(30, delay_s=0.03), db=sys.argv[1], workers=0, points_per_task=1)
""")


def _count(db) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_interrupted_client_resumes_without_loss_or_recompute(tmp_path, sig):
    db = tmp_path / "i.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while _count(db) < 6 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        child.send_signal(sig)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    before = {r.key: r for r in rows(db)}
    assert 6 <= len(before) < 60  # interrupted mid-sweep, completed points kept
    assert {r.worker.rsplit(":", 1)[1] for r in before.values()} == {str(child.pid)}

    resumed = run_sweep(toy_spec(30, delay_s=0.03), db=db, workers=0)
    assert resumed.skipped == len(before)
    assert resumed.done + resumed.failed == 60 - len(before)
    final = {r.key: r for r in rows(db)}
    assert len(final) == 60
    for key, rec in before.items():  # not recomputed: same worker, same finish time
        assert (final[key].worker, final[key].finished_at) == (rec.worker, rec.finished_at)
    check_values([r for r in final.values() if r.status == "done"])
    assert sorted(r.params["x"] for r in final.values() if r.status == "failed") == [13, 13]


def test_model_import_failure_marks_points_failed(tmp_path):
    register_model("broken-test", function="archsim.no_such_module:f", params=ToyParams,
                   objectives=("f",), replace=True)
    spec = SweepSpec.from_dict({"model": "broken-test",
                                "parameters": {"x": {"values": [1, 2, 3]}}})
    report = run_sweep(spec, db=tmp_path / "b.db", workers=0)
    assert (report.done, report.failed) == (0, 3)
    assert all("cannot load model function 'archsim.no_such_module:f': cannot import module "
               "'archsim.no_such_module'" in r.error for r in rows(
        tmp_path / "b.db"))
    assert get_model("toy-test").objectives == ("f", "g", "u")


def test_bad_objective_values_fail_the_point(tmp_path):
    from archsim.sim.sweep import run_batch

    register_model("bad-out-test", function=f"{TOY_PATH}:bad_output", params=ToyParams,
                   objectives=("f",), replace=True)
    res = run_batch(f"{TOY_PATH}:bad_output", [("a", {"x": 0}, 0), ("b", {"x": 1}, 0),
                                               ("c", {"x": 2}, 0)], ("f",))
    assert [r.status for r in res] == ["failed", "failed", "done"]
    assert res[0].error == "TypeError: model returned list, not a mapping of objectives"
    assert res[1].error.startswith("TypeError: objective 'f' is 'fast', not a number")
    assert res[2].objectives == {"f": 2.0}


def bad_output(params, seed):
    return [[], {"f": "fast"}, {"f": 2}][params["x"]]


@pytest.mark.parametrize("n, workers", [(1, 2), (7, 1), (80, 2), (1600, 2), (5000, 3)])
def test_guided_batches_shrink_and_cover_every_point(n, workers):
    from archsim.sim.sweep.engine import _guided_batches

    pts = toy_spec(n, name="g").points()[:n]
    batches = _guided_batches(pts, workers)
    sizes = [len(b) for b in batches]
    assert [p.key for b in batches for p in b] == [p.key for p in pts]
    assert sizes == sorted(sizes, reverse=True) and 1 <= sizes[-1] and sizes[0] <= 256
    remaining = n
    for size in sizes:  # each batch is ceil(remaining / (4 x workers)), capped at 256
        assert size == min(256, -(-remaining // (4 * workers)))
        remaining -= size
