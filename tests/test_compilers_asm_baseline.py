"""The rule-based AArch64 -> RV64 baseline: each rule proven by the solver, known
approximations found by it, whole functions execution-equivalent under emulation."""

import numpy as np
import pytest

from archsim.compilers.asm.baseline import REG_MAP, translate
from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.emulate import random_inputs, run_function
from archsim.compilers.asm.parse import parse
from archsim.compilers.asm.rv_encode import assemble
from archsim.compilers.asm.symbolic import check_equivalence
from archsim.errors import DSLError

MAP = {k: v for k, v in REG_MAP.items() if k != "xzr"}


def _check(src):
    prog = parse(".type f, %function\nf:\n" + src.replace(";", "\n") + "\n", isa="aarch64")
    rv = translate(prog).program.functions["f"].lines
    return check_equivalence(prog.functions["f"].instrs, rv, reg_map=MAP)


@pytest.mark.parametrize("src", [
    "add x0, x1, x2, lsl 3", "add w0, w1, w2", "sub x0, sp, 4095", "ldr x0, [x1, x2, lsl 3]",
    "ldrsw x0, [x1, 12]", "ldr w0, [x1, w2, sxtw 2]", "stp x29, x30, [sp, -32]!",
    "ldp x29, x30, [sp], 32", "ldp x0, x1, [x0]", "movk x0, 0x1234, lsl 16", "mov w0, -7",
    "smulh x0, x1, x2", "msub x0, x1, x2, x3", "ubfx x0, x1, 3, 5", "sbfiz x0, x1, 2, 7",
    "sxtw x0, w1", "lsr w0, w1, 3", "asr x0, x1, x2", "ror x0, x1, 13", "bic x0, x1, x2",
    "ldrb w0, [x1], 1", "strh w0, [x1, 2]", "mul w0, w1, w2",
    "cmp x0, x1; b.lt .L1", "cmp w0, 5; b.hi .L1", "tst x0, 7; b.ne .L1",
    "subs x0, x0, 1; b.ne .L1", "cbz w0, .L1", "tbnz x3, 5, .L1", "cmp x0, 0; cset x1, gt",
    "cmp x0, x1; cset w2, ls", "cmp x0, x1; ccmp x2, 3, 0, ne; b.gt .L1",
    "cmp x0, x1; ccmn w2, 3, 8, lo; b.mi .L1",
    # nzcv=4 (Z set, C clear) comes from no compare; only `eq` reads it, so a Z pair does
    "cmp x0, x1; ccmp x2, 3, 4, ne; b.eq .L1", "cmp x1, 0; csel x0, x1, x2, lt",
    "cmp w1, w3; csinc w0, w1, w2, eq", "cmp x1, 3; cneg x0, x1, le", "cmp x1, 3; cinc x0, x2, ge",
    "sdiv x0, x1, x2", "udiv w0, w1, w2", "cmp x1, x2; csetm x0, hi",
])
def test_rule_is_proven_equivalent(src):
    assert _check(src).equivalent is True


@pytest.mark.parametrize(("src", "why"), [
    # cmn a, b is translated as cmp a, -b: the carry differs (b = 0) ...
    ("cmn x0, x1; b.hs .L1", "branch"),
    # ... and -b overflows for b = INT64_MIN
    ("cmn x0, x1; b.ge .L1", "branch"),
    # tst leaves C = 0; cmp (a & b), 0 sets C = 1
    ("tst x0, x1; b.hi .L1", "branch"),
])
def test_stated_approximations_are_caught_by_the_solver(src, why):
    res = _check(src)
    assert res.equivalent is False and why in res.differs


def test_unsupported_input_is_an_error_naming_line_and_mnemonic():
    prog = parse(".type f, %function\nf:\n\tmov x0, x1\n\tbfi x0, x1, 3, 4\n", isa="aarch64",
                 file="u.s")
    with pytest.raises(DSLError, match=r"u\.s:4: bfi: no translation rule"):
        translate(prog)
    prog = parse(".type f, %function\nf:\n\tmov x16, 1\n", isa="aarch64", file="u.s")
    with pytest.raises(DSLError, match="register x16 has no RV64 image"):
        translate(prog)


def test_translated_functions_run_like_the_source():
    rng = np.random.default_rng(11)
    units = load_corpus("test2") + load_corpus("test3")
    for unit in units[::3]:
        var = unit.variants["aarch64-O2"]
        out = assemble(translate(var.program()).program)
        for _ in range(3):
            inputs = random_inputs(unit.args, rng=rng)
            ref = run_function(isa="aarch64", text=var.text, base=var.base,
                               entry=var.symbols[unit.name], inputs=inputs)
            got = run_function(isa="riscv64", text=out.text, base=out.base,
                               entry=out.symbols[unit.name], inputs=inputs)
            assert ref.same_as(got), (unit.name, inputs)
