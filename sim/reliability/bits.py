"""Tensors held in a number format as bit patterns, and bit flips in them.

A fault flips bits of the stored pattern of one element, not of its value: the same flip
means different value errors in FP32, BF16, INT8 or AdaptivFloat. :func:`encode_tensor`
holds a tensor in one of archsim's element formats (:mod:`archsim.dsl.formats`) as one
unsigned pattern per element together with what decodes it (an integer format's scale, an
AdaptivFloat tensor's exponent bias), so :meth:`EncodedTensor.flipped` can decode any
element with any XOR mask, vectorized over many faults.

Supported formats: :class:`~archsim.dsl.formats.FloatFormat` (FP32, BF16, FP16, the FP8/FP6/FP4
minifloats), :class:`~archsim.dsl.formats.IntFormat` with ``"tensor"`` or ``"channel"``
granularity (symmetric codes are stored in ``bits``-bit two's complement, asymmetric ones as
unsigned), and :class:`~archsim.dsl.formats.AdaptivFloat`. Block formats (MX, NxFP, block
float) share a scale between elements; a flip in that scale is a different fault model and is
not offered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dsl.formats import AdaptivFloat, FloatFormat, Format, IntFormat
from ...dsl.formats.adaptivfloat import AdaptivFloatEncoding
from ...errors import ConfigError
from ...hw.checks import check_int, check_positive

__all__ = ["FAULT_FORMATS", "EncodedTensor", "encode_tensor", "random_masks", "format_bits"]

#: The format classes :func:`encode_tensor` accepts.
FAULT_FORMATS = (FloatFormat, IntFormat, AdaptivFloat)


def format_bits(fmt: Format) -> int:
    """Bits of one stored element of ``fmt`` (a :data:`FAULT_FORMATS` instance)."""
    if isinstance(fmt, AdaptivFloat):
        return int(fmt.n)
    if isinstance(fmt, FloatFormat | IntFormat):
        return int(fmt.bits)
    raise ConfigError(f"bit flips are not modelled in format {type(fmt).__name__}",
                      field="fmt", allowed=[c.__name__ for c in FAULT_FORMATS])


@dataclass(frozen=True, kw_only=True, eq=False)
class EncodedTensor:
    """A tensor stored in ``fmt``: element bit patterns plus the metadata that decodes them.

    Attributes
    ----------
    fmt : Format
        The number format.
    bits : int
        Bits per element.
    codes : numpy.ndarray
        ``(size,)`` uint64 bit patterns, in ``0 .. 2**bits - 1``, in C order of ``shape``.
    values : numpy.ndarray
        ``(size,)`` float64: the fault-free decoded values (``fmt``'s quantization of the
        input).
    shape : tuple of int
        The tensor's shape.
    """

    fmt: Format
    bits: int
    codes: np.ndarray
    values: np.ndarray
    shape: tuple[int, ...]
    # Per element (C order) decoding metadata: integer scale and zero point; AdaptivFloat bias.
    _scale: np.ndarray | None = None
    _zero_point: np.ndarray | None = None
    _exp_bias: int = 0

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self.codes.size)

    def decode(self, index: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Values (float64) of bit patterns ``codes`` stored at flat element ``index``."""
        idx = np.asarray(index, np.int64)
        c = np.asarray(codes, np.uint64)
        if idx.shape != c.shape:
            raise ValueError(f"index and codes must have one shape, not {idx.shape} and "
                             f"{c.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise ValueError(f"element index must be in 0..{self.size - 1}")
        if isinstance(self.fmt, FloatFormat):
            return np.asarray(self.fmt.decode(c.astype(np.int64)), np.float64)
        if isinstance(self.fmt, AdaptivFloat):
            enc = AdaptivFloatEncoding(codes=c.astype(np.int64), exp_bias=self._exp_bias)
            return np.asarray(self.fmt.decode(enc), np.float64)
        assert isinstance(self.fmt, IntFormat)
        assert self._scale is not None and self._zero_point is not None
        q = c.astype(np.int64)
        if self.fmt.symmetric:  # two's complement of `bits` bits back to a signed code
            q = np.where(q >= 2 ** (self.bits - 1), q - 2**self.bits, q)
        return (q - self._zero_point[idx]) * self._scale[idx]

    def flipped(self, index: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Values (float64) of the elements at flat ``index`` after XOR-ing their patterns
        with ``masks`` (same shape; each mask below ``2**bits``)."""
        m = np.asarray(masks, np.uint64)
        if m.size and int(m.max()) >= 2**self.bits:
            raise ValueError(f"masks must be below 2**{self.bits}")
        idx = np.asarray(index, np.int64)
        return self.decode(idx, self.codes[idx] ^ m)


def encode_tensor(x: np.ndarray, *, fmt: Format) -> EncodedTensor:
    """Store ``x`` in ``fmt`` (round to nearest even; integer scales from ``x`` itself).

    Parameters
    ----------
    x : array_like
        The tensor (finite values).
    fmt : FloatFormat, IntFormat or AdaptivFloat
        The storage format; an :class:`IntFormat` must have ``"tensor"`` or ``"channel"``
        granularity.

    Returns
    -------
    EncodedTensor
    """
    bits = format_bits(fmt)
    arr = np.asarray(x, np.float64)
    if not np.isfinite(arr).all():
        raise ValueError("the tensor to encode must be finite")
    shape = tuple(int(s) for s in arr.shape)
    if isinstance(fmt, FloatFormat):
        codes = np.asarray(fmt.encode(arr), np.uint64).ravel()
        values = np.asarray(fmt.decode(codes.astype(np.int64)), np.float64)
        return EncodedTensor(fmt=fmt, bits=bits, codes=codes, values=values, shape=shape)
    if isinstance(fmt, AdaptivFloat):
        enc = fmt.encode(arr)
        codes = np.asarray(enc.codes, np.uint64).ravel()
        values = np.asarray(fmt.decode(enc), np.float64).ravel()
        return EncodedTensor(fmt=fmt, bits=bits, codes=codes, values=values, shape=shape,
                             _exp_bias=int(enc.exp_bias))
    assert isinstance(fmt, IntFormat)
    if fmt.granularity not in ("tensor", "channel"):
        raise ConfigError(f"bit flips in integer format {fmt.name} need 'tensor' or 'channel' "
                          f"granularity, not {fmt.granularity!r}", field="fmt.granularity",
                          allowed=["tensor", "channel"])
    ienc = fmt.encode(arr)
    q = np.asarray(ienc.codes, np.int64).ravel()
    scale = np.broadcast_to(ienc.scale, arr.shape).astype(np.float64).ravel()
    zp = np.broadcast_to(ienc.zero_point, arr.shape).astype(np.float64).ravel()
    codes = (q & (2**bits - 1)).astype(np.uint64)
    values = np.asarray(fmt.decode(ienc), np.float64).ravel()
    return EncodedTensor(fmt=fmt, bits=bits, codes=codes, values=values, shape=shape,
                         _scale=scale, _zero_point=zp)


def random_masks(*, n: int, bits: int, flips_per_fault: int = 1,
                 rng: np.random.Generator) -> np.ndarray:
    """``n`` XOR masks of ``bits``-bit patterns, each with ``flips_per_fault`` distinct bits set
    (bit positions uniform without replacement).

    Returns
    -------
    numpy.ndarray
        ``(n,)`` uint64.
    """
    check_positive("n", n)
    check_int("bits", bits, 1, 63)
    check_int("flips_per_fault", flips_per_fault, 1, bits)
    if flips_per_fault == 1:
        pos = rng.integers(0, bits, size=(n, 1))
    else:  # distinct positions: the first k of a random permutation of the bits, per row
        pos = np.argsort(rng.random((n, bits)), axis=1)[:, :flips_per_fault]
    return np.bitwise_or.reduce(np.left_shift(np.uint64(1), pos.astype(np.uint64)), axis=1)
