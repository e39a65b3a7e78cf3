"""Driven testbenches at native speed: :func:`archsim.sim.rtl.simulate`'s ``"native"`` backend.

The whole stimulus goes to a C++ Verilator main in bulk -- one binary job file of per-cycle
input values -- and the outputs recorded every cycle come back in one result file; Python runs
only before and after the simulation, never per clock edge. The cycle model is
:func:`~archsim.sim.rtl.simulate`'s: reset (``rst`` high for one rising edge, every input at
its initial value), then per cycle ``k`` the inputs of cycle ``k`` are applied, combinational
logic settles, the recorded outputs are sampled, and a rising edge follows.

The Verilog is built once per design with the native flags of :mod:`archsim.sim.rtl.native`
(``--cc --exe --build -O3``, the C++ at ``-O3``, no VPI, no public signals) and the shipped
main ``native_bulk_main.cpp``; the build is cached under ``cache_dir("native")`` (a separate
entry from the cocotb build of the same Verilog, kind ``"verilator"``) by a hash of the
Verilog, the wrapper, the generated header, the main and the Verilator version.

The wrapper: the simulated top module is generated here around the design. It names the
ports ``in0, in1, ...`` and ``out0, out1, ...`` (Verilator mangles a port such as
``x__data`` into ``x___05Fdata``; plain names spare the harness that rule) and drives the
design's ``rst`` from a register that starts high and loads the top-level input ``rst_in``
(held low) at every edge: the design sees ``rst`` high for exactly the first edge, and, as
state rather than a top-level input, ``rst`` does not make Verilator re-evaluate every
register's next-state logic on each ``eval()`` (see :mod:`archsim.sim.rtl.native`).

Port widths: a port of up to 64 bits travels as one element of 1, 2, 4 or 8 bytes (the size
of Verilator's C type for it); a wider one as ``ceil(width / 32)`` little-endian 32-bit words
(Verilator's ``VlWide`` words), so every width is supported.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ...cache import content_hash
from ...errors import ConfigError, SimulationError
from ._ports import Port, Stimulus
from ._toolchain import verilator_version as _verilator_version
from .native import (
    NATIVE_FLAGS,
    HarnessSources,
    _module_ports,
    build_harness,
    native_flags,
    run_harness,
)

__all__ = ["BulkRun", "run_bulk", "bulk_wrapper", "WrappedPorts", "wrap_ports", "build_wrapped",
           "element_bytes", "BULK_FLAGS"]

#: Verilator options of a bulk build: those of the run-to-done harness (no VPI, no public
#: signals, -O3 for Verilator and for the C++; measured in :data:`~.native.NATIVE_FLAGS`).
BULK_FLAGS = NATIVE_FLAGS

_TEMPLATE = "native_bulk_main.cpp"
_HEADER = "archsim_bulk_design.h"
_EXECUTABLE = "archsim_bulk"
_PREFIX = "Varchsim_bulk"
_JOB_MAGIC = 0x314A4B42
_RESULT_MAGIC = 0x314B5242


def element_bytes(width: int) -> int:
    """Bytes of one value of a ``width``-bit port in the job and result files.

    Verilator's C type: 1, 2, 4 or 8 bytes up to 64 bits, else ``4 * ceil(width / 32)``.
    """
    if width <= 8:
        return 1
    if width <= 16:
        return 2
    if width <= 32:
        return 4
    if width <= 64:
        return 8
    return 4 * ((width + 31) // 32)


_DTYPES = {1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}
_CTYPES = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}


@dataclass(frozen=True)
class BulkRun:
    """Raw outcome of :func:`run_bulk` (unsigned bit patterns; converted by the caller).

    Attributes
    ----------
    outputs : dict of str to numpy.ndarray or list of int
        Per recorded output, its per-cycle patterns: ``uint64`` arrays for ports of up to 64
        bits, lists of Python ints for wider ones.
    final : dict of str to int
        Every output's pattern after the last clock edge.
    wall_time_s : float
        Seconds of the executable's simulation loop (reset included; ``std::chrono`` inside
        it), excluding building, process start-up and file I/O.
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    cached : bool
        True when the build was reused from the cache.
    """

    outputs: dict[str, np.ndarray | list[int]]
    final: dict[str, int]
    wall_time_s: float
    build_time_s: float
    cached: bool


# --- the generated Verilog and C++ ------------------------------------------------------------

def bulk_wrapper(toplevel: str, inputs: Sequence[Port], outputs: Sequence[Port], *,
                 has_clk: bool, has_rst: bool) -> tuple[str, str]:
    """The wrapper module simulated around ``toplevel`` (module docstring).

    Parameters
    ----------
    toplevel : str
        The design's module name.
    inputs, outputs : sequence of Port
        The design's input and output ports (without ``clk`` and ``rst``), in the order of
        the wrapper's ``in<i>`` and ``out<j>``.
    has_clk, has_rst : bool
        Whether the design has the ``clk`` and ``rst`` ports.

    Returns
    -------
    (str, str)
        The wrapper's module name and its Verilog text.
    """
    name = f"{toplevel}_archsim_bulk"
    names = [f"in{i}" for i in range(len(inputs))] + [f"out{j}" for j in range(len(outputs))]
    if has_clk:
        names.append("clk")
    if has_rst:
        names.append("rst_in")

    def vector(width: int) -> str:
        return "" if width == 1 else f"[{width - 1}:0] "

    lines = [f"// Generated by archsim.sim.rtl.native_bulk around module '{toplevel}'.",
             f"module {name}({', '.join(names)});"]
    lines += [f"  input {vector(p.width)}in{i};" for i, p in enumerate(inputs)]
    lines += [f"  output {vector(p.width)}out{j};" for j, p in enumerate(outputs)]
    connections = [f".{p.name}(in{i})" for i, p in enumerate(inputs)]
    connections += [f".{p.name}(out{j})" for j, p in enumerate(outputs)]
    if has_clk:
        lines.append("  input clk;")
        connections.append(".clk(clk)")
    if has_rst:
        # Starts high: the design's first edge is its reset edge, then rst follows rst_in.
        lines += ["  input rst_in;", "  reg rst_q = 1'b1;",
                  "  always @(posedge clk) rst_q <= rst_in;"]
        connections.append(".rst(rst_q)")
    lines += [f"  {toplevel} dut(" + ", ".join(connections) + ");", "endmodule", ""]
    return name, "\n".join(lines)


def _copy(port: Port, index: int, side: str) -> str:
    """One C++ statement copying cycle ``k``'s value of a port (``side`` "in" or "out")."""
    size = element_bytes(port.width)
    if size <= 8:
        ctype = _CTYPES[size]
        cell = f"reinterpret_cast<{'const ' if side == 'in' else ''}{ctype}*>(c[{index}])" \
               f"[k * s[{index}]]"
        member = f"t->{side}{index}"
        return f"    {member} = {cell};" if side == "in" else f"    {cell} = {member};"
    words = size // 4
    ptr = (f"reinterpret_cast<{'const ' if side == 'in' else ''}uint32_t*>(c[{index}]) + "
           f"k * s[{index}] * {words}")
    body = (f"t->in{index}[w] = p[w];" if side == "in" else f"p[w] = t->out{index}[w];")
    return (f"    {{ {'const ' if side == 'in' else ''}uint32_t* p = {ptr}; "
            f"for (int w = 0; w < {words}; ++w) {body} }}")


def _header(model: str, inputs: Sequence[Port], outputs: Sequence[Port], *, has_clk: bool,
            has_rst: bool) -> str:
    def table(ports: Sequence[Port]) -> str:
        return ", ".join(str(element_bytes(p.width)) for p in ports) or "0"

    lines = [f"// Generated by archsim.sim.rtl.native_bulk for module '{model}'.",
             "#pragma once", "#include <cstdint>", f'#include "{_PREFIX}.h"',
             f"typedef {_PREFIX} ArchsimTop;",
             f"#define ARCHSIM_HAS_CLK {int(has_clk)}",
             f"#define ARCHSIM_HAS_RST {int(has_rst)}",
             f"#define ARCHSIM_N_INPUTS {len(inputs)}",
             f"#define ARCHSIM_N_OUTPUTS {len(outputs)}",
             f"static const uint64_t kInBytes[] = {{{table(inputs)}}};",
             f"static const uint64_t kOutBytes[] = {{{table(outputs)}}};",
             "static inline void archsim_set_inputs(ArchsimTop* t, const uint8_t* const* c, "
             "const uint64_t* s, uint64_t k) {",
             "    (void)t; (void)c; (void)s; (void)k;"]
    lines += [_copy(p, i, "in") for i, p in enumerate(inputs)]
    lines += ["}",
              "static inline void archsim_get_outputs(ArchsimTop* t, uint8_t* const* c, "
              "const uint64_t* s, uint64_t k) {",
              "    (void)t; (void)c; (void)s; (void)k;"]
    lines += [_copy(p, j, "out") for j, p in enumerate(outputs)]
    lines += ["}", ""]
    return "\n".join(lines)


# --- building ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class WrappedPorts:
    """The live ports of a design in the bulk wrapper, with its sources and header."""

    live: list[Port]
    inputs: list[Port]
    outputs: list[Port]
    wrapper: tuple[str, str]
    header: str


def wrap_ports(verilog: str, toplevel: str, ports: Mapping[str, Port]) -> WrappedPorts:
    """Check every live port of ``ports`` is a port of ``toplevel`` in ``verilog`` and build
    the bulk wrapper and its generated header (shared by the one-file and streamed mains).

    Raises
    ------
    ConfigError
        The Verilog has no module ``toplevel``, or lacks a port of the component.
    """
    verilog_ports = _module_ports(verilog, toplevel)
    # Zero-width ports carry nothing (Amaranth declares them [-1:0]): left unconnected, and
    # a recorded one reads 0 every cycle, as in the other backends.
    live = [p for p in ports.values() if p.width > 0]
    for port in live:
        if port.name not in verilog_ports:
            raise ConfigError(f"module '{toplevel}' has no port '{port.name}'",
                              field="verilog")
    inputs = [p for p in live if p.is_input]
    outputs = [p for p in live if not p.is_input]
    has_clk = verilog_ports.get("clk", ("", 0))[0] == "input"
    has_rst = has_clk and verilog_ports.get("rst", ("", 0))[0] == "input"
    wrapper = bulk_wrapper(toplevel, inputs, outputs, has_clk=has_clk, has_rst=has_rst)
    header = _header(wrapper[0], inputs, outputs, has_clk=has_clk, has_rst=has_rst)
    return WrappedPorts(live=live, inputs=inputs, outputs=outputs, wrapper=wrapper,
                        header=header)


def _ensure_build(verilog: str, toplevel: str, wrapper: tuple[str, str], header: str
                  ) -> tuple[Path, float, bool]:
    return build_wrapped(verilog, toplevel, wrapper, header, harness="bulk",
                         template_name=_TEMPLATE, executable=_EXECUTABLE)


def build_wrapped(verilog: str, toplevel: str, wrapper: tuple[str, str], header: str, *,
                  harness: str, template_name: str, executable: str
                  ) -> tuple[Path, float, bool]:
    """Build (or find in the cache) the bulk wrapper of ``toplevel`` with the C++ main
    ``template_name`` shipped in this package; ``(executable path, build s, cached)``.

    The cache key covers the Verilog, the native flags, the wrapper, the generated header,
    the main and the Verilator version, so each main (``harness``) has its own entries.
    """
    template = resources.files(__package__).joinpath(template_name).read_text()
    options = {"toplevel": toplevel, "flags": list(native_flags()), "harness": harness}
    key = content_hash(verilog, json.dumps(options, sort_keys=True), wrapper[1], header,
                       template, _verilator_version())
    sources = HarnessSources(template_name=template_name, template=template,
                             header_name=_HEADER, header=header, prefix=_PREFIX,
                             executable=executable, wrapper=wrapper)
    return build_harness(verilog=verilog, toplevel=toplevel, sources=sources,
                         harness=harness, key=key)


# --- the job and the result -------------------------------------------------------------------

def _pad(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 8)


def _column(values: Sequence[int] | np.ndarray, width: int) -> bytes:
    """Unsigned patterns -> the bytes of a column (module docstring: port widths)."""
    size = element_bytes(width)
    if size <= 8:
        return _pad(np.asarray(values, dtype=np.uint64).astype(_DTYPES[size]).tobytes())
    words = size // 4
    mask = (1 << 32) - 1
    flat = [(int(v) >> (32 * w)) & mask for v in values for w in range(words)]
    return _pad(np.asarray(flat, dtype="<u4").tobytes())


def _encode(ports: Sequence[Port], outputs: Sequence[Port], stimulus: Stimulus) -> bytes:
    cycles = stimulus.cycles
    varies = []
    for port in ports:
        given = stimulus.inputs.get(port.name)
        varies.append(int(given is not None and len(given) > 1))
    recorded = set(stimulus.outputs)
    header = [_JOB_MAGIC, cycles, len(ports), len(outputs), *varies,
              *(int(p.name in recorded) for p in outputs)]
    parts = [np.asarray(header, dtype="<u8").tobytes()]
    for port in ports:
        given = stimulus.inputs.get(port.name)
        parts.append(_column([port.init], port.width))
        parts.append(_column([port.init] if given is None else given, port.width))
    return b"".join(parts)


def _read_column(raw: bytes, offset: int, count: int, width: int
                 ) -> tuple[np.ndarray | list[int], int]:
    size = element_bytes(width)
    if size <= 8:
        column = np.frombuffer(raw, dtype=_DTYPES[size], count=count, offset=offset)
        values: np.ndarray | list[int] = column.astype(np.uint64)
    else:
        words = np.frombuffer(raw, dtype="<u4", count=count * (size // 4), offset=offset)
        rows = words.reshape(count, size // 4).tolist()
        values = [sum(w << (32 * i) for i, w in enumerate(row)) for row in rows]
    return values, offset + size * count + (-(size * count) % 8)


def _decode(raw: bytes, outputs: Sequence[Port], stimulus: Stimulus, toplevel: str
            ) -> tuple[dict[str, np.ndarray | list[int]], dict[str, int], float]:
    header = np.frombuffer(raw, dtype="<u8", count=3) if len(raw) >= 24 else None
    if header is None or int(header[0]) != _RESULT_MAGIC or int(header[1]) != stimulus.cycles:
        raise SimulationError(f"the native simulation of '{toplevel}' wrote no valid result")
    offset = 24
    by_name = {p.name: p for p in outputs}
    recorded: dict[str, np.ndarray | list[int]] = {}
    order = [p.name for p in outputs if p.name in set(stimulus.outputs)]
    try:
        for name in order:
            recorded[name], offset = _read_column(raw, offset, stimulus.cycles,
                                                  by_name[name].width)
        final = {}
        for port in outputs:
            value, offset = _read_column(raw, offset, 1, port.width)
            final[port.name] = int(value[0])
    except ValueError:  # a short file: np.frombuffer ran past its end
        raise SimulationError(f"the native simulation of '{toplevel}' wrote a truncated "
                              "result") from None
    return recorded, final, int(header[2]) * 1e-9


# --- running ----------------------------------------------------------------------------------

def run_bulk(verilog: str, *, toplevel: str, ports: Mapping[str, Port],
             stimulus: Stimulus) -> BulkRun:
    """Build (or reuse) the bulk harness of ``verilog`` and run ``stimulus`` on it.

    Parameters
    ----------
    verilog : str
        Verilog text holding module ``toplevel`` (Amaranth's, as :func:`simulate` makes it).
    toplevel : str
        The module to simulate.
    ports : dict of str to Port
        The component's flat ports (:func:`~archsim.sim.rtl._ports.component_ports`).
    stimulus : Stimulus
        The validated stimulus (:func:`~archsim.sim.rtl._ports.prepare_stimulus`).

    Returns
    -------
    BulkRun

    Raises
    ------
    ConfigError
        The Verilog has no module ``toplevel``, or a port of the component is missing in it.
    ToolchainError
        No C++ compiler, make or perl, or Verilator rejected the Verilog.
    SimulationError
        The executable failed or wrote no valid result.
    """
    w = wrap_ports(verilog, toplevel, ports)
    inputs, outputs = w.inputs, w.outputs
    executable, build_time_s, cached = _ensure_build(verilog, toplevel, w.wrapper, w.header)

    raw = run_harness(executable, _encode(inputs, outputs, stimulus), toplevel=toplevel)
    live_names = {p.name for p in outputs}
    dead = [name for name in stimulus.outputs if name not in live_names]
    recorded, final, wall_time_s = _decode(raw, outputs, stimulus, toplevel)
    recorded = {name: (np.zeros(stimulus.cycles, dtype=np.uint64) if name in dead
                       else recorded[name]) for name in stimulus.outputs}
    final.update({p.name: 0 for p in ports.values() if not p.is_input and p.width == 0})
    return BulkRun(outputs=recorded, final=final, wall_time_s=wall_time_s,
                   build_time_s=build_time_s, cached=cached)
