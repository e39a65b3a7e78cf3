"""Calibrate the SoC's CPU data-preparation cost by executing SMAUG-style tiling copies.

SMAUG's SMV backend prepares every accelerated operator on the CPU: it cuts each input and
weight tensor (NHWC activations, KRSC convolution weights, ``[n, k]`` fully connected
weights) into scratchpad-sized tiles -- a strided region copy of the full tensor into a
contiguous buffer per tile (a convolution's input tile keeps its halo rows) -- and gathers
the output tiles back into the full output tensor afterwards. This module replays those copies
with numpy for the tiles :func:`~archsim.sim.soc.tiling.plan_operator` gives (the same tiles
the SoC simulator moves), times each one with :func:`time.perf_counter` (median of repeats)
and fits ``t = fixed_s + bytes / bytes_per_s`` per copy by least squares: the per-thread
copy bandwidth and a per-tile fixed cost, with the standard errors of both.

What the copy model leaves out (stated, not hidden): SMAUG's copies are C++ loops, ours are
numpy's strided copy kernels called from Python, so the fixed cost per tile includes
Python's call overhead (an upper bound for C++); vector operators are cut into contiguous
element blocks (SMAUG tiles them channel-wise, also a contiguous run per row); the sources
are warm in the cache after the first repeat (in SMAUG the previous operator has just
written them). Cache flushes are not measured here (numpy cannot issue ``clflush``).

Scaling to another host (:class:`CpuScaling`) is a stated model: the copy's bytes per cycle
are kept, so the bandwidth scales with the clock and the fixed cost with its inverse.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ConfigError
from ...hw.models.accelerators import VECTOR_KINDS
from ...operators import Operator
from .config import ScratchpadConfig
from .tiling import CPU_KINDS, best_tiling, conv_geometry, plan_operator

__all__ = ["TileCopy", "CopyTiming", "LinearFit", "CpuScaling", "NetworkPrep", "tile_copies",
           "graph_copies", "copy_tile", "untile", "time_copies", "fit_copy_cost",
           "measure_network", "network_prep", "host_cpu_hz", "effective_bandwidth", "CALIBRATED_KINDS"]

#: Operator kinds whose tiling copies this module replays.
CALIBRATED_KINDS: frozenset[str] = frozenset({"conv2d", "matmul", "recurrent", "attention"}) \
    | VECTOR_KINDS | CPU_KINDS

_ROLES = ("input", "weight", "output")


@dataclass(frozen=True)
class TileCopy:
    """One tile's copy: the full tensor's shape and the region ``[start, stop)`` per axis.

    ``role`` is ``"input"`` or ``"weight"`` (the full tensor's region is copied into a
    contiguous tile buffer) or ``"output"`` (the tile is copied back into the region).
    ``tensor`` names the full tensor within the operator (copies of one tensor share it).
    """

    op_name: str
    role: str
    tensor: str
    shape: tuple[int, ...]
    region: tuple[tuple[int, int], ...]
    element_bytes: int = 2

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise ConfigError(f"unknown copy role '{self.role}'", field="role",
                              allowed=_ROLES)
        if len(self.region) != len(self.shape):
            raise ConfigError(f"region has {len(self.region)} axes for a tensor of "
                              f"{len(self.shape)}", field="region")
        for (start, stop), size in zip(self.region, self.shape, strict=True):
            if not 0 <= start < stop <= size:
                raise ConfigError(f"region [{start}, {stop}) outside an axis of {size}",
                                  field="region")

    @property
    def tile_shape(self) -> tuple[int, ...]:
        return tuple(stop - start for start, stop in self.region)

    @property
    def slices(self) -> tuple[slice, ...]:
        return tuple(slice(start, stop) for start, stop in self.region)

    @property
    def nbytes(self) -> int:
        return math.prod(self.tile_shape) * self.element_bytes


@dataclass(frozen=True)
class CopyTiming:
    """A copy's size, its time in each pass (``runs_s``) and their median."""

    op_name: str
    role: str
    nbytes: int
    median_s: float
    runs_s: tuple[float, ...]

    @property
    def repeats(self) -> int:
        return len(self.runs_s)


@dataclass(frozen=True)
class LinearFit:
    """``t = fixed_s + nbytes / bytes_per_s``, least squares over ``samples`` copies.

    ``slope_stderr_s_per_byte`` and ``fixed_stderr_s`` are the standard errors of the fit's
    coefficients; ``bytes_per_s_low``/``high`` the bandwidth at slope +- 2 standard errors;
    ``r2`` the coefficient of determination.
    """

    bytes_per_s: float
    fixed_s: float
    slope_stderr_s_per_byte: float
    fixed_stderr_s: float
    r2: float
    samples: int

    @property
    def bytes_per_s_low(self) -> float:
        return 1.0 / (1.0 / self.bytes_per_s + 2 * self.slope_stderr_s_per_byte)

    @property
    def bytes_per_s_high(self) -> float:
        slope = 1.0 / self.bytes_per_s - 2 * self.slope_stderr_s_per_byte
        return 1.0 / slope if slope > 0 else math.inf

    def predict_s(self, nbytes: float, copies: float = 1.0) -> float:
        """Time of ``copies`` copies moving ``nbytes`` in all."""
        return copies * self.fixed_s + nbytes / self.bytes_per_s


@dataclass(frozen=True)
class CpuScaling:
    """Scale a measurement from the host's clock to a target CPU's clock (a stated model).

    The copy's bytes per cycle and cycles per tile are kept: bandwidth scales by
    ``target_hz / host_hz``, fixed costs by ``host_hz / target_hz``. It ignores differences
    in core width, vector length, cache line size and memory system between the two CPUs.
    """

    host_hz: float
    target_hz: float

    def __post_init__(self) -> None:
        for name in ("host_hz", "target_hz"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    not (math.isfinite(value) and value > 0):
                raise ConfigError(f"must be a finite frequency > 0 Hz, not {value!r}",
                                  field=name)

    @property
    def factor(self) -> float:
        """Target speed over host speed (bandwidths are multiplied by it)."""
        return self.target_hz / self.host_hz

    def bandwidth(self, bytes_per_s: float) -> float:
        return bytes_per_s * self.factor

    def fixed_time(self, seconds: float) -> float:
        return seconds / self.factor


def _conv_copies(op: Operator, rows: int, red: int, cols: int, eb: int) -> list[TileCopy]:
    n, g, cin, cout, kh, kw, s, oh, ow, in_h, in_w, eff_kh = conv_geometry(op)
    # SMAUG's SMV layouts: activations NHWC (padded), weights KRSC.
    in_shape = (n, in_h, in_w, g * cin)
    w_shape = (g * cout, kh, kw, cin)
    out_shape = (n, oh, ow, g * cout)
    out: list[TileCopy] = []
    seen_w: set[tuple[int, int, int]] = set()
    for b in range(n):
        for gi in range(g):
            for h0 in range(0, oh, rows):
                hs = min(rows, oh - h0)
                rows_in = min((hs - 1) * s + eff_kh, in_h - h0 * s)
                for c0 in range(0, cin, red):
                    cs = min(red, cin - c0)
                    out.append(TileCopy(op.name, "input", "input", in_shape, (
                        (b, b + 1), (h0 * s, h0 * s + rows_in), (0, in_w),
                        (gi * cin + c0, gi * cin + c0 + cs)), eb))
                for k0 in range(0, cout, cols):
                    ks = min(cols, cout - k0)
                    for c0 in range(0, cin, red):
                        if (gi, k0, c0) not in seen_w:
                            seen_w.add((gi, k0, c0))
                            cs = min(red, cin - c0)
                            out.append(TileCopy(op.name, "weight", "weight", w_shape, (
                                (gi * cout + k0, gi * cout + k0 + ks), (0, kh), (0, kw),
                                (c0, c0 + cs)), eb))
                    out.append(TileCopy(op.name, "output", "output", out_shape, (
                        (b, b + 1), (h0, h0 + hs), (0, ow),
                        (gi * cout + k0, gi * cout + k0 + ks)), eb))
    return out


def _gemm_copies(op: Operator, m: int, k: int, n: int, repeats: int, shared: bool,
                 rows: int, red: int, cols: int, eb: int) -> list[TileCopy]:
    # Activations [rep, m, k]; weights [n, k] (SMAUG keeps fully connected weights
    # transposed, so a weight tile is a row block too), one per repeat unless shared.
    in_shape, out_shape = (repeats, m, k), (repeats, m, n)
    w_shape = (1 if shared else repeats, n, k)
    out: list[TileCopy] = []
    seen_w: set[tuple[int, int, int]] = set()
    for rep in range(repeats):
        wr = 0 if shared else rep
        for m0 in range(0, m, rows):
            ms = min(rows, m - m0)
            for k0 in range(0, k, red):
                out.append(TileCopy(op.name, "input", "input", in_shape, (
                    (rep, rep + 1), (m0, m0 + ms), (k0, min(k0 + red, k))), eb))
            for n0 in range(0, n, cols):
                ns = min(cols, n - n0)
                for k0 in range(0, k, red):
                    if (wr, n0, k0) not in seen_w:
                        seen_w.add((wr, n0, k0))
                        out.append(TileCopy(op.name, "weight", "weight", w_shape, (
                            (wr, wr + 1), (n0, n0 + ns), (k0, min(k0 + red, k))), eb))
                out.append(TileCopy(op.name, "output", "output", out_shape, (
                    (rep, rep + 1), (m0, m0 + ms), (n0, n0 + ns)), eb))
    return out


def _gemm_tiled(op: Operator, spads: ScratchpadConfig, eb: int, *, m: int, k: int, n: int,
                repeats: int, shared: bool, tag: str = "") -> list[TileCopy]:
    """A GEMM's copies at the tiling ``plan_operator`` picks for it (same search, same caps)."""
    t = best_tiling(rows=m, reduction=k, cols=n, in_per_row=1, in_fixed_rows=1, w_per=1,
                    out_per_row=1, in_cap=spads.input_elements, w_cap=spads.weight_elements,
                    out_cap=spads.output_elements)
    if t is None:
        raise ConfigError(f"operator '{op.name}' has no tiling that fits the scratchpads",
                          field="accelerators.scratchpads")
    copies = _gemm_copies(op, m, k, n, repeats, shared, t.rows, t.reduction, t.cols, eb)
    return [TileCopy(c.op_name, c.role, c.tensor + tag, c.shape, c.region, c.element_bytes)
            for c in copies]


def _attention_copies(op: Operator, spads: ScratchpadConfig, eb: int) -> list[TileCopy]:
    # As plan_operator: Q K^T then P V per (batch, head), without shared weights; without
    # shape attributes one cube-shaped GEMM of flops / 2 MACs.
    a = op.attrs
    if all(key in a for key in ("batch", "heads", "head_dim", "q_len", "kv_len")):
        reps = a["batch"] * a["heads"]
        return _gemm_tiled(op, spads, eb, m=a["q_len"], k=a["head_dim"], n=a["kv_len"],
                           repeats=reps, shared=False, tag=".qk") + \
            _gemm_tiled(op, spads, eb, m=a["q_len"], k=a["kv_len"], n=a["head_dim"],
                        repeats=reps, shared=False, tag=".pv")
    macs = max(int(op.flops // 2), 1)
    side = max(int(round(macs ** (1 / 3))), 1)
    return _gemm_tiled(op, spads, eb, m=side, k=side, n=max(macs // (side * side), 1),
                       repeats=1, shared=True)


def _vector_copies(op: Operator, spads: ScratchpadConfig, eb: int) -> list[TileCopy]:
    # The plan's element blocks, each a contiguous run of the flattened operands (input
    # blocks scaled by the input/output size ratio, e.g. 4x for a 2x2 pooling).
    plan = plan_operator(op, spads)
    acts = [t for t in op.inputs if t.role != "weight"]
    out_el = sum(t.numel for t in op.outputs)
    in_el = acts[0].numel if acts else out_el
    second_el = sum(t.numel for t in acts[1:])
    out: list[TileCopy] = []
    e0 = 0
    for job in plan.jobs:
        es = int(round(job.output_bytes / eb))
        for role, total in (("input", in_el), ("weight", second_el)):
            if total == 0:
                continue
            lo = int(round(e0 * total / out_el))
            hi = max(int(round((e0 + es) * total / out_el)), lo + 1)
            out.append(TileCopy(op.name, role, role, (total,), ((lo, min(hi, total)),), eb))
        out.append(TileCopy(op.name, "output", "output", (out_el,), ((e0, e0 + es),), eb))
        e0 += es
    return out


def tile_copies(op: Operator, scratchpads: ScratchpadConfig) -> tuple[TileCopy, ...]:
    """The copies SMAUG's CPU makes for ``op`` at the tiles of ``plan_operator``.

    Every distinct input and weight tile is copied once out of its full tensor, every output
    tile once back into the full output (the tiles and counts of the SoC simulator, so the
    input and weight bytes sum to the plan's ``prep_bytes`` and the output bytes to its
    ``output_bytes``). An operator the CPU runs (reshape, embedding) is one contiguous copy
    of its output.

    Raises
    ------
    ConfigError
        ``op``'s kind is not in :data:`CALIBRATED_KINDS`, or it has no tiling that fits.
    """
    if op.kind not in CALIBRATED_KINDS:
        raise ConfigError(f"operator '{op.name}' has kind '{op.kind}' whose tiling copies are "
                          "not replayed", field="kind", allowed=sorted(CALIBRATED_KINDS))
    buf = scratchpads.buffer()
    eb = int(buf.element_bytes)
    plan = plan_operator(op, scratchpads)
    if plan.target == "cpu":
        nel = max(int(round(plan.cpu_bytes / eb)), 1)
        return (TileCopy(op.name, "output", "output", (nel,), ((0, nel),), eb),)
    if op.kind in VECTOR_KINDS:
        return tuple(_vector_copies(op, scratchpads, eb))
    if op.kind == "attention":
        return tuple(_attention_copies(op, buf, eb))
    t = plan.tiling
    assert t is not None  # every GEMM plan has a loop tiling
    a = op.attrs
    if op.kind == "conv2d":
        return tuple(_conv_copies(op, t.rows, t.reduction, t.cols, eb))
    if op.kind == "matmul":
        shared = len(op.inputs) > 1 and op.inputs[1].role == "weight"
        return tuple(_gemm_copies(op, a["m"], a["k"], a["n"], a.get("batch", 1), shared,
                                  t.rows, t.reduction, t.cols, eb))
    return tuple(_gemm_copies(op, a["m"], a["k"], a["n"], a["steps"] * a["directions"], True,
                              t.rows, t.reduction, t.cols, eb))


def graph_copies(ops: Iterable[Operator],
                 scratchpads: ScratchpadConfig) -> tuple[TileCopy, ...]:
    """Every operator's :func:`tile_copies`, in the graph's order."""
    return tuple(c for op in ops for c in tile_copies(op, scratchpads))


def copy_tile(tensor: np.ndarray, copy: TileCopy, out: np.ndarray | None = None) -> np.ndarray:
    """Copy ``copy``'s region of ``tensor`` into a contiguous tile buffer (``out`` if given)."""
    if tensor.shape != copy.shape:
        raise ConfigError(f"tensor of shape {tensor.shape} for a copy of {copy.shape}",
                          field="tensor")
    if out is None:
        return np.ascontiguousarray(tensor[copy.slices])
    np.copyto(out, tensor[copy.slices])
    return out


def untile(tile: np.ndarray, copy: TileCopy, tensor: np.ndarray) -> np.ndarray:
    """Copy ``tile`` back into ``copy``'s region of ``tensor`` (in place); returns ``tensor``."""
    if tensor.shape != copy.shape or tile.shape != copy.tile_shape:
        raise ConfigError(f"tile {tile.shape} / tensor {tensor.shape} for a copy of "
                          f"{copy.tile_shape} in {copy.shape}", field="tensor")
    np.copyto(tensor[copy.slices], tile)
    return tensor


def time_copies(copies: Iterable[TileCopy], *, repeats: int = 5, seed: int = 0,
                evict_bytes: int = 0) -> tuple[CopyTiming, ...]:
    """Time every copy (one thread, fp16 data from ``seed``): median of ``repeats`` passes.

    Copies are taken operator by operator (consecutive copies with one ``op_name``): the
    operator's full tensors are filled with random fp16 values and its tile buffers
    allocated, then each pass runs every copy of the operator once, in order, timing each.
    With ``evict_bytes`` > 0, a buffer that large is streamed through before every pass, so
    that the tensors come from memory rather than a cache warmed by the previous pass (as
    after SMAUG's cache flush before a DMA); with 0, every pass after the first is warm.
    """
    for name, value, low in (("repeats", repeats, 1), ("evict_bytes", evict_bytes, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(f"must be an integer >= {low}, not {value!r}", field=name)
    rng = np.random.default_rng(seed)
    evict = np.zeros(evict_bytes // 8, dtype=np.float64) if evict_bytes else None
    timings: list[CopyTiming] = []
    for _, group in groupby(copies, key=lambda c: c.op_name):
        ops = list(group)
        tensors: dict[tuple[str, tuple[int, ...]], np.ndarray] = {}
        views, tiles = [], []
        for c in ops:
            if c.element_bytes != 2:
                raise ConfigError(f"only 2-byte (fp16) elements are replayed, not "
                                  f"{c.element_bytes}", field="element_bytes", allowed=[2])
            full = tensors.get((c.tensor, c.shape))
            if full is None:
                full = rng.standard_normal(c.shape, dtype=np.float32).astype(np.float16)
                tensors[(c.tensor, c.shape)] = full
            views.append(full[c.slices])
            tiles.append(np.ones(c.tile_shape, dtype=np.float16))  # pages touched up front
        runs = np.empty((repeats, len(ops)))
        clock = time.perf_counter
        for r in range(repeats):
            if evict is not None:
                evict += 1.0  # read and write every line: the caches hold this buffer now
            for i, c in enumerate(ops):
                if c.role == "output":
                    t0 = clock()
                    np.copyto(views[i], tiles[i])
                    t1 = clock()
                else:
                    t0 = clock()
                    np.copyto(tiles[i], views[i])
                    t1 = clock()
                runs[r, i] = t1 - t0
        med = np.median(runs, axis=0)
        for i, c in enumerate(ops):
            timings.append(CopyTiming(c.op_name, c.role, c.nbytes, float(med[i]),
                                      tuple(float(v) for v in runs[:, i])))
    return tuple(timings)


def fit_copy_cost(nbytes: Sequence[float], seconds: Sequence[float]) -> LinearFit:
    """Least-squares fit ``seconds = fixed_s + nbytes / bytes_per_s`` (ordinary, unweighted).

    Raises
    ------
    ConfigError
        Fewer than three samples, lengths differ, the sizes are all equal, or the fitted
        slope is not positive (no bandwidth).
    """
    x = np.asarray(nbytes, dtype=float)
    y = np.asarray(seconds, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ConfigError(f"nbytes and seconds must be 1-D of one length, not {x.shape} and "
                          f"{y.shape}", field="seconds")
    if x.size < 3:
        raise ConfigError(f"need at least 3 samples, not {x.size}", field="nbytes")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ConfigError("samples must be finite", field="seconds")
    if np.ptp(x) == 0:
        raise ConfigError("every sample has the same size: no slope to fit", field="nbytes")
    design = np.column_stack([np.ones_like(x), x])
    coef, _res, _rank, _sv = np.linalg.lstsq(design, y, rcond=None)
    fixed, slope = float(coef[0]), float(coef[1])
    if not slope > 0:
        raise ConfigError(f"fitted slope {slope:.3g} s/byte is not positive", field="seconds")
    resid = y - design @ coef
    dof = x.size - 2
    sigma2 = float(resid @ resid) / dof if dof > 0 else 0.0
    cov = sigma2 * np.linalg.inv(design.T @ design)
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0
    return LinearFit(bytes_per_s=1.0 / slope, fixed_s=fixed,
                     slope_stderr_s_per_byte=math.sqrt(max(float(cov[1, 1]), 0.0)),
                     fixed_stderr_s=math.sqrt(max(float(cov[0, 0]), 0.0)), r2=r2,
                     samples=int(x.size))


def effective_bandwidth(fit: LinearFit, *, nbytes: float, copies: int) -> float:
    """One bandwidth that moves ``nbytes`` in ``copies`` copies in the fit's time.

    The SoC simulator prices data preparation as bytes over a bandwidth; this folds the
    fit's per-tile fixed cost (``copies * fixed_s``) into it for a given network.
    """
    if not nbytes > 0:
        raise ConfigError(f"must be > 0, not {nbytes!r}", field="nbytes")
    return nbytes / max(fit.predict_s(nbytes, copies), nbytes / fit.bytes_per_s)


def host_cpu_hz(cpuinfo: str | Path = "/proc/cpuinfo") -> float:
    """The host CPU's clock from ``cpuinfo`` (the first ``cpu MHz`` line), in Hz.

    Raises
    ------
    ConfigError
        The file is missing or has no ``cpu MHz`` line.
    """
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"cannot read the CPU clock: {exc.strerror}",
                          file=str(cpuinfo)) from None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "cpu MHz":
            try:
                return float(value) * 1e6
            except ValueError:
                break
    raise ConfigError("no 'cpu MHz' line: give the host clock explicitly",
                      file=str(cpuinfo), field="host_hz")


@dataclass(frozen=True)
class NetworkPrep:
    """One network's measured data preparation: its copies, bytes, total time and fit.

    ``total_s`` is the sum of the copies' median times (one thread, host clock);
    ``total_q25_s`` and ``total_q75_s`` the sums of their first and third quartiles over the
    passes (the run-to-run spread). Per-copy statistics rather than whole-pass totals: on a
    shared machine a pass is hit by preemptions of whole scheduler ticks (4 or 8 ms spikes on
    single copies of microseconds were seen on the 2-core machine of the bench), which the
    median of each copy removes. An
    ordinary least-squares fit with an intercept has residuals summing to zero, so
    ``fit.predict_s(nbytes, copies) == total_s``: the achieved bandwidth is the fit's
    effective one.
    """

    name: str
    copies: int
    nbytes: int
    total_s: float
    total_q25_s: float
    total_q75_s: float
    fit: LinearFit

    @property
    def achieved_bytes_per_s(self) -> float:
        """Bytes over the measured total time (fixed costs included)."""
        return self.nbytes / self.total_s

    def to_record(self) -> dict[str, object]:
        """A JSON-ready record (:meth:`from_record` reads it back)."""
        f = self.fit
        return {"name": self.name, "copies": self.copies, "nbytes": self.nbytes,
                "total_s": self.total_s, "total_q25_s": self.total_q25_s,
                "total_q75_s": self.total_q75_s,
                "fit": {"bytes_per_s": f.bytes_per_s, "fixed_s": f.fixed_s,
                        "slope_stderr_s_per_byte": f.slope_stderr_s_per_byte,
                        "fixed_stderr_s": f.fixed_stderr_s, "r2": f.r2,
                        "samples": f.samples}}

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, file: str | None = None) -> NetworkPrep:
        """Read a :meth:`to_record` record; a missing or mistyped field is a ConfigError."""
        try:
            f = record["fit"]
            fit = LinearFit(float(f["bytes_per_s"]), float(f["fixed_s"]),
                            float(f["slope_stderr_s_per_byte"]), float(f["fixed_stderr_s"]),
                            float(f["r2"]), int(f["samples"]))
            return cls(str(record["name"]), int(record["copies"]), int(record["nbytes"]),
                       float(record["total_s"]), float(record["total_q25_s"]),
                       float(record["total_q75_s"]), fit)
        except KeyError as exc:
            raise ConfigError(f"calibration record lacks {exc.args[0]!r}", file=file,
                              field=str(exc.args[0])) from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"calibration record has a bad value: {exc}", file=file,
                              field="fit") from None


def measure_network(name: str, ops: Iterable[Operator], scratchpads: ScratchpadConfig, *,
                    repeats: int = 5, seed: int = 0, evict_bytes: int = 0,
                    fallback_fit: LinearFit | None = None,
                    ) -> tuple[NetworkPrep, tuple[CopyTiming, ...]]:
    """Replay and time every tiling copy of a network (:func:`time_copies`) and fit it
    (:func:`network_prep`, with its ``fallback_fit``)."""
    timings = time_copies(graph_copies(ops, scratchpads), repeats=repeats, seed=seed,
                          evict_bytes=evict_bytes)
    return network_prep(name, timings, fallback_fit=fallback_fit), timings


def network_prep(name: str, timings: Sequence[CopyTiming], *,
                 fallback_fit: LinearFit | None = None) -> NetworkPrep:
    """Summarize a network's copy timings: totals, per-copy quartiles summed, and the fit.

    A network whose copies are all small (a few sizes, every copy dominated by its per-copy
    cost: SMAUG's LSTM) may fit no positive slope. With ``fallback_fit`` its fit then takes
    ``fallback_fit``'s slope (and slope standard error) and fits only the per-copy cost,
    the mean residual, so the fit still predicts the measured total.

    Raises
    ------
    ConfigError
        The fit fails (:func:`fit_copy_cost`) and no ``fallback_fit`` is given.
    """
    nbytes = [t.nbytes for t in timings]
    secs = [t.median_s for t in timings]
    try:
        fit = fit_copy_cost(nbytes, secs)
    except ConfigError:
        if fallback_fit is None:
            raise
        b = np.asarray(nbytes, dtype=float)
        y = np.asarray(secs, dtype=float)
        slope = 1.0 / fallback_fit.bytes_per_s
        fixed = float(np.mean(y - slope * b))
        resid = y - fixed - slope * b
        ss_tot = float(((y - y.mean()) ** 2).sum())
        fit = LinearFit(bytes_per_s=fallback_fit.bytes_per_s, fixed_s=fixed,
                        slope_stderr_s_per_byte=fallback_fit.slope_stderr_s_per_byte,
                        fixed_stderr_s=float(np.std(resid, ddof=1) / math.sqrt(y.size))
                        if y.size > 1 else 0.0,
                        r2=1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0,
                        samples=int(y.size))
    q25, q75 = np.percentile(np.array([t.runs_s for t in timings]), [25, 75], axis=1)
    return NetworkPrep(name, len(timings), int(sum(nbytes)), float(sum(secs)),
                       float(q25.sum()), float(q75.sum()), fit)
