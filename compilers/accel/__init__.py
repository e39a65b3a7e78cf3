"""Lowering of an accelerator description to one top-level component, its golden run and
its cycle/energy model."""

__all__: list[str] = []
