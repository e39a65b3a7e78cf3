"""The :class:`Format` protocol every number format implements, and shared helpers.

A format is a plain immutable object with ``name``, ``bits``, ``encode``, ``decode`` and
``quantize``. Element formats encode to an integer array of codes; scaled and block formats
encode to a typed object holding the codes and their metadata (scales, biases, tags).
That is the hook the DSL's kernel types use: ``Array[AdaptivFloat(n=8, e=3), 64]`` only
needs ``bits`` (storage), ``encode``/``decode`` (golden view) and ``effective_bits``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, Literal

import numpy as np

from ...errors import ArchsimError

__all__ = [
    "Format",
    "FormatError",
    "Rounding",
    "ROUNDINGS",
    "round_integer",
    "floor_log2",
    "as_float64",
    "to_blocks",
    "from_blocks",
    "channel_axis",
]

#: Rounding modes: nearest-even, nearest ties-away, toward zero, stochastic.
Rounding = Literal["rne", "rna", "rtz", "stochastic"]
ROUNDINGS: tuple[str, ...] = ("rne", "rna", "rtz", "stochastic")


class FormatError(ArchsimError, ValueError):
    """A value or code cannot be handled by a number format (e.g. NaN into INT8)."""


class Format(ABC):
    """A number format: ``quantize(x) == decode(encode(x))``.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"fp8_e4m3"`` or ``"mxfp4"``.
    bits : int
        Storage bits of one element code (metadata excluded).
    """

    name: str
    bits: int

    @abstractmethod
    def encode(self, x: Any) -> object:
        """Encode an array into codes (an integer array, or a typed object with metadata).

        Each format narrows the result type (an integer ndarray, or its encoding class);
        through a plain :class:`Format` the result is only good for :meth:`decode`.
        """

    @abstractmethod
    def decode(self, codes: Any) -> np.ndarray:
        """Decode what :meth:`encode` returned into a float64 array."""

    def quantize(self, x: Any) -> np.ndarray:
        """Round ``x`` to the nearest values the format represents (``decode(encode(x))``)."""
        return self.decode(self.encode(x))

    def effective_bits(self, shape: tuple[int, ...] | None = None) -> float:
        """Bits per element including all metadata; ``shape`` matters for per-tensor scales."""
        return float(self.bits)


def check_rounding(rounding: str) -> None:
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, not {rounding!r}")


def as_float64(x: Any) -> np.ndarray:
    """``x`` as a float64 array (exact for every float32/float16/bfloat16 input)."""
    return np.asarray(x, dtype=np.float64)


def round_integer(s: np.ndarray, rounding: str, rng: np.random.Generator | None) -> np.ndarray:
    """Round non-negative float64 magnitudes ``s`` to integers with ``rounding``.

    Exact for ``s < 2**52``: ``np.rint`` rounds ties to even, and the ties-away and stochastic
    modes only compare the exact fractional part ``s - floor(s)``.
    """
    if rounding == "rne":
        return np.rint(s)
    if rounding == "rtz":
        return np.trunc(s)
    fl = np.floor(s)
    frac = s - fl
    if rounding == "rna":
        return fl + (frac >= 0.5)
    if rounding == "stochastic":
        if rng is None:
            raise ValueError("stochastic rounding needs a random generator")
        # Round up with probability equal to the fractional part: unbiased in expectation.
        return fl + (rng.random(size=np.shape(s)) < frac)
    raise ValueError(f"rounding must be one of {ROUNDINGS}, not {rounding!r}")


def floor_log2(a: np.ndarray) -> np.ndarray:
    """Exact ``floor(log2(a))`` for positive finite float64 ``a`` (via ``frexp``), as int64."""
    _, e = np.frexp(a)
    return e.astype(np.int64) - 1


def channel_axis(axis: int, ndim: int, granularity: str = "channel") -> int:
    """``axis`` as a non-negative index into an array of ``ndim`` dimensions, for a format
    of ``granularity`` that keeps one scale (or exponent) per index along it.

    Raises
    ------
    FormatError
        The array is a scalar, or ``axis`` is out of range for it.
    """
    if ndim == 0:
        raise FormatError(f"granularity '{granularity}' needs an array, not a scalar")
    if not -ndim <= axis < ndim:
        raise FormatError(f"axis {axis} is out of range for an array of {ndim} dimensions")
    return axis % ndim


def to_blocks(x: np.ndarray, block_size: int, axis: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """Move ``axis`` last and cut it into blocks, zero-padding the tail block.

    Returns ``(blocks, moved_shape)`` where ``blocks`` has shape ``(..., n_blocks, block_size)``
    and ``moved_shape`` is the shape of ``x`` with ``axis`` moved last (before padding).
    """
    if x.ndim == 0:
        x = x.reshape(1)
    try:
        moved = np.moveaxis(x, axis, -1)
    except np.exceptions.AxisError:
        raise FormatError(f"axis {axis} is out of range for an array of {x.ndim} dimensions") \
            from None
    moved_shape = tuple(moved.shape)
    n = moved_shape[-1]
    n_blocks = max(1, math.ceil(n / block_size))
    pad = n_blocks * block_size - n
    if pad:
        moved = np.concatenate([moved, np.zeros(moved.shape[:-1] + (pad,), moved.dtype)], -1)
    return moved.reshape(moved.shape[:-1] + (n_blocks, block_size)), moved_shape


def from_blocks(blocks: np.ndarray, moved_shape: tuple[int, ...], axis: int,
                ndim: int) -> np.ndarray:
    """Inverse of :func:`to_blocks`: drop the padding and move the last axis back."""
    flat = blocks.reshape(blocks.shape[:-2] + (-1,))[..., : moved_shape[-1]]
    flat = flat.reshape(moved_shape)
    if ndim == 0:
        return flat.reshape(())
    return np.moveaxis(flat, -1, axis)
