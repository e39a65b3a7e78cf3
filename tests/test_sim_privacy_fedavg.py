"""FedAvg record and class inference, against closed forms on small inputs."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.privacy import (
    UserSplit,
    aggregate_inference_accuracy,
    class_inference_accuracy,
    infer_classes,
    run_fedavg,
    split_users_by_class,
)


def _data(seed=0, n_per_class=12, pixels=6):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(10), n_per_class)
    images = rng.random((labels.size, pixels))
    return images, labels


def test_split_gives_each_user_only_its_classes():
    _, labels = _data()
    split = split_users_by_class(labels, users=7, classes_per_user=2, images_per_user=10,
                                 seed=3)
    assert split.classes.shape == (7, 2)
    for idx, cls in zip(split.indices, split.classes, strict=True):
        assert len(idx) == 10 and len(set(idx.tolist())) == 10
        assert sorted(set(labels[idx].tolist())) == sorted(cls.tolist())
        assert cls[0] != cls[1]
    again = split_users_by_class(labels, users=7, classes_per_user=2, images_per_user=10,
                                 seed=3)
    assert np.array_equal(again.classes, split.classes)


def test_first_update_is_the_closed_form_gradient_step():
    # from zero weights the softmax is uniform: one step changes the bias by
    # lr * (share of c - 1/10) and the weights by lr * x^T (onehot - 1/10) / n
    images, labels = _data()
    idx = np.concatenate([np.flatnonzero(labels == 3)[:4], np.flatnonzero(labels == 7)[:4]])
    split = UserSplit(indices=[idx], classes=np.array([[3, 7]]))
    p = np.ones((1, 1), np.int8)
    run = run_fedavg(images, labels, split, p, test_images=images, test_labels=labels,
                     local_steps=1, local_lr=0.5)
    x, y = images[idx], np.eye(10)[labels[idx]]
    expect_w = 0.5 * x.T @ (y - 0.1) / len(idx)
    expect_b = 0.5 * (y.mean(axis=0) - 0.1)
    np.testing.assert_allclose(run.aggregates[0, :60].reshape(6, 10), expect_w, atol=1e-12)
    np.testing.assert_allclose(run.aggregates[0, 60:], expect_b, atol=1e-12)
    assert infer_classes(run.aggregates, num_classes=10, classes_per_user=2).tolist() == [[3, 7]]


def test_aggregates_are_the_sums_of_the_recorded_updates():
    images, labels = _data(seed=1)
    split = split_users_by_class(labels, users=4, classes_per_user=2, images_per_user=8,
                                 seed=0)
    p = (np.random.default_rng(2).random((6, 4)) < 0.6).astype(np.int8)
    run = run_fedavg(images, labels, split, p, test_images=images, test_labels=labels,
                     local_steps=3, local_lr=0.2, server_lr=0.5)
    assert len(run.updates) == int(p.sum())
    for r in range(6):
        rows = run.update_round == r
        assert sorted(run.update_user[rows].tolist()) == np.flatnonzero(p[r]).tolist()
        np.testing.assert_allclose(run.aggregates[r], run.updates[rows].sum(axis=0),
                                   atol=1e-5)
    # mean_updates over one chunk is each user's plain mean
    means = run.mean_updates([0])
    for u in range(4):
        np.testing.assert_allclose(means[u], run.updates[run.update_user == u].mean(axis=0),
                                   rtol=1e-6, atol=1e-9)


def test_inference_scores_count_shared_classes():
    held = np.array([[1, 2], [3, 4]])
    assert class_inference_accuracy(np.array([[1, 5], [3, 4]]), held) == pytest.approx(0.75)
    # per-round aggregates: round 0 has user 0 alone, round 1 both users
    images, labels = _data(seed=2)
    def pick(a, b):
        return np.concatenate([np.flatnonzero(labels == a)[:4], np.flatnonzero(labels == b)[:4]])

    split = UserSplit(indices=[pick(1, 2), pick(3, 4)], classes=held)
    p = np.array([[1, 0], [1, 1]], np.int8)
    run = run_fedavg(images, labels, split, p, test_images=images, test_labels=labels,
                     local_steps=1, local_lr=0.1)
    guesses = infer_classes(run.aggregates, num_classes=10, classes_per_user=2)
    hand = (len(set(guesses[0]) & {1, 2}) + len(set(guesses[1]) & {1, 2})
            + len(set(guesses[1]) & {3, 4})) / 6
    assert guesses[0].tolist() == [1, 2]
    assert aggregate_inference_accuracy(run, held, classes_per_user=2) == pytest.approx(hand)


def test_bad_inputs_are_named():
    images, labels = _data()
    with pytest.raises(ConfigError, match="classes_per_user 11 exceeds the 10 classes"):
        split_users_by_class(labels, users=2, classes_per_user=11, images_per_user=4, seed=0)
    with pytest.raises(ConfigError, match="needs 50 images per class but the smallest class "
                                          "has 12"):
        split_users_by_class(labels, users=2, classes_per_user=2, images_per_user=100, seed=0)
    split = split_users_by_class(labels, users=2, classes_per_user=2, images_per_user=4,
                                 seed=0)
    with pytest.raises(ConfigError, match=r"participation must be \(rounds, 2 users\)"):
        run_fedavg(images, labels, split, np.ones((3, 5)), test_images=images,
                   test_labels=labels, local_steps=1, local_lr=0.1)
    with pytest.raises(ConfigError, match="server_lr must be > 0"):
        run_fedavg(images, labels, split, np.ones((3, 2)), test_images=images,
                   test_labels=labels, local_steps=1, local_lr=0.1, server_lr=0.0)
