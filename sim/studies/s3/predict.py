"""S3's output-length predictor, rebuilt: a bucket classifier over MiniLM-L6 prompt embeddings.

S3 fine-tunes DistilBERT to classify a prompt into an output-length bucket. Here the encoder
is frozen (MiniLM-L6 sentence embeddings, cached) and the head is multinomial logistic
regression (:func:`archsim.sim.serving.predictor.fit_softmax`), trained on seeded folds so
that every request's prediction comes from a model that never saw it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....errors import ConfigError
from ...serving.predictor import Buckets, fit_softmax

__all__ = ["BucketPredictions", "cross_predict", "HELD_OUT_FOLD"]

#: The fold reported as the held-out split (20% of the records at 5 folds).
HELD_OUT_FOLD = 0


@dataclass(frozen=True)
class BucketPredictions:
    """Out-of-fold bucket predictions for every record, and the held-out split's scores.

    ``predicted[i]`` comes from the model trained without record ``i``'s fold. The
    held-out scores are those of fold :data:`HELD_OUT_FOLD` (model trained on the others).
    """

    buckets: Buckets
    true: np.ndarray
    predicted: np.ndarray
    held_out: np.ndarray  # indices of the held-out split
    majority_bucket: int  # most frequent bucket of the held-out model's training split

    @property
    def confusion(self) -> np.ndarray:
        """Held-out counts ``[true bucket, predicted bucket]``."""
        k = self.buckets.num_buckets
        m = np.zeros((k, k), np.int64)
        np.add.at(m, (self.true[self.held_out], self.predicted[self.held_out]), 1)
        return m

    @property
    def accuracy(self) -> float:
        """Held-out accuracy."""
        h = self.held_out
        return float(np.mean(self.true[h] == self.predicted[h]))

    @property
    def majority_accuracy(self) -> float:
        """Held-out accuracy of always predicting the training split's most frequent bucket."""
        return float(np.mean(self.true[self.held_out] == self.majority_bucket))

    def per_bucket(self) -> list[dict[str, float]]:
        """Held-out support and accuracy (recall) of each true bucket."""
        m = self.confusion
        edges = self.buckets.upper_edges
        rows = []
        for k in range(self.buckets.num_buckets):
            support = int(m[k].sum())
            rows.append({"bucket": k, "upper_edge_tokens": int(edges[k]), "support": support,
                         "accuracy": float(m[k, k] / support) if support else float("nan"),
                         "predicted_as": int(m[:, k].sum())})
        return rows


def cross_predict(embeddings: np.ndarray, output_tokens: np.ndarray, buckets: Buckets, *,
                  seed: int, folds: int = 5, c: float = 1.0) -> BucketPredictions:
    """Train ``folds`` classifiers on seeded folds; predict each record from the others.

    Raises
    ------
    ConfigError
        Shapes disagree or ``folds`` < 2.
    """
    emb = np.asarray(embeddings, np.float64)
    out = np.asarray(output_tokens)
    if emb.ndim != 2 or len(emb) != len(out):
        raise ConfigError(f"embeddings {emb.shape} and output lengths {out.shape} disagree",
                          field="embeddings")
    if not isinstance(folds, int) or not 2 <= folds <= len(out):
        raise ConfigError(f"folds must be an integer in 2..{len(out)}, not {folds!r}",
                          field="folds")
    true = buckets.index(out).astype(np.int64)
    fold_of = np.empty(len(out), np.int64)
    fold_of[np.random.default_rng(seed).permutation(len(out))] = np.arange(len(out)) % folds
    pred = np.empty(len(out), np.int64)
    majority = 0
    for f in range(folds):
        test, train = fold_of == f, fold_of != f
        clf = fit_softmax(emb[train], true[train], num_classes=buckets.num_buckets, c=c)
        pred[test] = clf.predict(emb[test])
        if f == HELD_OUT_FOLD:
            majority = int(np.bincount(true[train], minlength=buckets.num_buckets).argmax())
    return BucketPredictions(buckets=buckets, true=true, predicted=pred,
                             held_out=np.flatnonzero(fold_of == HELD_OUT_FOLD),
                             majority_bucket=majority)
