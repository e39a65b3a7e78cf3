"""Fault-injection campaigns on a stack of dense layers, vectorized over injections.

An *injection* is one inference with one fault: an input sample, one element of the targeted
layer (a weight, or a neuron of the layer's output), and an XOR mask of one or more bits of
that element's stored pattern in a chosen number format (:mod:`.bits`). The targeted tensor
is stored in that format in the fault-free run too, so the *golden* top-1 class of each
sample is that of the quantized model; an injection is a mismatch (a silent data corruption,
SDC, for a classifier) when the faulty top-1 differs from the golden one, as PyTorchFI-style
campaigns count it. The faulty top-1 is taken as ``torch.argmax`` takes it: a NaN logit is
the largest (so a NaN output is a mismatch), an infinite one is compared as a number; outputs
with a NaN or infinite logit are also counted apart.

Activation faults go into the output of the layer's matrix product, before its
nonlinearity (PyTorchFI injects into a ``Linear`` module's output; ReLU is a module of its
own). A weight fault changes one product term: ``z[o] += x[i] * (w' - w)``, the only output
it touches for that sample. Every injection runs the rest of the network as one row of a
batch, so a campaign of ``n`` injections costs about ``n`` forward passes of the layers
after the fault, in numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...dsl.formats import Format
from ...errors import ConfigError
from ...hw.checks import check_int, check_positive
from .bits import EncodedTensor, encode_tensor, format_bits, random_masks
from .stats import Rate, binomial_rate

__all__ = ["POSTS", "TARGETS", "Dense", "DenseNet", "Sites", "Campaign", "random_sites",
           "all_sites", "run_campaign", "top2_margin"]

#: What a :class:`Dense` layer applies after ``z = x W^T + b``.
POSTS = ("identity", "relu", "l2norm")
#: What a campaign flips bits in.
TARGETS = ("activation", "weight")


@dataclass(frozen=True, kw_only=True, eq=False)
class Dense:
    """``y = scale * post(x @ weight.T + bias)``.

    Parameters
    ----------
    weight : numpy.ndarray
        ``(out, in)``.
    bias : numpy.ndarray, optional
        ``(out,)``.
    post : {"identity", "relu", "l2norm"}
        The nonlinearity (``l2norm`` divides each row by its Euclidean norm).
    scale : float
        A constant factor after ``post`` (a cosine classifier's logit scale).
    name : str
    """

    weight: np.ndarray
    bias: np.ndarray | None = None
    post: str = "identity"
    scale: float = 1.0
    name: str = ""

    def __post_init__(self) -> None:
        w = np.asarray(self.weight)
        if w.ndim != 2 or w.size == 0:
            raise ValueError(f"weight must be a non-empty 2-D array, not shape {w.shape}")
        if self.bias is not None and np.asarray(self.bias).shape != (w.shape[0],):
            raise ValueError(f"bias must have shape ({w.shape[0]},), not "
                             f"{np.asarray(self.bias).shape}")
        if self.post not in POSTS:
            raise ValueError(f"post must be one of {POSTS}, not {self.post!r}")
        if isinstance(self.scale, bool) or not isinstance(self.scale, int | float):
            raise TypeError(f"scale must be a number, not {self.scale!r}")

    @property
    def in_features(self) -> int:
        return int(self.weight.shape[1])

    @property
    def out_features(self) -> int:
        return int(self.weight.shape[0])

    def pre(self, x: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
        """``x @ weight.T + bias`` (the layer's own weight unless given)."""
        w = self.weight if weight is None else weight
        z = x @ np.asarray(w, x.dtype).T
        return z + np.asarray(self.bias, x.dtype) if self.bias is not None else z

    def activate(self, z: np.ndarray) -> np.ndarray:
        """``scale * post(z)``."""
        if self.post == "relu":
            y = np.maximum(z, 0)
        elif self.post == "l2norm":
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                y = z / np.linalg.norm(z, axis=-1, keepdims=True)
        else:
            y = z
        return y * z.dtype.type(self.scale) if self.scale != 1.0 else y


@dataclass(frozen=True, kw_only=True, eq=False)
class DenseNet:
    """A stack of :class:`Dense` layers; the last one's output are the logits."""

    layers: tuple[Dense, ...]

    def __post_init__(self) -> None:
        if not self.layers:
            raise ValueError("a DenseNet needs at least one layer")
        for a, b in zip(self.layers, self.layers[1:], strict=False):
            if a.out_features != b.in_features:
                raise ValueError(f"layer {b.name or '?'} takes {b.in_features} inputs but the "
                                 f"layer before gives {a.out_features}")

    @property
    def layer_names(self) -> list[str]:
        return [ly.name or f"layer{i}" for i, ly in enumerate(self.layers)]

    def forward(self, x: np.ndarray, *, start: int = 0) -> np.ndarray:
        """Run layers ``start ..`` on ``x`` (the input of layer ``start``)."""
        for ly in self.layers[start:]:
            x = ly.activate(ly.pre(x))
        return x

    def trace(self, x: np.ndarray) -> list[np.ndarray]:
        """The input of every layer, then the logits (``len(layers) + 1`` arrays)."""
        out = [x]
        for ly in self.layers:
            out.append(ly.activate(ly.pre(out[-1])))
        return out


@dataclass(frozen=True, kw_only=True, eq=False)
class Sites:
    """Where the faults of a campaign go, one entry per injection.

    Attributes
    ----------
    sample : numpy.ndarray
        ``(n,)`` int64 row of the evaluation batch.
    element : numpy.ndarray
        ``(n,)`` int64 flat index (C order) of the faulted element: into the layer's
        ``(out, in)`` weight, or into its ``(out,)`` output neurons.
    mask : numpy.ndarray
        ``(n,)`` uint64 XOR mask of the element's bit pattern.
    """

    sample: np.ndarray
    element: np.ndarray
    mask: np.ndarray

    def __post_init__(self) -> None:
        shapes = {np.shape(self.sample), np.shape(self.element), np.shape(self.mask)}
        if len(shapes) != 1 or np.ndim(self.sample) != 1:
            raise ValueError("sample, element and mask must be 1-D arrays of one length")

    def __len__(self) -> int:
        return int(np.shape(self.sample)[0])


def _target_size(net: DenseNet, layer: int, target: str) -> int:
    ly = net.layers[layer]
    return ly.weight.size if target == "weight" else ly.out_features


def _check_layer_target(net: DenseNet, layer: int, target: str) -> None:
    check_int("layer", layer, 0, len(net.layers) - 1)
    if target not in TARGETS:
        raise ConfigError(f"unknown fault target {target!r}", field="target",
                          allowed=list(TARGETS))


def random_sites(net: DenseNet, *, layer: int, target: str, fmt: Format, n_samples: int,
                 n_injections: int, flips_per_fault: int = 1, seed: int) -> Sites:
    """``n_injections`` uniformly random sites: sample, element and ``flips_per_fault``
    distinct bit positions, each uniform and independent (seeded)."""
    _check_layer_target(net, layer, target)
    check_positive("n_samples", n_samples)
    check_positive("n_injections", n_injections)
    check_int("seed", seed, 0, 2**63 - 1)
    rng = np.random.default_rng(seed)
    sample = rng.integers(0, n_samples, size=n_injections)
    element = rng.integers(0, _target_size(net, layer, target), size=n_injections)
    mask = random_masks(n=n_injections, bits=format_bits(fmt),
                        flips_per_fault=flips_per_fault, rng=rng)
    return Sites(sample=sample.astype(np.int64), element=element.astype(np.int64), mask=mask)


def all_sites(net: DenseNet, *, layer: int, target: str, fmt: Format, n_samples: int) -> Sites:
    """Every single-bit flip of every element for every sample (an exhaustive campaign)."""
    _check_layer_target(net, layer, target)
    check_positive("n_samples", n_samples)
    bits = format_bits(fmt)
    s, e, b = np.meshgrid(np.arange(n_samples), np.arange(_target_size(net, layer, target)),
                          np.arange(bits), indexing="ij")
    return Sites(sample=s.ravel().astype(np.int64), element=e.ravel().astype(np.int64),
                 mask=np.left_shift(np.uint64(1), b.ravel().astype(np.uint64)))


@dataclass(frozen=True, kw_only=True, eq=False)
class Campaign:
    """The outcome of one campaign.

    Attributes
    ----------
    layer, layer_name, target, format_name, bits
        What was faulted and in which format.
    sites : Sites
    mismatch : numpy.ndarray
        ``(n,)`` bool: faulty top-1 differs from golden (a NaN logit always does).
    nonfinite : numpy.ndarray
        ``(n,)`` bool: some logit is NaN or infinite.
    golden_margin : numpy.ndarray
        ``(n,)`` Top2Diff (:func:`top2_margin`) of the injection's sample in the golden run.
    faulty_value, golden_value : numpy.ndarray
        ``(n,)`` the faulted element before and after the flip.
    """

    layer: int
    layer_name: str
    target: str
    format_name: str
    bits: int
    sites: Sites
    mismatch: np.ndarray
    nonfinite: np.ndarray
    golden_margin: np.ndarray
    golden_value: np.ndarray
    faulty_value: np.ndarray
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.sites)

    def sdc(self, *, confidence: float = 0.95, method: str = "wilson") -> Rate:
        """The mismatch rate with its confidence interval."""
        return binomial_rate(int(self.mismatch.sum()), self.n, confidence=confidence,
                             method=method)

    def by_bit(self) -> list[dict[str, float | int]]:
        """Mismatch rate per flipped bit position (single-bit campaigns; bit 0 = LSB)."""
        if np.any(self.sites.mask & (self.sites.mask - np.uint64(1))):
            raise ValueError("by_bit needs single-bit masks")
        pos = np.log2(self.sites.mask.astype(np.float64)).astype(np.int64)
        rows: list[dict[str, float | int]] = []
        for b in range(self.bits):
            sel = pos == b
            k = int(self.mismatch[sel].sum())
            rows.append({"bit": b, "injections": int(sel.sum()), "mismatches": k,
                         "rate": k / int(sel.sum()) if sel.any() else float("nan")})
        return rows

    def by_margin(self, edges: Sequence[float]) -> list[dict[str, float | int]]:
        """Mismatch rate of injections whose sample's golden Top2Diff is in each bin
        ``[edges[j], edges[j+1])`` (the last bin closed)."""
        e = np.asarray(edges, np.float64)
        if e.ndim != 1 or e.size < 2 or np.any(np.diff(e) <= 0):
            raise ValueError("edges must be at least 2 increasing numbers")
        j = np.clip(np.searchsorted(e, self.golden_margin, side="right") - 1, 0, e.size - 2)
        rows: list[dict[str, float | int]] = []
        for b in range(e.size - 1):
            sel = j == b
            k = int(self.mismatch[sel].sum())
            rows.append({"lo": float(e[b]), "hi": float(e[b + 1]), "injections": int(sel.sum()),
                         "mismatches": k,
                         "rate": k / int(sel.sum()) if sel.any() else float("nan")})
        return rows


def top2_margin(logits: np.ndarray) -> np.ndarray:
    """Top2Diff: top-1 minus top-2 softmax probability of each row (float64)."""
    z = np.asarray(logits, np.float64)
    if z.ndim != 2 or z.shape[1] < 2:
        raise ValueError(f"logits must be (batch, classes >= 2), not shape {z.shape}")
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    top = np.sort(p, axis=1)[:, -2:]
    return top[:, 1] - top[:, 0]


def _golden(net: DenseNet, x: np.ndarray, layer: int, target: str, fmt: Format,
            ) -> tuple[np.ndarray, np.ndarray, EncodedTensor]:
    """The input of ``layer``, its pre-activation output and the encoded target, all with the
    target stored in ``fmt``."""
    h = x
    for ly in net.layers[:layer]:
        h = ly.activate(ly.pre(h))
    ly = net.layers[layer]
    if target == "weight":
        enc = encode_tensor(ly.weight, fmt=fmt)
        z = ly.pre(h, enc.values.reshape(ly.weight.shape))
    else:
        enc = encode_tensor(ly.pre(h), fmt=fmt)
        z = enc.values.reshape(h.shape[0], ly.out_features).astype(h.dtype)
    return h, z, enc


def run_campaign(net: DenseNet, x: np.ndarray, *, layer: int, target: str, fmt: Format,
                 sites: Sites, chunk: int = 4096) -> Campaign:
    """Inject every fault of ``sites`` into ``layer`` of ``net`` run on batch ``x``.

    Parameters
    ----------
    net : DenseNet
    x : numpy.ndarray
        ``(n_samples, in_features)`` evaluation inputs; their dtype is the compute dtype
        (float32 as in an FP32 network, or float64).
    layer : int
        Index of the faulted layer.
    target : {"activation", "weight"}
        Flip bits of the layer's output neurons or of its weights.
    fmt : Format
        Number format the targeted tensor is stored in (golden and faulty run alike).
    sites : Sites
        From :func:`random_sites` or :func:`all_sites`.
    chunk : int
        Injections per numpy batch (bounds memory).

    Returns
    -------
    Campaign
    """
    _check_layer_target(net, layer, target)
    check_positive("chunk", chunk)
    xs = np.asarray(x)
    if xs.ndim != 2 or xs.shape[1] != net.layers[0].in_features:
        raise ValueError(f"x must be (n_samples, {net.layers[0].in_features}), not {xs.shape}")
    if xs.dtype not in (np.float32, np.float64):
        raise TypeError(f"x must be float32 or float64, not {xs.dtype}")
    if len(sites) and (sites.sample.max() >= xs.shape[0] or sites.sample.min() < 0):
        raise ValueError(f"site samples must be in 0..{xs.shape[0] - 1}")
    ly = net.layers[layer]
    h, z, enc = _golden(net, xs, layer, target, fmt)
    golden_logits = net.forward(ly.activate(z), start=layer + 1)
    golden_top = np.argmax(golden_logits, axis=1)
    margin_all = top2_margin(golden_logits)
    n = len(sites)
    # Activations are encoded as the whole (n_samples, out) tensor (one INT scale per tensor,
    # as a calibrated activation quantizer has), so an element is found in its sample's row.
    flat = sites.element if target == "weight" else sites.sample * ly.out_features + sites.element
    golden_val = enc.values[flat]
    faulty_val = enc.flipped(flat, sites.mask)
    mismatch = np.empty(n, bool)
    nonfinite = np.empty(n, bool)
    dt = xs.dtype.type
    for a in range(0, n, chunk):
        sl = slice(a, min(a + chunk, n))
        s, e = sites.sample[sl], sites.element[sl]
        rows = z[s].copy()
        r = np.arange(rows.shape[0])
        with np.errstate(over="ignore", invalid="ignore"):
            if target == "weight":
                o, i = np.divmod(e, ly.in_features)
                # Only output o of this sample changes: one product term, x[i] (w' - w).
                rows[r, o] = rows[r, o] + h[s, i] * (faulty_val[sl].astype(dt)
                                                     - golden_val[sl].astype(dt))
            else:
                rows[r, e] = faulty_val[sl].astype(dt)
            logits = net.forward(ly.activate(rows), start=layer + 1)
        nonfinite[sl] = ~np.isfinite(logits).all(axis=1)
        mismatch[sl] = np.isnan(logits).any(axis=1) | (np.argmax(logits, axis=1)
                                                       != golden_top[s])
    return Campaign(layer=layer, layer_name=net.layer_names[layer], target=target,
                    format_name=fmt.name, bits=enc.bits, sites=sites, mismatch=mismatch,
                    nonfinite=nonfinite, golden_margin=margin_all[sites.sample],
                    golden_value=golden_val, faulty_value=faulty_val)
