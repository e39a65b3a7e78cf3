"""The AArch64/RV64 parsers read the whole shipped corpus and reject what is outside the subset."""

import json
from pathlib import Path

import pytest

from archsim.compilers.asm.ir import Imm, Mem, Reg, Shift
from archsim.compilers.asm.parse import parse
from archsim.errors import DSLError

DATA = Path(__file__).resolve().parent.parent / "compilers" / "asm" / "corpus" / "data"
CORPUS = json.loads((DATA / "corpus.json").read_text())


def test_every_corpus_file_parses_and_aarch64_O0_sizes_match_binutils():
    for unit in CORPUS["units"]:
        for variant, info in unit["variants"].items():
            isa = variant.split("-")[0]
            program = parse((DATA / info["asm"]).read_text(), isa=isa, file=info["asm"])
            assert unit["name"] in program.functions
            assert set(program.functions) <= set(info["symbols"])
            if variant == "aarch64-O0":
                # Every A64 instruction is 4 bytes and -O0 has no alignment padding: the
                # parsed instruction count must equal the size of binutils' .text.
                count = sum(len(f.instrs) for f in program.functions.values())
                assert count * 4 == len(info["text_hex"]) // 2, info["asm"]


def test_aarch64_operand_forms():
    src = (".type f, %function\nf:\n\tldr x0, [x1, x2, lsl 3]\n\tstp x29, x30, [sp, -32]!\n"
           "\tldr w3, [x4], 8\n\tadd x0, x1, w2, sxtw 2\n\tmovk x0, 0x1234, lsl 16\n\tblt .L2\n"
           ".L2:\n\tret\n")
    ins = parse(src, isa="aarch64").functions["f"].instrs
    assert ins[0].operands == (Reg("x0"), Mem(Reg("x1"), index=Reg("x2"), shift=Shift("lsl", 3)))
    assert ins[1].operands[2] == Mem(Reg("sp"), -32, mode="pre")
    assert ins[2].operands == (Reg("x3", 32), Mem(Reg("x4"), 8, mode="post"))
    assert ins[3].operands[2:] == (Reg("x2", 32), Shift("sxtw", 2))
    assert ins[4].operands == (Reg("x0"), Imm(0x1234), Shift("lsl", 16))
    assert ins[5].mnemonic == "b.lt"


def test_riscv_operand_forms():
    src = ".type g, @function\ng:\n\tld a0,-24(s0)\n\tsd ra,8(sp)\n\tli a5,-7\n\tret\n"
    ins = parse(src, isa="riscv64").functions["g"].instrs
    assert ins[0].operands == (Reg("a0"), Mem(Reg("s0"), -24))
    assert ins[2].operands == (Reg("a5"), Imm(-7))


@pytest.mark.parametrize(("isa", "body", "needle"), [
    ("aarch64", "\tfmadd d0, d1, d2, d3", "unsupported aarch64 mnemonic 'fmadd'"),
    ("riscv64", "\tfadd.d fa0,fa1,fa2", "unsupported riscv64 mnemonic 'fadd.d'"),
    ("aarch64", "\tadd x0, x1, :lo12:foo", "add: unsupported operand ':lo12:foo'"),
    ("riscv64", "\tlui a5,%hi(.LC0)", "lui: unsupported operand '%hi(.LC0)'"),
])
def test_unsupported_input_names_file_line_and_mnemonic(isa, body, needle):
    src = f".type f, %function\nf:\n\tnop\n{body}\n"
    with pytest.raises(DSLError) as info:
        parse(src, isa=isa, file="bad.s")
    assert str(info.value).startswith("bad.s:4: ")
    assert needle in str(info.value)
    assert info.value.lineno == 4


def test_unknown_directive_is_an_error():
    with pytest.raises(DSLError, match=r"x\.s:1: unsupported directive '\.quad'"):
        parse(".quad 5\n", isa="aarch64", file="x.s")
