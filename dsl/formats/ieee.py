"""IEEE-style binary floating point of any small width, bit-exact.

One parameterized class, :class:`FloatFormat`, covers FP32, BF16, FP16, the OCP FP8 formats
(E4M3 with a single NaN pattern per sign and no infinity; E5M2 IEEE-like), the OCP FP6
formats E3M2/E2M3 and FP4 E2M1 (no infinity, no NaN), and any custom ``EeMm`` element.
All have subnormals. Rounding is to nearest, ties to even by default; ties away from zero,
toward zero and (seeded) stochastic rounding are options.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from .base import Format, FormatError, as_float64, check_rounding, floor_log2, round_integer

__all__ = [
    "FloatFormat",
    "FP32",
    "BF16",
    "FP16",
    "FP8_E4M3",
    "FP8_E5M2",
    "FP6_E3M2",
    "FP6_E2M3",
    "FP4_E2M1",
    "minifloat",
]

Special = Literal["ieee", "nan_only", "none"]
Overflow = Literal["saturate", "inf", "nan"]
_SPECIALS = ("ieee", "nan_only", "none")
_OVERFLOWS = ("saturate", "inf", "nan")
#: The overflow policy each kind of special codes implies when none is given.
_DEFAULT_OVERFLOW: dict[str, Overflow] = {"ieee": "inf", "nan_only": "nan", "none": "saturate"}


def _code_dtype(bits: int) -> type:
    return np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32


@dataclass(frozen=True, kw_only=True)
class FloatFormat(Format):
    """A sign / ``exp_bits`` exponent / ``man_bits`` mantissa binary float with subnormals.

    Parameters
    ----------
    exp_bits, man_bits : int
        Field widths; ``bits = 1 + exp_bits + man_bits``.
    bias : int, optional
        Exponent bias; default ``2**(exp_bits - 1) - 1``.
    special : {"ieee", "nan_only", "none"}
        ``"ieee"``: the all-ones exponent holds infinities (mantissa 0) and NaNs.
        ``"nan_only"``: only ``S.1..1.1..1`` is NaN, no infinity (OCP E4M3).
        ``"none"``: every code is finite (OCP FP6/FP4).
    overflow : {"saturate", "inf", "nan"}, optional
        What a finite value beyond the largest finite one becomes after rounding.
        Default: ``"inf"`` for ``"ieee"``, ``"nan"`` for ``"nan_only"`` (the OCP
        non-saturating mode), ``"saturate"`` for ``"none"``. Rounding toward zero
        always saturates finite values, as IEEE 754 specifies.
    rounding : {"rne", "rna", "rtz", "stochastic"}
    seed : int
        Seed of the stochastic rounding; each :meth:`encode` call without ``rng`` restarts it.
    name : str, optional
    """

    exp_bits: int
    man_bits: int
    bias: int | None = None
    special: Special = "ieee"
    overflow: Overflow | None = None
    rounding: str = "rne"
    seed: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.exp_bits, int) or not 1 <= self.exp_bits <= 8:
            raise ValueError(f"exp_bits must be an integer in 1..8, not {self.exp_bits!r}")
        if not isinstance(self.man_bits, int) or not 0 <= self.man_bits <= 23:
            raise ValueError(f"man_bits must be an integer in 0..23, not {self.man_bits!r}")
        if self.special not in _SPECIALS:
            raise ValueError(f"special must be one of {_SPECIALS}, not {self.special!r}")
        if self.special == "nan_only" and self.man_bits == 0:
            raise ValueError("special='nan_only' needs at least one mantissa bit")
        if self.special == "ieee" and self.exp_bits < 2:
            raise ValueError("special='ieee' needs at least two exponent bits")
        check_rounding(self.rounding)
        bias = 2 ** (self.exp_bits - 1) - 1 if self.bias is None else self.bias
        if not isinstance(bias, int):
            raise ValueError(f"bias must be an integer, not {bias!r}")
        overflow = self.overflow
        if overflow is None:
            overflow = _DEFAULT_OVERFLOW[self.special]
        if overflow not in _OVERFLOWS:
            raise ValueError(f"overflow must be one of {_OVERFLOWS}, not {overflow!r}")
        if overflow == "inf" and self.special != "ieee":
            raise ValueError(f"overflow='inf' needs special='ieee', not {self.special!r}")
        if overflow == "nan" and self.special == "none":
            raise ValueError("overflow='nan' needs a format with a NaN code")
        object.__setattr__(self, "bias", bias)
        object.__setattr__(self, "overflow", overflow)
        object.__setattr__(self, "bits", 1 + self.exp_bits + self.man_bits)
        if not self.name:
            object.__setattr__(self, "name", f"e{self.exp_bits}m{self.man_bits}")

    # -- derived constants -------------------------------------------------------------
    @property
    def exponent_bias(self) -> int:
        """``bias`` as an int: construction resolves its default, so it is never None."""
        if self.bias is None:  # pragma: no cover - __post_init__ sets it
            raise AssertionError(f"{self.name}: bias unresolved")
        return self.bias

    @property
    def overflow_mode(self) -> Overflow:
        """``overflow`` as resolved on construction (never None)."""
        if self.overflow is None:  # pragma: no cover - __post_init__ sets it
            raise AssertionError(f"{self.name}: overflow unresolved")
        return self.overflow

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal number (``1 - bias``)."""
        return 1 - self.exponent_bias

    @property
    def max_exp_field(self) -> int:
        """Largest exponent field that holds finite values."""
        return 2**self.exp_bits - (2 if self.special == "ieee" else 1)

    @property
    def emax(self) -> int:
        """Exponent of the largest finite value."""
        return self.max_exp_field - self.exponent_bias

    @property
    def max_value(self) -> float:
        """Largest finite value."""
        top_man = 2**self.man_bits - (2 if self.special == "nan_only" else 1)
        return float(np.ldexp(2**self.man_bits + top_man, self.emax - self.man_bits))

    @property
    def min_subnormal(self) -> float:
        return float(np.ldexp(1.0, self.emin - self.man_bits))

    @property
    def min_normal(self) -> float:
        return float(np.ldexp(1.0, self.emin))

    @property
    def has_nan(self) -> bool:
        return self.special != "none"

    @property
    def has_inf(self) -> bool:
        return self.special == "ieee"

    def with_(self, **changes: Any) -> FloatFormat:
        """A copy with some fields changed (e.g. ``FP8_E4M3.with_(overflow="saturate")``)."""
        if "name" not in changes:
            changes["name"] = ""
        return replace(self, **changes)

    # -- codes -------------------------------------------------------------------------
    def _max_code(self) -> int:
        top_man = 2**self.man_bits - (2 if self.special == "nan_only" else 1)
        return (self.max_exp_field << self.man_bits) | top_man

    def _nan_code(self) -> int:
        if self.special == "ieee":  # quiet NaN: all-ones exponent, mantissa MSB set
            return ((2**self.exp_bits - 1) << self.man_bits) | max(1, 2 ** (self.man_bits - 1))
        return 2 ** (self.exp_bits + self.man_bits) - 1

    def _inf_code(self) -> int:
        return (2**self.exp_bits - 1) << self.man_bits

    def encode(self, x: Any, *, rng: np.random.Generator | None = None) -> np.ndarray:
        """Round ``x`` to the format and return its bit patterns (unsigned integers).

        NaN inputs give the NaN code (a :class:`FormatError` if the format has none).
        Infinities give the largest finite value when ``overflow="saturate"`` (OCP OFP8
        v1.0, Table 3), else infinity, or NaN when the format has no infinity.
        """
        x = as_float64(x)
        m = self.man_bits
        sign = np.signbit(x)
        nan = np.isnan(x)
        inf = np.isinf(x)
        if nan.any() and not self.has_nan:
            raise FormatError(f"format {self.name} has no NaN code: cannot encode NaN")
        a = np.where(nan | inf, 0.0, np.abs(x))
        e = np.maximum(floor_log2(np.where(a > 0, a, 1.0)), self.emin)
        s = np.ldexp(a, -(e - m))
        if self.rounding == "stochastic" and rng is None:
            rng = np.random.default_rng(self.seed)
        r = round_integer(s, self.rounding, rng).astype(np.int64)
        carry = r == 2 ** (m + 1)
        e = np.where(carry, e + 1, e)
        r = np.where(carry, 2**m, r)
        normal = r >= 2**m
        exp_field = np.where(normal, e + self.exponent_bias, 0)
        man_field = np.where(normal, r - 2**m, r)
        mag = (exp_field << m) | man_field
        over = mag > self._max_code()  # beyond the largest finite code (incl. exponent)
        policy = "saturate" if self.rounding == "rtz" else self.overflow_mode
        over_code = {"saturate": self._max_code(), "nan": self._nan_code(),
                     "inf": self._inf_code() if self.has_inf else 0}[policy]
        mag = np.where(over, over_code, mag)
        # Infinite inputs follow the overflow mode itself (not rounding): OCP OFP8 v1.0,
        # Table 3, saturating mode maps +-inf to +-max normal (57344 E5M2, 448 E4M3);
        # non-saturating mode keeps inf (E5M2) or gives NaN (E4M3, which has no inf).
        mode = self.overflow_mode
        if mode == "saturate":
            inf_code = self._max_code()
        elif self.has_inf:
            inf_code = self._inf_code()
        elif mode == "nan":
            inf_code = self._nan_code()
        else:
            inf_code = self._max_code()
        mag = np.where(inf, inf_code, mag)
        mag = np.where(nan, self._nan_code(), mag)
        codes = (sign.astype(np.int64) << (self.exp_bits + m)) | mag
        return codes.astype(_code_dtype(self.bits))

    def decode(self, codes: Any) -> np.ndarray:
        """Values of bit patterns ``codes`` as float64 (NaN and +-inf where the format has them)."""
        c = np.asarray(codes)
        if c.dtype.kind not in "iu":
            raise FormatError(f"codes must be integers, not {c.dtype}")
        c = c.astype(np.int64)
        if c.size and (c.min() < 0 or c.max() >= 2**self.bits):
            raise FormatError(f"codes of {self.name} must lie in 0..{2**self.bits - 1}")
        m = self.man_bits
        sign = (c >> (self.exp_bits + m)) & 1
        exp_field = (c >> m) & (2**self.exp_bits - 1)
        man_field = c & (2**m - 1)
        normal = exp_field > 0
        sig = np.where(normal, man_field + 2**m, man_field).astype(np.float64)
        val = np.ldexp(sig, np.where(normal, exp_field - self.exponent_bias, self.emin) - m)
        top = exp_field == 2**self.exp_bits - 1
        if self.special == "ieee":
            val = np.where(top, np.where(man_field == 0, np.inf, np.nan), val)
        elif self.special == "nan_only":
            val = np.where(top & (man_field == 2**m - 1), np.nan, val)
        return np.where(sign == 1, -val, val)

    def quantize(self, x: Any, *, rng: np.random.Generator | None = None) -> np.ndarray:
        return self.decode(self.encode(x, rng=rng))

    def all_values(self) -> np.ndarray:
        """Values of every code ``0 .. 2**bits - 1`` (for tables and exhaustive tests)."""
        if self.bits > 16:
            raise FormatError(f"refusing to enumerate 2**{self.bits} codes of {self.name}")
        return self.decode(np.arange(2**self.bits))


def minifloat(exp_bits: int, man_bits: int, **kwargs: Any) -> FloatFormat:
    """A finite-only (OCP FP4/FP6-style) ``E{exp_bits}M{man_bits}`` element with subnormals."""
    kwargs.setdefault("special", "none")
    return FloatFormat(exp_bits=exp_bits, man_bits=man_bits, **kwargs)


FP32 = FloatFormat(exp_bits=8, man_bits=23, name="fp32")
BF16 = FloatFormat(exp_bits=8, man_bits=7, name="bf16")
FP16 = FloatFormat(exp_bits=5, man_bits=10, name="fp16")
FP8_E4M3 = FloatFormat(exp_bits=4, man_bits=3, special="nan_only", name="fp8_e4m3")
FP8_E5M2 = FloatFormat(exp_bits=5, man_bits=2, name="fp8_e5m2")
FP6_E3M2 = FloatFormat(exp_bits=3, man_bits=2, special="none", name="fp6_e3m2")
FP6_E2M3 = FloatFormat(exp_bits=2, man_bits=3, special="none", name="fp6_e2m3")
FP4_E2M1 = FloatFormat(exp_bits=2, man_bits=1, special="none", name="fp4_e2m1")
