"""``archsim study madmax``: MAD-Max's parallelization-strategy headlines.

MAD-Max: Hsia et al., "MAD-Max Beyond Single-Node: Enabling Large Machine Learning Model
Acceleration on Distributed Systems", ISCA 2024 (arXiv 2310.02784) -- 14-32% of GPU hours
are exposed communication; the right parallelization gives up to 2.24x (pre-training) and
5.27x (inference). Setup as in MAD-Max's released artifact (samhsia/MADMax): the baselines
are its task configurations (LLMs: FSDP over every GPU, one sequence per GPU; DLRMs:
embedding tables model-parallel over every GPU, MLPs data parallel). The compute
efficiency is calibrated on Megatron-LM's Table 1 (Narayanan et al., SC'21) and Llama 2's
GPU-hours (Touvron et al. 2023) with a TRAIN / HELD-OUT split (:mod:`.calibration`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ....compilers.graph import get_dlrm, get_transformer
from ...distributed.cluster import make_cluster
from ...distributed.models import DLRMWorkload, LLMWorkload
from ...distributed.parallelism import Efficiency
from ...distributed.search import search
from .. import Band, Comparison, Direction, Observation, Status, StudyResult
from .calibration import (
    LLAMA2_GPU_HOURS,
    MEASURED_RUNS,
    EfficiencyFit,
    MeasuredRun,
    fit_compute_efficiency,
    fit_gemm_curve,
    predict,
)

__all__ = ["run", "CLUSTERS", "EXPECTED_HELD_OUT", "gpu_hour_weighted_exposed_comm"]

#: The clusters of the strategy search. RoCE-100 is left out: MAD-Max's headline systems are
#: A100/H100 clusters on InfiniBand-class networks (its dc_A: A100 + 8 x 200 Gb/s).
CLUSTERS = {
    "a100+hdr": {"gpu": "a100-80gb", "network": "ib-hdr"},
    "h100+ndr": {"gpu": "h100-80gb", "network": "ib-ndr"},
}

#: Status each HELD-OUT calibration run has today (the study test checks the computed one).
EXPECTED_HELD_OUT = {
    "megatron-3.6b": Status.NOT_REPRODUCED,
    "megatron-18.4b": Status.REPRODUCED,
    "megatron-76.1b": Status.REPRODUCED,
    "megatron-310.1b": Status.NOT_REPRODUCED,
    "megatron-1t": Status.NOT_REPRODUCED,
    "llama2-13b": Status.NOT_REPRODUCED,
    "llama2-70b": Status.NOT_REPRODUCED,
}


def gpu_hour_weighted_exposed_comm(runs: list[MeasuredRun], compute: float
                                   ) -> tuple[float, list[dict[str, Any]]]:
    """Exposed communication as a share of all GPU hours of ``runs`` (GPU-hours jobs), each
    job at its own strategy: ``sum(hours_j * exposed_j) / sum(hours_j)``, hours ours."""
    rows: list[dict[str, Any]] = []
    for r in runs:
        hours, b = predict(r, compute)
        rows.append({"job": r.name, "gpu": r.gpu, "network": r.network, "gpus": r.num_gpus,
                     "strategy": b.strategy, "gpu_hours": hours,
                     "exposed_comm_fraction": b.exposed_comm_fraction, "mfu": b.mfu})
    total = sum(x["gpu_hours"] for x in rows)
    return sum(x["gpu_hours"] * x["exposed_comm_fraction"] for x in rows) / total, rows


def _llm_cases(quick: bool) -> list[tuple[str, int, int, int]]:
    # (model, GPUs, global batch in sequences, sequence): Llama 2's 4M-token batch at 4,096
    # tokens; GPT-3's 1,536 x 2,048. GPU counts divide the batch (FSDP: one sequence per GPU).
    if quick:
        return [("llama-2-7b", 64, 512, 4096), ("llama-70b", 256, 256, 4096)]
    return [("llama-2-7b", 256, 1024, 4096), ("llama-13b", 256, 1024, 4096),
            ("llama-70b", 1024, 1024, 4096), ("gpt3-175b", 512, 1536, 2048)]


def _dlrm_cases(quick: bool) -> list[tuple[str, int, int]]:
    if quick:
        return [("dlrm-mlperf", 64, 65536)]
    return [("dlrm-mlperf", 128, 65536), ("dlrm-prod-synthetic", 128, 65536)]


def _calibration_comparisons(fit: EfficiencyFit) -> list[Comparison]:
    out = []
    for r in fit.runs:
        if r.split != "held-out":
            continue
        unit = "TFLOP/s" if r.metric == "tflops_per_gpu" else "GPU-h"
        published = (f"{r.published:.0f} TFLOP/s per GPU" if r.metric == "tflops_per_gpu"
                     else f"{r.published:,.0f} GPU-hours (2T tokens)")
        out.append(Comparison(
            metric=f"HELD-OUT {r.name} on {r.num_gpus} A100-80GB + HDR "
                   f"({r.strategies[0]})",
            published=published, published_low=r.published, published_high=r.published,
            ours=fit.ours[r.name], unit=unit, band=Band.around(r.published),
            expected=EXPECTED_HELD_OUT[r.name],
            assumption=f"compute at the calibrated {fit.compute[r.gpu]:.1%} of dense peak "
                       f"(fitted on the TRAIN runs only; this run implies "
                       f"{fit.implied[r.name]:.1%}); {r.notes}",
            note=r.source))
    return out


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Calibration, GPU-hour-weighted exposed communication and best-strategy speedups."""
    from ...distributed.plots import plot_breakdown, plot_speedups

    out_dir = Path(out_dir)
    result = StudyResult(name="madmax", title="MAD-Max: parallelization strategies at scale")

    # 1. Compute efficiency calibrated on published runs (TRAIN), checked on HELD-OUT ones.
    fit = fit_compute_efficiency()
    curve = fit_gemm_curve(MEASURED_RUNS)
    compute = fit.compute["a100-80gb"]
    eff = Efficiency(compute=compute)
    result.comparisons += _calibration_comparisons(fit)
    result.observations += [
        Observation(metric="calibrated compute fraction of dense peak (A100)",
                    ours=100 * compute, unit="%",
                    note="geometric mean of the TRAIN runs' implied fractions: "
                         + ", ".join(r.name for r in fit.runs if r.split == "train")),
        Observation(metric="calibration mean |error|, TRAIN runs",
                    ours=100 * fit.mean_abs_error("train"), unit="%"),
        Observation(metric="calibration mean |error|, HELD-OUT runs",
                    ours=100 * fit.mean_abs_error("held-out"), unit="%",
                    note=", ".join(f"{k} {100 * v:+.0f}%"
                                   for k, v in fit.split_errors("held-out").items())),
        # The same TRAIN runs fitting a kernel-size-dependent fraction instead of a constant
        # (reported beside it, not used for the headlines: the constant was declared first).
        Observation(metric="GEMM-size curve calibration mean |error|, HELD-OUT runs",
                    ours=100 * curve.mean_abs_error("held-out"), unit="%",
                    note=f"fraction = {curve.intercept:.3f} + {curve.slope:.3f} log10(kernel "
                         "GFLOP); " + ", ".join(
                             f"{r.name} {100 * curve.error[r.name]:+.0f}%"
                             for r in curve.runs if r.split == "held-out")),
        Observation(metric="GEMM-size curve calibration mean |error|, TRAIN runs",
                    ours=100 * curve.mean_abs_error("train"), unit="%"),
    ]

    # 2. Exposed communication over the Llama 2 suite, weighted by GPU-hours, at MAD-Max's
    # FSDP configuration (Meta's strategy is not published).
    llama = [r for r in MEASURED_RUNS if r.name in LLAMA2_GPU_HOURS]
    comm_rows: list[dict[str, Any]] = []
    comm_band, comm_dir = Band.around(14.0, 32.0), Direction(above=14.0)
    suites = {"a100+hdr": llama,
              "h100+ndr": [dataclasses.replace(r, gpu="h100-80gb", network="ib-ndr")
                           for r in llama]}
    for cname, runs in suites.items():
        weighted, job_rows = gpu_hour_weighted_exposed_comm(runs, compute)
        comm_rows += [{"cluster": cname, **x} for x in job_rows]
        result.comparisons.append(Comparison(
            metric=f"exposed communication, GPU-hour-weighted, Llama 2 7B/13B/70B pre-training "
                   f"(2T tokens each) on 1024 GPUs {cname}, FSDP baseline",
            published="14-32% of GPU hours", published_low=14.0, published_high=32.0,
            ours=100 * weighted, unit="%", band=comm_band, direction=comm_dir,
            expected=Status.NOT_REPRODUCED,
            assumption="FSDP over all GPUs, micro-batch 1 (MAD-Max's llm_train task); "
                       "gathers prefetched a layer ahead, reduce-scatters overlap the next "
                       "layer's backward; hierarchical all-gather at full per-NIC bandwidth "
                       f"(HDR 25 GB/s, NDR 50 GB/s); compute at the calibrated {compute:.1%}",
            note="MAD-Max measures production jobs; ours are the Llama 2 jobs at MAD-Max's "
                 "baseline strategy"))

    # Why the gap: FSDP's traffic next to the compute that hides it, and the same suite at
    # MAD-Max's own (derated) inter-node bandwidth.
    _, b70 = predict(next(r for r in llama if r.name == "llama2-70b"), compute)
    derated = [dataclasses.replace(r, network="ib-hdr-madmax") for r in llama]
    weighted_derated, derated_rows = gpu_hour_weighted_exposed_comm(derated, compute)
    comm_rows += [{"cluster": "a100+hdr-madmax", **x} for x in derated_rows]
    result.observations += [
        Observation(metric="llama2-70b FSDP: all gather/reduce-scatter time / compute time",
                    ours=100 * b70.comm_s["dp"] / b70.compute_s, unit="%",
                    note=f"{b70.strategy} on 1024 A100 + HDR: the layer-ahead prefetch hides "
                         f"all but {100 * b70.exposed_comm_fraction:.2f}% of the iteration"),
        Observation(metric="exposed communication, GPU-hour-weighted Llama 2 suite, A100 at "
                           "MAD-Max's dc_A inter-node bandwidth (7 GB/s per GPU)",
                    ours=100 * weighted_derated, unit="%",
                    note="8 x 25 GB/s / 2 x 56% / 8 GPUs (samhsia/MADMax system_cfgs/dc_A)"),
    ]

    # 3. Best strategy vs MAD-Max's baseline over models and clusters.
    rows: list[dict[str, Any]] = []
    breakdown_rows: list[dict[str, Any]] = []
    modes_llm = ("training", "inference") + (() if quick else ("decode",))
    for cname, ckw in CLUSTERS.items():
        cases: list[tuple[LLMWorkload | DLRMWorkload, int, int, tuple[str, ...]]] = [
            (LLMWorkload(model=get_transformer(m), seq_len=s), n, b, modes_llm)
            for m, n, b, s in _llm_cases(quick)]
        cases += [(DLRMWorkload(model=get_dlrm(m)), n, b, ("training", "inference"))
                  for m, n, b in _dlrm_cases(quick)]
        for wl, gpus, batch, modes in cases:
            cluster = make_cluster(num_gpus=gpus, gpu=ckw["gpu"], network=ckw["network"])
            for mode in modes:
                res = search(wl, cluster, global_batch=batch, mode=mode, efficiency=eff,
                             baseline="madmax")
                base, best = res.baseline, res.best
                label = f"{wl.name}/{cname}/{mode}"
                rows.append({
                    "model": wl.name, "cluster": cname, "gpus": gpus, "global_batch": batch,
                    "mode": mode, "label": label, "strategies_evaluated": res.num_evaluated,
                    "legal": len(res.ranked),
                    "baseline": base.strategy if base else "cannot run",
                    "baseline_exposed_comm_fraction": (base.exposed_comm_fraction if base
                                                       else None),
                    "best": best.strategy,
                    "best_exposed_comm_fraction": best.exposed_comm_fraction,
                    "best_mfu": best.mfu, "speedup": res.speedup,
                    "baseline_description": res.baseline_description})
                for tag, it in (("baseline", base), ("best", best)):
                    if it is not None:
                        breakdown_rows.append({"label": f"{label}/{tag}", **it.to_row()})
    search_drives = (f"MAD-Max's baselines (LLM: FSDP over all GPUs, micro-batch 1; DLRM: "
                     f"table-wise embeddings, data-parallel MLPs); search over "
                     f"DP/TP/PP/CP/ZeRO/micro-batch/recompute; compute at the calibrated "
                     f"{compute:.1%} (A100 fit, also used for H100)")
    for mode, published, pub_text, expected in (
            ("training", 2.24, "up to 2.24x", Status.IN_SHAPE),
            ("inference", 5.27, "up to 5.27x", Status.IN_SHAPE)):
        cands = [r for r in rows if r["mode"] == mode and r["speedup"]]
        top = max(cands, key=lambda r: r["speedup"])
        result.comparisons.append(Comparison(
            metric=f"best-strategy {mode} speedup over MAD-Max's baseline (max over models "
                   f"and clusters)", published=pub_text, published_low=published,
            published_high=published, ours=top["speedup"], unit="x",
            band=Band.around(published), direction=Direction(above=1.0),
            expected=expected, assumption=search_drives,
            note=f"{top['label']}: {top['baseline']} -> {top['best']}"))
    for row in rows:
        if row["mode"] == "decode" and row["speedup"]:
            result.observations.append(Observation(
                metric=f"decode-step speedup over FSDP, {row['label']}", ours=row["speedup"],
                unit="x", note=f"{row['baseline']} -> {row['best']} (MAD-Max reports no decode)"))
        if row["mode"] == "training" and row["model"].startswith("dlrm") and row["baseline"] \
                != "cannot run":
            result.observations.append(Observation(
                metric=f"exposed communication of the DLRM baseline, {row['label']}",
                ours=100 * row["baseline_exposed_comm_fraction"], unit="%",
                note=f"{row['baseline']}: pooled-embedding all-to-all (not in the GPU-hour "
                     "suite: no published job size)"))

    result.tables = {"strategies": rows, "breakdowns": breakdown_rows,
                     "calibration": [{**row, "gemm_curve_relative_error":
                                      curve.error[str(row["run"])]} for row in fit.rows()],
                     "exposed_comm_suite": comm_rows}
    result.assumptions += [
        f"compute: roofline per operator at {compute:.1%} of dense peak -- CALIBRATED (TRAIN: "
        + ", ".join(r.name for r in fit.runs if r.split == "train")
        + "); the A100 fraction is used for H100 too (no published H100 run in the fit)",
        f"memory-bound kernels at {eff.memory:.0%} of HBM bandwidth (assumed); backward = 2x "
        "forward; Adam step memory-bound",
        "memory: bf16 weights+grads, 12 B/param fp32 optimizer state (ZeRO paper); "
        f"{eff.reserved_bytes / 2**30:.0f} GiB reserved per GPU; fp32 logits; activations "
        "from the graph's tensor sizes (flash attention: no score matrix)",
        "networks per GPU and direction: NVLink = datasheet (A100 300 GB/s, H100 450 GB/s), "
        "IB HDR 25 GB/s, IB NDR 50 GB/s at full rate (MAD-Max's dc_A config instead derates "
        "its links: 56% of IB, 67% of NVLink); alpha 2 us (NVLink), 5 us (IB); "
        "rail-optimized, non-blocking fat tree (assumed)",
        "overlap: TP collectives exposed; DP gradient reduction overlaps the last "
        "micro-batch's backward; ZeRO-3/FSDP gathers prefetched a layer ahead; CP KV exchange "
        "overlaps attention; DLRM all-to-all overlaps the bottom MLP",
        "baselines are MAD-Max's released task configurations (samhsia/MADMax task_cfgs: "
        "llm_train = FSDP over every GPU, local batch 1; dlrm_train = embeddings 'mp' over "
        "every GPU, MLPs data parallel); MAD-Max's inference is the forward stream of the same "
        "task, so the inference baseline is FSDP forward, micro-batch 1",
        "Llama 2's own strategy is not published: its jobs run at MAD-Max's FSDP "
        "configuration on 1024 GPUs (4M-token batch), full recomputation where memory "
        "forces it (70B)",
        "Megatron Table 1 runs: micro-batch 1 and non-interleaved 1F1B (not in the table)",
        "MAD-Max's 14-32% is measured on production jobs; ours is the Llama 2 suite at "
        "MAD-Max's baseline -- public shapes, not the same jobs; its DLRM-A (4,096 tables) "
        "is not modelled",
        "LLM inference = forward pass (prefill) of the global batch; decode = one generation "
        "step against a full-length KV cache (reported, not compared: MAD-Max has no decode)",
        "dlrm-prod-synthetic is our synthetic production-scale DLRM, not MAD-Max's (private)",
    ]
    result.files.append(plot_breakdown(breakdown_rows, out_dir / "breakdown.png",
                                       title="Baseline vs best: fraction of iteration time"))
    result.files.append(plot_speedups(rows, out_dir / "speedups.png",
                                      published={"training": 2.24, "inference": 5.27}))
    return result
