"""AutoPilot's search: Bayesian optimization (TPE) against random search at equal budget.

For every UAV class x environment of ``archsim study autopilot`` and every seed, runs the
study's own searches (:func:`archsim.sim.studies.autopilot.search_settings`: objective,
budget, constraints, startup trials) with Optuna's TPE and with random search through
:func:`archsim.sim.sweep.optimize.run_optimization`, and scores each run's returned best
design against the exhaustive optimum of the same grid. The exhaustive optimum comes from
evaluating every grid point here with the sweep model's function
(:func:`archsim.sim.studies.autopilot.evaluate_point`), independent of the optimizer: a
point is feasible when it is buildable and its policy's success rate is at least the floor;
its value is its fractional missions per battery (the study's ``score``).

Prints the mean gap to the exhaustive optimum (%) with its standard deviation, how often
each sampler returned the optimum, a returned design that is infeasible or nothing feasible
at all, paired better / tied / worse counts (TPE against random on the same class,
environment and seed), and the same per UAV class.

Usage::

    python bench/autopilot_bo.py [--quick] [--seeds 10] [--first-seed 0] [--csv runs.csv]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["main"]


def _truth(spec: Any) -> dict[str, float | None]:
    """Each grid point's value (``None`` if infeasible), by parameters, evaluated directly."""
    from archsim.sim.studies.autopilot import evaluate_point

    out: dict[str, float | None] = {}
    for p in spec.points():
        o = evaluate_point(p.params, p.seed)
        ok = o["buildable"] == 1.0 and o["success_rate"] >= o["success_floor"]
        out[_name(p.params)] = o["score"] if ok else None
    return out


def _name(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def _gap(best: float, found: float | None) -> float:
    return 1.0 if found is None else 1.0 - found / best


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print it (module docstring)."""
    from archsim.outputs import write_csv
    from archsim.sim.studies.autopilot import (
        ENVIRONMENTS,
        design_space,
        run_search,
        search_settings,
    )
    from archsim.sim.uav import UAV_CLASSES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="the study's quick grid and budget")
    parser.add_argument("--seeds", type=int, default=10, help="how many seeds")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--csv", type=Path, help="write every run's result here")
    args = parser.parse_args(argv)

    samplers = ("tpe", "random")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for uav in UAV_CLASSES:
            for env in ENVIRONMENTS:
                spec = design_space(uav, env, quick=args.quick)
                truth = _truth(spec)
                best = max(v for v in truth.values() if v is not None)
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    row: dict[str, Any] = {"uav": uav, "environment": env, "seed": seed,
                                           "points": len(truth), "exhaustive_best": best}
                    for sampler in samplers:
                        rep = run_search(spec, sampler, seed, quick=args.quick,
                                         db=Path(tmp) / f"{uav}-{env}-{sampler}.db")
                        found = (truth[_name(rep.best.params)] if rep.best is not None
                                 else None)
                        row[f"{sampler}_best"] = math.nan if found is None else found
                        row[f"{sampler}_returned_infeasible"] = (rep.best is not None
                                                                 and found is None)
                        row[f"{sampler}_gap"] = _gap(best, found)
                        row[f"{sampler}_computed"] = rep.computed
                    row["budget"] = search_settings("tpe", quick=args.quick).budget
                    rows.append(row)

    def summary(label: str, sel: list[dict[str, Any]]) -> None:
        print(f"{label} ({len(sel)} runs)")
        for s in samplers:
            gaps = [100 * r[f"{s}_gap"] for r in sel]
            sd = statistics.stdev(gaps) if len(gaps) > 1 else 0.0
            found = sum(r[f"{s}_gap"] == 0.0 for r in sel)
            none = sum(r[f"{s}_gap"] == 1.0 for r in sel)
            bad = sum(r[f"{s}_returned_infeasible"] for r in sel)
            computed = statistics.mean(r[f"{s}_computed"] for r in sel)
            print(f"  {s:6s} gap {statistics.mean(gaps):.4f}% (sd {sd:.4f}), optimum found "
                  f"{found}/{len(sel)}, nothing feasible {none}, returned infeasible {bad}, "
                  f"mean points computed {computed:.1f}")
        better = sum(r["tpe_gap"] < r["random_gap"] for r in sel)
        tied = sum(r["tpe_gap"] == r["random_gap"] for r in sel)
        print(f"  paired (TPE vs random): {better} better / {tied} tied / "
              f"{len(sel) - better - tied} worse")

    budget = rows[0]["budget"]
    print(f"AutoPilot search, {'quick' if args.quick else 'full'} grid "
          f"({rows[0]['points']} points per class/environment), budget {budget} trials, "
          f"seeds {args.first_seed}-{args.first_seed + args.seeds - 1}; settings: {search_settings('tpe', quick=args.quick)}")
    summary("all", rows)
    for uav in UAV_CLASSES:
        summary(uav, [r for r in rows if r["uav"] == uav])
    if args.csv is not None:
        write_csv(args.csv, rows)
        print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
