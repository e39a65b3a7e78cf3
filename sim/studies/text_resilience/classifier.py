"""MLP digit classifiers with a standard or a text-guided (cosine) head, trained in numpy.

Two heads on one backbone (``hidden`` ReLU layers), as in the authors'
``CLIPGuidedClassifier``:

* ``"linear"`` -- the standard classifier: the backbone's last layer maps to the classes
  (``Linear(h, C)`` with bias, PyTorch's default uniform initialization).
* ``"cosine"`` -- the text-guided classifier: the backbone's last layer is a projection to
  the text-embedding width ``E`` (``Linear(h, E)``), its output is L2-normalized, and the
  head ``Linear(E, C, bias=False)`` gives cosine logits times a learned ``exp(logit_scale)``
  (initialized to ``1/0.07`` as CLIP's). The head's weight is initialized from the
  L2-normalized class text embeddings (or, for the ablation, PyTorch's default random
  initialization), and trained with the rest.

The backward pass is written out by hand (there is no autograd library among archsim's
dependencies; torch is an optional extra); a test checks it against finite differences.
Training is minibatch SGD with momentum, weight decay and a cosine learning-rate schedule,
the same recipe for both heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....errors import ConfigError
from ....hw.checks import check_int, check_positive
from ...reliability import Dense, DenseNet

__all__ = ["HEADS", "Recipe", "Classifier", "init_classifier", "train_classifier",
           "TrainLog"]

#: The two classifier heads.
HEADS = ("linear", "cosine")
#: CLIP's initial logit scale, ``log(1 / 0.07)``.
CLIP_LOGIT_SCALE = math.log(1 / 0.07)


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """The training recipe (one for both heads; every value is assumed, see the README).

    Parameters
    ----------
    epochs, batch_size : int
    lr : float
        Peak learning rate (cosine decay to 0 over all steps).
    momentum, weight_decay : float
    """

    epochs: int = 20
    batch_size: int = 64
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 1e-4

    def __post_init__(self) -> None:
        check_positive("epochs", self.epochs)
        check_positive("batch_size", self.batch_size)
        for name in ("lr", "momentum", "weight_decay"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < 10:
                raise ConfigError(f"{name} must be a number in [0, 10), not {v!r}", field=name)


@dataclass(kw_only=True, eq=False)
class Classifier:
    """Parameters of an MLP classifier (float32).

    Attributes
    ----------
    head : {"linear", "cosine"}
    weights, biases : list of numpy.ndarray
        ``(out, in)`` and ``(out,)`` of every layer, input first; for ``"cosine"`` the last
        weight is the head ``(C, E)`` and its bias entry is ``None``.
    logit_scale : float
        ``log`` of the cosine head's logit multiplier (unused by ``"linear"``).
    """

    head: str
    weights: list[np.ndarray]
    biases: list[np.ndarray | None]
    logit_scale: float = CLIP_LOGIT_SCALE
    layer_names: list[str] = field(default_factory=list)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Logits ``(batch, C)`` of inputs ``(batch, in)``."""
        return self.to_densenet().forward(np.asarray(x, np.float32))

    def to_densenet(self) -> DenseNet:
        """The network as :class:`~archsim.sim.reliability.DenseNet` (for fault injection)."""
        n = len(self.weights)
        layers = []
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            if self.head == "cosine" and i == n - 2:
                post, scale = "l2norm", 1.0
            elif i == n - 1:
                post = "identity"
                scale = math.exp(self.logit_scale) if self.head == "cosine" else 1.0
            else:
                post, scale = "relu", 1.0
            layers.append(Dense(weight=w, bias=b, post=post, scale=scale,
                                name=self.layer_names[i] if self.layer_names else f"fc{i}"))
        return DenseNet(layers=tuple(layers))

    def accuracy(self, x: np.ndarray, labels: np.ndarray) -> float:
        """Top-1 accuracy (fraction) on ``x``."""
        return float(np.mean(np.argmax(self.forward(x), axis=1) == labels))


def _uniform(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    # PyTorch's nn.Linear default: kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), +).
    bound = 1.0 / math.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def init_classifier(*, in_features: int, hidden: tuple[int, ...], num_classes: int,
                    head: str, seed: int, embed_dim: int | None = None,
                    text_embeddings: np.ndarray | None = None) -> Classifier:
    """A freshly initialized classifier.

    Parameters
    ----------
    in_features : int
    hidden : tuple of int
        Widths of the backbone's ReLU layers (at least one).
    num_classes : int
    head : {"linear", "cosine"}
    seed : int
        Seeds every random initialization (the text-initialized head is not random).
    embed_dim : int, optional
        Width ``E`` of the projection (``"cosine"`` only; default: the text embeddings').
    text_embeddings : numpy.ndarray, optional
        ``(num_classes, E)`` class embeddings that initialize the cosine head (after L2
        normalization of each row); ``None`` gives the head a random initialization.
    """
    check_positive("in_features", in_features)
    check_positive("num_classes", num_classes)
    check_int("seed", seed, 0, 2**63 - 1)
    if head not in HEADS:
        raise ConfigError(f"unknown head {head!r}", field="head", allowed=list(HEADS))
    if not hidden or any(isinstance(h, bool) or not isinstance(h, int) or h < 1
                         for h in hidden):
        raise ConfigError(f"hidden must be one or more positive widths, not {hidden!r}",
                          field="hidden")
    if head == "linear" and (embed_dim is not None or text_embeddings is not None):
        raise ConfigError("embed_dim and text_embeddings belong to the 'cosine' head",
                          field="head", allowed=["cosine"])
    if text_embeddings is not None:
        t = np.asarray(text_embeddings, np.float64)
        if t.ndim != 2 or t.shape[0] != num_classes:
            raise ConfigError(f"text_embeddings must be ({num_classes}, E), not {t.shape}",
                              field="text_embeddings")
        if embed_dim is not None and embed_dim != t.shape[1]:
            raise ConfigError(f"embed_dim {embed_dim} differs from the text embeddings' "
                              f"width {t.shape[1]}", field="embed_dim")
        embed_dim = int(t.shape[1])
    if head == "cosine" and embed_dim is None:
        raise ConfigError("the 'cosine' head needs embed_dim or text_embeddings",
                          field="embed_dim")
    rng = np.random.default_rng(seed)
    widths = [in_features, *hidden]
    names = [f"fc{i + 1}" for i in range(len(hidden))]
    if head == "linear":
        widths.append(num_classes)
        names.append("classifier")
    else:
        assert embed_dim is not None
        widths.append(embed_dim)
        names.append("projection")
    weights: list[np.ndarray] = []
    biases: list[np.ndarray | None] = []
    for a, b in zip(widths[:-1], widths[1:], strict=True):
        weights.append(_uniform(rng, (b, a), a))
        biases.append(_uniform(rng, (b,), a))
    if head == "cosine":
        assert embed_dim is not None
        if text_embeddings is not None:
            t = np.asarray(text_embeddings, np.float64)
            weights.append((t / np.linalg.norm(t, axis=1, keepdims=True)).astype(np.float32))
        else:
            weights.append(_uniform(rng, (num_classes, embed_dim), embed_dim))
        biases.append(None)
        names.append("head")
    return Classifier(head=head, weights=weights, biases=biases, layer_names=names)


def _loss_grads(clf: Classifier, x: np.ndarray, y: np.ndarray,
                ) -> tuple[float, list[np.ndarray], list[np.ndarray | None], float]:
    """Mean cross-entropy and its gradients (weights, biases, logit scale)."""
    n = len(clf.weights)
    hs = [x]  # each layer's input
    zs = []  # each layer's pre-activation
    norms: np.ndarray | None = None
    for i, (w, b) in enumerate(zip(clf.weights, clf.biases, strict=True)):
        z = hs[-1] @ w.T + (b if b is not None else 0)
        zs.append(z)
        if i == n - 1:
            break
        if clf.head == "cosine" and i == n - 2:
            norms = np.linalg.norm(z, axis=1, keepdims=True)
            hs.append(z / np.maximum(norms, 1e-12))
        else:
            hs.append(np.maximum(z, 0))
    # The scale in the activations' dtype (float32 in training, float64 in the gradient test).
    scale = zs[-1].dtype.type(math.exp(clf.logit_scale) if clf.head == "cosine" else 1.0)
    logits = zs[-1] * scale
    m = logits.max(axis=1, keepdims=True)
    p = np.exp(logits - m)
    p /= p.sum(axis=1, keepdims=True)
    bsz = x.shape[0]
    loss = float(np.mean(np.log(p[np.arange(bsz), y]) * -1.0))
    g = p
    g[np.arange(bsz), y] -= 1
    g /= bsz  # dL/dlogits
    g_scale = float(np.sum(g * logits)) if clf.head == "cosine" else 0.0  # d/d log(scale)
    dz = g * scale
    gw: list[np.ndarray] = [np.empty(0)] * n
    gb: list[np.ndarray | None] = [None] * n
    for i in range(n - 1, -1, -1):
        gw[i] = dz.T @ hs[i]
        gb[i] = dz.sum(axis=0) if clf.biases[i] is not None else None
        if i == 0:
            break
        dh = dz @ clf.weights[i]
        if clf.head == "cosine" and i == n - 1:
            assert norms is not None
            u = hs[i]  # the normalized projection: d(z/|z|) = (dh - u (u . dh)) / |z|
            dz = (dh - u * np.sum(u * dh, axis=1, keepdims=True)) / np.maximum(norms, 1e-12)
        else:
            dz = dh * (zs[i - 1] > 0)
    return loss, gw, gb, g_scale


@dataclass(frozen=True, kw_only=True)
class TrainLog:
    """Per-epoch mean training loss, and the wall time of training."""

    losses: tuple[float, ...]
    wall_s: float


def train_classifier(clf: Classifier, x: np.ndarray, y: np.ndarray, *, recipe: Recipe,
                     seed: int) -> TrainLog:
    """Train ``clf`` in place on ``(x, y)`` with ``recipe`` (shuffles seeded by ``seed``).

    Weight decay applies to every weight and bias (as ``torch.optim.SGD(weight_decay=)``
    does), not to the logit scale.
    """
    import time

    check_int("seed", seed, 0, 2**63 - 1)
    xs = np.ascontiguousarray(x, np.float32)
    ys = np.asarray(y, np.int64)
    if xs.ndim != 2 or xs.shape[1] != clf.weights[0].shape[1] or ys.shape != (xs.shape[0],):
        raise ConfigError(f"x must be (N, {clf.weights[0].shape[1]}) and y (N,), not "
                          f"{xs.shape} and {ys.shape}", field="x")
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    params: list[np.ndarray] = [*clf.weights, *(b for b in clf.biases if b is not None)]
    vel = [np.zeros_like(p) for p in params]
    vel_scale = 0.0
    steps_per_epoch = math.ceil(xs.shape[0] / recipe.batch_size)
    total = recipe.epochs * steps_per_epoch
    step = 0
    losses = []
    for _ in range(recipe.epochs):
        order = rng.permutation(xs.shape[0])
        epoch_loss = 0.0
        for a in range(0, xs.shape[0], recipe.batch_size):
            idx = order[a:a + recipe.batch_size]
            loss, gw, gb, g_scale = _loss_grads(clf, xs[idx], ys[idx])
            epoch_loss += loss * idx.size
            grads = [*gw, *(g for g in gb if g is not None)]
            lr = np.float32(recipe.lr * 0.5 * (1 + math.cos(math.pi * step / total)))
            for p, v, gr in zip(params, vel, grads, strict=True):
                v *= np.float32(recipe.momentum)
                v += gr + np.float32(recipe.weight_decay) * p
                p -= lr * v
            if clf.head == "cosine":
                vel_scale = recipe.momentum * vel_scale + g_scale
                # CLIP clamps its learned scale at 100 (log 4.6052) for stability.
                clf.logit_scale = min(clf.logit_scale - float(lr) * vel_scale, math.log(100))
            step += 1
        losses.append(epoch_loss / xs.shape[0])
    return TrainLog(losses=tuple(losses), wall_s=time.perf_counter() - start)
