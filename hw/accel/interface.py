"""The unit contract: how a unit of an accelerator meets its buffers and its controller.

Every unit of an accelerator (a GEMM array, a special-function unit, a vector unit, a
compiled DSL kernel, a user's own Amaranth component) is a :class:`amaranth.lib.wiring.Component`
with the same control members and one memory port per *operand*:

``start`` (In 1)
    Sampled high in a cycle ``s`` while the unit is idle: the unit latches its arguments and
    starts. The controller never raises it while ``busy``.
``busy`` (Out 1)
    High from cycle ``s + 1`` until and including the cycle ``done`` is high.
``done`` (Out 1)
    High for exactly one cycle, ``s + cycles(args)`` (:meth:`Unit.cycles`). Every write of
    the invocation is made before that cycle, so its results are readable when ``done`` is
    high (a unit makes no port access in its ``done`` cycle).
``arg_<name>`` (In ``width``)
    One input per argument (unsigned), sampled with ``start``. Every operand ``x`` has an
    argument ``x_addr``: its base word address in the buffer it is bound to.
``result`` (Out ``result_width``, only when the contract has a ``result_width``)
    The invocation's scalar result (EdgeBERT's entropy-DVFS unit: the selected operating
    point), valid in the ``done`` cycle and held until the cycle before the next
    invocation's ``done``. The accelerator latches it at ``done`` into its DVFS-select
    register (an indirect DVFS instruction, :mod:`archsim.hw.accel.isa`, reads it); no
    separate valid strobe is needed: ``done`` marks its arrival.
``<operand>`` (a :func:`read_port` or :func:`write_port` signature, unit side)
    Reads are synchronous: ``en`` high with ``addr`` in cycle ``t`` gives ``data`` in cycle
    ``t + 1`` (and ``data`` holds while ``en`` is low). A write with ``en`` high in cycle
    ``t`` is visible to reads from cycle ``t + 1``. A port of ``lanes > 1`` moves ``lanes``
    consecutive elements per access (``addr`` is then a row address: element ``addr * lanes
    + i`` is lane ``i``, the low bits of ``data``); it binds to a buffer of exactly that many
    banks.

Buffer words are raw bit patterns (unsigned); a unit reinterprets them (``as_signed()``).
Units need no stall logic of their own: when a memory steals a cycle (an eDRAM refresh) or a
domain changes its operating point, the accelerator freezes the unit's whole ``sync`` domain
(:class:`amaranth.hdl.EnableInserter`) and holds its read data, so a unit's cycle count is the
same with or without stalls, counted in the cycles it was enabled.

The golden view of a unit works on the same words: :meth:`Unit.golden` gets each operand's
whole buffer as a 1-D ``numpy.int64`` array of raw (unsigned) words and the argument values,
and writes its results into the write operands' arrays in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["read_port", "write_port", "Operand", "UnitContract", "Unit", "ARG_WIDTH",
           "DIRECTIONS"]

#: Width in bits of every argument input: a whole argument word, so element addresses reach
#: memories of up to 2**32 words (a real encoder layer's weights in one eNVM need 2**21).
ARG_WIDTH = 32

#: Directions an operand can have.
DIRECTIONS = ("read", "write")


def read_port(addr_width: int, data_width: int) -> wiring.Signature:
    """A synchronous read port, as the unit sees it: ``addr``/``en`` out, ``data`` in."""
    return wiring.Signature({"addr": Out(addr_width), "en": Out(1), "data": In(data_width)})


def write_port(addr_width: int, data_width: int) -> wiring.Signature:
    """A write port, as the unit sees it: ``addr``, ``data`` and ``en`` out."""
    return wiring.Signature({"addr": Out(addr_width), "data": Out(data_width), "en": Out(1)})


@dataclass(frozen=True)
class Operand:
    """One memory operand of a unit.

    Attributes
    ----------
    name : str
        The port's member name (and, with ``_addr``, its base-address argument).
    direction : {"read", "write"}
    width : int
        Bits per element.
    lanes : int
        Elements per access (1: element access; ``n``: a row of ``n`` elements, binding to a
        buffer of ``n`` banks).
    """

    name: str
    direction: str
    width: int
    lanes: int = 1

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"Operand name must be an identifier, not {self.name!r}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"Operand direction must be one of {DIRECTIONS}, not "
                             f"{self.direction!r}")
        for what, value in (("width", self.width), ("lanes", self.lanes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Operand {what} must be a positive int, not {value!r}")

    @property
    def addr_arg(self) -> str:
        """The name of the argument holding this operand's base address."""
        return f"{self.name}_addr"

    def signature(self, addr_width: int) -> wiring.Signature:
        """This operand's port signature (unit side) for an ``addr_width``-bit address."""
        data = self.width * self.lanes
        return (read_port(addr_width, data) if self.direction == "read"
                else write_port(addr_width, data))


@dataclass(frozen=True)
class UnitContract:
    """What a unit promises its accelerator: arguments, operands, cycles, actions.

    Attributes
    ----------
    kind : str
        The unit's kind (``"softmax"``, ``"gemm"``, ...), for messages and reports.
    args : tuple of str
        Argument names besides the operands' ``*_addr`` (sizes, modes, shifts).
    operands : tuple of Operand
    result_width : int
        Bits of the unit's ``result`` output (0: the unit has none); its golden value is
        :meth:`Unit.golden_result`.
    """

    kind: str
    args: tuple[str, ...]
    operands: tuple[Operand, ...]
    result_width: int = 0
    _names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [o.name for o in self.operands]
        all_args = self.all_args
        if len(set(names)) != len(names):
            raise ValueError(f"unit kind {self.kind!r}: operand names repeat: {names}")
        if len(set(all_args)) != len(all_args):
            raise ValueError(f"unit kind {self.kind!r}: argument names repeat: {all_args}")
        clash = set(names) & set(all_args)
        if clash:
            raise ValueError(f"unit kind {self.kind!r}: {sorted(clash)} is both an operand "
                             "and an argument")
        if isinstance(self.result_width, bool) or not isinstance(self.result_width, int) \
                or not 0 <= self.result_width <= ARG_WIDTH:
            raise ValueError(f"unit kind {self.kind!r}: result_width must be an int in "
                             f"0..{ARG_WIDTH}, not {self.result_width!r}")
        object.__setattr__(self, "_names", frozenset(all_args))

    @property
    def all_args(self) -> tuple[str, ...]:
        """Every argument in port order: the operands' ``*_addr``, then :attr:`args`."""
        return tuple(o.addr_arg for o in self.operands) + self.args

    def operand(self, name: str) -> Operand:
        """The operand called ``name`` (``KeyError`` naming the ones there are)."""
        for o in self.operands:
            if o.name == name:
                return o
        raise KeyError(f"unit kind {self.kind!r} has no operand {name!r}; it has "
                       f"{[o.name for o in self.operands]}")

    def check_reach(self, footprint: Mapping[str, tuple[int, int]], addr_width: int) -> None:
        """Raise ``ValueError`` naming the first operand whose element range ``[first, end)``
        goes past what an ``addr_width``-bit (row) address of its port reaches."""
        for name, (_, end) in footprint.items():
            limit = self.operand(name).lanes << addr_width
            if end > limit:
                raise ValueError(
                    f"unit kind {self.kind!r}: operand {name!r} would reach element {end - 1}, "
                    f"past the {limit} elements its {addr_width}-bit address reaches")

    def members(self, addr_widths: Mapping[str, int]) -> dict[str, object]:
        """The component members: control, one ``arg_*`` per argument, one port per operand.

        ``addr_widths`` maps each operand to the address width of the buffer it binds to.
        """
        members: dict[str, object] = {"start": In(1), "busy": Out(1), "done": Out(1)}
        if self.result_width:
            members["result"] = Out(self.result_width)
        for name in self.all_args:
            members[f"arg_{name}"] = In(ARG_WIDTH)
        for o in self.operands:
            if o.name not in addr_widths:
                raise KeyError(f"unit kind {self.kind!r}: no address width for operand "
                               f"{o.name!r}")
            members[o.name] = Out(o.signature(addr_widths[o.name]))
        return members

    def check_args(self, args: Mapping[str, int]) -> dict[str, int]:
        """Return ``args`` as a complete dict, or raise ``ValueError`` naming the bad one."""
        unknown = sorted(set(args) - self._names)
        if unknown:
            raise ValueError(f"unit kind {self.kind!r} has no argument {unknown[0]!r}; it "
                             f"takes {list(self.all_args)}")
        missing = [a for a in self.all_args if a not in args]
        if missing:
            raise ValueError(f"unit kind {self.kind!r}: argument {missing[0]!r} is missing")
        out = {}
        for name in self.all_args:
            value = args[name]
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or not 0 <= int(value) < 1 << ARG_WIDTH:
                raise ValueError(f"unit kind {self.kind!r}: argument {name!r} must be an int "
                                 f"in 0..{(1 << ARG_WIDTH) - 1}, not {value!r}")
            out[name] = int(value)
        return out


class Unit(wiring.Component):
    """Base of the units of :mod:`archsim.hw.accel`: a component with a :class:`UnitContract`.

    Subclasses set :attr:`contract` (per instance, since widths are parameters), call
    ``super().__init__(self.contract.members(addr_widths))`` and implement :meth:`cycles`,
    :meth:`actions`, :meth:`footprint` and :meth:`golden`.
    """

    contract: UnitContract
    #: Energy per action at the reference node and voltage, joules; each source in
    #: :attr:`ENERGY_SOURCES`. Keys are the names :meth:`actions` counts.
    #: (Set on the class, or per instance when the figures depend on the instance.)
    ENERGY_PER_ACTION_J: Mapping[str, float] = {}
    ENERGY_SOURCES: Mapping[str, str] = {}

    def cycles(self, args: Mapping[str, int]) -> int:
        """Cycles from ``start`` to ``done`` for these argument values (exact)."""
        raise NotImplementedError

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Counts of each energy-bearing action in one invocation (``"mac"``, ``"exp"``,
        ...), plus ``"read:<operand>"`` / ``"write:<operand>"`` port accesses."""
        raise NotImplementedError

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Per operand, the ``(first, last + 1)`` element addresses the invocation touches
        (to check a program against its buffers' sizes before running it)."""
        raise NotImplementedError

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Run one invocation on raw words: ``buffers[operand]`` is that operand's whole
        buffer (1-D ``int64``, unsigned words), written in place for write operands."""
        raise NotImplementedError

    def golden_result(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> int:
        """The ``result`` output of one invocation on these words (units whose contract has
        a ``result_width``; the others have none)."""
        raise NotImplementedError(f"unit kind {self.contract.kind!r} has no result")
