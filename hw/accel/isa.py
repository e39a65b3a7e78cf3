"""The accelerator's program encoding (BUS.md): 32-bit words the host loads into program memory.

A program is a list of instructions, each a *header* word, RUN followed by its argument words::

    header   bits [28:32] opcode   [20:28] field a   [17:20] reserved (0)   [16] flag   [0:16] imm
    argument bits [0:32] one argument value

========  ======  =====================  ==================================================
opcode    value   a                      imm
========  ======  =====================  ==================================================
RUN       0x1     unit index (0..255)    number of argument words that follow (0..65535);
                                         each is one argument in the unit contract's
                                         ``all_args`` order
DVFS      0x2     domain index (0..255)  operating-point index (0..65535); 0 when
                                         indirect (flag set): the point is the
                                         accelerator's DVFS-select register
WAIT      0x3     0                      0
HALT      0xF     0                      0
========  ======  =====================  ==================================================

Header bit 16 (the *async* flag, :data:`ASYNC_FLAG`) is defined for RUN only: 0 (the default,
``wait=True``) makes the sequencer wait for the unit's ``done`` before the next instruction;
1 (``wait=False``) starts the unit and goes on, so several units run at once (fork). WAIT
waits until no unit is running (join); HALT waits for them too. For every other opcode bit
16 is reserved. The exact timing is :class:`archsim.hw.accel.controller.Sequencer`'s.

Any other opcode stops a run with error code 1 (:data:`ERROR_CODES`). The encoders write the
reserved fields as 0 and :func:`decode` rejects words whose reserved fields (or a HALT's or
WAIT's ``a``/``imm``) are not 0, so ``encode(decode(words)) == words`` for every list ``decode``
accepts; the RTL sequencer (:class:`archsim.hw.accel.controller.Sequencer`) is more lenient
and ignores those bits.

>>> encode([Run(1, (10, 20)), SetOperatingPoint(0, 2), Halt()])
[269484034, 10, 20, 536870914, 4026531840]
>>> decode([0x10100002, 10, 20, 0x20000002, 0xF0000000])
[Run(unit=1, args=(10, 20)), SetOperatingPoint(domain=0, op=2), Halt()]
>>> encode([Run(0, (5,), wait=False), Run(1, ()), Wait(), Halt()])
[268500993, 5, 269484032, 805306368, 4026531840]
>>> encode([SetOperatingPoint(1, None)]), decode([0x20110000])
([537985024], [SetOperatingPoint(domain=1, op=None)])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ..checks import check_bool, check_int
from .interface import ARG_WIDTH

__all__ = ["Opcode", "Run", "SetOperatingPoint", "Wait", "Halt", "Instruction",
           "ERROR_CODES", "MAX_UNIT", "MAX_DOMAIN", "MAX_IMM", "MAX_ARG", "MAX_WORD",
           "OPCODE_SHIFT", "A_SHIFT", "A_WIDTH", "IMM_WIDTH", "ASYNC_BIT", "ASYNC_FLAG",
           "INDIRECT_BIT", "INDIRECT_FLAG",
           "encode_run", "encode_dvfs", "encode_wait", "encode_halt", "encode", "decode"]


class Opcode(IntEnum):
    """Opcodes of the header word's bits ``[28:32]``."""

    RUN = 0x1
    DVFS = 0x2
    WAIT = 0x3
    HALT = 0xF


#: Bit position and widths of the header fields.
OPCODE_SHIFT = 28
A_SHIFT = 20
A_WIDTH = 8
IMM_WIDTH = 16
#: A RUN header's async flag: bit 16 set means "start the unit and do not wait for done".
ASYNC_BIT = 16
ASYNC_FLAG = 1 << ASYNC_BIT
#: A DVFS header's indirect flag (the same bit): the operating point is the DVFS-select
#: register's, not the imm field's.
INDIRECT_BIT = 16
INDIRECT_FLAG = 1 << INDIRECT_BIT

MAX_UNIT = (1 << A_WIDTH) - 1
MAX_DOMAIN = (1 << A_WIDTH) - 1
MAX_IMM = (1 << IMM_WIDTH) - 1
#: Largest argument value (an argument word's low bits; :data:`ARG_WIDTH` of the unit contract).
MAX_ARG = (1 << ARG_WIDTH) - 1
MAX_WORD = (1 << 32) - 1

#: The ERROR CSR's codes (BUS.md).
ERROR_CODES = {0: "none", 1: "bad opcode", 2: "bad unit index", 3: "arg-count mismatch",
               4: "bad domain/op-point"}

# Bits a header must leave 0 ([16:20]; bit 16 is RUN's async and DVFS's indirect flag).
_HEADER_RESERVED = ((1 << A_SHIFT) - 1) & ~MAX_IMM


def _as_int(name: str, value: object, low: int, high: int) -> int:
    # numpy integers are accepted like Python ints (programs are often built from arrays).
    if isinstance(value, np.integer):
        value = int(value)
    return check_int(name, value, low, high)


def _header(opcode: Opcode, a: int, imm: int) -> int:
    return (int(opcode) << OPCODE_SHIFT) | (a << A_SHIFT) | imm


def encode_run(unit: int, args: Sequence[int], *, wait: bool = True) -> list[int]:
    """The words of a RUN of ``unit`` with ``args`` (in the unit's ``all_args`` order).

    ``wait=False`` sets the header's async flag (:data:`ASYNC_FLAG`): the sequencer starts
    the unit and goes on to the next instruction without waiting for its ``done``.

    Raises
    ------
    TypeError
        If ``unit`` or an argument is not an int, or ``wait`` not a bool.
    ValueError
        ``"unit must be in 0..255, not 256"``, ``"args[2] must be in 0..65535, not 65536"``
        or ``"a RUN takes at most 65535 argument words, not 65536"``.
    """
    unit = _as_int("unit", unit, 0, MAX_UNIT)
    args = list(args)
    if len(args) > MAX_IMM:
        raise ValueError(f"a RUN takes at most {MAX_IMM} argument words, not {len(args)}")
    values = [_as_int(f"args[{i}]", v, 0, MAX_ARG) for i, v in enumerate(args)]
    flag = 0 if check_bool("wait", wait) else ASYNC_FLAG
    return [_header(Opcode.RUN, unit, len(values)) | flag, *values]


def encode_dvfs(domain: int, op: int | None) -> list[int]:
    """The word of a DVFS instruction: set ``domain`` to operating point ``op``, or, with
    ``op`` None, to the point in the DVFS-select register (the indirect flag, imm 0).

    Raises
    ------
    ValueError
        ``"domain must be in 0..255, not 256"`` or ``"op must be in 0..65535, not 65536"``
        (``TypeError`` for a non-int).
    """
    domain = _as_int("domain", domain, 0, MAX_DOMAIN)
    if op is None:
        return [_header(Opcode.DVFS, domain, 0) | INDIRECT_FLAG]
    op = _as_int("op", op, 0, MAX_IMM)
    return [_header(Opcode.DVFS, domain, op)]


def encode_wait() -> list[int]:
    """The word of a WAIT: wait until no unit started by the program is still running."""
    return [_header(Opcode.WAIT, 0, 0)]


def encode_halt() -> list[int]:
    """The word of a HALT."""
    return [_header(Opcode.HALT, 0, 0)]


@dataclass(frozen=True, repr=False)
class Run:
    """Invoke unit ``unit`` with ``args`` (its contract's ``all_args`` order); wait for its
    done, or with ``wait=False`` go on at once (an async RUN; see :class:`Wait`)."""

    unit: int
    args: tuple[int, ...] = ()
    wait: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(int(a) if isinstance(a, np.integer) else a
                                               for a in self.args))
        encode_run(self.unit, self.args, wait=self.wait)  # validates, with its messages

    def __repr__(self) -> str:
        # The default wait=True is left out, so synchronous RUNs print as they always did.
        tail = "" if self.wait else ", wait=False"
        return f"Run(unit={self.unit!r}, args={self.args!r}{tail})"

    def words(self) -> list[int]:
        """This instruction's program words."""
        return encode_run(self.unit, self.args, wait=self.wait)


@dataclass(frozen=True)
class SetOperatingPoint:
    """Move clock/power domain ``domain`` to operating point ``op``; wait for the DVFS ack.

    ``op=None`` is the indirect form: the point is the one in the accelerator's DVFS-select
    register (written by the last unit with a result to finish), chosen from data.
    """

    domain: int
    op: int | None = None

    @property
    def indirect(self) -> bool:
        """The point comes from the DVFS-select register."""
        return self.op is None

    def __post_init__(self) -> None:
        encode_dvfs(self.domain, self.op)

    def words(self) -> list[int]:
        """This instruction's program word."""
        return encode_dvfs(self.domain, self.op)


@dataclass(frozen=True)
class Wait:
    """Wait until no unit is running (the join of async :class:`Run` s)."""

    def words(self) -> list[int]:
        """This instruction's program word."""
        return encode_wait()


@dataclass(frozen=True)
class Halt:
    """End of the program: the cycle count is latched, done and the interrupt are raised."""

    def words(self) -> list[int]:
        """This instruction's program word."""
        return encode_halt()


Instruction = Run | SetOperatingPoint | Wait | Halt


def encode(instructions: Iterable[Instruction]) -> list[int]:
    """The program words of ``instructions``, in order."""
    words: list[int] = []
    for i, ins in enumerate(instructions):
        if not isinstance(ins, (Run, SetOperatingPoint, Wait, Halt)):
            # The message predates Wait and is pinned by tests; Wait is accepted too.
            raise TypeError(f"instructions[{i}] must be a Run, SetOperatingPoint, Wait or Halt, "
                            f"not {ins!r}")
        words.extend(ins.words())
    return words


def decode(words: Sequence[int]) -> list[Instruction]:
    """The instructions of the program ``words`` (every word; decoding does not stop at HALT).

    Raises
    ------
    ValueError
        Naming the word index: a word outside 0..2**32-1, an unknown opcode, nonzero reserved
        bits, a HALT with nonzero fields, an argument word above ``MAX_ARG`` or a RUN whose
        argument words run past the end.
    """
    values = [_as_int(f"words[{i}]", w, 0, MAX_WORD) for i, w in enumerate(words)]
    out: list[Instruction] = []
    i = 0
    while i < len(values):
        w = values[i]
        opcode, a, imm = w >> OPCODE_SHIFT, (w >> A_SHIFT) & MAX_UNIT, w & MAX_IMM
        known = ", ".join(f"{o.name} 0x{o.value:X}" for o in Opcode)
        if opcode not in Opcode._value2member_map_:
            raise ValueError(f"words[{i}]: unknown opcode 0x{opcode:X} (known: {known})")
        flag = {Opcode.RUN: ASYNC_FLAG, Opcode.DVFS: INDIRECT_FLAG}.get(Opcode(opcode), 0)
        reserved = _HEADER_RESERVED & ~flag
        if w & reserved:
            raise ValueError(f"words[{i}]: reserved header bits [16:20] are "
                             f"0x{(w & reserved) >> IMM_WIDTH:X}, not 0")
        if opcode in (Opcode.HALT, Opcode.WAIT):
            name = Opcode(opcode).name
            if a or imm:
                raise ValueError(f"words[{i}]: {name} has a={a}, imm={imm}; both must be 0")
            out.append(Halt() if opcode == Opcode.HALT else Wait())
            i += 1
        elif opcode == Opcode.DVFS:
            if w & INDIRECT_FLAG:
                if imm:
                    raise ValueError(f"words[{i}]: an indirect DVFS has imm={imm}; it must "
                                     "be 0 (the point is the DVFS-select register's)")
                out.append(SetOperatingPoint(a, None))
            else:
                out.append(SetOperatingPoint(a, imm))
            i += 1
        else:
            if i + imm >= len(values):
                raise ValueError(f"words[{i}]: RUN of unit {a} needs {imm} argument words, "
                                 f"only {len(values) - i - 1} follow")
            args = values[i + 1:i + 1 + imm]  # every 32-bit word is an argument value
            out.append(Run(a, tuple(args), wait=not (w & ASYNC_FLAG)))
            i += 1 + imm
    return out
