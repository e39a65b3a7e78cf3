"""Guess & Sketch (Lee et al., ICLR 2024): AArch64 -> RV64 assembly transpilation by a
learned guesser, solver repair of its low-confidence blocks, and an engineered rule-based
baseline, scored by emulated execution on three test sets (see README.md)."""

from .study import PUBLISHED_GAIN_PCT, run

__all__ = ["PUBLISHED_GAIN_PCT", "run"]
