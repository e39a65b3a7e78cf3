"""``archsim study s3`` (quick): S3 and the oracle beat worst-case reservation on every pair."""

from archsim.tests.study_runs import quick_run


def test_study_quick():
    res = quick_run("s3")
    head = res.comparisons[0]
    assert head.ours > 1.0  # S3 beats worst-case reservation
    pairs = res.tables["pairs"]
    for r in pairs:
        assert r["s3_over_worst_case"] > 1.0
        assert r["oracle_over_worst_case"] > 1.0
    out = res.files[0].parent
    assert out / "throughput_vs_rate.png" in res.files
    assert (out / "pairs.csv").exists()
    assert res.assumptions
