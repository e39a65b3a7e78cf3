"""The accelerator level of the DSL: units, buffers, domains and a controller program.

An :class:`Accelerator` is a description: *units* (a compiled ``@kernel``, a library
component such as the GEMM array or the softmax unit, or a user's own component with the unit
contract of :mod:`archsim.hw.accel.interface`) whose memory operands are *bound* to
*buffers* (words x width x banks x ports of a stated technology), every part in a clock and
power *domain* with its operating points, and a *program*: the host-loaded sequence of unit
invocations (with buffer offsets and sizes) and operating-point changes the controller runs.

>>> from archsim.dsl.accel import Accelerator
>>> npu = Accelerator(name="npu")
>>> npu.domain("core", operating_points={"nominal": (0.9, 500e6), "low": (0.7, 250e6)})
>>> npu.buffer("x", words=256, width=16, domain="core")
>>> npu.buffer("y", words=256, width=16, domain="core")
>>> npu.unit("sm", "softmax", bind={"src": "x", "dst": "y"}, domain="core")
>>> prog = npu.program()
>>> prog.run("sm", src_addr=0, dst_addr=0, rows=4, n=16)
>>> compiled = npu.compile()                     # doctest: +SKIP

``prog.start(unit, ...)`` invokes a unit without waiting for it and ``prog.wait()`` joins
every unit so started, so units can run at once (sharing buffer ports by priority).
``prog.set_operating_point(domain, from_unit=unit)`` is a data-dependent switch: the domain
goes to the operating point that ``unit`` (EdgeBERT's ``entropy_dvfs``: the layer-1 entropy
binned into a host-programmed table) selected when it ran.

The description is plain data; :meth:`Accelerator.compile` (:mod:`archsim.compilers.accel`,
reached lazily) instantiates the units, checks every binding and program against them, and
gives the three views: golden (the program run on numpy buffers), RTL (one top-level
component) and model (cycles and energy at the operating points). Every declaration records
the file and line it was written on, and an error about it names them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import ConfigError, DSLError

if TYPE_CHECKING:
    from ..compilers.accel.compiled import CompiledAccelerator

__all__ = ["Accelerator", "BufferSpec", "UnitSpec", "DomainSpec", "Program", "Run",
           "SetOperatingPoint", "Wait", "Instruction", "TECHNOLOGY_NAMES", "LIBRARY_UNIT_KINDS",
           "MAIN_DOMAIN", "SourceLocation", "as_accelerator", "as_program"]

#: Memory technologies a buffer may name (their tables: :mod:`archsim.hw.models.memtech`).
TECHNOLOGY_NAMES = ("sram", "edram", "reram")

#: Library unit kinds a unit may name; anything else must be a ``@kernel`` or a unit factory.
LIBRARY_UNIT_KINDS = ("gemm", "softmax", "layernorm", "entropy", "vector", "stream",
                      "adaptivfloat_dot", "adaptivfloat_gemm", "entropy_dvfs", "bitmask_decode",
                      "bitmask_encode", "adaptivfloat_convert", "gather_reduce")

#: The always-on domain every description has: the controller and the bus live in it.
MAIN_DOMAIN = "main"

#: The main domain's operating point unless declared: 0.9 V (the 45 nm reference supply of
#: :mod:`archsim.hw.models.energy`), 500 MHz (assumed).
DEFAULT_OPERATING_POINT = (0.9, 500e6)


@dataclass(frozen=True)
class SourceLocation:
    """Where a declaration was written (for error messages)."""

    filename: str | None
    lineno: int | None

    def error(self, message: str, *, hint: str | None = None) -> DSLError:
        """A :class:`DSLError` pointing at this location."""
        return DSLError(message, filename=self.filename, lineno=self.lineno, hint=hint)


def _caller(depth: int = 2) -> SourceLocation:
    """The user's file and line: the first frame outside this module."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return SourceLocation(None, None)
    return SourceLocation(frame.f_code.co_filename, frame.f_lineno)


def _positive_int(where: SourceLocation, what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise where.error(f"{what} must be a positive int, not {value!r}")
    return value


def _name(where: SourceLocation, what: str, value: object) -> str:
    if not isinstance(value, str) or not value.isidentifier():
        raise where.error(f"{what} must be an identifier (letters, digits, _), not {value!r}")
    return value


@dataclass(frozen=True)
class DomainSpec:
    """A clock and power domain.

    Attributes
    ----------
    name : str
    operating_points : dict of str to (float, float)
        Operating-point name -> ``(voltage_v, frequency_hz)``; the first is the one a run
        starts at.
    vf_table : tuple of (float, float) or None
        ``(voltage_v, max_frequency_hz)`` points of the domain's voltage-frequency relation;
        every operating point must lie on or under it (checked when compiled).
    regulated : bool
        True when the domain has an LDO and an ADPLL driven by the DVFS controller (so its
        point can change during a run); False for a fixed supply and clock.
    """

    name: str
    operating_points: dict[str, tuple[float, float]]
    vf_table: tuple[tuple[float, float], ...] | None
    regulated: bool
    where: SourceLocation = field(compare=False, repr=False)

    @property
    def initial_point(self) -> str:
        """The operating point a run starts at."""
        return next(iter(self.operating_points))

    def point_index(self, name: str) -> int:
        """The index of operating point ``name`` (as the program encodes it)."""
        names = list(self.operating_points)
        if name not in names:
            raise self.where.error(f"domain {self.name!r} has no operating point {name!r}; "
                                   f"it has {names}")
        return names.index(name)


@dataclass(frozen=True)
class BufferSpec:
    """A buffer: ``words`` elements of ``width`` bits in ``banks`` banks.

    Attributes
    ----------
    name : str
    words, width, banks : int
        Elements, bits per element (at most 32: the host bus moves one element per word) and
        cyclic banks (a power of two; a row port reads one element of every bank at once).
    read_ports, write_ports : int
        Ports of the macro; operands of one unit on this buffer need one port each, operands
        of different units share ports (the controller runs one unit at a time).
    technology : str
        One of :data:`TECHNOLOGY_NAMES`.
    domain : str
    temperature_c : float or None
        Operating temperature of an eDRAM buffer (its retention, hence its refresh rate,
        depends on it); None: the technology table's reference temperature.
    """

    name: str
    words: int
    width: int
    banks: int
    read_ports: int
    write_ports: int
    technology: str
    domain: str
    where: SourceLocation = field(compare=False, repr=False)
    temperature_c: float | None = None


#: A unit given as something that builds an accelerator unit: a library kind name, a
#: ``@kernel`` (compiled by the HLS compiler), or a callable taking ``addr_width`` and
#: returning an :class:`archsim.hw.accel.interface.Unit`.
UnitSource = str | object


@dataclass(frozen=True)
class UnitSpec:
    """A unit of the accelerator.

    Attributes
    ----------
    name : str
    source : str or Kernel or callable
        A library kind (:data:`LIBRARY_UNIT_KINDS`), a ``@kernel``, or a factory
        ``f(addr_width=...) -> Unit``.
    params : dict
        Keyword arguments of the library unit's or the factory's constructor (for a kernel:
        ``clock_ns`` and the other ``synthesize`` options).
    bind : dict of str to str
        Operand name -> buffer name.
    domain : str
    """

    name: str
    source: UnitSource
    params: dict[str, object]
    bind: dict[str, str]
    domain: str
    where: SourceLocation = field(compare=False, repr=False)


@dataclass(frozen=True)
class Run:
    """Invoke unit ``unit`` with ``args`` (operand base addresses and sizes); with ``wait``
    False the controller goes on without waiting for it (:meth:`Program.start`)."""

    unit: str
    args: dict[str, int]
    where: SourceLocation = field(compare=False, repr=False)
    wait: bool = True


@dataclass(frozen=True)
class Wait:
    """Wait until every unit started without waiting has finished (:meth:`Program.wait`)."""

    where: SourceLocation = field(compare=False, repr=False)


@dataclass(frozen=True)
class SetOperatingPoint:
    """Move domain ``domain`` to operating point ``point`` (the DVFS controller's job), or,
    with ``point`` None, to the point unit ``from_unit`` selected from its data (an indirect
    switch: the accelerator's DVFS-select register, written by the last unit with a result
    -- EdgeBERT's ``entropy_dvfs`` -- to finish)."""

    domain: str
    point: str | None
    where: SourceLocation = field(compare=False, repr=False)
    from_unit: str | None = None

    @property
    def indirect(self) -> bool:
        """The point comes from a unit's result, not from the program."""
        return self.point is None


Instruction = Run | SetOperatingPoint | Wait


class Program:
    """A controller program: the steps a host loads into the accelerator and starts.

    Written in Python (a loop in Python writes a step per iteration); it is data, encoded
    into the program memory by the compiled accelerator, so a new program needs no new RTL.
    """

    def __init__(self, accelerator: Accelerator) -> None:
        self.accelerator = accelerator
        self.steps: list[Instruction] = []

    def run(self, unit: str, **args: int) -> Program:
        """Append an invocation of ``unit``; the controller waits for it to finish (a
        :class:`DSLError` names an unknown unit)."""
        return self._run(unit, args, wait=True)

    def start(self, unit: str, **args: int) -> Program:
        """Append an invocation of ``unit`` that the controller does not wait for: the next
        steps run while it does, until :meth:`wait` (or the end of the program, or another
        invocation of the same unit). Steps running at once must not write what another
        reads or writes (checked when compiled); they share buffer ports by priority
        (declaration order), so their time is then a bound."""
        return self._run(unit, args, wait=False)

    def wait(self) -> Program:
        """Append a wait for every unit started with :meth:`start`."""
        self.steps.append(Wait(_caller()))
        return self

    def _run(self, unit: str, args: dict[str, int], *, wait: bool) -> Program:
        where = _caller()
        if unit not in self.accelerator.units:
            raise where.error(f"program runs unit {unit!r}, which accelerator "
                              f"{self.accelerator.name!r} does not have; it has "
                              f"{list(self.accelerator.units)}")
        for key, value in args.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise where.error(f"argument {key!r} of unit {unit!r} must be a "
                                  f"non-negative int, not {value!r}")
        self.steps.append(Run(unit, dict(args), where, wait))
        return self

    def set_operating_point(self, domain: str, point: str | None = None, *,
                            from_unit: str | None = None) -> Program:
        """Append a change of ``domain`` to operating point ``point``, or (``from_unit``
        instead of ``point``) to the point unit ``from_unit`` selected from its data: the
        operating-point index in its result, e.g. an ``entropy_dvfs`` unit's pick from the
        layer-1 entropy (an indirect switch; ``from_unit`` must have run, and finished,
        before it, with no other result-bearing unit since -- checked when compiled)."""
        where = _caller()
        spec = self.accelerator.domains.get(domain)
        if spec is None:
            raise where.error(f"program sets domain {domain!r}, which accelerator "
                              f"{self.accelerator.name!r} does not have; it has "
                              f"{list(self.accelerator.domains)}")
        if (point is None) == (from_unit is None):
            raise where.error(f"set_operating_point({domain!r}) takes either an operating "
                              "point name or from_unit= (the unit whose result selects it), "
                              "not both and not neither")
        if point is not None and point not in spec.operating_points:
            raise where.error(f"domain {domain!r} has no operating point {point!r}; it has "
                              f"{list(spec.operating_points)}")
        if from_unit is not None:
            if from_unit not in self.accelerator.units:
                raise where.error(f"set_operating_point({domain!r}, from_unit={from_unit!r}):"
                                  f" accelerator {self.accelerator.name!r} has no unit "
                                  f"{from_unit!r}; it has {list(self.accelerator.units)}")
            if not any(isinstance(s, Run) and s.unit == from_unit for s in self.steps):
                raise where.error(f"set_operating_point({domain!r}, from_unit={from_unit!r}):"
                                  f" unit {from_unit!r} has not run yet in this program, so "
                                  "it has selected no operating point",
                                  hint=f"run {from_unit!r} (e.g. on the layer-1 entropy) "
                                       "before the switch")
        if not spec.regulated:
            raise where.error(f"domain {domain!r} has a fixed supply and clock "
                              "(regulated=False): its operating point cannot change")
        self.steps.append(SetOperatingPoint(domain, point, where, from_unit))
        return self

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.steps)


class Accelerator:
    """An accelerator description (see the module docstring).

    Parameters
    ----------
    name : str
        The Verilog module name of its top level.
    program_words : int
        Words of the controller's program memory.
    main_point : (float, float)
        ``(voltage_v, frequency_hz)`` of the always-on ``main`` domain (controller, bus).
    """

    def __init__(self, *, name: str, program_words: int = 1024,
                 main_point: tuple[float, float] = DEFAULT_OPERATING_POINT) -> None:
        where = _caller()
        self.name = _name(where, "accelerator name", name)
        self.program_words = _positive_int(where, "program_words", program_words)
        self.where = where
        self.domains: dict[str, DomainSpec] = {}
        self.buffers: dict[str, BufferSpec] = {}
        self.units: dict[str, UnitSpec] = {}
        self.domains[MAIN_DOMAIN] = DomainSpec(
            MAIN_DOMAIN, {"nominal": _point(where, MAIN_DOMAIN, "nominal", main_point)},
            None, False, where)

    # -- declarations ----------------------------------------------------------------------
    def domain(self, name: str, *, operating_points: Mapping[str, tuple[float, float]],
               vf_table: tuple[tuple[float, float], ...] | None = None,
               regulated: bool = True) -> None:
        """Declare a clock/power domain with its operating points (see :class:`DomainSpec`)."""
        where = _caller()
        _name(where, "domain name", name)
        if name in self.domains:
            raise where.error(f"domain {name!r} is declared twice (first at "
                              f"{_loc(self.domains[name].where)})")
        if not isinstance(operating_points, Mapping) or not operating_points:
            raise where.error(f"domain {name!r} needs at least one operating point "
                              "(name -> (voltage_v, frequency_hz))")
        points = {_name(where, "operating-point name", p): _point(where, name, p, vf)
                  for p, vf in operating_points.items()}
        table = None
        if vf_table is not None:
            table = tuple(_point(where, name, f"vf_table[{i}]", p)
                          for i, p in enumerate(vf_table))
            if len(table) < 2:
                raise where.error(f"domain {name!r}: vf_table needs at least two points")
        if not isinstance(regulated, bool):
            raise where.error(f"regulated must be a bool, not {regulated!r}")
        self.domains[name] = DomainSpec(name, points, table, regulated, where)

    def buffer(self, name: str, *, words: int, width: int, banks: int = 1,
               read_ports: int = 1, write_ports: int = 1, technology: str = "sram",
               domain: str = MAIN_DOMAIN, temperature_c: float | None = None) -> None:
        """Declare a buffer (see :class:`BufferSpec`)."""
        where = _caller()
        _name(where, "buffer name", name)
        self._check_new(where, name)
        words = _positive_int(where, f"buffer {name!r}: words", words)
        width = _positive_int(where, f"buffer {name!r}: width", width)
        if width > 32:
            raise where.error(f"buffer {name!r}: width {width} is wider than the 32-bit host "
                              "bus word; split it into several buffers")
        banks = _positive_int(where, f"buffer {name!r}: banks", banks)
        if banks & (banks - 1):
            raise where.error(f"buffer {name!r}: banks must be a power of two, not {banks}")
        if words % banks:
            raise where.error(f"buffer {name!r}: words ({words}) must be a multiple of banks "
                              f"({banks})")
        read_ports = _positive_int(where, f"buffer {name!r}: read_ports", read_ports)
        write_ports = _positive_int(where, f"buffer {name!r}: write_ports", write_ports)
        if technology not in TECHNOLOGY_NAMES:
            raise where.error(f"buffer {name!r}: unknown technology {technology!r}; allowed: "
                              f"{', '.join(TECHNOLOGY_NAMES)}")
        self._check_domain(where, f"buffer {name!r}", domain)
        if temperature_c is not None:
            if technology != "edram":
                raise where.error(f"buffer {name!r}: temperature_c sets an eDRAM's retention; "
                                  f"a {technology} buffer takes none")
            if isinstance(temperature_c, bool) or not isinstance(temperature_c, int | float) \
                    or not -55 <= temperature_c <= 150:
                raise where.error(f"buffer {name!r}: temperature_c must be a number of degrees "
                                  f"Celsius in -55..150, not {temperature_c!r}")
            temperature_c = float(temperature_c)
        self.buffers[name] = BufferSpec(name, words, width, banks, read_ports, write_ports,
                                        technology, domain, where, temperature_c)

    def unit(self, name: str, source: UnitSource, *, bind: Mapping[str, str],
             domain: str = MAIN_DOMAIN, **params: object) -> None:
        """Declare a unit and bind its operands to buffers (see :class:`UnitSpec`)."""
        where = _caller()
        _name(where, "unit name", name)
        self._check_new(where, name)
        if isinstance(source, str):
            if source not in LIBRARY_UNIT_KINDS:
                raise where.error(f"unit {name!r}: unknown library unit {source!r}; allowed: "
                                  f"{', '.join(LIBRARY_UNIT_KINDS)} (or pass a @kernel or a "
                                  "unit factory)")
        elif not callable(source) and not hasattr(source, "synthesize"):
            raise where.error(f"unit {name!r}: source must be a library unit name, a @kernel "
                              f"or a unit factory, not {source!r}")
        if not isinstance(bind, Mapping):
            raise where.error(f"unit {name!r}: bind must map operand names to buffer names")
        for operand, buf in bind.items():
            if buf not in self.buffers:
                raise where.error(f"unit {name!r}: operand {operand!r} is bound to buffer "
                                  f"{buf!r}, which is not declared; buffers: "
                                  f"{list(self.buffers)}")
            spec = self.buffers[buf]
            if spec.domain != domain:
                raise where.error(
                    f"unit {name!r} (domain {domain!r}) uses buffer {buf!r} of domain "
                    f"{spec.domain!r} without a synchronizer",
                    hint="put the unit and the buffers it reads and writes in one domain")
        self._check_domain(where, f"unit {name!r}", domain)
        self.units[name] = UnitSpec(name, source, dict(params), dict(bind), domain, where)

    def program(self) -> Program:
        """A new, empty controller program for this accelerator."""
        return Program(self)

    # -- views -------------------------------------------------------------------------------
    def compile(self) -> CompiledAccelerator:
        """Instantiate the units and check every binding: the three views of this description.

        See :class:`archsim.compilers.accel.CompiledAccelerator`.
        """
        from ..compilers.accel.compiled import compile_accelerator

        return compile_accelerator(self)

    # -- helpers -------------------------------------------------------------------------------
    def _check_new(self, where: SourceLocation, name: str) -> None:
        for kind, table in (("buffer", self.buffers), ("unit", self.units)):
            if name in table:
                raise where.error(f"{name!r} is already a {kind} (declared at "
                                  f"{_loc(table[name].where)})")

    def _check_domain(self, where: SourceLocation, what: str, domain: str) -> None:
        if domain not in self.domains:
            raise where.error(f"{what}: unknown domain {domain!r}; declared domains: "
                              f"{list(self.domains)}")


def _loc(where: SourceLocation) -> str:
    return f"{where.filename}:{where.lineno}" if where.filename else "<unknown>"


def _point(where: SourceLocation, domain: str, name: str, value: object) -> tuple[float, float]:
    ok = (isinstance(value, tuple | list) and len(value) == 2
          and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                  and v > 0 for v in value))
    if not ok:
        raise where.error(f"domain {domain!r}: operating point {name!r} must be "
                          f"(voltage_v, frequency_hz), both positive, not {value!r}")
    voltage_v, frequency_hz = float(value[0]), float(value[1])  # type: ignore[index]
    if not 0.1 <= voltage_v <= 5.0:
        raise where.error(f"domain {domain!r}: operating point {name!r} has voltage "
                          f"{voltage_v} V; expected 0.1..5 V (volts, not millivolts)")
    if frequency_hz < 1e3:
        raise where.error(f"domain {domain!r}: operating point {name!r} has frequency "
                          f"{frequency_hz} Hz; give hertz (e.g. 500e6)")
    return voltage_v, frequency_hz


def as_accelerator(obj: object, *, name: str, field: str) -> Accelerator:
    """``obj`` if it is an :class:`Accelerator`, else what it returns when called with no
    arguments (a factory); a :class:`ConfigError` about ``name`` (the object's import path)
    and ``field`` otherwise."""
    if callable(obj) and not isinstance(obj, Accelerator):
        try:
            obj = obj()
        except TypeError as exc:  # a function of some other signature
            raise ConfigError(f"'{name}' is not a factory of an accelerator (called with no "
                              f"arguments: {exc})", field=field) from None
    if not isinstance(obj, Accelerator):
        raise ConfigError(f"'{name}' is not an archsim.dsl.accel.Accelerator nor a factory of "
                          "one", field=field)
    return obj


def as_program(built: object, *, name: str, field: str) -> Program:
    """What a program builder ``name`` returned: a :class:`Program`, or a tuple whose first
    item is one (``(program, layout)``); a :class:`ConfigError` naming ``field`` otherwise."""
    program = built[0] if isinstance(built, tuple) and built else built
    if not isinstance(program, Program):
        raise ConfigError(f"'{name}' returned {type(program).__name__}, not a Program",
                          field=field)
    return program
