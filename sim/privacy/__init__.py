"""Privacy attacks on federated learning.

``disaggregation``: gradient disaggregation (Lam et al., ICML 2021) -- the participant matrix
recovered user by user as a MILP (scipy/HiGHS) from secure aggregates and participation
analytics, then the individual updates by least squares.
"""

from .disaggregation import (
    DEFAULT_MIP_REL_GAP,
    ColumnSolve,
    Disaggregation,
    chunk_rounds,
    disaggregate,
    random_participation,
    solve_column,
    window_counts,
)

__all__ = [
    "DEFAULT_MIP_REL_GAP",
    "ColumnSolve",
    "Disaggregation",
    "chunk_rounds",
    "disaggregate",
    "random_participation",
    "solve_column",
    "window_counts",
]
