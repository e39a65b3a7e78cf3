"""The host side of one encoder layer on EdgeBERT's accelerator: a real layer's weights and a
real sentence's hidden states quantized into the buffers, and the result read back.

:func:`layer_images` takes one layer of a BERT-family encoder (Hugging Face parameter names,
``encoder.layer.<i>.``) and the float hidden states entering it, and returns the buffers'
initial words for :func:`archsim.dsl.examples.edgebert.encoder_layer_program`: weights as
AdaptivFloat(8, 3) codes bitmask-encoded into the eNVM, biases and LayerNorm's gamma/beta as
Q6.10, the input as codes. Each coded tensor's 3-bit exponent bias is chosen from its own
float values (the largest magnitude in the top exponent, :func:`adpfloat_choose_bias`): for
the weights from the weights, for the activations from a float64 run of the same layer on the
same input (:func:`reference_layer`), which is how AdaptivFloat's per-tensor bias is set
offline. ``1 / sqrt(head_dim)`` is folded into the query weights and bias.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import erf

from ....dsl.accel import Accelerator, Program
from ....dsl.examples.edgebert import (
    MINILM_SHAPE,
    OFFRAMP_PLACES,
    LayerBiases,
    LayerLayout,
    LayerShape,
    embedding_program,
    encoder_layer_program,
    gemm_tile_program,
    layer_layout,
    offramp_program,
    weight_chunks,
)
from ....hw.accel.adpfloat_codec import adpfloat_choose_bias, adpfloat_from_float
from ....hw.accel.bitmask import bitmask_encode
from ...nn.minilm import MiniLM
from ...nn.sentences import PolaritySentences

__all__ = ["LayerImages", "layer_images", "reference_layer", "read_layer_output",
           "layer_weights", "LayerInput", "sentence_layer_input", "DVFSImages",
           "offramp_dvfs_images", "EmbeddingStage"]

_WEIGHTS = {"wq": "attention.self.query", "wk": "attention.self.key",
            "wv": "attention.self.value", "wo": "attention.output.dense",
            "w1": "intermediate.dense", "w2": "output.dense"}
_LN = {"1": "attention.output.LayerNorm", "2": "output.LayerNorm"}


def layer_weights(weights: Mapping[str, np.ndarray], layer: int) -> dict[str, np.ndarray]:
    """One layer's parameters as float64: ``wq`` ... ``w2`` (``(out, in)``), their biases
    ``bq`` ... ``b2``, and ``g1``, ``be1``, ``g2``, ``be2`` (the two LayerNorms)."""
    pre = f"encoder.layer.{layer}."
    out: dict[str, np.ndarray] = {}
    for key, name in _WEIGHTS.items():
        out[key] = np.asarray(weights[pre + name + ".weight"], np.float64)
        out["b" + key[1:]] = np.asarray(weights[pre + name + ".bias"], np.float64)
    for i, name in _LN.items():
        out["g" + i] = np.asarray(weights[pre + name + ".weight"], np.float64)
        out["be" + i] = np.asarray(weights[pre + name + ".bias"], np.float64)
    return out


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * g + b


def reference_layer(params: Mapping[str, np.ndarray], x: np.ndarray, *, heads: int = 12,
                    eps: float = 1e-12) -> dict[str, np.ndarray]:
    """The layer in float64 (BERT's post-LayerNorm layer, exact GELU), returning its
    intermediates (``q`` already divided by ``sqrt(head_dim)``, as the chip holds it; ``k``,
    ``v``, ``p``, ``ctx``, ``x1``, ``h``) and ``out``."""
    s, d = x.shape
    dh = d // heads
    q = x @ params["wq"].T + params["bq"]
    k = x @ params["wk"].T + params["bk"]
    v = x @ params["wv"].T + params["bv"]
    qh, kh, vh = (t.reshape(s, heads, dh).transpose(1, 0, 2) for t in (q, k, v))
    scores = qh @ kh.transpose(0, 2, 1) / math.sqrt(dh)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    ctx = (p @ vh).transpose(1, 0, 2).reshape(s, d)
    x1 = _layer_norm(ctx @ params["wo"].T + params["bo"] + x, params["g1"], params["be1"], eps)
    pre = x1 @ params["w1"].T + params["b1"]
    h = 0.5 * pre * (1.0 + erf(pre / math.sqrt(2.0)))
    out = _layer_norm(h @ params["w2"].T + params["b2"] + x1, params["g2"], params["be2"], eps)
    return {"q": q / math.sqrt(dh), "k": k, "v": v, "p": p, "ctx": ctx, "x1": x1, "h": h,
            "out": out}


@dataclass(frozen=True)
class LayerImages:
    """A layer ready to run: the program, its layout, the buffers' initial words, the
    biases chosen, and the float64 reference's intermediates and output."""

    program: Program
    layout: LayerLayout
    buffers: dict[str, np.ndarray]
    biases: LayerBiases
    reference: dict[str, np.ndarray]


def _q610(values: np.ndarray) -> np.ndarray:
    """Floats -> Q6.10 raw 16-bit words (round half away from zero, saturated)."""
    q = np.clip(np.sign(values) * np.floor(np.abs(values) * 1024 + 0.5), -32768, 32767)
    return q.astype(np.int64) & 0xFFFF


@dataclass(frozen=True)
class EmbeddingStage:
    """BERT's embedding stage for :func:`layer_images`: the word-embedding ``table``
    ``(vocab, d)``, the sentence's ``token_ids``, the position + token-type rows
    ``positions`` ``(seq, d)`` and the embedding LayerNorm's ``gamma`` and ``beta``."""

    table: np.ndarray
    token_ids: tuple[int, ...]
    positions: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    eps: float = 1e-12

    @classmethod
    def of_model(cls, weights: Mapping[str, np.ndarray], token_ids: Sequence[int]
                 ) -> EmbeddingStage:
        """The stage of a BERT-family model's weights (Hugging Face names), token type 0."""
        ids = tuple(int(t) for t in token_ids)
        pos = np.asarray(weights["embeddings.position_embeddings.weight"], np.float64)
        typ = np.asarray(weights["embeddings.token_type_embeddings.weight"], np.float64)
        return cls(np.asarray(weights["embeddings.word_embeddings.weight"], np.float64), ids,
                   pos[:len(ids)] + typ[0],
                   np.asarray(weights["embeddings.LayerNorm.weight"], np.float64),
                   np.asarray(weights["embeddings.LayerNorm.bias"], np.float64))

    def reference(self) -> np.ndarray:
        """The layer's input in float64."""
        h = self.table[list(self.token_ids)] + self.positions
        return _layer_norm(h, self.gamma, self.beta, self.eps)


def layer_images(acc: Accelerator, params: Mapping[str, np.ndarray], x: np.ndarray, *,
                 shape: LayerShape = MINILM_SHAPE, embedding: EmbeddingStage | None = None,
                 compact_table: bool = False) -> LayerImages:
    """The buffers, program and reference of one layer on ``acc`` (module docstring);
    ``x`` is the ``(seq, d)`` float input of the layer.

    With ``embedding``, the program starts with the embedding stage
    (:func:`~archsim.dsl.examples.edgebert.embedding_program`): the word-embedding table's
    codes sit in the eNVM after the layer's weights and ``x`` is computed on chip (``x``
    then only sets its exponent bias and the reference). Only the rows the sentence uses are
    written into the eNVM image: the host bus loads the nonzero words of an image, and the
    program reads no other row (the whole table's 11.7M codes would take minutes to load
    into the simulation). ``compact_table=True`` stores just those rows, one after another
    (the token ids renumbered): for an eNVM too small for the whole table, such as the RTL
    tests' (a 2**24-word memory makes Verilog generation take many minutes).
    """
    if x.shape != (shape.seq, shape.d):
        raise ValueError(f"x must have shape {(shape.seq, shape.d)}, not {x.shape}")
    dh = shape.head_dim
    p = {k: np.asarray(v, np.float64) for k, v in params.items()}
    p["wq"] = p["wq"] / math.sqrt(dh)
    p["bq"] = p["bq"] / math.sqrt(dh)
    ref = reference_layer(params, x, heads=shape.heads)
    choose = {name: adpfloat_choose_bias(ref[name]) for name in ("q", "k", "v", "p", "ctx",
                                                                    "x1", "h")}
    biases = LayerBiases(x=adpfloat_choose_bias(x), **{w: adpfloat_choose_bias(p[w])
                                                          for w in _WEIGHTS}, **choose)
    # Weights: codes, cut into the program's chunks of output rows, bitmask-encoded.
    packed_parts, mask_parts = [], []
    weight_rows: dict[str, list[int]] = {}
    for w in _WEIGHTS:
        codes = adpfloat_from_float(p[w], bias=getattr(biases, w))
        _, rows = weight_chunks(shape, w)
        weight_rows[w] = []
        for n0 in range(0, codes.shape[0], rows):
            dense = codes[n0:n0 + rows].reshape(-1, 16)
            masks, packed = bitmask_encode(dense)
            mask_parts.append(masks)
            packed_parts.append(packed)
            weight_rows[w].append(packed.size // 16)
    layout = layer_layout(shape, weight_rows)
    program = acc.program()
    buffers = {name: np.zeros(spec.words, np.int64) for name, spec in acc.buffers.items()}
    if embedding is not None:
        emb_bias = adpfloat_choose_bias(embedding.table)
        table_at = layout.addr("envm_end")
        mask_at = layout.places["envm_mask_end"][1]
        used = sorted(set(embedding.token_ids))
        slot = {tok: (i if compact_table else tok) for i, tok in enumerate(used)}
        for tok in used:
            row = adpfloat_from_float(embedding.table[tok], bias=emb_bias)
            _place_dense_chunks(buffers, row[None, :], 1, table_at + slot[tok] * shape.d,
                                mask_at + slot[tok] * shape.d // 16)
        for name, values in (("emb_pos", embedding.positions), ("ge", embedding.gamma),
                             ("bee", embedding.beta)):
            at = layout.addr(name)
            buffers["gb"][at:at + values.size] = _q610(values).ravel()
        embedding_program(acc, layout, [slot[t] for t in embedding.token_ids],
                          table_addr=table_at,
                          table_mask_addr=mask_at, embedding_bias=emb_bias, x_bias=biases.x,
                          program=program)
    else:
        buffers["input"][layout.addr("x"):layout.addr("x") + x.size] = \
            adpfloat_from_float(x, bias=biases.x).ravel()
    encoder_layer_program(acc, biases, shape=shape, weight_rows=weight_rows, program=program)
    packed_all, masks_all = np.concatenate(packed_parts), np.concatenate(mask_parts)
    if packed_all.size > buffers["envm"].size or masks_all.size > buffers["envm_mask"].size:
        raise ValueError(f"the layer's weights ({packed_all.size} packed codes, "
                         f"{masks_all.size} masks) do not fit the eNVM")
    buffers["envm"][:packed_all.size] = packed_all
    buffers["envm_mask"][:masks_all.size] = masks_all
    for name in ("bq", "bk", "bv", "bo", "b1", "b2", "g1", "be1", "g2", "be2"):
        at = layout.addr(name)
        buffers["gb"][at:at + p[name].size] = _q610(p[name])
    return LayerImages(program, layout, buffers, biases, ref)


def read_layer_output(images: LayerImages, buffers: Mapping[str, np.ndarray]) -> np.ndarray:
    """The layer's ``(seq, d)`` output from the final buffer words (Q6.10 in ``gb``)."""
    shape = images.layout.shape
    at = images.layout.addr("out")
    raw = np.asarray(buffers["gb"][at:at + shape.seq * shape.d], np.int64)
    signed = np.where(raw >= 1 << 15, raw - (1 << 16), raw)
    return (signed / 1024.0).reshape(shape.seq, shape.d)


@dataclass(frozen=True)
class LayerInput:
    """A real sentence's float states around encoder layer ``layer``: ``x`` entering it and
    ``y`` leaving it (the numpy MiniLM's own), each ``(tokens, hidden)``."""

    text: str
    label: int
    layer: int
    x: np.ndarray
    y: np.ndarray
    token_ids: tuple[int, ...] = ()


def sentence_layer_input(model: MiniLM, sentences: PolaritySentences, *, tokens: int = 16,
                         layer: int = 0, split: str = "test") -> LayerInput:
    """The first sentence of ``split`` that tokenizes to exactly ``tokens`` tokens ([CLS] and
    [SEP] included, so no padding and no attention mask are needed), with its states."""
    for i in sentences.indices(split):
        text, label = sentences.texts[i], int(sentences.labels[i])
        ids, mask = model.tokenize([text])
        if ids.shape[1] == tokens:
            states = model.hidden_states_per_layer(ids, mask)
            return LayerInput(text, label, layer, np.asarray(states[layer][0], np.float64),
                              np.asarray(states[layer + 1][0], np.float64),
                              tuple(int(t) for t in ids[0]))
    raise ValueError(f"no {split} sentence tokenizes to exactly {tokens} tokens")


@dataclass(frozen=True)
class DVFSImages:
    """EdgeBERT's per-sentence DVFS on the accelerator: the program (an off-ramp on the
    pooled state, its entropy, the DVFS unit, the switch its result selects, then a GEMM tile
    at the new point), the buffers, and the float64 off-ramp logits and entropy."""

    program: Program
    buffers: dict[str, np.ndarray]
    logits: np.ndarray
    entropy_nats: float


def _place_dense_chunks(buffers: dict[str, np.ndarray], codes: np.ndarray, rows: int,
                        packed_at: int, mask_at: int) -> tuple[int, int]:
    """Bitmask-encode ``codes`` (``(N, K)``) in chunks of ``rows`` output rows, each chunk at
    the place a dense chunk would take (the off-ramp program's fixed addresses); return the
    addresses after the last chunk."""
    for n0 in range(0, codes.shape[0], rows):
        masks, packed = bitmask_encode(codes[n0:n0 + rows].reshape(-1, 16))
        buffers["envm"][packed_at:packed_at + packed.size] = packed
        buffers["envm_mask"][mask_at:mask_at + masks.size] = masks
        packed_at += masks.size * 16
        mask_at += masks.size
    return packed_at, mask_at


def offramp_dvfs_images(acc: Accelerator, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                        b2: np.ndarray, pooled: np.ndarray, *, table: tuple[int, ...],
                        enpy_scale: int = 1) -> DVFSImages:
    """The off-ramp ``logits = tanh(pooled @ w1 + b1) @ w2 + b2`` (``w1`` ``(d, d)``, ``w2``
    ``(d, classes)``, as :class:`~archsim.sim.studies.edgebert.early_exit.OffRamp` holds
    them) on ``acc``, then the DVFS unit with the 16-entry ``table`` (operating-point indices
    of ``core``) and the switch it selects, then a 16 x 64 x 64 GEMM tile at that point."""
    d = pooled.shape[0]
    classes = w2.shape[1]
    pre = pooled @ w1 + b1
    t = np.tanh(pre)
    logits = t @ w2 + b2
    z = logits - logits.max()
    prob = np.exp(z) / np.exp(z).sum()
    h = float(-(prob * np.log(prob)).sum())
    bias = {"pooled": adpfloat_choose_bias(pooled), "wp": adpfloat_choose_bias(w1),
            "t": adpfloat_choose_bias(t), "wc": adpfloat_choose_bias(w2)}
    buffers = {name: np.zeros(spec.words, np.int64) for name, spec in acc.buffers.items()}
    rows = 24576 // d // 16 * 16
    wp = adpfloat_from_float(w1.T, bias=bias["wp"])
    wc = np.zeros((16, d), np.int64)
    wc[:classes] = adpfloat_from_float(w2.T, bias=bias["wc"])
    packed_at, mask_at = _place_dense_chunks(buffers, wp, rows, 0, 0)
    _place_dense_chunks(buffers, wc, 16, packed_at, mask_at)
    at = {k: v[1] for k, v in OFFRAMP_PLACES.items()}
    buffers["input"][at["pooled"]:at["pooled"] + d] = adpfloat_from_float(
        pooled, bias=bias["pooled"])
    buffers["gb"][at["bp"]:at["bp"] + d] = _q610(b1)
    buffers["gb"][at["bc"]:at["bc"] + classes] = _q610(b2)
    buffers["dvfs_mem"][:len(table)] = np.asarray(table, np.int64)
    program = offramp_program(acc, d=d, pooled_bias=bias["pooled"],
                              pool_weight_bias=bias["wp"], tanh_bias=bias["t"],
                              classifier_bias=bias["wc"])
    program.run("dvfs", entropy_addr=at["entropy"], table_addr=0, enpy_scale=enpy_scale)
    program.set_operating_point("core", from_unit="dvfs")
    program.steps.extend(gemm_tile_program(acc, m=16, k=64, n=64).steps)
    return DVFSImages(program, buffers, logits, h)
