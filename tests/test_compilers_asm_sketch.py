"""SKETCH: NZCV carried across block boundaries, scratch registers, failure causes.

Expected behaviour is checked by running both sides under unicorn: the AArch64 functions
below were assembled once with binutils (``aarch64-linux-gnu-as``; the words are its
output, listed next to each source line) so the test needs no cross toolchain.
"""

import struct

import numpy as np
import pytest

from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.emulate import Inputs, run_function
from archsim.compilers.asm.guess import train_guess
from archsim.compilers.asm.parse import parse
from archsim.compilers.asm.rv_encode import assemble
from archsim.compilers.asm.sketch import CAUSES, SketchOptions, sketch

# (source, machine word) of f(x0, x1): 2 if x0 < x1, 3 if equal, else 1. Block 1 (b.eq)
# reads the flags block 0's compare set (fall-through predecessor).
FALLTHROUGH = [("cmp x0, x1", 0xEB01001F), ("b.lt .L2", 0x5400008B), ("b.eq .L3", 0x540000A0),
               ("mov x0, 1", 0xD2800020), ("ret", 0xD65F03C0), (".L2:", None),
               ("mov x0, 2", 0xD2800040), ("ret", 0xD65F03C0), (".L3:", None),
               ("mov x0, 3", 0xD2800060), ("ret", 0xD65F03C0)]
# f(x0, x1): 0 if equal, 2 if x0 < x1, else 1; the block at .L3 reads the flags of the
# compare in the block that branches to it (its only predecessor: the one before returns).
THROUGH_LABEL = [("cmp x0, x1", 0xEB01001F), ("b.ne .L3", 0x54000061), ("mov x0, 0", 0xD2800000),
                 ("ret", 0xD65F03C0), (".L3:", None), ("b.lt .L2", 0x5400006B),
                 ("mov x0, 1", 0xD2800020), ("ret", 0xD65F03C0), (".L2:", None),
                 ("mov x0, 2", 0xD2800040), ("ret", 0xD65F03C0)]
BASE = 0x10000


@pytest.fixture(scope="module")
def model():
    return train_guess(load_corpus("train"))


def _program(listing):
    src = "\n".join(line for line, _ in listing)
    return parse(".type f, %function\nf:\n" + src + "\n", isa="aarch64")


def _text(listing):
    return b"".join(struct.pack("<I", w) for _, w in listing if w is not None)


def _pairs():
    rng = np.random.default_rng(0)
    fixed = [(-5, 3), (3, -5), (4, 4), (0, -1), (-1, 0), (1 << 62, -(1 << 62)), (7, 7)]
    return fixed + [tuple(int(v) for v in rng.integers(-50, 50, size=2)) for _ in range(12)]


def _agree(listing, rv_program):
    """Run the AArch64 words and the RV64 program under unicorn on every pair."""
    out = assemble(rv_program)
    text = _text(listing)
    for a, b in _pairs():
        inputs = Inputs((a, b))
        ref = run_function(isa="aarch64", text=text, base=BASE, entry=BASE, inputs=inputs)
        got = run_function(isa="riscv64", text=out.text, base=out.base,
                           entry=out.symbols["f"], inputs=inputs)
        assert ref.status == "ok" and ref.same_as(got), (a, b, ref.ret, got.ret)


def test_reference_words_compute_the_documented_function():
    # the hand-listed words are the functions the comments say (independent of the sketch)
    for listing, expect in ((FALLTHROUGH, lambda a, b: 2 if a < b else 3 if a == b else 1),
                            (THROUGH_LABEL, lambda a, b: 0 if a == b else 2 if a < b else 1)):
        for a, b in _pairs():
            ref = run_function(isa="aarch64", text=_text(listing), base=BASE, entry=BASE,
                               inputs=Inputs((a, b)))
            assert ref.ret == expect(a, b)


@pytest.mark.parametrize("listing", [FALLTHROUGH, THROUGH_LABEL], ids=["fallthrough", "label"])
def test_flags_from_a_predecessor_compare_are_carried(model, listing):
    prog = _program(listing)
    guess = model.translate(prog)
    carried = sketch(model, prog, guess)
    assert carried.carried == 1
    assert all(o.fixed for o in carried.outcomes)
    _agree(listing, carried.program)
    # without the carry, the block that reads the predecessor's flags cannot be proven
    alone = sketch(model, prog, guess, options=SketchOptions(carry_flags=False))
    assert alone.carried == 0
    assert [o.cause for o in alone.outcomes if not o.fixed] == ["flags-across-blocks"]


def test_no_carry_when_the_compare_operand_changes_after_it(model):
    listing = [("cmp x0, x1", 0), ("mov x1, 5", 0)] + FALLTHROUGH[1:]
    prog = _program(listing)
    result = sketch(model, prog, model.translate(prog))
    assert result.carried == 0
    assert "flags-across-blocks" in [o.cause for o in result.outcomes if not o.fixed]


def test_unrepaired_blocks_name_a_known_cause(model):
    # the training split has no mvn (in any operand form): no template to sketch from
    assert not model.candidates(parse(".type f, %function\nf:\nmvn x0, x1\n",
                                      isa="aarch64").functions["f"].instrs[0])
    prog = parse(".type f, %function\nf:\nadd x0, x0, x1\nmvn x0, x0\nret\n",
                 isa="aarch64")
    result = sketch(model, prog, model.translate(prog))
    (outcome,) = result.outcomes
    assert not outcome.fixed and outcome.cause == "no-template"
    assert outcome.detail == "mvn x0, x0" and outcome.cause in CAUSES
