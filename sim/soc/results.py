"""The typed result of an SoC simulation: timelines, breakdowns, export and plots.

The latency breakdown attributes every instant of the run to exactly one category -- the
highest-priority activity going on at that instant, in the order of :data:`CATEGORIES`
(accelerator compute, then data transfer, data preparation, CPU framework; ``idle`` when
nothing runs) -- so the categories sum to the end-to-end latency by construction, and the
accelerator's share is the fraction of time at least one accelerator computes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...outputs import FigureRenderer, atomic_write_bytes, figure_png, write_csv, write_json
from .config import AcceleratorConfig, DescribedAcceleratorConfig, DSLAcceleratorConfig, SoCConfig
from .energy import EnergyBreakdown, energy_breakdown
from .events import Server

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ...compilers.graph import WorkloadGraph
    from .tiling import OperatorPlan

__all__ = ["CATEGORIES", "TransferTotals", "OperatorRecord", "SocResult", "attribute",
           "build_result"]

#: Latency categories, highest priority first (see the module docstring).
CATEGORIES: tuple[str, ...] = ("accelerator_compute", "data_transfer", "data_prep",
                               "cpu_framework", "idle")
#: Resolution of the SoC plots (dots per inch); the figures are made at it, so the layout
#: measured before saving is the one saved.
_DPI = 120
#: One colour per latency category, shared by every SoC plot.
CATEGORY_COLORS = {"accelerator_compute": "#2ca02c", "data_transfer": "#1f77b4", "data_prep": "#ff7f0e",
           "cpu_framework": "#d62728", "idle": "#c7c7c7"}


@dataclass
class TransferTotals:
    """Bytes moved into and out of the scratchpads, by tensor class and port.

    ``input_bytes``, ``weight_bytes`` and ``output_bytes`` count every transfer of their
    class; ``dram_bytes`` and ``acp_bytes`` the off-chip ones by port, ``gb_bytes`` those
    served by the on-chip global buffer. ``llc_miss_bytes`` are the part of ``acp_bytes``
    that missed in the LLC and came from DRAM (``LLCConfig.acp_hits = "footprint"``).

    By tensor role (``"activation"``, ``"weight"``, ``"gradient"``...): ``onchip_read_bytes``
    (global buffer -> scratchpad loads), ``onchip_write_bytes`` (output stores into the
    global buffer), ``offchip_read_bytes`` and ``offchip_write_bytes`` (the same over DMA or
    ACP). A transfer that belongs to no graph tensor has no role and is in none of them.
    """

    input_bytes: float = 0.0
    weight_bytes: float = 0.0
    output_bytes: float = 0.0
    dram_bytes: float = 0.0
    acp_bytes: float = 0.0
    llc_miss_bytes: float = 0.0
    transfers: int = 0
    gb_bytes: float = 0.0
    onchip_read_bytes: dict[str, float] = field(default_factory=dict)
    onchip_write_bytes: dict[str, float] = field(default_factory=dict)
    offchip_read_bytes: dict[str, float] = field(default_factory=dict)
    offchip_write_bytes: dict[str, float] = field(default_factory=dict)

    def add(self, tensor_class: str, policy: str, nbytes: float,
            roles: Sequence[tuple[str, float]] = ()) -> None:
        """Count ``nbytes`` of ``tensor_class`` over ``policy`` (``"dma"``, ``"acp"`` or
        ``"gb"``), split over ``roles`` as ``(role, share)`` pairs."""
        if tensor_class == "input":
            self.input_bytes += nbytes
        elif tensor_class == "weight":
            self.weight_bytes += nbytes
        else:
            self.output_bytes += nbytes
        if policy == "gb":
            self.gb_bytes += nbytes
        elif policy == "acp":
            self.acp_bytes += nbytes
        else:
            self.dram_bytes += nbytes
        self.transfers += 1
        if roles:
            store = tensor_class == "output"
            if policy == "gb":
                book = self.onchip_write_bytes if store else self.onchip_read_bytes
            else:
                book = self.offchip_write_bytes if store else self.offchip_read_bytes
            for role, share in roles:
                book[role] = book.get(role, 0.0) + nbytes * share

    @property
    def total_bytes(self) -> float:
        return self.input_bytes + self.weight_bytes + self.output_bytes

    @property
    def offchip_bytes(self) -> float:
        """Bytes moved over DMA or the coherent port."""
        return self.dram_bytes + self.acp_bytes

    @property
    def onchip_read_total_bytes(self) -> float:
        """Bytes loaded from the global buffer."""
        return math.fsum(self.onchip_read_bytes.values())

    @property
    def onchip_write_total_bytes(self) -> float:
        """Bytes stored into the global buffer."""
        return math.fsum(self.onchip_write_bytes.values())


@dataclass(frozen=True)
class OperatorRecord:
    """One operator's place on the timeline and its latency breakdown (seconds)."""

    index: int
    name: str
    kind: str
    target: str
    start_s: float
    end_s: float
    tiles: int
    jobs: int
    macs: int
    breakdown_s: dict[str, float]

    @property
    def latency_s(self) -> float:
        return self.end_s - self.start_s

    def row(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "kind": self.kind, "target": self.target,
                "start_s": self.start_s, "end_s": self.end_s, "latency_s": self.latency_s,
                "tiles": self.tiles, "jobs": self.jobs, "macs": self.macs,
                **{f"{c}_s": v for c, v in self.breakdown_s.items()}}


def attribute(intervals: list[tuple[float, float, str, int]], end_s: float,
              op_starts: list[float]) -> tuple[dict[str, float], np.ndarray]:
    """Attribute ``[0, end_s]`` to :data:`CATEGORIES` by priority.

    Returns the total per category and an ``(operators, categories)`` array of the same per
    operator (a segment belongs to the operator whose window contains it).
    """
    ncat = len(CATEGORIES)
    nops = max(len(op_starts), 1)
    if end_s <= 0:
        return {c: 0.0 for c in CATEGORIES}, np.zeros((nops, ncat))
    arr = np.array([(s, e, CATEGORIES.index(c)) for s, e, c, _ in intervals], float) \
        if intervals else np.zeros((0, 3))
    bounds = np.unique(np.concatenate([arr[:, 0], arr[:, 1], [0.0, end_s]]))
    seg = np.diff(bounds)
    label = np.full(len(seg), ncat - 1)
    for ci in range(ncat - 2, -1, -1):  # lowest priority first; higher ones overwrite
        sel = arr[arr[:, 2] == ci]
        if not len(sel):
            continue
        delta = np.zeros(len(bounds))
        np.add.at(delta, np.searchsorted(bounds, sel[:, 0]), 1)
        np.add.at(delta, np.searchsorted(bounds, sel[:, 1]), -1)
        covered = np.cumsum(delta)[:-1] > 0
        label[covered] = ci
    totals = np.bincount(label, weights=seg, minlength=ncat)
    op_of = np.clip(np.searchsorted(np.asarray(op_starts or [0.0]), bounds[:-1], side="right")
                    - 1, 0, nops - 1)
    per_op = np.bincount(op_of * ncat + label, weights=seg, minlength=nops * ncat)
    return ({c: float(totals[i]) for i, c in enumerate(CATEGORIES)},
            per_op.reshape(nops, ncat))


@dataclass
class SocResult:
    """The outcome of :func:`~archsim.sim.soc.simulate`.

    Attributes
    ----------
    latency_s
        End-to-end latency of one inference.
    breakdown_s
        Seconds per category of :data:`CATEGORIES`; sums to ``latency_s``.
    operators
        Per-operator timeline and breakdown.
    timeline
        Every busy interval ``(resource, category, op_index, start_s, end_s)``.
    transfers
        Bytes moved by tensor class and port.
    energy
        Energy per component (:mod:`~archsim.sim.soc.energy`).
    carbon
        Carbon totals (``None`` until :func:`~archsim.sim.soc.carbon.add_carbon`).
    carbon_components
        Per component (accelerators, scratchpads, LLC, DRAM, interconnect, CPU, leakage,
        packaging): energy, area, operational and embodied carbon per inference; the
        ``total_kg`` column sums to ``carbon["total_kg"]`` (empty until ``add_carbon``).
    global_buffer_energy_j
        With a ``[global_buffer]``: its ``access`` (reads and writes of the on-chip bytes),
        ``leakage`` (over the run) and ``refresh_always`` (eDRAM refreshed every row every
        period for the whole run; 0 for SRAM) energies from its memtech model
        (:meth:`~archsim.sim.soc.config.GlobalBufferConfig.memory_model`), joules. They are
        not in :attr:`energy` (whose components are the SoC's without a global buffer);
        lifetime-aware refresh is :func:`archsim.sim.soc.lifetime.refresh_operations`.
        Empty without a global buffer.
    """

    soc: str
    workload: str
    accelerators: int
    latency_s: float
    breakdown_s: dict[str, float]
    operators: list[OperatorRecord]
    timeline: list[tuple[str, str, int, float, float]] = field(repr=False)
    transfers: TransferTotals
    energy: EnergyBreakdown
    macs: int
    events: int
    wall_time_s: float
    carbon: dict[str, float] | None = None
    assumptions: list[str] = field(default_factory=list)
    carbon_components: list[dict[str, Any]] = field(default_factory=list)
    global_buffer_energy_j: dict[str, float] = field(default_factory=dict)

    @property
    def breakdown_fraction(self) -> dict[str, float]:
        return {c: (v / self.latency_s if self.latency_s else 0.0)
                for c, v in self.breakdown_s.items()}

    @property
    def accelerator_share(self) -> float:
        """Fraction of the end-to-end latency during which an accelerator computes."""
        return self.breakdown_fraction["accelerator_compute"]

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_time_s if self.wall_time_s > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        """Scalar figures (one table row)."""
        return {"soc": self.soc, "workload": self.workload, "accelerators": self.accelerators,
                "latency_s": self.latency_s,
                **{f"{c}_s": v for c, v in self.breakdown_s.items()},
                "accelerator_share": self.accelerator_share, "macs": self.macs,
                "bytes_moved": self.transfers.total_bytes, "energy_j": self.energy.total_j,
                **({"carbon_total_kg": self.carbon["total_kg"]} if self.carbon else {}),
                "events": self.events, "wall_time_s": self.wall_time_s}

    def component_rows(self) -> list[dict[str, Any]]:
        """One row per component: ``energy_j`` and, after ``add_carbon``, the carbon columns
        (``carbon_components``); the energy column sums to ``energy.total_j``."""
        if self.carbon_components:
            return [dict(r) for r in self.carbon_components]
        return [{"component": k, "energy_j": v}
                for k, v in self.energy.components_j().items()]

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary(), "breakdown_s": self.breakdown_s,
                "breakdown_fraction": self.breakdown_fraction,
                "transfers": {**asdict(self.transfers),
                              "total_bytes": self.transfers.total_bytes},
                "energy_j": self.energy.as_dict(),
                "energy_components_j": self.energy.components_j(), "carbon": self.carbon,
                "components": self.component_rows(),
                "operators": [o.row() for o in self.operators],
                "assumptions": self.assumptions,
                **({"global_buffer_energy_j": self.global_buffer_energy_j}
                   if self.global_buffer_energy_j else {})}

    # -- export ---------------------------------------------------------------------------
    def write(self, out_dir: str | Path, *, plots: bool = True,
              renderer: FigureRenderer | None = None) -> list[Path]:
        """Write ``result.json``, ``operators.csv``, ``timeline.csv``, ``breakdown.csv``,
        ``components.csv`` (energy and carbon per component) and (with ``plots``)
        ``gantt.png`` and ``breakdown.png`` to ``out_dir``.

        With a :class:`~archsim.outputs.FigureRenderer`, the two figures render in its
        workers while the tables are written here.
        """
        out = Path(out_dir)
        if plots:
            render = renderer if renderer is not None else FigureRenderer(parallel=False)
            pngs = render.render([(SocResult.gantt_png, (self,)),
                                  (SocResult.breakdown_png, (self,))])
        files = [write_json(out / "result.json", self.to_dict()),
                 write_csv(out / "operators.csv", [o.row() for o in self.operators]),
                 write_csv(out / "timeline.csv",
                           [{"resource": r, "category": c, "op_index": i, "start_s": s,
                             "end_s": e} for r, c, i, s, e in self.timeline],
                           columns=["resource", "category", "op_index", "start_s", "end_s"]),
                 write_csv(out / "breakdown.csv",
                           [{"category": c, "seconds": v, "fraction": self.breakdown_fraction[c]}
                            for c, v in self.breakdown_s.items()]),
                 write_csv(out / "components.csv", self.component_rows())]
        if plots:
            files += [atomic_write_bytes(out / name, png)
                      for name, png in zip(("gantt.png", "breakdown.png"), pngs.result(),
                                           strict=True)]
        return files

    def plot_gantt(self, path: str | Path, *, max_operators: int | None = None) -> Path:
        """A Gantt chart (see :meth:`gantt_png`) written to ``path``."""
        return atomic_write_bytes(path, self.gantt_png(max_operators=max_operators))

    def gantt_png(self, *, max_operators: int | None = None) -> bytes:
        """A Gantt chart as PNG bytes: one row per resource, bars coloured by category
        (with ``max_operators``, up to the end of that many operators)."""
        # a bare Figure renders with Agg and skips pyplot's import and figure manager
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch, PathPatch
        from matplotlib.path import Path as MplPath

        rows = sorted({r for r, *_ in self.timeline},
                      key=lambda r: (not r.startswith("cpu"), r.startswith("acc"), r))
        limit = None
        if max_operators is not None and len(self.operators) > max_operators:
            limit = self.operators[max_operators - 1].end_s
        # the bars of each (resource, category), in one pass over the timeline, each set
        # drawn as one compound path of rectangles built with numpy (a path or patch per bar
        # costs a Python object each: ResNet-50's timeline has ~13k intervals)
        row_of = {r: yi for yi, r in enumerate(rows)}
        bars: dict[tuple[int, str], list[tuple[float, float]]] = {}
        for r, c, _, s, e in self.timeline:
            if limit is None or s <= limit:
                bars.setdefault((row_of[r], c), []).append((s * 1e3, e * 1e3))
        fig = Figure(figsize=(12, 1.2 + 0.45 * len(rows)), dpi=_DPI)
        ax = fig.subplots()
        rectangle = np.array([MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.LINETO,
                              MplPath.CLOSEPOLY], dtype=MplPath.code_type)
        for yi in range(len(rows)):
            for cat in CATEGORIES[:-1]:
                if (yi, cat) in bars:
                    se = np.array(bars[yi, cat])
                    x0, x1 = se[:, 0], se[:, 1]
                    y0, y1 = np.full_like(x0, yi - 0.4), np.full_like(x0, yi + 0.4)
                    verts = np.stack([np.stack([x0, y0], 1), np.stack([x0, y1], 1),
                                      np.stack([x1, y1], 1), np.stack([x1, y0], 1),
                                      np.stack([x0, y0], 1)], 1).reshape(-1, 2)
                    outline = MplPath(verts, np.tile(rectangle, len(se)))
                    ax.add_artist(PathPatch(outline, facecolor=CATEGORY_COLORS[cat],
                                            linewidth=0, snap=True))
                    ax.update_datalim(verts)  # add_artist leaves the data limits alone
        ax.autoscale_view()
        ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel("time (ms)")
        ax.set_title(f"{self.workload} on {self.soc}: {self.latency_s * 1e3:.3f} ms")
        ax.legend(handles=[Patch(color=CATEGORY_COLORS[c], label=c) for c in CATEGORIES[:-1]],
                  loc="upper right", fontsize=8)
        # margins that fit the labels; the crop in _png trims what is left over (a
        # tight_layout pass costs as much as drawing the figure)
        fig.subplots_adjust(left=0.08, right=0.98, bottom=0.12, top=0.9)
        return _png(fig)

    def plot_breakdown(self, path: str | Path) -> Path:
        """The breakdown figure (see :meth:`breakdown_png`) written to ``path``."""
        return atomic_write_bytes(path, self.breakdown_png())

    def breakdown_png(self) -> bytes:
        """Overall latency breakdown, energy (and, after ``add_carbon``, carbon) per component
        and per-operator stacked bars, as PNG bytes."""
        from matplotlib import colormaps
        from matplotlib.figure import Figure
        from matplotlib.patches import StepPatch

        carbon = {r["component"]: r["total_kg"] for r in self.carbon_components}
        panels = 4 if carbon else 3
        fig = Figure(figsize=(12, 9 + 1.5 * (panels - 3)), dpi=_DPI)
        axes = fig.subplots(panels, 1,
                            gridspec_kw={"height_ratios": [1] * (panels - 1) + [3]})
        ax0, ax_e, ax1 = axes[0], axes[1], axes[-1]
        left = 0.0
        for c in CATEGORIES:
            v = self.breakdown_s[c] * 1e3
            ax0.barh([0], [v], left=left, color=CATEGORY_COLORS[c],
                     label=f"{c} {self.breakdown_fraction[c]:.0%}")
            left += v
        ax0.set_yticks([])
        ax0.set_xlabel("end-to-end latency (ms)")
        ax0.legend(ncol=5, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 1.45))
        cmap = colormaps["tab10"]
        names = list(self.energy.components_j()) + (["packaging"] if carbon else [])
        colors = {k: cmap(i % 10) for i, k in enumerate(names)}
        _stacked_bar(ax_e, self.energy.components_j(), 1e3, colors, "energy (mJ)")
        if carbon:
            _stacked_bar(axes[2], carbon, 1e6, colors,
                         "carbon per inference (mg CO2e, operational + embodied share)")
        # one filled step outline per category (the same picture as a width-1 bar per
        # operator, without a patch per bar: ResNet-50 has hundreds of operators). What
        # Axes.stairs does, but the data limits are set from the outline's corners: stairs
        # (add_patch) works them out curve by curve, ~700 segments per category.
        edges = np.arange(len(self.operators) + 1) - 0.5
        bottom = np.zeros(len(self.operators))
        for c in CATEGORIES:
            vals = np.array([o.breakdown_s[c] * 1e3 for o in self.operators])
            if len(vals):
                # matplotlib's stubs say float; StepPatch takes an array (as stairs does)
                step = StepPatch(bottom + vals, edges,
                                 baseline=bottom.copy(),  # type: ignore[arg-type]
                                 fill=True, color=CATEGORY_COLORS[c], linewidth=0)
                ax1.add_artist(step)
                ax1.update_datalim([(edges[0], bottom.min()),
                                    (edges[-1], (bottom + vals).max())])
                step.sticky_edges.y.append(bottom.min())
            bottom += vals
        ax1.autoscale_view()
        ax1.set_xlabel("operator (topological order)")
        ax1.set_ylabel("latency (ms)")
        ax1.set_title(f"{self.workload} on {self.soc} ({self.accelerators} accelerator(s))")
        fig.subplots_adjust(left=0.06, right=0.98, bottom=0.06, top=0.95, hspace=0.75)
        return _png(fig)


def _png(fig: Figure) -> bytes:
    """``fig`` as PNG bytes (as :func:`~archsim.outputs.figure_png` renders it).

    Cropped to the drawing as ``bbox_inches="tight"`` crops it (0.1 inch of padding), with
    the box worked out here: given ``"tight"``, savefig draws the whole figure once more just
    to find it.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    return figure_png(fig, dpi=_DPI, bbox_inches=fig.get_tightbbox(renderer).padded(0.1))


def _stacked_bar(ax: Any, parts: dict[str, float], scale: float, colors: dict[str, Any],
                 xlabel: str) -> None:
    total = sum(parts.values())
    left = 0.0
    for k, v in parts.items():
        share = v / total if total else 0.0
        ax.barh([0], [v * scale], left=left, color=colors[k], label=f"{k} {share:.0%}")
        left += v * scale
    ax.set_yticks([])
    ax.set_xlabel(xlabel)
    ax.legend(ncol=min(len(parts), 8), fontsize=7, loc="upper center",
              bbox_to_anchor=(0.5, 1.6))


def _accelerator_assumption(acc: AcceleratorConfig) -> str:
    from .area import accelerator_area

    area = accelerator_area(acc)
    where = {"config": "area_mm2 of the description (with its scratchpads)",
             "model": "the Design's pre-RTL estimate + scratchpad SRAM",
             "synthesis": "Yosys NanGate45 cell area of the RTL + scratchpad SRAM"}
    text = (f"accelerator '{acc.label}' ({acc.kind}): area {area.total_mm2:.4g} mm^2 each from "
            f"{where[area.source]}")
    if isinstance(acc, DSLAcceleratorConfig):
        from ...hw.models import DSLModel
        from .accelerators import load_design, make_accelerator_model

        model = make_accelerator_model(acc)
        assert isinstance(model, DSLModel)
        m, k, n = model.tile
        text += (f"; kernel {acc.kernel} compiled once at {load_design(acc).clock_ns} ns: "
                 f"{m}x{k}x{n} tile, {model.invocation_cycles} cycles and "
                 f"{model.invocation_energy_j * 1e9:.4g} nJ per invocation (model view), "
                 f"edge blocks zero-padded to the tile")
    if isinstance(acc, DescribedAcceleratorConfig):
        from .accelerators import load_accelerator_tile

        tile = load_accelerator_tile(acc)
        m, k, n = acc.tile
        points = ", ".join(f"{d}={p}" for d, p in acc.operating_points.items()) or \
            "each domain at its first point"
        text += (f"; description {acc.description}, tile program {acc.tile_program}: "
                 f"{m}x{k}x{n} tile, {tile.invocation_cycles} cycles and "
                 f"{tile.invocation_energy_j * 1e9:.4g} nJ per invocation (model view; "
                 f"{points}), edge blocks zero-padded to the tile")
    return text


def build_result(*, config: SoCConfig, graph: WorkloadGraph, plans: list[OperatorPlan],
                 servers: list[Server],
                 op_windows: list[tuple[float, float]], totals: TransferTotals, macs: int,
                 vector_ops: float, spad_bytes: float, events: int, wall_time_s: float,
                 accelerators: int,
                 accelerator_energy_j: dict[str, float] | None = None) -> SocResult:
    """Assemble a :class:`SocResult` from a finished simulation (used by the engine)."""
    intervals = [iv for srv in servers for iv in srv.intervals]
    end_s = op_windows[-1][1] if op_windows else 0.0
    starts = [w[0] for w in op_windows]
    totals_s, per_op = attribute(intervals, end_s, starts)
    ops = []
    for i, (plan, (s, e)) in enumerate(zip(plans, op_windows, strict=True)):
        ops.append(OperatorRecord(
            index=i, name=plan.op_name, kind=plan.kind, target=plan.target, start_s=s, end_s=e,
            tiles=plan.num_tiles, jobs=len(plan.jobs),
            macs=sum(st.macs for j in plan.jobs for st in j.steps),
            breakdown_s={c: float(per_op[i, k]) for k, c in enumerate(CATEGORIES)}))
    timeline = [(srv.name, c, i, s, e) for srv in servers for s, e, c, i in srv.intervals]
    cpu_busy = sum(e - s for srv in servers if srv.name.startswith("cpu")
                   for s, e, _, _ in srv.intervals)
    energy = energy_breakdown(config, macs=macs, vector_ops=vector_ops,
                              spad_bytes=spad_bytes + totals.total_bytes,
                              dram_bytes=totals.dram_bytes + totals.llc_miss_bytes,
                              acp_bytes=totals.acp_bytes,
                              cpu_busy_s=cpu_busy, latency_s=end_s,
                              accelerator_j=accelerator_energy_j)
    from .energy import node_scale

    assumptions = [
        "operators run one after another in topological order (single-batch inference)",
        "latency categories by priority: accelerator compute > data transfer > data prep > "
        "CPU framework > idle",
        f"energy: Horowitz ISSCC 2014 45 nm figures scaled by {node_scale(config):.3g} to "
        f"{config.soc.technology_nm} nm / {config.soc.voltage_v} V",
    ]
    for acc in config.accelerators:
        assumptions.append(_accelerator_assumption(acc))
    if config.llc.acp_hits == "footprint":
        assumptions.append("ACP accesses hit in the LLC only for operators whose ACP bytes fit "
                           f"its {config.llc.size_bytes} bytes; otherwise all miss to DRAM")
    gb_energy: dict[str, float] = {}
    gb = config.global_buffer
    if gb is not None:
        mm = gb.memory_model(node_nm=config.soc.technology_nm, voltage_v=config.soc.voltage_v)
        words_per_byte = 8 / gb.word_bits
        gb_energy = {"access": mm.access_energy_j(
                         totals.onchip_read_total_bytes * words_per_byte,
                         totals.onchip_write_total_bytes * words_per_byte),
                     "leakage": mm.leakage_energy_j(end_s),
                     "refresh_always": mm.refresh_energy_j(end_s)}
        assumptions.append(
            f"global buffer: {gb.capacity_bytes} B of {gb.technology} in {gb.banks} bank(s) "
            f"of {gb.word_bits}-bit words, {gb.bandwidth_bytes_per_s:.4g} B/s, "
            f"{gb.access_latency_s:.3g} s per transfer; energies from "
            "hw/data/memory_technologies.toml (global_buffer_energy_j, not in energy)")
    return SocResult(soc=config.soc.name, workload=graph.name, accelerators=accelerators,
                     latency_s=end_s, breakdown_s=totals_s, operators=ops, timeline=timeline,
                     transfers=totals, energy=energy, macs=int(macs), events=events,
                     wall_time_s=wall_time_s, assumptions=assumptions,
                     global_buffer_energy_j=gb_energy)
