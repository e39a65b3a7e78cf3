"""Request generation and CSV traces."""

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.serving import (
    LengthDistribution,
    bursty_arrivals,
    generate_requests,
    load_trace,
    poisson_arrivals,
)


def test_poisson_gaps_have_mean_one_over_rate():
    a = poisson_arrivals(40000, 8.0, np.random.default_rng(0))
    gaps = np.diff(a)
    assert gaps.mean() == pytest.approx(1 / 8.0, rel=0.02)
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, rel=0.03)  # exponential: cv 1


def test_bursty_keeps_rate_and_raises_cv():
    gaps = np.diff(bursty_arrivals(40000, 8.0, np.random.default_rng(0), cv=3.0))
    assert gaps.mean() == pytest.approx(1 / 8.0, rel=0.05)
    assert gaps.std() / gaps.mean() == pytest.approx(3.0, rel=0.1)


def test_lognormal_lengths_match_mean_and_cv():
    d = LengthDistribution(kind="lognormal", mean=58.45, cv=1.0, max_len=100000)
    x = d.sample(200000, np.random.default_rng(0))
    assert x.mean() == pytest.approx(58.45, rel=0.02)
    assert x.std() / x.mean() == pytest.approx(1.0, rel=0.06)
    assert x.min() >= 1


def test_dataset_requests_and_offline_arrivals():
    r = generate_requests(1000, rate_per_s=None, dataset="sharegpt", seed=1)
    assert np.all(r.arrival_s == 0)
    assert r.prompt_tokens.max() <= 1024
    assert generate_requests(50, rate_per_s=3.0, seed=7).arrival_s.tolist() == \
        generate_requests(50, rate_per_s=3.0, seed=7).arrival_s.tolist()


@pytest.mark.parametrize("rate", [0.0, -2.0, float("nan")])
def test_rate_must_be_positive(rate):
    with pytest.raises(ConfigError, match=r"arrival rate must be a positive number.*not") as e:
        generate_requests(10, rate_per_s=rate)
    assert e.value.field == "rate"
    assert repr(rate) in str(e.value)


def test_other_bad_generation_inputs():
    with pytest.raises(ConfigError, match="unknown dataset 'wiki'"):
        generate_requests(10, rate_per_s=1.0, dataset="wiki")
    with pytest.raises(ConfigError, match="unknown arrival process 'uniform'"):
        generate_requests(10, rate_per_s=1.0, arrival="uniform")
    with pytest.raises(ConfigError, match="positive integer, not 0"):
        generate_requests(0, rate_per_s=1.0)
    with pytest.raises(ConfigError, match="unknown length distribution 'zipf'"):
        LengthDistribution(kind="zipf", mean=10.0)


def test_trace_round_trip(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("arrival_s,prompt_tokens,output_tokens\n0.5,10,20\n0.1,30,4\n")
    r = load_trace(path)
    assert r.arrival_s.tolist() == [0.1, 0.5]  # sorted by arrival
    assert r.prompt_tokens.tolist() == [30, 10]
    assert r.output_tokens.tolist() == [4, 20]


@pytest.mark.parametrize("text,pattern", [
    ("arrival_s,prompt_tokens\n0,1\n", "missing column.*output_tokens"),
    ("arrival_s,prompt_tokens,output_tokens\n0,1,2\n0.3,abc,2\n",
     r"line 3: prompt_tokens = 'abc' is not an integer"),
    ("arrival_s,prompt_tokens,output_tokens\n-1,1,2\n", r"line 2: arrival_s = '-1' must be >= 0"),
    ("arrival_s,prompt_tokens,output_tokens\n0,1,0\n", r"line 2: output_tokens = '0' must be >= 1"),
    ("arrival_s,prompt_tokens,output_tokens\n", "no requests"),
])
def test_malformed_trace_names_line_and_value(tmp_path, text, pattern):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ConfigError, match=pattern) as e:
        load_trace(path)
    assert str(path) in str(e.value)


def test_missing_trace_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read trace"):
        load_trace(tmp_path / "nope.csv")
