"""Study: device / edge / cloud placement of DNN inference (issue #17, item 5).

The position paper's claims about where inference should run, checked as directions with the
two-cut placement model of :mod:`archsim.sim.placement` on real archsim workload graphs
(ResNet-50 from :mod:`archsim.compilers.graph.cnn`, BERT-base from
:mod:`archsim.compilers.graph.bert`). A graph becomes a layer chain by cutting it only where
exactly one activation tensor is live (block boundaries), so the bytes a cut sends are the
bytes that really cross it. The study sweeps uplink bandwidth, model and device capability,
finds the optimal split (latency and energy objectives, with and without the privacy
constraint) and records which tier does most of the FLOPs. No published numbers: the four
headlines are direction checks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ....compilers.graph.bert import bert_base
from ....compilers.graph.cnn import resnet50
from ....compilers.graph.ir import WorkloadGraph
from ....errors import ConfigError
from ....outputs import save_figure
from ...placement import TIERS, Layer, Link, Split, Tier, optimal_split
from ..framework import Band, Comparison, Observation, Status, StudyResult

__all__ = ["Param", "PARAMS", "MODELS", "TIER_NAMES", "ModelChain", "chain_from_graph",
           "model_chain", "device_tier", "edge_tier", "cloud_tier", "uplink", "wan_link",
           "flop_shares", "best_with", "sweep_rows", "run"]

#: Roles of tensors that live where their operator runs (never sent over a link).
_LOCAL_ROLES = frozenset({"weight", "kv_cache", "state", "gradient"})
#: Tier names in the order of the chain.
TIER_NAMES: tuple[str, ...] = TIERS


@dataclass(frozen=True, kw_only=True)
class Param:
    """One number that drives the study, with where it comes from (or "assumed")."""

    name: str
    value: float
    unit: str
    source: str


def _p(name: str, value: float, unit: str, source: str) -> Param:
    return Param(name=name, value=value, unit=unit, source=source)


#: Every parameter of the study. Sustained FLOP/s = vendor peak x an assumed utilisation.
PARAMS: dict[str, Param] = {p.name: p for p in (
    _p("device_peak_flops", 2.0e12, "FLOP/s",
       "phone SoC GPU, Adreno 740-class ~2 TFLOPS FP32 peak (vendor-reported order; assumed)"),
    _p("device_power_w", 5.0, "W", "assumed: sustained phone thermal budget ~3-5 W"),
    _p("edge_peak_flops", 65e12, "FLOP/s", "NVIDIA T4 datasheet: 65 TFLOPS FP16 tensor"),
    _p("edge_power_w", 70.0, "W", "NVIDIA T4 datasheet: 70 W TDP"),
    _p("cloud_peak_flops", 312e12, "FLOP/s",
       "NVIDIA A100 datasheet: 312 TFLOPS FP16 tensor (dense)"),
    _p("cloud_power_w", 400.0, "W", "NVIDIA A100 SXM datasheet: 400 W TDP"),
    _p("cloud_pue", 1.10, "", "Google data-centre fleet PUE ~1.10 (google.com/about/"
       "datacenters/efficiency); industry average ~1.5 (Uptime Institute survey)"),
    _p("utilisation", 0.30, "", "assumed: sustained / peak FLOP/s for batch-1 inference, "
       "every tier"),
    _p("uplink_latency_s", 0.010, "s", "assumed: 5G-class one-way air + core latency"),
    _p("uplink_energy_per_bit_j", 0.44e-6, "J/bit",
       "Huang et al., MobiSys 2012: LTE uplink alpha_u = 438 mW/Mbps"),
    _p("wifi_bandwidth_bps", 100e6, "bit/s", "assumed: Wi-Fi 5 uplink"),
    _p("wifi_latency_s", 0.002, "s", "assumed: Wi-Fi one-way to an on-premise edge"),
    _p("lte_bandwidth_bps", 10e6, "bit/s", "assumed: typical LTE uplink"),
    _p("lte_latency_s", 0.025, "s", "assumed: LTE one-way (RTT ~50 ms)"),
    _p("5g_bandwidth_bps", 60e6, "bit/s", "assumed: typical sub-6 GHz 5G uplink"),
    _p("5g_latency_s", 0.010, "s", "assumed: 5G one-way (RTT ~20 ms)"),
    _p("wan_bandwidth_bps", 1e9, "bit/s", "assumed: edge site to cloud region"),
    _p("wan_latency_s", 0.020, "s", "assumed: one-way edge to a regional cloud (RTT ~40 ms)"),
    _p("wan_energy_per_bit_j", 27e-9, "J/bit",
       "Aslan et al., J. Ind. Ecol. 2018: 0.06 kWh/GB (2015) = 27 nJ/bit"),
    _p("privacy_layers", 1, "layers",
       "assumed: the raw input stays on device = the first chain layer runs there"),
)}

#: The two models: a latency-critical CNN and a large transformer.
MODELS: dict[str, str] = {"resnet50": "ResNet-50 (224x224, fp16, batch 1)",
                          "bert_base": "BERT-base (128 tokens, fp16, batch 1)"}


@dataclass(frozen=True, kw_only=True)
class ModelChain:
    """A workload graph as a layer chain: the layers and the raw input's size."""

    name: str
    layers: list[Layer]
    input_bytes: float
    ops: int


def chain_from_graph(graph: WorkloadGraph) -> ModelChain:
    """Cut ``graph`` (in topological order) only where exactly one activation is live.

    A layer is the run of operators between two such cuts: its FLOPs are theirs and its
    ``output_bytes`` the one tensor crossing the cut after it (the graph's output for the
    last layer). Weights, KV caches and state stay on the tier that runs the operator.
    """
    ops = list(graph)
    if not ops:
        raise ConfigError(f"graph '{graph.name}' has no operators", field="graph")
    m = len(ops)
    produced: dict[str, int] = {}
    last_use: dict[str, int] = {}
    size: dict[str, float] = {}
    raw_bytes = 0.0
    for i, op in enumerate(ops):
        for t in op.inputs:
            if t.role in _LOCAL_ROLES:
                continue
            if t.name not in produced and t.name not in last_use:
                raw_bytes += t.nbytes
            last_use[t.name] = i
            size[t.name] = t.nbytes
        for t in op.outputs:
            produced[t.name] = i
            size[t.name] = t.nbytes
            last_use.setdefault(t.name, m)  # an unconsumed output is needed at the end
    layers: list[Layer] = []
    start = 0
    flops = 0.0
    for i, op in enumerate(ops):
        flops += op.flops
        crossing = [n for n, last in last_use.items()
                    if produced.get(n, -1) <= i < last and n in produced]
        live_raw = any(n not in produced and last > i for n, last in last_use.items())
        if i == m - 1 or (len(crossing) == 1 and not live_raw):
            out = sum(size[n] for n in crossing) if i < m - 1 else ops[-1].output_bytes
            layers.append(Layer(name=f"{ops[start].name}..{op.name}", flops=flops,
                                output_bytes=out))
            start, flops = i + 1, 0.0
    return ModelChain(name=graph.name, layers=layers, input_bytes=raw_bytes, ops=m)


def model_chain(name: str) -> ModelChain:
    """The chain of one of :data:`MODELS`."""
    if name == "resnet50":
        return chain_from_graph(resnet50())
    if name == "bert_base":
        return chain_from_graph(bert_base())
    raise ConfigError(f"unknown model {name!r}", field="model", allowed=tuple(MODELS))


def _v(name: str) -> float:
    return PARAMS[name].value


def device_tier(scale: float = 1.0) -> Tier:
    """The phone SoC, its sustained FLOP/s scaled by ``scale`` (power unchanged)."""
    return Tier(name="device", flops_per_s=scale * _v("device_peak_flops") * _v("utilisation"),
                power_w=_v("device_power_w"))


def edge_tier() -> Tier:
    """The edge server GPU."""
    return Tier(name="edge", flops_per_s=_v("edge_peak_flops") * _v("utilisation"),
                power_w=_v("edge_power_w"))


def cloud_tier() -> Tier:
    """The datacentre GPU, its energy scaled by PUE."""
    return Tier(name="cloud", flops_per_s=_v("cloud_peak_flops") * _v("utilisation"),
                power_w=_v("cloud_power_w"), pue=_v("cloud_pue"))


def uplink(bandwidth_bps: float, latency_s: float | None = None) -> Link:
    """The device-to-edge wireless link at ``bandwidth_bps``."""
    return Link(name="uplink", bandwidth_bps=bandwidth_bps,
                latency_s=_v("uplink_latency_s") if latency_s is None else latency_s,
                energy_per_bit_j=_v("uplink_energy_per_bit_j"))


def wan_link(latency_s: float | None = None) -> Link:
    """The edge-to-cloud WAN link."""
    return Link(name="wan", bandwidth_bps=_v("wan_bandwidth_bps"),
                latency_s=_v("wan_latency_s") if latency_s is None else latency_s,
                energy_per_bit_j=_v("wan_energy_per_bit_j"))


def flop_shares(layers: list[Layer], split: Split) -> dict[str, float]:
    """Fraction of the chain's FLOPs each tier runs under ``split``."""
    return split.flop_shares(layers)


def best_with(chain: ModelChain, *, device: Tier, up: Link, wan: Link, edge_only: bool = False,
              cloud_only: bool = False, offload: bool = False,
              min_device_layers: int = 0) -> Split:
    """Latency-optimal split restricted to offloading to the edge only (``cut_cloud = n``)
    or to the cloud only (``cut_edge = cut_cloud``: the edge just forwards); with
    ``offload`` at least the last layer leaves the device."""
    n = len(chain.layers)
    if min_device_layers >= n and offload:
        raise ConfigError("offload needs min_device_layers < number of layers",
                          field="min_device_layers")
    cuts = [(ce, cc) for ce in range(min_device_layers, n if offload else n + 1)
            for cc in ([n] if edge_only else [ce] if cloud_only else range(ce, n + 1))]
    return optimal_split(layers=chain.layers, input_bytes=chain.input_bytes, device=device,
                         edge=edge_tier(), cloud=cloud_tier(), uplink=up, wan=wan,
                         min_device_layers=min_device_layers, cuts=cuts)


def sweep_rows(chains: dict[str, ModelChain], bandwidths_bps: list[float],
               scales: list[float]) -> list[dict[str, Any]]:
    """The regions table: one row per model, device scale, bandwidth, objective, privacy."""
    rows: list[dict[str, Any]] = []
    privacy_k = int(_v("privacy_layers"))
    for model, chain in chains.items():
        for scale in scales:
            dev = device_tier(scale)
            for bw in bandwidths_bps:
                up = uplink(bw)
                for objective in ("latency", "energy"):
                    for k in (0, privacy_k):
                        s = optimal_split(layers=chain.layers, input_bytes=chain.input_bytes,
                                          device=dev, edge=edge_tier(), cloud=cloud_tier(),
                                          uplink=up, wan=wan_link(), objective=objective,
                                          min_device_layers=k)
                        sh = flop_shares(chain.layers, s)
                        rows.append({
                            "model": model, "device_scale": scale, "uplink_bps": bw,
                            "objective": objective, "min_device_layers": k,
                            "cut_edge": s.cut_edge, "cut_cloud": s.cut_cloud,
                            "n_layers": len(chain.layers), "latency_s": s.latency_s,
                            "energy_j": s.energy_j, "device_flop_share": sh["device"],
                            "edge_flop_share": sh["edge"], "cloud_flop_share": sh["cloud"],
                            "majority_tier": max(sh, key=lambda t: sh[t])})
    return rows


def _grid(quick: bool) -> tuple[list[float], list[float]]:
    n_bw = 5 if quick else 13
    bws = [float(x) for x in np.logspace(6, 9, n_bw)]  # 1 Mb/s .. 1 Gb/s
    scales = [0.25, 1.0, 4.0] if quick else [0.25, 0.5, 1.0, 2.0, 4.0]
    return bws, scales


def _pick(rows: list[dict[str, Any]], **kw: object) -> list[dict[str, Any]]:
    return [r for r in rows if all(r[k] == v for k, v in kw.items())]


def _region_plot(path: Path, rows: list[dict[str, Any]], bws: list[float],
                 scales: list[float]) -> Path:
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    fig = Figure(figsize=(4.0 * len(MODELS), 3.5))
    cmap = ListedColormap(["tab:green", "tab:orange", "tab:blue"])
    for j, model in enumerate(MODELS):
        ax = fig.add_subplot(1, len(MODELS), j + 1)
        z = np.zeros((len(scales), len(bws)))
        for r in _pick(rows, model=model, objective="latency", min_device_layers=0):
            z[scales.index(r["device_scale"]), bws.index(r["uplink_bps"])] = \
                TIER_NAMES.index(r["majority_tier"])
        ax.pcolormesh(np.arange(len(bws) + 1), np.arange(len(scales) + 1), z, cmap=cmap,
                      vmin=-0.5, vmax=2.5)
        ax.set_xticks(np.arange(len(bws)) + 0.5,
                      [f"{b / 1e6:.3g}" for b in bws], fontsize=6, rotation=90)
        ax.set_yticks(np.arange(len(scales)) + 0.5, [f"x{s:g}" for s in scales], fontsize=7)
        ax.set_xlabel("uplink bandwidth (Mb/s)")
        ax.set_ylabel("device capability")
        ax.set_title(f"{model}: tier with most FLOPs (latency-optimal)", fontsize=7)
    handles = [Patch(color=c, label=t)
               for c, t in zip(("tab:green", "tab:orange", "tab:blue"), TIER_NAMES,
                               strict=True)]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=7)
    fig.tight_layout(rect=(0.0, 0.06, 1.0, 1.0))
    return save_figure(fig, path)


def run(*, out_dir: Path, seed: int = 0, quick: bool = False) -> StudyResult:
    """The placement sweep and the four direction checks."""
    del seed  # exhaustive and deterministic
    t0 = time.process_time()
    out_dir = Path(out_dir)
    res = StudyResult(name="edge", title="Device / edge / cloud split of DNN inference")
    chains = {m: model_chain(m) for m in MODELS}
    bws, scales = _grid(quick)
    rows = sweep_rows(chains, bws, scales)
    k = int(_v("privacy_layers"))
    base = ("two-cut chain model (sim/placement.py) on archsim's ResNet-50 / BERT-base graphs "
            "cut at single-tensor boundaries; tier, link and utilisation parameters in the "
            "assumptions (most assumed)")
    lat0 = {"objective": "latency", "min_device_layers": 0}

    # (1) lower bandwidth moves compute toward the device / edge: device FLOP share at the
    # lowest minus at the highest bandwidth, worst case over models and device scales.
    deltas: list[float] = []
    mono = 0
    for model in MODELS:
        for sc in scales:
            curve = sorted(_pick(rows, model=model, device_scale=sc, **lat0),
                           key=lambda r: r["uplink_bps"])
            shares = [r["device_flop_share"] for r in curve]
            deltas.append(shares[0] - shares[-1])
            mono += all(a >= b for a, b in zip(shares, shares[1:], strict=False))
    res.comparisons.append(Comparison(
        metric="on-device FLOP share at 1 Mb/s minus at 1 Gb/s uplink (mean over models, "
               "device scales)",
        published="lower bandwidth moves compute toward the device/edge (direction only)",
        ours=float(np.mean(deltas)), band=Band.above(0.0), expected=Status.REPRODUCED,
        assumption=base + "; latency objective, no privacy constraint",
        note=f"min {min(deltas):.3f} (< 0 would be a reversal), max {max(deltas):.3f}; device share non-increasing in bandwidth on "
             f"{mono}/{len(deltas)} curves"))

    # (2) privacy: latency cost of keeping the first k layers on device, over the sweep.
    costs: list[float] = []
    forced = 0
    for r in _pick(rows, objective="latency", min_device_layers=k):
        free = _pick(rows, model=r["model"], device_scale=r["device_scale"],
                     uplink_bps=r["uplink_bps"], **lat0)[0]
        costs.append(100.0 * (r["latency_s"] - free["latency_s"]) / free["latency_s"])
        forced += free["cut_edge"] < k
    res.comparisons.append(Comparison(
        metric=f"latency cost of privacy (first {k} layer on device) vs unconstrained, "
               "min over the sweep",
        published="privacy forces on-device front layers at a latency cost >= 0",
        ours=min(costs), unit="%", band=Band.at_least(0.0), expected=Status.REPRODUCED,
        assumption=base + "; >= 0 holds by construction (the constrained optimum is over a "
                          "subset); the measurement is its size",
        note=f"max {max(costs):.1f}%; cost > 0 on {sum(c > 1e-9 for c in costs)}/"
             f"{len(costs)} cells; unconstrained optimum offloads the raw input on "
             f"{forced}/{len(costs)}"))

    # (3) a faster device pulls work on-device: share at x4 minus at x0.25, min over models
    # and bandwidths.
    pulls = []
    for model in MODELS:
        for bw in bws:
            lo = _pick(rows, model=model, uplink_bps=bw, device_scale=scales[0], **lat0)[0]
            hi = _pick(rows, model=model, uplink_bps=bw, device_scale=scales[-1], **lat0)[0]
            pulls.append(hi["device_flop_share"] - lo["device_flop_share"])
    res.comparisons.append(Comparison(
        metric=f"on-device FLOP share at device x{scales[-1]:g} minus at x{scales[0]:g} "
               "(mean over models, bandwidths)",
        published="a faster device pulls work on-device (direction only)",
        ours=float(np.mean(pulls)), band=Band.above(0.0), expected=Status.REPRODUCED,
        assumption=base + "; latency objective, no privacy constraint",
        note=f"min {min(pulls):.3f} (< 0 would be a reversal), max {max(pulls):.3f}; > 0 on {sum(p > 0 for p in pulls)}/{len(pulls)} cells"))

    # (4) WAN latency: best edge-only offload vs best cloud-only offload for the small CNN
    # over 5G, device x1; BERT-base as the contrast.
    g5 = uplink(_v("5g_bandwidth_bps"), _v("5g_latency_s"))
    ratios: dict[str, float] = {}
    for model, chain in chains.items():
        e = best_with(chain, device=device_tier(1.0), up=g5, wan=wan_link(), edge_only=True,
                      offload=True)
        c = best_with(chain, device=device_tier(1.0), up=g5, wan=wan_link(), cloud_only=True,
                      offload=True)
        ratios[model] = c.latency_s / e.latency_s
        res.observations.append(Observation(
            metric=f"{model}: best cloud-only / best edge-only offload latency (5G, x1)",
            ours=ratios[model], unit="x",
            note=f"edge {e.latency_s * 1e3:.2f} ms, cloud {c.latency_s * 1e3:.2f} ms"))
    wan_free = best_with(chains["resnet50"], device=device_tier(1.0), up=g5,
                         wan=wan_link(0.0), cloud_only=True, offload=True)
    edge_r = best_with(chains["resnet50"], device=device_tier(1.0), up=g5, wan=wan_link(),
                       edge_only=True, offload=True)
    res.comparisons.append(Comparison(
        metric="ResNet-50 over 5G, device x1: best cloud-only / best edge-only offload latency",
        published="WAN latency makes the edge beat the cloud for latency-critical small "
                  "models (direction only)",
        ours=ratios["resnet50"], unit="x", band=Band.above(1.0), expected=Status.REPRODUCED,
        assumption=base + f"; WAN one-way {_v('wan_latency_s') * 1e3:g} ms (assumed)",
        note=f"with a zero-latency WAN the ratio is {wan_free.latency_s / edge_r.latency_s:.3f}"
             f"; BERT-base {ratios['bert_base']:.3f} (the edge wins for the large model too: both "
             "models' edge compute time is well under the WAN latency)"))

    for name, chain in chains.items():
        res.observations.append(Observation(
            metric=f"{name}: chain layers / graph operators", ours=len(chain.layers),
            note=f"{chain.ops} operators, {sum(la.flops for la in chain.layers) / 1e9:.2f} "
                 f"GFLOP, raw input {chain.input_bytes / 1e3:.1f} kB"))
        for tech in ("wifi", "lte", "5g"):
            s = optimal_split(layers=chain.layers, input_bytes=chain.input_bytes,
                              device=device_tier(1.0), edge=edge_tier(), cloud=cloud_tier(),
                              uplink=uplink(_v(f"{tech}_bandwidth_bps"),
                                            _v(f"{tech}_latency_s")),
                              wan=wan_link(), min_device_layers=k)
            sh = flop_shares(chain.layers, s)
            res.observations.append(Observation(
                metric=f"{name} over {tech}, device x1, privacy: optimal latency",
                ours=s.latency_s * 1e3, unit="ms",
                note=f"cuts ({s.cut_edge}, {s.cut_cloud}) of {len(chain.layers)}; FLOP "
                     f"shares d/e/c {sh['device']:.2f}/{sh['edge']:.2f}/{sh['cloud']:.2f}; "
                     f"energy {s.energy_j:.3g} J"))
    res.tables = {"regions": rows,
                  "params": [{"name": p.name, "value": p.value, "unit": p.unit,
                              "source": p.source} for p in PARAMS.values()]}
    res.assumptions = [f"{p.name} = {p.value:g} {p.unit}: {p.source}".replace("  ", " ")
                       for p in PARAMS.values()] + [
        "Sustained FLOP/s of every tier = peak x utilisation; device capability scaled "
        "x0.25..x4 at unchanged power.",
        "Chain: operators in topological order, cut only where one activation tensor is live; "
        "weights and KV caches are preloaded on every tier; the result's return trip to the "
        "device, queueing and server contention are not modelled.",
        "Uplink sweep uses the 5G-class latency at every bandwidth; named Wi-Fi/LTE/5G "
        "presets appear as observations.",
        "Claims are the position paper's, read as directions; no published numbers.",
    ]
    res.files.append(_region_plot(out_dir / "regions.png", rows, bws, scales))
    res.observations.append(Observation(metric="study CPU time", ours=time.process_time() - t0,
                                        unit="s", note="quick" if quick else "full"))
    res.write(out_dir)
    return res
