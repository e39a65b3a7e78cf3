"""Scoring a transpiler: execution equivalence on random inputs, block equivalence by z3.

A translated function counts as correct when, on every one of ``n_inputs`` random inputs
(:func:`~archsim.compilers.asm.emulate.random_inputs`) on which the AArch64 source returns,
the RV64 translation returns the same value and leaves the same buffers. Separately, each
aligned block pair is put to the solver (:func:`~archsim.compilers.asm.symbolic.check_equivalence`,
all mapped registers and memory live-out; flags are not, so a block reading flags set in an
earlier block cannot be proven and counts as not proven).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import DSLError
from .baseline import REG_MAP, Translation, translate
from .blocks import basic_blocks
from .corpus import Unit
from .emulate import random_inputs, run_function
from .ir import Program
from .rv_encode import assemble
from .symbolic import check_equivalence

__all__ = ["FunctionScore", "execution_equivalent", "prove_blocks", "score_baseline",
           "success_rate"]

_MAP = {k: v for k, v in REG_MAP.items() if k != "xzr"}


@dataclass(frozen=True)
class FunctionScore:
    """One function at one -O level: whether it translated, how many inputs agreed, how many
    aligned blocks the solver proved, and why it failed (``error``)."""

    name: str
    split: str
    opt: str
    translated: bool
    inputs_run: int
    inputs_equal: int
    blocks: int = 0
    blocks_proven: int = 0
    error: str = ""

    @property
    def correct(self) -> bool:
        """Translated and equal on every input run (at least one)."""
        return self.translated and self.inputs_run > 0 and self.inputs_equal == self.inputs_run


def execution_equivalent(unit: Unit, opt: str, program: Program, *, n_inputs: int,
                         seed: int) -> tuple[int, int, str]:
    """Run the AArch64 source and the RV64 ``program`` on ``n_inputs`` random inputs.

    Returns
    -------
    (inputs run, inputs equal, first difference as text)
    """
    src = unit.variants[f"aarch64-{opt}"]
    try:
        out = assemble(program)
    except DSLError as exc:
        return 0, 0, f"assemble: {exc}"
    rng = np.random.default_rng(seed)
    run = equal = 0
    first = ""
    for _ in range(n_inputs):
        inputs = random_inputs(unit.args, rng=rng)
        ref = run_function(isa="aarch64", text=src.text, base=src.base,
                           entry=src.symbols[unit.name], inputs=inputs)
        if ref.status != "ok":
            continue  # the source itself does not return on this input
        got = run_function(isa="riscv64", text=out.text, base=out.base,
                           entry=out.symbols[unit.name], inputs=inputs)
        run += 1
        if ref.same_as(got):
            equal += 1
        elif not first:
            first = (f"args {inputs.args}: expected {ref.ret}, got {got.ret} ({got.status}"
                     f"{': ' + got.message if got.message else ''})")
    return run, equal, first


def prove_blocks(source: Program, translation: Translation, *,
                 timeout_ms: int = 30_000) -> tuple[int, int]:
    """(aligned blocks, blocks proven equivalent); blocks with a call are not provable."""
    total = proven = 0
    for name, fn in source.functions.items():
        lines = translation.program.functions[name].lines
        for block, (lo, hi) in zip(basic_blocks(fn, isa="aarch64"),
                                   translation.alignment[name], strict=True):
            total += 1
            if any(i.mnemonic in ("bl", "blr") for i in block.instrs):
                continue
            try:
                res = check_equivalence(block.instrs, lines[lo:hi], reg_map=_MAP,
                                        timeout_ms=timeout_ms)
            except DSLError:
                continue
            proven += res.equivalent is True
    return total, proven


def score_baseline(units: Sequence[Unit], *, n_inputs: int = 20, seed: int = 0,
                   opts: Sequence[str] = ("O0", "O2"), prove: bool = True) -> list[FunctionScore]:
    """Translate each unit's AArch64 code with the baseline and score it."""
    scores = []
    for k, unit in enumerate(units):
        for opt in opts:
            source = unit.variants[f"aarch64-{opt}"].program()
            try:
                tr = translate(source)
            except DSLError as exc:
                scores.append(FunctionScore(unit.name, unit.split, opt, False, 0, 0,
                                            error=str(exc)))
                continue
            run, equal, first = execution_equivalent(unit, opt, tr.program,
                                                     n_inputs=n_inputs, seed=seed + k)
            blocks, proven = prove_blocks(source, tr) if prove else (0, 0)
            scores.append(FunctionScore(unit.name, unit.split, opt, True, run, equal, blocks,
                                        proven, first))
    return scores


def success_rate(scores: Sequence[FunctionScore]) -> float:
    """Fraction of scored functions that are correct."""
    return sum(s.correct for s in scores) / len(scores) if scores else 0.0
