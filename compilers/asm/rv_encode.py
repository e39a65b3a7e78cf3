"""A small RV64 assembler for the subset: base integer + M instructions and the pseudo-
instructions gcc and the transpilers write, to 32-bit encodings (no compressed forms).

Hand-written because no PyPI package assembles RISC-V (keystone-engine has no RISC-V
target) and translated code must run without binutils. It follows GNU as where that
matters for bytes (``li`` expansion as binutils' ``load_const``; ``call`` as ``auipc`` +
``jalr`` without relaxation), so it is checked byte-for-byte against the corpus's binutils
output.
"""

from __future__ import annotations

from ...errors import DSLError
from .ir import Imm, Instr, LabelDef, Mem, Program, Reg, Sym
from .parse import rv_reg

__all__ = ["assemble", "Assembled"]

_OP, _OP_IMM, _OP_32, _OP_IMM_32 = 0x33, 0x13, 0x3B, 0x1B
_LOAD, _STORE, _BRANCH, _JAL, _JALR, _LUI, _AUIPC = 0x03, 0x23, 0x63, 0x6F, 0x67, 0x37, 0x17
_R = {"add": (0, 0), "sub": (0, 0x20), "sll": (1, 0), "slt": (2, 0), "sltu": (3, 0),
      "xor": (4, 0), "srl": (5, 0), "sra": (5, 0x20), "or": (6, 0), "and": (7, 0),
      "mul": (0, 1), "mulh": (1, 1), "mulhsu": (2, 1), "mulhu": (3, 1), "div": (4, 1),
      "divu": (5, 1), "rem": (6, 1), "remu": (7, 1)}
_R32 = {"addw": (0, 0), "subw": (0, 0x20), "sllw": (1, 0), "srlw": (5, 0), "sraw": (5, 0x20),
        "mulw": (0, 1), "divw": (4, 1), "divuw": (5, 1), "remw": (6, 1), "remuw": (7, 1)}
_I = {"addi": 0, "slti": 2, "sltiu": 3, "xori": 4, "ori": 6, "andi": 7}
_SHIFT_I = {"slli": (1, 0), "srli": (5, 0), "srai": (5, 0x400)}
_SHIFT_I32 = {"slliw": (1, 0), "srliw": (5, 0), "sraiw": (5, 0x400)}
_LOADS = {"lb": 0, "lh": 1, "lw": 2, "ld": 3, "lbu": 4, "lhu": 5, "lwu": 6}
_STORES = {"sb": 0, "sh": 1, "sw": 2, "sd": 3}
_BR = {"beq": 0, "bne": 1, "blt": 4, "bge": 5, "bltu": 6, "bgeu": 7}
_BR_SWAP = {"bgt": "blt", "ble": "bge", "bgtu": "bltu", "bleu": "bgeu"}
_BR_Z = {"beqz": ("beq", False), "bnez": ("bne", False), "bltz": ("blt", False),
         "bgez": ("bge", False), "blez": ("bge", True), "bgtz": ("blt", True)}


class Assembled:
    """Machine code and symbol addresses of an assembled program."""

    def __init__(self, text: bytes, base: int, symbols: dict[str, int]) -> None:
        self.text = text
        self.base = base
        self.symbols = symbols


def _li_seq(value: int) -> list[tuple[str, int]]:
    """GNU as ``load_const`` for RV64: (op, imm) steps, ``op`` in lui/addiw/slli/addi."""
    value &= (1 << 64) - 1
    if value >> 63:
        value -= 1 << 64
    lower = ((value & 0xFFF) ^ 0x800) - 0x800
    upper = value - lower
    if not -(1 << 31) <= value < (1 << 31):
        shift = 12
        while ((upper >> shift) & 1) == 0:
            shift += 1
        steps = _li_seq(upper >> shift) + [("slli", shift)]
        if lower:
            steps.append(("addi", lower))
        return steps
    steps = []
    if upper:
        steps.append(("lui", (upper & 0xFFFFFFFF) >> 12))
    if lower or not upper:
        steps.append(("addiw" if upper else "addiw0", lower))
    return steps


def _size(ins: Instr) -> int:
    if ins.mnemonic == "li":
        imm = ins.operands[1]
        assert isinstance(imm, Imm)
        return 4 * len(_li_seq(imm.value))
    return 8 if ins.mnemonic in ("call", "tail") else 4


def _fits(v: int, bits: int) -> bool:
    return -(1 << (bits - 1)) <= v < (1 << (bits - 1))


class _Enc:
    def __init__(self, ins: Instr, pc: int, labels: dict[str, int]) -> None:
        self.ins, self.pc, self.labels = ins, pc, labels

    def err(self, what: str) -> DSLError:
        return DSLError(f"{self.ins.mnemonic}: {what}", filename=self.ins.file,
                        lineno=self.ins.line)

    def reg(self, k: int) -> int:
        ops = self.ins.operands
        if k >= len(ops) or not isinstance(ops[k], Reg):
            raise self.err(f"operand {k + 1} must be a register")
        reg = ops[k]
        assert isinstance(reg, Reg)
        return rv_reg(reg.name)

    def imm(self, k: int, bits: int) -> int:
        ops = self.ins.operands
        if k >= len(ops) or not isinstance(ops[k], Imm):
            raise self.err(f"operand {k + 1} must be an immediate")
        imm = ops[k]
        assert isinstance(imm, Imm)
        if not _fits(imm.value, bits):
            raise self.err(f"immediate {imm.value} does not fit {bits} signed bits")
        return imm.value

    def mem(self, k: int) -> tuple[int, int]:
        ops = self.ins.operands
        if k >= len(ops) or not isinstance(ops[k], Mem):
            raise self.err(f"operand {k + 1} must be offset(reg)")
        m = ops[k]
        assert isinstance(m, Mem)
        if m.hole is not None:
            raise self.err(f"offset {m.hole} is an unfilled sketch hole")
        if not _fits(m.offset, 12):
            raise self.err(f"offset {m.offset} does not fit 12 signed bits")
        return m.offset, rv_reg(m.base.name)

    def target(self, k: int, bits: int) -> int:
        ops = self.ins.operands
        if k >= len(ops) or not isinstance(ops[k], Sym):
            raise self.err(f"operand {k + 1} must be a label")
        sym = ops[k]
        assert isinstance(sym, Sym)
        if sym.name not in self.labels:
            raise self.err(f"undefined label {sym.name!r}")
        off = self.labels[sym.name] - self.pc
        if not _fits(off, bits):
            raise self.err(f"branch to {sym.name} out of range ({off} bytes)")
        return off


def _r(f7: int, rs2: int, rs1: int, f3: int, rd: int, op: int) -> int:
    return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op


def _i(imm: int, rs1: int, f3: int, rd: int, op: int) -> int:
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op


def _s(imm: int, rs2: int, rs1: int, f3: int, op: int) -> int:
    imm &= 0xFFF
    return ((imm >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((imm & 31) << 7) | op


def _b(off: int, rs2: int, rs1: int, f3: int) -> int:
    o = off & 0x1FFF
    return (((o >> 12) & 1) << 31) | (((o >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | \
        (f3 << 12) | (((o >> 1) & 0xF) << 8) | (((o >> 11) & 1) << 7) | _BRANCH


def _j(off: int, rd: int) -> int:
    o = off & 0x1FFFFF
    return (((o >> 20) & 1) << 31) | (((o >> 1) & 0x3FF) << 21) | (((o >> 11) & 1) << 20) | \
        (((o >> 12) & 0xFF) << 12) | (rd << 7) | _JAL


def _encode(e: _Enc) -> list[int]:  # noqa: C901 - one case per mnemonic
    m, ops = e.ins.mnemonic, e.ins.operands
    if m in _R:
        f3, f7 = _R[m]
        return [_r(f7, e.reg(2), e.reg(1), f3, e.reg(0), _OP)]
    if m in _R32:
        f3, f7 = _R32[m]
        return [_r(f7, e.reg(2), e.reg(1), f3, e.reg(0), _OP_32)]
    if m in _I:
        return [_i(e.imm(2, 12), e.reg(1), _I[m], e.reg(0), _OP_IMM)]
    if m == "addiw":
        return [_i(e.imm(2, 12), e.reg(1), 0, e.reg(0), _OP_IMM_32)]
    if m in _SHIFT_I or m in _SHIFT_I32:
        f3, hi = _SHIFT_I.get(m) or _SHIFT_I32[m]
        limit = 64 if m in _SHIFT_I else 32
        sh = e.imm(2, 8)
        if not 0 <= sh < limit:
            raise e.err(f"shift amount {sh} outside 0..{limit - 1}")
        return [_i(hi | sh, e.reg(1), f3, e.reg(0), _OP_IMM if m in _SHIFT_I else _OP_IMM_32)]
    if m in _LOADS:
        off, base = e.mem(1)
        return [_i(off, base, _LOADS[m], e.reg(0), _LOAD)]
    if m in _STORES:
        off, base = e.mem(1)
        return [_s(off, e.reg(0), base, _STORES[m], _STORE)]
    if m in _BR:
        return [_b(e.target(2, 13), e.reg(1), e.reg(0), _BR[m])]
    if m in _BR_SWAP:
        return [_b(e.target(2, 13), e.reg(0), e.reg(1), _BR[_BR_SWAP[m]])]
    if m in _BR_Z:
        base_op, swap = _BR_Z[m]
        rs = e.reg(0)
        off = e.target(1, 13)
        return [_b(off, rs, 0, _BR[base_op]) if swap else _b(off, 0, rs, _BR[base_op])]
    if m == "lui":
        upper = e.imm(1, 21)
        return [((upper & 0xFFFFF) << 12) | (e.reg(0) << 7) | _LUI]
    if m == "li":
        rd = e.reg(0)
        imm = ops[1]
        assert isinstance(imm, Imm)
        out = []
        for op, v in _li_seq(imm.value):
            if op == "lui":
                out.append(((v & 0xFFFFF) << 12) | (rd << 7) | _LUI)
            elif op == "addiw0":
                out.append(_i(v, 0, 0, rd, _OP_IMM))  # li of a 12-bit value: addi rd, zero
            elif op == "addiw":
                out.append(_i(v, rd, 0, rd, _OP_IMM_32))
            elif op == "slli":
                out.append(_i(v, rd, 1, rd, _OP_IMM))
            else:
                out.append(_i(v, rd, 0, rd, _OP_IMM))
        return out
    pseudo = {"mv": lambda: [_i(0, e.reg(1), 0, e.reg(0), _OP_IMM)],
              "not": lambda: [_i(-1, e.reg(1), 4, e.reg(0), _OP_IMM)],
              "neg": lambda: [_r(0x20, e.reg(1), 0, 0, e.reg(0), _OP)],
              "negw": lambda: [_r(0x20, e.reg(1), 0, 0, e.reg(0), _OP_32)],
              "sext.w": lambda: [_i(0, e.reg(1), 0, e.reg(0), _OP_IMM_32)],
              "seqz": lambda: [_i(1, e.reg(1), 3, e.reg(0), _OP_IMM)],
              "snez": lambda: [_r(0, e.reg(1), 0, 3, e.reg(0), _OP)],
              "sltz": lambda: [_r(0, 0, e.reg(1), 2, e.reg(0), _OP)],
              "sgtz": lambda: [_r(0, e.reg(1), 0, 2, e.reg(0), _OP)],
              "sgt": lambda: [_r(0, e.reg(1), e.reg(2), 2, e.reg(0), _OP)],
              "sgtu": lambda: [_r(0, e.reg(1), e.reg(2), 3, e.reg(0), _OP)],
              "nop": lambda: [_i(0, 0, 0, 0, _OP_IMM)],
              "ret": lambda: [_i(0, 1, 0, 0, _JALR)],
              "jr": lambda: [_i(0, e.reg(0), 0, 0, _JALR)],
              "j": lambda: [_j(e.target(0, 21), 0)]}
    if m in pseudo:
        return pseudo[m]()
    if m == "jal":
        if len(ops) == 1:
            return [_j(e.target(0, 21), 1)]
        return [_j(e.target(1, 21), e.reg(0))]
    if m == "jalr":
        if len(ops) == 1:
            return [_i(0, e.reg(0), 0, 1, _JALR)]
        off, base = e.mem(1)
        return [_i(off, base, 0, e.reg(0), _JALR)]
    if m in ("call", "tail"):
        off = e.target(0, 32)
        hi = (off + 0x800) >> 12
        lo = off - (hi << 12)
        link = 1 if m == "call" else 6  # tail calls go through t1
        return [((hi & 0xFFFFF) << 12) | (link << 7) | _AUIPC,
                _i(lo, link, 0, 1 if m == "call" else 0, _JALR)]
    raise e.err("not encodable (unsupported RV64 instruction)")


def assemble(program: Program, *, base: int = 0x10000) -> Assembled:
    """Assemble every function of an RV64 ``program`` in order, starting at ``base``.

    Raises
    ------
    DSLError
        An instruction or operand the encoder does not handle, an out-of-range immediate or
        branch, an undefined label; naming file, line and mnemonic.
    """
    if program.isa != "riscv64":
        raise DSLError(f"cannot assemble {program.isa} code (only riscv64)",
                       filename=program.file)
    labels: dict[str, int] = {}
    pc = base
    for name, fn in program.functions.items():
        labels[name] = pc
        for line in fn.lines:
            if isinstance(line, LabelDef):
                labels[line.name] = pc
            else:
                pc += _size(line)
    words: list[int] = []
    pc = base
    for fn in program.functions.values():
        for line in fn.lines:
            if isinstance(line, Instr):
                enc = _encode(_Enc(line, pc, labels))
                words.extend(enc)
                pc += 4 * len(enc)
    text = b"".join(w.to_bytes(4, "little") for w in words)
    return Assembled(text, base, {n: labels[n] for n in program.functions})
