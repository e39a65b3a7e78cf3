"""Hardware number types of the kernel DSL: ``Int(w)``, ``UInt(w)``, ``Fixed(w, frac)``.

A type is an immutable :class:`HWType`; calling it converts a value into that type
(``Int(32)(0)``) and gives a :class:`HWValue`, which does exact hardware arithmetic.

Arithmetic rules (identical in the golden view and in the generated RTL):

* Every operator is exact: its result type is wide enough for every result, like
  Amaranth's operators. ``a + b`` and ``a - b`` grow by one bit over the wider operand,
  ``a * b`` has the sum of the widths, ``&``, ``|``, ``^`` keep the wider width, ``<< k``
  grows by ``k`` bits. Mixing signed and unsigned operands widens the unsigned one by one bit
  and gives a signed result; ``-`` always gives a signed result.
* ``Fixed`` operands are aligned to the larger number of fraction bits before adding or
  comparing; a product has the sum of the fraction bits.
* Overflow and rounding happen only where a value is stored: assigning to a variable whose
  type was fixed by its first assignment, writing an array element, returning. The
  destination's ``overflow`` (``"wrap"``: two's complement, the default; ``"saturate"``:
  clamp to the range) and ``rounding`` (``"trunc"``: drop bits, i.e. floor; ``"round"``:
  add half an LSB then floor, i.e. round half up) decide the result.
* Python ``int`` constants take the narrowest type that holds them (``UInt`` when
  non-negative, else ``Int``).
* ``a // b`` and ``a % b`` (integers only) follow Python: the quotient is rounded toward
  minus infinity and the remainder has the sign of ``b`` (``-7 // 2 == -4``, ``-7 % 2 == 1``).
  By a constant power of two ``2**k`` they are a shift (type of ``a``) and a mask
  (``UInt(k)``); otherwise the quotient is ``UInt(wa)`` when both operands are unsigned, else
  ``Int(wa + 1)``, and the remainder ``UInt(wb)`` for an unsigned ``b``, else ``Int(wb)``
  (:func:`div_types`). Dividing by zero raises a ``DSLError`` naming the line; the hardware
  divider then gives a quotient of all ones (-1) and a remainder equal to ``a``, as RISC-V
  does.

Number formats (:mod:`archsim.dsl.formats`) are the other kind of element type. A
:class:`FormatType` is a format of <= 8 bits with a fixed scale (FP8 E4M3/E5M2, FP6, FP4 and
other small :class:`~archsim.dsl.formats.FloatFormat` formats, or an
:class:`~archsim.dsl.formats.AdaptivFloat` whose ``exp_bias`` is fixed in the type): its
arrays hold the integer codes, and reading an element gives the code's exact value as a
``Fixed`` (:attr:`FormatType.value_type`, wide enough for every code), so arithmetic then
follows the rules above, in the golden view and in hardware (a decode ROM after the memory)
alike. ``Array[FP8_E4M3, 64]`` wraps a small float format automatically. Other formats (block
and per-tensor-scaled ones, AdaptivFloat without a fixed bias) stay golden-only: anything with
``bits``, ``encode`` and ``decode`` is accepted as an array element there, its reads are Python
floats (see :func:`is_element_type`), and compiling such a kernel raises a ``DSLError``.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeGuard

import numpy as np

if TYPE_CHECKING:  # annotations only: the formats import this module's siblings lazily
    from .formats import AdaptivFloat, FloatFormat

__all__ = [
    "HWType",
    "HWValue",
    "Int",
    "UInt",
    "Fixed",
    "Bool",
    "OVERFLOWS",
    "ROUNDINGS",
    "USER_WIDTHS",
    "const_type",
    "binop_type",
    "div_types",
    "is_element_type",
    "hw_min",
    "hw_max",
    "FormatType",
    "as_element_type",
    "ElementFormat",
    "ElementType",
]

#: Overflow behaviours of a destination type.
OVERFLOWS: tuple[str, ...] = ("wrap", "saturate")
#: Rounding modes when fraction bits are dropped.
ROUNDINGS: tuple[str, ...] = ("trunc", "round")


@dataclass(frozen=True)
class HWType:
    """A two's-complement (or unsigned) fixed-point type; integers have ``frac == 0``.

    Parameters
    ----------
    width : int
        Total bits, >= 1.
    signed : bool
        Two's complement when true.
    frac : int
        Fraction bits (the value is ``raw * 2**-frac``); 0 for integers.
    overflow : {"wrap", "saturate"}
        What storing an out-of-range value does.
    rounding : {"trunc", "round"}
        What storing a value with more fraction bits does.
    """

    width: int
    signed: bool
    frac: int = 0
    overflow: Literal["wrap", "saturate"] = "wrap"
    rounding: Literal["trunc", "round"] = "trunc"

    def __post_init__(self) -> None:
        if not isinstance(self.width, int) or isinstance(self.width, bool) or self.width < 1:
            raise ValueError(f"width must be a positive integer, not {self.width!r}")
        if not isinstance(self.frac, int) or self.frac < 0:
            raise ValueError(f"frac must be a non-negative integer, not {self.frac!r}")
        if self.overflow not in OVERFLOWS:
            raise ValueError(f"overflow must be one of {OVERFLOWS}, not {self.overflow!r}")
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"rounding must be one of {ROUNDINGS}, not {self.rounding!r}")

    # --- range ---------------------------------------------------------------------------
    @property
    def min_raw(self) -> int:
        """Smallest raw (integer) code."""
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def max_raw(self) -> int:
        """Largest raw (integer) code."""
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1

    @property
    def is_integer(self) -> bool:
        """True for ``Int``/``UInt`` (no fraction bits)."""
        return self.frac == 0

    @property
    def bits(self) -> int:
        """Storage bits (the element-type protocol shared with number formats)."""
        return self.width

    # --- conversion ----------------------------------------------------------------------
    def wrap_raw(self, raw: int) -> int:
        """Apply this type's overflow rule to an integer code of the right scale."""
        if self.overflow == "saturate":
            return min(max(raw, self.min_raw), self.max_raw)
        raw &= (1 << self.width) - 1
        if self.signed and raw >> (self.width - 1):
            raw -= 1 << self.width
        return raw

    def requantize_raw(self, raw: int, frac: int) -> int:
        """Rescale a code with ``frac`` fraction bits to this type's (rounding, no overflow)."""
        if frac <= self.frac:
            return raw << (self.frac - frac)
        drop = frac - self.frac
        if self.rounding == "round":
            raw += 1 << (drop - 1)
        return raw >> drop  # arithmetic shift: floor

    def convert_raw(self, raw: int, src: HWType) -> int:
        """The code this type stores for the value ``raw`` of type ``src``."""
        return self.wrap_raw(self.requantize_raw(raw, src.frac))

    def __call__(self, value: Any) -> HWValue:
        """Convert ``value`` (int, float, bool or :class:`HWValue`) into this type."""
        if isinstance(value, HWValue):
            return HWValue(self, self.convert_raw(value.raw, value.type))
        if isinstance(value, (bool, np.bool_)):
            return HWValue(self, self.wrap_raw(int(value) << self.frac))
        if isinstance(value, (int, np.integer)):
            return HWValue(self, self.convert_raw(int(value), const_type(int(value))))
        if isinstance(value, (float, np.floating)):
            if not math.isfinite(value):
                raise ValueError(f"cannot convert {value!r} to {self}")
            scaled = float(value) * (1 << self.frac)
            raw = math.floor(scaled + 0.5) if self.rounding == "round" else math.floor(scaled)
            return HWValue(self, self.wrap_raw(raw))
        raise TypeError(f"cannot convert {type(value).__name__} to {self}")

    # --- vectorized (numpy) views --------------------------------------------------------
    def encode(self, values: Any) -> np.ndarray:
        """Array of values -> array of raw codes (int64), applying rounding and overflow."""
        arr = np.asarray(values)
        if self.width > 62:
            flat = [self(v.item() if hasattr(v, "item") else v).raw for v in arr.ravel()]
            return np.array(flat, dtype=object).reshape(arr.shape)
        if arr.dtype.kind in "iub":
            raw = arr.astype(np.int64) << self.frac
        elif arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"cannot convert non-finite values to {self}")
            scaled = arr.astype(np.float64) * float(1 << self.frac)
            raw = np.floor(scaled + 0.5 if self.rounding == "round" else scaled).astype(np.int64)
        else:
            flat = [self(v.item() if hasattr(v, "item") else v).raw for v in arr.ravel()]
            return np.array(flat, dtype=np.int64).reshape(arr.shape)
        if self.overflow == "saturate":
            return np.clip(raw, self.min_raw, self.max_raw)
        mask = np.int64((1 << self.width) - 1)
        raw = raw & mask
        if self.signed:
            raw = np.where(raw >> (self.width - 1) != 0, raw - (1 << self.width), raw)
        return raw.astype(np.int64)

    def decode(self, raw: Any) -> np.ndarray:
        """Array of raw codes -> array of values (int64 for integers, float64 for Fixed)."""
        arr = np.asarray(raw)
        if self.frac == 0:
            return arr.astype(np.int64) if self.width <= 63 else arr
        return arr.astype(np.float64) / float(1 << self.frac)

    def value_of(self, raw: int) -> int | float:
        """One raw code -> Python int (integers) or float (Fixed)."""
        return raw if self.frac == 0 else raw / (1 << self.frac)

    def __repr__(self) -> str:
        if self.frac:
            extra = ""
            if self.overflow != "wrap":
                extra += f", overflow={self.overflow!r}"
            if self.rounding != "trunc":
                extra += f", rounding={self.rounding!r}"
            kind = "Fixed" if self.signed else "UFixed"
            return f"{kind}({self.width}, {self.frac}{extra})"
        name = "Int" if self.signed else "UInt"
        extra = ", overflow='saturate'" if self.overflow == "saturate" else ""
        return f"{name}({self.width}{extra})"


#: The widths a user may give ``Int``, ``UInt`` and ``Fixed``: the golden view holds values
#: in numpy int64 arrays. (Types the compiler derives, e.g. a product's, may be wider.)
USER_WIDTHS = range(1, 65)


def _user_width(width: object, what: str) -> int:
    if not isinstance(width, int) or isinstance(width, bool) or width not in USER_WIDTHS:
        raise ValueError(f"{what} width must be an integer in {USER_WIDTHS.start}.."
                         f"{USER_WIDTHS.stop - 1} (the golden view computes in 64-bit "
                         f"integers), not {width!r}")
    return width


def Int(width: int, *, overflow: Literal["wrap", "saturate"] = "wrap") -> HWType:  # noqa: N802
    """A signed two's-complement integer of ``width`` bits (1..64)."""
    return HWType(width=_user_width(width, "Int"), signed=True, overflow=overflow)


def UInt(width: int, *, overflow: Literal["wrap", "saturate"] = "wrap") -> HWType:  # noqa: N802
    """An unsigned integer of ``width`` bits (1..64)."""
    return HWType(width=_user_width(width, "UInt"), signed=False, overflow=overflow)


def Fixed(  # noqa: N802
    width: int,
    frac: int,
    *,
    signed: bool = True,
    rounding: Literal["trunc", "round"] = "trunc",
    overflow: Literal["wrap", "saturate"] = "wrap",
) -> HWType:
    """A fixed-point number: ``width`` bits of which ``frac`` are fraction bits.

    ``rounding`` applies when a value with more fraction bits is stored ("trunc": floor,
    "round": half up); ``overflow`` when it does not fit ("wrap" or "saturate").
    """
    _user_width(width, "Fixed")
    if not isinstance(frac, int) or frac < 0 or (isinstance(width, int) and frac > width):
        raise ValueError(f"frac must be an integer in [0, width], not {frac!r}")
    return HWType(width=width, signed=signed, frac=frac, overflow=overflow, rounding=rounding)


#: The type of comparisons and ``bool`` values.
Bool = UInt(1)


def const_type(value: int) -> HWType:
    """The narrowest integer type holding the Python int ``value``."""
    if value >= 0:
        return HWType(width=max(1, value.bit_length()), signed=False)
    return HWType(width=(-value - 1).bit_length() + 1, signed=True)


def _as_signed(t: HWType) -> HWType:
    return t if t.signed else HWType(width=t.width + 1, signed=True, frac=t.frac)


def binop_type(op: str, a: HWType, b: HWType, shift: int | None = None) -> HWType:
    """The exact result type of ``a <op> b`` (see the module docstring).

    ``op`` is one of ``add sub mul and or xor min max shl shr``; for ``shl``/``shr`` ``b`` is
    the amount's type and ``shift`` the constant amount when known.
    """
    if op in ("shl", "shr"):
        if op == "shr":
            return HWType(width=a.width, signed=a.signed, frac=a.frac)
        grow = shift if shift is not None else (1 << b.width) - 1
        return HWType(width=a.width + grow, signed=a.signed, frac=a.frac)
    if op == "mul":
        if a.signed or b.signed:
            a, b = _as_signed(a), _as_signed(b)
        return HWType(width=a.width + b.width, signed=a.signed, frac=a.frac + b.frac)
    signed = a.signed or b.signed or op == "sub"
    if signed:
        a, b = _as_signed(a), _as_signed(b)
    frac = max(a.frac, b.frac)
    ia = a.width - a.frac  # integer bits (sign included)
    ib = b.width - b.frac
    width = max(ia, ib) + frac
    if op in ("add", "sub"):
        width += 1
    return HWType(width=width, signed=signed, frac=frac)


def div_types(a: HWType, b: HWType) -> tuple[HWType, HWType]:
    """The exact types of the floor quotient and remainder of integer ``a`` by ``b``.

    The quotient's magnitude is at most ``|a|`` (``-2**(wa-1) // -1 == 2**(wa-1)`` needs one
    more bit when signed); the remainder's magnitude is below ``|b|`` with ``b``'s sign.
    """
    if not a.signed and not b.signed:
        q = HWType(width=a.width, signed=False)
    else:
        q = HWType(width=a.width + 1, signed=True)
    r = HWType(width=b.width, signed=b.signed)
    return q, r


class ElementFormat(Protocol):
    """What a golden-only array element format needs: storage bits, ``encode``, ``decode``.

    Every :class:`~archsim.dsl.formats.Format` has them; any other object with the three
    attributes is accepted too (duck typing, see :func:`is_element_type`).
    """

    @property
    def bits(self) -> int:
        """Storage bits of one element code."""
        ...

    def encode(self, x: Any) -> object:
        """Values -> codes (an integer array, or a typed object with metadata)."""
        ...

    def decode(self, codes: Any) -> object:
        """What :meth:`encode` returned -> float values (array-like)."""
        ...


def is_element_type(t: object) -> TypeGuard[ElementType]:
    """True for a DSL element type: an :class:`HWType` or a number format object."""
    if isinstance(t, (HWType, FormatType)):
        return True
    return all(hasattr(t, name) for name in ("bits", "encode", "decode"))


def as_element_type(t: object) -> object:
    """The element type ``Array[t, ...]`` (or a scalar annotation) stands for: ``bool`` becomes
    :data:`Bool`, small fixed-scale float formats a :class:`FormatType`; everything else is
    returned as is (check it with :func:`is_element_type`: this only converts)."""
    from .formats import FloatFormat

    if t is bool:  # Python's bool is the DSL's one-bit unsigned type
        return Bool
    if isinstance(t, FloatFormat) and t.bits <= FormatType.MAX_BITS:
        return FormatType(t)
    return t


@dataclass(frozen=True)
class FormatType:
    """A number format of at most 8 bits with a fixed scale, usable in compiled kernels.

    Memories hold the format's integer codes (:attr:`code_type`, ``UInt(bits)``); reading an
    element yields the code's exact value as :attr:`value_type`, a signed ``Fixed`` whose
    fraction bits reach the smallest nonzero magnitude and whose width holds the largest.
    Hardware decodes with a ROM of :attr:`table` after the memory read; the golden view uses
    the same table, built from the format's own ``decode``. Arrays of a format type are
    read-only inside kernels (there is no encoder in hardware).

    Parameters
    ----------
    format : FloatFormat or AdaptivFloat
        A :class:`~archsim.dsl.formats.FloatFormat` of <= 8 bits, or an
        :class:`~archsim.dsl.formats.AdaptivFloat` with ``n <= 8``.
    exp_bias : int, optional
        AdaptivFloat only (and required there): the per-tensor ``exp_bias`` (the unbiased
        exponent of exponent field 0), fixed when the kernel is defined. Inputs are encoded
        with this bias (values beyond its range saturate or flush, as the format specifies).

    Notes
    -----
    Codes the format reserves for NaN or infinity have no ``Fixed`` value: :meth:`encode`
    raises a ``DSLError`` for inputs that would produce them (clamp inputs, or use a format
    with ``overflow="saturate"``), and the ROM maps them to 0.
    """

    format: FloatFormat | AdaptivFloat
    exp_bias: int | None = None

    #: Largest code width accepted (a decode ROM of 2**8 entries).
    MAX_BITS = 8

    def __post_init__(self) -> None:
        from .formats import AdaptivFloat, FloatFormat

        f = self.format
        if isinstance(f, AdaptivFloat):
            if not isinstance(self.exp_bias, int) or isinstance(self.exp_bias, bool):
                raise ValueError(f"{f.name} needs a fixed integer exp_bias to be a kernel type, "
                                 f"not {self.exp_bias!r}")
        elif isinstance(f, FloatFormat):
            if self.exp_bias is not None:
                raise ValueError(f"exp_bias applies to AdaptivFloat only, not to {f.name}")
        else:
            raise ValueError("FormatType takes a FloatFormat or an AdaptivFloat, not "
                             f"{type(f).__name__}")
        if f.bits > self.MAX_BITS:
            raise ValueError(f"{f.name} has {f.bits} bits; kernel format types have at most "
                             f"{self.MAX_BITS}")
        values = self._decode_codes(np.arange(1 << f.bits, dtype=np.int64))
        finite = np.isfinite(values)
        fracs = [Fraction(float(v)) for v in values[finite]]
        frac = max((d.denominator.bit_length() - 1 for d in fracs), default=0)
        table = tuple(int(Fraction(float(v)) * (1 << frac)) if ok else 0
                      for v, ok in zip(values, finite, strict=True))
        width = max(abs(r) for r in table).bit_length() + 1
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_nonfinite", frozenset(np.flatnonzero(~finite).tolist()))
        object.__setattr__(self, "_value_type", HWType(width=width, signed=True, frac=frac))

    def _decode_codes(self, codes: np.ndarray) -> np.ndarray:
        from .formats import AdaptivFloat, AdaptivFloatEncoding

        if isinstance(self.format, AdaptivFloat):
            if self.exp_bias is None:  # __post_init__ requires it for AdaptivFloat
                raise AssertionError(f"{self.format.name} FormatType without an exp_bias")
            enc = AdaptivFloatEncoding(codes=codes.astype(np.uint8), exp_bias=self.exp_bias)
            return np.asarray(self.format.decode(enc), dtype=np.float64)
        return np.asarray(self.format.decode(codes), dtype=np.float64)

    @property
    def name(self) -> str:
        """The format's name (with the bias for AdaptivFloat)."""
        if self.exp_bias is None:
            return self.format.name
        return f"{self.format.name}_bias{self.exp_bias}"

    @property
    def bits(self) -> int:
        """Storage bits of one code."""
        return self.format.bits

    @property
    def code_type(self) -> HWType:
        """``UInt(bits)``: what the memories hold."""
        return UInt(self.bits)

    @property
    def value_type(self) -> HWType:
        """The exact ``Fixed`` (or ``Int``) type of a decoded element."""
        return self._value_type  # type: ignore[attr-defined]

    @property
    def table(self) -> tuple[int, ...]:
        """Raw ``value_type`` code of every element code (0 for NaN/infinity codes)."""
        return self._table  # type: ignore[attr-defined]

    def value(self, code: int) -> HWValue:
        """The value of one element code."""
        return HWValue(self.value_type, self.table[int(code)])

    def encode(self, values: Any) -> np.ndarray:
        """Values -> element codes (int64 array), rounding as the format does."""
        from ..errors import DSLError
        from .formats import AdaptivFloat

        x = np.asarray(values, dtype=np.float64)
        if isinstance(self.format, AdaptivFloat):
            codes = self.format.encode(x, exp_bias=self.exp_bias).codes
        else:
            codes = self.format.encode(x)
        codes = np.asarray(codes).astype(np.int64)
        bad = np.isin(codes, list(self._nonfinite)) if self._nonfinite else None  # type: ignore
        if bad is not None and bad.any():
            first = float(x.ravel()[int(np.flatnonzero(bad.ravel())[0])])
            raise DSLError(f"{self.name}: input {first!r} encodes to a NaN/infinity code, which "
                           "kernel arithmetic cannot represent",
                           hint="clamp the inputs, or use a format with overflow='saturate'")
        return codes

    def decode(self, codes: Any) -> np.ndarray:
        """Element codes -> float64 values (the format's own decode)."""
        return self._decode_codes(np.asarray(codes, dtype=np.int64))

    def __repr__(self) -> str:
        if self.exp_bias is None:
            return f"FormatType({self.format.name})"
        return f"FormatType({self.format.name}, exp_bias={self.exp_bias})"


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------


#: An array element type: a hardware type, a kernel format type, or a golden-only format.
ElementType = HWType | FormatType | ElementFormat


def _coerce(x: Any) -> HWValue:
    if isinstance(x, HWValue):
        return x
    if isinstance(x, (bool, np.bool_)):
        return HWValue(Bool, int(x))
    if isinstance(x, (int, np.integer)):
        return HWValue(const_type(int(x)), int(x))
    raise TypeError(
        f"cannot mix {type(x).__name__} with hardware values; convert it first, e.g. Int(8)(x)"
    )


def _align(a: HWValue, b: HWValue) -> tuple[int, int]:
    frac = max(a.type.frac, b.type.frac)
    return a.raw << (frac - a.type.frac), b.raw << (frac - b.type.frac)


class HWValue:
    """A value of a hardware type; arithmetic is exact (see the module docstring).

    Attributes
    ----------
    type : HWType
    raw : int
        The integer code (``value == raw * 2**-type.frac``).
    """

    __slots__ = ("type", "raw")

    def __init__(self, type: HWType, raw: int) -> None:  # noqa: A002
        self.type = type
        self.raw = raw

    @property
    def value(self) -> int | float:
        """The number represented: int for integer types, float for Fixed."""
        return self.type.value_of(self.raw)

    def _bin(self, other: Any, op: str, fn: Any, reverse: bool = False) -> HWValue:
        other = _coerce(other)
        a, b = (other, self) if reverse else (self, other)
        rtype = binop_type(op, a.type, b.type)
        if op == "mul":
            return HWValue(rtype, a.raw * b.raw)
        ra, rb = _align(a, b)
        return HWValue(rtype, fn(ra, rb))

    def __add__(self, o: Any) -> HWValue:
        return self._bin(o, "add", operator.add)

    def __radd__(self, o: Any) -> HWValue:
        return self._bin(o, "add", operator.add, True)

    def __sub__(self, o: Any) -> HWValue:
        return self._bin(o, "sub", operator.sub)

    def __rsub__(self, o: Any) -> HWValue:
        return self._bin(o, "sub", operator.sub, True)

    def __mul__(self, o: Any) -> HWValue:
        return self._bin(o, "mul", operator.mul)

    def __rmul__(self, o: Any) -> HWValue:
        return self._bin(o, "mul", operator.mul, True)

    def __and__(self, o: Any) -> HWValue:
        return self._bin(o, "and", operator.and_)

    def __rand__(self, o: Any) -> HWValue:
        return self._bin(o, "and", operator.and_, True)

    def __or__(self, o: Any) -> HWValue:
        return self._bin(o, "or", operator.or_)

    def __ror__(self, o: Any) -> HWValue:
        return self._bin(o, "or", operator.or_, True)

    def __xor__(self, o: Any) -> HWValue:
        return self._bin(o, "xor", operator.xor)

    def __rxor__(self, o: Any) -> HWValue:
        return self._bin(o, "xor", operator.xor, True)

    def _shift_amount(self, o: Any) -> tuple[int, HWType, int | None]:
        if isinstance(o, HWValue):
            if o.type.signed or o.type.frac:
                raise TypeError("a shift amount must be an unsigned integer")
            return o.raw, o.type, None
        if isinstance(o, (int, np.integer)) and int(o) >= 0:
            return int(o), const_type(int(o)), int(o)
        raise TypeError("a shift amount must be a non-negative integer")

    def __lshift__(self, o: Any) -> HWValue:
        amount, t, const = self._shift_amount(o)
        return HWValue(binop_type("shl", self.type, t, const), self.raw << amount)

    def __rshift__(self, o: Any) -> HWValue:
        amount, t, const = self._shift_amount(o)
        return HWValue(binop_type("shr", self.type, t, const), self.raw >> amount)

    def __floordiv__(self, o: Any) -> HWValue:
        k = _power_of_two(o)
        if k is None:
            return _divide(self, o, quotient=True)
        if self.type.frac:
            raise TypeError("// is defined for integer types only")
        return HWValue(HWType(width=self.type.width, signed=self.type.signed,
                              frac=self.type.frac), self.raw >> k)

    def __rfloordiv__(self, o: Any) -> HWValue:
        return _divide(_coerce(o), self, quotient=True)

    def __mod__(self, o: Any) -> HWValue:
        k = _power_of_two(o)
        if k is None:
            return _divide(self, o, quotient=False)
        if self.type.frac:
            raise TypeError("% is defined for integer types only")
        return HWValue(UInt(max(1, k)), self.raw & ((1 << k) - 1))

    def __rmod__(self, o: Any) -> HWValue:
        return _divide(_coerce(o), self, quotient=False)

    def __neg__(self) -> HWValue:
        t = _as_signed(self.type)
        return HWValue(HWType(width=t.width + 1, signed=True, frac=t.frac), -self.raw)

    def __pos__(self) -> HWValue:
        return self

    def __invert__(self) -> HWValue:
        t = self.type
        raw = ~self.raw if t.signed else ((1 << t.width) - 1) ^ self.raw
        return HWValue(HWType(width=t.width, signed=t.signed, frac=t.frac), raw)

    def __abs__(self) -> HWValue:
        t = self.type
        if not t.signed:
            return self
        return HWValue(HWType(width=t.width + 1, signed=True, frac=t.frac), abs(self.raw))

    def _cmp(self, o: Any, fn: Any) -> bool:
        ra, rb = _align(self, _coerce(o))
        return bool(fn(ra, rb))

    def __lt__(self, o: Any) -> bool:
        return self._cmp(o, operator.lt)

    def __le__(self, o: Any) -> bool:
        return self._cmp(o, operator.le)

    def __gt__(self, o: Any) -> bool:
        return self._cmp(o, operator.gt)

    def __ge__(self, o: Any) -> bool:
        return self._cmp(o, operator.ge)

    def __eq__(self, o: Any) -> bool:
        if isinstance(o, float):
            return self.value == o
        return self._cmp(o, operator.eq)

    def __ne__(self, o: Any) -> bool:
        return not self.__eq__(o)

    def __hash__(self) -> int:
        return hash((self.type, self.raw))

    def __bool__(self) -> bool:
        return self.raw != 0

    def __index__(self) -> int:
        if self.type.frac:
            raise TypeError("a Fixed value cannot index an array")
        return self.raw

    def __int__(self) -> int:
        return self.raw >> self.type.frac

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        return f"{self.type!r}({self.value!r})"


def _power_of_two(o: Any) -> int | None:
    """``k`` when ``o`` is a Python constant ``2**k`` (a shift or mask), else None."""
    if isinstance(o, HWValue) or isinstance(o, bool) or not isinstance(o, (int, np.integer)) \
            or int(o) <= 0 or (int(o) & (int(o) - 1)):
        return None
    return int(o).bit_length() - 1


def _divide(a: HWValue, b: Any, *, quotient: bool) -> HWValue:
    """Python's floor ``//`` or ``%`` of two integer hardware values (see the module doc)."""
    b = _coerce(b)
    if a.type.frac or b.type.frac:
        raise TypeError(f"{'//' if quotient else '%'} is defined for integer types only")
    if b.raw == 0:
        import sys

        from ..errors import DSLError

        frame = sys._getframe(2)  # the kernel line that divides
        raise DSLError(f"division by zero: {a.value} {'//' if quotient else '%'} 0",
                       filename=frame.f_code.co_filename, lineno=frame.f_lineno,
                       hint="the hardware divider gives -1 (all ones) for // and the "
                       "dividend for % by zero; guard the divisor")
    qt, rt = div_types(a.type, b.type)
    return HWValue(qt, a.raw // b.raw) if quotient else HWValue(rt, a.raw % b.raw)


def hw_min(a: Any, b: Any) -> HWValue:
    """``min`` with the exact union type of both operands."""
    a, b = _coerce(a), _coerce(b)
    t = binop_type("min", a.type, b.type)
    return t(a if a <= b else b)


def hw_max(a: Any, b: Any) -> HWValue:
    """``max`` with the exact union type of both operands."""
    a, b = _coerce(a), _coerce(b)
    t = binop_type("max", a.type, b.type)
    return t(a if a >= b else b)
