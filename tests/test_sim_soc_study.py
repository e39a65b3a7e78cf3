"""``archsim study smaug`` (quick): headline comparisons, tables and plots."""

from __future__ import annotations

import math

from archsim.sim.soc.study import SCENARIOS, run


def test_smaug_study_quick(tmp_path):
    res = run(out_dir=tmp_path, quick=True)
    assert res.name == "smaug"
    published = {c.published for c in res.comparisons}
    assert {"25-40%", "1.8-5x"} <= published
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
    top = next(c for c in res.comparisons if c.metric.endswith("highest")
               and c.published == "1.8-5x")
    assert top.ours == max(combined)
    assert sorted(p.name for p in res.files) == ["breakdown.png", "speedup.png"]
    assert all(p.stat().st_size > 0 for p in res.files)
