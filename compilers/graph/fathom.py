"""The eight Fathom workloads (Adolf et al., "Fathom: Reference Workloads for Modern Deep
Learning Methods", IISWC 2016) as inference (forward) operator graphs.

Sizes follow the reference TensorFlow code, github.com/rdadolf/fathom (files
``fathom/<workload>/<workload>.py``, release 0.9-soft), which the paper describes; each
builder cites its file and states what the code leaves open. Default batch sizes are the
reference code's ``batch_size``; data types default to ``fp32`` as in the TensorFlow code.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import ConfigError
from .cnn import (
    NetBuilder,
    data_movement,
    elementwise,
    embedding,
    linear,
    positive_int,
    recurrent,
    softmax,
)
from .ir import Operator, TensorSpec, WorkloadGraph, matmul

__all__ = [
    "FATHOM_WORKLOADS", "fathom_workload",
    "fathom_seq2seq", "fathom_memnet", "fathom_speech", "fathom_autoenc",
    "fathom_residual", "fathom_vgg", "fathom_alexnet", "fathom_deepq",
]

_REPO = "github.com/rdadolf/fathom"


def _graph(name: str, batch: int, dtype: str, source: str, **meta: object) -> WorkloadGraph:
    positive_int("batch", batch)
    return WorkloadGraph(f"fathom-{name}-b{batch}", metadata={
        "model": f"fathom-{name}", "batch": batch, "dtype": dtype,
        "source": f"Adolf et al. 2016 (Fathom); sizes from {_REPO} {source}", **meta})


def fathom_seq2seq(batch: int = 64, *, dtype: str = "fp32", encoder_len: int = 40,
                   decoder_len: int = 50, size: int = 256, num_layers: int = 3,
                   vocab: int = 40000) -> WorkloadGraph:
    """Sequence-to-sequence translation with attention (Sutskever et al. 2014; Bahdanau
    attention as in TensorFlow's ``embedding_attention_seq2seq``).

    Reference: ``fathom/seq2seq/seq2seq.py``: 3-layer LSTM of 256 units, 40,000-word
    English and French vocabularies, embedding size 256, largest bucket (40, 50), batch 64.
    Inference feeds the previous output back (``feed_previous``), so every decoder step
    projects to the full vocabulary (the 512-sample softmax is a training-only shortcut).

    Modelled per decoder step (aggregated over the 50 steps into one operator each; their
    ``attrs["steps"]`` marks the sequential dependence): the input projection
    ``[input, context] -> size``, the LSTM stack, the attention query projection from the
    flattened LSTM state (``2 * num_layers * size`` wide, as TensorFlow 0.x's
    ``attention_decoder`` uses the whole state), additive attention over the encoder
    states, the output projection ``[cell, context] -> size`` and the vocabulary
    projection with softmax. Assumption: biases are included with every projection.
    """
    g = _graph("seq2seq", batch, dtype, "fathom/seq2seq/seq2seq.py",
               encoder_len=encoder_len, decoder_len=decoder_len)
    te, td, h = encoder_len, decoder_len, size
    enc_ids = TensorSpec("encoder_tokens", (batch, te), "int32", role="input")
    dec_ids = TensorSpec("decoder_tokens", (batch, td), "int32", role="input")
    g.add(embedding("enc_embed", enc_ids, vocab=vocab, dim=h, dtype=dtype))
    x = g["enc_embed"].outputs[0]
    for i in range(num_layers):
        g.add(recurrent(f"enc_lstm{i}", x, hidden=h, cell="lstm"))
        x = g[f"enc_lstm{i}"].outputs[0]
    enc_states = x
    # Attention keys W1 h_i are computed once for all encoder states.
    g.add(linear("attn_keys", enc_states, out_features=h, bias=False))
    keys = g["attn_keys"].outputs[0]
    g.add(embedding("dec_embed", dec_ids, vocab=vocab, dim=h, dtype=dtype))
    dec_in = g["dec_embed"].outputs[0]
    # [input, previous context] -> cell input, for every decoder step.
    ctx_prev = TensorSpec("attn_context_prev", (batch, td, h), dtype, role="state")
    cat = TensorSpec("dec_in_cat", (batch, td, 2 * h), dtype)
    g.add(Operator("dec_in_concat", "data_movement", (dec_in, ctx_prev), (cat,), 0.0,
                   {"fn": "concat", "steps": td}))
    g.add(linear("dec_in_proj", cat, out_features=h))
    x = g["dec_in_proj"].outputs[0]
    for i in range(num_layers):
        g.add(recurrent(f"dec_lstm{i}", x, hidden=h, cell="lstm"))
        x = g[f"dec_lstm{i}"].outputs[0]
    cell_out = x
    state = TensorSpec("dec_state", (batch, td, 2 * num_layers * h), dtype, role="state")
    g.add(linear("attn_query", state, out_features=h))
    query = g["attn_query"].outputs[0]
    # Additive attention: score = v . tanh(k_j + q) for every (step, encoder position),
    # then softmax and the weighted sum of encoder states.
    pairs = batch * td * te
    ctx = TensorSpec("attn_context", (batch, td, h), dtype)
    v = TensorSpec("attn_v", (h,), dtype, role="weight")
    g.add(Operator("attention", "attention", (query, keys, enc_states, v), (ctx,),
                   pairs * h * 4.0 + 5.0 * pairs,
                   {"kind": "additive", "batch": batch, "q_len": td, "kv_len": te,
                    "head_dim": h, "heads": 1, "steps": td,
                    "softmax_flops": 5.0 * pairs}))
    out_cat = TensorSpec("dec_out_cat", (batch, td, 2 * h), dtype)
    g.add(Operator("dec_out_concat", "data_movement", (cell_out, ctx), (out_cat,), 0.0,
                   {"fn": "concat", "steps": td}))
    g.add(linear("dec_out_proj", out_cat, out_features=h))
    g.add(linear("vocab_proj", g["dec_out_proj"].outputs[0], out_features=vocab))
    g.add(softmax("vocab_softmax", g["vocab_proj"].outputs[0]))
    return g


def fathom_memnet(batch: int = 32, *, dtype: str = "fp32", memory_size: int = 10,
                  sentence_size: int = 6, embedding_size: int = 20, hops: int = 3,
                  vocab: int = 20) -> WorkloadGraph:
    """End-to-end memory network (Sukhbaatar et al. 2015) on bAbI task 1.

    Reference: ``fathom/memnet/memnet.py``: embedding 20, 3 hops, batch 32, position
    encoding, adjacent weight sharing (one memory embedding ``A`` for input and output
    memories, one ``H`` for every hop). Data-dependent sizes: memory 10 sentences of 6
    words (the bAbI sample shapes, 10 x 6 and 6, in ``rdadolf/fathom-lite``); vocabulary
    20 = the 19 words of task 1 plus the nil word -- an assumption, the code derives it
    from the data.
    """
    g = _graph("memnet", batch, dtype, "fathom/memnet/memnet.py", hops=hops)
    m, s, e = memory_size, sentence_size, embedding_size
    stories = TensorSpec("stories", (batch, m, s), "int32", role="input")
    queries = TensorSpec("queries", (batch, s), "int32", role="input")
    g.add(embedding("query_embed", queries, vocab=vocab, dim=e, dtype=dtype,
                    weight_name="B"))
    g.add(embedding("memory_embed", stories, vocab=vocab, dim=e, dtype=dtype,
                    weight_name="A"))
    # The position encoding is a constant, not a trained parameter.
    enc = TensorSpec("position_encoding", (s, e), dtype, role="input")
    u = TensorSpec("u0", (batch, e), dtype)
    g.add(Operator("query_encode", "reduce", (g["query_embed"].outputs[0], enc), (u,),
                   2.0 * batch * s * e, {"fn": "weighted_sum", "axis": 1}))
    ta = TensorSpec("TA", (m, e), dtype, role="weight")
    mem = TensorSpec("memories", (batch, m, e), dtype)
    g.add(Operator("memory_encode", "reduce", (g["memory_embed"].outputs[0], enc, ta), (mem,),
                   2.0 * batch * m * s * e + batch * m * e,
                   {"fn": "weighted_sum_plus_time", "axis": 2}))
    h_w = TensorSpec("H", (e, e), dtype, role="weight")
    for k in range(hops):
        p = f"hop{k}."
        u3 = TensorSpec(p + "u", (batch, 1, e), dtype)
        g.add(data_movement(p + "u_expand", u, u3.shape, out=u3.name))
        scores = TensorSpec(p + "scores", (batch, 1, m), dtype)
        g.add(Operator(p + "match", "matmul", (u3, mem), (scores,), 2.0 * batch * m * e,
                       {"m": 1, "n": m, "k": e, "batch": batch}))
        g.add(softmax(p + "softmax", scores))
        probs = g[p + "softmax"].outputs[0]
        o = TensorSpec(p + "o", (batch, 1, e), dtype)
        g.add(Operator(p + "read", "matmul", (probs, mem), (o,), 2.0 * batch * m * e,
                       {"m": 1, "n": e, "k": m, "batch": batch}))
        g.add(matmul(p + "uH", u, h_w, p + "uH", m=batch, n=e, k=e))
        o2 = TensorSpec(p + "o2", (batch, e), dtype)
        g.add(data_movement(p + "o_squeeze", o, o2.shape, out=o2.name))
        g.add(elementwise(p + "update", g[p + "uH"].outputs[0], o2, out=p + "u_next"))
        u = g[p + "update"].outputs[0]
    g.add(matmul("answer", u, TensorSpec("W", (e, vocab), dtype, role="weight"), "logits",
                 m=batch, n=vocab, k=e))
    return g


def fathom_speech(batch: int = 32, *, dtype: str = "fp32", max_frames: int = 1566,
                  n_coeffs: int = 26, hidden: int = 1024, n_labels: int = 62) -> WorkloadGraph:
    """Deep Speech-style recognizer (Hannun et al. 2014) on TIMIT.

    Reference: ``fathom/speech/speech.py``: 26 MFCC coefficients per frame, 1566 frames,
    three clipped-ReLU FC layers of 1024, one bidirectional clipped-ReLU RNN layer of
    1024 units per direction, an FC layer to 61 phonemes + blank, batch 32 (CTC decoding
    is not modelled). Assumption: the two directions are summed per frame before the
    output layer, as in Deep Speech; the reference code's wiring of this step is
    inconsistent (it feeds only the last step's concatenated output to a layer declared
    ``hidden`` wide).
    """
    g = _graph("speech", batch, dtype, "fathom/speech/speech.py", max_frames=max_frames)
    nb = NetBuilder(g, TensorSpec("spectrogram", (batch, max_frames, n_coeffs), dtype,
                                  role="input"))
    for i in range(1, 4):
        nb.fc(f"fc{i}", hidden)
        nb.act(f"fc{i}.relu", "clipped_relu")
    fw = nb.rnn("birnn_fw", hidden, cell="rnn")
    bw = nb.rnn("birnn_bw", hidden, cell="rnn", x=g["fc3.relu"].outputs[0])
    nb.add("birnn_sum", fw, bw)
    nb.fc("fc5", n_labels)
    return g


def fathom_autoenc(batch: int = 128, *, dtype: str = "fp32", n_input: int = 784,
                   n_hidden: int = 200) -> WorkloadGraph:
    """Variational autoencoder (Kingma & Welling 2014) on MNIST.

    Reference: ``fathom/autoenc/variational.py`` (with ``autoenc.py``): 784 inputs, a
    200-wide latent with mean and log-variance encoders, a linear decoder, batch 128.
    Sampling ``z = mean + sqrt(exp(log_sigma_sq)) * eps`` is four element-wise FLOPs per
    latent value.
    """
    g = _graph("autoenc", batch, dtype, "fathom/autoenc/variational.py")
    x = TensorSpec("images", (batch, n_input), dtype, role="input")
    g.add(linear("z_mean", x, out_features=n_hidden))
    g.add(linear("z_log_sigma_sq", x, out_features=n_hidden))
    eps = TensorSpec("eps", (batch, n_hidden), dtype, role="input")
    z = TensorSpec("z", (batch, n_hidden), dtype)
    g.add(Operator("sample", "elementwise",
                   (g["z_mean"].outputs[0], g["z_log_sigma_sq"].outputs[0], eps), (z,),
                   4.0 * batch * n_hidden, {"fn": "reparameterize"}))
    g.add(linear("reconstruction", z, out_features=n_input))
    return g


def fathom_residual(batch: int = 16, *, dtype: str = "fp32", image_size: int = 224,
                    num_classes: int = 1001) -> WorkloadGraph:
    """Residual network (He et al. 2016) as written in ``fathom/residual/residual.py``.

    conv 7x7/2 (64, bias, ReLU), max pool 3x3/2 "same", 1x1 conv to 128, then four groups
    of 3 bottleneck blocks (1x1, 3x3, 1x1 convs with bias and ReLU; filters/bottleneck
    128/32, 256/64, 512/128, 1024/256) with identity adds, a bias-free 1x1 "upscale" conv
    between groups, global average pool and a bias-free linear layer to 1001 classes;
    batch 16. As in the reference code no block strides, so every block runs at 56x56 --
    this differs from He et al.'s ResNets, and is kept because Fathom measured this code.
    """
    g = _graph("residual", batch, dtype, "fathom/residual/residual.py")
    nb = NetBuilder(g, _rgb(batch, dtype, image_size))
    nb.conv("conv1", 64, 7, stride=2, padding="same", bias=True)
    nb.act("conv1.relu")
    nb.pool("pool1", 3, 2, padding="same")
    nb.conv("conv2", 128, 1, bias=True)
    blocks = [(128, 32), (256, 64), (512, 128), (1024, 256)]
    for bi, (filters, bottleneck) in enumerate(blocks):
        for r in range(3):
            p = f"block_{bi}/repeat_{r}/"
            net = nb.x
            nb.conv(p + "conv_in", bottleneck, 1, bias=True)
            nb.act(p + "conv_in.relu")
            nb.conv(p + "conv_bottleneck", bottleneck, 3, padding="same", bias=True)
            nb.act(p + "conv_bottleneck.relu")
            nb.conv(p + "conv_out", filters, 1, bias=True)
            y = nb.act(p + "conv_out.relu")
            nb.add(p + "add", y, net)
        if bi + 1 < len(blocks):
            nb.conv(f"block_{bi}/conv_upscale", blocks[bi + 1][0], 1, bias=False)
    nb.gap("avgpool")
    nb.flatten("flatten")
    nb.fc("logits", num_classes, bias=False)
    return g


def fathom_vgg(batch: int = 8, *, dtype: str = "fp32", num_classes: int = 1001) -> WorkloadGraph:
    """VGG (Simonyan & Zisserman 2015) as written in ``fathom/vgg/vgg.py``, batch 8.

    Configuration D except that block 3 has two convolutions, as in the reference code
    (conv3_1, conv3_2): 12 3x3 "same" convs with bias and ReLU, five 2x2/2 max pools, FC
    4096-4096-1001 with bias and ReLU on all three (the code uses ``relu_layer``).
    """
    g = _graph("vgg", batch, dtype, "fathom/vgg/vgg.py")
    nb = NetBuilder(g, _rgb(batch, dtype))
    plan = [(1, 2, 64), (2, 2, 128), (3, 2, 256), (4, 3, 512), (5, 3, 512)]
    for blk, n, c in plan:
        for j in range(1, n + 1):
            nb.conv(f"conv{blk}_{j}", c, 3, padding="same", bias=True)
            nb.act(f"conv{blk}_{j}.relu")
        nb.pool(f"pool{blk}", 2, 2)
    nb.flatten("flatten")
    for name, width in [("fc6", 4096), ("fc7", 4096), ("fc8", num_classes)]:
        nb.fc(name, width)
        nb.act(name + ".relu")
    return g


def fathom_alexnet(batch: int = 64, *, dtype: str = "fp32",
                   num_classes: int = 1001) -> WorkloadGraph:
    """AlexNet (Krizhevsky et al. 2012) as written in ``fathom/alexnet/alexnet.py``.

    conv 11x11/4 (64) "same", max pool 3x3/2 "valid", LRN (size 4), conv 5x5 (192), pool,
    LRN, convs 3x3 (384, 256, 256), pool, FC 9216-4096-4096-1001; all convs and FCs with
    bias, ReLU after every conv and the first two FCs; batch 64.
    """
    g = _graph("alexnet", batch, dtype, "fathom/alexnet/alexnet.py")
    nb = NetBuilder(g, _rgb(batch, dtype))
    nb.conv("conv1", 64, 11, stride=4, padding="same", bias=True)
    nb.act("conv1.relu")
    nb.pool("pool1", 3, 2)
    nb.lrn("norm1", 4)
    nb.conv("conv2", 192, 5, padding="same", bias=True)
    nb.act("conv2.relu")
    nb.pool("pool2", 3, 2)
    nb.lrn("norm2", 4)
    for i, c in [(3, 384), (4, 256), (5, 256)]:
        nb.conv(f"conv{i}", c, 3, padding="same", bias=True)
        nb.act(f"conv{i}.relu")
    nb.pool("pool5", 3, 2)
    nb.flatten("flatten")
    for name, width, relu in [("fc1", 4096, True), ("fc2", 4096, True),
                              ("logits", num_classes, False)]:
        nb.fc(name, width)
        if relu:
            nb.act(name + ".relu")
    return g


def fathom_deepq(batch: int = 32, *, dtype: str = "fp32", num_actions: int = 4) -> WorkloadGraph:
    """Deep Q-network (Mnih et al. 2013/2015) as written in ``fathom/deepq/deepq.py``.

    84x84x4 input; conv 8x8/4 (32), 4x4/2 (64), 3x3/1 (64), all "valid" with bias and
    ReLU; FC 3136-512 (ReLU) and 512-actions; batch 32 (the replay minibatch).
    Assumption: 4 actions, the ALE minimal action set of Breakout, the reference's
    default game (the code reads it from the emulator).
    """
    g = _graph("deepq", batch, dtype, "fathom/deepq/deepq.py", num_actions=num_actions)
    nb = NetBuilder(g, TensorSpec("frames", (batch, 4, 84, 84), dtype, role="input"))
    for i, (c, k, s) in enumerate([(32, 8, 4), (64, 4, 2), (64, 3, 1)], start=1):
        nb.conv(f"conv{i}", c, k, stride=s, padding="valid", bias=True)
        nb.act(f"conv{i}.relu")
    nb.flatten("flatten")
    nb.fc("fc4", 512)
    nb.act("fc4.relu")
    nb.fc("fc5", num_actions)
    return g


def _rgb(batch: int, dtype: str, size: int = 224) -> TensorSpec:
    return TensorSpec("images", (batch, 3, size, size), dtype, role="input")


#: The eight workloads by their Fathom names.
FATHOM_WORKLOADS: dict[str, Callable[..., WorkloadGraph]] = {
    "seq2seq": fathom_seq2seq, "memnet": fathom_memnet, "speech": fathom_speech,
    "autoenc": fathom_autoenc, "residual": fathom_residual, "vgg": fathom_vgg,
    "alexnet": fathom_alexnet, "deepq": fathom_deepq,
}


def fathom_workload(name: str, **params: object) -> WorkloadGraph:
    """Build a Fathom workload by name (``"seq2seq"`` or ``"fathom-seq2seq"``)."""
    key = name.lower().removeprefix("fathom-")
    try:
        builder = FATHOM_WORKLOADS[key]
    except KeyError:
        raise ConfigError(f"unknown Fathom workload '{name}'", field="workload",
                          allowed=sorted(FATHOM_WORKLOADS)) from None
    return builder(**params)

