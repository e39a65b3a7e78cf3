"""Scoring GUESS and Guess & Sketch on one test set, with the cause of every failure.

Shared by the study (:mod:`.study`) and the variant runs (:mod:`.variants`), so both count
the same way: a function is correct when it agrees with the AArch64 source on every random
input the source returns on (:func:`~archsim.compilers.asm.evaluate.execution_equivalent`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ....compilers.asm.corpus import Unit
from ....compilers.asm.evaluate import execution_equivalent
from ....compilers.asm.guess import GuessModel
from ....compilers.asm.sketch import SketchOptions, sketch, unflagged_failures

__all__ = ["SplitScore", "score_guess_sketch"]


@dataclass
class SplitScore:
    """GUESS and Guess & Sketch on one test set: functions correct, sketch block counts,
    one row per failure cause (``failures``), the first cause of each failed function
    (``first_causes``), a few examples, and the sketch's wall time."""

    functions: int = 0
    guess: int = 0
    guess_sketch: int = 0
    flagged: int = 0
    fixed: int = 0
    carried: int = 0
    failures: list[dict[str, object]] = field(default_factory=list)
    first_causes: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, object]] = field(default_factory=list)
    sketch_s: float = 0.0


def score_guess_sketch(model: GuessModel, units: Sequence[Unit], split: str, *,
                       n_inputs: int, seed: int, options: SketchOptions | None = None,
                       max_examples: int = 6) -> SplitScore:
    """Translate each unit at -O0 and -O2 with GUESS, repair with SKETCH, score both by
    emulation, and classify why each Guess & Sketch failure failed."""
    score = SplitScore()
    for k, unit in enumerate(units):
        for opt in ("O0", "O2"):
            src = unit.variants[f"aarch64-{opt}"].program()
            guess = model.translate(src)
            t0 = time.perf_counter()
            sk = sketch(model, src, guess, options=options)
            score.sketch_s += time.perf_counter() - t0
            score.functions += 1
            score.flagged += sk.flagged
            score.fixed += sk.fixed
            score.carried += sk.carried
            ok = {}
            for prog, label in ((guess.program, "guess"), (sk.program, "guess+sketch")):
                ran, equal, _ = execution_equivalent(unit, opt, prog, n_inputs=n_inputs,
                                                     seed=seed + k)
                ok[label] = ran > 0 and ran == equal
            score.guess += ok["guess"]
            score.guess_sketch += ok["guess+sketch"]
            if not ok["guess+sketch"]:
                # Why: every flagged block the sketch could not repair, and every unflagged
                # block the solver refutes (GUESS was confidently wrong on all of it).
                causes = [o for o in sk.outcomes if not o.fixed]
                causes += unflagged_failures(src, guess, options=options)
                causes.sort(key=lambda o: (o.function, o.block))
                score.first_causes[causes[0].cause if causes else "unexplained"] += 1
                rows = [(o.function, o.block, o.cause, o.detail) for o in causes] or [
                    (unit.name, -1, "unexplained", "")]
                score.failures.extend({"test_set": split, "unit": unit.name, "opt": opt,
                                       "function": f, "block": b, "cause": c,
                                       "instruction": d} for f, b, c, d in rows)
            for name, a64, g, fix in sk.examples[:1]:
                if len(score.examples) < max_examples:
                    score.examples.append({"unit": unit.name, "opt": opt, "function": name,
                                           "source": " ; ".join(a64), "guess": " ; ".join(g),
                                           "sketch": " ; ".join(fix)})
    return score
