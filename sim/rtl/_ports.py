"""Ports of a component under simulation, and the stimulus/response checks both backends share.

Both backends see the same flat port list (Amaranth's Verilog naming: member ``x.data`` is
port ``x__data``), validate inputs the same way, and return outputs converted the same way,
so their results can be compared value for value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from amaranth.hdl import Value
from amaranth.lib import wiring

from ...errors import SimulationError

__all__ = ["Port", "Stimulus", "component_ports", "prepare_stimulus", "convert_outputs",
           "check_expected", "WIDE_BITS"]

#: Ports wider than this give object arrays of Python ints instead of int64 arrays.
WIDE_BITS = 63


@dataclass(frozen=True)
class Port:
    """One flat port of the component.

    Attributes
    ----------
    name : str
        Flat name, as in the Verilog (``x__data`` for member ``x.data``).
    width : int
        Width in bits.
    signed : bool
        Whether values read from the port are sign-extended.
    is_input : bool
        Direction seen from the component.
    init : int
        Initial value as an unsigned bit pattern (inputs are held at it when not driven).
    signal : Any
        The Amaranth signal (used by the pysim backend).
    """

    name: str
    width: int
    signed: bool
    is_input: bool
    init: int
    signal: Any


def component_ports(component: wiring.Component) -> dict[str, Port]:
    """Return the flat ports of ``component`` by name, in signature order."""
    if not isinstance(component, wiring.Component):
        raise TypeError(f"Component must be an amaranth.lib.wiring.Component, not {component!r}")
    ports: dict[str, Port] = {}
    for path, member, value in component.signature.flatten(component):
        signal = Value.cast(value)
        shape = signal.shape()
        name = "__".join(str(part) for part in path)
        ports[name] = Port(
            name=name,
            width=shape.width,
            signed=shape.signed,
            is_input=member.flow == wiring.In,
            init=int(signal.init) & ((1 << shape.width) - 1),
            signal=signal,
        )
    return ports


@dataclass
class Stimulus:
    """Validated stimulus: unsigned bit patterns per driven input, recorded outputs, cycles.

    Patterns are lists of Python ints, or ``uint64`` arrays where :func:`prepare_stimulus`
    was asked for arrays.
    """

    inputs: dict[str, list[int] | np.ndarray]  # port -> per-cycle patterns (1 or cycles)
    outputs: list[str]
    cycles: int
    expected: dict[str, list[int | None] | np.ndarray]


def _unknown(kind: str, name: str, ports: Mapping[str, Port], want_input: bool) -> SimulationError:
    names = [p.name for p in ports.values() if p.is_input == want_input]
    return SimulationError(
        f"unknown {kind} port '{name}' (the component's {kind} ports are: "
        f"{', '.join(names) or 'none'})",
        signal=name,
    )


def _as_int_list(values: Any, port: str, what: str) -> list | np.ndarray:
    # A 1-D array is returned as it is (converted to a list only on the per-value path).
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise SimulationError(f"{what} for port '{port}' must be one-dimensional, "
                                  f"not of shape {values.shape}", signal=port)
        return values
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise SimulationError(f"{what} for port '{port}' must be a sequence of ints, "
                              f"not {type(values).__name__}", signal=port)
    return list(values)


def _to_pattern(value: Any, port: Port, cycle: int, what: str) -> int:
    """Return ``value`` as an unsigned bit pattern of the port's width, or raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SimulationError(f"{what} value {value!r} for port '{port.name}' is not an int",
                              signal=port.name, cycle=cycle)
    value = int(value)
    # Two's complement for a signed port, 0..2**width - 1 for an unsigned one (a 1-bit
    # unsigned port takes 0..1, not -1).
    if port.signed and port.width:
        low, high = -(1 << (port.width - 1)), (1 << (port.width - 1)) - 1
    else:
        low, high = 0, (1 << port.width) - 1
    if not low <= value <= high:
        kind = "signed" if port.signed else "unsigned"
        raise SimulationError(
            f"{what} value {value} at cycle {cycle} does not fit port '{port.name}' "
            f"({kind}, {port.width} bits: {low}..{high})",
            signal=port.name, cycle=cycle,
        )
    return value & ((1 << port.width) - 1)


def _array_patterns(values: Any, port: Port) -> np.ndarray | None:
    """The patterns of a numpy integer array whose values all fit ``port``, else None.

    The vectorised twin of :func:`_to_pattern` for long stimulus (same bounds, same result);
    None sends anything else, out-of-range values included, to the per-value path, which
    raises its error naming the first bad cycle.
    """
    if (not isinstance(values, np.ndarray) or values.ndim != 1 or values.size == 0
            or values.dtype.kind not in "iu" or not 0 < port.width <= 64):
        return None
    if port.signed:
        low, high = -(1 << (port.width - 1)), (1 << (port.width - 1)) - 1
    else:
        low, high = 0, (1 << port.width) - 1
    if int(values.min()) < low or int(values.max()) > high:
        return None
    # astype(uint64) is two's complement for negatives; the mask keeps the port's bits.
    return values.astype(np.uint64) & np.uint64((1 << port.width) - 1)


def _listed(values: list | np.ndarray) -> list:
    return values.tolist() if isinstance(values, np.ndarray) else values


def prepare_stimulus(
    ports: Mapping[str, Port],
    inputs: Mapping[str, Any] | None,
    outputs: Sequence[str] | None,
    cycles: int | None,
    expected: Mapping[str, Any] | None,
    *,
    as_arrays: bool = False,
) -> Stimulus:
    """Validate the user's stimulus against the ports; raise :class:`SimulationError` if bad.

    With ``as_arrays``, the patterns of numpy integer inputs and expected values of ports up
    to 64 bits stay ``uint64`` arrays (for a backend that moves them in bulk); otherwise
    every pattern is a list of Python ints.
    """
    inputs = dict(inputs or {})
    for name in inputs:
        if name not in ports or not ports[name].is_input:
            raise _unknown("input", name, ports, True)
    seqs = {name: _as_int_list(values, name, "inputs") for name, values in inputs.items()}

    if cycles is None:
        if not seqs:
            raise SimulationError("cycles must be given when there are no inputs")
        lengths = {name: len(v) for name, v in seqs.items()}
        cycles = next(iter(lengths.values()))
        for name, length in lengths.items():
            if length != cycles:
                first = next(iter(lengths))
                raise SimulationError(
                    f"input sequences have unequal lengths: port '{name}' has {length} values, "
                    f"port '{first}' has {cycles}", signal=name)
    else:
        if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 0:
            raise SimulationError(f"cycles must be a non-negative int, not {cycles!r}")
        cycles = int(cycles)
        for name, v in seqs.items():
            if len(v) not in (1, cycles):
                raise SimulationError(
                    f"input port '{name}' has {len(v)} values; it needs one per cycle "
                    f"({cycles}) or a single value held for every cycle", signal=name)

    patterns: dict[str, list[int] | np.ndarray] = {}
    for name, v in seqs.items():
        if len(v) == 0:
            raise SimulationError(f"input port '{name}' has no values", signal=name)
        port = ports[name]
        fast = _array_patterns(v, port)
        if fast is None:
            patterns[name] = [_to_pattern(x, port, k, "input") for k, x in enumerate(_listed(v))]
        else:
            patterns[name] = fast if as_arrays else fast.tolist()

    if outputs is None:
        record = [p.name for p in ports.values() if not p.is_input]
    else:
        if isinstance(outputs, str):
            raise SimulationError(f"outputs must be a list of port names, not the string "
                                  f"{outputs!r}")
        record = []
        for name in outputs:
            if name not in ports or ports[name].is_input:
                raise _unknown("output", name, ports, False)
            if name not in record:
                record.append(name)

    checks: dict[str, list[int | None] | np.ndarray] = {}
    for name, values in (expected or {}).items():
        if name not in ports or ports[name].is_input:
            raise _unknown("output", name, ports, False)
        if values is None:
            continue
        seq = _as_int_list(values, name, "expected")
        if len(seq) != cycles:
            raise SimulationError(f"expected values for port '{name}' have length {len(seq)}, "
                                  f"not the {cycles} cycles simulated", signal=name)
        port = ports[name]
        fast = _array_patterns(seq, port)
        if fast is None:
            checks[name] = [None if x is None else _to_pattern(x, port, k, "expected")
                            for k, x in enumerate(_listed(seq))]
        else:
            checks[name] = fast if as_arrays else fast.tolist()
        if name not in record:
            record.append(name)
    return Stimulus(inputs=patterns, outputs=record, cycles=cycles, expected=checks)


def convert_outputs(
    ports: Mapping[str, Port], raw: Mapping[str, Sequence[int] | np.ndarray]
) -> dict[str, np.ndarray]:
    """Turn recorded unsigned patterns into the result arrays (signed ports sign-extended)."""
    result = {}
    for name, values in raw.items():
        port = ports[name]
        if port.width > WIDE_BITS:
            if port.signed:
                half = 1 << (port.width - 1)
                values = [(int(v) ^ half) - half for v in values]
            arr = np.empty(len(values), dtype=object)
            arr[:] = [int(v) for v in values]
        else:
            arr = np.asarray(values, dtype=np.int64).reshape(-1)
            if port.signed and port.width:
                half_i64 = np.int64(1 << (port.width - 1))
                arr = (arr ^ half_i64) - half_i64
        result[name] = arr
    return result


def check_expected(
    ports: Mapping[str, Port], stimulus: Stimulus, outputs: Mapping[str, np.ndarray]
) -> None:
    """Raise :class:`SimulationError` for the first mismatch (lowest cycle, then port order)."""
    first: tuple[int, int, str, int] | None = None  # cycle, port order, port, expected
    for order, name in enumerate(stimulus.outputs):
        want = stimulus.expected.get(name)
        if want is None:
            continue
        mask = (1 << ports[name].width) - 1
        got = outputs[name]
        if ports[name].width <= WIDE_BITS:
            # Vectorised: the first cared-for cycle whose masked value differs.
            if isinstance(want, np.ndarray):
                care = np.ones(len(want), dtype=bool)
                wanted = want.astype(np.int64)  # patterns below 2**63
            else:
                care = np.array([w is not None for w in want], dtype=bool)
                wanted = np.array([0 if w is None else w for w in want], dtype=np.int64)
            bad = np.flatnonzero(care & ((np.asarray(got, dtype=np.int64) & mask) != wanted))
            if bad.size:
                k = int(bad[0])
                w = want[k]
                assert w is not None
                if first is None or (k, order) < first[:2]:
                    first = (k, order, name, int(w))
            continue
        for k, w in enumerate(_listed(want)):
            if w is not None and (int(got[k]) & mask) != w:
                if first is None or (k, order) < first[:2]:
                    first = (k, order, name, int(w))
                break
    if first is not None:
        k, _, name, expected = first
        port = ports[name]
        if port.signed and expected >> (port.width - 1):
            expected -= 1 << port.width
        raise SimulationError("output mismatch", signal=name, cycle=k, expected=expected,
                              actual=int(outputs[name][k]))
