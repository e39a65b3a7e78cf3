"""``archsim study s3``: S3's throughput over worst-case KV reservation, and beyond.

Reproduces the headline of Jin et al., "S3: Increasing GPU Utilization during
Generative Inference for Higher Throughput", NeurIPS 2023 (up to 6.49x
throughput over worst-case reservation), sweeps predictor accuracy and bucket
count, and places vLLM-style paged allocation (which S3 did not compare
against) next to S3 and the oracle.
"""

from __future__ import annotations

from pathlib import Path

from ...serving.config import Deployment
from ...serving.engine import simulate
from ...serving.policies import OraclePolicy, PagedPolicy, S3Policy, WorstCasePolicy
from ...serving.requests import DATASETS, generate_requests
from .. import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["run", "PAIRS"]

#: (model, GPU, tensor-parallel degree). The models are those of the S3 paper; the GPU
#: counts for the larger models are our assumption (the fewest A100s that hold the weights
#: with room for KV cache), as is using the 80 GB A100 besides the 40 GB one.
PAIRS: tuple[tuple[str, str, int], ...] = (
    ("gpt-j-6b", "a100-40gb", 1),
    ("gpt-j-6b", "a100-80gb", 1),
    ("llama-13b", "a100-40gb", 1),
    ("llama-13b", "a100-80gb", 1),
    ("gpt-neox-20b", "a100-80gb", 1),
    ("llama-33b", "a100-80gb", 2),
    ("llama-65b", "a100-80gb", 4),
)
_PUBLISHED_MAX = 6.49
_S3_ACCURACY = 0.986  # S3 paper: predictor accuracy on Alpaca with 10 buckets (per the brief)
_S3_BUCKETS = 10


def _throughput(dep, reqs, policy, seed):
    return simulate(dep, reqs, policy, seed=seed)


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Run the S3 study; writes its PNG plots into ``out_dir``."""
    from ...serving.plots import plot_memory_timeline, plot_sensitivity, plot_throughput_vs_rate

    out_dir = Path(out_dir)
    n_offline = 800 if quick else 4000
    dataset = "alpaca"
    offline = generate_requests(n_offline, rate_per_s=None, dataset=dataset, seed=seed)
    result = StudyResult(name="s3", title="S3: throughput over worst-case KV-cache reservation")

    pair_rows = []
    memory_runs = {}
    pairs = PAIRS[:4] if quick else PAIRS
    for model, gpu, tp in pairs:
        dep = Deployment.build(model=model, gpu=gpu, tp=tp)
        runs = {
            "worst-case": _throughput(dep, offline, WorstCasePolicy(), seed),
            "s3": _throughput(dep, offline, S3Policy(num_buckets=_S3_BUCKETS,
                                                     accuracy=_S3_ACCURACY), seed),
            "oracle": _throughput(dep, offline, OraclePolicy(), seed),
            "paged": _throughput(dep, offline, PagedPolicy(), seed),
        }
        thr = {k: r.metrics.throughput_tokens_per_s for k, r in runs.items()}
        pair_rows.append({
            "model": model, "gpu": gpu, "tp": tp, "kv_capacity_tokens": dep.kv_capacity_tokens,
            **{f"{k}_tokens_per_s": v for k, v in thr.items()},
            **{f"{k}_mean_batch": r.metrics.mean_batch_size for k, r in runs.items()},
            "s3_over_worst_case": thr["s3"] / thr["worst-case"],
            "oracle_over_worst_case": thr["oracle"] / thr["worst-case"],
            "paged_over_worst_case": thr["paged"] / thr["worst-case"],
            "paged_over_s3": thr["paged"] / thr["s3"],
            "s3_preemptions": runs["s3"].metrics.preemptions,
            "paged_preemptions": runs["paged"].metrics.preemptions,
        })
        if (model, gpu) == ("llama-13b", "a100-80gb"):
            memory_runs = runs
    result.tables["pairs"] = pair_rows
    best = max(pair_rows, key=lambda r: r["s3_over_worst_case"])
    # "Up to 6.49x" is a maximum over the paper's model-GPU pairs; ours is the maximum over
    # ours (the paper's GPU counts not re-read), so the default +-10% band applies. The
    # claim's direction: S3 beats worst-case reservation.
    drives = (f"worst-case reserves max_seq_len (2048) tokens; S3 predictor accuracy "
              f"{_S3_ACCURACY} over {_S3_BUCKETS} buckets; KV capacity 90% of HBM minus weights")
    head_band = Band.around(_PUBLISHED_MAX)
    result.comparisons.append(Comparison(
        metric="max S3 / worst-case throughput over model-GPU pairs",
        published="up to 6.49x", published_low=_PUBLISHED_MAX, published_high=_PUBLISHED_MAX,
        ours=best["s3_over_worst_case"], unit="x", band=head_band,
        direction=Direction(above=1.0), expected=Status.REPRODUCED, assumption=drives,
        note=f"at {best['model']} on {best['tp']}x {best['gpu']}"))
    # Every pair: S3 beats worst-case (> 1x) and stays within the paper's maximum.
    for r in pair_rows:
        result.comparisons.append(Comparison(
            metric=f"S3 / worst-case, {r['model']} {r['tp']}x{r['gpu']}",
            published="> 1x, up to 6.49x", ours=r["s3_over_worst_case"], unit="x",
            band=Band(lo=1.0, hi=head_band.hi, open_lo=True), direction=Direction(above=1.0),
            expected=Status.REPRODUCED, assumption=drives,
            note=f"oracle {r['oracle_over_worst_case']:.2f}x, paged "
                 f"{r['paged_over_worst_case']:.2f}x"))
    mean_paged_s3 = sum(r["paged_over_s3"] for r in pair_rows) / len(pair_rows)
    mean_s3_oracle = sum(r["s3_over_worst_case"] / r["oracle_over_worst_case"]
                         for r in pair_rows) / len(pair_rows)
    result.observations.append(Observation(
        metric="paged (vLLM) / S3 throughput, mean over pairs", ours=mean_paged_s3, unit="x",
        note="not compared in S3"))
    result.observations.append(Observation(
        metric="S3 / oracle throughput, mean over pairs", ours=mean_s3_oracle, unit="x",
        note="not reported"))

    # sensitivity to the predictor on one pair
    sens_model, sens_gpu = "llama-13b", "a100-40gb"
    dep = Deployment.build(model=sens_model, gpu=sens_gpu)
    base = _throughput(dep, offline, WorstCasePolicy(), seed).metrics.throughput_tokens_per_s
    orc = _throughput(dep, offline, OraclePolicy(), seed).metrics.throughput_tokens_per_s
    accs = (0.6, 0.8, 0.9, 0.99) if quick else (0.6, 0.7, 0.8, 0.9, 0.95, 0.986, 0.99)
    acc_rows = []
    for acc in accs:
        r = _throughput(dep, offline, S3Policy(num_buckets=_S3_BUCKETS, accuracy=acc), seed)
        acc_rows.append({"accuracy": acc, "num_buckets": _S3_BUCKETS,
                         "s3_tokens_per_s": r.metrics.throughput_tokens_per_s,
                         "s3_over_worst_case": r.metrics.throughput_tokens_per_s / base,
                         "oracle_over_worst_case": orc / base,
                         "preemptions": r.metrics.preemptions,
                         "wasted_tokens": r.metrics.wasted_tokens})
    buckets = (2, 10, 50) if quick else (2, 5, 10, 20, 50, 100)
    bucket_rows = []
    for nb in buckets:
        r = _throughput(dep, offline, S3Policy(num_buckets=nb, accuracy=_S3_ACCURACY), seed)
        bucket_rows.append({"num_buckets": nb, "accuracy": _S3_ACCURACY,
                            "s3_tokens_per_s": r.metrics.throughput_tokens_per_s,
                            "s3_over_worst_case": r.metrics.throughput_tokens_per_s / base,
                            "oracle_over_worst_case": orc / base,
                            "preemptions": r.metrics.preemptions})
    # the same comparison on ShareGPT-like lengths (longer, more variable outputs)
    ds_rows = []
    for ds in sorted(DATASETS):
        reqs = offline if ds == dataset else generate_requests(
            n_offline, rate_per_s=None, dataset=ds, seed=seed)
        thr = {name: simulate(dep, reqs, pol, seed=seed).metrics.throughput_tokens_per_s
               for name, pol in (("worst-case", WorstCasePolicy()),
                                 ("s3", S3Policy(num_buckets=_S3_BUCKETS, accuracy=_S3_ACCURACY)),
                                 ("oracle", OraclePolicy()), ("paged", PagedPolicy()))}
        ds_rows.append({"dataset": ds, "model": sens_model, "gpu": sens_gpu,
                        **{f"{k}_tokens_per_s": v for k, v in thr.items()},
                        "s3_over_worst_case": thr["s3"] / thr["worst-case"],
                        "oracle_over_worst_case": thr["oracle"] / thr["worst-case"],
                        "paged_over_worst_case": thr["paged"] / thr["worst-case"]})
    result.tables["datasets"] = ds_rows
    result.tables["accuracy_sensitivity"] = acc_rows
    result.tables["bucket_sensitivity"] = bucket_rows
    lo, hi = acc_rows[0], acc_rows[-1]
    result.observations.append(Observation(
        metric=f"S3 / worst-case at accuracy {lo['accuracy']:g} vs {hi['accuracy']:g} "
               f"({sens_model} {sens_gpu})",
        ours=lo["s3_over_worst_case"], unit="x",
        note=f"{hi['s3_over_worst_case']:.2f}x at {hi['accuracy']:g}; not reported"))

    # online: throughput and latency against arrival rate
    rate_dep = dep  # the memory-bound pair, where the policies separate
    rates = (5.0, 20.0, 60.0) if quick else (5.0, 10.0, 20.0, 30.0, 40.0, 60.0, 80.0)
    n_online = 600 if quick else 3000
    rate_rows = []
    for rate in rates:
        reqs = generate_requests(n_online, rate_per_s=rate, dataset=dataset, seed=seed)
        for name, pol in (("worst-case", WorstCasePolicy()),
                          ("s3", S3Policy(num_buckets=_S3_BUCKETS, accuracy=_S3_ACCURACY)),
                          ("oracle", OraclePolicy()), ("paged", PagedPolicy())):
            m = simulate(rate_dep, reqs, pol, seed=seed).metrics
            rate_rows.append({"policy": name, "model": sens_model, "gpu": sens_gpu,
                              "rate_per_s": rate,
                              "throughput_tokens_per_s": m.throughput_tokens_per_s,
                              "ttft_p90_s": m.ttft_p90_s, "e2e_p90_s": m.e2e_p90_s,
                              "slo_attainment": m.slo_attainment,
                              "mean_batch_size": m.mean_batch_size})
    result.tables["throughput_vs_rate"] = rate_rows

    out_dir.mkdir(parents=True, exist_ok=True)
    result.files.append(plot_throughput_vs_rate(rate_rows, out_dir / "throughput_vs_rate.png"))
    result.files.append(plot_sensitivity(acc_rows, "accuracy", out_dir / "accuracy.png",
                                         xlabel="predictor accuracy"))
    result.files.append(plot_sensitivity(bucket_rows, "num_buckets", out_dir / "buckets.png",
                                         xlabel="number of buckets"))
    if memory_runs:
        result.files.append(plot_memory_timeline(memory_runs, out_dir / "memory_over_time.png"))

    p_dist, o_dist = DATASETS[dataset]
    result.assumptions += [
        "Published headline: S3 abstract (NeurIPS 2023 / arXiv 2306.06000), 'up to 6.49x' "
        "over systems that reserve the maximum sequence length. Checked against public summaries: "
        "ORCA-style iteration-level scheduling, decreasing-first-fit batching by predicted length, "
        "a supervisor that preempts sequences exceeding their allocation, a fine-tuned DistilBERT "
        "bucket classifier. NOT re-read here: the per-model figures, the paper's exact GPU counts "
        "(ours: 1 GPU up to 20B, 2 and 4 A100-80GB for LLaMA-33B/65B) and its sequence limit.",
        f"S3 predictor: {_S3_BUCKETS} equal-width buckets over [1, max_seq_len], accuracy "
        f"{_S3_ACCURACY} (the ~98.6% Alpaca figure quoted in the brief), errors to other buckets "
        "with weight 0.5^distance; re-prediction after an overflow: true bucket with probability "
        "= accuracy, else the next bucket up; preempted sequences are recomputed.",
        f"Workload: offline batch of {n_offline} requests at t=0 (throughput = output tokens / "
        f"makespan); lengths {dataset}: prompt log-normal mean {p_dist.mean} cv {p_dist.cv}, "
        f"output log-normal mean {o_dist.mean} cv {o_dist.cv} ({p_dist.source}); outputs cut at "
        "max_seq_len (2048 for these presets).",
        "Worst-case reserves max_seq_len tokens per sequence, FCFS (FasterTransformer/ORCA-style). "
        "Oracle and S3 admit by decreasing first fit over the first 256 queued requests.",
        "Paged: vLLM-style 16-token blocks, 1% watermark, LIFO preemption by recompute.",
        "Iteration cost: each iteration's two fused operator groups (dense, attention) built "
        "from the shared transformer graph and priced by the executor's operator_cost "
        "(archsim.hw.models.GPURoofline); compute efficiency 0.6, memory efficiency 0.8, "
        "1 ms fixed overhead per iteration, fp16; tensor parallelism: 2 ring all-reduces per "
        "layer, alpha 10 us, NVLink per-direction bandwidth from the GPU datasheet.",
        "KV capacity: 90% of HBM (vLLM default gpu_memory_utilization) minus fp16 weights; "
        "activation workspace not modelled separately.",
        "Iterations mix prefill and decode (Orca iteration-level scheduling, no chunked prefill).",
        "Offline throughput includes the drain tail (the longest request bounds the makespan); "
        "with few requests this lets S3's smaller, steadier batches finish slightly before the "
        "oracle's front-loaded ones, so S3 / oracle can exceed 1 at small N (--quick).",
        "No batch-size cap for any policy (vLLM's default max_num_seqs=256 is not applied), so "
        "all policies are limited by KV memory only. Latencies are not validated against "
        "measurements (Vidur reports <9% error with profiled kernels); a measured calibration "
        "table can replace the roofline.",
    ]
    return result
