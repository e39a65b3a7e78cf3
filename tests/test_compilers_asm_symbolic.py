"""z3 block semantics: agree with unicorn on corpus blocks; equivalence queries with
counterexamples checked by hand-computed (Python) values."""

import numpy as np
import pytest
import z3
from unicorn import UC_ARCH_ARM64, UC_MODE_ARM, Uc
from unicorn import arm64_const as a64

from archsim.compilers.asm.blocks import basic_blocks, is_control
from archsim.compilers.asm.corpus import load_corpus
from archsim.compilers.asm.ir import Mem, Reg
from archsim.compilers.asm.parse import parse
from archsim.compilers.asm.symbolic import A64_REGS, check_equivalence, execute_block, initial_state
from archsim.errors import DSLError

M64 = (1 << 64) - 1
ARGS = {f"x{i}": f"a{i}" for i in range(8)} | {"sp": "sp"}
STACK, WINDOW = 0x7000_8000, 96


def _blk(src, isa):
    return parse(".type f, %function\nf:\n" + src, isa=isa).functions["f"].instrs


def _sp_only(instrs):
    return all(o.base.name in ("sp", "x29") for i in instrs for o in i.operands if isinstance(o, Mem))


def _straight_a64_blocks():
    """Straight-line AArch64 -O0 blocks with their machine code (at -O0 each instruction is 4
    bytes in order, so a block's bytes are a slice of the shipped .text)."""
    found = []
    for unit in load_corpus():
        var = unit.variants["aarch64-O0"]
        for name, fn in var.program().functions.items():
            offset = var.symbols[name] - var.base
            for block in basic_blocks(fn, isa="aarch64"):
                body = [i for i in block.instrs if not is_control(i, "aarch64")]
                if len(body) >= 2 and _sp_only(body):
                    lo = offset + 4 * block.start
                    found.append((f"{unit.name}:{block.start}", body, var.text[lo:lo + 4 * len(body)]))
    return found


BLOCKS = _straight_a64_blocks()


def test_aarch64_semantics_agree_with_unicorn_on_corpus_blocks():
    rng = np.random.default_rng(3)
    assert len(BLOCKS) > 300
    for name, body, code in BLOCKS[::4]:
        regs = {r: int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2)) for r in A64_REGS}
        regs["sp"] = regs["x29"] = STACK
        window = rng.integers(0, 256, size=2 * WINDOW).astype(np.uint8).tobytes()
        nzcv = int(rng.integers(0, 16))
        uc = Uc(UC_ARCH_ARM64, UC_MODE_ARM)
        uc.mem_map(0x10000, 0x1000)
        uc.mem_write(0x10000, code)
        uc.mem_map(STACK - 0x1000, 0x2000)
        uc.mem_write(STACK - WINDOW, window)
        for r, v in regs.items():
            uc.reg_write(a64.UC_ARM64_REG_SP if r == "sp" else a64.UC_ARM64_REG_X0 + int(r[1:])
                         if int(r[1:]) < 29 else (a64.UC_ARM64_REG_X29, a64.UC_ARM64_REG_X30)[int(r[1:]) - 29], v)
        uc.reg_write(a64.UC_ARM64_REG_NZCV, nzcv << 28)
        uc.emu_start(0x10000, 0x10000 + len(code))
        st0 = initial_state("aarch64")
        mem = z3.K(z3.BitVecSort(64), z3.BitVecVal(0, 8))
        for k, b in enumerate(window):
            mem = z3.Store(mem, z3.BitVecVal(STACK - WINDOW + k, 64), z3.BitVecVal(b, 8))
        subst = [(st0.regs[r], z3.BitVecVal(v, 64)) for r, v in regs.items()]
        subst += [(st0.mem, mem)]
        subst += [(st0.flags[f], z3.BoolVal(bool(nzcv >> (3 - i) & 1))) for i, f in enumerate("NZCV")]
        st = execute_block(body, isa="aarch64", state=st0)
        for r in A64_REGS:
            got = z3.simplify(z3.substitute(st.regs[r], *subst)).as_long()
            uc_reg = a64.UC_ARM64_REG_SP if r == "sp" else (a64.UC_ARM64_REG_X0 + int(r[1:]) if int(r[1:]) < 29
                                                          else (a64.UC_ARM64_REG_X29, a64.UC_ARM64_REG_X30)[int(r[1:]) - 29])
            assert got == uc.reg_read(uc_reg), (name, r)
        final = bytes(uc.mem_read(STACK - WINDOW, 2 * WINDOW))
        sym = z3.simplify(z3.substitute(st.mem, *subst))
        for k in range(0, 2 * WINDOW, 8):
            cell = z3.simplify(z3.Select(sym, z3.BitVecVal(STACK - WINDOW + k, 64))).as_long()
            assert cell == final[k], (name, k)
        uc_flags = uc.reg_read(a64.UC_ARM64_REG_NZCV) >> 28
        for i, f in enumerate("NZCV"):
            assert z3.is_true(z3.simplify(z3.substitute(st.flags[f], *subst))) == bool(uc_flags >> (3 - i) & 1), (name, f)


@pytest.mark.parametrize(("a", "r"), [
    ("add x0, x0, x1\n lsl x0, x0, 2", "add a0,a0,a1\n slli a0,a0,2"),
    ("cmp x0, x1\n b.lt .L1", "blt a0,a1,.L1"),
    ("add w0, w0, w1", "addw a0,a0,a1\n slli a0,a0,32\n srli a0,a0,32"),
    ("stp x0, x1, [sp, -16]!", "addi sp,sp,-16\n sd a0,0(sp)\n sd a1,8(sp)"),
    ("str x0, [sp, 8]\n ldr x1, [sp, 8]", "sd a0,8(sp)\n mv a1,a0"),
    ("madd x0, x0, x2, x1", "mul a0,a0,a2\n add a0,a0,a1"),
    ("cmp x1, 0\n csneg x0, x1, x1, ge", "srai t0,a1,63\n xor a0,t0,a1\n sub a0,a0,t0"),
])
def test_equivalent_pairs_are_proven(a, r):
    res = check_equivalence(_blk(a, "aarch64"), _blk(r, "riscv64"), reg_map=ARGS, live_out=["x0", "x1", "sp"])
    assert res.equivalent is True


def test_division_by_zero_differs_and_the_counterexample_shows_it():
    res = check_equivalence(_blk("sdiv x0, x0, x1", "aarch64"), _blk("div a0,a0,a1", "riscv64"),
                            reg_map=ARGS)
    assert res.equivalent is False and res.differs == ("x0",)
    assert res.counterexample["x1"] == 0  # the ISAs differ only there (A64: 0, RV: -1)


def test_unsigned_vs_signed_branch_counterexample():
    res = check_equivalence(_blk("cmp x0, x1\n b.lo .L1", "aarch64"), _blk("blt a0,a1,.L1", "riscv64"),
                            reg_map=ARGS)
    assert res.equivalent is False and res.differs == ("branch",)
    x0, x1 = res.counterexample.get("x0", 0), res.counterexample.get("x1", 0)

    def signed(v):
        return v - (1 << 64) if v >> 63 else v
    assert (x0 < x1) != (signed(x0) < signed(x1))


def test_w_register_zero_extension_counterexample():
    res = check_equivalence(_blk("add w0, w0, w1", "aarch64"), _blk("addw a0,a0,a1", "riscv64"),
                            reg_map=ARGS)
    assert res.equivalent is False
    x0, x1 = res.counterexample.get("x0", 0), res.counterexample.get("x1", 0)
    assert ((x0 + x1) >> 31) & 1 == 1  # addw sign-extends, A64 zero-extends: bit 31 set


def test_memory_difference_is_found():
    res = check_equivalence(_blk("str x0, [sp, 8]", "aarch64"), _blk("sd a0,16(sp)", "riscv64"),
                            reg_map=ARGS)
    assert res.equivalent is False and "memory" in res.differs


def test_call_inside_a_block_is_an_error():
    with pytest.raises(DSLError, match="bl: a call is not part"):
        execute_block(_blk("bl g", "aarch64"), isa="aarch64")
    with pytest.raises(DSLError, match="unknown register"):
        check_equivalence([], [], reg_map={"x0": "q9"})
    assert Reg("x0") in _blk("mov x0, 1", "aarch64")[0].operands


def _straight_rv_blocks():
    found = []
    for unit in load_corpus():
        for opt in ("O0", "O2"):
            var = unit.variants[f"riscv64-{opt}"]
            for fn in var.program().functions.values():
                for block in basic_blocks(fn, isa="riscv64"):
                    body = [i for i in block.instrs if not is_control(i, "riscv64")]
                    if len(body) >= 2 and all(o.base.name in ("sp", "s0") for i in body
                                              for o in i.operands if isinstance(o, Mem)):
                        found.append((f"{unit.name}-{opt}:{block.start}", body))
    return found


def test_riscv_semantics_agree_with_unicorn_on_corpus_blocks():
    from unicorn import UC_ARCH_RISCV, UC_MODE_RISCV64
    from unicorn import riscv_const as rvc

    from archsim.compilers.asm.ir import Function, Program
    from archsim.compilers.asm.parse import rv_reg
    from archsim.compilers.asm.rv_encode import assemble
    from archsim.compilers.asm.symbolic import RV_REGS

    blocks = _straight_rv_blocks()
    assert len(blocks) > 300
    rng = np.random.default_rng(5)
    for name, body in blocks[::6]:
        code = assemble(Program("riscv64", name, {"b": Function("b", list(body))})).text
        regs = {r: int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2)) for r in RV_REGS}
        regs["sp"] = regs["s0"] = STACK
        window = rng.integers(0, 256, size=2 * WINDOW).astype(np.uint8).tobytes()
        uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV64)
        uc.mem_map(0x10000, 0x1000)
        uc.mem_write(0x10000, code)
        uc.mem_map(STACK - 0x1000, 0x2000)
        uc.mem_write(STACK - WINDOW, window)
        for r, v in regs.items():
            uc.reg_write(rvc.UC_RISCV_REG_X0 + rv_reg(r), v)
        uc.emu_start(0x10000, 0x10000 + len(code))
        st0 = initial_state("riscv64")
        mem = z3.K(z3.BitVecSort(64), z3.BitVecVal(0, 8))
        for k, b in enumerate(window):
            mem = z3.Store(mem, z3.BitVecVal(STACK - WINDOW + k, 64), z3.BitVecVal(b, 8))
        subst = [(st0.regs[r], z3.BitVecVal(v, 64)) for r, v in regs.items()] + [(st0.mem, mem)]
        st = execute_block(body, isa="riscv64", state=st0)
        for r in RV_REGS:
            got = z3.simplify(z3.substitute(st.regs[r], *subst)).as_long()
            assert got == uc.reg_read(rvc.UC_RISCV_REG_X0 + rv_reg(r)), (name, r)
        final = bytes(uc.mem_read(STACK - WINDOW, 2 * WINDOW))
        sym = z3.simplify(z3.substitute(st.mem, *subst))
        for k in range(0, 2 * WINDOW, 4):
            cell = z3.simplify(z3.Select(sym, z3.BitVecVal(STACK - WINDOW + k, 64))).as_long()
            assert cell == final[k], (name, k)


def test_low32_compares_only_the_w_view():
    # AArch64 `ldr w1` zero-extends the loaded word, RV64 `lw` sign-extends it: the full
    # registers differ for a negative word, their low 32 bits never do
    a64 = _blk("ldr w1, [x0]\n", "aarch64")
    rv = _blk("lw a1, 0(a0)\n", "riscv64")
    full = check_equivalence(a64, rv, reg_map={"x0": "a0", "x1": "a1"}, live_out=["x1"])
    assert full.equivalent is False and full.differs == ("x1",)
    low = check_equivalence(a64, rv, reg_map={"x0": "a0", "x1": "a1"}, live_out=["x1"],
                            low32=["x1"])
    assert low.equivalent is True
