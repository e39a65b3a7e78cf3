"""Regenerate the shipped assembly corpus from ``data/src/*.c`` (the only step that needs apt).

Needs Debian's cross compilers: ``apt-get install -y gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu``.
Each C file is one unit (an entry function named like the file, plus any static helpers). It is
compiled for AArch64 and RV64 at -O0 and -O2 to assembly, assembled and linked at a fixed base
address by the cross binutils, and the ``.text`` bytes with the symbol addresses are written to
``data/corpus.json`` next to the ``.s`` files, so emulation needs no toolchain at run time.

Run: ``python -m archsim.compilers.asm.corpus.regenerate`` (or this file directly).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["main", "TEXT_BASE", "CFLAGS"]

DATA = Path(__file__).resolve().parent / "data"
# Where the linker places .text; the emulator maps the bytes there.
TEXT_BASE = 0x10000
# No PIC/PIE (no GOT), no unwind tables, no libc calls (builtins, loop-to-memset), no vector
# code and no jump tables (so .text is the only section a unit needs).
CFLAGS = ["-S", "-fno-asynchronous-unwind-tables", "-fno-pic", "-fno-pie", "-fno-builtin",
          "-fno-tree-vectorize", "-fno-tree-loop-distribute-patterns", "-fno-jump-tables",
          "-fno-stack-protector", "-fcf-protection=none"]
ISAS = {
    # RV64G: gcc's RV64GC code generation without the compressed encodings, so every shipped
    # instruction is 32 bits and archsim's encoder is checked byte-for-byte against binutils.
    "riscv64": ("riscv64-linux-gnu-", ["-march=rv64g", "-mabi=lp64d", "-mno-relax"]),
    "aarch64": ("aarch64-linux-gnu-", ["-mgeneral-regs-only"]),
}
OPT_LEVELS = ("O0", "O2")
_PROTO = re.compile(r"^(long|unsigned long)\s+(\w+)\s*\(([^)]*)\)", re.M)


def _signature(source: str, name: str) -> dict[str, object]:
    for ret, fname, params in _PROTO.findall(source):
        if fname == name:
            args = []
            for param in params.split(","):
                param = param.strip()
                kind = "ptr_u8" if "char *" in param else "ptr_i64" if "*" in param else (
                    "u64" if param.startswith("unsigned") else "i64")
                args.append([param.split()[-1].lstrip("*"), kind])
            return {"ret": "u64" if ret.startswith("unsigned") else "i64", "args": args}
    raise SystemExit(f"{name}.c: no 'long {name}(...)' entry function")


def _kind(source: str, signature: dict[str, object]) -> str:
    """Difficulty class: 'straight' (no loop), 'loop' (scalar loops), 'memory' (pointer
    arguments or calls to helpers)."""
    args = signature["args"]
    assert isinstance(args, list)
    if "static" in source or any(a[1].startswith("ptr") for a in args):
        return "memory"
    if re.search(r"\b(for|while)\b", re.sub(r"/\*.*?\*/", "", source, flags=re.S)):
        return "loop"
    return "straight"


def _run(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return proc.stdout


def _build(src: Path, isa: str, opt: str, tmp: Path) -> dict[str, object]:
    prefix, flags = ISAS[isa]
    name = src.stem
    asm_rel = f"asm/{isa}-{opt}/{name}.s"
    asm = DATA / asm_rel
    asm.parent.mkdir(parents=True, exist_ok=True)
    _run([prefix + "gcc", f"-{opt}", *CFLAGS, *flags, "-o", str(asm), str(src)], tmp)
    obj, elf, raw = tmp / f"{name}.o", tmp / f"{name}.elf", tmp / f"{name}.bin"
    as_flags = ["-march=rv64g", "-mno-relax"] if isa == "riscv64" else []
    _run([prefix + "as", *as_flags, "-o", str(obj), str(asm)], tmp)
    _run([prefix + "ld", f"-Ttext=0x{TEXT_BASE:x}", "-e", name, "--no-relax", "-o", str(elf),
          str(obj)], tmp)
    sections = _run([prefix + "objdump", "-h", str(elf)], tmp)
    for line in sections.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] in (".data", ".rodata", ".bss", ".sdata", ".srodata") \
                and int(fields[2], 16) > 0:
            raise SystemExit(f"{asm_rel}: needs section {fields[1]}; only .text is supported")
    _run([prefix + "objcopy", "-O", "binary", "--only-section=.text", str(elf), str(raw)], tmp)
    symbols = {}
    for line in _run([prefix + "nm", str(elf)], tmp).splitlines():
        addr, typ, sym = line.split()
        if typ in "tT":
            symbols[sym] = int(addr, 16)
    return {"asm": asm_rel, "text_hex": raw.read_bytes().hex(), "base": TEXT_BASE,
            "symbols": symbols}


def main() -> None:
    """Compile every ``data/src/*.c`` and write ``data/corpus.json``."""
    units = []
    by_kind: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for src in sorted((DATA / "src").glob("*.c")):
            source = src.read_text()
            signature = _signature(source, src.stem)
            kind = _kind(source, signature)
            # Every other unit of a class (in name order) is held out for that class's test set.
            index = by_kind.get(kind, 0)
            by_kind[kind] = index + 1
            split = {"straight": "test1", "loop": "test2", "memory": "test3"}[kind] \
                if index % 2 == 0 else "train"
            variants = {f"{isa}-{opt}": _build(src, isa, opt, tmp)
                        for isa in ISAS for opt in OPT_LEVELS}
            units.append({"name": src.stem, "kind": kind, "split": split,
                          "signature": signature, "source": f"src/{src.name}",
                          "variants": variants})
            print(f"{src.stem:24s} {kind:8s} {split}", file=sys.stderr)
    (DATA / "corpus.json").write_text(json.dumps({"text_base": TEXT_BASE, "cflags": CFLAGS,
                                                  "units": units}, indent=1) + "\n")


if __name__ == "__main__":
    main()
