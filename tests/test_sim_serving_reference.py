"""The serving engine against a brute-force reference: one Python loop step per iteration.

The reference below is written from the engine's documented semantics only (continuous
batching, FCFS admission with a fixed per-sequence reservation, a decode step attending
over ``prompt + generated`` tokens); it steps every iteration one at a time with plain
Python scalars and lists and knows nothing of event skipping, chunked pricing or the
engine's batch arrays. Only the per-iteration price is shared: the cost model's public
``latency_s`` of the iteration's :class:`BatchShape`.
"""

from __future__ import annotations

import numpy as np
import pytest

from archsim.sim.serving import (
    BatchShape,
    Deployment,
    LengthDistribution,
    RequestSet,
    WorstCasePolicy,
    generate_requests,
    simulate,
)

MAX_SEQ_LEN = 1024
#: ShareGPT-like prompts cut at 512 tokens, so every request fits max_seq_len
PROMPT = LengthDistribution(kind="lognormal", mean=161.31, cv=1.2, max_len=512)


def _reference(dep: Deployment, reqs: RequestSet, reserve_output: list[int],
               max_batch: int | None = None) -> tuple[list[float], list[float], int]:
    """First-token and finish times of every request, and the iteration count.

    ``reserve_output[i]`` is the output tokens reserved for request ``i`` (a reservation
    policy holds ``prompt + reserve_output`` tokens from admission to finish).
    """
    arrival = [float(a) for a in reqs.arrival_s]
    prompt = [int(p) for p in reqs.prompt_tokens]
    output = [min(int(o), MAX_SEQ_LEN - p) for o, p in zip(reqs.output_tokens, prompt,
                                                             strict=True)]
    n = len(arrival)
    capacity = dep.kv_capacity_tokens
    cap = max_batch or n
    first = [float("nan")] * n
    finish = [float("nan")] * n
    running: list[list[int]] = []  # [id, generated]
    queue: list[int] = []
    reserved = 0
    t = 0.0
    nxt = 0
    iterations = 0
    done = 0
    while done < n:
        while nxt < n and arrival[nxt] <= t:
            queue.append(nxt)
            nxt += 1
        if not running and not queue:
            t = arrival[nxt]
            continue
        new: list[int] = []
        while queue and len(running) + len(new) < cap:  # FCFS: stop at the first misfit
            size = prompt[queue[0]] + reserve_output[queue[0]]
            if reserved + size > capacity:
                break
            reserved += size
            new.append(queue.pop(0))
        assert running or new, "reference: nothing can be admitted"
        # one iteration: prefill every new request, decode one token of every running one
        tokens = sum(prompt[i] for i in new) + len(running)
        pairs = sum(prompt[i] ** 2 for i in new) + sum(prompt[i] + g for i, g in running)
        ctx = sum(prompt[i] for i in new) + sum(prompt[i] + g for i, g in running)
        shape = BatchShape(tokens=float(tokens), sequences=float(len(new) + len(running)),
                           attn_pairs=float(pairs), context_tokens=float(ctx))
        t += float(dep.cost.latency_s(shape))
        iterations += 1
        for i in new:
            first[i] = t
            running.append([i, 0])
        for row in running:
            row[1] += 1
        still = []
        for i, g in running:
            if g >= output[i]:
                finish[i] = t
                reserved -= prompt[i] + reserve_output[i]
                done += 1
            else:
                still.append([i, g])
        running = still
    return first, finish, iterations


@pytest.fixture(scope="module")
def tight() -> Deployment:
    # llama-13b on one A100-40GB: ~15k KV tokens, 15 worst-case sequences at once
    return Deployment.build(model="llama-13b", gpu="a100-40gb", max_seq_len=MAX_SEQ_LEN)


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("rate", [20.0, 200.0, None], ids=["poisson20", "poisson200", "offline"])
def test_worst_case_engine_matches_per_iteration_reference(tight, rate, seed):
    # worst-case reservation (max_seq_len per sequence) with FCFS admission
    reqs = generate_requests(50, rate_per_s=rate, dataset="sharegpt", seed=seed, prompt=PROMPT)
    reserve = [MAX_SEQ_LEN - int(p) for p in reqs.prompt_tokens]
    first, finish, iterations = _reference(tight, reqs, reserve)
    res = simulate(tight, reqs, WorstCasePolicy())
    assert res.metrics.iterations == iterations
    # the engine prices a run of decode steps as one cumulative sum, the reference adds
    # step by step: equal up to floating-point rounding of the running time
    np.testing.assert_allclose(res.per_request["first_token_s"], first, rtol=1e-12)
    np.testing.assert_allclose(res.per_request["finish_s"], finish, rtol=1e-12)


def test_engine_matches_reference_with_a_batch_cap(tight):
    reqs = generate_requests(50, rate_per_s=100.0, dataset="sharegpt", seed=7, prompt=PROMPT)
    reserve = [MAX_SEQ_LEN - int(p) for p in reqs.prompt_tokens]
    first, finish, iterations = _reference(tight, reqs, reserve, max_batch=3)
    res = simulate(tight, reqs, WorstCasePolicy(), max_batch_size=3)
    assert res.metrics.iterations == iterations
    np.testing.assert_allclose(res.per_request["first_token_s"], first, rtol=1e-12)
    np.testing.assert_allclose(res.per_request["finish_s"], finish, rtol=1e-12)


def test_reference_exercises_queueing(tight):
    # the offline case must actually queue (memory binds: 14 sequences at once), or the
    # comparison would not cover admissions between decode steps
    reqs = generate_requests(50, rate_per_s=None, dataset="sharegpt", seed=4, prompt=PROMPT)
    first, _, _ = _reference(tight, reqs, [MAX_SEQ_LEN - int(p) for p in reqs.prompt_tokens])
    assert tight.kv_capacity_tokens // MAX_SEQ_LEN == 15
    assert len(set(first)) > 10
