"""Request state of the serving engine: one record per request and per running row.

:class:`RequestTable` holds what the engine knows about every request (lengths,
the output tokens reserved for it, tokens generated while it is not running,
times, preemptions, wasted tokens); :class:`RunningBatch` holds the sequences in
the running batch, in admission order, one record each. Both keep every field of
their records (:data:`REQUEST_FIELDS`, :data:`BATCH_FIELDS`) as its own
contiguous numpy array, so the engine works on whole batches at once and a
column read is a plain array access (a field of a structured array is a strided
view, slower to create, index and reduce).
"""

from __future__ import annotations

import numpy as np

from .requests import RequestSet

__all__ = ["REQUEST_FIELDS", "BATCH_FIELDS", "ID", "PROMPT", "OUTPUT", "GENERATED", "LIMIT",
           "BLOCKS", "Rows", "RequestTable", "RunningBatch"]

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

_BATCH_NAMES: tuple[str, ...] = tuple(BATCH_FIELDS.names or ())

#: ``np.add.reduce``: what ``ndarray.sum`` runs, without its Python-level dispatch.
_sum = np.add.reduce

#: Row of each field of :data:`BATCH_FIELDS` in a :data:`Rows` block.
ID, PROMPT, OUTPUT, GENERATED, LIMIT, BLOCKS = range(len(_BATCH_NAMES))

#: Request fields copied into a row entering the batch, in the order of its fields
#: PROMPT to LIMIT (``reserved_output`` is the row's ``limit``).
_ENTERING = ("prompt", "output", "generated", "reserved_output")

#: Rows entering or leaving the running batch: an int64 ``(fields, rows)`` block, one
#: contiguous row per field of :data:`BATCH_FIELDS` (``rows[PROMPT]``: the prompts), so
#: moving rows in or out of the batch is one copy of a block.
Rows = np.ndarray


class RequestTable:
    """Every request's record (:data:`REQUEST_FIELDS`), indexed by request id."""

    __slots__ = ("columns", "_n", "_entering")

    def __init__(self, requests: RequestSet) -> None:
        n = len(requests)
        # the fields a row entering the batch copies, stacked in the batch's order (rows
        # PROMPT to LIMIT of a Rows block), so the copy is one take of columns
        self._entering = np.zeros((len(_ENTERING), n), np.int64)
        cols = {name: np.zeros(n, REQUEST_FIELDS.fields[name][0])  # type: ignore[index]
                for name in REQUEST_FIELDS.names or () if name not in _ENTERING}
        cols.update(zip(_ENTERING, self._entering, strict=True))
        cols["arrival_s"][:] = requests.arrival_s
        cols["prompt"][:] = requests.prompt_tokens
        cols["output"][:] = requests.output_tokens
        cols["first_token_s"][:] = np.nan
        cols["finish_s"][:] = np.nan
        self.columns = cols
        self._n = n

    def __len__(self) -> int:
        return self._n

    def field(self, name: str) -> np.ndarray:
        """The column ``name`` (the table's own array: writes go to the table)."""
        return self.columns[name]


class RunningBatch:
    """The running sequences in admission order (:data:`BATCH_FIELDS`).

    Each field is an attribute of the same name: a view of the first :attr:`size`
    entries of one row of a preallocated ``(fields, capacity)`` array that grows by
    doubling, so admissions and departures move only whole rows of the block at
    once. In-place writes to a column (``+=``, ``[...] =``) go to the batch.
    :attr:`context_sum` is the sum of :attr:`context`, kept up to date as rows
    come, go and advance.
    """

    __slots__ = ("size", "context_sum", "_store",
                 "id", "prompt", "output", "generated", "limit", "blocks")

    def __init__(self, capacity: int = 64) -> None:
        self._store = np.zeros((len(_BATCH_NAMES), max(int(capacity), 1)), np.int64)
        self.size = 0
        self.context_sum = 0
        self._views()

    def _views(self) -> None:
        (self.id, self.prompt, self.output, self.generated, self.limit,
         self.blocks) = self._store[:, :self.size]

    @property
    def ids(self) -> np.ndarray:
        return self.id

    @property
    def rows(self) -> Rows:
        """Every column (a view of the batch)."""
        return self._store[:, :self.size]

    @property
    def context(self) -> np.ndarray:
        """Each sequence's next attention span: prompt plus generated tokens."""
        return self.prompt + self.generated

    def advance(self, k: int) -> None:
        """Every sequence generated ``k`` more tokens."""
        self.generated += k
        self.context_sum += k * self.size

    def append(self, rows: Rows, *, context_sum: int | None = None) -> None:
        """Add ``rows`` after the running ones.

        ``context_sum``, if given, is the sum of the rows' prompt and generated
        tokens (saves recomputing it).
        """
        m = rows.shape[1]
        n = self.size
        store = self._store
        if n + m > store.shape[1]:
            grown = np.zeros((len(_BATCH_NAMES), max(2 * store.shape[1], n + m)), np.int64)
            grown[:, :n] = store[:, :n]
            self._store = store = grown
        store[:, n:n + m] = rows
        self.size = n + m
        if context_sum is None:
            context_sum = int(_sum(rows[PROMPT])) + int(_sum(rows[GENERATED]))
        self.context_sum += context_sum
        self._views()

    def _gone(self, gone: Rows) -> Rows:
        self.context_sum -= int(_sum(gone[PROMPT])) + int(_sum(gone[GENERATED]))
        return gone

    def drop(self, mask: np.ndarray) -> Rows:
        """Remove the rows where ``mask`` holds (the others keep their order); return them."""
        n = self.size
        store = self._store
        at = mask.nonzero()[0]  # a 1-D mask: flatnonzero without its ravel
        gone = store[:, at]
        if at.size <= 4:  # usually one or two rows leave: close each gap with one move
            dst = int(at[0]) if at.size else n
            for j in range(at.size):
                src = int(at[j]) + 1
                end = int(at[j + 1]) if j + 1 < at.size else n
                store[:, dst:dst + end - src] = store[:, src:end]  # numpy handles the overlap
                dst += end - src
        else:
            kept = store[:, :n][:, ~mask]
            store[:, :kept.shape[1]] = kept
        self.size = n - at.size
        self._views()
        return self._gone(gone)

    def keep(self, mask: np.ndarray) -> Rows:
        """Keep the rows where ``mask`` holds; return the others."""
        return self.drop(~mask)

    def truncate(self, keep: int) -> Rows:
        """Keep the first ``keep`` rows (the earliest admitted); return the rest."""
        gone = self._store[:, keep:self.size].copy()
        self.size = keep
        self._views()
        return self._gone(gone)

    @staticmethod
    def empty_rows() -> Rows:
        """No rows."""
        return np.zeros((len(_BATCH_NAMES), 0), np.int64)

    @staticmethod
    def new_rows(ids: np.ndarray, table: RequestTable) -> Rows:
        """Records for requests ``ids`` entering the batch (generated as recorded)."""
        rows = np.empty((len(_BATCH_NAMES), len(ids)), np.int64)
        rows[ID] = ids
        table._entering.take(ids, axis=1, out=rows[PROMPT:LIMIT + 1])
        rows[BLOCKS] = 0
        return rows
