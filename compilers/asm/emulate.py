"""Run a function's machine code on concrete inputs with the unicorn emulator.

The code (a linked ``.text``) is mapped at its base address, a stack is set up, each pointer
argument gets its own buffer, arguments go into the ISA's argument registers and the return
address points at a halt address: the run ends when the function returns there. The result
is the return register and the final contents of every buffer, so two translations of one
function compare by :meth:`RunResult.same_as`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from ...errors import ConfigError, ToolchainError
from .ir import ISAS

__all__ = ["Inputs", "RunResult", "run_function", "random_inputs", "ARG_KINDS",
           "STACK_TOP", "BUFFER_BASE", "BUFFER_BYTES", "HALT_ADDR", "MAX_INSTRUCTIONS"]

#: Argument kinds of the corpus signatures.
ARG_KINDS = ("i64", "u64", "ptr_i64", "ptr_u8")
#: Where the function returns to: a mapped page of no code the run stops at.
HALT_ADDR = 0x8000
#: Top of the 64 KiB stack (16-byte aligned, as both ABIs require).
STACK_TOP = 0x7FFF0000
_STACK_BYTES = 0x10000
#: The first pointer argument's buffer; each next one is BUFFER_BYTES further.
BUFFER_BASE = 0x20000000
#: Size of each pointer argument's buffer.
BUFFER_BYTES = 0x1000
#: Instruction budget of one run: a run that does not return within it did not terminate
#: (a wrong translation can loop forever).
MAX_INSTRUCTIONS = 2_000_000
_PAGE = 0x1000
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class Inputs:
    """Concrete inputs of one call: integer arguments (pointer arguments are ``None`` and get
    the next buffer's address) and the initial bytes of each buffer, in argument order."""

    args: tuple[int | None, ...]
    buffers: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class RunResult:
    """What one run left: ``status`` ``"ok"``, ``"fault"`` (bad memory access or
    instruction) or ``"timeout"``; the return register (64-bit unsigned); the buffers."""

    status: str
    ret: int
    buffers: tuple[bytes, ...]
    message: str = ""

    def same_as(self, other: RunResult) -> bool:
        """True when both returned normally with equal return values and buffers."""
        return (self.status == other.status == "ok" and self.ret == other.ret
                and self.buffers == other.buffers)


def _unicorn() -> ModuleType:
    try:
        import unicorn
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ToolchainError("emulation needs the unicorn emulator",
                             install="archsim[asm] (pip install unicorn==2.1.4)") from exc
    return unicorn


def run_function(*, isa: str, text: bytes, base: int, entry: int, inputs: Inputs,
                 max_instructions: int = MAX_INSTRUCTIONS) -> RunResult:
    """Run the function at ``entry`` of ``text`` (mapped at ``base``) on ``inputs``.

    Parameters
    ----------
    isa : str
        ``"aarch64"`` or ``"riscv64"``.
    text : bytes
        Machine code.
    base : int
        Address of ``text[0]``.
    entry : int
        Address of the function.
    inputs : Inputs
        Arguments and buffers.
    max_instructions : int
        Budget after which the run is a ``"timeout"``.

    Returns
    -------
    RunResult
    """
    if isa not in ISAS:
        raise ConfigError(f"unknown ISA {isa!r}", field="isa", allowed=ISAS)
    if len(inputs.args) > 8:
        raise ConfigError(f"{len(inputs.args)} arguments; at most 8 pass in registers",
                          field="args")
    uc_mod = _unicorn()
    from unicorn import arm64_const as a64
    from unicorn import riscv_const as rv

    if isa == "aarch64":
        uc = uc_mod.Uc(uc_mod.UC_ARCH_ARM64, uc_mod.UC_MODE_ARM)
        arg_regs = [a64.UC_ARM64_REG_X0 + i for i in range(8)]
        ret_reg, sp_reg, ra_reg = a64.UC_ARM64_REG_X0, a64.UC_ARM64_REG_SP, a64.UC_ARM64_REG_X30
        pc_reg = a64.UC_ARM64_REG_PC
    else:
        uc = uc_mod.Uc(uc_mod.UC_ARCH_RISCV, uc_mod.UC_MODE_RISCV64)
        arg_regs = [rv.UC_RISCV_REG_A0 + i for i in range(8)]
        ret_reg, sp_reg, ra_reg = rv.UC_RISCV_REG_A0, rv.UC_RISCV_REG_SP, rv.UC_RISCV_REG_RA
        pc_reg = rv.UC_RISCV_REG_PC
    start = base & ~(_PAGE - 1)
    size = ((base + len(text) - start) + _PAGE - 1) & ~(_PAGE - 1)
    uc.mem_map(start, max(size, _PAGE))
    uc.mem_write(base, text)
    uc.mem_map(HALT_ADDR, _PAGE)
    uc.mem_map(STACK_TOP - _STACK_BYTES, _STACK_BYTES)
    n_buf = sum(a is None for a in inputs.args)
    if n_buf != len(inputs.buffers):
        raise ConfigError(f"{n_buf} pointer arguments but {len(inputs.buffers)} buffers",
                          field="buffers")
    if n_buf:
        uc.mem_map(BUFFER_BASE, n_buf * BUFFER_BYTES)
    buf_index = 0
    for reg, arg in zip(arg_regs, inputs.args, strict=False):
        if arg is None:
            addr = BUFFER_BASE + buf_index * BUFFER_BYTES
            data = inputs.buffers[buf_index]
            if len(data) > BUFFER_BYTES:
                raise ConfigError(f"buffer {buf_index} has {len(data)} bytes, at most "
                                  f"{BUFFER_BYTES}", field="buffers")
            uc.mem_write(addr, data)
            uc.reg_write(reg, addr)
            buf_index += 1
        else:
            uc.reg_write(reg, arg & _MASK64)
    uc.reg_write(sp_reg, STACK_TOP)
    uc.reg_write(ra_reg, HALT_ADDR)
    status, message = "ok", ""
    try:
        uc.emu_start(entry, HALT_ADDR, count=max_instructions)
    except uc_mod.UcError as exc:
        status, message = "fault", f"{exc} at pc=0x{uc.reg_read(pc_reg):x}"
    if status == "ok" and uc.reg_read(pc_reg) != HALT_ADDR:
        status, message = "timeout", f"no return within {max_instructions} instructions"
    buffers = tuple(bytes(uc.mem_read(BUFFER_BASE + i * BUFFER_BYTES, len(b)))
                    for i, b in enumerate(inputs.buffers))
    return RunResult(status, uc.reg_read(ret_reg) & _MASK64, buffers, message)


def random_inputs(args: Sequence[tuple[str, str]], *, rng: np.random.Generator) -> Inputs:
    """Random inputs for a corpus signature (``(name, kind)`` pairs).

    Ranges (assumed; they keep every corpus function terminating quickly while exercising
    signs, zero and overflow): an ``i64`` named ``n`` (a count) is in [0, 12]; ``u``/``v``
    in [0, 5000]; other ``i64`` in [-1000, 1000]; a ``u64`` is any 64-bit value half of the
    time, else in [0, 1000]; a ``ptr_i64`` buffer holds 16 values in [-1000, 1000]; a
    ``ptr_u8`` buffer 64 bytes, mostly ASCII letters, with a zero byte now and then.
    """
    values: list[int | None] = []
    buffers: list[bytes] = []
    for name, kind in args:
        if kind not in ARG_KINDS:
            raise ConfigError(f"argument {name!r} has unknown kind {kind!r}", field="args",
                              allowed=ARG_KINDS)
        if kind == "ptr_i64":
            values.append(None)
            buffers.append(rng.integers(-1000, 1001, size=16).astype("<i8").tobytes())
        elif kind == "ptr_u8":
            values.append(None)
            data = rng.integers(ord("A"), ord("z") + 1, size=64).astype(np.uint8)
            data[rng.random(64) < 0.05] = 0
            buffers.append(data.tobytes())
        elif kind == "u64":
            wide = rng.random() < 0.5
            values.append(int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2))
                          if wide else int(rng.integers(0, 1001)))
        elif name == "n":
            values.append(int(rng.integers(0, 13)))
        elif name in ("u", "v"):
            values.append(int(rng.integers(0, 5001)))
        else:
            values.append(int(rng.integers(-1000, 1001)))
    return Inputs(tuple(values), tuple(buffers))
