"""``archsim study prism``: training time as a random variable (PRISM) and MLPerf's method.

PRISM: Golden et al., arXiv:2510.15596 -- 9% GPU-time variability at 64k GPUs;
probabilistic guarantees on training time. MLPerf Training: Mattson et al., MLSys 2020 --
time-to-train with run-to-run variance.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ....compilers.graph import get_dlrm
from ...distributed.cluster import make_cluster
from ...distributed.mlperf import ConvergenceModel, mlperf_score, simulate_time_to_train
from ...distributed.models import DLRMWorkload, LLMWorkload
from ...distributed.search import search
from ...distributed.variability import (
    PRISM_DEFAULT,
    iteration_distribution,
    probability_of_finishing,
    slowdown_vs_gpus,
    total_time_quantiles,
)
from .. import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["run"]


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Variability at 64k GPUs, the probability-of-finishing curve, strategy sensitivity and
    the MLPerf time-to-train summary."""
    from ...distributed.plots import (
        plot_iteration_distribution,
        plot_probability_of_finishing,
        plot_slowdown_vs_gpus,
        plot_time_to_train,
    )

    out_dir = Path(out_dir)
    vm = PRISM_DEFAULT
    result = StudyResult(name="prism", title="PRISM: training time as a random variable")
    # 1. the best strategy for a 70B model on 64k H100s
    n_big = 65536
    wl = LLMWorkload(model="llama-70b", seq_len=4096)
    batch = 4096  # 16M tokens per iteration
    cluster = make_cluster(gpu="h100", num_gpus=n_big, network="ib-ndr")
    res = search(wl, cluster, global_batch=batch)
    best = res.best
    samples = 2000 if quick else 10_000
    dist = iteration_distribution(best, vm, samples=samples, seed=seed)
    slowdown = dist.expected_slowdown()
    spread = (dist.quantile(0.99) - dist.quantile(0.01)) / dist.quantile(0.5)
    # PRISM's 9% is one figure; default +-10% band. The claim's direction: variability
    # slows training down (expected slowdown > 0).
    var_drives = (f"per-kernel log-sigma {vm.kernel_sigma} and per-collective log-sigma "
                  f"{vm.comm_sigma} (assumed); per-GPU speed log-sigma {vm.gpu_sigma:.4f} from "
                  "PRISM's 'up to 14% GEMM variation'")
    result.comparisons += [
        Comparison(metric=f"expected slowdown from variability, {best.strategy} on 64k H100",
                   published="9% GPU-time variability at 64k GPUs", published_low=9.0,
                   published_high=9.0, ours=100 * slowdown, unit="%", band=Band.around(9.0),
                   direction=Direction(above=0.0), expected=Status.IN_SHAPE,
                   assumption=var_drives,
                   note="E[iteration]/deterministic - 1 (analytic)"),
        Comparison(metric="same, Monte Carlo", published="9% GPU-time variability at 64k GPUs",
                   published_low=9.0, published_high=9.0,
                   ours=100 * dist.expected_slowdown(method="mc"), unit="%",
                   band=Band.around(9.0), direction=Direction(above=0.0),
                   expected=Status.IN_SHAPE, assumption=var_drives, note=f"{samples} samples"),
    ]
    result.observations.append(Observation(
        metric="iteration time p1-p99 spread / median", ours=100 * spread, unit="%",
        note="not published"))
    qrows = [{"quantile": q, "analytic_s": dist.quantile(q),
              "monte_carlo_s": dist.quantile(q, method="mc")}
             for q in (0.01, 0.1, 0.5, 0.9, 0.99)]
    noisy_frac = dist.noisy_s / dist.deterministic_s
    # 2. slowdown as the GPU count grows (same strategy shape per GPU)
    counts = [1024, 4096, 16384, 65536] if quick else [256, 1024, 4096, 16384, 65536, 131072]
    kernels = best.details.get("kernels", 1000)
    scale_rows = slowdown_vs_gpus(vm, counts, noisy_fraction=noisy_frac,
                                  segments=best.sync_points, kernels_per_iteration=kernels,
                                  seed=seed)
    # 3. probability of finishing: 2T tokens
    tokens = 2e12
    iterations = math.ceil(tokens / best.tokens_per_iteration)
    det_days = iterations * best.iteration_s / 86400
    # Each job gets a different set of GPUs: a mixture over cluster draws (persistent speeds).
    draws = [dist] + [iteration_distribution(best, vm, seed=seed + k, method="analytic",
                                             grid_points=512)
                      for k in range(1, 16 if quick else 64)]
    draw_days = np.array([iterations * d.mean_s() / 86400 for d in draws])
    days = np.linspace(det_days * 0.995, max(draw_days.max(), det_days) * 1.01, 400)
    prob = probability_of_finishing(draws, iterations, days * 86400)
    finish_rows = [{"deadline_days": float(d), "p_finish": float(p)}
                   for d, p in zip(days[::20], prob[::20], strict=True)]
    p_det = float(probability_of_finishing(draws, iterations, det_days * 86400))
    total_q = total_time_quantiles(dist, iterations, (0.5, 0.9, 0.99))
    total_rows = [{"quantile": q, "total_days_this_allocation": v / 86400,
                   "total_days_over_allocations": float(np.quantile(draw_days, q)),
                   "deterministic_days": det_days} for q, v in total_q.items()]
    result.observations.append(Observation(
        metric="P(finish 2T tokens by the deterministic model's date)", ours=p_det,
        note=f"PRISM's question, no published value; deterministic {det_days:.3f} days; "
             f"over {len(draws)} GPU allocations "
             f"{draw_days.min():.3f}-{draw_days.max():.3f} days"))
    # 4. sensitivity of strategies (top distinct legal strategies at 64k)
    sens_rows: list[dict[str, Any]] = []
    seen = set()
    for r in res.ranked:
        key = r.strategy.split("-z")[0]  # one row per (dp, tp, pp, cp, interleave) shape
        if key in seen:
            continue
        seen.add(key)
        d = iteration_distribution(r, vm, seed=seed, method="analytic", grid_points=512)
        sens_rows.append({"strategy": r.strategy, "deterministic_s": r.iteration_s,
                          "expected_s": d.mean_s(), "p99_s": d.quantile(0.99),
                          "slowdown": d.expected_slowdown(),
                          "p99_slowdown": d.quantile(0.99) / r.iteration_s - 1.0,
                          "exposed_comm_fraction": r.exposed_comm_fraction,
                          "sync_points": r.sync_points,
                          "collectives": r.details.get("collectives")})
        if len(sens_rows) >= (4 if quick else 10):
            break
    best_expected = min(sens_rows, key=lambda r: r["expected_s"])
    # PRISM's 1.26x comes from variability-aware placement, which we do not model; ours is
    # the gain from re-ranking strategies. Default +-10% band; direction: a gain (> 1x).
    rank_drives = ("strategies re-ranked by expected/p99 time only (no variability-aware "
                   "placement); the same variability model for every strategy")
    result.comparisons.append(Comparison(
        metric="gain from ranking strategies by expected (not deterministic) time",
        published="up to 1.26x (PRISM, from variability-aware placement)",
        published_low=1.26, published_high=1.26,
        ours=sens_rows[0]["expected_s"] / best_expected["expected_s"], unit="x",
        band=Band.around(1.26), direction=Direction(above=1.0),
        expected=Status.NOT_REPRODUCED, assumption=rank_drives,
        note=f"variability-aware best {best_expected['strategy']}; slowdowns range "
             f"{100 * min(r['slowdown'] for r in sens_rows):.1f}-"
             f"{100 * max(r['slowdown'] for r in sens_rows):.1f}% over the top strategies"))
    best_p99 = min(sens_rows, key=lambda r: r["p99_s"])
    result.comparisons.append(Comparison(
        metric="gain from ranking strategies by p99 (not deterministic) time",
        published="up to 1.26x (PRISM, from variability-aware placement)",
        published_low=1.26, published_high=1.26,
        ours=sens_rows[0]["p99_s"] / best_p99["p99_s"], unit="x",
        band=Band.around(1.26), direction=Direction(above=1.0),
        expected=Status.NOT_REPRODUCED, assumption=rank_drives,
        note=f"p99-best {best_p99['strategy']}"))
    # 5. MLPerf time-to-train of DLRM on 128 A100 (Criteo 1TB)
    dl = DLRMWorkload(model=get_dlrm("dlrm-mlperf"))
    dl_res = search(dl, make_cluster(gpu="a100-80gb", num_gpus=128, network="ib-hdr"),
                    global_batch=65536)
    dl_dist = iteration_distribution(dl_res.best, vm, seed=seed, method="analytic")
    samples_per_epoch = 4_195_197_692  # Criteo 1TB training days 0-22
    it_per_epoch = math.ceil(samples_per_epoch / 65536)
    conv = ConvergenceModel(mean_epochs=0.85, cv=0.05)
    score = simulate_time_to_train(iteration_s=dl_dist.mean_s(), iterations_per_epoch=it_per_epoch,
                                   convergence=conv, init_s=120.0, runs_per_result=5, drop=1,
                                   repeats=500 if quick else 5000,
                                   iteration_std_s=dl_dist.std_s() / math.sqrt(it_per_epoch),
                                   seed=seed)
    rng = np.random.default_rng([seed, 7])
    runs = 120.0 + conv.draw(rng, (5000, 5)) * it_per_epoch * dl_dist.mean_s()
    # one score per row of 5 runs; np.asarray because mlperf_score is annotated -> float,
    # which holds only for 1-D input (reported to sim/distributed's owner)
    scores = np.asarray(mlperf_score(runs))
    result.observations.append(Observation(
        metric="MLPerf DLRM time-to-train score (olympic mean of 5), coefficient of variation",
        ours=100 * score.score_std_s / score.score_mean_s, unit="%",
        note=f"MLPerf's methodology, no published value; mean "
             f"{score.score_mean_s / 60:.1f} min; single-run cv "
             f"{100 * runs.std() / runs.mean():.1f}%"))
    result.tables = {"iteration_quantiles": qrows, "slowdown_vs_gpus": scale_rows,
                     "probability_of_finishing": finish_rows, "total_time": total_rows,
                     "strategy_sensitivity": sens_rows,
                     "mlperf": [{"model": "dlrm-mlperf", "gpus": 128,
                                 "strategy": dl_res.best.strategy, **score.to_row()}]}
    result.assumptions += [
        f"per-kernel runtime factor: mean-1 log-normal, log-sigma {vm.kernel_sigma} (assumed); "
        "kernels of a rank between synchronizations summed (Fenton-Wilkinson log-normal)",
        f"per-GPU persistent speed: mean-1 log-normal, log-sigma {vm.gpu_sigma:.4f} = "
        "ln(1.14)/6.5, reading PRISM's 'up to 14% GEMM variation' as the range over ~1,000 GPUs",
        "an iteration synchronizes all ranks at the data-parallel collectives (ZeRO-3: at every "
        "layer's gather); the slowest rank sets each segment",
        f"each exposed collective: mean-1 log-normal, log-sigma {vm.comm_sigma} (assumed; PRISM "
        "names AllGather/ReduceScatter as the main variability sources), one event shared by "
        "its ranks (not a max over ranks)",
        "PRISM's '9% GPU-time variability' is compared with our expected slowdown "
        "E[T]/T_det - 1; the paper's exact definition may differ",
        "probability of finishing: mixture over GPU allocations (persistent speeds redrawn "
        "per seed); within one allocation iterations are independent",
        f"workload: llama-70b, seq 4096, {batch} sequences per iteration, 65,536 H100 + NDR, "
        f"best deterministic strategy {best.strategy}; training 2T tokens = {iterations} "
        "iterations, iterations independent given the cluster (normal total by the CLT)",
        "MLPerf: DLRM on Criteo 1TB (4,195,197,692 samples/epoch), 128 A100-80GB, batch "
        "65,536; epochs-to-quality log-normal mean 0.85, cv 5% (assumed); 120 s init; 5 runs, "
        "drop fastest and slowest, mean of 3",
    ]
    result.files.append(plot_iteration_distribution(
        dist, out_dir / "iteration_distribution.png",
        title=f"llama-70b {best.strategy}, 65,536 H100"))
    result.files.append(plot_slowdown_vs_gpus(scale_rows, out_dir / "slowdown_vs_gpus.png",
                                              published=(65536, 0.09)))
    result.files.append(plot_probability_of_finishing(days, prob, det_days,
                                                      out_dir / "probability_of_finishing.png"))
    result.files.append(plot_time_to_train(runs.ravel() / 3600, scores / 3600,
                                           out_dir / "time_to_train.png"))
    return result
