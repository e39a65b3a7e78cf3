"""Weightless (Reagen et al., ICML 2018): pruning, clustering and lossy Bloomier encoding.

The pipeline works layer by layer (the paper's Algorithm 1 / Fig. 3): magnitude-prune the
layer and retrain, cluster its surviving weights with k-means, encode the cluster index of
every non-zero weight in a :class:`~.bloomier.BloomierFilter` keyed by the weight's flat
position, decode the whole matrix back from the filter (false positives put random centroid
values where pruned zeros were), freeze the layer and retrain the later layers to absorb
those errors. The same schedule without the filter step is the Deep-Compression-style
baseline (pruning + clustering alone), whose size is a sparse relative-index format
(:func:`csr_bits`) and optionally Huffman-coded (:func:`huffman_bits`).
"""

from __future__ import annotations

import heapq
import math
import warnings
from dataclasses import dataclass

import numpy as np

from ...errors import ConfigError
from ..nn.digits import ImageSet
from ..nn.lenet import LeNet, lenet_accuracy, train_lenet
from .bloomier import ABSENT, BloomierFilter

__all__ = ["WEIGHT_BITS", "CODEBOOK_ENTRY_BITS", "prune_mask", "cluster_weights",
           "relative_index_stream", "csr_bits", "huffman_bits", "DeepCompressionSize",
           "deep_compression_bits",
           "LayerPlan", "EncodedLayer", "encode_layer", "StageReport", "compress_model"]

#: Bits of a dense weight (float32).
WEIGHT_BITS = 32
#: Bits of one codebook (centroid) entry, stored as float32.
CODEBOOK_ENTRY_BITS = 32


def prune_mask(weight: np.ndarray, *, sparsity: float) -> np.ndarray:
    """Magnitude pruning: ``True`` at the ``round((1 - sparsity) * size)`` largest ``|w|``.

    Ties at the threshold are broken by position (``argsort`` is stable), so exactly that
    many weights survive.
    """
    if not isinstance(sparsity, int | float) or isinstance(sparsity, bool) \
            or not 0 <= sparsity < 1:
        raise ConfigError(f"sparsity must be in [0, 1), not {sparsity!r}", field="sparsity")
    flat = np.abs(weight).ravel()
    keep = round((1 - sparsity) * flat.size)
    mask = np.zeros(flat.size, bool)
    mask[np.argsort(-flat, kind="stable")[:keep]] = True
    return mask.reshape(weight.shape)


def cluster_weights(values: np.ndarray, *, clusters: int, iters: int = 30,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """k-means of 1-D weights: ``(centroids, labels)``, centroids sorted ascending.

    scipy's ``kmeans2`` (Lloyd's algorithm) runs from a *linear* initialization (Han et al.,
    Deep Compression, found it best: it keeps the rare large weights represented), spread
    separately over the negative and the positive weights because pruning empties the
    interval around zero. Clusters that end empty are dropped, so fewer than ``clusters``
    centroids may come back.
    """
    from scipy.cluster.vq import kmeans2, vq

    if isinstance(clusters, bool) or not isinstance(clusters, int) or clusters < 1:
        raise ConfigError(f"clusters must be an int >= 1, not {clusters!r}", field="clusters")
    x = np.asarray(values, np.float64).ravel()
    if x.size == 0:
        raise ConfigError("cannot cluster an empty set of weights", field="values")
    neg, pos = x[x < 0], x[x >= 0]
    k_neg = 0 if neg.size == 0 else (clusters if pos.size == 0 else
                                     max(1, round(clusters * neg.size / x.size)))
    k_neg = min(k_neg, clusters - (pos.size > 0))
    init = np.concatenate([np.linspace(neg.min(), neg.max(), k_neg) if k_neg else [],
                           np.linspace(pos.min(), pos.max(), clusters - k_neg)
                           if clusters - k_neg else []])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an emptied cluster keeps its centroid; dropped below
        centroids, _ = kmeans2(x, init, iter=iters, minit="matrix", missing="warn",
                               seed=seed)
    labels, _ = vq(x[:, None], centroids[:, None])
    used = np.unique(labels)
    centroids = centroids[used]
    order = np.argsort(centroids)
    remap = np.empty(used.size, np.int64)
    remap[order] = np.arange(used.size)
    lookup = np.zeros(clusters, np.int64)
    lookup[used] = remap
    return centroids[order].astype(np.float32), lookup[labels]


def relative_index_stream(positions: np.ndarray, *, index_bits: int) -> np.ndarray:
    """Deep Compression's relative indices of sorted flat ``positions``: the gap to the
    previous entry (the first from -1), with a filler zero entry inserted wherever a gap
    exceeds ``2**index_bits`` (each filler spends a gap of ``2**index_bits``).

    Returns the gaps actually stored (each ``1 .. 2**index_bits``, stored as ``gap - 1``),
    fillers included; ``len`` of it is the number of stored entries.
    """
    if isinstance(index_bits, bool) or not isinstance(index_bits, int) \
            or not 1 <= index_bits <= 32:
        raise ConfigError(f"index_bits must be an int in 1..32, not {index_bits!r}",
                          field="index_bits")
    gaps = np.diff(np.concatenate([[-1], np.sort(np.asarray(positions, np.int64))]))
    span = 2**index_bits
    fillers = (gaps - 1) // span
    out = np.full(int(fillers.sum() + gaps.size), span, np.int64)
    ends = np.cumsum(fillers + 1) - 1
    out[ends] = gaps - fillers * span
    return out


def csr_bits(positions: np.ndarray, *, value_bits: int, index_bits: int,
             codebook_entries: int) -> int:
    """Bits of the sparse format: ``(index_bits + value_bits)`` per stored entry (fillers
    included) plus a float32 codebook."""
    entries = relative_index_stream(positions, index_bits=index_bits).size
    return entries * (index_bits + value_bits) + codebook_entries * CODEBOOK_ENTRY_BITS


def huffman_bits(symbols: np.ndarray) -> int:
    """Bits of ``symbols`` under their own Huffman code (code table not counted).

    Hand-written (a heap merge of counts) because neither numpy nor scipy ships a Huffman
    coder; the code length of a symbol is the number of merges it takes part in.
    """
    _, counts = np.unique(np.asarray(symbols).ravel(), return_counts=True)
    if counts.size <= 1:
        return int(counts.sum())  # one symbol: one bit each
    heap: list[tuple[int, int, list[int]]] = [(int(c), i, [i]) for i, c in enumerate(counts)]
    heapq.heapify(heap)
    depth = np.zeros(counts.size, np.int64)
    tie = counts.size
    while len(heap) > 1:
        c1, _, s1 = heapq.heappop(heap)
        c2, _, s2 = heapq.heappop(heap)
        depth[s1 + s2] += 1
        heapq.heappush(heap, (c1 + c2, tie, s1 + s2))
        tie += 1
    return int((depth * counts).sum())


@dataclass(frozen=True)
class DeepCompressionSize:
    """The baseline's size of one layer: plain relative-index CSR and with Huffman coding."""

    csr_bits: int
    huffman_bits: int
    index_bits: int

    @property
    def best_bits(self) -> int:
        return min(self.csr_bits, self.huffman_bits)


def deep_compression_bits(positions: np.ndarray, labels: np.ndarray, *,
                          codebook_entries: int) -> DeepCompressionSize:
    """The Deep-Compression-style size of a pruned, clustered layer, at its best index width.

    ``positions`` (flat, sorted) and ``labels`` (cluster index of each) of the non-zero
    weights. The relative-index width is the one in 1..16 that minimizes the plain CSR size
    (Deep Compression fixes 5 bits for fc and 8 for conv; the minimum is never larger).
    Huffman coding (Deep Compression's third stage) codes the stored gaps and the cluster
    indices (fillers as an extra index symbol) with one code each; code tables not counted.
    """
    order = np.argsort(positions, kind="stable")
    pos, lab = np.asarray(positions)[order], np.asarray(labels)[order]
    value_bits = max(1, math.ceil(math.log2(max(codebook_entries, 2))))
    best = min(range(1, 17), key=lambda b: csr_bits(pos, value_bits=value_bits, index_bits=b,
                                                    codebook_entries=codebook_entries))
    plain = csr_bits(pos, value_bits=value_bits, index_bits=best,
                     codebook_entries=codebook_entries)
    stream = relative_index_stream(pos, index_bits=best)
    # Cluster symbols of the stored entries: fillers get the extra symbol -1.
    sym = np.full(stream.size, -1, np.int64)
    gaps = np.diff(np.concatenate([[-1], pos]))
    fillers = (gaps - 1) // 2**best
    sym[np.cumsum(fillers + 1) - 1] = lab
    coded = huffman_bits(stream) + huffman_bits(sym) + codebook_entries * CODEBOOK_ENTRY_BITS
    return DeepCompressionSize(csr_bits=plain, huffman_bits=coded, index_bits=best)


@dataclass(frozen=True, kw_only=True)
class LayerPlan:
    """How one layer is simplified and encoded.

    Attributes
    ----------
    name : str
        The layer (``fc0`` ...).
    sparsity : float
        Share of weights pruned, in [0, 1).
    clusters : int
        k-means clusters of the surviving weights (>= 1).
    cell_bits : tuple of int
        Bloomier cell widths ``t`` to try, ascending; the smallest whose validation accuracy
        after retraining is within ``tolerance`` of the unencoded layer's is kept. Empty:
        the layer is pruned and clustered but not Bloomier-encoded.
    """

    name: str
    sparsity: float
    clusters: int
    cell_bits: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        prune_mask(np.zeros(1), sparsity=self.sparsity)  # validates sparsity
        if isinstance(self.clusters, bool) or not isinstance(self.clusters, int) \
                or self.clusters < 1:
            raise ConfigError(f"clusters must be an int >= 1, not {self.clusters!r}",
                              field="clusters")
        if list(self.cell_bits) != sorted(set(self.cell_bits)):
            raise ConfigError(f"cell_bits must be distinct and ascending, not "
                              f"{self.cell_bits!r}", field="cell_bits")


@dataclass(frozen=True)
class EncodedLayer:
    """A layer's weights through the Bloomier filter, with what it cost."""

    weight: np.ndarray
    filter: BloomierFilter
    false_positives: int
    pruned: int

    @property
    def false_positive_rate(self) -> float:
        """Measured: pruned positions that decoded to a centroid, over pruned positions."""
        return self.false_positives / self.pruned if self.pruned else 0.0


def encode_layer(weight: np.ndarray, mask: np.ndarray, labels: np.ndarray,
                 centroids: np.ndarray, *, cell_bits: int, seed: int = 0) -> EncodedLayer:
    """Encode the cluster ``labels`` of the weights at ``mask`` and decode the whole matrix.

    Keys are the flat (row-major) positions of the non-zero weights; a position that decodes
    to a valid index gets that centroid (exact for inserted keys; a false positive for a
    pruned one), any other position is zero.
    """
    positions = np.flatnonzero(mask)
    if labels.shape != positions.shape:
        raise ConfigError(f"{positions.size} non-zero weights but {labels.size} labels",
                          field="labels")
    filt = BloomierFilter.build(positions, labels, cell_bits=cell_bits,
                                num_values=int(centroids.size), seed=seed)
    decoded = filt.query(np.arange(weight.size))
    flat = np.where(decoded != ABSENT, centroids[np.maximum(decoded, 0)], 0).astype(
        np.float32)
    fp = int(((decoded != ABSENT) & ~mask.ravel()).sum())
    return EncodedLayer(weight=flat.reshape(weight.shape), filter=filt, false_positives=fp,
                        pruned=int(mask.size - positions.size))


@dataclass(frozen=True, kw_only=True)
class StageReport:
    """One layer's outcome in :func:`compress_model`.

    Sizes are in bits; ``weightless_bits`` is ``None`` for a layer not Bloomier-encoded.
    Accuracies are on the validation set after the layer's step and retraining.
    """

    layer: str
    shape: tuple[int, int]
    sparsity: float
    clusters: int
    nonzero: int
    dense_bits: int
    csr_bits: int
    huffman_bits: int
    index_bits: int
    cell_bits: int | None
    filter_cells: int | None
    weightless_bits: int | None
    weightless_lzma_bits: int | None
    false_positives: int | None
    false_positive_rate: float | None
    false_positive_rate_closed: float | None
    val_accuracy_clustered: float
    val_accuracy_encoded: float | None
    tried: tuple[tuple[int, float], ...]

    def to_row(self) -> dict[str, object]:
        row = dict(self.__dict__)
        row["shape"] = f"{self.shape[0]}x{self.shape[1]}"
        row["tried"] = "; ".join(f"t={t}: {a:.4f}" for t, a in self.tried)
        return row


def compress_model(model: LeNet, train: ImageSet, val: ImageSet, *,
                   plans: list[LayerPlan], prune_epochs: int, retrain_epochs: int,
                   tolerance: float, floor: float = 0.0, lr: float = 1e-3, seed: int = 0,
                   ) -> tuple[LeNet, list[StageReport]]:
    """Run the Weightless pipeline on a copy of a trained ``model``, layer by layer.

    For each planned layer, in network order: prune to the plan's sparsity and retrain
    (``prune_epochs``, masks kept); cluster the survivors; then, if the plan has cell
    widths, encode with each width in turn, freeze the decoded layer, retrain the later
    layers (``retrain_epochs``) and keep the first width whose validation accuracy is at
    least the unencoded (clustered, frozen, equally retrained) model's minus ``tolerance``
    and at least ``floor`` (the last width if none is); an absolute ``floor`` (say, the
    dense model's accuracy minus a tolerance) keeps small losses from compounding over
    layers. Without cell widths the clustered layer is frozen: that is
    the pruning + clustering baseline.

    Returns
    -------
    model : LeNet
        The compressed copy (every planned layer frozen).
    reports : list of StageReport
    """
    if not 0 <= tolerance < 1:
        raise ConfigError(f"tolerance must be in [0, 1), not {tolerance!r}", field="tolerance")
    if not 0 <= floor <= 1:
        raise ConfigError(f"floor must be in [0, 1], not {floor!r}", field="floor")
    names = [ly.name for ly in model.layers]
    for p in plans:
        model.layer(p.name)
    if [names.index(p.name) for p in plans] != sorted({names.index(p.name) for p in plans}):
        raise ConfigError("plans must name distinct layers in network order",
                          field="plans", allowed=names)
    net = model.copy()
    reports: list[StageReport] = []
    for step, plan in enumerate(plans):
        ly = net.layer(plan.name)
        ly.mask = prune_mask(ly.weight, sparsity=plan.sparsity)
        ly.weight = ly.weight * ly.mask
        if prune_epochs:
            train_lenet(net, train, epochs=prune_epochs, lr=lr, seed=seed + 101 * step)
        mask = ly.mask
        centroids, labels = cluster_weights(ly.weight[mask], clusters=plan.clusters,
                                            seed=seed)
        clustered = np.zeros_like(ly.weight)
        clustered[mask] = centroids[labels]
        positions = np.flatnonzero(mask)
        dc = deep_compression_bits(positions, labels, codebook_entries=int(centroids.size))

        def retrained(weight: np.ndarray, net: LeNet = net, name: str = plan.name,
                      step: int = step) -> tuple[LeNet, float]:
            trial = net.copy()
            tl = trial.layer(name)
            tl.weight, tl.mask, tl.trainable = weight.copy(), None, False
            if retrain_epochs and any(x.trainable for x in trial.layers):
                train_lenet(trial, train, epochs=retrain_epochs, lr=lr,
                            seed=seed + 101 * step + 1)
            return trial, lenet_accuracy(trial, val)

        ref_net, ref_acc = retrained(clustered)
        chosen: tuple[LeNet, EncodedLayer, int, float] | None = None
        tried: list[tuple[int, float]] = []
        for t in plan.cell_bits:
            enc = encode_layer(ly.weight, mask, labels, centroids, cell_bits=t,
                               seed=seed + step)
            trial, acc = retrained(enc.weight)
            tried.append((t, acc))
            chosen = (trial, enc, t, acc)
            if acc >= max(ref_acc - tolerance, floor):
                break
        if chosen is None:
            net = ref_net
        else:
            net = chosen[0]
        enc_layer = chosen[1] if chosen else None
        reports.append(StageReport(
            layer=plan.name, shape=(int(ly.weight.shape[0]), int(ly.weight.shape[1])),
            sparsity=plan.sparsity, clusters=int(centroids.size), nonzero=int(positions.size),
            dense_bits=WEIGHT_BITS * ly.num_weights, csr_bits=dc.csr_bits,
            huffman_bits=dc.huffman_bits, index_bits=dc.index_bits,
            cell_bits=chosen[2] if chosen else None,
            filter_cells=enc_layer.filter.num_cells if enc_layer else None,
            weightless_bits=(enc_layer.filter.size_bits + CODEBOOK_ENTRY_BITS * centroids.size
                             if enc_layer else None),
            weightless_lzma_bits=(enc_layer.filter.lzma_bits
                                  + CODEBOOK_ENTRY_BITS * centroids.size
                                  if enc_layer else None),
            false_positives=enc_layer.false_positives if enc_layer else None,
            false_positive_rate=enc_layer.false_positive_rate if enc_layer else None,
            false_positive_rate_closed=(enc_layer.filter.false_positive_rate
                                        if enc_layer else None),
            val_accuracy_clustered=ref_acc,
            val_accuracy_encoded=chosen[3] if chosen else None, tried=tuple(tried)))
    return net, reports
