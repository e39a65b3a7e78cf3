"""The assembly representation shared by both ISAs: operands, instructions, functions.

A parsed unit is a :class:`Program`: functions in source order, each a list of
:class:`Instr` and :class:`LabelDef` lines. Operands are small frozen dataclasses, so
instructions compare and hash by value (the transpilers and the solver rely on that).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Reg", "Imm", "Sym", "Shift", "Mem", "Cond", "Hole", "Operand", "Instr", "LabelDef",
           "Line", "Function", "Program", "ISAS"]

#: The ISAs archsim parses.
ISAS = ("aarch64", "riscv64")


@dataclass(frozen=True)
class Reg:
    """A register by canonical name (``x0``..``x30``, ``sp``, ``xzr`` on AArch64; ABI names
    ``zero``, ``ra``, ``a0``... on RV64) and the width it is used at (``bits``)."""

    name: str
    bits: int = 64

    def __str__(self) -> str:
        if self.bits == 32 and self.name.startswith("x"):
            return "w" + self.name[1:]
        if self.bits == 32 and self.name in ("sp", "xzr"):
            return {"sp": "wsp", "xzr": "wzr"}[self.name]
        return self.name


@dataclass(frozen=True)
class Imm:
    """An integer immediate."""

    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Sym:
    """A label or function name used as a branch/call target."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Shift:
    """An AArch64 operand modifier: a shift (``lsl``, ``lsr``, ``asr``, ``ror``) or an
    extension (``sxtw``, ``uxtw``, ``sxtb``...) with its left-shift ``amount``."""

    op: str
    amount: int = 0

    def __str__(self) -> str:
        return f"{self.op} {self.amount}" if self.amount else self.op


@dataclass(frozen=True)
class Hole:
    """An unknown immediate of a sketch, filled in by the solver (RV64 operands only)."""

    name: str

    def __str__(self) -> str:
        return f"??{self.name}"


@dataclass(frozen=True)
class Mem:
    """A memory operand: ``base + offset`` or ``base + (index <extend/shift>)``.

    ``mode`` is ``"offset"``, ``"pre"`` (AArch64 ``[x1, 16]!``: base updated first) or
    ``"post"`` (``[x1], 16``: base updated after the access). ``hole`` (RV64 sketches only)
    makes the offset an unknown the solver fills in (``offset`` is then ignored).
    """

    base: Reg
    offset: int = 0
    index: Reg | None = None
    shift: Shift | None = None
    mode: str = "offset"
    hole: Hole | None = None

    def __str__(self) -> str:
        if self.hole is not None:
            return f"[{self.base}, {self.hole}]"
        if self.index is not None:
            tail = f", {self.shift}" if self.shift is not None else ""
            return f"[{self.base}, {self.index}{tail}]"
        if self.mode == "post":
            return f"[{self.base}], {self.offset}"
        inner = f"[{self.base}, {self.offset}]" if self.offset else f"[{self.base}]"
        return inner + ("!" if self.mode == "pre" else "")


@dataclass(frozen=True)
class Cond:
    """An AArch64 condition code operand (``csel x0, x1, x2, lt``)."""

    code: str

    def __str__(self) -> str:
        return self.code


Operand = Reg | Imm | Sym | Shift | Mem | Cond | Hole


@dataclass(frozen=True)
class Instr:
    """One instruction: mnemonic, operands, and where it came from (``file``, ``line``)."""

    mnemonic: str
    operands: tuple[Operand, ...] = ()
    line: int = 0
    file: str = "<string>"

    def __str__(self) -> str:
        return (f"{self.mnemonic} " + ", ".join(str(o) for o in self.operands)).rstrip()


@dataclass(frozen=True)
class LabelDef:
    """A label definition (``.L3:``)."""

    name: str
    line: int = 0


Line = Instr | LabelDef


@dataclass
class Function:
    """One function: its name and its lines in order (labels and instructions)."""

    name: str
    lines: list[Line] = field(default_factory=list)

    @property
    def instrs(self) -> list[Instr]:
        """The instructions alone, in order."""
        return [x for x in self.lines if isinstance(x, Instr)]


@dataclass
class Program:
    """A parsed assembly unit: its ISA, its file name and its functions in source order."""

    isa: str
    file: str
    functions: dict[str, Function] = field(default_factory=dict)
