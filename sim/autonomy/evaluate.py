"""Success rates with exact binomial confidence intervals, and training of the policy family.

:func:`success_rate` flies a policy over ``episodes`` freshly drawn worlds of one density and
reports the fraction that reach the goal with a Clopper-Pearson interval
(:meth:`scipy.stats.binomtest(...).proportion_ci`, ``method="exact"``).
:func:`train_family` trains each :class:`~.policies.NavPolicySpec` with DAgger and measures it
on every density, giving the table AutoPilot's co-design consumes (success rate per
environment, FLOPs, parameters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from ...errors import ConfigError
from ...fields import is_positive_int
from .expert import Expert
from .policies import TRAIN_SEED_BASE, DAggerSettings, NavPolicySpec, train_dagger
from .world import DENSITIES, Policy, World, WorldSpec, make_world, run_episode

__all__ = ["SuccessRate", "binomial_ci", "success_rate", "expert_success_rate", "PolicyRow",
           "FamilyTable", "QUICK_SETTINGS", "FULL_SETTINGS", "train_family"]

#: World seeds of evaluation seed ``s`` are ``EVAL_STRIDE * s + i`` (below TRAIN_SEED_BASE).
EVAL_STRIDE = 10_000


def binomial_ci(successes: int, episodes: int, confidence: float = 0.95,
                ) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a binomial proportion, via scipy."""
    if not is_positive_int(episodes):
        raise ConfigError(f"must be a positive integer, not {episodes!r}", field="episodes")
    if not 0 <= successes <= episodes:
        raise ConfigError(f"must be in 0..{episodes}, not {successes!r}", field="successes")
    if not 0 < confidence < 1:
        raise ConfigError(f"must be in (0, 1), not {confidence!r}", field="confidence")
    ci = binomtest(successes, episodes).proportion_ci(confidence_level=confidence,
                                                      method="exact")
    return float(ci.low), float(ci.high)


@dataclass(frozen=True, kw_only=True)
class SuccessRate:
    """Outcomes of ``episodes`` flights in one density.

    Attributes
    ----------
    density : str
        The environment.
    episodes, successes, collisions, timeouts : int
        Flights and how they ended (the last three sum to ``episodes``).
    rate : float
        ``successes / episodes``.
    ci_low, ci_high : float
        Clopper-Pearson interval at ``confidence``.
    confidence : float
        Its level.
    mean_path_length_m : float
        Mean distance flown over successful flights (NaN if none).
    """

    density: str
    episodes: int
    successes: int
    collisions: int
    timeouts: int
    rate: float
    ci_low: float
    ci_high: float
    confidence: float
    mean_path_length_m: float


def _rate(make_policy: Callable[[World], Policy], density: str, episodes: int, seed: int,
          confidence: float, world_spec: WorldSpec | None) -> SuccessRate:
    if density not in DENSITIES:
        raise ConfigError(f"unknown density {density!r}", field="density",
                          allowed=sorted(DENSITIES))
    if isinstance(episodes, bool) or not isinstance(episodes, int) or not 1 <= episodes <= EVAL_STRIDE:
        raise ConfigError(f"must be an integer in 1..{EVAL_STRIDE}, not {episodes!r}",
                          field="episodes")
    top = TRAIN_SEED_BASE // EVAL_STRIDE - 1
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= top:
        raise ConfigError(f"must be an integer in 0..{top}, not {seed!r}", field="seed")
    results = []
    for i in range(episodes):
        world = make_world(density, EVAL_STRIDE * seed + i, world_spec)
        results.append(run_episode(make_policy(world), world, EVAL_STRIDE * seed + i))
    k = sum(r.success for r in results)
    lo, hi = binomial_ci(k, episodes, confidence)
    paths = [r.path_length_m for r in results if r.success]
    return SuccessRate(density=density, episodes=episodes, successes=k,
                       collisions=sum(r.collision for r in results),
                       timeouts=sum(r.timeout for r in results), rate=k / episodes,
                       ci_low=lo, ci_high=hi, confidence=confidence,
                       mean_path_length_m=float(np.mean(paths)) if paths else float("nan"))


def success_rate(policy: Policy, density: str, episodes: int, seed: int, *,
                 confidence: float = 0.95, world_spec: WorldSpec | None = None,
                 ) -> SuccessRate:
    """Fly ``policy`` in ``episodes`` worlds of ``density`` (world seeds
    ``10_000 * seed + i``, disjoint from the training worlds) and count the successes."""
    return _rate(lambda _w: policy, density, episodes, seed, confidence, world_spec)


def expert_success_rate(density: str, episodes: int, seed: int, *, confidence: float = 0.95,
                        world_spec: WorldSpec | None = None) -> SuccessRate:
    """The same measurement for the full-map :class:`~.expert.Expert` of each world."""
    return _rate(Expert, density, episodes, seed, confidence, world_spec)


#: Quick (CI) and full (shipped results) training and evaluation settings (assumed).
QUICK_SETTINGS = DAggerSettings(rounds=2, episodes_per_round=15, epochs=4)
FULL_SETTINGS = DAggerSettings(rounds=4, episodes_per_round=30, epochs=6)
QUICK_EPISODES = 30
FULL_EPISODES = 100


@dataclass(frozen=True, kw_only=True)
class PolicyRow:
    """One policy in one environment.

    Attributes
    ----------
    spec : NavPolicySpec
        The policy.
    density : str
        The environment.
    result : SuccessRate
        Its measured success rate.
    flops : float
        FLOPs per inference.
    parameters : int
        Trainable scalars.
    train_time_s : float
        Wall-clock DAgger time on this machine (data collection + SGD).
    samples : int
        Labelled states in the final aggregate.
    final_loss : float
        Training loss of the last epoch.
    """

    spec: NavPolicySpec
    density: str
    result: SuccessRate
    flops: float
    parameters: int
    train_time_s: float
    samples: int
    final_loss: float

    def as_dict(self) -> dict[str, object]:
        """A flat CSV row."""
        r = self.result
        return {"policy": self.spec.name, "conv_layers": self.spec.conv_layers,
                "filters": self.spec.filters, "hidden": self.spec.hidden,
                "density": self.density, "episodes": r.episodes, "successes": r.successes,
                "collisions": r.collisions, "timeouts": r.timeouts,
                "success_rate": r.rate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                "flops": self.flops, "parameters": self.parameters,
                "train_time_s": round(self.train_time_s, 2), "samples": self.samples,
                "final_loss": round(self.final_loss, 4)}


@dataclass(frozen=True, kw_only=True)
class FamilyTable:
    """:func:`train_family`'s result.

    Attributes
    ----------
    rows : tuple of PolicyRow
        Every spec x density.
    expert : tuple of SuccessRate
        The expert on the same evaluation worlds, per density.
    seed : int
        Training and evaluation seed.
    settings : DAggerSettings
        Training settings.
    episodes : int
        Evaluation flights per density.
    """

    rows: tuple[PolicyRow, ...]
    expert: tuple[SuccessRate, ...]
    seed: int
    settings: DAggerSettings
    episodes: int

    def rate(self, spec: NavPolicySpec, density: str) -> float:
        """The success rate of ``spec`` in ``density``."""
        for r in self.rows:
            if r.spec == spec and r.density == density:
                return r.result.rate
        raise ConfigError(f"no row for {spec.name} in {density!r}", field="spec")


def train_family(specs: Sequence[NavPolicySpec], *, seed: int = 0, quick: bool = False,
                 progress: Callable[[str], None] | None = None) -> FamilyTable:
    """Train every spec with DAgger and measure it (and the expert) in every density.

    ``quick`` uses :data:`QUICK_SETTINGS` and 30 evaluation flights per density; otherwise
    :data:`FULL_SETTINGS` and 100.
    """
    if not specs:
        raise ConfigError("needs at least one spec", field="specs")
    settings = QUICK_SETTINGS if quick else FULL_SETTINGS
    episodes = QUICK_EPISODES if quick else FULL_EPISODES
    rows = []
    for spec in specs:
        policy, rep = train_dagger(spec, seed=seed, settings=settings)
        for d in sorted(DENSITIES):
            res = success_rate(policy, d, episodes, seed)
            rows.append(PolicyRow(spec=spec, density=d, result=res, flops=spec.flops,
                                  parameters=spec.parameters, train_time_s=rep.train_time_s,
                                  samples=rep.samples[-1], final_loss=rep.loss[-1]))
        if progress is not None:
            progress(f"{spec.name}: trained in {rep.train_time_s:.1f} s")
    expert = tuple(expert_success_rate(d, episodes, seed) for d in sorted(DENSITIES))
    return FamilyTable(rows=tuple(rows), expert=expert, seed=seed, settings=settings,
                       episodes=episodes)
