"""MAD-Max (Hsia et al. 2024): exposed communication 14-32%, best-strategy speedups 2.24x / 5.2x.

Parallelization-strategy search on the distributed-training model, cross-checked against
Megatron-LM Table 1 and Llama 2's GPU-hours (see README.md).
"""

from .study import (
    LLAMA2_70B_GPU_HOURS,
    MEGATRON_TABLE1,
    Llama2Row,
    MegatronRow,
    llama2_crosscheck,
    megatron_crosscheck,
    megatron_flops,
    run,
)

__all__ = ["run", "megatron_crosscheck", "megatron_flops", "llama2_crosscheck", "MegatronRow",
           "Llama2Row", "MEGATRON_TABLE1", "LLAMA2_70B_GPU_HOURS"]
