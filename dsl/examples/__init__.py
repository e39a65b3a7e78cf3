"""Example accelerators written with the accelerator DSL (:mod:`archsim.dsl.accel`)."""

__all__: list[str] = []
