"""The text-guided study's numpy classifiers: gradients against finite differences, the
forward pass against a plain numpy one, initialization, training on real digits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.nn.digits import load_digits
from archsim.sim.studies.text_resilience.classifier import (
    CLIP_LOGIT_SCALE,
    Recipe,
    _loss_grads,
    init_classifier,
    train_classifier,
)


def _as64(clf):
    clf.weights = [w.astype(np.float64) for w in clf.weights]
    clf.biases = [None if b is None else b.astype(np.float64) for b in clf.biases]
    return clf


def _loss(clf, x, y) -> float:
    h = x
    n = len(clf.weights)
    for i, (w, b) in enumerate(zip(clf.weights, clf.biases, strict=True)):
        h = h @ w.T + (0 if b is None else b)
        if i < n - 1:
            if clf.head == "cosine" and i == n - 2:
                h = h / np.linalg.norm(h, axis=1, keepdims=True)
            else:
                h = np.maximum(h, 0)
    if clf.head == "cosine":
        h = h * math.exp(clf.logit_scale)
    h = h - h.max(axis=1, keepdims=True)
    logp = h - np.log(np.exp(h).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


@pytest.mark.parametrize("head", ["linear", "cosine"])
def test_gradients_match_central_finite_differences(head):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 5))
    y = rng.integers(0, 4, size=7)
    kw = {"embed_dim": 6} if head == "cosine" else {}
    clf = _as64(init_classifier(in_features=5, hidden=(8,), num_classes=4, head=head,
                                seed=1, **kw))
    loss, gw, gb, g_scale = _loss_grads(clf, x, y)
    assert loss == pytest.approx(_loss(clf, x, y), rel=1e-12)
    eps = 1e-6
    for params, grads in ((clf.weights, gw), (clf.biases, gb)):
        for p, g in zip(params, grads, strict=True):
            if p is None:
                assert g is None
                continue
            for idx in [(0,) * p.ndim, tuple(s - 1 for s in p.shape)]:
                old = p[idx]
                p[idx] = old + eps
                up = _loss(clf, x, y)
                p[idx] = old - eps
                down = _loss(clf, x, y)
                p[idx] = old
                assert g[idx] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-9)
    if head == "cosine":
        s = clf.logit_scale
        clf.logit_scale = s + eps
        up = _loss(clf, x, y)
        clf.logit_scale = s - eps
        down = _loss(clf, x, y)
        clf.logit_scale = s
        assert g_scale == pytest.approx((up - down) / (2 * eps), rel=1e-5)


def test_text_head_is_the_normalized_class_embeddings_and_the_densenet_runs_it():
    rng = np.random.default_rng(0)
    t = rng.standard_normal((3, 6)) * 4
    clf = init_classifier(in_features=5, hidden=(4,), num_classes=3, head="cosine", seed=0,
                          text_embeddings=t)
    assert clf.layer_names == ["fc1", "projection", "head"]
    np.testing.assert_allclose(clf.weights[-1], t / np.linalg.norm(t, axis=1)[:, None],
                               rtol=1e-6)
    assert clf.biases[-1] is None and clf.logit_scale == pytest.approx(math.log(1 / 0.07))
    x = rng.standard_normal((9, 5)).astype(np.float32)
    w1, b1, w2, b2, w3 = (a.astype(np.float64) for a in (
        clf.weights[0], clf.biases[0], clf.weights[1], clf.biases[1], clf.weights[2]))
    f = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    want = (f / np.linalg.norm(f, axis=1, keepdims=True)) @ w3.T / 0.07
    np.testing.assert_allclose(clf.forward(x), want, rtol=1e-4, atol=1e-5)
    assert np.abs(clf.forward(x)).max() <= 1 / 0.07 + 1e-4  # cosine logits are bounded


def test_linear_init_is_pytorch_default_uniform():
    clf = init_classifier(in_features=400, hidden=(300,), num_classes=10, head="linear",
                          seed=5)
    w = clf.weights[0]
    assert np.abs(w).max() <= 1 / 20 and np.abs(w).max() > 0.99 / 20
    assert abs(float(w.std()) - 1 / 20 / math.sqrt(3)) < 1e-3  # U(-b, b) has std b/sqrt(3)
    again = init_classifier(in_features=400, hidden=(300,), num_classes=10, head="linear",
                            seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(clf.weights, again.weights, strict=True))


def test_bad_arguments_name_the_field():
    with pytest.raises(ConfigError, match="unknown head 'softmax'"):
        init_classifier(in_features=4, hidden=(3,), num_classes=2, head="softmax", seed=0)
    with pytest.raises(ConfigError, match="needs embed_dim or text_embeddings"):
        init_classifier(in_features=4, hidden=(3,), num_classes=2, head="cosine", seed=0)
    with pytest.raises(ConfigError, match=r"text_embeddings must be \(2, E\)"):
        init_classifier(in_features=4, hidden=(3,), num_classes=2, head="cosine", seed=0,
                        text_embeddings=np.ones((3, 5)))
    with pytest.raises(ConfigError, match="hidden must be one or more positive widths"):
        init_classifier(in_features=4, hidden=(), num_classes=2, head="linear", seed=0)
    with pytest.raises(ConfigError, match="lr must be a number in"):
        Recipe(lr=-1.0)


@pytest.fixture(scope="module")
def digits():
    d = load_digits()
    tr, te = d.split(0)
    x_tr, x_te = tr.images.reshape(len(tr), -1), te.images.reshape(len(te), -1)
    # standardized as the study does (unscaled [0, 1] pixels let SGD collapse the learned
    # logit scale of the cosine head in the first epoch: the loss then stays at log 10)
    mu, sd = x_tr.mean(), x_tr.std()
    return (x_tr - mu) / sd, tr.labels, (x_te - mu) / sd, te.labels


@pytest.mark.parametrize("head", ["linear", "cosine"])
def test_both_heads_learn_real_digits_deterministically(digits, head):
    x_tr, y_tr, x_te, y_te = digits
    kw = {"embed_dim": 16} if head == "cosine" else {}

    def fit():
        clf = init_classifier(in_features=64, hidden=(64,), num_classes=10, head=head,
                              seed=2, **kw)
        log = train_classifier(clf, x_tr, y_tr, recipe=Recipe(epochs=8), seed=2)
        return clf, log

    clf, log = fit()
    assert log.losses[-1] < 0.5 * log.losses[0]
    assert clf.accuracy(x_te, y_te) > 0.9  # chance is 0.1
    again, _ = fit()
    assert np.array_equal(clf.weights[0], again.weights[0])
    if head == "cosine":
        assert clf.logit_scale != CLIP_LOGIT_SCALE and clf.logit_scale <= math.log(100)
