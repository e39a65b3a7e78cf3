"""Symbolic semantics of AArch64 and RV64 basic blocks in z3, and block equivalence.

A :class:`SymState` holds every register as a 64-bit bit-vector, memory as one z3 array
from 64-bit addresses to bytes (little-endian), and on AArch64 the NZCV flags. Executing a
non-branching block from a fresh state gives its effect as terms over the initial values; a
block may end in one branch, whose condition is kept (``branch``).

:func:`check_equivalence` asks whether an AArch64 block and an RV64 block compute the same
thing under a register mapping: from equal inputs (each mapped AArch64 register equals its
RV64 image, memory equal) every live-out register, all of memory and the branch condition
are equal for all inputs. A counterexample is returned when they are not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import z3

from ...errors import DSLError
from .blocks import is_control
from .ir import Cond, Hole, Imm, Instr, LabelDef, Line, Mem, Reg, Shift, Sym

__all__ = ["RLIMIT", "SymState", "initial_state", "execute_block", "check_equivalence", "fill_holes",
           "hole_var",
           "EquivalenceResult", "A64_REGS", "RV_REGS"]

#: AArch64 registers the state holds (``xzr`` reads as zero and is never stored).
A64_REGS = tuple(f"x{i}" for i in range(31)) + ("sp",)
#: RV64 registers by ABI name (``zero`` reads as zero and is never stored).
RV_REGS = ("ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
           "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
           "t3", "t4", "t5", "t6")
_W = 64
#: z3 resource limit per query: a deterministic budget (unlike a time limit, it gives the
#: same verdicts on a loaded and an idle machine); ~4x the largest query the corpus's
#: baseline proofs need (measured: median 3e6, max 1.6e7).
RLIMIT = 60_000_000


@dataclass
class SymState:
    """Registers (64-bit terms), memory (array BV64 -> BV8), NZCV flags (AArch64 only) and
    the condition of the block's final branch (``None``: no conditional branch)."""

    isa: str
    regs: dict[str, z3.BitVecRef]
    mem: z3.ArrayRef
    flags: dict[str, z3.BoolRef] = field(default_factory=dict)
    branch: z3.BoolRef | None = None


def initial_state(isa: str, prefix: str = "") -> SymState:
    """A state of fresh variables named ``<prefix><reg>`` (flags ``<prefix>N``...)."""
    names = A64_REGS if isa == "aarch64" else RV_REGS
    regs = {r: z3.BitVec(prefix + r, _W) for r in names}
    mem = z3.Array(prefix + "mem", z3.BitVecSort(64), z3.BitVecSort(8))
    flags = {f: z3.Bool(prefix + f) for f in "NZCV"} if isa == "aarch64" else {}
    return SymState(isa, regs, mem, flags)


def _err(ins: Instr, what: str) -> DSLError:
    return DSLError(f"{ins.mnemonic}: {what}", filename=ins.file, lineno=ins.line)


def _bv(value: int, bits: int) -> z3.BitVecRef:
    return z3.BitVecVal(value & ((1 << bits) - 1), bits)


def _load(mem: z3.ArrayRef, addr: z3.BitVecRef, nbytes: int) -> z3.BitVecRef:
    parts = [z3.Select(mem, addr + k) for k in reversed(range(nbytes))]
    return parts[0] if nbytes == 1 else z3.Concat(*parts)


def _store(mem: z3.ArrayRef, addr: z3.BitVecRef, value: z3.BitVecRef, nbytes: int) -> z3.ArrayRef:
    for k in range(nbytes):
        mem = z3.Store(mem, addr + k, z3.Extract(8 * k + 7, 8 * k, value))
    return mem


def _resize(v: z3.BitVecRef, bits: int, *, signed: bool = False) -> z3.BitVecRef:
    have = v.size()
    if have == bits:
        return v
    if have > bits:
        return z3.Extract(bits - 1, 0, v)
    return (z3.SignExt if signed else z3.ZeroExt)(bits - have, v)


# ---------------------------------------------------------------------------- AArch64


class _A64:
    def __init__(self, st: SymState) -> None:
        self.st = st

    def read(self, r: Reg, bits: int | None = None) -> z3.BitVecRef:
        bits = bits or r.bits
        if r.name == "xzr":
            return _bv(0, bits)
        return _resize(self.st.regs[r.name], bits)

    def write(self, r: Reg, v: z3.BitVecRef) -> None:
        if r.name != "xzr":
            # A W-register write clears the upper 32 bits.
            self.st.regs[r.name] = _resize(v, 64)

    def op2(self, ins: Instr, ops: Sequence[object], bits: int) -> z3.BitVecRef:
        """Value of a flexible second operand: register (shifted/extended) or immediate."""
        src, mod = ops[0], ops[1] if len(ops) > 1 else None
        if isinstance(src, Imm):
            v = _bv(src.value, bits)
            if isinstance(mod, Shift):
                v = v << mod.amount
            return v
        if not isinstance(src, Reg):
            raise _err(ins, f"bad operand {src}")
        if isinstance(mod, Shift) and mod.op[1:3] == "xt":
            inner = {"b": 8, "h": 16, "w": 32, "x": 64}[mod.op[3]]
            v = _resize(_resize(self.read(src, src.bits), inner), bits, signed=mod.op[0] == "s")
            return v << mod.amount
        v = self.read(src, bits)
        if isinstance(mod, Shift):
            v = _shift(mod.op, v, _bv(mod.amount, bits))
        return v

    def addr(self, m: Mem) -> z3.BitVecRef:
        base = self.read(Reg(m.base.name, 64))
        if m.index is not None:
            off = self.op2(Instr("addr"), (m.index, m.shift) if m.shift else (m.index,), 64)
            return base + off
        return base if m.mode == "post" else base + m.offset

    def writeback(self, m: Mem) -> None:
        if m.mode in ("pre", "post"):
            self.write(Reg(m.base.name, 64), self.read(Reg(m.base.name, 64)) + m.offset)

    def set_flags_add(self, a: z3.BitVecRef, b: z3.BitVecRef, carry_in: int = 0) -> z3.BitVecRef:
        bits = a.size()
        wide = z3.ZeroExt(1, a) + z3.ZeroExt(1, b) + carry_in
        res = z3.Extract(bits - 1, 0, wide)
        sign = bits - 1
        sa, sb, sr = (z3.Extract(sign, sign, x) == 1 for x in (a, b, res))
        self.st.flags = {"N": sr, "Z": res == 0, "C": z3.Extract(bits, bits, wide) == 1,
                         "V": z3.And(sa == sb, sr != sa)}
        return res

    def cond(self, code: str) -> z3.BoolRef:
        f = self.st.flags
        n, zf, c, v = f["N"], f["Z"], f["C"], f["V"]
        table = {"eq": zf, "ne": z3.Not(zf), "cs": c, "hs": c, "cc": z3.Not(c), "lo": z3.Not(c),
                 "mi": n, "pl": z3.Not(n), "vs": v, "vc": z3.Not(v),
                 "hi": z3.And(c, z3.Not(zf)), "ls": z3.Not(z3.And(c, z3.Not(zf))),
                 "ge": n == v, "lt": n != v, "gt": z3.And(z3.Not(zf), n == v),
                 "le": z3.Not(z3.And(z3.Not(zf), n == v)), "al": z3.BoolVal(True)}
        return table[code]


def _shift(op: str, v: z3.BitVecRef, amount: z3.BitVecRef) -> z3.BitVecRef:
    bits = v.size()
    amount = amount & (bits - 1)
    if op == "lsl":
        return v << amount
    if op == "lsr":
        return z3.LShR(v, amount)
    if op == "asr":
        return v >> amount
    if op == "ror":
        return z3.RotateRight(v, amount)
    raise ValueError(op)


_A64_LOADS = {"ldr": (None, False), "ldur": (None, False), "ldrb": (1, False),
              "ldurb": (1, False), "ldrh": (2, False), "ldrsb": (1, True), "ldrsh": (2, True),
              "ldrsw": (4, True)}
_A64_STORES = {"str": None, "stur": None, "strb": 1, "sturb": 1, "strh": 2}
_A64_BRANCHES = frozenset({"b", "br", "ret", "cbz", "cbnz", "tbz", "tbnz"})


def _a64_step(x: _A64, ins: Instr) -> None:  # noqa: C901 - one case per mnemonic
    m, ops, st = ins.mnemonic, ins.operands, x.st
    if m == "nop":
        return
    if m.startswith("b.") or m in _A64_BRANCHES:
        if m.startswith("b."):
            st.branch = x.cond(m[2:])
        elif m in ("cbz", "cbnz"):
            r = ops[0]
            assert isinstance(r, Reg)
            zero = x.read(r) == 0
            st.branch = zero if m == "cbz" else z3.Not(zero)
        elif m in ("tbz", "tbnz"):
            r, bit = ops[0], ops[1]
            assert isinstance(r, Reg) and isinstance(bit, Imm)
            is0 = z3.Extract(bit.value, bit.value, x.read(r, 64)) == 0
            st.branch = is0 if m == "tbz" else z3.Not(is0)
        return
    if m in ("bl", "blr"):
        raise _err(ins, "a call is not part of a basic block's symbolic semantics")
    if m in _A64_LOADS or m in _A64_STORES:
        rt, mem = ops[0], ops[1]
        assert isinstance(rt, Reg) and isinstance(mem, Mem)
        a = x.addr(mem)
        if m in _A64_LOADS:
            size, signed = _A64_LOADS[m]
            nbytes = size or rt.bits // 8
            v = _load(st.mem, a, nbytes)
            x.write(rt, _resize(v, rt.bits if m != "ldrsw" else 64, signed=signed))
        else:
            nbytes = _A64_STORES[m] or rt.bits // 8
            st.mem = _store(st.mem, a, x.read(rt, nbytes * 8), nbytes)
        x.writeback(mem)
        return
    if m in ("ldp", "stp"):
        r1, r2, mem = ops
        assert isinstance(r1, Reg) and isinstance(r2, Reg) and isinstance(mem, Mem)
        nbytes = r1.bits // 8
        a = x.addr(mem)
        if m == "ldp":
            v1, v2 = _load(st.mem, a, nbytes), _load(st.mem, a + nbytes, nbytes)
            x.write(r1, v1)
            x.write(r2, v2)
        else:
            v1, v2 = x.read(r1), x.read(r2)
            st.mem = _store(_store(st.mem, a, v1, nbytes), a + nbytes, v2, nbytes)
        x.writeback(mem)
        return
    if m in ("cmp", "cmn", "tst", "ccmp", "ccmn"):
        rn = ops[0]
        assert isinstance(rn, Reg)
        bits = rn.bits
        a = x.read(rn, bits)
        if m in ("ccmp", "ccmn"):
            nzcv, cond = ops[2], ops[3]
            assert isinstance(nzcv, Imm) and isinstance(cond, Cond)
            taken = x.cond(cond.code)
            old = dict(st.flags)
            b = x.op2(ins, ops[1:2], bits)
            x.set_flags_add(a, ~b if m == "ccmp" else b, 1 if m == "ccmp" else 0)
            preset = {"N": bool(nzcv.value & 8), "Z": bool(nzcv.value & 4),
                      "C": bool(nzcv.value & 2), "V": bool(nzcv.value & 1)}
            st.flags = {k: z3.If(taken, st.flags[k], z3.BoolVal(preset[k])) for k in "NZCV"}
            del old
            return
        b = x.op2(ins, ops[1:], bits)
        if m == "cmp":
            x.set_flags_add(a, ~b, 1)
        elif m == "cmn":
            x.set_flags_add(a, b)
        else:
            res = a & b
            st.flags = {"N": z3.Extract(bits - 1, bits - 1, res) == 1, "Z": res == 0,
                        "C": z3.BoolVal(False), "V": z3.BoolVal(False)}
        return
    rd = ops[0]
    if not isinstance(rd, Reg):
        raise _err(ins, f"destination {rd} is not a register")
    bits = rd.bits
    if m in ("add", "adds", "sub", "subs"):
        rn = ops[1]
        assert isinstance(rn, Reg)
        a, b = x.read(rn, bits), x.op2(ins, ops[2:], bits)
        if m == "adds":
            res = x.set_flags_add(a, b)
        elif m == "subs":
            res = x.set_flags_add(a, ~b, 1)
        else:
            res = a + b if m == "add" else a - b
        x.write(rd, res)
    elif m in ("neg", "negs"):
        b = x.op2(ins, ops[1:], bits)
        x.write(rd, x.set_flags_add(_bv(0, bits), ~b, 1) if m == "negs" else -b)
    elif m in ("and", "ands", "orr", "eor", "bic", "orn", "eon"):
        rn = ops[1]
        assert isinstance(rn, Reg)
        a, b = x.read(rn, bits), x.op2(ins, ops[2:], bits)
        res = {"and": a & b, "ands": a & b, "orr": a | b, "eor": a ^ b, "bic": a & ~b,
               "orn": a | ~b, "eon": a ^ ~b}[m]
        if m == "ands":
            st.flags = {"N": z3.Extract(bits - 1, bits - 1, res) == 1, "Z": res == 0,
                        "C": z3.BoolVal(False), "V": z3.BoolVal(False)}
        x.write(rd, res)
    elif m == "mvn":
        x.write(rd, ~x.op2(ins, ops[1:], bits))
    elif m in ("mov", "movz"):
        x.write(rd, x.op2(ins, ops[1:], bits))
    elif m == "movn":
        x.write(rd, ~x.op2(ins, ops[1:], bits))
    elif m == "movk":
        imm, sh = ops[1], ops[2] if len(ops) > 2 else Shift("lsl", 0)
        assert isinstance(imm, Imm) and isinstance(sh, Shift)
        mask = _bv(0xFFFF << sh.amount, bits)
        x.write(rd, (x.read(rd, bits) & ~mask) | _bv(imm.value << sh.amount, bits))
    elif m in ("mul", "madd", "msub", "mneg"):
        rn, rm = ops[1], ops[2]
        assert isinstance(rn, Reg) and isinstance(rm, Reg)
        p = x.read(rn, bits) * x.read(rm, bits)
        if m == "madd":
            ra = ops[3]
            assert isinstance(ra, Reg)
            p = x.read(ra, bits) + p
        elif m == "msub":
            ra = ops[3]
            assert isinstance(ra, Reg)
            p = x.read(ra, bits) - p
        elif m == "mneg":
            p = -p
        x.write(rd, p)
    elif m in ("smulh", "umulh"):
        rn, rm = ops[1], ops[2]
        assert isinstance(rn, Reg) and isinstance(rm, Reg)
        ext = z3.SignExt if m == "smulh" else z3.ZeroExt
        x.write(rd, z3.Extract(127, 64, ext(64, x.read(rn)) * ext(64, x.read(rm))))
    elif m in ("sdiv", "udiv"):
        rn, rm = ops[1], ops[2]
        assert isinstance(rn, Reg) and isinstance(rm, Reg)
        a, b = x.read(rn, bits), x.read(rm, bits)
        q = a / b if m == "sdiv" else z3.UDiv(a, b)
        x.write(rd, z3.If(b == 0, _bv(0, bits), q))  # A64 division by zero gives 0
    elif m in ("lsl", "lsr", "asr", "ror"):
        rn, amt = ops[1], ops[2]
        assert isinstance(rn, Reg)
        a = x.read(rn, bits)
        amount = _bv(amt.value, bits) if isinstance(amt, Imm) else x.read(amt, bits)  # type: ignore[arg-type]
        x.write(rd, _shift(m, a, amount))
    elif m in ("sxtw", "sxth", "sxtb", "uxtw", "uxth", "uxtb"):
        rn = ops[1]
        assert isinstance(rn, Reg)
        inner = {"b": 8, "h": 16, "w": 32}[m[3]]
        x.write(rd, _resize(x.read(rn, inner), bits, signed=m[0] == "s"))
    elif m in ("ubfx", "sbfx", "ubfiz", "sbfiz", "bfi", "bfxil"):
        rn, lsb_op, width_op = ops[1], ops[2], ops[3]
        assert isinstance(rn, Reg) and isinstance(lsb_op, Imm) and isinstance(width_op, Imm)
        lsb, width = lsb_op.value, width_op.value
        a = x.read(rn, bits)
        if m in ("ubfx", "sbfx"):
            fld = z3.Extract(lsb + width - 1, lsb, a)
            x.write(rd, _resize(fld, bits, signed=m == "sbfx"))
        elif m in ("ubfiz", "sbfiz"):
            fld = _resize(z3.Extract(width - 1, 0, a), bits, signed=m == "sbfiz")
            x.write(rd, fld << lsb)
        elif m == "bfi":
            mask = _bv(((1 << width) - 1) << lsb, bits)
            x.write(rd, (x.read(rd, bits) & ~mask) | ((a << lsb) & mask))
        else:
            mask = _bv((1 << width) - 1, bits)
            x.write(rd, (x.read(rd, bits) & ~mask) | (z3.LShR(a, lsb) & mask))
    elif m in ("csel", "csinc", "csinv", "csneg"):
        rn, rm, cond = ops[1], ops[2], ops[3]
        assert isinstance(rn, Reg) and isinstance(rm, Reg) and isinstance(cond, Cond)
        b = x.read(rm, bits)
        other = {"csel": b, "csinc": b + 1, "csinv": ~b, "csneg": -b}[m]
        x.write(rd, z3.If(x.cond(cond.code), x.read(rn, bits), other))
    elif m in ("cset", "csetm"):
        cond = ops[1]
        assert isinstance(cond, Cond)
        x.write(rd, z3.If(x.cond(cond.code), _bv(1 if m == "cset" else -1, bits), _bv(0, bits)))
    elif m in ("cinc", "cinv", "cneg"):
        rn, cond = ops[1], ops[2]
        assert isinstance(rn, Reg) and isinstance(cond, Cond)
        a = x.read(rn, bits)
        alt = {"cinc": a + 1, "cinv": ~a, "cneg": -a}[m]
        x.write(rd, z3.If(x.cond(cond.code), alt, a))
    else:
        raise _err(ins, "no symbolic semantics for this mnemonic")


# ---------------------------------------------------------------------------- RV64


class _RV:
    def __init__(self, st: SymState) -> None:
        self.st = st

    def read(self, op: object) -> z3.BitVecRef:
        if isinstance(op, Imm):
            return _bv(op.value, 64)
        if isinstance(op, Hole):
            return hole_var(op.name)
        assert isinstance(op, Reg)
        return _bv(0, 64) if op.name == "zero" else self.st.regs[op.name]

    def write(self, r: object, v: z3.BitVecRef) -> None:
        assert isinstance(r, Reg)
        if r.name != "zero":
            self.st.regs[r.name] = v


def _w(v: z3.BitVecRef) -> z3.BitVecRef:
    """Sign-extend the low 32 bits (the result of every RV64 *W instruction)."""
    return z3.SignExt(32, z3.Extract(31, 0, v))


def _lo(v: z3.BitVecRef) -> z3.BitVecRef:
    return z3.Extract(31, 0, v)


def _rv_div(m: str, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    bits = a.size()
    ones = _bv(-1, bits)
    if m.startswith("div"):
        q = z3.UDiv(a, b) if m.startswith("divu") else a / b
        return z3.If(b == 0, ones, q)  # RV division by zero gives all ones
    r = z3.URem(a, b) if m.startswith("remu") else z3.SRem(a, b)
    return z3.If(b == 0, a, r)  # RV remainder by zero gives the dividend


_RV_ALU = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "and": lambda a, b: a & b,
           "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
           "sll": lambda a, b: a << (b & 63), "srl": lambda a, b: z3.LShR(a, b & 63),
           "sra": lambda a, b: a >> (b & 63), "mul": lambda a, b: a * b,
           "slt": lambda a, b: z3.If(a < b, _bv(1, 64), _bv(0, 64)),
           "sltu": lambda a, b: z3.If(z3.ULT(a, b), _bv(1, 64), _bv(0, 64)),
           "mulh": lambda a, b: z3.Extract(127, 64, z3.SignExt(64, a) * z3.SignExt(64, b)),
           "mulhu": lambda a, b: z3.Extract(127, 64, z3.ZeroExt(64, a) * z3.ZeroExt(64, b)),
           "mulhsu": lambda a, b: z3.Extract(127, 64, z3.SignExt(64, a) * z3.ZeroExt(64, b))}
_RV_ALU_W = {"addw": lambda a, b: a + b, "subw": lambda a, b: a - b,
             "sllw": lambda a, b: a << (b & 31), "srlw": lambda a, b: z3.LShR(a, b & 31),
             "sraw": lambda a, b: a >> (b & 31), "mulw": lambda a, b: a * b}
_RV_IMM = {"addi": "add", "andi": "and", "ori": "or", "xori": "xor", "slli": "sll",
           "srli": "srl", "srai": "sra", "slti": "slt", "sltiu": "sltu"}
_RV_IMM_W = {"addiw": "addw", "slliw": "sllw", "srliw": "srlw", "sraiw": "sraw"}
_RV_LOADS = {"ld": (8, True), "lw": (4, True), "lwu": (4, False), "lh": (2, True),
             "lhu": (2, False), "lb": (1, True), "lbu": (1, False)}
_RV_STORES = {"sd": 8, "sw": 4, "sh": 2, "sb": 1}
_RV_BRANCH = {"beq": lambda a, b: a == b, "bne": lambda a, b: a != b,
              "blt": lambda a, b: a < b, "bge": lambda a, b: a >= b,
              "bltu": z3.ULT, "bgeu": z3.UGE, "bgt": lambda a, b: a > b,
              "ble": lambda a, b: a <= b, "bgtu": z3.UGT, "bleu": z3.ULE}
_RV_BRANCH_Z = {"beqz": "beq", "bnez": "bne", "bltz": "blt", "bgez": "bge", "blez": "ble",
                "bgtz": "bgt"}


def _rv_step(x: _RV, ins: Instr) -> None:  # noqa: C901 - one case per mnemonic
    m, ops, st = ins.mnemonic, ins.operands, x.st
    if m == "nop" or m in ("j", "jr", "ret"):
        return
    if m in _RV_BRANCH:
        st.branch = _RV_BRANCH[m](x.read(ops[0]), x.read(ops[1]))
        return
    if m in _RV_BRANCH_Z:
        st.branch = _RV_BRANCH[_RV_BRANCH_Z[m]](x.read(ops[0]), _bv(0, 64))
        return
    if m in ("call", "tail", "jal", "jalr", "auipc"):
        raise _err(ins, "calls and pc-relative code are not part of a block's semantics")
    if m in _RV_LOADS or m in _RV_STORES:
        mem = ops[1]
        assert isinstance(mem, Mem)
        a = x.read(mem.base) + (hole_var(mem.hole.name) if mem.hole is not None else mem.offset)
        if m in _RV_LOADS:
            n, signed = _RV_LOADS[m]
            x.write(ops[0], _resize(_load(st.mem, a, n), 64, signed=signed))
        else:
            n = _RV_STORES[m]
            st.mem = _store(st.mem, a, _resize(x.read(ops[0]), 8 * n), n)
        return
    rd = ops[0]
    src = [x.read(o) for o in ops[1:]]
    if m in _RV_ALU:
        x.write(rd, _RV_ALU[m](src[0], src[1]))
    elif m in _RV_IMM:
        x.write(rd, _RV_ALU[_RV_IMM[m]](src[0], src[1]))
    elif m in _RV_ALU_W:
        x.write(rd, _w(z3.ZeroExt(32, _RV_ALU_W[m](_lo(src[0]), _lo(src[1])))))
    elif m in _RV_IMM_W:
        x.write(rd, _w(z3.ZeroExt(32, _RV_ALU_W[_RV_IMM_W[m]](_lo(src[0]), _lo(src[1])))))
    elif m in ("div", "divu", "rem", "remu"):
        x.write(rd, _rv_div(m, src[0], src[1]))
    elif m in ("divw", "divuw", "remw", "remuw"):
        x.write(rd, _w(z3.ZeroExt(32, _rv_div(m, _lo(src[0]), _lo(src[1])))))
    elif m == "li":
        x.write(rd, src[0])
    elif m == "lui":
        imm = ops[1]
        assert isinstance(imm, Imm)
        x.write(rd, _w(_bv(imm.value << 12, 64)))
    elif m == "mv":
        x.write(rd, src[0])
    elif m == "not":
        x.write(rd, ~src[0])
    elif m == "neg":
        x.write(rd, -src[0])
    elif m == "negw":
        x.write(rd, _w(-src[0]))
    elif m == "sext.w":
        x.write(rd, _w(src[0]))
    elif m in ("seqz", "snez", "sltz", "sgtz"):
        cond = {"seqz": src[0] == 0, "snez": src[0] != 0, "sltz": src[0] < 0,
                "sgtz": src[0] > 0}[m]
        x.write(rd, z3.If(cond, _bv(1, 64), _bv(0, 64)))
    elif m in ("sgt", "sgtu"):
        cond = src[0] > src[1] if m == "sgt" else z3.UGT(src[0], src[1])
        x.write(rd, z3.If(cond, _bv(1, 64), _bv(0, 64)))
    else:
        raise _err(ins, "no symbolic semantics for this mnemonic")


def _copy(st: SymState) -> SymState:
    return SymState(st.isa, dict(st.regs), st.mem, dict(st.flags), st.branch)


def _merge(arrivals: list[tuple[z3.BoolRef, SymState]]) -> tuple[z3.BoolRef, SymState]:
    """Join the states reaching one label: each value is chosen by the guard of its path."""
    guard, merged = arrivals[-1]
    merged = _copy(merged)
    for g, st in arrivals[:-1]:
        for r in merged.regs:
            merged.regs[r] = z3.If(g, st.regs[r], merged.regs[r])
        merged.mem = z3.If(g, st.mem, merged.mem)
        for f in merged.flags:
            merged.flags[f] = z3.If(g, st.flags[f], merged.flags[f])
        guard = z3.Or(guard, g)
    return guard, merged


def execute_block(lines: Sequence[Line], *, isa: str, state: SymState | None = None) -> SymState:
    """Execute a basic block symbolically (from fresh variables unless ``state`` is given).

    The block may contain labels and *forward* branches to them (a translation's internal
    control flow, e.g. a conditional select): paths are joined at each label, each value
    chosen by its path's condition. A branch to a label outside the block must be the last
    instruction; its condition becomes ``branch``. Calls are not part of a block.
    """
    cur: SymState | None = _copy(state if state is not None else initial_state(isa))
    assert cur is not None
    cur.branch = None
    step = _a64_step if isa == "aarch64" else _rv_step
    make = _A64 if isa == "aarch64" else _RV
    positions = {ln.name: k for k, ln in enumerate(lines) if isinstance(ln, LabelDef)}
    guard: z3.BoolRef = z3.BoolVal(True)
    pending: dict[str, list[tuple[z3.BoolRef, SymState]]] = {}
    for k, line in enumerate(lines):
        if isinstance(line, LabelDef):
            arrivals = pending.pop(line.name, [])
            if cur is not None:
                arrivals.append((guard, cur))
            if arrivals:
                guard, cur = _merge(arrivals)
            continue
        ins = line
        if cur is None:
            raise _err(ins, "unreachable instruction inside the block")
        if cur.branch is not None:
            raise _err(ins, "instruction after the block's branch")
        if any(isinstance(o, Sym) for o in ins.operands) and not is_control(ins, isa):
            raise _err(ins, "symbol operand outside a branch")
        target = ins.operands[-1] if ins.operands else None
        if is_control(ins, isa) and isinstance(target, Sym) and target.name in positions:
            if positions[target.name] < k:
                raise _err(ins, f"backward branch to {target.name} inside a block")
            step(make(cur), ins)  # type: ignore[arg-type]
            taken = cur.branch
            cur.branch = None
            if taken is None:  # unconditional
                pending.setdefault(target.name, []).append((guard, cur))
                cur = None
            else:
                pending.setdefault(target.name, []).append((z3.And(guard, taken), _copy(cur)))
                guard = z3.And(guard, z3.Not(taken))
            continue
        step(make(cur), ins)  # type: ignore[arg-type]
    if cur is None:
        raise DSLError("the block ends in an internal jump with no label after it")
    return cur


def _is_branch(ins: Instr, isa: str) -> bool:
    m = ins.mnemonic
    if isa == "aarch64":
        return m.startswith("b.") or m in _A64_BRANCHES
    return m in _RV_BRANCH or m in _RV_BRANCH_Z or m in ("j", "jr", "ret")


@dataclass(frozen=True)
class EquivalenceResult:
    """``equivalent`` is True (proven), False (``counterexample`` names input values and the
    outputs that differ) or None (the solver gave up within its time limit)."""

    equivalent: bool | None
    counterexample: dict[str, int] | None = None
    differs: tuple[str, ...] = ()


def hole_var(name: str) -> z3.BitVecRef:
    """The solver variable of sketch hole ``name``."""
    return z3.BitVec("hole_" + name, 64)


def _store_addresses(mem: z3.ExprRef, limit: int = 256) -> list[z3.ExprRef]:
    """The byte addresses stored to in the array term ``mem`` (through ``If`` joins)."""
    out: list[z3.ExprRef] = []
    todo = [mem]
    while todo and len(out) < limit:
        m = todo.pop()
        if z3.is_store(m):
            if all(m.arg(1).get_id() != a.get_id() for a in out):
                out.append(m.arg(1))
            todo.append(m.arg(0))
        elif z3.is_app_of(m, z3.Z3_OP_ITE):
            todo.extend((m.arg(1), m.arg(2)))
    return out


def _checks(a64: Sequence[Line], rv: Sequence[Line], reg_map: Mapping[str, str],
            live_out: Sequence[str] | None, compare_memory: bool,
            low32: Collection[str] = (), stores: list[z3.ExprRef] | None = None
            ) -> list[tuple[str, z3.BoolRef]] | None:
    """The per-output equalities of an equivalence query (None: only one block branches);
    ``stores`` (when given) receives the byte addresses either block stores to."""
    sa, sb = initial_state("aarch64", "a_"), initial_state("riscv64", "r_")
    for ar, rr in reg_map.items():
        if ar not in sa.regs or rr not in sb.regs:
            raise DSLError(f"register map {ar}->{rr}: unknown register",
                           hint=f"AArch64 {', '.join(A64_REGS)}; RV64 {', '.join(RV_REGS)}")
        sb.regs[rr] = sa.regs[ar]
    sb.mem = sa.mem
    fa, fb = execute_block(a64, isa="aarch64", state=sa), execute_block(rv, isa="riscv64", state=sb)
    checks: list[tuple[str, z3.BoolRef]] = []
    for ar in (live_out if live_out is not None else list(reg_map)):
        a, b = fa.regs[ar], fb.regs[reg_map[ar]]
        if ar in low32:  # only the W view is read later
            a, b = z3.Extract(31, 0, a), z3.Extract(31, 0, b)
        checks.append((ar, a == b))
    if stores is not None:
        stores.extend(_store_addresses(fa.mem) + _store_addresses(fb.mem))
    if compare_memory:
        probe = z3.BitVec("probe_addr", 64)
        checks.append(("memory", z3.Select(fa.mem, probe) == z3.Select(fb.mem, probe)))
    if (fa.branch is None) != (fb.branch is None):
        return None
    if fa.branch is not None and fb.branch is not None:
        checks.append(("branch", fa.branch == fb.branch))
    return checks


def check_equivalence(a64: Sequence[Line], rv: Sequence[Line], *,
                      reg_map: Mapping[str, str], live_out: Sequence[str] | None = None,
                      compare_memory: bool = True, low32: Collection[str] = (),
                      timeout_ms: int = 5000) -> EquivalenceResult:
    """Is the RV64 block ``rv`` equivalent to the AArch64 block ``a64`` under ``reg_map``?

    Parameters
    ----------
    a64, rv : sequence of Line
        The blocks (each may end in one branch; the branch conditions must then agree).
    reg_map : mapping
        AArch64 register -> RV64 register; mapped registers start equal.
    live_out : sequence of str, optional
        AArch64 registers whose final values must agree (default: every mapped one).
    compare_memory : bool
        Also require all of memory to agree at the end.
    low32 : collection of str
        Live-out registers of which only the low 32 bits must agree (read later only
        through their W view).
    timeout_ms : int
        Solver time limit (a safety net; :data:`RLIMIT` is the budget that binds).
    """
    checks = _checks(a64, rv, reg_map, live_out, compare_memory, low32)
    if checks is None:
        return EquivalenceResult(False, None, ("branch",))
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.set("rlimit", RLIMIT)
    solver.add(z3.Not(z3.And(*[c for _, c in checks])) if checks else z3.BoolVal(False))
    verdict = solver.check()
    if verdict == z3.unsat:
        return EquivalenceResult(True)
    if verdict == z3.unknown:
        return EquivalenceResult(None)
    model = solver.model()
    cex = {}
    names = initial_state("aarch64", "a_").regs
    for r in A64_REGS:
        val = model.eval(names[r], model_completion=False)
        if isinstance(val, z3.BitVecNumRef):
            cex[r] = val.as_long()
    differs = tuple(name for name, c in checks if z3.is_false(model.eval(c, model_completion=True)))
    return EquivalenceResult(False, cex, differs)


def fill_holes(a64: Sequence[Line], rv: Sequence[Line], *, holes: Sequence[str],
               reg_map: Mapping[str, str], bounds: Mapping[str, tuple[int, int]] | None = None,
               live_out: Sequence[str] | None = None, low32: Collection[str] = (),
               max_rounds: int = 12, timeout_ms: int = 3000,
               probe_stores: bool = False) -> dict[str, int] | None:
    """Values for the holes of the RV64 sketch ``rv`` that make it equivalent to ``a64`` for
    all inputs, by counterexample-guided synthesis; None when there are none (or the solver
    gives up).

    Each round proposes hole values consistent with every counterexample so far, then asks
    the solver for an input on which the completed block still differs. ``bounds`` limits a
    hole to a signed range (what its instruction field can encode); ``live_out`` and
    ``low32`` as in :func:`check_equivalence`.

    Memory is compared at one probe address, so a counterexample alone pins down little of
    a memory-offset hole; with ``probe_stores`` each counterexample's inputs are also added
    with the probe at every byte address either block stores to (more instances of the
    same universally quantified specification, so the result is as sound; it only needs
    fewer rounds).
    """
    stores: list[z3.ExprRef] = []
    checks = _checks(a64, rv, reg_map, live_out, True, low32, stores)
    if checks is None:
        return None
    spec = z3.And(*[c for _, c in checks])
    hvars = [hole_var(h) for h in holes]
    # The inputs are the initial values of both blocks (as _checks names them) and the probe
    # address; listing them is exact and far cheaper than walking the formula.
    sa, sb = initial_state("aarch64", "a_"), initial_state("riscv64", "r_")
    mapped = set(reg_map.values())
    inputs: list[z3.ExprRef] = [*sa.regs.values(), *sa.flags.values(), sa.mem,
                                *(v for r, v in sb.regs.items() if r not in mapped),
                                z3.BitVec("probe_addr", 64)]
    synth = z3.Solver()
    synth.set("timeout", timeout_ms)
    synth.set("rlimit", RLIMIT)
    for h, v in zip(holes, hvars, strict=True):
        lo, hi = (bounds or {}).get(h, (-2048, 2047))
        synth.add(v >= lo, v <= hi)
    values: list[z3.ExprRef] = [z3.BitVecVal(0, 64) for _ in hvars]
    for _ in range(max_rounds):
        verify = z3.Solver()
        verify.set("timeout", timeout_ms)
        verify.set("rlimit", RLIMIT)
        done = z3.substitute(spec, *zip(hvars, values, strict=True)) if hvars else spec
        verify.add(z3.Not(done))
        verdict = verify.check()
        if verdict == z3.unsat:
            return {h: _signed(v) for h, v in zip(holes, values, strict=True)}
        if verdict == z3.unknown or not hvars:
            return None
        model = verify.model()
        sample = [(x, model.eval(x, model_completion=True)) for x in inputs]
        synth.add(z3.substitute(spec, *sample) if sample else spec)
        if probe_stores:
            probe = inputs[-1]
            fixed = sample[:-1]  # every input but the probe address
            for addr in stores:
                at = z3.substitute(addr, *fixed)
                synth.add(z3.substitute(spec, *fixed, (probe, at)))
        if synth.check() != z3.sat:
            return None
        m = synth.model()
        values = [m.eval(v, model_completion=True) for v in hvars]
    return None


def _signed(v: z3.ExprRef) -> int:
    assert isinstance(v, z3.BitVecNumRef)
    x = v.as_long()
    return x - (1 << 64) if x >> 63 else x
