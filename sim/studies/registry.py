"""The study registry: entry points of group ``archsim.studies``.

A study is registered in its distribution's ``pyproject.toml``::

    [project.entry-points."archsim.studies"]
    smaug = "archsim.sim.studies.smaug:run"

so a study outside this repository registers the same way. Listing studies is cheap: the
one-line description is the first line of the entry point module's docstring, read from its
source without importing it (the module is imported only if it has no readable source).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from ...errors import ConfigError
from ...loading import entry_point_names, load_entry_point
from .framework import StudyResult, StudyRunner

__all__ = ["ENTRY_POINT_GROUP", "RESERVED_NAMES", "study_names", "study_description",
           "get_study", "run_runner", "run_study"]

#: The entry-point group studies register under.
ENTRY_POINT_GROUP = "archsim.studies"
#: Names a study cannot take: ``archsim study all`` runs every study.
RESERVED_NAMES = frozenset({"all"})


def study_names() -> list[str]:
    """Every registered study name, sorted (``all`` is reserved and never listed)."""
    return [n for n in entry_point_names(ENTRY_POINT_GROUP) if n not in RESERVED_NAMES]


def _entry_point(name: str) -> EntryPoint:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name and name not in RESERVED_NAMES:
            return ep
    raise ConfigError(f"unknown study '{name}'", field="study", allowed=study_names())


def _first_line(doc: str | None) -> str:
    lines = [ln.strip() for ln in (doc or "").strip().splitlines()]
    return lines[0] if lines and lines[0] else ""


def study_description(name: str) -> str:
    """The first line of the docstring of study ``name``'s module, without running it."""
    ep = _entry_point(name)
    spec = importlib.util.find_spec(ep.module)
    origin = spec.origin if spec is not None else None
    if origin and origin.endswith(".py") and Path(origin).is_file():
        tree = ast.parse(Path(origin).read_text(encoding="utf-8"), filename=origin)
        return _first_line(ast.get_docstring(tree))
    return _first_line(importlib.import_module(ep.module).__doc__)


def get_study(name: str) -> StudyRunner:
    """Import and return the runner of study ``name``.

    Raises
    ------
    ConfigError
        No study of that name is registered; the message lists the registered ones.
    """
    _entry_point(name)  # rejects reserved and unknown names with the list of studies
    runner = load_entry_point(ENTRY_POINT_GROUP, name, field="study")
    if not callable(runner):
        raise ConfigError(f"study '{name}' is registered as {runner!r}, which is not callable",
                          field="study")
    return runner  # checked callable; the signature is the contract


def run_runner(name: str, runner: StudyRunner, *, out_dir: str | Path, seed: int = 0,
               quick: bool = False) -> StudyResult:
    """Run the loaded study ``runner`` (registered as ``name``), check it returned a
    :class:`StudyResult`, write its files to ``out_dir`` and return it."""
    out = Path(out_dir)
    result = runner(out_dir=out, seed=seed, quick=quick)
    if not isinstance(result, StudyResult):
        raise ConfigError(f"study '{name}' returned {type(result).__name__}, not a "
                          "StudyResult", field="study")
    result.write(out)
    return result


def run_study(name: str, *, out_dir: str | Path, seed: int = 0,
              quick: bool = False) -> StudyResult:
    """Run study ``name``, write its files to ``out_dir`` and return its result."""
    return run_runner(name, get_study(name), out_dir=out_dir, seed=seed, quick=quick)
