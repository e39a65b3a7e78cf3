"""EdgeBERT (Tambe et al., MICRO 2021): entropy early exit and its predictor, on MiniLM-L6.

``early_exit``: per-layer off-ramps trained on the frozen MiniLM-L6 backbone, entropy-based
plain early exit, and the entropy-predictor lookup table with the authors' runtime
(harvard-acc/EdgeBERT), evaluated on Pang & Lee movie-review sentences (see the module).
"""

from .early_exit import (
    PAPER_PLAIN_THRESHOLDS,
    PAPER_PREDICTOR_THRESHOLDS,
    POLICIES,
    SWEEP_THRESHOLDS,
    EarlyExitModel,
    EarlyExitReport,
    EntropyLUT,
    LayerFeatures,
    OffRamp,
    ThresholdRow,
    entropy,
    evaluate,
    layer_features,
    plain_exit_layers,
    predicted_exit_layers,
    train_early_exit,
)

__all__ = ["EarlyExitModel", "EarlyExitReport", "EntropyLUT", "LayerFeatures", "OffRamp",
           "ThresholdRow", "entropy", "evaluate", "layer_features", "plain_exit_layers",
           "predicted_exit_layers", "train_early_exit", "PAPER_PLAIN_THRESHOLDS",
           "PAPER_PREDICTOR_THRESHOLDS", "SWEEP_THRESHOLDS", "POLICIES"]
