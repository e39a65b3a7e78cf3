"""``archsim study prism``: training time as a random variable (PRISM) and MLPerf's method.

PRISM: Golden et al., arXiv:2510.15596 -- 9% GPU-time variability at 64k GPUs, up to
1.26x from node placement, probabilistic guarantees on training time. Per-GPU spreads from
Sinha et al., SC22 (arXiv:2208.11035) and PRISM's GEMM figure; placement from
:mod:`archsim.sim.distributed.placement`. MLPerf Training: Mattson et al., MLSys 2020 --
time-to-train with run-to-run variance. See README.md for what is verified and assumed.
"""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np

from ....compilers.graph import get_dlrm
from ...distributed.cluster import make_cluster
from ...distributed.mlperf import ConvergenceModel, mlperf_score, simulate_time_to_train
from ...distributed.models import DLRMWorkload, LLMWorkload
from ...distributed.placement import (
    Layout,
    SpeedModel,
    iteration_factor,
    place,
    placement_gain,
    sigma_from_variation,
)
from ...distributed.search import search
from ...distributed.variability import (
    PRISM_DEFAULT,
    VARIABILITY_DEFINITIONS,
    VariabilityModel,
    expected_max_over_median,
    finish_time_quantiles,
    gpu_time_variability,
    iteration_distribution,
    probability_of_finishing,
    slowdown_vs_gpus,
)
from .. import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["COLLECTIVE_SPREAD_CSV", "load_collective_spread", "run"]


#: Published GPU-to-GPU spreads (same SKU, one cluster). Sinha et al., "Not All GPUs Are
#: Created Equal", SC22 (arXiv:2208.11035v3, abstract): "8% (max 22%) average performance
#: variation", "outliers up to 1.5X slower than the median GPU". PRISM (abstract): "up to a
#: 14% variation in GPU performance on GEMM workloads". Both read as the box plot's range
#: without outliers over the median (our reading of "variation"; not verified in the texts).
SINHA_AVG_VARIATION = 0.08
SINHA_MAX_VARIATION = 0.22
PRISM_GEMM_VARIATION = 0.14
SINHA_OUTLIER_MAX_SLOWDOWN = 1.5
#: Assumed: the share of GPUs that are slow outliers (no published rate found), the spare
#: nodes a variability-aware scheduler may leave out (1% of the job's nodes), and the
#: share of the per-GPU log-variance common to a rack (correlated slowness, swept).
OUTLIER_FRACTION = 1e-3
SPARE_NODE_FRACTION = 0.01
RACK_SHARE = 0.5
#: Measured per-collective transfer-time spread: ByteDance-Seed/StragglerAnalysis
#: (arXiv:2505.05713, Apache-2.0) traces reduced by ``make_collective_spread.py``.
COLLECTIVE_SPREAD_CSV = Path(__file__).parent / "data" / "collective_spread.csv"
#: Assumed: the per-kernel log-sigma of the transient noise; the study also reports the
#: headline at half and twice it.
KERNEL_SIGMA_SENSITIVITY = (0.5, 2.0)


def load_collective_spread(path: Path = COLLECTIVE_SPREAD_CSV
                           ) -> tuple[list[dict[str, Any]], str]:
    """The rows of a collective-spread CSV (numbers as floats or ints) and its source line.

    The source is the CSV's leading ``#`` comment (repository, commit, license).
    """
    lines = Path(path).read_text().splitlines()
    source = " ".join(ln.lstrip("# ") for ln in lines if ln.startswith("#"))
    rows: list[dict[str, Any]] = []
    for raw in csv.DictReader(ln for ln in lines if not ln.startswith("#")):
        row: dict[str, Any] = dict(raw)
        for key in ("instances", "collectives"):
            row[key] = int(row[key])
        for key in ("log_sigma", "p01", "p50", "p99", "median_transfer_ms"):
            row[key] = float(row[key])
        rows.append(row)
    if not any(r["trace"] == "all" and r["collective"] == "pooled" for r in rows):
        raise ValueError(f"{path}: no 'all,pooled' row")
    return rows, source


def _plot_finish(curves: dict[str, tuple[np.ndarray, np.ndarray]], det_days: float,
                 path: Path) -> Path:
    """One panel per placement (their ranges differ by more than their widths)."""
    from matplotlib.figure import Figure

    from ....outputs import save_figure

    fig = Figure(figsize=(4.0 * len(curves), 4.0))
    axes = fig.subplots(1, len(curves), squeeze=False)[0]
    for ax, (label, (days, prob)) in zip(axes, curves.items(), strict=True):
        ax.plot(days / det_days, prob)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("deadline / deterministic date")
    axes[0].set_ylabel("P(2T tokens done by deadline)")
    return save_figure(fig, path)


def run(*, out_dir: Path, seed: int = 0, quick: bool = False,
        collective_spread_csv: Path = COLLECTIVE_SPREAD_CSV) -> StudyResult:
    """GPU time variability at 64k GPUs, variability-aware placement, the
    probability-of-finishing curve, strategy sensitivity and the MLPerf summary.

    ``collective_spread_csv`` gives each exposed collective's measured log-sigma (its
    ``all,pooled`` row); by default the shipped reduction of ByteDance's traces.
    """
    from ...distributed.plots import (
        plot_iteration_distribution,
        plot_slowdown_vs_gpus,
        plot_time_to_train,
    )

    out_dir = Path(out_dir)
    result = StudyResult(name="prism", title="PRISM: training time as a random variable")
    # 1. the best strategy for a 70B model on 64k H100s
    n_big = 65536
    wl = LLMWorkload(model="llama-70b", seq_len=4096)
    batch = 4096  # 16M tokens per iteration
    cluster = make_cluster(gpu="h100", num_gpus=n_big, network="ib-ndr")
    res = search(wl, cluster, global_batch=batch)
    best = res.best
    noisy = best.compute_s + best.recompute_s + best.bubble_s
    exposed = best.iteration_s - noisy
    kernels = best.details.get("kernels", 1000)
    # transient noise only: persistent GPU speeds enter through the placement model;
    # each exposed collective's spread measured (ByteDance's traces, pooled AG + RS)
    spread_rows, spread_source = load_collective_spread(collective_spread_csv)
    by_key = {(r["trace"], r["collective"]): r for r in spread_rows}
    comm = by_key[("all", "pooled")]
    vm = VariabilityModel(kernel_sigma=PRISM_DEFAULT.kernel_sigma, gpu_sigma=0.0,
                          comm_sigma=comm["log_sigma"])
    gpu_sigma = sigma_from_variation(SINHA_AVG_VARIATION)
    speed = SpeedModel(gpu_sigma=gpu_sigma, gpus_per_node=cluster.gpus_per_node)
    draws = 4 if quick else 16

    # 2. GPU time variability: the spread of one step's per-GPU compute times
    step_sigma = vm.segment_sigma(kernels)  # a step's kernels summed (Fenton-Wilkinson)
    defs: dict[str, list[float]] = {k: [] for k in VARIABILITY_DEFINITIONS}
    rng = np.random.default_rng([seed, 21])
    for k in range(draws):
        t = speed.draw(n_big, seed=seed + k) * rng.lognormal(0.0, step_sigma, n_big)
        for key, v in gpu_time_variability(t).items():
            defs[key].append(v)
    var_new = {k: float(np.mean(v)) for k, v in defs.items()}
    closed = expected_max_over_median(math.hypot(gpu_sigma, step_sigma), n_big)
    high = {}
    for label, variation in (("PRISM 14%", PRISM_GEMM_VARIATION),
                             ("Sinha max 22%", SINHA_MAX_VARIATION)):
        high[label] = expected_max_over_median(
            math.hypot(sigma_from_variation(variation), step_sigma), n_big)
    # the old figure, kept for comparison: E[T]/T_det - 1 with the old assumed model
    old = iteration_distribution(best, PRISM_DEFAULT, seed=seed, method="analytic",
                                 grid_points=1024)
    old_slowdown = old.expected_slowdown()
    var_drives = (f"per-GPU persistent time multiplier log-normal, log-sigma {gpu_sigma:.4f} "
                  f"from Sinha et al. SC22's 8% average GPU-to-GPU variation (read as the "
                  f"whisker range / median); per-kernel log-sigma {vm.kernel_sigma} (assumed); "
                  "outliers screened out of the job")
    result.comparisons.append(Comparison(
        metric="GPU time variability at 64k GPUs: slowest GPU's step compute time / median - 1",
        published="9% GPU time variability at 64k GPUs", published_low=9.0,
        published_high=9.0, ours=100 * var_new["max_over_median"], unit="%",
        band=Band.around(9.0), direction=Direction(above=0.0), expected=Status.IN_SHAPE,
        assumption=var_drives,
        note=f"our reading of the paper's definition (not verified); Monte Carlo over {draws} "
             f"clusters; closed form (order statistic, numerical integration) "
             f"{100 * closed:.2f}%; with PRISM's 14% GEMM spread {100 * high['PRISM 14%']:.1f}%,"
             f" with Sinha's max 22% {100 * high['Sinha max 22%']:.1f}%"))
    for key, text in VARIABILITY_DEFINITIONS.items():
        if key == "max_over_median":
            continue
        result.observations.append(Observation(
            metric=f"GPU time variability, other definition: {key}", ours=100 * var_new[key],
            unit="%", note=text))
    result.observations.append(Observation(
        metric="old figure: expected slowdown E[iteration]/deterministic - 1 (old assumed "
               "model, per-GPU log-sigma ln(1.14)/6.5)", ours=100 * old_slowdown, unit="%",
        note="what the study compared with 9% before; a different quantity"))
    var_rows = [{"definition": k, "meaning": VARIABILITY_DEFINITIONS[k],
                 "ours_pct": 100 * var_new[k],
                 "ours_pct_min": 100 * min(defs[k]), "ours_pct_max": 100 * max(defs[k])}
                for k in VARIABILITY_DEFINITIONS]
    var_rows.append({"definition": "old: E[T]/T_det - 1",
                     "meaning": "expected slowdown of the iteration (old model)",
                     "ours_pct": 100 * old_slowdown, "ours_pct_min": None,
                     "ours_pct_max": None})
    var_rows.append({"definition": "max_over_median, closed form",
                     "meaning": "E[max of N iid log-normals] - 1 by numerical integration",
                     "ours_pct": 100 * closed, "ours_pct_min": None, "ours_pct_max": None})

    # 3. iteration-time distribution from transient noise (Monte Carlo and analytic)
    samples = 2000 if quick else 10_000
    dist = iteration_distribution(best, vm, samples=samples, seed=seed)
    spread = (dist.quantile(0.99) - dist.quantile(0.01)) / dist.quantile(0.5)
    result.observations.append(Observation(
        metric="iteration time p1-p99 spread / median (transient noise)", ours=100 * spread,
        unit="%", note=f"not published; each exposed collective log-sigma "
                       f"{vm.comm_sigma:.4f} (measured), per-kernel {vm.kernel_sigma} (assumed)"))
    for name in ("params-all-gather", "grads-reduce-scatter", "pooled"):
        sr = by_key[("all", name)]
        result.observations.append(Observation(
            metric=f"measured collective transfer-time log-sigma: {name}", ours=sr["log_sigma"],
            note=f"{sr['instances']} instances of {sr['collectives']} collectives across steps; "
                 f"p1/p99 of time / geometric mean {sr['p01']:.3f}/"
                 f"{sr['p99']:.3f}; ByteDance-Seed/StragglerAnalysis traces"
                 + ("; used for every exposed collective" if name == "pooled" else "")))
    # sensitivity: the widest per-job collective spread and the old assumed 0.2
    widest = max((sr for sr in spread_rows if sr["trace"] != "all"),
                 key=lambda sr: sr["log_sigma"])
    for label, sc in ((f"widest measured ({widest['trace']} {widest['collective']})",
                       widest["log_sigma"]), ("old assumed", PRISM_DEFAULT.comm_sigma)):
        alt = iteration_distribution(best, VariabilityModel(
            kernel_sigma=vm.kernel_sigma, gpu_sigma=0.0, comm_sigma=sc), seed=seed,
            method="analytic")
        result.observations.append(Observation(
            metric=f"sensitivity: iteration p1-p99 spread / median with collective log-sigma "
                   f"{sc:.3f}, {label}", ours=100 * (alt.quantile(0.99) - alt.quantile(0.01))
            / alt.quantile(0.5), unit="%", note=f"vs {100 * spread:.3f}% at the pooled "
                                              f"{vm.comm_sigma:.4f}"))
    # sensitivity of the variability headline to the assumed per-kernel log-sigma
    for mult in KERNEL_SIGMA_SENSITIVITY:
        ks = mult * vm.kernel_sigma
        s_k = VariabilityModel(kernel_sigma=ks, gpu_sigma=0.0).segment_sigma(kernels)
        result.observations.append(Observation(
            metric=f"sensitivity: GPU time variability (closed form) with per-kernel "
                   f"log-sigma {ks:g} (assumed {vm.kernel_sigma:g} x {mult:g})",
            ours=100 * expected_max_over_median(math.hypot(gpu_sigma, s_k), n_big), unit="%",
            note=f"vs {100 * closed:.2f}% at {vm.kernel_sigma:g}"))
    qrows = [{"quantile": q, "analytic_s": dist.quantile(q),
              "monte_carlo_s": dist.quantile(q, method="mc")}
             for q in (0.01, 0.1, 0.5, 0.9, 0.99)]
    noisy_frac = noisy / best.iteration_s
    counts = [1024, 4096, 16384, 65536] if quick else [256, 1024, 4096, 16384, 65536, 131072]
    scale_model = VariabilityModel(kernel_sigma=vm.kernel_sigma, gpu_sigma=gpu_sigma)
    scale_rows = slowdown_vs_gpus(scale_model, counts, noisy_fraction=noisy_frac,
                                  segments=best.sync_points, kernels_per_iteration=kernels,
                                  seed=seed)

    # 4. placement: random vs variability-aware, over published spreads and assumed outliers
    layout = Layout.from_strategy(best.strategy,
                                  micro_batches=int(best.details["micro_batches"]))
    spares = max(1, round(SPARE_NODE_FRACTION * n_big / cluster.gpus_per_node))

    def iteration_gain(g: dict[str, float], base: str) -> float:
        return (exposed + noisy * g[f"{base}_factor"]) / (exposed + noisy * g["aware_factor"])

    place_rows: list[dict[str, Any]] = []
    spreads = [("Sinha avg 8%", SINHA_AVG_VARIATION), ("PRISM 14%", PRISM_GEMM_VARIATION),
               ("Sinha max 22%", SINHA_MAX_VARIATION)]
    # full mode also sweeps the assumed outlier rate a decade each way
    rates = (0.0, OUTLIER_FRACTION) if quick else (0.0, OUTLIER_FRACTION / 10,
                                                   OUTLIER_FRACTION, OUTLIER_FRACTION * 10)
    for (label, variation), outliers, rack, n_spare in itertools.product(
            spreads, rates, (0.0, RACK_SHARE), (0, spares)):
        if quick and (rack > 0 or label == "Sinha max 22%"):
            continue
        sm = SpeedModel(gpu_sigma=sigma_from_variation(variation), rack_share=rack,
                        outlier_fraction=outliers,
                        outlier_max_slowdown=SINHA_OUTLIER_MAX_SLOWDOWN,
                        gpus_per_node=cluster.gpus_per_node)
        g = placement_gain(layout, sm, spare_nodes=n_spare, draws=draws, seed=seed)
        place_rows.append({"gpu_spread": label, "outlier_fraction": outliers,
                           "rack_share": rack, "spare_nodes": n_spare, **g,
                           "iteration_gain_vs_random": iteration_gain(g, "random"),
                           "iteration_gain_vs_contiguous": iteration_gain(g, "contiguous")})
    head = next(r for r in place_rows if r["gpu_spread"] == "Sinha avg 8%"
                and r["outlier_fraction"] == OUTLIER_FRACTION and r["rack_share"] == 0
                and r["spare_nodes"] == spares)
    no_out = next(r for r in place_rows if r["gpu_spread"] == "Sinha avg 8%"
                  and r["outlier_fraction"] == 0 and r["rack_share"] == 0
                  and r["spare_nodes"] == spares)
    pure = next(r for r in place_rows if r["gpu_spread"] == "Sinha avg 8%"
                and r["outlier_fraction"] == OUTLIER_FRACTION and r["rack_share"] == 0
                and r["spare_nodes"] == 0)
    place_drives = (f"outliers: {OUTLIER_FRACTION:.1%} of GPUs (assumed) up to Sinha et al.'s "
                    f"1.5x; the aware scheduler leaves out the slowest {spares} of "
                    f"{n_big // cluster.gpus_per_node + spares} nodes (1% spares, assumed) and "
                    "knows every GPU's speed (an upper bound)")
    result.comparisons.append(Comparison(
        metric=f"iteration-time gain of variability-aware placement over random, "
               f"{best.strategy} on 64k H100",
        published="up to 1.26x (PRISM, depending on computation node placement)",
        published_low=1.26, published_high=1.26, ours=head["iteration_gain_vs_random"],
        unit="x", band=Band.around(1.26), direction=Direction(above=1.0),
        expected=Status.REPRODUCED, assumption=place_drives,
        note=f"compute factor {head['random_factor']:.3f} random vs {head['aware_factor']:.3f}"
             f" aware; without outliers {no_out['iteration_gain_vs_random']:.3f}x; without "
             f"spares (placement alone) {pure['iteration_gain_vs_random']:.4f}x; max over the "
             f"grid {max(r['iteration_gain_vs_random'] for r in place_rows):.3f}x"))

    # 5. probability of finishing 2T tokens, over GPU allocations, by placement
    tokens = 2e12
    iterations = math.ceil(tokens / best.tokens_per_iteration)
    det_days = iterations * best.iteration_s / 86400
    pool_model = SpeedModel(gpu_sigma=gpu_sigma, outlier_fraction=OUTLIER_FRACTION,
                            outlier_max_slowdown=SINHA_OUTLIER_MAX_SLOWDOWN,
                            gpus_per_node=cluster.gpus_per_node)
    allocs = 4 if quick else 32
    per_kind: dict[str, list[Any]] = {"random": [], "aware": []}
    for k in range(allocs):
        pool = pool_model.draw(n_big + spares * cluster.gpus_per_node, seed=seed + 1000 + k)
        for kind in per_kind:
            f = float(iteration_factor(layout, place(
                layout, pool, kind=kind, gpus_per_node=cluster.gpus_per_node,
                spare_nodes=spares, seed=seed + k)))
            per_kind[kind].append(iteration_distribution(
                model=vm, deterministic_s=best.iteration_s + noisy * (f - 1.0),
                noisy_s=noisy * f, num_ranks=n_big, segments=best.sync_points,
                kernels_per_iteration=kernels,
                collectives_per_iteration=best.details.get("collectives", 100),
                seed=seed + k, method="analytic", grid_points=512))
    qs = (0.01, 0.1, 0.5, 0.9, 0.99)
    total_q = {kind: finish_time_quantiles(d, iterations, qs) for kind, d in per_kind.items()}
    # each placement's curve over its own range: from its 0.1% to its 99.9% quantile
    curves = {}
    finish_rows = []
    for kind, d in per_kind.items():
        ends = finish_time_quantiles(d, iterations, (0.001, 0.999))
        days = np.linspace(ends[0.001] / 86400, ends[0.999] / 86400, 201)
        prob = probability_of_finishing(d, iterations, days * 86400)
        curves[kind] = (days, prob)
        finish_rows += [{"placement": kind, "deadline_days": float(days[i]),
                         "over_deterministic": float(days[i] / det_days),
                         "p_finish": float(prob[i])} for i in range(0, days.size, 10)]
    total_rows = [{"quantile": q, "deterministic_days": det_days,
                   **{f"total_days_{kind}": total_q[kind][q] / 86400 for kind in per_kind}}
                  for q in qs]
    for kind in per_kind:
        p10 = float(probability_of_finishing(per_kind[kind], iterations,
                                             1.10 * det_days * 86400))
        result.observations.append(Observation(
            metric=f"P(finish 2T tokens within 1.10x the deterministic date), {kind} placement",
            ours=p10, note=f"median {total_q[kind][0.5] / 86400:.2f} days, p99 "
                           f"{total_q[kind][0.99] / 86400:.2f} days, deterministic "
                           f"{det_days:.2f} days; over {allocs} allocations"))
    p_det = float(probability_of_finishing(per_kind["aware"], iterations, det_days * 86400))
    result.observations.append(Observation(
        metric="P(finish by the deterministic date), aware placement", ours=p_det,
        note="near 0 by construction: every noise term only slows (the max over ranks); "
             "the curve and quantiles above are the guarantees"))

    # 6. sensitivity of strategies: expected time and placement gain (top distinct shapes)
    sens_rows: list[dict[str, Any]] = []
    seen = set()
    sens_model = SpeedModel(gpu_sigma=gpu_sigma, outlier_fraction=OUTLIER_FRACTION,
                            outlier_max_slowdown=SINHA_OUTLIER_MAX_SLOWDOWN,
                            gpus_per_node=cluster.gpus_per_node)
    for r in res.ranked:
        key = r.strategy.split("-z")[0]  # one row per (dp, tp, pp, cp, interleave) shape
        if key in seen:
            continue
        seen.add(key)
        rd = iteration_distribution(r, vm, seed=seed, method="analytic", grid_points=512)
        lay = Layout.from_strategy(r.strategy, micro_batches=int(r.details["micro_batches"]))
        r_noisy = r.compute_s + r.recompute_s + r.bubble_s
        gains = {}
        for n_spare in (0, spares):
            g = placement_gain(lay, sens_model, spare_nodes=n_spare, draws=2, seed=seed)
            gains[n_spare] = ((r.iteration_s - r_noisy + r_noisy * g["random_factor"])
                              / (r.iteration_s - r_noisy + r_noisy * g["aware_factor"]))
        sens_rows.append({"strategy": r.strategy, "deterministic_s": r.iteration_s,
                          "expected_s": rd.mean_s(), "p99_s": rd.quantile(0.99),
                          "slowdown": rd.expected_slowdown(),
                          "placement_gain_no_spares": gains[0],
                          "placement_gain_with_spares": gains[spares],
                          "micro_batches": lay.micro_batches, "pp": lay.pp,
                          "exposed_comm_fraction": r.exposed_comm_fraction,
                          "sync_points": r.sync_points})
        if len(sens_rows) >= (3 if quick else 8):
            break
    # 5. MLPerf time-to-train of DLRM on 128 A100 (Criteo 1TB)
    dl = DLRMWorkload(model=get_dlrm("dlrm-mlperf"))
    dl_res = search(dl, make_cluster(gpu="a100-80gb", num_gpus=128, network="ib-hdr"),
                    global_batch=65536)
    # 128 GPUs: persistent per-GPU speeds (Sinha-calibrated) enter the order statistics
    dl_model = VariabilityModel(kernel_sigma=vm.kernel_sigma, gpu_sigma=gpu_sigma,
                                comm_sigma=vm.comm_sigma)
    dl_dist = iteration_distribution(dl_res.best, dl_model, seed=seed, method="analytic")
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
    result.tables = {"variability_definitions": var_rows, "iteration_quantiles": qrows,
                     "slowdown_vs_gpus": scale_rows, "placement": place_rows,
                     "probability_of_finishing": finish_rows, "total_time": total_rows,
                     "strategy_sensitivity": sens_rows, "collective_spread": spread_rows,
                     "mlperf": [{"model": "dlrm-mlperf", "gpus": 128,
                                 "strategy": dl_res.best.strategy, **score.to_row()}]}
    result.assumptions += [
        "PRISM's definition of '9% GPU time variability' could not be verified beyond its "
        "abstract; our reading: the slowest GPU's step compute time over the median GPU's, "
        "minus 1 (the wait every other GPU has); three other definitions and the old "
        "E[T]/T_det - 1 are reported beside it",
        f"per-GPU persistent time multiplier: log-normal, log-sigma {gpu_sigma:.4f} = "
        "asinh(0.08/2)/2.698, reading Sinha et al. SC22's '8% average performance variation' "
        "as the Tukey-whisker range over the median (our reading); PRISM's 14% and Sinha's "
        "22% maximum give the high cases",
        f"slow outliers: {OUTLIER_FRACTION:.1%} of GPUs (assumed; no published rate found), "
        "multiplier uniform from the upper whisker to Sinha et al.'s 1.5x; the 64k-GPU job "
        "of the variability headline is screened (no outliers)",
        f"correlated slowness: {RACK_SHARE:.0%} of the log-variance common to a rack of 4 "
        "nodes in the sweep (assumed); 0 in the headline",
        f"variability-aware placement: leaves out the slowest {spares} nodes (1% spares, "
        "assumed), perfect knowledge of each GPU's speed (an upper bound), slowest nodes in "
        "the same pipeline stage of different replicas; random: a speed-blind scheduler",
        "pipeline with unequal stages: m max(t) + (sum(t) - max(t)) / v (steady state at the "
        "slowest stage, no stage rebalancing); a TP x CP group runs at its slowest member; "
        "data-parallel replicas wait for the slowest (ZeRO <= 2: once per iteration)",
        f"per-kernel runtime factor: mean-1 log-normal, log-sigma {vm.kernel_sigma} (assumed)"
        "; kernels of a rank between synchronizations summed (Fenton-Wilkinson log-normal)",
        "each exposed collective: mean-1 log-normal (the shape assumed), one event shared by "
        f"its ranks, log-sigma {vm.comm_sigma:.4f} measured: the pooled AllGather + "
        "ReduceScatter transfer-time spread across steps; source: " + spread_source,
        "probability of finishing: mixture over GPU allocations (pools redrawn per seed); "
        "within one allocation iterations are independent (normal total by the CLT; checked "
        "against summed Monte Carlo iterations in the tests)",
        f"workload: llama-70b, seq 4096, {batch} sequences per iteration, 65,536 H100 + NDR, "
        f"best deterministic strategy {best.strategy}; training 2T tokens = {iterations} "
        "iterations",
        "MLPerf: DLRM on Criteo 1TB (4,195,197,692 samples/epoch), 128 A100-80GB, batch "
        "65,536; epochs-to-quality log-normal mean 0.85, cv 5% (assumed); 120 s init; 5 runs, "
        "drop fastest and slowest, mean of 3",
    ]
    result.files.append(plot_iteration_distribution(
        dist, out_dir / "iteration_distribution.png",
        title=f"llama-70b {best.strategy}, 65,536 H100"))
    result.files.append(plot_slowdown_vs_gpus(scale_rows, out_dir / "slowdown_vs_gpus.png",
                                              published=(65536, 0.09)))
    result.files.append(_plot_finish({f"{k} placement": c for k, c in curves.items()},
                                     det_days, out_dir / "probability_of_finishing.png"))
    result.files.append(plot_time_to_train(runs.ravel() / 3600, scores / 3600,
                                           out_dir / "time_to_train.png"))
    return result
