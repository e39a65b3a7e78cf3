"""An analytic many-core model of the graph executor's inter-op / intra-op parallelism.

Each operator ``i`` has a serial time ``t1_i`` and an Amdahl parallel fraction ``f_i``
(both calibrated on this machine from the executor's 1- and 2-thread per-operator times);
with ``a`` cores it takes ``t1_i ((1 - f_i) + f_i / a)`` (``a >= 1``; with less than one
core it is time-shared, ``t1_i / a``), plus a fixed framework overhead per operator (the
synchronous executor's or the inter-op pool's, also measured). A ready-list scheduler with
``inter`` pools runs independent operators together; the running operators ask for
``intra`` threads each, and when the threads asked for exceed the physical cores they
share the cores (processor sharing) and lose efficiency ``1 / (1 + kappa (D / P - 1))``
(``D`` threads on ``P`` cores: spin-waiting barriers and cache thrashing of oversubscribed
OpenMP/BLAS pools; ``kappa`` measured here from one GEMM at ``P`` and ``2P`` threads).
Hyper-threads add no throughput to compute-bound kernels (the paper's guideline 1;
assumed), so logical cores beyond the physical ones only add oversubscription.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ....compilers.graph.ir import WorkloadGraph
from ....errors import ConfigError

__all__ = ["CpuDescription", "SKYLAKE_2S", "Calibration", "amdahl_fraction",
           "simulate_graph"]


@dataclass(frozen=True, kw_only=True)
class CpuDescription:
    """A CPU's sockets, physical cores per socket and hardware threads per core."""

    name: str
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    source: str = ""

    def __post_init__(self) -> None:
        for f in ("sockets", "cores_per_socket", "threads_per_core"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"{f} must be a positive integer, not {v!r}", field=f)

    @property
    def physical_cores(self) -> int:
        return self.sockets * self.cores_per_socket

    @property
    def logical_cores(self) -> int:
        return self.physical_cores * self.threads_per_core


#: A two-socket Xeon Platinum 8160 (Skylake-SP): 24 cores and 48 threads per socket
#: (Intel ARK). The paper's "large" platform is a many-core two-socket Xeon; its exact
#: part was not recovered (notes §6), so this one is assumed.
SKYLAKE_2S = CpuDescription(name="2x Xeon Platinum 8160 (Skylake-SP, 2x24 cores, HT)",
                            sockets=2, cores_per_socket=24, threads_per_core=2,
                            source="Intel ARK, Xeon Platinum 8160: 24 cores, 48 threads")


def amdahl_fraction(t1_s: float, tn_s: float, n: int) -> float:
    """Parallel fraction ``f`` with ``tn / t1 = (1 - f) + f / n``, clipped to [0, 1]."""
    if t1_s <= 0 or n < 2:
        raise ConfigError("amdahl_fraction needs t1_s > 0 and n >= 2", field="t1_s")
    f = (1.0 - tn_s / t1_s) / (1.0 - 1.0 / n)
    return min(max(f, 0.0), 1.0)


@dataclass(frozen=True, kw_only=True)
class Calibration:
    """Per-operator serial seconds and parallel fractions, and the executor's overheads."""

    t1_s: dict[str, float]
    fraction: dict[str, float]
    overhead_sync_s: float
    overhead_pool_s: float
    kappa: float


def _speedup(cores: float, f: float) -> float:
    if cores < 1.0:
        return cores
    return 1.0 / ((1.0 - f) + f / cores)


def simulate_graph(graph: WorkloadGraph, calib: Calibration, *, inter: int, intra: int,
                   cpu: CpuDescription) -> float:
    """Predicted wall seconds of ``graph`` at (``inter``, ``intra``) on ``cpu``."""
    if inter < 1 or intra < 1:
        raise ConfigError(f"inter and intra must be >= 1, not {inter}, {intra}",
                          field="inter")
    g = graph.nx_graph
    order = {op.name: i for i, op in enumerate(graph)}
    pending = {n: g.in_degree(n) for n in g.nodes}
    ready = sorted((n for n, d in pending.items() if d == 0), key=order.__getitem__)
    overhead = calib.overhead_sync_s if inter == 1 else calib.overhead_pool_s
    # name -> [overhead left (s), serial work left (s)]
    running: dict[str, list[float]] = {}
    p = float(cpu.physical_cores)
    now = 0.0
    done = 0
    while done < len(graph):
        while ready and len(running) < inter:
            n = ready.pop(0)
            running[n] = [overhead, calib.t1_s[n]]
        computing = [n for n, s in running.items() if s[0] <= 0.0]
        demand = intra * len(computing)
        share = min(1.0, p / demand) if demand else 1.0
        eta = 1.0 if demand <= p else 1.0 / (1.0 + calib.kappa * (demand / p - 1.0))
        dts: dict[str, float] = {}
        rates: dict[str, float] = {}
        for n, (ov, work) in running.items():
            if ov > 0.0:
                dts[n] = ov
            else:
                rates[n] = _speedup(intra * share, calib.fraction[n]) * eta
                dts[n] = work / rates[n]
        dt = min(dts.values())
        now += dt
        finished = []
        for n, s in running.items():
            if s[0] > 0.0:
                s[0] -= dt
                if s[0] <= 1e-15:
                    s[0] = 0.0
                    if s[1] <= 0.0:
                        finished.append(n)
            else:
                s[1] -= dt * rates[n]
                if s[1] <= 1e-12 * max(calib.t1_s[n], 1e-12):
                    finished.append(n)
        for n in finished:
            del running[n]
            done += 1
            for succ in g.successors(n):
                pending[succ] -= 1
                if pending[succ] == 0:
                    ready.append(succ)
        ready.sort(key=order.__getitem__)
    if not math.isfinite(now):
        raise ConfigError(f"graph '{graph.name}' did not finish in the model", field="graph")
    return now
