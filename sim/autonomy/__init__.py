"""Autonomy algorithms for UAV co-design: an obstacle world, a full-map expert, CNN policies.

:mod:`.world` draws seeded corridors of cylinders at three densities and renders depth
images; :mod:`.expert` is the full-map teacher; :mod:`.policies` is the DroNet-like CNN family
trained by behaviour cloning with DAgger; :mod:`.evaluate` measures success rates with
binomial confidence intervals and trains the family.
"""

__all__: list[str] = []
