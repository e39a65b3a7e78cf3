"""Speed of the SoC simulator (archsim.sim.soc).

Prints:

1. the event-engine choice: the same model (tiles through a shared DRAM and a pool of
   accelerators) on archsim's heapq engine and on SimPy, wall time and events per second;
2. ResNet-50 single-batch on ``soc_configs/smaug_baseline.toml`` (target: < 2 s on one core),
   wall time and simulated events per second;
3. wall time against network depth (ParaDnn residual CNNs, batch 1) and against the number of
   accelerators (ResNet-50);
4. ResNet-50 on ``soc_configs/dsl_soc.toml`` (accelerators compiled from the DSL): the
   one-off compile of the kernel in the process, then the simulation's wall time, against
   the SMAUG baseline's, with the energy per component;
5. the memory-system options on ResNet-50: double-buffered scratchpads and the LLC-footprint
   model of the coherent port (simulated latency and wall time, each SoC).

Run: ``python bench/soc_sim_speed.py`` (about half a minute). Section 1 needs SimPy
(``pip install 'archsim[bench]'``, or ``pip install simpy``); without it that section is
skipped with a message and the rest runs.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from archsim.compilers.graph import build_workload
from archsim.sim.soc import EventQueue, Server, load_soc_config, simulate

CONFIG = Path(__file__).resolve().parents[1] / "soc_configs" / "smaug_baseline.toml"
DSL_CONFIG = CONFIG.with_name("dsl_soc.toml")


_R = TypeVar("_R")


def _best(fn: Callable[[], _R], repeats: int = 3) -> tuple[float, _R]:
    """The best wall time of ``repeats`` calls and the last call's result."""
    t0 = time.perf_counter()
    out = fn()
    best = time.perf_counter() - t0
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def heapq_pipeline(tiles: int, accelerators: int) -> tuple[float, int]:
    """Each tile: load over the shared DRAM, compute on accelerator ``i % A``, store."""
    q = EventQueue()
    dram = Server(q, "dram")
    accs = [Server(q, f"acc{i}") for i in range(accelerators)]

    def load(i: int) -> None:
        dram.submit(1e-6, "data_transfer", 0, compute, i)

    def compute(i: int) -> None:
        accs[i % accelerators].submit(3e-6, "accelerator_compute", 0, store, i)

    def store(i: int) -> None:
        dram.submit(0.5e-6, "data_transfer", 0, lambda _: None)

    for i in range(tiles):
        q.at(0.0, load, i)
    q.run()
    return q.now, q.events


def simpy_pipeline(tiles: int, accelerators: int) -> tuple[float, int]:
    import simpy

    env = simpy.Environment()
    dram = simpy.Resource(env, capacity=1)
    accs = [simpy.Resource(env, capacity=1) for _ in range(accelerators)]

    def tile(i: int):
        with dram.request() as req:
            yield req
            yield env.timeout(1e-6)
        with accs[i % accelerators].request() as req:
            yield req
            yield env.timeout(3e-6)
        with dram.request() as req:
            yield req
            yield env.timeout(0.5e-6)

    for i in range(tiles):
        env.process(tile(i))
    steps = 0
    while True:
        try:
            env.step()
        except simpy.core.EmptySchedule:
            break
        steps += 1
    return env.now, steps


def main() -> None:
    print("== 1. event engine: heapq (archsim) vs SimPy, same tile pipeline ==")
    # SimPy is only the comparison point, not a dependency of archsim: skip when missing.
    have_simpy = importlib.util.find_spec("simpy") is not None
    if not have_simpy:
        print("skipped: SimPy is not installed (pip install 'archsim[bench]' or "
              "pip install simpy)")
    for tiles, accs in ((20000, 1), (20000, 8)) if have_simpy else ():
        tw_h, (end_h, ev_h) = _best(partial(heapq_pipeline, tiles, accs))
        tw_s, (end_s, ev_s) = _best(partial(simpy_pipeline, tiles, accs))
        print(f"tiles={tiles} accelerators={accs}: heapq {tw_h:.3f} s ({ev_h / tw_h:,.0f} "
              f"events/s), SimPy {tw_s:.3f} s ({ev_s / tw_s:,.0f} events/s), "
              f"SimPy/heapq wall = {tw_s / tw_h:.2f}x; simulated end "
              f"{end_h * 1e3:.3f} ms vs {end_s * 1e3:.3f} ms")

    cfg = load_soc_config(CONFIG)
    print("\n== 2. ResNet-50, batch 1, smaug_baseline.toml ==")
    t0 = time.perf_counter()
    graph = build_workload("resnet50")
    simulate(cfg, graph)
    print(f"first run in this process (graph build + cold tiling cache + simulation): "
          f"{time.perf_counter() - t0:.3f} s")
    wall, res = _best(lambda: simulate(cfg, graph))
    print(f"wall {wall:.3f} s (target < 2 s), {res.events} events, "
          f"{res.events / wall:,.0f} events/s, {len(graph)} operators, "
          f"{sum(o.tiles for o in res.operators)} tiles, simulated latency "
          f"{res.latency_s * 1e3:.2f} ms")

    print("\n== 3a. wall time vs depth (ParaDnn residual CNN, batch 1) ==")
    for blocks in (1, 2, 4, 8, 16):
        g = build_workload("paradnn-cnn", blocks=blocks, batch=1, dtype="fp16")
        wall, res = _best(partial(simulate, cfg, g))
        print(f"blocks/group={blocks:2d}: {len(g):4d} operators, {res.events:6d} events, "
              f"wall {wall:.3f} s, {wall / len(g) * 1e3:.2f} ms/operator")

    print("\n== 3b. wall time vs accelerators (ResNet-50) ==")
    for n in (1, 2, 4, 8, 16):
        c = cfg.with_changes(accelerators=n)
        wall, res = _best(partial(simulate, c, graph))
        print(f"accelerators={n:2d}: {res.events:6d} events, wall {wall:.3f} s, "
              f"simulated latency {res.latency_s * 1e3:.2f} ms")

    print("\n== 4. ResNet-50 on dsl_soc.toml (DSL GEMM-tile accelerators) ==")
    dsl = load_soc_config(DSL_CONFIG)
    t0 = time.perf_counter()
    first = simulate(dsl, graph)
    print(f"first run (kernel compiled to a Design once per process + simulation): "
          f"{time.perf_counter() - t0:.3f} s")
    wall, res = _best(lambda: simulate(dsl, graph))
    print(f"wall {wall:.3f} s, {res.events} events, {res.events / wall:,.0f} events/s, "
          f"simulated latency {res.latency_s * 1e3:.2f} ms "
          f"(accelerator share {res.accelerator_share:.1%}); same result as the first run: "
          f"{res.latency_s == first.latency_s}")
    for name, e_j in res.energy.components_j().items():
        print(f"  energy {name:20s} {e_j * 1e3:10.4f} mJ ({e_j / res.energy.total_j:6.1%})")

    print("\n== 5. memory-system options, ResNet-50 ==")
    for path in (CONFIG, CONFIG.with_name("systolic_soc.toml"), DSL_CONFIG):
        base = load_soc_config(path)
        variants = {"as described": base,
                    "double-buffered": base.with_changes(double_buffered=True),
                    "all ACP, LLC footprint": base.with_changes(policy="acp",
                                                                acp_hits="footprint"),
                    "all ACP, always hit": base.with_changes(policy="acp")}
        for label, c in variants.items():
            wall, res = _best(partial(simulate, c, graph))
            print(f"{path.stem:15s} {label:24s} latency {res.latency_s * 1e3:8.2f} ms, "
                  f"transfer {res.breakdown_s['data_transfer'] * 1e3:7.2f} ms, "
                  f"LLC misses {res.transfers.llc_miss_bytes / 1e6:7.1f} MB, wall {wall:.3f} s")


if __name__ == "__main__":
    main()
