"""Register liveness of AArch64 functions (which registers a later instruction may read).

A block's translation only has to agree with its source on the registers live at its end:
a value no path reads again may differ (gcc's RV64 code keeps its temporaries in other
registers than the AArch64 code does). Liveness is the classic backward may-analysis over
the basic blocks (:func:`~archsim.compilers.asm.blocks.basic_blocks`): uses are
over-approximated and definitions under-approximated, so a register is reported dead only
when no path can read it before it is written.

At a return, the result ``x0``, the callee-saved ``x19``-``x29``, ``sp`` and ``x30`` are
live (AAPCS64); a call reads ``x0``-``x7`` and ``sp`` and is taken to write only ``x30``;
a branch out of the function (tail call) or an indirect one reads everything.

:func:`live_widths_after` refines this by width: a register read only through its W view
(``w3``) needs only its low 32 bits, so a translation may leave other upper bits there
(RV64's ``lw`` sign-extends where AArch64's ``ldr w`` zero-extends).
"""

from __future__ import annotations

from collections.abc import Sequence

from .blocks import Block, basic_blocks
from .ir import Function, Instr, Mem, Reg, Sym

__all__ = ["uses_defs", "use_widths", "block_live_out", "live_after", "live_widths_after",
           "block_live_widths", "instruction_live_widths", "ALL_REGS", "RETURN_LIVE"]

#: Every AArch64 register liveness tracks.
ALL_REGS = frozenset({f"x{i}" for i in range(31)} | {"sp"})
#: Registers live at a return (AAPCS64: result, callee-saved, frame, stack, link).
RETURN_LIVE = frozenset({"x0", "sp", "x29", "x30"} | {f"x{i}" for i in range(19, 29)})
_ARGS = frozenset({f"x{i}" for i in range(8)} | {"sp"})
_NO_DEST = frozenset({"cmp", "cmn", "tst", "ccmp", "ccmn", "b", "br", "ret", "cbz", "cbnz",
                      "tbz", "tbnz", "nop", "str", "strb", "strh", "stur", "sturb", "stp"})
_READ_MODIFY_WRITE = frozenset({"movk", "bfi", "bfxil"})
_UNCONDITIONAL = frozenset({"b", "br", "ret"})


def _regs(ins: Instr) -> tuple[list[str], set[str], set[str]]:
    """(register operands in order, memory base/index registers, written-back bases)."""
    plain: list[str] = []
    mem: set[str] = set()
    back: set[str] = set()
    for op in ins.operands:
        if isinstance(op, Reg):
            plain.append(op.name)
        elif isinstance(op, Mem):
            mem.add(op.base.name)
            if op.index is not None:
                mem.add(op.index.name)
            if op.mode in ("pre", "post"):
                back.add(op.base.name)
    return plain, mem, back


def uses_defs(ins: Instr) -> tuple[frozenset[str], frozenset[str]]:
    """(registers ``ins`` may read, registers it certainly writes); ``xzr`` is neither."""
    m = ins.mnemonic
    plain, mem, back = _regs(ins)
    if m == "ret":
        uses, defs = set(RETURN_LIVE), set()
    elif m in ("bl", "blr"):
        uses, defs = set(_ARGS) | set(plain), {"x30"}
    elif m == "br" or (m == "b" and not _local_target(ins)):
        uses, defs = set(ALL_REGS), set()
    elif m.startswith("b.") or m in _NO_DEST:
        uses, defs = set(plain) | mem, set(back)
    elif m == "ldp":
        uses, defs = mem, set(plain[:2]) | back
    else:
        dest, rest = plain[:1], plain[1:]
        uses = set(rest) | mem | (set(dest) if m in _READ_MODIFY_WRITE else set())
        defs = set(dest) | back
    return frozenset(uses - {"xzr"}), frozenset(defs - {"xzr"})


def _local_target(ins: Instr) -> bool:
    # gcc's local labels start with ".L"; any other branch target is another function
    return any(isinstance(o, Sym) and o.name.startswith(".L") for o in ins.operands)


def live_after(instrs: Sequence[Instr], live_out: frozenset[str]) -> list[frozenset[str]]:
    """The registers live after each instruction of a block whose end has ``live_out``."""
    out: list[frozenset[str]] = [live_out] * len(instrs)
    live = live_out
    for k in range(len(instrs) - 1, -1, -1):
        out[k] = live
        uses, defs = uses_defs(instrs[k])
        live = uses | (live - defs)
    return out


def _live_in(block: Block, live_out: frozenset[str]) -> frozenset[str]:
    live = live_out
    for ins in reversed(block.instrs):
        uses, defs = uses_defs(ins)
        live = uses | (live - defs)
    return live


def _successors(blocks: Sequence[Block]) -> list[list[int]]:
    where = {lb: k for k, blk in enumerate(blocks) for lb in blk.labels}
    succs: list[list[int]] = []
    for k, blk in enumerate(blocks):
        nxt: list[int] = []
        last = blk.instrs[-1] if blk.instrs else None
        if last is not None:
            nxt += [where[o.name] for o in last.operands if isinstance(o, Sym) and o.name in where
                    and last.mnemonic not in ("bl", "blr")]
        if (last is None or last.mnemonic not in _UNCONDITIONAL) and k + 1 < len(blocks):
            nxt.append(k + 1)
        succs.append(nxt)
    return succs


def block_live_out(function: Function) -> list[frozenset[str]]:
    """The registers live at the end of each basic block of ``function`` (in
    :func:`~archsim.compilers.asm.blocks.basic_blocks` order), to a fixed point."""
    blocks = basic_blocks(function, isa="aarch64")
    succs = _successors(blocks)
    live_out = [frozenset[str]() for _ in blocks]
    live_in = [_live_in(blk, live_out[k]) for k, blk in enumerate(blocks)]
    changed = True
    while changed:
        changed = False
        for k in range(len(blocks) - 1, -1, -1):
            new_out = frozenset().union(*(live_in[s] for s in succs[k]))
            if new_out != live_out[k]:
                live_out[k] = new_out
                live_in[k] = _live_in(blocks[k], new_out)
                changed = True
    return live_out


Widths = dict[str, int]


def use_widths(ins: Instr) -> Widths:
    """The registers ``ins`` may read, each with how many low bits it reads (32 for a W
    view, else 64; an instruction's implicit reads, as at a return or a call, are 64)."""
    uses, _ = uses_defs(ins)
    widths: Widths = {}
    explicit: dict[str, int] = {}
    for op in ins.operands:
        if isinstance(op, Reg):
            explicit[op.name] = max(explicit.get(op.name, 0), op.bits)
        elif isinstance(op, Mem):
            explicit[op.base.name] = 64
            if op.index is not None:
                explicit[op.index.name] = max(explicit.get(op.index.name, 0), op.index.bits)
    for r in uses:
        widths[r] = explicit.get(r, 64) if ins.mnemonic not in ("ret", "bl", "blr", "br", "b") \
            else 64
    return widths


def _join(a: Widths, b: Widths) -> Widths:
    out = dict(a)
    for r, w in b.items():
        out[r] = max(out.get(r, 0), w)
    return out


def live_widths_after(instrs: Sequence[Instr], live_out: Widths) -> list[Widths]:
    """Like :func:`live_after`, with the number of low bits of each live register a later
    instruction may read."""
    out: list[Widths] = [live_out] * len(instrs)
    live = dict(live_out)
    for k in range(len(instrs) - 1, -1, -1):
        out[k] = dict(live)
        _, defs = uses_defs(instrs[k])
        live = _join({r: w for r, w in live.items() if r not in defs}, use_widths(instrs[k]))
    return out


def block_live_widths(function: Function) -> list[Widths]:
    """:func:`block_live_out` with widths: per block, each live register and how many of
    its low bits a later instruction may read."""
    blocks = basic_blocks(function, isa="aarch64")
    succs = _successors(blocks)
    live_out: list[Widths] = [{} for _ in blocks]

    def live_in(k: int) -> Widths:
        live = dict(live_out[k])
        for ins in reversed(blocks[k].instrs):
            _, defs = uses_defs(ins)
            live = _join({r: w for r, w in live.items() if r not in defs}, use_widths(ins))
        return live

    ins_ = [live_in(k) for k in range(len(blocks))]
    changed = True
    while changed:
        changed = False
        for k in range(len(blocks) - 1, -1, -1):
            new: Widths = {}
            for s in succs[k]:
                new = _join(new, ins_[s])
            if new != live_out[k]:
                live_out[k] = new
                ins_[k] = live_in(k)
                changed = True
    return live_out


def instruction_live_widths(function: Function) -> list[Widths]:
    """For each instruction of ``function`` (in order), the registers that must hold their
    value after it, with widths: those live after it, and after a block's last instruction
    also those it reads when it is a branch or return (a proof of that instruction compares
    the state after it)."""
    out: list[Widths] = []
    for block, live in zip(basic_blocks(function, isa="aarch64"), block_live_widths(function),
                           strict=True):
        end = dict(live)
        if block.instrs and block.instrs[-1].mnemonic not in ("bl", "blr"):
            end = _join(end, use_widths(block.instrs[-1]))
        out.extend(live_widths_after(block.instrs, end))
    return out
