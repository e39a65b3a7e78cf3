"""SKETCH's memory-offset, frame-size and call-block holes and the stp/ldp expansion.

Each test takes a real block of the corpus (AArch64 -O0, gcc's code, with its binutils
machine code sliced from the shipped ``.text``), hand-writes a RV64 translation of it,
corrupts one line (a wrong stack offset, a wrong frame size, a wrong call argument, the
frame record's stores missing) and flags it. The sketch runs with a GUESS model that has no
templates, so only the new hole kinds can repair it. The repair is then (1) proven
equivalent by z3 and (2) run under unicorn next to the AArch64 machine code from random
registers and stack bytes: the mapped registers live at the block's end and the stack must
agree (the independent check).
"""

import numpy as np
import pytest
from unicorn import UC_ARCH_ARM64, UC_ARCH_RISCV, UC_MODE_ARM, UC_MODE_RISCV64, Uc
from unicorn import arm64_const as a64
from unicorn import riscv_const as rvc

from archsim.compilers.asm.baseline import REG_MAP
from archsim.compilers.asm.blocks import basic_blocks
from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.evaluate import execution_equivalent
from archsim.compilers.asm.guess import Guess, GuessedInstr, GuessModel, train_guess
from archsim.compilers.asm.ir import Function, Instr, Program
from archsim.compilers.asm.parse import parse, rv_reg
from archsim.compilers.asm.rv_encode import assemble
from archsim.compilers.asm.sketch import SketchOptions, check_call_block, pair_expansion, sketch
from archsim.compilers.asm.symbolic import check_equivalence, fill_holes

MAP = {k: v for k, v in REG_MAP.items() if k != "xzr"}
STACK, WINDOW = 0x7000_8000, 128
AT_RETURN = ["x0", "sp", "x29", "x30"] + [f"x{i}" for i in range(19, 29)]  # AAPCS64
AT_CALL = [f"x{i}" for i in range(8)] + ["sp"]


def _corpus_block(unit_name, function, b):
    """(instructions, machine code) of block ``b`` of ``function`` (-O0: 4 bytes each)."""
    unit = next(u for u in load_corpus() if u.name == unit_name)
    var = unit.variants["aarch64-O0"]
    block = basic_blocks(var.program().functions[function], isa="aarch64")[b]
    lo = var.symbols[function] - var.base + 4 * block.start
    return block.instrs, var.text[lo:lo + 4 * len(block.instrs)]


def _rv(text):
    return parse(".type f, %function\nf:\n" + text + "\n", isa="riscv64").functions["f"].lines


def _sketch(instrs, rv_per_instr, flagged, options=None):
    """Sketch the one-block function ``instrs`` whose guess is ``rv_per_instr`` (one RV64
    text per source instruction), the lines at ``flagged`` low-confidence."""
    prog = Program("aarch64", "test", {"f": Function("f", list(instrs))})
    aligned = []
    for k, (ins, text) in enumerate(zip(instrs, rv_per_instr, strict=True)):
        lines = _rv(text) if text else []
        conf = [0.1 if k in flagged else 1.0] * len(lines)
        aligned.append(GuessedInstr(ins, lines, conf))
    guess = Guess(Program("riscv64", "guess", {}), {"f": aligned})
    result = sketch(GuessModel(), prog, guess, options=options)
    return result, [ln for ln in result.program.functions["f"].lines if isinstance(ln, Instr)]


def _regs(rng):
    regs = {f"x{i}": int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2))
            for i in range(31)}
    regs["sp"] = STACK
    return regs


def _a64_reg(r):
    if r == "sp":
        return a64.UC_ARM64_REG_SP
    n = int(r[1:])
    return a64.UC_ARM64_REG_X0 + n if n < 29 else (a64.UC_ARM64_REG_X29,
                                                   a64.UC_ARM64_REG_X30)[n - 29]


def _run(isa, code, regs, window):
    """Run ``code`` from the AArch64 register values ``regs`` (RV64: their images under the
    register map) and the stack bytes ``window`` around ``sp``; the final registers (by
    AArch64 name) and stack bytes."""
    uc = Uc(UC_ARCH_ARM64, UC_MODE_ARM) if isa == "aarch64" else Uc(UC_ARCH_RISCV,
                                                                    UC_MODE_RISCV64)
    uc.mem_map(0x10000, 0x1000)
    uc.mem_write(0x10000, code)
    uc.mem_map(STACK - 0x1000, 0x2000)
    uc.mem_write(STACK - WINDOW, window)
    where = {r: _a64_reg(r) if isa == "aarch64" else rvc.UC_RISCV_REG_X0 + rv_reg(MAP[r])
             for r in regs if isa == "aarch64" or r in MAP}
    for r, reg in where.items():
        uc.reg_write(reg, regs[r])
    uc.emu_start(0x10000, 0x10000 + len(code))
    return {r: uc.reg_read(reg) for r, reg in where.items()}, bytes(
        uc.mem_read(STACK - WINDOW, 2 * WINDOW))


def _emulate_equal(a64_code, rv_lines, live, trials=8):
    """The AArch64 code and the RV64 lines (no control flow) agree under unicorn on the
    ``live`` registers and the stack, from random starting states."""
    rv_code = assemble(Program("riscv64", "t", {"b": Function("b", list(rv_lines))})).text
    rng = np.random.default_rng(11)
    for _ in range(trials):
        regs = _regs(rng)
        window = rng.integers(0, 256, size=2 * WINDOW).astype(np.uint8).tobytes()
        ra, ma = _run("aarch64", a64_code, regs, window)
        rr, mr = _run("riscv64", rv_code, regs, window)
        assert ma == mr
        assert {r: ra[r] for r in live} == {r: rr[r] for r in live}
    return True


# poly3 -O0: one block, 24 instructions; its RV64 translation, one text per instruction.
POLY3_RV = ["addi sp,sp,-16", "sd a0,8(sp)", "ld a0,8(sp)", "mul a1,a0,a0", "ld a0,8(sp)",
            "mul a1,a1,a0", "mv a0,a1", "slli a0,a0,1", "add a2,a0,a1", "ld a0,8(sp)",
            "mul a1,a0,a0", "li a0,0", "sub a0,a0,a1", "slli a0,a0,2", "sub a0,a0,a1",
            "add a2,a2,a0", "ld a1,8(sp)", "mv a0,a1", "slli a0,a0,3", "sub a0,a0,a1",
            "add a0,a2,a0", "addi a0,a0,-11", "addi sp,sp,16", "ret"]


@pytest.mark.parametrize(("k", "corrupt", "repaired"), [
    (1, "sd a0,0(sp)", "sd a0,8(sp)"),       # memory-offset hole: the argument's stack slot
    (0, "addi sp,sp,-32", "addi sp,sp,-16"),  # frame-size hole: the frame allocation
    (22, "addi sp,sp,32", "addi sp,sp,16"),   # frame-size hole: the frame release
], ids=["offset", "frame", "frame-release"])
def test_corrupted_stack_offset_or_frame_size_is_repaired(k, corrupt, repaired):
    instrs, code = _corpus_block("poly3", "poly3", 0)
    assert [str(i) for i in instrs][:2] == ["sub sp, sp, 16", "str x0, [sp, 8]"]
    guess = list(POLY3_RV)
    guess[k] = corrupt
    # the uncorrected translation is refuted (the corruption matters)
    assert check_equivalence(instrs, [ln for t in guess for ln in _rv(t)], reg_map=MAP,
                             live_out=AT_RETURN).equivalent is False
    result, lines = _sketch(instrs, guess, {k})
    assert [o.fixed for o in result.outcomes] == [True]
    want = [ln for t in POLY3_RV for ln in _rv(t)]
    assert [(i.mnemonic, i.operands) for i in lines] == [(i.mnemonic, i.operands)
                                                         for i in want]
    assert str(lines[k]).replace(" ", "") == str(_rv(repaired)[0]).replace(" ", "")
    assert check_equivalence(instrs, lines, reg_map=MAP, live_out=AT_RETURN).equivalent
    _emulate_equal(code[:-4], lines[:-1], AT_RETURN)  # both without the final ret
    # without the new hole kinds the empty model has nothing to offer
    off = SketchOptions(guess_holes=False, pair_expansion=False)
    assert [o.fixed for o in _sketch(instrs, guess, {k}, off)[0].outcomes] == [False]


def test_corrupted_call_argument_is_repaired_and_the_call_block_checked():
    # ack -O0 block 3: x0 = n - 1 (n at [sp, 40]), x1 = 1, bl ack
    instrs, code = _corpus_block("ackermann_small", "ack", 3)
    assert [str(i) for i in instrs] == ["ldr x0, [sp, 40]", "sub x0, x0, 1", "mov x1, 1",
                                        "bl ack"]
    right = ["ld a0,40(sp)", "addi a0,a0,-1", "li a1,1", "call ack"]
    wrong = ["ld a0,32(sp)"] + right[1:]  # m (at [sp, 32]) passed instead of n
    flat = [ln for t in right for ln in _rv(t)]
    assert check_call_block(instrs, flat, live={r: 64 for r in AT_CALL})
    assert check_call_block(instrs, [ln for t in wrong for ln in _rv(t)],
                            live={r: 64 for r in AT_CALL}) is False
    assert check_call_block(instrs, flat[:-1] + _rv("call ackermann_small")) is False
    result, lines = _sketch(instrs, wrong, {0})
    assert [o.fixed for o in result.outcomes] == [True]
    assert [str(i) for i in lines] == [str(i) for i in flat]
    assert check_call_block(instrs, lines, live={r: 64 for r in AT_CALL})
    _emulate_equal(code[:-4], lines[:-1], AT_CALL)  # up to the call: arguments and stack
    # with call blocks off the block is left alone, cause "call"
    off = SketchOptions(call_blocks=False)
    assert [o.cause for o in _sketch(instrs, wrong, {0}, off)[0].outcomes] == ["call"]


def test_frame_record_store_guessed_as_sp_adjustment_alone_is_expanded():
    # ackermann_small -O0 block 0: the AAPCS64 frame record, then the call's arguments.
    instrs, code = _corpus_block("ackermann_small", "ackermann_small", 0)
    assert str(instrs[0]) == "stp x29, x30, [sp, -32]!"
    # GUESS's (confident) line for the stp is the sp adjustment alone: x29/x30 not saved
    guess = ["addi sp,sp,-32", "mv s0,sp", "sd a0,24(sp)", "ld a1,24(sp)", "li a0,2",
             "call ack"]
    result, lines = _sketch(instrs, guess, {2})  # only `str x0, [sp, 24]` is flagged
    assert [o.fixed for o in result.outcomes] == [True]
    # ARM ARM, STP (pre-index): sp -= 32 first, then x29 at [sp], x30 at [sp + 8]
    assert [str(i).replace(" ", "") for i in lines[:3]] == [
        "addisp,sp,-32", "sds0,[sp]", "sdra,[sp,8]"]
    assert check_call_block(instrs, lines, live={r: 64 for r in AT_CALL + ["x29"]})
    _emulate_equal(code[:-4], lines[:-1], AT_CALL + ["x29"])
    off = SketchOptions(pair_expansion=False)
    assert [o.cause for o in _sketch(instrs, guess, {2}, off)[0].outcomes] == [
        "wrong-unflagged-line"]


@pytest.mark.parametrize(("src", "want"), [
    ("stp x19, x20, [sp, 16]", {"m0": 16, "m1": 24}),
    ("stp x29, x30, [sp, -48]!", {"m0": 0, "m1": 8, "f": -48}),
    ("ldp x29, x30, [sp], 48", {"m0": 0, "m1": 8, "f": 48}),
    ("ldp x0, x1, [x0, 8]", {"m0": 8, "m1": 16}),  # the base is loaded last
])
def test_pair_expansion_holes_take_the_architectural_offsets(src, want):
    # ARM ARM: the second register is accessed 8 bytes above the first; pre-index updates
    # the base before the accesses, post-index after them
    (ins,) = parse(".type f, %function\nf:\n" + src + "\n",
                   isa="aarch64").functions["f"].instrs
    lines, holes = pair_expansion(ins, "p")
    values = fill_holes([ins], lines, holes=holes, reg_map=MAP, probe_stores=True)
    assert values == {f"p_{k}": v for k, v in want.items()}


@pytest.fixture(scope="module")
def model():
    return train_guess(load_corpus("train"), alias_keys=True)


def test_register_hole_repairs_guess_slot_error_in_a_call_block(model):
    # ack -O0 block 5: GUESS has no right template for `sub x19, x0, 1` (its candidates
    # write x0 or read x1: gcc's RV64 used a temporary there); a register hole finds s1/a0.
    instrs, code = _corpus_block("ackermann_small", "ack", 5)
    assert [str(i) for i in instrs][:2] == ["ldr x0, [sp, 40]", "sub x19, x0, 1"]
    # a return after the call reads x19 (callee-saved, AAPCS64), so it is live at the call
    ret = parse(".type f, %function\nf:\nret\n", isa="aarch64").functions["f"].instrs
    prog = Program("aarch64", "test", {"f": Function("f", [*instrs, *ret])})
    guess = model.translate(prog)
    assert guess.aligned["f"][1].flagged
    off = sketch(model, prog, guess, options=SketchOptions(register_holes=False))
    assert [(o.fixed, o.cause) for o in off.outcomes][0] == (False, "unpaired-register")
    result = sketch(model, prog, guess)
    assert [o.fixed for o in result.outcomes] == [True, True]  # the block, then the ret
    lines = [ln for ln in result.program.functions["f"].lines if isinstance(ln, Instr)][:-1]
    assert [str(i) for i in lines[1:2]] == ["addi s1, a0, -1"]
    live = AT_CALL + ["x19"]
    assert check_call_block(instrs, lines, live={r: 64 for r in live})
    _emulate_equal(code[:-4], lines[:-1], live)


def test_compare_immediate_branch_reads_the_loaded_scratch_register(model):
    # factorial -O2 starts `cmp x0, 1; b.le .L4`: GUESS's branch reads the wrong registers
    # and its cmp template is empty (gcc's RV64 code is `li a5, 1; ble a0, a5, .L4`)
    unit = next(u for u in load_corpus() if u.name == "factorial")
    src = unit.variants["aarch64-O2"].program()
    assert [str(i) for i in src.functions["factorial"].instrs[:2]] == ["cmp x0, 1",
                                                                       "b.le .L4"]
    guess = model.translate(src)
    off = sketch(model, src, guess, options=SketchOptions(compare_immediates=False))
    assert not off.outcomes[0].fixed and off.outcomes[0].block == 0
    result = sketch(model, src, guess)
    assert all(o.fixed for o in result.outcomes)
    head = [str(i) for i in result.program.functions["factorial"].lines
            if isinstance(i, Instr)][:2]
    assert head[0] == "li t6, 1" and "t6" in head[1]
    # the whole function against gcc's AArch64 binary under unicorn (the independent check)
    ran, equal, first = execution_equivalent(unit, "O2", result.program, n_inputs=20,
                                             seed=0)
    assert ran == equal == 20, first
