"""Simulation speed of the systolic array under pysim and Verilator, and Verilator build times.

For 8x8 and 16x16 int8 output-stationary arrays (``archsim.hw.systolic.SystolicArray``):

- pysim, Python-driven: every input port gets a new random value every cycle; ``c_valid`` is
  recorded each cycle;
- pysim, free-running: inputs held, nothing recorded (``simulate(..., inputs of length 1,
  outputs=[])``);
- Verilator, Python-driven (cocotb writes every input and reads ``c_valid`` every cycle), and
  the same reading all R*C+1 outputs every cycle (what a matmul testbench does);
- Verilator, free-running (cocotb's C++ clock, no Python per cycle);
- Verilator build time into an empty cache, the cache lookup of an unchanged design, and the
  end-to-end overhead of a cached simulate call (simulator process start-up included).

Run: ``python bench/rtl_sim_speed.py [--quick] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from typing import Any

import numpy as np

__all__ = ["run_benchmark"]


def _random_inputs(array: Any, cycles: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    from archsim.sim.rtl._ports import component_ports

    inputs = {}
    for name, port in component_ports(array).items():
        if not port.is_input:
            continue
        if port.width == 1:
            inputs[name] = rng.integers(0, 2, cycles)
        else:
            inputs[name] = rng.integers(-(1 << (port.width - 1)), 1 << (port.width - 1), cycles)
    inputs["valid"] = np.ones(cycles, dtype=np.int64)
    return inputs


def run_benchmark(*, sizes: tuple[int, ...] = (8, 16), quick: bool = False,
                  seed: int = 0) -> list[dict[str, Any]]:
    """Measure every configuration; returns one row per (size, mode)."""
    from archsim.hw.systolic import SystolicArray
    from archsim.sim.rtl import simulate, to_verilog
    from archsim.sim.rtl._verilator import ensure_build

    scale = 0.1 if quick else 1.0
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []

    def record(size: int, mode: str, result=None, **extra: Any) -> None:
        row: dict[str, Any] = {"array": f"{size}x{size}", "mode": mode}
        if result is not None:
            row.update(cycles=result.cycles, wall_time_s=result.wall_time_s,
                       cycles_per_s=result.cycles_per_s)
        row.update(extra)
        rows.append(row)
        print(f"  {row}", flush=True)

    for size in sizes:
        array = SystolicArray(rows=size, cols=size, dataflow="os")
        name = f"bench_sa_{size}x{size}"
        per_cycle = max(int((40_000 if size <= 8 else 20_000) * scale), 100)
        pysim_cycles = max(int((3_000 if size <= 8 else 1_000) * scale), 50)
        free_cycles = max(int((1_000_000 if size <= 8 else 300_000) * scale), 1000)
        driven = _random_inputs(array, per_cycle, rng)
        held = {port: values[:1] for port, values in driven.items()}

        print(f"{size}x{size}: pysim", flush=True)
        record(size, "pysim, driven every cycle",
               simulate(array, {k: v[:pysim_cycles] for k, v in driven.items()}, ["c_valid"]))
        record(size, "pysim, free-running",
               simulate(array, held, [], cycles=pysim_cycles * 4))

        print(f"{size}x{size}: Verilator build into an empty cache", flush=True)
        with tempfile.TemporaryDirectory(prefix="archsim-bench-cache-") as cache:
            previous = os.environ.get("ARCHSIM_CACHE")
            os.environ["ARCHSIM_CACHE"] = cache
            try:
                first = simulate(array, held, ["c_valid"], cycles=10, backend="verilator",
                                 name=name)
                verilog = to_verilog(array, name=name)
                start = time.perf_counter()
                hit = ensure_build(verilog, toplevel=name)
                lookup_s = time.perf_counter() - start
                assert hit.cached
                cached = simulate(array, held, ["c_valid"], cycles=10, backend="verilator",
                                  name=name)
                record(size, "Verilator build (empty cache)", build_time_s=first.build_time_s)
                record(size, "Verilator cached build lookup", build_time_s=lookup_s)
                record(size, "Verilator cached simulate, 10 cycles end-to-end",
                       build_time_s=cached.build_time_s, total_time_s=cached.total_time_s)

                print(f"{size}x{size}: Verilator runs", flush=True)
                record(size, "Verilator, driven every cycle",
                       simulate(array, driven, ["c_valid"], backend="verilator", name=name))
                record(size, "Verilator, driven, all outputs read every cycle",
                       simulate(array, driven, None, backend="verilator", name=name))
                record(size, "Verilator, free-running",
                       simulate(array, held, [], cycles=free_cycles, backend="verilator",
                                name=name))
            finally:
                if previous is None:
                    os.environ.pop("ARCHSIM_CACHE", None)
                else:
                    os.environ["ARCHSIM_CACHE"] = previous
    return rows


def _print_table(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="RTL simulation speed: int8 output-stationary systolic array")
    for column in ("array", "mode", "cycles", "cycles/s", "time"):
        table.add_column(column, justify="left" if column in ("array", "mode") else "right")
    for row in rows:
        if "cycles_per_s" in row:
            table.add_row(row["array"], row["mode"], f"{row['cycles']:,}",
                          f"{row['cycles_per_s']:,.0f}", f"{row['wall_time_s']:.3f} s")
        elif "total_time_s" in row:
            table.add_row(row["array"], row["mode"], "", "", f"{row['total_time_s']:.3f} s")
        else:
            table.add_row(row["array"], row["mode"], "", "", f"{row['build_time_s']:.3f} s")
    Console().print(table)
    by_array: dict[str, dict[str, float]] = {}
    for row in rows:
        if "cycles_per_s" in row:
            by_array.setdefault(row["array"], {})[row["mode"]] = row["cycles_per_s"]
    for array, speeds in by_array.items():
        base = speeds["pysim, driven every cycle"]
        ratios = ", ".join(f"{mode}: {speed / base:,.1f}x" for mode, speed in speeds.items()
                           if not mode.startswith("pysim, driven"))
        print(f"{array} speed-up over pysim driven every cycle: {ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer cycles")
    parser.add_argument("--sizes", default="8,16", help="array sizes, comma separated")
    parser.add_argument("--json", help="also write the rows as JSON")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    rows = run_benchmark(sizes=sizes, quick=args.quick)
    _print_table(rows)
    if args.json:
        from archsim.outputs import write_json

        write_json(args.json, rows)


if __name__ == "__main__":
    main()
