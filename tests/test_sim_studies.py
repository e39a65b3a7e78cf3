"""The study registry and the typed study result."""

import json

import pytest

from archsim.errors import ConfigError
from archsim.sim import studies
from archsim.sim.studies import Comparison, StudyResult


def test_result_writes_comparisons_and_tables(tmp_path):
    result = StudyResult(
        name="demo", title="Demo",
        comparisons=[Comparison("speedup", "up to 2x", 1.5, "x", published_value=2.0)],
        tables={"points": [{"n": 1, "t": 0.5}]}, assumptions=["none"],
    )
    files = result.write(tmp_path)
    assert {p.name for p in files} == {"comparisons.csv", "points.csv", "result.json"}
    data = json.loads((tmp_path / "result.json").read_text())
    assert data["comparisons"][0]["ratio_to_published"] == 0.75
    assert data["assumptions"] == ["none"]


def test_unknown_study_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown study 'nope'"):
        studies.get_study("nope")
