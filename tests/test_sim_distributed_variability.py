import math

import numpy as np
import pytest
from scipy import stats

from archsim.errors import ConfigError
from archsim.sim.distributed import (
    VARIABILITY_DEFINITIONS,
    LLMWorkload,
    Strategy,
    VariabilityModel,
    evaluate,
    expected_max_over_median,
    finish_time_quantiles,
    gpu_time_variability,
    iteration_distribution,
    make_cluster,
    probability_of_finishing,
    slowdown_vs_gpus,
)


def _dkw_eps(n, alpha=1e-4):
    """Dvoretzky-Kiefer-Wolfowitz: sup |ECDF - F| <= eps with probability 1 - alpha."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def test_zero_variance_is_deterministic():
    wl = LLMWorkload(model="llama-7b", seq_len=2048)
    r = evaluate(wl, make_cluster(gpu="h100", num_gpus=64), Strategy(dp=8, tp=8, zero=1),
                 global_batch=64)
    d = iteration_distribution(r, VariabilityModel(kernel_sigma=0.0, gpu_sigma=0.0),
                               samples=500, seed=3)
    assert np.all(d.samples_s == r.iteration_s)
    for q in (0.0, 0.3, 1.0):
        assert d.quantile(q) == r.iteration_s
    assert d.expected_slowdown() == 0.0


@pytest.mark.parametrize("segments,gpu_sigma", [(1, 0.02), (3, 0.02), (1, 0.0)])
def test_monte_carlo_and_analytic_agree_within_sampling_error(segments, gpu_sigma):
    vm = VariabilityModel(kernel_sigma=0.2, gpu_sigma=gpu_sigma)
    n = 20_000
    d = iteration_distribution(model=vm, deterministic_s=2.0, noisy_s=1.5, num_ranks=500,
                               segments=segments, kernels_per_iteration=40, samples=n, seed=1)
    ecdf_x = np.sort(d.samples_s)
    ecdf = np.arange(1, n + 1) / n
    gap = np.max(np.abs(ecdf - d.cdf_at(ecdf_x)))
    assert gap < _dkw_eps(n) + 2e-3  # + grid interpolation
    for q in (0.05, 0.5, 0.95):
        assert d.quantile(q, method="mc") == pytest.approx(d.quantile(q), rel=2e-3)


def test_analytic_matches_order_statistics_closed_form():
    # identical ranks: the segment max of N iid log-normals has quantile exp(mu + s ppf(q^(1/N)))
    vm = VariabilityModel(kernel_sigma=0.1, gpu_sigma=0.0)
    n_ranks, kernels = 65536, 10
    d = iteration_distribution(model=vm, deterministic_s=1.0, noisy_s=1.0, num_ranks=n_ranks,
                               kernels_per_iteration=kernels, method="both", samples=20_000)
    s = math.sqrt(math.log1p(math.expm1(0.1**2) / kernels))
    for q in (0.1, 0.5, 0.9):
        expected = math.exp(-s * s / 2 + s * stats.norm.ppf(q ** (1 / n_ranks)))
        assert d.quantile(q) == pytest.approx(expected, rel=1e-4)
        assert d.quantile(q, method="mc") == pytest.approx(expected, rel=2e-3)


def test_inverse_transform_matches_drawing_every_rank():
    vm = VariabilityModel(kernel_sigma=0.3, gpu_sigma=0.0)
    kw = dict(model=vm, deterministic_s=1.0, noisy_s=1.0, num_ranks=5000, samples=3000,
              method="mc")
    fast = iteration_distribution(seed=1, **kw)
    brute = iteration_distribution(seed=2, brute_force=True, **kw)
    assert stats.ks_2samp(fast.samples_s, brute.samples_s).pvalue > 1e-3


def test_skipping_slow_ranks_does_not_change_the_result():
    vm = VariabilityModel(kernel_sigma=0.05, gpu_sigma=0.05)
    kw = dict(model=vm, deterministic_s=1.0, noisy_s=0.9, num_ranks=3000, samples=4000,
              method="mc", kernels_per_iteration=50)
    fast = iteration_distribution(seed=4, **kw)
    brute = iteration_distribution(seed=4, brute_force=True, **kw)
    assert stats.ks_2samp(fast.samples_s, brute.samples_s).pvalue > 1e-3


def test_slowdown_grows_with_gpu_count_and_finishing_probability():
    vm = VariabilityModel(kernel_sigma=0.05, gpu_sigma=0.02)
    rows = slowdown_vs_gpus(vm, [8, 512, 32768], noisy_fraction=0.8)
    slow = [r["expected_slowdown"] for r in rows]
    assert 0 < slow[0] < slow[1] < slow[2]
    d = iteration_distribution(model=vm, deterministic_s=1.0, noisy_s=0.8, num_ranks=512,
                               method="analytic")
    n_it = 10_000
    mean_total = n_it * d.mean_s()
    assert probability_of_finishing(d, n_it, mean_total) == pytest.approx(0.5, abs=1e-9)
    p = probability_of_finishing(d, n_it, np.linspace(0.9, 1.2, 50) * mean_total)
    assert np.all(np.diff(p) >= 0)
    assert probability_of_finishing(d, n_it, n_it * 1.0) < 1e-6  # the deterministic date


def test_bad_variability_inputs():
    with pytest.raises(ConfigError, match="must be a finite number >= 0"):
        VariabilityModel(kernel_sigma=-0.1)
    with pytest.raises(ConfigError, match="needs at least two positive finite samples"):
        VariabilityModel(kernel_samples=(1.0, -2.0))
    with pytest.raises(ConfigError, match="pass a breakdown or both"):
        iteration_distribution(deterministic_s=1.0)
    with pytest.raises(ConfigError, match=r"need 0 <= noisy_s \(2.0\) <= deterministic_s"):
        iteration_distribution(deterministic_s=1.0, noisy_s=2.0)
    with pytest.raises(ConfigError, match="unknown method 'exact'"):
        iteration_distribution(deterministic_s=1.0, noisy_s=0.5, method="exact")
    with pytest.raises(ConfigError, match="must be a positive integer"):
        iteration_distribution(deterministic_s=1.0, noisy_s=0.5, num_ranks=0)


def test_empirical_kernel_samples_use_their_variance():
    rng = np.random.default_rng(0)
    samples = tuple(rng.gamma(50.0, 1.0, 2000))
    vm = VariabilityModel(kernel_samples=samples)
    arr = np.asarray(samples)
    assert vm.kernel_variance == pytest.approx(np.var(arr / arr.mean(), ddof=1))


def test_same_seed_same_result():
    vm = VariabilityModel(kernel_sigma=0.1, gpu_sigma=0.03)
    kw = dict(model=vm, deterministic_s=1.0, noisy_s=0.7, num_ranks=2000, samples=2000)
    a = iteration_distribution(seed=5, **kw)
    b = iteration_distribution(seed=5, **kw)
    c = iteration_distribution(seed=6, **kw)
    np.testing.assert_array_equal(a.samples_s, b.samples_s)
    np.testing.assert_array_equal(a.cdf, b.cdf)
    assert not np.array_equal(a.samples_s, c.samples_s)


def test_collective_noise_closed_form_and_agreement():
    # only collectives vary: T = det + comm (F - 1), F mean-1 log-normal with the
    # Fenton-Wilkinson sigma of C collectives
    vm = VariabilityModel(kernel_sigma=0.0, gpu_sigma=0.0, comm_sigma=0.3)
    det, noisy, c = 2.0, 1.2, 10
    d = iteration_distribution(model=vm, deterministic_s=det, noisy_s=noisy, num_ranks=64,
                               collectives_per_iteration=c, samples=20_000, seed=2)
    sc = math.sqrt(math.log1p(math.expm1(0.09) / c))
    for q in (0.05, 0.5, 0.95):
        expected = det + (det - noisy) * (math.exp(-sc * sc / 2 + sc * stats.norm.ppf(q)) - 1)
        assert d.quantile(q) == pytest.approx(expected, rel=1e-3)
        assert d.quantile(q, method="mc") == pytest.approx(expected, rel=5e-3)
    assert d.mean_s() == pytest.approx(det, rel=1e-4)  # mean-1 noise: no slowdown
    # both sources together: Monte Carlo and the analytic convolution agree
    vm2 = VariabilityModel(kernel_sigma=0.2, gpu_sigma=0.02, comm_sigma=0.3)
    n = 20_000
    d2 = iteration_distribution(model=vm2, deterministic_s=det, noisy_s=noisy, num_ranks=300,
                                kernels_per_iteration=20, collectives_per_iteration=c,
                                samples=n, seed=3)
    xs = np.sort(d2.samples_s)
    assert np.max(np.abs(np.arange(1, n + 1) / n - d2.cdf_at(xs))) < _dkw_eps(n) + 2e-3


def test_finish_time_quantiles_match_summed_monte_carlo_iterations():
    """The CLT mixture behind probability_of_finishing / finish_time_quantiles against an
    independent Monte Carlo: totals of 200 iterations drawn from each allocation's own
    Monte Carlo samples, pooled over three allocations."""
    vm = VariabilityModel(kernel_sigma=0.2, gpu_sigma=0.05, comm_sigma=0.3)
    dists = [iteration_distribution(model=vm, deterministic_s=1.0, noisy_s=0.7,
                                    num_ranks=64, segments=2, kernels_per_iteration=20,
                                    collectives_per_iteration=4, samples=20_000, seed=s,
                                    method="both", grid_points=1024) for s in range(3)]
    n = 200
    rng = np.random.default_rng(5)
    totals = np.concatenate([rng.choice(d.samples_s, (4000, n)).sum(axis=1) for d in dists])
    qs = (0.05, 0.25, 0.5, 0.75, 0.95)
    ours = finish_time_quantiles(dists, n, qs)
    for q in qs:
        assert ours[q] == pytest.approx(np.quantile(totals, q), rel=2e-3)
        assert float(probability_of_finishing(dists, n, ours[q])) == pytest.approx(q, abs=1e-6)
    with pytest.raises(ConfigError, match="in \\(0, 1\\)"):
        finish_time_quantiles(dists, n, (1.0,))


def test_gpu_time_variability_definitions_by_hand():
    t = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    v = gpu_time_variability(t)
    assert v["max_over_median"] == pytest.approx(100 / 3 - 1)
    # quartiles 2 and 4 (numpy's linear rule), whiskers [-1, 7]: 100 is an outlier
    assert v["whisker_range_over_median"] == pytest.approx((4 - 1) / 3)
    assert v["range_over_min"] == pytest.approx(99.0)
    assert v["cv"] == pytest.approx(np.std(t, ddof=1) / np.mean(t))
    assert set(v) == set(VARIABILITY_DEFINITIONS)
    with pytest.raises(ConfigError, match="at least two"):
        gpu_time_variability(np.array([1.0]))


def test_expected_max_over_median_closed_forms_and_monte_carlo():
    s = 0.3
    # one log-normal: e^(s^2/2) - 1; the max of two iid: 2 e^(s^2/2) Phi(s / sqrt 2) - 1
    assert expected_max_over_median(s, 1) == pytest.approx(math.expm1(s * s / 2), rel=1e-9)
    assert expected_max_over_median(s, 2) == pytest.approx(
        2 * math.exp(s * s / 2) * stats.norm.cdf(s / math.sqrt(2)) - 1, rel=1e-9)
    # the max's spread is ~0.27 sigma per draw: 120 draws pin the mean to ~0.7%
    x = np.exp(np.random.default_rng(0).normal(0.0, 0.015, (120, 65536))).max(axis=1)
    assert expected_max_over_median(0.015, 65536) == pytest.approx(x.mean() - 1, rel=0.02)
    assert expected_max_over_median(0.0, 10) == 0.0
