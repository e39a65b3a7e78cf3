"""Simulation speed of the systolic array under pysim and Verilator, and Verilator build times.

For 8x8 and 16x16 int8 output-stationary arrays (``archsim.hw.systolic.SystolicArray``):

- pysim, Python-driven: every input port gets a new random value every cycle; ``c_valid`` is
  recorded each cycle;
- pysim, free-running: inputs held, nothing recorded (``simulate(..., inputs of length 1,
  outputs=[])``);
- cocotb (``simulate(..., backend="cocotb")``, Python-driven: cocotb writes every input and
  reads ``c_valid`` every cycle), and the same reading all R*C+1 outputs every cycle (what a
  matmul testbench does); cocotb free-running (its C++ clock, no Python per cycle);
- verilator: ``simulate(..., backend="verilator")``, the stimulus streamed in chunks of 4096
  cycles through a pipe into the C++ main's ring buffer and the outputs streamed back
  (``archsim.sim.rtl.native_stream``; -O3, no VPI), driven every cycle with ``c_valid``
  recorded, with every output recorded, and free-running;
- a long streamed run (10 M cycles; 1 M with ``--quick``) from a lazy generator
  (``simulate_stream``: per-cycle random inputs, chunks drawn from a pool of 16 pre-generated
  random chunks so that producing them costs the benchmark next to nothing; ``c_valid``
  sent back and consumed chunk by chunk, its first period checked against ``simulate()``), in
  a fresh Python process: its cycles/s, the harness's and the Python process's peak RSS
  (VmHWM), beside the
  same at a tenth of the cycles -- bounded memory means the two are about equal. The one-file
  ``"native"`` path would need a job file of (input bytes per cycle) x cycles instead;
- native: ``simulate(..., backend="native")``, the whole stimulus handed to a generated C++
  Verilator main in bulk (``archsim.sim.rtl.native_bulk``; -O3, no VPI), driven every cycle
  with ``c_valid`` recorded, with every output recorded, and free-running;
- a hand-written C++ Verilator main (:data:`HANDWRITTEN_MAIN`, built with the same flags):
  the same per-cycle vectors loaded from a file into memory before its timed loop, every
  input port assigned directly each cycle, ``c_valid`` stored each cycle, ``rst`` a top-level
  input; and the same main on the native backend's reset register (``rst`` driven from a
  register, as ``archsim.sim.rtl.native`` wraps designs). Its ``c_valid`` must equal the
  native backend's, cycle for cycle;
- Verilator build time into an empty cache (cocotb, streaming and native builds), the cache
  lookup of an
  unchanged design, and the end-to-end overhead of a cached simulate call (simulator process
  start-up included).

Every C++ loop is timed inside its executable (``std::chrono``; the streaming loop includes
its waits for stimulus), cocotb's inside the simulator; "end-to-end" adds Verilog generation,
stimulus checks, files and process start-up. The streamed, native and hand-written runs are
repeated ``--repeat`` times (default 3), interleaved, and the fastest is kept (the spread,
min..max, is printed too, with the 1-minute load average at the time): on the shared 2-core
machines one run's speed varies by 2x with load.
Printed besides the table: each mode's speed over pysim's and over the hand-written main's.

Run: ``python bench/rtl_sim_speed.py [--quick] [--sizes 8] [--json out.json]``. The full 8x8
run of 2026-12-04 (machine loaded, 1-minute load 9-11) is in ``bench/data/rtl_sim_speed_8x8.json``
(rows) and ``bench/data/rtl_sim_speed_8x8.txt`` (what it printed), made by
``python bench/rtl_sim_speed.py --sizes 8 --repeat 3 --json bench/data/rtl_sim_speed_8x8.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["run_benchmark", "HANDWRITTEN_MAIN", "handwritten_main"]

#: The hand-written main's skeleton; :func:`handwritten_main` fills in the port assignments
#: (argv: vectors file of uint8 columns, cycles, output file of one c_valid byte per cycle;
#: prints the loop's nanoseconds).
HANDWRITTEN_MAIN = r"""
#include "Vhand.h"
#include "verilated.h"
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) return 2;
    const uint64_t cycles = std::strtoull(argv[2], nullptr, 10);
    std::vector<uint8_t> in(N_INPUTS * cycles), rec(cycles);
    std::FILE* f = std::fopen(argv[1], "rb");
    if (!f || std::fread(in.data(), 1, in.size(), f) != in.size()) return 3;
    std::fclose(f);
    VerilatedContext context;
    Vhand* top = new Vhand(&context);
    auto start = std::chrono::steady_clock::now();
    top->clk = 0; top->rst = 1; top->eval(); top->clk = 1; top->eval(); top->rst = 0;
#ifdef ARCHSIM_RESET_REGISTER
    top->clk = 0; top->eval(); top->clk = 1; top->eval();  // rst reaches the design
#endif
    for (uint64_t k = 0; k < cycles; ++k) {
ASSIGNMENTS
        top->clk = 0; top->eval();
        rec[k] = top->c_valid;
        top->clk = 1; top->eval();
    }
    auto stop = std::chrono::steady_clock::now();
    top->final();
    delete top;
    std::FILE* out = std::fopen(argv[3], "wb");
    std::fwrite(rec.data(), 1, rec.size(), out);
    std::fclose(out);
    std::printf("%llu\n", (unsigned long long)std::chrono::duration_cast<
        std::chrono::nanoseconds>(stop - start).count());
    return 0;
}
"""


def _verilator_name(port: str) -> str:
    # Verilator encodes the second '_' of a "__" pair as "__05F" (a___05F0 for a__0).
    out, previous = [], ""
    for char in port:
        out.append("__05F" if char == "_" and previous == "_" else char)
        previous = char
    return "".join(out)


def handwritten_main(input_ports: list[str]) -> str:
    """The hand-written main for a design whose inputs (all up to 8 bits) are ``input_ports``."""
    lines = [f"        top->{_verilator_name(name)} = in[{i}ull * cycles + k];"
             for i, name in enumerate(input_ports)]
    return (HANDWRITTEN_MAIN.replace("ASSIGNMENTS", "\n".join(lines))
            .replace("N_INPUTS", f"{len(input_ports)}ull"))


def _build_handwritten(verilog: str, toplevel: str, main_cpp: str, *,
                       reset_register: bool) -> tuple[Path, float]:
    from archsim.cache import content_hash
    from archsim.sim.rtl._build_cache import cached_build
    from archsim.sim.rtl._toolchain import find_toolchain, verilator_env, verilator_version
    from archsim.sim.rtl._verilator import _compile_error
    from archsim.sim.rtl.native import NATIVE_FLAGS, _module_ports, reset_wrapper

    model, wrapper, extra = toplevel, "", []
    if reset_register:
        model, wrapper = reset_wrapper(_module_ports(verilog, toplevel), toplevel)
        extra = [f"{model}.v", "-CFLAGS", "-DARCHSIM_RESET_REGISTER"]

    def build(folder: Path) -> None:
        (folder / f"{toplevel}.v").write_text(verilog)
        if wrapper:
            (folder / f"{model}.v").write_text(wrapper)
        (folder / "main.cpp").write_text(main_cpp)
        with verilator_env(find_toolchain(compiler=True, embed_python=False)):
            done = subprocess.run(["verilator", *NATIVE_FLAGS, "--top-module", model,
                                   "--prefix", "Vhand", "--Mdir", ".", "-o", "handwritten",
                                   f"{toplevel}.v", *extra, "main.cpp"],
                                  cwd=folder, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise _compile_error(verilog, done.stdout + done.stderr, toplevel)

    key = content_hash(verilog, main_cpp, wrapper, " ".join(NATIVE_FLAGS), verilator_version())
    entry = cached_build(kind="native-bench", key=key, product="handwritten", build=build)
    return entry.path / "handwritten", entry.build_time_s


def _run_handwritten(exe: Path, columns: np.ndarray) -> tuple[np.ndarray, float]:
    """Run a hand-written main on uint8 ``columns`` (inputs x cycles): (c_valid, seconds)."""
    with tempfile.TemporaryDirectory(prefix="archsim-bench-") as tmp:
        vectors, out = Path(tmp) / "in.bin", Path(tmp) / "out.bin"
        np.ascontiguousarray(columns, dtype=np.uint8).tofile(vectors)
        done = subprocess.run([str(exe), str(vectors), str(columns.shape[1]), str(out)],
                              capture_output=True, text=True, check=True)
        recorded = np.fromfile(out, dtype=np.uint8).astype(np.int64)
    return recorded, int(done.stdout.split()[0]) * 1e-9


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
                  seed: int = 0, repeat: int = 3) -> list[dict[str, Any]]:
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
                       cycles_per_s=result.cycles_per_s, total_time_s=result.total_time_s)
        row.update(extra)
        row["load_1min"] = os.getloadavg()[0]
        rows.append(row)
        print(f"  {row}", flush=True)

    for size in sizes:
        array = SystolicArray(rows=size, cols=size, dataflow="os")
        name = f"bench_sa_{size}x{size}"
        per_cycle = max(int((40_000 if size <= 8 else 20_000) * scale), 100)
        pysim_cycles = max(int((3_000 if size <= 8 else 1_000) * scale), 50)
        free_cycles = max(int((1_000_000 if size <= 8 else 300_000) * scale), 1000)
        native_cycles = max(int((1_000_000 if size <= 8 else 300_000) * scale), 1000)
        driven = _random_inputs(array, per_cycle, rng)
        held = {port: values[:1] for port, values in driven.items()}
        bulk = _random_inputs(array, native_cycles, rng)

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
                first = simulate(array, held, ["c_valid"], cycles=10, backend="cocotb",
                                 name=name)
                verilog = to_verilog(array, name=name)
                start = time.perf_counter()
                hit = ensure_build(verilog, toplevel=name)
                lookup_s = time.perf_counter() - start
                assert hit.cached
                cached = simulate(array, held, ["c_valid"], cycles=10, backend="cocotb",
                                  name=name)
                record(size, "cocotb build (empty cache)", build_time_s=first.build_time_s)
                record(size, "cocotb cached build lookup", build_time_s=lookup_s)
                record(size, "cocotb cached simulate, 10 cycles end-to-end",
                       build_time_s=cached.build_time_s, total_time_s=cached.total_time_s)

                print(f"{size}x{size}: cocotb runs", flush=True)
                by_cocotb = simulate(array, driven, ["c_valid"], backend="cocotb", name=name)
                record(size, "cocotb, driven every cycle", by_cocotb)
                record(size, "cocotb, driven, all outputs read every cycle",
                       simulate(array, driven, None, backend="cocotb", name=name))
                record(size, "cocotb, free-running",
                       simulate(array, held, [], cycles=free_cycles, backend="cocotb",
                                name=name))

                print(f"{size}x{size}: verilator (streamed C++) runs", flush=True)
                stream_first = simulate(array, {k: v[:10] for k, v in bulk.items()},
                                        ["c_valid"], backend="verilator", name=name)
                record(size, "verilator (streamed) build (empty cache)",
                       build_time_s=stream_first.build_time_s)
                same_stim = simulate(array, driven, ["c_valid"], backend="verilator", name=name)
                stream_equals_cocotb = bool(np.array_equal(same_stim.outputs["c_valid"],
                                                           by_cocotb.outputs["c_valid"]))

                print(f"{size}x{size}: native (bulk C++) runs", flush=True)
                native = simulate(array, {k: v[:10] for k, v in bulk.items()}, ["c_valid"],
                                  backend="native", name=name)
                record(size, "native build (empty cache)", build_time_s=native.build_time_s)
                verilog = to_verilog(array, name=name)
                ports = list(bulk)
                columns = np.stack([np.asarray(bulk[p]).astype(np.int64) & 0xFF for p in ports])
                main_cpp = handwritten_main(ports)
                mains = {"hand-written main, driven every cycle": False,
                         "hand-written main + reset register, driven every cycle": True}
                exes = {mode: _build_handwritten(verilog, name, main_cpp, reset_register=reg)
                        for mode, reg in mains.items()}
                free = {k: v[:1] for k, v in bulk.items()}
                runs = {"verilator (streamed), driven every cycle":
                        ("verilator", bulk, ["c_valid"], None),
                        "verilator (streamed), driven, all outputs read every cycle":
                        ("verilator", bulk, None, None),
                        "verilator (streamed), free-running":
                        ("verilator", free, [], native_cycles),
                        "native (one file), driven every cycle":
                        ("native", bulk, ["c_valid"], None),
                        "native (one file), driven, all outputs read every cycle":
                        ("native", bulk, None, None),
                        "native (one file), free-running": ("native", free, [], native_cycles)}
                best: dict[str, Any] = {}
                spread: dict[str, list[float]] = {}
                loads: dict[str, list[float]] = {}
                hand: dict[str, tuple[np.ndarray, float]] = {}
                for _ in range(max(repeat, 1)):
                    for mode, (backend, stim, outs, n) in runs.items():
                        got = simulate(array, stim, outs, cycles=n, backend=backend, name=name)
                        spread.setdefault(mode, []).append(got.cycles_per_s)
                        loads.setdefault(mode, []).append(os.getloadavg()[0])
                        if mode not in best or got.wall_time_s < best[mode].wall_time_s:
                            best[mode] = got
                    for mode, (exe, _build_s) in exes.items():
                        c_valid, wall_s = _run_handwritten(exe, columns)
                        spread.setdefault(mode, []).append(native_cycles / wall_s)
                        loads.setdefault(mode, []).append(os.getloadavg()[0])
                        if mode not in hand or wall_s < hand[mode][1]:
                            hand[mode] = (c_valid, wall_s)

                def ranges(mode: str, spread: dict[str, list[float]] = spread,
                           loads: dict[str, list[float]] = loads) -> dict[str, Any]:
                    return {"repeats": len(spread[mode]),
                            "cycles_per_s_min": min(spread[mode]),
                            "cycles_per_s_max": max(spread[mode]),
                            "load_1min_range": (min(loads[mode]), max(loads[mode]))}

                native = best["native (one file), driven every cycle"]
                for mode, got in best.items():
                    checks: dict[str, Any] = {}
                    if mode == "verilator (streamed), driven every cycle":
                        checks = {"c_valid_equals_native": bool(np.array_equal(
                                      got.outputs["c_valid"], native.outputs["c_valid"])),
                                  "c_valid_equals_cocotb_on_the_cocotb_stimulus":
                                      stream_equals_cocotb}
                    record(size, mode, got, **ranges(mode), **checks)
                for mode, (c_valid, wall_s) in hand.items():
                    same = bool(np.array_equal(c_valid, native.outputs["c_valid"]))
                    record(size, mode, build_time_s=exes[mode][1], cycles=native_cycles,
                           wall_time_s=wall_s, cycles_per_s=native_cycles / wall_s,
                           c_valid_equals_native=same, **ranges(mode))

                print(f"{size}x{size}: long streamed runs (bounded memory)", flush=True)
                long_cycles = 10_000_000 if not quick else 1_000_000
                for n in (long_cycles // 10, long_cycles):
                    record(size, f"verilator (streamed) long run, {n:,} cycles, lazy generator",
                           **_long_run_in_child(size, name, n))
            finally:
                if previous is None:
                    os.environ.pop("ARCHSIM_CACHE", None)
                else:
                    os.environ["ARCHSIM_CACHE"] = previous
    return rows


def _peak_rss_bytes() -> int:
    """This process's peak resident memory: VmHWM, which exec resets (``ru_maxrss`` keeps the
    forking parent's peak, here the benchmark's own arrays)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _long_run(size: int, name: str, cycles: int, seed: int = 0) -> dict[str, Any]:
    """One long :func:`~archsim.sim.rtl.native_stream.simulate_stream` run of the array,
    in this process (the caller's fresh one): speed and both processes' peak memory."""
    from archsim.hw.systolic import SystolicArray
    from archsim.sim.rtl import simulate
    from archsim.sim.rtl.native_stream import CHUNK_CYCLES, simulate_stream

    rng = np.random.default_rng(seed)
    chunk = CHUNK_CYCLES
    pool = [_random_inputs(SystolicArray(rows=size, cols=size, dataflow="os"), chunk, rng)
            for _ in range(16)]
    order = [int(i) for i in rng.integers(0, len(pool), 64)]
    period = len(order) * chunk
    # The check: the streamed run's c_valid over its first period equals simulate()'s (same
    # build, whole stimulus at once) on those cycles; beyond it the outputs are counted and
    # dropped, as a long testbench consuming them would.
    first = {port: np.concatenate([pool[i][port] for i in order])[:cycles] for port in pool[0]}
    want = simulate(SystolicArray(rows=size, cols=size, dataflow="os"), first, ["c_valid"],
                    backend="verilator", name=name).outputs["c_valid"]
    before = _peak_rss_bytes()

    def chunks() -> Any:
        done = 0
        while done < cycles:
            n = min(chunk, cycles - done)
            yield {port: values[:n]
                   for port, values in pool[order[(done // chunk) % len(order)]].items()}
            done += n

    seen = {"cycles": 0, "ones": 0, "first_period_equal": True}

    def take(outputs: dict[str, np.ndarray]) -> None:
        got = outputs["c_valid"]
        at = int(seen["cycles"])
        if at < period:
            head = want[at:at + len(got)]
            seen["first_period_equal"] = bool(seen["first_period_equal"]) and bool(
                np.array_equal(got[:len(head)], head))
        seen["cycles"] = at + len(got)
        seen["ones"] = int(seen["ones"]) + int(got.sum())

    result = simulate_stream(SystolicArray(rows=size, cols=size, dataflow="os"), chunks(),
                             outputs=["c_valid"], on_outputs=take, name=name)
    after = _peak_rss_bytes()
    return {"cycles": result.cycles, "wall_time_s": result.wall_time_s,
            "cycles_per_s": result.cycles_per_s, "total_time_s": result.total_time_s,
            "harness_peak_rss_mb": result.harness_peak_rss_bytes / 2**20,
            "python_peak_rss_mb": after / 2**20,
            "python_peak_rss_before_run_mb": before / 2**20,
            "c_valid_first_period_equals_simulate": seen["first_period_equal"],
            "c_valid_ones": seen["ones"],
            "one_file_job_would_be_mb": cycles * len(pool[0]) / 2**20}


def _long_run_in_child(size: int, name: str, cycles: int) -> dict[str, Any]:
    """:func:`_long_run` in a fresh Python process (peak RSS is per process and monotonic)."""
    done = subprocess.run([sys.executable, __file__, "--long-run-child",
                           json.dumps([size, name, cycles])],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the long run failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _print_table(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="RTL simulation speed: int8 output-stationary systolic array")
    for column in ("array", "mode", "cycles", "cycles/s", "time", "end-to-end"):
        table.add_column(column, justify="left" if column in ("array", "mode") else "right")
    for row in rows:
        end = f"{row['total_time_s']:.3f} s" if "total_time_s" in row else ""
        if "cycles_per_s" in row:
            table.add_row(row["array"], row["mode"], f"{row['cycles']:,}",
                          f"{row['cycles_per_s']:,.0f}", f"{row['wall_time_s']:.3f} s", end)
        elif "total_time_s" in row:
            table.add_row(row["array"], row["mode"], "", "", "", end)
        else:
            table.add_row(row["array"], row["mode"], "", "", f"{row['build_time_s']:.3f} s", "")
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
        limit = speeds.get("hand-written main, driven every cycle")
        if limit:
            shares = ", ".join(f"{mode}: {speed / limit:.2f}" for mode, speed in speeds.items()
                               if not mode.startswith("hand-written main, driven"))
            print(f"{array} cycles/s over the hand-written main's: {shares}")
    for row in rows:
        if "harness_peak_rss_mb" in row:
            print(f"{row['array']} {row['mode']}: {row['cycles_per_s']:,.0f} cycles/s, peak "
                  f"RSS harness {row['harness_peak_rss_mb']:.1f} MB, Python "
                  f"{row['python_peak_rss_mb']:.1f} MB (before the run "
                  f"{row['python_peak_rss_before_run_mb']:.1f} MB); a one-file job would be "
                  f"{row['one_file_job_would_be_mb']:,.0f} MB of inputs; c_valid over the "
                  f"first period equals simulate()'s: "
                  f"{row['c_valid_first_period_equals_simulate']}")
    for row in rows:
        if "cycles_per_s_min" in row:
            print(f"{row['array']} {row['mode']}: {row['repeats']} runs, "
                  f"{row['cycles_per_s_min']:,.0f}..{row['cycles_per_s_max']:,.0f} cycles/s, "
                  f"load {row['load_1min_range'][0]:.2f}..{row['load_1min_range'][1]:.2f}")
    for row in rows:
        if "c_valid_equals_cocotb_on_the_cocotb_stimulus" in row:
            print(f"{row['array']} {row['mode']}: c_valid equals cocotb's on the same "
                  f"stimulus: {row['c_valid_equals_cocotb_on_the_cocotb_stimulus']}")
    for row in rows:
        if "c_valid_equals_native" in row:
            print(f"{row['array']} {row['mode']}: c_valid equals the native backend's: "
                  f"{row['c_valid_equals_native']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer cycles")
    parser.add_argument("--sizes", default="8,16", help="array sizes, comma separated")
    parser.add_argument("--json", help="also write the rows as JSON")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each native and hand-written mode (the fastest is kept)")
    parser.add_argument("--long-run-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.long_run_child:
        size, name, cycles = json.loads(args.long_run_child)
        print(json.dumps(_long_run(size, name, cycles)))
        return
    sizes = tuple(int(s) for s in args.sizes.split(","))
    rows = run_benchmark(sizes=sizes, quick=args.quick, repeat=args.repeat)
    _print_table(rows)
    if args.json:
        from archsim.outputs import write_json

        write_json(args.json, rows)


if __name__ == "__main__":
    main()
