"""PRISM-style runtime variability: iteration time as a random variable.

Model (Golden et al., "PRISM", arXiv:2510.15596, stated as our assumptions):

* every kernel's runtime is its deterministic time times a mean-1 log-normal
  factor with log-sigma ``kernel_sigma`` (or an empirical sample of factors),
  independent across kernels, ranks and iterations;
* every GPU also runs at a persistent speed: a mean-1 log-normal factor with
  log-sigma ``gpu_sigma``, drawn once per cluster (seeded);
* an iteration is ``S`` segments separated by synchronizations that span all ranks
  (collectives over the data-parallel dimension): each segment lasts as long as
  its slowest rank (the max over ranks at every collective); exposed
  communication is deterministic.

A rank's time over the ``K`` kernels of a segment is their mean-1 sum,
approximated by a log-normal with matched mean and variance (Fenton-Wilkinson);
with ``a_r`` the rank's log speed and ``s`` that sum's log-sigma, the segment's
max over ranks has the exact order-statistic CDF ``prod_r Phi((ln x - a_r - mu)/s)``.
The Monte Carlo draws every rank of every segment (skipping ranks whose persistent
speed is too low to be the slowest with probability above 2e-12 per draw; with
identical ranks beyond 4,096 it draws each segment's max by inverse transform,
``Phi^-1(U^(1/N))``); the analytic path evaluates that product and convolves
segments numerically.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, overload

import numpy as np
from numpy.typing import NDArray
from pydantic import BeforeValidator

from ...errors import ConfigError
from ._fields import Config, NonNegativeFinite
from .parallelism import IterationBreakdown

# scipy.stats costs ~0.5 s to import; it is imported inside the functions that use it.

__all__ = ["VariabilityModel", "IterationDistribution", "iteration_distribution",
           "slowdown_vs_gpus", "probability_of_finishing", "total_time_quantiles",
           "PRISM_DEFAULT", "finish_time_quantiles", "VARIABILITY_DEFINITIONS",
           "gpu_time_variability", "expected_max_over_median"]


def _samples(v: object) -> object:
    if v is None:
        return None
    arr = np.asarray(v, dtype=float)
    if arr.size < 2 or np.any(arr <= 0) or not np.all(np.isfinite(arr)):
        raise ConfigError("needs at least two positive finite samples", field="kernel_samples")
    return tuple(float(x) for x in arr)


class VariabilityModel(Config):
    """Variance parameters of the PRISM model (see the module docstring).

    Parameters
    ----------
    kernel_sigma
        Log-sigma of each kernel's mean-1 log-normal runtime factor.
    gpu_sigma
        Log-sigma of each GPU's persistent mean-1 speed factor.
    kernel_samples
        Optional empirical per-kernel runtime factors (any positive scale; normalized to
        mean 1); when given they replace ``kernel_sigma`` by their moment-matched log-sigma.
    comm_sigma
        Log-sigma of each exposed collective's mean-1 log-normal runtime factor. A
        collective is one event its participants share, so its noise is not a max over
        ranks; it widens the distribution without shifting its mean.
    """

    kernel_sigma: NonNegativeFinite = 0.05
    gpu_sigma: NonNegativeFinite = 0.02
    kernel_samples: Annotated[tuple[float, ...] | None, BeforeValidator(_samples)] = None
    comm_sigma: NonNegativeFinite = 0.0

    @property
    def kernel_variance(self) -> float:
        """Variance of one kernel's mean-1 runtime factor."""
        if self.kernel_samples is not None:
            arr = np.asarray(self.kernel_samples)
            return float(np.var(arr / arr.mean(), ddof=1))
        return math.expm1(self.kernel_sigma**2)

    def segment_sigma(self, kernels: float) -> float:
        """Log-sigma of the mean-1 sum of ``kernels`` independent kernels (Fenton-Wilkinson)."""
        if kernels < 1:
            raise ConfigError(f"must be >= 1, not {kernels!r}", field="kernels")
        return math.sqrt(math.log1p(self.kernel_variance / kernels))

    def comm_factor_sigma(self, collectives: float) -> float:
        """Log-sigma of the mean-1 sum of ``collectives`` independent exposed collectives."""
        if collectives < 1:
            raise ConfigError(f"must be >= 1, not {collectives!r}", field="collectives")
        return math.sqrt(math.log1p(math.expm1(self.comm_sigma**2) / collectives))

    def gpu_log_speeds(self, num_ranks: int, seed: int) -> np.ndarray:
        """Persistent log speed factors of ``num_ranks`` GPUs (mean-1 in linear space)."""
        rng = np.random.default_rng([seed, 1])
        s = self.gpu_sigma
        return rng.normal(-s * s / 2, s, num_ranks) if s > 0 else np.zeros(num_ranks)


#: Above this many identical ranks the Monte Carlo samples each segment's max exactly by
#: inverse transform instead of drawing every rank.
_IID_EXACT_MIN_RANKS = 4096

#: Assumed parameters for the PRISM study. kernel_sigma: 5% per-kernel log-sigma; gpu_sigma:
#: PRISM reports up to 14% GEMM performance variation across GPUs of a platform, read here as
#: the range over ~1,000 GPUs (about 6.5 standard deviations), so ln(1.14) / 6.5 = 0.020.
#: comm_sigma: PRISM names AllGather/ReduceScatter as the main variability sources but we did
#: not find a per-collective figure; 0.2 is our assumption.
PRISM_DEFAULT = VariabilityModel(kernel_sigma=0.05, gpu_sigma=math.log(1.14) / 6.5,
                                 comm_sigma=0.2)


@dataclass
class IterationDistribution:
    """The distribution of one iteration's time, by Monte Carlo and analytically."""

    deterministic_s: float
    noisy_s: float
    num_ranks: int
    segments: int
    segment_sigma: float
    samples_s: NDArray[np.float64] | None
    grid_s: NDArray[np.float64] | None
    cdf: NDArray[np.float64] | None
    analytic_method: str = ""
    extra: dict[str, float] = field(default_factory=dict)

    def _samples(self) -> NDArray[np.float64]:
        if self.samples_s is None:
            raise ConfigError("no Monte Carlo samples were drawn", field="method")
        return self.samples_s

    def _grid_cdf(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        # Both or neither: iteration_distribution sets them together.
        if self.grid_s is None or self.cdf is None:
            raise ConfigError("no analytic distribution was computed", field="method")
        return self.grid_s, self.cdf

    def _analytic_quantile(self, q: float) -> float:
        grid, cdf = self._grid_cdf()
        return float(np.interp(q, cdf, grid))

    def quantile(self, q: float, *, method: str = "analytic") -> float:
        """The ``q`` quantile of the iteration time (``"analytic"`` or ``"mc"``)."""
        if not 0 <= q <= 1:
            raise ConfigError(f"must be in [0, 1], not {q!r}", field="q")
        if method == "mc":
            return float(np.quantile(self._samples(), q))
        return self._analytic_quantile(q)

    def mean_s(self, *, method: str = "analytic") -> float:
        if method == "mc":
            return float(np.mean(self._samples()))
        grid, cdf = self._grid_cdf()
        pdf_w = np.diff(cdf)
        mid = 0.5 * (grid[1:] + grid[:-1])
        return float(np.sum(pdf_w * mid) / np.sum(pdf_w)) if np.sum(pdf_w) > 0 else float(
            grid[0])

    def std_s(self, *, method: str = "analytic") -> float:
        if method == "mc":
            return float(np.std(self._samples(), ddof=1))
        grid, cdf = self._grid_cdf()
        pdf_w = np.diff(cdf)
        mid = 0.5 * (grid[1:] + grid[:-1])
        total = np.sum(pdf_w)
        if total <= 0:
            return 0.0
        mean = np.sum(pdf_w * mid) / total
        return float(math.sqrt(max(0.0, np.sum(pdf_w * (mid - mean) ** 2) / total)))

    @overload
    def cdf_at(self, t_s: float) -> float: ...
    @overload
    def cdf_at(self, t_s: NDArray[np.float64]) -> NDArray[np.float64]: ...

    def cdf_at(self, t_s: float | NDArray[np.float64]) -> float | NDArray[np.float64]:
        """The analytic CDF at ``t_s`` (0 below the grid, 1 above it)."""
        grid, cdf = self._grid_cdf()
        return np.interp(t_s, grid, cdf, left=0.0, right=1.0)

    def expected_slowdown(self, *, method: str = "analytic") -> float:
        """``E[iteration] / deterministic - 1``: the cost of variability."""
        return self.mean_s(method=method) / self.deterministic_s - 1.0

    def summary(self) -> dict[str, float]:
        out = {"deterministic_s": self.deterministic_s, "num_ranks": self.num_ranks,
               "segments": self.segments, "segment_sigma": self.segment_sigma}
        for m in ("analytic", "mc"):
            if (m == "mc" and self.samples_s is None) or (m == "analytic" and self.cdf is None):
                continue
            out[f"{m}_mean_s"] = self.mean_s(method=m)
            out[f"{m}_p50_s"] = self.quantile(0.5, method=m)
            out[f"{m}_p99_s"] = self.quantile(0.99, method=m)
            out[f"{m}_slowdown"] = self.expected_slowdown(method=m)
        return out


def _segment_max_logcdf(log_x: np.ndarray, a: np.ndarray, mu: float, s: float) -> np.ndarray:
    """``sum_r log Phi((log_x - a_r - mu) / s)`` for each grid point, skipping ranks whose
    term is below double precision (``z > 8.3``)."""
    from scipy import special

    a = np.sort(a)[::-1]
    out = np.zeros_like(log_x)
    # Ranks with a_r <= log_x_min - mu - 8.3 s contribute < 1e-16 at every grid point.
    keep = a > log_x.min() - mu - 8.3 * s
    a_kept = a[keep]
    for start in range(0, a_kept.size, 4096):
        chunk = a_kept[start:start + 4096]
        out += special.log_ndtr((log_x[:, None] - chunk[None, :] - mu) / s).sum(axis=1)
    return out


@dataclass(frozen=True)
class _Inputs:
    """What one distribution is computed from, resolved and validated."""

    det: float
    noisy: float
    ranks: int
    segs: int
    kernels: float
    colls: float


def _resolve_inputs(breakdown: IterationBreakdown | None, *, deterministic_s: float | None,
                    noisy_s: float | None, num_ranks: int | None, segments: int | None,
                    kernels_per_iteration: float | None,
                    collectives_per_iteration: float | None, samples: int) -> _Inputs:
    if breakdown is not None:
        det = breakdown.iteration_s if deterministic_s is None else deterministic_s
        noisy = (breakdown.compute_s + breakdown.recompute_s + breakdown.bubble_s
                 if noisy_s is None else noisy_s)
        ranks = breakdown.num_gpus if num_ranks is None else num_ranks
        segs = breakdown.sync_points if segments is None else segments
        # ``is None``, not ``or``: an explicit 0 must reach the check below, not the default.
        kernels = (breakdown.details.get("kernels", 1000) if kernels_per_iteration is None
                   else kernels_per_iteration)
        colls = (breakdown.details.get("collectives", 100) if collectives_per_iteration is None
                 else collectives_per_iteration)
    else:
        if deterministic_s is None or noisy_s is None:
            raise ConfigError("pass a breakdown or both deterministic_s and noisy_s",
                              field="breakdown")
        det, noisy = deterministic_s, noisy_s
        ranks = 1 if num_ranks is None else num_ranks
        segs = 1 if segments is None else segments
        kernels = 1000 if kernels_per_iteration is None else kernels_per_iteration
        colls = 100 if collectives_per_iteration is None else collectives_per_iteration
    if not (det > 0 and 0 <= noisy <= det):
        raise ConfigError(f"need 0 <= noisy_s ({noisy}) <= deterministic_s ({det}) and "
                          "deterministic_s > 0", field="noisy_s")
    if not isinstance(ranks, int) or ranks < 1:
        raise ConfigError(f"must be a positive integer, not {ranks!r}", field="num_ranks")
    if not isinstance(segs, int) or segs < 1:
        raise ConfigError(f"must be a positive integer, not {segs!r}", field="segments")
    if not isinstance(samples, int) or samples < 1:
        raise ConfigError(f"must be a positive integer, not {samples!r}", field="samples")
    for name, value in (("kernels_per_iteration", kernels),
                        ("collectives_per_iteration", colls)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value <= 0:
            raise ConfigError(f"must be a positive finite number, not {value!r}", field=name)
    return _Inputs(det, noisy, ranks, segs, kernels, colls)


@dataclass(frozen=True)
class _Noise:
    """The model's parameters for one distribution: the segment's log-sigma ``s`` and
    log-mean ``mu``, the ranks' persistent log speeds ``a`` and the collectives' sigma."""

    s: float
    mu: float
    a: np.ndarray
    comm_s: float
    comm_sigma: float


def _noise(inp: _Inputs, model: VariabilityModel, seed: int) -> _Noise:
    s = model.segment_sigma(max(1.0, inp.kernels / inp.segs))
    comm_s = inp.det - inp.noisy
    sc = model.comm_factor_sigma(max(1.0, inp.colls)) if comm_s > 0 else 0.0
    return _Noise(s, -s * s / 2, model.gpu_log_speeds(inp.ranks, seed), comm_s, sc)


def _mc_segment_maxima(inp: _Inputs, nz: _Noise, model: VariabilityModel,
                       rng: np.random.Generator, samples: int, brute_force: bool) -> np.ndarray:
    """The sum over segments of each segment's slowest rank (unit compute), per sample."""
    from scipy import stats

    s, mu, a, ranks, segs = nz.s, nz.mu, nz.a, inp.ranks, inp.segs
    seg_sum = np.zeros(samples)
    if s == 0:
        seg_sum += segs * float(np.exp(a.max()))
    elif model.gpu_sigma == 0 and ranks > _IID_EXACT_MIN_RANKS and not brute_force:
        # Identical ranks: the max of N iid normals is exactly Phi^-1(U^(1/N)).
        for _ in range(segs):
            u = rng.random(samples)
            z = stats.norm.isf(-np.expm1(np.log(u) / ranks))
            seg_sum += np.exp(a[0] + mu + s * z)
    else:
        # Ranks too slow to be the max with probability > 2e-12 per draw are skipped.
        cut = a.max() - s * (stats.norm.isf(1e-12 / ranks) + stats.norm.isf(1e-12))
        kept = a if brute_force else a[a >= cut]
        # max_r(a_r + s z_r) = s max_r(a_r / s + z_r): one pass over the draws fewer
        a_over_s = (kept / s).astype(np.float32)
        chunk = max(1, (1 << 22) // kept.size)
        for _ in range(segs):
            for i in range(0, samples, chunk):
                n = min(chunk, samples - i)
                z = rng.standard_normal((n, kept.size), dtype=np.float32)
                z += a_over_s
                seg_sum[i:i + n] += np.exp(s * z.max(axis=1).astype(float) + mu)
    return seg_sum


def _monte_carlo(inp: _Inputs, nz: _Noise, model: VariabilityModel, *, samples: int,
                 seed: int, brute_force: bool) -> np.ndarray:
    """Samples of the iteration time: every segment's slowest rank, plus collective noise."""
    rng = np.random.default_rng([seed, 2])
    seg_sum = _mc_segment_maxima(inp, nz, model, rng, samples, brute_force)
    # iteration = deterministic + noisy * (mean segment max - 1): exact when nothing varies
    mc = inp.det + inp.noisy * (seg_sum / inp.segs - 1.0)
    if nz.comm_sigma > 0:
        sc = nz.comm_sigma
        mc = mc + nz.comm_s * (rng.lognormal(-sc * sc / 2, sc, samples) - 1.0)
    return mc


def _segment_max_cdf(inp: _Inputs, nz: _Noise, model: VariabilityModel,
                     grid_points: int) -> tuple[np.ndarray, np.ndarray]:
    """The CDF of one segment's max M (unit compute) on a grid spanning CDF 1e-12 .. 1 - 1e-12.

    The max's CDF lies between Phi_top(x)^N and Phi_top(x) (Phi_top: the fastest-drifting
    rank), which bounds the grid.
    """
    from scipy import special, stats

    s, mu, a, ranks = nz.s, nz.mu, nz.a, inp.ranks
    top = a.max() + mu
    lo = top - stats.norm.isf(1e-12) * s
    hi = top + stats.norm.isf(1e-12 / ranks) * s
    log_x = np.linspace(lo, hi, grid_points)
    if model.gpu_sigma == 0:  # identical ranks: Phi^N
        F = np.exp(ranks * special.log_ndtr((log_x - a[0] - mu) / s))
    else:
        F = np.exp(_segment_max_logcdf(log_x, a, mu, s))
    return np.exp(log_x), F


def _mean_of_segments(x: np.ndarray, F: np.ndarray, segs: int,
                      grid_points: int) -> tuple[np.ndarray, np.ndarray, str]:
    """The CDF of the mean of ``segs`` iid segment maxima: the density convolved ``segs``
    times (up to 64 segments), else the normal of the central limit theorem."""
    if segs == 1:
        return x, F, "order statistics"
    from scipy import stats

    # density of M on a uniform grid, convolved segs times (sum of iid maxima)
    u = np.linspace(x[0], x[-1], grid_points)
    Fu = np.interp(u, x, F)
    pmf = np.diff(Fu, prepend=0.0)
    pmf /= pmf.sum()
    du = u[1] - u[0]
    if segs <= 64:
        total = pmf
        for _ in range(segs - 1):
            total = np.convolve(total, pmf)
        sums = segs * u[0] + du * np.arange(total.size)
        return sums / segs, np.cumsum(total), f"order statistics, {segs}-fold convolution"
    mean = float(np.sum(pmf * u))
    var = float(np.sum(pmf * (u - mean) ** 2))
    sd = math.sqrt(var / segs)
    m_grid = np.linspace(mean - 8 * sd, mean + 8 * sd, grid_points)
    return (m_grid, stats.norm.cdf(m_grid, mean, sd),
            f"order statistics, normal sum of {segs} segments (CLT)")


def _analytic(inp: _Inputs, nz: _Noise, model: VariabilityModel,
              grid_points: int) -> tuple[np.ndarray, np.ndarray, str]:
    """The iteration time's CDF on a grid, and how it was computed."""
    if nz.s == 0:
        t = inp.det + inp.noisy * (float(np.exp(nz.a.max())) - 1.0)
        grid, cdf, how = np.array([t, t]), np.array([0.0, 1.0]), "degenerate"
    else:
        x, F = _segment_max_cdf(inp, nz, model, grid_points)
        m_grid, m_cdf, how = _mean_of_segments(x, F, inp.segs, grid_points)
        grid = inp.det + inp.noisy * (m_grid - 1.0)
        cdf = np.maximum.accumulate(np.clip(m_cdf, 0.0, 1.0))
    if nz.comm_sigma > 0:
        grid, cdf = _add_comm_noise(grid, cdf, nz.comm_s, nz.comm_sigma, grid_points)
        how += " + collective noise (Gauss-Hermite)"
    return grid, cdf, how


def iteration_distribution(
    breakdown: IterationBreakdown | None = None,
    model: VariabilityModel = PRISM_DEFAULT,
    *,
    deterministic_s: float | None = None,
    noisy_s: float | None = None,
    num_ranks: int | None = None,
    segments: int | None = None,
    kernels_per_iteration: float | None = None,
    collectives_per_iteration: float | None = None,
    samples: int = 10_000,
    seed: int = 0,
    method: str = "both",
    grid_points: int = 2048,
    brute_force: bool = False,
) -> IterationDistribution:
    """Distribution of one iteration's time under ``model``.

    Either pass a ``breakdown`` (its compute, recomputation and bubble are noisy, its
    exposed communication deterministic; ``segments`` defaults to its ``sync_points``)
    or ``deterministic_s`` and ``noisy_s`` directly (the rest, ``deterministic_s -
    noisy_s``, is exposed communication, noisy by ``model.comm_sigma`` over
    ``collectives_per_iteration`` collectives). ``num_ranks`` defaults to the
    breakdown's GPU count. ``method``: ``"mc"``, ``"analytic"`` or ``"both"``;
    ``brute_force`` makes the Monte Carlo draw every rank (no skipping, no inverse transform).
    """
    if method not in ("mc", "analytic", "both"):
        raise ConfigError(f"unknown method '{method}'", field="method",
                          allowed=["analytic", "both", "mc"])
    inp = _resolve_inputs(breakdown, deterministic_s=deterministic_s, noisy_s=noisy_s,
                          num_ranks=num_ranks, segments=segments,
                          kernels_per_iteration=kernels_per_iteration,
                          collectives_per_iteration=collectives_per_iteration, samples=samples)
    nz = _noise(inp, model, seed)
    mc = (_monte_carlo(inp, nz, model, samples=samples, seed=seed, brute_force=brute_force)
          if method in ("mc", "both") else None)
    grid = cdf = None
    how = ""
    if method in ("analytic", "both"):
        grid, cdf, how = _analytic(inp, nz, model, grid_points)
    return IterationDistribution(deterministic_s=inp.det, noisy_s=inp.noisy,
                                 num_ranks=inp.ranks, segments=inp.segs, segment_sigma=nz.s,
                                 samples_s=mc, grid_s=grid, cdf=cdf, analytic_method=how)


def _add_comm_noise(grid: np.ndarray, cdf: np.ndarray, comm_s: float, sc: float,
                    grid_points: int) -> tuple[np.ndarray, np.ndarray]:
    """CDF of ``X + comm_s (F - 1)``, X given by (grid, cdf), F a mean-1 log-normal of
    log-sigma ``sc``: ``P(T <= t) = sum_j P(X = x_j) P(comm_s (F - 1) <= t - x_j)``, the
    second factor in closed form."""
    from scipy import stats

    mu_c = -sc * sc / 2
    z_tail = stats.norm.isf(1e-12)
    lo = grid[0] + comm_s * (math.exp(mu_c - sc * z_tail) - 1.0)
    hi = grid[-1] + comm_s * (math.exp(mu_c + sc * z_tail) - 1.0)
    t = np.linspace(lo, hi, grid_points)
    mass = np.diff(cdf, prepend=0.0)
    keep = mass > 1e-15
    x, p = grid[keep], mass[keep] / mass[keep].sum()
    out = np.zeros_like(t)
    for start in range(0, x.size, 256):
        ratio = (t[:, None] - x[None, start:start + 256]) / comm_s + 1.0
        with np.errstate(divide="ignore"):
            f_y = stats.norm.cdf((np.log(np.maximum(ratio, 0.0)) - mu_c) / sc)
        out += f_y @ p[start:start + 256]
    return t, np.maximum.accumulate(np.clip(out, 0.0, 1.0))


def probability_of_finishing(dist: IterationDistribution | Sequence[IterationDistribution],
                             iterations: int, deadline_s: float | np.ndarray) -> np.ndarray:
    """P(total time of ``iterations`` iterations <= ``deadline_s``).

    Iterations are independent given the cluster (the persistent GPU speeds are already in
    each iteration's distribution), so the total is normal by the central limit theorem.
    A sequence of distributions (one per cluster draw, i.e. per GPU allocation) gives the
    mixture: the probability for a job whose allocation is not known in advance.
    """
    from scipy import stats

    if not isinstance(iterations, int) or iterations < 1:
        raise ConfigError(f"must be a positive integer, not {iterations!r}", field="iterations")
    dists = [dist] if isinstance(dist, IterationDistribution) else list(dist)
    if not dists:
        raise ConfigError("needs at least one distribution", field="dist")
    t = np.asarray(deadline_s, dtype=float)
    total = np.zeros_like(t)
    for d in dists:
        method = "analytic" if d.cdf is not None else "mc"
        mean = iterations * d.mean_s(method=method)
        sd = math.sqrt(iterations) * d.std_s(method=method)
        total = total + ((t >= mean).astype(float) if sd == 0 else stats.norm.cdf(t, mean, sd))
    return total / len(dists)


def total_time_quantiles(dist: IterationDistribution, iterations: int,
                         quantiles: tuple[float, ...] = (0.5, 0.9, 0.99)) -> dict[float, float]:
    """Quantiles of the total time of ``iterations`` iterations (normal by the CLT, as in
    :func:`probability_of_finishing`)."""
    if not isinstance(iterations, int) or iterations < 1:
        raise ConfigError(f"must be a positive integer, not {iterations!r}", field="iterations")
    from scipy import stats

    method = "analytic" if dist.cdf is not None else "mc"
    mean = iterations * dist.mean_s(method=method)
    sd = math.sqrt(iterations) * dist.std_s(method=method)
    return {q: float(mean + sd * stats.norm.ppf(q)) if sd > 0 else mean for q in quantiles}


def slowdown_vs_gpus(model: VariabilityModel, gpu_counts: list[int], *, noisy_fraction: float,
                     segments: int = 1, kernels_per_iteration: float = 1000,
                     seed: int = 0) -> list[dict[str, float]]:
    """Expected slowdown from variability (analytic) as the GPU count grows."""
    rows = []
    for n in gpu_counts:
        d = iteration_distribution(model=model, deterministic_s=1.0, noisy_s=noisy_fraction,
                                   num_ranks=n, segments=segments,
                                   kernels_per_iteration=kernels_per_iteration, seed=seed,
                                   method="analytic", grid_points=1024)
        rows.append({"num_gpus": n, "expected_slowdown": d.expected_slowdown(),
                     "p99_slowdown": d.quantile(0.99) - 1.0})
    return rows


def _mixture_cdf_minus(t: float, mu: np.ndarray, sd: np.ndarray, q: float) -> float:
    """The equal-weight normal mixture's CDF at ``t``, minus ``q`` (a root is the quantile;
    a zero-width component is a step)."""
    from scipy import stats

    return float(np.mean(stats.norm.cdf(t, mu, np.maximum(sd, 1e-300)))) - q


def finish_time_quantiles(dist: IterationDistribution | Sequence[IterationDistribution],
                          iterations: int,
                          quantiles: Sequence[float] = (0.01, 0.1, 0.5, 0.9, 0.99)
                          ) -> dict[float, float]:
    """Quantiles of the total time over the same mixture as :func:`probability_of_finishing`
    (one normal per allocation, equal weights), found by bracketing the mixture's CDF."""
    from scipy import optimize

    if not isinstance(iterations, int) or iterations < 1:
        raise ConfigError(f"must be a positive integer, not {iterations!r}", field="iterations")
    dists = [dist] if isinstance(dist, IterationDistribution) else list(dist)
    if not dists:
        raise ConfigError("needs at least one distribution", field="dist")
    means, sds = [], []
    for d in dists:
        method = "analytic" if d.cdf is not None else "mc"
        means.append(iterations * d.mean_s(method=method))
        sds.append(math.sqrt(iterations) * d.std_s(method=method))
    mu, sd = np.asarray(means), np.asarray(sds)
    lo = float(np.min(mu - 40 * sd)) - 1e-9
    hi = float(np.max(mu + 40 * sd)) + 1e-9
    out = {}
    for q in quantiles:
        if not 0 < q < 1:
            raise ConfigError(f"must be in (0, 1), not {q!r}", field="quantiles")
        if np.all(sd == 0):
            out[q] = float(np.quantile(mu, q, method="inverted_cdf"))
            continue
        out[q] = float(optimize.brentq(_mixture_cdf_minus, lo, hi, args=(mu, sd, q),
                                       xtol=1e-12 * max(1.0, abs(hi))))
    return out


#: The definitions of "GPU time variability" :func:`gpu_time_variability` computes.
VARIABILITY_DEFINITIONS = {
    "max_over_median": "slowest GPU's step compute time / median GPU's - 1 (the wait every "
                       "other GPU has at the synchronization)",
    "whisker_range_over_median": "Tukey-whisker range (no outliers) of the GPUs' step compute "
                                 "times / median, the way GPU-to-GPU GEMM variation is read",
    "range_over_min": "(slowest - fastest) / fastest GPU's step compute time",
    "cv": "standard deviation / mean of the GPUs' step compute times",
}


def gpu_time_variability(step_times_s: NDArray[np.float64]) -> dict[str, float]:
    """Spread of one step's per-GPU compute times under each of
    :data:`VARIABILITY_DEFINITIONS` (fractions, not percent)."""
    t = np.asarray(step_times_s, dtype=float)
    if t.ndim != 1 or t.size < 2 or np.any(~np.isfinite(t)) or np.any(t <= 0):
        raise ConfigError("needs at least two positive finite step times", field="step_times_s")
    q1, med, q3 = np.quantile(t, [0.25, 0.5, 0.75])
    iqr = q3 - q1
    inside = t[(t >= q1 - 1.5 * iqr) & (t <= q3 + 1.5 * iqr)]
    return {"max_over_median": float(t.max() / med - 1.0),
            "whisker_range_over_median": float((inside.max() - inside.min()) / med),
            "range_over_min": float(t.max() / t.min() - 1.0),
            "cv": float(t.std(ddof=1) / t.mean())}


def expected_max_over_median(sigma: float, num_gpus: int) -> float:
    """``E[max of num_gpus iid log-normals (median 1, log-sigma sigma)] - 1``, by numerical
    integration of the order statistic's CDF ``Phi(ln x / sigma)^N``.

    With ``x = exp(sigma z)``: ``E[M] - 1 = int_0^inf (1 - F^N) dx - int_0^1 F^N dx``
    ``= int_0^inf sigma e^(sigma z) (1 - Phi(z)^N) dz - int_-inf^0 sigma e^(sigma z)
    Phi(z)^N dz`` (Simpson's rule on a fine grid; the integrands are smooth and vanish
    beyond the grid).
    """
    from scipy import integrate, special

    if not isinstance(num_gpus, int) or num_gpus < 1:
        raise ConfigError(f"must be a positive integer, not {num_gpus!r}", field="num_gpus")
    if not (math.isfinite(sigma) and sigma >= 0):
        raise ConfigError(f"must be a finite number >= 0, not {sigma!r}", field="sigma")
    if sigma == 0:
        return 0.0
    z_hi = 10.0 + math.sqrt(2 * math.log(num_gpus))
    z_up = np.linspace(0.0, z_hi, 20001)
    z_lo = np.linspace(-40.0, 0.0, 20001)
    log_f_up = num_gpus * special.log_ndtr(z_up)
    up = integrate.simpson(sigma * np.exp(sigma * z_up) * -np.expm1(log_f_up), x=z_up)
    low = integrate.simpson(sigma * np.exp(sigma * z_lo + num_gpus * special.log_ndtr(z_lo)),
                            x=z_lo)
    return float(up - low)
