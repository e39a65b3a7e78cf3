"""Benchmark: simulated requests per second of the serving engine (target: 100,000 in < 10 s).

Run: ``python bench/serving_speed.py [--requests N]``. Prints wall time and
CPU time and simulated requests/s (per wall second) for each policy under an online Poisson load and an
offline batch, on LLaMA-13B / A100-80GB with Alpaca-like lengths.
"""

from __future__ import annotations

import argparse
import time

from archsim.sim.serving import Deployment, generate_requests, make_policy, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args()
    dep = Deployment.build(model="llama-13b", gpu="a100-80gb")
    print(f"{args.requests} requests, llama-13b on 1x a100-80gb, alpaca lengths")
    print(f"{'load':>16} {'policy':>16} {'wall_s':>8} {'cpu_s':>7} {'req/s (wall)':>13} "
          f"{'iterations':>11} {'tokens/s (model)':>17}")
    for label, rate in ((f"poisson {args.rate:g}/s", args.rate), ("offline", None)):
        reqs = generate_requests(args.requests, rate_per_s=rate, seed=0)
        for name in ("worst-case", "s3", "oracle", "paged"):
            t0, c0 = time.perf_counter(), time.process_time()
            res = simulate(dep, reqs, make_policy(name), seed=0)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            m = res.metrics
            print(f"{label:>16} {res.policy:>16} {wall:8.2f} {cpu:7.2f} "
                  f"{args.requests / wall:13.0f} {m.iterations:11d} "
                  f"{m.throughput_tokens_per_s:17.0f}")


if __name__ == "__main__":
    main()
