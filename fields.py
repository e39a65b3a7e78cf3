"""Validated pydantic field types shared by the user-facing configurations.

Each check raises :class:`~archsim.errors.ConfigError` naming the field with an exact
message; a ``ConfigError`` is not a ``ValueError``, so pydantic passes it through unchanged
instead of wrapping it in a ``ValidationError``. The engine packages build their field types
from :func:`check` and :func:`one_of` on top of :class:`Config`.

:func:`plausible` bounds a number to a finite, physically plausible range (with the reason in
the message); the types built on it (:data:`FrequencyHz`, :data:`UnitCount`,
:data:`ElementBytes`, :data:`CapacityBytes`, :data:`BandwidthBytesPerS`) are shared by the
configurations that take such quantities.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Collection
from typing import Annotated, TypeGuard

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo

from .errors import ConfigError

__all__ = ["Config", "is_number", "is_positive_int", "check", "one_of", "PositiveInt",
           "PositiveIntOrNone", "plausible", "MAX_UNITS", "FrequencyHz", "UnitCount",
           "ElementBytes", "CapacityBytes", "BandwidthBytesPerS"]


class Config(BaseModel):
    """Base of the user-facing configurations: keyword-only, frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def is_number(v: object) -> TypeGuard[float]:
    """A real number (numpy scalars included), not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def is_positive_int(v: object) -> TypeGuard[int]:
    """An int >= 1, not a bool."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def check(rule: Callable[[object], bool], message: str,
          field: str | None = None) -> Callable[[object, ValidationInfo], object]:
    """A before-validator accepting the values ``rule`` holds for; ``message`` is formatted
    with ``{v!r}`` / ``{v}`` of the rejected value. ``field`` overrides the field named."""
    def validate(v: object, info: ValidationInfo) -> object:
        if not rule(v):
            raise ConfigError(message.format(v=v), field=field or info.field_name)
        return v
    return validate


def one_of(allowed: Collection[object], message: str
           ) -> Callable[[object, ValidationInfo], object]:
    """A before-validator accepting only ``allowed`` (named in the error); ``message`` is
    formatted with ``{v!r}`` / ``{v}`` of the rejected value."""
    def validate(v: object, info: ValidationInfo) -> object:
        if v not in allowed:
            raise ConfigError(message.format(v=v), field=info.field_name, allowed=tuple(allowed))
        return v
    return validate


PositiveInt = Annotated[int, BeforeValidator(check(is_positive_int,
                                                   "must be a positive integer, not {v!r}"))]
PositiveIntOrNone = Annotated[int | None, BeforeValidator(check(
    lambda v: v is None or is_positive_int(v), "must be a positive integer, not {v!r}"))]


def _bound_text(v: float) -> str:
    """A bound as a user would write it: ``1048576``, ``1e+11``, ``0.01``."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    return f"{v:g}"


def plausible(lo: float, hi: float, *, reason: str, integer: bool = False) -> BeforeValidator:
    """A before-validator for a number that must be finite and within ``lo..hi``.

    Non-finite values (``inf``, ``nan``) and values outside the range -- which would run
    without bound or give absurd results (a 2**63-byte element, a 1e12-unit pool) -- are
    rejected with ``must be <a finite number | an integer> in the plausible range lo..hi
    (reason)`` (the loaders of the models add the value given). With ``integer``, a float with no fraction part (TOML's ``1e3``) is
    taken as that integer; any other non-integer is rejected.

    It raises :class:`ValueError`, not :class:`~archsim.errors.ConfigError`, so the model
    being validated reports the whole field path (``accelerators[0].count``) and its file.
    """
    kind = "an integer" if integer else "a finite number"
    text = f"must be {kind} in the plausible range {_bound_text(lo)}..{_bound_text(hi)} " \
           f"({reason})"

    def validate(v: object) -> object:
        if not is_number(v):
            return v  # the field's own type check reports it
        if not math.isfinite(v) or (integer and not float(v).is_integer()):
            raise ValueError(text)
        if integer:
            v = int(v)
        if not lo <= v <= hi:
            raise ValueError(text)
        return v

    return BeforeValidator(validate)


#: Upper bound of a count of units (cores, accelerators, PEs, lanes, threads, points).
MAX_UNITS = 2**20

#: A clock frequency in Hz.
FrequencyHz = Annotated[float, plausible(1.0, 100e9, reason="1 Hz to 100 GHz")]
#: A count of hardware units (accelerators, cores, PEs, MACs, lanes, threads).
UnitCount = Annotated[int, plausible(1, MAX_UNITS, integer=True,
                                     reason="at most 2**20 units")]
#: The bytes of one element of a tensor or scratchpad word.
ElementBytes = Annotated[int, plausible(1, 64, integer=True,
                                        reason="1 to 64 bytes: up to a 512-bit element")]
#: A memory capacity in bytes.
CapacityBytes = Annotated[int, plausible(1, 2**50, integer=True,
                                         reason="at most 2**50 bytes (1 PiB)")]
#: A bandwidth in bytes per second.
#: The top, 1e18 B/s (1 EB/s), is far above any link and idealizes a path away.
BandwidthBytesPerS = Annotated[float, plausible(1.0, 1e18,
                                                reason="1 B/s to 1e18 B/s, an ideal link")]
