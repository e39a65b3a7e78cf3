"""Iteration-level (Orca-style continuous batching) serving engine, event-driven.

Every iteration runs one forward pass over the batch: newly admitted sequences
do their prefill (prompt, plus already generated tokens when a preempted
sequence is recomputed) and every running sequence decodes one token. Between
events -- an admission, a finish, a preemption, an arrival that could be
admitted, a paged sequence needing a block the pool cannot give -- the batch
is constant, so runs of decode iterations are costed at once with the
cost model :class:`~archsim.sim.serving.config.CostModel`
(identical, iteration by iteration, to stepping them one at a time).

KV-cache accounting: after ``g`` generated tokens a sequence holds ``prompt +
g - 1`` tokens of KV; its next decode step attends over ``prompt + g``.

The loop composes three parts, as Vidur and vLLM do: the request state
(:mod:`~archsim.sim.serving.state`: one record per request and per running
sequence), the policy's admission :class:`~archsim.sim.serving.scheduler.Scheduler`
and its :class:`~archsim.sim.serving.memory.MemoryManager`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque

import numpy as np

from ...errors import ConfigError, SimulationError
from ...loading import ProgressCallback
from .config import CostModel, Deployment
from .memory import KVCache, MemoryManager
from .metrics import SLO, ServingResult, Timeline, compute_metrics
from .policies import MemoryPolicy, VLLMPolicy
from .requests import RequestSet
from .scheduler import Scheduler
from .state import GENERATED, ID, PROMPT, RequestTable, Rows, RunningBatch

__all__ = ["simulate"]

# The reductions ndarray.sum/min/any/all run, without their Python-level dispatch (the
# engine calls them on small arrays at every iteration, where the dispatch dominates).
_sum, _min = np.add.reduce, np.minimum.reduce
_any, _all = np.logical_or.reduce, np.logical_and.reduce

_INF = float("inf")


def _positive_int(value: object, field: str, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"must be a positive integer, not {value!r}", field=field)


class _Timeline:
    """The engine state at each event, appended as the loop runs."""

    def __init__(self) -> None:
        self.time_s: list[float] = []
        self.batch: list[int] = []
        self.reserved: list[int] = []
        self.used: list[int] = []

    def build(self, capacity_tokens: int) -> Timeline:
        return Timeline(np.array(self.time_s), np.array(self.batch, np.int64),
                        np.array(self.reserved, np.int64), np.array(self.used, np.int64),
                        capacity_tokens=capacity_tokens)


class _Engine:
    """One simulation: the loop over events, composing scheduler and memory manager."""

    def __init__(self, *, cost: CostModel, table: RequestTable, scheduler: Scheduler,
                 memory: MemoryManager, rng: np.random.Generator, batch_cap: int, window: int,
                 max_decode_run: int | None, progress: ProgressCallback | None,
                 prefill_budget: int | None = None) -> None:
        self.cost = cost
        # vLLM: iterations with admissions prefill only them, within this many tokens
        self.prefill_budget = prefill_budget
        self.table = table
        self.scheduler = scheduler
        self.memory = memory
        self.rng = rng
        self.batch_cap = batch_cap
        self.window = window
        self.max_decode_run = max_decode_run
        self.progress = progress
        self.batch = RunningBatch()
        self.queue: deque[int] = deque()
        self.timeline = _Timeline()
        self.t = 0.0
        self.iterations = 0
        self.done = 0
        # contiguous: searchsorted on a strided column would copy it at every call
        self._arrival = np.ascontiguousarray(table.field("arrival_s"))
        self._first = table.field("first_token_s")
        self._finish_s = table.field("finish_s")
        self._generated = table.field("generated")
        self._preemptions = table.field("preemptions")
        self._wasted = table.field("wasted_tokens")
        self._next_arrival = 0

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> None:
        n = len(self.table)
        arr = self._arrival
        while self.done < n:
            if self._next_arrival < n and arr[self._next_arrival] <= self.t:
                j = int(arr.searchsorted(self.t, side="right"))
                self.queue.extend(range(self._next_arrival, j))
                self._next_arrival = j
            if self.batch.size == 0 and not self.queue:
                self.t = float(arr[self._next_arrival])
                continue
            victims, dt = self.memory.make_room(self.batch)
            self.t += dt
            preempted = victims.shape[1] > 0
            if preempted:
                self._requeue(victims)
            new = self._admit(preempted=preempted)
            ctx_run_sum = self.batch.context_sum
            tl = self.timeline
            tl.time_s.append(self.t)
            tl.batch.append(self.batch.size + new.size)
            tl.used.append(ctx_run_sum - self.batch.size)  # KV held: prompt + generated - 1
            if new.size and self.prefill_budget is not None:
                self._prefill_iteration(new)
                self._finish()
            elif new.size:
                self._mixed_iteration(new, ctx_run_sum)
                self._finish()
            elif self._decode_run(ctx_run_sum):
                self._finish()
            self._preempt_overflows()

    def _requeue(self, rows: Rows) -> None:
        """Preempted rows: record their progress and put them first in the queue."""
        ids = rows[ID]
        self._generated[ids] = rows[GENERATED]
        self._preemptions[ids] += 1
        self.queue.extendleft(ids[::-1].tolist())

    def _admit(self, *, preempted: bool) -> np.ndarray:
        slots = self.batch_cap - self.batch.size
        new = np.empty(0, np.int64)
        if self.queue and slots > 0 and not preempted:
            new = self.scheduler.admit(self.queue, self.memory.sizes_of,
                                       self.memory.free_for_admission(), slots, self.window)
        if self.batch.size == 0 and new.size == 0:
            head = self.queue[0]
            cap = self.memory.kv.capacity_tokens
            raise SimulationError(
                f"request {head} (prompt {self.table.field('prompt')[head]} tokens) cannot be "
                f"admitted into an empty engine with {cap} KV-cache tokens", signal="kv_cache",
                expected=cap,
                actual=int(self.memory.sizes_of(np.array([head]))[0]) * self.memory.unit_tokens)
        if self.prefill_budget is not None and new.size > 1:
            # first come first served within the token budget; the rest wait, in order
            col = self.table.field
            tokens = np.cumsum(col("prompt")[new] + col("generated")[new])
            keep = max(int(tokens.searchsorted(self.prefill_budget, side="right")), 1)
            self.queue.extendleft(new[keep:][::-1].tolist())
            new = new[:keep]
        return new

    def _prefill_iteration(self, new: np.ndarray) -> None:
        """One vLLM prefill iteration: only the admitted rows compute; the running ones stall."""
        rows = RunningBatch.new_rows(new, self.table)
        prefill, dt = self.memory.admit(self.batch, rows)
        self.t += dt
        self.timeline.reserved.append(self.memory.reserved_tokens)
        self.memory.check(self.iterations)
        ng = rows[GENERATED]
        tot = rows[PROMPT] + ng
        n_i, g_pf = tot[prefill], ng[prefill]
        recomputed = _any(g_pf)
        if recomputed:  # recompute of preempted sequences re-encodes their tokens
            self._wasted[new[prefill]] += np.where(g_pf > 0, n_i, 0)
        sum_n = int(_sum(n_i))
        self.t += self.cost.iteration_latency_s(float(sum_n), float(n_i.size),
                                                float(int(n_i @ n_i)), float(sum_n))
        first = self._first
        if recomputed or n_i.size < new.size:
            first[new[prefill & np.isnan(first[new])]] = self.t
        else:  # every row is prefilled and none has generated a token: all are new
            first[new] = self.t
        ng[prefill] += 1  # a prefill yields the first (next) token; swapped-in rows wait
        self.batch.append(rows, context_sum=int(_sum(tot)) + int(_sum(prefill)))
        self.iterations += 1

    def _mixed_iteration(self, new: np.ndarray, ctx_run_sum: int) -> None:
        """One iteration: prefill the admitted requests, decode one token of the others."""
        rows = RunningBatch.new_rows(new, self.table)
        prefill, dt = self.memory.admit(self.batch, rows)
        self.t += dt
        self.timeline.reserved.append(self.memory.reserved_tokens)
        self.memory.check(self.iterations)
        ng = rows[GENERATED]
        tot = rows[PROMPT] + ng  # each admitted row's attention span this iteration
        if _all(prefill):  # the usual case: every admitted row is prefilled
            n_i, g_pf, sum_c = tot, ng, ctx_run_sum
        else:  # swapped-in rows decode instead
            n_i, g_pf = tot[prefill], ng[prefill]
            sum_c = ctx_run_sum + int(_sum(tot[~prefill]))
        recomputed = _any(g_pf)
        if recomputed:  # recompute of preempted sequences re-encodes their tokens
            self._wasted[new[prefill]] += np.where(g_pf > 0, n_i, 0)
        sum_n = int(_sum(n_i))
        n_dec = self.batch.size + (new.size - n_i.size)
        self.t += self.cost.iteration_latency_s(
            float(sum_n + n_dec), float(n_i.size + n_dec),
            float(int(n_i @ n_i) + sum_c), float(sum_n + sum_c))
        first = self._first
        if recomputed or n_i.size < new.size:  # some rows have had their first token
            first[new[np.isnan(first[new])]] = self.t
        else:  # every row is prefilled and none has generated a token: all are new
            first[new] = self.t
        self.batch.advance(1)
        ng += 1
        # the rows' spans after this step: sum_n + (sum_c - ctx_run_sum) before it, +1 each
        self.batch.append(rows, context_sum=sum_n + (sum_c - ctx_run_sum) + new.size)
        self.iterations += 1

    def _decode_run(self, ctx_run_sum: int) -> bool:
        """A run of decode iterations up to the next event, costed at once.

        Returns whether a sequence may have finished (the run reached the fewest
        remaining output tokens of the batch).
        """
        b = self.batch
        self.timeline.reserved.append(self.memory.reserved_tokens)
        k_left = k = int(_min(b.output - b.generated))
        if self.max_decode_run is not None:
            k = min(k, self.max_decode_run)
        k = self.memory.limit_run(self.batch, k)
        r = float(self.batch.size)
        lat_fn = self.cost.iteration_latency_s
        t0 = self.t
        n = len(self.table)
        arr = self._arrival
        # Priced step by step with plain floats (each step's attention shape is new, so the
        # cost model prices every step anyway; a vectorized call only added its set-up).
        # The running sum is np.cumsum's, left to right, so the end times are the same.
        # An arrival that could be admitted ends the run at the first step ending at or
        # after it; arrivals are only looked at once a step ends past the next one.
        nxt = self._next_arrival
        watch = float(arr[nxt]) if nxt < n and self.batch_cap > self.batch.size else _INF
        ends: list[float] = []
        total = 0.0
        a = None
        for j in range(k):
            c = ctx_run_sum + r * j
            total += lat_fn(r, r, c, c)
            end = t0 + total
            ends.append(end)
            if end > watch:
                a = self._admissible_arrival_s(end)
                if a is not None:
                    k = bisect_left(ends, a) + 1
                    break
                j_end = int(arr.searchsorted(end, side="left"))
                watch = float(arr[j_end]) if j_end < n else _INF
        self.t = ends[k - 1]
        self.iterations += k
        self.memory.grow(self.batch, k, self.iterations)
        b.advance(k)
        return k >= k_left

    def _admissible_arrival_s(self, end_s: float) -> float | None:
        """Arrival time of the first request arriving before ``end_s`` that could be admitted.

        Candidates of a shorter window are a prefix of a longer one's (see
        :meth:`Scheduler.arrival_candidates`), so the first fit found in a shorter
        window is the first fit of every longer one.
        """
        n = len(self.table)
        i_arr = self._next_arrival
        arr = self._arrival
        if i_arr < n and arr[i_arr] < end_s and self.batch_cap - self.batch.size > 0:
            j_end = int(arr.searchsorted(end_s, side="left"))
            cand = self.scheduler.arrival_candidates(np.arange(i_arr, j_end), not self.queue)
            hit = self.memory.fits(cand).nonzero()[0]  # 1-D: flatnonzero without its ravel
            if hit.size:  # stop the run when an arrival that could be admitted comes in
                return float(arr[cand[hit[0]]])
        return None

    def _finish(self) -> None:
        b = self.batch
        done = b.generated >= b.output
        if _any(done):
            rows = self.batch.drop(done)
            ids = rows[ID]
            self._finish_s[ids] = self.t
            self._generated[ids] = rows[GENERATED]
            self.done += ids.size
            self.memory.release(rows)
            if self.progress is not None:
                self.progress(self.done, len(self.table))

    def _preempt_overflows(self) -> None:
        """Rows that outgrew their reservation: preempt, re-predict, re-queue first."""
        if not self.batch.size:
            return
        over = self.memory.overflowed(self.batch)
        if over is None or not _any(over):
            return
        rows = self.batch.drop(over)
        self.memory.release(rows)
        self._requeue(rows)  # records generated, which repredict reads
        self.memory.repredict(rows[ID], self.rng)


def simulate(
    deployment: Deployment,
    requests: RequestSet,
    policy: MemoryPolicy,
    *,
    seed: int = 0,
    max_batch_size: int | None = None,
    window: int = 256,
    slo: SLO | None = None,
    progress: ProgressCallback | None = None,
    max_decode_run: int | None = None,
) -> ServingResult:
    """Serve ``requests`` under ``policy`` and return metrics, timeline and per-request times.

    Parameters
    ----------
    deployment
        Model, GPUs, executor and KV-cache capacity.
    requests
        Arrivals and true lengths; outputs longer than ``max_seq_len - prompt``
        are cut to fit (as a serving framework stops at its maximum length).
    policy
        A :class:`~archsim.sim.serving.policies.MemoryPolicy`: its scheduler and
        memory manager.
    seed
        Seeds the predictor's sampling.
    max_batch_size
        Optional cap on running sequences (``None``: memory is the only limit).
    window
        How many queued requests the scheduler considers per admission.
    slo
        Latency objectives for the SLO-attainment metric (default :class:`SLO`).
    progress
        Called as ``progress(finished, total)`` when requests finish (the CLI draws a bar).
    max_decode_run
        Cap on decode iterations costed at once between events (``1`` steps every
        iteration; results are the same up to floating-point rounding).
    """
    _positive_int(max_batch_size, "max_batch_size")
    _positive_int(window, "window", optional=False)
    _positive_int(max_decode_run, "max_decode_run")
    if not isinstance(policy, MemoryPolicy):
        raise ConfigError(f"policy must be a MemoryPolicy, not {type(policy).__name__}",
                          field="policy")
    msl = deployment.max_seq_len
    reqs = requests.clipped(msl)
    cost = deployment.cost
    n = len(reqs)
    table = RequestTable(reqs)
    kv = KVCache(capacity_tokens=deployment.kv_capacity_tokens, max_seq_len=msl,
                 kv_bytes_per_token=cost.kv_bytes_per_token,
                 host_bw_bytes_per_s=cost.gpu.pcie_bw_bytes_per_s * cost.tp)
    memory = policy.memory_manager(kv, table)
    rng = np.random.default_rng(seed)
    memory.reserve(policy.name, rng)
    res_first = table.field("reserved_output").copy()
    batch_cap = max_batch_size or n
    budget = None
    if isinstance(policy, VLLMPolicy):
        batch_cap = min(batch_cap, policy.max_num_seqs)
        budget = policy.token_budget(msl)
    engine = _Engine(cost=cost, table=table, scheduler=policy.scheduler(), memory=memory,
                     rng=rng, batch_cap=batch_cap, window=window,
                     max_decode_run=max_decode_run, progress=progress, prefill_budget=budget)
    engine.run()

    col = table.field
    arr, p, o = reqs.arrival_s, reqs.prompt_tokens, reqs.output_tokens
    first, fin = col("first_token_s").copy(), col("finish_s").copy()
    pre, waste = col("preemptions").copy(), col("wasted_tokens").copy()
    timeline = engine.timeline.build(memory.capacity_tokens)
    metrics = compute_metrics(arrival_s=arr, first_token_s=first, finish_s=fin, output_tokens=o,
                              preemptions=pre, wasted_tokens=waste, timeline=timeline,
                              iterations=engine.iterations, slo=slo or SLO())
    per_request = {"arrival_s": arr, "prompt_tokens": p, "output_tokens": o,
                   "reserved_output_tokens": res_first, "first_token_s": first,
                   "finish_s": fin, "ttft_s": first - arr, "e2e_s": fin - arr,
                   "preemptions": pre, "wasted_tokens": waste}
    config = {"dtype": cost.dtype, "max_seq_len": msl, "kv_capacity_tokens": kv.capacity_tokens,
              "compute_efficiency": cost.compute_efficiency,
              "memory_efficiency": cost.memory_efficiency,
              "iteration_overhead_s": cost.iteration_overhead_s,
              "memory_fraction": deployment.memory_fraction, "window": window,
              "max_batch_size": max_batch_size, "seed": seed, "requests_source": reqs.source,
              "calibrated": cost.calibration is not None, "executor": cost.executor.name}
    return ServingResult(policy=policy.name, model=cost.model.name, gpu=cost.gpu.name,
                         tp=cost.tp, metrics=metrics, timeline=timeline, per_request=per_request,
                         config=config)
