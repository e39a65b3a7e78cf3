"""Argument checks for hardware constructors, and Amaranth's "never used" silencer.

Shared by every component in :mod:`archsim.hw` (and by the runners that build them) so
that the same bad argument gets the same message everywhere.
"""

from __future__ import annotations

__all__ = ["check_positive", "check_int", "check_bool", "silence_unused"]


def check_positive(name: str, value: object) -> int:
    """Return ``value`` if it is a positive ``int``, else raise naming ``name``.

    Raises
    ------
    TypeError
        If ``value`` is not an ``int`` (``bool`` is rejected too).
    ValueError
        If ``value`` is less than 1.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}")
    return value


def check_int(name: str, value: object, low: int, high: int) -> int:
    """Return ``value`` if it is an ``int`` in ``low..high`` (``bool`` rejected), else raise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, not {value}")
    return value


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a ``bool``, else raise ``TypeError``."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {value!r}")
    return value


def silence_unused(component: object) -> None:
    """Mark a component that will never be elaborated (its constructor or its run failed on
    the user's input), so Amaranth does not warn that it was created and never used."""
    # Amaranth's private MustUse flag (name-mangled, set on any component type).
    component._MustUse__silence = True  # type: ignore[attr-defined]
