"""Validated field types of the serving configurations.

Each check raises :class:`~archsim.errors.ConfigError` naming the field with an exact
message; a ``ConfigError`` is not a ``ValueError``, so pydantic passes it through
unchanged instead of wrapping it in a ``ValidationError``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection
from typing import Annotated, TypeGuard

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo

from ...errors import ConfigError

__all__ = ["Config", "PositiveInt", "NonNegative", "PositiveOrNone", "one_of", "check", "is_number"]


class Config(BaseModel):
    """Base of the serving configurations: keyword-only, frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def is_number(v: object) -> TypeGuard[float]:
    """A real number (numpy scalars included), not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def check(rule: Callable[[object], bool], message: str,
          field: str | None = None) -> Callable[[object, ValidationInfo], object]:
    """A before-validator accepting the values ``rule`` holds for; ``message`` is formatted
    with ``{v!r}`` / ``{v}`` of the rejected value. ``field`` overrides the field named."""
    def validate(v: object, info: ValidationInfo) -> object:
        if not rule(v):
            raise ConfigError(message.format(v=v), field=field or info.field_name)
        return v
    return validate


def one_of(allowed: Collection[str], message: str) -> Callable[[object, ValidationInfo], object]:
    """A before-validator accepting only ``allowed`` (named in the error)."""
    def validate(v: object, info: ValidationInfo) -> object:
        if v not in allowed:
            raise ConfigError(message.format(v=v), field=info.field_name, allowed=tuple(allowed))
        return v
    return validate


def _positive_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


PositiveInt = Annotated[int, BeforeValidator(check(_positive_int,
                                                   "must be a positive integer, not {v!r}"))]
NonNegative = Annotated[float, BeforeValidator(check(lambda v: is_number(v) and v >= 0,
                                                     "must be >= 0, not {v!r}"))]
PositiveOrNone = Annotated[float | None, BeforeValidator(check(
    lambda v: v is None or (is_number(v) and v > 0), "must be > 0, not {v!r}"))]
