"""KV-cache memory managers: how the serving engine allocates, grows and frees KV cache.

One class per policy, each owning its accounting:

* :class:`WorstCaseReservation` -- reserve ``max_seq_len`` tokens per sequence
  for its lifetime (FasterTransformer/ORCA-style);
* :class:`OracleReservation` -- reserve the true output length;
* :class:`PredictedReservation` -- S3: reserve the predicted length bucket's upper
  edge; a sequence that generates its reserved tokens without finishing has
  overflowed: the engine preempts it, the manager re-predicts a larger
  reservation and the request is re-queued first (recomputed on re-admission);
* :class:`PagedBlockManager` -- vLLM-style fixed-size blocks allocated on
  demand; when the free pool cannot cover the next step the most recently
  admitted sequences are preempted by recompute or by swap to host memory.

The engine (:func:`~archsim.sim.serving.engine.simulate`) asks every manager the
same questions; none is probed for attributes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError, SimulationError
from .predictor import LengthPredictor
from .state import BLOCKS, GENERATED, ID, LIMIT, PROMPT, RequestTable, Rows, RunningBatch

__all__ = ["KVCache", "MemoryManager", "ReservationManager", "WorstCaseReservation",
           "OracleReservation", "PredictedReservation", "PagedBlockManager"]


# The reductions ndarray.sum/min/any run, without their Python-level dispatch.
_sum, _min, _any = np.add.reduce, np.minimum.reduce, np.logical_or.reduce

#: What a manager returns when it preempts nothing (never written to).
_NO_ROWS: Rows = RunningBatch.empty_rows()
_NO_ROWS.flags.writeable = False

#: All true, read-only: admit()'s answer when every admitted row is prefilled, sliced.
_ALL_PREFILLED = np.ones(256, bool)
_ALL_PREFILLED.flags.writeable = False


def _all_prefilled(n: int) -> np.ndarray:
    """``n`` rows, every one prefilled (a read-only view while ``n`` is small)."""
    return _ALL_PREFILLED[:n] if n <= _ALL_PREFILLED.size else np.ones(n, bool)


@dataclass(frozen=True)
class KVCache:
    """What a memory manager manages: KV-cache room and the host link for swapping.

    Attributes
    ----------
    capacity_tokens
        Tokens of KV cache the deployment holds.
    max_seq_len
        Longest sequence (prompt plus output).
    kv_bytes_per_token
        KV-cache bytes of one token (all GPUs).
    host_bw_bytes_per_s
        Aggregate GPU-host bandwidth (swapping).
    """

    capacity_tokens: int
    max_seq_len: int
    kv_bytes_per_token: float
    host_bw_bytes_per_s: float


class MemoryManager(ABC):
    """KV-cache accounting of one simulation (a fresh manager per run)."""

    #: Tokens per allocation unit (the unit of :meth:`sizes_of` and :meth:`free_for_admission`).
    unit_tokens: int = 1

    def __init__(self, kv: KVCache, table: RequestTable) -> None:
        self.kv = kv
        self.table = table

    def reserve(self, name: str, rng: np.random.Generator) -> None:
        """Set every request's reserved output tokens before the run."""
        t = self.table
        res = np.asarray(self.initial_reservation(t.field("prompt"), t.field("output"), rng),
                         np.int64)
        if res.shape != (len(t),):
            raise ConfigError(f"policy '{name}' returned {res.shape} reservations for "
                              f"{len(t)} requests", field="policy")
        t.field("reserved_output")[:] = res

    @abstractmethod
    def initial_reservation(self, prompt: np.ndarray, output: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
        """Output tokens reserved for each request at its first admission."""

    @property
    @abstractmethod
    def capacity_tokens(self) -> int:
        """Tokens the manager can hand out (the timeline's capacity)."""

    @property
    @abstractmethod
    def reserved_tokens(self) -> int:
        """Tokens held now by reservations or blocks."""

    @abstractmethod
    def sizes_of(self, ids: np.ndarray) -> np.ndarray:
        """What admitting each request takes, in allocation units."""

    def make_room(self, batch: RunningBatch) -> tuple[Rows, float]:
        """Before an iteration: preempt rows if the next step cannot be covered.

        Returns the preempted rows (removed from ``batch``, latest admitted last)
        and the seconds the preemption takes. Default: nothing to do.
        """
        return _NO_ROWS, 0.0

    @abstractmethod
    def free_for_admission(self) -> float:
        """Room for admissions now, in allocation units."""

    @abstractmethod
    def admit(self, batch: RunningBatch, rows: Rows) -> tuple[np.ndarray, float]:
        """Allocate for ``rows`` joining ``batch`` (and the batch's next step).

        Sets ``rows[BLOCKS]``; returns which rows need a prefill (the others
        are swapped back in; the mask may be read-only) and the seconds the
        swap-in takes.
        """

    @abstractmethod
    def check(self, iteration: int) -> None:
        """Raise :class:`SimulationError` if more is allocated than exists."""

    def limit_run(self, batch: RunningBatch, k: int) -> int:
        """Longest run of decode steps, at most ``k``, the manager can serve uninterrupted."""
        return k

    @abstractmethod
    def fits(self, ids: np.ndarray) -> np.ndarray:
        """Whether each (arriving) request could be admitted now."""

    def grow(self, batch: RunningBatch, k: int, iteration: int) -> None:
        """Account ``k`` decode steps of ``batch`` (before its generated counts advance)."""
        return None  # reservations cover the whole sequence up front

    @abstractmethod
    def release(self, rows: Rows) -> None:
        """Free what ``rows`` (leaving the batch) hold."""

    def overflowed(self, batch: RunningBatch) -> np.ndarray | None:
        """Rows that outgrew their reservation and must be preempted (``None``: never)."""
        return None

    def repredict(self, ids: np.ndarray, rng: np.random.Generator) -> None:
        """New reservations for overflowed requests ``ids`` (their generated tokens recorded)."""
        return None  # only a manager whose overflowed() returns rows is asked


class ReservationManager(MemoryManager):
    """A fixed ``prompt + reserved_output`` reservation per sequence for its lifetime."""

    def __init__(self, kv: KVCache, table: RequestTable) -> None:
        super().__init__(kv, table)
        self.reserved = 0
        self._prompt = table.field("prompt")
        self._limit = table.field("reserved_output")

    @property
    def capacity_tokens(self) -> int:
        return self.kv.capacity_tokens

    @property
    def reserved_tokens(self) -> int:
        return self.reserved

    def sizes_of(self, ids: np.ndarray) -> np.ndarray:
        return self._prompt[ids] + self._limit[ids]

    def free_for_admission(self) -> float:
        return self.kv.capacity_tokens - self.reserved

    def admit(self, batch: RunningBatch, rows: Rows) -> tuple[np.ndarray, float]:
        self.reserved += int(_sum(rows[PROMPT] + rows[LIMIT]))
        return _all_prefilled(rows.shape[1]), 0.0

    def check(self, iteration: int) -> None:
        if self.reserved > self.kv.capacity_tokens:
            raise SimulationError("KV-cache allocation exceeds capacity", signal="kv_cache",
                                  cycle=iteration, expected=self.kv.capacity_tokens,
                                  actual=self.reserved)

    def fits(self, ids: np.ndarray) -> np.ndarray:
        return self.sizes_of(ids) <= self.kv.capacity_tokens - self.reserved

    def release(self, rows: Rows) -> None:
        self.reserved -= int(_sum(rows[PROMPT] + rows[LIMIT]))


class WorstCaseReservation(ReservationManager):
    """Reserve ``max_seq_len`` tokens per sequence."""

    def initial_reservation(self, prompt: np.ndarray, output: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
        return self.kv.max_seq_len - np.asarray(prompt, np.int64)


class OracleReservation(ReservationManager):
    """Reserve the true output length."""

    def initial_reservation(self, prompt: np.ndarray, output: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
        return np.asarray(output, np.int64).copy()


class PredictedReservation(ReservationManager):
    """S3: reserve the predicted length; an overflowing sequence is preempted and re-predicted."""

    def __init__(self, kv: KVCache, table: RequestTable, *, predictor: LengthPredictor) -> None:
        super().__init__(kv, table)
        self.predictor = predictor

    def initial_reservation(self, prompt: np.ndarray, output: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
        pred = np.asarray(self.predictor.predict(prompt, output, rng), np.int64)
        return np.clip(pred, 1, self.kv.max_seq_len - np.asarray(prompt, np.int64))

    def limit_run(self, batch: RunningBatch, k: int) -> int:
        return min(k, int(_min(batch.limit - batch.generated)))

    def overflowed(self, batch: RunningBatch) -> np.ndarray | None:
        return batch.generated >= batch.limit

    def repredict(self, ids: np.ndarray, rng: np.random.Generator) -> None:
        t = self.table
        prompt, generated = t.field("prompt")[ids], t.field("generated")[ids]
        pred = np.asarray(self.predictor.repredict(prompt, t.field("output")[ids], generated,
                                                   rng), np.int64)
        pred = np.maximum(pred, np.asarray(generated) + 1)
        self._limit[ids] = np.minimum(pred, self.kv.max_seq_len - np.asarray(prompt, np.int64))


class PagedBlockManager(MemoryManager):
    """vLLM-style paged KV cache with ``block_tokens``-token blocks.

    Admission needs the blocks of the prompt (and of tokens generated before a
    preemption), keeping ``watermark`` of the blocks free; decode steps grow
    blocks; when the free pool cannot cover the next step, the most recently
    admitted sequences are preempted (LIFO, as vLLM): by recompute (blocks
    freed, prompt and generated tokens re-encoded on re-admission) or by swap
    (blocks copied to host memory over PCIe and back).

    The accounting is incremental, resting on two invariants the engine's calls
    keep between iterations (:meth:`consistent` checks them): :attr:`reserved` is the sum of the
    running rows' blocks, and no row holds more blocks than its context
    (``ceil((prompt + generated) / block_tokens)``) needs. So what the batch needs
    for its next step, or for a run of steps, is a sum of ceilings less
    :attr:`reserved`, with no per-row differences; the blocks each waiting request
    needs to be admitted are kept per request (they change only when this manager
    preempts it); and the requests in host memory are counted, so admission looks
    them up only when there are any.
    """

    def __init__(self, kv: KVCache, table: RequestTable, *, block_tokens: int, swap: bool,
                 watermark: float) -> None:
        super().__init__(kv, table)
        self.unit_tokens = block_tokens
        self.block_tokens = block_tokens
        self.swap = swap
        self.capacity_blocks = kv.capacity_tokens // block_tokens
        self.watermark_blocks = int(watermark * self.capacity_blocks)
        self.reserved = 0  # blocks in use: the sum of the running rows' blocks
        # blocks each request needs to be admitted (its prompt and generated tokens)
        self._size = self._blocks(table.field("prompt") + table.field("generated"))
        # blocks each running row's context needs, and what the batch needs on top of the
        # blocks it holds, for its next step (None: not worked out yet)
        self._ctx_blocks: np.ndarray | None = np.zeros(0, np.int64)
        self._need_sum = 0
        self._batch = RunningBatch()
        # (k, batch size, blocks per row after the run, blocks added) limit_run last allowed
        self._run: tuple[int, int, np.ndarray, int] | None = None
        self._swapped = table.field("swapped")
        self._n_swapped = int(np.count_nonzero(self._swapped))  # requests whose KV cache is in host memory

    def initial_reservation(self, prompt: np.ndarray, output: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
        return np.zeros(len(prompt), np.int64)  # paged allocation reserves nothing ahead

    @property
    def capacity_tokens(self) -> int:
        return self.capacity_blocks * self.block_tokens

    @property
    def reserved_tokens(self) -> int:
        return self.reserved * self.block_tokens

    def _blocks(self, tokens: np.ndarray) -> np.ndarray:
        # ceil(tokens / block_tokens) of non-negative integers, in two array operations
        return (tokens + (self.block_tokens - 1)) // self.block_tokens

    def _run_blocks(self, batch: RunningBatch, k: int) -> np.ndarray:
        """Blocks each row needs for ``k`` more decode steps (its context plus ``k - 1`` tokens)."""
        return self._blocks(batch.context + (k - 1))

    def sizes_of(self, ids: np.ndarray) -> np.ndarray:
        return self._size[ids]

    def consistent(self, batch: RunningBatch) -> bool:
        """Whether the incremental accounting agrees with ``batch`` recomputed from scratch.

        Holds between iterations (when :meth:`make_room` is called): :attr:`reserved`
        must be the sum of the rows' blocks, no row may hold more blocks than its
        context needs, and the kept admission sizes of the unfinished requests and the
        swapped count must be those of the request table.
        """
        t = self.table
        left = np.isnan(t.field("finish_s"))
        size = self._blocks(t.field("prompt")[left] + t.field("generated")[left])
        return (self.reserved == int(np.sum(batch.blocks))
                and bool(np.all(batch.blocks <= self._blocks(batch.context)))
                and np.array_equal(self._size[left], size)
                and self._n_swapped == int(np.count_nonzero(self._swapped)))

    def _swap_s(self, blocks: float) -> float:
        return blocks * self.block_tokens * self.kv.kv_bytes_per_token \
            / self.kv.host_bw_bytes_per_s

    def make_room(self, batch: RunningBatch) -> tuple[Rows, float]:
        self._batch = batch
        self._run = None
        if batch.size == 0:
            self._ctx_blocks, self._need_sum = np.zeros(0, np.int64), 0
            return _NO_ROWS, 0.0
        free = self.capacity_blocks - self.reserved
        if batch.size <= free:
            # a row's blocks hold its cached tokens, so its next step needs at most one more
            # block: nothing to preempt; what the rows need is worked out if admission asks
            self._ctx_blocks = None
            return _NO_ROWS, 0.0
        ctx_blocks = self._blocks(batch.context)
        need_sum = int(_sum(ctx_blocks)) - self.reserved
        victims = _NO_ROWS
        dt = 0.0
        if need_sum > free:  # preempt the most recently admitted (vLLM)
            held = batch.blocks
            need = ctx_blocks - held
            tail_need = np.concatenate(([0], np.cumsum(need[::-1])))
            tail_held = np.concatenate(([0], np.cumsum(held[::-1])))
            keep = batch.size - int(np.argmax(need_sum - tail_need <= free + tail_held))
            victims = batch.truncate(keep)
            freed = int(_sum(victims[BLOCKS]))
            self.reserved -= freed
            ids = victims[ID]
            # the engine records the victims' generated tokens: re-admission needs their blocks
            self._size[ids] = self._blocks(victims[PROMPT] + victims[GENERATED])
            if self.swap:
                dt = self._swap_s(freed)
                self._swapped[ids] = True
                self._n_swapped += ids.size
            ctx_blocks = ctx_blocks[:keep]
            need_sum = int(_sum(need[:keep]))
        self._ctx_blocks, self._need_sum = ctx_blocks, need_sum
        return victims, dt

    def _next_need(self) -> tuple[np.ndarray, int]:
        """Blocks each running row's context needs, and what the batch needs on top of its own."""
        if self._ctx_blocks is None:
            ctx_blocks = self._blocks(self._batch.context)
            self._ctx_blocks, self._need_sum = ctx_blocks, int(_sum(ctx_blocks)) - self.reserved
        return self._ctx_blocks, self._need_sum

    def free_for_admission(self) -> float:
        return self.capacity_blocks - self.reserved - self._next_need()[1] - self.watermark_blocks

    def admit(self, batch: RunningBatch, rows: Rows) -> tuple[np.ndarray, float]:
        ctx_blocks, need_sum = self._next_need()
        if need_sum:
            batch.blocks[:] = ctx_blocks  # every running row now holds its context's blocks
        ids = rows[ID]
        nb = self._size[ids]
        rows[BLOCKS] = nb
        self.reserved += need_sum + int(_sum(nb))
        if not self._n_swapped:  # no KV cache is in host memory: every row is prefilled
            return _all_prefilled(nb.size), 0.0
        sw = self._swapped[ids]
        dt = 0.0
        if _any(sw):  # swap the KV cache back in; no recompute
            dt = self._swap_s(float(_sum(nb[sw])))
            self._swapped[ids[sw]] = False
            self._n_swapped -= int(np.count_nonzero(sw))
        return ~sw, dt

    def check(self, iteration: int) -> None:
        if self.reserved > self.capacity_blocks:
            raise SimulationError("KV-cache allocation exceeds capacity", signal="kv_cache",
                                  cycle=iteration, expected=self.kv.capacity_tokens,
                                  actual=self.reserved * self.block_tokens)

    def limit_run(self, batch: RunningBatch, k: int) -> int:
        if k <= 1:
            return k
        # the longest run whose block growth the free pool covers (blocks after the run,
        # less those held: no row holds more than its context needs, so none shrinks)
        free = self.capacity_blocks - self.reserved
        bt = self.block_tokens
        # the usual case, with no per-row work: the sum of the rows' ceil((context + k - 1)
        # / bt) is at most (context sum + rows * (k - 1 + bt - 1)) / bt, and the pool covers it
        if (batch.context_sum + batch.size * (k + bt - 2)) // bt - self.reserved <= free:
            return k  # grow() works out the blocks of the run it is told
        grown = self._run_blocks(batch, k)
        inc_sum = int(_sum(grown)) - self.reserved
        if inc_sum <= free:  # counted exactly, the pool still covers the whole run
            self._run = (k, batch.size, grown, inc_sum)  # grow() of the same run reuses it
            return k
        lo, hi = 1, k - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if int(_sum(self._run_blocks(batch, mid))) - self.reserved <= free:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def fits(self, ids: np.ndarray) -> np.ndarray:
        return self._size[ids] <= self.capacity_blocks - self.reserved - self.watermark_blocks

    def grow(self, batch: RunningBatch, k: int, iteration: int) -> None:
        run, self._run = self._run, None
        if run is not None and run[0] == k and run[1] == batch.size:
            _, _, grown, inc_sum = run  # limit_run priced this very run
        elif k == 1 and self._ctx_blocks is not None:
            grown, inc_sum = self._ctx_blocks, self._need_sum  # make_room's next step
        else:
            grown = self._run_blocks(batch, k)
            inc_sum = int(_sum(grown)) - self.reserved
        if inc_sum:
            batch.blocks[:] = grown
            self.reserved += inc_sum
        if self.reserved > self.capacity_blocks:
            raise SimulationError("KV-cache blocks exceed capacity", signal="kv_cache",
                                  cycle=iteration, expected=self.capacity_blocks,
                                  actual=self.reserved)

    def release(self, rows: Rows) -> None:
        self.reserved -= int(_sum(rows[BLOCKS]))
