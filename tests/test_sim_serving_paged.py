"""Paged KV manager: its incremental accounting equals a from-scratch recount at every step.

The manager is driven as the engine drives it (make_room, admission, decode runs,
finishes, recompute or swap preemption) through random sequences, and checked at
every step against a reference that keeps each row's blocks by the plain rule --
``max(held, ceil(span / block_tokens))`` over the tokens a step attends over -- and
recounts every quantity from it: blocks in use, what admission may take, each
request's admission size, the longest run the pool covers (by trying every length)
and the victims of a preemption (by trying every cut of the batch).
"""

import numpy as np
import pytest

from archsim.sim.serving import RequestSet
from archsim.sim.serving.memory import KVCache, PagedBlockManager
from archsim.sim.serving.state import BLOCKS, GENERATED, ID, RequestTable, RunningBatch


def _ceil(tokens, block_tokens):
    return -(-np.asarray(tokens, np.int64) // block_tokens)


def _need(held, ids, span, block_tokens):
    """Blocks rows ``ids`` (holding ``held[id]``) need on top of theirs to cover ``span`` each."""
    h = np.array([held[i] for i in ids], np.int64)
    return int(np.maximum(_ceil(span, block_tokens) - h, 0).sum())


def _drive(seed, *, block_tokens, swap, capacity_tokens, watermark, steps=400):
    rng = np.random.default_rng(seed)
    n = 120
    reqs = RequestSet(np.zeros(n), rng.integers(1, 60, n), rng.integers(1, 90, n))
    table = RequestTable(reqs)
    kv = KVCache(capacity_tokens=capacity_tokens, max_seq_len=256, kv_bytes_per_token=1e3,
                 host_bw_bytes_per_s=1e9)
    m = PagedBlockManager(kv, table, block_tokens=block_tokens, swap=swap, watermark=watermark)
    cap = capacity_tokens // block_tokens
    wm = int(watermark * cap)
    prompt, output, generated = (table.field(k) for k in ("prompt", "output", "generated"))
    swapped = table.field("swapped")
    batch = RunningBatch(capacity=2)
    held: dict[int, int] = {}  # reference: blocks each running request holds
    queue = list(range(n))
    preemptions = swap_ins = 0

    for _ in range(steps):
        if batch.size == 0 and not queue:
            break
        ref_used = sum(held.values())
        ctx = batch.prompt + batch.generated
        need = _need(held, batch.id.tolist(), ctx, block_tokens)
        free = cap - ref_used
        ids_before = batch.id.tolist()
        victims, dt = m.make_room(batch)
        if need > free:  # reference: keep the longest prefix the freed blocks let through
            keep = next(j for j in range(len(ids_before), -1, -1)
                        if _need(held, ids_before[:j], ctx[:j], block_tokens)
                        <= free + sum(held[i] for i in ids_before[j:]))
            assert victims[ID].tolist() == ids_before[keep:]
            freed = sum(held[i] for i in ids_before[keep:])
            assert dt == (pytest.approx(freed * block_tokens * 1e3 / 1e9) if swap else 0.0)
            for i in ids_before[keep:]:
                del held[i]
            generated[victims[ID]] = victims[GENERATED]  # as the engine records them
            queue = victims[ID].tolist() + queue
            preemptions += victims.shape[1]
        else:
            assert victims.shape[1] == 0 and dt == 0.0
        assert m.reserved == sum(held.values()) == int(batch.blocks.sum())
        if queue and batch.size < 40 and rng.random() < 0.6:  # an admission
            ref_need = _need(held, batch.id.tolist(), batch.prompt + batch.generated,
                             block_tokens)
            room = cap - sum(held.values()) - ref_need - wm
            assert m.free_for_admission() == room
            window = np.array(queue[:6], np.int64)
            sizes = _ceil(prompt[window] + generated[window], block_tokens)  # tokens so far
            np.testing.assert_array_equal(m.sizes_of(window), sizes)
            np.testing.assert_array_equal(m.fits(window), sizes <= cap - sum(held.values()) - wm)
            c = int(np.searchsorted(np.cumsum(sizes), room, side="right"))
            if c:
                new = window[:c]
                del queue[:c]
                was_swapped = swapped[new].copy()
                sizes = sizes[:c]
                rows = RunningBatch.new_rows(new, table)
                prefill, dt = m.admit(batch, rows)
                np.testing.assert_array_equal(prefill, ~was_swapped)
                swap_ins += int(was_swapped.sum())
                assert dt == pytest.approx(float(sizes[was_swapped].sum()) * block_tokens
                                           * 1e3 / 1e9)
                assert not swapped[new].any()
                ctx = batch.prompt + batch.generated
                for i, c_i in zip(batch.id.tolist(), ctx.tolist(), strict=True):
                    held[i] = max(held[i], int(_ceil(c_i, block_tokens)))
                for i, s in zip(new.tolist(), sizes.tolist(), strict=True):
                    held[i] = s
                np.testing.assert_array_equal(rows[BLOCKS], sizes)
                if swap or rng.random() < 0.5:  # a mixed iteration: everyone steps
                    batch.advance(1)
                    rows[GENERATED] += 1
                else:  # a prefill-only iteration (vLLM): running rows stall
                    rows[GENERATED][prefill] += 1
                batch.append(rows)
        elif batch.size:  # a decode run
            k = int(rng.integers(1, 12))
            ctx = batch.prompt + batch.generated
            free = cap - sum(held.values())
            ids = batch.id.tolist()
            ref_k = max(j for j in range(1, k + 1)
                        if j == 1 or _need(held, ids, ctx + j - 1, block_tokens) <= free)
            got = m.limit_run(batch, k)
            assert got == ref_k
            if rng.random() < 0.2 and got > 1:
                got -= 1  # the engine may stop the run early (an arrival)
            m.grow(batch, got, 0)
            for i, c_i in zip(batch.id.tolist(), (ctx + got - 1).tolist(), strict=True):
                held[i] = max(held[i], int(_ceil(c_i, block_tokens)))
            batch.advance(got)
        assert m.reserved == sum(held.values())
        np.testing.assert_array_equal(batch.blocks, [held[i] for i in batch.id.tolist()])
        done = batch.generated >= np.minimum(batch.output, 255 - batch.prompt)
        if done.any():
            rows = batch.drop(done)
            generated[rows[ID]] = rows[GENERATED]
            table.field("finish_s")[rows[ID]] = 1.0
            m.release(rows)
            for i in rows[ID].tolist():
                del held[i]
        assert m.reserved == sum(held.values())
        assert m.consistent(batch)
    return preemptions, swap_ins


@pytest.mark.parametrize("swap", [False, True], ids=["recompute", "swap"])
@pytest.mark.parametrize("block_tokens", [1, 4, 16])
@pytest.mark.parametrize("seed", range(3))
def test_incremental_accounting_equals_a_recount(seed, block_tokens, swap):
    preemptions, swap_ins = _drive(seed, block_tokens=block_tokens, swap=swap,
                                   capacity_tokens=1200, watermark=0.02)
    assert preemptions > 0  # the pool is tight enough to exercise preemption
    if swap:
        assert swap_ins > 0


def test_consistent_detects_a_wrong_count():
    reqs = RequestSet(np.zeros(3), [5, 9, 20], [4, 4, 4])
    table = RequestTable(reqs)
    kv = KVCache(capacity_tokens=256, max_seq_len=64, kv_bytes_per_token=1.0,
                 host_bw_bytes_per_s=1.0)
    m = PagedBlockManager(kv, table, block_tokens=4, swap=False, watermark=0.0)
    batch = RunningBatch()
    m.make_room(batch)
    rows = RunningBatch.new_rows(np.array([0, 1]), table)
    m.admit(batch, rows)
    np.testing.assert_array_equal(rows[BLOCKS], [2, 3])  # ceil(5 / 4), ceil(9 / 4)
    batch.append(rows)
    assert m.consistent(batch)
    m.reserved += 1
    assert not m.consistent(batch)
