"""Benchmark: CPU time of the serving engine on 100,000 requests, every policy (goal: < 5 s).

Run: ``python bench/serving_speed.py [--requests N] [--rate R] [--offline]``. For each
policy it prints the requests, the CPU seconds of :func:`simulate` (``time.process_time``,
so other load on the machine matters less than for wall time), simulated requests per CPU
second, the goal and the ratio CPU / goal (below 1 meets it), on LLaMA-13B / A100-80GB with
Alpaca-like lengths under a Poisson load (issue #22: 100k requests at 20/s in under 5 s).
The machine's load average is printed next to the figures. Each run gets a fresh
:class:`Deployment` (its cost model's price cache starts empty), so the order of the
policies does not change their figures.
"""

from __future__ import annotations

import argparse
import os
import time

from archsim.sim.serving import Deployment, generate_requests, make_policy, simulate

#: Every policy the CLI names, and S3 with an exact predictor.
POLICIES = ("worst-case", "s3", "oracle", "paged", "paged-swap", "s3-exact")

#: CPU seconds for the requests of issue #22 (100k at Poisson 20/s).
GOAL_CPU_S = 5.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--offline", action="store_true",
                        help="also run an offline batch (every arrival at t = 0)")
    args = parser.parse_args()
    goal = GOAL_CPU_S * args.requests / 100_000
    print(f"{args.requests} requests, llama-13b on 1x a100-80gb, alpaca lengths; "
          f"goal {goal:g} s CPU per policy; load average before: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'load':>14} {'policy':>16} {'requests':>9} {'cpu_s':>7} {'req/s (cpu)':>12} "
          f"{'goal_s':>7} {'cpu/goal':>9} {'iterations':>11}")
    loads: list[tuple[str, float | None]] = [(f"poisson {args.rate:g}/s", args.rate)]
    if args.offline:
        loads.append(("offline", None))
    for label, rate in loads:
        reqs = generate_requests(args.requests, rate_per_s=rate, seed=0)
        for name in POLICIES:
            # a fresh deployment per run: the cost model caches priced iteration shapes, and
            # policies with the same schedule would otherwise reuse the previous run's prices
            dep = Deployment.build(model="llama-13b", gpu="a100-80gb")
            c0 = time.process_time()
            res = simulate(dep, reqs, make_policy(name), seed=0)
            cpu = time.process_time() - c0
            print(f"{label:>14} {name:>16} {args.requests:9d} {cpu:7.2f} "
                  f"{args.requests / cpu:12.0f} {goal:7.2f} {cpu / goal:9.2f} "
                  f"{res.metrics.iterations:11d}", flush=True)
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
