"""Hardware reliability engines: bit-flip fault injection into number formats, SDC rates.

``bits``: a tensor stored in one of archsim's element formats as bit patterns, and XOR
faults in them; ``inject``: vectorized fault-injection campaigns (weights or activations of
one layer of a dense network) giving the top-1 mismatch (SDC) rate and Top2Diff margins;
``stats``: binomial confidence intervals (Wilson, Clopper-Pearson) of those rates.
"""

from .bits import FAULT_FORMATS, EncodedTensor, encode_tensor, format_bits, random_masks
from .inject import (
    POSTS,
    TARGETS,
    Campaign,
    Dense,
    DenseNet,
    Sites,
    all_sites,
    random_sites,
    run_campaign,
    top2_margin,
)
from .stats import (
    CI_METHODS,
    Rate,
    binomial_rate,
    clopper_pearson_interval,
    ratio_interval,
    wilson_interval,
)

__all__ = [
    "FAULT_FORMATS", "EncodedTensor", "encode_tensor", "format_bits", "random_masks",
    "POSTS", "TARGETS", "Campaign", "Dense", "DenseNet", "Sites", "all_sites", "random_sites",
    "run_campaign", "top2_margin",
    "CI_METHODS", "Rate", "binomial_rate", "clopper_pearson_interval", "ratio_interval",
    "wilson_interval",
]
