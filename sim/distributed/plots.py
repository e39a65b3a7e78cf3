"""PNG plots of the distributed-training results (matplotlib, Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...outputs import save_figure
from .variability import IterationDistribution

__all__ = ["plot_breakdown", "plot_speedups", "plot_iteration_distribution",
           "plot_slowdown_vs_gpus", "plot_probability_of_finishing", "plot_time_to_train"]


def _fig(width: float = 7.0, height: float = 4.0):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height))


def plot_breakdown(rows: Sequence[dict[str, Any]], path: Path, *,
                   title: str = "Per-iteration breakdown") -> Path:
    """Stacked bars of compute, recompute, bubble and exposed communication per row
    (each row has ``label`` and the seconds fields of an iteration row)."""
    fig, ax = _fig(max(7.0, 0.5 * len(rows) + 3), 4.5)
    labels = [r["label"] for r in rows]
    x = np.arange(len(rows))
    bottom = np.zeros(len(rows))
    for key, color in (("compute_s", "tab:blue"), ("recompute_s", "tab:cyan"),
                       ("bubble_s", "tab:gray"), ("exposed_comm_s", "tab:red")):
        frac = np.array([r[key] / r["iteration_s"] for r in rows])
        ax.bar(x, frac, bottom=bottom, label=key.removesuffix("_s").replace("_", " "),
               color=color)
        bottom += frac
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("fraction of iteration time")
    ax.set_title(title)
    ax.legend(fontsize=7)
    return save_figure(fig, path)


def plot_speedups(rows: Sequence[dict[str, Any]], path: Path, *,
                  published: dict[str, float] | None = None) -> Path:
    """Best-strategy speedup over the baseline per row (``label``, ``speedup``, ``mode``)."""
    fig, ax = _fig(max(7.0, 0.5 * len(rows) + 3), 4.5)
    x = np.arange(len(rows))
    palette = {"training": "tab:blue", "inference": "tab:orange", "decode": "tab:green"}
    colors = [palette.get(r["mode"], "tab:gray") for r in rows]
    ax.bar(x, [r["speedup"] or 0.0 for r in rows], color=colors)
    for mode, value in (published or {}).items():
        ax.axhline(value, ls="--", color="tab:blue" if mode == "training" else "tab:orange",
                   label=f"MAD-Max up to {value}x ({mode})")
    ax.set_xticks(x, [r["label"] for r in rows], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("best / baseline throughput")
    ax.set_title("Best-strategy speedup over the baseline (blue training, orange inference "
                 "prefill, green decode)")
    if published:
        ax.legend(fontsize=7)
    return save_figure(fig, path)


def plot_iteration_distribution(dist: IterationDistribution, path: Path, *,
                                title: str = "Iteration time") -> Path:
    """Monte Carlo histogram and analytic CDF-derived density of one iteration's time."""
    fig, ax = _fig()
    if dist.samples_s is not None:
        ax.hist(dist.samples_s, bins=80, density=True, alpha=0.5, label="Monte Carlo")
    if dist.cdf is not None and dist.grid_s is not None and dist.grid_s.size > 2:
        mid = 0.5 * (dist.grid_s[1:] + dist.grid_s[:-1])
        dens = np.diff(dist.cdf) / np.diff(dist.grid_s)
        ax.plot(mid, dens, color="k", lw=1, label="analytic (order statistics)")
    ax.axvline(dist.deterministic_s, color="tab:red", ls="--", label="deterministic")
    ax.set_xlabel("iteration time (s)")
    ax.set_ylabel("density")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def plot_slowdown_vs_gpus(rows: Sequence[dict[str, Any]], path: Path, *,
                          published: tuple[int, float] | None = None) -> Path:
    """Expected (and p99) slowdown from variability against GPU count."""
    fig, ax = _fig()
    n = [r["num_gpus"] for r in rows]
    ax.semilogx(n, [100 * r["expected_slowdown"] for r in rows], "o-", label="expected")
    ax.semilogx(n, [100 * r["p99_slowdown"] for r in rows], "s--", label="p99")
    if published:
        ax.plot([published[0]], [100 * published[1]], "r*", ms=12,
                label="PRISM: 9% GPU-time variability at 64k")
    ax.set_xlabel("GPUs")
    ax.set_ylabel("slowdown from variability (%)")
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def plot_probability_of_finishing(days: np.ndarray, prob: np.ndarray, deterministic_days: float,
                                  path: Path) -> Path:
    """P(training finishes by day T)."""
    fig, ax = _fig()
    ax.plot(days, prob)
    ax.axvline(deterministic_days, color="tab:red", ls="--", label="deterministic model")
    ax.set_xlabel("deadline (days)")
    ax.set_ylabel("P(training done by deadline)")
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def plot_time_to_train(runs_h: np.ndarray, scores_h: np.ndarray, path: Path) -> Path:
    """Distribution of single-run times and of MLPerf scores (drop fastest/slowest, mean)."""
    fig, ax = _fig()
    ax.hist(runs_h, bins=60, density=True, alpha=0.5, label="single run")
    ax.hist(scores_h, bins=60, density=True, alpha=0.5, label="MLPerf score (olympic mean)")
    ax.set_xlabel("time to train (hours)")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    return save_figure(fig, path)
