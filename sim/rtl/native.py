"""Run-to-done simulation at native speed: a bus job run by a C++ Verilator harness.

The design is an accelerator with the host bus of BUS.md (``bus_addr``, ``bus_wdata``,
``bus_we``, ``bus_re``, ``bus_rdata``; a rising ``clk``; ``rst``), and a job is what a host
does with it: write memory images and CSRs, start, wait for ``irq``, read results back. The
Verilog is built once per design with a plain ``verilator --cc --exe --build -O3`` and a C++
main shipped with archsim (``native_main.cpp``): no VPI, no public signals, no cocotb and no
Python on any clock edge. The job goes to the executable as a binary file and the results come
back as one.

>>> job = NativeJob().write(0x0200_0000, words).write(0, [1])                    # doctest: +SKIP
>>> job = job.run_until("irq", max_cycles=10_000).read(0x0000_0001, 1)           # doctest: +SKIP
>>> result = run_native(to_verilog(accel), job=job)                              # doctest: +SKIP
>>> result.reads[0], result.run_cycles[0], result.cycles_per_s                   # doctest: +SKIP

The cycle model (the same as a Python testbench awaiting Amaranth's ``ctx.tick()``):

- reset: ``rst`` high for one clock edge, bus inputs low (this edge is not counted);
- ``write(addr, words)``: word ``k`` on ``bus_wdata`` with ``bus_addr = addr + k`` and
  ``bus_we`` high for one cycle each, ``len(words)`` cycles;
- ``read(addr, count)``: ``bus_re`` high with ``bus_addr = addr + k`` for one cycle each;
  ``bus_rdata`` is sampled right after the clock edge that ends that cycle (the 1-cycle read
  latency), ``count`` cycles;
- ``run_until(signal, max_cycles)``: bus inputs idle; the signal (a 1-bit output port) is
  looked at before each clock edge, and the cycles counted are the edges until it is seen high
  (0 if it already is). More than ``max_cycles`` raises :class:`SimulationError`.

The reset register: when the design has a ``rst`` port, the harness simulates a generated
wrapper module that drives it from a register clocked by ``clk`` (a reset synchroniser, as a
chip has one). Amaranth makes every register's next value depend on ``rst``; with ``rst`` a
top-level input, Verilator re-evaluates all that logic on every ``eval()`` call (its
input-combinational region), twice a cycle, besides once after each clock edge. Driven from a
register, it is state and is evaluated once per cycle: about 2x on a 16x16 systolic array
(``bench/accel_native.py``). The design still sees ``rst`` high for exactly one edge.

Builds are cached under ``archsim.cache.cache_dir("native")`` by a hash of the Verilog, the
options, the harness template and the Verilator version (:mod:`._build_cache`, the protocol
the cocotb builds use too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from ...cache import content_hash
from ...errors import ConfigError, SimulationError, ToolchainError
from ._build_cache import cached_build
from ._toolchain import VERILATOR_WARNING_FLAGS, Toolchain, find_toolchain, verilator_env
from ._toolchain import verilator_version as _verilator_version

__all__ = ["NativeJob", "NativeWrite", "NativeRead", "NativeRunUntil", "NativeResult",
           "run_native", "reset_wrapper", "NATIVE_FLAGS", "BUS_INPUTS", "BUS_OUTPUTS",
           "DEFAULT_MAX_CYCLES", "HarnessSources", "build_harness", "run_harness",
           "NATIVE_OPT_ENV", "NATIVE_OPT_LEVELS", "native_flags"]

#: Verilator options of a native build (besides the sources, the top module and the output):
#: a plain C++ model (no VPI, no public signals, no tracing) with Verilator's -O3, its C++
#: compiled at -O3 too (verilated.mk's OPT_FAST is -Os otherwise), two parallel jobs (the
#: machines have 2 cores). Measured on the 16x16 example NPU's job (bench/accel_native.py,
#: callgrind instructions and best-of user time): --x-assign fast, --x-initial fast and
#: --noassert change nothing; OPT_FAST=-O2 is ~4% slower; -fno-dfg costs 25% more
#: instructions; -march=native gains 1-5% and would tie a cached build to one CPU.
NATIVE_FLAGS = ("--cc", "--exe", "--build", "-O3", "-j", "2", *VERILATOR_WARNING_FLAGS,
                "-MAKEFLAGS", "OPT_FAST=-O3")

#: The environment variable that sets the C++ optimization level of native builds
#: (``OPT_FAST``; default ``-O3``, as in :data:`NATIVE_FLAGS`). The test suite sets ``-O1``:
#: its simulations are short and a cold ``-O3`` build of a whole accelerator takes minutes.
NATIVE_OPT_ENV = "ARCHSIM_NATIVE_OPT"
#: The values :data:`NATIVE_OPT_ENV` accepts.
NATIVE_OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os")


def native_flags() -> tuple[str, ...]:
    """:data:`NATIVE_FLAGS` with the C++ optimization level :data:`NATIVE_OPT_ENV` sets.

    Raises
    ------
    ConfigError
        The variable holds something other than one of :data:`NATIVE_OPT_LEVELS`.
    """
    level = os.environ.get(NATIVE_OPT_ENV, "-O3")
    if level not in NATIVE_OPT_LEVELS:
        raise ConfigError(f"environment variable {NATIVE_OPT_ENV}={level!r} is not a C++ "
                          "optimization level", field=NATIVE_OPT_ENV,
                          allowed=list(NATIVE_OPT_LEVELS))
    return tuple(f"OPT_FAST={level}" if flag.startswith("OPT_FAST=") else flag
                 for flag in NATIVE_FLAGS)

#: Input ports of the host bus every design needs (BUS.md).
BUS_INPUTS = ("bus_addr", "bus_wdata", "bus_we", "bus_re", "clk")
#: Output ports of the host bus every design needs.
BUS_OUTPUTS = ("bus_rdata",)

#: Default ``max_cycles`` of a :meth:`NativeJob.run_until` that gives none.
DEFAULT_MAX_CYCLES = 100_000_000

_TEMPLATE = "native_main.cpp"
_HEADER = "archsim_design.h"
_EXECUTABLE = "archsim_native"
_PREFIX = "Varchsim_model"  # the model's C++ class, whatever the module is called
_JOB_MAGIC = 0x314A4E41
_RESULT_MAGIC = 0x314A4E52
_WORD_LIMIT = 1 << 32


# --- the job ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class NativeWrite:
    """Write ``words`` to consecutive word addresses from ``addr``, one per cycle."""

    addr: int
    words: np.ndarray  # uint32

    @property
    def cycles(self) -> int:
        """Cycles the operation takes."""
        return len(self.words)


@dataclass(frozen=True)
class NativeRead:
    """Read ``count`` consecutive words from ``addr``, one per cycle."""

    addr: int
    count: int

    @property
    def cycles(self) -> int:
        """Cycles the operation takes."""
        return self.count


@dataclass(frozen=True)
class NativeRunUntil:
    """Clock with the bus idle until the 1-bit output ``signal`` is high.

    ``max_cycles`` None means the ``max_cycles`` of :func:`run_native`.
    """

    signal: str
    max_cycles: int | None


NativeOp = NativeWrite | NativeRead | NativeRunUntil


def _check_count(name: str, value: object, *, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ConfigError(f"{name} must be {what}, not {value!r}", field=name)
    return int(value)


def _check_span(addr: object, count: int) -> int:
    addr = _check_count("addr", addr, minimum=0)
    if addr + count > _WORD_LIMIT:
        raise ConfigError(f"addr {addr:#x} + {count} words runs past the 32-bit word address "
                          "space", field="addr")
    return addr


class NativeJob:
    """A list of bus operations for :func:`run_native`, run in order.

    Every method appends one operation and returns the job, so calls chain. The results of
    the ``read`` operations come back in :attr:`NativeResult.reads` in the same order, the
    cycles of the ``run_until`` operations in :attr:`NativeResult.run_cycles`.
    """

    def __init__(self) -> None:
        self.ops: list[NativeOp] = []

    def write(self, addr: int, words: Sequence[int] | np.ndarray) -> NativeJob:
        """Write ``words`` (ints in ``[-2**31, 2**32)``; negative ones as two's complement)
        to word addresses ``addr, addr + 1, ...``, one per cycle."""
        values = np.asarray(words)
        if values.ndim != 1 or values.size == 0 or values.dtype.kind not in "iub":
            raise ConfigError(f"words must be a non-empty 1-D sequence of ints, not {words!r}",
                              field="words")
        if values.dtype.kind != "b" and values.size:
            low, high = int(values.min()), int(values.max())
            if low < -(1 << 31) or high >= _WORD_LIMIT:
                bad = low if low < -(1 << 31) else high
                raise ConfigError(f"word {bad} does not fit the 32-bit bus", field="words",
                                  allowed="[-2**31, 2**32)")
        packed = values.astype(np.int64).astype(np.uint32)  # two's complement of negatives
        self.ops.append(NativeWrite(_check_span(addr, len(packed)), packed))
        return self

    def read(self, addr: int, count: int) -> NativeJob:
        """Read ``count`` words from ``addr, addr + 1, ...``, one per cycle."""
        count = _check_count("count", count)
        self.ops.append(NativeRead(_check_span(addr, count), count))
        return self

    def run_until(self, signal: str = "irq", *, max_cycles: int | None = None) -> NativeJob:
        """Clock, bus idle, until output ``signal`` is high; at most ``max_cycles`` cycles."""
        if not isinstance(signal, str) or not signal.isidentifier():
            raise ConfigError(f"signal must be a port name, not {signal!r}", field="signal")
        limit = None if max_cycles is None else _check_count("max_cycles", max_cycles,
                                                             minimum=0)
        if limit is not None and limit >= 1 << 64:
            raise ConfigError("max_cycles must be below 2**64", field="max_cycles")
        self.ops.append(NativeRunUntil(signal, limit))
        return self

    @property
    def cycles_without_runs(self) -> int:
        """Cycles spent in the write and read operations (the runs' cycles are measured)."""
        return sum(op.cycles for op in self.ops if not isinstance(op, NativeRunUntil))

    def _encode(self, signals: Sequence[str], default_max: int) -> np.ndarray:
        parts: list[np.ndarray] = [np.array([_JOB_MAGIC, len(self.ops)], dtype=np.uint32)]
        for op in self.ops:
            if isinstance(op, NativeWrite):
                parts.append(np.array([1, op.addr, len(op.words)], dtype=np.uint32))
                parts.append(op.words)
            elif isinstance(op, NativeRead):
                parts.append(np.array([2, op.addr, op.count], dtype=np.uint32))
            else:
                limit = default_max if op.max_cycles is None else op.max_cycles
                parts.append(np.array([3, signals.index(op.signal), limit & 0xFFFF_FFFF,
                                       limit >> 32], dtype=np.uint32))
        return np.concatenate(parts).astype("<u4")


# --- the result -------------------------------------------------------------------------------

@dataclass(frozen=True)
class NativeResult:
    """What one :func:`run_native` call measured.

    Attributes
    ----------
    reads : list of numpy.ndarray
        Per ``read`` operation, in job order, the words read (``int64``, unsigned raw words).
    run_cycles : list of int
        Per ``run_until`` operation, the cycles it counted.
    cycles : int
        Every cycle of the job (writes, reads and runs; not the reset edge).
    wall_time_s : float
        Seconds the executable spent in its simulation loop (reset included; measured inside
        it with ``std::chrono::steady_clock``), excluding building, process start-up and
        file I/O.
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    build_cached : bool
        True when the build was reused from the cache.
    total_time_s : float
        End-to-end seconds of the call, build and process start-up included.
    """

    reads: list[np.ndarray]
    run_cycles: list[int]
    cycles: int
    wall_time_s: float
    build_time_s: float
    build_cached: bool
    total_time_s: float = field(default=0.0)

    @property
    def cycles_per_s(self) -> float:
        """Simulated cycles per second of :attr:`wall_time_s`."""
        return self.cycles / self.wall_time_s if self.wall_time_s > 0 else float("inf")


# --- the design's ports -----------------------------------------------------------------------

# One port per declaration, in the module body (Amaranth's style) or in an ANSI port list.
_PORT_RE = re.compile(r"\b(?P<dir>input|output)\s+(?:wire\s+|reg\s+|logic\s+)?(?:signed\s+)?"
                      r"(?:\[(?P<msb>\d+):(?P<lsb>\d+)\]\s*)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                      r"\s*[;,)]")


def _module_ports(verilog: str, toplevel: str) -> dict[str, tuple[str, int]]:
    """Port name -> (direction, width) of module ``toplevel`` in ``verilog``, in header order.

    Only the module's port list counts: ANSI declarations in the header, or the header's names
    declared in the body (a function's ``input`` there is not a port).
    """
    start = re.search(rf"^\s*module\s+{re.escape(toplevel)}\s*[(;#]", verilog, re.MULTILINE)
    if start is None:
        raise ConfigError(f"the Verilog has no module '{toplevel}'", field="toplevel")
    end = verilog.find("endmodule", start.end())
    body = verilog[start.start(): end if end >= 0 else len(verilog)]
    close = body.find(");")
    header = body[: close + 2] if close >= 0 else ""

    def declared(text: str) -> dict[str, tuple[str, int]]:
        found: dict[str, tuple[str, int]] = {}
        for m in _PORT_RE.finditer(text):
            width = 1 if m["msb"] is None else abs(int(m["msb"]) - int(m["lsb"])) + 1
            found.setdefault(m["name"], (m["dir"], width))
        return found

    ansi = declared(header)
    if ansi:
        return ansi
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_$]*", header[header.find("(") + 1:])
    in_body = declared(body[len(header):])
    return {name: in_body[name] for name in names if name in in_body}


def _check_ports(ports: dict[str, tuple[str, int]], toplevel: str) -> list[str]:
    """Check the bus ports; return the 1-bit outputs (what ``run_until`` can wait on)."""
    for names, direction in ((BUS_INPUTS, "input"), (BUS_OUTPUTS, "output")):
        for name in names:
            if ports.get(name, ("", 0))[0] != direction:
                raise ConfigError(f"module '{toplevel}' has no {direction} port '{name}' of "
                                  "the host bus", field="verilog",
                                  allowed=list(BUS_INPUTS + BUS_OUTPUTS))
    for name, limit in (("bus_addr", 32), ("bus_wdata", 32), ("bus_rdata", 32)):
        if ports[name][1] > limit:
            raise ConfigError(f"port '{name}' of module '{toplevel}' is {ports[name][1]} bits "
                              f"wide; the host bus has {limit}", field="verilog")
    return sorted(name for name, (direction, width) in ports.items()
                  if direction == "output" and width == 1)


def reset_wrapper(ports: dict[str, tuple[str, int]], toplevel: str) -> tuple[str, str]:
    """The wrapper module that drives ``toplevel``'s ``rst`` from a register (module docstring).

    Parameters
    ----------
    ports : dict
        The design's ports, name -> (``"input"``/``"output"``, width).
    toplevel : str
        The design's module name.

    Returns
    -------
    (str, str)
        The wrapper's module name and its Verilog text (same ports as the design).
    """
    name = f"{toplevel}_archsim_reset"
    lines = [f"// Generated by archsim.sim.rtl.native: '{toplevel}' with rst from a register.",
             f"module {name}({', '.join(ports)});"]
    for port, (direction, width) in ports.items():
        lines.append(f"  {direction} {'' if width == 1 else f'[{width - 1}:0] '}{port};")
    lines += ["  reg rst_q = 1'b0;", "  always @(posedge clk) rst_q <= rst;",
              f"  {toplevel} dut(" + ", ".join(
                  f".{port}({'rst_q' if port == 'rst' else port})" for port in ports) + ");",
              "endmodule", ""]
    return name, "\n".join(lines)


def _header(model: str, signals: Sequence[str], has_rst: bool) -> str:
    table = ", ".join(f"&(top)->{name}" for name in signals) or "nullptr"
    return (f"// Generated by archsim.sim.rtl.native for module '{model}'.\n"
            "#pragma once\n"
            f'#include "{_PREFIX}.h"\n'
            f"typedef {_PREFIX} ArchsimTop;\n"
            f"#define ARCHSIM_HAS_RST {int(has_rst)}\n"
            f"#define ARCHSIM_SIGNAL_COUNT {len(signals)}\n"
            f"#define ARCHSIM_SIGNALS(top) {{{table}}}\n")


def _template() -> str:
    return resources.files(__package__).joinpath(_TEMPLATE).read_text()


# --- building ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class HarnessSources:
    """What a generated C++ main adds to the design's Verilog: the C++ template (file name
    and text), the design-specific header it includes, the name of the model class and of
    the executable, and an optional Verilog wrapper ``(module name, text)`` made the top."""

    template_name: str
    template: str
    header_name: str
    header: str
    prefix: str
    executable: str
    wrapper: tuple[str, str] | None = None


def build_harness(*, verilog: str, toplevel: str, sources: HarnessSources, harness: str,
                  key: str) -> tuple[Path, float, bool]:
    """The executable of ``verilog`` under a generated C++ main, built once per ``key`` in
    the build cache (kind ``native``, compiled with :data:`NATIVE_FLAGS`).

    Returns the executable's path, the build time and whether it came from the cache. Both
    the run-to-done harness here and the bulk-stimulus one (:mod:`.native_bulk`) build
    through it; ``harness`` names which in the cache entry's facts.
    """
    toolchain: Toolchain | None = None

    def prepare() -> None:
        nonlocal toolchain
        toolchain = find_toolchain(compiler=True, embed_python=False)

    def build(folder: Path) -> None:
        assert toolchain is not None
        _compile_harness(folder, verilog, toplevel, sources, toolchain)

    entry = cached_build(kind="native", key=key, product=sources.executable, build=build,
                         before_build=prepare,
                         facts={"toplevel": toplevel, "verilator": _verilator_version(),
                                "harness": harness})
    return entry.path / sources.executable, entry.build_time_s, entry.cached


def run_harness(executable: Path, job: bytes, *, toplevel: str) -> bytes:
    """Run a built harness (:func:`build_harness`) on the job bytes; its result file's bytes.

    The job and result files live in a temporary folder removed afterwards. A harness that
    cannot start, exits non-zero or writes no result raises :class:`SimulationError` with
    the last lines of its output.
    """
    folder = Path(tempfile.mkdtemp(prefix="archsim-native-"))
    try:
        job_file, result_file = folder / "job.bin", folder / "result.bin"
        job_file.write_bytes(job)
        try:
            done = subprocess.run([str(executable), str(job_file), str(result_file)],
                                  capture_output=True, text=True, check=False)
        except OSError as exc:
            raise SimulationError(f"cannot run the native simulation of '{toplevel}': "
                                  f"{exc}") from None
        if done.returncode != 0 or not result_file.is_file():
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
            raise SimulationError(f"the native simulation of '{toplevel}' failed (exit "
                                  f"status {done.returncode}):\n{tail}")
        return result_file.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _compile_harness(folder: Path, verilog: str, toplevel: str, sources: HarnessSources,
                     toolchain: Toolchain) -> None:
    from ._verilator import _compile_error

    (folder / f"{toplevel}.v").write_text(verilog)
    files = [f"{toplevel}.v"]
    model = toplevel
    if sources.wrapper is not None:
        model = sources.wrapper[0]
        (folder / f"{model}.v").write_text(sources.wrapper[1])
        files.append(f"{model}.v")
    (folder / sources.header_name).write_text(sources.header)
    (folder / sources.template_name).write_text(sources.template)
    command = ["verilator", *native_flags(), "--top-module", model, "--prefix", sources.prefix,
               "--Mdir", ".", "-o", sources.executable, *files, sources.template_name]
    with verilator_env(toolchain):
        try:
            done = subprocess.run(command, cwd=folder, capture_output=True, text=True,
                                  check=False)
        except OSError as exc:
            raise ToolchainError(f"cannot run Verilator: {exc}") from None
    log = done.stdout + done.stderr
    (folder / "build.log").write_text(log)
    if done.returncode != 0 or not (folder / sources.executable).is_file():
        raise _compile_error(verilog, log, toplevel)


def _ensure_native_build(verilog: str, toplevel: str, ports: dict[str, tuple[str, int]],
                         signals: list[str], has_rst: bool) -> tuple[Path, float, bool]:
    template = _template()
    wrapper = reset_wrapper(ports, toplevel) if has_rst else None
    header = _header(toplevel if wrapper is None else wrapper[0], signals, has_rst)
    options = {"toplevel": toplevel, "flags": list(native_flags())}
    key = content_hash(verilog, json.dumps(options, sort_keys=True), template, header,
                       "" if wrapper is None else wrapper[1], _verilator_version())
    sources = HarnessSources(template_name=_TEMPLATE, template=template, header_name=_HEADER,
                             header=header, prefix=_PREFIX, executable=_EXECUTABLE,
                             wrapper=wrapper)
    return build_harness(verilog=verilog, toplevel=toplevel, sources=sources,
                         harness="native", key=key)


# --- running ----------------------------------------------------------------------------------

def run_native(verilog: str, *, toplevel: str = "top", job: NativeJob,
               max_cycles: int = DEFAULT_MAX_CYCLES) -> NativeResult:
    """Build (or reuse) the native harness of ``verilog`` and run ``job`` on it.

    Parameters
    ----------
    verilog : str
        Verilog text holding module ``toplevel`` with the host-bus ports (BUS.md).
    toplevel : str
        The module to simulate.
    job : NativeJob
        The bus operations, run in order after the reset edge.
    max_cycles : int
        Limit of each ``run_until`` operation that gives none.

    Returns
    -------
    NativeResult

    Raises
    ------
    ConfigError
        The module or a bus port is missing, or a ``run_until`` names a port that is not a
        1-bit output (the message lists those there are).
    ToolchainError
        No C++ compiler, make or perl, or Verilator rejected the Verilog (the message quotes
        the offending line and its number).
    SimulationError
        A ``run_until`` timed out (names the signal and the limit), or the executable crashed.
    """
    begin = time.perf_counter()
    if not isinstance(verilog, str):
        raise ConfigError(f"verilog must be Verilog text (str), not {type(verilog).__name__}",
                          field="verilog")
    if not isinstance(toplevel, str) or not toplevel.isidentifier():
        raise ConfigError(f"toplevel must be a Verilog module name, not {toplevel!r}",
                          field="toplevel")
    if not isinstance(job, NativeJob):
        raise ConfigError(f"job must be a NativeJob, not {type(job).__name__}", field="job")
    max_cycles = _check_count("max_cycles", max_cycles, minimum=0)
    ports = _module_ports(verilog, toplevel)
    signals = _check_ports(ports, toplevel)
    for op in job.ops:
        if isinstance(op, NativeRunUntil) and op.signal not in signals:
            raise ConfigError(f"run_until waits on '{op.signal}', which is not a 1-bit output "
                              f"of module '{toplevel}'", field="signal", allowed=signals)
    has_rst = ports.get("rst", ("", 0)) == ("input", 1)
    executable, build_time_s, cached = _ensure_native_build(verilog, toplevel, ports, signals,
                                                            has_rst)

    raw = run_harness(executable, job._encode(signals, max_cycles).tobytes(),
                      toplevel=toplevel)
    return _decode(raw, job, toplevel, max_cycles, build_time_s, cached,
                   time.perf_counter() - begin)


def _decode(raw: bytes, job: NativeJob, toplevel: str, max_cycles: int, build_time_s: float,
            cached: bool, total_time_s: float) -> NativeResult:
    header = np.frombuffer(raw, dtype="<u8", count=6)
    magic, status, failed_op, cycles, wall_ns, failed_cycles = (int(v) for v in header)
    if magic != _RESULT_MAGIC:
        raise SimulationError(f"the native simulation of '{toplevel}' wrote no valid result")
    if status == 1:
        op = job.ops[failed_op]
        assert isinstance(op, NativeRunUntil)
        limit = max_cycles if op.max_cycles is None else op.max_cycles
        raise SimulationError(
            f"run_until (operation {failed_op} of the job) timed out: '{op.signal}' was not "
            f"high within max_cycles={limit} cycles", signal=op.signal, cycle=cycles)
    n_runs = sum(isinstance(op, NativeRunUntil) for op in job.ops)
    offset = header.nbytes
    run_cycles = np.frombuffer(raw, dtype="<u8", count=n_runs, offset=offset)
    offset += run_cycles.nbytes
    words = np.frombuffer(raw, dtype="<u4", offset=offset).astype(np.int64)
    reads, at = [], 0
    for op in job.ops:
        if isinstance(op, NativeRead):
            reads.append(words[at: at + op.count].copy())
            at += op.count
    if at != len(words):
        raise SimulationError(f"the native simulation of '{toplevel}' returned {len(words)} "
                              f"words for reads of {at}")
    return NativeResult(reads=reads, run_cycles=[int(c) for c in run_cycles], cycles=cycles,
                        wall_time_s=wall_ns * 1e-9, build_time_s=build_time_s,
                        build_cached=cached, total_time_s=total_time_s)
