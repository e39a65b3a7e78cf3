"""Admission schedulers: which queued requests join the running batch.

A scheduler sees the waiting queue, each request's size in the memory
manager's units and the free room, and picks the requests to admit. One class
per policy: :class:`FCFSScheduler` (head of line first, stop at the first that
does not fit) and :class:`DFFScheduler` (decreasing first fit over a window of
the queue, S3's packing).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from itertools import islice

import numpy as np

__all__ = ["SizesOf", "Scheduler", "FCFSScheduler", "DFFScheduler"]

#: Queued requests FCFS looks at before the whole window.
_FCFS_HEAD = 8

#: Sizes of requests (by id) in the memory manager's allocation units.
SizesOf = Callable[[np.ndarray], np.ndarray]


class Scheduler(ABC):
    """Picks the queued requests to admit at an iteration boundary."""

    name: str = ""

    @abstractmethod
    def admit(self, queue: deque[int], sizes_of: SizesOf, free: float, slots: int,
              window: int) -> np.ndarray:
        """Remove the admitted requests from ``queue`` and return their ids in admission order.

        Parameters
        ----------
        queue
            Waiting request ids, the next to serve first.
        sizes_of
            Each request's size in the memory manager's units.
        free
            Room the memory manager can give, in those units.
        slots
            Sequences the batch can still take.
        window
            How many queued requests to consider.
        """

    @abstractmethod
    def arrival_candidates(self, arrivals: np.ndarray, queue_empty: bool) -> np.ndarray:
        """Of requests arriving during a run of decode steps, those this scheduler could admit.

        The engine stops the run at the first one that fits, so an arrival that
        could be admitted is not kept waiting for the run to end. The engine prices
        a run in chunks and asks about the arrivals before each chunk's end, so the
        candidates of a prefix of ``arrivals`` must be a prefix of the candidates of
        ``arrivals`` (both schedulers here satisfy this).
        """


class FCFSScheduler(Scheduler):
    """First come, first served: admit from the head while each next request fits."""

    name = "fcfs"

    def admit(self, queue: deque[int], sizes_of: SizesOf, free: float, slots: int,
              window: int) -> np.ndarray:
        m = min(window, slots)
        if m >= 1 and queue and (m == 1 or len(queue) == 1):  # one candidate: fits or not
            ids = np.array([queue[0]], dtype=np.int64)
            if sizes_of(ids)[0] > free:
                return ids[:0]
            queue.popleft()
            return ids
        # the head first: usually memory is full after a few (np.cumsum adds left to right,
        # so the head's cumulative sizes are the window's first ones exactly)
        ids = np.fromiter(islice(queue, min(m, _FCFS_HEAD)), dtype=np.int64)
        if ids.size == 0:
            return ids
        c = int(sizes_of(ids).cumsum().searchsorted(free, side="right"))
        # all of the head fits: consider the whole window (unless the head was the whole
        # queue, the usual case under light load: the window would be the same ids)
        if c == ids.size and m > ids.size and len(queue) > ids.size:
            ids = np.fromiter(islice(queue, m), dtype=np.int64)
            c = int(sizes_of(ids).cumsum().searchsorted(free, side="right"))
        for _ in range(c):
            queue.popleft()
        return ids[:c]

    def arrival_candidates(self, arrivals: np.ndarray, queue_empty: bool) -> np.ndarray:
        # head-of-line blocking: only an arrival that becomes the head can be admitted
        return arrivals[:1] if queue_empty else arrivals[:0]


class DFFScheduler(Scheduler):
    """Decreasing first fit over the first ``window`` queued requests (one memory pool)."""

    name = "dff"

    def admit(self, queue: deque[int], sizes_of: SizesOf, free: float, slots: int,
              window: int) -> np.ndarray:
        m = min(window, len(queue))
        if m == 1:  # one candidate (the usual case under light load): it fits or not
            ids = np.array([queue[0]], dtype=np.int64)
            if slots < 1 or sizes_of(ids)[0] > free:
                return ids[:0]
            queue.popleft()
            return ids
        ids = np.fromiter(islice(queue, m), dtype=np.int64, count=m)
        sizes = sizes_of(ids)
        order = sizes.argsort(kind="stable")
        asc = sizes[order]
        chosen: list[int] = []
        hi = m
        while len(chosen) < slots and hi > 0:
            j = int(asc[:hi].searchsorted(free, side="right")) - 1
            if j < 0:
                break
            chosen.append(int(order[j]))  # the largest request that still fits
            free -= asc[j]
            hi = j
        if not chosen:
            return ids[:0]
        # take the window's head up to the last chosen request out of the queue and put
        # its unchosen ones back in order (those after the last chosen never leave)
        head = max(chosen) + 1
        for _ in range(head):
            queue.popleft()
        mask = np.zeros(head, bool)
        mask[chosen] = True
        queue.extendleft(ids[:head][~mask][::-1].tolist())
        return ids[np.sort(np.array(chosen, dtype=np.int64))]

    def arrival_candidates(self, arrivals: np.ndarray, queue_empty: bool) -> np.ndarray:
        return arrivals
