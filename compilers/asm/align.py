"""Align gcc's AArch64 and RV64 compilations of the same C function (GUESS's training data).

gcc's two back ends share the middle end, so a function's two compilations carry the same
local labels (``.L2``, ``.L4``...) on the blocks the middle end made. The alignment is:

1. **Blocks by shared label**: both functions are cut at their label definitions (gcc's
   ``.LFB``/``.LFE`` markers excepted) into segments; segments are paired by the label that
   starts them (the entry segment with the entry segment). A segment whose label exists on
   one side only is dropped (its code has no partner).
2. **Instructions, monotone, learned**: within a segment pair every AArch64 instruction is
   aligned to a contiguous, possibly empty, run of at most :data:`MAX_SPAN` RV64
   instructions, the runs covering the RV64 segment in order. The best alignment is found by
   dynamic programming under a score that is re-estimated by hard EM
   (:func:`align_corpus`): the first pass scores instruction *classes* (load, store, ALU,
   move, compare, branch, call, return, frame bookkeeping) with an assumed compatibility
   prior; later passes
   use the counts of (AArch64 key, RV64 mnemonic run) from the previous pass's alignment.
3. **Normalization into the source's frame and registers**: gcc allocates registers and
   lays out stack frames independently per ISA, so an aligned RV64 run is rewritten before
   templates are learned from it: ``s0``-relative stack addresses become ``sp``-relative
   (the frame size is read from ``addi s0,sp,F``), stack slots are renamed to the AArch64
   slot they were aligned with, and each RV64 register paired (by co-occurrence in aligned
   instructions, greedy one-to-one) with an AArch64 register becomes that register's image
   under the fixed register map. Unpaired registers and slots stay as gcc wrote them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .baseline import REG_MAP
from .ir import Function, Imm, Instr, LabelDef, Mem, Operand, Reg

__all__ = ["AlignedPair", "MAX_SPAN", "EM_PASSES", "align_function", "align_corpus",
           "instr_class"]

#: The longest RV64 run one AArch64 instruction may become (assumed; the engineered rules
#: never need more than 4 lines for the forms gcc's -O0/-O2 code uses at one point).
MAX_SPAN = 4
#: Hard-EM passes of the alignment (the first uses the class prior only).
EM_PASSES = 3
_SMOOTH = 1.0  # add-one weight of the class prior in the re-estimated score

_A64_CLASS = {"ldr": "ld", "ldrb": "ld", "ldrh": "ld", "ldrsw": "ld", "ldrsb": "ld",
              "ldrsh": "ld", "ldp": "ld", "ldur": "ld", "str": "st", "strb": "st",
              "strh": "st", "stp": "st", "stur": "st", "cmp": "cmp", "cmn": "cmp",
              "tst": "cmp", "ccmp": "cmp", "bl": "call", "blr": "call", "ret": "ret",
              "mov": "mov", "movz": "mov", "movk": "mov", "movn": "mov", "b": "br",
              "cbz": "br", "cbnz": "br", "tbz": "br", "tbnz": "br"}
_RV_CLASS = {"ld": "ld", "lw": "ld", "lwu": "ld", "lh": "ld", "lhu": "ld", "lb": "ld",
             "lbu": "ld", "sd": "st", "sw": "st", "sh": "st", "sb": "st", "call": "call",
             "jal": "call", "ret": "ret", "jr": "ret", "mv": "mov", "li": "mov", "lui": "mov",
             "j": "br"}
# Registers of stack-frame bookkeeping (sp adjustment, frame pointer and return address
# saves): an instruction that touches only these is class "frame" on either side.
_A64_FRAME = frozenset({"sp", "x29", "x30"})
_RV_FRAME = frozenset({"sp", "s0", "ra"})
_RV_BRANCHES = frozenset({"beq", "bne", "blt", "bge", "bltu", "bgeu", "bgt", "ble", "bgtu",
                          "bleu", "beqz", "bnez", "bltz", "bgez", "blez", "bgtz"})
# Assumed compatibility of an AArch64 class with an RV64 class (probability that one RV64
# line of that class is part of the AArch64 instruction's translation), and of an empty run.
_PRIOR_SAME = 0.6
_PRIOR_ALU = 0.15  # any class -> RV64 ALU / move (flag expansion, extension, address math)
_PRIOR_OTHER = 0.01
_PRIOR_EMPTY = {"cmp": 0.5}  # a compare usually fuses into the following branch
_PRIOR_EMPTY_DEFAULT = 0.02
_PAIRED = {("cmp", "br"), ("cmp", "alu"), ("mov", "alu"), ("alu", "mov")}


def instr_class(ins: Instr, isa: str) -> str:
    """The coarse class of an instruction (``ld``, ``st``, ``alu``, ``mov``, ``cmp``,
    ``br``, ``call``, ``ret``, or ``frame``: one that touches only the stack pointer, frame
    pointer and return address)."""
    m = ins.mnemonic
    regs = set(_regs(ins))
    if isa == "aarch64":
        if regs and regs <= _A64_FRAME and m not in ("ret", "bl", "blr"):
            return "frame"
        return "br" if m.startswith("b.") else _A64_CLASS.get(m, "alu")
    if regs and regs <= _RV_FRAME and m in ("addi", "sd", "ld", "mv"):
        return "frame"
    return "br" if m in _RV_BRANCHES else _RV_CLASS.get(m, "alu")


def _prior(a_cls: str, rv_classes: Sequence[str]) -> float:
    if not rv_classes:
        return _PRIOR_EMPTY.get(a_cls, _PRIOR_EMPTY_DEFAULT)
    p = 1.0
    for c in rv_classes:
        if c == a_cls or (a_cls, c) in _PAIRED:
            p *= _PRIOR_SAME
        elif c in ("alu", "mov"):
            p *= _PRIOR_ALU
        else:
            p *= _PRIOR_OTHER
    return p


@dataclass(frozen=True)
class AlignedPair:
    """One AArch64 instruction and the normalized RV64 lines gcc's RV64 compilation has for
    it (possibly none)."""

    source: Instr
    target: tuple[Instr, ...]


def _segments(fn: Function) -> dict[str, list[Instr]]:
    out: dict[str, list[Instr]] = {"": []}
    cur = ""
    for line in fn.lines:
        if isinstance(line, LabelDef):
            if line.name.startswith((".LFB", ".LFE")):
                continue
            cur = line.name
            out[cur] = []
        else:
            out[cur].append(line)
    return out


_Score = dict[tuple[object, ...], Counter[tuple[str, ...]]]


def _key(ins: Instr) -> tuple[object, ...]:
    return (ins.mnemonic, tuple(type(o).__name__ for o in ins.operands))


def _span_score(ins: Instr, run: Sequence[Instr], counts: _Score | None) -> float:
    a_cls = instr_class(ins, "aarch64")
    prior = _prior(a_cls, [instr_class(r, "riscv64") for r in run])
    if counts is None:
        return math.log(prior)
    c = counts.get(_key(ins))
    seen = c.get(tuple(r.mnemonic for r in run), 0) if c else 0
    total = sum(c.values()) if c else 0
    return math.log((seen + _SMOOTH * prior) / (total + _SMOOTH))


def _align_segment(a64: Sequence[Instr], rv: Sequence[Instr],
                   counts: _Score | None) -> list[tuple[int, int]] | None:
    """Spans ``(lo, hi)`` of ``rv`` per instruction of ``a64`` (best monotone cover)."""
    n, m = len(a64), len(rv)
    neg = -math.inf
    best = [[neg] * (m + 1) for _ in range(n + 1)]
    back = [[0] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n):
        for j in range(m + 1):
            if best[i][j] == neg:
                continue
            for span in range(min(MAX_SPAN, m - j) + 1):
                s = best[i][j] + _span_score(a64[i], rv[j:j + span], counts)
                if s > best[i + 1][j + span]:
                    best[i + 1][j + span] = s
                    back[i + 1][j + span] = span
    if best[n][m] == neg:
        return None
    spans: list[tuple[int, int]] = []
    j = m
    for i in range(n, 0, -1):
        span = back[i][j]
        spans.append((j - span, j))
        j -= span
    return spans[::-1]


def _regs(ins: Instr) -> list[str]:
    out: list[str] = []
    for op in ins.operands:
        if isinstance(op, Reg):
            out.append(op.name)
        elif isinstance(op, Mem):
            out.append(op.base.name)
            if op.index is not None:
                out.append(op.index.name)
    return out


def _frame_size(rv: Function) -> int | None:
    for ins in rv.instrs:
        ops = ins.operands
        if (ins.mnemonic == "addi" and len(ops) == 3 and ops[0] == Reg("s0")
                and ops[1] == Reg("sp") and isinstance(ops[2], Imm)):
            return ops[2].value
    return None


def _to_sp(ins: Instr, frame: int | None) -> Instr:
    """``s0``-relative stack accesses rewritten ``sp``-relative (``s0 = sp + frame``)."""
    if frame is None:
        return ins
    ops: list[Operand] = []
    for op in ins.operands:
        if isinstance(op, Mem) and op.base.name == "s0" and op.index is None:
            ops.append(Mem(Reg("sp"), op.offset + frame))
        else:
            ops.append(op)
    return Instr(ins.mnemonic, tuple(ops), ins.line, ins.file)


def _one_to_one(counts: Counter[tuple[object, object]]) -> dict[object, object]:
    """Greedy one-to-one pairing, most frequent pair first (ties by value, deterministic)."""
    used_a: set[object] = set()
    used_b: set[object] = set()
    out: dict[object, object] = {}
    for (a, b), _ in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        if a not in used_a and b not in used_b:
            out[b] = a
            used_a.add(a)
            used_b.add(b)
    return out


def _normalize(pairs: list[tuple[Instr, list[Instr]]]) -> list[AlignedPair]:
    regs: Counter[tuple[object, object]] = Counter()
    slots: Counter[tuple[object, object]] = Counter()
    for src, run in pairs:
        if not run:
            continue
        a_regs = [r for r in _regs(src) if r not in ("sp", "xzr", "x30")]
        r_regs = [r for r in _regs(run[0]) if r not in ("sp", "zero", "ra", "s0")]
        for a, r in zip(a_regs, r_regs, strict=False):
            regs[(a, r)] += 1
        a_mem = [o for o in src.operands if isinstance(o, Mem) and o.base.name == "sp"]
        r_mem = [o for o in run[0].operands if isinstance(o, Mem) and o.base.name == "sp"]
        if len(a_mem) == 1 and len(r_mem) == 1 and a_mem[0].index is None:
            slots[(a_mem[0].offset, r_mem[0].offset)] += 1
    reg_of = _one_to_one(regs)
    slot_of = _one_to_one(slots)

    def fix(op: Operand) -> Operand:
        if isinstance(op, Reg) and op.name in reg_of:
            image = REG_MAP.get(str(reg_of[op.name]))
            return Reg(image, op.bits) if image else op
        if isinstance(op, Mem):
            base = fix(op.base)
            assert isinstance(base, Reg)
            offset = op.offset
            if op.base.name == "sp" and op.offset in slot_of:
                offset = int(str(slot_of[op.offset]))
            return Mem(base, offset, op.index, op.shift, op.mode)
        return op

    return [AlignedPair(src, tuple(Instr(r.mnemonic, tuple(fix(o) for o in r.operands),
                                         r.line, r.file) for r in run))
            for src, run in pairs]


def align_function(a64: Function, rv: Function, *, counts: _Score | None = None
                   ) -> list[AlignedPair]:
    """The aligned, normalized instruction pairs of one function's two compilations (module
    docstring); ``counts`` is the re-estimated score (None: the class prior)."""
    frame = _frame_size(rv)
    seg_a, seg_r = _segments(a64), _segments(rv)
    pairs: list[tuple[Instr, list[Instr]]] = []
    for label, a_ins in seg_a.items():
        r_ins = seg_r.get(label)
        if r_ins is None or not a_ins:
            continue
        spans = _align_segment(a_ins, r_ins, counts)
        if spans is None:
            continue
        r_sp = [_to_sp(r, frame) for r in r_ins]
        pairs.extend((src, r_sp[lo:hi]) for src, (lo, hi) in zip(a_ins, spans, strict=True))
    return _normalize(pairs)


def align_corpus(functions: Sequence[tuple[Function, Function]], *,
                 passes: int = EM_PASSES) -> list[AlignedPair]:
    """Align every ``(AArch64, RV64)`` function pair, re-estimating the score by hard EM for
    ``passes`` passes; the last pass's pairs are returned."""
    counts: _Score | None = None
    pairs: list[AlignedPair] = []
    for _ in range(max(1, passes)):
        pairs = []
        for a64, rv in functions:
            pairs.extend(align_function(a64, rv, counts=counts))
        counts = {}
        for p in pairs:
            counts.setdefault(_key(p.source), Counter())[tuple(t.mnemonic for t in p.target)] += 1
    return pairs

