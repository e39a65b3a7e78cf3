"""Training iterations as graphs: gradient FLOPs in closed form, tensor uses by hand,
recompute of reversible blocks, and that the SoC simulator tiles and runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from archsim.compilers.graph import (
    PHASES,
    NetBuilder,
    TensorSpec,
    TrainingGraph,
    WorkloadGraph,
    resnet_cifar,
    revnet_cifar,
    training_graph,
)
from archsim.compilers.graph.cnn import embedding
from archsim.compilers.graph.ir import Operator
from archsim.errors import ConfigError

CONFIGS = Path(__file__).resolve().parents[1] / "soc_configs"


def _plain_cnn(batch=2) -> WorkloadGraph:
    """image 3x8x8 -> conv3x3(8) bn relu -> conv3x3/2(16) relu -> maxpool2 -> fc(10)."""
    g = WorkloadGraph("plain")
    nb = NetBuilder(g, TensorSpec("image", (batch, 3, 8, 8), "fp16", role="input"))
    nb.conv("c1", 8, 3, padding=1)
    nb.bn("c1.bn")
    nb.act("c1.relu")
    nb.conv("c2", 16, 3, stride=2, padding=1)
    nb.act("c2.relu")
    nb.pool("pool", 2)
    nb.flatten("flatten")
    nb.fc("fc", 10, bias=True)
    return g


def _gemm_flops(tg: TrainingGraph, phase: str) -> float:
    return sum(op.flops for op in tg.ops_in_phase(phase) if op.kind in ("conv2d", "matmul"))


def test_plain_cnn_gradient_flops_in_closed_form():
    b = 2
    tg = training_graph(_plain_cnn(b))
    # MACs by hand: c1 8x8 out, 8 filters of 3x3x3; c2 4x4 out, 16 filters of 3x3x8;
    # fc (b x 64) x (64 x 10) with 16*2*2 = 64 features.
    c1, c2, fc = b * 8 * 8 * 8 * 27, b * 16 * 4 * 4 * 72, b * 64 * 10
    assert _gemm_flops(tg, "forward") == 2 * (c1 + c2 + fc)
    # Every layer has a weight gradient of its forward MACs; all but the first (its input is
    # the image) a data gradient too.
    assert _gemm_flops(tg, "backward") == 2 * (c1 + 2 * c2 + 2 * fc)
    assert _gemm_flops(tg, "backward") == 2 * _gemm_flops(tg, "forward") - 2 * c1
    assert tg.recompute_flops == 0.0
    assert set(tg.phase_flops()) == set(PHASES)
    assert all(op.attrs["phase"] in PHASES for op in tg)


def test_resnet_backward_gemm_flops_are_twice_the_forward_less_the_stem_dgrad():
    g = resnet_cifar(blocks_per_stage=(2, 2), widths=(8, 16), batch=2, image_size=8)
    tg = training_graph(g)
    stem = 2 * 8 * 8 * 8 * 27  # batch 2, 8 filters of 3x3x3 over 8x8
    fwd = sum(2 * op.attrs["macs"] for op in g if op.kind in ("conv2d", "matmul"))
    assert _gemm_flops(tg, "backward") == 2 * fwd - 2 * stem


def test_one_update_per_weight_and_momentum_state():
    g = _plain_cnn()
    for momentum in (False, True):
        tg = training_graph(g, momentum=momentum)
        ups = tg.ops_in_phase("update")
        assert sorted(op.inputs[0].name for op in ups) == sorted(g.weights())
        for op in ups:
            w = g.weights()[op.inputs[0].name]
            assert op.inputs[1].name == w.name + ".grad" and op.inputs[1].role == "gradient"
            states = [t for t in op.inputs if t.role == "state"]
            assert len(states) == (1 if momentum else 0)
            assert op.flops == (4 if momentum else 2) * w.numel
    tg = training_graph(g, optimizer="adam")
    assert all(sum(t.role == "state" for t in op.inputs) == 2
               for op in tg.ops_in_phase("update"))


def test_backward_reads_of_forward_activations_are_their_last_uses():
    g = _plain_cnn()
    tg = training_graph(g)
    uses = tg.tensor_uses()
    phase = {op.name: op.attrs["phase"] for op in tg}
    # What each backward rule needs, by hand: conv wgrad its input; bn its input; relu its
    # output; max pool its input; fc wgrad its input (the flattened activation). A relu output
    # feeding a conv (or a pool) is read by that op's backward and then by the relu's.
    needed = {"image": "c1.wgrad", "c1.out": "c1.bn.grad", "c1.relu.out": "c1.relu.grad",
              "c2.relu.out": "c2.relu.grad", "flatten.out": "fc.wgrad"}
    assert "c2.wgrad" in uses["c1.relu.out"].consumers
    assert "pool.grad" in uses["c2.relu.out"].consumers
    for t, reader in needed.items():
        assert reader in uses[t].consumers
        assert uses[t].last_consumer == reader, t
    read_in_backward = {t.name for op in tg.ops_in_phase("backward") for t in op.inputs}
    for op in g:
        for t in op.outputs:
            if t.name in read_in_backward:
                assert phase[uses[t.name].last_consumer] == "backward"
    # c1.bn.out, c2.out, pool.out are needed by no backward rule: last read in the forward.
    for t in ("c1.bn.out", "c2.out", "pool.out"):
        assert phase[uses[t].last_consumer] == "forward", t


def test_two_layer_tensor_uses_by_hand():
    g = WorkloadGraph("two")
    nb = NetBuilder(g, TensorSpec("image", (2, 3, 4, 4), "fp16", role="input"))
    nb.conv("c1", 4, 3, padding=1)
    nb.act("r1")
    nb.flatten("flatten")
    nb.fc("fc", 10, bias=False)
    tg = training_graph(g)
    expected = {
        "image": (None, ("c1", "c1.wgrad")),
        "c1.weight": (None, ("c1", "c1.weight.update")),
        "c1.out": ("c1", ("r1",)),
        "r1.out": ("r1", ("flatten", "r1.grad")),
        "flatten.out": ("flatten", ("fc", "fc.wgrad")),
        "fc.weight": (None, ("fc", "fc.dgrad", "fc.weight.update")),
        "fc.out": ("fc", ("loss",)),
        "labels": (None, ("loss",)),
        "loss": ("loss", ()),
        "fc.out.grad": ("loss", ("fc.dgrad", "fc.wgrad")),
        "flatten.out.grad": ("fc.dgrad", ("flatten.grad",)),
        "fc.weight.grad": ("fc.wgrad", ("fc.weight.update",)),
        "r1.out.grad": ("flatten.grad", ("r1.grad",)),
        "c1.out.grad": ("r1.grad", ("c1.wgrad",)),
        "c1.weight.grad": ("c1.wgrad", ("c1.weight.update",)),
        "c1.weight.updated": ("c1.weight.update", ()),
        "fc.weight.updated": ("fc.weight.update", ()),
    }
    uses = tg.tensor_uses()
    assert set(uses) == set(expected)
    for name, (producer, consumers) in expected.items():
        u = uses[name]
        assert (u.producer, u.consumers) == (producer, consumers), name
        assert u.last_consumer == (consumers[-1] if consumers else None)
    assert uses["c1.out"].nbytes == 2 * 4 * 4 * 4 * 2
    assert uses["c1.out.grad"].role == "gradient" and uses["labels"].role == "input"
    assert [op.name for op in tg] == [
        "c1", "r1", "flatten", "fc", "loss", "fc.dgrad", "fc.wgrad", "flatten.grad",
        "r1.grad", "c1.wgrad", "c1.weight.update", "fc.weight.update"]
    assert {op.name: op.attrs.get("of") for op in tg} == {
        "c1": None, "r1": None, "flatten": None, "fc": None, "loss": None,
        "fc.dgrad": "fc", "fc.wgrad": "fc", "flatten.grad": "flatten", "r1.grad": "r1",
        "c1.wgrad": "c1", "c1.weight.update": "c1", "fc.weight.update": "fc"}
    # fc: [2, 64] x [64, 10]; dgrad [2, 10] x [10, 64]; wgrad [64, 2] x [2, 10].
    assert {k: tg["fc.dgrad"].attrs[k] for k in "mkn"} == {"m": 2, "k": 10, "n": 64}
    assert {k: tg["fc.wgrad"].attrs[k] for k in "mkn"} == {"m": 64, "k": 2, "n": 10}
    # conv wgrad: m = out channels, k = batch * out pixels, n = in channels * taps.
    assert {k: tg["c1.wgrad"].attrs[k] for k in "mkn"} == {"m": 4, "k": 2 * 16, "n": 27}
    assert tg["c1.wgrad"].outputs[0].shape == (4, 3, 3, 3)


def test_fan_out_gradients_are_summed():
    g = WorkloadGraph("skip")
    nb = NetBuilder(g, TensorSpec("image", (1, 4, 4, 4), "fp16", role="input"))
    r = nb.act("r0")
    c = nb.conv("c", 4, 3, padding=1)
    nb.add("add", c, r)
    nb.flatten("flatten")
    nb.fc("fc", 3, bias=False)
    tg = training_graph(g)
    s = tg["r0.out.grad_sum"]
    assert s.kind == "elementwise" and s.attrs["phase"] == "backward"
    assert sorted(t.name for t in s.inputs) == ["r0.out.grad@add", "r0.out.grad@c"]
    assert s.outputs[0].name == "r0.out.grad" and s.outputs[0].role == "gradient"
    assert s.flops == 64
    # The image feeds only r0, which needs no gradient of its input: no r0 backward op.
    assert "r0.grad" not in {op.name for op in tg}


def test_strided_conv_data_gradient_keeps_shape_and_macs():
    tg = training_graph(_plain_cnn(2))
    fwd, dg = tg["c2"], tg["c2.dgrad"]
    assert dg.kind == "conv2d" and dg.attrs["macs"] == fwd.attrs["macs"] == 2 * 16 * 16 * 72
    assert (dg.attrs["in_channels"], dg.attrs["out_channels"]) == (16, 8)
    assert (dg.attrs["kernel_h"], dg.attrs["kernel_w"]) == (3, 3)
    assert dg.outputs[0].shape == fwd.inputs[0].shape == (2, 8, 8, 8)
    assert [t.name for t in dg.inputs] == ["c2.out.grad", "c2.weight"]
    assert tg["c2.wgrad"].inputs[1].name == "c1.relu.out"  # the forward input activation
    assert tg["fc.bgrad"].kind == "reduce" and tg["fc.bgrad"].outputs[0].shape == (10,)


def _revnet():
    return revnet_cifar(blocks_per_stage=(3, 3), widths=(8, 16), batch=2, image_size=8)


def test_recompute_flops_equal_f_and_g_of_reversible_blocks():
    g = _revnet()
    blocks = g.metadata["reversible_blocks"]
    expected = 0.0
    for b in blocks:
        expected += sum(g[n].flops for n in (*b.f_ops, *b.g_ops))
        half = 4 * 8 * 8 if b.name.startswith("stage0") else 8 * 4 * 4  # elements per image
        expected += 2 * 2 * half  # two subs over (batch 2) x half
    tg = training_graph(g)
    assert tg.recompute_flops == pytest.approx(expected, rel=1e-12)
    assert training_graph(g, reversible=False).recompute_flops == 0.0
    # The backward does the same work either way.
    assert tg.phase_flops()["backward"] == \
        training_graph(g, reversible=False).phase_flops()["backward"]


def _internal(g):
    """Forward tensors inside reversible blocks: F/G outputs, and the halves passed between
    blocks of a stage (every x1/x2, every y1/y2 but the stage's last block's)."""
    blocks = g.metadata["reversible_blocks"]
    names = set()
    for i, b in enumerate(blocks):
        names |= {t.name for n in (*b.f_ops, *b.g_ops) for t in g[n].outputs}
        names |= {b.x1, b.x2}
        last = i + 1 == len(blocks) or blocks[i + 1].name.split(".")[0] != b.name.split(".")[0]
        if not last:
            names |= {b.y1, b.y2}
    return names


def test_reversible_backward_does_not_read_activations_inside_blocks():
    g = _revnet()
    internal = _internal(g)
    tg = training_graph(g)
    phase = {op.name: op.attrs["phase"] for op in tg}
    uses = tg.tensor_uses()
    for t in internal:
        assert phase[uses[t].last_consumer] == "forward", t
    # What RevNet keeps is read back: the stage-last outputs (by the recompute, y1 also by
    # G's first batch norm's backward) and the downsampling block's activations.
    last = g.metadata["reversible_blocks"][2]
    assert uses[last.y1].last_consumer == "stage0.block2.G.bn1.grad"
    assert "stage0.block2.G.bn1.recompute" in uses[last.y1].consumers
    assert uses[last.y2].last_consumer == "stage0.block2.recompute.x2"
    assert phase[uses["stage1.block0.conv1.relu.out"].last_consumer] == "backward"
    # The backward of F/G reads the recomputed tensors instead.
    assert tg["stage0.block0.F.conv1.wgrad"].inputs[1].name == "stage0.block0.F.relu1.out.rc"
    assert tg["stage0.block0.F.bn1.grad"].inputs[1].name == "stage0.split.x2.rc"
    # Ordinary back-propagation of the same graph reads them in the backward.
    plain = training_graph(g, reversible=False)
    pphase = {op.name: op.attrs["phase"] for op in plain}
    puses = plain.tensor_uses()
    read_late = {t for t in internal if pphase[puses[t].last_consumer] == "backward"}
    relu_outs = {f"{b.name}.{br}.relu{i}.out" for b in g.metadata["reversible_blocks"]
                 for br in "FG" for i in (1, 2)}
    assert relu_outs <= read_late


def test_recompute_order_and_attrs():
    g = _revnet()
    tg = training_graph(g)
    rc = [op.name for op in tg.ops_in_phase("recompute")]
    b = g.metadata["reversible_blocks"][2]
    mine = [n for n in rc if n.startswith(b.name + ".")]
    assert mine == [f"{n}.recompute" for n in b.g_ops] + [f"{b.name}.recompute.x2"] + \
        [f"{n}.recompute" for n in b.f_ops] + [f"{b.name}.recompute.x1"]
    sub = tg[f"{b.name}.recompute.x2"]
    assert sub.attrs["fn"] == "sub" and sub.attrs["of"] == f"{b.name}.y2"
    assert [t.name for t in sub.inputs] == [b.y2, b.g_out + ".rc"]
    assert tg[f"{b.g_ops[0]}.recompute"].attrs["of"] == b.g_ops[0]
    # Blocks are recomputed last-first, each just before its own backward.
    order = [op.name for op in tg]
    assert order.index("stage0.block2.recompute.x1") < order.index("stage0.block2.F.conv2.wgrad")
    assert order.index("stage0.block2.F.conv1.wgrad") < order.index(
        "stage0.block1.G.bn1.recompute")
    # Block 1's recompute starts from block 2's recomputed inputs.
    assert tg["stage0.block1.G.bn1.recompute"].inputs[0].name == "stage0.block1.y1.out.rc"


def test_bad_input_names_the_field():
    g = _plain_cnn()
    with pytest.raises(ConfigError) as e:
        training_graph(g, optimizer="lamb")
    assert e.value.field == "optimizer" and "adam" in e.value.allowed
    with pytest.raises(ConfigError) as e:
        training_graph(g, momentum=1)
    assert e.value.field == "momentum"
    # A fused kernel group has no gradient rule (embeddings do since the Fathom graphs).
    bad = WorkloadGraph("fused")
    x = TensorSpec("x", (2, 3), "fp16", role="input")
    nb = NetBuilder(bad, x)
    nb._add(Operator("emb", "fused", (x,), (TensorSpec("y", (2, 3), "fp16"),), 6.0,
                     {"fused": ["matmul", "activation"]}))
    nb.fc("fc", 2)
    with pytest.raises(ConfigError) as e:
        training_graph(bad)
    assert "'emb'" in str(e.value) and "'fused'" in str(e.value)
    assert e.value.field == "kind" and "conv2d" in e.value.allowed
    two_outputs = _plain_cnn()
    NetBuilder(two_outputs, two_outputs["c1"].outputs[0]).act("extra")
    with pytest.raises(ConfigError) as e:
        training_graph(two_outputs)
    assert e.value.field == "graph"


@pytest.mark.parametrize("builder", [resnet_cifar, revnet_cifar])
def test_every_operator_tiles_and_the_soc_simulator_runs_it(builder):
    from archsim.sim.soc import load_soc_config, plan_operator, simulate

    cfg = load_soc_config(CONFIGS / "smaug_baseline.toml")
    spads = cfg.accelerators[0].scratchpads
    g = builder(batch=2, image_size=8)  # ResNet-20 / RevNet-20 stages and widths
    tg = training_graph(g)
    tg.validate()
    for op in tg:
        plan_operator(op, spads)
    r = simulate(cfg, tg)
    assert r.latency_s > 0
    # Every MAC of the iteration runs once: the forward's, its weight gradients' and the data
    # gradients of every layer but the stem, plus (RevNet) F and G again.
    fwd = sum(op.attrs["macs"] for op in g if op.kind in ("conv2d", "matmul"))
    stem = g["stem.conv"].attrs["macs"]
    rc = sum(g[n].attrs["macs"] for b in g.metadata.get("reversible_blocks", ())
             for n in (*b.f_ops, *b.g_ops) if g[n].kind == "conv2d")
    assert r.macs == 3 * fwd - stem + rc


# -- embedding, recurrent, reduce and attention (the Fathom graphs) --------------------------

def _ops_of(tg: TrainingGraph, name: str) -> dict[str, float]:
    """Backward operators derived from forward operator ``name``: suffix -> FLOPs."""
    return {op.name.removeprefix(name + "."): op.flops for op in tg.ops_in_phase("backward")
            if op.attrs.get("of") == name and op.name.startswith(name + ".")}


def test_embedding_gradient_is_a_sparse_scatter_add_of_the_looked_up_rows():
    g = WorkloadGraph("emb")
    ids = TensorSpec("ids", (2, 3), "int32", role="input")
    nb = NetBuilder(g, ids)
    nb._add(embedding("emb", ids, vocab=10, dim=4, dtype="fp32"))
    nb.flatten("flat")
    nb.fc("fc", 5, bias=False)
    tg = training_graph(g)
    # 6 looked-up rows of 4: one accumulate per element; the table (10 x 4) is not densified.
    wgrad = tg["emb.wgrad"]
    assert wgrad.flops == 2 * 3 * 4 and wgrad.outputs[0].shape == (6, 4)
    assert wgrad.kind == "embedding" and wgrad.attrs["fn"] == "scatter_add"
    # SGD touches only those rows: 2 FLOPs x 24 elements, not x 40.
    assert tg["emb.weight.update"].flops == 2 * 24
    assert tg["emb.weight.update"].attrs["sparse"] is True
    assert tg["fc.weight.update"].flops == 2 * 12 * 5
    # Adam: 12 per touched element.
    assert training_graph(g, optimizer="adam")["emb.weight.update"].flops == 12 * 24


def test_a_table_looked_up_twice_concatenates_its_sparse_gradients():
    g = WorkloadGraph("emb2")
    a = TensorSpec("a", (2, 3), "int32", role="input")
    b = TensorSpec("b", (2, 5), "int32", role="input")
    g.add(embedding("ea", a, vocab=10, dim=4, dtype="fp32", weight_name="T"))
    g.add(embedding("eb", b, vocab=10, dim=4, dtype="fp32", weight_name="T"))
    from archsim.compilers.graph.cnn import data_movement, elementwise, linear
    g.add(data_movement("fa", g["ea"].outputs[0], (2, 12)))
    g.add(data_movement("fb", g["eb"].outputs[0], (2, 20)))
    g.add(linear("la", g["fa"].outputs[0], out_features=3, bias=False))
    g.add(linear("lb", g["fb"].outputs[0], out_features=3, bias=False))
    g.add(elementwise("sum", g["la"].outputs[0], g["lb"].outputs[0]))
    tg = training_graph(g)
    cat = tg["T.grad_concat"]
    assert cat.kind == "data_movement" and cat.flops == 0.0
    assert cat.outputs[0].shape == (6 + 10, 4)
    assert tg["T.update"].flops == 2 * 16 * 4


def _lstm_graph(*, bidirectional: bool = False, cell: str = "lstm") -> WorkloadGraph:
    """x (2, 5, 3) -> fc(4) -> recurrent(6) -> fc(7): the recurrent input wants a gradient."""
    g = WorkloadGraph("rnn")
    nb = NetBuilder(g, TensorSpec("x", (2, 5, 3), "fp32", role="input"))
    nb.fc("fc_in", 4)
    nb.rnn("rnn", 6, cell=cell, bidirectional=bidirectional)
    nb.fc("fc_out", 7)
    return g


def test_lstm_bptt_flops_in_closed_form():
    tg = training_graph(_lstm_graph())
    b, t, i, h, gates = 2, 5, 4, 6, 4
    ops = _ops_of(tg, "rnn")
    # Cell backward: twice the forward's 9 point-wise FLOPs per hidden unit and step.
    assert ops["cell_grad"] == 2 * 9 * b * t * h
    assert ops["dgrad_h"] == 2 * t * b * (gates * h) * h
    assert ops["dgrad"] == 2 * t * b * (gates * h) * i
    assert ops["wgrad"] == 2 * (gates * h) * (b * t) * (i + h)
    assert ops["bgrad"] == b * t * gates * h
    # Data + weight gradient GEMMs are twice the forward's matmul FLOPs.
    fwd_mm = 2 * t * b * gates * h * (i + h)
    assert ops["dgrad_h"] + ops["dgrad"] + ops["wgrad"] == 2 * fwd_mm
    assert tg["rnn.dgrad_h"].attrs["steps"] == t
    for w in ("rnn.W", "rnn.R", "rnn.B"):
        assert tg[w + ".update"].inputs[1].name == w + ".grad"
    assert tg["rnn.wgrad"].outputs[0].shape == (1, 24, 4)


def test_bidirectional_gru_sums_the_directions_input_gradients():
    tg = training_graph(_lstm_graph(bidirectional=True, cell="gru"))
    b, t, i, h, gates, dirs = 2, 5, 4, 6, 3, 2
    ops = _ops_of(tg, "rnn")
    assert ops["cell_grad"] == 2 * 8 * dirs * b * t * h
    assert ops["dgrad"] == 2 * dirs * t * b * gates * h * i
    assert ops["dgrad_sum"] == b * t * i
    assert ops["dgrad_h"] + ops["dgrad"] + ops["wgrad"] == 2 * (2 * dirs * t * b * gates * h
                                                                  * (i + h))


def test_an_rnn_on_a_graph_input_has_no_input_gradient():
    g = WorkloadGraph("rnn0")
    nb = NetBuilder(g, TensorSpec("x", (2, 5, 3), "fp32", role="input"))
    nb.rnn("rnn", 6, cell="rnn")
    nb.fc("fc_out", 7)
    ops = _ops_of(training_graph(g), "rnn")
    assert "dgrad" not in ops and ops["dgrad_h"] == 2 * 5 * 2 * 6 * 6


def test_memnet_reduce_gradients_in_closed_form():
    from archsim.compilers.graph.fathom import fathom_memnet
    b, m, s, e = 32, 10, 6, 20
    tg = training_graph(fathom_memnet())
    # Weighted sums: the embedded words get dy expanded times the encoding (1 FLOP each);
    # the position encoding is a constant input; TA is broadcast over the batch, so its
    # gradient sums dy over it (one FLOP per output element).
    assert _ops_of(tg, "query_encode") == {"grad0": b * s * e}
    assert _ops_of(tg, "memory_encode") == {"grad0": b * m * s * e, "grad2": b * m * e}
    assert tg["memory_encode.grad2"].kind == "reduce"
    assert tg["memory_encode.grad2"].outputs[0].shape == (m, e)
    # A and B are sparse: 32*10*6 and 32*6 looked-up rows of 20.
    assert tg["A.update"].flops == 2 * b * m * s * e
    assert tg["B.update"].flops == 2 * b * s * e
    # H is shared by the three hops: its three contributions are summed.
    assert tg["H.grad_sum"].flops == 2 * e * e


def test_plain_sum_reduce_backward_is_data_movement():
    g = WorkloadGraph("sum")
    nb = NetBuilder(g, TensorSpec("x", (2, 3, 4), "fp32", role="input"))
    nb.fc("fc", 5)
    y = TensorSpec("pooled", (2, 5), "fp32")
    g.add(Operator("pool", "reduce", (nb.x,), (y,), 2.0 * 2 * 5, {"fn": "sum", "axis": 1}))
    NetBuilder(g, y).fc("out", 3)
    tg = training_graph(g)
    assert tg["pool.grad"].kind == "data_movement" and tg["pool.grad"].flops == 0.0
    assert tg["pool.grad"].outputs[0].shape == (2, 3, 5)


def test_seq2seq_attention_backward_and_every_fathom_workload_trains():
    from archsim.compilers.graph.fathom import FATHOM_WORKLOADS, fathom_workload
    tg = training_graph(fathom_workload("seq2seq"))
    pairs, h = 64 * 50 * 40, 256
    att = tg["attention.grad"]
    # Twice the products (4 h per pair) plus the softmax backward (4 per score).
    assert att.flops == 2 * 4 * pairs * h + 4 * pairs
    # query, keys, values (encoder states) and v all get gradients.
    assert sorted(t.name for t in att.outputs) == sorted(
        ["attn_query.out.grad", "attn_keys.out.grad", "enc_lstm2.out.grad@attention",
         "attn_v.grad"])
    for name in FATHOM_WORKLOADS:
        fwd = fathom_workload(name)
        tg = training_graph(fwd)
        assert tg.phase_flops()["forward"] == fwd.total_flops
        assert sorted(op.inputs[0].name for op in tg.ops_in_phase("update")) == sorted(
            fwd.weights())


def test_speech_backward_gemms_are_twice_the_forward_less_the_first_dgrad():
    from archsim.compilers.graph.fathom import fathom_speech
    b, frames, coeffs, hid = 2, 7, 26, 16
    fwd = fathom_speech(b, max_frames=frames, hidden=hid)
    tg = training_graph(fwd)
    fwd_mm = sum(op.flops for op in fwd if op.kind == "matmul") + sum(
        op.attrs["matmul_flops"] for op in fwd if op.kind == "recurrent")
    back_mm = sum(op.flops for op in tg.ops_in_phase("backward") if op.kind == "matmul")
    assert back_mm == 2 * fwd_mm - 2 * (b * frames * coeffs * hid)
