"""Cached, atomic, file-locked build folders: the one build-cache protocol of the RTL runners.

An entry lives in ``cache_dir(kind) / <key>``, ``key`` being a content hash the caller computes
over everything the build depends on. It is built in a temporary folder beside the entry and
renamed into place under a per-entry :class:`filelock.FileLock`, so a reader never sees half a
build and two processes building the same entry build it once.

An entry is complete when its marker file (JSON) records the size and SHA-256 of each
artefact a run reads (the executable, and whatever else the caller names) and each still has
them. A lookup checks them: a truncated or altered executable (a full disk, a killed copy, a
user's editor) is reported by a :class:`CorruptCacheWarning` (``archsim: cache entry <key>
was corrupt (top: size 0, expected N); rebuilding``) and rebuilt, never run. A marker from
before the hashes were recorded is a miss (rebuilt once, silently).

Only the artefacts are hashed, not the whole folder: measured on these machines (2026-12,
2 shared cores), SHA-256 of a 0.34 MB Verilator executable takes 0.2 ms and of a 1.9 MB one
(a large HLS design) 5 ms, ~670 MB/s; the same large entry's whole folder is 173 MB (two
precompiled headers of 78 MB each) and took 330 ms, a cost every run would pay.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...cache import cache_dir
from ...errors import ArchsimWarning

__all__ = ["CachedBuild", "CorruptCacheWarning", "cached_build", "is_cached", "verify_entry",
           "MARKER"]

#: The file that marks a complete entry (it holds the build's facts and, under
#: ``"artefacts"``, every file's ``{"size": bytes, "sha256": hex}`` as JSON).
MARKER = "archsim-build.json"
_ARTEFACTS = "artefacts"


class CorruptCacheWarning(ArchsimWarning):
    """A cache entry's files no longer match its marker; the entry is being rebuilt."""


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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _record(folder: Path, artefacts: Sequence[str]) -> dict[str, dict[str, int | str]]:
    """Size and SHA-256 of each of ``artefacts`` (paths relative to ``folder``)."""
    out: dict[str, dict[str, int | str]] = {}
    for rel in artefacts:
        p = folder / rel
        if not p.is_file():
            raise FileNotFoundError(f"the build did not produce '{rel}' in {folder}")
        out[rel] = {"size": p.stat().st_size, "sha256": _sha256(p)}
    return out


def verify_entry(entry: Path, product: str) -> tuple[str, str]:
    """Check the entry ``entry`` against its marker, reading every recorded file.

    Returns
    -------
    (state, detail) : tuple of str
        ``("ok", "")``; ``("missing", why)`` for no entry, no marker or a marker without
        artefact hashes (an older archsim's: rebuilt without a warning); ``("corrupt",
        what)`` naming the first file that differs, e.g. ``"top: size 0, expected 348552"``.
    """
    marker = entry / MARKER
    if not marker.is_file():
        return "missing", "no marker"
    try:
        facts = json.loads(marker.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return "corrupt", f"{MARKER} is unreadable ({type(exc).__name__})"
    recorded = facts.get(_ARTEFACTS) if isinstance(facts, dict) else None
    if recorded is None:
        return "missing", "marker without artefact hashes (older archsim)"
    if not isinstance(recorded, dict) or product not in recorded:
        return "corrupt", f"{MARKER} does not list the product '{product}'"
    for rel, want in recorded.items():
        path = entry / rel
        if not path.is_file():
            return "corrupt", f"{rel}: missing"
        size = path.stat().st_size
        if size != want.get("size"):
            return "corrupt", f"{rel}: size {size}, expected {want.get('size')}"
        digest = _sha256(path)
        if digest != want.get("sha256"):
            return "corrupt", (f"{rel}: SHA-256 {digest[:12]}..., expected "
                               f"{str(want.get('sha256'))[:12]}...")
    return "ok", ""


def is_cached(kind: str, key: str, product: str) -> bool:
    """Whether the entry ``key`` of ``kind`` is complete and intact (no lock taken, nothing
    built; every recorded file is hashed)."""
    return verify_entry(cache_dir(kind) / key, product)[0] == "ok"


def cached_build(*, kind: str, key: str, product: str, build: Callable[[Path], None],
                 facts: Mapping[str, object] | None = None,
                 before_build: Callable[[], None] | None = None,
                 artefacts: Sequence[str] = ()) -> CachedBuild:
    """Return the complete entry ``key`` of ``kind``, building it with ``build`` if needed.

    Parameters
    ----------
    kind : str
        The cache folder (``archsim.cache.cache_dir(kind)``).
    key : str
        The entry's content hash.
    product : str
        Path, relative to the entry, of the file a complete build has (its executable);
        always one of the artefacts whose size and SHA-256 the marker records.
    build : callable
        ``build(folder)`` builds into an empty temporary folder; an exception leaves nothing
        in the cache and propagates.
    facts : dict, optional
        Written into the marker file with the build time (for people inspecting the cache).
    artefacts : sequence of str, optional
        Further files (relative to the entry) a run reads, recorded and verified like
        ``product``.

    Warns
    -----
    CorruptCacheWarning
        When an existing entry's artefacts no longer match its marker; it is rebuilt.
    before_build : callable, optional
        Called only when a build is needed, before the lock is taken (e.g. to find the
        compiler, which a cache hit does not need).
    """
    from filelock import FileLock

    root = cache_dir(kind)
    entry = root / key
    if verify_entry(entry, product)[0] == "ok":
        return CachedBuild(entry, 0.0, True)
    if before_build is not None:
        before_build()
    with FileLock(str(root / f"{key}.lock")):
        # Checked again under the lock: another process may have (re)built it while we
        # waited, and only the lock holder's verdict is worth a warning.
        state, detail = verify_entry(entry, product)
        if state == "ok":
            return CachedBuild(entry, 0.0, True)
        if state == "corrupt":
            warnings.warn(f"cache entry {key} was corrupt ({detail}); rebuilding",
                          CorruptCacheWarning, stacklevel=2)
        # Temporary folders of this key can only be left over from a killed build: a live
        # one belongs to the lock holder, which is now us.
        for stale in [*root.glob(f".{key}.tmp-*"), *root.glob(f".{key}.old-*")]:
            shutil.rmtree(stale, ignore_errors=True)
        start = time.perf_counter()
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{key}.tmp-"))
        try:
            build(tmp)
            # Hashes are taken of the finished build in its temporary folder, so the marker
            # describes exactly what is renamed into place.
            (tmp / MARKER).write_text(json.dumps(
                {**(facts or {}), "build_time_s": time.perf_counter() - start,
                 _ARTEFACTS: _record(tmp, [product, *artefacts])}))
            if entry.exists():
                # A corrupt or older entry: moved aside, not deleted in place, so the entry's
                # name only ever points at a whole build (a rename is atomic).
                old = Path(tempfile.mkdtemp(dir=root, prefix=f".{key}.old-"))
                os.rename(entry, old / "entry")
                os.rename(tmp, entry)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, entry)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return CachedBuild(entry, time.perf_counter() - start, False)
