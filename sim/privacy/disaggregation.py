"""Gradient disaggregation: individual updates from secure aggregates plus analytics.

Lam et al. (ICML 2021) model ``rounds`` rounds of federated learning in which the server sees
only the sum of the participants' updates, ``D = P G`` (``P`` the binary rounds x users
participation matrix, ``G`` the users x dim updates), and per-user *participation analytics*:
how many times each user took part in each window of ``window_rounds`` rounds. Every column
of ``P`` lies in the column space of ``D`` (when ``dim >= users`` and ``G`` has full rank),
so each user's column is the binary vector that matches its window counts and lies in that
space. The authors solve a quadratic binary program per user with Gurobi; here the distance
to the column space is measured in the L1 norm, which makes the program linear and lets
scipy's ``milp`` (HiGHS) solve it::

    minimize  sum(t)
    over      x in {0, 1}^rounds, c in R^rank, t >= 0
    s.t.      -t <= x - Q c <= t            (Q: orthonormal basis of D's rank-r column space)
              sum(x[window]) == count       (one row per window of the analytics)

In the noiseless case the true column reaches ``sum(t) == 0``. Then ``G* = lstsq(P*, D)``.
As in the authors' code, rounds are processed in chunks of
``max(5 users, 10 window_rounds)`` rounds (rounded up to whole windows), the column space of
each chunk is truncated to rank ``users`` (which removes part of the drift of the updates
across rounds in FedAvg), and the per-chunk update estimates are averaged. Users are solved
independently, in a process pool when ``workers > 1``.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array, hstack, identity, vstack

from ...errors import ConfigError, SimulationError

__all__ = [
    "DEFAULT_MIP_REL_GAP",
    "window_counts",
    "chunk_rounds",
    "solve_column",
    "ColumnSolve",
    "Disaggregation",
    "disaggregate",
    "random_participation",
    "refine_participation",
]


def _check_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ConfigError(f"{name} must be a positive integer, not {value!r}", field=name)
    return int(value)


def _check_matrix(a: np.ndarray, name: str, ndim: int = 2) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != ndim:
        raise ConfigError(f"{name} must be a {ndim}-D array, not shape {arr.shape}", field=name)
    if arr.size == 0:
        raise ConfigError(f"{name} is empty (shape {arr.shape})", field=name)
    return arr


def window_counts(participation: np.ndarray, *, window_rounds: int) -> np.ndarray:
    """The participation analytics: how often each user took part in each window of rounds.

    Parameters
    ----------
    participation : numpy.ndarray
        ``(rounds, users)`` binary participation matrix.
    window_rounds : int
        Rounds per window; windows are consecutive and non-overlapping, the last one may be
        shorter.

    Returns
    -------
    numpy.ndarray
        ``(windows, users)`` int64 counts, ``windows = ceil(rounds / window_rounds)``.
    """
    p = _check_matrix(participation, "participation")
    _check_int(window_rounds, "window_rounds")
    if not np.isin(p, (0, 1)).all():
        raise ConfigError("participation must hold only 0 and 1", field="participation")
    rounds = p.shape[0]
    starts = np.arange(0, rounds, window_rounds)
    return np.add.reduceat(p.astype(np.int64), starts, axis=0)


def chunk_rounds(*, users: int, window_rounds: int) -> int:
    """The authors' chunk length, ``max(5 users, 10 window_rounds)``, rounded up to whole
    windows so every chunk's analytics are whole windows."""
    _check_int(users, "users")
    _check_int(window_rounds, "window_rounds")
    interval = max(5 * users, 10 * window_rounds)
    return int(math.ceil(interval / window_rounds) * window_rounds)


def random_participation(*, rounds: int, users: int, probability: float, seed: int
                         ) -> np.ndarray:
    """A ``(rounds, users)`` int8 matrix, each user joining each round with ``probability``
    independently (a test double and the participation model of the study's FedAvg run)."""
    _check_int(rounds, "rounds")
    _check_int(users, "users")
    if not 0.0 < probability <= 1.0:
        raise ConfigError(f"participation probability must be in (0, 1], not {probability}",
                          field="probability")
    rng = np.random.default_rng(seed)
    return (rng.random((rounds, users)) < probability).astype(np.int8)


def _basis(aggregates: np.ndarray, rank: int) -> np.ndarray:
    """An orthonormal basis of the rank-``rank`` truncated column space of ``aggregates``."""
    u, s, _ = np.linalg.svd(np.asarray(aggregates, dtype=np.float64), full_matrices=False)
    # keep singular vectors above round-off only: a zero aggregate matrix has no column space
    tol = s[0] * max(aggregates.shape) * np.finfo(np.float64).eps if s.size else 0.0
    keep = min(rank, int(np.count_nonzero(s > tol)))
    return u[:, :keep]


@dataclass(frozen=True, kw_only=True)
class ColumnSolve:
    """One user's column of ``P`` over one chunk.

    Attributes
    ----------
    column : numpy.ndarray
        ``(rounds,)`` int8 recovered participation.
    distance : float
        ``sum(t)``: the L1 distance from the column to the aggregates' column space.
    solved : bool
        Whether HiGHS stopped within its gap. False: out of time (the column is its best
        integer solution so far) or no integer solution at all (the column is all zeros and
        ``distance`` infinite).
    time_s : float
        Wall time of the solve.
    """

    column: np.ndarray
    distance: float
    solved: bool
    time_s: float


#: HiGHS stops once its incumbent is within this relative gap of its dual bound. In the
#: noiseless case the optimum is 0 and the gap does not matter; with noise the true column
#: sits at the noise floor and the LP bound rises slowly, so proving optimality (gap 0) is
#: what costs: on 20 users x 100 rounds, sigma 0.2, gap 0 took 19 s and gap 0.5 0.9 s for the
#: same 20/20 exactly recovered columns (measured; the attack's results are always checked
#: against the true P, never assumed).
DEFAULT_MIP_REL_GAP = 0.5


def solve_column(basis: np.ndarray, counts: np.ndarray, *, window_rounds: int,
                 time_limit_s: float = 60.0,
                 mip_rel_gap: float = DEFAULT_MIP_REL_GAP,
                 node_limit: int | None = None) -> ColumnSolve:
    """Recover one user's participation over a chunk: the MILP of the module docstring.

    Parameters
    ----------
    basis : numpy.ndarray
        ``(rounds, rank)`` orthonormal basis of the aggregates' column space.
    counts : numpy.ndarray
        ``(windows,)`` the user's participation count per window of ``window_rounds``.
    window_rounds : int
        Rounds per window (the last window may be shorter).
    time_limit_s : float
        HiGHS's time limit for this column.
    mip_rel_gap : float
        HiGHS's relative optimality gap (:data:`DEFAULT_MIP_REL_GAP`).
    node_limit : int, optional
        HiGHS's branch-and-bound node limit: unlike the time limit, it stops at the same
        point on every machine, so a run under it is deterministic.
    """
    if not 0.0 <= mip_rel_gap < 1.0:
        raise ConfigError(f"mip_rel_gap must be in [0, 1), not {mip_rel_gap}",
                          field="mip_rel_gap")
    if not time_limit_s > 0:
        raise ConfigError(f"time_limit_s must be > 0, not {time_limit_s}", field="time_limit_s")
    if node_limit is not None:
        _check_int(node_limit, "node_limit")
    q = _check_matrix(basis, "basis")
    cnt = _check_matrix(counts, "counts", ndim=1)
    _check_int(window_rounds, "window_rounds")
    rounds, rank = q.shape
    windows = int(math.ceil(rounds / window_rounds))
    if cnt.shape[0] != windows:
        raise ConfigError(f"counts has {cnt.shape[0]} windows; {rounds} rounds in windows of "
                          f"{window_rounds} make {windows}", field="counts")
    start = time.perf_counter()
    # variables: x (rounds, binary) | c (rank, free) | t (rounds, >= 0)
    n_var = 2 * rounds + rank
    eye = identity(rounds, format="csr")
    qs = csr_array(q)
    # x - Q c - t <= 0  and  x - Q c + t >= 0
    upper = hstack([eye, -qs, -eye])
    lower = hstack([eye, -qs, eye])
    win_rows = np.repeat(np.arange(windows), window_rounds)[:rounds]
    win = csr_array((np.ones(rounds), (win_rows, np.arange(rounds))),
                    shape=(windows, n_var))
    a = vstack([upper, lower, win], format="csr")
    lo = np.concatenate([np.full(rounds, -np.inf), np.zeros(rounds), cnt.astype(float)])
    hi = np.concatenate([np.zeros(rounds), np.full(rounds, np.inf), cnt.astype(float)])
    cost = np.concatenate([np.zeros(rounds + rank), np.ones(rounds)])
    integrality = np.concatenate([np.ones(rounds), np.zeros(rounds + rank)])
    bounds = Bounds(np.concatenate([np.zeros(rounds), np.full(rank, -np.inf),
                                    np.zeros(rounds)]),
                    np.concatenate([np.ones(rounds), np.full(rank, np.inf),
                                    np.full(rounds, np.inf)]))
    options: dict[str, float | int | bool] = {"disp": False, "time_limit": float(time_limit_s),
                                              "mip_rel_gap": float(mip_rel_gap)}
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    res = milp(cost, constraints=LinearConstraint(a, lo, hi), integrality=integrality,
               bounds=bounds, options=options)
    elapsed = time.perf_counter() - start
    if res.x is None:  # infeasible, or no integer solution found within the time limit
        return ColumnSolve(column=np.zeros(rounds, np.int8), distance=math.inf, solved=False,
                           time_s=elapsed)
    # on a time or node limit HiGHS returns its best integer solution so far: kept, not marked solved
    column = np.rint(res.x[:rounds]).astype(np.int8)
    return ColumnSolve(column=column, distance=float(res.fun), solved=res.status == 0,
                       time_s=elapsed)


def _solve_users(args: tuple[np.ndarray, np.ndarray, int, float, float, int | None]
                 ) -> list[ColumnSolve]:
    basis, counts, window_rounds, time_limit_s, gap, nodes = args
    return [solve_column(basis, counts[:, j], window_rounds=window_rounds,
                         time_limit_s=time_limit_s, mip_rel_gap=gap, node_limit=nodes)
            for j in range(counts.shape[1])]


@dataclass(frozen=True, kw_only=True, eq=False)
class Disaggregation:
    """What the attack recovered.

    Attributes
    ----------
    participation : numpy.ndarray
        ``(rounds, users)`` int8 recovered ``P*``.
    updates : numpy.ndarray
        ``(users, dim)`` recovered ``G*``, averaged over the chunks each user took part in
        (NaN rows for a user never seen in any chunk).
    chunk_updates : list of numpy.ndarray
        The per-chunk ``(users, dim)`` estimates (NaN rows where a user is absent).
    chunk_starts : list of int
        The first round of each chunk.
    distances : numpy.ndarray
        ``(chunks, users)`` L1 distance of each recovered column to the column space.
    solved : numpy.ndarray
        ``(chunks, users)`` bool, whether each MILP was solved to optimality.
    solve_time_s : numpy.ndarray
        ``(chunks, users)`` wall time of each MILP.
    refine_swaps : int
        Participations moved by :func:`refine_participation` over all chunks.
    wall_s : float
        Wall time of the whole attack.
    """

    participation: np.ndarray
    updates: np.ndarray
    chunk_updates: list[np.ndarray]
    chunk_starts: list[int]
    distances: np.ndarray
    solved: np.ndarray
    solve_time_s: np.ndarray
    refine_swaps: int
    wall_s: float


def disaggregate(aggregates: np.ndarray, counts: np.ndarray, *, window_rounds: int,
                 chunk: int | None = None, rank: int | None = None, workers: int = 1,
                 time_limit_s: float = 60.0,
                 mip_rel_gap: float = DEFAULT_MIP_REL_GAP, node_limit: int | None = None,
                 refine: bool = True) -> Disaggregation:
    """Recover ``P`` and the individual updates from aggregates and window counts.

    Parameters
    ----------
    aggregates : numpy.ndarray
        ``(rounds, dim)`` the sum of the participants' updates in each round.
    counts : numpy.ndarray
        ``(windows, users)`` participation analytics (:func:`window_counts`).
    window_rounds : int
        Rounds per analytics window.
    chunk : int, optional
        Rounds per chunk, a multiple of ``window_rounds`` (default :func:`chunk_rounds`).
    rank : int, optional
        Rank of the truncated column space (default: the number of users).
    workers : int
        Processes solving users in parallel (1: in this process).
    time_limit_s : float
        HiGHS's time limit per column.
    mip_rel_gap : float
        HiGHS's relative optimality gap per column (:data:`DEFAULT_MIP_REL_GAP`).
    node_limit : int, optional
        HiGHS's node limit per column (deterministic, unlike ``time_limit_s``).
    refine : bool
        Polish each chunk's ``P*`` with :func:`refine_participation` (window counts kept).

    Raises
    ------
    ConfigError
        Shapes that do not match, or a chunk that is not whole windows.
    SimulationError
        A chunk with fewer rounds than users (the column space cannot separate them).
    """
    d = _check_matrix(aggregates, "aggregates").astype(np.float64)
    cnt = _check_matrix(counts, "counts").astype(np.int64)
    _check_int(window_rounds, "window_rounds")
    _check_int(workers, "workers")
    rounds = d.shape[0]
    windows, users = cnt.shape
    if windows != int(math.ceil(rounds / window_rounds)):
        raise ConfigError(f"counts has {windows} windows; {rounds} rounds in windows of "
                          f"{window_rounds} make {math.ceil(rounds / window_rounds)}",
                          field="counts")
    chunk = chunk_rounds(users=users, window_rounds=window_rounds) if chunk is None else chunk
    _check_int(chunk, "chunk")
    if chunk % window_rounds:
        raise ConfigError(f"chunk {chunk} is not a multiple of window_rounds {window_rounds}",
                          field="chunk")
    rank = users if rank is None else rank
    _check_int(rank, "rank")
    start = time.perf_counter()
    starts = list(range(0, rounds, chunk))
    # a short tail chunk is merged into the previous one so every chunk has >= chunk rounds
    if len(starts) > 1 and rounds - starts[-1] < chunk:
        starts.pop()
    ends = starts[1:] + [rounds]
    p_star = np.zeros((rounds, users), np.int8)
    dist = np.zeros((len(starts), users))
    solved = np.zeros((len(starts), users), bool)
    times = np.zeros((len(starts), users))
    chunk_updates: list[np.ndarray] = []
    swaps = 0
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        for ci, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
            if hi - lo < users:
                raise SimulationError(f"chunk of rounds {lo}..{hi} has {hi - lo} rounds but "
                                      f"there are {users} users: the attack needs at least "
                                      "as many rounds as users")
            basis = _basis(d[lo:hi], rank)
            c_cnt = cnt[lo // window_rounds:int(math.ceil(hi / window_rounds))]
            batches = [b for b in np.array_split(np.arange(users), workers) if b.size]
            tasks = [(basis, c_cnt[:, b], window_rounds, time_limit_s, mip_rel_gap, node_limit)
                     for b in batches]
            results = (list(pool.map(_solve_users, tasks)) if pool is not None
                       else [_solve_users(t) for t in tasks])
            for b, sols in zip(batches, results, strict=True):
                for j, sol in zip(b, sols, strict=True):
                    p_star[lo:hi, j] = sol.column
                    dist[ci, j] = sol.distance
                    solved[ci, j] = sol.solved
                    times[ci, j] = sol.time_s
            if refine:
                p_star[lo:hi], n_swaps = refine_participation(
                    p_star[lo:hi], d[lo:hi], window_rounds=window_rounds)
                swaps += n_swaps
            chunk_updates.append(_least_squares(p_star[lo:hi], d[lo:hi]))
    finally:
        if pool is not None:
            pool.shutdown()
    stacked = np.stack(chunk_updates)
    seen = ~np.isnan(stacked[:, :, 0])
    with np.errstate(invalid="ignore"):
        updates = np.where(seen.any(axis=0)[:, None],
                           np.nansum(stacked, axis=0) / np.maximum(seen.sum(axis=0), 1)[:, None],
                           np.nan)
    return Disaggregation(participation=p_star, updates=updates, chunk_updates=chunk_updates,
                          chunk_starts=starts, distances=dist, solved=solved,
                          solve_time_s=times, refine_swaps=swaps,
                          wall_s=time.perf_counter() - start)


def refine_participation(participation: np.ndarray, aggregates: np.ndarray, *,
                         window_rounds: int, max_sweeps: int = 20) -> tuple[np.ndarray, int]:
    """Polish a recovered ``P*`` by moves that keep every window count: within one window,
    move one of a user's participations to a round it skipped when that lowers
    ``||D - P* G*||_F^2`` (``G*`` the least squares of ``P*``), refitting ``G*`` after each
    sweep over the users.

    Hand-written (no library does this move): a swap from round ``a`` to ``b`` for user
    ``j`` changes the squared residual by ``2 (h_a - h_b) + 2 |g_j|^2`` with ``h = R g_j``,
    so each candidate costs O(1) once ``h`` is known.

    Returns
    -------
    tuple of numpy.ndarray and int
        The polished ``(rounds, users)`` int8 matrix and the number of swaps made.
    """
    p = _check_matrix(participation, "participation").astype(np.int8).copy()
    d = _check_matrix(aggregates, "aggregates").astype(np.float64)
    _check_int(window_rounds, "window_rounds")
    _check_int(max_sweeps, "max_sweeps")
    rounds, users = p.shape
    if d.shape[0] != rounds:
        raise ConfigError(f"aggregates has {d.shape[0]} rounds, participation {rounds}",
                          field="aggregates")
    window = np.arange(rounds) // window_rounds
    swaps = 0
    for _ in range(max_sweeps):
        present = p.any(axis=0)
        g = np.zeros((users, d.shape[1]))
        g[present] = np.linalg.lstsq(p[:, present].astype(np.float64), d, rcond=None)[0]
        res = d - p.astype(np.float64) @ g
        moved = 0
        for j in np.flatnonzero(present):
            gg = float(g[j] @ g[j])
            while True:
                h = res @ g[j]
                best = (0.0, -1, -1)
                for w in np.unique(window[p[:, j] == 1]):
                    rows = np.flatnonzero(window == w)
                    ones, zeros = rows[p[rows, j] == 1], rows[p[rows, j] == 0]
                    if zeros.size == 0:
                        continue
                    a, b = ones[np.argmin(h[ones])], zeros[np.argmax(h[zeros])]
                    gain = float(h[b] - h[a]) - gg  # > 0: the swap lowers the residual
                    if gain > best[0] + 1e-12 * max(gg, 1.0):
                        best = (gain, int(a), int(b))
                if best[1] < 0:
                    break
                _, a, b = best
                p[a, j], p[b, j] = 0, 1
                res[a] += g[j]
                res[b] -= g[j]
                moved += 1
        swaps += moved
        if moved == 0:
            break
    return p, swaps


def _least_squares(p_chunk: np.ndarray, d_chunk: np.ndarray) -> np.ndarray:
    """``lstsq(P*, D)`` on a chunk, with NaN rows for users absent from it."""
    present = p_chunk.any(axis=0)
    out = np.full((p_chunk.shape[1], d_chunk.shape[1]), np.nan)
    if present.any():
        sol, *_ = np.linalg.lstsq(p_chunk[:, present].astype(np.float64), d_chunk, rcond=None)
        out[present] = sol
    return out
