"""Lossy and lossless compression of model weights.

``bloomier``: the Bloomier filter Weightless (Reagen et al., ICML 2018) encodes cluster
indices of pruned weights in.
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

__all__ = ["ABSENT", "DEFAULT_CELLS_PER_KEY", "DEFAULT_EXTRA_CELLS", "MAX_SEED", "SEED_BITS",
           "BloomierFilter", "false_positive_rate", "splitmix64"]
