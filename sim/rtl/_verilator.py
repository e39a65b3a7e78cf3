"""The ``verilator`` backend: cached Verilator builds run under cocotb's runner.

A build lives in ``cache_dir("verilator") / <key>``, ``key`` being a hash of the Verilog text,
the build options, the Verilator and cocotb versions and cocotb's library folder (the
executable links against it). It is built in a temporary folder beside the entry and renamed
into place under a per-entry :class:`filelock.FileLock`, so a reader never sees half a build
and two processes building the same design build it once (:mod:`._build_cache`, shared with
the native runner).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...cache import content_hash
from ...errors import SimulationError, ToolchainError
from ...outputs import atomic_path
from ._build_cache import cached_build
from ._ports import Port, Stimulus
from ._toolchain import (
    VERILATOR_WARNING_FLAGS,
    Toolchain,
    check_fst_support,
    find_toolchain,
    verilator_env,
    verilator_version,
)

__all__ = ["VerilatorBuild", "VerilatorRun", "ensure_build", "run_verilator"]

_ERROR_RE = re.compile(
    r"^%(?:Error|Warning)(?:-[A-Z0-9_]+)?: (?P<file>[^:\s]+):(?P<line>\d+):(?:(?P<col>\d+):)? ?"
    r"(?P<msg>.*)$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class VerilatorBuild:
    """A finished Verilator build.

    Attributes
    ----------
    path : Path
        The build folder (a cache entry).
    toplevel : str
        The Verilog module name (also the executable's name).
    trace : str or None
        ``"vcd"``, ``"fst"`` or None: the waveform format the build can dump.
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    cached : bool
        True when the build was reused from the cache.
    """

    path: Path
    toplevel: str
    trace: str | None
    build_time_s: float
    cached: bool


@dataclass(frozen=True)
class VerilatorRun:
    """Raw outcome of :func:`run_verilator` (unsigned bit patterns; converted by the caller)."""

    outputs: dict[str, list[int]]
    final: dict[str, int]
    wall_time_s: float
    build: VerilatorBuild


def _build_options(trace: str | None) -> list[str]:
    flags = list(VERILATOR_WARNING_FLAGS)
    if trace == "fst":
        flags.append("--trace-fst")
    return flags


def _cache_key(verilog: str, toplevel: str, trace: str | None) -> str:
    import cocotb
    import cocotb_tools.config

    options = {"toplevel": toplevel, "trace": trace, "flags": _build_options(trace)}
    return content_hash(verilog, json.dumps(options, sort_keys=True), verilator_version(),
                        cocotb.__version__, str(cocotb_tools.config.libs_dir))


def _compile_error(verilog: str, log: str, toplevel: str) -> ToolchainError:
    """Turn a failed build's log into an error quoting the offending Verilog line."""
    lines = verilog.splitlines()
    ours = [m for m in _ERROR_RE.finditer(log) if Path(m["file"]).name == f"{toplevel}.v"]
    # Errors first: with -Wno-fatal a warning is only the culprit when nothing else is.
    ours.sort(key=lambda m: not m.group(0).startswith("%Error"))
    match = ours[0] if ours else None
    if match is not None:
        lineno = int(match["line"])
        text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        return ToolchainError(
            f"Verilator rejected the Verilog of module '{toplevel}' at line {lineno}: "
            f"{match['msg'].strip()}\n  {lineno} | {text}")
    tail = "\n".join(log.strip().splitlines()[-25:])
    return ToolchainError(f"the Verilator build of module '{toplevel}' failed:\n{tail}")


def ensure_build(
    verilog: str,
    *,
    toplevel: str = "top",
    trace: str | None = None,
    toolchain: Toolchain | None = None,
) -> VerilatorBuild:
    """Return the cached Verilator build of ``verilog``, building it first if needed.

    Accepts raw Verilog text; a Verilator error raises :class:`ToolchainError` quoting the
    offending line and its number.
    """
    if trace not in (None, "vcd", "fst"):
        raise ValueError(f"Trace must be None, 'vcd' or 'fst', not {trace!r}")
    found = toolchain

    def prepare() -> None:
        nonlocal found
        if found is None or found.cxx is None or found.make is None:
            found = find_toolchain(compiler=True)
        if trace == "fst":
            check_fst_support(found)

    def build(folder: Path) -> None:
        assert found is not None
        _build_into(folder, verilog, toplevel, trace, found)

    entry = cached_build(
        kind="verilator", key=_cache_key(verilog, toplevel, trace), product=toplevel,
        build=build, before_build=prepare,
        facts={"toplevel": toplevel, "trace": trace, "verilator": verilator_version()})
    return VerilatorBuild(entry.path, toplevel, trace, entry.build_time_s, entry.cached)


def _build_into(path: Path, verilog: str, toplevel: str, trace: str | None,
                toolchain: Toolchain) -> None:
    from cocotb_tools.runner import get_runner

    source = path / f"{toplevel}.v"
    source.write_text(verilog)
    log_file = path / "build.log"
    runner = get_runner("verilator")
    try:
        with verilator_env(toolchain):
            runner.build(sources=[source], hdl_toplevel=toplevel, build_dir=path,
                         build_args=_build_options(trace), waves=trace is not None,
                         log_file=log_file, always=True)
    except (RuntimeError, SystemExit, OSError) as exc:
        log = log_file.read_text(errors="replace") if log_file.exists() else str(exc)
        raise _compile_error(verilog, log, toplevel) from None


def run_verilator(
    verilog: str,
    *,
    toplevel: str,
    ports: Mapping[str, Port],
    stimulus: Stimulus,
    waveform: Path | None,
) -> VerilatorRun:
    """Build (or reuse) and simulate; return outputs, final values and timings."""

    trace = None if waveform is None else waveform.suffix.lstrip(".")
    toolchain = find_toolchain(compiler=False)  # a cached build needs no compiler
    build = ensure_build(verilog, toplevel=toplevel, trace=trace, toolchain=toolchain)

    job_dir = Path(tempfile.mkdtemp(prefix="archsim-rtl-"))
    try:
        # The waveform is dumped next to its target and renamed only if the run succeeds.
        with atomic_path(waveform) if waveform is not None else nullcontext() as wave_tmp:
            inputs = stimulus.inputs
            widths = {name: port.width for name, port in ports.items()}
            # allow_pickle=True is savez's default, spelt out so a type checker does not
            # match the unpacked arrays against that keyword.
            np.savez(job_dir / "stimulus.npz", allow_pickle=True, **{
                name: (np.array([format(v, "x") for v in values], dtype=np.str_)
                       if widths[name] > 64 else np.array(values, dtype=np.uint64))
                for name, values in inputs.items()})
            (job_dir / "job.json").write_text(json.dumps({
                "cycles": stimulus.cycles,
                "widths": widths,
                "inputs": list(inputs),
                "outputs": stimulus.outputs,
                "final": [p.name for p in ports.values() if not p.is_input],
                "init": {p.name: p.init for p in ports.values() if p.is_input},
                "has_clk": _has_port(verilog, "clk"),
                "has_rst": _has_port(verilog, "rst"),
            }))
            test_args = [] if wave_tmp is None else ["--trace", "--trace-file", str(wave_tmp)]
            info = run_cocotb_job(build, toolchain, test_module="archsim.sim.rtl._cocotb_bench",
                                  job_dir=job_dir, env_var="ARCHSIM_RTL_JOB",
                                  test_args=test_args, what=f"simulation of '{toplevel}'")
            with np.load(job_dir / "results.npz") as data:
                raw = {}
                for name in stimulus.outputs:
                    array = data[name]
                    raw[name] = ([int(x, 16) for x in array.tolist()] if array.dtype.kind == "U"
                                 else array.astype(np.uint64).tolist())
            return VerilatorRun(
                outputs=raw,
                final={name: int(v, 16) for name, v in info["final"].items()},
                wall_time_s=float(info["wall_time_s"]),
                build=build,
            )
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)


def run_cocotb_job(build: VerilatorBuild, toolchain: Toolchain, *, test_module: str,
                   job_dir: Path, env_var: str, what: str,
                   test_args: Sequence[str] = ()) -> dict[str, Any]:
    """Run one cocotb test module on a cached Verilator build and return its ``done.json``.

    The job's inputs are files in ``job_dir`` (named to the test by ``env_var``); the test
    writes ``done.json`` when it finishes, or ``error.txt``. Failing that, a
    :class:`SimulationError` about the ``what`` quotes the last 20 lines of the error or log.
    """
    from cocotb_tools.runner import get_runner

    try:
        with verilator_env(toolchain):
            get_runner("verilator").test(
                test_module=test_module, hdl_toplevel=build.toplevel,
                hdl_toplevel_lang="verilog", build_dir=build.path, test_dir=job_dir,
                test_args=list(test_args), extra_env={env_var: str(job_dir)},
                results_xml=str(job_dir / "results.xml"), log_file=job_dir / "sim.log",
                verbose=False)
    except (RuntimeError, SystemExit, OSError):
        pass  # judged below from the files the test leaves
    done = job_dir / "done.json"
    if not done.is_file():
        error = job_dir / "error.txt"
        log = job_dir / "sim.log"
        detail = (error.read_text() if error.is_file()
                  else log.read_text(errors="replace") if log.is_file() else "no output")
        tail = "\n".join(detail.strip().splitlines()[-20:])
        if not tail:  # e.g. an executable that cannot start: say which one, never nothing
            tail = (f"no output from {build.path / build.toplevel} (if this persists, delete "
                    f"the cache entry {build.path})")
        raise SimulationError(f"the Verilator {what} failed:\n{tail}")
    return json.loads(done.read_text())


def _has_port(verilog: str, name: str) -> bool:
    return re.search(rf"^\s*input\s+(?:wire\s+)?{name}\s*;", verilog, re.MULTILINE) is not None
