import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.distributed import ConvergenceModel, mlperf_score, simulate_time_to_train


def test_olympic_mean():
    runs = [5.0, 1.0, 3.0, 9.0, 4.0]
    assert mlperf_score(runs) == pytest.approx(np.mean([3.0, 4.0, 5.0]))
    ten = np.arange(10.0)
    assert mlperf_score(ten, drop=1) == pytest.approx(np.mean(ten[1:9]))


def test_deterministic_convergence_gives_exact_time():
    r = simulate_time_to_train(iteration_s=0.5, iterations_per_epoch=1000,
                               convergence=ConvergenceModel(mean_epochs=2.0, cv=0.0),
                               init_s=60.0, repeats=10)
    assert r.score_s == pytest.approx(60.0 + 2.0 * 1000 * 0.5)
    assert r.score_std_s == pytest.approx(0.0, abs=1e-9)


def test_score_variance_shrinks_versus_single_runs():
    conv = ConvergenceModel(mean_epochs=1.0, cv=0.1)
    r = simulate_time_to_train(iteration_s=1.0, iterations_per_epoch=100, convergence=conv,
                               repeats=4000, seed=2)
    assert r.score_mean_s == pytest.approx(100.0, rel=0.01)
    # a single run's cv is 10%; the mean of the middle 3 of 5 is well below that
    assert 0.02 < r.score_std_s / r.score_mean_s < 0.1
    assert r.score_ci95_s[0] < r.score_mean_s < r.score_ci95_s[1]


def test_resampled_empirical_epochs():
    conv = ConvergenceModel(samples=(3.0, 3.0))
    r = simulate_time_to_train(iteration_s=1.0, iterations_per_epoch=10, convergence=conv,
                               repeats=5)
    assert r.score_s == pytest.approx(30.0)


def test_bad_mlperf_inputs():
    with pytest.raises(ConfigError, match="3 runs leave nothing after dropping 2"):
        mlperf_score([1.0, 2.0, 3.0], drop=2)
    with pytest.raises(ConfigError, match="must be > 0"):
        ConvergenceModel(mean_epochs=0.0)
    with pytest.raises(ConfigError, match="must be a positive integer"):
        simulate_time_to_train(iteration_s=1.0, iterations_per_epoch=0,
                               convergence=ConvergenceModel())
