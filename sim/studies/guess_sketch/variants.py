"""Measure GUESS / SKETCH variants on the full test sets (``python -m
archsim.sim.studies.guess_sketch.variants OUT_DIR [NAME ...]``).

Each variant trains GUESS on the training split and scores GUESS and Guess & Sketch on the
three test sets exactly as the study does (20 random inputs per function, seed 0), writing
one row per variant and test set to ``OUT_DIR/variants.csv``. A full variant takes minutes
(the solver), so the study's README ships the measured table instead of running them.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ....compilers.asm.corpus import load_corpus
from ....compilers.asm.guess import train_guess
from ....compilers.asm.sketch import SketchOptions
from ....outputs import write_csv
from .scoring import score_guess_sketch
from .study import N_INPUTS, TEST_SETS

__all__ = ["VARIANTS", "run_variants"]

#: The hole kinds of the memory/calls revision, off in the earlier variants (so their rows
#: reproduce the earlier table).
_NEW = {"memory_offset_holes": False, "guess_holes": False, "call_blocks": False,
        "pair_expansion": False, "register_holes": False, "compare_immediates": False}
_OFF = {"carry_flags": False, "scratch_registers": False, "liveness": False,
        "live_widths": False, "block_fallback": False} | _NEW
_AK = {"alias_keys": True}
_OFFSETS = _NEW | {"memory_offset_holes": True, "guess_holes": True}

#: name -> (train_guess keyword arguments, SketchOptions keyword arguments)
VARIANTS: dict[str, tuple[dict[str, bool], dict[str, bool]]] = {
    "before": ({}, _OFF),
    "carry": ({}, _OFF | {"carry_flags": True}),
    "carry+scratch": ({}, _OFF | {"carry_flags": True, "scratch_registers": True}),
    "carry+live": ({}, _NEW),
    "carry+live+alias-keys": (_AK, _NEW),
    "carry+live+calibrated": ({"calibrate": True}, _NEW),
    "carry+live+alias-keys+calibrated": (_AK | {"calibrate": True}, _NEW),
    "carry+live+alias-keys+scratch": (_AK, _NEW | {"scratch_registers": True}),
    "carry+live+alias-keys+fallback": (_AK, _NEW | {"block_fallback": True}),
    # memory/calls revision, on top of carry+live+alias-keys
    "+offsets": (_AK, _OFFSETS),
    "+offsets+calls": (_AK, _OFFSETS | {"call_blocks": True}),
    "+offsets+calls+pairs": (_AK, {"register_holes": False, "compare_immediates": False}),
    "+offsets+calls+pairs+registers": (_AK, {"compare_immediates": False}),
    "+offsets+calls+pairs+registers+cmp-imm": (_AK, {}),  # the study's configuration
    "+offsets+calls+pairs+registers+cmp-imm+scratch": (_AK, {"scratch_registers": True}),
}


def run_variants(out_dir: Path, names: list[str] | None = None, *, seed: int = 0
                 ) -> list[dict[str, object]]:
    """Score the named variants (default: all) and write ``variants.csv``."""
    rows: list[dict[str, object]] = []
    for name in names or list(VARIANTS):
        train_kw, sketch_kw = VARIANTS[name]
        t0 = time.process_time()
        model = train_guess(load_corpus("train"), seed=seed,
                            alias_keys=train_kw.get("alias_keys", False),
                            calibrate=train_kw.get("calibrate", False))
        options = SketchOptions(**sketch_kw)
        for split in TEST_SETS:
            sc = score_guess_sketch(model, load_corpus(split), split, n_inputs=N_INPUTS,
                                    seed=seed, options=options)
            rows.append({"variant": name, "test_set": split, "functions": sc.functions,
                         "guess": sc.guess, "guess_sketch": sc.guess_sketch,
                         "flagged_blocks": sc.flagged, "repaired_blocks": sc.fixed,
                         "carried_blocks": sc.carried,
                         "low_confidence": model.low_confidence,
                         "first_causes": "; ".join(f"{c} {n}" for c, n in
                                                   sc.first_causes.most_common())})
        for row in rows[-len(TEST_SETS):]:
            row["cpu_s"] = round(time.process_time() - t0, 1)
            row["load_average"] = round(os.getloadavg()[0], 2)
        write_csv(Path(out_dir) / "variants.csv", rows)
    return rows


if __name__ == "__main__":  # pragma: no cover - a long measurement, run by hand
    run_variants(Path(sys.argv[1]), sys.argv[2:] or None)
