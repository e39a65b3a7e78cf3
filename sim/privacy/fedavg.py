"""A real FedAvg run on image data, and a class-property inference attack on its updates.

The model is multinomial logistic regression (softmax over ``pixels @ W + b``), trained by
FedAvg (McMahan et al., 2017): in each round the participating users start from the global
weights, take ``local_steps`` full-batch gradient-descent steps on their own images and send
the change of their weights; the server, behind secure aggregation, sees only the *sum* of
the changes, and moves the global weights by their mean. Users hold images of a few classes
each (a non-IID split), which is the property the attack infers.

The inference reads the bias part of an update: one gradient-descent step changes bias
``c`` by ``lr * (share of class c in the batch - mean predicted probability of c)``, so the
classes a user holds are the ones whose bias grows. Given one user's update, the attack
guesses the ``classes_per_user`` classes with the largest bias change; given only
aggregates, the best it can do is the same guess on the mean of the aggregates of the rounds
the user took part in (which mixes in every co-participant's classes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError

__all__ = [
    "UserSplit",
    "split_users_by_class",
    "FedAvgRun",
    "run_fedavg",
    "infer_classes",
    "class_inference_accuracy",
    "aggregate_inference_accuracy",
]


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ConfigError(f"{name} must be a positive integer, not {value!r}", field=name)
    return int(value)


@dataclass(frozen=True, kw_only=True, eq=False)
class UserSplit:
    """Which training images each simulated user holds.

    Attributes
    ----------
    indices : list of numpy.ndarray
        Per user, the rows of the training set it holds.
    classes : numpy.ndarray
        ``(users, classes_per_user)`` the classes each user holds (sorted).
    """

    indices: list[np.ndarray]
    classes: np.ndarray


def split_users_by_class(labels: np.ndarray, *, users: int, classes_per_user: int,
                         images_per_user: int, num_classes: int = 10, seed: int
                         ) -> UserSplit:
    """Give each user ``classes_per_user`` distinct random classes and ``images_per_user``
    images drawn from them in equal shares (without repetition inside a user; users may share
    images when there are more users than the data has room for).

    Raises
    ------
    ConfigError
        More classes per user than classes, or more images per class share than a class has.
    """
    y = np.asarray(labels)
    _positive_int(users, "users")
    _positive_int(classes_per_user, "classes_per_user")
    _positive_int(images_per_user, "images_per_user")
    _positive_int(num_classes, "num_classes")
    if classes_per_user > num_classes:
        raise ConfigError(f"classes_per_user {classes_per_user} exceeds the {num_classes} "
                          "classes", field="classes_per_user")
    by_class = [np.flatnonzero(y == c) for c in range(num_classes)]
    share = -(-images_per_user // classes_per_user)
    smallest = min(len(ix) for ix in by_class)
    if share > smallest:
        raise ConfigError(f"images_per_user {images_per_user} needs {share} images per class "
                          f"but the smallest class has {smallest}", field="images_per_user")
    rng = np.random.default_rng(seed)
    indices: list[np.ndarray] = []
    classes = np.zeros((users, classes_per_user), np.int64)
    for u in range(users):
        cls = np.sort(rng.choice(num_classes, size=classes_per_user, replace=False))
        classes[u] = cls
        take = [rng.choice(by_class[c], size=share, replace=False) for c in cls]
        indices.append(np.concatenate(take)[:images_per_user])
    return UserSplit(indices=indices, classes=classes)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True, kw_only=True, eq=False)
class FedAvgRun:
    """The record of a FedAvg run, as the attack and its checker need it.

    Attributes
    ----------
    aggregates : numpy.ndarray
        ``(rounds, dim)`` float64: the sum of the participants' weight changes per round
        (what secure aggregation reveals); ``dim = pixels * classes + classes``, weights
        first (row-major ``(pixels, classes)``), then biases.
    participation : numpy.ndarray
        ``(rounds, users)`` int8, who took part in each round (the attack's unknown).
    updates : numpy.ndarray
        ``(participations, dim)`` float32: each participant's weight change (ground truth).
    update_round, update_user : numpy.ndarray
        ``(participations,)`` round and user of each row of ``updates``.
    test_accuracy : numpy.ndarray
        ``(rounds,)`` accuracy of the global model on the test images after each round.
    train_s : float
        Wall time of the training.
    num_classes : int
        Classes of the model.
    """

    aggregates: np.ndarray
    participation: np.ndarray
    updates: np.ndarray
    update_round: np.ndarray
    update_user: np.ndarray
    test_accuracy: np.ndarray
    train_s: float
    num_classes: int

    def mean_updates(self, chunk_starts: list[int]) -> np.ndarray:
        """``(users, dim)`` each user's mean change within each chunk, averaged over the
        chunks it took part in -- the quantity the attack's chunked least squares estimates
        (NaN rows for a user who never took part)."""
        rounds, users = self.participation.shape
        bounds = list(chunk_starts) + [rounds]
        dim = self.updates.shape[1]
        total = np.zeros((users, dim))
        seen = np.zeros(users)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            inside = (self.update_round >= lo) & (self.update_round < hi)
            for u in np.unique(self.update_user[inside]):
                rows = inside & (self.update_user == u)
                total[u] += self.updates[rows].astype(np.float64).mean(axis=0)
                seen[u] += 1
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(seen[:, None] > 0, total / seen[:, None], np.nan)


def run_fedavg(images: np.ndarray, labels: np.ndarray, split: UserSplit,
               participation: np.ndarray, *, test_images: np.ndarray,
               test_labels: np.ndarray, local_steps: int, local_lr: float,
               server_lr: float = 1.0, num_classes: int = 10) -> FedAvgRun:
    """Train softmax regression by FedAvg and record aggregates and true updates.

    Parameters
    ----------
    images, labels : numpy.ndarray
        Training images ``(N, ...)`` (flattened to pixels) and labels ``(N,)``.
    split : UserSplit
        Which images each user holds.
    participation : numpy.ndarray
        ``(rounds, users)`` binary: who takes part in each round.
    test_images, test_labels : numpy.ndarray
        Held-out images for the accuracy after each round.
    local_steps : int
        Full-batch gradient-descent steps per participant per round.
    local_lr : float
        The local learning rate.
    server_lr : float
        The server's step on the mean change (1: plain FedAvg; Reddi et al. 2021 make it a
        parameter).
    """
    x = np.asarray(images, np.float64).reshape(len(images), -1)
    y = np.asarray(labels, np.int64)
    xt = np.asarray(test_images, np.float64).reshape(len(test_images), -1)
    yt = np.asarray(test_labels, np.int64)
    p = np.asarray(participation)
    _positive_int(local_steps, "local_steps")
    if not local_lr > 0:
        raise ConfigError(f"local_lr must be > 0, not {local_lr}", field="local_lr")
    if not server_lr > 0:
        raise ConfigError(f"server_lr must be > 0, not {server_lr}", field="server_lr")
    if p.ndim != 2 or p.shape[1] != len(split.indices):
        raise ConfigError(f"participation must be (rounds, {len(split.indices)} users), not "
                          f"{p.shape}", field="participation")
    pixels = x.shape[1]
    dim = pixels * num_classes + num_classes
    rounds = p.shape[0]
    w = np.zeros((pixels, num_classes))
    b = np.zeros(num_classes)
    onehot = np.eye(num_classes)
    aggregates = np.zeros((rounds, dim))
    updates: list[np.ndarray] = []
    rows: list[int] = []
    cols: list[int] = []
    acc = np.zeros(rounds)
    start = time.perf_counter()
    for r in range(rounds):
        members = np.flatnonzero(p[r])
        for u in members:
            xu, yu = x[split.indices[u]], onehot[y[split.indices[u]]]
            wl, bl = w.copy(), b.copy()
            for _ in range(local_steps):
                err = (_softmax(xu @ wl + bl) - yu) / len(xu)  # d(mean cross-entropy)/dz
                wl -= local_lr * (xu.T @ err)
                bl -= local_lr * err.sum(axis=0)
            delta = np.concatenate([(wl - w).ravel(), bl - b])
            aggregates[r] += delta
            updates.append(delta.astype(np.float32))
            rows.append(r)
            cols.append(int(u))
        if members.size:
            step = server_lr * aggregates[r] / members.size  # FedAvg: the mean of the participants' changes
            w += step[:pixels * num_classes].reshape(pixels, num_classes)
            b += step[pixels * num_classes:]
        acc[r] = float(np.mean(np.argmax(xt @ w + b, axis=1) == yt))
    train_s = time.perf_counter() - start
    return FedAvgRun(aggregates=aggregates, participation=p.astype(np.int8),
                     updates=np.stack(updates) if updates else np.zeros((0, dim), np.float32),
                     update_round=np.asarray(rows, np.int64),
                     update_user=np.asarray(cols, np.int64), test_accuracy=acc,
                     train_s=train_s, num_classes=num_classes)


def infer_classes(updates: np.ndarray, *, num_classes: int, classes_per_user: int
                  ) -> np.ndarray:
    """The ``classes_per_user`` classes whose bias grew most in each update (one per row):
    ``(rows, classes_per_user)`` sorted class indices; NaN rows give -1."""
    u = np.asarray(updates, np.float64)
    _positive_int(classes_per_user, "classes_per_user")
    bias = u[:, -num_classes:]
    out = np.sort(np.argsort(-bias, axis=1, kind="stable")[:, :classes_per_user], axis=1)
    out[np.isnan(bias).any(axis=1)] = -1
    return out


def class_inference_accuracy(guessed: np.ndarray, held: np.ndarray) -> float:
    """The share of (user, held class) pairs the guesses name (chance: classes_per_user /
    num_classes)."""
    g = np.asarray(guessed)
    h = np.asarray(held)
    if g.shape != h.shape:
        raise ConfigError(f"guesses {g.shape} and held classes {h.shape} differ in shape",
                          field="guessed")
    hits = sum(len(set(gr.tolist()) & set(hr.tolist())) for gr, hr in zip(g, h, strict=True))
    return hits / h.size


def aggregate_inference_accuracy(run: FedAvgRun, held: np.ndarray, *,
                                 classes_per_user: int) -> float:
    """The same class guess made from each round's aggregate, scored against every
    participant of that round: what the attack infers without disaggregation (chance:
    classes_per_user / num_classes)."""
    h = np.asarray(held)
    guesses = infer_classes(run.aggregates, num_classes=run.num_classes,
                            classes_per_user=classes_per_user)
    hits = 0
    pairs = 0
    for r, u in zip(run.update_round, run.update_user, strict=True):
        hits += len(set(guesses[r].tolist()) & set(h[u].tolist()))
        pairs += 1
    if pairs == 0:
        raise ConfigError("the run has no participations to score", field="run")
    return hits / (pairs * h.shape[1])
