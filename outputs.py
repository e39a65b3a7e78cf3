"""Writing results to disk without ever leaving a partial file behind.

Every writer goes through a temporary file in the destination folder followed
by an atomic rename, so an interrupted run leaves either the old file or the
new one, never half of one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported on use
    from matplotlib.figure import Figure

__all__ = ["atomic_path", "atomic_write_bytes", "atomic_write_text", "write_json", "write_csv",
           "save_figure", "to_jsonable", "JSONValue"]


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path next to ``path`` for a writer that opens the file itself.

    On a normal exit the file is renamed onto ``path`` with the permissions a plain
    ``open()`` would give it; on an exception it is removed.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        # mkstemp creates 0600 files; give the result the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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


def write_csv(
    path: str | os.PathLike[str],
    rows: Iterable[Mapping[str, Any]],
    *,
    columns: Sequence[str] | None = None,
) -> Path:
    """Write a list of mappings as CSV atomically; columns default to the first row's keys."""
    rows = [{str(k): to_jsonable(v) for k, v in r.items()} for r in rows]
    if columns is None:
        columns = []
        for r in rows:
            for k in r:
                if k not in columns:
                    columns.append(k)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
    writer.writeheader()
    for r in rows:
        writer.writerow(r)
    return atomic_write_text(path, buf.getvalue())


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: int = 120) -> Path:
    """Save a matplotlib figure as PNG atomically and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())
