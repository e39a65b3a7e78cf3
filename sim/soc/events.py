"""The SoC simulator's event kernel: a time-ordered callback queue and FIFO servers.

Written here rather than taken from SimPy because the engine's hot path is one callback per
tile: a heap of plain tuples runs the same pipeline 6-7x faster (``bench/soc_sim_speed.py``
measures both).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar, overload

__all__ = ["EventQueue", "Server"]

_T = TypeVar("_T")


class EventQueue:
    """A minimal discrete-event queue: callbacks ordered by time, FIFO among equal times."""

    __slots__ = ("now", "_heap", "_seq", "events")

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[Any], None], Any]] = []
        self._seq = 0
        self.events = 0

    @overload
    def at(self, t: float, fn: Callable[[None], None]) -> None: ...

    @overload
    def at(self, t: float, fn: Callable[[_T], None], arg: _T) -> None: ...

    def at(self, t: float, fn: Callable[[Any], None], arg: object = None) -> None:
        """Call ``fn(arg)`` at time ``t`` (never before :attr:`now`)."""
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, arg))

    def run(self) -> None:
        heap = self._heap
        pop = heapq.heappop
        while heap:
            t, _, fn, arg = pop(heap)
            self.now = t
            self.events += 1
            fn(arg)


class Server:
    """A FIFO resource with ``capacity`` slots; every busy interval is recorded.

    ``intervals`` collects ``(start_s, end_s, category, op_index)`` tuples.
    """

    __slots__ = ("name", "capacity", "busy", "queue", "q", "intervals")

    def __init__(self, q: EventQueue, name: str, capacity: int = 1) -> None:
        self.q = q
        self.name = name
        self.capacity = capacity
        self.busy = 0
        self.queue: deque[tuple[float, str, int, Callable[[Any], None], Any]] = deque()
        self.intervals: list[tuple[float, float, str, int]] = []

    @overload
    def submit(self, duration_s: float, category: str, op_index: int,
               done: Callable[[None], None]) -> None: ...

    @overload
    def submit(self, duration_s: float, category: str, op_index: int,
               done: Callable[[_T], None], arg: _T) -> None: ...

    def submit(self, duration_s: float, category: str, op_index: int,
               done: Callable[[Any], None], arg: object = None) -> None:
        """Run a task of ``duration_s`` when a slot is free, then call ``done(arg)``."""
        if self.busy < self.capacity:
            self._start(duration_s, category, op_index, done, arg)
        else:
            self.queue.append((duration_s, category, op_index, done, arg))

    def _start(self, duration_s: float, category: str, op_index: int,
               done: Callable[[Any], None], arg: Any) -> None:
        self.busy += 1
        now = self.q.now
        end = now + duration_s
        if duration_s > 0:
            self.intervals.append((now, end, category, op_index))
        self.q.at(end, self._finish, (done, arg))

    def _finish(self, pair: tuple[Callable[[Any], None], Any]) -> None:
        self.busy -= 1
        if self.queue:
            self._start(*self.queue.popleft())
        done, arg = pair
        done(arg)
