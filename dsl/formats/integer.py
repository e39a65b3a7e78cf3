"""Integers with a float scale: INTn symmetric or asymmetric, per tensor, channel or group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .base import (
    Format,
    FormatError,
    as_float64,
    check_rounding,
    from_blocks,
    round_integer,
    to_blocks,
)

__all__ = ["IntFormat", "IntEncoding"]

Granularity = Literal["tensor", "channel", "group"]
_GRANULARITIES = ("tensor", "channel", "group")


@dataclass(frozen=True)
class IntEncoding:
    """Integer codes with their scales (and zero points when asymmetric).

    ``codes`` has the shape of the input, except for ``"group"`` granularity where it is
    ``(..., n_groups, group_size)`` with the grouped axis moved last (``moved_shape``).
    ``scale`` and ``zero_point`` broadcast against ``codes``.
    """

    codes: np.ndarray
    scale: np.ndarray
    zero_point: np.ndarray
    shape: tuple[int, ...]
    moved_shape: tuple[int, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class IntFormat(Format):
    """``bits``-bit integers times a float scale.

    Symmetric: ``x ~ q * scale`` with ``q`` in ``[-(2**(bits-1) - 1), 2**(bits-1) - 1]`` and
    ``scale = amax / (2**(bits-1) - 1)``. Asymmetric: ``x ~ (q - zero_point) * scale`` with
    ``q`` in ``[0, 2**bits - 1]`` over ``[min(x, 0), max(x, 0)]`` (so zero is exact).

    Parameters
    ----------
    bits : int
    symmetric : bool
    granularity : {"tensor", "channel", "group"}
        One scale per tensor, per index along ``axis`` ("channel"), or per ``group_size``
        consecutive elements along ``axis`` ("group").
    axis : int
    group_size : int
    rounding : {"rne", "rna", "rtz", "stochastic"}
    scale_bits : int
        Storage of one scale (and one zero point) for :meth:`effective_bits`.
    seed : int
    """

    bits: int
    symmetric: bool = True
    granularity: Granularity = "tensor"
    axis: int = 0
    group_size: int = 128
    rounding: str = "rne"
    scale_bits: int = 32
    seed: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.bits, int) or not 2 <= self.bits <= 32:
            raise ValueError(f"bits must be an integer in 2..32, not {self.bits!r}")
        if self.granularity not in _GRANULARITIES:
            raise ValueError(f"granularity must be one of {_GRANULARITIES}, "
                             f"not {self.granularity!r}")
        if not isinstance(self.group_size, int) or self.group_size < 1:
            raise ValueError(f"group_size must be a positive integer, not {self.group_size!r}")
        check_rounding(self.rounding)
        if not self.name:
            kind = "" if self.symmetric else "a"
            object.__setattr__(self, "name", f"int{self.bits}{kind}_{self.granularity}")

    @property
    def qmin(self) -> int:
        return -(2 ** (self.bits - 1) - 1) if self.symmetric else 0

    @property
    def qmax(self) -> int:
        return 2 ** (self.bits - 1) - 1 if self.symmetric else 2**self.bits - 1

    def _layout(self, x: np.ndarray) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...] | None]:
        """The array to scale, the axes one scale covers, and the group layout."""
        if self.granularity == "tensor":
            return x, tuple(range(x.ndim)), None
        if x.ndim == 0:
            raise FormatError(f"granularity '{self.granularity}' needs an array, not a scalar")
        if not -x.ndim <= self.axis < x.ndim:
            raise FormatError(f"axis {self.axis} is out of range for an array of "
                              f"{x.ndim} dimensions")
        if self.granularity == "channel":
            ax = self.axis % x.ndim
            return x, tuple(i for i in range(x.ndim) if i != ax), None
        blocks, moved = to_blocks(x, self.group_size, self.axis)
        return blocks, (blocks.ndim - 1,), moved

    def encode(self, x: Any, *, rng: np.random.Generator | None = None) -> IntEncoding:
        x = as_float64(x)
        if not np.isfinite(x).all():
            raise FormatError(f"format {self.name} cannot encode NaN or infinity")
        arr, axes, moved = self._layout(x)
        if self.rounding == "stochastic" and rng is None:
            rng = np.random.default_rng(self.seed)
        if self.symmetric:
            amax = np.max(np.abs(arr), axis=axes, keepdims=True) if arr.size else np.zeros(1)
            scale = np.where(amax > 0, amax / self.qmax, 1.0)
            zp = np.zeros_like(scale)
        else:
            lo = np.minimum(np.min(arr, axis=axes, keepdims=True), 0.0)
            hi = np.maximum(np.max(arr, axis=axes, keepdims=True), 0.0)
            scale = np.where(hi > lo, (hi - lo) / self.qmax, 1.0)
            zp = np.rint(-lo / scale)
        v = arr / scale
        q = np.sign(v) * round_integer(np.abs(v), self.rounding, rng) + zp
        q = np.clip(q, self.qmin, self.qmax).astype(np.int64)
        return IntEncoding(codes=q, scale=scale, zero_point=zp, shape=x.shape, moved_shape=moved)

    def decode(self, codes: IntEncoding) -> np.ndarray:
        if not isinstance(codes, IntEncoding):
            raise FormatError(f"{self.name} decodes an IntEncoding, not {type(codes).__name__}")
        val = (codes.codes - codes.zero_point) * codes.scale
        if codes.moved_shape is not None:
            return from_blocks(val, codes.moved_shape, self.axis, len(codes.shape))
        return val.reshape(codes.shape)

    def quantize(self, x: Any, *, rng: np.random.Generator | None = None) -> np.ndarray:
        return self.decode(self.encode(x, rng=rng))

    def effective_bits(self, shape: tuple[int, ...] | None = None) -> float:
        meta = self.scale_bits * (1 if self.symmetric else 2)
        if self.granularity == "group":
            return self.bits + meta / self.group_size
        if shape is None:
            raise FormatError(f"effective_bits of {self.name} needs the tensor shape")
        n = int(np.prod(shape))
        groups = 1 if self.granularity == "tensor" else shape[self.axis]
        return self.bits + meta * groups / max(n, 1)
