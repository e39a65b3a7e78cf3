"""The eight DeepRecSys models' numpy forward passes on this CPU, and the fitted cost model.

Prints, per model and batch (4^0..4^5), the median forward time over ``--repeats`` runs and
its spread ((max - min) / median), the share of SLS / FC / other, then the CPU cost model
fitted on batches 1..256 (per model and shared) and its error on the held-out batch 1024.

Usage: ``OPENBLAS_NUM_THREADS=1 python bench/recsys_cpu.py [--repeats N] [--cap ROWS]
[--backend numpy|torch]`` (``torch`` needs the optional extra and runs on one thread).
(single-threaded BLAS: threaded OpenBLAS on a shared 2-core machine measured 2-10x slower).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from archsim.compilers.graph.recsys import RECSYS_MODELS  # noqa: E402
from archsim.sim.recsys.measure import fit_cpu_model, measure_cpu  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cap", type=int, default=20000, help="embedding rows per table")
    ap.add_argument("--backend", choices=("numpy", "torch"), default="numpy")
    args = ap.parse_args()
    ms = []
    for name in RECSYS_MODELS:
        m = measure_cpu(name, repeats=args.repeats, table_rows_cap=args.cap,
                        backend=args.backend)
        ms.append(m)
        for row in m.rows():
            total = row["total_ms"]
            sls = row["sls_ms"] / total if total else 0.0
            fc = row["fc_ms"] / total if total else 0.0
            print(f"{name:10s} batch {row['batch']:5d}  {total:9.3f} ms  spread "
                  f"{row['spread']:5.2f}  sls {sls:4.2f} fc {fc:4.2f} other "
                  f"{1 - sls - fc:4.2f}", flush=True)
    for per_model in (True, False):
        errors = fit_cpu_model(ms, per_model=per_model).validate(ms)
        label = "per-model fit" if per_model else "shared fit"
        print(f"{label}: error at batch 1024 (held out): " +
              ", ".join(f"{k} {v:+.1%}" for k, v in errors.items()))


if __name__ == "__main__":
    main()
