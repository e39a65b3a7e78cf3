"""Data lifetimes from a simulated SoC timeline; eDRAM refresh and buffer allocation from them.

:func:`tensor_lifetimes` reads each tensor's write and reads off a finished
:class:`~archsim.sim.soc.results.SocResult`: a tensor is written at the END of its producer's
window (``OperatorRecord.end_s``; 0 for a graph input such as a weight or the image) and read
by every operator that lists it as an input; it must be held until the END of the last
reader's window. Its lifetime is ``last_read_s - write_s``; a tensor nobody reads (the loss,
a final output) has ``last_read_s = write_s`` and lifetime 0. It is live on
``[write_s, last_read_s)``.

Refresh (:func:`refresh_operations`): a row of eDRAM must be refreshed ``refresh_period_s``
after it was written or last refreshed. A tensor of ``B`` bits held ``L`` seconds occupies
``ceil(B / row_bits)`` rows of its own (tensors are assumed row-aligned) and each needs
``floor(L / refresh_period_s)`` refreshes; data that lives less than one period needs none
(CAMEL's point). A conventional controller refreshes every row of the buffer every period:
``floor(iteration_s / refresh_period_s) * rows``. One refresh operation (``rows_per_refresh``
rows, their sub-arrays in parallel; a row spans every bank, which refresh it in the same
cycle) occupies the macro's port for one cycle, as memtech's refresh timer and the RTL
controller do: that cycle is stolen from the accelerators' accesses.

Allocation (:func:`allocate`) and the two-pass simulation (:func:`simulate_with_buffer`):

1. simulate with every tensor resident in the global buffer: the timeline of a buffer that
   never spills, and its lifetimes;
2. :func:`allocate` the tensors of the chosen roles in write order into the capacity
   (first fit on bytes: a tensor stays on chip if the resident bytes live at its write plus
   its own fit, else it spills to host memory), weights pinned on chip if they all fit;
3. simulate again with ``resident = allocation.resident``: spilled tensors take the DRAM path
   and the run gets longer. The allocation is decided on pass 1's timeline (pass 2's
   lifetimes are longer by the spills' extra time; a third pass is not made).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...compilers.graph import WorkloadGraph
from ...errors import ConfigError
from ...hw.models import HardwareModel
from ...hw.models.edram_refresh import AccessTrace, Request
from ...loading import ProgressCallback
from ...outputs import save_figure
from .config import GlobalBufferConfig, SoCConfig
from .engine import simulate
from .results import SocResult

__all__ = ["edram_access_trace", "TensorLifetime", "LifetimeReport", "tensor_lifetimes", "RefreshEstimate",
           "refresh_operations", "refresh_for_buffer", "edram_refresh_period_s",
           "refresh_energy_j_per_bit", "Allocation", "allocate", "ALLOCATION_ORDERS",
           "simulate_with_buffer", "DEFAULT_ALLOCATED_ROLES"]

#: Roles :func:`allocate` places in the buffer by default: the transient training data.
DEFAULT_ALLOCATED_ROLES: tuple[str, ...] = ("activation", "gradient")


@dataclass(frozen=True)
class TensorLifetime:
    """One tensor's write and reads on the simulated timeline (seconds, bytes).

    ``producer`` is the operator writing it (``None`` for a graph input, written at 0);
    ``reads`` the number of operators reading it; ``first_read_s`` the START of the first
    reader's window and ``last_read_s`` the END of the last one's (both ``write_s`` when
    nobody reads it).
    """

    name: str
    role: str
    nbytes: float
    producer: str | None
    write_s: float
    reads: int
    first_read_s: float
    last_read_s: float

    @property
    def lifetime_s(self) -> float:
        """How long the tensor must be held: ``last_read_s - write_s``."""
        return self.last_read_s - self.write_s

    def row(self) -> dict[str, Any]:
        return {**asdict(self), "lifetime_s": self.lifetime_s}


def _roles_filter(roles: Collection[str] | None) -> frozenset[str] | None:
    if roles is None:
        return None
    if isinstance(roles, str):
        return frozenset((roles,))
    return frozenset(roles)


@dataclass(frozen=True)
class LifetimeReport:
    """Every tensor's lifetime in one simulated run (:func:`tensor_lifetimes`).

    ``lifetimes`` are in the graph's topological order of first appearance;
    ``iteration_s`` is the run's end-to-end time.
    """

    workload: str
    iteration_s: float
    lifetimes: tuple[TensorLifetime, ...]

    def select(self, roles: Collection[str] | None = None,
               names: Collection[str] | None = None) -> list[TensorLifetime]:
        """The lifetimes whose role is in ``roles`` and name in ``names`` (``None``: any)."""
        keep = _roles_filter(roles)
        named = None if names is None else frozenset(names)
        return [t for t in self.lifetimes if (keep is None or t.role in keep)
                and (named is None or t.name in named)]

    def __getitem__(self, name: str) -> TensorLifetime:
        for t in self.lifetimes:
            if t.name == name:
                return t
        raise KeyError(name)

    def live_bytes_curve(self, roles: Collection[str] | None = None,
                         names: Collection[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Bytes live over time, a step function: ``bytes[i]`` holds on
        ``[times[i], times[i + 1])`` (a tensor is live on ``[write_s, last_read_s)``).

        ``times`` are the sorted distinct writes and last reads of the selected tensors with
        0 and :attr:`iteration_s`; the last entry holds from the last time on.
        """
        sel = [t for t in self.select(roles, names) if t.last_read_s > t.write_s]
        starts = np.array([t.write_s for t in sel], float)
        ends = np.array([t.last_read_s for t in sel], float)
        sizes = np.array([t.nbytes for t in sel], float)
        times = np.unique(np.concatenate([[0.0, self.iteration_s], starts, ends]))
        delta = np.zeros(len(times) + 1)
        np.add.at(delta, np.searchsorted(times, starts), sizes)
        np.add.at(delta, np.searchsorted(times, ends), -sizes)
        return times, np.cumsum(delta)[:-1]

    def peak_live_bytes(self, roles: Collection[str] | None = None,
                        names: Collection[str] | None = None) -> float:
        """The largest number of bytes live at one instant."""
        _, live = self.live_bytes_curve(roles, names)
        return float(live.max()) if len(live) else 0.0

    def by_role(self) -> list[dict[str, Any]]:
        """One summary row per role: tensors, bytes, peak live bytes, longest and mean
        lifetime, and the byte-seconds held."""
        rows = []
        for role in sorted({t.role for t in self.lifetimes}):
            sel = self.select((role,))
            life = np.array([t.lifetime_s for t in sel])
            rows.append({"role": role, "tensors": len(sel),
                         "bytes": math.fsum(t.nbytes for t in sel),
                         "peak_live_bytes": self.peak_live_bytes((role,)),
                         "max_lifetime_s": float(life.max()),
                         "mean_lifetime_s": float(life.mean()),
                         "byte_seconds": math.fsum(t.nbytes * t.lifetime_s for t in sel)})
        return rows

    def rows(self) -> list[dict[str, Any]]:
        """One row per tensor (its fields and ``lifetime_s``), for CSV."""
        return [t.row() for t in self.lifetimes]

    def plot(self, path: str | Path, *, other: LifetimeReport | None = None,
             labels: Sequence[str] = ("standard", "reversible"),
             roles: Collection[str] | None = DEFAULT_ALLOCATED_ROLES,
             capacity_bytes: float | None = None) -> Path:
        """Live bytes of ``roles`` over time (ms, MiB), with ``other`` overlaid (labels in
        that order) and a line at ``capacity_bytes`` if given; a PNG at ``path``."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(10, 4))
        reports = [self] if other is None else [self, other]
        for report, label in zip(reports, labels, strict=False):
            times, live = report.live_bytes_curve(roles)
            peak = float(live.max()) if len(live) else 0.0
            ax.step(times * 1e3, live / 2**20, where="post",
                    label=f"{label} ({report.workload}): peak {peak / 2**20:.3g} MiB")
        if capacity_bytes is not None:
            ax.axhline(capacity_bytes / 2**20, color="k", linestyle="--", linewidth=1,
                       label=f"buffer {capacity_bytes / 2**20:.3g} MiB")
        what = "all tensors" if roles is None else ", ".join(sorted(_roles_filter(roles) or ()))
        ax.set_xlabel("time in the iteration (ms)")
        ax.set_ylabel(f"live bytes (MiB): {what}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        return save_figure(fig, path)


def tensor_lifetimes(result: SocResult, graph: WorkloadGraph) -> LifetimeReport:
    """Every tensor's write, reads and lifetime in ``result``, the run of ``graph``.

    Raises
    ------
    ConfigError
        ``result`` has no window for one of ``graph``'s operators (it is another graph's).
    """
    windows = {rec.name: (rec.start_s, rec.end_s) for rec in result.operators}
    specs: dict[str, tuple[str, float]] = {}
    producer: dict[str, str] = {}
    readers: dict[str, list[str]] = {}
    for op in graph:
        if op.name not in windows:
            raise ConfigError(f"the result of '{result.workload}' has no window for operator "
                              f"'{op.name}' of graph '{graph.name}'", field="graph")
        for t in op.inputs:
            specs.setdefault(t.name, (t.role, t.nbytes))
            who = readers.setdefault(t.name, [])
            if not who or who[-1] != op.name:  # an operator reading a tensor twice reads once
                who.append(op.name)
        for t in op.outputs:
            specs.setdefault(t.name, (t.role, t.nbytes))
            producer[t.name] = op.name
            readers.setdefault(t.name, [])
    out = []
    for name, (role, nbytes) in specs.items():
        prod = producer.get(name)
        write = windows[prod][1] if prod is not None else 0.0
        who = readers[name]
        first = min((windows[r][0] for r in who), default=write)
        last = max((windows[r][1] for r in who), default=write)
        out.append(TensorLifetime(name=name, role=role, nbytes=float(nbytes), producer=prod,
                                  write_s=write, reads=len(who), first_read_s=first,
                                  last_read_s=last))
    return LifetimeReport(workload=graph.name, iteration_s=result.latency_s,
                          lifetimes=tuple(out))


# -- refresh ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RefreshEstimate:
    """Row refreshes of an eDRAM buffer over one run, lifetime-aware and conventional.

    ``lifetime_aware_row_refreshes``: the rows of the data held, each refreshed once per
    period it is held (module docstring); ``always_row_refreshes``: every one of ``rows``
    rows every period for the whole ``iteration_s``. ``tensors`` were considered, of which
    ``tensors_needing_refresh`` live a period or longer.
    """

    refresh_period_s: float
    row_bits: int
    rows: int
    rows_per_refresh: int
    iteration_s: float
    tensors: int
    tensors_needing_refresh: int
    lifetime_aware_row_refreshes: int
    always_row_refreshes: int

    @property
    def lifetime_aware_bits(self) -> int:
        """Bits refreshed by the lifetime-aware controller."""
        return self.lifetime_aware_row_refreshes * self.row_bits

    @property
    def always_bits(self) -> int:
        """Bits refreshed by the always-refresh controller."""
        return self.always_row_refreshes * self.row_bits

    def lifetime_aware_energy_j(self, refresh_energy_j_per_bit: float) -> float:
        """Lifetime-aware refresh energy at ``refresh_energy_j_per_bit``, joules."""
        return self.lifetime_aware_bits * _nonnegative("refresh_energy_j_per_bit",
                                                       refresh_energy_j_per_bit)

    def always_energy_j(self, refresh_energy_j_per_bit: float) -> float:
        """Always-refresh energy at ``refresh_energy_j_per_bit``, joules."""
        return self.always_bits * _nonnegative("refresh_energy_j_per_bit",
                                               refresh_energy_j_per_bit)

    @property
    def lifetime_aware_stolen_cycles(self) -> int:
        """Port cycles taken by lifetime-aware refresh: one per refresh operation of
        ``rows_per_refresh`` rows."""
        return -(-self.lifetime_aware_row_refreshes // self.rows_per_refresh)

    @property
    def always_stolen_cycles(self) -> int:
        """Port cycles taken by always-refresh."""
        return -(-self.always_row_refreshes // self.rows_per_refresh)

    def stolen_fraction(self, clock_hz: float, *, lifetime_aware: bool = True) -> float:
        """Stolen cycles over the run's cycles at ``clock_hz`` (above 1: the controller cannot
        keep up at that clock)."""
        hz = _nonnegative("clock_hz", clock_hz)
        if hz == 0:
            raise ValueError("clock_hz must be > 0, not 0")
        cycles = self.iteration_s * hz
        stolen = self.lifetime_aware_stolen_cycles if lifetime_aware \
            else self.always_stolen_cycles
        return stolen / cycles if cycles > 0 else 0.0

    def row(self) -> dict[str, Any]:
        return {**asdict(self), "lifetime_aware_bits": self.lifetime_aware_bits,
                "always_bits": self.always_bits,
                "lifetime_aware_stolen_cycles": self.lifetime_aware_stolen_cycles,
                "always_stolen_cycles": self.always_stolen_cycles}


def _nonnegative(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, not {value!r}")
    return float(value)


def refresh_operations(report: LifetimeReport, *, refresh_period_s: float, row_bits: int,
                       capacity_bits: int, roles: Collection[str] | None = None,
                       names: Collection[str] | None = None,
                       rows_per_refresh: int = 1) -> RefreshEstimate:
    """Row refreshes of the tensors of ``roles`` and ``names`` held in an eDRAM buffer of
    ``capacity_bits`` in rows of ``row_bits`` (module docstring for the rules).

    Raises
    ------
    ValueError
        ``refresh_period_s`` is not > 0, or ``row_bits``, ``capacity_bits`` or
        ``rows_per_refresh`` is not a positive int.
    """
    period = _nonnegative("refresh_period_s", refresh_period_s)
    if period == 0:
        raise ValueError("refresh_period_s must be > 0, not 0")
    for name, value in (("row_bits", row_bits), ("capacity_bits", capacity_bits),
                        ("rows_per_refresh", rows_per_refresh)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, not {value!r}")
    sel = report.select(roles, names)
    aware = 0
    needing = 0
    for t in sel:
        k = math.floor(t.lifetime_s / period)
        if k > 0:
            needing += 1
            aware += k * math.ceil(t.nbytes * 8 / row_bits)
    rows = -(-capacity_bits // row_bits)
    always = math.floor(report.iteration_s / period) * rows
    return RefreshEstimate(refresh_period_s=period, row_bits=row_bits, rows=rows,
                           rows_per_refresh=rows_per_refresh, iteration_s=report.iteration_s,
                           tensors=len(sel), tensors_needing_refresh=needing,
                           lifetime_aware_row_refreshes=aware, always_row_refreshes=always)


def _edram(config: GlobalBufferConfig) -> None:
    if config.technology != "edram":
        raise ConfigError(f"a global buffer of technology '{config.technology}' is not "
                          "refreshed", field="global_buffer.technology", allowed=["edram"])


def edram_refresh_period_s(config: GlobalBufferConfig) -> float:
    """The refresh period of an eDRAM global buffer: the time every cell of the macro holds
    its data with probability ``config.refresh_percentile`` at ``config.temperature_c``
    (memtech's log-normal retention, :attr:`~archsim.hw.models.memtech.MemoryModel.refresh_period_s`).

    Raises
    ------
    ConfigError
        The buffer is not eDRAM.
    """
    _edram(config)
    return config.memory_model().refresh_period_s


def refresh_energy_j_per_bit(config: GlobalBufferConfig, *, node_nm: float | None = None,
                             voltage_v: float | None = None) -> float:
    """Energy to refresh one bit of the eDRAM global buffer (memtech's per-bit figure scaled
    to the macro's size, node and supply), joules.

    Raises
    ------
    ConfigError
        The buffer is not eDRAM.
    """
    _edram(config)
    mm = config.memory_model(node_nm=node_nm, voltage_v=voltage_v)
    return mm.refresh_energy_per_operation_j / (mm.rows_per_refresh * mm.row_bits)


def refresh_for_buffer(report: LifetimeReport, config: GlobalBufferConfig, *,
                       names: Collection[str] | None = None,
                       roles: Collection[str] | None = None,
                       refresh_period_s: float | None = None) -> RefreshEstimate:
    """:func:`refresh_operations` for the eDRAM global buffer ``config`` (its period, rows
    and ``rows_per_refresh``) over the tensors ``names`` (e.g. an allocation's resident
    set) of ``roles``; ``refresh_period_s`` replaces the buffer's own period (a retention
    sweep).

    Raises
    ------
    ConfigError
        The buffer is not eDRAM.
    """
    _edram(config)
    period = edram_refresh_period_s(config) if refresh_period_s is None else refresh_period_s
    return refresh_operations(report, refresh_period_s=period,
                              row_bits=config.row_bits, capacity_bits=config.capacity_bytes * 8,
                              roles=roles, names=names,
                              rows_per_refresh=config.rows_per_refresh)


# -- allocation -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Allocation:
    """Which tensors a buffer of ``capacity_bytes`` holds (:func:`allocate`).

    ``resident`` includes the ``pinned`` tensors; ``spilled`` go to host memory:
    ``spilled_bytes`` is their size and ``offchip_bytes`` their traffic, each written once
    and read ``reads`` times. ``peak_resident_bytes`` is the most the buffer holds at once.
    """

    capacity_bytes: int
    resident: frozenset[str]
    spilled: frozenset[str]
    pinned: frozenset[str]
    spilled_bytes: float
    offchip_bytes: float
    peak_resident_bytes: float


#: Orders in which :func:`allocate` considers the tensors.
ALLOCATION_ORDERS: tuple[str, ...] = ("write", "shortest")


def allocate(report: LifetimeReport, *, capacity_bytes: int,
             roles: Collection[str] = DEFAULT_ALLOCATED_ROLES,
             pinned: Collection[str] = (), order: str = "write") -> Allocation:
    """Place the tensors of ``roles`` in a buffer of ``capacity_bytes``, deciding tensor by
    tensor: with ``order="write"`` at each write in time order (ties in graph order), the
    greedy choice of a buffer manager deciding online; with ``order="shortest"`` the
    shortest-lived first (ties by write time), the offline choice of a compiler that knows
    the schedule -- it keeps the transient data, which frees its space soonest, on chip
    (CAMEL's point) instead of the long-lived activations an online greedy placement
    meets first.

    A tensor stays on chip if the bytes of the resident tensors live at its write plus its
    own do not exceed the capacity (with ``pinned`` tensors, which are always resident,
    counted over the whole interval the tensor would be held), else it spills. The resident
    set never exceeds the capacity at any instant. A tensor of lifetime 0 takes no space.

    Raises
    ------
    ConfigError
        ``capacity_bytes`` is not a positive int; ``pinned`` names a tensor the report does
        not have, or the pinned tensors alone exceed the capacity.
    """
    if isinstance(capacity_bytes, bool) or not isinstance(capacity_bytes, int) or \
            capacity_bytes < 1:
        raise ConfigError(f"capacity_bytes must be an int >= 1, not {capacity_bytes!r}",
                          field="capacity_bytes")
    known = {t.name for t in report.lifetimes}
    pin = frozenset(pinned)
    unknown = sorted(pin - known)
    if unknown:
        raise ConfigError(f"pinned names tensor '{unknown[0]}', which the report of "
                          f"'{report.workload}' does not have", field="pinned")
    if order not in ALLOCATION_ORDERS:
        raise ConfigError(f"unknown allocation order {order!r}; allowed: "
                          f"{', '.join(ALLOCATION_ORDERS)}", field="order",
                          allowed=ALLOCATION_ORDERS)
    keep = _roles_filter(roles) or frozenset()
    pins = [t for t in report.lifetimes if t.name in pin]
    key = (lambda t: t.write_s) if order == "write" else \
        (lambda t: (t.lifetime_s, t.write_s))
    cands = sorted((t for t in report.lifetimes if t.role in keep and t.name not in pin),
                   key=key)  # stable: graph order among equal keys
    held = [t for t in (*pins, *cands) if t.last_read_s > t.write_s]
    grid = np.unique(np.array([0.0] + [t.write_s for t in held] + [t.last_read_s for t in held]))
    pinned_live = np.zeros(len(grid))
    for t in pins:
        i0, i1 = np.searchsorted(grid, [t.write_s, t.last_read_s])
        pinned_live[i0:i1] += t.nbytes
    if len(pins) and pinned_live.max() > capacity_bytes:
        raise ConfigError(f"the pinned tensors hold {pinned_live.max():.0f} bytes at once, more "
                          f"than the capacity of {capacity_bytes} bytes", field="pinned")
    placed = np.zeros(len(grid))
    resident = set(pin)
    spilled = []
    for t in cands:
        i0, i1 = np.searchsorted(grid, [t.write_s, t.last_read_s])
        if i1 > i0:
            if float((placed[i0:i1] + pinned_live[i0:i1]).max()) + t.nbytes > capacity_bytes:
                spilled.append(t)
                continue
            placed[i0:i1] += t.nbytes
        resident.add(t.name)
    total = placed + pinned_live
    return Allocation(capacity_bytes=capacity_bytes, resident=frozenset(resident),
                      spilled=frozenset(t.name for t in spilled), pinned=pin,
                      spilled_bytes=math.fsum(t.nbytes for t in spilled),
                      offchip_bytes=math.fsum(t.nbytes * (1 + t.reads) for t in spilled),
                      peak_resident_bytes=float(total.max()) if len(total) else 0.0)


def simulate_with_buffer(config: SoCConfig, graph: WorkloadGraph, *,
                         roles: Collection[str] = DEFAULT_ALLOCATED_ROLES,
                         models: Sequence[HardwareModel] | None = None,
                         progress: ProgressCallback | None = None,
                         order: str = "write",
                         ) -> tuple[SocResult, LifetimeReport, Allocation]:
    """The two-pass simulation of ``graph`` with the config's global buffer (module
    docstring): pass 1 with every tensor resident, :func:`allocate` of ``roles`` (and the
    weights, pinned, if they all fit) on its lifetimes in ``order``, pass 2 with the
    allocation.

    Returns
    -------
    tuple
        Pass 2's result, the lifetimes on pass 2's timeline, and the allocation (decided
        on pass 1's).

    Raises
    ------
    ConfigError
        The config has no ``global_buffer``.
    """
    gb = config.global_buffer
    if gb is None:
        raise ConfigError("simulate_with_buffer needs a [global_buffer] section in the SoC "
                          "config", field="global_buffer")
    every = {t.name for op in graph for t in (*op.inputs, *op.outputs)}
    first = simulate(config, graph, resident=every, models=models)
    report = tensor_lifetimes(first, graph)
    weights = graph.weights()
    fits = math.fsum(t.nbytes for t in weights.values()) <= gb.capacity_bytes
    alloc = allocate(report, capacity_bytes=gb.capacity_bytes, roles=roles,
                     pinned=weights if fits else (), order=order)
    final = simulate(config, graph, resident=alloc.resident, models=models, progress=progress)
    return final, tensor_lifetimes(final, graph), alloc


# -- recorded access traces -----------------------------------------------------------------
def edram_access_trace(report: LifetimeReport, *, names: Collection[str], row_bytes: int,
                       rows: int, clock_hz: float) -> AccessTrace:
    """The access trace the tensors ``names`` of ``report`` make on an eDRAM macro of ``rows``
    rows of ``row_bytes``, for :func:`archsim.hw.models.edram_refresh.simulate_refresh` and
    the RTL macro (:class:`archsim.hw.accel.edram.EdramMacro`).

    Each tensor held (lifetime > 0) takes ``ceil(nbytes / row_bytes)`` rows, the lowest free
    ones, at its write: one write request per row issued at ``round(write_s * clock_hz)``,
    and one release (its last use) per row at ``round(last_read_s * clock_hz)``; a row
    released is free for the tensors written after. Reads between the two do not change
    what the refresh controllers do (a gain-cell read does not restore the charge), so the
    trace leaves them out. Requests at one cycle go releases first, then in graph order.

    Raises
    ------
    ConfigError
        ``row_bytes``, ``rows`` or ``clock_hz`` is not positive, a name is not in the
        report, or the tensors held at some instant need more than ``rows`` rows.
    """
    if isinstance(row_bytes, bool) or not isinstance(row_bytes, int) or row_bytes < 1:
        raise ConfigError(f"row_bytes must be an int >= 1, not {row_bytes!r}",
                          field="row_bytes")
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise ConfigError(f"rows must be an int >= 1, not {rows!r}", field="rows")
    if not clock_hz > 0:
        raise ConfigError(f"clock_hz must be > 0, not {clock_hz!r}", field="clock_hz")
    known = {t.name: t for t in report.lifetimes}
    missing = sorted(set(names) - known.keys())
    if missing:
        raise ConfigError(f"names tensor '{missing[0]}', which the report of "
                          f"'{report.workload}' does not have", field="names")
    held = [t for t in report.lifetimes if t.name in set(names) and t.lifetime_s > 0]
    # Events (cycle, 0 = release / 1 = write, order, tensor): releases free rows first.
    events: list[tuple[int, int, int, TensorLifetime]] = []
    for i, t in enumerate(held):
        events.append((round(t.write_s * clock_hz), 1, i, t))
        events.append((round(t.last_read_s * clock_hz), 0, i, t))
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    free = list(range(rows))  # a heap: the lowest free row first
    owned: dict[str, list[int]] = {}
    requests: list[Request] = []
    for cycle, kind, _, t in events:
        if kind == 0:
            for r in owned.pop(t.name, []):
                requests.append(Request(cycle, "release", r))
                heapq.heappush(free, r)
            continue
        need = math.ceil(t.nbytes / row_bytes)
        if need > len(free):
            raise ConfigError(f"tensor '{t.name}' needs {need} rows of {row_bytes} bytes at "
                              f"{t.write_s:.6g} s but only {len(free)} of {rows} are free; "
                              "use fewer, larger rows or more rows", field="rows")
        mine = [heapq.heappop(free) for _ in range(need)]
        owned[t.name] = mine
        requests.extend(Request(cycle, "write", r, 0) for r in mine)
    return AccessTrace(requests)
