"""``archsim study smaug`` (quick): tables and plots behind the headline comparisons."""

from __future__ import annotations

import math

from archsim.sim.studies.smaug import SCENARIOS
from archsim.tests.study_runs import quick_run


def test_smaug_study_quick():
    res = quick_run("smaug")
    rows = res.tables["scenarios"]
    workloads = {r["workload"] for r in rows}
    assert len(workloads) == 3 and any("lstm" in w for w in workloads)
    assert len(rows) == 3 * len(SCENARIOS)
    for r in rows:
        shares = [v for k, v in r.items() if k.endswith("_share")]
        assert math.isclose(sum(shares), 1.0, rel_tol=1e-9)
        if r["scenario"] == "baseline":
            assert r["speedup"] == 1.0
    # The comparison's "ours" is the table's value, not a constant.
    combined = [r["speedup"] for r in rows if r["scenario"] == "combined"]
    top = next(c for c in res.comparisons if c.metric.startswith("SoC-level speedup")
               and c.metric.endswith("highest"))
    assert top.ours == max(combined)
    pngs = sorted(p.name for p in res.files if p.suffix == ".png")
    assert pngs == ["breakdown.png", "speedup.png"]
    assert all(p.stat().st_size > 0 for p in res.files)
