"""Dask worker preload of a sweep's LocalCluster: the worker process ignores SIGINT.

Ctrl-C in a terminal sends SIGINT to every process of the foreground process group, the
LocalCluster's worker processes included; each would print a ``KeyboardInterrupt``
traceback. With this preload (Dask runs ``dask_setup`` in the worker process when the worker
starts, on its event loop in the main thread, where signal handlers can be set) only the
client is interrupted, and it shuts the workers down.
"""

from __future__ import annotations

import signal
from typing import Any

__all__ = ["dask_setup"]


def dask_setup(worker: Any) -> None:
    """Ignore SIGINT in this worker process (``worker`` is Dask's, unused)."""
    del worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
