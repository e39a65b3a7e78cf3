"""The full granularity table of the formats study, as data (too slow for quick mode).

AdaptivFloat, symmetric INT and block float at 4, 6 and 8 element bits, each per tensor and
per channel (one bias / scale / shared exponent per output row), direct-cast on all 210
linear weights of SmolLM2-135M, perplexity on the study's 1,024 held-out news tokens (the
full run's setup, :func:`~.lm.lm_setup` with ``quick=False``). Writes
``data/lm_granularity_full.json``::

    PYTHONPATH=<dir holding archsim> python -m archsim.sim.studies.formats.granularity_full

The study's full run computes the same rows; its quick run computes the 4-bit rows only on
its reduced setup. The README's granularity table is this file's content.
"""

from __future__ import annotations

import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any

from .lm import FULL_TOKENS, evaluate_lm, granularity_specs, lm_setup

__all__ = ["run_granularity_full", "OUT_PATH"]

OUT_PATH = Path(__file__).parent / "data" / "lm_granularity_full.json"
BITS = (4, 6, 8)


def run_granularity_full(path: Path = OUT_PATH, *, bits: tuple[int, ...] = BITS) -> dict[str, Any]:
    """Measure the granularity table on the full setup and write it to ``path`` as JSON."""
    start_cpu = time.process_time()
    setup = lm_setup(quick=False)
    specs = [sp for b in bits for sp in granularity_specs(b)]
    rows = evaluate_lm(setup, specs, progress=lambda name: print(f"  {name}", file=sys.stderr))
    data = {
        "what": "SmolLM2-135M news perplexity, all 210 linear weights direct-cast; "
                "AdaptivFloat / INT / BFP per tensor and per channel (output rows)",
        "command": "python -m archsim.sim.studies.formats.granularity_full",
        "tokens": FULL_TOKENS,
        "window": setup.window,
        "process_time_s": time.process_time() - start_cpu,
        "python": platform.python_version(),
        "rows": [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                  for k, v in r.items()} for r in rows],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


if __name__ == "__main__":  # pragma: no cover - a data-producing script
    out = run_granularity_full()
    for r in out["rows"]:
        print(f"{r['label']:40s} {r['effective_bits']:7.3f} {r['perplexity']:12.3f}")
