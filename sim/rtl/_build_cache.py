"""Cached, atomic, file-locked build folders: the one build-cache protocol of the RTL runners.

An entry lives in ``cache_dir(kind) / <key>``, ``key`` being a content hash the caller computes
over everything the build depends on. It is built in a temporary folder beside the entry and
renamed into place under a per-entry :class:`filelock.FileLock`, so a reader never sees half a
build and two processes building the same entry build it once. An entry is complete when its
marker file and its product (the executable) exist.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ...cache import cache_dir

__all__ = ["CachedBuild", "cached_build", "is_cached", "MARKER"]

#: The file that marks a complete entry (it holds the build's facts as JSON).
MARKER = "archsim-build.json"


@dataclass(frozen=True)
class CachedBuild:
    """A cache entry returned by :func:`cached_build`.

    Attributes
    ----------
    path : Path
        The entry's folder.
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    cached : bool
        True when the entry was already complete.
    """

    path: Path
    build_time_s: float
    cached: bool


def _is_complete(entry: Path, product: str) -> bool:
    return (entry / MARKER).is_file() and (entry / product).is_file()


def is_cached(kind: str, key: str, product: str) -> bool:
    """Whether the entry ``key`` of ``kind`` is complete (no lock taken, nothing built)."""
    return _is_complete(cache_dir(kind) / key, product)


def cached_build(*, kind: str, key: str, product: str, build: Callable[[Path], None],
                 facts: Mapping[str, object] | None = None,
                 before_build: Callable[[], None] | None = None) -> CachedBuild:
    """Return the complete entry ``key`` of ``kind``, building it with ``build`` if needed.

    Parameters
    ----------
    kind : str
        The cache folder (``archsim.cache.cache_dir(kind)``).
    key : str
        The entry's content hash.
    product : str
        Path, relative to the entry, of the file a complete build has (its executable).
    build : callable
        ``build(folder)`` builds into an empty temporary folder; an exception leaves nothing
        in the cache and propagates.
    facts : dict, optional
        Written into the marker file with the build time (for people inspecting the cache).
    before_build : callable, optional
        Called only when a build is needed, before the lock is taken (e.g. to find the
        compiler, which a cache hit does not need).
    """
    from filelock import FileLock

    root = cache_dir(kind)
    entry = root / key
    if _is_complete(entry, product):
        return CachedBuild(entry, 0.0, True)
    if before_build is not None:
        before_build()
    with FileLock(str(root / f"{key}.lock")):
        if _is_complete(entry, product):  # another process built it while we waited
            return CachedBuild(entry, 0.0, True)
        # Temporary folders of this key can only be left over from a killed build: a live
        # one belongs to the lock holder, which is now us.
        for stale in root.glob(f".{key}.tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
        start = time.perf_counter()
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{key}.tmp-"))
        try:
            build(tmp)
            (tmp / MARKER).write_text(json.dumps(
                {**(facts or {}), "build_time_s": time.perf_counter() - start}))
            if entry.exists():  # an incomplete entry from an older, interrupted layout
                shutil.rmtree(entry)
            os.rename(tmp, entry)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return CachedBuild(entry, time.perf_counter() - start, False)
