"""Bit-accurate number formats: the golden models of archsim's numeric types.

Every format is an immutable object with ``name``, ``bits``, ``encode(x)``, ``decode(codes)``,
``quantize(x)`` and ``effective_bits(shape)``. Element formats (:class:`FloatFormat`) encode
to integer arrays of bit patterns; scaled formats return typed encodings holding codes plus
metadata (:class:`IntEncoding`, :class:`AdaptivFloatEncoding`, :class:`BlockEncoding`).
"""

from .adaptivfloat import AdaptivFloat, AdaptivFloatEncoding
from .base import ROUNDINGS, Format, FormatError, Rounding
from .blockfloat import BlockFloat
from .ieee import (
    BF16,
    FP4_E2M1,
    FP6_E2M3,
    FP6_E3M2,
    FP8_E4M3,
    FP8_E5M2,
    FP16,
    FP32,
    FloatFormat,
    minifloat,
)
from .integer import IntEncoding, IntFormat
from .mx import (
    E8M0_NAN,
    INT8_ELEMENT,
    MX_ELEMENTS,
    BlockEncoding,
    FixedPointElement,
    MXFormat,
    mx_block_dot_exact,
    mx_dot,
)
from .nxfp import NXFP_CANDIDATES, NxFPFormat, recycled_value

__all__ = [
    "Format", "FormatError", "Rounding", "ROUNDINGS",
    "FloatFormat", "minifloat", "FP32", "BF16", "FP16", "FP8_E4M3", "FP8_E5M2", "FP6_E3M2",
    "FP6_E2M3", "FP4_E2M1",
    "IntFormat", "IntEncoding",
    "AdaptivFloat", "AdaptivFloatEncoding",
    "BlockFloat",
    "MXFormat", "BlockEncoding", "FixedPointElement", "INT8_ELEMENT", "MX_ELEMENTS", "E8M0_NAN",
    "mx_dot", "mx_block_dot_exact",
    "NxFPFormat", "NXFP_CANDIDATES", "recycled_value",
]
