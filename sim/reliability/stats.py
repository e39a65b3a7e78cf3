"""Binomial confidence intervals of a mismatch (SDC) rate, vectorized over many rates.

Wilson's score interval is a closed form (written out here because it vectorizes over arrays
of counts without a Python loop; scipy's :meth:`scipy.stats.binomtest` answers one count at a
time and is what the tests check it against). Clopper-Pearson's exact interval comes from
scipy's beta quantiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["CI_METHODS", "Rate", "wilson_interval", "clopper_pearson_interval", "binomial_rate",
           "ratio_interval"]

#: Interval methods of :func:`binomial_rate`.
CI_METHODS = ("wilson", "clopper-pearson")


def _check(k: np.ndarray, n: np.ndarray, confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence!r}")
    if np.any(n < 1):
        raise ValueError("every trial count n must be at least 1")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("every success count k must be in 0..n")


def wilson_interval(k: np.ndarray | int, n: np.ndarray | int, *,
                    confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``k`` successes in ``n`` trials (arrays broadcast).

    Returns
    -------
    lo, hi : numpy.ndarray
        float64 bounds in [0, 1].
    """
    kk, nn = np.asarray(k, np.float64), np.asarray(n, np.float64)
    _check(kk, nn, confidence)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = kk / nn
    denom = 1 + z * z / nn
    centre = (p + z * z / (2 * nn)) / denom
    half = z * np.sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom
    # The exact ends at k = 0 and k = n (the closed form leaves rounding residue there).
    lo = np.where(kk == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(kk == nn, 1.0, np.clip(centre + half, 0.0, 1.0))
    return lo, hi


def clopper_pearson_interval(k: np.ndarray | int, n: np.ndarray | int, *,
                             confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson (exact) interval of ``k`` successes in ``n`` trials (arrays broadcast)."""
    kk, nn = np.asarray(k, np.float64), np.asarray(n, np.float64)
    _check(kk, nn, confidence)
    alpha = 1 - confidence
    with np.errstate(invalid="ignore"):
        lo = np.where(kk > 0, stats.beta.ppf(alpha / 2, kk, nn - kk + 1), 0.0)
        hi = np.where(kk < nn, stats.beta.ppf(1 - alpha / 2, kk + 1, nn - kk), 1.0)
    return np.asarray(lo, np.float64), np.asarray(hi, np.float64)


@dataclass(frozen=True, kw_only=True)
class Rate:
    """A binomial rate with its confidence interval."""

    k: int
    n: int
    lo: float
    hi: float
    confidence: float
    method: str

    @property
    def rate(self) -> float:
        """``k / n``."""
        return self.k / self.n

    def to_row(self) -> dict[str, float | int | str]:
        return {"k": self.k, "n": self.n, "rate": self.rate, "ci_lo": self.lo, "ci_hi": self.hi,
                "confidence": self.confidence, "ci_method": self.method}


def binomial_rate(k: int, n: int, *, confidence: float = 0.95,
                  method: str = "wilson") -> Rate:
    """``k / n`` with a ``method`` interval (one of :data:`CI_METHODS`)."""
    if method not in CI_METHODS:
        raise ValueError(f"method must be one of {CI_METHODS}, not {method!r}")
    fn = wilson_interval if method == "wilson" else clopper_pearson_interval
    lo, hi = fn(k, n, confidence=confidence)
    return Rate(k=int(k), n=int(n), lo=float(lo), hi=float(hi), confidence=confidence,
                method=method)


def ratio_interval(num: Rate, den: Rate) -> tuple[float, float]:
    """A conservative interval of ``num.rate / den.rate``: the ratio of the opposite ends of
    the two intervals (their joint coverage is at least ``1 - 2 (1 - confidence)``, by the
    union bound). ``inf`` when ``den``'s interval reaches 0."""
    hi = num.hi / den.lo if den.lo > 0 else float("inf")
    return num.lo / den.hi, hi
