"""LeNet-300-100 and LeNet-5: gradients against finite differences, masks and frozen layers."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.nn.digits import ImageSet
from archsim.sim.nn.lenet import LeNet, lenet_5, lenet_300_100, lenet_accuracy, train_lenet
from archsim.sim.nn.revnet import softmax_cross_entropy


def _images(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.random((n, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, n)


def _as64(model: LeNet) -> LeNet:
    m = model.copy()
    for ly in m.layers:
        ly.weight, ly.bias = ly.weight.astype(np.float64), ly.bias.astype(np.float64)
    return m


@pytest.mark.parametrize("build", [lenet_300_100, lenet_5])
def test_backward_matches_central_differences(build):
    model = _as64(build(seed=1))
    x, y = _images(3, 2)
    x = x.astype(np.float64)
    logits, caches = model.forward(x)
    _, d = softmax_cross_entropy(logits, y)
    grads = model.backward(d, caches)
    rng = np.random.default_rng(3)
    eps = 1e-6
    for ly, (gw, gb) in zip(model.layers, grads, strict=True):
        assert gw.shape == ly.weight.shape and gb.shape == ly.bias.shape
        for param, grad in ((ly.weight, gw), (ly.bias, gb)):
            for flat in rng.choice(param.size, size=4, replace=False):
                idx = np.unravel_index(flat, param.shape)
                old = param[idx]
                param[idx] = old + eps
                up = softmax_cross_entropy(model.forward(x)[0], y)[0]
                param[idx] = old - eps
                down = softmax_cross_entropy(model.forward(x)[0], y)[0]
                param[idx] = old
                assert grad[idx] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)


def test_layer_shapes_and_weight_counts():
    assert [ly.weight.shape for ly in lenet_300_100().layers] == [(784, 300), (300, 100),
                                                                  (100, 10)]
    assert lenet_300_100().num_weights == 266_200
    assert lenet_5().num_weights == 25 * 20 + 500 * 50 + 800 * 500 + 500 * 10 == 430_500
    with pytest.raises(ConfigError, match="unknown architecture 'lenet-4'"):
        LeNet.build("lenet-4")
    with pytest.raises(ConfigError, match="has no layer 'fc9'"):
        lenet_300_100().layer("fc9")


def test_training_keeps_masks_and_frozen_layers_and_learns():
    x, y = _images(200, 4)
    # A learnable rule: the label is the brightest of 10 pixel bands.
    x[np.arange(200), 0, 2 * y + 4, :] += 2.0
    data = ImageSet(images=x, labels=y, name="bands", source="test", licence="test")
    model = lenet_300_100(seed=0)
    model.layers[0].mask = np.random.default_rng(5).random((784, 300)) < 0.1
    model.layers[0].weight *= model.layers[0].mask
    model.layers[1].trainable = False
    frozen = model.layers[1].weight.copy(), model.layers[1].bias.copy()
    before = lenet_accuracy(model, data)
    report = train_lenet(model, data, epochs=15, seed=0, batch_size=50)
    assert report.steps == 60 and len(report.losses) == 15
    assert report.losses[-1] < report.losses[0]
    assert not model.layers[0].weight[~model.layers[0].mask].any()
    assert np.array_equal(model.layers[1].weight, frozen[0])
    assert np.array_equal(model.layers[1].bias, frozen[1])
    assert lenet_accuracy(model, data) > max(before, 0.9)


def test_training_rejects_bad_arguments():
    x, y = _images(4, 6)
    data = ImageSet(images=x, labels=y, name="t", source="t", licence="t")
    model = lenet_300_100()
    with pytest.raises(ConfigError, match="lr must be positive"):
        train_lenet(model, data, epochs=1, lr=0.0)
    for ly in model.layers:
        ly.trainable = False
    with pytest.raises(ConfigError, match="every layer is frozen"):
        train_lenet(model, data, epochs=1)
    small = ImageSet(images=np.zeros((2, 1, 8, 8), np.float32), labels=np.zeros(2, np.int64),
                     name="d", source="d", licence="d")
    with pytest.raises(ConfigError, match=r"LeNets take \(N, 1, 28, 28\) images"):
        train_lenet(lenet_300_100(), small, epochs=1)


@pytest.mark.parametrize(("build", "stop"), [(lenet_300_100, 1), (lenet_5, 1), (lenet_5, 2)])
def test_backward_stopped_at_a_frozen_prefix_gives_the_same_gradients(build, stop):
    model = build(seed=7)
    x, y = _images(4, 8)
    logits, caches = model.forward(x)
    d = softmax_cross_entropy(logits, y)[1].astype(np.float32)
    full = model.backward(d, caches)
    part = model.backward(d, caches, stop=stop)
    for i, ((fw, fb), (pw, pb)) in enumerate(zip(full, part, strict=True)):
        if i < stop:
            assert pw.size == 0 and pb.size == 0
        else:
            np.testing.assert_allclose(pw, fw, rtol=1e-6)
            np.testing.assert_allclose(pb, fb, rtol=1e-6)


def test_training_the_tail_on_features_equals_training_with_a_frozen_prefix():
    x, y = _images(64, 9)
    data = ImageSet(images=x, labels=y, name="r", source="r", licence="r")
    full = lenet_5(seed=2)
    tail = full.tail(2)
    for ly in full.layers[:2]:
        ly.trainable = False
    feats = ImageSet(images=full.features(x, layer=2), labels=y, name="f", source="f",
                     licence="f")
    assert feats.images.shape == (64, 800)
    train_lenet(full, data, epochs=2, seed=3, batch_size=16)
    train_lenet(tail, feats, epochs=2, seed=3, batch_size=16)
    for a, b in zip(full.layers[2:], tail.layers, strict=True):
        np.testing.assert_allclose(a.weight, b.weight, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(full.predict(x), tail.predict(feats.images))
    with pytest.raises(ConfigError, match="layer must be an int in 2..3 for lenet-5"):
        full.features(x, layer=1)
