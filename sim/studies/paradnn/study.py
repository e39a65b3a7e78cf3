"""Study: ParaDnn (Wang, Wei & Brooks, "Benchmarking TPU, GPU, and CPU Platforms for Deep
Learning", arXiv 1907.10701, 2019).

Every model of ParaDnn's FC, CNN and RNN sweep grids (:data:`PARADNN_SWEEPS`) is generated
as a workload graph; its forward-pass FLOPs and per-operator memory traffic give an
arithmetic intensity, and a roofline, ``min(peak, AI x bandwidth)``, gives the attainable
FLOP/s on each of the paper's four platforms (TPU v2 and v3 boards, V100, a 2-socket
Skylake). The study counts per-family winners, draws one roofline per platform, fits the
paper's log-linear regression of throughput on the hyperparameters, and checks the paper's
qualitative findings as direction claims. A second, per-kernel model of the training step
(:mod:`.kernels`: TPU per-core batch split and MXU padding, per-kernel and per-step
overheads, sequential RNN steps, a measured CPU calibration, memory capacity) checks the
same findings plus the capacity one, with break-even overheads for the small-batch RNN claim.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ....compilers.graph.paradnn import PARADNN_SWEEPS, paradnn_model, paradnn_sweep
from ....errors import ConfigError
from ....outputs import save_figure
from .. import Band, Comparison, Direction, Observation, Status, StudyResult
from .kernels import GIB, GraphCache, KernelPlatform, kernel_platforms, time_model
from .platforms import FAMILIES, PLATFORMS, Platform

__all__ = ["Platform", "PLATFORMS", "FAMILIES", "ModelPoint", "model_point", "attainable_flops",
           "sweep_points", "wins_table", "loglinear_fit", "run"]

#: Run-script data types per family, to build the graph whose bytes each platform sees.
_DTYPES: tuple[str, ...] = ("fp32", "bf16", "fp16")


@dataclass(frozen=True, kw_only=True)
class ModelPoint:
    """One generated model: its hyperparameters, forward FLOPs and bytes per data type."""

    family: str
    params: Mapping[str, Any]
    flops: float
    bytes_by_dtype: Mapping[str, float]
    restream_bytes_by_dtype: Mapping[str, float]
    """Traffic if recurrent weights were re-read at every time step (RNN sensitivity)."""

    def ai(self, dtype: str) -> float:
        """Arithmetic intensity (FLOP per byte of operator traffic) at ``dtype``."""
        return self.flops / self.bytes_by_dtype[dtype]


def model_point(family: str, params: Mapping[str, Any]) -> ModelPoint:
    """Generate ``family``'s model with ``params`` and measure its FLOPs and traffic.

    Traffic is every operator's inputs (weights included) plus outputs (no fusion, no cache
    reuse across operators). FLOPs do not depend on the data type; bytes do, so fp32 and
    16-bit graphs are generated.
    """
    flops = 0.0
    by_dtype: dict[str, float] = {}
    restream: dict[str, float] = {}
    for dt in ("fp32", "bf16"):
        g = paradnn_model(family, **params, dtype=dt)
        by_dtype[dt] = float(sum(op.bytes_accessed for op in g))
        # The generator's recurrent operator reads its weights once per sequence (ideal
        # on-chip reuse); re-reading them every step is the other extreme.
        steps = int(params.get("max_length", 1))
        restream[dt] = by_dtype[dt] + sum((steps - 1) * op.weight_bytes for op in g
                                          if op.kind == "recurrent")
        flops = float(g.total_flops)
    by_dtype["fp16"] = by_dtype["bf16"]  # same width, same bytes
    restream["fp16"] = restream["bf16"]
    return ModelPoint(family=family, params=dict(params), flops=flops, bytes_by_dtype=by_dtype,
                      restream_bytes_by_dtype=restream)


def attainable_flops(platform: Platform, point: ModelPoint) -> tuple[float, str]:
    """Roofline ``min(peak, AI x bandwidth)`` of ``point`` on ``platform`` and its bound."""
    peak = platform.peak(point.family)
    mem = point.ai(platform.dtype_by_family[point.family]) * platform.mem_bw_bytes_per_s
    return (peak, "compute") if peak <= mem else (mem, "memory")


def sweep_points(*, quick: bool, seed: int = 0, per_family: int = 66) -> list[ModelPoint]:
    """Every model of the sweep grids, or (quick) ``per_family`` drawn per family by ``seed``."""
    rng = np.random.default_rng(seed)
    out: list[ModelPoint] = []
    for fam in FAMILIES:
        grid = list(paradnn_sweep(fam))
        if quick and len(grid) > per_family:
            idx = sorted(rng.choice(len(grid), size=per_family, replace=False).tolist())
            grid = [grid[i] for i in idx]
        out.extend(model_point(fam, p) for p in grid)
    return out


def _winner(values: Mapping[str, float]) -> str:
    """The platform with the largest value, or ``"tie"`` when two share it (compute-bound
    models sit at utilization 1.0 on several platforms)."""
    ranked = sorted(values.items(), key=lambda kv: kv[1], reverse=True)
    if len(ranked) > 1 and math.isclose(ranked[0][1], ranked[1][1], rel_tol=1e-9):
        return "tie"
    return ranked[0][0]


def _rows(points: Sequence[ModelPoint]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for p in points:
        row: dict[str, Any] = {"family": p.family, **{f"hp_{k}": v for k, v in p.params.items()},
                               "flops": p.flops, "bytes_fp32": p.bytes_by_dtype["fp32"],
                               "bytes_16bit": p.bytes_by_dtype["bf16"]}
        att_by: dict[str, float] = {}
        util_by: dict[str, float] = {}
        for pl in PLATFORMS:
            att, bound = attainable_flops(pl, p)
            att_by[pl.name] = att
            util_by[pl.name] = att / pl.peak(p.family)
            row[f"{pl.name}_attainable_flops_per_s"] = att
            row[f"{pl.name}_bound"] = bound
            row[f"{pl.name}_utilization"] = util_by[pl.name]
            if p.family == "rnn":
                row[f"{pl.name}_utilization_restream"] = min(
                    1.0, p.flops / p.restream_bytes_by_dtype[pl.dtype_by_family["rnn"]]
                    * pl.mem_bw_bytes_per_s / pl.peak("rnn"))
        row["winner_attainable"] = _winner(att_by)
        row["winner_utilization"] = _winner(util_by)
        rows.append(row)
    return rows


def wins_table(rows: Sequence[Mapping[str, Any]], key: str) -> list[dict[str, Any]]:
    """Family x platform counts of ``key`` (``winner_attainable``/``winner_utilization``)."""
    out = []
    for fam in FAMILIES:
        fam_rows = [r for r in rows if r["family"] == fam]
        out.append({"family": fam, "models": len(fam_rows),
                    **{pl.name: sum(r[key] == pl.name for r in fam_rows) for pl in PLATFORMS},
                    "tie": sum(r[key] == "tie" for r in fam_rows)})
    return out


def loglinear_fit(rows: Sequence[Mapping[str, Any]], family: str, target: str
                  ) -> tuple[dict[str, float], float]:
    """Least squares ``log10(target) ~ c + sum_i b_i log2(h_i)`` over ``family``'s rows.

    Numeric swept hyperparameters enter as ``log2``; categorical ones (block, cell) as
    one-hot indicators (first level dropped); axes with one value are left out. Returns
    the coefficients by name and R^2.
    """
    fam_rows = [r for r in rows if r["family"] == family]
    if len(fam_rows) < 3:
        raise ConfigError(f"need >= 3 models of family '{family}' to fit, not "
                          f"{len(fam_rows)}", field="rows")
    cols: list[np.ndarray] = [np.ones(len(fam_rows))]
    names = ["intercept"]
    for axis, values in PARADNN_SWEEPS[family].items():
        seen = sorted({r[f"hp_{axis}"] for r in fam_rows}, key=str)
        if len(seen) < 2:
            continue
        if isinstance(values[0], str):
            for level in seen[1:]:
                cols.append(np.array([float(r[f"hp_{axis}"] == level) for r in fam_rows]))
                names.append(f"{axis}={level}")
        else:
            cols.append(np.log2([float(r[f"hp_{axis}"]) for r in fam_rows]))
            names.append(f"log2 {axis}")
    x = np.column_stack(cols)
    y = np.log10([float(r[target]) for r in fam_rows])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    # A constant target (every model on the flat roof) has no variance to explain.
    r2 = 1.0 - float(np.sum(resid ** 2)) / ss_tot if ss_tot > 0 else math.nan
    return dict(zip(names, (float(c) for c in coef), strict=True)), r2


_COLORS = {"fc": "tab:blue", "cnn": "tab:orange", "rnn": "tab:green"}


def _roofline_plot(points: Sequence[ModelPoint], pl: Platform, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4.5))
    ax = fig.add_subplot()
    ais_all = []
    for fam in FAMILIES:
        fam_pts = [p for p in points if p.family == fam]
        if not fam_pts:
            continue
        ai = [p.ai(pl.dtype_by_family[fam]) for p in fam_pts]
        ais_all.extend(ai)
        att = [attainable_flops(pl, p)[0] for p in fam_pts]
        ax.scatter(ai, att, s=8, alpha=0.6, color=_COLORS[fam],
                   label=f"{fam.upper()} ({pl.dtype_by_family[fam]})")
    lo, hi = min(ais_all) / 2, max(ais_all) * 2
    xs = np.geomspace(lo, hi, 200)
    for dt in sorted(set(pl.dtype_by_family.values())):
        ax.plot(xs, np.minimum(pl.peak_flops_per_s[dt], xs * pl.mem_bw_bytes_per_s), "k-",
                lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP/byte, forward pass)")
    ax.set_ylabel("attainable FLOP/s")
    ax.set_title(f"{pl.name}: {pl.mem_bw_bytes_per_s / 1e9:.0f} GB/s roofline")
    ax.legend(loc="lower right", fontsize=8)
    return save_figure(fig, path)


def _rnn_batch_plot(by_batch: Sequence[Mapping[str, Any]], names: Sequence[str],
                    path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.8))
    ax1, ax2 = fig.subplots(1, 2)
    batches = [r["batch"] for r in by_batch]
    for name in names:
        ax1.plot(batches, [r[f"share_{name}"] for r in by_batch], marker="o", label=name)
        ax2.plot(batches, [r[f"median_{name}_flops_per_s"] for r in by_batch], marker="o",
                 label=name)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("global batch")
    ax1.set_ylabel("share of RNN models won")
    ax2.set_yscale("log")
    ax2.set_ylabel("median training FLOP/s (useful)")
    ax1.legend(fontsize=8)
    ax1.set_title("kernel model: RNN winners by batch")
    ax2.set_title("kernel model: RNN throughput by batch")
    return save_figure(fig, path)


#: The TPU platforms of :data:`PLATFORMS` (by name).
_TPUS = frozenset({"tpu-v2", "tpu-v3"})

def _large_cnn_or_fc(row: Mapping[str, Any]) -> bool:
    """The finding's "large-batch CNN / large FC model": CNN batch >= 512, FC nodes and
    batch >= 2048 (assumed thresholds)."""
    return ((row["family"] == "cnn" and row["hp_batch"] >= 512)
            or (row["family"] == "fc" and row["hp_nodes"] >= 2048 and row["hp_batch"] >= 2048))


def _share(rows: Sequence[Mapping[str, Any]], pred: Callable[[Mapping[str, Any]], bool],
           key: str, names: Set[str]
           ) -> tuple[float, int]:
    sel = [r for r in rows if pred(r)]
    if not sel:
        return math.nan, 0
    return sum(r[key] in names for r in sel) / len(sel), len(sel)


_K = "_k"  # column suffix of the kernel-model (training step) figures


def _kernel_rows(points: Sequence[ModelPoint], rows: list[dict[str, Any]],
                 kplats: Sequence[KernelPlatform], cache: GraphCache | None = None) -> None:
    """Add the kernel model's training-step figures to ``rows`` (one per point)."""
    for p, row in zip(points, rows, strict=True):
        timings = time_model(p.family, p.params, kplats, cache=cache)
        fps: dict[str, float] = {}
        for t, kp in zip(timings, kplats, strict=True):
            pre = f"{t.platform}{_K}"
            row[f"{pre}_step_s"] = t.step.time_s
            row[f"{pre}_compute_s"] = t.step.compute_s
            row[f"{pre}_memory_s"] = t.step.memory_s
            row[f"{pre}_overhead_s"] = t.step.overhead_s
            row[f"{pre}_kernels"] = t.step.kernels
            row[f"{pre}_flops_per_s"] = t.flops_per_s
            row[f"{pre}_utilization"] = t.flops_per_s / kp.roofline.peak(p.family)
            row[f"{pre}_footprint_bytes"] = t.footprint_bytes
            row[f"{pre}_fits"] = t.fits
            row[f"{pre}_bound"] = "memory" if t.step.memory_s > t.step.compute_s else "compute"
            if t.fits:
                fps[t.platform] = t.flops_per_s
        row["train_method"] = timings[0].method
        row["params"] = timings[0].parameters
        row["train_flops"] = timings[-1].train_flops
        row["winner_kernel"] = _winner(fps) if fps else "none"


def _rnn_small_batch_share(points: Sequence[ModelPoint], kplats: Sequence[KernelPlatform],
                           cache: GraphCache) -> float:
    """Share of batch-64 RNNs won by V100 under ``kplats`` (for the sensitivities)."""
    sel = [p for p in points if p.family == "rnn" and p.params["batch"] == 64]
    wins = 0
    for p in sel:
        ts = [t for t in time_model("rnn", p.params, kplats, cache=cache) if t.fits]
        wins += bool(ts) and max(ts, key=lambda t: t.flops_per_s).platform == "v100"
    return wins / len(sel) if sel else math.nan


def _break_even(rows: Sequence[Mapping[str, Any]], kplats: Sequence[KernelPlatform]
                ) -> tuple[float, float]:
    """Median over batch-64 RNNs of the TPU per-kernel overhead above which V100 wins, and
    of the V100 launch overhead below which it wins (closed form: time is linear in the
    overhead, ``T(o) = T(o0) + kernels x (o - o0)``); the V100 share crosses 0.5 there."""
    by = {kp.name: kp for kp in kplats}
    tpu_star: list[float] = []
    gpu_star: list[float] = []
    for r in rows:
        if r["family"] != "rnn" or r["hp_batch"] != 64:
            continue
        t = {k: r[f"{k}{_K}_step_s"] for k in by}
        n = {k: r[f"{k}{_K}_kernels"] for k in by}
        if t["skylake"] <= t["v100"]:
            tpu_star.append(math.inf)  # the CPU beats V100 whatever the TPU overhead
        else:
            tpu_star.append(max(by[k].kernel_overhead_s + (t["v100"] - t[k]) / n[k]
                                for k in ("tpu-v2", "tpu-v3")))
        best_other = min(v for k, v in t.items() if k != "v100")
        gpu_star.append(by["v100"].kernel_overhead_s + (best_other - t["v100"]) / n["v100"])
    return (float(np.median(tpu_star)) if tpu_star else math.nan,
            float(np.median(gpu_star)) if gpu_star else math.nan)


def _kernel_section(res: StudyResult, points: Sequence[ModelPoint],
                    rows: list[dict[str, Any]], out_dir: Path) -> None:
    """Per-kernel training-step model: tables, comparisons and sensitivities."""
    kplats = kernel_platforms()
    _kernel_rows(points, rows, kplats)
    res.tables["wins_kernel"] = [
        {**w, "none": sum(r["winner_kernel"] == "none" for r in rows
                          if r["family"] == w["family"])}
        for w in wins_table(rows, "winner_kernel")]
    res.tables["kernel_platforms"] = [
        {"platform": kp.name, "devices": kp.devices,
         "compute_efficiency": kp.compute_efficiency,
         "bandwidth_efficiency": kp.bandwidth_efficiency,
         "kernel_overhead_s": kp.kernel_overhead_s, "step_overhead_s": kp.step_overhead_s,
         "row_multiple": kp.row_multiple, "min_rows": kp.min_rows,
         "col_multiple": kp.col_multiple, "fused_kinds": " ".join(sorted(kp.fused_kinds)),
         "memory_capacity_bytes": kp.memory_capacity_bytes,
         "recurrent_weights_cached": kp.recurrent_weights_cached,
         **{f"source_{k}": v for k, v in kp.sources.items()}} for kp in kplats]
    km = ("kernel model: training step, time = sum over kernels of max(padded FLOPs / "
          "peak, bytes / BW) + overhead, TPU per core at batch/8, capacity enforced")
    share, n = _share(rows, _large_cnn_or_fc, "winner_kernel", _TPUS)
    res.comparisons.append(Comparison(
        metric="kernel model: share of large-batch CNN / large FC models won by a TPU",
        published="TPU is best for large-batch CNNs and large FC models", ours=share,
        band=Band.above(0.5), expected=Status.REPRODUCED, unit="fraction",
        assumption=f"{km}; 'large' as in the roofline check",
        note=f"{n} models (a model that fits on no TPU core counts against the TPU)"))
    # The whole batch-64 RNN grid (324 models, cheap) in quick mode too: the finding sits
    # near its 0.5 threshold, and a 66-model draw holds too few of them to decide it.
    rnn64_pts = [model_point("rnn", q) for q in paradnn_sweep("rnn", overrides={"batch": 64})]
    rnn64 = _rows(rnn64_pts)
    cache: GraphCache = {}
    _kernel_rows(rnn64_pts, rnn64, kplats, cache)
    share = sum(r["winner_kernel"] == "v100" for r in rnn64) / len(rnn64)
    n = len(rnn64)
    tpu_be, gpu_be = _break_even(rnn64, kplats)
    by = {kp.name: kp for kp in kplats}
    no_floor = [replace(kp, min_rows=kp.row_multiple) if kp.name in _TPUS else kp
                for kp in kplats]
    cached = [replace(kp, recurrent_weights_cached=True) if kp.name in _TPUS else kp
              for kp in kplats]
    gpu10 = [replace(kp, kernel_overhead_s=10e-6) if kp.name == "v100" else kp
             for kp in kplats]
    sens = {"no 128-row MXU floor": _rnn_small_batch_share(rnn64_pts, no_floor, cache),
            "TPU recurrent weights cached on chip": _rnn_small_batch_share(rnn64_pts, cached, cache),
            "V100 launch 10 us": _rnn_small_batch_share(rnn64_pts, gpu10, cache)}
    res.comparisons.append(Comparison(
        metric="kernel model: share of batch-64 RNN models won by V100",
        published="GPU is more flexible: better for small-batch RNNs", ours=share,
        band=Band.above(0.5), expected=Status.NOT_REPRODUCED, unit="fraction",
        assumption=f"{km}; per-step recurrent kernels read their weights",
        note=f"{n} models; V100 wins where per-core TPU work is padded (8 rows -> 128) and "
             f"every core re-reads the weights each step; TPU wins the small cells, where "
             f"launch overhead dominates. Break-even (median): TPU per-op overhead "
             f"{tpu_be * 1e6:.2f} us (assumed {by['tpu-v3'].kernel_overhead_s * 1e6:.0f}), "
             f"V100 launch {gpu_be * 1e6:.2f} us (assumed "
             f"{by['v100'].kernel_overhead_s * 1e6:.0f}). Sensitivity: "
             + "; ".join(f"{k} {v:.3f}" for k, v in sens.items())))
    res.observations.append(Observation(
        metric="batch-64 RNN: TPU per-op overhead at which V100's share crosses 0.5",
        ours=tpu_be * 1e6, unit="us", note="median of per-model closed-form break-evens"))
    res.observations.append(Observation(
        metric="batch-64 RNN: V100 launch overhead below which V100's share exceeds 0.5",
        ours=gpu_be * 1e6, unit="us", note="median of per-model closed-form break-evens"))
    for k, v in sens.items():
        res.observations.append(Observation(
            metric=f"batch-64 RNN V100 share, sensitivity: {k}", ours=v, unit="fraction"))
    rnn = [r for r in rows if r["family"] == "rnn"]
    util = {kp.name: float(np.mean([r[f"{kp.name}{_K}_utilization"] for r in rnn]))
            for kp in kplats}
    other = max(v for k, v in util.items() if k != "skylake")
    res.comparisons.append(Comparison(
        metric="kernel model: mean RNN utilization, Skylake over the best other platform",
        published="CPU achieves the highest FLOPS utilization on RNNs",
        ours=util["skylake"] / other, band=Band.above(1.0), expected=Status.REPRODUCED,
        unit="x", assumption=f"{km}; Skylake's efficiency is this machine's measured "
                             "one-core GEMM efficiency",
        note=f"{len(rnn)} models; means " + ", ".join(f"{k} {v:.3f}" for k, v in
                                                      util.items())))
    mem2 = [r for r in rows if r[f"tpu-v2{_K}_bound"] == "memory"]
    ratios = [r[f"tpu-v2{_K}_step_s"] / r[f"tpu-v3{_K}_step_s"] for r in mem2]
    peak_ratio = 420e12 / 180e12
    res.comparisons.append(Comparison(
        metric="kernel model: median TPU v3 / v2 speedup over models memory-bound on v2",
        published=f"below the {peak_ratio:.2f}x peak ratio for memory-bound models",
        ours=float(np.median(ratios)) if ratios else math.nan,
        band=Band(lo=1.0, hi=peak_ratio, open_hi=True), direction=Direction(below=peak_ratio),
        expected=Status.REPRODUCED, unit="x",
        assumption=f"{km}; memory-bound = summed memory time above summed compute time",
        note=f"{len(ratios)} models"))
    fc = [r for r in rows if r["family"] == "fc" and r[f"tpu-v3{_K}_fits"]]
    big = [r[f"tpu-v3{_K}_flops_per_s"] for r in fc if r["hp_batch"] >= 4096]
    small = [r[f"tpu-v3{_K}_flops_per_s"] for r in fc if r["hp_batch"] <= 256]
    res.comparisons.append(Comparison(
        metric="kernel model: TPU v3 FC median training FLOP/s, batch >= 4096 over <= 256",
        published="TPU performance depends strongly on batch size",
        ours=float(np.median(big) / np.median(small)) if big and small else math.nan,
        band=Band.at_least(2.0), direction=Direction(above=1.0), expected=Status.REPRODUCED,
        unit="x", assumption=f"{km}; 'strongly' read as >= 2x (assumed threshold)",
        note=f"{len(big)} vs {len(small)} FC models that fit on a v3 core"))
    accel = [kp.name for kp in kplats if kp.name != "skylake"]
    cpu_only = sum(r[f"skylake{_K}_fits"] and not any(r[f"{a}{_K}_fits"] for a in accel)
                   for r in rows)
    nofit = {kp.name: sum(not r[f"{kp.name}{_K}_fits"] for r in rows) for kp in kplats}
    res.comparisons.append(Comparison(
        metric="kernel model: models that fit in Skylake's memory but in no accelerator's",
        published="the CPU supports the largest models (memory capacity)",
        ours=float(cpu_only), band=Band.at_least(1.0), expected=Status.REPRODUCED,
        unit="models", assumption=f"{km}; footprint = 12 B/parameter (weight, gradient, "
                                  "one optimizer slot, fp32) + every forward output",
        note=f"{len(rows)} models; not fitting: "
             + ", ".join(f"{k} {v}" for k, v in nofit.items())))
    # The paper's shape: the GPU's RNN advantage is a small-batch one.
    rnn_rows = [r for r in rows if r["family"] == "rnn"]
    by_batch = []
    for b in PARADNN_SWEEPS["rnn"]["batch"]:
        sel = [r for r in rnn_rows if r["hp_batch"] == b]
        by_batch.append({"batch": b, "models": len(sel),
                         **{f"share_{kp.name}": (sum(r["winner_kernel"] == kp.name
                                                     for r in sel) / len(sel)
                                                 if sel else math.nan) for kp in kplats},
                         **{f"median_{kp.name}_flops_per_s": (
                             float(np.median([r[f"{kp.name}{_K}_flops_per_s"] for r in sel]))
                             if sel else math.nan) for kp in kplats}})
    res.tables["rnn_by_batch"] = by_batch
    small_sh, n_small = _share(rows, lambda r: r["family"] == "rnn" and r["hp_batch"] <= 128,
                               "winner_kernel", {"v100"})
    large_sh, n_large = _share(rows, lambda r: r["family"] == "rnn" and r["hp_batch"] >= 512,
                               "winner_kernel", {"v100"})
    res.comparisons.append(Comparison(
        metric="kernel model: V100 share of RNN wins, batch <= 128 minus batch >= 512",
        published="the GPU's RNN advantage is at small batch; the TPU's grows with batch",
        ours=small_sh - large_sh, band=Band.above(0.0), direction=Direction(above=0.0),
        expected=Status.REPRODUCED, unit="fraction",
        assumption=km, note=f"{n_small} vs {n_large} RNN models; shares {small_sh:.3f} vs "
                            f"{large_sh:.3f}; per batch in rnn_by_batch.csv"))
    for kp in kplats:
        fit = [r["params"] for r in rows if r[f"{kp.name}{_K}_fits"]]
        res.observations.append(Observation(
            metric=f"kernel model: largest model (parameters) that fits on {kp.name}",
            ours=float(max(fit)) if fit else math.nan, unit="parameters",
            note=f"{kp.memory_capacity_bytes / GIB:.0f} GiB per device"))
    res.files.append(_rnn_batch_plot(by_batch, [kp.name for kp in kplats],
                                     out_dir / "kernel_rnn_batch.png"))
    for fam in FAMILIES:
        fam_rows = [r for r in rows if r["family"] == fam]
        res.observations.append(Observation(
            metric=f"kernel model: training step method for {fam.upper()}",
            ours=float(len(fam_rows)), unit="models",
            note=str(sorted({r["train_method"] for r in fam_rows}))))
    reg = res.tables["regression"]
    for fam in FAMILIES:
        for kp in kplats:
            fam_fit = [r for r in rows if r["family"] == fam and r[f"{kp.name}{_K}_fits"]]
            if len(fam_fit) < 3:
                continue
            coef, r2 = loglinear_fit(fam_fit, fam, f"{kp.name}{_K}_flops_per_s")
            reg.append({"family": fam, "platform": kp.name, "model": "kernel", "r2": r2,
                        **{f"coef {k}": v for k, v in coef.items()}})
    res.assumptions.extend(
        [f"Kernel model, {kp.name}: " + "; ".join(f"{k}: {v}" for k, v in kp.sources.items())
         for kp in kplats]
        + ["Kernel model training step: every model through compilers/graph/training.py's "
           "training_graph (SGD; recurrent layers by BPTT with the cell's point-wise "
           "backward assumed 2x its forward).",
           "Kernel model: no gradient all-reduce between TPU cores, no input pipeline, "
           "no GPU padding beyond multiples of 8, non-GEMM ops unpadded (assumed)."])


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """Rooflines of ParaDnn's sweep grids on TPU v2/v3, V100 and Skylake, next to the
    paper's qualitative findings."""
    out_dir = Path(out_dir)
    t0 = time.process_time()
    res = StudyResult(name="paradnn",
                      title="ParaDnn: FC/CNN/RNN sweep rooflines on TPU v2/v3, V100, Skylake")
    points = sweep_points(quick=quick, seed=seed)
    rows = _rows(points)
    res.tables["models"] = rows
    res.tables["wins_attainable"] = wins_table(rows, "winner_attainable")
    res.tables["wins_utilization"] = wins_table(rows, "winner_utilization")
    res.tables["platforms"] = [
        {"platform": pl.name, "mem_bw_bytes_per_s": pl.mem_bw_bytes_per_s,
         **{f"peak_{fam}_flops_per_s": pl.peak(fam) for fam in FAMILIES},
         **{f"dtype_{fam}": pl.dtype_by_family[fam] for fam in FAMILIES},
         **{f"ridge_ai_{fam}": pl.ridge_ai(fam) for fam in FAMILIES}, "source": pl.source}
        for pl in PLATFORMS]

    roof = "idealized roofline min(peak, AI x BW) of the forward pass, unfused operator traffic"
    # (1) TPU best for large-batch CNNs and large FC models.
    share, n = _share(rows, _large_cnn_or_fc, "winner_attainable", _TPUS)
    res.comparisons.append(Comparison(
        metric="share of large-batch CNN / large FC models where a TPU attains the most FLOP/s",
        published="TPU is best for large-batch CNNs and large FC models", ours=share,
        band=Band.above(0.5), expected=Status.REPRODUCED, unit="fraction",
        assumption=f"{roof}; 'large' = CNN batch >= 512, FC nodes and batch >= 2048 (assumed)",
        note=f"{n} models; TPU v3 has both the highest peak and the highest bandwidth, so it "
             "wins every model of a pure roofline"))
    # (2) GPU better for small-batch RNNs.
    share, n = _share(rows, lambda r: r["family"] == "rnn" and r["hp_batch"] == 64,
                      "winner_attainable", {"v100"})
    res.comparisons.append(Comparison(
        metric="share of batch-64 RNN models where the V100 attains the most FLOP/s",
        published="GPU is more flexible: better for small-batch RNNs", ours=share,
        band=Band.above(0.5), expected=Status.NOT_REPRODUCED, unit="fraction",
        assumption=f"{roof}; the paper's GPU advantage comes from TPU padding/launch "
                   "overheads at small batch, which a roofline does not have",
        note=f"{n} models; V100 (900 GB/s) is below TPU v3 (3600 GB/s) on the memory roof"))
    # (3) CPU reaches the best FLOPS utilization on RNNs.
    rnn = [r for r in rows if r["family"] == "rnn"]

    def util_ratio(suffix: str) -> tuple[float, str]:
        med = {pl.name: float(np.mean([r[f"{pl.name}_utilization{suffix}"] for r in rnn]))
               for pl in PLATFORMS}
        other = max((v, k) for k, v in med.items() if k != "skylake")
        return med["skylake"] / other[0], ", ".join(f"{k} {v:.3f}" for k, v in med.items())

    ratio_ideal, med_ideal = util_ratio("")
    ratio_rs, med_rs = util_ratio("_restream")
    res.comparisons.append(Comparison(
        metric="mean RNN utilization (attainable/peak), Skylake over the best other platform",
        published="CPU achieves the highest FLOPS utilization on RNNs", ours=ratio_ideal,
        band=Band.above(1.0), unit="x",
        # Skylake's ridge is the lowest, so the ratio is >= 1 by construction; it exceeds 1
        # by the few RNNs that are memory-bound on the other platforms (small batch).
        expected=Status.REPRODUCED,
        assumption=f"{roof}; recurrent weights read once per sequence (the generator's "
                   "traffic), so most RNNs are compute-bound, at utilization 1, everywhere",
        note=f"{len(rnn)} models; means {med_ideal}. Weights re-read every step: "
             f"{ratio_rs:.3g}x (means {med_rs})"))
    res.observations.append(Observation(
        metric="mean RNN utilization ratio Skylake / best other, weights re-read per step",
        ours=ratio_rs, unit="x", note=med_rs))
    # (4) TPU v3 over v2 below the peak ratio for memory-bound models.
    ratios = [r["tpu-v3_attainable_flops_per_s"] / r["tpu-v2_attainable_flops_per_s"]
              for r in rows if r["tpu-v2_bound"] == "memory"]
    peak_ratio = 420e12 / 180e12
    med = float(np.median(ratios)) if ratios else math.nan
    res.comparisons.append(Comparison(
        metric="median TPU v3 / v2 speedup over models memory-bound on v2",
        published=f"below the {peak_ratio:.2f}x peak ratio for memory-bound models", ours=med,
        band=Band(lo=1.0, hi=peak_ratio, open_hi=True), direction=Direction(below=peak_ratio),
        expected=Status.REPRODUCED, unit="x",
        assumption=f"{roof}; bandwidth ratio 3600/2400 = 1.5 sets memory-bound gains",
        note=f"{len(ratios)} memory-bound models"))
    # (5) TPU performance depends strongly on batch size.
    fc = [r for r in rows if r["family"] == "fc"]
    big = [r["tpu-v3_attainable_flops_per_s"] for r in fc if r["hp_batch"] >= 4096]
    small = [r["tpu-v3_attainable_flops_per_s"] for r in fc if r["hp_batch"] <= 256]
    ratio = float(np.median(big) / np.median(small)) if big and small else math.nan
    res.comparisons.append(Comparison(
        metric="TPU v3 FC median attainable FLOP/s, batch >= 4096 over batch <= 256",
        published="TPU performance depends strongly on batch size", ours=ratio,
        band=Band.at_least(2.0), direction=Direction(above=1.0), expected=Status.REPRODUCED,
        unit="x", assumption=f"{roof}; 'strongly' read as >= 2x (assumed threshold)",
        note=f"{len(big)} vs {len(small)} FC models"))

    # Log-linear regression of attainable throughput on the hyperparameters (the paper's
    # regression analysis), per family on TPU v3 and V100.
    reg_rows: list[dict[str, Any]] = []
    for fam in FAMILIES:
        for pl in PLATFORMS:
            coef, r2 = loglinear_fit(rows, fam, f"{pl.name}_attainable_flops_per_s")
            reg_rows.append({"family": fam, "platform": pl.name, "model": "roofline", "r2": r2,
                             **{f"coef {k}": v for k, v in coef.items()}})
            if pl.name == "tpu-v3":
                res.observations.append(Observation(
                    metric=f"R^2 of log-linear fit, {fam.upper()} attainable FLOP/s on TPU v3",
                    ours=r2, note=", ".join(f"{k} {v:+.3f}" for k, v in coef.items()
                                            if k != "intercept")))
    res.tables["regression"] = reg_rows
    for fam in FAMILIES:
        fam_rows = [r for r in rows if r["family"] == fam]
        mem = sum(r["tpu-v3_bound"] == "memory" for r in fam_rows) / max(len(fam_rows), 1)
        res.observations.append(Observation(
            metric=f"share of {fam.upper()} models memory-bound on TPU v3", ours=mem,
            unit="fraction", note=f"{len(fam_rows)} models"))

    _kernel_section(res, points, rows, out_dir)

    for pl in PLATFORMS:
        res.files.append(_roofline_plot(points, pl, out_dir / f"roofline_{pl.name}.png"))
    res.assumptions.extend([
        "Platform peaks and bandwidths from the notes' table marked [R] (recollected from "
        "the paper, not verified); Skylake's ~2 TFLOPS / ~120 GB/s are approximate (assumed).",
        "Data types from ParaDnn's run scripts: TPU bf16; V100 fp32 for FC, fp16 for CNN "
        "and RNN; Skylake fp32.",
        "Forward pass only (the paper trains): training roughly triples both FLOPs and "
        "traffic, leaving arithmetic intensity about the same (assumed).",
        "Traffic = every operator's inputs (weights included) and outputs; no fusion and no "
        "on-chip reuse across operators (assumed).",
        "Attainable = min(peak, AI x bandwidth): no kernel efficiency, padding, launch or "
        "host overheads, no capacity limit; so the memory-capacity finding (CPU supports the "
        "largest models) and the software-stack speedups are not covered.",
        "FC uses input 2000 and output 1000 (the looped values, see compilers/graph/"
        "paradnn.py); RNN vocab 1/5/9 as literal integers as in the reference scripts.",
        f"Quick mode: 66 models per family drawn with the seed ({len(points)} models)."
        if quick else f"Full mode: the whole grid ({len(points)} models).",
    ])
    res.observations.append(Observation(metric="models evaluated", ours=float(len(points))))
    res.observations.append(Observation(metric="run CPU time", ours=time.process_time() - t0,
                                        unit="s"))
    res.write(out_dir)
    return res
