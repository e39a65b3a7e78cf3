"""The Bloomier filter: exact for inserted keys, false positives at the closed-form rate."""

from __future__ import annotations

import lzma
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from archsim.errors import ConfigError, SimulationError
from archsim.sim.compress import (
    ABSENT,
    SEED_BITS,
    BloomierFilter,
    false_positive_rate,
    splitmix64,
)


@st.composite
def _case(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
    cell_bits = draw(st.integers(1, 20))
    num_values = draw(st.integers(1, 2**cell_bits))
    keys = draw(st.lists(st.integers(0, 2**63 - 1), unique=True, max_size=300))
    values = draw(st.lists(st.integers(0, num_values - 1), min_size=len(keys),
                           max_size=len(keys)))
    k = draw(st.integers(3, 5))
    seed = draw(st.integers(0, 1000))
    return (np.array(keys, np.uint64), np.array(values, np.int64), cell_bits, num_values, k,
            seed)


@settings(max_examples=150, deadline=None)
@given(_case())
def test_every_inserted_key_returns_its_value_exactly(case):
    keys, values, cell_bits, num_values, k, seed = case
    f = BloomierFilter.build(keys, values, cell_bits=cell_bits, num_values=num_values,
                             num_hashes=k, seed=seed)
    assert np.array_equal(f.query(keys), values)
    assert f.table.max(initial=0) < 2**cell_bits
    assert f.num_keys == len(keys) and seed <= f.seed < seed + f.attempts


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 20_000), cells_per_key=st.floats(1.23, 2.0))
def test_table_size_is_cells_per_key_times_n_in_k_segments(n, cells_per_key):
    rng = np.random.default_rng(n)
    keys = rng.choice(2**40, size=n, replace=False)
    f = BloomierFilter.build(keys, rng.integers(0, 8, n), cell_bits=5, num_values=8,
                             cells_per_key=cells_per_key)
    assert f.num_cells == 3 * math.ceil((cells_per_key * n + 32) / 3)
    assert f.size_bits == f.num_cells * 5 + SEED_BITS
    assert np.array_equal(f.query(keys), f.query(keys))  # decoding is deterministic


@pytest.mark.parametrize(("cell_bits", "value_bits"), [(4, 2), (6, 3), (8, 4), (9, 2)])
def test_false_positive_rate_matches_the_closed_form(cell_bits, value_bits):
    rng = np.random.default_rng(cell_bits)
    universe = 400_000
    inserted = rng.choice(universe, size=50_000, replace=False)
    f = BloomierFilter.build(inserted, rng.integers(0, 2**value_bits, inserted.size),
                             cell_bits=cell_bits, num_values=2**value_bits, seed=cell_bits)
    absent = np.setdiff1d(np.arange(universe), inserted)
    hits = int((f.query(absent) != ABSENT).sum())
    closed = 2.0 ** -(cell_bits - value_bits)
    assert false_positive_rate(cell_bits=cell_bits, num_values=2**value_bits) == closed
    ci = stats.binomtest(hits, absent.size).proportion_ci(0.999, method="exact")
    assert ci.low <= closed <= ci.high, (hits / absent.size, closed)


def test_absent_keys_decode_to_uniform_words():
    rng = np.random.default_rng(1)
    inserted = rng.choice(10**6, size=20_000, replace=False)
    f = BloomierFilter.build(inserted, np.zeros(inserted.size, np.int64), cell_bits=5,
                             num_values=1)
    absent = np.setdiff1d(np.arange(200_000), inserted)
    counts = np.bincount(f.decode(absent), minlength=32)
    assert counts.size == 32
    assert stats.chisquare(counts).pvalue > 1e-3


def test_a_failed_peel_rehashes_with_the_next_seed():
    rng = np.random.default_rng(2)
    keys = rng.choice(2**32, size=300, replace=False)
    values = rng.integers(0, 4, 300)
    kw = dict(cell_bits=4, num_values=4, cells_per_key=1.23, extra_cells=0,
              max_attempts=64)
    rehashed = next(f for s in range(40)
                    if (f := BloomierFilter.build(keys, values, seed=s, **kw)).attempts > 1)
    assert np.array_equal(rehashed.query(keys), values)
    again = BloomierFilter.build(keys, values, seed=rehashed.seed, **kw)
    assert again.attempts == 1 and np.array_equal(again.table, rehashed.table)


def test_below_the_peeling_threshold_no_seed_peels():
    rng = np.random.default_rng(3)
    keys = rng.choice(2**32, size=20_000, replace=False)
    with pytest.raises(SimulationError, match=r"no hash seed in 5\.\.8 peeled 20000 keys"):
        BloomierFilter.build(keys, np.zeros(20_000, np.int64), cell_bits=4, num_values=4,
                             cells_per_key=1.1, seed=5, max_attempts=4)


def test_packed_and_lzma_tables_round_trip():
    rng = np.random.default_rng(4)
    keys = rng.choice(10**6, size=5_000, replace=False)
    values = rng.integers(0, 8, keys.size)
    f = BloomierFilter.build(keys, values, cell_bits=7, num_values=8)
    packed = f.packed_table()
    assert len(packed) == math.ceil(f.num_cells * 7 / 8)
    # Cell 0's 7 bits are the first 7 bits of the stream.
    assert packed[0] >> 1 == f.table[0]
    xz = f.lzma_table()
    assert lzma.decompress(xz) == packed
    assert f.lzma_bits == 8 * len(xz) + SEED_BITS
    for data in (packed, xz):
        g = f.with_packed_table(data)
        assert np.array_equal(g.table, f.table)
        assert np.array_equal(g.query(keys), values)
    with pytest.raises(ConfigError, match="a packed table of 6183 cells of 7 bits has 5411 bytes, not 3"):
        f.with_packed_table(b"abc")


def test_splitmix64_matches_the_reference_outputs():
    # SplitMix64 with state 0 (Vigna's splitmix64.c): the first outputs are the finalizer of
    # k * 0x9E3779B97F4A7C15, i.e. splitmix64((k - 1) * golden) here.
    golden = 0x9E3779B97F4A7C15
    states = np.array([0, golden, (2 * golden) % 2**64], np.uint64)
    assert [int(v) for v in splitmix64(states)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(cell_bits=0, num_values=1), "cell_bits must be an int in 1..32, not 0"),
    (dict(cell_bits=3, num_values=9), "num_values must be an int in 1..2\\*\\*cell_bits = 8"),
    (dict(cell_bits=3, num_values=8, num_hashes=1), "num_hashes must be an int in 2..8"),
    (dict(cell_bits=3, num_values=8, cells_per_key=0.9), "cells_per_key must be a number >= 1"),
    (dict(cell_bits=3, num_values=8, seed=-1), "seed must be an int in 0..576460752303423488"),
    (dict(cell_bits=3, num_values=2), "values must be in 0..1, found 0..2"),
])
def test_bad_arguments_name_the_field(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        BloomierFilter.build(np.array([1, 2, 3]), np.array([0, 1, 2]), **kwargs)


def test_bad_keys_name_the_problem():
    with pytest.raises(ConfigError, match="keys must be distinct"):
        BloomierFilter.build(np.array([1, 1]), np.array([0, 0]), cell_bits=2, num_values=2)
    with pytest.raises(ConfigError, match="keys must be non-negative, found -4"):
        BloomierFilter.build(np.array([1, -4]), np.array([0, 0]), cell_bits=2, num_values=2)
    with pytest.raises(ConfigError, match="values has shape"):
        BloomierFilter.build(np.array([1, 2]), np.array([0]), cell_bits=2, num_values=2)
    with pytest.raises(ConfigError, match="keys must be integers"):
        BloomierFilter.build(np.array([1.5]), np.array([0]), cell_bits=2, num_values=2)
