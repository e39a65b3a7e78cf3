"""The Flash Attention study's full paired training (Golden et al.'s weight-deviation part).

Trains, from one init and one data order, the runs of
``archsim.sim.studies.flash_attention.training.training_setup(quick=False)`` (Flash vs
baseline attention at BF16 in both rounding modes, baseline BF16 vs FP32, FP32 vs FP64,
Flash vs baseline at FP32) and writes the per-step weight distances and losses the study's
full run reads: ``training_full_distances.csv`` and ``training_full_losses.csv`` in the
study's ``data/`` folder (or ``--out``). Takes tens of minutes on one core.

Usage: ``python bench/flash_attention_training.py [--seed 0] [--out DIR]``
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

# One BLAS thread: the matrices are small, and on a shared 2-core machine a threaded
# OpenBLAS ran these steps 2-10x slower than one thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from archsim.outputs import write_csv  # noqa: E402
from archsim.sim.studies.flash_attention.study import (  # noqa: E402
    TRAINING_DATA,
    TRAINING_DISTANCES_CSV,
    TRAINING_LOSSES_CSV,
)
from archsim.sim.studies.flash_attention.training import (  # noqa: E402
    run_setup,
    training_setup,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=TRAINING_DATA)
    args = parser.parse_args()
    setup = training_setup(quick=False)
    start = time.perf_counter()

    def progress(step: int) -> None:
        if step % 10 == 0:
            print(f"step {step}/{setup.spec.steps}  {time.perf_counter() - start:.0f} s",
                  flush=True)

    res = run_setup(setup, seed=args.seed, progress=progress)
    write_csv(args.out / TRAINING_DISTANCES_CSV, res.distances,
              columns=["step", "pair", "wasserstein", "wasserstein_mean_tensor",
                       "max_abs_diff"])
    write_csv(args.out / TRAINING_LOSSES_CSV,
              [{"step": i + 1, "run": run, "loss": loss} for run, ls in res.losses.items()
               for i, loss in enumerate(ls)], columns=["step", "run", "loss"])
    print(f"wrote {args.out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
