"""``archsim study madmax``: MAD-Max's parallelization-strategy headlines.

MAD-Max: Hsia et al., "MAD-Max Beyond Single-Node: Enabling Large Machine
Learning Model Acceleration on Distributed Systems", ISCA 2024 -- 14-32% of GPU
hours are exposed communication; the right parallelization gives up to 2.24x
(pre-training) and 5.2x (inference). Cross-checked against Megatron-LM's Table 1
(Narayanan et al., SC'21) and Llama 2's pre-training GPU-hours (Touvron et al. 2023).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypedDict

from ....compilers.graph import TransformerConfig, get_dlrm
from ...distributed.cluster import make_cluster
from ...distributed.models import DLRMWorkload, LLMWorkload
from ...distributed.parallelism import Efficiency, Strategy, evaluate
from ...distributed.search import search
from .. import Band, Comparison, Direction, Status, StudyResult

__all__ = ["run", "megatron_crosscheck", "megatron_flops", "llama2_crosscheck",
           "MEGATRON_TABLE1", "LLAMA2_70B_GPU_HOURS", "MegatronRow", "Llama2Row"]

_CLUSTERS = {
    "a100+hdr": dict(gpu="a100-80gb", network="ib-hdr"),
    "h100+ndr": dict(gpu="h100-80gb", network="ib-ndr"),
    "h100+roce100": dict(gpu="h100-80gb", network="roce-100"),
}

#: Rows of Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on GPU
#: Clusters Using Megatron-LM", SC'21), Table 1 (also the Megatron-LM README): GPT models,
#: vocabulary 51,200, sequence 2,048, A100 GPUs on Selene (8 per node, 8 x 200 Gb/s HDR IB).
#: (name, heads, hidden, layers, tp, pp, gpus, batch, published TFLOP/s per GPU)
MEGATRON_TABLE1 = [
    ("megatron-18.4b", 48, 6144, 40, 8, 1, 256, 1024, 135.0),
    ("megatron-1t", 160, 25600, 128, 8, 64, 3072, 3072, 163.0),
]


class MegatronRow(TypedDict):
    """One Megatron-LM Table 1 row next to our throughput."""

    model: str
    gpus: int
    tp: int
    pp: int
    batch: int
    published_tflops_per_gpu: float
    ours_tflops_per_gpu: float
    ratio: float
    iteration_s: float
    exposed_comm_fraction: float
    bubble_fraction: float


class Llama2Row(TypedDict):
    """Our GPU-hours for Llama 2 70B's pre-training next to the published figure."""

    model: str
    gpus: int
    strategy: str
    published_gpu_hours: int
    ours_gpu_hours: float
    ratio: float
    mfu: float


def megatron_flops(batch: int, seq: int, layers: int, hidden: int, vocab: int) -> float:
    """FLOPs per iteration as Megatron counts them (with full recomputation), eq. (3) of
    Narayanan et al. 2021: ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))``."""
    return (96 * batch * seq * layers * hidden**2
            * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden)))


def megatron_crosscheck(efficiency: Efficiency | None = None) -> list[MegatronRow]:
    """Our TFLOP/s per GPU for Megatron Table 1 rows, at the paper's (t, p) and batch."""
    rows: list[MegatronRow] = []
    for name, heads, hidden, layers, tp, pp, gpus, batch, published in MEGATRON_TABLE1:
        cfg = TransformerConfig(name=name, num_layers=layers, hidden=hidden, num_heads=heads,
                                ffn_hidden=4 * hidden, vocab=51200,
                                source="Narayanan et al. 2021, Table 1")
        wl = LLMWorkload(model=cfg, seq_len=2048, dtype="bf16")
        cluster = make_cluster(gpu="a100-80gb", num_gpus=gpus, network="ib-hdr")
        st = Strategy(dp=gpus // (tp * pp), tp=tp, pp=pp, micro_batch=1, recompute="full")
        r = evaluate(wl, cluster, st, global_batch=batch, efficiency=efficiency)
        ours = megatron_flops(batch, 2048, layers, hidden, 51200) / r.iteration_s / gpus / 1e12
        rows.append({"model": name, "gpus": gpus, "tp": tp, "pp": pp, "batch": batch,
                     "published_tflops_per_gpu": published, "ours_tflops_per_gpu": ours,
                     "ratio": ours / published, "iteration_s": r.iteration_s,
                     "exposed_comm_fraction": r.exposed_comm_fraction,
                     "bubble_fraction": r.bubble_s / r.iteration_s})
    return rows


#: Touvron et al. 2023 ("Llama 2"), Table 2: pre-training Llama 2 70B on 2T tokens took
#: 1,720,320 A100-80GB GPU-hours (Meta's Research SuperCluster: 8 x 200 Gb/s InfiniBand
#: per node); global batch 4M tokens, sequence 4,096.
LLAMA2_70B_GPU_HOURS = 1_720_320


def llama2_crosscheck(efficiency: Efficiency | None = None, *,
                      num_gpus: int = 2048) -> Llama2Row:
    """GPU-hours of our best strategy for Llama 2 70B on 2T tokens, next to the paper's."""
    wl = LLMWorkload(model="llama-70b", seq_len=4096)
    cluster = make_cluster(gpu="a100-80gb", num_gpus=num_gpus, network="ib-hdr")
    res = search(wl, cluster, global_batch=1024, efficiency=efficiency)
    iterations = math.ceil(2e12 / res.best.tokens_per_iteration)
    hours = iterations * res.best.iteration_s * num_gpus / 3600
    return {"model": "llama-70b", "gpus": num_gpus, "strategy": res.best.strategy,
            "published_gpu_hours": LLAMA2_70B_GPU_HOURS, "ours_gpu_hours": hours,
            "ratio": hours / LLAMA2_70B_GPU_HOURS, "mfu": res.best.mfu}


def _llm_cases(quick: bool) -> list[tuple[str, int, int]]:
    # (model, GPUs, global batch in sequences): ~4M tokens per batch (Llama 2), GPT-3's 1536.
    if quick:
        return [("llama-7b", 64, 512), ("llama-70b", 256, 256)]
    return [("llama-7b", 256, 2048), ("llama-13b", 256, 2048), ("llama-70b", 1024, 1024),
            ("gpt3-175b", 1024, 1536)]


def _dlrm_cases(quick: bool) -> list[tuple[str, int, int]]:
    if quick:
        return [("dlrm-mlperf", 64, 65536)]
    return [("dlrm-mlperf", 128, 65536), ("dlrm-prod-synthetic", 256, 65536)]


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Exposed communication and best-strategy speedups across models and clusters."""
    from ...distributed.plots import plot_breakdown, plot_speedups

    out_dir = Path(out_dir)
    eff = Efficiency()
    clusters = {"a100+hdr": _CLUSTERS["a100+hdr"], "h100+ndr": _CLUSTERS["h100+ndr"]}
    if not quick:
        clusters["h100+roce100"] = _CLUSTERS["h100+roce100"]
    rows: list[dict[str, Any]] = []
    breakdown_rows: list[dict[str, Any]] = []
    for cname, ckw in clusters.items():
        cases = [(m, n, b, "llm") for m, n, b in _llm_cases(quick)]
        cases += [(m, n, b, "dlrm") for m, n, b in _dlrm_cases(quick)]
        for model, gpus, batch, family in cases:
            wl = DLRMWorkload(model=get_dlrm(model)) if family == "dlrm" else LLMWorkload(model=model)
            cluster = make_cluster(num_gpus=gpus, gpu=ckw["gpu"], network=ckw["network"])
            modes = ("training", "inference") + (("decode",) if family == "llm" else ())
            for mode in modes:
                res = search(wl, cluster, global_batch=batch, mode=mode, efficiency=eff)
                base, best = res.baseline, res.best
                label = f"{model}/{cname}/{mode}"
                rows.append({
                    "model": model, "cluster": cname, "gpus": gpus, "global_batch": batch,
                    "mode": mode, "label": label, "strategies_evaluated": res.num_evaluated,
                    "legal": len(res.ranked),
                    "baseline": base.strategy if base else "cannot run",
                    "baseline_exposed_comm_fraction": (base.exposed_comm_fraction if base
                                                       else None),
                    "best": best.strategy, "best_exposed_comm_fraction":
                        best.exposed_comm_fraction,
                    "best_mfu": best.mfu, "speedup": res.speedup,
                    "baseline_description": res.baseline_description})
                for tag, r in (("baseline", base), ("best", best)):
                    if r is not None:
                        breakdown_rows.append({"label": f"{label}/{tag}", **r.to_row()})
    result = StudyResult(name="madmax", title="MAD-Max: parallelization strategies at scale")
    train = [r for r in rows if r["mode"] == "training"]
    infer = [r for r in rows if r["mode"] in ("inference", "decode")]
    fracs = [r["baseline_exposed_comm_fraction"] for r in train
             if r["baseline_exposed_comm_fraction"] is not None]
    llm_fracs = [r["baseline_exposed_comm_fraction"] for r in train
                 if r["baseline_exposed_comm_fraction"] is not None
                 and not r["model"].startswith("dlrm")]
    # 14-32% is the spread over MAD-Max's production jobs, widened by the default +-10%. The
    # claim's direction: exposed communication is a large share (at least MAD-Max's lowest).
    comm_band = Band.around(14.0, 32.0)
    comm_dir = Direction(above=14.0)
    comm_drives = ("baseline = DP x TP in a node on public model shapes; TP collectives fully "
                   "exposed; IB HDR 25 GB/s, NDR 50 GB/s per GPU and direction")
    result.comparisons += [
        Comparison(metric="exposed communication, baseline strategies, LLM training (min)",
                   published="14-32% of GPU hours", published_low=14.0, published_high=32.0,
                   ours=100 * min(llm_fracs), unit="%", band=comm_band, direction=comm_dir,
                   expected=Status.REPRODUCED, assumption=comm_drives,
                   note="range over LLMs and clusters"),
        Comparison(metric="exposed communication, baseline strategies, LLM training (max)",
                   published="14-32% of GPU hours", published_low=14.0, published_high=32.0,
                   ours=100 * max(llm_fracs), unit="%", band=comm_band, direction=comm_dir,
                   expected=Status.IN_SHAPE, assumption=comm_drives),
        Comparison(metric="exposed communication, baseline strategies, all training (max)",
                   published="14-32% of GPU hours", published_low=14.0, published_high=32.0,
                   ours=100 * max(fracs), unit="%", band=comm_band, direction=comm_dir,
                   expected=Status.IN_SHAPE, assumption=comm_drives + "; DLRM all-to-all",
                   note="includes DLRM (all-to-all bound)"),
    ]
    best_train = max((r for r in train if r["speedup"]), key=lambda r: r["speedup"])
    best_infer = max((r for r in infer if r["speedup"]), key=lambda r: r["speedup"])
    # "Up to" maxima over MAD-Max's configurations; default +-10% band; direction: the best
    # strategy beats the baseline. Full mode adds RoCE-100 clusters, whose slow links widen
    # the gap past the band.
    search_drives = ("strategies searched over DP/TP/PP/CP/ZeRO/micro-batch; roofline compute "
                     f"at {eff.compute:.0%} of peak; baseline DP x TP in a node")
    result.comparisons += [
        Comparison(metric="best-strategy training speedup over baseline (max)",
                   published="up to 2.24x", published_low=2.24, published_high=2.24,
                   ours=best_train["speedup"], unit="x", band=Band.around(2.24),
                   direction=Direction(above=1.0),
                   expected=Status.REPRODUCED if quick else Status.IN_SHAPE,
                   assumption=search_drives, note=best_train["label"]),
        Comparison(metric="best-strategy inference speedup over baseline (max)",
                   published="up to 5.2x", published_low=5.2, published_high=5.2,
                   ours=best_infer["speedup"], unit="x", band=Band.around(5.2),
                   direction=Direction(above=1.0), expected=Status.IN_SHAPE,
                   assumption=search_drives + "; DLRM baseline table-wise sharding",
                   note=best_infer["label"]),
    ]
    mega = megatron_crosscheck(eff)
    # Measured throughputs: an analytical model within +-10% of a measurement counts as
    # reproduced; there is no direction to be in-shape with.
    expected_mega = {"megatron-18.4b": Status.NOT_REPRODUCED, "megatron-1t": Status.REPRODUCED}
    for row in mega:
        published_tflops = row["published_tflops_per_gpu"]
        result.comparisons.append(Comparison(
            metric=f"Megatron-LM {row['model']} on {row['gpus']} A100 (t={row['tp']}, "
                   f"p={row['pp']})",
            published=f"{published_tflops:.0f} TFLOP/s per GPU", published_low=published_tflops,
            published_high=published_tflops, ours=row["ours_tflops_per_gpu"],
            unit="TFLOP/s", band=Band.around(published_tflops),
            expected=expected_mega[row["model"]],
            assumption=f"compute at {eff.compute:.0%} of dense peak; 1F1B without "
                       "interleaving; full recomputation",
            note="Narayanan et al. 2021 Table 1"))
    llama2 = llama2_crosscheck(eff)
    result.comparisons.append(Comparison(
        metric="Llama 2 70B pre-training, 2T tokens, A100-80GB GPU-hours",
        published=f"{LLAMA2_70B_GPU_HOURS:,} GPU-hours",
        published_low=float(LLAMA2_70B_GPU_HOURS), published_high=float(LLAMA2_70B_GPU_HOURS),
        ours=llama2["ours_gpu_hours"], unit="GPU-h",
        band=Band.around(float(LLAMA2_70B_GPU_HOURS)), expected=Status.NOT_REPRODUCED,
        assumption=f"our best strategy {llama2['strategy']} on {llama2['gpus']} A100 + HDR "
                   f"reaches MFU {llama2['mfu']:.0%}; Meta's strategy and MFU not published",
        note="Touvron et al. 2023 Table 2"))
    result.tables = {"strategies": rows, "breakdowns": breakdown_rows,
                     "megatron": [dict(r) for r in mega], "llama2": [dict(llama2)]}
    result.assumptions += [
        f"compute: roofline per operator of the shared transformer/DLRM graphs at "
        f"{eff.compute:.0%} of dense peak (bf16 LLMs, fp32 DLRM) and {eff.memory:.0%} of HBM "
        "bandwidth; backward = 2x forward; Adam step memory-bound",
        "memory: bf16 weights+grads, 12 B/param fp32 optimizer state (ZeRO paper); "
        f"{eff.reserved_bytes / 2**30:.0f} GiB reserved per GPU; fp32 logits; activations "
        "from the graph's tensor sizes (flash attention: no score matrix)",
        "networks per GPU and direction: NVLink = datasheet (A100 300 GB/s, H100 450 GB/s), "
        "IB HDR 25 GB/s, IB NDR 50 GB/s, RoCE-100 12.5 GB/s; alpha 2 us (NVLink), 5 us (IB), "
        "10 us (RoCE); rail-optimized, non-blocking fat tree",
        "overlap: TP collectives exposed; DP gradient reduction overlaps the last "
        "micro-batch's backward; ZeRO-3 gathers prefetched a layer ahead; CP KV exchange "
        "overlaps attention; DLRM all-to-all overlaps the bottom MLP",
        "MAD-Max's 14-32% is measured on production jobs at their deployed strategies; ours is "
        "the baseline (DP + TP in a node) of public model shapes -- not the same workloads",
        "LLM inference = forward pass (prefill) of the global batch of sequences; LLM decode = "
        "one generation step of every sequence against a full-length KV cache; inference "
        "baselines batch each replica's sequences into one micro-batch; DLRM inference = "
        "forward of the batch; baseline DLRM sharding = table-wise (column-wise when tables < "
        "GPUs)",
        "dlrm-prod-synthetic is our synthetic production-scale DLRM, not MAD-Max's (private)",
        "Megatron cross-check: A100-80GB, 8 x HDR per node, t/p/batch from Table 1, "
        "micro-batch 1, full recomputation, FLOPs counted with the paper's eq. (3)",
    ]
    result.files.append(plot_breakdown(breakdown_rows, out_dir / "breakdown.png",
                                       title="Baseline vs best: fraction of iteration time"))
    result.files.append(plot_speedups(rows, out_dir / "speedups.png",
                                      published={"training": 2.24, "inference": 5.2}))
    return result
