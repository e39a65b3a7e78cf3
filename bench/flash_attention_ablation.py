"""Flash Attention study: which BF16 rounding of the Flash path makes Flash-BF16 training
drift farther from FP32 training than baseline-BF16 does.

Trains, per seed, from one init and one data order: baseline-BF16, baseline-FP32 and one
Flash-BF16 run (``fp32_state``) per variant, each variant keeping one of the Flash path's
BF16 roundings in FP32 (``Numerics.keep_fp32``), on the study's full model (2 blocks,
d_model 64, 4 heads, 128 characters, tile 32) for ``--steps`` steps. Prints, per variant,
the geometric mean over recorded steps of W(variant vs FP32) / W(baseline-BF16 vs FP32)
(mean, min, max over seeds; ~1 means the variant drifts no farther than baseline-BF16), the
last-step loss and the variant's training CPU seconds (mean per seed), and writes the rows
to ``flash_ablation_full.csv`` in the study's ``data/`` folder (or ``--out``), which the
study's full run reads. 200 steps x 3 seeds: about 14 CPU min.

Usage: ``python bench/flash_attention_ablation.py [--steps 200] [--seeds 0 1 2] [--out DIR]``
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

# One BLAS thread: the matrices are small (see bench/flash_attention_training.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from archsim.outputs import write_csv  # noqa: E402
from archsim.sim.studies.flash_attention.study import ABLATION_CSV, TRAINING_DATA  # noqa: E402
from archsim.sim.studies.flash_attention.training import (  # noqa: E402
    TrainSpec,
    ablation_variants,
    flash_ablation,
    news_char_ids,
    training_setup,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=TRAINING_DATA,
                        help="folder for the rows' CSV (the study's data/ by default)")
    args = parser.parse_args()
    setup = training_setup(quick=False)
    start = time.process_time()
    rows = flash_ablation(config=setup.config,
                          token_ids=news_char_ids(n_chars=setup.n_chars),
                          spec=TrainSpec(steps=args.steps, batch=setup.spec.batch),
                          seeds=args.seeds, every=setup.every,
                          variants=ablation_variants(tile=setup.tile,
                                                     seq_len=setup.config.seq_len))
    print(f"{args.steps} steps, seeds {args.seeds}; ratio = W(variant vs FP32) / "
          "W(baseline-BF16 vs FP32), geometric mean over steps")
    print(f"{'variant':24s} {'ratio mean':>10s} {'min':>6s} {'max':>6s} {'last-step':>9s} "
          f"{'loss':>6s} {'CPU s':>6s}")
    for variant in dict.fromkeys(str(r["variant"]) for r in rows):
        mine = [r for r in rows if r["variant"] == variant]
        ratio = np.array([float(r["ratio"]) for r in mine])
        last = np.mean([float(r["ratio_last"]) for r in mine])
        loss = np.mean([float(r["loss_last"]) for r in mine])
        cpu = np.mean([float(r["cpu_s"]) for r in mine])
        print(f"{variant:24s} {ratio.mean():10.2f} {ratio.min():6.2f} {ratio.max():6.2f} "
              f"{last:9.2f} {loss:6.3f} {cpu:6.1f}")
    write_csv(args.out / ABLATION_CSV, rows,
              columns=["variant", "seed", "ratio", "ratio_last", "loss_last", "cpu_s"])
    print(f"total CPU {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()
