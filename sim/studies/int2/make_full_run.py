"""Run the INT2.1 study's full mode and keep its tables as ``data/full_run.json``.

Usage: ``python -m archsim.sim.studies.int2.make_full_run OUT_DIR`` writes the study's
outputs to ``OUT_DIR`` and ``OUT_DIR/full_run.json`` (copied by hand into ``data/``, the
file the README's results table is read from).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ....outputs import write_json
from .study import run

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the full study into ``argv[0]``; returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__)
        return 2
    out = Path(args[0])
    t0, c0 = time.perf_counter(), time.process_time()
    res = run(out_dir=out, quick=False)
    write_json(out / "full_run.json", {
        "command": "python -m archsim.sim.studies.int2.make_full_run OUT_DIR",
        "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
        "loadavg": list(os.getloadavg()), **res.to_dict()})
    res.print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
