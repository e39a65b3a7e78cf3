"""Validated field types of the serving configurations (built on :mod:`archsim.fields`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator

from ...fields import Config, PositiveInt, check, is_number, one_of

__all__ = ["Config", "PositiveInt", "NonNegative", "PositiveOrNone", "one_of", "check", "is_number"]


NonNegative = Annotated[float, BeforeValidator(check(lambda v: is_number(v) and v >= 0,
                                                     "must be >= 0, not {v!r}"))]
PositiveOrNone = Annotated[float | None, BeforeValidator(check(
    lambda v: v is None or (is_number(v) and v > 0), "must be > 0, not {v!r}"))]
