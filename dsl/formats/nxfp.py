"""NxFP (Nanoscaling floating point; Lo, Wei and Brooks): three switchable gains over MX.

* **NanoMantissa** (``nano_mantissa_bits = k > 0``): the shared scale is E8Mk,
  ``X = 2**E * (1 + M / 2**k)`` (scale code ``(E + 127) << k | M``; exponent field 0xFF is
  NaN). ``X`` is the smallest E8Mk value not below ``amax / elem_max``, so the block maximum
  lands at or just below the element maximum instead of anywhere in ``[2**emax, 2**(emax+1))``
  (MX's rule, which clamps or wastes range).
* **Adaptive Microexponent** (``adaptive_microexponent=True``): each block encodes with each
  candidate element format (at 4 bits E2M1 / E1M2 / E3M0) and keeps the one with the smallest
  squared error; a ``ceil(log2(#candidates))``-bit tag per block records the choice.
* **Code Recycling** (``code_recycling=True``): the negative-zero element code (sign bit only)
  means ``-(v1 + v2) / 2``, the midpoint of the element's two largest magnitudes (E2M1: -5),
  filling its widest gap. An element takes it when it is strictly closer than the usual code.

With all three off an :class:`NxFPFormat` equals the MX format of the same element exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import Format, FormatError, as_float64, floor_log2, from_blocks, to_blocks
from .ieee import FloatFormat, minifloat
from .mx import E8M0_BIAS, MX_ELEMENTS, BlockEncoding, encode_element

__all__ = ["NxFPFormat", "NXFP_CANDIDATES", "recycled_value"]

#: Element encodings per element width: the first is the MX element used when not adaptive.
NXFP_CANDIDATES: dict[int, tuple[str, ...]] = {
    4: ("e2m1", "e1m2", "e3m0"),
    6: ("e2m3", "e3m2", "e1m4"),
    8: ("e4m3", "e5m2", "e3m4"),
}
_BASE_MX = {4: "fp4_e2m1", 6: "fp6_e2m3", 8: "fp8_e4m3"}


def _element(bits: int, spec: str) -> FloatFormat:
    if spec == NXFP_CANDIDATES[bits][0]:
        elem = MX_ELEMENTS[_BASE_MX[bits]]
        assert isinstance(elem, FloatFormat)
        return elem
    e, m = (int(v) for v in spec[1:].split("m"))
    return minifloat(e, m, name=spec)


def recycled_value(elem: FloatFormat) -> float:
    """The value Code Recycling gives the negative-zero code of ``elem``."""
    top = elem.max_value
    below = top - float(np.ldexp(1.0, elem.emax - elem.man_bits))
    if elem.man_bits == 0:
        below = top / 2
    return -(top + below) / 2


@dataclass(frozen=True, kw_only=True)
class NxFPFormat(Format):
    """NxFP with ``bits``-bit elements and each technique switchable.

    Parameters
    ----------
    bits : {4, 6, 8}
    nano_mantissa_bits : int
        ``k`` mantissa bits in the shared scale (0: MX's E8M0 rule).
    adaptive_microexponent : bool
    code_recycling : bool
    block_size, axis : int
    """

    bits: int = 4
    nano_mantissa_bits: int = 0
    adaptive_microexponent: bool = False
    code_recycling: bool = False
    block_size: int = 32
    axis: int = -1
    name: str = ""

    def __post_init__(self) -> None:
        if self.bits not in NXFP_CANDIDATES:
            raise ValueError(f"bits must be one of {tuple(NXFP_CANDIDATES)}, not {self.bits!r}")
        if not isinstance(self.nano_mantissa_bits, int) or not 0 <= self.nano_mantissa_bits <= 7:
            raise ValueError("nano_mantissa_bits must be an integer in 0..7, "
                             f"not {self.nano_mantissa_bits!r}")
        if not isinstance(self.block_size, int) or self.block_size < 1:
            raise ValueError(f"block_size must be a positive integer, not {self.block_size!r}")
        if not self.name:
            parts = [f"nxfp{self.bits}"]
            if self.nano_mantissa_bits:
                parts.append(f"nm{self.nano_mantissa_bits}")
            if self.adaptive_microexponent:
                parts.append("am")
            if self.code_recycling:
                parts.append("cr")
            object.__setattr__(self, "name", "_".join(parts))

    @property
    def candidates(self) -> tuple[FloatFormat, ...]:
        specs = NXFP_CANDIDATES[self.bits]
        if not self.adaptive_microexponent:
            specs = specs[:1]
        return tuple(_element(self.bits, s) for s in specs)

    @property
    def tag_bits(self) -> int:
        n = len(self.candidates)
        return math.ceil(math.log2(n)) if n > 1 else 0

    @property
    def scale_nan_code(self) -> int:
        return 0xFF << self.nano_mantissa_bits

    @property
    def neg_zero_code(self) -> int:
        return 1 << (self.bits - 1)

    def effective_bits(self, shape: tuple[int, ...] | None = None) -> float:
        return self.bits + (8 + self.nano_mantissa_bits + self.tag_bits) / self.block_size

    # -- scales ------------------------------------------------------------------------
    def _scale(self, amax: np.ndarray, elem: FloatFormat) -> tuple[np.ndarray, np.ndarray]:
        """Scale codes and scale values for blocks of maximum ``amax``."""
        k = self.nano_mantissa_bits
        nz = amax > 0
        safe = np.where(nz, amax, 1.0)
        if k == 0:
            e = floor_log2(safe) - elem.emax
            man = np.zeros_like(e)
            underflow = np.zeros(amax.shape, dtype=bool)
        else:
            ideal = safe / elem.max_value
            # A subnormal amax can underflow amax / elem_max to 0: such a block is below
            # the smallest scale, like an all-zero block.
            underflow = ideal == 0
            ideal = np.where(underflow, 1.0, ideal)
            e = floor_log2(ideal)
            man = np.ceil((np.ldexp(ideal, -e) - 1.0) * 2**k).astype(np.int64)
            e = np.where(man == 2**k, e + 1, e)
            man = np.where(man == 2**k, 0, man)
        low = (e < -E8M0_BIAS) | ~nz | underflow
        e = np.clip(e, -E8M0_BIAS, E8M0_BIAS)
        man = np.where(low, 0, np.where(e == E8M0_BIAS, np.minimum(man, 2**k - 1), man))
        codes = ((e + E8M0_BIAS) << k) | man
        return codes, self._scale_value(codes)

    def _scale_value(self, codes: np.ndarray) -> np.ndarray:
        k = self.nano_mantissa_bits
        e = (codes >> k) - E8M0_BIAS
        man = codes & (2**k - 1)
        return np.ldexp(1.0 + man / 2**k, e)

    # -- elements ----------------------------------------------------------------------
    def _encode_elements(self, scaled: np.ndarray, elem: FloatFormat) -> np.ndarray:
        codes = encode_element(elem, scaled, "rne").astype(np.int64)
        if self.code_recycling:
            # Values rounding to -0 take +0: the -0 code now means something else.
            codes = np.where(codes == self.neg_zero_code, 0, codes)
            r = recycled_value(elem)
            err_now = np.abs(scaled - elem.decode(codes))
            codes = np.where(np.abs(scaled - r) < err_now, self.neg_zero_code, codes)
        return codes

    def _decode_elements(self, codes: np.ndarray, elem: FloatFormat) -> np.ndarray:
        vals = elem.decode(codes)
        if self.code_recycling:
            vals = np.where(codes == self.neg_zero_code, recycled_value(elem), vals)
        return vals

    def encode(self, x: Any) -> BlockEncoding:
        x = as_float64(x)
        blocks, moved = to_blocks(x, self.block_size, self.axis)
        bad = ~np.isfinite(blocks).all(axis=-1)
        blocks = np.where(bad[..., None], 0.0, blocks)
        amax = np.max(np.abs(blocks), axis=-1)
        best = None
        for t, elem in enumerate(self.candidates):
            scodes, svals = self._scale(amax, elem)
            codes = self._encode_elements(blocks / svals[..., None], elem)
            err = np.sum((self._decode_elements(codes, elem) * svals[..., None] - blocks) ** 2,
                         axis=-1)
            if best is None:
                best = (err, codes, scodes, np.zeros(amax.shape, np.int64))
            else:
                better = err < best[0]  # ties keep the earlier (base) encoding
                best = (np.where(better, err, best[0]),
                        np.where(better[..., None], codes, best[1]),
                        np.where(better, scodes, best[2]), np.where(better, t, best[3]))
        assert best is not None
        _, codes, scodes, tags = best
        codes = np.where(bad[..., None], 0, codes)
        scodes = np.where(bad, self.scale_nan_code, scodes)
        return BlockEncoding(codes=codes.astype(np.uint8 if self.bits <= 8 else np.uint16),
                             scales=scodes.astype(np.uint16), shape=x.shape, moved_shape=moved,
                             axis=self.axis, tags=tags.astype(np.uint8))

    def decode(self, codes: BlockEncoding) -> np.ndarray:
        if not isinstance(codes, BlockEncoding):
            raise FormatError(f"{self.name} decodes a BlockEncoding, not {type(codes).__name__}")
        c = codes.codes.astype(np.int64)
        s = codes.scales.astype(np.int64)
        tags = codes.tags if codes.tags is not None else np.zeros(s.shape, np.int64)
        vals = np.zeros(c.shape)
        for t, elem in enumerate(self.candidates):
            vals = np.where((tags == t)[..., None], self._decode_elements(c, elem), vals)
        vals = vals * self._scale_value(s)[..., None]
        nan = (s >> self.nano_mantissa_bits) == 0xFF
        vals = np.where(nan[..., None], np.nan, vals)
        return from_blocks(vals, codes.moved_shape, codes.axis, len(codes.shape))
