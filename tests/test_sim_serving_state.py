"""RunningBatch keeps its columns and context sum right through appends, drops and truncations."""

import numpy as np
import pytest

from archsim.sim.serving import RequestSet
from archsim.sim.serving.state import (
    BATCH_FIELDS,
    BLOCKS,
    GENERATED,
    ID,
    LIMIT,
    OUTPUT,
    PROMPT,
    RequestTable,
    RunningBatch,
)

NAMES = BATCH_FIELDS.names


def _rows(rng, n):
    return {k: rng.integers(0, 1000, n) for k in NAMES}


def _block(rows):
    return np.stack([np.asarray(rows[k], np.int64) for k in NAMES]).reshape(len(NAMES), -1)


@pytest.mark.parametrize("seed", range(5))
def test_columns_follow_a_reference_list_of_rows(seed):
    # reference: the same operations on plain numpy arrays by boolean indexing and slicing
    rng = np.random.default_rng(seed)
    b = RunningBatch(capacity=2)  # tiny: every few appends grow the store
    ref = {k: np.zeros(0, np.int64) for k in NAMES}
    for _ in range(60):
        op = rng.integers(0, 4)
        if op == 0 or b.size == 0:
            rows = _rows(rng, int(rng.integers(0, 9)))
            b.append(_block(rows))
            ref = {k: np.concatenate([ref[k], rows[k]]) for k in NAMES}
        elif op == 1:
            mask = rng.random(b.size) < rng.choice([0.05, 0.3, 0.9])
            gone = b.drop(mask)
            for k in NAMES:
                np.testing.assert_array_equal(gone[NAMES.index(k)], ref[k][mask])
            ref = {k: ref[k][~mask] for k in NAMES}
        elif op == 2:
            keep = int(rng.integers(0, b.size + 1))
            gone = b.truncate(keep)
            for k in NAMES:
                np.testing.assert_array_equal(gone[NAMES.index(k)], ref[k][keep:])
            ref = {k: ref[k][:keep] for k in NAMES}
        else:
            k_steps = int(rng.integers(1, 5))
            b.advance(k_steps)
            ref["generated"] = ref["generated"] + k_steps
        assert b.size == len(ref["id"])
        for k in NAMES:
            np.testing.assert_array_equal(getattr(b, k), ref[k])
        assert b.context_sum == int((ref["prompt"] + ref["generated"]).sum())


def test_gone_rows_do_not_alias_the_batch():
    b = RunningBatch()
    b.append(_block({k: np.arange(5) + 10 * i for i, k in enumerate(NAMES)}))
    gone = b.drop(np.array([True, False, False, True, False]))
    b.append(_block({k: np.full(3, -1) for k in NAMES}))
    np.testing.assert_array_equal(gone[ID], [0, 3])
    np.testing.assert_array_equal(gone[PROMPT], [10, 13])
    np.testing.assert_array_equal(b.id, [1, 2, 4, -1, -1, -1])


def test_new_rows_copy_the_table_columns_as_they_are_now():
    table = RequestTable(RequestSet(np.zeros(4), [3, 5, 7, 9], [10, 20, 30, 40]))
    table.field("generated")[[1, 3]] = [4, 6]  # writes to the table's own columns
    table.field("reserved_output")[:] = [11, 12, 13, 14]
    rows = RunningBatch.new_rows(np.array([3, 1]), table)
    np.testing.assert_array_equal(rows[ID], [3, 1])
    np.testing.assert_array_equal(rows[PROMPT], [9, 5])
    np.testing.assert_array_equal(rows[OUTPUT], [40, 20])
    np.testing.assert_array_equal(rows[GENERATED], [6, 4])
    np.testing.assert_array_equal(rows[LIMIT], [14, 12])
    np.testing.assert_array_equal(rows[BLOCKS], [0, 0])
    rows[GENERATED] += 1  # the rows are a copy: the table keeps its values
    np.testing.assert_array_equal(table.field("generated"), [0, 4, 0, 6])
