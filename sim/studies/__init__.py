"""Studies that reproduce published results, and the framework they share.

One package per paper (``smaug/``, ``s3/``, ``madmax/``, ``prism/``, ``formats/``,
``flash_attention/``), each with its ``run``, its paper-only code, its data and a README of
what it reproduces and assumes. Studies register through the entry-point group
``archsim.studies`` (see :mod:`.registry`), so one outside this repository registers the
same way; nothing imports a study. This package holds only the framework: the typed result
with its honest comparisons (:mod:`.framework`), the registry and the scoreboard of
``archsim study all`` (:mod:`.scoreboard`).
"""

from __future__ import annotations

from .framework import (
    COMPARISON_COLUMNS,
    DEFAULT_REL_TOL,
    Band,
    Comparison,
    Direction,
    Observation,
    Status,
    StudyResult,
    StudyRunner,
)
from .registry import (
    ENTRY_POINT_GROUP,
    RESERVED_NAMES,
    get_study,
    run_study,
    study_description,
    study_names,
)
from .scoreboard import (
    ERROR_STATUS,
    SCOREBOARD_COLUMNS,
    Scoreboard,
    StudyOutcome,
    iter_studies,
    run_all,
)

__all__ = [
    "COMPARISON_COLUMNS", "DEFAULT_REL_TOL", "Band", "Comparison", "Direction", "Observation",
    "Status", "StudyResult", "StudyRunner",
    "ENTRY_POINT_GROUP", "RESERVED_NAMES", "get_study", "run_study", "study_description",
    "study_names",
    "ERROR_STATUS", "SCOREBOARD_COLUMNS", "Scoreboard", "StudyOutcome", "iter_studies", "run_all",
]
