"""Iteration-level (Orca-style continuous batching) serving engine, event-driven.

Every iteration runs one forward pass over the batch: newly admitted sequences
do their prefill (prompt, plus already generated tokens when a preempted
sequence is recomputed) and every running sequence decodes one token. Between
events -- an admission, a finish, a preemption, an arrival that could be
admitted, a paged sequence needing a block the pool cannot give -- the batch
is constant, so runs of decode iterations are costed at once with the
vectorized closed forms of :class:`~archsim.sim.serving.config.CostModel`
(identical, iteration by iteration, to stepping them one at a time).

KV-cache accounting: after ``g`` generated tokens a sequence holds ``prompt +
g - 1`` tokens of KV; its next decode step attends over ``prompt + g``.
"""

from __future__ import annotations

from collections import deque
from itertools import islice

import numpy as np

from ...errors import ConfigError, SimulationError
from .config import Deployment
from .metrics import SLO, ServingResult, Timeline, compute_metrics
from .policies import MemoryPolicy
from .requests import RequestSet

__all__ = ["simulate"]


def _admit_fcfs(queue: deque, sizes_of, free: float, slots: int, window: int) -> np.ndarray:
    """Admit from the head while each next request fits (head-of-line blocking)."""
    ids = np.fromiter(islice(queue, min(window, slots)), dtype=np.int64)
    if ids.size == 0:
        return ids
    c = int(np.searchsorted(np.cumsum(sizes_of(ids)), free, side="right"))
    for _ in range(c):
        queue.popleft()
    return ids[:c]


def _admit_dff(queue: deque, sizes_of, free: float, slots: int, window: int) -> np.ndarray:
    """Decreasing first fit over the first ``window`` queued requests (one memory pool)."""
    m = min(window, len(queue))
    ids = np.array([queue.popleft() for _ in range(m)], dtype=np.int64)
    sizes = sizes_of(ids)
    order = np.argsort(sizes, kind="stable")
    asc = sizes[order]
    chosen: list[int] = []
    hi = m
    while len(chosen) < slots and hi > 0:
        j = int(np.searchsorted(asc[:hi], free, side="right")) - 1
        if j < 0:
            break
        chosen.append(int(order[j]))  # the largest request that still fits
        free -= asc[j]
        hi = j
    mask = np.zeros(m, bool)
    mask[chosen] = True
    queue.extendleft(ids[~mask][::-1].tolist())
    return ids[np.sort(np.array(chosen, dtype=np.int64))] if chosen else ids[:0]


def simulate(
    deployment: Deployment,
    requests: RequestSet,
    policy: MemoryPolicy,
    *,
    seed: int = 0,
    max_batch_size: int | None = None,
    window: int = 256,
    slo: SLO = SLO(),
    progress: bool = False,
    max_decode_run: int | None = None,
) -> ServingResult:
    """Serve ``requests`` under ``policy`` and return metrics, timeline and per-request times.

    Parameters
    ----------
    deployment
        Model, GPUs and KV-cache capacity.
    requests
        Arrivals and true lengths; outputs longer than ``max_seq_len - prompt``
        are cut to fit (as a serving framework stops at its maximum length).
    policy
        A :class:`~archsim.sim.serving.policies.MemoryPolicy`.
    seed
        Seeds the predictor's sampling.
    max_batch_size
        Optional cap on running sequences (``None``: memory is the only limit).
    window
        How many queued requests the scheduler considers per admission.
    slo
        Latency objectives for the SLO-attainment metric.
    progress
        Show a rich progress bar.
    max_decode_run
        Cap on decode iterations costed at once between events (``1`` steps every
        iteration; results are the same up to floating-point rounding).
    """
    if max_batch_size is not None and (not isinstance(max_batch_size, int) or max_batch_size < 1):
        raise ConfigError(f"must be a positive integer, not {max_batch_size!r}",
                          field="max_batch_size")
    if not isinstance(window, int) or window < 1:
        raise ConfigError(f"must be a positive integer, not {window!r}", field="window")
    if max_decode_run is not None and (not isinstance(max_decode_run, int) or max_decode_run < 1):
        raise ConfigError(f"must be a positive integer, not {max_decode_run!r}",
                          field="max_decode_run")
    msl = deployment.max_seq_len
    reqs = requests.clipped(msl)
    cost = deployment.cost
    n = len(reqs)
    arr, p, o = reqs.arrival_s, reqs.prompt_tokens, reqs.output_tokens
    rng = np.random.default_rng(seed)
    cap = deployment.kv_capacity_tokens
    res_out = np.asarray(policy.reserve_output(p, o, msl, rng), np.int64)
    if res_out.shape != (n,):
        raise ConfigError(f"policy '{policy.name}' returned {res_out.shape} reservations for "
                          f"{n} requests", field="policy")
    res_first = res_out.copy()
    paged = policy.kind == "paged"
    repredicts = policy.preempts and not paged
    bt = int(getattr(policy, "block_tokens", 1))
    cap_blocks = cap // bt
    wm_blocks = int(getattr(policy, "watermark", 0.0) * cap_blocks) if paged else 0
    swap = paged and getattr(policy, "preemption", "") == "swap"
    kvb = cost.kv_bytes_per_token
    host_bw = cost.gpu.pcie_bw_bytes_per_s * cost.tp

    gen = np.zeros(n, np.int64)  # generated tokens of requests not running (synced on exit)
    swapped = np.zeros(n, bool)
    first = np.full(n, np.nan)
    fin = np.full(n, np.nan)
    pre = np.zeros(n, np.int64)
    waste = np.zeros(n, np.int64)
    queue: deque[int] = deque()
    reserved = 0  # reservation mode: tokens; paged: blocks in use
    batch_cap = max_batch_size or n
    admit = _admit_dff if policy.order == "dff" else _admit_fcfs
    # the running batch, in admission order, as parallel arrays: id, prompt, output,
    # generated, reserved output (reservation mode) and KV blocks held (paged)
    empty = np.empty(0, np.int64)
    run, rp, ro, rg, rlim, rblk = empty, empty, empty, empty, empty, empty

    def res_sizes(ids: np.ndarray) -> np.ndarray:
        return p[ids] + res_out[ids]

    def block_sizes(ids: np.ndarray) -> np.ndarray:
        return -(-(p[ids] + gen[ids]) // bt)

    sizes_of = block_sizes if paged else res_sizes
    lat_fn = cost.iteration_latency_s
    tl_t: list[float] = []
    tl_b: list[int] = []
    tl_r: list[int] = []
    tl_u: list[int] = []
    t = 0.0
    i_arr = 0
    n_done = 0
    iters = 0
    bar = None
    if progress:
        from rich.progress import Progress

        bar = Progress(transient=True)
        bar.start()
        task = bar.add_task(f"serving ({policy.name})", total=n)
    try:
        while n_done < n:
            if i_arr < n and arr[i_arr] <= t:
                j = int(np.searchsorted(arr, t, side="right"))
                queue.extend(range(i_arr, j))
                i_arr = j
            if run.size == 0 and not queue:
                t = float(arr[i_arr])
                continue
            preempted_now = False
            need0 = empty
            need0_sum = 0
            if paged and run.size:
                need0 = np.maximum(-(-(rp + rg) // bt) - rblk, 0)
                need0_sum = int(need0.sum())
                free_b = cap_blocks - reserved
                if need0_sum > free_b:  # preempt the most recently admitted (vLLM)
                    tail_need = np.concatenate(([0], np.cumsum(need0[::-1])))
                    tail_held = np.concatenate(([0], np.cumsum(rblk[::-1])))
                    keep = run.size - int(np.argmax(need0_sum - tail_need <= free_b + tail_held))
                    victims = run[keep:]
                    freed = int(rblk[keep:].sum())
                    reserved -= freed
                    gen[victims] = rg[keep:]
                    if swap:
                        t += freed * bt * kvb / host_bw
                        swapped[victims] = True
                    pre[victims] += 1
                    queue.extendleft(victims[::-1].tolist())
                    run, rp, ro, rg, rlim, rblk, need0 = (
                        a[:keep] for a in (run, rp, ro, rg, rlim, rblk, need0))
                    need0_sum = int(need0.sum())
                    preempted_now = True
            new = empty
            slots = batch_cap - run.size
            if queue and slots > 0 and not preempted_now:
                free = (cap_blocks - reserved - need0_sum - wm_blocks) if paged \
                    else cap - reserved
                new = admit(queue, sizes_of, free, slots, window)
            if run.size == 0 and new.size == 0:
                head = queue[0]
                raise SimulationError(
                    f"request {head} (prompt {p[head]} tokens) cannot be admitted into an empty "
                    f"engine with {cap} KV-cache tokens", signal="kv_cache", expected=cap,
                    actual=int(sizes_of(np.array([head]))[0]) * (bt if paged else 1))
            ctx_run = rp + rg  # each running sequence's next attention span
            ctx_run_sum = int(ctx_run.sum())
            tl_t.append(t)
            tl_b.append(run.size + new.size)
            tl_u.append(ctx_run_sum - run.size)  # KV held: prompt + generated - 1 each
            if new.size:
                np_, ng, no, nlim = p[new], gen[new], o[new], res_out[new]
                if paged:
                    rblk = rblk + need0
                    nb = -(-(np_ + ng) // bt)
                    reserved += need0_sum + int(nb.sum())
                    sw = swapped[new]
                    if sw.any():  # swap the KV cache back in; no recompute
                        t += float(nb[sw].sum()) * bt * kvb / host_bw
                        swapped[new[sw]] = False
                    pf = ~sw
                else:
                    nb = np.zeros(new.size, np.int64)
                    reserved += int((np_ + nlim).sum())
                    pf = np.ones(new.size, bool)
                tl_r.append(reserved * bt if paged else reserved)
                if reserved > (cap_blocks if paged else cap):
                    raise SimulationError("KV-cache allocation exceeds capacity",
                                          signal="kv_cache", cycle=iters,
                                          expected=cap, actual=reserved * (bt if paged else 1))
                n_i = (np_ + ng)[pf]
                g_pf = ng[pf]
                if g_pf.any():  # recompute of preempted sequences re-encodes their tokens
                    waste[new[pf]] += np.where(g_pf > 0, n_i, 0)
                sum_n = int(n_i.sum())
                n_dec = run.size + (new.size - n_i.size)
                sum_c = ctx_run_sum + int((np_ + ng)[~pf].sum())
                t += lat_fn(float(sum_n + n_dec), float(n_i.size + n_dec),
                            float(int((n_i * n_i).sum()) + sum_c), float(sum_n + sum_c))
                fresh = new[np.isnan(first[new])]
                first[fresh] = t
                run = np.concatenate((run, new))
                rp = np.concatenate((rp, np_))
                ro = np.concatenate((ro, no))
                rg = np.concatenate((rg + 1, ng + 1))
                rlim = np.concatenate((rlim, nlim))
                rblk = np.concatenate((rblk, nb))
                iters += 1
            else:
                tl_r.append(reserved * bt if paged else reserved)
                k = int((ro - rg).min())
                if repredicts:
                    k = min(k, int((rlim - rg).min()))
                if max_decode_run is not None:
                    k = min(k, max_decode_run)
                free_b = cap_blocks - reserved
                if paged and k > 1:  # the longest run whose block growth the free pool covers
                    lo, hi = 1, k
                    while lo < hi:
                        mid = (lo + hi + 1) // 2
                        need = int(np.maximum(-(-(ctx_run + (mid - 1)) // bt) - rblk, 0).sum())
                        if need <= free_b:
                            lo = mid
                        else:
                            hi = mid - 1
                    k = lo
                r = float(run.size)
                if k == 1:
                    ends = np.array([t + lat_fn(r, r, float(ctx_run_sum), float(ctx_run_sum))])
                else:
                    ctxs = ctx_run_sum + r * np.arange(k, dtype=float)
                    ends = t + np.cumsum(lat_fn(r, r, ctxs, ctxs))
                if i_arr < n and arr[i_arr] < ends[-1] and slots > 0:
                    j_end = int(np.searchsorted(arr, ends[-1], side="left"))
                    cand = np.arange(i_arr, j_end)
                    if policy.order == "fcfs":  # only a request at the head can be admitted
                        cand = cand[:1] if not queue else cand[:0]
                    if paged:
                        fits = block_sizes(cand) <= free_b - wm_blocks
                    else:
                        fits = res_sizes(cand) <= cap - reserved
                    hit = np.flatnonzero(fits)
                    if hit.size:
                        a = arr[cand[hit[0]]]
                        k = min(k, int(np.searchsorted(ends, a, side="left")) + 1)
                t = float(ends[k - 1])
                rg = rg + k
                iters += k
                if paged:
                    grown = np.maximum(-(-(ctx_run + (k - 1)) // bt), rblk)
                    reserved += int((grown - rblk).sum())
                    rblk = grown
                    if reserved > cap_blocks:
                        raise SimulationError("KV-cache blocks exceed capacity",
                                              signal="kv_cache", cycle=iters,
                                              expected=cap_blocks, actual=reserved)
            done = rg >= ro
            if done.any():
                ids = run[done]
                fin[ids] = t
                gen[ids] = rg[done]
                n_done += ids.size
                reserved -= int(rblk[done].sum()) if paged else int((rp[done] + rlim[done]).sum())
                keep = ~done
                run, rp, ro, rg, rlim, rblk = (a[keep] for a in (run, rp, ro, rg, rlim, rblk))
                if bar is not None:
                    bar.update(task, completed=n_done)
            if repredicts and run.size:
                over = rg >= rlim
                if over.any():  # outgrew the reservation: preempt, re-predict, re-queue first
                    ids = run[over]
                    reserved -= int((rp[over] + rlim[over]).sum())
                    gen[ids] = rg[over]
                    res_out[ids] = policy.repredict(p[ids], o[ids], gen[ids], msl, rng)
                    pre[ids] += 1
                    keep = ~over
                    run, rp, ro, rg, rlim, rblk = (a[keep] for a in (run, rp, ro, rg, rlim, rblk))
                    queue.extendleft(ids[::-1].tolist())
    finally:
        if bar is not None:
            bar.stop()

    timeline = Timeline(np.array(tl_t), np.array(tl_b, np.int64), np.array(tl_r, np.int64),
                        np.array(tl_u, np.int64), capacity_tokens=cap_blocks * bt if paged
                        else cap)
    metrics = compute_metrics(arrival_s=arr, first_token_s=first, finish_s=fin, output_tokens=o,
                              preemptions=pre, wasted_tokens=waste, timeline=timeline,
                              iterations=iters, slo=slo)
    per_request = {"arrival_s": arr, "prompt_tokens": p, "output_tokens": o,
                   "reserved_output_tokens": res_first, "first_token_s": first,
                   "finish_s": fin, "ttft_s": first - arr, "e2e_s": fin - arr,
                   "preemptions": pre, "wasted_tokens": waste}
    config = {"dtype": cost.dtype, "max_seq_len": msl, "kv_capacity_tokens": cap,
              "compute_efficiency": cost.compute_efficiency,
              "memory_efficiency": cost.memory_efficiency,
              "iteration_overhead_s": cost.iteration_overhead_s,
              "memory_fraction": deployment.memory_fraction, "window": window,
              "max_batch_size": max_batch_size, "seed": seed, "requests_source": reqs.source,
              "calibrated": cost.calibration is not None}
    return ServingResult(policy=policy.name, model=cost.model.name, gpu=cost.gpu.name,
                         tp=cost.tp, metrics=metrics, timeline=timeline, per_request=per_request,
                         config=config)
