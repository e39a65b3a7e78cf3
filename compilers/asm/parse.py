"""Parsers for the AArch64 and RV64 assembly subset gcc emits for the corpus.

The subset is integer ALU, loads/stores, branches and calls, and the directives gcc writes
around them (ignored: alignment, symbol types, CFI). Anything else is an error naming the
file, the line and the mnemonic (or directive/operand) and listing what is supported:
:class:`~archsim.errors.DSLError`, whose message starts with ``file:line``.
"""

from __future__ import annotations

import re

from ...errors import DSLError
from .ir import ISAS, Cond, Function, Imm, Instr, LabelDef, Mem, Operand, Program, Reg, Shift, Sym

__all__ = ["parse", "format_instr", "A64_MNEMONICS", "RV_MNEMONICS", "A64_CONDS", "DIRECTIVES",
           "rv_reg"]

#: AArch64 condition codes (``hs``/``lo`` are the aliases of ``cs``/``cc``).
A64_CONDS = frozenset({"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls",
                       "ge", "lt", "gt", "le", "al"})
#: The AArch64 mnemonics of the subset (conditional branches are ``b.<cond>``).
A64_MNEMONICS = frozenset({
    "add", "adds", "sub", "subs", "cmp", "cmn", "tst", "neg", "negs", "and", "ands", "orr",
    "eor", "bic", "orn", "eon", "mvn", "mov", "movz", "movk", "movn", "mul", "madd", "msub",
    "mneg", "smulh", "umulh", "sdiv", "udiv", "lsl", "lsr", "asr", "ror", "sxtw", "sxth", "sxtb",
    "uxtw", "uxth", "uxtb", "ubfx", "sbfx", "ubfiz", "sbfiz", "bfi", "bfxil", "csel", "csinc",
    "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg", "ccmp", "ccmn", "ldr", "ldrb",
    "ldrh", "ldrsb", "ldrsh", "ldrsw", "ldur", "ldurb", "str", "strb", "strh", "stur", "sturb",
    "ldp", "stp", "b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz", "nop",
} | {f"b.{c}" for c in A64_CONDS})
#: The RV64 mnemonics of the subset, base instructions and the assembler's pseudo-instructions.
RV_MNEMONICS = frozenset({
    "add", "addi", "addw", "addiw", "sub", "subw", "and", "andi", "or", "ori", "xor", "xori",
    "sll", "slli", "srl", "srli", "sra", "srai", "sllw", "slliw", "srlw", "srliw", "sraw",
    "sraiw", "slt", "slti", "sltu", "sltiu", "mul", "mulh", "mulhu", "mulhsu", "mulw", "div",
    "divu", "rem", "remu", "divw", "divuw", "remw", "remuw", "lui", "auipc", "ld", "lw", "lwu",
    "lh", "lhu", "lb", "lbu", "sd", "sw", "sh", "sb", "beq", "bne", "blt", "bge", "bltu", "bgeu",
    "jal", "jalr",
    # pseudo-instructions
    "li", "mv", "not", "neg", "negw", "sext.w", "seqz", "snez", "sltz", "sgtz", "sgt", "sgtu",
    "beqz", "bnez", "blez", "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu", "j", "jr",
    "ret", "call", "tail", "nop",
})
#: Directives gcc emits that carry nothing the subset needs; they are skipped.
DIRECTIVES = frozenset({
    ".text", ".align", ".p2align", ".balign", ".global", ".globl", ".type", ".size", ".file",
    ".ident", ".section", ".arch", ".option", ".attribute", ".cfi_startproc", ".cfi_endproc",
    ".cfi_def_cfa_offset", ".cfi_offset", ".cfi_def_cfa", ".cfi_def_cfa_register",
    ".cfi_restore", ".cfi_remember_state", ".cfi_restore_state",
})

_A64_SHIFTS = frozenset({"lsl", "lsr", "asr", "ror", "sxtw", "uxtw", "sxtb", "uxtb", "sxth",
                         "uxth", "sxtx", "uxtx"})
_RV_ABI = ["zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3",
           "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
           "t3", "t4", "t5", "t6"]
_INT = re.compile(r"^#?(-?(?:0x[0-9a-fA-F]+|\d+))$")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):$")
_SYMBOL = re.compile(r"^[A-Za-z_.$][\w.$]*$")


def rv_reg(name: str) -> int:
    """The number (0-31) of an RV64 register given by ABI name (``a0``)."""
    return _RV_ABI.index(name)


class _Ctx:
    def __init__(self, file: str, line: int, mnemonic: str) -> None:
        self.file, self.line, self.mnemonic = file, line, mnemonic

    def error(self, what: str, hint: str | None = None) -> DSLError:
        return DSLError(f"{self.mnemonic}: {what}", filename=self.file, lineno=self.line,
                        hint=hint)


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _a64_reg(tok: str) -> Reg | None:
    tok = tok.lower()
    if tok in ("sp", "xzr"):
        return Reg(tok, 64)
    if tok in ("wsp", "wzr"):
        return Reg({"wsp": "sp", "wzr": "xzr"}[tok], 32)
    m = re.fullmatch(r"([xw])(\d+)", tok)
    if m and int(m.group(2)) <= 30:
        return Reg(f"x{m.group(2)}", 64 if m.group(1) == "x" else 32)
    if tok == "lr":
        return Reg("x30", 64)
    if tok == "fp":
        return Reg("x29", 64)
    return None


def _a64_shift(tok: str, ctx: _Ctx) -> Shift | None:
    words = tok.replace("#", "").split()
    if not words or words[0].lower() not in _A64_SHIFTS:
        return None
    if len(words) > 2 or (len(words) == 2 and not _INT.match(words[1])):
        raise ctx.error(f"bad shift/extend operand {tok!r}")
    return Shift(words[0].lower(), int(words[1], 0) if len(words) == 2 else 0)


def _a64_mem(inner: str, mode: str, ctx: _Ctx) -> Mem:
    parts = _split_top(inner)
    base = _a64_reg(parts[0])
    if base is None:
        raise ctx.error(f"bad base register {parts[0]!r}")
    if len(parts) == 1:
        return Mem(base, 0, mode=mode)
    m = _INT.match(parts[1])
    if m and len(parts) == 2:
        return Mem(base, int(m.group(1), 0), mode=mode)
    index = _a64_reg(parts[1])
    if index is None:
        raise ctx.error(f"unsupported address operand {parts[1]!r}",
                        hint="immediate offsets and register indices are supported")
    shift = _a64_shift(parts[2], ctx) if len(parts) == 3 else None
    if len(parts) > 3 or (len(parts) == 3 and shift is None):
        raise ctx.error(f"bad address [{inner}]")
    return Mem(base, 0, index=index, shift=shift, mode=mode)


def _a64_operands(text: str, ctx: _Ctx) -> tuple[Operand, ...]:
    toks = _split_top(text)
    out: list[Operand] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.startswith("["):
            pre = tok.endswith("!")
            body = tok.rstrip("!")
            if not body.endswith("]"):
                raise ctx.error(f"bad memory operand {tok!r}")
            if not pre and i + 1 < len(toks) and _INT.match(toks[i + 1]):
                mem = _a64_mem(body[1:-1], "post", ctx)
                m = _INT.match(toks[i + 1])
                assert m is not None
                out.append(Mem(mem.base, int(m.group(1), 0), mode="post"))
                i += 2
                continue
            out.append(_a64_mem(body[1:-1], "pre" if pre else "offset", ctx))
        elif (reg := _a64_reg(tok)) is not None:
            out.append(reg)
        elif (m := _INT.match(tok)) is not None:
            out.append(Imm(int(m.group(1), 0)))
        elif (shift := _a64_shift(tok, ctx)) is not None:
            out.append(shift)
        elif tok.lower() in A64_CONDS:
            out.append(Cond(tok.lower()))
        elif _SYMBOL.match(tok):
            out.append(Sym(tok))
        else:
            raise ctx.error(f"unsupported operand {tok!r}",
                            hint="registers, immediates, [addresses], shifts, conditions, labels")
        i += 1
    return tuple(out)


def _rv_reg_tok(tok: str) -> Reg | None:
    if tok in _RV_ABI:
        return Reg(tok)
    if tok == "fp":
        return Reg("s0")
    m = re.fullmatch(r"x(\d+)", tok)
    if m and int(m.group(1)) < 32:
        return Reg(_RV_ABI[int(m.group(1))])
    return None


def _rv_operands(text: str, ctx: _Ctx) -> tuple[Operand, ...]:
    out: list[Operand] = []
    for tok in _split_top(text):
        m = re.fullmatch(r"(-?(?:0x[0-9a-fA-F]+|\d+))?\((\w+)\)", tok)
        if m:
            base = _rv_reg_tok(m.group(2))
            if base is None:
                raise ctx.error(f"bad base register {m.group(2)!r}")
            out.append(Mem(base, int(m.group(1), 0) if m.group(1) else 0))
        elif (reg := _rv_reg_tok(tok)) is not None:
            out.append(reg)
        elif (mi := _INT.match(tok)) is not None and not tok.startswith("#"):
            out.append(Imm(int(mi.group(1), 0)))
        elif _SYMBOL.match(tok):
            out.append(Sym(tok))
        else:
            raise ctx.error(f"unsupported operand {tok!r}",
                            hint="registers, immediates, offset(reg) addresses, labels")
    return tuple(out)


def _a64_mnemonic(word: str) -> str:
    word = word.lower()
    if word.startswith("b."):
        return word
    if word.startswith("b") and word[1:] in A64_CONDS:
        return "b." + word[1:]
    return word


def parse(text: str, *, isa: str, file: str = "<string>") -> Program:
    """Parse one assembly unit.

    Parameters
    ----------
    text : str
        The assembly source.
    isa : str
        ``"aarch64"`` or ``"riscv64"``.
    file : str
        Name used in error messages.

    Returns
    -------
    Program
        Its functions (a label that a ``.type name, %function`` / ``@function`` directive
        declared starts one) with their instructions and local labels.

    Raises
    ------
    DSLError
        An unsupported mnemonic, directive or operand, naming file, line and mnemonic.
    """
    if isa not in ISAS:
        raise DSLError(f"unknown ISA {isa!r} (allowed: {', '.join(ISAS)})", filename=file)
    mnemonics = A64_MNEMONICS if isa == "aarch64" else RV_MNEMONICS
    program = Program(isa=isa, file=file)
    declared: set[str] = set()
    current: Function | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("//")[0].split("#")[0] if isa == "riscv64" else raw.split("//")[0]
        line = line.strip()
        if not line:
            continue
        if (m := _LABEL.match(line)) is not None:
            name = m.group(1)
            if name in declared:
                current = Function(name)
                program.functions[name] = current
            elif current is not None:
                current.lines.append(LabelDef(name, lineno))
            continue
        word, *tail = line.split(None, 1)
        rest = tail[0].strip() if tail else ""
        if word.startswith("."):
            if word not in DIRECTIVES:
                raise DSLError(f"unsupported directive {word!r}", filename=file, lineno=lineno,
                               hint="allowed: " + ", ".join(sorted(DIRECTIVES)))
            if word == ".type":
                parts = _split_top(rest)
                if len(parts) == 2 and parts[1].lstrip("%@") == "function":
                    declared.add(parts[0])
            continue
        mnemonic = _a64_mnemonic(word) if isa == "aarch64" else word.lower()
        if mnemonic not in mnemonics:
            raise DSLError(f"unsupported {isa} mnemonic {word!r}", filename=file, lineno=lineno,
                           hint="supported: " + ", ".join(sorted(mnemonics)))
        if current is None:
            raise DSLError(f"{word!r} outside a function", filename=file, lineno=lineno)
        ctx = _Ctx(file, lineno, mnemonic)
        operands = _a64_operands(rest, ctx) if isa == "aarch64" else _rv_operands(rest, ctx)
        current.lines.append(Instr(mnemonic, operands, lineno, file))
    return program


def format_instr(instr: Instr, *, isa: str) -> str:
    """Assembly text of one instruction in the syntax of ``isa`` (what :func:`parse` reads)."""
    if isa == "aarch64":
        return str(instr)
    parts = []
    for op in instr.operands:
        if isinstance(op, Mem):
            parts.append(f"{op.hole if op.hole is not None else op.offset}({op.base})")
        else:
            parts.append(str(op))
    return f"{instr.mnemonic}\t" + ",".join(parts) if parts else instr.mnemonic
