"""Alignment of gcc's AArch64 and RV64 compilations of the same function (GUESS's data)."""

from archsim.compilers.asm.align import align_corpus, align_function, instr_class
from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.ir import Instr, LabelDef
from archsim.compilers.asm.parse import parse

UNITS = {u.name: u for u in load_corpus()}

# gcc 12's -O0 listings of abs_diff.c (shipped in the corpus), read by hand: the entry block
# up to `b .L4` on each side, and which RV64 lines each AArch64 line became.
EXPECTED_ENTRY = [
    ("sub sp, sp, 16", ("addi", "sd", "addi")),  # frame: RV64 also saves s0 and sets it up
    ("str x0, [sp, 8]", ("sd",)), ("str x1, [sp]", ("sd",)),
    ("ldr x1, [sp, 8]", ("ld",)), ("ldr x0, [sp]", ("ld",)),
    ("cmp x1, x0", ()),  # fused into RV64's compare-and-branch
    ("b.le .L2", ("ble",)),
    ("ldr x1, [sp, 8]", ("ld",)), ("ldr x0, [sp]", ("ld",)), ("sub x0, x1, x0", ("sub",)),
    ("b .L4", ("j",)),
]


def _abs_diff_pairs():
    unit = UNITS["abs_diff"]
    a64 = unit.variants["aarch64-O0"].program().functions["abs_diff"]
    rv = unit.variants["riscv64-O0"].program().functions["abs_diff"]
    return align_corpus([(a64, rv)])


def test_abs_diff_entry_block_aligns_as_read_from_the_listings():
    pairs = _abs_diff_pairs()
    got = [(str(p.source), tuple(t.mnemonic for t in p.target)) for p in pairs[:11]]
    assert got == EXPECTED_ENTRY


def test_rv64_registers_and_frame_slots_are_renamed_into_the_source():
    pairs = _abs_diff_pairs()
    by_src = {str(p.source): p.target for p in pairs[:11]}
    # gcc wrote `ld a4,-24(s0)` with s0 = sp + 32: slot sp+8, and a4 holds what x1 holds
    (load,) = by_src["ldr x1, [sp, 8]"]
    assert str(load) == "ld a1, [sp, 8]"
    (branch,) = by_src["b.le .L2"]  # gcc: `ble a4,a5,.L2`
    assert str(branch) == "ble a1, a0, .L2"


def _segment_lengths(fn, keep):
    out, cur = {}, ""
    out[cur] = 0
    for line in fn.lines:
        if isinstance(line, LabelDef):
            if not line.name.startswith((".LFB", ".LFE")):
                cur = line.name
                out[cur] = 0
        elif isinstance(line, Instr):
            out[cur] += 1
    return {k: v for k, v in out.items() if k in keep}


def test_alignment_is_a_monotone_cover_of_the_shared_blocks():
    # every RV64 instruction of a block whose label both sides have is aligned exactly once
    # (or the block is dropped because no cover of at most 4 lines per source exists)
    for name in ("binary_search", "crc8", "median3"):
        for opt in ("O0", "O2"):
            unit = UNITS[name]
            a64 = unit.variants[f"aarch64-{opt}"].program().functions[name]
            rv = unit.variants[f"riscv64-{opt}"].program().functions[name]
            labels = {ln.name for ln in a64.lines if isinstance(ln, LabelDef)} | {""}
            rv_len = _segment_lengths(rv, labels)
            a_len = _segment_lengths(a64, set(rv_len))
            pairs = align_function(a64, rv)
            covered = {k: v for k, v in a_len.items() if v and 4 * v >= rv_len[k]}
            assert len(pairs) == sum(covered.values())
            assert sum(len(p.target) for p in pairs) == sum(rv_len[k] for k in covered)


def test_instruction_classes():
    a64 = parse(".type f, %function\nf:\n\tldrb w0, [x1]\n\tcmp x0, 3\n\tb.ne .L1\n"
                "\tadd x0, x0, 1\n", isa="aarch64").functions["f"].instrs
    assert [instr_class(i, "aarch64") for i in a64] == ["ld", "cmp", "br", "alu"]
    rv = parse(".type f, @function\nf:\n\tlbu a0,0(a1)\n\tbnez a0,.L1\n\tmv a0,a1\n\tjr ra\n",
               isa="riscv64").functions["f"].instrs
    assert [instr_class(i, "riscv64") for i in rv] == ["ld", "br", "mov", "ret"]
