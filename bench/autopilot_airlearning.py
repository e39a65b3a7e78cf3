"""Train the Air-Learning-like navigation policies (32/48/64 filters, 32x64 depth image).

AutoPilot's policies are DroNet / Air-Learning-like CNNs with 32/48/64 filters (paper notes
section 4.2, a flagged recollection); the small family of ``bench/autopilot_policies.py``
(8-32 filters on 16x32) costs at most 1.1 MFLOPs per decision, which no accelerator or
baseline notices. This script trains members of
:func:`archsim.sim.autonomy.policies.airlearning_specs` with the same DAgger pipeline
(:func:`~archsim.sim.autonomy.policies.train_dagger`) on the 32x64-camera world
(:func:`~archsim.sim.autonomy.policies.airlearning_world`), flies each in held-out worlds per
density (Clopper-Pearson intervals), and writes one CSV row per (policy, density) with the
training time, the evaluation time and the load average (``os.getloadavg``) at the end of
each policy: the machine is shared, so the times depend on the load.

The settings (:data:`SETTINGS`, :data:`EPISODES`) are far smaller than the small family's
``FULL_SETTINGS`` (4 DAgger rounds x 30 flights x 6 epochs, 100 evaluation flights): a 20-80 MFLOP
policy costs 20-80x a small one per sample in numpy, and the family had to train in about
half an hour on 2 cores shared with other jobs (load average 6-15). They are assumed, and
written into every row; more rounds and flights would raise the success rates.

Run: ``python bench/autopilot_airlearning.py --specs c3f32,c5f64 --out PART.csv`` (several
disjoint ``--specs`` lists can run in parallel), then ``--merge PART.csv ... --out
sim/autonomy/data/policy_results_airlearning.csv`` (adds the expert's rows).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import time
from pathlib import Path

from archsim.outputs import write_csv
from archsim.sim.autonomy.evaluate import expert_success_rate, success_rate
from archsim.sim.autonomy.policies import (
    DAggerSettings,
    airlearning_specs,
    airlearning_world,
    train_dagger,
)
from archsim.sim.autonomy.world import DENSITIES

__all__ = ["main", "SETTINGS", "EPISODES"]

#: DAgger settings of this family (assumed: sized to the time available, module docstring):
#: the expert's round and two DAgger rounds of 10 flights each, 3 epochs, batches of 32.
SETTINGS = DAggerSettings(rounds=2, episodes_per_round=10, epochs=3, batch_size=32)
#: Held-out evaluation flights per density.
EPISODES = 20


def _settings_json(seed: int, settings: DAggerSettings = SETTINGS) -> str:
    return json.dumps({"seed": seed, "episodes_per_density": EPISODES,
                       "dagger": dataclasses.asdict(settings),
                       "world": dataclasses.asdict(airlearning_world()),
                       "densities_per_100m2": DENSITIES}, sort_keys=True)


def _train(names: list[str], seed: int, out: Path,
           settings: DAggerSettings = SETTINGS) -> None:
    specs = {s.name.split("-")[0]: s for s in airlearning_specs()}
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise SystemExit(f"unknown specs {unknown}; choose from {sorted(specs)}")
    ws = airlearning_world()
    rows: list[dict[str, object]] = []
    for name in names:
        spec = specs[name]
        policy, rep = train_dagger(spec, seed=seed, settings=settings, world_spec=ws)
        t0 = time.perf_counter()
        results = [success_rate(policy, d, EPISODES, seed, world_spec=ws)
                   for d in sorted(DENSITIES)]
        eval_s = time.perf_counter() - t0
        load = os.getloadavg()
        for r in results:
            rows.append({"policy": spec.name, "conv_layers": spec.conv_layers,
                         "filters": spec.filters, "hidden": spec.hidden,
                         "image_rows": spec.rows, "image_cols": spec.cols,
                         "strided_layers": spec.strided_layers, "density": r.density,
                         "episodes": r.episodes, "successes": r.successes,
                         "collisions": r.collisions, "timeouts": r.timeouts,
                         "success_rate": r.rate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                         "flops": spec.flops, "parameters": spec.parameters,
                         "train_time_s": round(rep.train_time_s, 1),
                         "eval_time_s": round(eval_s, 1), "samples": rep.samples[-1],
                         "final_loss": round(rep.loss[-1], 4),
                         "loadavg_1m": round(load[0], 2), "seed": seed,
                         "settings": _settings_json(seed, settings)})
        print(f"{spec.name}: {spec.flops / 1e6:.1f} MFLOPs, trained {rep.train_time_s:.0f} s "
              f"({rep.samples[-1]} samples), evaluated {eval_s:.0f} s, load {load[0]:.1f}; "
              + ", ".join(f"{r.density} {r.rate:.2f}" for r in results), flush=True)
        write_csv(out, rows)  # after every policy: an interruption keeps what is done


def _merge(parts: list[Path], seed: int, out: Path) -> None:
    rows: list[dict[str, object]] = []
    for p in parts:
        with p.open(newline="") as f:
            rows += list(csv.DictReader(f))
    ws = airlearning_world()
    for d in sorted(DENSITIES):
        e = expert_success_rate(d, EPISODES, seed, world_spec=ws)
        rows.append({"policy": "expert", "density": d, "episodes": e.episodes,
                     "successes": e.successes, "collisions": e.collisions,
                     "timeouts": e.timeouts, "success_rate": e.rate, "ci_low": e.ci_low,
                     "ci_high": e.ci_high, "seed": seed, "settings": _settings_json(seed)})
    columns = list(dict.fromkeys(k for r in rows for k in r))
    write_csv(out, rows, columns=columns)
    print(f"wrote {out} ({len(rows)} rows)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", default="", help="comma-separated, e.g. c3f32,c5f64")
    ap.add_argument("--merge", nargs="*", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=SETTINGS.rounds,
                    help="DAgger rounds after the expert's (a longer-training check)")
    args = ap.parse_args()
    if args.merge is not None:
        _merge(args.merge, args.seed, args.out)
    else:
        _train([s for s in args.specs.split(",") if s], args.seed, args.out,
               dataclasses.replace(SETTINGS, rounds=args.rounds))


if __name__ == "__main__":
    main()
