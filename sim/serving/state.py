"""Request state of the serving engine: one structured record per request and per running row.

:class:`RequestTable` holds what the engine knows about every request (lengths,
the output tokens reserved for it, tokens generated while it is not running,
times, preemptions, wasted tokens); :class:`RunningBatch` holds the sequences in
the running batch, in admission order, one record each. Both are numpy
structured arrays so the engine works on whole batches at once.
"""

from __future__ import annotations

import numpy as np

from .requests import RequestSet

__all__ = ["REQUEST_FIELDS", "BATCH_FIELDS", "RequestTable", "RunningBatch"]

#: Fields of a request's record (times in seconds, lengths in tokens).
REQUEST_FIELDS = np.dtype([
    ("arrival_s", np.float64), ("prompt", np.int64), ("output", np.int64),
    ("reserved_output", np.int64),  # output tokens the memory manager reserves (reservation)
    ("generated", np.int64),        # tokens generated, synced when the request leaves the batch
    ("swapped", np.bool_),          # KV cache sits in host memory (paged swap)
    ("first_token_s", np.float64), ("finish_s", np.float64),
    ("preemptions", np.int64), ("wasted_tokens", np.int64),
])

#: Fields of a running sequence's record.
BATCH_FIELDS = np.dtype([
    ("id", np.int64), ("prompt", np.int64), ("output", np.int64), ("generated", np.int64),
    ("limit", np.int64),   # reserved output tokens (reservation managers)
    ("blocks", np.int64),  # KV blocks held (paged manager)
])


class RequestTable:
    """Every request's record (:data:`REQUEST_FIELDS`), indexed by request id."""

    __slots__ = ("rows",)

    def __init__(self, requests: RequestSet) -> None:
        n = len(requests)
        rows = np.zeros(n, REQUEST_FIELDS)
        rows["arrival_s"] = requests.arrival_s
        rows["prompt"] = requests.prompt_tokens
        rows["output"] = requests.output_tokens
        rows["first_token_s"] = np.nan
        rows["finish_s"] = np.nan
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def field(self, name: str) -> np.ndarray:
        """The column ``name`` (a view: writes go to the table)."""
        return self.rows[name]


class RunningBatch:
    """The running sequences in admission order (:data:`BATCH_FIELDS`)."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows = np.zeros(0, BATCH_FIELDS)

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def ids(self) -> np.ndarray:
        return self.rows["id"]

    @property
    def context(self) -> np.ndarray:
        """Each sequence's next attention span: prompt plus generated tokens."""
        return self.rows["prompt"] + self.rows["generated"]

    def append(self, rows: np.ndarray) -> None:
        # filled in place: np.concatenate promotes structured dtypes field by field
        old = self.rows
        n = len(old)
        out = np.empty(n + len(rows), BATCH_FIELDS)
        out[:n] = old
        out[n:] = rows
        self.rows = out

    def keep(self, mask: np.ndarray) -> np.ndarray:
        """Keep the rows where ``mask`` holds; return the others."""
        gone = self.rows[~mask]
        self.rows = self.rows[mask]
        return gone

    def truncate(self, keep: int) -> np.ndarray:
        """Keep the first ``keep`` rows (the earliest admitted); return the rest."""
        gone = self.rows[keep:]
        self.rows = self.rows[:keep]
        return gone

    @staticmethod
    def new_rows(ids: np.ndarray, table: RequestTable) -> np.ndarray:
        """Records for requests ``ids`` entering the batch (generated as recorded)."""
        src = table.rows[ids]
        rows = np.zeros(len(ids), BATCH_FIELDS)
        rows["id"] = ids
        rows["prompt"] = src["prompt"]
        rows["output"] = src["output"]
        rows["generated"] = src["generated"]
        rows["limit"] = src["reserved_output"]
        return rows
