"""The results store: one SQLite file, written only by the sweep's client.

Each point is one row keyed by :func:`~archsim.sim.sweep.spec.point_key` (a hash
of model, parameters, seed and archsim version). Results are written in one
transaction per arriving batch, so a killed or interrupted sweep leaves every
committed point and no half-written row; a row once ``done`` is never
overwritten, so re-running a sweep skips it. Failed points are stored with
their error and are retried by a re-run.

The database runs in SQLite's WAL mode with ``synchronous=NORMAL``: a commit
costs ~0.2 ms instead of an fsync (~20 ms on the machines measured), commits
survive a killed process, and an operating-system crash can lose only the last
commits, never corrupt the file. Readers (``archsim results``) do not block the
writer. The ``-wal``/``-shm`` side files exist only while the database is open
(or after a kill, until the next open recovers them); WAL needs a local file
system, not NFS.

Readers (``create=False``) open the file read-only, so a file that is not an
archsim database (a 0-byte file, another program's SQLite database) is reported
and left byte-identical, and a read-only database can be read. The schema's
version is SQLite's ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`), set when
the store is created and checked on every open. A write that fails because the
disk is full (or the file is read-only) is one :class:`~archsim.errors.OutputError`;
the points committed before it are kept.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ... import __version__
from ...errors import ConfigError, OutputError

__all__ = ["PointResult", "PointRecord", "ResultStore", "STATUSES", "SCHEMA_VERSION"]

STATUSES = ("done", "failed")
#: The layout of the tables below, stored as ``PRAGMA user_version``. Databases written
#: before the version was recorded there have ``user_version`` 0 and ``meta.schema_version``
#: ``'1'``: the same layout, read as version 1.
SCHEMA_VERSION = 1
_SCHEMA_VERSION = str(SCHEMA_VERSION)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweeps (
    name TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    spec TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS points (
    key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    model TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    archsim_version TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    objectives TEXT,
    error TEXT,
    traceback TEXT,
    duration_s REAL NOT NULL,
    worker TEXT NOT NULL,
    finished_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS points_sweep ON points (sweep, status);
"""


@dataclass(frozen=True)
class PointResult:
    """What a worker returns for one point (objectives when done, the error when failed)."""

    key: str
    status: str
    objectives: dict[str, float] | None = None
    error: str | None = None
    traceback: str | None = None
    duration_s: float = 0.0
    worker: str = ""


@dataclass(frozen=True)
class PointRecord:
    """One stored row."""

    key: str
    sweep: str
    model: str
    params: dict[str, Any]
    seed: int
    archsim_version: str
    status: str
    objectives: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    traceback: str | None = None
    duration_s: float = 0.0
    worker: str = ""
    finished_at: str = ""

    def row(self) -> dict[str, Any]:
        """A flat row: identity, parameters, objectives, then bookkeeping."""
        out: dict[str, Any] = {"key": self.key, "sweep": self.sweep, "model": self.model,
                               "status": self.status, "seed": self.seed}
        out.update(self.params)
        out.update(self.objectives)
        out.update({"error": self.error, "duration_s": self.duration_s, "worker": self.worker,
                    "finished_at": self.finished_at, "archsim_version": self.archsim_version})
        return out


class ResultStore:
    """An SQLite results database (created when missing).

    Parameters
    ----------
    path
        The database file.
    create
        Create the file when it does not exist; when false a missing file is a
        :class:`ConfigError` (for the read-only ``results`` commands).
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.read_only = not create
        if self.path.is_dir():
            raise ConfigError("is a directory, not a results database", file=str(self.path))
        if not create and not self.path.is_file():
            raise ConfigError("results database not found", file=str(self.path))
        try:
            if create:
                self._db = self._open_for_writing()
            else:
                self._db = self._open_read_only()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"not an archsim results database: {exc}",
                              file=str(self.path)) from None

    def _open_read_only(self) -> sqlite3.Connection:
        # A read-only connection to a WAL database creates the -wal/-shm side files and,
        # unlike a writer, cannot remove them when it closes; remember whether they were
        # there so close() can tidy up after this reader alone.
        self._side_files_before = {s: Path(f"{self.path}{s}").exists() for s in ("-wal", "-shm")}
        uri = f"file:{_uri_path(self.path)}?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=30.0)
        try:
            self._check_schema(db, empty_ok=False)
        except BaseException:
            db.close()
            self._tidy_side_files()
            raise
        return db

    def _open_for_writing(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30.0)
        try:
            # Check before writing anything: another program's database stays untouched.
            fresh = self._check_schema(db, empty_ok=True)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if fresh:
                with db:
                    db.executescript(_SCHEMA)
                    db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                               (_SCHEMA_VERSION,))
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.OperationalError as exc:
            db.close()
            error = _write_error(exc, self.path)
            if error is None:
                raise
            raise error from None
        except BaseException:
            db.close()
            raise
        return db

    def _check_schema(self, db: sqlite3.Connection, *, empty_ok: bool) -> bool:
        """Raise unless ``db`` is an archsim results database of a version this code reads;
        return True when it holds no table at all (and ``empty_ok``: a new store)."""
        tables = {name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and empty_ok:
            return True
        if "points" not in tables:
            what = "an empty file" if not tables else f"tables: {', '.join(sorted(tables))}"
            raise ConfigError(f"not an archsim results database (no table 'points'; {what})",
                              file=str(self.path))
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version == 0 and "meta" in tables:  # written before user_version was set
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row and str(row[0]).isdigit() else 0
        if version != SCHEMA_VERSION:
            newer = "a newer" if version > SCHEMA_VERSION else "an older"
            raise ConfigError(f"results database schema version {version}, written by "
                              f"{newer} archsim; this archsim reads version {SCHEMA_VERSION}",
                              file=str(self.path))
        return False

    def _tidy_side_files(self) -> None:
        before = getattr(self, "_side_files_before", None)
        if before is None or any(before.values()):
            return  # a writer has the database open: its side files are not ours
        wal = Path(f"{self.path}-wal")
        if not wal.exists() or wal.stat().st_size:
            return
        # A writable connection closing last removes the empty side files (it has nothing
        # to checkpoint, so the database file is not written).
        try:
            tidy = sqlite3.connect(self.path, timeout=0.1)
            try:
                tidy.execute("SELECT 1 FROM sqlite_master").fetchall()
            finally:
                tidy.close()
        except sqlite3.Error:
            pass  # read-only file or folder: the side files stay, as with any reader

    # -- writing -------------------------------------------------------------------------
    def record_sweep(self, name: str, model: str, spec: Mapping[str, Any]) -> None:
        """Remember the spec a sweep ran with (the last one wins)."""
        with self._db:
            self._db.execute(
                "INSERT INTO sweeps VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                "model = excluded.model, spec = excluded.spec, updated_at = excluded.updated_at",
                (name, model, json.dumps(spec, sort_keys=True, default=str), _now()))

    def write(
        self,
        results: Sequence[PointResult],
        *,
        sweep: str,
        model: str,
        points: Mapping[str, tuple[dict[str, Any], int]],
    ) -> int:
        """Store ``results`` in one transaction; return how many rows were written.

        ``points`` maps each key to its ``(params, seed)``. A row already ``done``
        is kept as it is (a point computed twice, e.g. after a worker died just
        after finishing, is stored once).
        """
        now = _now()
        rows = []
        for r in results:
            if r.status not in STATUSES:
                raise ValueError(f"status must be one of {STATUSES}, not {r.status!r}")
            params, seed = points[r.key]
            rows.append((
                r.key, sweep, model, json.dumps(params, sort_keys=True), seed, __version__,
                r.status, None if r.objectives is None else json.dumps(r.objectives),
                r.error, r.traceback, float(r.duration_s), r.worker, now,
            ))
        try:
            return self._insert(rows)
        except sqlite3.OperationalError as exc:
            error = _write_error(exc, self.path)
            if error is None:
                raise
            raise error from None

    def _insert(self, rows: list[tuple[Any, ...]]) -> int:
        with self._db:
            before = self._db.total_changes
            self._db.executemany(
                "INSERT INTO points VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET sweep = excluded.sweep, status = excluded.status, "
                "objectives = excluded.objectives, error = excluded.error, "
                "traceback = excluded.traceback, duration_s = excluded.duration_s, "
                "worker = excluded.worker, finished_at = excluded.finished_at "
                "WHERE points.status != 'done'",
                rows)
            return self._db.total_changes - before

    # -- reading -------------------------------------------------------------------------
    def statuses(self, keys: Iterable[str] | None = None) -> dict[str, str]:
        """Status of each stored key (restricted to ``keys`` when given)."""
        rows = self._db.execute("SELECT key, status FROM points").fetchall()
        if keys is None:
            return dict(rows)
        wanted = set(keys)
        return {k: s for k, s in rows if k in wanted}

    def records(self, *, status: str | None = None, sweep: str | None = None,
                model: str | None = None) -> list[PointRecord]:
        """Stored rows, optionally of one status, sweep and/or model, in insertion order."""
        if status is not None and status not in STATUSES:
            raise ConfigError(f"unknown status '{status}'", field="status", allowed=STATUSES)
        clauses, args = [], []
        for column, value in (("status", status), ("sweep", sweep), ("model", model)):
            if value is not None:
                clauses.append(f"{column} = ?")
                args.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        cursor = self._db.execute(
            "SELECT key, sweep, model, params, seed, archsim_version, status, objectives, error, "
            f"traceback, duration_s, worker, finished_at FROM points{where} ORDER BY rowid", args)
        return [
            PointRecord(key=k, sweep=sw, model=m, params=json.loads(p), seed=sd,
                        archsim_version=v, status=st,
                        objectives=_floats(json.loads(o)) if o else {}, error=e, traceback=tb,
                        duration_s=d, worker=w, finished_at=f)
            for k, sw, m, p, sd, v, st, o, e, tb, d, w, f in cursor
        ]

    def counts(self, *, sweep: str | None = None) -> dict[str, int]:
        """Number of rows per status."""
        query = "SELECT status, COUNT(*) FROM points"
        args: tuple[str, ...] = ()
        if sweep is not None:
            query += " WHERE sweep = ?"
            args = (sweep,)
        found = dict(self._db.execute(query + " GROUP BY status", args).fetchall())
        return {s: found.get(s, 0) for s in STATUSES}

    def sweeps(self) -> dict[str, dict[str, Any]]:
        """The specs of the sweeps recorded in this database, by name."""
        return {name: json.loads(spec)
                for name, spec in self._db.execute("SELECT name, spec FROM sweeps")}

    def close(self) -> None:
        self._db.close()
        if self.read_only:
            self._tidy_side_files()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _uri_path(path: Path) -> str:
    """``path`` for an SQLite ``file:`` URI (``?`` and ``#`` would end the path)."""
    from urllib.parse import quote

    return quote(os.fspath(path.absolute()), safe="/")


def _write_error(exc: sqlite3.OperationalError, path: Path) -> OutputError | None:
    """The one-line error of a write SQLite refused for lack of space or permission."""
    text = str(exc).lower()
    if "disk is full" in text or "database or disk is full" in text:
        reason = "disk full (the points stored before are kept)"
    elif "readonly" in text or "read-only" in text:
        reason = "the database is read-only"
    elif "unable to open" in text:
        reason = "unable to open the database file"
    else:
        return None
    return OutputError(str(path), reason)


def _floats(values: Mapping[str, Any]) -> dict[str, float]:
    return {k: (math.nan if v is None else float(v)) for k, v in values.items()}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
