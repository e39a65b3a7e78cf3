"""Real measurements: this CPU's topology, the three settings, timed runs and calibration."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ....compilers.graph.cnn import activation
from ....compilers.graph.ir import TensorSpec, WorkloadGraph
from ....errors import ConfigError
from ....sim.graph_exec import evaluate_graph, execute_graph, graph_width, make_inputs
from .model import Calibration, amdahl_fraction

__all__ = ["CpuTopology", "cpu_topology", "Setting", "paper_settings", "GRID",
           "measure_settings", "per_op_min_times", "BLAS_KINDS", "blas_scaling", "dispatch_overhead",
           "calibrate"]


@dataclass(frozen=True, kw_only=True)
class CpuTopology:
    """CPUs this process may run on: logical CPUs, distinct physical cores, sockets."""

    logical: int
    physical: int
    sockets: int
    source: str


def cpu_topology() -> CpuTopology:
    """Read the topology of the CPUs in this process's affinity mask.

    Physical cores are distinct ``(physical_package_id, core_id)`` pairs from
    ``/sys/devices/system/cpu/cpu*/topology``; without sysfs, ``lscpu -p=CPU,CORE,SOCKET``.
    """
    cpus = sorted(os.sched_getaffinity(0))
    pairs: set[tuple[int, int]] = set()
    try:
        for c in cpus:
            base = Path(f"/sys/devices/system/cpu/cpu{c}/topology")
            pkg = int((base / "physical_package_id").read_text())
            core = int((base / "core_id").read_text())
            pairs.add((pkg, core))
        source = "sysfs topology"
    except OSError:
        out = subprocess.run(["lscpu", "-p=CPU,CORE,SOCKET"], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            if line.startswith("#"):
                continue
            cpu, core, sock = (int(v) for v in line.split(",")[:3])
            if cpu in cpus:
                pairs.add((sock, core))
        source = "lscpu -p"
    return CpuTopology(logical=len(cpus), physical=len(pairs),
                       sockets=len({s for s, _ in pairs}), source=source)


@dataclass(frozen=True)
class Setting:
    """An (inter-op, intra-op) thread setting."""

    inter: int
    intra: int

    @property
    def label(self) -> str:
        return f"{self.inter}x{self.intra}"


def paper_settings(width: float, *, physical: int, logical: int,
                   sockets: int) -> dict[str, Setting]:
    """The three settings the paper compares, for a graph of average width ``width``.

    - guideline: physical cores only; inter-op pools = ``min(round(width), physical)``
      (1, synchronous, for a chain); intra-op = ``physical // inter``.
    - intel: inter-op = sockets; intra-op = physical cores (``OMP_NUM_THREADS``).
    - tf_default: inter-op = intra-op = 0, which TensorFlow resolves to the logical cores.
    """
    if width < 1:
        raise ConfigError(f"graph width must be >= 1, not {width}", field="width")
    inter = max(1, min(int(round(width)), physical))
    return {"guideline": Setting(inter, max(1, physical // inter)),
            "intel": Setting(sockets, physical),
            "tf_default": Setting(logical, logical)}


#: Every setting measured on a 2-core machine (covers the three paper settings there).
GRID: tuple[Setting, ...] = (Setting(1, 1), Setting(1, 2), Setting(2, 1), Setting(2, 2))


def measure_settings(graph: WorkloadGraph, settings: tuple[Setting, ...], *, rounds: int,
                     repeats: int, seed: int = 0) -> dict[str, Any]:
    """Time ``graph`` at each setting, interleaving the settings round by round.

    Interleaving spreads the load of the shared machine over all settings alike. Returns
    per setting every timed wall time, and per round the load average.
    """
    walls: dict[str, list[float]] = {s.label: [] for s in settings}
    loads: list[float] = []
    for r in range(rounds):
        rot = settings[r % len(settings):] + settings[:r % len(settings)]
        for s in rot:
            res = execute_graph(graph, inter_op_threads=s.inter, intra_op_threads=s.intra,
                                seed=seed, repeats=repeats, warmup=1)
            walls[s.label].extend(res.wall_s_all)
            loads.append(res.load_avg[0])
    return {
        "graph": graph.name, "operators": len(graph), "width": graph_width(graph),
        "walls_s": walls, "load_avg_1min": loads,
        "summary": {k: {"min_s": min(v), "median_s": statistics.median(v), "max_s": max(v),
                        "n": len(v)} for k, v in walls.items()},
    }


def per_op_min_times(graph: WorkloadGraph, *, intra: int, repeats: int,
                     seed: int = 0) -> tuple[dict[str, float], float]:
    """Per-operator minimum seconds over ``repeats`` synchronous runs at ``intra`` BLAS
    threads, and the minimum per-operator executor overhead (wall minus kernels, per op).

    The minimum, not the median, is the machine's uncontended capability: on the shared
    machine a multi-threaded BLAS call now and then waits a scheduler quantum for a thread
    that another process holds, which a median over few repeats still shows.
    """
    vals = make_inputs(graph, seed=seed)
    best: dict[str, float] = {}
    overhead = float("inf")
    evaluate_graph(graph, intra_op_threads=intra, inputs=vals)  # warm-up
    for _ in range(repeats):
        run = evaluate_graph(graph, intra_op_threads=intra, inputs=vals)
        for e in run.events:
            best[e.name] = min(best.get(e.name, float("inf")), e.duration_s)
        kern = sum(e.duration_s for e in run.events)
        overhead = min(overhead, max(run.wall_s - kern, 0.0) / len(graph))
    return best, overhead


#: Operator kinds whose kernels call BLAS (GEMM) in the executor; the others run numpy
#: loops on one thread whatever the BLAS thread limit.
BLAS_KINDS: frozenset[str] = frozenset({"matmul", "conv2d", "recurrent", "attention"})


def blas_scaling(*, physical: int, m: int = 256, n: int = 512, k: int = 512,
                 repeats: int = 30) -> dict[str, float]:
    """One float32 GEMM at 1, ``P`` and ``2P`` BLAS threads (minimum over ``repeats``).

    Gives the model's GEMM Amdahl fraction (``t(P) / t(1) = (1 - f) + f / P``) and its
    oversubscription ``kappa`` (``t(2P) / t(P) = 1 + kappa (2P / P - 1)``, clipped at 0).
    The GEMM is short (about 1 ms) so that many repeats catch moments when the shared
    machine's other jobs leave both cores free.
    """
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    best: dict[int, float] = {}
    for threads in sorted({1, physical, 2 * physical}):
        with threadpool_limits(limits=threads):
            np.matmul(a, b)
            ts = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                np.matmul(a, b)
                ts.append(time.perf_counter() - t0)
        best[threads] = min(ts)
    f = amdahl_fraction(best[1], best[physical], physical) if physical > 1 else 1.0
    return {"t_1_s": best[1], "t_p_s": best[physical], "t_2p_s": best[2 * physical],
            "fraction": f, "kappa": max(best[2 * physical] / best[physical] - 1.0, 0.0),
            "gemm_mnk": float(m * n * k), "load_avg_1min": os.getloadavg()[0]}


def dispatch_overhead(*, ops: int = 200, repeats: int = 5) -> dict[str, float]:
    """The executor's cost per operator, synchronous and through the inter-op pool.

    A chain of ``ops`` ReLUs on 4-element tensors (kernels of about a microsecond) runs
    at 1x1 and 2x1; the minimum wall time over ``repeats`` divided by ``ops`` is the
    per-operator cost of each (a chain cannot overlap, so the pool's number is its dispatch
    and wake-up latency).
    """
    g = WorkloadGraph("dispatch-chain")
    t = TensorSpec("x", (4,), "fp32", role="input")
    for i in range(ops):
        t = g.add(activation(f"relu{i}", t)).outputs[0]
    sync = execute_graph(g, inter_op_threads=1, repeats=repeats, warmup=1)
    pool = execute_graph(g, inter_op_threads=2, repeats=repeats, warmup=1)
    return {"sync_s": min(sync.wall_s_all) / ops, "pool_s": min(pool.wall_s_all) / ops,
            "ops": float(ops), "load_avg_1min": pool.load_avg[0]}


def calibrate(graph: WorkloadGraph, *, repeats: int, blas_fraction: float, kappa: float,
              overhead_pool_s: float, seed: int = 0) -> tuple[Calibration, dict[str, Any]]:
    """The many-core model's calibration for ``graph``: per-operator serial times measured
    here (minimum over ``repeats``), the GEMM parallel fraction for :data:`BLAS_KINDS`
    (numpy's other kernels are single-threaded: fraction 0), the executor's overheads."""
    t1, ov1 = per_op_min_times(graph, intra=1, repeats=repeats, seed=seed)
    frac = {op.name: blas_fraction if op.kind in BLAS_KINDS else 0.0 for op in graph}
    cal = Calibration(t1_s=t1, fraction=frac, overhead_sync_s=ov1,
                      overhead_pool_s=overhead_pool_s, kappa=kappa)
    kinds: dict[str, float] = {}
    for op in graph:
        kinds[op.kind] = kinds.get(op.kind, 0.0) + t1[op.name]
    info = {"graph": graph.name, "overhead_sync_s": ov1,
            "kinds": {k: {"t1_s": v, "fraction": blas_fraction if k in BLAS_KINDS else 0.0}
                      for k, v in kinds.items()}}
    return cal, info
