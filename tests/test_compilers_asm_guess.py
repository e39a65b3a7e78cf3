"""GUESS (learned templates with confidence) and SKETCH (solver repair of flagged blocks)."""

import pytest

from archsim.compilers.asm.baseline import REG_MAP
from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.evaluate import execution_equivalent
from archsim.compilers.asm.guess import train_guess
from archsim.compilers.asm.ir import Hole, Instr, Reg
from archsim.compilers.asm.parse import parse
from archsim.compilers.asm.sketch import sketch
from archsim.compilers.asm.symbolic import check_equivalence, fill_holes
from archsim.errors import ConfigError

MAP = {k: v for k, v in REG_MAP.items() if k != "xzr"}
UNITS = {u.name: u for u in load_corpus()}


@pytest.fixture(scope="module")
def model():
    return train_guess(load_corpus("train"))


def _a64(src):
    return parse(".type f, %function\nf:\n" + src.replace(";", "\n") + "\n", isa="aarch64")


def test_model_is_small_and_its_mistakes_are_flagged(model):
    assert model.pair_source == "gcc" and 50 < model.size < 2000 and model.pairs > 1000
    unit = next(u for u in load_corpus("train") if u.name == "euler6")
    src = unit.variants["aarch64-O0"].program()
    guess = model.translate(src)
    run, equal, _ = execution_equivalent(unit, "O0", guess.program, n_inputs=5, seed=0)
    assert run == 5 and equal < 5
    fixed = sketch(model, src, guess)
    run, equal, _ = execution_equivalent(unit, "O0", fixed.program, n_inputs=5, seed=0)
    assert run == equal == 5


def test_gcc_pairs_teach_loads_in_the_source_frame(model):
    # gcc's RV64 side wrote `ld a4,-24(s0)` (s0 = sp + 32); normalized, that is this load
    (g,) = model.translate(_a64("ldr x1, [sp, 8]")).aligned["f"]
    assert [str(x) for x in g.lines] == ["ld a1, [sp, 8]"]
    # a condition code the training split never used with csel: no translation, flagged
    guessed = model.translate(_a64("cmp x1, x2; csel x0, x1, x2, vs")).aligned["f"][1]
    assert not guessed.lines


def test_pair_source_is_validated():
    with pytest.raises(ConfigError, match="pairs"):
        train_guess(load_corpus("train")[:1], pairs="bogus")
    rules = train_guess(load_corpus("train"), pairs="rules")
    sure = rules.translate(_a64("mov x0, x1")).aligned["f"][0]
    assert rules.pair_source == "rules" and sure.confidence == [1.0]


def test_fill_holes_finds_the_shift_amounts():
    src = _a64("ubfx x0, x1, 4, 9").functions["f"].instrs
    sk = [Instr("slli", (Reg("a0"), Reg("a1"), Hole("h0"))),
          Instr("srli", (Reg("a0"), Reg("a0"), Hole("h1")))]
    values = fill_holes(src, sk, holes=["h0", "h1"], reg_map=MAP,
                        bounds={"h0": (0, 63), "h1": (0, 63)})
    assert values == {"h0": 64 - 4 - 9, "h1": 64 - 9}  # closed form of the field extract
    sk[1] = Instr("srai", sk[1].operands)  # an arithmetic shift cannot zero-extend the field
    assert fill_holes(src, sk, holes=["h0", "h1"], reg_map=MAP) is None


def test_sketch_repairs_what_guess_got_wrong(model):
    unit = UNITS["tri_kind"]
    src = unit.variants["aarch64-O0"].program()
    guess = model.translate(src)
    fixed = sketch(model, src, guess)
    assert fixed.flagged >= 1 and fixed.fixed >= 1
    for name, a64_lines, _, rv_lines in fixed.examples:
        assert name == "tri_kind" and a64_lines and rv_lines
    # every repaired block is proven; the whole function is checked by emulation
    run, equal, _ = execution_equivalent(unit, "O0", fixed.program, n_inputs=10, seed=2)
    assert run == equal == 10


def test_a_branch_reads_the_compare_operands_after_sketch(model):
    prog = _a64("cmp x2, x3; b.gt .L1")
    guess = model.translate(prog)
    fixed = sketch(model, prog, guess)
    lines = fixed.program.functions["f"].lines
    assert fixed.fixed == 1
    assert check_equivalence(prog.functions["f"].instrs, lines, reg_map=MAP).equivalent is True


def test_calibrated_threshold_is_the_models_flagging_threshold():
    units = load_corpus("train")[:8]
    model = train_guess(units, calibrate=True)
    cal = model.calibration
    assert model.low_confidence == cal["threshold"] and 0.0 < cal["threshold"] <= 1.0
    assert 0 <= cal["flagged_wrong"] <= cal["wrong"] <= cal["lines"] and cal["lines"] > 20
    (g,) = model.translate(_a64("ldr x1, [sp, 8]")).aligned["f"]
    assert g.threshold == cal["threshold"]
    assert g.flagged == (min(g.confidence) < cal["threshold"])


def test_alias_keys_tell_in_place_updates_apart(model):
    aliased = train_guess(load_corpus("train"), alias_keys=True)
    ins = _a64("add x1, x1, 1").functions["f"].instrs[0]
    # the plain key pools `add x1, x1, 1` with `add x2, x1, 1`; the aliasing key does not,
    # so the in-place form's best template (the in-place addi) is surer: 55/97 vs 55/104
    best, plain = aliased.candidates(ins)[0], model.candidates(ins)[0]
    assert best[0] == plain[0] and best[1] > plain[1]
    assert aliased.fine and not model.fine
