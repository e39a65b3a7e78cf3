"""Integers with a float scale: INTn symmetric or asymmetric, per tensor, channel or group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .base import (
    Format,
    FormatError,
    as_float64,
    channel_axis,
    check_rounding,
    from_blocks,
    round_integer,
    to_blocks,
)

__all__ = ["IntFormat", "IntEncoding"]

Granularity = Literal["tensor", "channel", "group"]
_GRANULARITIES = ("tensor", "channel", "group")
_SCALE_DTYPES = ("float64", "float32", "float16")


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
        Storage of one scale for :meth:`effective_bits`.
    zero_bits : int or None
        Storage of one zero point (asymmetric only); ``None``: ``scale_bits``.
    scale_dtype : {"float64", "float32", "float16"}
        The precision a scale is stored in: each scale is rounded to it before the codes are
        chosen, so the codes fit the stored scale (e.g. GPTQ's FP16 scales).
    clip_grid : tuple of float
        Range factors ``c`` in ``(0, 1]`` tried per scale group: the quantized range is
        ``c`` times the full one (clipping outliers), and the ``c`` with the least squared
        error of the group is kept. ``(1.0,)``: no clipping.
    seed : int
    """

    bits: int
    symmetric: bool = True
    granularity: Granularity = "tensor"
    axis: int = 0
    group_size: int = 128
    rounding: str = "rne"
    scale_bits: int = 32
    zero_bits: int | None = None
    scale_dtype: str = "float64"
    clip_grid: tuple[float, ...] = (1.0,)
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
        if self.scale_dtype not in _SCALE_DTYPES:
            raise ValueError(f"scale_dtype must be one of {_SCALE_DTYPES}, "
                             f"not {self.scale_dtype!r}")
        if (not isinstance(self.clip_grid, tuple) or not self.clip_grid
                or any(not 0 < c <= 1 for c in self.clip_grid)):
            raise ValueError("clip_grid must be a non-empty tuple of factors in (0, 1], "
                             f"not {self.clip_grid!r}")
        if self.zero_bits is not None and (not isinstance(self.zero_bits, int)
                                           or self.zero_bits < 1):
            raise ValueError(f"zero_bits must be a positive integer or None, "
                             f"not {self.zero_bits!r}")
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
        ax = channel_axis(self.axis, x.ndim, self.granularity)
        if self.granularity == "channel":
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
        if not arr.size:
            one = np.ones((1,) * arr.ndim)
            return IntEncoding(codes=arr.astype(np.int64), scale=one, zero_point=0 * one,
                               shape=x.shape, moved_shape=moved)
        if self.symmetric:
            amax = np.max(np.abs(arr), axis=axes, keepdims=True)
            lo_full, hi_full = -amax, amax
        else:
            lo_full = np.minimum(np.min(arr, axis=axes, keepdims=True), 0.0)
            hi_full = np.maximum(np.max(arr, axis=axes, keepdims=True), 0.0)
        # Stochastic rounding draws once per clip candidate: reproducible under the seed.
        q, scale, zp = self._codes(arr, lo_full * self.clip_grid[0],
                                   hi_full * self.clip_grid[0], rng)
        if len(self.clip_grid) > 1:
            def sq_err(q: np.ndarray, scale: np.ndarray, zp: np.ndarray) -> np.ndarray:
                return np.sum(((q - zp) * scale - arr) ** 2, axis=axes, keepdims=True)

            best_err = sq_err(q, scale, zp)
            for c in self.clip_grid[1:]:
                cq, cscale, czp = self._codes(arr, lo_full * c, hi_full * c, rng)
                err = sq_err(cq, cscale, czp)
                better = err < best_err
                best_err = np.where(better, err, best_err)
                q, scale, zp = (np.where(better, cq, q), np.where(better, cscale, scale),
                                np.where(better, czp, zp))
        return IntEncoding(codes=q, scale=scale, zero_point=zp, shape=x.shape, moved_shape=moved)

    def _codes(self, arr: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               rng: np.random.Generator | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Codes, stored scales and zero points of ``arr`` over the range ``[lo, hi]``."""
        span = hi if self.symmetric else hi - lo
        scale = (span / self.qmax).astype(self.scale_dtype).astype(np.float64)
        # An all-zero group (or a scale that underflows its dtype): any scale reproduces it.
        scale = np.where(scale > 0, scale, 1.0)
        zp = (np.zeros_like(scale) if self.symmetric
              else np.clip(np.rint(-lo / scale), self.qmin, self.qmax))
        v = arr / scale
        q = np.sign(v) * round_integer(np.abs(v), self.rounding, rng) + zp
        return np.clip(q, self.qmin, self.qmax).astype(np.int64), scale, zp

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
        zero_bits = self.scale_bits if self.zero_bits is None else self.zero_bits
        meta = self.scale_bits + (0 if self.symmetric else zero_bits)
        if self.granularity == "group":
            return self.bits + meta / self.group_size
        if shape is None:
            raise FormatError(f"effective_bits of {self.name} needs the tensor shape")
        n = int(np.prod(shape))
        groups = 1 if self.granularity == "tensor" else shape[self.axis]
        return self.bits + meta * groups / max(n, 1)
