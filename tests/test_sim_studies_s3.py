"""``archsim study s3`` (quick) and its real predictor: buckets, classifier, folds, engine feed."""

import numpy as np
import pytest

from archsim.compilers.graph.transformer import get_transformer
from archsim.errors import ConfigError
from archsim.sim.serving import Deployment, simulate
from archsim.sim.serving.policies import S3Policy
from archsim.sim.serving.predictor import Buckets, ClassifierPredictor, fit_softmax
from archsim.sim.serving.requests import RequestSet
from archsim.sim.studies.s3.lengths import load_embeddings, load_lengths
from archsim.sim.studies.s3.predict import cross_predict
from archsim.sim.studies.s3.study import NUM_BUCKETS
from archsim.tests.study_runs import quick_run


def test_study_quick():
    res = quick_run("s3")
    for c in res.comparisons:
        assert c.status == c.expected, c.metric
    head = res.comparisons[0]
    assert head.ours > 1.0  # S3 beats worst-case reservation
    for r in res.tables["pairs"]:
        assert r["s3_over_worst_case"] > 1.0
        assert r["oracle_over_worst_case"] > 1.0
        assert r["gpu"] in ("a100-80gb", "a100-40gb")
    assert {r["max_seq_len"] for r in res.tables["pairs"]} == {2048, 4096}
    # the confusion table is the held-out split: 20% of the 5,000 records
    conf = res.tables["predictor_confusion"]
    assert len(conf) == NUM_BUCKETS
    assert sum(v for row in conf for k, v in row.items() if k.startswith("pred_")) == 1000
    per_bucket = res.tables["predictor_per_bucket"]
    assert sum(r["support"] for r in per_bucket) == 1000
    out = res.files[0].parent
    for name in ("throughput_vs_rate.png", "confusion.png", "buckets.png"):
        assert out / name in res.files
    assert (out / "pairs.csv").exists()
    assert any("CC BY-NC 4.0" in a for a in res.assumptions)
    # the roofline against Vidur's measured kernels: its assumed efficiencies within 15%
    calibration = res.tables["kernel_calibration"]
    assert [r["tokens"] for r in calibration] == [1, 8, 64, 256, 1024, 4096]
    for r in calibration:
        assert r["roofline_over_measured"] == pytest.approx(
            r["roofline_iteration_s"] / r["measured_iteration_s"])
        assert 0.85 < r["roofline_over_measured"] < 1.15
    # Llama-2-70B with attention measured too: the decode iterations, where attention's
    # per-layer launches and KV reads weigh, are slower measured than on the roofline
    calibration_70b = res.tables["kernel_calibration_70b"]
    decode = [r for r in calibration_70b if r["new_tokens"] == 1]
    assert decode and all(r["roofline_over_measured"] < 1.0 for r in decode)
    gains = {o.metric: o.ours for o in res.observations if "llama-70b 2x a100-80gb" in o.metric}
    assert len(gains) == 2 and all(g > 1.0 for g in gains.values())


def test_buckets_match_numpy_digitize():
    b = Buckets(num_buckets=10, max_output=2048)
    lengths = np.arange(1, 2049)
    # bucket k holds (edge[k-1], edge[k]]: numpy's digitize with right=True
    np.testing.assert_array_equal(b.index(lengths),
                                  np.digitize(lengths, b.upper_edges, right=True))
    assert b.upper_edges[0] == 205 and b.upper_edges[-1] == 2048  # ceil(204.8), max


def test_softmax_without_features_learns_class_frequencies():
    # closed form: with constant (zero) features only the bias can fit, and the maximum-
    # likelihood softmax of an intercept-only model is the empirical class frequencies
    y = np.array([0] * 6 + [1] * 3 + [2] * 1)
    clf = fit_softmax(np.zeros((10, 3)), y, num_classes=3)
    np.testing.assert_allclose(clf.probabilities(np.zeros((1, 3)))[0], [0.6, 0.3, 0.1],
                               atol=1e-4)


def test_softmax_separates_blobs_better_than_majority():
    rng = np.random.default_rng(1)
    centres = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 3.0]])
    y = rng.choice(3, size=600, p=[0.5, 0.3, 0.2])
    x = centres[y] + rng.normal(size=(600, 2))
    clf = fit_softmax(x[:400], y[:400], num_classes=4)  # class 3 never seen
    acc = np.mean(clf.predict(x[400:]) == y[400:])
    majority = np.mean(y[400:] == np.bincount(y[:400]).argmax())
    assert acc > 0.9 > majority + 0.3
    assert not np.any(clf.predict(x) == 3)


def test_softmax_bad_input():
    with pytest.raises(ConfigError, match="labels must be integers"):
        fit_softmax(np.zeros((3, 2)), np.array([0, 1, 5]), num_classes=3)
    with pytest.raises(ConfigError, match=r"need features \(n, d\)"):
        fit_softmax(np.zeros(3), np.array([0, 1, 1]), num_classes=3)
    with pytest.raises(ConfigError, match="c must be > 0"):
        fit_softmax(np.zeros((3, 2)), np.array([0, 1, 1]), num_classes=3, c=0.0)


def test_real_classifier_beats_majority_at_fine_buckets():
    emb, lengths = load_embeddings(), load_lengths()
    # 10 buckets over 600 tokens: the majority bucket holds ~60%, so there is room to learn
    preds = cross_predict(emb, lengths.output_tokens, Buckets(num_buckets=10, max_output=600),
                          seed=0, folds=2)
    held = preds.held_out
    assert len(held) == 2500
    true = np.minimum(np.ceil(lengths.output_tokens / 60).astype(int) - 1, 9)  # by hand
    np.testing.assert_array_equal(preds.true, true)
    train = np.setdiff1d(np.arange(5000), held)
    majority = np.mean(true[held] == np.bincount(true[train]).argmax())
    assert preds.majority_accuracy == pytest.approx(majority)
    assert preds.accuracy > majority + 0.03
    assert preds.confusion.sum() == 2500
    assert np.trace(preds.confusion) == np.sum(preds.predicted[held] == true[held])


def test_cross_predict_bad_folds():
    with pytest.raises(ConfigError, match="folds must be"):
        cross_predict(np.zeros((4, 2)), np.ones(4, int), Buckets(num_buckets=2, max_output=8),
                      seed=0, folds=1)


def test_classifier_predictor_drives_preemptions():
    # Four requests, all classified into bucket 0 (edge 205 of 10 buckets over 2048):
    # 300 tokens overflow once (next edge 410 covers it); 500 overflow twice (410, then 615).
    dep = Deployment.build(model="llama-13b", gpu="a100-80gb")
    reqs = RequestSet(np.zeros(4), np.array([10, 20, 30, 40]), np.array([10, 300, 50, 500]))
    b = Buckets(num_buckets=10, max_output=dep.max_seq_len)
    pol = S3Policy(predictor=ClassifierPredictor(
        buckets=b, classify=lambda p: np.zeros(len(p), np.int64)))
    assert simulate(dep, reqs, pol, seed=0).metrics.preemptions == 3


def test_llama2_7b_preset():
    cfg = get_transformer("llama-2-7b")
    assert cfg.max_seq_len == 4096
    # Touvron et al. 2023 (Llama 2): 7B model; the released checkpoint has 6,738,415,616
    # parameters, of which 266,240 are RMSNorm gains (65 x 4096) the preset does not count
    assert cfg.num_params == pytest.approx(6_738_415_616 - 65 * 4096, rel=1e-6)
