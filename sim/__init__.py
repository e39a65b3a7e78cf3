"""Simulation: RTL runners, the SoC simulator, system models, sweeps, studies and the CLI.

The top layer: it may import every other subpackage; nothing imports it.
Subpackages are imported on demand (``archsim.sim.rtl``, ``archsim.sim.serving``...)
so that the CLI starts fast.
"""
