"""Privacy attacks on federated learning.

``disaggregation``: gradient disaggregation (Lam et al., ICML 2021) -- the participant matrix
recovered user by user as a MILP (scipy/HiGHS) from secure aggregates and participation
analytics, then the individual updates by least squares; ``fedavg``: a real FedAvg run (softmax
regression) with non-IID users and the class-property inference attack on its updates.
"""

from .disaggregation import (
    DEFAULT_MIP_REL_GAP,
    ColumnSolve,
    Disaggregation,
    chunk_rounds,
    disaggregate,
    random_participation,
    refine_participation,
    solve_column,
    window_counts,
)
from .fedavg import (
    FedAvgRun,
    UserSplit,
    aggregate_inference_accuracy,
    class_inference_accuracy,
    infer_classes,
    run_fedavg,
    split_users_by_class,
)

__all__ = [
    "DEFAULT_MIP_REL_GAP",
    "ColumnSolve",
    "Disaggregation",
    "chunk_rounds",
    "disaggregate",
    "random_participation",
    "refine_participation",
    "solve_column",
    "window_counts",
    "FedAvgRun",
    "UserSplit",
    "aggregate_inference_accuracy",
    "class_inference_accuracy",
    "infer_classes",
    "run_fedavg",
    "split_users_by_class",
]
