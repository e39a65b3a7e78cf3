"""Wilson and Clopper-Pearson intervals against scipy's binomtest."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from archsim.sim.reliability import (
    binomial_rate,
    clopper_pearson_interval,
    ratio_interval,
    wilson_interval,
)

CASES = [(0, 1), (0, 50), (1, 50), (7, 200), (100, 200), (199, 200), (200, 200), (3, 10000)]


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_intervals_equal_scipy(confidence: float) -> None:
    k = np.array([c[0] for c in CASES])
    n = np.array([c[1] for c in CASES])
    wl, wh = wilson_interval(k, n, confidence=confidence)
    cl, ch = clopper_pearson_interval(k, n, confidence=confidence)
    for j, (kk, nn) in enumerate(CASES):
        res = stats.binomtest(kk, nn)
        w = res.proportion_ci(confidence_level=confidence, method="wilson")
        e = res.proportion_ci(confidence_level=confidence, method="exact")
        assert wl[j] == pytest.approx(w.low, abs=1e-12)
        assert wh[j] == pytest.approx(w.high, abs=1e-12)
        assert cl[j] == pytest.approx(e.low, abs=1e-9)
        assert ch[j] == pytest.approx(e.high, abs=1e-9)


def test_rate_and_ratio() -> None:
    a = binomial_rate(40, 1000, method="clopper-pearson")
    b = binomial_rate(10, 1000)
    assert a.rate == 0.04 and a.lo < 0.04 < a.hi
    lo, hi = ratio_interval(a, b)
    assert lo == pytest.approx(a.lo / b.hi) and hi == pytest.approx(a.hi / b.lo)
    assert lo < 4 < hi
    assert ratio_interval(a, binomial_rate(0, 1000))[1] == float("inf")
    with pytest.raises(ValueError, match="k must be in 0..n"):
        wilson_interval(5, 4)
    with pytest.raises(ValueError, match="method must be one of"):
        binomial_rate(1, 2, method="normal")
