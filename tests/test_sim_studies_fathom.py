"""The Fathom study: op-type mapping, roofline times by hand, similarity against scipy,
clustering and coverage on hand-made profiles, timing statistics, and the quick run."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from scipy.spatial.distance import cosine

from archsim.compilers.graph import NetBuilder, TensorSpec, WorkloadGraph, training_graph
from archsim.compilers.graph.fathom import fathom_autoenc, fathom_seq2seq
from archsim.errors import ConfigError
from archsim.sim.studies.fathom import (
    cluster_order,
    family_neighbour_agreement,
    run,
    similarity,
)
from archsim.sim.studies.fathom._measure import Timing, time_call
from archsim.sim.studies.fathom.profile import (
    OP_CLASSES,
    CpuRoofline,
    Piece,
    Profile,
    cosine_similarity,
    pieces,
    profile,
    types_covering,
)

ROOF = CpuRoofline(gemm_flops_per_s=1e11, vector_flops_per_s=1e10, mem_bw_bytes_per_s=1e10,
                   normal_draws_per_s=1e8)


def _cnn() -> WorkloadGraph:
    g = WorkloadGraph("tiny")
    nb = NetBuilder(g, TensorSpec("image", (2, 3, 8, 8), "fp32", role="input"))
    nb.conv("c1", 4, 3, padding=1, bias=True)
    nb.act("c1.relu")
    nb.conv("c2", 8, 3, padding=1)
    nb.flatten("flat")
    nb.fc("fc", 5)
    return g


def test_roofline_time_is_the_larger_of_compute_and_traffic():
    # 1 GFLOP GEMM, 1 MB: compute-bound, 1e9 / 1e11 = 10 ms.
    assert ROOF.time_s(Piece("a", "MatMul", "matrix", 1e9, 1e6)) == pytest.approx(1e-2)
    # 1 MFLOP elementwise over 1 GB: memory-bound, 1e9 / 1e10 = 0.1 s.
    assert ROOF.time_s(Piece("b", "Add", "elementwise", 1e6, 1e9)) == pytest.approx(0.1)
    # Data movement has no FLOPs: traffic only.
    assert ROOF.time_s(Piece("c", "Reshape", "data_movement", 0.0, 2e6)) == pytest.approx(2e-4)
    # Random draws at 1e8/s: 1e6 draws of 4 MB -> max(1e-2, 4e-4).
    assert ROOF.time_s(Piece("d", "RandomStandardNormal", "random", 1e6, 4e6)) == \
        pytest.approx(1e-2)
    with pytest.raises(ConfigError) as e:
        CpuRoofline(gemm_flops_per_s=0.0, vector_flops_per_s=1.0, mem_bw_bytes_per_s=1.0,
                    normal_draws_per_s=1.0)
    assert e.value.field == "gemm_flops_per_s"
    with pytest.raises(ConfigError) as e:
        ROOF.ceiling("sorting")
    assert "convolution" in e.value.allowed


def test_convolution_class_covers_forward_and_both_gradients():
    fwd = _cnn()
    tg = training_graph(fwd)
    kinds = {op.name: op.kind for op in fwd}
    types = {op.name: pieces(op, forward_kinds=kinds)[0] for op in tg}
    assert types["c1"].op_type == "Conv2D" and types["c1"].op_class == "convolution"
    assert types["c2.dgrad"].op_type == "Conv2DBackpropInput"
    assert types["c2.wgrad"].op_type == "Conv2DBackpropFilter"
    assert types["c2.wgrad"].op_class == "convolution"
    assert types["fc.wgrad"].op_type == "MatMul" and types["fc.wgrad"].op_class == "matrix"
    assert types["c1.bgrad"].op_type == "BiasAddGrad"
    assert types["fc.weight.update"].op_class == "optimizer"
    assert types["c1.relu.grad"].op_type == "ReluGrad"
    # FLOP shares by hand: convs 2*(2*64*4*27) + 2*(2*64*8*36) forward MACs, each tripled
    # by its two gradients; c1 has no data gradient (its input is the image).
    c1, c2 = 2 * 64 * 4 * 27, 2 * 64 * 8 * 36
    prof = profile(tg, ROOF, forward=fwd)
    assert prof.flops_by_type["Conv2D"] == 2 * (c1 + c2)
    assert prof.flops_by_type["Conv2DBackpropInput"] == 2 * c2
    assert prof.flops_by_type["Conv2DBackpropFilter"] == 2 * (c1 + c2)
    assert sum(prof.by_class(measure="time").values()) == pytest.approx(1.0)
    assert prof.total_flops == pytest.approx(tg.total_flops)


def test_recurrent_and_attention_split_without_losing_flops():
    fwd = fathom_seq2seq(batch=2, encoder_len=3, decoder_len=4, size=8, num_layers=1,
                         vocab=11)
    tg = training_graph(fwd)
    kinds = {op.name: op.kind for op in fwd}
    for name in ("enc_lstm0", "attention", "attention.grad"):
        ps = pieces(tg[name], forward_kinds=kinds)
        assert len(ps) == 2
        assert sum(p.flops for p in ps) == pytest.approx(tg[name].flops)
    lstm = pieces(tg["enc_lstm0"], forward_kinds=kinds)
    assert [p.op_class for p in lstm] == ["matrix", "elementwise"]
    # The LSTM's matrix part: 2 * seq * batch * 4 gates * hidden * (input + hidden).
    assert lstm[0].flops == 2 * 3 * 2 * 32 * 16
    att = pieces(tg["attention"], forward_kinds=kinds)
    # Additive scoring is elementwise; 5 softmax FLOPs per (step, position) pair.
    assert [p.op_class for p in att] == ["elementwise", "reduction"]
    assert att[1].flops == 5 * 2 * 4 * 3
    assert pieces(tg["attention.grad"], forward_kinds=kinds)[1].flops == 4 * 2 * 4 * 3
    assert pieces(tg["dec_embed.wgrad"], forward_kinds=kinds)[0].op_type == "ScatterAdd"


def test_the_vae_draws_its_noise_once_per_step():
    fwd = fathom_autoenc(batch=4, n_input=6, n_hidden=3)
    prof = profile(training_graph(fwd), ROOF, forward=fwd)
    assert prof.flops_by_type["RandomStandardNormal"] == 4 * 3
    assert prof.by_class()["random"] > 0
    assert prof.by_class(measure="flops")["random"] == 0.0
    with pytest.raises(ConfigError) as e:
        prof.by_class(measure="joules")
    assert e.value.field == "measure"


def test_cosine_similarity_matches_scipy():
    rng = np.random.default_rng(1)
    v = rng.random((5, 7))
    sim = cosine_similarity(v)
    for i in range(5):
        for j in range(5):
            assert sim[i, j] == pytest.approx(1.0 - cosine(v[i], v[j]))
    with pytest.raises(ConfigError):
        cosine_similarity(np.zeros((2, 3)))


def _prof(name: str, times: dict[str, float]) -> Profile:
    return Profile(name, times, dict.fromkeys(times, 1.0), dict.fromkeys(times, "matrix"))


def test_types_covering_counts_the_fewest_types():
    p = _prof("p", {"a": 50.0, "b": 30.0, "c": 11.0, "d": 9.0})
    assert types_covering(p, 0.9) == 3  # 50 + 30 + 11 = 91
    assert types_covering(p, 0.5) == 1
    assert types_covering(p, 1.0) == 4
    with pytest.raises(ConfigError):
        types_covering(p, 0.0)


def test_similarity_clusters_and_neighbours_on_hand_made_profiles():
    profs = {"c1": _prof("c1", {"conv": 9.0, "mm": 1.0}),
             "c2": _prof("c2", {"conv": 8.0, "mm": 2.0}),
             "r1": _prof("r1", {"mm": 9.0, "add": 1.0}),
             "r2": _prof("r2", {"mm": 8.0, "add": 2.0}),
             "x": _prof("x", {"gather": 1.0})}
    names, sim = similarity(profs)
    assert names == ["c1", "c2", "r1", "r2", "x"]
    # Over the axes (add, conv, gather, mm): c1 = (0, .9, 0, .1), r1 = (.1, 0, 0, .9).
    assert sim[0, 2] == pytest.approx(0.09 / (0.82 ** 0.5 * 0.82 ** 0.5))
    labels = cluster_order(names, sim, 3)
    assert labels["c1"] == labels["c2"] != labels["r1"] == labels["r2"] != labels["x"]
    fam = {"c1": "cnn", "c2": "cnn", "r1": "rnn", "r2": "rnn", "x": "other"}
    assert family_neighbour_agreement(names, sim, fam) == 1.0
    swapped = {"c1": "cnn", "c2": "rnn", "r1": "rnn", "r2": "cnn", "x": "other"}
    assert family_neighbour_agreement(names, sim, swapped) == 0.0
    with pytest.raises(ConfigError):
        similarity(profs, by="opcode")


def test_timing_statistics_and_validation():
    t = Timing("x", 10.0, "FLOP/s", (1.0, 2.0, 4.0), (1.0, 1.0, 1.0), 1)
    assert t.median_s == 2.0 and t.rate == 5.0 and t.spread == pytest.approx(1.5)
    assert t.row()["repeats"] == 3 and t.row()["min_s"] == 1.0
    calls = []
    timing = time_call(lambda: calls.append(1), what="noop", work=1.0, unit="x",
                       repeats=4, threads=1, warmup=2)
    assert len(calls) == 6 and len(timing.wall_s) == 4
    with pytest.raises(ConfigError):
        time_call(lambda: None, what="noop", work=0.0, unit="x", repeats=1, threads=1)
    with pytest.raises(ConfigError):
        time_call(lambda: None, what="noop", work=1.0, unit="x", repeats=0, threads=1)


def test_quick_run_writes_outputs_and_keeps_its_statuses(tmp_path):
    c0 = time.process_time()
    res = run(out_dir=tmp_path, seed=0, quick=True)
    assert time.process_time() - c0 < 15.0
    for c in res.comparisons:
        assert c.status == c.expected, c.metric
    for f in ("comparisons.csv", "class_breakdown.png", "similarity_dendrogram.png",
              "thread_scaling.png", "workloads.csv", "scaling.csv", "roofline.csv"):
        assert (tmp_path / f).exists(), f
    shares = [r for r in res.tables["class_shares"] if r["measure"] == "time"]
    assert len(shares) == 8
    for r in shares:
        assert math.isclose(sum(r[c] for c in OP_CLASSES), 1.0, rel_tol=1e-9)
    assert {r["workload"] for r in res.tables["scaling_live"]} == {"autoenc", "deepq"}


def test_roofline_check_compares_gemm_shares_by_hand():
    from archsim.sim.studies.fathom import roofline_check
    row = {"workload": "autoenc", "params": json.dumps({"batch": 2}),
           "wall_1t_median_s": 0.5,
           "per_kind_1t_s": json.dumps({"matmul": 0.3, "elementwise": 0.1})}
    out = roofline_check([row], ROOF)[0]
    assert out["measured_gemm_share"] == pytest.approx(0.75)
    # Roofline by hand, batch 2: three linear layers 784->200 (x2) and 200->784, each
    # max(2 m n k / 1e11, bytes / 1e10) with bytes = (x + W + b + y) * 4.
    def lin(k, n):
        nbytes = 4 * (2 * k + k * n + n + 2 * n)
        return max(2 * 2 * k * n / 1e11, nbytes / 1e10)
    mm = 2 * lin(784, 200) + lin(200, 784)
    sample = max(4 * 2 * 200 / 1e10, 4 * 4 * 2 * 200 / 1e10)  # 3 inputs + 1 output
    assert out["roofline_forward_s"] == pytest.approx(mm + sample)
    assert out["roofline_gemm_share"] == pytest.approx(mm / (mm + sample))
    assert out["measured_over_roofline"] == pytest.approx(0.5 / (mm + sample))


def test_optimizer_updates_are_named_as_tensorflow_kernels():
    from archsim.compilers.graph.fathom import fathom_memnet
    fwd = fathom_memnet(batch=2)
    kinds = {op.name: op.kind for op in fwd}
    for opt, momentum, dense, sparse in (("sgd", False, "ApplyGradientDescent", "ScatterSub"),
                                         ("sgd", True, "ApplyMomentum", "SparseApplyMomentum"),
                                         ("adam", False, "ApplyAdam", "SparseApplyAdam")):
        tg = training_graph(fwd, optimizer=opt, momentum=momentum)
        assert pieces(tg["H.update"], forward_kinds=kinds)[0].op_type == dense
        assert pieces(tg["A.update"], forward_kinds=kinds)[0].op_type == sparse


def test_scaling_mode_is_validated():
    from archsim.sim.studies.fathom import measure_scaling
    with pytest.raises(ConfigError) as e:
        measure_scaling("medium")
    assert e.value.field == "mode" and "full" in e.value.allowed
