"""The cross-stack study's arithmetic: operator shares, speedups, crossovers, deployment ratios.

Everything here works on plain numbers (seconds per group, per model and batch), so the tests
check it against hand-worked values on fake measurements.

The authors' figures (Hsia et al., IISWC 2020, as plotted by the DeepRecSys repository's
``experiments/operator_breakdown`` scripts) are :data:`CPU_SHARES_PUBLISHED`,
:data:`GPU_SHARES_PUBLISHED`, :data:`SPEEDUP_1024_PUBLISHED` and
:data:`CROSSOVER_PUBLISHED`: all read by eye off the committed figure images
(``/work/shared/papers/recsys-characterization-ml-studies.md`` §1.5, [V-fig], +-2 points or
+-0.1x).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ....errors import ConfigError

__all__ = ["CATEGORIES", "PublishedShare", "CPU_SHARES_PUBLISHED", "GPU_SHARES_PUBLISHED",
           "SPEEDUP_1024_PUBLISHED", "SPEEDUP_B1_PUBLISHED", "CROSSOVER_PUBLISHED",
           "category_shares", "speedup_grid", "crossover_batch", "deployment_ratio",
           "DeploymentRatio", "best_deployment_ratio", "batching_gain"]

#: The authors' operator categories as our timed groups map onto them: the authors' FC
#: operators include DIN's attention unit (``din.py`` builds it of FC operators), so "fc"
#: is our ``fc`` + ``attention``; "gru" is their RecurrentNetwork; "other" is the rest of
#: the forward pass (concat, activations, and for a measurement its untimed glue).
CATEGORIES = ("fc", "sls", "gru", "other")


@dataclass(frozen=True)
class PublishedShare:
    """One share read off the authors' breakdown figure: ``category`` of ``model``'s time at
    ``batch``, between ``low_pct`` and ``high_pct`` percent (equal for a single reading)."""

    model: str
    batch: int
    category: str
    low_pct: float
    high_pct: float


def _ps(model: str, batches: Sequence[int], category: str, low: float,
        high: float | None = None) -> list[PublishedShare]:
    return [PublishedShare(model, b, category, low, low if high is None else high)
            for b in batches]


#: §1.5 CPU (Skylake) breakdown. A range stated for a model without a batch ("FC 93-97%")
#: is compared at the plotted batches 1 and 1024 (the figure's ends).
CPU_SHARES_PUBLISHED: tuple[PublishedShare, ...] = tuple(
    _ps("DLRM-RMC1", (1,), "fc", 58) + _ps("DLRM-RMC1", (1,), "sls", 30)
    + _ps("DLRM-RMC1", (1024,), "fc", 19) + _ps("DLRM-RMC1", (1024,), "sls", 78)
    + _ps("DLRM-RMC2", (1,), "fc", 26) + _ps("DLRM-RMC2", (1,), "sls", 70)
    + _ps("DLRM-RMC2", (16, 1024), "sls", 90)
    + _ps("DLRM-RMC3", (1, 1024), "fc", 93, 97)
    + _ps("NCF", (1, 1024), "fc", 73, 90)
    + _ps("WnD", (1, 1024), "fc", 94, 96) + _ps("MT-WnD", (1, 1024), "fc", 94, 96)
    + _ps("DIN", (1, 1024), "fc", 58, 78) + _ps("DIN", (1, 1024), "sls", 7, 12)
    + _ps("DIEN", (1,), "gru", 96) + _ps("DIEN", (1024,), "gru", 50)
    + _ps("DIEN", (1024,), "fc", 30))

#: §1.5 GPU (GTX 1080 Ti) breakdown; "SLS dominates ... (56-78%)" is compared at the ends.
GPU_SHARES_PUBLISHED: tuple[PublishedShare, ...] = tuple(
    _ps("DLRM-RMC1", (1, 1024), "sls", 56, 78) + _ps("DLRM-RMC2", (1, 1024), "sls", 75, 93)
    + _ps("WnD", (1, 1024), "sls", 48, 70) + _ps("MT-WnD", (1, 1024), "sls", 53, 73)
    + _ps("DLRM-RMC3", (1,), "fc", 34) + _ps("DLRM-RMC3", (1024,), "fc", 68)
    + _ps("DIEN", (1, 64), "gru", 79) + _ps("DIEN", (1024,), "gru", 53))

#: §1.5: GTX 1080 Ti over Skylake at batch 1024.
SPEEDUP_1024_PUBLISHED: dict[str, float] = {
    "WnD": 4.6, "MT-WnD": 4.0, "DLRM-RMC3": 3.1, "NCF": 2.9, "DIEN": 2.0, "DIN": 1.35,
    "DLRM-RMC2": 1.15, "DLRM-RMC1": 1.1}
#: §1.5: every model below 1x at batch 1, "about 0.25-0.7x" (RMC3 the best at 0.7x).
SPEEDUP_B1_PUBLISHED: tuple[float, float] = (0.25, 0.7)
#: §1.5: the batch at which the GPU starts to win, as a (low, high) reading; RMC1's is not
#: stated (its speedup reaches only 1.1x at 1024).
CROSSOVER_PUBLISHED: dict[str, tuple[float, float]] = {
    "DLRM-RMC3": (4, 4), "DLRM-RMC2": (16, 16), "WnD": (16, 64), "MT-WnD": (16, 64),
    "NCF": (64, 100), "DIEN": (100, 200), "DIN": (256, 1024)}


def category_shares(group_s: Mapping[str, float], total_s: float | None = None
                    ) -> dict[str, float]:
    """Shares (fractions) of :data:`CATEGORIES` in one forward pass.

    Parameters
    ----------
    group_s
        Seconds per timed group (``sls``, ``fc``, ``attention``, ``gru``, anything else).
    total_s
        The pass's measured total; the time no group covers counts as ``other``. Default:
        the groups' sum.
    """
    covered = math.fsum(group_s.values())
    total = covered if total_s is None else float(total_s)
    if not total > 0 or total < covered * (1 - 1e-9):
        raise ConfigError(f"total must be > 0 and at least the groups' sum {covered:.4g}, "
                          f"not {total!r}", field="total_s")
    fc = group_s.get("fc", 0.0) + group_s.get("attention", 0.0)
    sls = group_s.get("sls", 0.0)
    gru = group_s.get("gru", 0.0)
    return {"fc": fc / total, "sls": sls / total, "gru": gru / total,
            "other": (total - fc - sls - gru) / total}


def speedup_grid(cpu_s: Mapping[str, Sequence[float]], gpu_s: Mapping[str, Sequence[float]]
                 ) -> dict[str, list[float]]:
    """GPU-over-CPU speedup (``cpu_s / gpu_s``) per model, batch by batch."""
    if set(cpu_s) != set(gpu_s):
        raise ConfigError("the CPU and GPU times must cover the same models", field="gpu_s",
                          allowed=sorted(cpu_s))
    out = {}
    for m, c in cpu_s.items():
        g = gpu_s[m]
        if len(c) != len(g):
            raise ConfigError(f"{m}: {len(c)} CPU times but {len(g)} GPU times", field="gpu_s")
        out[m] = [float(a) / float(b) for a, b in zip(c, g, strict=True)]
    return out


def crossover_batch(batches: Sequence[int], speedup: Sequence[float]) -> float:
    """The batch at which the GPU starts to win: where ``speedup`` first rises through 1,
    interpolated linearly in ``log(batch)`` between the sweep points around it (the sweep is
    geometric). ``batches[0]`` if it already wins there, ``inf`` if it never does."""
    if len(batches) != len(speedup) or not batches:
        raise ConfigError("needs one speedup per batch", field="speedup")
    if speedup[0] > 1:
        return float(batches[0])
    for i in range(1, len(batches)):
        s0, s1 = speedup[i - 1], speedup[i]
        if s1 > 1:
            x0, x1 = math.log(batches[i - 1]), math.log(batches[i])
            x = x0 + (1 - s0) / (s1 - s0) * (x1 - x0)
            return float(math.exp(x))
    return math.inf


def deployment_ratio(times_s: Sequence[float]) -> float:
    """The best over the naive deployment at one (model, batch): the slowest platform's time
    over the fastest's (the same items, so a throughput ratio too)."""
    if not times_s or min(times_s) <= 0:
        raise ConfigError("needs positive times, one per platform", field="times_s")
    return max(times_s) / min(times_s)


@dataclass(frozen=True)
class DeploymentRatio:
    """The largest :func:`deployment_ratio` of a grid and where it is."""

    ratio: float
    model: str
    batch: int
    fastest: str
    slowest: str


def best_deployment_ratio(batches: Sequence[int],
                          times_s: Mapping[str, Mapping[str, Sequence[float]]]
                          ) -> DeploymentRatio:
    """The largest best-over-naive ratio over every model and batch.

    Parameters
    ----------
    batches
        The batch sizes.
    times_s
        ``times_s[platform][model][i]``: seconds of ``model`` at ``batches[i]``.
    """
    platforms = list(times_s)
    if len(platforms) < 2:
        raise ConfigError("needs at least two platforms", field="times_s")
    models = list(times_s[platforms[0]])
    best: DeploymentRatio | None = None
    for m in models:
        for i, b in enumerate(batches):
            ts = [float(times_s[p][m][i]) for p in platforms]
            r = deployment_ratio(ts)
            if best is None or r > best.ratio:
                best = DeploymentRatio(ratio=r, model=m, batch=int(b),
                                       fastest=platforms[int(np.argmin(ts))],
                                       slowest=platforms[int(np.argmax(ts))])
    assert best is not None
    return best


def batching_gain(batches: Sequence[int], times_s: Mapping[str, Sequence[float]],
                  naive: str) -> tuple[float, str, int]:
    """Per-item throughput of the best (platform, batch) over ``naive`` at batch
    ``batches[0]`` (another reading of "deployment choice": batching included), with the best
    platform and batch."""
    if naive not in times_s:
        raise ConfigError(f"unknown platform {naive!r}", field="naive", allowed=list(times_s))
    base = batches[0] / times_s[naive][0]
    gain, where = 0.0, (naive, int(batches[0]))
    for p, ts in times_s.items():
        for b, t in zip(batches, ts, strict=True):
            if b / t / base > gain:
                gain, where = b / t / base, (p, int(b))
    return gain, where[0], where[1]
