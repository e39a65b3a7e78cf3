"""The shipped AArch64/RV64 assembly corpus: C sources, gcc's assembly and linked ``.text``
bytes (``data/``, see its README), and the script that regenerates them (``regenerate.py``).

:func:`load_corpus` reads ``data/corpus.json`` into :class:`Unit` objects.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ....errors import ConfigError
from ..ir import Program
from ..parse import parse

__all__ = ["DATA", "SPLITS", "VARIANTS", "Variant", "Unit", "load_corpus"]

DATA = Path(__file__).resolve().parent / "data"
#: The corpus splits; the test sets are ordered by difficulty (see the README).
SPLITS = ("train", "test1", "test2", "test3")
#: The compiled variants of every unit.
VARIANTS = ("aarch64-O0", "aarch64-O2", "riscv64-O0", "riscv64-O2")


@dataclass(frozen=True)
class Variant:
    """One unit compiled for one ISA at one -O level: its assembly and linked ``.text``."""

    isa: str
    opt: str
    asm_path: str
    text: bytes
    base: int
    symbols: dict[str, int]

    @property
    def asm(self) -> str:
        """The assembly source gcc wrote."""
        return (DATA / self.asm_path).read_text()

    def program(self) -> Program:
        """The parsed assembly."""
        return parse(self.asm, isa=self.isa, file=self.asm_path)


@dataclass(frozen=True)
class Unit:
    """One C unit: its entry function's name and signature, class, split and variants.

    ``args`` are ``(name, kind)`` pairs, kind one of ``i64``, ``u64``, ``ptr_i64``,
    ``ptr_u8``; ``ret`` is ``i64`` or ``u64``.
    """

    name: str
    kind: str
    split: str
    ret: str
    args: tuple[tuple[str, str], ...]
    source_path: str
    variants: dict[str, Variant]

    @property
    def source(self) -> str:
        """The C source."""
        return (DATA / self.source_path).read_text()


@cache
def _load() -> tuple[Unit, ...]:
    raw = json.loads((DATA / "corpus.json").read_text())
    units = []
    for u in raw["units"]:
        variants = {}
        for key, v in u["variants"].items():
            isa, opt = key.split("-")
            variants[key] = Variant(isa, opt, v["asm"], bytes.fromhex(v["text_hex"]), v["base"],
                                    dict(v["symbols"]))
        sig = u["signature"]
        units.append(Unit(u["name"], u["kind"], u["split"], sig["ret"],
                          tuple((a[0], a[1]) for a in sig["args"]), u["source"], variants))
    return tuple(units)


def load_corpus(split: str | None = None) -> list[Unit]:
    """The corpus units, all or those of one split (``train``, ``test1``..``test3``)."""
    if split is not None and split not in SPLITS:
        raise ConfigError(f"unknown corpus split {split!r}", field="split", allowed=SPLITS)
    return [u for u in _load() if split is None or u.split == split]
