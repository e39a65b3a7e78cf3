"""SKETCH: repair GUESS's low-confidence blocks with the solver.

For each basic block of the source with a flagged token (confidence below
:data:`~archsim.compilers.asm.guess.LOW_CONFIDENCE`) or no translation, every flagged
instruction is re-instantiated from each of GUESS's top candidate templates with its unsure
literal immediates (also load/store offsets) turned into holes, and from GUESS's own lines
with their load/store offsets and ``sp`` adjustments as holes (and a ``stp``/``ldp`` from its
two-access expansion); each combination is a sketch. A sketch without holes
is checked with :func:`~archsim.compilers.asm.symbolic.check_equivalence`; one with holes
is completed by :func:`~archsim.compilers.asm.symbolic.fill_holes` (counterexample-guided)
or rejected. The first block proven equivalent replaces GUESS's block. A block ending in a
call is proven on its body (:func:`check_call_block`); blocks the solver cannot reason about
(indirect calls) keep GUESS's lines. The function is then verified by emulation
(:mod:`.evaluate`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...errors import DSLError
from .baseline import REG_MAP, SCRATCH
from .blocks import Block, basic_blocks, is_control
from .guess import (
    Guess,
    GuessedInstr,
    GuessModel,
    slot_choices,
    uses_unpaired_register,
)
from .ir import Function, Hole, Imm, Instr, LabelDef, Line, Mem, Program, Reg, Shift, Sym
from .liveness import block_live_widths, live_widths_after, use_widths
from .symbolic import check_equivalence, fill_holes

__all__ = ["SketchResult", "SketchOptions", "BlockOutcome", "CAUSES", "sketch",
           "unflagged_failures", "guess_holes", "pair_expansion", "check_call_block",
           "register_variants", "MAX_REGISTER_VARIANTS",
           "MAX_SKETCHES", "MAX_QUERIES"]

#: Solver queries (proofs or hole fillings) per flagged block (assumed).
MAX_QUERIES = 40
#: Candidate combinations tried per block.
MAX_SKETCHES = 96
#: Register-hole completions tried per instruction (assumed).
MAX_REGISTER_VARIANTS = 24
_BRANCHES = ("beq", "bne", "blt", "bge", "bltu", "bgeu")
_ALL_BRANCHES = _BRANCHES + ("bgt", "ble", "bgtu", "bleu")
_RV_BRANCH_Z = {"beqz": "beq", "bnez": "bne", "bltz": "blt", "bgez": "bge", "blez": "ble",
                "bgtz": "bgt"}
_COMPARES = frozenset({"cmp"})
_FLAG_WRITERS = frozenset({"cmp", "cmn", "tst", "ccmp", "ccmn", "adds", "subs", "ands",
                           "negs"})
_FLAG_READERS = frozenset({"csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv",
                           "cneg", "ccmp", "ccmn"})
_FLAG_MNEMONICS = _FLAG_WRITERS | _FLAG_READERS
_MAP = {k: v for k, v in REG_MAP.items() if k != "xzr"}
_SHIFTS = {"slli": 63, "srli": 63, "srai": 63, "slliw": 31, "srliw": 31, "sraiw": 31}
_PAIRS = ("stp", "ldp")
#: No register holes for these: each wrong completion is a multiplication/division query,
#: which runs to z3's resource limit.
_NONLINEAR = frozenset({"mul", "madd", "msub", "mneg", "smulh", "umulh", "sdiv", "udiv"})
_CALLS = ("bl", "blr")


#: Why a flagged block was not repaired (``BlockOutcome.cause``):
#:
#: ``call``: the block ends in a call the sketch does not repair (``blr``, or
#: ``SketchOptions.call_blocks`` off); ``no-template``: a flagged
#: instruction has no candidate at all; ``unmapped-register``: every candidate needs a
#: register the fixed map has no image for; ``memory-offset-literal``: every candidate has a
#: memory offset GUESS is unsure of (a literal, not a function of the source's immediates)
#: and memory-offset holes are off; ``flags-across-blocks``: a flag reader whose
#: compare is in another block and could not be carried in; ``wrong-unflagged-line``: an
#: unflagged instruction of the block is not equivalent to its own lines (GUESS was
#: confidently wrong, so no hole covers it); ``unpaired-register``: no candidate proven and
#: the candidates use a register gcc's RV64 side had that no source register was paired with
#: (the slot is ambiguous and not a hole); ``solver-budget``: the block's query budget ran
#: out; ``solver-unknown``: a query hit z3's resource limit; ``no-candidate-proven``: every
#: candidate was refuted (none of the reasons above applies).
#: :func:`unflagged_failures` adds ``wrong-unflagged-block`` (a block with no flagged token
#: that the solver refutes) and ``unverified-call`` (an unflagged block whose call is not
#: checked: ``blr``, GUESS's line is not ``call`` of the same function, or call blocks off).
CAUSES = ("call", "no-template", "unmapped-register", "memory-offset-literal",
          "flags-across-blocks",
          "wrong-unflagged-line", "unpaired-register", "solver-budget", "solver-unknown",
          "no-candidate-proven", "wrong-unflagged-block", "unverified-call")


@dataclass(frozen=True)
class BlockOutcome:
    """One flagged block: where it is, whether the sketch repaired it, and if not why
    (:data:`CAUSES`) with the instruction it points at (``detail``)."""

    function: str
    block: int
    fixed: bool
    cause: str = ""
    detail: str = ""


@dataclass
class SketchResult:
    """The repaired program, block counts, per flagged block its outcome, and a few repaired
    blocks as examples ``(function, source lines, guess lines with flagged lines marked,
    fixed lines)``."""

    program: Program
    blocks: int = 0
    flagged: int = 0
    fixed: int = 0
    carried: int = 0
    outcomes: list[BlockOutcome] = field(default_factory=list)
    examples: list[tuple[str, list[str], list[str], list[str]]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class SketchOptions:
    """Which hole kinds and context the sketch uses (each measured on the full run; see the
    study's README).

    Attributes
    ----------
    carry_flags : bool
        A block reading NZCV set by a predecessor's ``cmp`` is proven with that compare
        prepended (its operands become block inputs), so its branch can be filled in.
    scratch_registers : bool
        A template register gcc's RV64 side used that no source register was paired with
        (a temporary) may also become a scratch register outside the register map.
    liveness : bool
        A block (or instruction) has to agree with its source only on the registers live
        after it (:mod:`.liveness`) instead of on every mapped register.
    live_widths : bool
        With ``liveness``, a register read later only through its W view has to agree on
        its low 32 bits only.
    block_fallback : bool
        A flagged instruction none of whose candidates is proven on its own is searched
        together with the rest of its block (instead of giving the block up).
    memory_offset_holes : bool
        An unsure literal offset of a template's load/store becomes a hole (a stack slot of
        the frame save/restore) instead of the template being dropped.
    register_holes : bool
        A flagged instruction none of whose candidates is proven alone is tried again with
        each register operand of its candidates (at most :data:`MAX_REGISTER_VARIANTS`
        in all) any image of its source registers (a temporary gcc used, or the wrong
        source slot); not for multiplications and divisions (solver cost).
    compare_immediates : bool
        A conditional branch after ``cmp xN, imm`` (imm nonzero) may also read ``aN`` and
        the scratch register ``t6`` loaded with ``imm`` right before it (gcc's
        ``li a5, imm; ble a0, a5``).
    guess_holes : bool
        GUESS's own lines of a flagged instruction are also a sketch, with every load/store
        offset (memory-offset holes) and every ``addi`` immediate adding to or setting
        ``sp`` (frame-size holes) made a hole.
    call_blocks : bool
        A block ending in ``bl f`` is repaired and proven like any other: its body has to
        agree on what is live at the call (:func:`check_call_block`), and the call becomes
        ``call f``.
    pair_expansion : bool
        ``stp``/``ldp`` also get the two-access expansion of :func:`pair_expansion` (offsets
        and write-back as holes), also when GUESS's confident line is refuted (the -O0
        frame record ``stp x29, x30, [sp, -N]!`` guessed as ``addi sp, sp, -N`` alone).
    """

    carry_flags: bool = True
    scratch_registers: bool = False
    liveness: bool = True
    live_widths: bool = True
    block_fallback: bool = False
    memory_offset_holes: bool = True
    register_holes: bool = True
    compare_immediates: bool = True
    guess_holes: bool = True
    call_blocks: bool = True
    pair_expansion: bool = True


@dataclass
class _Trace:
    """What the search of one block ran into (for :class:`BlockOutcome`)."""

    budget: int
    unknown: bool = False
    exhausted: bool = False
    cause: str = ""
    detail: str = ""


def _bounds(lines: list[Line]) -> dict[str, tuple[int, int]]:
    """Each hole's signed range: what its instruction field encodes (12-bit offsets and
    ``addi`` immediates, shift amounts, ``li``'s 32-bit constant)."""
    out = {}
    for ln in lines:
        if isinstance(ln, Instr):
            for op in ln.operands:
                if isinstance(op, Mem) and op.hole is not None:
                    out[op.hole.name] = (-2048, 2047)
                elif isinstance(op, Hole):
                    if ln.mnemonic in _SHIFTS:
                        out[op.name] = (0, _SHIFTS[ln.mnemonic])
                    elif ln.mnemonic == "li":
                        out[op.name] = (-(1 << 31), (1 << 31) - 1)
                    else:
                        out[op.name] = (-2048, 2047)
    return out


def _fill_operand(op: object, values: dict[str, int]) -> object:
    if isinstance(op, Hole):
        return Imm(values[op.name])
    if isinstance(op, Mem) and op.hole is not None:
        return Mem(op.base, values[op.hole.name])
    return op


def _fill(lines: list[Line], values: dict[str, int]) -> list[Line]:
    out: list[Line] = []
    for ln in lines:
        if isinstance(ln, Instr):
            ops = tuple(_fill_operand(o, values) for o in ln.operands)
            out.append(Instr(ln.mnemonic, ops, ln.line, ln.file))  # type: ignore[arg-type]
        else:
            out.append(ln)
    return out


def guess_holes(lines: Sequence[Line], fresh: str) -> tuple[list[Line], list[str]] | None:
    """GUESS's ``lines`` with every load/store offset a memory-offset hole and the immediate
    of every ``addi`` that adds to or sets ``sp`` a frame-size hole (with the holes' names);
    None when the lines have neither."""
    out: list[Line] = []
    holes: list[str] = []
    for ln in lines:
        if not isinstance(ln, Instr):
            out.append(ln)
            continue
        ops = list(ln.operands)
        for j, op in enumerate(ops):
            if isinstance(op, Mem) and op.index is None and op.hole is None:
                name = f"{fresh}_m{len(holes)}"
                ops[j] = Mem(op.base, 0, hole=Hole(name))
                holes.append(name)
        if ln.mnemonic == "addi" and len(ops) == 3 and isinstance(ops[2], Imm) and any(
                isinstance(o, Reg) and o.name == "sp" for o in ops[:2]):
            name = f"{fresh}_f{len(holes)}"
            ops[2] = Hole(name)
            holes.append(name)
        out.append(Instr(ln.mnemonic, tuple(ops), ln.line, ln.file))
    return (out, holes) if holes else None


def pair_expansion(ins: Instr, fresh: str) -> tuple[list[Line], list[str]] | None:
    """The RV64 sketch of an AArch64 ``stp``/``ldp`` (register base, no index): its two
    accesses (``sd``/``ld``; ``sw``/``lwu`` for W registers, which AArch64 zero-extends on
    a load) at hole offsets from the base's image, and for a pre-/post-indexed form the
    base's write-back as ``addi base, base, hole`` before/after them (ARM ARM: the
    pre-index form updates the base first, the post-index form after the accesses). None
    for another instruction or a register outside the map.

    This is the form gcc's RV64 code takes for the AArch64 frame record
    ``stp x29, x30, [sp, -N]!`` / ``ldp x29, x30, [sp], N`` (AAPCS64 frame pointer and
    link register map to RV64's ``s0`` and ``ra``, which the RV64 psABI saves in the
    frame the same way); the solver fills the holes, so the offsets are derived, not
    assumed."""
    if ins.mnemonic not in _PAIRS or len(ins.operands) != 3:
        return None
    r1, r2, mem = ins.operands
    if not (isinstance(r1, Reg) and isinstance(r2, Reg) and isinstance(mem, Mem)) \
            or mem.index is not None or r1.bits != r2.bits:
        return None
    load = ins.mnemonic == "ldp"
    zero = {"xzr": "zero"} if not load else {}
    images = [_MAP.get(r.name) or zero.get(r.name) for r in (r1, r2, mem.base)]
    if None in images or (load and images[2] in images[:2] and mem.mode != "offset"):
        return None  # unmapped, or a load writing its own written-back base (UNPREDICTABLE)
    a, b, base = (Reg(str(r)) for r in images)
    op = ("ld" if r1.bits == 64 else "lwu") if load else ("sd" if r1.bits == 64 else "sw")
    names = [f"{fresh}_m0", f"{fresh}_m1"]
    first, second = (a, b) if not (load and a == base) else (b, a)  # keep the base until last
    n_first, n_second = (names[0], names[1]) if first == a else (names[1], names[0])
    accesses: list[Line] = [
        Instr(op, (first, Mem(base, 0, hole=Hole(n_first))), ins.line, "sketch"),
        Instr(op, (second, Mem(base, 0, hole=Hole(n_second))), ins.line, "sketch")]
    if mem.mode == "offset":
        return accesses, names
    wb = f"{fresh}_f"
    update = Instr("addi", (base, base, Hole(wb)), ins.line, "sketch")
    lines = [update, *accesses] if mem.mode == "pre" else [*accesses, update]
    return lines, [*names, wb]


def register_variants(alts: Sequence[tuple[list[Line], list[str]]], source: Instr
                      ) -> list[tuple[list[Line], list[str]]]:
    """``alts`` with their register operands (also memory bases) replaced by the images
    of ``source``'s registers, every assignment but the given one, in order (at most
    :data:`MAX_REGISTER_VARIANTS`; ``sp``, ``zero`` and ``ra`` keep their roles)."""
    images: list[Reg] = []
    for op in source.operands:
        for r in ([op] if isinstance(op, Reg) else [op.base, op.index] if isinstance(op, Mem)
                  else []):
            if isinstance(r, Reg) and r.name in _MAP and Reg(_MAP[r.name]) not in images:
                images.append(Reg(_MAP[r.name]))
    out: list[tuple[list[Line], list[str]]] = []
    seen: set[tuple[object, ...]] = set()
    for lines, holes in alts:
        spots = [(n, j) for n, ln in enumerate(lines) if isinstance(ln, Instr)
                 for j, o in enumerate(ln.operands) if _renamable(o)]
        if not spots or any(isinstance(ln, LabelDef) for ln in lines):
            continue
        for pick in itertools.product(images, repeat=len(spots)):
            new = [ln for ln in lines]
            for (n, j), reg in zip(spots, pick, strict=True):
                ins = new[n]
                assert isinstance(ins, Instr)
                ops = list(ins.operands)
                o = ops[j]
                ops[j] = Mem(reg, o.offset, hole=o.hole) if isinstance(o, Mem) else reg
                new[n] = Instr(ins.mnemonic, tuple(ops), ins.line, ins.file)
            key = tuple((ln.mnemonic, ln.operands) for ln in new if isinstance(ln, Instr))
            if new == lines or key in seen:
                continue
            seen.add(key)
            out.append((new, holes))
            if len(out) >= MAX_REGISTER_VARIANTS:
                return out
    return out


def _renamable(op: object) -> bool:
    reg = op.base if isinstance(op, Mem) and op.index is None else op
    return isinstance(reg, Reg) and reg.name not in ("sp", "zero", "ra")


def check_call_block(block_src: Sequence[Instr], lines: Sequence[Line], *,
                     live: _Live | None = None, prefix: Sequence[Instr] = ()) -> bool | None:
    """Is the RV64 block ``lines`` (ending in ``call f``) equivalent to the AArch64 block
    ``block_src`` (ending in ``bl f``)?

    Both psABIs pass arguments in ``x0-x7``/``a0-a7`` (mapped one to one), write the link
    register (``x30``/``ra``, mapped), return in ``x0``/``a0`` and preserve ``sp`` and the
    callee-saved registers, which the register map sends to callee-saved ones
    (``x19-x28 -> s1-s10``, ``x29 -> s0``, ``x8 -> s11``). So given a callee translated
    equivalently (the whole program is checked by emulation), the blocks agree when the
    calls name the same function and the bodies before them agree on the registers live at
    the call (``live``: the arguments, ``sp`` and what is live across it) and on memory.
    True (proven), False (refuted, or not the same call) or None (the solver gave up).
    """
    instrs = [ln for ln in lines if isinstance(ln, Instr)]
    call = block_src[-1] if block_src else None
    if call is None or call.mnemonic != "bl" or not instrs or instrs[-1].mnemonic != "call" \
            or instrs[-1].operands != call.operands:
        return False
    body = list(lines)
    body.remove(instrs[-1])
    live_out, low32 = _solver_live(live)
    return check_equivalence([*prefix, *block_src[:-1]], body, reg_map=_MAP,
                             live_out=live_out, low32=low32, timeout_ms=30_000).equivalent


def _call_lines(call: Instr, g: GuessedInstr) -> list[Line] | None:
    """The RV64 call of ``bl f``: GUESS's line when it is ``call f``, else ``call f`` (the
    calling conventions map one to one, :func:`check_call_block`); None for ``blr``."""
    if call.mnemonic != "bl":
        return None
    if len(g.lines) == 1 and isinstance(g.lines[0], Instr) and g.lines[0].mnemonic == "call" \
            and g.lines[0].operands == call.operands:
        return list(g.lines)
    return [Instr("call", call.operands, call.line, "sketch")]


def _flagged(g: GuessedInstr) -> bool:
    return g.flagged


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
            fresh: str, trace: _Trace, prefix: Sequence[Instr], opts: SketchOptions,
            live: list[_Live] | None) -> list[Line] | None:
    """The first proven completion of the block's flagged instructions, or None (``trace``
    says why). ``prefix`` is the predecessor's compare when the block reads the flags it set
    (:func:`_entry_compare`): the block is proven as ``prefix + block_src``, i.e. with the
    compare's operands as block inputs."""
    options: list[list[tuple[list[Line], list[str]]]] = []
    proof_src = [*prefix, *block_src]
    for k, g in enumerate(guessed):
        live_k = live[k] if live is not None else None
        if not _flagged(g) and not (
                opts.pair_expansion and g.source.mnemonic in _PAIRS and _refuted(g, live_k)):
            options.append([(g.lines, [])])
            continue
        alts, why = _alternatives(model, g, f"{fresh}_{k}",
                                  _compare_operands([*prefix, *block_src[:k]],
                                                    opts.compare_immediates),
                                  scratch=opts.scratch_registers, opts=opts)
        if not alts:
            trace.cause, trace.detail = why, str(g.source)
            return None
        if not _uses_flags(g.source):
            # The alignment is exact per instruction: an instruction that neither reads nor
            # writes flags is repaired on its own, which keeps the block search small.
            one = _first_proven([g.source], [[a] for a in alts], trace, live_k,
                                opts.memory_offset_holes)
            if one is None and opts.register_holes and g.source.mnemonic not in _NONLINEAR:
                # none proven as GUESS named its registers: each register operand may be
                # any source register's image (a register hole, enumerated)
                one = _first_proven([g.source], [[a] for a in register_variants(
                    alts, g.source)], trace, live_k, opts.memory_offset_holes)
            if one is not None:
                options.append([(one, [])])
                continue
            trace.detail = trace.detail or str(g.source)
            if not opts.block_fallback:
                return None
            # No candidate is right on its own; one may be together with its neighbours
            # (gcc's `rem` for AArch64's sdiv + msub): search it with the block.
        options.append(alts)
    combos = itertools.islice(itertools.product(*options), MAX_SKETCHES)
    return _first_proven(proof_src, list(combos), trace,
                         live[-1] if live is not None else None, opts.memory_offset_holes)


def _writes(ins: Instr) -> set[str]:
    """Registers ``ins`` may write (conservative: the destination operand(s) and a
    written-back base)."""
    m, ops = ins.mnemonic, ins.operands
    out = {o.base.name for o in ops if isinstance(o, Mem) and o.mode in ("pre", "post")}
    if m.startswith("b.") or m in ("b", "br", "ret", "cbz", "cbnz", "tbz", "tbnz") \
            or m.startswith(("st", "cmp", "cmn", "tst", "ccmp", "ccmn")):
        return out
    if m in ("bl", "blr"):
        return out | set(REG_MAP)  # a call clobbers (conservatively) every register
    regs = [o.name for o in ops if isinstance(o, Reg)]
    out.update(regs[:2] if m == "ldp" else regs[:1])
    return out


def _reads_entry_flags(instrs: Sequence[Instr]) -> bool:
    """True when a flag reader comes before any flag writer in ``instrs``."""
    for ins in instrs:
        m = ins.mnemonic
        if m.startswith("b.") or m in _FLAG_READERS:
            return True
        if m in _FLAG_WRITERS:
            return False
    return False


def _entry_compare(blocks: Sequence[Block], b: int) -> Instr | None:
    """The compare whose flags block ``b`` reads on entry, when every CFG predecessor of the
    block ends with the same ``cmp`` as its last flag writer and leaves its operands
    unchanged after it (so at block entry the flags are that compare of the entry values);
    None otherwise (including the function's entry block)."""
    if b == 0:
        return None
    preds = [p for p, blk in enumerate(blocks) if blk.instrs and _targets(blk.instrs[-1])
             & set(blocks[b].labels)]
    last = blocks[b - 1].instrs[-1] if blocks[b - 1].instrs else None
    if last is None or last.mnemonic not in ("b", "br", "ret"):
        preds.append(b - 1)
    found: Instr | None = None
    for p in preds:
        instrs = blocks[p].instrs
        at = next((k for k in range(len(instrs) - 1, -1, -1)
                   if instrs[k].mnemonic in _FLAG_WRITERS), None)
        if at is None or instrs[at].mnemonic not in _COMPARES:
            return None
        cmp = instrs[at]
        operands = {o.name for o in cmp.operands if isinstance(o, Reg)}
        if any(_writes(i) & operands for i in instrs[at + 1:]):
            return None
        key = Instr(cmp.mnemonic, cmp.operands)
        if found is not None and Instr(found.mnemonic, found.operands) != key:
            return None
        found = cmp
    return found


def _targets(ins: Instr) -> set[str]:
    return {o.name for o in ins.operands if isinstance(o, Sym)} if is_control(
        ins, "aarch64") else set()


def _uses_flags(ins: Instr) -> bool:
    m = ins.mnemonic
    return m.startswith("b.") or m in _FLAG_MNEMONICS


_Compare = tuple[Reg, Reg, Imm | None]


def _compare_operands(before: Sequence[Instr], immediates: bool = False) -> _Compare | None:
    """The RV64 images of the operands of the last compare in ``before`` (register or zero
    second operand), which a conditional branch after it reads through the flags; with
    ``immediates``, a nonzero immediate second operand becomes the scratch register
    :data:`~archsim.compilers.asm.baseline.SCRATCH` (outside the register map, so never
    live-out) loaded with it (the third element)."""
    for ins in reversed(before):
        if ins.mnemonic in _COMPARES:
            ops = [o for o in ins.operands if not isinstance(o, Shift)]
            if len(ops) != 2 or not isinstance(ops[0], Reg) or ops[0].name not in _MAP:
                return None
            first = Reg(_MAP[ops[0].name])
            if isinstance(ops[1], Reg) and ops[1].name in _MAP:
                return first, Reg(_MAP[ops[1].name]), None
            second = ops[1]
            if (isinstance(second, Imm) and second.value == 0) or (
                    isinstance(second, Reg) and second.name == "xzr"):
                return first, Reg("zero"), None
            if immediates and isinstance(second, Imm) and len(ops) == len(ins.operands):
                return first, Reg(SCRATCH), second
            return None
        if _uses_flags(ins):
            return None  # another flag writer/reader in between: not a plain compare
    return None


def _carried(lines: list[Line], compare: _Compare) -> list[list[Line]]:
    """``lines`` with their conditional branch reading the compare's operands (the flags
    carried from the compare into the branch): the guessed opcode first, then every other
    signed/unsigned relation, each in both operand orders; a compare immediate is loaded
    into its scratch register right before the branch."""
    ops = compare[:2]
    setup = [] if compare[2] is None else [Instr("li", (compare[1], compare[2]))]
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
                alt[n:n + 1] = [*setup, Instr(mnem, (a, b, target), ln.line, ln.file)]
                out.append(alt)
    return out


def _alternatives(model: GuessModel, g: GuessedInstr, fresh: str,
                  compare: _Compare | None = None, *, scratch: bool = False,
                  opts: SketchOptions | None = None
                  ) -> tuple[list[tuple[list[Line], list[str]]], str]:
    """GUESS's top templates for ``g`` with holes, every ambiguous-slot choice, (for
    back-off templates) every compare-branch opcode, and, for a conditional branch after a
    compare in the block, the branch reading the compare's operands (``compare``); then
    (``opts``) GUESS's own lines with offset and frame-size holes and a pair's expansion;
    with the cause (:data:`CAUSES`) when there are none."""
    opts = opts if opts is not None else SketchOptions()
    alts: list[tuple[list[Line], list[str]]] = []
    top = model.candidates(g.source)[:3]
    # The new hole kinds come after the sketches without them, so that where the old search
    # found a proof it still finds the same one within the block's query budget: a pair's
    # expansion, templates with memory-offset holes, then GUESS's lines with holes.
    pair = pair_expansion(g.source, f"{fresh}_p") if opts.pair_expansion else None
    memory: list[tuple[list[Line], list[str]]] = [] if pair is None else [pair]
    own = guess_holes(g.lines, f"{fresh}_o") if opts.guess_holes else None
    extra: list[tuple[list[Line], list[str]]] = [] if own is None else [own]
    if not top:
        return memory + extra, "" if memory or extra else "no-template"
    errors: list[str] = []
    if compare is not None and g.source.mnemonic.startswith("b."):
        for j, (template, p, _) in enumerate(top):
            try:
                lines, _, holes = model.instantiate(template, g.source, f"{fresh}_c{j}",
                                                    holes=True, p=p)
            except DSLError:
                continue
            alts.extend((v, holes) for v in _carried(lines, compare))
    for j, (template, p, backoff) in enumerate(top):
        renames = (False, True) if scratch and uses_unpaired_register(template) else (False,)
        for c, choice in enumerate(slot_choices(template)):
            for r in renames:
                try:
                    lines, _, holes = model.instantiate(template, g.source,
                                                        f"{fresh}_{j}_{c}{'s' if r else ''}",
                                                        holes=True, p=p, choices=choice,
                                                        scratch=r,
                                                        memory_holes=opts.memory_offset_holes)
                except DSLError as exc:
                    errors.append(str(exc))
                    continue
                deferred = any(isinstance(o, Mem) and o.hole is not None for ln in lines
                               if isinstance(ln, Instr) for o in ln.operands)
                for variant in (_branch_variants(lines) if backoff else [lines]):
                    (memory if deferred else alts).append((variant, holes))
    alts.extend(memory + extra)
    if alts:
        return alts, ""
    return [], ("memory-offset-literal" if any("memory offset" in e for e in errors)
                else "unmapped-register")


def _first_proven(block_src: list[Instr],
                  combos: Sequence[Sequence[tuple[list[Line], list[str]]]],
                  trace: _Trace, live: _Live | None = None, probe_stores: bool = False
                  ) -> list[Line] | None:
    """The first combination the solver proves (completing its holes), or None; spends
    ``trace.budget`` (one query per combination) and notes an unknown verdict in it.
    ``probe_stores`` as for :func:`~archsim.compilers.asm.symbolic.fill_holes`."""
    live_out, low32 = _solver_live(live)
    for combo in combos:
        if trace.budget <= 0:
            trace.exhausted = True
            return None
        trace.budget -= 1
        lines = [ln for part, _ in combo for ln in part]
        holes = [h for _, hs in combo for h in hs]
        try:
            if holes:
                values = fill_holes(block_src, lines, holes=holes, reg_map=_MAP,
                                    bounds=_bounds(lines), live_out=live_out, low32=low32,
                                    timeout_ms=30_000, probe_stores=probe_stores)
                if values is not None:
                    return _fill(lines, values)
            else:
                verdict = check_equivalence(block_src, lines, reg_map=_MAP, live_out=live_out,
                                            low32=low32, timeout_ms=30_000).equivalent
                if verdict:
                    return lines
                trace.unknown |= verdict is None
        except DSLError:
            continue
    return None


_Live = dict[str, int]  # live mapped register -> low bits that must agree (32 or 64)


def _live_lists(instrs: list[Instr], live_out: _Live, widths: bool) -> list[_Live]:
    """The mapped registers that must agree after each instruction (with the low bits
    that must: 32 for one read later only as a W register when ``widths``, else 64): those
    live after it, and at the block's end also those its terminator reads (a return reads
    ``x0`` and the callee-saved registers: the proof compares the state after the
    terminator, which reads them there)."""
    if instrs and is_control(instrs[-1], "aarch64"):
        live_out = dict(live_out)
        for r, w in use_widths(instrs[-1]).items():
            live_out[r] = max(live_out.get(r, 0), w)
    after = live_widths_after(instrs, live_out) or [live_out]
    return [{r: (w if widths else 64) for r, w in sorted(a.items()) if r in _MAP}
            for a in after]


def _solver_live(live: _Live | None) -> tuple[list[str] | None, list[str]]:
    """(live_out, low32) arguments of the solver calls for ``live`` (None: all mapped)."""
    if live is None:
        return None, []
    return list(live), [r for r, w in live.items() if w == 32]


def _diagnose(model: GuessModel, block_src: list[Instr], guessed: list[GuessedInstr],
              trace: _Trace, flags_in: bool, live: list[_Live] | None, pairs: bool = False
              ) -> tuple[str, str]:
    """The cause (:data:`CAUSES`) and instruction of a failed repair, most specific first
    (``pairs``: a refuted ``stp``/``ldp`` line was searched like a flagged one)."""
    if trace.cause:
        return trace.cause, trace.detail
    if flags_in:
        reader = next(i for i in block_src if i.mnemonic.startswith("b.")
                      or i.mnemonic in _FLAG_READERS)
        return "flags-across-blocks", str(reader)
    for k, g in enumerate(guessed):
        # An unflagged instruction is fixed in every sketch: if its own lines are not
        # equivalent to it, no completion of the holes can prove the block.
        if _flagged(g) or _uses_flags(g.source) or not g.lines or (
                pairs and g.source.mnemonic in _PAIRS):
            continue
        if _refuted(g, live[k] if live is not None else None):
            return "wrong-unflagged-line", str(g.source)
    if trace.unknown:
        return "solver-unknown", trace.detail
    if trace.exhausted:
        return "solver-budget", trace.detail
    # The culprit: the flagged instruction repaired on its own that had no proven candidate
    # (trace.detail), else the flagged flag users searched together at block level.
    culprits = [g for g in guessed if _flagged(g) and (
        str(g.source) == trace.detail if trace.detail else _uses_flags(g.source))]
    for g in culprits:
        if any(uses_unpaired_register(t) for t, _, _ in model.candidates(g.source)[:3]):
            return "unpaired-register", str(g.source)
    return "no-candidate-proven", trace.detail or "; ".join(str(g.source) for g in culprits)


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
           max_queries: int = MAX_QUERIES, options: SketchOptions | None = None,
           max_examples: int = 3) -> SketchResult:
    """Repair the flagged blocks of ``guess`` (a GUESS translation of ``source``), spending at
    most ``max_queries`` solver queries per block (a count, not a time, so the result does
    not depend on the machine's speed; each query has z3's deterministic resource limit
    :data:`~archsim.compilers.asm.symbolic.RLIMIT`). ``options`` (default
    :class:`SketchOptions` ()) picks the hole kinds; each unrepaired block's cause is in
    ``outcomes``."""
    opts = options if options is not None else SketchOptions()
    out = Program(isa="riscv64", file=source.file + " (guess+sketch rv64)")
    result = SketchResult(out)
    for name, fn in source.functions.items():
        aligned = guess.aligned[name]
        lines: list[Line] = []
        blocks = basic_blocks(fn, isa="aarch64")
        live_out = block_live_widths(fn) if opts.liveness else None
        for b, block in enumerate(blocks):
            lines.extend(LabelDef(lb) for lb in block.labels)
            guessed = aligned[block.start:block.start + len(block.instrs)]
            current = [ln for g in guessed for ln in g.lines]
            result.blocks += 1
            if not any(_flagged(g) for g in guessed):
                lines.extend(current)
                continue
            result.flagged += 1
            fixed = None
            trace = _Trace(max_queries)
            entry = _reads_entry_flags(block.instrs)
            prefix = [c] if entry and opts.carry_flags and (c := _entry_compare(blocks, b)) \
                else []
            live = _live_lists(block.instrs, live_out[b], opts.live_widths) \
                if live_out is not None else None
            if block.instrs[-1].mnemonic in _CALLS:
                # a block ends at its call (basic_blocks): repair the body before it
                call = _call_lines(block.instrs[-1], guessed[-1]) if opts.call_blocks \
                    else None
                if call is None:
                    trace.cause = "call"
                elif len(block.instrs) == 1:
                    fixed = call
                else:
                    body = _repair(model, block.instrs[:-1], guessed[:-1],
                                   f".Lsk_{name}_{b}", trace, prefix, opts,
                                   live[:-1] if live is not None else None)
                    fixed = None if body is None else [*body, *call]
            else:
                fixed = _repair(model, block.instrs, guessed, f".Lsk_{name}_{b}", trace,
                                prefix, opts, live)
            if fixed is None:
                n = len(block.instrs) - (block.instrs[-1].mnemonic in _CALLS)
                cause, detail = _diagnose(model, block.instrs[:n], guessed[:n], trace,
                                          entry and not prefix,
                                          live[:n] if live is not None else None,
                                          opts.pair_expansion)
                result.outcomes.append(BlockOutcome(name, b, False, cause, detail))
                lines.extend(current)
                continue
            result.fixed += 1
            result.carried += bool(prefix)
            result.outcomes.append(BlockOutcome(name, b, True))
            lines.extend(fixed)
            if len(result.examples) < max_examples:
                marks = [_flagged(g) for g in guessed for _ in g.lines]
                result.examples.append((name, [str(i) for i in block.instrs],
                                        _show(current, marks), _show(fixed)))
        out.functions[name] = Function(name, lines)
    return result


def unflagged_failures(source: Program, guess: Guess, *,
                       options: SketchOptions | None = None) -> list[BlockOutcome]:
    """The blocks of ``guess`` with no flagged token that the solver does not prove
    equivalent to their source (GUESS was confidently wrong on a whole block; the sketch
    never looks at them), and the unflagged blocks with a call (which it cannot check);
    ``options`` as for :func:`sketch` (flags carried, liveness)."""
    opts = options if options is not None else SketchOptions()
    out: list[BlockOutcome] = []
    for name, fn in source.functions.items():
        aligned = guess.aligned[name]
        blocks = basic_blocks(fn, isa="aarch64")
        live_out = block_live_widths(fn) if opts.liveness else None
        for b, block in enumerate(blocks):
            guessed = aligned[block.start:block.start + len(block.instrs)]
            if any(_flagged(g) for g in guessed):
                continue
            is_call = bool(block.instrs) and block.instrs[-1].mnemonic in _CALLS
            if is_call and not (opts.call_blocks and block.instrs[-1].mnemonic == "bl"):
                out.append(BlockOutcome(name, b, False, "unverified-call",
                                        str(block.instrs[-1])))
                continue
            prefix: list[Instr] = []
            if _reads_entry_flags(block.instrs):
                c = _entry_compare(blocks, b) if opts.carry_flags else None
                if c is None:
                    out.append(BlockOutcome(name, b, False, "flags-across-blocks",
                                            str(block.instrs[-1])))
                    continue
                prefix = [c]
            lines = [ln for g in guessed for ln in g.lines]
            live = _live_lists(block.instrs, live_out[b], opts.live_widths) \
                if live_out is not None else None
            live_regs, low32 = _solver_live(live[-1] if live is not None else None)
            try:
                if is_call:
                    verdict = check_call_block(
                        block.instrs, lines, prefix=prefix,
                        live=live[-2] if live is not None and len(live) > 1 else None)
                    if verdict is False and not check_call_block(block.instrs[-1:],
                                                                 guessed[-1].lines):
                        out.append(BlockOutcome(name, b, False, "unverified-call",
                                                str(block.instrs[-1])))
                        continue
                else:
                    verdict = check_equivalence([*prefix, *block.instrs], lines, reg_map=_MAP,
                                                live_out=live_regs, low32=low32,
                                                timeout_ms=30_000).equivalent
            except DSLError as exc:
                out.append(BlockOutcome(name, b, False, "wrong-unflagged-block", str(exc)))
                continue
            if verdict is not True:
                bad = next((str(g.source) for k, g in enumerate(guessed)
                            if not _uses_flags(g.source) and g.source.mnemonic not in _CALLS
                            and _refuted(g, live[k] if live is not None else None)),
                           str(block.instrs[0]))
                out.append(BlockOutcome(name, b, False, "wrong-unflagged-block"
                                        if verdict is False else "solver-unknown", bad))
    return out


def _refuted(g: GuessedInstr, live: _Live | None) -> bool:
    """Does the solver refute ``g``'s own lines (an unsupported line counts as refuted)?"""
    live_out, low32 = _solver_live(live)
    try:
        return check_equivalence([g.source], g.lines, reg_map=_MAP, live_out=live_out,
                                 low32=low32, timeout_ms=30_000).equivalent is False
    except DSLError:
        return True
