"""GUESS: a small learned AArch64 -> RV64 translator with per-token confidence and an
input-output alignment.

The model is a statistical template translator (count-based, with back-off). Training
pairs each AArch64 instruction of the training split with the RV64 lines it became; both
are abstracted into templates: source registers and immediates become numbered slots, and
each target operand is either a slot reference (a register through the register map, an
immediate copied or negated) or a literal. The model counts target templates per source
template (and per coarser back-off key: the mnemonic and operand kinds only).

Decoding is monotone, one source instruction at a time, so the alignment is exact: output
lines ``[lo, hi)`` came from source instruction ``k``. Every output operand token carries a
confidence: the template's relative frequency for its key (times 0.3 when only the back-off
key was seen), and for a literal immediate, half of that when training never saw it
stay constant while the source immediates changed (it may be a function of them).

Where the pairs come from (a deviation from the paper, stated): gcc's AArch64 and RV64
compilations of one C function are not instruction-aligned and allocate registers
independently, so instruction-level pairs are taken from the engineered rules
(:mod:`.baseline`) applied to the *training* functions only. What GUESS learns is how far
those rules generalise from 37 training units to unseen ones.
"""

from __future__ import annotations

import math
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ConfigError, DSLError
from .align import align_corpus
from .baseline import REG_MAP, translate
from .corpus import Unit
from .ir import Cond, Function, Hole, Imm, Instr, LabelDef, Line, Mem, Program, Reg, Shift, Sym
from .liveness import instruction_live_widths

__all__ = ["GuessModel", "Guess", "GuessedInstr", "LOW_CONFIDENCE", "PAIR_SOURCES", "train_guess",
           "calibrate_threshold", "HOLDOUT_FRACTION", "TARGET_PRECISION",
           "slot_choices", "uses_unpaired_register", "SCRATCH_REGS"]

#: Tokens below this confidence are flagged (and become holes for the sketch).
LOW_CONFIDENCE = 0.9
_BACKOFF_WEIGHT = 0.3
_LITERAL_UNSURE = 0.5
_FIXED_ROLE = frozenset({"sp", "zero", "ra"})
#: RV64 registers outside the fixed register map (so never live-out of a block) that an
#: unpaired register of a template may become in a sketch (caller-saved temporaries).
SCRATCH_REGS = ("t6", "t5", "t4")

Token = tuple[object, ...]
TLine = tuple[object, ...]  # ("I", mnemonic, tokens) or ("L", n) (a generated label)
Template = tuple[TLine, ...]


def _abstract(ins: Instr) -> tuple[tuple[object, ...], tuple[object, ...], list[str], list[int],
                                   list[str]]:
    """(key, coarse key, registers, immediates, labels) of a source instruction."""
    kinds: list[object] = []
    coarse: list[object] = []
    regs: list[str] = []
    imms: list[int] = []
    labels: list[str] = []
    for op in ins.operands:
        if isinstance(op, Reg):
            kinds.append(("R", op.bits, "Z" if op.name == "xzr" else ""))
            coarse.append("R")
            regs.append(op.name)
        elif isinstance(op, Imm):
            kinds.append("I")
            coarse.append("I")
            imms.append(op.value)
        elif isinstance(op, Shift):
            kinds.append(("SH", op.op))
            coarse.append("SH")
            imms.append(op.amount)
        elif isinstance(op, Mem):
            idx = op.index is not None
            kinds.append(("M", op.mode, idx, op.shift.op if op.shift else "", op.index.bits if
                          op.index else 0))
            coarse.append("M")
            regs.append(op.base.name)
            imms.append(op.offset)
            if op.index is not None:
                regs.append(op.index.name)
                imms.append(op.shift.amount if op.shift else 0)
        elif isinstance(op, Cond):
            kinds.append(("C", op.code))
            coarse.append("C")
        elif isinstance(op, Sym):
            kinds.append("L")
            coarse.append("L")
            labels.append(op.name)
        else:
            raise DSLError(f"{ins.mnemonic}: operand {op} cannot be abstracted",
                           filename=ins.file, lineno=ins.line)
    return ((ins.mnemonic, tuple(kinds)), (ins.mnemonic, tuple(coarse)), regs, imms, labels)


def _alias_key(key: tuple[object, ...], regs: Sequence[str]) -> tuple[object, ...]:
    """``key`` refined by which register slots name the same register (``add x1, x1, 1``
    and ``add x2, x1, 1`` translate differently: only the first can update in place)."""
    return key + (tuple(regs.index(r) for r in regs),)


def _target_template(lines: Sequence[Line], regs: list[str], imms: list[int],
                     labels: list[str]) -> Template:
    images = [REG_MAP.get(r, "") for r in regs]
    gen: dict[str, int] = {}
    out: list[TLine] = []

    def tok(op: object) -> Token:
        if isinstance(op, Reg):
            slots = tuple(k for k, im in enumerate(images) if im == op.name)
            if len(slots) > 1:
                # the register fills several source slots: which one it stands for is unknown
                return ("SA", slots)
            return ("S", slots[0]) if slots else ("R", op.name)
        if isinstance(op, Imm):
            if op.value in imms:
                return ("I", imms.index(op.value), 1)
            if -op.value in imms:
                return ("I", imms.index(-op.value), -1)
            return ("K", op.value)
        if isinstance(op, Mem):
            return ("M", tok(op.base), tok(Imm(op.offset)))
        if isinstance(op, Sym):
            if op.name in labels:
                return ("Y", labels.index(op.name))
            return ("G", gen.setdefault(op.name, len(gen)))
        raise ValueError(op)

    for line in lines:
        if isinstance(line, LabelDef):
            out.append(("L", gen.setdefault(line.name, len(gen))))
        else:
            out.append(("I", line.mnemonic, tuple(tok(o) for o in line.operands)))
    return tuple(out)


@dataclass
class GuessedInstr:
    """GUESS's output for one source instruction: its lines, the minimum token confidence of
    each instruction line (None for a label), and the candidates it chose from."""

    source: Instr
    lines: list[Line]
    confidence: list[float | None]
    candidates: list[tuple[Template, float]] = field(default_factory=list)
    threshold: float = LOW_CONFIDENCE

    @property
    def flagged(self) -> bool:
        """No translation, or a line below the model's confidence threshold."""
        return not self.lines or any(c is not None and c < self.threshold
                                     for c in self.confidence)


@dataclass
class Guess:
    """A guessed translation: the RV64 program and, per function, one
    :class:`GuessedInstr` per source instruction (the alignment)."""

    program: Program
    aligned: dict[str, list[GuessedInstr]]
    error: str = ""


@dataclass
class GuessModel:
    """Counts of target templates per source template and per back-off key, and which
    literal immediates were seen to stay constant while source immediates varied."""

    table: dict[tuple[object, ...], Counter[Template]] = field(default_factory=dict)
    backoff: dict[tuple[object, ...], Counter[Template]] = field(default_factory=dict)
    literal_stable: dict[tuple[object, ...], bool] = field(default_factory=dict)
    train_seconds: float = 0.0
    pairs: int = 0
    pair_source: str = "gcc"
    #: Lines below this confidence are flagged (:data:`LOW_CONFIDENCE`, or calibrated).
    low_confidence: float = LOW_CONFIDENCE
    fine: dict[tuple[object, ...], Counter[Template]] = field(default_factory=dict)
    calibration: dict[str, float] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of (source key, target template) entries."""
        return sum(len(c) for c in self.table.values())

    def candidates(self, ins: Instr) -> list[tuple[Template, float, bool]]:
        """Target templates for ``ins``, most probable first: (template, p, from back-off).

        The most specific key seen in training is used: the aliasing key (which register
        operands are the same register, :func:`_alias_key`; only when the model has such
        counts), the operand-kind key, then the coarse back-off key."""
        key, coarse, regs, *_ = _abstract(ins)
        if self.fine:
            counts = self.fine.get(_alias_key(key, regs))
            if counts:
                total = sum(counts.values())
                return [(t, c / total, False) for t, c in counts.most_common()]
        counts, backoff = self.table.get(key), False
        if counts is None:
            counts, backoff = self.backoff.get(coarse), True
        if not counts:
            return []
        total = sum(counts.values())
        scale = _BACKOFF_WEIGHT if backoff else 1.0
        return [(t, scale * c / total, backoff) for t, c in counts.most_common()]

    def instantiate(self, template: Template, ins: Instr, fresh: str, *,
                    holes: bool = False, p: float = 1.0, key: tuple[object, ...] = (),
                    choices: dict[tuple[int, int], int] | None = None,
                    scratch: bool = False, memory_holes: bool = True
                    ) -> tuple[list[Line], list[float | None], list[str]]:
        """Lines of ``template`` for ``ins`` with per-line confidence; with ``holes``, unsure
        literal immediates become :class:`Hole` s (their names are returned; one in a memory
        operand's offset is the operand's ``hole``, unless ``memory_holes`` is False: then
        the template is refused with a ``memory offset`` error). An ambiguous
        slot token takes its first slot unless ``choices[(line, token)]`` picks another.
        With ``scratch``, each unpaired register (:func:`uses_unpaired_register`) becomes the
        next of :data:`SCRATCH_REGS` (the same one at each use)."""
        _, _, regs, imms, labels = _abstract(ins)
        hole_names: list[str] = []
        renamed: dict[str, str] = {}
        lines: list[Line] = []
        conf: list[float | None] = []

        def op(t: Token, where: tuple[object, ...]) -> tuple[object, float]:
            kind = t[0]
            if kind == "S":
                k = t[1]
                assert isinstance(k, int)
                if k >= len(regs) or regs[k] not in REG_MAP:
                    raise DSLError(f"{ins.mnemonic}: no register for slot {k}",
                                   filename=ins.file, lineno=ins.line)
                return Reg(REG_MAP[regs[k]]), 1.0
            if kind == "SA":
                slots = t[1]
                assert isinstance(slots, tuple)
                pick = (choices or {}).get((int(str(where[2])), int(str(where[3]))), 0)
                images = {REG_MAP.get(regs[k], "") for k in slots if k < len(regs)}
                reg, c = op(("S", slots[pick]), where)
                return reg, c if len(images) == 1 else _LITERAL_UNSURE
            if kind == "R":
                # A register gcc's RV64 side used that no source register was paired with:
                # only the fixed-role ones mean the same in every function.
                name = str(t[1])
                if name in _FIXED_ROLE:
                    return Reg(name), 1.0
                if scratch:
                    if name not in renamed:
                        if len(renamed) == len(SCRATCH_REGS):
                            raise DSLError(f"{ins.mnemonic}: more unpaired registers than "
                                           "scratch registers", filename=ins.file,
                                           lineno=ins.line)
                        renamed[name] = SCRATCH_REGS[len(renamed)]
                    name = renamed[name]
                return Reg(name), _LITERAL_UNSURE
            if kind == "I":
                k, sign = t[1], t[2]
                assert isinstance(k, int) and isinstance(sign, int)
                if k >= len(imms):
                    raise DSLError(f"{ins.mnemonic}: no immediate for slot {k}",
                                   filename=ins.file, lineno=ins.line)
                return Imm(sign * imms[k]), 1.0
            if kind == "K":
                value = t[1]
                assert isinstance(value, int)
                sure = self.literal_stable.get(where, False)
                if holes and not sure:
                    name = f"{fresh}_h{len(hole_names)}"
                    hole_names.append(name)
                    return Hole(name), 1.0
                return Imm(value), 1.0 if sure else _LITERAL_UNSURE
            if kind == "M":
                base, c1 = op(t[1], where + ("b",))  # type: ignore[arg-type]
                off, c2 = op(t[2], where + ("o",))  # type: ignore[arg-type]
                assert isinstance(base, Reg)
                if isinstance(off, Hole):
                    if not memory_holes:
                        raise DSLError("memory offset hole")
                    # an unsure stack offset (frame save/restore): a memory-offset hole
                    return Mem(base, 0, hole=off), c1
                assert isinstance(off, Imm)
                return Mem(base, off.value), min(c1, c2)
            if kind == "Y":
                k = t[1]
                assert isinstance(k, int)
                return Sym(labels[k]), 1.0
            if kind == "G":
                return Sym(f"{fresh}_g{t[1]}"), 1.0
            raise ValueError(t)

        for n, tl in enumerate(template):
            if tl[0] == "L":
                lines.append(LabelDef(f"{fresh}_g{tl[1]}", ins.line))
                conf.append(None)
                continue
            mnemonic, toks = tl[1], tl[2]
            assert isinstance(mnemonic, str) and isinstance(toks, tuple)
            ops, cs = [], []
            for j, t in enumerate(toks):
                o, c = op(t, (key, template, n, j))
                ops.append(o)
                cs.append(c)
            lines.append(Instr(mnemonic, tuple(ops), ins.line, "guess"))  # type: ignore[arg-type]
            conf.append(p * min(cs, default=1.0))
        return lines, conf, hole_names

    def translate(self, program: Program) -> Guess:
        """GUESS's translation of an AArch64 program (best template per instruction)."""
        out = Program(isa="riscv64", file=program.file + " (guess rv64)")
        guess = Guess(out, {})
        for name, fn in program.functions.items():
            lines: list[Line] = []
            aligned: list[GuessedInstr] = []
            for k, line in enumerate(fn.lines):
                if isinstance(line, LabelDef):
                    lines.append(line)
                    continue
                cands = self.candidates(line)
                fresh = f".Lgs_{name}_{k}"
                if not cands:
                    guess.error = guess.error or f"{line.file}:{line.line}: no template for " \
                                                 f"{line.mnemonic}"
                    aligned.append(GuessedInstr(line, [], [0.0], threshold=self.low_confidence))
                    continue
                template, p, _ = cands[0]
                key = _abstract(line)[0]
                try:
                    body, conf, _ = self.instantiate(template, line, fresh, p=p, key=key)
                except DSLError as exc:
                    guess.error = guess.error or str(exc)
                    body, conf = [], [0.0]
                lines.extend(body)
                aligned.append(GuessedInstr(line, body, conf,
                                            [(t, q) for t, q, _ in cands[:3]],
                                            self.low_confidence))
            out.functions[name] = Function(name, lines)
            guess.aligned[name] = aligned
        return guess


#: Where GUESS's training pairs come from (see :func:`train_guess`).
PAIR_SOURCES = ("gcc", "rules")


def _gcc_pairs(units: Sequence[Unit], opts: Sequence[str]) -> list[tuple[Instr, Sequence[Line]]]:
    functions: list[tuple[Function, Function]] = []
    for unit in units:
        for opt in opts:
            a64 = unit.variants[f"aarch64-{opt}"].program()
            rv = unit.variants[f"riscv64-{opt}"].program()
            functions.extend((fn, rv.functions[name]) for name, fn in a64.functions.items()
                             if name in rv.functions)
    return [(p.source, p.target) for p in align_corpus(functions)]


def _rule_pairs(units: Sequence[Unit], opts: Sequence[str]) -> list[tuple[Instr, Sequence[Line]]]:
    out: list[tuple[Instr, Sequence[Line]]] = []
    for unit in units:
        for opt in opts:
            source = unit.variants[f"aarch64-{opt}"].program()
            try:
                tr = translate(source)
            except DSLError:
                continue  # the rules do not cover this unit: no pairs from it
            for name, fn in source.functions.items():
                rv_lines = tr.program.functions[name].lines
                out.extend((ins, rv_lines[lo:hi])
                           for ins, (lo, hi) in zip(fn.instrs, tr.instr_spans[name], strict=True))
    return out


def train_guess(units: Sequence[Unit], *, opts: Sequence[str] = ("O0", "O2"),
                pairs: str = "gcc", seed: int = 0, alias_keys: bool = False,
                calibrate: bool = False) -> GuessModel:
    """Fit GUESS on the training units' instruction pairs.

    ``pairs="gcc"`` (the default) aligns gcc's own AArch64 and RV64 compilations of each
    training function (:mod:`.align`: blocks by shared label, instructions by a monotone
    hard-EM alignment, RV64 registers and stack slots normalized into the source's);
    ``pairs="rules"`` pairs each instruction with what the engineered rules
    (:mod:`.baseline`) make of it (the earlier, weaker-founded training data).
    ``seed`` orders the training units (the counts do not depend on it; it is kept so the
    call is deterministic by contract like every stochastic step). ``alias_keys`` adds the
    aliasing-refined key (:func:`_alias_key`) in front of the others. ``calibrate`` sets
    the flagging threshold from a held-out split of the units (:func:`calibrate_threshold`).
    """
    if pairs not in PAIR_SOURCES:
        raise ConfigError(f"pairs={pairs!r}: allowed values are {PAIR_SOURCES}")
    t0 = time.perf_counter()
    order = np.random.default_rng(seed).permutation(len(units))
    ordered = [units[int(i)] for i in order]
    data = _gcc_pairs(ordered, opts) if pairs == "gcc" else _rule_pairs(ordered, opts)
    table: dict[tuple[object, ...], Counter[Template]] = defaultdict(Counter)
    fine: dict[tuple[object, ...], Counter[Template]] = defaultdict(Counter)
    backoff: dict[tuple[object, ...], Counter[Template]] = defaultdict(Counter)
    literal_imms: dict[tuple[object, ...], set[tuple[int, ...]]] = defaultdict(set)
    for ins, target in data:
        key, coarse, regs, imms, labels = _abstract(ins)
        template = _target_template(target, regs, imms, labels)
        table[key][template] += 1
        backoff[coarse][template] += 1
        if alias_keys:
            fine[_alias_key(key, regs)][template] += 1
        for n, j, t in _instruction_tokens(template):
            for where in _literals((key, template, n, j), t):
                literal_imms[where].add(tuple(imms))
    # A literal is trusted when it stayed the same across different source immediates, or
    # when the source has no immediates it could depend on.
    stable = {w: len(seen) > 1 or seen == {()} for w, seen in literal_imms.items()}
    model = GuessModel(dict(table), dict(backoff), stable, 0.0, len(data), pairs,
                       fine=dict(fine))
    if calibrate:
        cal = calibrate_threshold(units, opts=opts, pairs=pairs, seed=seed,
                                  alias_keys=alias_keys)
        model.low_confidence = cal["threshold"]
        model.calibration = cal
    model.train_seconds = time.perf_counter() - t0
    return model


#: Held-out share of the training units for :func:`calibrate_threshold` (assumed).
HOLDOUT_FRACTION = 0.25
#: Precision the unflagged held-out lines must reach (assumed): a wrong unflagged line is
#: fatal (no hole covers it), a right flagged one costs one solver query.
TARGET_PRECISION = 0.99


def calibrate_threshold(units: Sequence[Unit], *, opts: Sequence[str] = ("O0", "O2"),
                        pairs: str = "gcc", seed: int = 0, alias_keys: bool = False,
                        holdout: float = HOLDOUT_FRACTION,
                        precision: float = TARGET_PRECISION) -> dict[str, float]:
    """The flagging threshold calibrated on held-out training units.

    A model is fitted on ``1 - holdout`` of ``units`` (seeded split); on the rest, each
    GUESS line of an instruction that neither branches nor touches flags is labelled right
    or wrong by the solver (the instruction alone, every mapped register live-out). The
    threshold is the lowest confidence ``t`` such that the held-out lines at or above ``t``
    are right with at least ``precision``: below it a line is flagged. When no
    confidence reaches the precision, :data:`LOW_CONFIDENCE` is kept (``calibrated`` 0).

    Returns
    -------
    dict
        ``threshold``, held-out ``lines``, ``wrong`` lines, and ``flagged_wrong`` (wrong
        lines below the threshold).
    """
    from .symbolic import check_equivalence  # the solver is only needed here

    order = np.random.default_rng(seed).permutation(len(units))
    n_out = max(1, int(round(holdout * len(units))))
    held = [units[int(i)] for i in order[:n_out]]
    fit = [units[int(i)] for i in order[n_out:]]
    model = train_guess(fit, opts=opts, pairs=pairs, seed=seed, alias_keys=alias_keys)
    reg_map = {k: v for k, v in REG_MAP.items() if k != "xzr"}
    scored: list[tuple[float, bool]] = []
    for unit in held:
        for opt in opts:
            program = unit.variants[f"aarch64-{opt}"].program()
            guess = model.translate(program)
            for name, aligned in guess.aligned.items():
                lives = instruction_live_widths(program.functions[name])
                for g, live in zip(aligned, lives, strict=True):
                    m = g.source.mnemonic
                    if not g.lines or m.startswith("b") or m in _FLAG_TOUCHING or m == "ret":
                        continue
                    # right = equal to the source on what is live after it (as SKETCH checks)
                    regs = [r for r in sorted(live) if r in reg_map]
                    try:
                        ok = check_equivalence([g.source], g.lines, reg_map=reg_map,
                                               live_out=regs,
                                               low32=[r for r in regs if live[r] == 32],
                                               timeout_ms=30_000).equivalent is True
                    except DSLError:
                        ok = False
                    scored.append((min(c for c in g.confidence if c is not None), ok))
    scored.sort(key=lambda x: -x[0])
    threshold = math.inf  # no confidence reaches the precision: flag every line
    right = 0
    for n, (conf, ok) in enumerate(scored, 1):
        right += ok
        if right / n >= precision and (n == len(scored) or scored[n][0] < conf):
            threshold = conf  # the lines at or above conf reach the precision
    wrong = sum(not ok for _, ok in scored)
    reached = threshold != math.inf
    if not reached:
        threshold = LOW_CONFIDENCE  # kept (flagging all would send every block to SKETCH)
    return {"threshold": float(threshold), "lines": float(len(scored)), "wrong": float(wrong),
            "flagged_wrong": float(sum(not ok for c, ok in scored if c < threshold)),
            "calibrated": float(reached)}


_FLAG_TOUCHING = frozenset({"cmp", "cmn", "tst", "ccmp", "ccmn", "adds", "subs", "ands",
                            "negs", "csel", "csinc", "csinv", "csneg", "cset", "csetm",
                            "cinc", "cinv", "cneg"})


def _instruction_tokens(template: Template) -> Iterator[tuple[int, int, Any]]:
    """Each operand token of ``template``'s instruction lines: (line, position, token).

    Tokens are nested tuples of several shapes (register, slot, literal, memory), hence
    ``Any``: callers tell them apart by their tag ``t[0]``."""
    for n, tl in enumerate(template):
        if tl[0] != "I":
            continue
        toks = tl[2]
        assert isinstance(toks, tuple)
        for j, t in enumerate(toks):
            yield n, j, t


def _literals(where: tuple[object, ...], t: Token) -> list[tuple[object, ...]]:
    if t[0] == "K":
        return [where]
    if t[0] == "M":
        return _literals(where + ("b",), t[1]) + _literals(where + ("o",), t[2])  # type: ignore[arg-type]
    return []


def slot_choices(template: Template) -> list[dict[tuple[int, int], int]]:
    """Every assignment of the ambiguous slot tokens of ``template`` (at most 16)."""
    spots: list[tuple[tuple[int, int], int]] = []
    for n, j, t in _instruction_tokens(template):
        if isinstance(t, tuple) and t[0] == "SA":
            spots.append(((n, j), len(t[1])))
    out: list[dict[tuple[int, int], int]] = [{}]
    for spot, n_opts in spots:
        out = [c | {spot: k} for c in out for k in range(n_opts)][:16]
    return out


def uses_unpaired_register(template: Template) -> bool:
    """True when ``template`` names a register gcc's RV64 side used that no source register
    was paired with (other than ``sp``/``zero``/``ra``): which register it should be in
    another function is unknown."""
    def unpaired(t: Token) -> bool:
        if t[0] == "R":
            return str(t[1]) not in _FIXED_ROLE
        if t[0] == "M":
            return unpaired(t[1])  # type: ignore[arg-type]
        return False

    return any(unpaired(t) for _, _, t in _instruction_tokens(template))
