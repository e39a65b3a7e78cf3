"""Cross-stack characterization of deep recommendation (Hsia et al., IISWC 2020).

``analysis``: operator shares, the GPU-over-CPU speedup grid, crossover batches and the
best-over-naive deployment ratio, with the authors' figure readings. ``study``: ``archsim
study cross-stack``, the eight DeepRecSys models timed on this CPU (numpy, and PyTorch when
installed) next to a modelled GTX 1080 Ti.
"""

from .analysis import (
    CATEGORIES,
    CPU_SHARES_PUBLISHED,
    CROSSOVER_PUBLISHED,
    GPU_SHARES_PUBLISHED,
    SPEEDUP_1024_PUBLISHED,
    SPEEDUP_B1_PUBLISHED,
    DeploymentRatio,
    PublishedShare,
    batching_gain,
    best_deployment_ratio,
    category_shares,
    crossover_batch,
    deployment_ratio,
    speedup_grid,
)
from .study import (
    PLATFORM_ALLOWANCE_PTS,
    PUBLISHED_RATIO,
    READING_PTS,
    TABLE_ROWS_CAP,
    StudySetup,
    crossover_band,
    gpu_group_s,
    run,
    share_band,
)

__all__ = ["run", "CATEGORIES", "CPU_SHARES_PUBLISHED", "CROSSOVER_PUBLISHED",
           "GPU_SHARES_PUBLISHED", "SPEEDUP_1024_PUBLISHED", "SPEEDUP_B1_PUBLISHED",
           "DeploymentRatio", "PublishedShare", "batching_gain", "best_deployment_ratio",
           "category_shares", "crossover_batch", "deployment_ratio", "speedup_grid",
           "PLATFORM_ALLOWANCE_PTS", "PUBLISHED_RATIO", "READING_PTS", "TABLE_ROWS_CAP",
           "StudySetup", "crossover_band", "gpu_group_s", "share_band"]
