"""Driven testbenches streamed in chunks: :func:`archsim.sim.rtl.simulate`'s ``"verilator"`` path.

A C++ Verilator main (``native_stream_main.cpp``) reads the stimulus from a pipe in chunks
(default :data:`CHUNK_CYCLES` cycles) into a ring of four chunk buffers filled by a reader
thread, simulates each chunk and writes the recorded outputs of that chunk back on another
pipe. Python produces the chunks lazily (any iterable, e.g. a generator of numpy arrays) in a
writer thread and consumes the outputs as they come, so neither process holds more than a few
chunks however long the run is, and no Python runs per clock edge. Expected output values can
travel with the stimulus; the harness compares them after each chunk and stops at the first
mismatch (lowest cycle, then output order), reporting the cycle, the port, the expected and the
actual value.

The cycle model, the wrapper around the design (ports ``in<i>``/``out<j>``, ``rst`` from a
register that starts high) and the generated header are those of the bulk harness
(:mod:`archsim.sim.rtl.native_bulk`): the same Verilog, with the same flags (``-O3``, no VPI,
no public signals), built once per design under ``cache_dir("native")``, a cache entry of its
own (the main differs, so does the key).

:func:`simulate_stream` is the public entry for long runs: chunks of per-cycle input values
(and expected values) in, per-chunk outputs to a callback, memory bounded by the chunk size.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from ...errors import ArchsimError, ConfigError, SimulationError
from ._ports import Port, Stimulus
from .native_bulk import _column, _read_column, build_wrapped, wrap_ports
from .native_bulk import element_bytes as _element_bytes

if TYPE_CHECKING:
    from amaranth.lib import wiring

__all__ = ["StreamChunk", "StreamMismatch", "StreamRun", "StreamResult", "StreamedStimulus",
           "run_stream", "stream_stimulus", "simulate_stream", "CHUNK_CYCLES", "RING_SLOTS"]

#: Default cycles per chunk: 4096 cycles of the 8x8 array's 56 input bytes are 224 KiB, a few
#: pipe buffers; small enough to keep the ring in cache, large enough that the per-chunk
#: Python work (slicing, one write) is amortized over thousands of cycles.
CHUNK_CYCLES = 4096
#: Chunk buffers in the harness's ring (``kSlots`` in ``native_stream_main.cpp``).
RING_SLOTS = 4

_TEMPLATE = "native_stream_main.cpp"
_EXECUTABLE = "archsim_stream"
_JOB_MAGIC = 0x314A5453
_RESULT_MAGIC = 0x31525453
_MAX_CAPACITY = 1 << 24

InputPatterns = np.ndarray | list[int]
Patterns = np.ndarray | list[int] | list[int | None]


@dataclass(frozen=True)
class StreamChunk:
    """Validated per-cycle patterns of one chunk (unsigned bit patterns).

    Attributes
    ----------
    cycles : int
        Cycles of the chunk.
    inputs : dict of str to patterns
        Per varying input, ``cycles`` patterns.
    expected : dict of str to patterns
        Per checked output, ``cycles`` patterns (``None`` = don't care).
    """

    cycles: int
    inputs: Mapping[str, InputPatterns]
    expected: Mapping[str, Patterns] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamMismatch:
    """The first output that differed from its expected value (unsigned patterns)."""

    port: str
    cycle: int
    expected: int
    actual: int


@dataclass(frozen=True)
class StreamRun:
    """Raw outcome of :func:`run_stream`.

    Attributes
    ----------
    cycles : int
        Cycles simulated (up to and including the chunk of a mismatch).
    final : dict of str to int
        Every output's pattern after the last clock edge simulated.
    mismatch : StreamMismatch or None
        The first mismatch, if any (the run stopped after its chunk).
    wall_time_s : float
        Seconds of the harness's loop (reset included, waiting for stimulus included).
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    cached : bool
        True when the build was reused from the cache.
    harness_peak_rss_bytes : int
        Peak resident memory of the harness process (its ``VmHWM``; 0 off Linux).
    """

    cycles: int
    final: dict[str, int]
    mismatch: StreamMismatch | None
    wall_time_s: float
    build_time_s: float
    cached: bool
    harness_peak_rss_bytes: int


def _ensure_build(verilog: str, toplevel: str, wrapper: tuple[str, str], header: str
                  ) -> tuple[Path, float, bool]:
    return build_wrapped(verilog, toplevel, wrapper, header, harness="stream",
                         template_name=_TEMPLATE, executable=_EXECUTABLE)


def _words(*values: int) -> bytes:
    return np.asarray(values, dtype="<u8").tobytes()


def _care(values: Patterns) -> bytes:
    if isinstance(values, np.ndarray):
        care = np.ones(len(values), dtype=np.uint8)
    else:
        care = np.array([v is not None for v in values], dtype=np.uint8)
    return care.tobytes() + b"\0" * (-len(care) % 8)


def _filled(values: Patterns) -> InputPatterns:
    if isinstance(values, np.ndarray):
        return values
    return [0 if v is None else v for v in values]


def _encode_chunks(chunks: Iterable[StreamChunk], varying: Sequence[Port],
                   checked: Sequence[Port], capacity: int) -> Iterator[bytes]:
    """The frames of the chunks (module docstring of the C++ main), split to ``capacity``."""
    names = [p.name for p in varying]
    for chunk in chunks:
        if sorted(chunk.inputs) != sorted(names) or \
                sorted(chunk.expected) != sorted(p.name for p in checked):
            raise SimulationError(
                f"every chunk must drive the same inputs ({', '.join(names) or 'none'}) and "
                f"check the same outputs ({', '.join(p.name for p in checked) or 'none'}) as "
                f"the first; this one has {', '.join(chunk.inputs) or 'no inputs'} and "
                f"{', '.join(chunk.expected) or 'no expected values'}")
        for begin in range(0, chunk.cycles, capacity):
            end = min(begin + capacity, chunk.cycles)
            parts = [_words(end - begin)]
            for port in varying:
                parts.append(_column(chunk.inputs[port.name][begin:end], port.width))
            for port in checked:
                want = chunk.expected[port.name][begin:end]
                parts.append(_column(_filled(want), port.width))
                parts.append(_care(want))
            yield b"".join(parts)
    yield _words(0)


def _read_exact(stream: IO[bytes], size: int, toplevel: str) -> bytes:
    data = stream.read(size) if size else b""
    if len(data) != size:
        raise _Truncated(toplevel)
    return data


class _Truncated(Exception):
    def __init__(self, toplevel: str) -> None:
        super().__init__(toplevel)


def _padded(size: int) -> int:
    return size + (-size % 8)


def run_stream(verilog: str, *, toplevel: str, ports: Mapping[str, Port],
               held: Mapping[str, int], varying: Sequence[str], record: Sequence[str],
               check: Sequence[str], chunks: Iterable[StreamChunk],
               on_outputs: Callable[[dict[str, np.ndarray | list[int]]], None] | None = None,
               chunk_cycles: int = CHUNK_CYCLES) -> StreamRun:
    """Build (or reuse) the streaming harness of ``verilog`` and run ``chunks`` through it.

    Parameters
    ----------
    verilog : str
        Verilog text holding module ``toplevel``.
    toplevel : str
        The module to simulate.
    ports : dict of str to Port
        The component's flat ports (:func:`~archsim.sim.rtl._ports.component_ports`).
    held : dict of str to int
        Inputs held at one pattern for the whole run (the others not in ``varying`` stay at
        their initial value).
    varying : sequence of str
        Inputs every chunk gives per-cycle patterns for.
    record : sequence of str
        Outputs sent back every cycle, to ``on_outputs`` per chunk.
    check : sequence of str
        Outputs every chunk gives expected patterns for, compared in the harness; of two
        mismatches in one cycle, the first in the component's port order is reported.
    chunks : iterable of StreamChunk
        The stimulus, consumed lazily (in a thread of this process) as the harness needs it.
    on_outputs : callable, optional
        Called once per simulated chunk (of at most ``chunk_cycles`` cycles) with each
        recorded output's patterns (``uint64`` arrays, or lists of ints above 64 bits).
    chunk_cycles : int
        Cycles per chunk in the harness's ring; longer chunks are split.

    Returns
    -------
    StreamRun

    Raises
    ------
    ConfigError
        A port missing in the Verilog, or a bad ``chunk_cycles``.
    ToolchainError
        No C++ compiler, make or perl, or Verilator rejected the Verilog.
    SimulationError
        The harness failed, or a chunk drives other ports than the first (an error raised
        while producing a chunk is re-raised as it is).
    """
    if isinstance(chunk_cycles, bool) or not isinstance(chunk_cycles, int) or \
            not 0 < chunk_cycles <= _MAX_CAPACITY:
        raise ConfigError(f"chunk_cycles must be an int in 1..{_MAX_CAPACITY}, not "
                          f"{chunk_cycles!r}", field="chunk_cycles")
    w = wrap_ports(verilog, toplevel, ports)
    live, inputs, outputs = w.live, w.inputs, w.outputs
    executable, build_time_s, cached = _ensure_build(verilog, toplevel, w.wrapper, w.header)

    # Zero-width ports are not in the wrapper: a zero-width input carries nothing, a recorded
    # zero-width output reads 0 every cycle (as in the other backends).
    live_names = {p.name for p in live}
    varying_names, record_names = set(varying), set(record)
    check_names = {name for name in check if name in live_names}
    # Column order is the wrapper's port order on both sides of the pipe.
    varying_ports = [p for p in inputs if p.name in varying_names]
    dead_varying = {name for name in varying if name not in live_names}
    sent = [p for p in outputs if p.name in record_names]
    checked = [p for p in outputs if p.name in check_names]
    dead_record = [name for name in record if name not in live_names]
    flags = [int(p.name in record_names) | (6 if p.name in check_names else 0)
             for p in outputs]
    head = [_words(_JOB_MAGIC, len(inputs), len(outputs), chunk_cycles),
            _words(*(int(p.name in varying_names) for p in inputs)) if inputs else b"",
            _words(*flags) if outputs else b""]
    head += [_column([p.init], p.width) for p in inputs]
    head += [_column([held.get(p.name, p.init)], p.width) for p in inputs
             if p.name not in varying_names]

    def frames() -> Iterator[bytes]:
        yield b"".join(head)
        live_chunks = (StreamChunk(c.cycles, {k: v for k, v in c.inputs.items()
                                               if k not in dead_varying},
                                   {k: v for k, v in c.expected.items() if k in check_names})
                       for c in chunks)
        yield from _encode_chunks(live_chunks, varying_ports, checked, chunk_cycles)

    failure: list[BaseException] = []
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen([str(executable)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=errors)
        except OSError as exc:
            raise SimulationError(f"cannot run the native simulation of '{toplevel}': "
                                  f"{exc}") from None
        assert proc.stdin is not None and proc.stdout is not None
        stdin = proc.stdin

        def feed() -> None:
            try:
                for frame in frames():
                    stdin.write(frame)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the harness stopped early (a mismatch) or failed: reported below
            except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
                failure.append(exc)
            finally:
                try:
                    stdin.close()
                except OSError:
                    pass

        writer = threading.Thread(target=feed, name="archsim-stream-feed", daemon=True)
        writer.start()
        trailer: _Trailer | None = None
        try:
            trailer = _read_results(proc.stdout, outputs, sent, dead_record, on_outputs,
                                    toplevel)
        except _Truncated:
            trailer = None
        finally:
            proc.stdout.close()
            proc.wait()
            writer.join()
        if failure:
            raise failure[0]
        if trailer is None or proc.returncode != 0:
            errors.seek(0)
            tail = "\n".join(errors.read().decode(errors="replace").strip().splitlines()[-20:])
            raise SimulationError(f"the native simulation of '{toplevel}' failed (exit "
                                  f"status {proc.returncode}):\n{tail or 'no output'}")
    final = dict(trailer.final)
    final.update({p.name: 0 for p in ports.values() if not p.is_input and p.width == 0})
    return StreamRun(cycles=trailer.cycles, final=final, mismatch=trailer.mismatch,
                     wall_time_s=trailer.wall_time_s, build_time_s=build_time_s,
                     cached=cached, harness_peak_rss_bytes=trailer.rss)


@dataclass(frozen=True)
class _Trailer:
    cycles: int
    wall_time_s: float
    mismatch: StreamMismatch | None
    final: dict[str, int]
    rss: int


def _read_results(stdout: IO[bytes], outputs: Sequence[Port], sent: Sequence[Port],
                  dead_record: Sequence[str],
                  on_outputs: Callable[[dict[str, np.ndarray | list[int]]], None] | None,
                  toplevel: str) -> _Trailer:
    """Read the chunks of outputs and the trailer (module docstring of the C++ main)."""
    while True:
        n = int(np.frombuffer(_read_exact(stdout, 8, toplevel), dtype="<u8")[0])
        if n == 0:
            break
        got: dict[str, np.ndarray | list[int]] = {}
        for port in sent:
            raw = _read_exact(stdout, _padded(_element_bytes(port.width) * n), toplevel)
            got[port.name] = _read_column(raw, 0, n, port.width)[0]
        for name in dead_record:
            got[name] = np.zeros(n, dtype=np.uint64)
        if on_outputs is not None:
            on_outputs(got)
    words = np.frombuffer(_read_exact(stdout, 56, toplevel), dtype="<u8")
    magic, status, cycles, wall_ns, bad_cycle, bad_port, rss = (int(w) for w in words)
    if magic != _RESULT_MAGIC or status > 1:
        raise _Truncated(toplevel)
    mismatch = None
    if status == 1:
        port = outputs[bad_port]
        size = _padded(_element_bytes(port.width))
        raw = _read_exact(stdout, 2 * size, toplevel)
        expected = _read_column(raw, 0, 1, port.width)[0][0]
        actual = _read_column(raw, size, 1, port.width)[0][0]
        mismatch = StreamMismatch(port.name, bad_cycle, int(expected), int(actual))
    final = {}
    for port in outputs:
        raw = _read_exact(stdout, _padded(_element_bytes(port.width)), toplevel)
        final[port.name] = int(_read_column(raw, 0, 1, port.width)[0][0])
    return _Trailer(cycles=cycles, wall_time_s=wall_ns * 1e-9, mismatch=mismatch, final=final,
                    rss=rss)


def _signed(port: Port, pattern: int) -> int:
    if port.signed and port.width and pattern >> (port.width - 1):
        return pattern - (1 << port.width)
    return pattern


# --- simulate()'s "verilator" backend ----------------------------------------------------------

@dataclass(frozen=True)
class StreamedStimulus:
    """Raw outcome of :func:`stream_stimulus` (unsigned patterns; converted by the caller).

    Attributes
    ----------
    outputs : dict of str to numpy.ndarray or list of int
        Per recorded output, its per-cycle patterns (``uint64`` arrays; lists of ints for
        ports wider than 64 bits).
    final : dict of str to int
        Every output's pattern after the last clock edge.
    wall_time_s : float
        Seconds of the harness's loop (reset included, waiting for stimulus included).
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    cached : bool
        True when the build was reused from the cache.
    harness_peak_rss_bytes : int
        Peak resident memory of the harness process.
    """

    outputs: dict[str, np.ndarray | list[int]]
    final: dict[str, int]
    wall_time_s: float
    build_time_s: float
    cached: bool
    harness_peak_rss_bytes: int


def stream_stimulus(verilog: str, *, toplevel: str, ports: Mapping[str, Port],
                    stimulus: Stimulus, chunk_cycles: int = CHUNK_CYCLES) -> StreamedStimulus:
    """Run a validated whole stimulus (:func:`simulate`'s) through the streaming harness.

    Inputs of one value are held; the others are sent in chunks of ``chunk_cycles``, with
    the expected values, which the harness compares. On a mismatch the run stops after the
    chunk that holds it and the error is the one :func:`simulate` raises for it (the first
    mismatch in cycle, then ``stimulus.outputs`` order), checked on the outputs received.

    Raises
    ------
    SimulationError
        An output mismatch, or a failed run.
    ConfigError, ToolchainError
        As :func:`run_stream`.
    """
    from ._ports import check_expected, convert_outputs

    cycles = stimulus.cycles
    varying = [name for name, values in stimulus.inputs.items() if len(values) > 1]
    held = {name: int(values[0]) for name, values in stimulus.inputs.items()
            if len(values) == 1}
    check = [name for name in stimulus.outputs if name in stimulus.expected]

    def chunks() -> Iterator[StreamChunk]:
        for begin in range(0, cycles, chunk_cycles):
            end = min(begin + chunk_cycles, cycles)
            yield StreamChunk(end - begin,
                              {name: stimulus.inputs[name][begin:end] for name in varying},
                              {name: stimulus.expected[name][begin:end] for name in check})

    pieces: dict[str, list[np.ndarray | list[int]]] = {name: [] for name in stimulus.outputs}

    def collect(got: dict[str, np.ndarray | list[int]]) -> None:
        for name, values in got.items():
            pieces[name].append(values)

    run = run_stream(verilog, toplevel=toplevel, ports=ports, held=held, varying=varying,
                     record=stimulus.outputs, check=check, chunks=chunks(),
                     on_outputs=collect, chunk_cycles=chunk_cycles)
    outputs: dict[str, np.ndarray | list[int]] = {}
    for name, parts in pieces.items():
        if any(isinstance(part, list) for part in parts):
            outputs[name] = [int(v) for part in parts for v in part]
        else:
            outputs[name] = (np.concatenate(parts) if parts
                             else np.zeros(0, dtype=np.uint64))
    if run.mismatch is not None:
        # The error simulate() gives: checked on the cycles received, in its port order.
        seen = Stimulus(inputs=stimulus.inputs, outputs=stimulus.outputs, cycles=run.cycles,
                        expected={k: v[:run.cycles] for k, v in stimulus.expected.items()})
        check_expected(ports, seen, convert_outputs(ports, outputs))
        port = ports[run.mismatch.port]
        raise SimulationError("output mismatch", signal=port.name, cycle=run.mismatch.cycle,
                              expected=_signed(port, run.mismatch.expected),
                              actual=_signed(port, run.mismatch.actual))
    return StreamedStimulus(outputs=outputs, final=run.final, wall_time_s=run.wall_time_s,
                            build_time_s=run.build_time_s, cached=run.cached,
                            harness_peak_rss_bytes=run.harness_peak_rss_bytes)


# --- the public streaming entry ---------------------------------------------------------------

@dataclass(frozen=True)
class StreamResult:
    """What one :func:`simulate_stream` call measured.

    Attributes
    ----------
    cycles : int
        Cycles simulated.
    final_outputs : dict of str to int
        Every output port's value after the last clock edge (signed ports sign-extended).
    wall_time_s : float
        Seconds of the harness's loop, waiting for stimulus included.
    build_time_s : float
        Seconds spent building (0.0 on a cache hit).
    build_cached : bool
        True when the build was reused from the cache.
    total_time_s : float
        End-to-end seconds of the call.
    harness_peak_rss_bytes : int
        Peak resident memory of the harness process.
    """

    cycles: int
    final_outputs: dict[str, int]
    wall_time_s: float
    build_time_s: float
    build_cached: bool
    total_time_s: float
    harness_peak_rss_bytes: int

    @property
    def cycles_per_s(self) -> float:
        """Simulated cycles per second of :attr:`wall_time_s`."""
        return self.cycles / self.wall_time_s if self.wall_time_s > 0 else float("inf")


def simulate_stream(
    component: wiring.Component,
    chunks: Iterable[Mapping[str, Sequence[int] | np.ndarray]],
    *,
    held: Mapping[str, int] | None = None,
    outputs: Sequence[str] = (),
    on_outputs: Callable[[dict[str, np.ndarray]], None] | None = None,
    chunk_cycles: int = CHUNK_CYCLES,
    name: str = "top",
) -> StreamResult:
    """Run an arbitrarily long driven testbench on ``component`` with bounded memory.

    The cycle model is :func:`archsim.sim.rtl.simulate`'s. ``chunks`` is consumed lazily: each
    item maps input port names to per-cycle values (all of one length within the item) and,
    optionally, output port names to per-cycle expected values (``None`` = don't care), which
    the harness compares; the first mismatch raises. Every item must name the same ports as
    the first. Recorded ``outputs`` go to ``on_outputs`` chunk by chunk (converted as
    :func:`simulate` converts them), never kept here.

    Parameters
    ----------
    component : amaranth.lib.wiring.Component
        The design.
    chunks : iterable of dict
        The stimulus (and expected values), chunk by chunk, e.g. a generator.
    held : dict of str to int, optional
        Inputs held at one value for the whole run.
    outputs : sequence of str
        Outputs handed to ``on_outputs`` per chunk.
    on_outputs : callable, optional
        Receives each chunk's recorded outputs (``int64`` or object arrays).
    chunk_cycles : int
        Cycles per chunk in the harness's ring buffer.
    name : str
        Verilog module name of the design.

    Returns
    -------
    StreamResult

    Raises
    ------
    SimulationError
        A bad value or port in a chunk (the message names the chunk's first cycle), an
        output mismatch (names signal, cycle, expected and actual), or a failed run.
    ConfigError
        A bad ``chunk_cycles``.
    ToolchainError
        No C++ compiler, make or perl, or Verilator rejected the Verilog.
    """
    from ...hw.checks import silence_unused
    from ...hw.verilog import to_verilog
    from ._ports import component_ports, convert_outputs, prepare_stimulus

    begin = time.perf_counter()
    ports = component_ports(component)
    try:
        record = prepare_stimulus(ports, {}, list(outputs), 0, None).outputs
        held_patterns = {k: int(v[0]) for k, v in prepare_stimulus(
            ports, {k: [v] for k, v in (held or {}).items()}, [], 1, None).inputs.items()}
    except ArchsimError:
        silence_unused(component)
        raise
    source = iter(chunks)
    start = 0

    def validated(item: Mapping[str, Sequence[int] | np.ndarray]) -> StreamChunk:
        nonlocal start
        for key in item:
            if key not in ports:
                raise SimulationError(
                    f"unknown port '{key}' in the chunk starting at cycle {start} (a chunk "
                    "maps input ports to values and output ports to expected values; the "
                    f"component's ports are: {', '.join(ports)})", signal=key)
        given_inputs = {k: v for k, v in item.items() if ports[k].is_input}
        given_expected = {k: v for k, v in item.items() if k not in given_inputs}
        try:
            stim = prepare_stimulus(ports, given_inputs, [], None if given_inputs else
                                    len(next(iter(given_expected.values()), [])),
                                    given_expected, as_arrays=True)
        except SimulationError as exc:
            raise SimulationError(f"{exc.reason} (in the chunk starting at cycle {start})",
                                  signal=exc.signal, cycle=None if exc.cycle is None
                                  else start + exc.cycle) from None
        chunk = StreamChunk(stim.cycles, stim.inputs, stim.expected)
        start += stim.cycles
        return chunk

    try:
        first = validated(next(source))
    except StopIteration:
        first = StreamChunk(0, {})
    except ArchsimError:
        silence_unused(component)
        raise

    def all_chunks() -> Iterator[StreamChunk]:
        yield first
        for item in source:
            yield validated(item)

    def deliver(raw: dict[str, np.ndarray | list[int]]) -> None:
        if on_outputs is not None:
            on_outputs(convert_outputs(ports, raw))

    run = run_stream(to_verilog(component, name=name), toplevel=name, ports=ports,
                     held=held_patterns, varying=list(first.inputs),
                     record=record, check=list(first.expected), chunks=all_chunks(),
                     on_outputs=deliver, chunk_cycles=chunk_cycles)
    if run.mismatch is not None:
        port = ports[run.mismatch.port]
        raise SimulationError("output mismatch", signal=port.name, cycle=run.mismatch.cycle,
                              expected=_signed(port, run.mismatch.expected),
                              actual=_signed(port, run.mismatch.actual))
    final = {k: _signed(ports[k], v) for k, v in run.final.items()}
    return StreamResult(cycles=run.cycles, final_outputs=final, wall_time_s=run.wall_time_s,
                        build_time_s=run.build_time_s, build_cached=run.cached,
                        total_time_s=time.perf_counter() - begin,
                        harness_peak_rss_bytes=run.harness_peak_rss_bytes)
