"""The numpy DeepRecSys forward pass: each operator against a hand-written reference, every
model end to end on capped tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.compilers.graph import RECSYS_MODELS
from archsim.errors import ConfigError
from archsim.sim.nn.recsys import (
    OP_GROUPS,
    RecModel,
    fc,
    gru_layer,
    random_inputs,
    rnn_layer,
    sparse_lengths_sum,
)

CAP = 500


def test_sls_matches_brute_force_loop() -> None:
    rng = np.random.default_rng(3)
    table = rng.standard_normal((17, 5)).astype(np.float32)
    for lengths in ([3, 0, 2, 5], [4, 4, 4]):
        ln = np.array(lengths, np.int32)
        idx = rng.integers(0, 17, int(ln.sum()))
        ref = np.zeros((len(ln), 5))
        k = 0
        for b, n in enumerate(lengths):
            for _ in range(n):
                for j in range(5):
                    ref[b, j] += float(table[idx[k], j])
                k += 1
        np.testing.assert_allclose(sparse_lengths_sum(table, idx, ln), ref, rtol=1e-6,
                                   atol=1e-6)


def test_sls_errors() -> None:
    t = np.zeros((4, 2), np.float32)
    with pytest.raises(ConfigError, match=r"field 'lengths': lengths sum to 3 but there are 2 "
                                          r"indices"):
        sparse_lengths_sum(t, np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(ConfigError, match=r"field 'indices': indices must lie in \[0, 4\)"):
        sparse_lengths_sum(t, np.array([0, 4]), np.array([1, 1]))


def test_fc_matches_loop() -> None:
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), rng.standard_normal(2)
    ref = [[sum(x[i, k] * w[k, j] for k in range(4)) + b[j] for j in range(2)] for i in range(3)]
    np.testing.assert_allclose(fc(x, w, b, relu=False), ref, rtol=1e-12)
    np.testing.assert_allclose(fc(x, w, b, relu=True), np.maximum(ref, 0), rtol=1e-12)


def _gru_step_ref(x: np.ndarray, h: np.ndarray, w: np.ndarray, r: np.ndarray,
                  b: np.ndarray) -> np.ndarray:
    """One sample, one step, with the gate matrices split out (reset, update, new)."""
    n_h = len(h)

    def sig(v: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-v))

    wr, wz, wn = w[:n_h], w[n_h:2 * n_h], w[2 * n_h:]
    rr, rz, rn = r[:n_h], r[n_h:2 * n_h], r[2 * n_h:]
    br, bz, bn = b[:n_h], b[n_h:2 * n_h], b[2 * n_h:]
    reset = sig(wr @ x + rr @ h + br)
    update = sig(wz @ x + rz @ h + bz)
    new = np.tanh(wn @ x + bn + reset * (rn @ h))
    return (1 - update) * new + update * h


def test_gru_matches_step_loop() -> None:
    rng = np.random.default_rng(5)
    bsz, seq, i, h = 3, 6, 4, 5
    x = rng.standard_normal((bsz, seq, i)).astype(np.float32)
    w = (0.5 * rng.standard_normal((3 * h, i))).astype(np.float32)
    r = (0.5 * rng.standard_normal((3 * h, h))).astype(np.float32)
    b = (0.5 * rng.standard_normal(3 * h)).astype(np.float32)
    got = gru_layer(x, w, r, b)
    for s in range(bsz):
        hs = np.zeros(h)
        for t in range(seq):
            hs = _gru_step_ref(x[s, t].astype(float), hs, w, r, b)
            np.testing.assert_allclose(got[s, t], hs, rtol=1e-5, atol=1e-6)


def test_rnn_matches_step_loop() -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    w, r = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    got = rnn_layer(x, w, r, b)
    for s in range(2):
        h = np.zeros(4)
        for t in range(5):
            h = np.tanh(w.astype(float) @ x[s, t] + r @ h + b)
            np.testing.assert_allclose(got[s, t], h, rtol=1e-5, atol=1e-6)


def test_dien_forward_with_rnn_cells() -> None:
    from archsim.compilers.graph import RecModelConfig

    c = RecModelConfig(**{**RECSYS_MODELS["DIEN"].model_dump(), "rnn_cell": "rnn"})
    m = RecModel(c, seed=0, table_rows_cap=CAP)
    x = random_inputs(c, 4, 1, table_rows_cap=CAP)
    assert m.grus[0][0].shape == (64, 32)
    assert np.all(np.isfinite(m.forward(x.dense, x.indices, x.lengths).logits))


def test_gru_zero_weights_halves_state() -> None:
    # Zero weights: both gates are sigmoid(0) = 1/2 and the candidate is tanh(0) = 0, so
    # h_t = h0 / 2**t.
    h0 = np.array([[1.0, -2.0]], np.float32)
    z = np.zeros
    out = gru_layer(np.ones((1, 4, 3), np.float32), z((6, 3), np.float32), z((6, 2), np.float32),
                    z(6, np.float32), h0)
    np.testing.assert_allclose(out[0], [h0[0] / 2 ** t for t in range(1, 5)], rtol=1e-7)


@pytest.mark.parametrize("name", sorted(RECSYS_MODELS))
def test_forward_runs_every_model(name: str) -> None:
    c = RECSYS_MODELS[name]
    model = RecModel(c, seed=0, table_rows_cap=CAP)
    x = random_inputs(c, 4, 1, table_rows_cap=CAP)
    assert all(len(i) == 4 * c.lookups_per_table for i in x.indices)
    assert all(int(i.max()) < min(r, CAP) for i, r in zip(x.indices, c.table_rows, strict=True))
    timings: dict[str, float] = {}
    out = model.forward(x.dense, x.indices, x.lengths, timings=timings)
    width = {"NCF": 64, "MT-WnD": 128, "DIN": 2, "DIEN": 2}.get(name, 1)
    assert out.logits.shape == (4, width) and out.logits.dtype == np.float32
    assert np.all(np.isfinite(out.logits))
    np.testing.assert_allclose(out.probabilities, 1 / (1 + np.exp(-out.logits.astype(float))),
                               rtol=1e-5)
    assert set(timings) <= set(OP_GROUPS) and {"sls", "fc", "concat"} <= set(timings)


def test_ncf_forward_by_hand() -> None:
    c = RECSYS_MODELS["NCF"]
    m = RecModel(c, seed=2, table_rows_cap=CAP)
    x = random_inputs(c, 3, 9, table_rows_cap=CAP)
    e = [m.tables[t][x.indices[t]].astype(float) for t in range(4)]
    h = np.concatenate([e[2], e[3]], axis=1)
    for w, b in m.top:
        h = np.maximum(h @ w + b, 0)
    (w, b), = m.final
    h = np.concatenate([e[0] + e[1], h], axis=1) @ w + b
    np.testing.assert_allclose(m.forward(x.dense, x.indices, x.lengths).logits, h, rtol=1e-4,
                               atol=1e-5)


def test_din_attention_by_hand() -> None:
    c = RECSYS_MODELS["DIN"]
    m = RecModel(c, seed=1, table_rows_cap=50)
    x = random_inputs(c, 2, 2, table_rows_cap=50)
    pooled = [m.tables[t][x.indices[t].reshape(2, 3)].sum(1).astype(float)
              for t in range(c.num_tables)]
    (w0, b0), (w1, b1) = m.attention
    att = np.zeros((2, 32))
    for k in range(250):
        key, ad = pooled[1 + k], pooled[251]
        v = np.concatenate([key, ad, key + ad], axis=1)
        att += np.maximum(np.maximum(v @ w0[k] + b0[k], 0) @ w1[k] + b1[k], 0)
    h = np.concatenate([pooled[0], att, pooled[251], pooled[252]], axis=1)
    for j, (w, b) in enumerate(m.top):
        h = h @ w + b
        h = np.maximum(h, 0) if j < 2 else h
    np.testing.assert_allclose(m.forward(x.dense, x.indices, x.lengths).logits, h, rtol=1e-4,
                               atol=1e-5)


def test_held_parameters_closed_form() -> None:
    c = RECSYS_MODELS["DLRM-RMC1"]
    fcs = (128 * 64 + 64) + (64 * 32 + 32) + (288 * 256 + 256) + (256 * 64 + 64) + (64 + 1)
    assert RecModel(c, seed=0, table_rows_cap=CAP).num_params == 8 * CAP * 32 + fcs
    d = RECSYS_MODELS["DIEN"]
    gru = 3 * 64 * (32 + 64 + 1) + 3 * 64 * (64 + 64 + 1) + 64 * 64 + 64
    top = (160 * 200 + 200) + (200 * 80 + 80) + (80 * 2 + 2)
    assert RecModel(d, seed=0, table_rows_cap=CAP).num_params == 43 * CAP * 32 + gru + top
    assert d.dense_params == gru + top


def test_deterministic_under_seed() -> None:
    c = RECSYS_MODELS["DIEN"]
    x = random_inputs(c, 4, 7, table_rows_cap=CAP)
    y = random_inputs(c, 4, 7, table_rows_cap=CAP)
    assert all(np.array_equal(a, b) for a, b in zip(x.indices, y.indices, strict=True))
    a = RecModel(c, seed=3, table_rows_cap=CAP).forward(x.dense, x.indices, x.lengths)
    b = RecModel(c, seed=3, table_rows_cap=CAP).forward(y.dense, y.indices, y.lengths)
    o = RecModel(c, seed=4, table_rows_cap=CAP).forward(x.dense, x.indices, x.lengths)
    assert np.array_equal(a.logits, b.logits)
    assert not np.array_equal(a.logits, o.logits)


def test_bad_arguments() -> None:
    c = RECSYS_MODELS["WnD"]
    with pytest.raises(ConfigError, match=r"field 'seed': must be a non-negative integer, "
                                          r"not -1"):
        RecModel(c, seed=-1)
    with pytest.raises(ConfigError, match=r"field 'table_rows_cap': must be a positive integer "
                                          r"or None, not 0"):
        RecModel(c, seed=0, table_rows_cap=0)
    with pytest.raises(ConfigError, match=r"field 'batch': must be a positive integer, not 0"):
        random_inputs(c, 0, 0)
    m = RecModel(c, seed=0, table_rows_cap=10)
    x = random_inputs(c, 2, 0, table_rows_cap=10)
    with pytest.raises(ConfigError, match=r"field 'indices': needs indices and lengths for 27 "
                                          r"tables, got 26 and 27"):
        m.forward(x.dense, x.indices[1:], x.lengths)
    with pytest.raises(ConfigError, match=r"field 'dense': dense must be \(batch, 512\), got "
                                          r"\(2, 3\)"):
        m.forward(x.dense[:, :3], x.indices, x.lengths)
    big = random_inputs(c, 2, 0, table_rows_cap=1000)
    with pytest.raises(ConfigError, match=r"indices must lie in \[0, 10\)"):
        m.forward(big.dense, big.indices, big.lengths)
    assert math.isfinite(float(m.forward(x.dense, x.indices, x.lengths).logits.sum()))
