"""Run the Fathom study's full mode and keep its measurements as ``data/measured.json``.

Usage: ``python -m archsim.sim.studies.fathom.make_full_run OUT_DIR`` writes the study's
outputs to ``OUT_DIR`` and ``OUT_DIR/measured.json`` (the roofline ceilings with their
timings and the thread-scaling table, plus the run's wall/CPU time and load), which is
copied by hand into ``data/``: quick mode reads its measurements from there.
"""

from __future__ import annotations

from ..framework import full_run_main
from .study import run

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the full study into ``argv[0]``; returns the exit status."""
    return full_run_main(
        argv, runner=run, usage=__doc__ or "", filename="measured.json",
        command="python -m archsim.sim.studies.fathom.make_full_run OUT_DIR",
        record=lambda res: {
            "ceilings": res.tables["ceilings"][0], "roofline": res.tables["roofline"],
            "scaling": res.tables["scaling"],
            "comparisons": [c.to_row() for c in res.comparisons]})


if __name__ == "__main__":
    raise SystemExit(main())
