"""The cross-stack CPU measurement and the fitted CPU cost model."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.compilers.graph.recsys import get_recsys
from archsim.errors import ConfigError
from archsim.sim.recsys.measure import (
    ALL_MODELS,
    CpuMeasurement,
    fit_cpu_model,
    group_work,
    measure_cpu,
)


def test_group_work_closed_forms():
    # DLRM-RMC1 (authors' dlrm_rm1.json): 8 tables x 80 lookups of 32-wide fp32 rows;
    # bottom MLP 128-64-32, top MLP over concat(32 + 8 x 32 = 288) -> 256 -> 64 -> 1.
    work = group_work(get_recsys("DLRM-RMC1"), 16)
    assert work["sls"] == 16 * 80 * 8 * 32 * 4
    macs = 128 * 64 + 64 * 32 + 288 * 256 + 256 * 64 + 64 * 1
    assert work["fc"] == 2 * 16 * macs
    assert work["gru"] == 0 and work["attention"] == 0


def test_measurement_shapes_and_groups_inside_the_total():
    m = measure_cpu("NCF", batches=(1, 4, 16), repeats=2, table_rows_cap=1000)
    assert m.batches == (1, 4, 16) and len(m.total_s) == 3
    assert all(t > 0 for t in m.total_s)
    for i in range(3):
        # Group timers run inside the forward pass: their sum cannot exceed the whole.
        assert sum(ts[i] for ts in m.group_s.values()) <= m.total_s[i] * 1.5
    assert m.group_s["sls"][0] > 0 and m.group_s["fc"][0] > 0
    assert len(m.rows()) == 3 and m.rows()[0]["model"] == "NCF"


def _synthetic(name: str, coef: dict[str, tuple[float, float]]) -> CpuMeasurement:
    config = get_recsys(name)
    batches = (1, 4, 16, 64)
    groups = {g: tuple(a + b * group_work(config, bt)[g] if group_work(config, bt)[g] else 0.0
                       for bt in batches) for g, (a, b) in coef.items()}
    totals = tuple(sum(groups[g][i] for g in groups) for i in range(len(batches)))
    return CpuMeasurement(model=config.name, batches=batches, repeats=1, table_rows_cap=0,
                          total_s=totals, total_spread=(0.0,) * 4, group_s=groups)


def test_fit_recovers_a_known_linear_cost_and_predicts_the_held_out_batch():
    coef = {"sls": (2e-4, 5e-10), "fc": (1e-4, 1e-11), "attention": (0.0, 0.0),
            "gru": (0.0, 0.0), "concat": (1e-5, 1e-13)}
    ms = [_synthetic("DLRM-RMC1", coef), _synthetic("WnD", coef)]
    for per_model in (True, False):
        model = fit_cpu_model(ms, per_model=per_model)
        keys = {"DLRM-RMC1", "WnD"} if per_model else {ALL_MODELS}
        assert set(model.coefficients) == keys
        for fitted in model.coefficients.values():
            for g in ("sls", "fc"):
                assert fitted[g] == pytest.approx(coef[g], rel=1e-6, abs=1e-12)
        errors = model.validate(ms)  # batch 64 held out; the cost is exactly linear
        assert all(abs(e) < 1e-6 for e in errors.values())
    assert model.fitted_batches == (1, 4, 16)
    with pytest.raises(ConfigError, match="at least one measurement"):
        fit_cpu_model([])
    with pytest.raises(ConfigError, match="repeats must be an int >= 1"):
        measure_cpu("NCF", repeats=0)
    assert np.isfinite(model.predict_s(get_recsys("NCF"), 8))  # the shared fit serves all
