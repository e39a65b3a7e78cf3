"""Run the Fathom study's full mode and keep its measurements as ``data/measured.json``.

Usage: ``python -m archsim.sim.studies.fathom.make_full_run OUT_DIR`` writes the study's
outputs to ``OUT_DIR`` and ``OUT_DIR/measured.json`` (the roofline ceilings with their
timings and the thread-scaling table, plus the run's wall/CPU time and load), which is
copied by hand into ``data/``: quick mode reads its measurements from there.
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
    write_json(out / "measured.json", {
        "command": "python -m archsim.sim.studies.fathom.make_full_run OUT_DIR",
        "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
        "loadavg_end": list(os.getloadavg()),
        "ceilings": res.tables["ceilings"][0], "roofline": res.tables["roofline"],
        "scaling": res.tables["scaling"],
        "comparisons": [c.to_row() for c in res.comparisons]})
    res.print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
