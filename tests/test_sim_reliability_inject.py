"""Fault-injection campaigns against exhaustive loops that recompute each faulty forward
pass from scratch with numpy's own bit patterns."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl.formats import FP32, IntFormat
from archsim.errors import ConfigError
from archsim.sim.reliability import (
    Dense,
    DenseNet,
    all_sites,
    random_sites,
    run_campaign,
    top2_margin,
)


def _tiny(rng: np.random.Generator) -> tuple[DenseNet, np.ndarray]:
    w = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((5, 4)).astype(np.float64)
    return DenseNet(layers=(Dense(weight=w, bias=b, name="fc"),)), x


def _flip32(v: np.float32, bit: int) -> np.float64:
    return np.float64((np.array([v], np.float32).view(np.uint32) ^ np.uint32(1 << bit))
                      .view(np.float32)[0])


def _top1(logits: np.ndarray) -> int:
    if np.isnan(logits).any():
        return -1  # torch.argmax takes NaN as the largest: a mismatch, as the engine counts
    return int(np.argmax(logits))


def test_weight_sdc_rate_equals_exhaustive_enumeration() -> None:
    net, x = _tiny(np.random.default_rng(0))
    w, b = net.layers[0].weight, net.layers[0].bias
    golden = np.argmax(x @ w.astype(np.float64).T + b, axis=1)
    mism = 0
    total = 0
    with np.errstate(all="ignore"):
        for s in range(x.shape[0]):
            for o in range(3):
                for i in range(4):
                    for bit in range(32):
                        wf = w.astype(np.float64)
                        wf[o, i] = _flip32(w[o, i], bit)
                        mism += _top1(x[s] @ wf.T + b) != golden[s]
                        total += 1
    sites = all_sites(net, layer=0, target="weight", fmt=FP32, n_samples=x.shape[0])
    camp = run_campaign(net, x, layer=0, target="weight", fmt=FP32, sites=sites)
    assert camp.n == total == 5 * 12 * 32
    assert int(camp.mismatch.sum()) == mism
    assert 0 < mism < total
    # a sampled campaign's 99% interval covers the exhaustive rate (seeded, so fixed)
    rs = random_sites(net, layer=0, target="weight", fmt=FP32, n_samples=5,
                      n_injections=20000, seed=1)
    rate = run_campaign(net, x, layer=0, target="weight", fmt=FP32, sites=rs).sdc(
        confidence=0.99)
    assert rate.lo <= mism / total <= rate.hi


def test_activation_sdc_in_a_hidden_layer_equals_recomputation() -> None:
    rng = np.random.default_rng(5)
    l1 = Dense(weight=rng.standard_normal((6, 4)), bias=rng.standard_normal(6), post="relu")
    l2 = Dense(weight=rng.standard_normal((3, 6)), bias=None, post="l2norm", scale=5.0)
    l3 = Dense(weight=rng.standard_normal((4, 3)), bias=rng.standard_normal(4))
    net = DenseNet(layers=(l1, l2, l3))
    x = rng.standard_normal((4, 4))
    fmt = IntFormat(bits=8)
    z1 = x @ l1.weight.T + l1.bias
    scale = np.abs(z1).max() / 127
    q = np.clip(np.rint(z1 / scale), -127, 127).astype(np.int8)

    def tail(z: np.ndarray) -> np.ndarray:
        h = np.maximum(z, 0) @ l2.weight.T
        with np.errstate(invalid="ignore"):  # all-zero ReLU output: 0/0
            h = 5.0 * h / np.linalg.norm(h)
        return h @ l3.weight.T + l3.bias

    golden = [_top1(tail(q[s] * scale)) for s in range(4)]
    assert min(golden) >= 0
    expected = []
    for s in range(4):
        for e in range(6):
            for bit in range(8):
                qf = q[s].copy()
                qf[e] = (qf.view(np.uint8)[e] ^ np.uint8(1 << bit)).view(np.int8)
                expected.append(_top1(tail(qf * scale)) != golden[s])
    sites = all_sites(net, layer=0, target="activation", fmt=fmt, n_samples=4)
    camp = run_campaign(net, x, layer=0, target="activation", fmt=fmt, sites=sites)
    assert camp.mismatch.tolist() == expected
    assert 0 < sum(expected) < len(expected)
    by_bit = camp.by_bit()
    assert sum(r["mismatches"] for r in by_bit) == sum(expected)
    assert by_bit[7]["rate"] >= by_bit[0]["rate"]  # sign bit vs LSB


def test_top2_margin_and_margin_bins() -> None:
    logits = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 5.0]])
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(top2_margin(logits), [p[0, 0] - p[0, 1], p[1, 2] - p[1, 0]])
    net, x = _tiny(np.random.default_rng(0))
    camp = run_campaign(net, x, layer=0, target="activation", fmt=FP32,
                        sites=all_sites(net, layer=0, target="activation", fmt=FP32,
                                        n_samples=5))
    rows = camp.by_margin([0.0, 0.5, 1.0])
    assert sum(r["injections"] for r in rows) == camp.n
    assert sum(r["mismatches"] for r in rows) == int(camp.mismatch.sum())


def test_seeded_and_validated() -> None:
    net, x = _tiny(np.random.default_rng(0))
    a = random_sites(net, layer=0, target="weight", fmt=FP32, n_samples=5, n_injections=50,
                     seed=3, flips_per_fault=2)
    b = random_sites(net, layer=0, target="weight", fmt=FP32, n_samples=5, n_injections=50,
                     seed=3, flips_per_fault=2)
    assert np.array_equal(a.mask, b.mask) and np.array_equal(a.element, b.element)
    with pytest.raises(ConfigError, match="unknown fault target"):
        random_sites(net, layer=0, target="bias", fmt=FP32, n_samples=5, n_injections=5,
                     seed=0)
    with pytest.raises(ValueError, match="layer must be in 0..0"):
        all_sites(net, layer=1, target="weight", fmt=FP32, n_samples=5)
    with pytest.raises(ValueError, match="takes 4 inputs"):
        DenseNet(layers=(Dense(weight=np.ones((3, 2))), Dense(weight=np.ones((2, 4)))))
