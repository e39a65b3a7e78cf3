"""Block floating point: one shared exponent per block, sign-magnitude integer mantissas.

A block of ``block_size`` values along ``axis`` stores ``X = floor(log2(amax))`` (8 bits) and
elements ``q`` with ``|q| <= 2**(bits-1) - 1``, meaning ``q * 2**(X - (bits - 2))``: the block
maximum keeps ``bits - 1`` significant bits, smaller values lose leading bits.

Granularity: ``"block"`` (blocks of ``block_size`` along ``axis``), ``"tensor"`` (one exponent
for the whole tensor; ``block_size=None`` is the older spelling of it) or ``"channel"`` (one
exponent per index along ``axis``, as :class:`~.integer.IntFormat` has one scale per channel:
``axis=0`` gives an ``(out, in)`` weight one exponent per output row).
"""

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
    floor_log2,
    from_blocks,
    round_integer,
    to_blocks,
)
from .mx import BlockEncoding

__all__ = ["BlockFloat"]

Granularity = Literal["block", "tensor", "channel"]
_GRANULARITIES = ("block", "tensor", "channel")


@dataclass(frozen=True, kw_only=True)
class BlockFloat(Format):
    """Block floating point with ``bits``-bit sign-magnitude elements.

    Parameters
    ----------
    bits : int
        Element bits including the sign, 2..16.
    block_size : int or None
        Values per shared exponent along ``axis`` (``"block"`` granularity); ``None`` shares
        one exponent over the whole tensor (the per-layer block float of the AdaptivFloat
        paper), the same as ``granularity="tensor"``. Unused for ``"tensor"``/``"channel"``.
    axis : int
        ``"block"``: the axis the blocks run along. ``"channel"``: the channel axis (one
        exponent per index along it). Unused for ``"tensor"``.
    granularity : {"block", "tensor", "channel"}
    exp_bits : int
        Storage of the shared exponent (for :meth:`effective_bits`).
    rounding : {"rne", "rna", "rtz"}
    """

    bits: int
    block_size: int | None = 32
    axis: int = -1
    granularity: Granularity = "block"
    exp_bits: int = 8
    rounding: str = "rne"
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.bits, int) or not 2 <= self.bits <= 16:
            raise ValueError(f"bits must be an integer in 2..16, not {self.bits!r}")
        if self.block_size is not None and (not isinstance(self.block_size, int)
                                            or self.block_size < 1):
            raise ValueError("block_size must be a positive integer or None, "
                             f"not {self.block_size!r}")
        if self.granularity not in _GRANULARITIES:
            raise ValueError(f"granularity must be one of {_GRANULARITIES}, "
                             f"not {self.granularity!r}")
        if not isinstance(self.axis, int) or isinstance(self.axis, bool):
            raise ValueError(f"axis must be an integer, not {self.axis!r}")
        check_rounding(self.rounding)
        if self.rounding == "stochastic":
            raise ValueError("BlockFloat supports rounding 'rne', 'rna' or 'rtz'")
        if not self.name:
            suffix = {"tensor": "_tensor", "channel": "_channel"}.get(self._granularity, "")
            object.__setattr__(self, "name", f"bfp{self.bits}{suffix}")

    @property
    def _granularity(self) -> str:
        """The effective granularity (``block_size=None`` with ``"block"`` is per tensor)."""
        if self.granularity == "block" and self.block_size is None:
            return "tensor"
        return self.granularity

    def encode(self, x: Any) -> BlockEncoding:
        x = as_float64(x)
        if not np.isfinite(x).all():
            raise FormatError(f"format {self.name} cannot encode NaN or infinity")
        gran = self._granularity
        if gran == "tensor":
            flat = x.reshape(-1)
            blocks, moved = to_blocks(flat, max(flat.size, 1), -1)
        elif gran == "channel":
            # Channel axis first, the rest flattened: one block per channel.
            front = np.moveaxis(x, channel_axis(self.axis, x.ndim), 0)
            rows = front.reshape(front.shape[0], -1)
            blocks, _ = to_blocks(rows, max(rows.shape[1], 1), -1)
            moved = tuple(front.shape)
        else:
            assert self.block_size is not None
            blocks, moved = to_blocks(x, self.block_size, self.axis)
        amax = np.max(np.abs(blocks), axis=-1)
        lo = -(2 ** (self.exp_bits - 1))
        shared = np.where(amax > 0, np.clip(floor_log2(np.where(amax > 0, amax, 1.0)), lo,
                                            2 ** (self.exp_bits - 1) - 1), lo)
        lim = 2 ** (self.bits - 1) - 1
        mag = round_integer(np.abs(np.ldexp(blocks, -(shared - (self.bits - 2))[..., None])),
                            self.rounding, None)
        mag = np.minimum(mag, lim).astype(np.int64)
        codes = (np.signbit(blocks).astype(np.int64) << (self.bits - 1)) | mag
        codes = np.where(mag == 0, 0, codes)  # no negative zero
        return BlockEncoding(codes=codes.astype(np.uint16 if self.bits > 8 else np.uint8),
                             scales=shared.astype(np.int16), shape=x.shape, moved_shape=moved,
                             axis=self.axis)

    def decode(self, codes: BlockEncoding) -> np.ndarray:
        if not isinstance(codes, BlockEncoding):
            raise FormatError(f"{self.name} decodes a BlockEncoding, not {type(codes).__name__}")
        c = codes.codes.astype(np.int64)
        mag = (c & (2 ** (self.bits - 1) - 1)).astype(np.float64)
        val = np.ldexp(mag, (codes.scales.astype(np.int64) - (self.bits - 2))[..., None])
        val = np.where((c >> (self.bits - 1)) & 1, -val, val)
        gran = self._granularity
        if gran == "tensor":
            return from_blocks(val, codes.moved_shape, -1, 1).reshape(codes.shape)
        if gran == "channel":
            n_rest = int(np.prod(codes.moved_shape[1:]))
            front = val.reshape(val.shape[0], -1)[:, :n_rest].reshape(codes.moved_shape)
            return np.moveaxis(front, 0, channel_axis(self.axis, len(codes.shape)))
        return from_blocks(val, codes.moved_shape, codes.axis, len(codes.shape))

    def effective_bits(self, shape: tuple[int, ...] | None = None) -> float:
        """``bits + exp_bits * n_exponents / n_elements``."""
        gran = self._granularity
        if gran == "block":
            assert self.block_size is not None
            return self.bits + self.exp_bits / self.block_size
        if shape is None:
            raise FormatError(f"effective_bits of {self.name} needs the tensor shape")
        n_elem = max(int(np.prod(shape)), 1)
        if gran == "tensor":
            return self.bits + self.exp_bits / n_elem
        return self.bits + self.exp_bits * shape[channel_axis(self.axis, len(shape))] / n_elem
