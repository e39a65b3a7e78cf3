"""Validated pydantic field types shared by the user-facing configurations.

Each check raises :class:`~archsim.errors.ConfigError` naming the field with an exact
message; a ``ConfigError`` is not a ``ValueError``, so pydantic passes it through unchanged
instead of wrapping it in a ``ValidationError``. The engine packages build their field types
from :func:`check` and :func:`one_of` on top of :class:`Config`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection
from typing import Annotated, TypeGuard

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo

from .errors import ConfigError

__all__ = ["Config", "is_number", "is_positive_int", "check", "one_of", "PositiveInt",
           "PositiveIntOrNone"]


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
