"""Validated field types of the distributed-training configurations (built on
:mod:`archsim.fields`)."""

from __future__ import annotations

import math
from typing import Annotated, TypeGuard

from pydantic import BeforeValidator

from ...fields import Config, PositiveInt, check, one_of

__all__ = ["Config", "PositiveInt", "Fraction", "NonNegative", "Positive", "NonNegativeFinite",
           "one_of"]


def _real(v: object) -> TypeGuard[float]:
    # int and float (bool and numpy float64 among them), as these configurations always took
    return isinstance(v, (int, float))


Fraction = Annotated[float, BeforeValidator(check(
    lambda v: _real(v) and 0 < v <= 1, "must be in (0, 1], not {v!r}"))]
NonNegative = Annotated[float, BeforeValidator(check(
    lambda v: _real(v) and v >= 0, "must be >= 0, not {v!r}"))]
Positive = Annotated[float, BeforeValidator(check(
    lambda v: _real(v) and v > 0, "must be > 0, not {v!r}"))]
NonNegativeFinite = Annotated[float, BeforeValidator(check(
    lambda v: _real(v) and v >= 0 and math.isfinite(v),
    "must be a finite number >= 0, not {v!r}"))]
