"""Run the INT2.1 study's full mode and keep its tables as ``data/full_run.json``.

Usage: ``python -m archsim.sim.studies.int2.make_full_run OUT_DIR`` writes the study's
outputs to ``OUT_DIR`` and ``OUT_DIR/full_run.json`` (copied by hand into ``data/``, the
file the README's results table is read from).
"""

from __future__ import annotations

from ..framework import full_run_main
from .study import run

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the full study into ``argv[0]``; returns the exit status."""
    return full_run_main(
        argv, runner=run, usage=__doc__ or "", filename="full_run.json",
        command="python -m archsim.sim.studies.int2.make_full_run OUT_DIR",
        record=lambda res: res.to_dict())


if __name__ == "__main__":
    raise SystemExit(main())
