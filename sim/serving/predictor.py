"""Output-length predictors for S3-style length-aware scheduling.

S3 classifies each prompt into one of ``num_buckets`` equal-width output-length
buckets over ``[0, max_output]`` and reserves KV-cache memory for the bucket's
upper edge. Here a predictor is anything with ``predict`` and ``repredict``
(:class:`LengthPredictor`); provided are :class:`ClassifierPredictor`, the
plug-in for a real classifier (e.g. :func:`fit_softmax` over prompt embeddings, as the S3
study does), an exact predictor, and a confusion-matrix model with accuracy as a parameter
(a test double and a sensitivity knob: it peeks at the true length, so it is no predictor).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray
from pydantic import BeforeValidator, PrivateAttr, ValidationInfo

from ...errors import ConfigError
from ._fields import Config, PositiveInt, check, is_number

__all__ = ["Buckets", "LengthPredictor", "ConfusionPredictor", "ExactPredictor",
           "ClassifierPredictor", "SoftmaxClassifier", "fit_softmax"]


def _max_output(v: object, info: ValidationInfo) -> object:
    num_buckets = info.data.get("num_buckets")
    if not isinstance(v, int) or isinstance(v, bool) or not isinstance(num_buckets, int) \
            or v < num_buckets:
        raise ConfigError(f"max_output {v!r} must be an integer >= num_buckets {num_buckets}",
                          field="max_output")
    return v


class Buckets(Config):
    """``num_buckets`` equal-width output-length buckets over ``[1, max_output]``.

    Bucket ``k`` holds lengths in ``(k * width, (k + 1) * width]``; its
    reservation is the upper edge (the last bucket's edge is ``max_output``).
    """

    num_buckets: PositiveInt
    max_output: Annotated[int, BeforeValidator(_max_output)]

    @property
    def width(self) -> float:
        return self.max_output / self.num_buckets

    @property
    def upper_edges(self) -> np.ndarray:
        k = np.arange(1, self.num_buckets + 1)
        return np.minimum(np.ceil(k * self.width), self.max_output).astype(np.int64)

    def index(self, lengths: np.ndarray) -> np.ndarray:
        """Bucket of each length (lengths above ``max_output`` go to the last bucket)."""
        idx = np.searchsorted(self.upper_edges, np.asarray(lengths), side="left")
        return np.minimum(idx, self.num_buckets - 1)


@runtime_checkable
class LengthPredictor(Protocol):
    """What the S3 policy asks of a predictor (all arrays are per request)."""

    def predict(self, prompt_tokens: np.ndarray, output_tokens: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
        """Predicted output tokens to reserve for each request (>= 1)."""
        ...

    def repredict(self, prompt_tokens: np.ndarray, output_tokens: np.ndarray,
                  generated: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A new prediction, larger than ``generated``, for preempted requests."""
        ...


class ConfusionPredictor(Config):
    """A bucket classifier described by its accuracy.

    A request lands in its true bucket with probability ``accuracy``; otherwise
    in another bucket with probability proportional to ``decay ** distance``
    (near buckets are likelier confusions, in either direction). On preemption
    the re-prediction is the true bucket with probability ``accuracy``, else
    the lowest bucket above the tokens generated so far.
    """

    buckets: Buckets
    accuracy: Annotated[float, BeforeValidator(check(
        lambda v: is_number(v) and 0 <= v <= 1, "predictor accuracy must be in [0, 1], not {v!r}",
        field="predictor_accuracy"))] = 0.986
    decay: Annotated[float, BeforeValidator(check(
        lambda v: is_number(v) and 0 < v <= 1, "must be in (0, 1], not {v!r}"))] = 0.5
    # derived from the fields once (a k x k matrix), not a parameter
    _matrix: NDArray[np.float64] = PrivateAttr()

    def model_post_init(self, context: object, /) -> None:
        k = self.buckets.num_buckets
        dist = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
        off = np.where(dist > 0, self.decay ** dist.astype(float), 0.0)
        rows = off.sum(axis=1, keepdims=True)
        off = np.divide(off, rows, out=np.zeros_like(off), where=rows > 0)
        acc = self.accuracy if k > 1 else 1.0
        self._matrix = acc * np.eye(k) + (1 - acc) * off

    @property
    def confusion_matrix(self) -> np.ndarray:
        """``P[true bucket, predicted bucket]`` (rows sum to 1)."""
        return self._matrix.copy()

    def predict_buckets(self, output_tokens: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        true_b = self.buckets.index(output_tokens)
        cum = np.cumsum(self._matrix[true_b], axis=1)
        u = rng.random(len(true_b))[:, None]
        return np.minimum((u > cum).sum(axis=1), self.buckets.num_buckets - 1)

    def predict(self, prompt_tokens, output_tokens, rng):
        return self.buckets.upper_edges[self.predict_buckets(output_tokens, rng)]

    def repredict(self, prompt_tokens, output_tokens, generated, rng):
        edges = self.buckets.upper_edges
        true_edge = edges[self.buckets.index(output_tokens)]
        next_edge = edges[np.minimum(np.searchsorted(edges, generated, side="right"),
                                     len(edges) - 1)]
        hit = rng.random(len(output_tokens)) < self.accuracy
        return np.maximum(np.where(hit, true_edge, next_edge), np.asarray(generated) + 1)


class ExactPredictor(Config):
    """Predicts every output length exactly (S3 with it is the oracle)."""

    def predict(self, prompt_tokens, output_tokens, rng):
        return np.asarray(output_tokens, np.int64).copy()

    def repredict(self, prompt_tokens, output_tokens, generated, rng):
        return np.asarray(output_tokens, np.int64).copy()


class ClassifierPredictor(Config):
    """Plug-in for a real classifier.

    ``classify(prompt_tokens) -> bucket index`` receives the prompt lengths (the
    simulator has no text; a trace-driven study can close over its own
    features indexed in arrival order) and returns one bucket per request.
    Re-prediction moves to the lowest bucket above the tokens generated.
    """

    buckets: Buckets
    classify: Callable[[np.ndarray], np.ndarray]

    def predict(self, prompt_tokens, output_tokens, rng):
        idx = np.asarray(self.classify(np.asarray(prompt_tokens)))
        if idx.shape != np.shape(prompt_tokens) or not np.issubdtype(idx.dtype, np.integer):
            raise ConfigError(f"classifier returned {idx.dtype} array of shape {idx.shape}; "
                              f"expected integer buckets of shape {np.shape(prompt_tokens)}",
                              field="classify")
        if np.any(idx < 0) or np.any(idx >= self.buckets.num_buckets):
            raise ConfigError(f"classifier returned bucket {int(idx.min())}..{int(idx.max())} "
                              f"outside 0..{self.buckets.num_buckets - 1}", field="classify")
        return self.buckets.upper_edges[idx]

    def repredict(self, prompt_tokens, output_tokens, generated, rng):
        edges = self.buckets.upper_edges
        nxt = edges[np.minimum(np.searchsorted(edges, generated, side="right"), len(edges) - 1)]
        return np.maximum(nxt, np.asarray(generated) + 1)


@dataclass(frozen=True)
class SoftmaxClassifier:
    """A fitted multinomial logistic regression: ``argmax(x @ weights + bias)``."""

    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Class probabilities of each row of ``features``."""
        z = np.asarray(features, np.float64) @ self.weights + self.bias
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float64)

    def predict(self, features: np.ndarray) -> np.ndarray:
        """The most probable class of each row, as int64."""
        return np.asarray(np.argmax(self.probabilities(features), axis=1), np.int64)


def fit_softmax(features: np.ndarray, labels: np.ndarray, *, num_classes: int,
                c: float = 1.0, max_iter: int = 500) -> SoftmaxClassifier:
    """Fit multinomial logistic regression by L-BFGS (scipy).

    Minimizes ``sum_i CE_i + ||W||^2 / (2 c)`` (the bias unpenalized), the objective of
    scikit-learn's ``LogisticRegression(C=c)`` with the lbfgs solver. A class with no
    training rows keeps a large negative bias and is never predicted.

    Raises
    ------
    ConfigError
        Shapes disagree, a label is outside ``0..num_classes-1``, or ``c <= 0``.
    """
    from scipy.optimize import minimize

    x = np.asarray(features, np.float64)
    y = np.asarray(labels)
    if x.ndim != 2 or y.shape != (len(x),) or len(x) == 0:
        raise ConfigError(f"need features (n, d) and labels (n,), got {x.shape} and {y.shape}",
                          field="features")
    if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= num_classes:
        raise ConfigError(f"labels must be integers in 0..{num_classes - 1}", field="labels")
    if not c > 0:
        raise ConfigError(f"inverse regularization c must be > 0, not {c!r}", field="c")
    n, d = x.shape
    onehot = np.zeros((n, num_classes))
    onehot[np.arange(n), y] = 1.0
    xb = np.hstack([x, np.ones((n, 1))])

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w = theta.reshape(d + 1, num_classes)
        z = xb @ w
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        grad = xb.T @ (np.exp(logp) - onehot)
        grad[:d] += w[:d] / c
        value = -float((onehot * logp).sum()) + float((w[:d] ** 2).sum()) / (2 * c)
        return value, grad.ravel()

    res = minimize(loss, np.zeros((d + 1) * num_classes), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter})
    w = res.x.reshape(d + 1, num_classes)
    return SoftmaxClassifier(weights=w[:d].copy(), bias=w[d].copy())
