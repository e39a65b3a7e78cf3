"""Text-to-image / text-to-video characterization (Golden et al., arXiv 2312.14385, 2023).

``analysis``: operator breakdowns of the TTI/TTV pipelines on a GPU roofline with baseline
or Flash attention. ``study``: ``archsim study tti-ttv``, the abstract's five findings next
to the A100 model's numbers.
"""

from .analysis import (
    CATEGORIES,
    Breakdown,
    category,
    max_step_ratio,
    operator_time_s,
    pipeline_breakdown,
    sequence_lengths,
)
from .study import (
    GPU_SETTINGS,
    PUBLISHED,
    Evaluation,
    GPUSettings,
    Published,
    a100_roofline,
    evaluate,
    run,
)

__all__ = ["run", "CATEGORIES", "Breakdown", "category", "max_step_ratio", "operator_time_s",
           "pipeline_breakdown", "sequence_lengths", "GPU_SETTINGS", "PUBLISHED", "Published", "Evaluation",
           "GPUSettings", "a100_roofline", "evaluate"]
