"""Success rates: exact binomial intervals, bookkeeping, a trained policy beats baselines."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.autonomy.evaluate import (
    QUICK_SETTINGS,
    binomial_ci,
    expert_success_rate,
    success_rate,
)
from archsim.sim.autonomy.policies import NavPolicySpec, train_dagger
from archsim.sim.autonomy.world import RandomPolicy, StraightPolicy


def test_ci_exact_values() -> None:
    # Clopper-Pearson with 0 successes: [0, 1 - (alpha/2)^(1/n)]; with n of n: [(alpha/2)^(1/n), 1].
    lo, hi = binomial_ci(0, 20)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 20), rel=1e-9)
    lo, hi = binomial_ci(20, 20)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 20), rel=1e-9)
    # 1 of 2 at 95%: [0.025^(1/1)... ] closed form: lower root of 1 - (1-p)^2 = 0.025.
    lo, hi = binomial_ci(1, 2)
    assert lo == pytest.approx(1 - np.sqrt(0.975), rel=1e-9)
    assert hi == pytest.approx(np.sqrt(0.975), rel=1e-9)


def test_bookkeeping() -> None:
    r = success_rate(StraightPolicy(), "medium", 12, 0)
    assert r.successes + r.collisions + r.timeouts == 12
    assert r.rate == r.successes / 12
    assert (r.ci_low, r.ci_high) == binomial_ci(r.successes, 12)
    with pytest.raises(ConfigError, match="density"):
        success_rate(StraightPolicy(), "sparse", 5, 0)


def test_expert_succeeds_mostly() -> None:
    assert expert_success_rate("dense", 20, 0).rate >= 0.9


def test_quick_policy_beats_random_and_straight() -> None:
    policy, _ = train_dagger(NavPolicySpec(conv_layers=2, filters=8), seed=0,
                             settings=QUICK_SETTINGS)
    ours = success_rate(policy, "low", 60, 1)
    rnd = success_rate(RandomPolicy(), "low", 60, 1)
    straight = success_rate(StraightPolicy(), "low", 60, 1)
    assert ours.rate >= straight.rate + 0.2
    assert ours.rate >= rnd.rate + 0.3
