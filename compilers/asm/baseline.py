"""The engineered baseline: a rule-based AArch64 -> RV64 transpiler, instruction by
instruction.

Rules (the kind of transpiler Guess & Sketch compares against):

* a fixed register map (:data:`REG_MAP`): arguments and return value ``x0-x7 -> a0-a7``,
  temporaries ``x9-x12 -> t0-t3``, callee-saved ``x19-x28 -> s1-s10``, ``x8 -> s11``, frame
  pointer ``x29 -> s0``, link register ``x30 -> ra``, ``sp -> sp``, ``xzr -> zero``;
  ``x13-x18`` are not mapped (a function using them is not translated; in the corpus only
  ``fib_rec`` -O2 uses any of them, and it uses ``x15-x18`` too);
* flags become explicit compares: a flag-setting instruction copies its two compare operands
  into ``t4``/``t5`` (:data:`FLAG_REGS`) and every flag reader (``b.cond``, ``csel``,
  ``cset``...) compares those two registers;
* addressing modes expand to address arithmetic in ``t6`` (:data:`SCRATCH`), pre/post-index
  write-back to an explicit ``addi``;
* W-register results are zero-extended (AArch64 clears bits 63:32, RV64 sign-extends);
* AArch64's division by zero (result 0) is reproduced with a guard;
* the calling convention maps one to one (same argument/return registers, ``bl -> call``,
  ``ret -> ret``, 16-byte stack alignment on both).

The scratch registers ``t4``/``t5``/``t6`` are caller-saved temporaries under the RV64
psABI, so a translated function may clobber them, and AAPCS64 does not preserve NZCV across
calls either (``gp``/``tp``, reserved by the psABI, were used before and are no longer).
Deviation an emulation run does not see, stated: ``x8`` lands in a callee-saved register.
Unsupported: ``ccmp``/``ccmn`` with a flag state no compare can produce (unless the
conditions read before the next flag write cannot tell it from one that can), ``bfi``/``bfxil``,
32-bit ``ror``, overflow conditions ``vs``/``vc``. Approximations, found by emulation or by
the solver where they matter: ``cmn``/``adds`` and ``tst``/``ands`` keep the carry flag
wrong for unsigned conditions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import DSLError
from .blocks import basic_blocks
from .ir import Cond, Function, Imm, Instr, LabelDef, Line, Mem, Program, Reg, Shift, Sym

__all__ = ["REG_MAP", "FLAG_REGS", "SCRATCH", "Translation", "translate"]

#: AArch64 register -> RV64 register.
REG_MAP: dict[str, str] = (
    {f"x{i}": f"a{i}" for i in range(8)} | {f"x{9 + i}": f"t{i}" for i in range(4)}
    | {f"x{19 + i}": f"s{1 + i}" for i in range(10)}
    | {"x8": "s11", "x29": "s0", "x30": "ra", "sp": "sp", "xzr": "zero"})
#: The RV64 registers holding the operands of the last compare (the flags).
FLAG_REGS = ("t4", "t5")
#: The scratch register of address and operand expansion.
SCRATCH = "t6"
_FL, _FR, _T = Reg(FLAG_REGS[0]), Reg(FLAG_REGS[1]), Reg(SCRATCH)
_ZERO = Reg("zero")
_INVERT = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le", "le": "gt", "lo": "hs",
           "hs": "lo", "cc": "cs", "cs": "cc", "hi": "ls", "ls": "hi", "mi": "pl", "pl": "mi"}


@dataclass
class Translation:
    """The RV64 program and, per AArch64 function, the block alignment: for each source
    block (in :func:`~archsim.compilers.asm.blocks.basic_blocks` order) the slice
    ``lines[start:end]`` of the translated function that it became (after its labels);
    ``instr_spans`` the same per source instruction."""

    program: Program
    alignment: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    instr_spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def _fits12(v: int) -> bool:
    return -2048 <= v < 2048


class _Emitter:
    def __init__(self, fn: Function, file: str) -> None:
        self.fn, self.file = fn, file
        self.out: list[Line] = []
        self.n_labels = 0
        self.cur: Instr = Instr("nop")
        self.flag_bits = 64
        self.after: list[Instr] = []

    # ----------------------------------------------------------------- helpers
    def err(self, what: str) -> DSLError:
        return DSLError(f"{self.cur.mnemonic}: {what}", filename=self.cur.file,
                        lineno=self.cur.line)

    def emit(self, mnemonic: str, *ops: object) -> None:
        self.out.append(Instr(mnemonic, tuple(ops), self.cur.line, self.file))  # type: ignore[arg-type]

    def label(self) -> str:
        self.n_labels += 1
        return f".Lbt_{self.fn.name}_{self.n_labels}"

    def place(self, name: str) -> None:
        self.out.append(LabelDef(name, self.cur.line))

    def reg(self, op: object) -> Reg:
        if not isinstance(op, Reg):
            raise self.err(f"expected a register, got {op}")
        if op.name not in REG_MAP:
            raise self.err(f"register {op} has no RV64 image in the fixed map")
        return Reg(REG_MAP[op.name])

    def zext32(self, rd: Reg) -> None:
        if rd.name != "zero":
            self.emit("slli", rd, rd, Imm(32))
            self.emit("srli", rd, rd, Imm(32))

    def li(self, rd: Reg, value: int, bits: int) -> None:
        value &= (1 << bits) - 1
        if bits == 64 and value >> 63:
            value -= 1 << 64
        self.emit("li", rd, Imm(value))

    def op2(self, ops: tuple[object, ...], bits: int, into: Reg = _T) -> Reg:
        """Put a flexible second operand's value in a register (``into`` unless it is a plain
        register already); the low ``bits`` bits are what counts."""
        src = ops[0]
        mod = ops[1] if len(ops) > 1 else None
        if isinstance(src, Imm):
            value = src.value << (mod.amount if isinstance(mod, Shift) else 0)
            if value == 0:
                return _ZERO
            self.li(into, value, bits)
            return into
        r = self.reg(src)
        if mod is None:
            return r
        if not isinstance(mod, Shift):
            raise self.err(f"bad operand modifier {mod}")
        if mod.op in ("lsl", "lsr", "asr"):
            if mod.amount == 0:
                return r
            if bits == 32 and mod.op != "lsl":
                self.emit({"lsr": "srliw", "asr": "sraiw"}[mod.op], into, r, Imm(mod.amount))
            else:
                self.emit({"lsl": "slli", "lsr": "srli", "asr": "srai"}[mod.op], into, r,
                          Imm(mod.amount))
            return into
        if mod.op in ("sxtw", "uxtw", "sxth", "uxth", "sxtb", "uxtb", "sxtx", "uxtx"):
            width = {"b": 8, "h": 16, "w": 32, "x": 64}[mod.op[3]]
            if width == 64:
                src_reg = r
            elif mod.op == "uxtb":
                self.emit("andi", into, r, Imm(255))
                src_reg = into
            else:
                self.emit("slli", into, r, Imm(64 - width))
                self.emit("srai" if mod.op[0] == "s" else "srli", into, into, Imm(64 - width))
                src_reg = into
            if mod.amount:
                self.emit("slli", into, src_reg, Imm(mod.amount))
                return into
            return src_reg
        raise self.err(f"unsupported operand modifier {mod}")

    def set_flags(self, lhs: Reg, rhs_ops: tuple[object, ...], bits: int, negate: bool) -> None:
        """t4/t5 := the operands of an equivalent compare (``cmp lhs, rhs`` or, for
        ``cmn``, ``cmp lhs, -rhs``)."""
        rhs = self.op2(rhs_ops, bits, into=_FR)
        if bits == 32:
            self.emit("sext.w", _FR, rhs)
        elif rhs != _FR:
            self.emit("mv", _FR, rhs)
        if negate:
            self.emit("neg", _FR, _FR)
            if bits == 32:
                self.emit("sext.w", _FR, _FR)
        self.emit("sext.w" if bits == 32 else "mv", _FL, lhs)
        self.flag_bits = bits

    def branch_if(self, code: str, target: str) -> None:
        t = Sym(target)
        simple = {"eq": ("beq", _FL, _FR), "ne": ("bne", _FL, _FR), "lt": ("blt", _FL, _FR),
                  "ge": ("bge", _FL, _FR), "gt": ("blt", _FR, _FL), "le": ("bge", _FR, _FL),
                  "lo": ("bltu", _FL, _FR), "cc": ("bltu", _FL, _FR), "hs": ("bgeu", _FL, _FR),
                  "cs": ("bgeu", _FL, _FR), "hi": ("bltu", _FR, _FL), "ls": ("bgeu", _FR, _FL)}
        if code in simple:
            m, a, b = simple[code]
            self.emit(m, a, b, t)
        elif code in ("mi", "pl"):
            self.emit("subw" if self.flag_bits == 32 else "sub", _T, _FL, _FR)
            self.emit("bltz" if code == "mi" else "bgez", _T, t)
        elif code == "al":
            self.emit("j", t)
        else:
            raise self.err(f"condition {code!r} has no compare form")

    def cond_value(self, code: str, rd: Reg) -> None:
        """rd := 1 if the condition holds, else 0."""
        invert = code in ("ge", "le", "hs", "cs", "ls", "pl")
        base = _INVERT[code] if invert else code
        if base == "eq" or base == "ne":
            self.emit("sub", rd, _FL, _FR)
            self.emit("seqz" if base == "eq" else "snez", rd, rd)
        elif base in ("lt", "gt"):
            self.emit("slt", rd, *((_FL, _FR) if base == "lt" else (_FR, _FL)))
        elif base in ("lo", "cc", "hi"):
            self.emit("sltu", rd, *((_FR, _FL) if base == "hi" else (_FL, _FR)))
        elif base == "mi":
            self.emit("subw" if self.flag_bits == 32 else "sub", rd, _FL, _FR)
            self.emit("sltz", rd, rd)
        else:
            raise self.err(f"condition {code!r} has no compare form")
        if invert:
            self.emit("xori", rd, rd, Imm(1))

    def select(self, rd: Reg, rn: Reg, rm: Reg, code: str, other: str, bits: int) -> None:
        """rd := cond ? rn : f(rm), f by ``other`` (mv/addi1/not/neg)."""
        yes, done = self.label(), self.label()
        self.branch_if(code, yes)
        if other == "mv":
            self.emit("mv", _T, rm)
        elif other == "inc":
            self.emit("addi", _T, rm, Imm(1))
        elif other == "not":
            self.emit("not", _T, rm)
        else:
            self.emit("neg", _T, rm)
        self.emit("j", Sym(done))
        self.place(yes)
        self.emit("mv", _T, rn)
        self.place(done)
        self.emit("mv", rd, _T)
        if bits == 32:
            self.zext32(rd)

    def address(self, mem: Mem) -> tuple[Reg, int]:
        """(base register, 12-bit offset) of an access; write-back is done by the caller."""
        base = self.reg(Reg(mem.base.name, 64))
        if mem.index is not None:
            idx = self.op2((mem.index, mem.shift) if mem.shift else (mem.index,), 64)
            self.emit("add", _T, base, idx)
            return _T, 0
        if mem.mode != "offset":
            return base, 0
        if _fits12(mem.offset):
            return base, mem.offset
        self.li(_T, mem.offset, 64)
        self.emit("add", _T, base, _T)
        return _T, 0

    # ------------------------------------------------------------ instructions
    def translate(self, ins: Instr) -> None:  # noqa: C901 - one rule per mnemonic
        self.cur = ins
        m, ops = ins.mnemonic, ins.operands
        if m == "nop":
            self.emit("nop")
            return
        if m == "b":
            self.emit("j", ops[0])
            return
        if m.startswith("b."):
            target = ops[0]
            assert isinstance(target, Sym)
            self.branch_if(m[2:], target.name)
            return
        if m == "bl":
            self.emit("call", ops[0])
            return
        if m == "ret":
            self.emit("ret")
            return
        if m == "br":
            self.emit("jr", self.reg(ops[0]))
            return
        if m == "blr":
            self.emit("jalr", self.reg(ops[0]))
            return
        if m in ("cbz", "cbnz"):
            r = ops[0]
            assert isinstance(r, Reg)
            rr = self.reg(r)
            if r.bits == 32:
                self.emit("slli", _T, rr, Imm(32))
                rr = _T
            self.emit("beqz" if m == "cbz" else "bnez", rr, ops[1])
            return
        if m in ("tbz", "tbnz"):
            bit = ops[1]
            assert isinstance(bit, Imm)
            self.emit("slli", _T, self.reg(ops[0]), Imm(63 - bit.value))
            self.emit("bgez" if m == "tbz" else "bltz", _T, ops[2])
            return
        if m in ("cmp", "cmn", "tst"):
            rn = ops[0]
            assert isinstance(rn, Reg)
            if m == "tst":
                self.emit("and", _FL, self.reg(rn), self.op2(ops[1:], rn.bits))
                if rn.bits == 32:
                    self.emit("sext.w", _FL, _FL)
                self.emit("mv", _FR, _ZERO)
                self.flag_bits = rn.bits
            else:
                self.set_flags(self.reg(rn), ops[1:], rn.bits, negate=m == "cmn")
            return
        if m in ("ccmp", "ccmn"):
            self.ccmp(ins)
            return
        loads = {"ldr": None, "ldur": None, "ldrb": "lbu", "ldurb": "lbu", "ldrh": "lhu",
                 "ldrsb": "lb", "ldrsh": "lh", "ldrsw": "lw"}
        stores = {"str": None, "stur": None, "strb": "sb", "sturb": "sb", "strh": "sh"}
        if m in loads or m in stores:
            rt, mem = ops[0], ops[1]
            assert isinstance(rt, Reg) and isinstance(mem, Mem)
            rv = loads.get(m) or stores.get(m) or (
                ("ld" if rt.bits == 64 else "lwu") if m in loads else
                ("sd" if rt.bits == 64 else "sw"))
            base, off = self.address(mem)
            if mem.mode == "pre":
                self.emit("addi", base, base, Imm(mem.offset))
            self.emit(rv, self.reg(rt), Mem(base, off))
            if m in ("ldrsb", "ldrsh") and rt.bits == 32:
                self.zext32(self.reg(rt))
            if mem.mode == "post":
                self.emit("addi", base, base, Imm(mem.offset))
            return
        if m in ("ldp", "stp"):
            r1, r2, mem = ops
            assert isinstance(r1, Reg) and isinstance(r2, Reg) and isinstance(mem, Mem)
            size = r1.bits // 8
            rv = {("ldp", 8): "ld", ("ldp", 4): "lwu", ("stp", 8): "sd", ("stp", 4): "sw"}[
                (m, size)]
            base, off = self.address(mem)
            if mem.mode == "pre":
                self.emit("addi", base, base, Imm(mem.offset))
            if not _fits12(off + size):
                raise self.err(f"pair offset {off} out of range")
            pair = [(self.reg(r1), off), (self.reg(r2), off + size)]
            if m == "ldp" and pair[0][0] == base:
                pair.reverse()  # the first register is the base: load it last
            for r, o in pair:
                self.emit(rv, r, Mem(base, o))
            if mem.mode == "post":
                self.emit("addi", base, base, Imm(mem.offset))
            return
        self.alu(ins)

    def ccmp(self, ins: Instr) -> None:
        """``ccmp rn, op2, #nzcv, cond``: compare if cond holds, else set the flags to nzcv,
        realized as a compare of two constants that produces those flags."""
        rn, nzcv, cond = ins.operands[0], ins.operands[2], ins.operands[3]
        assert isinstance(rn, Reg) and isinstance(nzcv, Imm) and isinstance(cond, Cond)
        pair = _NZCV_PAIRS[rn.bits].get(nzcv.value)
        if pair is None:
            pair = self.equivalent_pair(nzcv.value, rn.bits)
        if pair is None:
            raise self.err(f"no compare produces flags nzcv={nzcv.value}")
        if cond.code not in _INVERT:
            raise self.err(f"condition {cond.code!r} has no compare form")
        otherwise, done = self.label(), self.label()
        self.branch_if(_INVERT[cond.code], otherwise)
        self.set_flags(self.reg(rn), ins.operands[1:2], rn.bits, negate=ins.mnemonic == "ccmn")
        self.emit("j", Sym(done))
        self.place(otherwise)
        self.li(_FL, pair[0], 64)
        self.li(_FR, pair[1], 64)
        self.place(done)
        self.flag_bits = rn.bits

    def equivalent_pair(self, nzcv: int, bits: int) -> tuple[int, int] | None:
        """A compare pair whose flags agree with ``nzcv`` on every condition the rest of the
        block reads before the flags are set again (None if the flags outlive the block)."""
        conds: list[str] = []
        for ins in self.after:
            m = ins.mnemonic
            if m.startswith("b."):
                conds.append(m[2:])
                return _pair_for(nzcv, conds, bits)
            cond = next((o.code for o in ins.operands if isinstance(o, Cond)), None)
            if cond is not None:
                conds.append(cond)
            if m in _FLAG_SETTERS:
                return _pair_for(nzcv, conds, bits)
        return None

    def alu(self, ins: Instr) -> None:  # noqa: C901 - one rule per mnemonic
        m, ops = ins.mnemonic, ins.operands
        rd_a64 = ops[0]
        if not isinstance(rd_a64, Reg):
            raise self.err("destination must be a register")
        bits = rd_a64.bits
        rd = self.reg(rd_a64)
        w = bits == 32
        if m in ("add", "sub", "adds", "subs"):
            rn = self.reg(ops[1])
            if m in ("adds", "subs"):
                # t4/t5 := (rn, op2) for subs, (rn, -op2) for adds: the result is t4 - t5
                self.set_flags(rn, ops[2:], bits, negate=m == "adds")
                self.emit("sub", rd, _FL, _FR)
            else:
                src = ops[2]
                if isinstance(src, Imm) and len(ops) == 3 and _fits12(
                        src.value if m == "add" else -src.value):
                    self.emit("addi", rd, rn, Imm(src.value if m == "add" else -src.value))
                elif isinstance(src, Imm) and len(ops) == 4 and isinstance(ops[3], Shift) \
                        and _fits12(src.value << ops[3].amount):
                    v = src.value << ops[3].amount
                    self.emit("addi", rd, rn, Imm(v if m == "add" else -v))
                else:
                    self.emit(m, rd, rn, self.op2(ops[2:], bits))
            if w:
                self.zext32(rd)
        elif m in ("and", "ands", "orr", "eor"):
            rn = self.reg(ops[1])
            src = ops[2]
            rv = {"and": "and", "ands": "and", "orr": "or", "eor": "xor"}[m]
            if isinstance(src, Imm) and len(ops) == 3 and _fits12(src.value):
                self.emit(rv + "i", rd, rn, Imm(src.value))
            else:
                self.emit(rv, rd, rn, self.op2(ops[2:], bits))
            if w:
                self.zext32(rd)
            if m == "ands":
                self.emit("sext.w" if w else "mv", _FL, rd)
                self.emit("mv", _FR, _ZERO)
                self.flag_bits = bits
        elif m in ("bic", "orn", "eon"):
            rn = self.reg(ops[1])
            self.emit("not", _T, self.op2(ops[2:], bits))
            self.emit({"bic": "and", "orn": "or", "eon": "xor"}[m], rd, rn, _T)
            if w:
                self.zext32(rd)
        elif m == "mvn":
            self.emit("not", rd, self.op2(ops[1:], bits))
            if w:
                self.zext32(rd)
        elif m in ("mov", "movz", "movn"):
            src = ops[1]
            if isinstance(src, Imm):
                v = src.value << (ops[2].amount if len(ops) > 2 and isinstance(ops[2], Shift) else 0)
                self.li(rd, ~v if m == "movn" else v, bits)
            else:
                self.emit("mv", rd, self.reg(src))
                if w:
                    self.zext32(rd)
        elif m == "movk":
            imm = ops[1]
            sh = ops[2].amount if len(ops) > 2 and isinstance(ops[2], Shift) else 0
            assert isinstance(imm, Imm)
            self.li(_T, ~(0xFFFF << sh), bits)
            self.emit("and", rd, rd, _T)
            self.li(_T, imm.value << sh, bits)
            self.emit("or", rd, rd, _T)
        elif m in ("neg", "negs"):
            if m == "negs":
                raise self.err("negs is not translated")
            self.emit("neg", rd, self.op2(ops[1:], bits))
            if w:
                self.zext32(rd)
        elif m in ("mul", "mneg", "smulh", "umulh"):
            rn, rm = self.reg(ops[1]), self.reg(ops[2])
            self.emit({"mul": "mul", "mneg": "mul", "smulh": "mulh", "umulh": "mulhu"}[m],
                      rd, rn, rm)
            if m == "mneg":
                self.emit("neg", rd, rd)
            if w:
                self.zext32(rd)
        elif m in ("madd", "msub"):
            rn, rm, ra = self.reg(ops[1]), self.reg(ops[2]), self.reg(ops[3])
            self.emit("mul", _T, rn, rm)
            self.emit("add" if m == "madd" else "sub", rd, ra, _T)
            if w:
                self.zext32(rd)
        elif m in ("sdiv", "udiv"):
            rn, rm = self.reg(ops[1]), self.reg(ops[2])
            ok = self.label()
            rv = {("sdiv", 64): "div", ("udiv", 64): "divu", ("sdiv", 32): "divw",
                  ("udiv", 32): "divuw"}[(m, bits)]
            self.emit(rv, _T, rn, rm)
            if w:
                self.emit("slli", _FR, rm, Imm(32))  # is the divisor's low word zero?
                self.emit("bnez", _FR, Sym(ok))
            else:
                self.emit("bnez", rm, Sym(ok))
            self.emit("li", _T, Imm(0))  # AArch64 division by zero gives 0 (RV64: -1)
            self.place(ok)
            self.emit("mv", rd, _T)
            if w:
                self.zext32(rd)
        elif m in ("lsl", "lsr", "asr", "ror"):
            rn = self.reg(ops[1])
            amt = ops[2]
            if m == "ror":
                if w or not isinstance(amt, Imm):
                    raise self.err("only 64-bit ror by an immediate is translated")
                s = amt.value % 64
                self.emit("srli", _T, rn, Imm(s))
                self.emit("slli", rd, rn, Imm((64 - s) % 64))
                self.emit("or", rd, rd, _T)
                return
            suffix = "w" if w else ""
            base = {"lsl": "sll", "lsr": "srl", "asr": "sra"}[m]
            if isinstance(amt, Imm):
                self.emit(base + "i" + suffix, rd, rn, Imm(amt.value))
            else:
                self.emit(base + suffix, rd, rn, self.reg(amt))
            if w:
                self.zext32(rd)
        elif m in ("sxtw", "sxth", "sxtb", "uxtw", "uxth", "uxtb"):
            src = self.op2((Reg(ops[1].name, 64) if isinstance(ops[1], Reg) else ops[1],
                            Shift(m)), 64, into=rd)
            if src != rd:
                self.emit("mv", rd, src)
            if w:
                self.zext32(rd)
        elif m in ("ubfx", "sbfx", "ubfiz", "sbfiz"):
            rn = self.reg(ops[1])
            lsb_op, width_op = ops[2], ops[3]
            assert isinstance(lsb_op, Imm) and isinstance(width_op, Imm)
            lsb, width = lsb_op.value, width_op.value
            right = "srai" if m[0] == "s" else "srli"
            if m in ("ubfx", "sbfx"):
                self.emit("slli", rd, rn, Imm(64 - lsb - width))
                self.emit(right, rd, rd, Imm(64 - width))
            else:
                self.emit("slli", rd, rn, Imm(64 - width))
                self.emit(right, rd, rd, Imm(64 - width - lsb))
            if w:
                self.zext32(rd)
        elif m in ("csel", "csinc", "csinv", "csneg"):
            cond = ops[3]
            assert isinstance(cond, Cond)
            other = {"csel": "mv", "csinc": "inc", "csinv": "not", "csneg": "neg"}[m]
            self.select(rd, self.reg(ops[1]), self.reg(ops[2]), cond.code, other, bits)
        elif m in ("cinc", "cinv", "cneg"):
            cond = ops[2]
            assert isinstance(cond, Cond)
            rn = self.reg(ops[1])
            other = {"cinc": "inc", "cinv": "not", "cneg": "neg"}[m]
            self.select(rd, rn, rn, _INVERT[cond.code], other, bits)
        elif m in ("cset", "csetm"):
            cond = ops[1]
            assert isinstance(cond, Cond)
            self.cond_value(cond.code, rd)
            if m == "csetm":
                self.emit("neg", rd, rd)
                if w:
                    self.zext32(rd)
        else:
            raise self.err("no translation rule")


def _nzcv_pairs(bits: int) -> dict[int, tuple[int, int]]:
    """For each NZCV value some ``bits``-wide ``cmp a, b`` produces, one such (a, b) as
    sign-extended values (how t4/t5 hold a compare's operands); found by enumerating a few
    boundary constants (cheaper than solving, and exact)."""
    mask = (1 << bits) - 1
    top = 1 << (bits - 1)
    cands = [0, 1, 2, mask, top, top - 1, top + 1]
    pairs: dict[int, tuple[int, int]] = {}
    for a in cands:
        for b in cands:
            r = (a - b) & mask
            n, z, c = int(r >= top), int(r == 0), int(a >= b)
            v = int((a >= top) != (b >= top) and (r >= top) != (a >= top))
            key = n << 3 | z << 2 | c << 1 | v
            pairs.setdefault(key, (a - (1 << bits) if a >= top else a,
                                   b - (1 << bits) if b >= top else b))
    return pairs


_NZCV_PAIRS = {64: _nzcv_pairs(64), 32: _nzcv_pairs(32)}
_FLAG_SETTERS = frozenset({"cmp", "cmn", "tst", "ccmp", "ccmn", "adds", "subs", "ands", "negs"})


def _holds(code: str, nzcv: int) -> bool:
    """Whether AArch64 condition ``code`` holds for flags ``nzcv`` (N=8, Z=4, C=2, V=1)."""
    n, z, c, v = (bool(nzcv & b) for b in (8, 4, 2, 1))
    return {"eq": z, "ne": not z, "cs": c, "hs": c, "cc": not c, "lo": not c, "mi": n,
            "pl": not n, "vs": v, "vc": not v, "hi": c and not z, "ls": not (c and not z),
            "ge": n == v, "lt": n != v, "gt": not z and n == v, "le": not (not z and n == v),
            "al": True}[code]


def _pair_for(nzcv: int, conds: list[str], bits: int) -> tuple[int, int] | None:
    for key, pair in sorted(_NZCV_PAIRS[bits].items()):
        if all(_holds(c, key) == _holds(c, nzcv) for c in conds):
            return pair
    return None


def translate(program: Program) -> Translation:
    """Translate every function of an AArch64 ``program`` to RV64.

    Raises
    ------
    DSLError
        An instruction, register or condition without a rule, naming file, line and
        mnemonic.
    """
    if program.isa != "aarch64":
        raise DSLError(f"the baseline translates aarch64, not {program.isa}",
                       filename=program.file)
    out = Program(isa="riscv64", file=program.file + " (baseline rv64)")
    result = Translation(out)
    for name, fn in program.functions.items():
        em = _Emitter(fn, out.file)
        spans: list[tuple[int, int]] = []
        per_instr: list[tuple[int, int]] = []
        for block in basic_blocks(fn, isa="aarch64"):
            for label in block.labels:
                em.out.append(LabelDef(label))
            start = len(em.out)
            for k, ins in enumerate(block.instrs):
                lo = len(em.out)
                em.after = block.instrs[k + 1:]
                em.translate(ins)
                per_instr.append((lo, len(em.out)))
            spans.append((start, len(em.out)))
        out.functions[name] = Function(name, em.out)
        result.alignment[name] = spans
        result.instr_spans[name] = per_instr
    return result
