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

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
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

#: Each public name and its submodule, imported on first use (see :mod:`archsim.lazy`).
_EXPORTS = {
    "COMPARISON_COLUMNS": ".framework",
    "DEFAULT_REL_TOL": ".framework",
    "Band": ".framework",
    "Comparison": ".framework",
    "Direction": ".framework",
    "Observation": ".framework",
    "Status": ".framework",
    "StudyResult": ".framework",
    "StudyRunner": ".framework",
    "ENTRY_POINT_GROUP": ".registry",
    "RESERVED_NAMES": ".registry",
    "get_study": ".registry",
    "run_study": ".registry",
    "study_description": ".registry",
    "study_names": ".registry",
    "ERROR_STATUS": ".scoreboard",
    "SCOREBOARD_COLUMNS": ".scoreboard",
    "Scoreboard": ".scoreboard",
    "StudyOutcome": ".scoreboard",
    "iter_studies": ".scoreboard",
    "run_all": ".scoreboard",
}

__all__ = [
    "COMPARISON_COLUMNS", "DEFAULT_REL_TOL", "Band", "Comparison", "Direction", "Observation",
    "Status", "StudyResult", "StudyRunner",
    "ENTRY_POINT_GROUP", "RESERVED_NAMES", "get_study", "run_study", "study_description",
    "study_names",
    "ERROR_STATUS", "SCOREBOARD_COLUMNS", "Scoreboard", "StudyOutcome", "iter_studies", "run_all",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
