"""Writing results to disk without ever leaving a partial file behind.

Every writer goes through a temporary file in the destination folder followed
by an atomic rename, so an interrupted run leaves either the old file or the
new one, never half of one. A command that writes several files puts them in
a temporary sibling folder first (:func:`atomic_dir`) and moves them into place
only when all of them are written.

A command checks where it will write before doing any work
(:func:`check_output_dir`, :func:`check_output_file`: a :class:`ConfigError`
naming the option), and an operating-system error while writing (disk full, no
permission, read-only file system) reaches the user as one
:class:`~archsim.errors.OutputError` line naming the path, never as a traceback.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, OutputError

if TYPE_CHECKING:  # matplotlib is imported on use
    from matplotlib.figure import Figure

__all__ = ["check_output_dir", "check_output_file", "atomic_dir", "os_error_reason",
           "atomic_path", "atomic_write_bytes", "atomic_write_text", "write_json", "write_csv",
           "save_figure", "figure_png", "FigureRenderer", "RenderJob", "to_jsonable", "JSONValue"]


#: Errors that mean the storage itself refused (whichever file was being written).
_STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})
#: Errors that mean a path cannot be written; translated when they name the output's path.
_PATH_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR,
                          errno.EEXIST, errno.ENAMETOOLONG, errno.ENOTEMPTY})
_REASONS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large for the file system",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "is a folder, not a file",
    errno.EEXIST: "already exists",
    errno.ENAMETOOLONG: "name too long",
    errno.ENOTEMPTY: "folder not empty",
}


def os_error_reason(exc: OSError) -> str:
    """The reason of an ``OSError`` in words (``"disk full"``, ``"permission denied"``...)."""
    if exc.errno in _REASONS:
        return _REASONS[exc.errno]
    return exc.strerror or str(exc)


def _inside(name: object, roots: Sequence[Path]) -> bool:
    if not isinstance(name, (str, bytes, os.PathLike)):
        return False
    path = Path(os.fsdecode(name)).absolute()
    return any(path == root or root in path.parents for root in roots)


def _as_output_error(exc: OSError, shown: Path, roots: Sequence[Path]) -> OutputError | None:
    """The :class:`OutputError` for ``exc`` if it is a failure to write under ``roots``.

    Storage errors (disk full, read-only file system) always are; permission and
    path-shape errors only when they name a path under ``roots``, so an unrelated
    ``OSError`` (a bug, a missing input) is not disguised as an output problem.
    """
    if exc.errno in _STORAGE_ERRNOS or (
            exc.errno in _PATH_ERRNOS
            and (_inside(exc.filename, roots) or _inside(exc.filename2, roots))):
        return OutputError(str(shown), os_error_reason(exc), errno=exc.errno)
    return None


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path(path.anchor or ".")  # pragma: no cover - the root always exists


def _check_parent_writable(path: Path, *, field: str, shown: Path) -> None:
    """The nearest existing ancestor of ``path`` is a folder this process may write in."""
    ancestor = _existing_ancestor(path)
    if not ancestor.is_dir():
        raise ConfigError(f"cannot write {shown}: {ancestor} is a file, not a folder",
                          field=field)
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write {shown}: no write permission in folder {ancestor}",
                          field=field)


def check_output_dir(path: str | os.PathLike[str], *, field: str) -> Path:
    """Check, without creating anything, that ``path`` can become an output folder.

    It may exist (as a folder this process can write in) or not (then the nearest
    existing ancestor must be a writable folder). Returns ``path`` as a :class:`Path`;
    anything else raises :class:`ConfigError` naming ``field`` (the command's option)
    and what is wrong. Call it before any work, so a bad ``-o`` costs nothing.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"cannot write to {path}: it is a file, not a folder", field=field)
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise ConfigError(f"cannot write to {path}: no write permission in this folder",
                              field=field)
        return path
    _check_parent_writable(path.parent, field=field, shown=path)
    return path


def check_output_file(path: str | os.PathLike[str], *, field: str) -> Path:
    """Check, without creating anything, that ``path`` can be written as a file.

    An existing folder of that name, a file where a folder of the path should be, or a
    folder without write permission (the file is replaced by a rename, so the folder's
    permission is what counts) raise :class:`ConfigError` naming ``field``.
    """
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"cannot write {path}: it is a folder, not a file", field=field)
    _check_parent_writable(path.parent, field=field, shown=path)
    return path


def _created_parents(path: Path) -> list[Path]:
    """The missing ancestors of ``path`` (outermost first), which ``mkdir`` would create."""
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(parent)
    return missing[::-1]


def _default_mode(mode: int) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary folder that becomes ``path`` when the block ends without an error.

    The files are written into ``.<name>.tmp-XXXX`` next to ``path``. On success:

    - if ``path`` does not exist, the temporary folder is renamed to it (one rename:
      the folder appears complete or not at all);
    - if ``path`` is an existing folder, each produced file is moved over the file of
      the same name with :func:`os.replace` (sub-folders are created as needed) and the
      temporary folder is removed. Files of ``path`` the run did not produce are kept;
      each replaced file is swapped atomically, but the set of them is not (a crash
      during these renames, which take microseconds, can leave some old files next to
      new ones).

    On an error (or Ctrl-C) the temporary folder and any parent folders created for it
    are removed and ``path`` is left as it was. An ``OSError`` of writing (disk full,
    permission, read-only file system) becomes :class:`~archsim.errors.OutputError`.
    """
    target = Path(path)
    parent = target.absolute().parent
    created = _created_parents(target.absolute())
    tmp: Path | None = None
    try:
        try:
            parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}.tmp-"))
            yield tmp
            os.chmod(tmp, _default_mode(0o777))  # mkdtemp makes it 0700
            if not target.exists():
                os.rename(tmp, target)
                tmp = None
            else:
                for src in sorted(tmp.rglob("*")):
                    dest = target / src.relative_to(tmp)
                    if src.is_dir():
                        dest.mkdir(exist_ok=True)
                    else:
                        os.replace(src, dest)
        except OutputError as exc:
            # A writer inside the block names its file in the temporary folder; name the
            # file the user asked for instead.
            if tmp is None or not _inside(exc.path, [tmp]):
                raise
            shown = target / Path(exc.path).absolute().relative_to(tmp)
            raise OutputError(str(shown), exc.reason, errno=exc.errno) from exc
        except OSError as exc:
            roots = [target.absolute(), parent] + ([tmp] if tmp is not None else [])
            error = _as_output_error(exc, target, roots)
            if error is None:
                raise
            raise error from exc
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for folder in reversed(created):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    finally:
        if tmp is not None and tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path next to ``path`` for a writer that opens the file itself.

    On a normal exit the file is renamed onto ``path`` with the permissions a plain
    ``open()`` would give it; on an exception it is removed. An ``OSError`` of writing
    (disk full, permission, read-only file system, a file where a folder should be)
    becomes :class:`~archsim.errors.OutputError` naming ``path``.
    """
    path = Path(path)
    roots = [path.absolute(), path.absolute().parent]
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        tmp = Path(name)
        yield tmp
        # mkstemp creates 0600 files; give the result the mode a plain open() would.
        os.chmod(tmp, _default_mode(0o666))
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        error = _as_output_error(exc, path, roots)
        if error is None:
            raise
        raise error from exc
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file + rename)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


#: What :func:`to_jsonable` makes of the types it knows.
JSONValue = None | bool | int | float | str | list["JSONValue"] | dict[str, "JSONValue"]


def to_jsonable(obj: object) -> JSONValue | object:
    """Convert dataclasses, numpy scalars/arrays, paths and enums to JSON types.

    Mappings, sequences and sets are converted item by item; an object of any other type
    is returned as it is (``json`` then rejects it, ``csv`` writes its ``str``).
    """
    import enum

    import numpy as np

    if is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(asdict(obj))
    model_dump = getattr(obj, "model_dump", None)
    if callable(model_dump):  # pydantic models
        return to_jsonable(model_dump())
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, float) and obj != obj:  # NaN is not JSON
        return None
    return obj


def write_json(path: str | os.PathLike[str], obj: object) -> Path:
    """Write ``obj`` as indented JSON atomically."""
    return atomic_write_text(path, json.dumps(to_jsonable(obj), indent=2, sort_keys=False) + "\n")


#: Cell types :func:`write_csv` writes as they are.
_PLAIN_CELL = frozenset({str, int, float, bool, type(None)})


def write_csv(
    path: str | os.PathLike[str],
    rows: Iterable[Mapping[str, Any]],
    *,
    columns: Sequence[str] | None = None,
) -> Path:
    """Write a list of mappings as CSV atomically; columns default to the first row's keys."""
    # A cell of a plain type is what to_jsonable would return unchanged (NaN excepted, which
    # becomes an empty cell), so only the other cells go through it: an SoC run's timeline
    # has ~60k cells, nearly all plain.
    rows = [{k if type(k) is str else str(k):
             v if type(v) in _PLAIN_CELL and v == v else to_jsonable(v)
             for k, v in r.items()} for r in rows]
    if columns is None:
        columns = []
        seen: set[str] = set()
        for r in rows:
            for k in r:
                if k not in seen:
                    seen.add(k)
                    columns.append(k)
    fields = list(columns)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(fields)
    # as csv.DictWriter(extrasaction="ignore") writes them: a missing key is an empty cell
    writer.writerows([r.get(k, "") for k in fields] for r in rows)
    return atomic_write_text(path, buf.getvalue())


def figure_png(fig: Figure, *, dpi: int = 120, bbox_inches: Any = "tight") -> bytes:
    """``fig`` rendered as PNG bytes by the Agg canvas, without importing pyplot (a figure
    that pyplot made is rendered through its own canvas and closed, so pyplot lets go of it).
    """
    buf = io.BytesIO()
    if getattr(fig.canvas, "manager", None) is not None:
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches=bbox_inches)
        import matplotlib.pyplot as plt  # already imported: pyplot made this figure

        plt.close(fig)
    else:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig).print_figure(buf, format="png", dpi=dpi, bbox_inches=bbox_inches)
    return buf.getvalue()


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: int = 120) -> Path:
    """Save a matplotlib figure as PNG atomically; close it if pyplot made it.

    A figure built directly (``matplotlib.figure.Figure``) is rendered by the Agg
    canvas without importing pyplot (whose import costs more than most plots); see
    :func:`figure_png`.
    """
    return atomic_write_bytes(path, figure_png(fig, dpi=dpi))


def _start_renderer() -> None:
    # Ctrl-C reaches the whole process group: the parent reports it once, in one line.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import matplotlib.backends.backend_agg  # noqa: F401  (the import is the point)
    import matplotlib.figure  # noqa: F401


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: A rendering job: a function returning PNG bytes, and its positional arguments.
RenderJob = tuple[Callable[..., bytes], tuple[Any, ...]]


def _render_all(jobs: Sequence[RenderJob], parallel: bool) -> list[bytes]:
    """Run ``jobs`` here, all but the first in processes forked from this one (which has
    matplotlib imported already, so no child imports it again)."""
    if not parallel or len(jobs) < 2:
        return [fn(*args) for fn, args in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=len(jobs) - 1,
                             mp_context=multiprocessing.get_context("fork")) as pool:
        rest = [pool.submit(fn, *args) for fn, args in jobs[1:]]
        fn, args = jobs[0]
        return [fn(*args)] + [future.result() for future in rest]


class FigureRenderer:
    """Render figures in a worker process that imports matplotlib while the caller works.

    Importing matplotlib and drawing take longer than a small simulation does. A command that
    writes plots starts the renderer before it simulates: its worker imports matplotlib
    meanwhile, then renders a batch of figures side by side (the worker forks one process
    per further figure, each sharing the import). Rendering functions return PNG bytes and
    the caller writes them, so every file is written, and every writing error reported, by
    the caller's own atomic writers.

    Where ``fork`` is unavailable, or only one CPU is usable, or ``parallel=False``, the
    figures render in the caller's process, one after the other, when submitted. Use as a
    context manager: leaving it waits for the worker, or cancels what has not started if
    the block raised.

    Parameters
    ----------
    parallel : bool
        Whether to render in a worker process at all.
    """

    def __init__(self, *, parallel: bool = True) -> None:
        if not isinstance(parallel, bool):
            raise TypeError(f"parallel must be a bool, not {parallel!r}")
        self._executor: Executor | None = None
        if parallel and _usable_cpus() > 1 and "fork" in _start_methods():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("fork"),
                initializer=_start_renderer)
            # the first submit forks the worker, which then imports matplotlib at once
            self._executor.submit(os.getpid)

    @property
    def parallel(self) -> bool:
        """Whether figures render in a worker process."""
        return self._executor is not None

    def render(self, jobs: Sequence[RenderJob]) -> Future[list[bytes]]:
        """Start ``fn(*args)`` for each ``(fn, args)`` of ``jobs`` (each returns PNG bytes);
        the future holds the bytes in the order of ``jobs`` (or raises the first error)."""
        jobs = list(jobs)
        if self._executor is not None:
            return self._executor.submit(_render_all, jobs, True)
        future: Future[list[bytes]] = Future()
        try:
            future.set_result(_render_all(jobs, False))
        except Exception as exc:  # re-raised by future.result(), as the worker's would be
            future.set_exception(exc)
        return future

    def close(self, *, cancel: bool = False) -> None:
        """Stop the worker (waiting for a running batch; ``cancel`` drops queued ones)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=cancel)
            self._executor = None

    def __enter__(self) -> FigureRenderer:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.close(cancel=exc_type is not None)


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()
