"""Each registered study's quick run, once per test session.

The parametrized status test and each study's own tests read the same run, so CI runs every
study's quick mode once. The wall time of each run is kept for reporting.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
import time
from pathlib import Path

from archsim.sim.studies import StudyResult, run_study

__all__ = ["quick_run", "QUICK_WALL_S"]

#: Study name -> wall time of its quick run in this session (seconds).
QUICK_WALL_S: dict[str, float] = {}
_ROOT = Path(tempfile.mkdtemp(prefix="archsim-studies-"))
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)


@functools.cache
def quick_run(name: str) -> StudyResult:
    """Run study ``name`` in quick mode (seed 0) into a session folder; cached. Do not mutate."""
    start = time.perf_counter()
    result = run_study(name, out_dir=_ROOT / name, seed=0, quick=True)
    QUICK_WALL_S[name] = time.perf_counter() - start
    return result
