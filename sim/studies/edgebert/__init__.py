"""EdgeBERT (Tambe et al., MICRO 2021): early exit + DVFS energy vs no early exit, unbounded exit and a TX2.

``study``: the energy study (``archsim study edgebert``): per sentence, the accelerator's
energy under the paper's policies, from its DSL description's model view. ``layer``: a real
encoder layer quantized onto the accelerator's buffers.
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
from .layer import (
    LayerImages,
    LayerInput,
    layer_images,
    layer_weights,
    read_layer_output,
    reference_layer,
    sentence_layer_input,
)
from .study import (
    PointCost,
    SentenceEnergies,
    accelerator_costs,
    run,
    sentence_energies,
    tx2_layer_time_s,
)

__all__ = ["run", "PointCost", "SentenceEnergies", "accelerator_costs", "sentence_energies",
           "tx2_layer_time_s", "LayerImages", "LayerInput", "layer_images", "layer_weights",
           "read_layer_output", "reference_layer", "sentence_layer_input",
           "EarlyExitModel", "EarlyExitReport", "EntropyLUT", "LayerFeatures", "OffRamp",
           "ThresholdRow", "entropy", "evaluate", "layer_features", "plain_exit_layers",
           "predicted_exit_layers", "train_early_exit", "PAPER_PLAIN_THRESHOLDS",
           "PAPER_PREDICTOR_THRESHOLDS", "SWEEP_THRESHOLDS", "POLICIES"]
