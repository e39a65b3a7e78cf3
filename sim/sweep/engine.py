"""Running a sweep: in-process, on a Dask LocalCluster of worker processes, or on a cluster.

The client expands the spec into points, skips those already ``done`` in the
store, batches the rest (a Dask task costs about 1.5 ms to schedule, so one
task runs several points; batches shrink towards the end so workers finish
together) and writes results to the store as they arrive, one transaction per
arrival. Workers never touch the database.

Failures are kept apart: a point whose model raises is returned as ``failed``
with its error and the sweep goes on; a worker process that dies has its tasks
rescheduled by the Dask scheduler; the points of a task that keeps killing
workers (Dask's ``KilledWorker``) are rerun one task at a time at the end, and
a point that still kills its worker is stored as failed. Worker processes
inherit the client's environment, so ``ARCHSIM_CACHE`` -- and with it the
shared, file-locked RTL build cache -- is the same for all of them on one
machine.

Shutdown: the worker processes of a LocalCluster ignore SIGINT (a Dask worker
preload, :mod:`~archsim.sim.sweep.worker_setup`), so Ctrl-C in a terminal, which
signals the whole process group, interrupts only the client: it commits what has
arrived, cancels the remaining tasks and closes the cluster, and the CLI prints
one line. An existing scheduler is connected to before the results database is
opened, so an unreachable one leaves no file behind.
"""

from __future__ import annotations

import math
import os
import socket
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError
from .models import import_path
from .spec import SweepPoint, SweepSpec
from .store import PointResult, ResultStore

if TYPE_CHECKING:
    from distributed import LocalCluster

__all__ = ["SweepProgress", "SweepReport", "run_sweep", "run_batch", "default_db_path",
           "local_cluster", "LOCAL_CLUSTER_CONFIG", "TINY_SWEEP_POINTS", "WORKER_PRELOAD"]

#: The Dask worker preload module of a sweep's LocalCluster (workers ignore SIGINT).
WORKER_PRELOAD = "archsim.sim.sweep.worker_setup"
#: Sweeps with at most this many points to compute run in-process unless workers are asked for.
TINY_SWEEP_POINTS = 16
_MAX_POINTS_PER_TASK = 256
_GUIDED_DIVISOR = 4
# In-process results are committed at least this often (a commit costs ~0.2 ms).
_FLUSH_S = 0.05


@dataclass(frozen=True)
class SweepProgress:
    """Counts reported after each batch (``remaining`` excludes skipped points)."""

    total: int
    skipped: int
    done: int
    failed: int
    remaining: int
    elapsed_s: float


@dataclass(frozen=True)
class SweepReport:
    """What a sweep did.

    ``compute_s`` sums the points' own run times as measured on the workers, so
    ``wall_s * workers - compute_s`` is the time the engine added.
    """

    name: str
    db: Path
    executor: str
    workers: int
    total: int
    skipped: int
    done: int
    failed: int
    tasks: int
    points_per_task: int
    wall_s: float
    compute_s: float
    #: The error of the first point that failed in this run (``None`` when none failed).
    first_error: str | None = None

    @property
    def computed(self) -> int:
        return self.done + self.failed

    @property
    def points_per_s(self) -> float:
        return self.computed / self.wall_s if self.wall_s > 0 else math.inf

    @property
    def overhead_per_point_s(self) -> float:
        """Engine time per computed point: ``(wall_s * workers - compute_s) / computed``."""
        if not self.computed:
            return 0.0
        return (self.wall_s * self.workers - self.compute_s) / self.computed

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "db": str(self.db), "executor": self.executor,
                "workers": self.workers, "total": self.total, "skipped": self.skipped,
                "done": self.done, "failed": self.failed, "tasks": self.tasks,
                "points_per_task": self.points_per_task, "wall_s": self.wall_s,
                "compute_s": self.compute_s, "points_per_s": self.points_per_s}


def default_db_path(spec_path: str | Path) -> Path:
    """The default database of a spec file: next to it, with the suffix ``.db``."""
    return Path(spec_path).with_suffix(".db")


def run_batch(
    function: str,
    points: Sequence[tuple[str, dict[str, Any], int]],
    objectives: Sequence[str],
) -> list[PointResult]:
    """Run ``points`` (``(key, params, seed)``) through the model at import path ``function``.

    This is what a Dask task executes (and what the in-process executor calls).
    A point whose model raises, or returns something other than the listed
    numeric objectives, becomes a ``failed`` result; nothing here raises for a
    point.
    """
    worker = f"{socket.gethostname()}:{os.getpid()}"
    try:
        fn = import_path(function)
        if not callable(fn):
            raise ConfigError(f"model function '{function}' is not callable: {fn!r}",
                              field="function")
    except Exception as exc:  # the whole batch fails the same way
        message = f"{type(exc).__name__}: {exc}"
        return [PointResult(key=k, status="failed", error=message, worker=worker)
                for k, _, _ in points]
    out = []
    for key, params, seed in points:
        start = time.perf_counter()
        try:
            values = fn(dict(params), seed)
            result = _objectives(values, objectives)
        except Exception as exc:  # a failing point must not stop the sweep
            out.append(PointResult(key=key, status="failed", error=f"{type(exc).__name__}: {exc}",
                                   traceback=traceback.format_exc(limit=20),
                                   duration_s=time.perf_counter() - start, worker=worker))
            continue
        out.append(PointResult(key=key, status="done", objectives=result,
                               duration_s=time.perf_counter() - start, worker=worker))
    return out


def _objectives(values: Any, objectives: Sequence[str]) -> dict[str, float]:
    if not isinstance(values, Mapping):
        raise TypeError(f"model returned {type(values).__name__}, not a mapping of objectives")
    names = list(objectives) or list(values)
    out = {}
    for name in names:
        if name not in values:
            raise KeyError(f"model returned no objective '{name}' (got {sorted(values)})")
        value = values[name]
        if isinstance(value, bool) or not hasattr(type(value), "__float__"):
            raise TypeError(f"objective '{name}' is {value!r}, not a number")
        out[name] = float(value)
    return out


def run_sweep(
    spec: SweepSpec,
    *,
    db: str | Path,
    workers: int | None = None,
    scheduler: str | None = None,
    client: Any = None,
    points_per_task: int | None = None,
    retry_failed: bool = True,
    on_progress: Callable[[SweepProgress], None] | None = None,
) -> SweepReport:
    """Run the sweep ``spec``, storing every result in the database ``db``.

    Parameters
    ----------
    spec
        A validated spec (:func:`~archsim.sim.sweep.spec.load_spec`).
    db
        The SQLite results file (created when missing). Points already ``done``
        in it are skipped.
    workers
        ``0`` runs in-process; ``N`` starts a Dask LocalCluster of ``N``
        single-threaded worker processes. The default is in-process for tiny
        sweeps (at most :data:`TINY_SWEEP_POINTS` points to compute) and a
        LocalCluster with one worker per CPU otherwise.
    scheduler
        Address of an existing Dask scheduler (``tcp://host:8786``); overrides
        ``workers``.
    client
        An existing :class:`distributed.Client` to use (it is not closed).
    points_per_task
        Points per Dask task; default from the spec, else guided self-scheduling
        (each task takes ``1/(4 x workers)`` of the points not yet submitted, at
        most 256 and at least 1), so tasks shrink towards the end of the sweep.
    retry_failed
        Recompute points stored as failed (default); otherwise skip them too.
    on_progress
        Called in the client after each stored batch.
    """
    if workers is not None and workers < 0:
        raise ConfigError(f"must be >= 0, not {workers}", field="workers")
    if points_per_task is not None and points_per_task < 1:
        raise ConfigError(f"must be >= 1, not {points_per_task}", field="points_per_task")
    start = time.perf_counter()
    points = spec.points()
    model = spec.sweep_model
    by_key = {p.key: p for p in points}
    with ExitStack() as stack:
        connected = None
        if client is None and scheduler is not None:
            # Reach the scheduler before the store exists: a wrong address creates no file.
            connected = stack.enter_context(_dask_client("scheduler", client=None,
                                                         scheduler=scheduler, workers=1))
        store = stack.enter_context(ResultStore(db))
        store.record_sweep(spec.name, spec.model, spec.model_dump(mode="json"))
        stored = store.statuses(by_key)
        skip = {"done", "failed"} if not retry_failed else {"done"}
        pending = [p for p in points if stored.get(p.key) not in skip]
        skipped = len(points) - len(pending)

        if client is not None or scheduler is not None:
            mode = "client" if client is not None else "scheduler"
        elif (workers == 0 or not pending
              or (workers is None and len(pending) <= TINY_SWEEP_POINTS)):
            mode = "in-process"
        else:
            mode = "local-cluster"
        n_workers = 1 if mode == "in-process" else (workers or os.cpu_count() or 1)

        counts = {"done": 0, "failed": 0, "tasks": 0}
        compute_s = 0.0
        first_error: str | None = None
        params_of = {p.key: (p.params, p.seed) for p in pending}

        def store_results(results: Sequence[PointResult]) -> None:
            nonlocal compute_s, first_error
            store.write(results, sweep=spec.name, model=model.name, points=params_of)
            for r in results:
                counts[r.status] += 1
                compute_s += r.duration_s
                if first_error is None and r.status == "failed":
                    first_error = r.error
            if on_progress is not None:
                done_now = counts["done"] + counts["failed"]
                on_progress(SweepProgress(
                    total=len(points), skipped=skipped, done=counts["done"],
                    failed=counts["failed"], remaining=len(pending) - done_now,
                    elapsed_s=time.perf_counter() - start))

        if on_progress is not None:
            on_progress(SweepProgress(total=len(points), skipped=skipped, done=0, failed=0,
                                      remaining=len(pending), elapsed_s=0.0))
        objectives = spec.recorded_objectives
        if mode == "in-process":
            size = points_per_task or spec.points_per_task or 1
            executor = "in-process"
            counts["tasks"] = _run_in_process(model.function, _batches(pending, size),
                                              objectives, store_results)
        else:
            if mode == "scheduler":
                executor = scheduler or ""
            elif mode == "client":
                executor = "client"
            else:
                executor = f"local-cluster({n_workers})"
            with _dask_client(mode if connected is None else "client",
                              client=client if connected is None else connected,
                              scheduler=scheduler, workers=n_workers) as dask_client:
                if mode != "local-cluster":
                    n_workers = max(1, len(dask_client.scheduler_info()["workers"]))
                fixed = points_per_task or spec.points_per_task
                batches = (_batches(pending, fixed) if fixed
                           else _guided_batches(pending, n_workers))
                size = max((len(b) for b in batches), default=0)
                counts["tasks"] = _run_on_dask(dask_client, model.function, batches, objectives,
                                               store_results)
        return SweepReport(
            name=spec.name, db=Path(db), executor=executor, workers=n_workers,
            total=len(points), skipped=skipped, done=counts["done"], failed=counts["failed"],
            tasks=counts["tasks"], points_per_task=size, wall_s=time.perf_counter() - start,
            compute_s=compute_s, first_error=first_error)


def _run_in_process(
    function: str,
    batches: list[list[SweepPoint]],
    objectives: Sequence[str],
    store_results: Callable[[Sequence[PointResult]], None],
) -> int:
    """Run batches in this process, committing at least every :data:`_FLUSH_S` seconds.

    Results still buffered when the run is interrupted (Ctrl-C) are committed
    before the interrupt propagates.
    """
    buffer: list[PointResult] = []
    last = time.perf_counter()
    try:
        for batch in batches:
            buffer.extend(run_batch(function, _payload(batch), objectives))
            if time.perf_counter() - last >= _FLUSH_S:
                store_results(buffer)
                buffer, last = [], time.perf_counter()
    finally:
        if buffer:
            store_results(buffer)
    return len(batches)


def _guided_batches(points: Sequence[SweepPoint], n_workers: int) -> list[list[SweepPoint]]:
    """Guided self-scheduling: each batch takes 1/(4 x workers) of the points still unbatched.

    Large batches first keep the per-task cost small; the shrinking batches at
    the end keep the workers' finishing times close, whatever a point costs.
    """
    out: list[list[SweepPoint]] = []
    i = 0
    while i < len(points):
        size = max(1, min(_MAX_POINTS_PER_TASK,
                          math.ceil((len(points) - i) / (_GUIDED_DIVISOR * n_workers))))
        out.append(list(points[i:i + size]))
        i += size
    return out


def _batches(points: Sequence[SweepPoint], size: int) -> list[list[SweepPoint]]:
    return [list(points[i:i + size]) for i in range(0, len(points), size)]


def _payload(batch: Sequence[SweepPoint]) -> list[tuple[str, dict[str, Any], int]]:
    return [(p.key, p.params, p.seed) for p in batch]


#: Dask settings of the LocalCluster a sweep starts. An idle two-worker cluster with Dask's
#: defaults used ~7.6 % of a core (event-loop ticks every 20 ms, system and memory monitors,
#: the statistical profiler); with these, ~1.1 % (measured on the 2-core CI machines).
#: They only slow down diagnostics: the dashboard's graphs and the memory-limit checks.
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.worker.profile.enabled": False,
}


def local_cluster(workers: int) -> LocalCluster:
    """A Dask LocalCluster of ``workers`` single-threaded worker processes, set up for sweeps.

    No dashboard port is claimed (``:0``), logs below errors are silenced and
    :data:`LOCAL_CLUSTER_CONFIG` applies. The caller closes it.
    """
    import logging

    import dask
    from distributed import LocalCluster

    if workers < 1:
        raise ConfigError(f"must be >= 1, not {workers}", field="workers")
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        # The preload makes each worker process ignore SIGINT (see the module docstring).
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                            dashboard_address=":0", silence_logs=logging.ERROR,
                            preload=[WORKER_PRELOAD])


class _dask_client:
    """Context manager giving a Dask client: the caller's, a scheduler's, or a LocalCluster's."""

    def __init__(self, mode: str, *, client: Any, scheduler: str | None, workers: int) -> None:
        self.mode, self.client, self.scheduler, self.workers = mode, client, scheduler, workers
        self._owned: list[Any] = []

    def __enter__(self) -> Any:
        if self.mode == "client":
            return self.client
        from distributed import Client

        if self.mode == "scheduler":
            try:
                client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ConfigError(f"cannot connect to Dask scheduler '{self.scheduler}': {exc}",
                                  field="scheduler") from None
            self._owned.append(client)
            return client
        cluster = local_cluster(self.workers)
        self._owned.append(cluster)
        client = Client(cluster)
        self._owned.append(client)
        return client

    def __exit__(self, *exc: object) -> None:
        for obj in reversed(self._owned):
            try:
                obj.close()
            except Exception:  # closing after an interrupt must not mask it
                pass


def _run_on_dask(
    client: Any,
    function: str,
    batches: list[list[SweepPoint]],
    objectives: Sequence[str],
    store_results: Callable[[Sequence[PointResult]], None],
) -> int:
    """Submit the batches, store results as they complete; return the number of tasks run.

    A batch whose task keeps killing workers (``KilledWorker``) is quarantined:
    once everything else is done its points run one task at a time, so a
    crashing point is told apart from the innocent points that shared its worker,
    and only the crashing one is stored as failed.
    """
    from distributed import as_completed, wait
    from distributed.scheduler import KilledWorker

    pending: dict[Any, list[SweepPoint]] = {}
    quarantine: list[SweepPoint] = []
    tasks = 0

    def submit(batch: list[SweepPoint]) -> Any:
        nonlocal tasks
        future = client.submit(run_batch, function, _payload(batch), tuple(objectives),
                               pure=False)
        pending[future] = batch
        tasks += 1
        return future

    def outcome(future: Any, batch: list[SweepPoint], *, isolated: bool) -> list[PointResult]:
        exc = future.exception()
        if isinstance(exc, KilledWorker) and not isolated:
            quarantine.extend(batch)
            return []
        message = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, KilledWorker):
            message = f"worker process died running this point ({message})"
        return [PointResult(key=p.key, status="failed", error=message) for p in batch]

    try:
        # Every future finished by now is stored in one transaction.
        for futures in as_completed([submit(b) for b in batches]).batches():
            finished = [f for f in futures if f.status == "finished"]
            # one gather for all finished tasks: a single round trip instead of one per task
            results = [r for batch in client.gather(finished) for r in batch]
            for future in finished:
                del pending[future]
            for future in futures:
                if future.status != "finished":
                    results.extend(outcome(future, pending.pop(future), isolated=False))
            if results:
                store_results(results)
        for point in quarantine:
            future = submit([point])
            wait(future)
            batch = pending.pop(future)
            store_results(future.result() if future.status == "finished"
                          else outcome(future, batch, isolated=True))
    finally:
        if pending:
            client.cancel(list(pending))
    return tasks
