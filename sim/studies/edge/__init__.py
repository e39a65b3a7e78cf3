"""Device / edge / cloud placement of DNN inference (issue #17 item 5): the position paper's
claims checked as directions on ResNet-50 and BERT-base chains (see README.md)."""

from .study import (
    MODELS,
    PARAMS,
    TIER_NAMES,
    ModelChain,
    Param,
    best_with,
    chain_from_graph,
    cloud_tier,
    device_tier,
    edge_tier,
    flop_shares,
    model_chain,
    run,
    sweep_rows,
    uplink,
    wan_link,
)

__all__ = ["run", "MODELS", "PARAMS", "TIER_NAMES", "ModelChain", "Param", "best_with",
           "chain_from_graph", "cloud_tier", "device_tier", "edge_tier", "flop_shares",
           "model_chain", "sweep_rows", "uplink", "wan_link"]
