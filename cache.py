"""Where archsim caches builds (Verilator, synthesis), shared by all processes.

The root is ``$ARCHSIM_CACHE`` when set, else ``$XDG_CACHE_HOME/archsim``, else
``~/.cache/archsim``. Entries are keyed by a content hash; writers hold a
:class:`filelock.FileLock` per entry so two processes building the same design
at once never corrupt it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["cache_root", "cache_dir", "content_hash"]


def cache_root() -> Path:
    """Return the cache root folder (created if missing)."""
    env = os.environ.get("ARCHSIM_CACHE")
    if env:
        root = Path(env).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = (Path(xdg) if xdg else Path.home() / ".cache") / "archsim"
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_dir(kind: str) -> Path:
    """Return (and create) the cache folder for one kind of entry, e.g. ``"verilator"``."""
    path = cache_root() / kind
    path.mkdir(parents=True, exist_ok=True)
    return path


def content_hash(*parts: str | bytes) -> str:
    """A stable SHA-256 hex digest (first 24 characters) of the given parts."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:24]
