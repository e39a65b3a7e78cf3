"""The numpy graph executor: operator numerics, the ready-list scheduler and graph width.

Expected values come from independent computations: scipy.signal.correlate for
convolutions, naive loops for pooling, scipy.special.softmax, plain numpy for matmuls,
and hand-counted DAGs for graph width.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import correlate
from scipy.special import softmax as sp_softmax

from archsim.compilers.graph.cnn import (
    activation,
    batch_norm,
    conv2d,
    data_movement,
    elementwise,
    linear,
    pool2d,
    recurrent,
    softmax,
)
from archsim.compilers.graph.fathom import fathom_autoenc, fathom_memnet
from archsim.compilers.graph.ir import Operator, TensorSpec, WorkloadGraph, matmul
from archsim.errors import ConfigError
from archsim.sim.graph_exec import (
    critical_path_ops,
    evaluate_graph,
    execute_graph,
    graph_width,
    make_inputs,
    supported_kinds,
)


def _x(name: str, shape: tuple[int, ...], role: str = "input") -> TensorSpec:
    return TensorSpec(name, shape, "fp32", role=role)


def _conv_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, *, stride: int,
                    pad: int) -> np.ndarray:
    """Cross-correlation per (image, filter) with scipy, then striding."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, o = x.shape[0], w.shape[0]
    full = np.stack([np.stack([correlate(xp[i], w[f], mode="valid")[0] for f in range(o)])
                     for i in range(n)])
    return full[:, :, ::stride, ::stride] + b.reshape(1, o, 1, 1)


def test_conv_matches_scipy_correlate() -> None:
    g = WorkloadGraph("conv")
    x = _x("x", (2, 3, 9, 8))
    g.add(conv2d("c", x, out_channels=4, kernel=3, stride=2, padding=1, bias=True))
    run = evaluate_graph(g, seed=1)
    ref = _conv_reference(run.values["x"], run.values["c.weight"], run.values["c.bias"],
                          stride=2, pad=1)
    assert run.values["c.out"].shape == g["c"].outputs[0].shape == ref.shape
    np.testing.assert_allclose(run.values["c.out"], ref, rtol=1e-4, atol=1e-5)


def test_grouped_conv_matches_per_group_reference() -> None:
    g = WorkloadGraph("gconv")
    g.add(conv2d("c", _x("x", (1, 4, 6, 6)), out_channels=6, kernel=3, groups=2))
    run = evaluate_graph(g, seed=2)
    x, w = run.values["x"], run.values["c.weight"]
    ref = np.concatenate([_conv_reference(x[:, 2 * k:2 * k + 2], w[3 * k:3 * k + 3],
                                          np.zeros(3), stride=1, pad=0) for k in range(2)],
                         axis=1)
    np.testing.assert_allclose(run.values["c.out"], ref, rtol=1e-4, atol=1e-5)


def test_max_and_avg_pool_match_naive_loops() -> None:
    g = WorkloadGraph("pool")
    x = _x("x", (1, 2, 7, 7))
    g.add(pool2d("mp", x, kernel=3, stride=2, padding=1, mode="max"))
    g.add(pool2d("ap", x, kernel=2, stride=2, mode="avg"))
    run = evaluate_graph(g, seed=3)
    xv = run.values["x"]
    xp = np.pad(xv, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    mp = np.empty((1, 2, 4, 4), np.float32)
    for c in range(2):
        for i in range(4):
            for j in range(4):
                mp[0, c, i, j] = xp[0, c, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max()
    ap = np.empty((1, 2, 3, 3), np.float32)
    for c in range(2):
        for i in range(3):
            for j in range(3):
                ap[0, c, i, j] = xv[0, c, 2 * i:2 * i + 2, 2 * j:2 * j + 2].mean()
    np.testing.assert_allclose(run.values["mp.out"], mp, rtol=1e-6)
    np.testing.assert_allclose(run.values["ap.out"], ap, rtol=1e-5)


def test_mlp_chain_matches_numpy() -> None:
    g = WorkloadGraph("mlp")
    x = _x("x", (5, 7))
    h = g.add(linear("fc1", x, out_features=6)).outputs[0]
    bn = g.add(batch_norm("bn", h)).outputs[0]
    a = g.add(activation("relu", bn)).outputs[0]
    f = g.add(linear("fc2", a, out_features=3, bias=False)).outputs[0]
    g.add(softmax("sm", f))
    v = evaluate_graph(g, seed=4).values
    ref = v["x"] @ v["fc1.weight"] + v["fc1.bias"]
    ref = np.maximum(ref * v["bn.gamma"] + v["bn.beta"], 0.0)
    ref = sp_softmax(ref @ v["fc2.weight"], axis=-1)
    np.testing.assert_allclose(v["sm.out"], ref, rtol=1e-5, atol=1e-6)


def test_batched_matmul_with_transposed_operand() -> None:
    """Memory-network match: ``(b, 1, e) x (b, m, e) -> (b, 1, m)`` is ``u @ mem^T``."""
    g = WorkloadGraph("bmm")
    u, mem = _x("u", (3, 1, 5)), _x("mem", (3, 4, 5))
    g.add(Operator("match", "matmul", (u, mem), (_x("s", (3, 1, 4), "activation"),), 120.0,
                   {"m": 1, "n": 4, "k": 5, "batch": 3}))
    g.add(matmul("plain", _x("a", (4, 5)), _x("w", (5, 2), "weight"), "p", m=4, n=2, k=5))
    v = evaluate_graph(g, seed=5).values
    np.testing.assert_allclose(v["s"], np.einsum("bie,bme->bim", v["u"], v["mem"]), rtol=1e-5)
    np.testing.assert_allclose(v["p"], v["a"] @ v["w"], rtol=1e-5)


def test_rnn_layer_matches_step_loop() -> None:
    g = WorkloadGraph("rnn")
    g.add(recurrent("r", _x("x", (2, 4, 3)), hidden=5, cell="rnn"))
    v = evaluate_graph(g, seed=6).values
    w, r, b = v["r.W"][0], v["r.R"][0], v["r.B"][0]
    h = np.zeros((2, 5))
    for t in range(4):
        h = np.tanh(v["x"][:, t] @ w.T + h @ r.T + b)
        np.testing.assert_allclose(v["r.out"][:, t], h, rtol=1e-5, atol=1e-6)


def test_concat_reshape_and_inputs_override() -> None:
    g = WorkloadGraph("dm")
    a, b = _x("a", (2, 3)), _x("b", (2, 4))
    g.add(Operator("cat", "data_movement", (a, b), (_x("c", (2, 7), "activation"),), 0.0,
                   {"fn": "concat"}))
    g.add(data_movement("flat", g["cat"].outputs[0], (14,), fn="flatten"))
    av = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = evaluate_graph(g, inputs={"a": av}).values
    np.testing.assert_array_equal(v["c"], np.concatenate([av, v["b"]], axis=1))
    np.testing.assert_array_equal(v["flat.out"], v["c"].reshape(-1))


def test_embedding_ids_stay_inside_the_table() -> None:
    g = fathom_memnet(batch=4)
    vals = make_inputs(g, seed=0)
    assert vals["stories"].min() >= 0 and vals["stories"].max() < 20
    run = evaluate_graph(g, seed=0)
    assert np.isfinite(run.values["logits"]).all()


def _diamond() -> WorkloadGraph:
    """x -> a -> (b, c) -> d: four operators, critical path a-b-d (3)."""
    g = WorkloadGraph("diamond")
    x = _x("x", (64, 64))
    a = g.add(activation("a", x)).outputs[0]
    b = g.add(linear("b", a, out_features=64)).outputs[0]
    c = g.add(linear("c", a, out_features=64)).outputs[0]
    g.add(elementwise("d", b, c))
    return g


@pytest.mark.parametrize("inter", [1, 2, 3])
def test_scheduler_respects_dependencies(inter: int) -> None:
    g = _diamond()
    for i in range(3):  # plus three independent chains of two to keep the pool busy
        y = g.add(linear(f"p{i}", _x(f"in{i}", (32, 32)), out_features=32)).outputs[0]
        g.add(activation(f"q{i}", y))
    run = evaluate_graph(g, inter_op_threads=inter)
    ev = {e.name: e for e in run.events}
    assert sorted(ev) == sorted(op.name for op in g)
    for u, w in g.nx_graph.edges:
        assert ev[u].end_s <= ev[w].start_s, (u, w)
    threads = {e.thread for e in run.events}
    if inter == 1:
        assert len(threads) == 1 and not next(iter(threads)).startswith("interop")
    else:
        assert all(t.startswith("interop") for t in threads) and len(threads) <= inter
    np.testing.assert_allclose(
        run.values["d.out"],
        evaluate_graph(g, inter_op_threads=1).values["d.out"], rtol=1e-6)


def test_graph_width_on_hand_counted_dags() -> None:
    chain = WorkloadGraph("chain")
    t = _x("x", (4,))
    for i in range(5):
        t = chain.add(activation(f"a{i}", t)).outputs[0]
    assert critical_path_ops(chain) == 5 and graph_width(chain) == 1.0
    assert critical_path_ops(_diamond()) == 3 and graph_width(_diamond()) == pytest.approx(4 / 3)
    two = WorkloadGraph("two-chains-joined")  # 2 chains of 3 + a join: 7 ops, depth 4
    ends = []
    for c in range(2):
        t = _x(f"x{c}", (4,))
        for i in range(3):
            t = two.add(activation(f"c{c}.{i}", t)).outputs[0]
        ends.append(t)
    two.add(elementwise("join", *ends))
    assert graph_width(two) == pytest.approx(7 / 4)
    # The VAE: z_mean and z_log_sigma_sq in parallel, then sample and reconstruction.
    assert graph_width(fathom_autoenc(batch=2)) == pytest.approx(4 / 3)


def test_execute_graph_reports_repeats_kinds_and_load() -> None:
    g = _diamond()
    r = execute_graph(g, inter_op_threads=2, intra_op_threads=1, repeats=4, warmup=1)
    assert len(r.wall_s_all) == 4 and r.wall_s == pytest.approx(float(np.median(r.wall_s_all)))
    assert set(r.per_kind_s) == {"activation", "matmul", "elementwise"}
    assert all(v > 0 for v in r.per_kind_s.values())
    assert set(r.per_op_s) == {"a", "b", "c", "d"}
    assert (r.inter_op_threads, r.intra_op_threads) == (2, 1) and len(r.load_avg) == 3
    assert r.spread_s >= 0


def test_unsupported_kind_and_bad_settings_raise() -> None:
    g = WorkloadGraph("fused")
    g.add(Operator("f0", "fused", (_x("x", (2,)),), (_x("y", (2,), "activation"),), 1.0,
                   {"fused": ["matmul", "activation"]}))
    with pytest.raises(ConfigError, match="'f0'.*'fused'") as e:
        execute_graph(g)
    assert e.value.allowed == supported_kinds() and "matmul" in supported_kinds()
    with pytest.raises(ConfigError, match="inter_op_threads"):
        execute_graph(_diamond(), inter_op_threads=0)
    with pytest.raises(ConfigError, match="repeats"):
        execute_graph(_diamond(), repeats=0)


def test_fan_in_scaled_weights_keep_a_deep_residual_net_finite() -> None:
    """Fathom's residual net has no norms: unit-variance weights would overflow float32."""
    from archsim.compilers.graph.fathom import fathom_residual

    g = fathom_residual(batch=1, image_size=32)
    vals = make_inputs(g, seed=0)
    w = vals["conv1.weight"]  # (64, 3, 7, 7): fan-in 147
    assert abs(float(w.std()) - 1 / np.sqrt(147)) < 0.01
    run = evaluate_graph(g, inputs=vals)
    assert all(np.isfinite(v).all() for v in run.values.values()
               if np.issubdtype(v.dtype, np.floating))
