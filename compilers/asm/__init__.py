"""ISA-to-ISA transpilation of assembly (AArch64 -> RV64): the corpus, parsers, emulation
(unicorn), symbolic block semantics (z3) and the transpilers."""

__all__: list[str] = []
