"""``archsim study smaug``: SMAUG's headline results on archsim's SoC simulator.

SMAUG (Xi et al., arXiv:1912.04481 / TACO 2020) found that for single-batch inference the
accelerator is only 25-40% of end-to-end latency, and that SoC-level changes alone -- the
accelerator's coherent port (ACP) instead of DMA, more accelerators fed round-robin, and
multithreaded data preparation -- give 1.8-5x speedups. This study runs CNNs and an LSTM on
``soc_configs/smaug_baseline.toml`` (one SMV, DMA, one data-preparation thread) and on the
same SoC with each change alone and all combined, and prints our numbers next to the
published ones. The absolute CPU-side costs are assumptions of the configuration file (see its
comments); the gap to the paper is reported, not tuned away.
"""

from __future__ import annotations

from pathlib import Path

from ....compilers.graph import build_workload
from ...soc.config import load_soc_config
from ...soc.engine import simulate
from ...soc.results import CATEGORIES, CATEGORY_COLORS, SocResult
from .. import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["SCENARIOS", "run"]

# The shipped SoC description (archsim/soc_configs/), shared with ``archsim run``.
_CONFIG = Path(__file__).resolve().parents[3] / "soc_configs" / "smaug_baseline.toml"

#: Scenario name -> (accelerators, host-memory policy, data-prep threads); None keeps the
#: baseline's value.
SCENARIOS: dict[str, tuple[int | None, str | None, int | None]] = {
    "baseline": (None, None, None),
    "acp": (None, "acp", None),
    "8 accelerators": (8, None, None),
    "8 prep threads": (None, None, 8),
    "combined": (8, "acp", 8),
}

_WORKLOADS = {
    "resnet50": ("resnet50", {"batch": 1, "dtype": "fp16"}),
    "vgg16": ("vgg16", {"batch": 1, "dtype": "fp16"}),
    "alexnet": ("alexnet", {"batch": 1, "dtype": "fp16"}),
    "lstm (fathom-seq2seq)": ("fathom-seq2seq", {"batch": 1, "dtype": "fp16"}),
}


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Run the study; writes ``breakdown.png`` and ``speedup.png`` into ``out_dir``.

    ``seed`` is accepted for the common study signature; the simulation is deterministic.
    ``quick`` drops VGG-16 (the slowest network).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from ....outputs import save_figure

    out_dir = Path(out_dir)
    base_cfg = load_soc_config(_CONFIG)
    workloads = {k: v for k, v in _WORKLOADS.items() if not (quick and k == "vgg16")}
    rows: list[dict[str, object]] = []
    results: dict[tuple[str, str], SocResult] = {}
    for wname, (builder, params) in workloads.items():
        graph = build_workload(builder, **params)
        for sname, (accs, policy, threads) in SCENARIOS.items():
            cfg = base_cfg.with_changes(accelerators=accs, policy=policy, threads=threads)
            r = simulate(cfg, graph)
            results[(wname, sname)] = r
            base = results[(wname, "baseline")]
            rows.append({"workload": wname, "scenario": sname, "accelerators": r.accelerators,
                         "policy": cfg.host_memory.inputs,
                         "prep_threads": cfg.cpu.data_prep_threads,
                         "latency_ms": r.latency_s * 1e3,
                         "speedup": base.latency_s / r.latency_s,
                         **{f"{c}_share": r.breakdown_fraction[c] for c in CATEGORIES},
                         "energy_mj": r.energy.total_j * 1e3})

    shares = {w: results[(w, "baseline")].accelerator_share for w in workloads}
    combined = {w: results[(w, "baseline")].latency_s / results[(w, "combined")].latency_s
                for w in workloads}
    res = StudyResult(name="smaug", title="SMAUG: end-to-end single-batch DNN inference on an "
                      "SoC (archsim vs published)")
    # SMAUG's 25-40% is the spread over its networks; the +-10% default widens it for reading
    # the figure. The claim's direction: the accelerator is a minority of the latency.
    share_assumption = ("CPU framework 50 us/operator + 2 us/tile and 1 GB/s data preparation "
                        "per thread (assumed in smaug_baseline.toml, not from the paper)")
    low_w, high_w = min(shares, key=lambda w: shares[w]), max(shares, key=lambda w: shares[w])
    res.comparisons += [
        Comparison(metric="accelerator share of latency, lowest network", published="25-40%",
                   published_low=25.0, published_high=40.0, ours=100 * shares[low_w], unit="%",
                   band=Band.around(25.0, 40.0), direction=Direction(below=50.0),
                   expected=Status.IN_SHAPE, assumption=share_assumption,
                   note=f"{low_w}; baseline SoC"),
        # --quick drops VGG-16, the network whose share falls inside the band.
        Comparison(metric="accelerator share of latency, highest network", published="25-40%",
                   published_low=25.0, published_high=40.0, ours=100 * shares[high_w],
                   unit="%", band=Band.around(25.0, 40.0), direction=Direction(below=50.0),
                   expected=Status.IN_SHAPE if quick else Status.REPRODUCED,
                   assumption=share_assumption, note=f"{high_w}; baseline SoC"),
    ]
    # 1.8-5x is the spread over SMAUG's networks and SoC changes, widened by the default
    # +-10%; the direction of the claim: the SoC-level changes speed inference up.
    combined_assumption = ("single-buffered accelerators and one shared DRAM/ACP FIFO; "
                           "8 accelerators fed round-robin, ACP at the DRAM bandwidth")
    low_c, high_c = min(combined, key=lambda w: combined[w]), max(combined, key=lambda w: combined[w])
    res.comparisons += [
        Comparison(metric="SoC-level speedup (ACP + 8 accelerators + 8 prep threads), lowest",
                   published="1.8-5x", published_low=1.8, published_high=5.0,
                   ours=combined[low_c], unit="x", band=Band.around(1.8, 5.0),
                   direction=Direction(above=1.0), expected=Status.REPRODUCED,
                   assumption=combined_assumption, note=low_c),
        Comparison(metric="SoC-level speedup (ACP + 8 accelerators + 8 prep threads), highest",
                   published="1.8-5x", published_low=1.8, published_high=5.0,
                   ours=combined[high_c], unit="x", band=Band.around(1.8, 5.0),
                   direction=Direction(above=1.0), expected=Status.IN_SHAPE,
                   assumption=combined_assumption, note=high_c),
    ]
    # SMAUG reports each change's gain per network in figures we have not re-read: ours are
    # reported, not compared.
    for sname in ("acp", "8 accelerators", "8 prep threads"):
        sp = [results[(w, "baseline")].latency_s / results[(w, sname)].latency_s
              for w in workloads]
        res.observations.append(Observation(
            metric=f"speedup from {sname} alone (range over networks)", ours=max(sp), unit="x",
            note=f"min {min(sp):.3g}x; part of SMAUG's 1.8-5x"))
    res.tables["scenarios"] = rows
    res.assumptions += [
        "SoC: soc_configs/smaug_baseline.toml -- SMV 8 PEs x 32 MACs, three 32K-element fp16 "
        "scratchpads (from SMAUG); 1 GHz accelerator, 25.6 GB/s DRAM, CPU framework 50 us per "
        "operator + 2 us per tile, data preparation 1 GB/s per thread, cache flush 8 GB/s + "
        "1 us per flush: ASSUMED (not from the paper)",
        "SMV runs element-wise, batch-norm and pooling operators on an 8-lane vector unit; "
        "reshapes and embeddings run on the CPU data-preparation threads",
        "every operator's inputs and weights are tiled by the CPU at run time and outputs "
        "gathered back (SMAUG's tiled tensors); DMA needs a flush of the loaded bytes and an "
        "invalidate of the output per tile, ACP needs neither and uses the LLC port at the "
        "DRAM bandwidth",
        "operators run one at a time; accelerators are single-buffered (a tile's loads, "
        "compute and store do not overlap on one accelerator); the DRAM and the ACP port are "
        "each one FIFO server shared by all accelerators",
        "the LSTM is Fathom's seq2seq (3-layer LSTM, 256 units) at batch 1; its time steps run "
        "in sequence, each paying the per-operator framework cost",
        "latency categories by priority: accelerator compute > data transfer > data prep > "
        "CPU framework; the accelerator share is the time at least one accelerator computes",
        f"deterministic (seed {seed} unused)",
    ]

    # -- plots ------------------------------------------------------------------------------
    colors = CATEGORY_COLORS
    names = list(workloads)
    scen = list(SCENARIOS)
    fig, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 4.5), sharey=False)
    for ax, w in zip(np.atleast_1d(axes), names, strict=True):
        bottom = np.zeros(len(scen))
        for c in CATEGORIES:
            vals = np.array([results[(w, s)].breakdown_s[c] * 1e3 for s in scen])
            ax.bar(range(len(scen)), vals, bottom=bottom, color=colors[c], label=c)
            bottom += vals
        ax.set_xticks(range(len(scen)), scen, rotation=35, ha="right", fontsize=8)
        ax.set_title(w, fontsize=10)
        ax.set_ylabel("latency (ms)")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.suptitle("SMAUG study: latency breakdown per SoC change")
    fig.tight_layout()
    res.files.append(save_figure(fig, out_dir / "breakdown.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(names)
    for i, w in enumerate(names):
        sp = [results[(w, "baseline")].latency_s / results[(w, s)].latency_s for s in scen[1:]]
        ax.bar(np.arange(len(scen) - 1) + i * width, sp, width, label=w)
    ax.axhspan(1.8, 5.0, color="grey", alpha=0.15, label="SMAUG 1.8-5x")
    ax.set_xticks(np.arange(len(scen) - 1) + 0.4 - width / 2, scen[1:])
    ax.set_ylabel("speedup over baseline")
    ax.legend(fontsize=8)
    fig.tight_layout()
    res.files.append(save_figure(fig, out_dir / "speedup.png"))
    return res
