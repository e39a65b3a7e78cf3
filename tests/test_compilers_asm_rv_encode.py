"""The RV64 encoder reproduces binutils' bytes for the whole corpus and rejects bad input."""

import pytest

from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.parse import parse
from archsim.compilers.asm.rv_encode import assemble
from archsim.errors import DSLError


def test_encoder_matches_binutils_on_every_corpus_rv64_unit():
    count = 0
    for unit in load_corpus():
        for opt in ("O0", "O2"):
            var = unit.variants[f"riscv64-{opt}"]
            out = assemble(var.program(), base=var.base)
            assert out.text == var.text, var.asm_path  # bytes written by GNU as + ld
            assert out.symbols[unit.name] == var.symbols[unit.name]
            count += 1
    assert count == 2 * len(load_corpus())


@pytest.mark.parametrize(("value", "words"), [
    # li expansions as GNU as (load_const) produces them, worked out by hand
    (5, ["00500513"]),                       # addi a0, zero, 5
    (0x12345, ["00012537", "3455051b"]),     # lui a0, 0x12; addiw a0, a0, 0x345
    (-1, ["fff00513"]),                      # addi a0, zero, -1
    (1 << 40, ["00100513", "02851513"]),     # addi a0, zero, 1; slli a0, a0, 40
])
def test_li_expansion(value, words):
    prog = parse(f".type f, @function\nf:\n\tli a0,{value}\n", isa="riscv64")
    text = assemble(prog).text
    assert [text[i:i + 4][::-1].hex() for i in range(0, len(text), 4)] == words


@pytest.mark.parametrize(("body", "needle"), [
    ("\taddi a0,a0,5000", "addi: immediate 5000 does not fit 12 signed bits"),
    ("\tbeq a0,a1,.Lnowhere", "beq: undefined label '.Lnowhere'"),
    ("\tslli a0,a0,64", "slli: shift amount 64 outside 0..63"),
    ("\tld a0,4096(sp)", "ld: offset 4096 does not fit 12 signed bits"),
])
def test_bad_input_names_line_and_mnemonic(body, needle):
    prog = parse(f".type f, @function\nf:\n{body}\n", isa="riscv64", file="t.s")
    with pytest.raises(DSLError) as info:
        assemble(prog)
    assert str(info.value).startswith("t.s:3: ") and needle in str(info.value)


def test_only_riscv_is_assembled():
    with pytest.raises(DSLError, match="cannot assemble aarch64"):
        assemble(parse("", isa="aarch64"))
