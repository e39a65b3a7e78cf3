"""SKETCH: repair GUESS's low-confidence blocks with the solver.

For each basic block of the source with a flagged token (confidence below
:data:`~archsim.compilers.asm.guess.LOW_CONFIDENCE`) or no translation, every flagged
instruction is re-instantiated from each of GUESS's top candidate templates with its unsure
literal immediates turned into holes; each combination is a sketch. A sketch without holes
is checked with :func:`~archsim.compilers.asm.symbolic.check_equivalence`; one with holes
is completed by :func:`~archsim.compilers.asm.symbolic.fill_holes` (counterexample-guided)
or rejected. The first block proven equivalent replaces GUESS's block; blocks the solver
cannot reason about (calls) keep GUESS's lines. The function is then verified by emulation
(:mod:`.evaluate`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...errors import DSLError
from .baseline import REG_MAP
from .blocks import basic_blocks
from .guess import LOW_CONFIDENCE, Guess, GuessedInstr, GuessModel, slot_choices
from .ir import Function, Hole, Imm, Instr, LabelDef, Line, Program, Reg, Shift, Sym
from .symbolic import check_equivalence, fill_holes

__all__ = ["SketchResult", "sketch", "MAX_SKETCHES", "MAX_QUERIES"]

#: Solver queries (proofs or hole fillings) per flagged block (assumed).
MAX_QUERIES = 40
#: Candidate combinations tried per block.
MAX_SKETCHES = 96
_BRANCHES = ("beq", "bne", "blt", "bge", "bltu", "bgeu")
_ALL_BRANCHES = _BRANCHES + ("bgt", "ble", "bgtu", "bleu")
_RV_BRANCH_Z = {"beqz": "beq", "bnez": "bne", "bltz": "blt", "bgez": "bge", "blez": "ble",
                "bgtz": "bgt"}
_COMPARES = frozenset({"cmp"})
_FLAG_MNEMONICS = frozenset({"cmp", "cmn", "tst", "ccmp", "ccmn", "adds", "subs", "ands",
                             "negs", "csel", "csinc", "csinv", "csneg", "cset", "csetm",
                             "cinc", "cinv", "cneg"})
_MAP = {k: v for k, v in REG_MAP.items() if k != "xzr"}
_SHIFTS = {"slli": 63, "srli": 63, "srai": 63, "slliw": 31, "srliw": 31, "sraiw": 31}


@dataclass
class SketchResult:
    """The repaired program, block counts, and a few repaired blocks as examples
    ``(function, source lines, guess lines with flagged lines marked, fixed lines)``."""

    program: Program
    blocks: int = 0
    flagged: int = 0
    fixed: int = 0
    examples: list[tuple[str, list[str], list[str], list[str]]] = field(default_factory=list)


def _bounds(lines: list[Line]) -> dict[str, tuple[int, int]]:
    out = {}
    for ln in lines:
        if isinstance(ln, Instr):
            for op in ln.operands:
                if isinstance(op, Hole):
                    if ln.mnemonic in _SHIFTS:
                        out[op.name] = (0, _SHIFTS[ln.mnemonic])
                    elif ln.mnemonic == "li":
                        out[op.name] = (-(1 << 31), (1 << 31) - 1)
                    else:
                        out[op.name] = (-2048, 2047)
    return out


def _fill(lines: list[Line], values: dict[str, int]) -> list[Line]:
    out: list[Line] = []
    for ln in lines:
        if isinstance(ln, Instr):
            ops = tuple(Imm(values[o.name]) if isinstance(o, Hole) else o for o in ln.operands)
            out.append(Instr(ln.mnemonic, ops, ln.line, ln.file))
        else:
            out.append(ln)
    return out


def _flagged(g: GuessedInstr) -> bool:
    return not g.lines or any(c is not None and c < LOW_CONFIDENCE for c in g.confidence)


def _branch_variants(lines: list[Line]) -> list[list[Line]]:
    """The lines as given, then with each compare-and-branch line's opcode and operand order
    replaced (the opcode holes of a back-off template)."""
    out = [lines]
    for n, ln in enumerate(lines):
        if isinstance(ln, Instr) and ln.mnemonic in _BRANCHES:
            a, b, target = ln.operands
            for m in _BRANCHES:
                for ops in ((a, b, target), (b, a, target)):
                    if (m, ops) != (ln.mnemonic, ln.operands):
                        alt = list(lines)
                        alt[n] = Instr(m, ops, ln.line, ln.file)
                        out.append(alt)
    return out


def _repair(model: GuessModel, block_src: list[Instr], guessed: list[GuessedInstr],
            fresh: str, max_queries: int) -> list[Line] | None:
    options: list[list[tuple[list[Line], list[str]]]] = []
    budget = [max_queries]  # solver queries left for this block (shared by both stages)
    for k, g in enumerate(guessed):
        if not _flagged(g):
            options.append([(g.lines, [])])
            continue
        alts = _alternatives(model, g, f"{fresh}_{k}", _compare_operands(block_src[:k]))
        if not alts:
            return None
        if not _uses_flags(g.source):
            # The alignment is exact per instruction: an instruction that neither reads nor
            # writes flags is repaired on its own, which keeps the block search small.
            one = _first_proven([g.source], [[a] for a in alts], budget)
            if one is None:
                return None
            options.append([(one, [])])
            continue
        options.append(alts)
    combos = itertools.islice(itertools.product(*options), MAX_SKETCHES)
    return _first_proven(block_src, list(combos), budget)


def _uses_flags(ins: Instr) -> bool:
    m = ins.mnemonic
    return m.startswith("b.") or m in _FLAG_MNEMONICS


def _compare_operands(before: Sequence[Instr]) -> tuple[Reg, Reg] | None:
    """The RV64 images of the operands of the last compare in ``before`` (register or zero
    second operand), which a conditional branch after it reads through the flags."""
    for ins in reversed(before):
        if ins.mnemonic in _COMPARES:
            ops = [o for o in ins.operands if not isinstance(o, Shift)]
            if len(ops) != 2 or not isinstance(ops[0], Reg) or ops[0].name not in _MAP:
                return None
            first = Reg(_MAP[ops[0].name])
            if isinstance(ops[1], Reg) and ops[1].name in _MAP:
                return first, Reg(_MAP[ops[1].name])
            second = ops[1]
            if (isinstance(second, Imm) and second.value == 0) or (
                    isinstance(second, Reg) and second.name == "xzr"):
                return first, Reg("zero")
            return None
        if _uses_flags(ins):
            return None  # another flag writer/reader in between: not a plain compare
    return None


def _carried(lines: list[Line], ops: tuple[Reg, Reg]) -> list[list[Line]]:
    """``lines`` with their conditional branch reading the compare's operands ``ops`` (the
    flags carried from the compare into the branch): the guessed opcode first, then every
    other signed/unsigned relation, each in both operand orders."""
    out: list[list[Line]] = []
    for n, ln in enumerate(lines):
        if not isinstance(ln, Instr) or not ln.operands or not isinstance(ln.operands[-1], Sym):
            continue
        m = _RV_BRANCH_Z.get(ln.mnemonic, ln.mnemonic)
        if m not in _ALL_BRANCHES:
            continue
        target = ln.operands[-1]
        for mnem in (m,) + tuple(b for b in _ALL_BRANCHES if b != m):
            for a, b in (ops, ops[::-1]):
                alt = list(lines)
                alt[n] = Instr(mnem, (a, b, target), ln.line, ln.file)
                out.append(alt)
    return out


def _alternatives(model: GuessModel, g: GuessedInstr, fresh: str,
                  compare: tuple[Reg, Reg] | None = None
                  ) -> list[tuple[list[Line], list[str]]]:
    """GUESS's top templates for ``g`` with holes, every ambiguous-slot choice, (for
    back-off templates) every compare-branch opcode, and, for a conditional branch after a
    compare in the block, the branch reading the compare's operands (``compare``)."""
    alts: list[tuple[list[Line], list[str]]] = []
    top = model.candidates(g.source)[:3]
    if compare is not None and g.source.mnemonic.startswith("b."):
        for j, (template, p, _) in enumerate(top):
            try:
                lines, _, holes = model.instantiate(template, g.source, f"{fresh}_c{j}",
                                                    holes=True, p=p)
            except DSLError:
                continue
            alts.extend((v, holes) for v in _carried(lines, compare))
    for j, (template, p, backoff) in enumerate(top):
        for c, choice in enumerate(slot_choices(template)):
            try:
                lines, _, holes = model.instantiate(template, g.source, f"{fresh}_{j}_{c}",
                                                    holes=True, p=p, choices=choice)
            except DSLError:
                continue
            for variant in (_branch_variants(lines) if backoff else [lines]):
                alts.append((variant, holes))
    return alts


def _first_proven(block_src: list[Instr],
                  combos: Sequence[Sequence[tuple[list[Line], list[str]]]],
                  budget: list[int]) -> list[Line] | None:
    """The first combination the solver proves (completing its holes), or None."""
    for combo in combos:
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        lines = [ln for part, _ in combo for ln in part]
        holes = [h for _, hs in combo for h in hs]
        try:
            if holes:
                values = fill_holes(block_src, lines, holes=holes, reg_map=_MAP,
                                    bounds=_bounds(lines), timeout_ms=30_000)
                if values is not None:
                    return _fill(lines, values)
            elif check_equivalence(block_src, lines, reg_map=_MAP, timeout_ms=30_000).equivalent:
                return lines
        except DSLError:
            continue
    return None


def _show(lines: list[Line], marks: list[bool] | None = None) -> list[str]:
    from .parse import format_instr

    out = []
    for n, ln in enumerate(lines):
        if isinstance(ln, LabelDef):
            out.append(f"{ln.name}:")
        else:
            text = format_instr(ln, isa="riscv64")
            out.append(text + ("    <-- low confidence" if marks and marks[n] else ""))
    return out


def sketch(model: GuessModel, source: Program, guess: Guess, *,
           max_queries: int = MAX_QUERIES,
           max_examples: int = 3) -> SketchResult:
    """Repair the flagged blocks of ``guess`` (a GUESS translation of ``source``), spending at
    most ``max_queries`` solver queries per block (a count, not a time, so the result does
    not depend on the machine's speed; each query has z3's deterministic resource limit
    :data:`~archsim.compilers.asm.symbolic.RLIMIT`)."""
    out = Program(isa="riscv64", file=source.file + " (guess+sketch rv64)")
    result = SketchResult(out)
    for name, fn in source.functions.items():
        aligned = guess.aligned[name]
        lines: list[Line] = []
        for b, block in enumerate(basic_blocks(fn, isa="aarch64")):
            lines.extend(LabelDef(lb) for lb in block.labels)
            guessed = aligned[block.start:block.start + len(block.instrs)]
            current = [ln for g in guessed for ln in g.lines]
            result.blocks += 1
            if not any(_flagged(g) for g in guessed):
                lines.extend(current)
                continue
            result.flagged += 1
            fixed = None
            if not any(i.mnemonic in ("bl", "blr") for i in block.instrs):
                fixed = _repair(model, block.instrs, guessed, f".Lsk_{name}_{b}", max_queries)
            if fixed is None:
                lines.extend(current)
                continue
            result.fixed += 1
            lines.extend(fixed)
            if len(result.examples) < max_examples:
                marks = [_flagged(g) for g in guessed for _ in g.lines]
                result.examples.append((name, [str(i) for i in block.instrs],
                                        _show(current, marks), _show(fixed)))
        out.functions[name] = Function(name, lines)
    return result
