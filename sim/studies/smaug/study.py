"""``archsim study smaug``: SMAUG's headline results on archsim's SoC simulator.

SMAUG (Xi et al., arXiv:1912.04481 / TACO 2020) found that for single-batch inference the
accelerator is only 25-40% of end-to-end latency, and that SoC-level changes alone -- the
accelerator's coherent port (ACP) instead of DMA, more accelerators fed round-robin, and
multithreaded data preparation -- give 1.8-5x speedups. This study runs SMAUG's own eight
networks (its experiments repository, transcribed in :mod:`archsim.compilers.graph.smaug_nets`)
on ``soc_configs/smaug_calibrated.toml`` (one SMV, DMA, one data-preparation thread) and on
the same SoC with each change alone and all combined, and prints our numbers next to the
published ones. archsim's ImageNet builders (ResNet-50, VGG-16, AlexNet) and Fathom's
seq2seq LSTM, the study's first network set, run the same scenarios as a secondary table.

The CPU's data-preparation cost is measured, not assumed: ``bench/smaug_data_prep.py``
replays SMAUG's tiling copies of every operator of each network with numpy on one thread
(:mod:`archsim.sim.soc.cpu_calibration`) and stores the result in
``data/cpu_calibration.json``; each network's data preparation runs at its own achieved
bandwidth (the fitted per-copy cost folded in), scaled by clock from the measuring host to
SMAUG's simulated CPU (gem5 DerivO3CPU at 2.5 GHz, SMAUG's run scripts) -- a stated model.
The quick mode reads the shipped calibration; the full mode also re-measures and reports both
(the comparisons use the shipped one, so both modes give the same statuses). The framework
cost per operator and per tile and the flush throughput stay assumed (SMAUG's framework is
C++, which this machine cannot time for SMAUG): their sensitivity is reported, as is the old
assumed configuration (``soc_configs/smaug_baseline.toml``, 1 GB/s per thread).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....compilers.graph import SMAUG_NETWORKS, build_workload
from ....errors import ConfigError
from ...soc.config import SoCConfig, load_soc_config
from ...soc.cpu_calibration import (
    CpuScaling,
    NetworkPrep,
    fit_copy_cost,
    host_cpu_hz,
    measure_network,
)
from ...soc.engine import simulate
from ...soc.results import CATEGORIES, CATEGORY_COLORS, SocResult
from .. import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["SCENARIOS", "Calibration", "load_calibration", "run"]

_CONFIGS = Path(__file__).resolve().parents[3] / "soc_configs"
#: The calibrated SoC (the study's setup) and the old assumed one (a sensitivity case).
_CALIBRATED = _CONFIGS / "smaug_calibrated.toml"
_ASSUMED = _CONFIGS / "smaug_baseline.toml"
#: What bench/smaug_data_prep.py measured (shipped; the quick mode reads only this).
_CALIBRATION = Path(__file__).resolve().parent / "data" / "cpu_calibration.json"

#: Scenario name -> (accelerators, host-memory policy, data-prep threads); None keeps the
#: baseline's value.
SCENARIOS: dict[str, tuple[int | None, str | None, int | None]] = {
    "baseline": (None, None, None),
    "acp": (None, "acp", None),
    "8 accelerators": (8, None, None),
    "8 prep threads": (None, None, 8),
    "combined": (8, "acp", 8),
}

#: SMAUG's own eight networks (its experiments repository; :mod:`archsim.compilers.graph.
#: smaug_nets`): the study's network set. Label = registry name.
_WORKLOADS = {name: (name, {"batch": 1, "dtype": "fp16"}) for name in SMAUG_NETWORKS}
#: The study's first network set (archsim's ImageNet builders and Fathom's seq2seq), kept as
#: a secondary table: baseline and SoC changes only, no sensitivity.
_IMAGENET_WORKLOADS = {
    "resnet50": ("resnet50", {"batch": 1, "dtype": "fp16"}),
    "vgg16": ("vgg16", {"batch": 1, "dtype": "fp16"}),
    "alexnet": ("alexnet", {"batch": 1, "dtype": "fp16"}),
    "lstm (fathom-seq2seq)": ("fathom-seq2seq", {"batch": 1, "dtype": "fp16"}),
}
#: SMAUG's SoC where it differs from the calibrated toml (its run scripts,
#: ``sims/smv/tests/*/run.sh``, and ``gem5.cfg``): LPDDR4_3200_2x16 (2 x 16-bit channels at
#: 3200 MT/s = 12.8 GB/s peak) and a DMA setup of 100 accelerator cycles (1 ns cycle_time).
_SMAUG_DRAM_BYTES_PER_S = 12.8e9
_SMAUG_DMA_SETUP_S = 100e-9

#: Re-measurement in the full mode: passes per copy and the cache-evicting buffer (2x the
#: 32 MiB L3 of the machine the shipped calibration was measured on).
_REMEASURE_REPEATS = 3
_EVICT_BYTES = 64 << 20


@dataclass(frozen=True)
class Calibration:
    """The shipped data-preparation calibration: per-network measurements and the scaling."""

    networks: dict[str, NetworkPrep]
    scaling: CpuScaling
    bench: str
    date: str
    target_source: str
    #: Network -> the date its record was measured, where the record states one (a merge
    #: by ``bench/smaug_data_prep.py --networks``); otherwise the file's ``date``.
    record_dates: dict[str, str] = dataclasses.field(default_factory=dict)

    def prep_bandwidth(self, network: str, *, fixed_cost: bool = True) -> float:
        """``network``'s data-preparation bandwidth per thread on the target CPU: its
        achieved bandwidth (per-copy cost folded in), or the fit's slope without it."""
        try:
            prep = self.networks[network]
        except KeyError:
            raise ConfigError(f"no calibration for network '{network}'", field="network",
                              allowed=sorted(self.networks)) from None
        bw = prep.achieved_bytes_per_s if fixed_cost else prep.fit.bytes_per_s
        return self.scaling.bandwidth(bw)


def load_calibration(path: str | Path = _CALIBRATION) -> Calibration:
    """Read a calibration written by ``bench/smaug_data_prep.py --write``.

    Raises
    ------
    ConfigError
        The file is missing, not JSON, or lacks a field.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        nets = {r["name"]: NetworkPrep.from_record(r, file=str(path)) for r in doc["networks"]}
        scaling = CpuScaling(host_hz=float(doc["host"]["hz"]),
                             target_hz=float(doc["target"]["hz"]))
        dates = {str(r["name"]): str(r["date"]) for r in doc["networks"] if "date" in r}
        return Calibration(nets, scaling, str(doc["bench"]), str(doc["date"]),
                           str(doc["target"]["source"]), dates)
    except OSError as exc:
        raise ConfigError(f"cannot read the calibration: {exc.strerror}",
                          file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"calibration is not JSON: {exc}", file=str(path)) from None
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"calibration lacks {exc}", file=str(path)) from None


def _with(cfg: SoCConfig, section: str, **values: float) -> SoCConfig:
    """A copy of ``cfg`` with fields of one section replaced, validated like a file."""
    data = cfg.model_dump(exclude_unset=True)
    for acc, given in zip(data["accelerators"], cfg.accelerators, strict=True):
        acc["kind"] = given.kind  # the union's tag, even where it was a default
    data.setdefault(section, {}).update(values)
    return SoCConfig.from_dict(data, file=cfg.file)


def _speedup(base: SocResult, other: SocResult) -> float:
    return base.latency_s / other.latency_s


def run(*, out_dir: Path, seed: int = 0, quick: bool = False,
        progress: Callable[[str], None] | None = None) -> StudyResult:
    """Run the study; writes ``breakdown.png`` and ``speedup.png`` into ``out_dir``.

    ``seed`` seeds the re-measurement's fp16 data (full mode); the simulation is
    deterministic. ``quick`` reads the shipped calibration only (no re-measurement).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from ....outputs import save_figure

    say = progress or (lambda _msg: None)
    out_dir = Path(out_dir)
    calib = load_calibration()
    cal_cfg = load_soc_config(_CALIBRATED)
    assumed_cfg = load_soc_config(_ASSUMED)
    fw_op = cal_cfg.cpu.framework_overhead_s_per_op
    flush = cal_cfg.llc.flush_bytes_per_s
    rows: list[dict[str, object]] = []
    sens: list[dict[str, Any]] = []
    results: dict[tuple[str, str], SocResult] = {}
    graphs = {}

    def run_scenarios(wname: str, builder: str, params: dict[str, Any],
                      table: list[dict[str, object]]) -> SoCConfig:
        """Every scenario of ``wname`` at its measured bandwidth; its baseline config."""
        say(f"smaug: {wname}")
        graph = graphs[wname] = build_workload(builder, **params)
        bw = calib.prep_bandwidth(wname)
        net_cfg = _with(cal_cfg, "cpu", data_prep_bytes_per_s_per_thread=bw)
        for sname, (accs, policy, threads) in SCENARIOS.items():
            cfg = net_cfg.with_changes(accelerators=accs, policy=policy, threads=threads)
            r = simulate(cfg, graph)
            results[(wname, sname)] = r
            base = results[(wname, "baseline")]
            table.append({"workload": wname, "scenario": sname, "accelerators": r.accelerators,
                          "policy": cfg.host_memory.inputs,
                          "prep_threads": cfg.cpu.data_prep_threads,
                          "prep_gb_per_s_per_thread": bw / 1e9,
                          "operators": len(graph),
                          "latency_ms": r.latency_s * 1e3, "speedup": _speedup(base, r),
                          **{f"{c}_share": r.breakdown_fraction[c] for c in CATEGORIES},
                          "energy_mj": r.energy.total_j * 1e3})
        return net_cfg

    imagenet_rows: list[dict[str, object]] = []
    for wname, (builder, params) in _IMAGENET_WORKLOADS.items():
        run_scenarios(wname, builder, params, imagenet_rows)
    for wname, (builder, params) in _WORKLOADS.items():
        net_cfg = run_scenarios(wname, builder, params, rows)
        graph = graphs[wname]
        # Sensitivity of the share and the combined speedup to what is not measured.
        prep = calib.networks[wname]
        cases: dict[str, tuple[SoCConfig, str]] = {
            "calibrated": (net_cfg, "per-network achieved bandwidth (per-copy cost folded)"),
            "slope only": (_with(cal_cfg, "cpu", data_prep_bytes_per_s_per_thread=calib
                                 .prep_bandwidth(wname, fixed_cost=False)),
                           "fit's bandwidth, per-copy cost 0 (numpy's call overhead out)"),
            "prep q75 time": (_with(cal_cfg, "cpu", data_prep_bytes_per_s_per_thread=calib
                                    .scaling.bandwidth(prep.nbytes / prep.total_q75_s)),
                              "per-copy third quartiles summed (slower passes)"),
            "prep q25 time": (_with(cal_cfg, "cpu", data_prep_bytes_per_s_per_thread=calib
                                    .scaling.bandwidth(prep.nbytes / prep.total_q25_s)),
                              "per-copy first quartiles summed (faster passes)"),
            "framework 10 us/op": (_with(net_cfg, "cpu", framework_overhead_s_per_op=10e-6),
                                   f"assumed {fw_op * 1e6:.0f} us -> 10 us"),
            "framework 100 us/op": (_with(net_cfg, "cpu", framework_overhead_s_per_op=100e-6),
                                    f"assumed {fw_op * 1e6:.0f} us -> 100 us"),
            "flush 4 GB/s": (_with(net_cfg, "llc", flush_bytes_per_s=4e9),
                             f"assumed {flush / 1e9:.0f} GB/s -> 4 GB/s"),
            "flush 16 GB/s": (_with(net_cfg, "llc", flush_bytes_per_s=16e9),
                              f"assumed {flush / 1e9:.0f} GB/s -> 16 GB/s"),
            "assumed 1 GB/s (old)": (assumed_cfg, "soc_configs/smaug_baseline.toml"),
            "SMAUG DRAM 12.8 GB/s": (
                _with(_with(net_cfg, "dram", bandwidth_bytes_per_s=_SMAUG_DRAM_BYTES_PER_S),
                      "llc", acp_bandwidth_bytes_per_s=_SMAUG_DRAM_BYTES_PER_S),
                "run.sh LPDDR4_3200_2x16 (assumed 25.6 GB/s -> 12.8 GB/s; ACP at DRAM rate)"),
            "SMAUG DMA setup 0.1 us": (
                _with(net_cfg, "interconnect", transfer_setup_s=_SMAUG_DMA_SETUP_S),
                "gem5.cfg dma_setup_overhead 100 cycles (assumed 0.5 us -> 0.1 us)"),
        }
        for case, (cfg, what) in cases.items():
            if case == "calibrated":
                b_res, c_res = results[(wname, "baseline")], results[(wname, "combined")]
            else:
                b_res = simulate(cfg, graph)
                c_res = simulate(cfg.with_changes(accelerators=8, policy="acp", threads=8),
                                 graph)
            sens.append({"workload": wname, "case": case, "what": what,
                         "prep_gb_per_s_per_thread":
                             cfg.cpu.data_prep_bytes_per_s_per_thread / 1e9,
                         "accelerator_share": b_res.accelerator_share,
                         "combined_speedup": _speedup(b_res, c_res)})

    names = list(_WORKLOADS)
    shares = {w: results[(w, "baseline")].accelerator_share for w in names}
    combined = {w: _speedup(results[(w, "baseline")], results[(w, "combined")]) for w in names}
    res = StudyResult(name="smaug", title="SMAUG: end-to-end single-batch DNN inference on an "
                      "SoC (archsim vs published)")
    share_assumption = (
        f"data preparation measured ({calib.bench}, {calib.date}: SMAUG's tiling copies "
        f"replayed with numpy, one thread, scaled by clock to the gem5 O3 CPU at "
        f"{calib.scaling.target_hz / 1e9:.2g} GHz); framework {fw_op * 1e6:.0f} us/operator + "
        f"{cal_cfg.cpu.framework_overhead_s_per_tile * 1e6:.0f} us/tile and flush "
        f"{flush / 1e9:.0f} GB/s assumed (sensitivity table)")
    # SMAUG's 25-40% is the spread over its networks; the +-10% default widens it for reading
    # the figure. The claim's direction: the accelerator is a minority of the latency.
    low_w, high_w = min(shares, key=lambda w: shares[w]), max(shares, key=lambda w: shares[w])

    def largest(w: str, scenario: str = "baseline", *, other: bool = True) -> str:
        """The largest latency category of ``w`` under ``scenario`` (``other``: besides the
        accelerator's compute)."""
        frac = results[(w, scenario)].breakdown_fraction
        cats = [c for c in CATEGORIES if not (other and c == "accelerator_compute")]
        cat = max(cats, key=lambda c: frac[c])
        return f"largest {'other ' if other else ''}category {cat} {100 * frac[cat]:.0f}%"

    share_cmp = [
        ("accelerator share of latency, ResNet-50", "smaug-resnet50", Status.REPRODUCED,
         f"smaug-resnet50 (SMAUG's own ResNet-50, 225x225, 10 classes); baseline SoC; "
         f"{largest('smaug-resnet50')}"),
        # SMAUG's smallest networks (the unrolled LSTM: 109 operators of at most 4K MACs;
        # Minerva) are CPU-bound: the assumed 50 us per operator and the measured per-copy
        # cost of data preparation dominate; the direction holds (measured, reported).
        ("accelerator share of latency, lowest network", low_w, Status.IN_SHAPE,
         f"{low_w}; baseline SoC; {largest(low_w)}"),
        ("accelerator share of latency, highest network", high_w, Status.REPRODUCED,
         f"{high_w}; baseline SoC; {largest(high_w)}"),
    ]
    for metric, w, expected, note in share_cmp:
        res.comparisons.append(Comparison(
            metric=metric, published="25-40%", published_low=25.0, published_high=40.0,
            ours=100 * shares[w], unit="%", band=Band.around(25.0, 40.0),
            direction=Direction(below=50.0), expected=expected, assumption=share_assumption,
            note=note))
    # 1.8-5x is the spread over SMAUG's networks and SoC changes, widened by the default
    # +-10%; the direction of the claim: the SoC-level changes speed inference up.
    combined_assumption = ("single-buffered accelerators and one shared DRAM/ACP FIFO; "
                           "8 accelerators fed round-robin, ACP at the DRAM bandwidth; "
                           "8 prep threads at the calibrated per-thread bandwidth")
    low_c, high_c = min(combined, key=lambda w: combined[w]), max(combined, key=lambda w: combined[w])
    # The lowest is SMAUG's LSTM, whose latency is mostly the main thread's per-operator
    # framework cost, which none of the three changes removes (measured, reported).
    for tag, w, expected in (("lowest", low_c, Status.IN_SHAPE),
                             ("highest", high_c, Status.REPRODUCED)):
        res.comparisons.append(Comparison(
            metric=f"SoC-level speedup (ACP + 8 accelerators + 8 prep threads), {tag}",
            published="1.8-5x", published_low=1.8, published_high=5.0, ours=combined[w],
            unit="x", band=Band.around(1.8, 5.0), direction=Direction(above=1.0),
            expected=expected, assumption=combined_assumption,
            note=f"{w}; combined SoC {largest(w, 'combined', other=False)}"))
    for w in names:
        res.observations.append(Observation(
            metric=f"accelerator share of latency, {w}", ours=100 * shares[w], unit="%",
            note=f"data prep {calib.prep_bandwidth(w) / 1e9:.3g} GB/s per thread (measured); "
                 f"combined speedup {combined[w]:.3g}x"))
    for w in _IMAGENET_WORKLOADS:
        comb = _speedup(results[(w, "baseline")], results[(w, "combined")])
        res.observations.append(Observation(
            metric=f"secondary set (archsim's ImageNet builders): accelerator share, {w}",
            ours=100 * results[(w, "baseline")].accelerator_share, unit="%",
            note=f"combined speedup {comb:.3g}x; data prep {calib.prep_bandwidth(w) / 1e9:.3g} "
                 "GB/s per thread (measured)"))
    for sname in ("acp", "8 accelerators", "8 prep threads"):
        sp = [_speedup(results[(w, "baseline")], results[(w, sname)]) for w in names]
        res.observations.append(Observation(
            metric=f"speedup from {sname} alone (range over networks)", ours=max(sp), unit="x",
            note=f"min {min(sp):.3g}x; part of SMAUG's 1.8-5x"))
    for case in ("assumed 1 GB/s (old)", "slope only", "framework 100 us/op", "flush 4 GB/s",
                 "SMAUG DRAM 12.8 GB/s", "SMAUG DMA setup 0.1 us"):
        by_w = {r["workload"]: r for r in sens if r["case"] == case}
        res.observations.append(Observation(
            metric=f"sensitivity '{case}': SMAUG's ResNet-50 accelerator share",
            ours=100 * float(by_w["smaug-resnet50"]["accelerator_share"]), unit="%",
            note=", ".join(f"{w} {100 * float(v['accelerator_share']):.3g}%"
                           for w, v in by_w.items())))

    # The calibration table: shipped, and in the full mode re-measured on this machine.
    calib_rows: list[dict[str, object]] = []

    def calib_row(source: str, p: NetworkPrep, scaling: CpuScaling) -> dict[str, object]:
        return {"source": source, "workload": p.name, "copies": p.copies,
                "mbytes": p.nbytes / 1e6, "fit_gb_per_s": p.fit.bytes_per_s / 1e9,
                "fit_gb_per_s_low": p.fit.bytes_per_s_low / 1e9,
                "fit_gb_per_s_high": p.fit.bytes_per_s_high / 1e9,
                "fixed_us_per_copy": p.fit.fixed_s * 1e6, "r2": p.fit.r2,
                "host_ghz": scaling.host_hz / 1e9,
                "achieved_gb_per_s_host": p.achieved_bytes_per_s / 1e9,
                "achieved_gb_per_s_target": scaling.bandwidth(p.achieved_bytes_per_s) / 1e9}

    for w in [*names, *_IMAGENET_WORKLOADS]:
        calib_rows.append(calib_row(f"shipped ({calib.record_dates.get(w, calib.date)})",
                                    calib.networks[w], calib.scaling))
    if not quick:
        spads = cal_cfg.accelerators[0].scratchpads
        try:
            here = CpuScaling(host_hz=host_cpu_hz(), target_hz=calib.scaling.target_hz)
            clock_note = f"this host's {here.host_hz / 1e9:.4g} GHz scaled to the target"
        except ConfigError:
            here = calib.scaling
            clock_note = "this host's clock unknown: the shipped host's taken"
        seen_b: list[float] = []
        seen_s: list[float] = []
        for w in names:
            say(f"smaug: re-measuring data preparation of {w}")
            # A network with no slope of its own (SMAUG's LSTM: a few small copy sizes)
            # takes the slope of the networks re-measured before it (as the bench does).
            fallback = fit_copy_cost(seen_b, seen_s) if len(seen_b) >= 3 else None
            p, timings = measure_network(w, list(graphs[w]), spads,
                                         repeats=_REMEASURE_REPEATS, seed=seed,
                                         evict_bytes=_EVICT_BYTES, fallback_fit=fallback)
            seen_b += [t.nbytes for t in timings]
            seen_s += [t.median_s for t in timings]
            calib_rows.append(calib_row("re-measured (this run)", p, here))
            bw_here = here.bandwidth(p.achieved_bytes_per_s)
            share_here = simulate(_with(cal_cfg, "cpu", data_prep_bytes_per_s_per_thread=bw_here),
                                  graphs[w]).accelerator_share
            res.observations.append(Observation(
                metric=f"re-measured data-prep bandwidth, {w}", ours=bw_here / 1e9,
                unit="GB/s", note=f"shipped {calib.prep_bandwidth(w) / 1e9:.3g} GB/s; "
                                  f"{clock_note}; accelerator share with it "
                                  f"{100 * share_here:.3g}% (shipped {100 * shares[w]:.3g}%)"))
    res.tables["scenarios"] = rows
    res.tables["imagenet_scenarios"] = imagenet_rows
    res.tables["sensitivity"] = sens
    res.tables["calibration"] = calib_rows
    res.assumptions += [
        f"SoC: soc_configs/smaug_calibrated.toml -- SMV 8 PEs x 32 MACs, three 32K-element "
        f"fp16 scratchpads (from SMAUG); CPU clock {cal_cfg.cpu.frequency_hz / 1e9:.2g} GHz "
        f"(SMAUG's gem5 run scripts: {calib.target_source})",
        "data preparation MEASURED: every input/weight tile copied out of its NHWC/KRSC "
        "tensor and every output tile back, at archsim's tiles, numpy on one thread, caches "
        "evicted before each pass, median of passes per copy; each network at its achieved "
        "bandwidth (a least-squares fit's per-copy cost folded in; the fixed part includes "
        "Python's call overhead, an upper bound for SMAUG's C++)",
        f"host-to-target scaling by clock ({calib.scaling.host_hz / 1e9:.4g} GHz -> "
        f"{calib.scaling.target_hz / 1e9:.2g} GHz, x{calib.scaling.factor:.3f}): a stated "
        "model that keeps bytes per cycle and ignores core width, vector length, line size "
        "and memory system differences",
        f"ASSUMED (not measurable here, not from the paper): CPU framework {fw_op * 1e6:.0f} "
        f"us per operator + {cal_cfg.cpu.framework_overhead_s_per_tile * 1e6:.0f} us per tile, "
        f"cache flush {flush / 1e9:.0f} GB/s + {cal_cfg.llc.flush_fixed_s * 1e6:.0f} us per "
        f"flush, 1 GHz accelerator, {cal_cfg.dram.bandwidth_bytes_per_s / 1e9:.3g} GB/s DRAM "
        "(sensitivity table for framework and flush)",
        "networks: SMAUG's own eight (its experiments repository, models/*: Minerva, LeNet-5, "
        "CIFAR-10 CNN and VGG, CIFAR-100 ELU and large ELU, ImageNet ResNet-50 at 225x225 with "
        "10 classes, a 2-layer LSTM unrolled over 4 steps) at batch 1, fp16, transcribed into "
        "archsim's builders (compilers/graph/smaug_nets.py); activations fused into the "
        "producing operator as in SMAUG's graphs and not priced separately; batch-norm mean "
        "and variance not moved (gamma and beta are); the ImageNet set of archsim's builders "
        "(ResNet-50, VGG-16, AlexNet, Fathom seq2seq) is the secondary table",
        f"SoC differences from SMAUG's run scripts (sims/smv/tests/*/run.sh, gem5.cfg), kept "
        f"as assumed and shown as sensitivity cases: DRAM "
        f"{cal_cfg.dram.bandwidth_bytes_per_s / 1e9:.3g} GB/s here vs LPDDR4_3200_2x16 "
        f"({_SMAUG_DRAM_BYTES_PER_S / 1e9:.3g} GB/s peak) there; DMA setup "
        f"{cal_cfg.interconnect.transfer_setup_s * 1e6:.2g} us vs 100 cycles; "
        f"{cal_cfg.cpu.cores} CPU cores (8 prep threads in the scenarios) vs --num-cpus=1; "
        "same: 2.5 GHz O3 CPU, 2 MiB 16-way L2 (LLC), one SMV at a 1 ns cycle, DMA with "
        "flush/invalidate (ACP enabled in gem5.cfg); not modelled: 32-byte cache lines, "
        "16 outstanding DMA requests of 64-byte chunks, 1.25 GHz system clock, SMAUG's "
        "sampled simulation (--sample-level=high)",
        "SMV runs element-wise, batch-norm and pooling operators on an 8-lane vector unit; "
        "reshapes and embeddings run on the CPU data-preparation threads",
        "DMA needs a flush of the loaded bytes and an invalidate of the output per tile, ACP "
        "needs neither and uses the LLC port at the DRAM bandwidth",
        "operators run one at a time; accelerators are single-buffered; the DRAM and the ACP "
        "port are each one FIFO server shared by all accelerators",
        "latency categories by priority: accelerator compute > data transfer > data prep > "
        "CPU framework; the accelerator share is the time at least one accelerator computes",
        f"simulation deterministic; seed {seed} seeds the re-measurement's data (full mode)",
    ]

    # -- plots ------------------------------------------------------------------------------
    colors = CATEGORY_COLORS
    scen = list(SCENARIOS)
    ncols = 4
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 4.5 * nrows), sharey=False)
    for ax, w in zip(np.ravel(axes), names, strict=True):
        bottom = np.zeros(len(scen))
        for c in CATEGORIES:
            vals = np.array([results[(w, s)].breakdown_s[c] * 1e3 for s in scen])
            ax.bar(range(len(scen)), vals, bottom=bottom, color=colors[c], label=c)
            bottom += vals
        ax.set_xticks(range(len(scen)), scen, rotation=35, ha="right", fontsize=8)
        ax.set_title(w, fontsize=10)
        ax.set_ylabel("latency (ms)")
    np.ravel(axes)[0].legend(fontsize=7)
    fig.suptitle("SMAUG study: latency breakdown per SoC change (calibrated data prep)")
    fig.tight_layout()
    res.files.append(save_figure(fig, out_dir / "breakdown.png"))

    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(names)
    for i, w in enumerate(names):
        sp = [_speedup(results[(w, "baseline")], results[(w, s)]) for s in scen[1:]]
        ax.bar(np.arange(len(scen) - 1) + i * width, sp, width, label=w)
    ax.axhspan(1.8, 5.0, color="grey", alpha=0.15, label="SMAUG 1.8-5x")
    ax.set_xticks(np.arange(len(scen) - 1) + 0.4 - width / 2, scen[1:])
    ax.set_ylabel("speedup over baseline")
    ax.legend(fontsize=8)
    fig.tight_layout()
    res.files.append(save_figure(fig, out_dir / "speedup.png"))
    return res
