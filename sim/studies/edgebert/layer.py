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
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import erf

from ....dsl.accel import Accelerator, Program
from ....dsl.examples.edgebert import (
    MINILM_SHAPE,
    LayerBiases,
    LayerLayout,
    LayerShape,
    encoder_layer_program,
    weight_chunks,
)
from ....hw.accel.adpfloat_codec import adpfloat_choose_bias, adpfloat_from_float
from ....hw.accel.bitmask import bitmask_encode
from ...nn.minilm import MiniLM
from ...nn.sentences import PolaritySentences

__all__ = ["LayerImages", "layer_images", "reference_layer", "read_layer_output",
           "layer_weights", "LayerInput", "sentence_layer_input"]

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


def layer_images(acc: Accelerator, params: Mapping[str, np.ndarray], x: np.ndarray, *,
                 shape: LayerShape = MINILM_SHAPE) -> LayerImages:
    """The buffers, program and reference of one layer on ``acc`` (module docstring);
    ``x`` is the ``(seq, d)`` float input of the layer."""
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
    packed_parts, mask_parts, weight_rows = [], [], {}
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
    program, layout = encoder_layer_program(acc, biases, shape=shape, weight_rows=weight_rows)
    buffers = {name: np.zeros(spec.words, np.int64) for name, spec in acc.buffers.items()}
    packed_all, masks_all = np.concatenate(packed_parts), np.concatenate(mask_parts)
    if packed_all.size > buffers["envm"].size or masks_all.size > buffers["envm_mask"].size:
        raise ValueError(f"the layer's weights ({packed_all.size} packed codes, "
                         f"{masks_all.size} masks) do not fit the eNVM")
    buffers["envm"][:packed_all.size] = packed_all
    buffers["envm_mask"][:masks_all.size] = masks_all
    buffers["input"][layout.addr("x"):layout.addr("x") + x.size] = \
        adpfloat_from_float(x, bias=biases.x).ravel()
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
                              np.asarray(states[layer + 1][0], np.float64))
    raise ValueError(f"no {split} sentence tokenizes to exactly {tokens} tokens")
