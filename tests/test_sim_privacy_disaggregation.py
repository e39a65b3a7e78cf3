"""Gradient disaggregation: exact recovery without noise, oracle-level error with noise."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.errors import ConfigError, SimulationError
from archsim.sim.privacy import (
    chunk_rounds,
    disaggregate,
    random_participation,
    refine_participation,
    solve_column,
    window_counts,
)


def test_window_counts_match_a_loop():
    p = random_participation(rounds=23, users=4, probability=0.4, seed=3)
    counts = window_counts(p, window_rounds=5)
    assert counts.shape == (5, 4)
    for w in range(5):
        for u in range(4):
            assert counts[w, u] == sum(int(p[r, u]) for r in range(5 * w, min(5 * w + 5, 23)))


def test_chunk_is_the_authors_interval_in_whole_windows():
    assert chunk_rounds(users=20, window_rounds=10) == 100  # max(5*20, 10*10)
    assert chunk_rounds(users=7, window_rounds=20) == 200   # max(35, 200)
    assert chunk_rounds(users=21, window_rounds=10) == 110  # 105 rounded up to windows


@pytest.fixture(scope="module")
def noiseless():
    # the authors' exact-recovery test setting: 200 rounds, 20 users, 200 dims, p 0.1, window 10
    p = random_participation(rounds=200, users=20, probability=0.1, seed=0)
    g = np.random.default_rng(1).normal(size=(20, 200))
    return p, g, disaggregate(p @ g, window_counts(p, window_rounds=10), window_rounds=10,
                              chunk=200)


def test_noiseless_recovery_is_exact(noiseless):
    p, g, res = noiseless
    assert np.array_equal(res.participation, p)
    assert res.solved.all()
    np.testing.assert_allclose(res.updates, g, atol=1e-9)
    assert np.all(res.distances < 1e-6)


def test_recovered_column_beats_a_wrong_one_on_distance(noiseless):
    p, g, _ = noiseless
    # the column space of P g has exactly the columns of P; a binary vector with user 0's
    # window counts but shifted one round inside each window is not in it
    q, _ = np.linalg.qr((p @ g)[:, :20].astype(float))
    wrong = np.roll(p[:, 0], 1)
    assert np.linalg.norm(wrong - q @ (q.T @ wrong)) > 0.1
    assert np.linalg.norm(p[:, 0] - q @ (q.T @ p[:, 0])) < 1e-9


def test_noisy_recovery_matches_the_oracle_least_squares():
    # updates drift across rounds (each participation adds sigma 0.2 noise), as in FedAvg
    rounds, users, dim, sigma = 200, 12, 100, 0.2
    p = random_participation(rounds=rounds, users=users, probability=0.15, seed=5)
    rng = np.random.default_rng(6)
    g = rng.normal(size=(users, dim))
    per_round = g[None] + sigma * rng.normal(size=(rounds, users, dim))
    d = np.einsum("ru,rud->rd", p, per_round)
    res = disaggregate(d, window_counts(p, window_rounds=10), window_rounds=10, chunk=100)
    assert res.chunk_starts == [0, 100]
    assert np.array_equal(res.participation, p)
    # the oracle: least squares with the true P on the same chunks, in numpy
    oracle = np.mean([np.linalg.lstsq(p[lo:lo + 100].astype(float), d[lo:lo + 100],
                                      rcond=None)[0] for lo in (0, 100)], axis=0)
    rel = np.linalg.norm(res.updates - g) / np.linalg.norm(g)
    rel_oracle = np.linalg.norm(oracle - g) / np.linalg.norm(g)
    assert rel == pytest.approx(rel_oracle, rel=1e-9)
    assert 0.01 < rel < 0.2  # noise sigma 0.2 averaged over ~7 participations per chunk


def test_parallel_and_repeated_runs_are_identical():
    p = random_participation(rounds=60, users=6, probability=0.3, seed=9)
    g = np.random.default_rng(10).normal(size=(6, 30))
    counts = window_counts(p, window_rounds=6)
    a = disaggregate(p @ g, counts, window_rounds=6, chunk=60, workers=1)
    b = disaggregate(p @ g, counts, window_rounds=6, chunk=60, workers=2)
    assert np.array_equal(a.participation, b.participation)
    assert np.array_equal(a.updates, b.updates)
    assert np.array_equal(a.participation, p)


def test_bad_inputs_are_named():
    p = random_participation(rounds=20, users=4, probability=0.5, seed=0)
    with pytest.raises(ConfigError, match="only 0 and 1"):
        window_counts(p * 2, window_rounds=5)
    with pytest.raises(ConfigError, match="window_rounds must be a positive integer"):
        window_counts(p, window_rounds=0)
    with pytest.raises(ConfigError, match="counts has 3 windows; 20 rounds in windows of 5 "
                                          "make 4"):
        disaggregate(np.ones((20, 8)), np.ones((3, 4)), window_rounds=5)
    with pytest.raises(ConfigError, match="chunk 12 is not a multiple of window_rounds 5"):
        disaggregate(np.ones((20, 8)), np.ones((4, 4)), window_rounds=5, chunk=12)
    with pytest.raises(SimulationError, match="has 10 rounds but there are 12 users"):
        disaggregate(np.ones((10, 8)), np.ones((2, 12)), window_rounds=5, chunk=10)
    with pytest.raises(ConfigError, match="mip_rel_gap must be in"):
        solve_column(np.eye(4), np.ones(1), window_rounds=4, mip_rel_gap=1.5)
    with pytest.raises(ConfigError, match="probability must be in"):
        random_participation(rounds=3, users=2, probability=0.0, seed=0)


def test_refinement_undoes_a_wrong_round_and_keeps_the_counts():
    p = random_participation(rounds=60, users=6, probability=0.3, seed=11)
    g = np.random.default_rng(12).normal(size=(6, 40))
    d = p @ g
    wrong = p.copy()
    # move user 2's first participation to a round of the same window it skipped
    a = int(np.flatnonzero(p[:, 2])[0])
    window = range(a // 10 * 10, a // 10 * 10 + 10)
    b = next(r for r in window if p[r, 2] == 0)
    wrong[a, 2], wrong[b, 2] = 0, 1
    assert np.array_equal(window_counts(wrong, window_rounds=10),
                          window_counts(p, window_rounds=10))
    fixed, swaps = refine_participation(wrong, d, window_rounds=10)
    assert np.array_equal(fixed, p) and swaps >= 1
    same, none = refine_participation(p, d, window_rounds=10)
    assert np.array_equal(same, p) and none == 0
