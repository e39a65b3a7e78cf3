"""The Weightless pipeline's parts: pruning, k-means, the sparse baseline's size, Huffman
lengths, the encoded layer, and a small end-to-end run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from archsim.errors import ConfigError
from archsim.sim.compress.weightless import (
    CODEBOOK_ENTRY_BITS,
    LayerPlan,
    cluster_weights,
    compress_model,
    csr_bits,
    deep_compression_bits,
    encode_layer,
    huffman_bits,
    prune_mask,
    relative_index_stream,
)
from archsim.sim.nn.digits import ImageSet
from archsim.sim.nn.lenet import lenet_300_100, train_lenet


def test_prune_keeps_exactly_the_largest_magnitudes():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((40, 25))
    mask = prune_mask(w, sparsity=0.9)
    assert mask.sum() == 100
    assert np.abs(w[mask]).min() > np.abs(w[~mask]).max()
    with pytest.raises(ConfigError, match=r"sparsity must be in \[0, 1\), not 1.0"):
        prune_mask(w, sparsity=1.0)


def test_kmeans_reaches_a_lloyd_fixed_point():
    rng = np.random.default_rng(1)
    w = rng.standard_normal(5000)
    w = w[np.abs(w) > 1.2]  # pruned: a gap around zero
    centroids, labels = cluster_weights(w, clusters=8, iters=100)
    assert centroids.size == 8 and np.all(np.diff(centroids) > 0)
    # Each point is nearest its centroid, and each centroid is its members' mean.
    nearest = np.abs(w[:, None] - centroids[None, :]).argmin(1)
    assert np.array_equal(nearest, labels)
    means = np.array([w[labels == c].mean() for c in range(8)])
    np.testing.assert_allclose(centroids, means, rtol=1e-5, atol=1e-6)


def _stream_by_loop(positions: list[int], index_bits: int) -> list[int]:
    # The relative-index encoding written out entry by entry (Han et al. 2016, Fig. 2).
    out, prev, span = [], -1, 2**index_bits
    for p in sorted(positions):
        gap = p - prev
        while gap > span:
            out.append(span)
            gap -= span
        out.append(gap)
        prev = p
    return out


@pytest.mark.parametrize("index_bits", [1, 2, 3, 5])
def test_relative_indices_match_an_entry_by_entry_encoding(index_bits):
    rng = np.random.default_rng(index_bits)
    positions = sorted(rng.choice(3000, size=60, replace=False).tolist())
    stream = relative_index_stream(np.array(positions), index_bits=index_bits)
    assert stream.tolist() == _stream_by_loop(positions, index_bits)
    assert csr_bits(np.array(positions), value_bits=3, index_bits=index_bits,
                    codebook_entries=8) == len(stream) * (index_bits + 3) + 8 * 32
    # Decoding the gaps gives back the positions (fillers carry no weight).
    assert np.cumsum(stream)[-1] - 1 == positions[-1]


def test_huffman_lengths_of_a_textbook_example():
    # CLRS 16.3: frequencies 45, 13, 12, 16, 9, 5 code in 224 bits.
    symbols = np.repeat(np.arange(6), [45, 13, 12, 16, 9, 5])
    assert huffman_bits(symbols) == 224
    assert huffman_bits(np.zeros(7)) == 7


def test_deep_compression_size_takes_the_best_index_width():
    rng = np.random.default_rng(2)
    positions = np.sort(rng.choice(100_000, size=2_000, replace=False))
    labels = rng.integers(0, 16, positions.size)
    size = deep_compression_bits(positions, labels, codebook_entries=16)
    each = [csr_bits(positions, value_bits=4, index_bits=b, codebook_entries=16)
            for b in range(1, 17)]
    assert size.csr_bits == min(each) and size.index_bits == 1 + int(np.argmin(each))
    assert size.huffman_bits <= size.csr_bits + 16  # Huffman never needs more than fixed width
    assert size.best_bits == min(size.csr_bits, size.huffman_bits)


def test_encoded_layer_is_exact_where_stored_and_false_positive_elsewhere():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((300, 200)).astype(np.float32)
    mask = prune_mask(w, sparsity=0.95)
    centroids, labels = cluster_weights(w[mask], clusters=8)
    enc = encode_layer(w, mask, labels, centroids, cell_bits=6, seed=0)
    np.testing.assert_array_equal(enc.weight[mask], centroids[labels])
    spurious = enc.weight[~mask]
    assert enc.false_positives == int((spurious != 0).sum())
    assert set(np.unique(spurious[spurious != 0])) <= set(centroids.tolist())
    p, n = 8 / 64, enc.pruned
    assert abs(enc.false_positives - p * n) < 4 * math.sqrt(n * p * (1 - p))
    assert enc.filter.size_bits == enc.filter.num_cells * 6 + 64
    assert enc.filter.num_cells == 3 * math.ceil((1.23 * mask.sum() + 32) / 3)


def test_plans_are_validated():
    with pytest.raises(ConfigError, match="cell_bits must be distinct and ascending"):
        LayerPlan(name="fc0", sparsity=0.9, clusters=8, cell_bits=(6, 5))
    with pytest.raises(ConfigError, match="clusters must be an int >= 1"):
        LayerPlan(name="fc0", sparsity=0.9, clusters=0)
    data = ImageSet(images=np.zeros((4, 1, 28, 28), np.float32), labels=np.zeros(4, np.int64),
                    name="z", source="z", licence="z")
    with pytest.raises(ConfigError, match="plans must name distinct layers in network order"):
        compress_model(lenet_300_100(), data, data, prune_epochs=0, retrain_epochs=0,
                       tolerance=0.0, plans=[LayerPlan(name="fc1", sparsity=0.5, clusters=2),
                                             LayerPlan(name="fc0", sparsity=0.5, clusters=2)])


def test_pipeline_encodes_freezes_and_counts_bits():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 10, 300)
    x = rng.random((300, 1, 28, 28)).astype(np.float32) * 0.2
    x[np.arange(300), 0, 2 * y + 4, :] += 1.0
    data = ImageSet(images=x, labels=y, name="bands", source="test", licence="test")
    model = lenet_300_100(seed=0)
    train_lenet(model, data, epochs=3, seed=0)
    plans = [LayerPlan(name="fc0", sparsity=0.9, clusters=4, cell_bits=(3, 5, 8)),
             LayerPlan(name="fc1", sparsity=0.8, clusters=4)]
    net, reports = compress_model(model, data, data, plans=plans, prune_epochs=1,
                                  retrain_epochs=1, tolerance=0.02, seed=0)
    fc0, fc1 = reports
    assert not net.layers[0].trainable and not net.layers[1].trainable
    assert net.layers[2].trainable
    assert fc0.nonzero == round(0.1 * 784 * 300) and fc1.nonzero == round(0.2 * 300 * 100)
    assert fc0.cell_bits in (3, 5, 8) and fc0.tried[-1][0] == fc0.cell_bits
    assert fc0.weightless_bits == fc0.filter_cells * fc0.cell_bits + 64 + \
        fc0.clusters * CODEBOOK_ENTRY_BITS
    assert fc1.weightless_bits is None and fc1.cell_bits is None
    # The frozen first layer is exactly the filter's decoding: stored weights take four
    # centroid values, and false positives put centroids in pruned places.
    w0 = net.layers[0].weight
    assert np.unique(w0[w0 != 0]).size <= 4
    assert (w0 != 0).sum() == fc0.nonzero + fc0.false_positives
