"""Make the fwpar study's full run: ``python -m archsim.sim.studies.fwpar.make_full_run``.

Measures every full-mode model at every setting (interleaved rounds), calibrates the
many-core model and writes ``data/full_run.json`` next to this file (atomically). Takes a
few minutes on a 2-core machine; the load average is recorded with every round.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ....outputs import write_json
from .study import analyze, measure_all

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the full measurement and write it; print the headline speedups."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else Path(__file__).with_name("data") / "full_run.json"
    data = measure_all(quick=False, seed=0)
    write_json(out, data)
    a = analyze(data)
    for k in ("geomean_vs_intel_best", "geomean_vs_tf_default_best",
              "geomean_vs_intel_median", "geomean_vs_tf_default_median",
              "model_geomean_vs_intel", "model_geomean_vs_tf_default"):
        print(f"{k}: {a[k]:.3f}")
    print(f"wrote {out} (wall {data['wall_s']:.1f} s, cpu {data['cpu_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
