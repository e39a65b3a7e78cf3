"""Run-to-done speed of a bus-attached 256-MAC accelerator: run_native vs a hand-written main.

The default design (:class:`SystolicAccel`) is a 16x16 int8 output-stationary
``archsim.hw.systolic.SystolicArray`` (256 MACs) on the host bus of BUS.md, fed by a small
sequencer written here: buffer A (region 2, 16 banks, element ``k*16 + i`` = ``A[i, k]``),
buffer B (region 3, element ``k*16 + j`` = ``B[k, j]``) and buffer C (region 4, element
``i*16 + j`` = ``C[i, j]``, 32-bit); CSRs CTRL (0) and CYCLES (1) as BUS.md has them, and
K (5, the reduction length) and REPS (6, folds per go). A go runs REPS back-to-back folds of
``C = A @ B`` (each streams K operand pairs, the array never idles between folds), drains the
last tile into C and raises irq.

The job: write A and B, set K and REPS, then ITERATIONS times (go, wait for irq), then read C
and CYCLES back. It runs under

- ``archsim.sim.rtl.native.run_native`` (the generated harness: a job interpreter), and
- a hand-written C++ Verilator main of the same Verilog (:data:`HANDWRITTEN_MAIN`), doing the
  same job with the addresses and loops written into it, built with the same flags (-O3);

both time their simulation loop with ``std::chrono`` inside the executable. Printed: cycles/s
of each, their ratio, Verilog generation time and build times; C is checked against numpy.

``--design accel_native:npu_design`` (from ``bench/``) runs the example NPU of the accelerator
DSL at 16 x 16 MACs (:func:`npu_design`), ``--design accel_native:gemm_accel_design`` a DSL
accelerator of the GEMM unit alone (:func:`gemm_accel_design`). ``--design module:factory`` runs another design: ``factory()`` returns
``(component, job)`` or ``(component, job, check)`` -- a ``wiring.Component`` with the bus
ports, a ``NativeJob``, and optionally ``check(reads)`` raising on wrong results. The
comparison main for such a design cannot be written by hand in advance, so it is generated
from the job in the hand-written style (ports assigned directly, one loop per operation,
the data compiled in; no job file, no interpretation).

Run: ``python bench/accel_native.py [--size 16] [--k 256] [--reps 8] [--iterations 100]
[--design module:factory] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import pkgutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

__all__ = ["SystolicAccel", "systolic_design", "npu_design", "gemm_accel_design",
           "run_benchmark", "HANDWRITTEN_MAIN"]

CTRL, CYCLES, K_CSR, REPS_CSR = 0, 1, 5, 6
REGION_A, REGION_B, REGION_C = 2, 3, 4


class SystolicAccel(wiring.Component):
    """A ``size`` x ``size`` OS systolic array fed from bus-written buffers (module docstring).

    Parameters
    ----------
    size : int
        Rows and columns of the array.
    depth : int
        Largest K (rows of the A and B banks).
    """

    def __init__(self, *, size: int = 16, depth: int = 256) -> None:
        self.size, self.depth = size, depth
        super().__init__({
            "bus_addr": In(32), "bus_wdata": In(32), "bus_we": In(1), "bus_re": In(1),
            "bus_rdata": Out(32), "irq": Out(1),
        })

    def elaborate(self, platform: object) -> Module:
        from archsim.hw.systolic import SystolicArray

        m = Module()
        size, depth = self.size, self.depth
        bank_bits = (size - 1).bit_length()
        m.submodules.array = array = SystolicArray(rows=size, cols=size, dataflow="os")
        region, offset = self.bus_addr[24:32], self.bus_addr[0:24]
        bank, row = offset[0:bank_bits], offset[bank_bits:24]

        busy, done, draining = Signal(), Signal(), Signal()
        k_len, reps, cycles = Signal(16), Signal(16), Signal(32)
        k, rep = Signal(16), Signal(16)
        feeding = Signal()                 # a row of A and B is read this cycle
        fed, fed_k = Signal(), Signal(16)  # ... and is on the array's inputs the next

        a_ports, b_ports = [], []
        for name, region_id, ports in (("a", REGION_A, a_ports), ("b", REGION_B, b_ports)):
            for i in range(size):
                mem = Memory(shape=8, depth=depth, init=[])
                m.submodules[f"{name}{i}"] = mem
                rd, wr = mem.read_port(), mem.write_port()
                m.d.comb += [rd.addr.eq(k), rd.en.eq(feeding),
                             wr.addr.eq(row), wr.data.eq(self.bus_wdata),
                             wr.en.eq(self.bus_we & (region == region_id) & (bank == i)
                                      & ~busy)]
                ports.append(rd)
        c_reads = []
        for j in range(size):
            mem = Memory(shape=32, depth=size, init=[])
            m.submodules[f"c{j}"] = mem
            rd, wr = mem.read_port(), mem.write_port()
            m.d.comb += [rd.addr.eq(row), rd.en.eq(self.bus_re),
                         wr.addr.eq(array.c_row), wr.data.eq(array.c[j]),
                         wr.en.eq(array.c_valid)]
            c_reads.append(rd)

        m.d.comb += [
            array.valid.eq(fed),
            array.first.eq(fed & (fed_k == 0)),
            array.last.eq(fed & (fed_k == k_len - 1)),
            *(array.a[i].eq(a_ports[i].data) for i in range(size)),
            *(array.b[j].eq(b_ports[j].data) for j in range(size)),
            feeding.eq(busy & ~draining & (k < k_len)),
            self.irq.eq(done),
        ]
        m.d.sync += [fed.eq(feeding), fed_k.eq(k)]
        with m.If(busy):
            m.d.sync += cycles.eq(cycles + 1)
            with m.If(feeding):
                m.d.sync += k.eq(k + 1)
            with m.If(array.done):
                with m.If(rep + 1 < reps):  # the next fold streams in while this one drains
                    m.d.sync += [rep.eq(rep + 1), k.eq(0)]
                with m.Else():
                    m.d.sync += draining.eq(1)
            with m.If(draining & ~array.c_valid):
                m.d.sync += [busy.eq(0), draining.eq(0), done.eq(1)]

        with m.If(self.bus_we & (region == 0)):
            with m.Switch(offset):
                with m.Case(CTRL):
                    with m.If(self.bus_wdata[0]):
                        m.d.sync += [busy.eq(1), done.eq(0), k.eq(0), rep.eq(0),
                                     cycles.eq(0)]
                    with m.Elif(self.bus_wdata[1]):
                        m.d.sync += done.eq(0)
                with m.Case(K_CSR):
                    m.d.sync += k_len.eq(self.bus_wdata)
                with m.Case(REPS_CSR):
                    m.d.sync += reps.eq(self.bus_wdata)

        csr_q, from_c, c_bank = Signal(32), Signal(), Signal(bank_bits)
        with m.If(self.bus_re):
            m.d.sync += [from_c.eq(region == REGION_C), c_bank.eq(bank)]
            with m.Switch(offset):
                with m.Case(CTRL):
                    m.d.sync += csr_q.eq(busy | (done << 1))
                with m.Case(CYCLES):
                    m.d.sync += csr_q.eq(cycles)
                with m.Default():
                    m.d.sync += csr_q.eq(0)
        c_word = Signal(32)
        with m.Switch(c_bank):
            for j in range(size):
                with m.Case(j):
                    m.d.comb += c_word.eq(c_reads[j].data)
        m.d.comb += self.bus_rdata.eq(Mux(from_c, c_word, csr_q))
        return m


def _systolic_job(a: np.ndarray, b: np.ndarray, *, reps: int, iterations: int) -> Any:
    from archsim.sim.rtl.native import NativeJob

    size = a.shape[0]
    job = (NativeJob()
           .write(REGION_A << 24, a.T.reshape(-1))   # element k*size + i = A[i, k]
           .write(REGION_B << 24, b.reshape(-1))     # element k*size + j = B[k, j]
           .write(K_CSR, [a.shape[1]]).write(REPS_CSR, [reps]))
    for _ in range(iterations):
        job.write(CTRL, [1]).run_until("irq", max_cycles=10_000_000)
    return job.read(REGION_C << 24, size * size).read(CYCLES, 1)


def systolic_design(*, size: int = 16, k: int = 256, reps: int = 8, iterations: int = 100,
                    seed: int = 0) -> tuple[SystolicAccel, Any, Callable[[list[np.ndarray]], None]]:
    """The default design, its job and the numpy check of its results."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (size, k))
    b = rng.integers(-128, 128, (k, size))
    expected = (a @ b).astype(np.int64)  # |sum| < 2**31 for k <= 2**16 int8 products

    def check(reads: list[np.ndarray]) -> None:
        c = reads[0].astype(np.uint32).astype(np.int32).reshape(size, size)
        if not np.array_equal(c, expected):
            raise AssertionError("C differs from numpy's A @ B")

    return SystolicAccel(size=size, depth=k), _systolic_job(a, b, reps=reps,
                                                            iterations=iterations), check


# --- the hand-written harness ----------------------------------------------------------------

#: The hand-written Verilator main of :class:`SystolicAccel` (``Vtop``): argv = A words file,
#: B words file, K, REPS, ITERATIONS, SIZE, C output file. Prints "cycles wall_ns run_cycles_total".
HANDWRITTEN_MAIN = r"""
#include "Vtop.h"
#include "verilated.h"
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static std::vector<uint32_t> load(const char* path) {
    std::vector<uint32_t> words;
    std::FILE* f = std::fopen(path, "rb");
    uint32_t w;
    while (f && std::fread(&w, 4, 1, f) == 1) words.push_back(w);
    if (f) std::fclose(f);
    return words;
}

static inline void tick(Vtop* top) {
    top->clk = 0; top->eval();
    top->clk = 1; top->eval();
}

int main(int argc, char** argv) {
    if (argc != 8) return 2;
    std::vector<uint32_t> a = load(argv[1]), b = load(argv[2]);
    const uint32_t k = std::atoi(argv[3]), reps = std::atoi(argv[4]);
    const int iterations = std::atoi(argv[5]);
    const uint32_t cells = std::atoi(argv[6]) * std::atoi(argv[6]);
    VerilatedContext context;
    Vtop* top = new Vtop(&context);
    std::vector<uint32_t> c(cells);
    uint64_t cycles = 0, run_cycles = 0;

    auto start = std::chrono::steady_clock::now();
    top->bus_we = 0; top->bus_re = 0; top->bus_addr = 0; top->bus_wdata = 0;
    top->rst = 1; tick(top); top->rst = 0;
#ifdef ARCHSIM_RESET_REGISTER
    tick(top);  // rst reaches the design through the wrapper's register
#endif
    top->bus_we = 1;
    for (uint32_t e = 0; e < a.size(); ++e) {
        top->bus_addr = (2u << 24) + e; top->bus_wdata = a[e]; tick(top); ++cycles;
    }
    for (uint32_t e = 0; e < b.size(); ++e) {
        top->bus_addr = (3u << 24) + e; top->bus_wdata = b[e]; tick(top); ++cycles;
    }
    top->bus_addr = 5; top->bus_wdata = k; tick(top); ++cycles;
    top->bus_addr = 6; top->bus_wdata = reps; tick(top); ++cycles;
    for (int it = 0; it < iterations; ++it) {
        top->bus_we = 1; top->bus_addr = 0; top->bus_wdata = 1; tick(top); ++cycles;
        top->bus_we = 0;
        top->eval();
        uint64_t n = 0;
        while (!top->irq) {
            if (n == 10000000) { std::fprintf(stderr, "timeout\n"); return 1; }
            tick(top); ++n;
        }
        cycles += n; run_cycles += n;
    }
    top->bus_re = 1;
    for (uint32_t e = 0; e < cells; ++e) {
        top->bus_addr = (4u << 24) + e; tick(top); ++cycles; c[e] = top->bus_rdata;
    }
    top->bus_addr = 1; tick(top); ++cycles;
    const uint32_t cycles_csr = top->bus_rdata;
    top->bus_re = 0;
    auto stop = std::chrono::steady_clock::now();
    top->final();
    delete top;

    std::FILE* out = std::fopen(argv[7], "wb");
    std::fwrite(c.data(), 4, c.size(), out);
    std::fwrite(&cycles_csr, 4, 1, out);
    std::fclose(out);
    std::printf("%llu %llu %llu\n", (unsigned long long)cycles,
                (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
                    stop - start).count(), (unsigned long long)run_cycles);
    return 0;
}
"""


def _baked_main(job: Any, toplevel: str) -> str:
    """A straight-line main doing ``job`` (for ``--design``): the hand-written style."""
    from archsim.sim.rtl.native import DEFAULT_MAX_CYCLES, NativeRead, NativeWrite

    lines = [f'#include "V{toplevel}.h"', '#include "verilated.h"', "#include <chrono>",
             "#include <cstdint>", "#include <cstdio>", "#include <vector>"]
    for n, op in enumerate(job.ops):
        if isinstance(op, NativeWrite):
            data = ",".join(str(int(w)) for w in op.words)
            lines.append(f"static const uint32_t w{n}[] = {{{data}}};")
    lines += [f"static inline void tick(V{toplevel}* t) {{ t->clk = 0; t->eval(); "
              "t->clk = 1; t->eval(); }",
              "int main(int argc, char** argv) {",
              "  if (argc != 2) return 2;",
              f"  VerilatedContext context; V{toplevel}* top = new V{toplevel}(&context);",
              "  std::vector<uint32_t> reads; uint64_t cycles = 0, run_cycles = 0;",
              "  auto start = std::chrono::steady_clock::now();",
              "  top->bus_we = 0; top->bus_re = 0; top->bus_addr = 0; top->bus_wdata = 0;",
              "  top->rst = 1; tick(top); top->rst = 0;",
              "#ifdef ARCHSIM_RESET_REGISTER",
              "  tick(top);",
              "#endif"]
    for n, op in enumerate(job.ops):
        if isinstance(op, NativeWrite):
            lines.append(f"  top->bus_we = 1; for (uint32_t e = 0; e < {len(op.words)}u; ++e) "
                         f"{{ top->bus_addr = {op.addr}u + e; top->bus_wdata = w{n}[e]; "
                         "tick(top); } top->bus_we = 0; "
                         f"cycles += {len(op.words)};")
        elif isinstance(op, NativeRead):
            lines.append(f"  top->bus_re = 1; for (uint32_t e = 0; e < {op.count}u; ++e) "
                         f"{{ top->bus_addr = {op.addr}u + e; tick(top); "
                         "reads.push_back(top->bus_rdata); } top->bus_re = 0; "
                         f"cycles += {op.count};")
        else:
            limit = DEFAULT_MAX_CYCLES if op.max_cycles is None else op.max_cycles
            lines.append(f"  {{ top->eval(); uint64_t n = 0; while (!top->{op.signal}) {{ "
                         f"if (n == {limit}ull) return 1; tick(top); ++n; }} "
                         "cycles += n; run_cycles += n; }")
    lines += ["  auto stop = std::chrono::steady_clock::now();",
              "  top->final(); delete top;",
              '  std::FILE* out = std::fopen(argv[1], "wb");',
              "  if (!reads.empty()) std::fwrite(reads.data(), 4, reads.size(), out);",
              "  std::fclose(out);",
              '  std::printf("%llu %llu %llu\\n", (unsigned long long)cycles, (unsigned long '
              "long)std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start)"
              ".count(), (unsigned long long)run_cycles);",
              "  return 0;", "}"]
    return "\n".join(lines) + "\n"


def _build_main(verilog: str, toplevel: str, main_cpp: str, *, reset_register: bool
                ) -> tuple[Path, float, bool]:
    """Build (cached) ``main_cpp`` against the Verilog with run_native's Verilator flags;
    with ``reset_register``, against run_native's reset wrapper of it too."""
    from archsim.cache import content_hash
    from archsim.sim.rtl._build_cache import cached_build
    from archsim.sim.rtl._toolchain import find_toolchain, verilator_env, verilator_version
    from archsim.sim.rtl._verilator import _compile_error
    from archsim.sim.rtl.native import NATIVE_FLAGS, _module_ports, reset_wrapper

    model, extra = toplevel, []
    wrapper = ""
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
                                   "--prefix", f"V{toplevel}", "--Mdir", ".",
                                   "-o", "handwritten", f"{toplevel}.v", *extra, "main.cpp"],
                                  cwd=folder, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise _compile_error(verilog, done.stdout + done.stderr, toplevel)

    key = content_hash(verilog, main_cpp, wrapper, json.dumps(list(NATIVE_FLAGS)),
                       verilator_version())
    entry = cached_build(kind="native-bench", key=key, product="handwritten", build=build)
    return entry.path / "handwritten", entry.build_time_s, entry.cached


def _run_main(exe: Path, design: str | None, job: Any, size: int, k: int, reps: int,
              iterations: int) -> tuple[np.ndarray, int, float, int]:
    """Run a hand-written (or baked) main: (words read, cycles, wall seconds, run cycles)."""
    with tempfile.TemporaryDirectory(prefix="archsim-bench-") as tmp:
        out = Path(tmp) / "out.bin"
        if design is None:
            for name, op in (("a.bin", job.ops[0]), ("b.bin", job.ops[1])):
                np.asarray(op.words, dtype="<u4").tofile(Path(tmp) / name)
            argv = [str(exe), str(Path(tmp) / "a.bin"), str(Path(tmp) / "b.bin"), str(k),
                    str(reps), str(iterations), str(size), str(out)]
        else:
            argv = [str(exe), str(out)]
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        words = np.fromfile(out, dtype="<u4").astype(np.int64)
    cycles, wall_ns, runs = (int(x) for x in done.stdout.split())
    return words, cycles, wall_ns * 1e-9, runs


def gemm_accel_design(*, size: int = 16, gemms: int = 24
                      ) -> tuple[Any, Any, Callable[..., None]]:
    """A 256-MAC accelerator written with the accelerator DSL and nothing else: the ``gemm``
    unit (``size x size``) with its three buffers, the controller and the bus, running the
    same program as :func:`npu_design`."""
    return _gemm_program_design(_gemm_accelerator(size), gemms)


def _gemm_accelerator(size: int) -> Any:
    from archsim.dsl.accel import Accelerator

    acc = Accelerator(name=f"gemm{size}")
    acc.buffer("act", words=4096, width=8, banks=size)
    acc.buffer("wgt", words=4096, width=8, banks=size)
    acc.buffer("acc", words=4096, width=32, banks=size)
    acc.unit("gemm", "gemm", rows=size, cols=size,
             bind={"a": "act", "b": "wgt", "c": "acc", "c_in": "acc"})
    return acc


def npu_design(*, size: int = 16, gemms: int = 24) -> tuple[Any, Any, Callable[..., None]]:
    """The example NPU of ``archsim.dsl.examples.npu`` at ``size x size`` MACs (256 by
    default) as a ``--design``: its own top level (bus, sequencer, buffers, GEMM array,
    vector, softmax and LayerNorm units), running a program of ``gemms`` accumulating 64 x 64
    x 64 int8 GEMMs; ``check`` compares every buffer read back with the golden run and the
    CYCLES CSR with the model."""
    from archsim.dsl.examples.npu import small_npu

    npu = small_npu(rows=size, cols=size, words=(4096, 4096, 4096, 256), name="npu16")
    return _gemm_program_design(npu, gemms)


def _gemm_program_design(npu: Any, gemms: int) -> tuple[Any, Any, Callable[..., None]]:
    """``gemms`` accumulating 64 x 64 x 64 GEMMs on an accelerator with a ``gemm`` unit over
    ``act``/``wgt``/``acc`` buffers, checked against its golden run and model."""
    from archsim.sim.rtl.accel_run import build_job

    program = npu.program()
    for _ in range(gemms):
        program.run("gemm", a_addr=0, b_addr=0, c_addr=0, c_in_addr=0, m=64, k=64, n=64,
                    accumulate=1)
    compiled = npu.compile()
    rng = np.random.default_rng(0)
    words = {"act": rng.integers(0, 256, 4096), "wgt": rng.integers(0, 256, 4096)}
    golden = compiled.golden(program, words)
    model_cycles = compiled.model(program).cycles
    job, reads = build_job(compiled, program, words, 4 * model_cycles + 1000)

    def check(results: list[np.ndarray]) -> None:
        if int(results[reads["cycles"]][0]) != model_cycles:
            raise AssertionError("CYCLES differs from the model")
        for name in golden:
            if not np.array_equal(results[reads[f"buffer:{name}"]], golden[name]):
                raise AssertionError(f"buffer {name} differs from the golden run")

    return compiled.top(), job, check


def run_benchmark(*, design: str | None = None, size: int = 16, k: int = 256, reps: int = 8,
                  iterations: int = 100, repeat: int = 3) -> dict[str, Any]:
    """Build the harnesses, run the job under each ``repeat`` times (interleaved, the machine
    is shared: the best run of each is reported), check the results; return the figures."""
    from archsim.hw.verilog import to_verilog
    from archsim.sim.rtl.native import run_native

    if design is None:
        made: tuple[Any, ...] = systolic_design(size=size, k=k, reps=reps,
                                                iterations=iterations)
    else:
        made = tuple(pkgutil.resolve_name(design)())
    component, job = made[0], made[1]
    check = made[2] if len(made) > 2 else None

    start = time.perf_counter()
    verilog = to_verilog(component, name="top")
    verilog_s = time.perf_counter() - start
    print(f"Verilog generated in {verilog_s:.1f} s ({len(verilog) / 1e6:.1f} MB)", flush=True)

    print("building run_native's harness ...", flush=True)
    first = run_native(verilog, job=job)
    main_cpp = HANDWRITTEN_MAIN if design is None else _baked_main(job, "top")
    builds = {}
    for variant, reset_register in (("handwritten", False), ("handwritten_reset_register", True)):
        print(f"building the {variant.replace('_', ' ')} harness ...", flush=True)
        builds[variant] = _build_main(verilog, "top", main_cpp, reset_register=reset_register)

    rates: dict[str, list[float]] = {"run_native": [], "handwritten": [],
                                     "handwritten_reset_register": []}
    native = first
    for r in range(repeat):
        native = first if r == 0 else run_native(verilog, job=job)
        if check is not None:
            check(native.reads)
        rates["run_native"].append(native.cycles_per_s)
        native_words = (np.concatenate(native.reads) if native.reads
                        else np.zeros(0, np.int64))
        for variant, (exe, _, _) in builds.items():
            words, cycles, wall_s, runs = _run_main(exe, design, job, size, k, reps, iterations)
            if (not np.array_equal(words, native_words) or cycles != native.cycles
                    or runs != sum(native.run_cycles)):
                raise AssertionError(f"the {variant} harness and run_native disagree")
            rates[variant].append(cycles / wall_s)
    best = {name: max(values) for name, values in rates.items()}
    return {
        "design": design or f"SystolicAccel {size}x{size} (k={k}, reps={reps}, "
                            f"iterations={iterations})",
        "macs": size * size if design is None else None,
        "cycles": native.cycles,
        "verilog_generation_s": verilog_s,
        "run_native_build_s": first.build_time_s, "run_native_cached": first.build_cached,
        **{f"{variant}_build_s": b[1] for variant, b in builds.items()},
        **{f"{variant}_cached": b[2] for variant, b in builds.items()},
        **{f"{name}_cycles_per_s": value for name, value in best.items()},
        **{f"{name}_cycles_per_s_all": values for name, values in rates.items()},
        "handwritten_over_run_native": best["handwritten"] / best["run_native"],
        "handwritten_reset_register_over_run_native":
            best["handwritten_reset_register"] / best["run_native"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", help="module:factory returning (component, job[, check])")
    parser.add_argument("--size", type=int, default=16, help="array rows = columns")
    parser.add_argument("--k", type=int, default=256, help="reduction length of a fold")
    parser.add_argument("--reps", type=int, default=8, help="folds per go")
    parser.add_argument("--iterations", type=int, default=100, help="go/irq rounds")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each harness")
    parser.add_argument("--json", help="also write the figures as JSON")
    args = parser.parse_args()
    row = run_benchmark(design=args.design, size=args.size, k=args.k, reps=args.reps,
                        iterations=args.iterations, repeat=args.repeat)
    for key, value in row.items():
        if isinstance(value, list):
            value = ", ".join(f"{v:,.0f}" for v in value)
        print(f"  {key:44s} {value:,.3f}" if isinstance(value, float)
              else f"  {key:44s} {value}")
    print(f"run_native: {row['run_native_cycles_per_s'] / 1e6:.2f}M cycles/s (target >= 1M); "
          f"hand-written main: {row['handwritten_cycles_per_s'] / 1e6:.2f}M cycles/s, "
          f"{row['handwritten_over_run_native']:.2f}x run_native (target <= 2x); the same main "
          "with run_native's reset register: "
          f"{row['handwritten_reset_register_cycles_per_s'] / 1e6:.2f}M cycles/s, "
          f"{row['handwritten_reset_register_over_run_native']:.2f}x (the interpreter's cost)")
    if args.json:
        from archsim.outputs import write_json

        write_json(args.json, row)


if __name__ == "__main__":
    main()
