"""``archsim study deeprecsys``: DeepRecSched's latency-bounded throughput and HPCA 2020's servers.

See the package README for what is reproduced and every assumption. The steps:

1. Each of the eight models' numpy forward pass is timed on this CPU and fitted
   (:func:`~archsim.sim.recsys.measure.fit_cpu_model`): an engine's service time at a
   per-core batch.
2. A pool of 32 engines (the authors' example script) serves the authors' load generator;
   the p95 targets are the paper's Table I "medium" values (notes §1.6 [R], unverified).
3. Static baseline, DeepRecSched phase 1 (per-core batch) and phase 2 (GPU offload
   threshold, GPU = :meth:`~archsim.sim.recsys.gpu.GpuRecModel.gtx_1080_ti`).
4. HPCA 2020: the three server generations and co-location
   (:mod:`archsim.sim.recsys.servers`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ....compilers.graph.recsys import RECSYS_MODELS, RecModelConfig, get_recsys
from ....outputs import save_figure
from ...recsys.deeprecinfra import (
    LoadGenerator,
    QuerySizes,
    SchedulerSettings,
    ServingSystem,
    climb,
    deeprecsched,
    serve,
)
from ...recsys.gpu import GpuRecModel
from ...recsys.measure import SWEEP_BATCHES, CpuCostModel, fit_cpu_model, measure_cpu
from ...recsys.servers import SERVER_ASSUMPTIONS, SERVERS, colocate, host_cpu, server_latency_s
from ..framework import Band, Comparison, Direction, Observation, Status, StudyResult

__all__ = ["MODELS", "TARGETS_S", "ENGINES", "GAP_FLOOR", "BATCH_CONFIGS", "ACCEL_CONFIGS",
           "STATIC_BATCH", "LOW_TARGET", "NORMAL_SIZES", "LOGNORMAL_SIZES", "COMPUTE_HEAVY",
           "MEMORY_BOUND", "capacity_gap_ms", "geomean", "scheduler_settings",
           "engine_latency", "run"]

#: The eight models (notes §1.1).
MODELS: tuple[str, ...] = tuple(RECSYS_MODELS)
#: p95 targets, Table I "medium" (notes §1.6 [R]): unverified recollection; WnD's 25 ms
#: matches the authors' script [V-code].
TARGETS_S: dict[str, float] = {"DLRM-RMC1": 0.100, "DLRM-RMC2": 0.400, "DLRM-RMC3": 0.100,
                               "NCF": 0.005, "WnD": 0.025, "MT-WnD": 0.025, "DIN": 0.100,
                               "DIEN": 0.035}
#: Inference engines: the authors' example script (32 CPU worker processes).
ENGINES = 32
#: Per-core batch configurations: the authors' code default ``batch_configs``.
BATCH_CONFIGS: tuple[int, ...] = (32, 64, 128, 256, 512, 1024)
#: Offload thresholds: the authors' example script's ``accel_configs``.
ACCEL_CONFIGS: tuple[int, ...] = (96, 128, 192, 256, 384, 512)
#: The static baseline's per-core batch: the first of :data:`BATCH_CONFIGS`, where the climb
#: starts (a fixed, untuned per-core batch for every model).
STATIC_BATCH = BATCH_CONFIGS[0]
#: The authors' example script's query sizes (normal 165, sd 16, max 1024).
NORMAL_SIZES = QuerySizes()
#: Heavy-tailed sizes for the offload headline: lognormal of an underlying normal with mean
#: 4.5 and sd 0.9 (median 90, p95 ~400 items, clamped at 1024): assumed (the paper's
#: production fit was not recovered, notes §1.6).
LOGNORMAL_SIZES = QuerySizes(distribution="lognormal", mean=4.5, sd=0.9)
#: The paper's compute-heavy and memory-bound examples (notes §1.6 [R]).
COMPUTE_HEAVY = ("DLRM-RMC3", "WnD")
MEMORY_BOUND = ("DLRM-RMC1", "DLRM-RMC2")
#: The HPCA models and batches of the server-generation comparison.
HPCA_MODELS = ("DLRM-RMC1", "DLRM-RMC2", "DLRM-RMC3")
HPCA_BATCHES = (1, 16, 64, 256)
#: The "low" targets: half the medium ones (notes §1.6 [R]: "about +-50%, exact factors
#: unverified").
LOW_TARGET = 0.5
#: The gap grid's floor as a fraction of the CPU-only capacity gap at the static batch
#: (assumed; below 1 so that GPU offload can go beyond the CPUs' capacity).
GAP_FLOOR = 0.2
#: Co-location batch (assumed: a small per-instance batch, where HPCA shows the gain).
COLOC_BATCH = 16


def geomean(values: Sequence[float]) -> float:
    """Geometric mean of positive values."""
    return float(math.exp(math.fsum(math.log(v) for v in values) / len(values)))


def capacity_gap_ms(latency_s: Callable[[int], float], *, size: int = 165,
                    batch: int = STATIC_BATCH, engines: int = ENGINES) -> float:
    """The mean gap (ms) at which ``engines`` engines are saturated by queries of ``size``
    items cut into per-core batches of ``batch``: the parts' service times summed over
    ``engines``."""
    parts = [batch] * (size // batch) + ([size % batch] if size % batch else [])
    return math.fsum(latency_s(p) for p in parts) / engines * 1e3


def scheduler_settings(target_s: float, capacity_ms: float) -> SchedulerSettings:
    """The authors' controller (stable region 0.1, p95 every 64 queries, 128 updates, 50
    log steps over a 20x range of gaps, starting at 10x the smallest) on a grid scaled to
    our engines: smallest gap ``GAP_FLOOR`` x the capacity gap (assumed: our numpy engines
    are far faster than the authors' Caffe2 ones, so their fixed 1..20 ms grid would cap
    most models at 1000 QPS)."""
    low = GAP_FLOOR * capacity_ms
    return SchedulerSettings(target_latency_s=target_s, min_gap_ms=low,
                             max_gap_ms=20.0 * low, gap_steps=50, start_gap_ms=10.0 * low)


def engine_latency(cost: CpuCostModel | GpuRecModel, config: RecModelConfig
                   ) -> Callable[[int], float]:
    """``latency_s(batch)`` of ``cost`` for ``config``, memoized per batch."""
    cache: dict[int, float] = {}

    def latency_s(batch: int) -> float:
        if batch not in cache:
            cache[batch] = cost.predict_s(config, batch)
        return cache[batch]

    return latency_s


@dataclass(frozen=True)
class _ModelRun:
    model: str
    static_qps: float
    whole_query_qps: float
    cpu_batch: int
    cpu_qps: float
    batch_tried: tuple[tuple[int, float], ...]
    ln_cpu_qps: float
    ln_batch: int
    gpu_threshold: int
    gpu_qps: float
    gpu_only_qps: float
    accel_tried: tuple[tuple[int, float], ...]
    low_gain: float
    low_batch: int


def _model_run(name: str, cost: CpuCostModel, gpu: GpuRecModel, seed: int) -> _ModelRun:
    config = get_recsys(name)
    cpu = engine_latency(cost, config)
    acc = engine_latency(gpu, config)
    capacity = capacity_gap_ms(cpu)
    settings = scheduler_settings(TARGETS_S[name], capacity)
    normal = LoadGenerator(sizes=NORMAL_SIZES)
    heavy = LoadGenerator(sizes=LOGNORMAL_SIZES)

    def fixed(b: int, load: LoadGenerator, threshold: int = 1024,
              accel: bool = False) -> float:
        s = ServingSystem(engines=ENGINES, cpu_latency_s=cpu, per_core_batch=b,
                          accel_latency_s=acc if accel else None, accel_threshold=threshold)
        return climb(s, load, settings, seed=seed).qps

    base = ServingSystem(engines=ENGINES, cpu_latency_s=cpu)
    phase1 = deeprecsched(base, normal, settings, batch_configs=BATCH_CONFIGS,
                          accel_configs=(), seed=seed)
    with_gpu = ServingSystem(engines=ENGINES, cpu_latency_s=cpu, accel_latency_s=acc)
    both = deeprecsched(with_gpu, heavy, settings, batch_configs=BATCH_CONFIGS,
                        accel_configs=ACCEL_CONFIGS, seed=seed)
    assert both.accel_threshold is not None
    ln_cpu_gap = dict(both.batch_gaps_ms)[both.per_core_batch]
    low = scheduler_settings(TARGETS_S[name] * LOW_TARGET, capacity)
    low_static = climb(ServingSystem(engines=ENGINES, cpu_latency_s=cpu,
                                     per_core_batch=STATIC_BATCH), normal, low, seed=seed).qps
    low_sched = deeprecsched(base, normal, low, batch_configs=BATCH_CONFIGS,
                             accel_configs=(), seed=seed)
    return _ModelRun(
        model=name, static_qps=fixed(STATIC_BATCH, normal),
        whole_query_qps=fixed(NORMAL_SIZES.max_size, normal),
        cpu_batch=phase1.per_core_batch, cpu_qps=phase1.qps,
        batch_tried=phase1.batch_gaps_ms, ln_cpu_qps=1000.0 / ln_cpu_gap,
        ln_batch=both.per_core_batch, gpu_threshold=both.accel_threshold,
        gpu_qps=both.qps, gpu_only_qps=fixed(both.per_core_batch, heavy, 1, True),
        accel_tried=both.accel_gaps_ms, low_gain=low_sched.qps / low_static,
        low_batch=low_sched.per_core_batch)


def _curve_rows(name: str, cost: CpuCostModel, seed: int, queries: int
                ) -> list[dict[str, Any]]:
    """Throughput against p95 latency at fixed gaps (0.35x..20x the capacity gap), for
    several per-core batches."""
    config = get_recsys(name)
    cpu = engine_latency(cost, config)
    capacity = capacity_gap_ms(cpu)
    rows: list[dict[str, Any]] = []
    load = LoadGenerator(sizes=NORMAL_SIZES)
    for b in (32, 128, 1024):
        system = ServingSystem(engines=ENGINES, cpu_latency_s=cpu, per_core_batch=b)
        for gap in capacity * np.logspace(math.log10(0.35), math.log10(20.0), 12):
            r = serve(system, load, mean_gap_ms=float(gap), queries=queries, seed=seed)
            rows.append({"model": name, "per_core_batch": b, "mean_gap_ms": float(gap),
                         "qps": r.qps, "p95_ms": r.tail_latency_s(95.0) * 1e3})
    return rows


def _plot_curves(path: Path, rows: list[dict[str, Any]]) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(2, 4, figsize=(14, 6.5))
    for ax, m in zip(axes.flat, models, strict=False):
        for b in sorted({r["per_core_batch"] for r in rows}):
            pts = [(r["qps"], r["p95_ms"]) for r in rows
                   if r["model"] == m and r["per_core_batch"] == b]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                    label=f"batch {b}")
        ax.axhline(TARGETS_S[m] * 1e3, color="k", ls="--", lw=0.8, label="p95 target")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(m, fontsize=9)
        ax.set_xlabel("throughput (QPS)")
        ax.set_ylabel("p95 latency (ms)")
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, path)


def _plot_bars(path: Path, labels: Sequence[str], series: dict[str, Sequence[float]],
               ylabel: str, title: str, log: bool = False) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 3.8))
    width = 0.8 / len(series)
    x = np.arange(len(labels))
    for i, (name, values) in enumerate(series.items()):
        ax.bar(x + i * width, values, width, label=name)
    ax.set_xticks(x + width * (len(series) - 1) / 2, labels, fontsize=8,
                  rotation=30 if len(labels) > 8 else 0, ha="right" if len(labels) > 8
                  else "center")
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, path)


def run(*, out_dir: Path, seed: int = 0, quick: bool = False,
        progress: Callable[[str], None] | None = None) -> StudyResult:
    """DeepRecSys's study (module docstring); ``quick`` measures the CPU with 2 repeats at
    batches up to 256 (fit on 1..64) and serves 500 queries per curve point instead of 2000;
    the scheduling itself is the same."""
    out = Path(out_dir)
    say = progress or (lambda _msg: None)
    batches = SWEEP_BATCHES[:-1] if quick else SWEEP_BATCHES
    repeats = 2 if quick else 5
    measurements = []
    for name in MODELS:
        say(f"timing {name} on this CPU")
        measurements.append(measure_cpu(name, batches=batches, repeats=repeats, seed=seed))
    cost = fit_cpu_model(measurements)
    gpu = GpuRecModel.gtx_1080_ti()
    result = StudyResult(name="deeprecsys", title="DeepRecSys (ISCA 2020) + HPCA 2020 "
                                                  "server generations")

    runs: list[_ModelRun] = []
    curves: list[dict[str, Any]] = []
    for name in MODELS:
        say(f"scheduling {name}")
        runs.append(_model_run(name, cost, gpu, seed))
        curves.extend(_curve_rows(name, cost, seed, 500 if quick else 2000))

    sched_rows = [{
        "model": r.model, "target_p95_ms": TARGETS_S[r.model] * 1e3,
        "static_batch": STATIC_BATCH, "static_qps": r.static_qps,
        "whole_query_qps": r.whole_query_qps, "chosen_batch": r.cpu_batch,
        "deeprecsched_cpu_qps": r.cpu_qps, "gain_over_static": r.cpu_qps / r.static_qps,
        "batches_tried": " ".join(f"{b}:{1000 / g:.0f}" for b, g in r.batch_tried),
        "lognormal_batch": r.ln_batch, "lognormal_cpu_qps": r.ln_cpu_qps,
        "gpu_threshold": r.gpu_threshold, "deeprecsched_gpu_qps": r.gpu_qps,
        "gpu_only_qps": r.gpu_only_qps,
        "thresholds_tried": " ".join(f"{t}:{1000 / g:.0f}" for t, g in r.accel_tried),
        "low_target_batch": r.low_batch, "low_target_gain": r.low_gain,
    } for r in runs]
    fit_rows = [{"model": m.model, "held_out_batch": m.batches[-1],
                 "measured_ms": m.total_s[-1] * 1e3, "fit_error": err}
                for m, err in zip(measurements, cost.validate(measurements).values(),
                                  strict=True)]

    gains = [r.cpu_qps / r.static_qps for r in runs]
    chosen = {r.model: r.cpu_batch for r in runs}
    heavy_b = geomean([chosen[m] for m in COMPUTE_HEAVY])
    light_b = geomean([chosen[m] for m in MEMORY_BOUND])
    offload_gain = geomean([r.gpu_qps / r.ln_cpu_qps for r in runs])
    over_gpu_only = geomean([r.gpu_qps / r.gpu_only_qps for r in runs])
    result.comparisons += [
        Comparison(
            metric="DeepRecSched-CPU QPS gain over static, geomean of 8 models",
            ours=geomean(gains), published="~2x across eight models (abstract)",
            published_low=2.0, published_high=2.0, band=Band.around(2.0),
            direction=Direction(above=1.0), unit="x", expected=Status.IN_SHAPE,
            assumption=f"static = fixed per-core batch {STATIC_BATCH} (where the climb "
                       "starts); normal(165, 16) sizes; measured single-core numpy engines",
            note="default +-10% band; our engines are far faster than the targets "
                 "(recalled for the authors' Caffe2 engines), which shrinks the gain"),
        Comparison(
            metric="GPU offload of large queries / CPU-only DeepRecSched, geomean",
            ours=offload_gain, published="offload of only large queries beats CPU-only",
            band=Band.above(1.0), unit="x", expected=Status.REPRODUCED,
            assumption="lognormal(4.5, 0.9) sizes (assumed); GPU = GpuRecModel "
                       "gtx_1080_ti (roofline, assumed launch/PCIe figures)"),
        Comparison(
            metric="GPU offload of large queries / GPU-only (threshold 1), geomean",
            ours=over_gpu_only, published="offload of only large queries beats GPU-only",
            band=Band.above(1.0), unit="x", expected=Status.REPRODUCED,
            assumption="one GPU shared by all queries; same sizes and GPU model"),
    ]
    # An observation, not a comparison: the chosen batches are powers of two picked by a
    # controller oscillating near saturation on measured (shared-machine) engine times, so
    # the ratio moved between 1.41 and 2.83 over six runs and a status could flip.
    result.observations.append(Observation(
        metric="chosen batch, compute-heavy (RMC3, WnD) / memory-bound (RMC1, RMC2), geomean "
               "(paper: compute-heavy models prefer larger batches)",
        ours=heavy_b / light_b, unit="x",
        note=" ".join(f"{m}:{chosen[m]}" for m in COMPUTE_HEAVY + MEMORY_BOUND)))
    result.observations += [
        Observation(metric=f"gain over static, {r.model}", ours=g, unit="x",
                    note=f"chosen batch {r.cpu_batch}")
        for r, g in zip(runs, gains, strict=True)]
    result.observations.append(Observation(
        metric=f"DeepRecSched-CPU gain over static at {LOW_TARGET:g}x the targets, geomean",
        ours=geomean([r.low_gain for r in runs]), unit="x",
        note="the paper's 'low' targets (factor unverified)"))
    result.observations.append(Observation(
        metric="DeepRecSched-CPU gain over whole queries on one core, geomean",
        ours=geomean([r.cpu_qps / r.whole_query_qps for r in runs]), unit="x",
        note="the other static baseline (per-core batch 1024); a model whose target "
             "is unmet sits at the grid's lowest QPS"))

    # HPCA 2020: server generations and co-location.
    host = host_cpu()
    intel_host = "intel" in host.name.lower()
    gen_rows: list[dict[str, Any]] = []
    variation = 0.0
    for m in HPCA_MODELS:
        config = get_recsys(m)
        for b in HPCA_BATCHES:
            lat = {s: server_latency_s(cost, config, b, host=host, server=srv)
                   for s, srv in SERVERS.items()}
            var = max(lat.values()) / min(lat.values()) - 1.0
            variation = max(variation, var)
            gen_rows.append({"model": m, "batch": b, **{f"{s}_ms": v * 1e3
                                                        for s, v in lat.items()},
                             "fastest": min(lat, key=lat.__getitem__), "variation": var})
    coloc_rows: list[dict[str, Any]] = []
    coloc_gain: list[float] = []
    for m in HPCA_MODELS:
        config = get_recsys(m)
        for s, srv in SERVERS.items():
            one = colocate(cost, config, COLOC_BATCH, host=host, server=srv, instances=1)
            for n in sorted({1, 2, 4, srv.cores_per_socket // 2, srv.cores_per_socket}):
                c = colocate(cost, config, COLOC_BATCH, host=host, server=srv, instances=n)
                coloc_rows.append({"model": m, "server": s, "instances": n,
                                   "latency_ms": c.latency_s * 1e3,
                                   "latency_vs_one": c.latency_s / one.latency_s,
                                   "throughput_items_per_s": c.throughput_items_per_s,
                                   "throughput_vs_one": c.throughput_items_per_s
                                   / one.throughput_items_per_s,
                                   "bw_stretch": c.bw_stretch})
                if s == "Broadwell" and n == srv.cores_per_socket:
                    coloc_gain.append(c.throughput_items_per_s / one.throughput_items_per_s)
    result.comparisons += [
        Comparison(
            metric="latency variation across Haswell/Broadwell/Skylake (max/min - 1)",
            ours=variation, published="60% (HPCA 2020 abstract)", published_low=0.6,
            published_high=0.6, band=Band.around(0.6, rel=0.5), unit="",
            direction=Direction(above=0.0),
            # The servers are scaled from this host's per-group time split, which depends
            # on the host. Measured: inside the band from Intel hosts and from an AVX-512
            # AMD EPYC host (0.43-0.45, 2026-12-04); 0.22 from an AVX2 AMD EPYC host. The
            # declared status follows those hosts; why the AVX2 host differs is not measured.
            expected=Status.REPRODUCED if intel_host or host.simd_bits >= 512
            else Status.IN_SHAPE,
            assumption="parameterized server models scaled from this CPU's fit; server "
                       "table an unverified recollection",
            note=f"max over RMC1-3 at batches 1-256, scaled from {host.name}; band +-50%: "
                 "every server figure is recalled, not verified"
                 + ("" if intel_host or host.simd_bits >= 512 else
                    "; from a non-Intel host without AVX-512 it is declared in-shape only")),
        Comparison(
            metric=f"co-location throughput gain, Broadwell, one instance per core, "
                   f"batch {COLOC_BATCH}, geomean RMC1-3",
            ours=geomean(coloc_gain), published="co-location greatly improves "
                                                "latency-bounded throughput",
            band=Band.above(1.0), unit="x", expected=Status.REPRODUCED,
            assumption="LLC split among instances, lockstep DRAM bandwidth contention "
                       "(servers module rule)"),
    ]
    unit = [r for r in gen_rows if r["batch"] == 1 and r["model"] in MEMORY_BOUND]
    result.observations.append(Observation(
        metric="RMC1/RMC2 at batch 1: models where Broadwell is fastest",
        ours=float(sum(r["fastest"] == "Broadwell" for r in unit)),
        note="HPCA [R]: Broadwell fastest at unit batch"))

    say("plotting")
    labels = [r.model for r in runs]
    result.files += [
        _plot_curves(out / "throughput_vs_p95.png", curves),
        _plot_bars(out / "chosen_batch.png", labels,
                   {"DeepRecSched per-core batch (normal sizes)": [r.cpu_batch for r in runs],
                    "static": [STATIC_BATCH] * len(runs)},
                   "per-core batch", "Per-core batch chosen by DeepRecSched", log=True),
        _plot_bars(out / "qps.png", labels,
                   {"static": [r.static_qps for r in runs],
                    "DeepRecSched-CPU": [r.cpu_qps for r in runs],
                    "CPU (lognormal)": [r.ln_cpu_qps for r in runs],
                    "DeepRecSched+GPU (lognormal)": [r.gpu_qps for r in runs]},
                   "QPS at p95 target", "Latency-bounded throughput", log=True),
        _plot_bars(out / "server_generations.png",
                   [f"{r['model']} b{r['batch']}" for r in gen_rows],
                   {s: [r[f"{s}_ms"] / r["Broadwell_ms"] for r in gen_rows]
                    for s in SERVERS},
                   "latency / Broadwell", "Server generations (parameterized model)"),
    ]
    result.tables.update({"scheduling": sched_rows, "curves": curves,
                          "server_generations": gen_rows, "colocation": coloc_rows,
                          "cpu_fit": fit_rows,
                          "cpu_measurements": [row for m in measurements
                                               for row in m.rows()]})
    result.assumptions += [
        "engine service time: this machine's single-threaded numpy forward pass "
        f"({repeats} repeats, batches {batches[0]}..{batches[-1]}), fitted per model and "
        "operator group (t = a + b*work); embedding tables capped at 20000 rows",
        f"{ENGINES} engines (the authors' script), each one core of this CPU with no "
        "contention among engines (assumed): the authors' engines are Caffe2 processes "
        "on a dual-socket Skylake",
        "p95 targets: Table I 'medium' (notes §1.6 [R], unverified recollection)",
        f"arrival-gap grid per model: {GAP_FLOOR:g}x..{20 * GAP_FLOOR:g}x the CPU capacity gap "
        "(165 items at the static batch over 32 engines) in 50 log steps from "
        f"{10 * GAP_FLOOR:g}x (assumed: the authors' 1..20 ms grid, 50 steps from 10 ms, "
        "scaled to our engines), the rest of the controller as the authors' script",
        f"static baseline: per-core batch {STATIC_BATCH} for every model (the first of "
        "the authors' default batch_configs, where the climb starts)",
        "CPU headline: normal(165, 16) sizes (the authors' script); offload headlines: "
        "lognormal(4.5, 0.9) of the underlying normal (assumed)",
        f"batch configs {BATCH_CONFIGS} (code default), offload thresholds "
        f"{ACCEL_CONFIGS} (the authors' script); one GPU",
        *GpuRecModel.gtx_1080_ti().assumptions,
        *SERVER_ASSUMPTIONS,
        f"host read from /proc/cpuinfo: {host.name}, {host.clock_hz / 1e9:.2f} GHz, "
        f"{host.simd_bits}-bit SIMD",
        f"co-location at per-instance batch {COLOC_BATCH} (assumed)",
    ]
    return result
