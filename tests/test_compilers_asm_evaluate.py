"""The scorer accepts correct translations and catches broken ones (by emulation and z3)."""

from dataclasses import replace

from archsim.compilers.asm.baseline import translate
from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.evaluate import (
    execution_equivalent,
    prove_blocks,
    score_baseline,
    success_rate,
)
from archsim.compilers.asm.ir import Instr

UNITS = {u.name: u for u in load_corpus()}


def test_scores_of_a_small_slice():
    units = [UNITS["median3"], UNITS["gcd"], UNITS["array_sum"]]
    scores = {(s.name, s.opt): s for s in score_baseline(units, n_inputs=5)}
    assert not scores["median3", "O2"].translated
    assert "ccmp: no compare produces flags nzcv=1" in scores["median3", "O2"].error
    assert scores["gcd", "O2"].correct and scores["array_sum", "O0"].correct
    assert scores["gcd", "O0"].blocks_proven == scores["gcd", "O0"].blocks
    assert success_rate(list(scores.values())) == 5 / 6


def test_a_broken_translation_is_caught():
    unit = UNITS["sum_to_n"]
    source = unit.variants["aarch64-O0"].program()
    tr = translate(source)
    lines = tr.program.functions["sum_to_n"].lines
    k = next(i for i, x in enumerate(lines) if isinstance(x, Instr) and x.mnemonic == "add")
    lines[k] = replace(lines[k], mnemonic="sub")
    run, equal, first = execution_equivalent(unit, "O0", tr.program, n_inputs=8, seed=0)
    assert run == 8 and equal < run and "expected" in first
    total, proven = prove_blocks(source, tr)
    good_total, good_proven = prove_blocks(source, translate(source))
    assert total == good_total and proven == good_proven - 1
