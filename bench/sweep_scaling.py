"""Sweep engine scaling: points/s in-process vs a Dask LocalCluster of 2 workers, and overhead.

Run: ``python bench/sweep_scaling.py [--quick]``.

Measures, for five point costs:

- ``minilm`` -- gpu-roofline over MiniLM-L6 (62 operators, ~1-2 ms a point: the cheap
  analytical runs a design-space sweep is made of);
- ``llama-7b`` -- gpu-roofline over LLaMA-7B (322 operators, ~5 ms a point);
- ``null`` -- a model that returns at once: the engine's own cost per point (expanding
  and hashing the points, storing results, scheduling);
- ``soc`` -- the SoC simulator (SMAUG baseline SoC, MiniLM-L6 inference; accelerator
  count x host-memory policy x data-prep threads), ~0.2 s a point;
- ``compute-50ms`` -- a point that really computes ~50 ms (eigenvalues of a seeded random
  symmetric matrix, single-threaded BLAS), for the < 5 % overhead requirement.

Overhead is engine time per point: ``(wall_s * workers - compute_s) / points`` where
``compute_s`` sums the model calls' own durations measured on the workers. For 2 workers it
is reported with the cluster already started (a client passed in) and, separately, the
cluster start-up time. Wall-clock figures depend on what else the machine runs; the
"extra CPU" column (CPU seconds of the client and worker processes beyond those of the
in-process run, per point; psutil) does not, and is the better measure of what the
distributed engine costs on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

# Single-threaded BLAS everywhere (Dask workers do the same), so in-process and worker
# points cost the same.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# Workers import this file as the module ``sweep_scaling`` to find compute_point.
_HERE = str(Path(__file__).resolve().parent)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_HERE, os.environ.get("PYTHONPATH", "")) if p)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import numpy as np  # noqa: E402
from pydantic import BaseModel, ConfigDict  # noqa: E402

__all__ = ["ComputeParams", "compute_point", "main"]


class ComputeParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    n: int = 560
    index: int = 0


def calibrate_n(target_s: float = 0.06) -> int:
    """Matrix size whose eigenvalues take about ``target_s`` of CPU time (median of 5 runs;
    CPU, not wall, time so that other jobs on the machine do not change the calibration)."""
    n = 400
    for _ in range(4):
        times = []
        for i in range(5):
            t = time.process_time()
            compute_point({"n": n, "index": i}, i)
            times.append(time.process_time() - t)
        n = max(64, int(n * (target_s / sorted(times)[2]) ** (1 / 3)))
    return n


def compute_point(params, seed):
    """Smallest and largest eigenvalue of a seeded random symmetric ``n x n`` matrix."""
    p = ComputeParams.model_validate(params)
    a = np.random.default_rng(seed).standard_normal((p.n, p.n))
    w = np.linalg.eigvalsh(a + a.T)
    return {"lambda_min": float(w[0]), "lambda_max": float(w[-1])}


def null_point(params, seed):
    """No work at all: what is left of a sweep is the engine's own cost."""
    return {"lambda_min": 0.0, "lambda_max": 0.0}


def _spec(kind: str, n_points: int, *, matrix_n: int = 560):
    from archsim.sim.sweep import SweepSpec

    if kind == "null":
        return SweepSpec.from_dict({"name": kind, "model": "bench-null", "parameters": {
            "index": {"values": list(range(n_points))}}})
    if kind == "soc":
        threads = [1, 2, 4, 8][:max(1, n_points // 8)]
        return SweepSpec.from_dict({
            "name": kind, "model": "soc",
            "fixed": {"config": "smaug_baseline", "workload": "minilm-l6"},
            "parameters": {"accelerators": {"values": [1, 2, 4, 8]},
                           "policy": {"values": ["dma", "acp"]},
                           "threads": {"values": threads}}})
    if kind == "compute-50ms":
        return SweepSpec.from_dict({"name": kind, "model": "bench-compute",
                                    "fixed": {"n": matrix_n}, "parameters": {
                                        "index": {"values": list(range(n_points))}}})
    model = "minilm-l6" if kind == "minilm" else "llama-7b"
    batches = list(range(1, n_points // 4 + 1))
    return SweepSpec.from_dict({
        "name": kind, "model": "gpu-roofline", "fixed": {"model": model, "new_tokens": 1},
        "parameters": {"batch": {"values": batches},
                       "context_len": {"values": [128, 512, 1024, 2048]}}})


def _cpu_s() -> float:
    """CPU seconds used so far by this process and its children (the Dask worker processes)."""
    import psutil

    total = time.process_time()
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
            total += t.user + t.system
        except psutil.Error:  # a process that just exited
            pass
    return total


def _run(spec, **kw):
    """Run a sweep into a scratch database; return its report and the CPU seconds it used."""
    from archsim.sim.sweep import run_sweep

    with tempfile.TemporaryDirectory() as tmp:
        cpu = _cpu_s()
        report = run_sweep(spec, db=Path(tmp) / "bench.db", **kw)
        return report, _cpu_s() - cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer points")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    parser.add_argument("--only", default=None, help="run only this case (e.g. compute-50ms)")
    args = parser.parse_args(argv)

    from distributed import Client

    from archsim.sim.sweep import local_cluster, register_model

    register_model("bench-compute", function="sweep_scaling:compute_point",
                   params=ComputeParams, objectives=("lambda_min", "lambda_max"), replace=True)
    register_model("bench-null", function="sweep_scaling:null_point",
                   params=ComputeParams, objectives=("lambda_min", "lambda_max"), replace=True)
    scale = 4 if args.quick else 1
    cases = [("null", 4000 // scale), ("minilm", 1600 // scale), ("llama-7b", 400 // scale),
             ("soc", 32 // scale), ("compute-50ms", 80 // scale)]

    t0 = time.perf_counter()
    cluster = local_cluster(2)  # the LocalCluster `archsim sweep --workers 2` starts
    client = Client(cluster)
    startup_s = time.perf_counter() - t0
    client.run(lambda: __import__("archsim.sim.sweep"))  # warm the workers' imports
    print(f"LocalCluster(2 worker processes) start-up: {startup_s:.2f} s  "
          f"(os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()[0]:.2f})")
    time.sleep(1.0)
    t, cpu = time.perf_counter(), _cpu_s()
    time.sleep(3.0)
    idle = (_cpu_s() - cpu) / (time.perf_counter() - t)
    print(f"idle cluster + client: {100 * idle:.1f}% of one core (CPU time while no task runs)")
    fixed = min(_run(_spec("null", 1), workers=0)[0].wall_s for _ in range(5))
    print(f"fixed cost of a sweep (open the database, record the spec, close): "
          f"{1e3 * fixed:.1f} ms")
    print(f"best of {args.repeat} runs. overhead = wall x workers - sum of the points' own run "
          f"times ('marginal': minus the fixed cost); extra CPU = CPU seconds of all processes "
          f"(client + workers) beyond the in-process run, per point, and as a share of a point's "
          f"CPU time in-process -- unlike wall times it does not depend much on what else the "
          f"machine runs")
    header = (f"{'points':>13} {'n':>5} {'mode':>10} {'wall s':>7} {'pts/s':>8} "
              f"{'ms/point':>9} {'overhead ms/pt':>15} {'overhead':>9} {'marginal':>9} "
              f"{'extra CPU ms/pt':>16} {'extra CPU':>10}")
    print(header)
    print("-" * len(header))
    if args.only:
        cases = [(k, n) for k, n in cases if k == args.only]
    matrix_n = calibrate_n()
    print(f"compute-50ms: {matrix_n} x {matrix_n} symmetric eigenproblems (calibrated to ~60 ms "
          f"of CPU time)")
    try:
        for kind, n in cases:
            spec = _spec(kind, n, matrix_n=matrix_n)
            _run(spec, workers=0)  # warm-up: imports and caches, here and in the workers
            _run(spec, client=client)
            local, local_cpu = min((_run(spec, workers=0) for _ in range(args.repeat)),
                                   key=lambda rc: rc[0].wall_s)
            dist, dist_cpu = min((_run(spec, client=client) for _ in range(args.repeat)),
                                 key=lambda rc: rc[0].wall_s)
            for label, r, cpu in (("in-process", local, local_cpu), ("2 workers", dist, dist_cpu)):
                per_point_ms = 1e3 * r.compute_s / r.computed
                over_ms = 1e3 * r.overhead_per_point_s
                marginal_ms = over_ms - 1e3 * fixed * r.workers / r.computed
                extra_ms = 1e3 * (cpu - local_cpu) / r.computed
                if kind == "null":
                    shares = f"{'':>9} {'':>9}"
                    extra = f"{extra_ms:>16.3f} {'':>10}"
                else:
                    cpu_ms = 1e3 * local_cpu / local.computed  # CPU of a point in-process
                    shares = (f"{100 * over_ms / per_point_ms:>8.1f}% "
                              f"{100 * marginal_ms / per_point_ms:>8.1f}%")
                    extra = f"{extra_ms:>16.3f} {100 * extra_ms / cpu_ms:>9.1f}%"
                print(f"{kind:>13} {r.computed:>5} {label:>10} {r.wall_s:>7.2f} "
                      f"{r.points_per_s:>8.1f} {per_point_ms:>9.3f} {over_ms:>15.3f} {shares} "
                      f"{extra}")
            print(f"{'':>13} speed-up 2 workers / in-process: "
                  f"{dist.points_per_s / local.points_per_s:.2f}x "
                  f"({dist.tasks} tasks, at most {dist.points_per_task} points each)")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
