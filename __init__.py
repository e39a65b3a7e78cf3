"""archsim: hardware modeling for computer-architecture research.

One accelerator description, three views (golden, RTL, model), composed into
SoC and data-centre studies. The subpackages are:

- :mod:`archsim.dsl` -- what users write (kernels, types, number formats);
- :mod:`archsim.compilers` -- lowering (HLS, workload graphs);
- :mod:`archsim.hw` -- Amaranth components and cost models;
- :mod:`archsim.sim` -- RTL simulation, SoC and system models, studies, CLI.

This module is the lowest layer: it imports none of them.
"""

from .errors import ArchsimError, ConfigError, DSLError, SimulationError, ToolchainError

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "ArchsimError",
    "ConfigError",
    "DSLError",
    "SimulationError",
    "ToolchainError",
]
