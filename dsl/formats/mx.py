"""OCP Microscaling formats (MX v1.0) and the MX dot product.

A block of ``block_size`` (32) elements along ``axis`` shares one E8M0 scale
``X = 2**(code - 127)`` (code 0xFF is NaN). The shared exponent is
``floor(log2(amax)) - emax_elem``, clamped to E8M0's range ``[-127, 127]``; an all-zero block
gets the smallest scale (code 0). Elements ``x / X`` are rounded to nearest even (the spec's
mode; ``rounding="rna"`` gives the reference code's ties-away) and clamped to the element's
largest normal. A block holding a NaN or infinity gets the NaN scale and decodes to NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .base import Format, FormatError, as_float64, floor_log2, from_blocks, round_integer, to_blocks
from .ieee import FP4_E2M1, FP6_E2M3, FP6_E3M2, FP8_E4M3, FP8_E5M2, FloatFormat

__all__ = [
    "BlockEncoding",
    "FixedPointElement",
    "INT8_ELEMENT",
    "MX_ELEMENTS",
    "MXFormat",
    "E8M0_NAN",
    "mx_dot",
    "mx_block_dot_exact",
]

E8M0_NAN = 0xFF
E8M0_BIAS = 127


@dataclass(frozen=True)
class BlockEncoding:
    """Element codes in blocks plus per-block metadata.

    Attributes
    ----------
    codes : ndarray
        ``(..., n_blocks, block_size)`` element codes, the blocked axis moved last.
    scales : ndarray
        ``(..., n_blocks)`` scale codes (E8M0, E8Mk or a block exponent).
    tags : ndarray or None
        ``(..., n_blocks)`` index of each block's element encoding (NxFP), else None.
    shape : tuple
        Shape of the encoded array; ``moved_shape`` the same with ``axis`` moved last.
    """

    codes: np.ndarray
    scales: np.ndarray
    shape: tuple[int, ...]
    moved_shape: tuple[int, ...]
    axis: int
    tags: np.ndarray | None = None


@dataclass(frozen=True, kw_only=True)
class FixedPointElement(Format):
    """MX's INT8 element: two's complement ``q * 2**-frac_bits``, ``q`` clamped to +-127."""

    bits: int = 8
    frac_bits: int = 6
    name: str = "int8"

    @property
    def emax(self) -> int:
        return self.bits - 2 - self.frac_bits

    @property
    def max_value(self) -> float:
        return (2 ** (self.bits - 1) - 1) * 2.0**-self.frac_bits

    def encode(self, x: Any, *, rounding: str = "rne") -> np.ndarray:
        x = as_float64(x)
        lim = 2 ** (self.bits - 1) - 1
        q = np.sign(x) * round_integer(np.abs(np.ldexp(x, self.frac_bits)), rounding, None)
        q = np.clip(q, -lim, lim).astype(np.int64)
        return (q & (2**self.bits - 1)).astype(np.uint8 if self.bits <= 8 else np.uint16)

    def decode(self, codes: Any) -> np.ndarray:
        c = np.asarray(codes).astype(np.int64)
        q = np.where(c >= 2 ** (self.bits - 1), c - 2**self.bits, c)
        return np.ldexp(q.astype(np.float64), -self.frac_bits)


INT8_ELEMENT = FixedPointElement()

#: MX element formats by name, each in its saturating form.
MX_ELEMENTS: dict[str, FloatFormat | FixedPointElement] = {
    "fp8_e4m3": FP8_E4M3.with_(overflow="saturate", name="fp8_e4m3"),
    "fp8_e5m2": FP8_E5M2.with_(overflow="saturate", name="fp8_e5m2"),
    "fp6_e3m2": FP6_E3M2,
    "fp6_e2m3": FP6_E2M3,
    "fp4_e2m1": FP4_E2M1,
    "int8": INT8_ELEMENT,
}

_MX_NAMES = {"fp8_e4m3": "mxfp8_e4m3", "fp8_e5m2": "mxfp8_e5m2", "fp6_e3m2": "mxfp6_e3m2",
             "fp6_e2m3": "mxfp6_e2m3", "fp4_e2m1": "mxfp4", "int8": "mxint8"}


def element_emax(elem: FloatFormat | FixedPointElement) -> int:
    """Exponent of the element's largest normal (``emax_elem`` of the MX spec)."""
    return elem.emax


def encode_element(elem: Format, scaled: np.ndarray, rounding: str) -> np.ndarray:
    """Round already-scaled values to a saturating element format."""
    if isinstance(elem, FixedPointElement):
        return elem.encode(scaled, rounding=rounding)
    assert isinstance(elem, FloatFormat)
    fmt = elem if elem.rounding == rounding else elem.with_(rounding=rounding, name=elem.name)
    clamped = np.clip(scaled, -fmt.max_value, fmt.max_value)  # clamp first: saturate
    return fmt.encode(clamped)


@dataclass(frozen=True, kw_only=True)
class MXFormat(Format):
    """An OCP MX format: ``element`` codes sharing one E8M0 scale per ``block_size`` block.

    Parameters
    ----------
    element : str
        One of ``MX_ELEMENTS``: ``fp8_e4m3``, ``fp8_e5m2``, ``fp6_e3m2``, ``fp6_e2m3``,
        ``fp4_e2m1``, ``int8``.
    block_size : int
        Elements per shared scale (32 in the spec); a short last block is zero-padded.
    axis : int
        The axis blocks run along (the reduction axis of a dot product).
    rounding : {"rne", "rna"}
    """

    element: str
    block_size: int = 32
    axis: int = -1
    rounding: str = "rne"
    name: str = ""

    def __post_init__(self) -> None:
        if self.element not in MX_ELEMENTS:
            raise ValueError(f"element must be one of {tuple(MX_ELEMENTS)}, not {self.element!r}")
        if not isinstance(self.block_size, int) or self.block_size < 1:
            raise ValueError(f"block_size must be a positive integer, not {self.block_size!r}")
        if self.rounding not in ("rne", "rna"):
            raise ValueError(f"rounding must be one of ('rne', 'rna'), not {self.rounding!r}")
        object.__setattr__(self, "bits", MX_ELEMENTS[self.element].bits)
        if not self.name:
            object.__setattr__(self, "name", _MX_NAMES[self.element])

    @property
    def elem(self) -> FloatFormat | FixedPointElement:
        return MX_ELEMENTS[self.element]

    def shared_exponent(self, amax: np.ndarray) -> np.ndarray:
        """``floor(log2(amax)) - emax_elem`` clamped to [-127, 127]; -127 for zero blocks."""
        amax = np.asarray(amax, dtype=np.float64)
        e = floor_log2(np.where(amax > 0, amax, 1.0)) - element_emax(self.elem)
        return np.where(amax > 0, np.clip(e, -E8M0_BIAS, E8M0_BIAS), -E8M0_BIAS)

    def encode(self, x: Any) -> BlockEncoding:
        x = as_float64(x)
        blocks, moved = to_blocks(x, self.block_size, self.axis)
        bad = ~np.isfinite(blocks).all(axis=-1)
        blocks = np.where(bad[..., None], 0.0, blocks)
        shared = self.shared_exponent(np.max(np.abs(blocks), axis=-1))
        codes = encode_element(self.elem, np.ldexp(blocks, -shared[..., None]), self.rounding)
        codes = np.where(bad[..., None], 0, codes).astype(codes.dtype)
        scales = np.where(bad, E8M0_NAN, shared + E8M0_BIAS).astype(np.uint8)
        return BlockEncoding(codes=codes, scales=scales, shape=x.shape, moved_shape=moved,
                             axis=self.axis)

    def decode(self, codes: BlockEncoding) -> np.ndarray:
        if not isinstance(codes, BlockEncoding):
            raise FormatError(f"{self.name} decodes a BlockEncoding, not {type(codes).__name__}")
        s = codes.scales.astype(np.int64)
        vals = np.ldexp(self.elem.decode(codes.codes), (s - E8M0_BIAS)[..., None])
        vals = np.where((s == E8M0_NAN)[..., None], np.nan, vals)
        return from_blocks(vals, codes.moved_shape, codes.axis, len(codes.shape))

    def effective_bits(self, shape: tuple[int, ...] | None = None) -> float:
        return self.bits + 8 / self.block_size

    def dot(self, a: Any, b: Any, *, other: MXFormat | None = None) -> float:
        """MX dot product of two 1-D vectors ``a`` (this format) and ``b`` (``other``)."""
        other = other or self
        return mx_dot(self, self.encode(a), other, other.encode(b))


def _element_integers(elem: Format, codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Element values as exact integers ``q`` and the shift ``k`` with value = ``q * 2**-k``."""
    if isinstance(elem, FixedPointElement):
        k = elem.frac_bits
    else:
        assert isinstance(elem, FloatFormat)
        k = elem.man_bits - elem.emin
    q = np.ldexp(elem.decode(codes), k)
    return q.astype(np.int64), k


def mx_block_dot_exact(fmt_a: MXFormat, enc_a: BlockEncoding, fmt_b: MXFormat,
                       enc_b: BlockEncoding) -> tuple[list[int], list[int]]:
    """Per-block exact integer sums ``sum_i qa_i * qb_i`` and their power-of-two exponents.

    Block ``j`` contributes ``acc[j] * 2**exp[j]`` with
    ``exp[j] = X_A[j] + X_B[j] - k_A - k_B`` (the wide fixed-point accumulator of hardware).
    Raises :class:`FormatError` for a NaN scale.
    """
    if enc_a.codes.ndim != 2 or enc_a.codes.shape != enc_b.codes.shape:
        raise FormatError("mx_dot needs two 1-D vectors encoded with the same block size "
                          f"and length, got blocks {enc_a.codes.shape} and {enc_b.codes.shape}")
    if (enc_a.scales == E8M0_NAN).any() or (enc_b.scales == E8M0_NAN).any():
        raise FormatError("mx_dot input has a NaN scale (0xFF)")
    qa, ka = _element_integers(fmt_a.elem, enc_a.codes)
    qb, kb = _element_integers(fmt_b.elem, enc_b.codes)
    # Products of E5M2 integers need ~64 bits: accumulate as Python integers, exactly.
    acc = (qa.astype(object) * qb.astype(object)).sum(axis=-1)
    exps = (enc_a.scales.astype(np.int64) - E8M0_BIAS + enc_b.scales.astype(np.int64)
            - E8M0_BIAS - ka - kb)
    return [int(v) for v in acc], [int(v) for v in exps]


def mx_dot(fmt_a: MXFormat, enc_a: BlockEncoding, fmt_b: MXFormat, enc_b: BlockEncoding) -> float:
    """``Dot(A, B) = sum_j X_A[j] X_B[j] sum_i P_i(A) P_i(B)``, exact, rounded once to float64."""
    acc, exps = mx_block_dot_exact(fmt_a, enc_a, fmt_b, enc_b)
    total = sum((Fraction(a) * Fraction(2) ** e for a, e in zip(acc, exps, strict=True)),
                Fraction(0))
    return float(total)  # int / int true division is correctly rounded
