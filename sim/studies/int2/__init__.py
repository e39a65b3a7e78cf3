"""INT2.1 (Chai et al., arXiv 2306.08162): EMEF fine-tuning memory and low-rank error
correction (LREC) of INT2/3/4/8 weights, measured on SmolLM2-135M (see README.md)."""

from .lrec import (
    calibration_grams,
    groupwise_bits_per_weight,
    lowrank_bits,
    output_error,
    quantize_groupwise,
    sequential_corrections,
    svd_correction,
    whitened_correction,
)
from .memory import (
    LLAMA_7B,
    DecoderDims,
    FineTuneSetup,
    MemoryBreakdown,
    activation_bytes,
    finetune_memory,
    lora_param_count,
    param_count,
    weight_bytes,
)
from .study import LrecSetup, budget_rank, lrec_rows, lrec_setup, memory_rows, run

__all__ = ["run", "LrecSetup", "lrec_setup", "lrec_rows", "memory_rows", "budget_rank",
           "quantize_groupwise", "groupwise_bits_per_weight", "lowrank_bits", "svd_correction", "sequential_corrections",
           "whitened_correction", "output_error", "calibration_grams", "LLAMA_7B",
           "DecoderDims", "FineTuneSetup", "MemoryBreakdown", "activation_bytes",
           "finetune_memory", "lora_param_count", "param_count", "weight_bytes"]
