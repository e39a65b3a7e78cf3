"""MLPerf Training methodology: time-to-train as a distribution over seeds.

MLPerf Training (Mattson et al., "MLPerf Training Benchmark", MLSys 2020) scores
a submission by its time to reach a target quality. Because the epochs needed to
converge vary from seed to seed, a result is a set of runs (5 for most
benchmarks, 10 for some); the fastest and slowest are dropped and the rest
averaged. Here a run's time is ``init_s + epochs * iterations_per_epoch *
iteration_s``, with the epochs-to-quality drawn per seed from a log-normal
(mean and coefficient of variation are inputs) or from empirical samples, and
the mean iteration time optionally taken from the PRISM distribution.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from numpy.typing import NDArray
from pydantic import BeforeValidator

from ...errors import ConfigError
from ._fields import Config, NonNegative, Positive

__all__ = ["ConvergenceModel", "MLPerfScore", "mlperf_score", "simulate_time_to_train"]


def _epoch_samples(v: object) -> object:
    # Anything but a collection is left to the tuple[float, ...] validation that follows.
    if isinstance(v, Collection) and (len(v) < 1 or min(v) <= 0):
        raise ConfigError("needs at least one positive sample", field="samples")
    return v


class ConvergenceModel(Config):
    """Epochs to reach the quality target, per seed.

    Either log-normal with ``mean_epochs`` and ``cv`` (standard deviation / mean), or
    ``samples``: observed epochs-to-quality from which seeds are resampled.
    """

    mean_epochs: Positive = 1.0
    cv: NonNegative = 0.05
    samples: Annotated[tuple[float, ...] | None, BeforeValidator(_epoch_samples)] = None

    def draw(self, rng: np.random.Generator, size: tuple[int, ...]) -> NDArray[np.float64]:
        if self.samples is not None:
            return rng.choice(np.asarray(self.samples, dtype=float), size=size, replace=True)
        if self.cv == 0:
            return np.full(size, self.mean_epochs)
        s2 = math.log1p(self.cv**2)
        return rng.lognormal(math.log(self.mean_epochs) - s2 / 2, math.sqrt(s2), size)


@dataclass(frozen=True)
class MLPerfScore:
    """A scored result: the MLPerf score of one submission and its spread over submissions."""

    runs_s: tuple[float, ...]
    score_s: float
    score_mean_s: float
    score_std_s: float
    score_ci95_s: tuple[float, float]
    runs_per_result: int
    dropped_per_side: int

    def to_row(self) -> dict[str, float]:
        return {"score_s": self.score_s, "score_mean_s": self.score_mean_s,
                "score_std_s": self.score_std_s, "score_ci95_low_s": self.score_ci95_s[0],
                "score_ci95_high_s": self.score_ci95_s[1],
                "score_cv": self.score_std_s / self.score_mean_s,
                "runs_per_result": self.runs_per_result}


def mlperf_score(runs_s: np.ndarray | list[float], *,
                 drop: int = 1) -> np.float64 | NDArray[np.float64]:
    """Olympic average: drop the ``drop`` fastest and ``drop`` slowest runs, mean the rest.

    The runs are the last axis: a 1-D input gives one score (a ``numpy.float64``, a
    ``float``), an ``(..., runs)`` array one score per leading index.
    """
    arr = np.sort(np.asarray(runs_s, dtype=float), axis=-1)
    n = arr.shape[-1]
    if n - 2 * drop < 1:
        raise ConfigError(f"{n} runs leave nothing after dropping {drop} from each side",
                          field="runs")
    scores: np.float64 | NDArray[np.float64] = arr[..., drop:n - drop].mean(axis=-1)
    return scores


def simulate_time_to_train(
    *,
    iteration_s: float,
    iterations_per_epoch: int,
    convergence: ConvergenceModel,
    init_s: float = 0.0,
    runs_per_result: int = 5,
    drop: int = 1,
    repeats: int = 2000,
    iteration_std_s: float = 0.0,
    seed: int = 0,
) -> MLPerfScore:
    """Simulate MLPerf results: ``repeats`` submissions of ``runs_per_result`` seeds each.

    ``iteration_std_s`` adds run-to-run noise of the mean iteration time (e.g. the PRISM
    distribution's spread divided by sqrt(iterations)); ``score_s`` is the first
    submission's score, the mean/std/95% interval describe its distribution.
    """
    if not iteration_s > 0:
        raise ConfigError(f"must be > 0, not {iteration_s!r}", field="iteration_s")
    for name, v in (("iterations_per_epoch", iterations_per_epoch),
                    ("runs_per_result", runs_per_result), ("repeats", repeats)):
        if not isinstance(v, int) or v < 1:
            raise ConfigError(f"must be a positive integer, not {v!r}", field=name)
    if runs_per_result - 2 * drop < 1:
        raise ConfigError(f"{runs_per_result} runs leave nothing after dropping {drop} from "
                          "each side", field="runs_per_result")
    rng = np.random.default_rng(seed)
    epochs = convergence.draw(rng, (repeats, runs_per_result))
    it = np.full_like(epochs, iteration_s)
    if iteration_std_s > 0:
        it = it + rng.normal(0.0, iteration_std_s, epochs.shape)
    runs = init_s + epochs * iterations_per_epoch * it
    scores = np.asarray(mlperf_score(runs, drop=drop))  # (repeats,): an array
    lo, hi = np.quantile(scores, [0.025, 0.975])
    return MLPerfScore(runs_s=tuple(float(x) for x in runs[0]), score_s=float(scores[0]),
                       score_mean_s=float(scores.mean()),
                       score_std_s=float(scores.std(ddof=1)) if repeats > 1 else 0.0,
                       score_ci95_s=(float(lo), float(hi)), runs_per_result=runs_per_result,
                       dropped_per_side=drop)
