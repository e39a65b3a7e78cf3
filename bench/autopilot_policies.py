"""Train AutoPilot's CNN navigation-policy family on this CPU and ship the measured table.

Every spec of ``conv_layers in (2, 3, 4, 5) x filters in (8, 16, 32)`` is trained with
behaviour cloning + DAgger (:data:`archsim.sim.autonomy.evaluate.FULL_SETTINGS`) and flown in
100 held-out worlds per density; the expert is measured on the same worlds. The table is
written atomically to ``sim/autonomy/data/policy_results.csv`` with the seed and settings in
its ``settings`` column (``--out`` to write elsewhere). Prints the table.

Run: ``python bench/autopilot_policies.py [--seed 0] [--quick] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
from pathlib import Path

from archsim.outputs import write_csv
from archsim.sim.autonomy.evaluate import train_family
from archsim.sim.autonomy.policies import CONV_LAYERS, FILTERS, NavPolicySpec
from archsim.sim.autonomy.world import DENSITIES, WorldSpec

__all__ = ["main"]

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "sim" / "autonomy" / "data" / \
    "policy_results.csv"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="the CI settings (2 small specs)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    specs = ([NavPolicySpec(conv_layers=2, filters=8), NavPolicySpec(conv_layers=3, filters=16)]
             if args.quick else [NavPolicySpec(conv_layers=c, filters=f)
                                 for c, f in itertools.product(CONV_LAYERS, FILTERS)])
    table = train_family(specs, seed=args.seed, quick=args.quick, progress=print)
    settings = json.dumps({"seed": table.seed, "episodes_per_density": table.episodes,
                           "dagger": dataclasses.asdict(table.settings),
                           "world": {k: v for k, v in dataclasses.asdict(WorldSpec()).items()},
                           "densities_per_100m2": DENSITIES}, sort_keys=True)
    rows = [r.as_dict() for r in table.rows]
    for e in table.expert:
        rows.append({"policy": "expert", "density": e.density, "episodes": e.episodes,
                     "successes": e.successes, "collisions": e.collisions,
                     "timeouts": e.timeouts, "success_rate": e.rate, "ci_low": e.ci_low,
                     "ci_high": e.ci_high})
    for r in rows:
        r["seed"] = table.seed
        r["settings"] = settings
    write_csv(args.out, rows)
    print(f"{'policy':8} {'density':7} {'success':>8} {'95% CI':>14} {'MFLOPs':>8} "
          f"{'params':>7} {'train s':>8}")
    for r in rows:
        fl = r.get("flops")
        print(f"{r['policy']:8} {r['density']:7} {r['success_rate']:8.2f} "
              f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}] "
              f"{'' if fl is None else f'{float(fl) / 1e6:8.3f}':>8} "
              f"{r.get('parameters', ''):>7} {r.get('train_time_s', ''):>8}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
