"""Benchmark of archsim.sim.distributed (targets from issue 7).

1. Strategy search for llama-70b on 1,024 H100s (target < 30 s on one core).
2. A 10,000-sample Monte Carlo of a 65,536-GPU iteration (target < 10 s), with the
   default path (rank skipping / inverse transform) and drawing every rank.

Run: ``python bench/distributed_speed.py``.
"""

from __future__ import annotations

import time

from archsim.sim.distributed import (
    PRISM_DEFAULT,
    LLMWorkload,
    VariabilityModel,
    iteration_distribution,
    make_cluster,
    search,
)


def _timed(fn):
    """Wall seconds (what the targets are about); CPU seconds are printed by main too."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    _timed.cpu_s = time.process_time() - c0
    return out, time.perf_counter() - t0


def main() -> None:
    wl = LLMWorkload(model="llama-70b", seq_len=4096)
    cluster = make_cluster(gpu="h100", num_gpus=1024, network="ib-ndr")
    res, t_search = _timed(lambda: search(wl, cluster, global_batch=1024))
    print(f"search llama-70b on 1024 H100: {res.num_evaluated} strategies "
          f"({len(res.ranked)} legal) in {t_search:.2f} s wall, {_timed.cpu_s:.2f} s CPU "
          f"[target 30 s: {30 / t_search:.0f}x margin]; best {res.best.strategy}, "
          f"{res.speedup:.2f}x over baseline")

    big = search(wl, make_cluster(gpu="h100", num_gpus=65536), global_batch=4096).best
    # scipy is imported on first use (it costs ~0.5 s); import it before timing the runs.
    iteration_distribution(big, PRISM_DEFAULT, samples=1, num_ranks=8)
    cases = [
        ("PRISM default (gpu_sigma>0), rank skipping", PRISM_DEFAULT, False),
        ("PRISM default, every rank drawn", PRISM_DEFAULT, True),
        ("identical GPUs, inverse transform", VariabilityModel(kernel_sigma=0.05, gpu_sigma=0.0),
         False),
        ("identical GPUs, every rank drawn", VariabilityModel(kernel_sigma=0.05, gpu_sigma=0.0),
         True),
    ]
    for label, vm, brute in cases:
        d, t_mc = _timed(lambda vm=vm, brute=brute: iteration_distribution(
            big, vm, samples=10_000, num_ranks=65536, method="mc", brute_force=brute))
        cpu_mc = _timed.cpu_s
        _, t_an = _timed(lambda vm=vm: iteration_distribution(big, vm, num_ranks=65536,
                                                               method="analytic"))
        print(f"MC 10,000 x 65,536 GPUs, {label}: {t_mc:.2f} s wall, {cpu_mc:.2f} s CPU "
              f"[target 10 s: "
              f"{10 / t_mc:.1f}x]; analytic {t_an:.3f} s; slowdown "
              f"{d.expected_slowdown(method='mc'):.2%}")


if __name__ == "__main__":
    main()
