"""The cross-stack study's CPU side, measured: each model's real forward pass on this CPU.

:func:`measure_cpu` times :class:`archsim.sim.nn.recsys.RecModel` forward passes (or, with
``backend="torch"``, :class:`archsim.sim.nn.recsys_torch.TorchRecModel`'s; random
tables and inputs, seeded) at the batch sizes of the authors' sweep (``4**0 .. 4**5``,
``experiments/operator_breakdown/sweep_p.py``): ``repeats`` timed runs after one untimed
warm-up, the median and the spread of the total and of each operator group (SLS, FC,
concat, attention, GRU). Run it single-threaded (``OPENBLAS_NUM_THREADS=1`` before numpy is
imported): on a shared 2-core machine a threaded OpenBLAS measured 2-10x slower and erratic.

:func:`fit_cpu_model` fits the CPU cost model the serving simulation uses to the
measurements: per model (or shared) and operator group, ``t = a + b * work`` by least
squares, ``work`` being the
group's FLOPs (FC, attention, GRU) or embedding bytes read (SLS) from the model's workload
graph (:func:`archsim.compilers.graph.recsys.recsys_graph`), on every batch but the largest;
:meth:`CpuCostModel.validate` reports its error on the held-out largest batch.

Embedding tables are capped at ``table_rows_cap`` rows (full tables need 4 GB and more per
model): the work per sample is the paper's, the memory footprint smaller, so SLS times are
cache-friendlier than with full tables (assumed; the cap is in every result).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...compilers.graph.recsys import (
    RecModelConfig,
    gathered_bytes,
    get_recsys,
    operator_group,
    recsys_graph,
)
from ...errors import ConfigError
from ...fields import is_positive_int

if TYPE_CHECKING:
    from ..nn.recsys import RecModel
    from ..nn.recsys_torch import TorchRecModel

__all__ = ["BACKENDS", "CLOCKS", "SWEEP_BATCHES", "GROUP_OPS", "ALL_MODELS", "CpuMeasurement", "measure_cpu",
           "group_work", "CpuCostModel", "fit_cpu_model"]

#: The clocks :func:`measure_cpu` can read: the calling thread's CPU time (the default; BLAS
#: and PyTorch run on that one thread while timed, so it is the forward pass's whole compute
#: and other processes' load does not inflate it) or the wall clock.
CLOCKS: dict[str, Callable[[], float]] = {"thread": time.thread_time, "wall": time.perf_counter}
#: The authors' batch sweep.
SWEEP_BATCHES: tuple[int, ...] = tuple(4**i for i in range(6))
#: Which workload-graph operator kinds make each timed operator group's work.
GROUP_OPS: dict[str, tuple[str, ...]] = {
    "sls": ("embedding",), "fc": ("matmul",), "attention": ("matmul", "reduce"),
    "gru": ("recurrent",), "concat": ("data_movement",)}


@dataclass(frozen=True)
class CpuMeasurement:
    """Timings of one model: per batch, the median and (max - min) / median of the total and
    of each operator group, seconds; the total's standard deviation over the repeats
    (``total_std_s``, ddof 0; empty if not recorded), the ``backend`` timed and the ``clock``
    read (:data:`CLOCKS`)."""

    model: str
    batches: tuple[int, ...]
    repeats: int
    table_rows_cap: int
    total_s: tuple[float, ...]
    total_spread: tuple[float, ...]
    group_s: dict[str, tuple[float, ...]]
    total_std_s: tuple[float, ...] = ()
    backend: str = "numpy"
    clock: str = "wall"

    def rows(self) -> list[dict[str, float | int | str]]:
        out: list[dict[str, float | int | str]] = []
        for i, b in enumerate(self.batches):
            row: dict[str, float | int | str] = {
                "model": self.model, "backend": self.backend, "clock": self.clock, "batch": b,
                "total_ms": self.total_s[i] * 1e3, "spread": self.total_spread[i]}
            if self.total_std_s:
                row["std_ms"] = self.total_std_s[i] * 1e3
            for g, ts in self.group_s.items():
                row[f"{g}_ms"] = ts[i] * 1e3
            out.append(row)
        return out


#: The forward-pass implementations :func:`measure_cpu` can time.
BACKENDS = ("numpy", "torch")


def measure_cpu(name: str, *, batches: Sequence[int] = SWEEP_BATCHES, repeats: int = 5,
                table_rows_cap: int = 20000, seed: int = 0,
                backend: str = "numpy", clock: str = "thread") -> CpuMeasurement:
    """Time model ``name``'s forward pass (module docstring) in ``backend``: ``"numpy"``
    (:class:`~archsim.sim.nn.recsys.RecModel`) or ``"torch"``
    (:class:`~archsim.sim.nn.recsys_torch.TorchRecModel`, same weights; the optional
    ``torch`` extra). PyTorch runs on one intra-op thread while timed (its setting is
    restored after): numpy's BLAS is run single-threaded too, so the two backends compare
    kernel for kernel, and on a shared 2-core machine more threads measure contention.
    ``clock`` is :data:`CLOCKS`' key: ``"thread"`` (CPU time of this thread, the default: a
    quick run's statuses must not flip when other processes load the machine) or ``"wall"``."""
    from threadpoolctl import threadpool_limits

    from ..nn.recsys import RecModel

    if not is_positive_int(repeats):
        raise ConfigError(f"repeats must be an int >= 1, not {repeats!r}", field="repeats")
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}", field="backend",
                          allowed=list(BACKENDS))
    if clock not in CLOCKS:
        raise ConfigError(f"unknown clock {clock!r}", field="clock", allowed=list(CLOCKS))
    config = get_recsys(name)
    if backend == "torch":
        from ..nn.recsys_torch import TorchRecModel, _torch

        torch = _torch()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            model: RecModel | TorchRecModel = TorchRecModel(
                config, seed=seed, table_rows_cap=table_rows_cap)
            return _time_model(model, batches, repeats, table_rows_cap, seed, backend, clock)
        finally:
            torch.set_num_threads(threads)
    model = RecModel(config, seed=seed, table_rows_cap=table_rows_cap)
    # One BLAS thread whatever the environment says: the thread clock sees only this thread.
    with threadpool_limits(limits=1):
        return _time_model(model, batches, repeats, table_rows_cap, seed, backend, clock)


def _time_model(model: RecModel | TorchRecModel, batches: Sequence[int], repeats: int,
                table_rows_cap: int, seed: int, backend: str, clock: str) -> CpuMeasurement:
    from ..nn.recsys import OP_GROUPS, random_inputs

    config = model.config
    timer = CLOCKS[clock]
    totals, spreads, stds = [], [], []
    groups: dict[str, list[float]] = {g: [] for g in OP_GROUPS}
    for b in batches:
        inputs = random_inputs(config, b, seed, table_rows_cap=table_rows_cap)
        model.forward(inputs.dense, inputs.indices, inputs.lengths)  # warm-up
        runs: list[float] = []
        per_group: dict[str, list[float]] = {g: [] for g in OP_GROUPS}
        for _ in range(repeats):
            timings: dict[str, float] = {}
            t0 = timer()
            model.forward(inputs.dense, inputs.indices, inputs.lengths, timings=timings,
                          timer=timer)
            runs.append(timer() - t0)
            for g in OP_GROUPS:
                per_group[g].append(timings.get(g, 0.0))
        med = float(np.median(runs))
        totals.append(med)
        spreads.append((max(runs) - min(runs)) / med if med > 0 else 0.0)
        stds.append(float(np.std(runs)))
        for g in OP_GROUPS:
            groups[g].append(float(np.median(per_group[g])))
    return CpuMeasurement(model=config.name, batches=tuple(batches), repeats=repeats,
                          table_rows_cap=table_rows_cap, total_s=tuple(totals),
                          total_spread=tuple(spreads),
                          group_s={g: tuple(v) for g, v in groups.items()},
                          total_std_s=tuple(stds), backend=backend, clock=clock)


def group_work(config: RecModelConfig, batch: int) -> dict[str, float]:
    """Each operator group's work at ``batch`` from the workload graph: FLOPs, and for SLS
    the embedding bytes read (fp32)."""
    graph = recsys_graph(config, batch=batch)
    work = dict.fromkeys(GROUP_OPS, 0.0)
    for op in graph:
        group = operator_group(op)
        if group == "sls":
            work["sls"] += gathered_bytes(op)
        elif group == "concat":
            work["concat"] += op.output_bytes
        elif group != "other":
            work[group] += op.flops
    return work


#: The key of the coefficients shared by every model (a fit over all of them).
ALL_MODELS = "*"


@dataclass(frozen=True)
class CpuCostModel:
    """``t = a + b * work`` per operator group (seconds; ``b`` per FLOP or per byte), per
    model (``coefficients[model][group]``) or shared (``coefficients[ALL_MODELS]``), and the
    batches it was fitted on."""

    coefficients: dict[str, dict[str, tuple[float, float]]]
    fitted_batches: tuple[int, ...]

    def predict_s(self, config: RecModelConfig, batch: int) -> float:
        """The forward time of ``config`` at ``batch``: the groups' fitted times summed (a
        group with no work costs nothing); the model's own fit if there is one."""
        coef = self.coefficients.get(config.name, self.coefficients.get(ALL_MODELS))
        if coef is None:
            raise ConfigError(f"no CPU cost fit for model {config.name!r}", field="model",
                              allowed=sorted(self.coefficients))
        work = group_work(config, batch)
        return math.fsum(a + b * w for g, (a, b) in coef.items()
                         if (w := work.get(g, 0.0)) > 0)

    def group_s(self, config: RecModelConfig, batch: int) -> dict[str, float]:
        """Each operator group's fitted time at ``batch`` (seconds; 0 for a group with no
        work); their sum is :meth:`predict_s`."""
        coef = self.coefficients.get(config.name, self.coefficients.get(ALL_MODELS))
        if coef is None:
            raise ConfigError(f"no CPU cost fit for model {config.name!r}", field="model",
                              allowed=sorted(self.coefficients))
        work = group_work(config, batch)
        return {g: (a + b * work[g] if work.get(g, 0.0) > 0 else 0.0)
                for g, (a, b) in coef.items()}

    def validate(self, measurements: Sequence[CpuMeasurement]) -> dict[str, float]:
        """Relative error (predicted / measured - 1) of the total at each model's largest
        measured batch (held out of the fit)."""
        out = {}
        for m in measurements:
            b = m.batches[-1]
            out[m.model] = self.predict_s(get_recsys(m.model), b) / m.total_s[-1] - 1.0
        return out


def _fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    w = np.array([p[0] for p in points])
    t = np.array([p[1] for p in points])
    design = np.column_stack([np.ones_like(w), w])
    (a, b), *_ = np.linalg.lstsq(design, t, rcond=None)
    if a < 0 or b < 0:  # keep it physical: a slope through the mean, never negative
        b = max(0.0, float(w @ t / (w @ w)))
        a = max(0.0, float(np.mean(t - b * w)))
    return float(a), float(b)


def fit_cpu_model(measurements: Sequence[CpuMeasurement], *,
                  per_model: bool = True) -> CpuCostModel:
    """Least-squares ``t = a + b * work`` per group, per model (or shared by all models),
    over every batch but each model's largest (held out for :meth:`CpuCostModel.validate`);
    a fit that comes out negative is refitted as a non-negative slope through the mean."""
    if not measurements:
        raise ConfigError("fit_cpu_model needs at least one measurement",
                          field="measurements")
    points: dict[str, dict[str, list[tuple[float, float]]]] = {}
    batches: set[int] = set()
    for m in measurements:
        config = get_recsys(m.model)
        key = m.model if per_model else ALL_MODELS
        mine = points.setdefault(key, {g: [] for g in GROUP_OPS})
        for i, b in enumerate(m.batches[:-1]):
            batches.add(b)
            work = group_work(config, b)
            for g in GROUP_OPS:
                if work[g] > 0:
                    mine[g].append((work[g], m.group_s[g][i]))
    coefficients = {key: {g: _fit(pts) for g, pts in groups.items() if pts}
                    for key, groups in points.items()}
    return CpuCostModel(coefficients=coefficients, fitted_batches=tuple(sorted(batches)))
