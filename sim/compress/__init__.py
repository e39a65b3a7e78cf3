"""Lossy and lossless compression of model weights.

``bloomier``: the Bloomier filter Weightless (Reagen et al., ICML 2018) encodes cluster
indices of pruned weights in; ``weightless``: the layer-by-layer pipeline (pruning, k-means
clustering, Bloomier encoding, freezing and retraining) and the Deep-Compression-style
sparse-format sizes it is compared with.
"""

from .bloomier import (
    ABSENT,
    DEFAULT_CELLS_PER_KEY,
    DEFAULT_EXTRA_CELLS,
    MAX_SEED,
    SEED_BITS,
    BloomierFilter,
    false_positive_rate,
    splitmix64,
)
from .weightless import (
    CODEBOOK_ENTRY_BITS,
    WEIGHT_BITS,
    DeepCompressionSize,
    EncodedLayer,
    LayerPlan,
    StageReport,
    cluster_weights,
    compress_model,
    csr_bits,
    deep_compression_bits,
    encode_layer,
    huffman_bits,
    prune_mask,
    relative_index_stream,
)

__all__ = ["ABSENT", "DEFAULT_CELLS_PER_KEY", "DEFAULT_EXTRA_CELLS", "MAX_SEED", "SEED_BITS",
           "BloomierFilter", "false_positive_rate", "splitmix64",
           "WEIGHT_BITS", "CODEBOOK_ENTRY_BITS", "prune_mask", "cluster_weights",
           "relative_index_stream", "csr_bits", "huffman_bits", "DeepCompressionSize",
           "deep_compression_bits", "LayerPlan", "EncodedLayer", "encode_layer", "StageReport",
           "compress_model"]
