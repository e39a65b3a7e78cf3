"""AdaptivFloat (Tambe et al., DAC 2020): a float whose exponent bias adapts per tensor.

With ``granularity="channel"`` the bias adapts per channel instead: one ``exp_bias`` per
index along ``axis`` (for an ``(out, in)`` weight and ``axis=0``, one per output row), each
chosen from that channel's maximum exactly as the per-tensor bias is from the tensor's.

Format ``AdaptivFloat(n, e)``: 1 sign bit, ``e`` exponent bits, ``m = n - 1 - e`` mantissa
bits. Per tensor: ``exp_max = floor(log2(max|w|))`` and ``exp_bias = exp_max - (2**e - 1)``.
A code ``(s, E, M)`` means ``(-1)**s * 2**(E + exp_bias) * (1 + M / 2**m)``, except
``E = 0, M = 0`` which is zero (no denormals). So the smallest magnitude is
``v_min = 2**exp_bias * (1 + 2**-m)`` and the largest ``v_max = 2**exp_max * (2 - 2**-m)``.
Values below ``v_min / 2`` flush to zero, values in ``[v_min / 2, v_min]`` go to ``v_min``,
values above ``v_max`` saturate to it, the rest round the mantissa to nearest even.

**The bias field** (:attr:`AdaptivFloatEncoding.exp_bias`) stores ``exp_bias`` itself: the
unbiased exponent of the binade of exponent field 0 (a signed integer; hardware keeps it in
an 8-bit two's complement register, counted in :meth:`AdaptivFloat.effective_bits`).
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
    floor_log2,
    round_integer,
)

__all__ = ["AdaptivFloat", "AdaptivFloatEncoding"]

Granularity = Literal["tensor", "channel"]
_GRANULARITIES = ("tensor", "channel")


@dataclass(frozen=True)
class AdaptivFloatEncoding:
    """Codes (unsigned, ``s|E|M`` bit fields) and their ``exp_bias``.

    ``exp_bias`` is the tensor's integer bias (``granularity="tensor"``), or an int64 array
    of per-channel biases that broadcasts against ``codes`` (size 1 on every axis but the
    channel axis; ``granularity="channel"``).
    """

    codes: np.ndarray
    exp_bias: int | np.ndarray


@dataclass(frozen=True, kw_only=True)
class AdaptivFloat(Format):
    """AdaptivFloat with ``n`` bits of which ``e`` are exponent.

    Parameters
    ----------
    n : int
        Total bits per element, 3..16.
    e : int
        Exponent bits, ``1 <= e <= n - 1``.
    rounding : {"rne", "rna"}
        Mantissa rounding: nearest even (the paper) or nearest ties away.
    granularity : {"tensor", "channel"}
        One exponent bias per tensor (the paper), or one per index along ``axis``.
    axis : int
        The channel axis of ``"channel"`` granularity (``0``: one bias per output row of an
        ``(out, in)`` weight); unused for ``"tensor"``.
    bias_bits : int
        Storage of one bias, for :meth:`effective_bits`.
    """

    n: int
    e: int
    rounding: str = "rne"
    granularity: Granularity = "tensor"
    axis: int = 0
    bias_bits: int = 8
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or not 2 <= self.n <= 16:
            raise ValueError(f"n must be an integer in 2..16, not {self.n!r}")
        if not isinstance(self.e, int) or not 1 <= self.e <= self.n - 1:
            raise ValueError(f"e must be an integer in 1..n-1 = 1..{self.n - 1}, not {self.e!r}")
        if self.rounding not in ("rne", "rna"):
            raise ValueError(f"rounding must be one of ('rne', 'rna'), not {self.rounding!r}")
        if self.granularity not in _GRANULARITIES:
            raise ValueError(f"granularity must be one of {_GRANULARITIES}, "
                             f"not {self.granularity!r}")
        if not isinstance(self.axis, int) or isinstance(self.axis, bool):
            raise ValueError(f"axis must be an integer, not {self.axis!r}")
        if not isinstance(self.bias_bits, int) or self.bias_bits < 1:
            raise ValueError(f"bias_bits must be a positive integer, not {self.bias_bits!r}")
        object.__setattr__(self, "bits", self.n)
        if not self.name:
            suffix = "_channel" if self.granularity == "channel" else ""
            object.__setattr__(self, "name", f"adaptivfloat{self.n}_e{self.e}{suffix}")

    @property
    def m(self) -> int:
        """Mantissa bits."""
        return self.n - 1 - self.e

    def exp_bias_for(self, x: Any) -> int:
        """``exp_bias`` the tensor ``x`` gets: ``floor(log2 max|x|) - (2**e - 1)``."""
        a = np.abs(as_float64(x))
        amax = float(a.max()) if a.size else 0.0
        exp_max = int(floor_log2(np.asarray(amax))) if amax > 0 else 0
        return exp_max - (2**self.e - 1)

    def channel_exp_biases(self, x: Any) -> np.ndarray:
        """Per-channel ``exp_bias`` of ``x`` along :attr:`axis` (int64, kept dimensions).

        Each entry is :meth:`exp_bias_for` of that channel's slice.
        """
        a = np.abs(as_float64(x))
        ax = channel_axis(self.axis, a.ndim, self.granularity)
        others = tuple(i for i in range(a.ndim) if i != ax)
        if not a.size:
            return np.zeros(tuple(1 if i != ax else a.shape[ax] for i in range(a.ndim)),
                            np.int64) - (2**self.e - 1)
        amax = np.max(a, axis=others, keepdims=True)
        exp_max = np.where(amax > 0, floor_log2(np.where(amax > 0, amax, 1.0)), 0)
        return (exp_max - (2**self.e - 1)).astype(np.int64)

    def value_range(self, exp_bias: int) -> tuple[float, float]:
        """``(v_min, v_max)`` for a given ``exp_bias``."""
        m = self.m
        v_min = float(np.ldexp(1.0 + 2.0**-m, exp_bias))
        v_max = float(np.ldexp(2.0 - 2.0**-m, exp_bias + 2**self.e - 1))
        return v_min, v_max

    def encode(self, x: Any, *,
               exp_bias: int | np.ndarray | None = None) -> AdaptivFloatEncoding:
        """Encode ``x``; ``exp_bias`` defaults to the one ``x``'s maximum implies.

        For ``"channel"`` granularity a given ``exp_bias`` is an integer array that
        broadcasts against ``x`` (the shape :meth:`channel_exp_biases` returns).
        """
        x = as_float64(x)
        if not np.isfinite(x).all():
            raise FormatError(f"format {self.name} has no NaN or infinity: cannot encode them")
        m = self.m
        bias: int | np.ndarray
        if self.granularity == "channel":
            bias = (self.channel_exp_biases(x) if exp_bias is None
                    else np.asarray(exp_bias, dtype=np.int64))
            # The range formulas of value_range, per channel (ldexp takes array exponents).
            v_min: Any = np.ldexp(1.0 + 2.0**-m, bias)
            v_max: Any = np.ldexp(2.0 - 2.0**-m, bias + 2**self.e - 1)
        else:
            bias = self.exp_bias_for(x) if exp_bias is None else int(exp_bias)
            v_min, v_max = self.value_range(bias)
        a = np.abs(x)
        a = np.where(a < v_min / 2, 0.0, np.where(a <= v_min, v_min, np.minimum(a, v_max)))
        nz = a > 0
        ex = floor_log2(np.where(nz, a, 1.0))
        r = round_integer(np.ldexp(a, -(ex - m)), self.rounding, None).astype(np.int64)
        carry = r == 2 ** (m + 1)
        ex = np.where(carry, ex + 1, ex)
        r = np.where(carry, 2**m, r)
        exp_field = np.where(nz, ex - bias, 0)
        man_field = np.where(nz, r - 2**m, 0)
        codes = (np.signbit(x).astype(np.int64) << (self.n - 1)) | (exp_field << m) | man_field
        return AdaptivFloatEncoding(codes=codes.astype(np.uint16 if self.n > 8 else np.uint8),
                                    exp_bias=bias)

    def decode(self, codes: AdaptivFloatEncoding) -> np.ndarray:
        if not isinstance(codes, AdaptivFloatEncoding):
            raise FormatError(f"{self.name} decodes an AdaptivFloatEncoding, "
                              f"not {type(codes).__name__}")
        c = np.asarray(codes.codes).astype(np.int64)
        if c.size and (c.min() < 0 or c.max() >= 2**self.n):
            raise FormatError(f"codes of {self.name} must lie in 0..{2**self.n - 1}")
        m = self.m
        sign = (c >> (self.n - 1)) & 1
        exp_field = (c >> m) & (2**self.e - 1)
        man_field = c & (2**m - 1)
        val = np.ldexp((man_field + 2**m).astype(np.float64), exp_field + codes.exp_bias - m)
        val = np.where((exp_field == 0) & (man_field == 0), 0.0, val)
        return np.where(sign == 1, -val, val)

    def effective_bits(self, shape: tuple[int, ...] | None = None) -> float:
        """``n + bias_bits * n_biases / n_elements``: one bias per tensor or per channel."""
        if shape is None:
            raise FormatError(f"effective_bits of {self.name} needs the tensor shape")
        n_elem = max(int(np.prod(shape)), 1)
        if self.granularity == "tensor":
            return self.n + self.bias_bits / n_elem
        return self.n + self.bias_bits * shape[channel_axis(self.axis, len(shape))] / n_elem
