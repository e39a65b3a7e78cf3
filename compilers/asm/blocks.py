"""Split a function into basic blocks: a block starts at a label or after a branch or call
and ends at the next branch (included), call (included) or label."""

from __future__ import annotations

from dataclasses import dataclass, field

from .ir import Function, Instr, LabelDef

__all__ = ["Block", "basic_blocks", "is_control"]

_A64_CONTROL = frozenset({"b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz"})
_RV_CONTROL = frozenset({"beq", "bne", "blt", "bge", "bltu", "bgeu", "bgt", "ble", "bgtu", "bleu",
                         "beqz", "bnez", "bltz", "bgez", "blez", "bgtz", "j", "jr", "jal", "jalr",
                         "ret", "call", "tail"})


def is_control(instr: Instr, isa: str) -> bool:
    """True for a branch, jump, call or return."""
    m = instr.mnemonic
    if isa == "aarch64":
        return m.startswith("b.") or m in _A64_CONTROL
    return m in _RV_CONTROL


@dataclass
class Block:
    """A basic block: the labels naming its start, its instructions, and the index of its
    first instruction in the function's instruction list."""

    labels: list[str] = field(default_factory=list)
    instrs: list[Instr] = field(default_factory=list)
    start: int = 0


def basic_blocks(function: Function, *, isa: str) -> list[Block]:
    """The basic blocks of ``function`` in order (empty label-only blocks are merged into the
    next block's labels)."""
    blocks: list[Block] = []
    cur = Block()
    index = 0
    for line in function.lines:
        if isinstance(line, LabelDef):
            if cur.instrs:
                blocks.append(cur)
                cur = Block(start=index)
            cur.labels.append(line.name)
            continue
        if not cur.instrs:
            cur.start = index
        cur.instrs.append(line)
        index += 1
        if is_control(line, isa):
            blocks.append(cur)
            cur = Block(start=index)
    if cur.instrs or cur.labels:
        blocks.append(cur)
    return blocks
