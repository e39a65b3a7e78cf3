"""Validated field types of the distributed-training configurations.

Each type checks one rule and raises :class:`~archsim.errors.ConfigError` naming the field
with an exact message; a ``ConfigError`` is not a ``ValueError``, so pydantic passes it
through unchanged instead of wrapping it in a ``ValidationError``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Annotated, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo

from ...errors import ConfigError

__all__ = ["Config", "PositiveInt", "Fraction", "NonNegative", "Positive", "NonNegativeFinite",
           "one_of"]

T = TypeVar("T")


class Config(BaseModel):
    """Base of the user-facing configurations: keyword-only, frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _positive_int(v: object, info: ValidationInfo) -> object:
    if not isinstance(v, int) or v < 1:
        raise ConfigError(f"must be a positive integer, not {v!r}", field=info.field_name)
    return v


def _fraction(v: object, info: ValidationInfo) -> object:
    if not (isinstance(v, (int, float)) and 0 < v <= 1):
        raise ConfigError(f"must be in (0, 1], not {v!r}", field=info.field_name)
    return v


def _non_negative(v: object, info: ValidationInfo) -> object:
    if not (isinstance(v, (int, float)) and v >= 0):
        raise ConfigError(f"must be >= 0, not {v!r}", field=info.field_name)
    return v


def _positive(v: object, info: ValidationInfo) -> object:
    if not (isinstance(v, (int, float)) and v > 0):
        raise ConfigError(f"must be > 0, not {v!r}", field=info.field_name)
    return v


def _non_negative_finite(v: object, info: ValidationInfo) -> object:
    if not (isinstance(v, (int, float)) and v >= 0 and math.isfinite(v)):
        raise ConfigError(f"must be a finite number >= 0, not {v!r}", field=info.field_name)
    return v


PositiveInt = Annotated[int, BeforeValidator(_positive_int)]
Fraction = Annotated[float, BeforeValidator(_fraction)]
NonNegative = Annotated[float, BeforeValidator(_non_negative)]
Positive = Annotated[float, BeforeValidator(_positive)]
NonNegativeFinite = Annotated[float, BeforeValidator(_non_negative_finite)]


def one_of(allowed: Collection[T], message: str) -> Callable[[object, ValidationInfo], object]:
    """A before-validator accepting only ``allowed``; ``message`` is formatted with ``{v!r}``
    / ``{v}`` of the rejected value."""
    def check(v: object, info: ValidationInfo) -> object:
        if v not in allowed:
            raise ConfigError(message.format(v=v), field=info.field_name, allowed=list(allowed))
        return v
    return check
