"""EdgeBERT's AdaptivFloat(8, 3) code: decode, host quantisation, and the 16-bit fixed-point
conversions of its datapath, as numpy golden functions and bit-exact Amaranth expressions.

The code (harvard-acc/EdgeBERT, ``hw/cmod/include/AdpfloatSpec.h``, ``Spec.h``): bit 7 is the
sign, bits 6:4 the exponent field ``exp``, bits 3:0 the mantissa field ``man``. ``exp == 0``
and ``man == 0`` is zero, of either sign (``ReserveZero``; no denormals). Otherwise::

    value = (-1)**sign * (16 + man) / 16 * 2**(exp + bias + ADPFLOAT_OFFSET)

with ``bias`` the tensor's 3-bit exponent bias (0..7) and ``ADPFLOAT_OFFSET = -10``
(``kAdpfloatOffset``). In terms of :class:`archsim.dsl.formats.AdaptivFloat` ``(n=8, e=3)``
this is the same format with ``exp_bias = bias + ADPFLOAT_OFFSET`` (its exponent of field 0).

Conversions
-----------
:func:`adpfloat_to_fixed` (the datapath's ``Adpfloat2Fixed`` / ``to_fixed<16, frac>``):
``sign * floor(|value| * 2**frac)``, saturated to ``[-32767, 32767]``. The authors' version
wraps in 16 bits instead; saturating is the choice here (a 16-bit word cannot hold the large
codes at high ``frac``, and a wrapped value has the wrong sign).

:func:`adpfloat_from_fixed` (``set_value_fixed``): a signed 16-bit ``y`` of value
``y * 2**-frac`` to a code. ``|y|`` is normalised to ``1.mmmm`` (4 mantissa bits) rounding
half up on the magnitude (a carry to ``2.0`` bumps the exponent); with ``E = floor(log2|y|)``
after rounding the exponent field is ``E - frac - bias + 10``: below 0 the value flushes to
zero (as the authors), above 7 it saturates to ``exp = 7, man = 15`` *with its sign* (the
authors' ``set_value_fixed`` forgets the sign there, so a negative overflow became ``+max``;
not copied). A result of ``exp = 0, man = 0`` is zero; every zero is returned as code 0.

:func:`adpfloat_from_float` quantises floats on the host with the same rule on the exact
magnitude (ties away from zero), so the values that become zero are those below
``16.5/16 * 2**(bias - 10)`` (the midpoint between the field-0 binade's zero pattern and the
smallest normal) -- unlike :meth:`AdaptivFloat.encode`, which rounds ``[v_min/2, v_min]`` up
to ``v_min``.

The Amaranth functions :func:`adpfloat_to_fixed_hw` and :func:`adpfloat_from_fixed_hw` are
combinational expressions (no module, no state) for use inside units.
"""

from __future__ import annotations

import itertools

import numpy as np
from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

__all__ = ["ADPFLOAT_OFFSET", "ADPFLOAT_BIAS_RANGE", "ADPFLOAT_FRAC_RANGE", "FIXED_MAX",
           "adpfloat_value", "adpfloat_from_float", "adpfloat_choose_bias",
           "adpfloat_to_fixed", "adpfloat_from_fixed", "adpfloat_to_fixed_hw",
           "adpfloat_from_fixed_hw"]

#: ``kAdpfloatOffset`` (Spec.h): the exponent of field 0 at bias 0.
ADPFLOAT_OFFSET = -10
#: The 3-bit per-tensor exponent bias (``kAdpfloatBiasWidth = 3``, Spec.h).
ADPFLOAT_BIAS_RANGE = (0, 7)
#: Fractional bits a 16-bit fixed-point word may have here.
ADPFLOAT_FRAC_RANGE = (0, 15)
#: ``kActWordMax`` (Spec.h): the saturation bound of the 16-bit words (symmetric: -32767).
FIXED_MAX = 32767

_MAN_BITS = 4
_EXP_MAX = 7
_MAN_MAX = 15
_CODE_MAX = 0x7F  # exp 7, man 15


def _check_param(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in {low}..{high}, not {value}")
    return int(value)


def _int_array(name: str, values: object, low: int, high: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be integers, not {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < low or arr.max() > high):
        raise ValueError(f"{name} must lie in {low}..{high}, not {int(arr.min())}.."
                         f"{int(arr.max())}")
    return arr


def _fields(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (codes >> 7) & 1, (codes >> _MAN_BITS) & _EXP_MAX, codes & _MAN_MAX


def adpfloat_value(codes: object, *, bias: int) -> np.ndarray:
    """Decode AdaptivFloat(8, 3) codes (0..255) to real values (exact in float64).

    Raises
    ------
    TypeError, ValueError
        ``codes`` not integers in 0..255, or ``bias`` not an int in 0..7.
    """
    bias = _check_param("bias", bias, *ADPFLOAT_BIAS_RANGE)
    c = _int_array("codes", codes, 0, 255)
    sign, exp, man = _fields(c)
    mag = np.ldexp((16 + man).astype(np.float64), exp + bias + ADPFLOAT_OFFSET - _MAN_BITS)
    mag = np.where((exp == 0) & (man == 0), 0.0, mag)
    return np.where(sign == 1, -mag, mag)


def _magnitude_grid(bias: int) -> np.ndarray:
    """The magnitudes of codes 0..127 in order (code 0 at ``2**(bias - 10)``, its pattern's
    value were it not zero): the codes sort like their magnitudes."""
    c = np.arange(128, dtype=np.int64)
    return np.ldexp((16 + (c & _MAN_MAX)).astype(np.float64),
                    (c >> _MAN_BITS) + bias + ADPFLOAT_OFFSET - _MAN_BITS)


def adpfloat_from_float(x: object, *, bias: int) -> np.ndarray:
    """Quantise floats to codes: round to nearest on the magnitude, ties away from zero;
    below the smallest normal's rounding range to zero; above the maximum to ``+-max``.

    Returns ``int64`` codes (0..255) of ``x``'s shape; zeros are code 0.

    Raises
    ------
    TypeError, ValueError
        ``bias`` not an int in 0..7, or ``x`` holding NaN or infinity.
    """
    bias = _check_param("bias", bias, *ADPFLOAT_BIAS_RANGE)
    xf = np.asarray(x, dtype=np.float64)
    if not np.isfinite(xf).all():
        raise ValueError("x must be finite: AdaptivFloat has no NaN or infinity")
    grid = _magnitude_grid(bias)
    # A magnitude at or past the midpoint of two neighbours takes the upper one (ties away);
    # below the first midpoint it takes code 0, which is zero (the flush).
    mids = (grid[:-1] + grid[1:]) / 2  # exact: neighbours differ by at most one binade
    mag_code = np.searchsorted(mids, np.abs(xf), side="right").astype(np.int64)
    sign = (xf < 0) & (mag_code != 0)
    return (sign.astype(np.int64) << 7) | mag_code


def adpfloat_choose_bias(x: object) -> int:
    """The bias that puts ``max|x|`` in the top exponent field (7):
    ``floor(log2 max|x|) + 3``, clipped to 0..7 (0 for an all-zero ``x``).

    The same choice as :meth:`AdaptivFloat.exp_bias_for` (``exp_max - 7``) plus the
    offset's 10. Clipping means tensors with ``max|x| >= 32`` saturate, and tensors with
    ``max|x| < 2**-3`` use fewer than the 8 binades.

    Raises
    ------
    ValueError
        If ``x`` holds NaN or infinity.
    """
    a = np.abs(np.asarray(x, dtype=np.float64))
    if not np.isfinite(a).all():
        raise ValueError("x must be finite: AdaptivFloat has no NaN or infinity")
    amax = float(a.max()) if a.size else 0.0
    if amax == 0.0:
        return ADPFLOAT_BIAS_RANGE[0]
    exp_max = int(np.frexp(amax)[1]) - 1
    low, high = ADPFLOAT_BIAS_RANGE
    return int(min(high, max(low, exp_max - _EXP_MAX - ADPFLOAT_OFFSET)))


def adpfloat_to_fixed(codes: object, *, frac: int, bias: int) -> np.ndarray:
    """Codes to signed 16-bit fixed point with ``frac`` fractional bits:
    ``sign * floor(|value| * 2**frac)`` saturated to ``[-32767, 32767]`` (``int64``)."""
    frac = _check_param("frac", frac, *ADPFLOAT_FRAC_RANGE)
    bias = _check_param("bias", bias, *ADPFLOAT_BIAS_RANGE)
    c = _int_array("codes", codes, 0, 255)
    sign, exp, man = _fields(c)
    sig = 16 + man
    # |value| * 2**frac = sig * 2**s
    s = exp + bias + frac + ADPFLOAT_OFFSET - _MAN_BITS
    mag = np.where(s >= 0, sig << np.maximum(s, 0), sig >> np.maximum(-s, 0))
    mag = np.where((exp == 0) & (man == 0), 0, np.minimum(mag, FIXED_MAX))
    return np.where(sign == 1, -mag, mag).astype(np.int64)


def adpfloat_from_fixed(y: object, *, frac: int, bias: int) -> np.ndarray:
    """Signed 16-bit ``y`` (value ``y * 2**-frac``, ``-32768..32767``) to codes (``int64``);
    see the module docstring for the rounding, flush and saturation."""
    frac = _check_param("frac", frac, *ADPFLOAT_FRAC_RANGE)
    bias = _check_param("bias", bias, *ADPFLOAT_BIAS_RANGE)
    yv = _int_array("y", y, -(1 << 15), (1 << 15) - 1)
    mag = np.abs(yv)
    nz = mag != 0
    # floor(log2 mag) from the bit length, in integers
    e = np.zeros_like(mag)
    for bit in range(1, 16):
        e = np.where(mag >> bit != 0, bit, e)
    down = np.maximum(e - _MAN_BITS, 0)   # bits dropped below the mantissa
    up = np.maximum(_MAN_BITS - e, 0)     # small values shift up exactly
    half = np.where(down > 0, 1 << np.maximum(down - 1, 0), 0)
    r = np.where(down > 0, (mag + half) >> down, mag << up)  # 16..32
    carry = r == 32
    e = e + carry
    r = np.where(carry, 16, r)
    exp_field = e - frac - bias - ADPFLOAT_OFFSET
    code = np.where(exp_field < 0, 0,
                    np.where(exp_field > _EXP_MAX, _CODE_MAX,
                             (np.clip(exp_field, 0, _EXP_MAX) << _MAN_BITS) | (r - 16)))
    code = np.where(nz, code, 0)
    return np.where((code != 0) & (yv < 0), code | 0x80, code).astype(np.int64)


# --- Amaranth ----------------------------------------------------------------------------

_node_count = itertools.count()


def _node(m: Module | None, value: Value, name: str) -> Value:
    """``value``, or with a module a comb signal driven by it: a named node that Amaranth's
    simulator evaluates once, where an expression used twice would be evaluated twice."""
    if m is None:
        return value
    sig = Signal(Value.cast(value).shape(), name=f"adpf_{name}_{next(_node_count)}")
    m.d.comb += sig.eq(value)
    return sig


def adpfloat_to_fixed_hw(code: Value, frac: Value, bias: Value, *,
                         m: Module | None = None) -> Value:
    """Combinational :func:`adpfloat_to_fixed`: ``code`` (8 bits), ``frac`` (4 bits, 0..15),
    ``bias`` (3 bits) -> the ``signed(16)`` fixed-point value (the low bits of wider
    inputs are taken).

    With ``m`` the intermediate results are comb signals of ``m`` (the same logic; faster to
    simulate when many copies share a design); without, one expression.
    """
    code, frac, bias = Value.cast(code)[:8], Value.cast(frac)[:4], Value.cast(bias)[:3]
    man, exp, sign = code[:4], code[4:7], code[7]
    sig = Cat(man, Const(1, 1))
    t = _node(m, exp + bias + frac, "t")        # 0..29; |value| * 2**frac = sig * 2**(t - 14)
    left = Value.cast(sig << (t - 14)[:4])       # t >= 14: shift 0..15 (<= 20 bits)
    right = Value.cast(sig >> (14 - t)[:4])      # t < 14: shift 1..14
    mag = _node(m, Mux(t >= 14, left, right), "mag")
    sat = Mux(mag > FIXED_MAX, FIXED_MAX, mag)[:15]
    zero = (exp == 0) & (man == 0)
    return Mux(zero, 0, Mux(sign, -sat, sat))[:16].as_signed()


def adpfloat_from_fixed_hw(y: Value, frac: Value, bias: Value, *,
                           m: Module | None = None) -> Value:
    """Combinational :func:`adpfloat_from_fixed`: ``y`` (16 bits, two's complement),
    ``frac`` (4 bits), ``bias`` (3 bits) -> the ``unsigned(8)`` code (the low bits of wider
    inputs are taken; ``m`` as in :func:`adpfloat_to_fixed_hw`)."""
    y = Value.cast(y)[:16].as_signed()
    frac, bias = Value.cast(frac)[:4], Value.cast(bias)[:3]
    neg = y[15]
    mag = _node(m, Mux(neg, -y, y)[:16], "abs")  # |y| <= 32768 fits 16 unsigned bits
    # floor(log2 mag): a priority encoder (mag = 0 gives 0; handled below)
    e: Value = Const(0, 4)
    for bit in range(1, 16):
        e = Mux(mag[bit], bit, e)
    e = _node(m, e, "log2")
    norm = _node(m, (mag << (15 - e)[:4])[:16], "norm")  # 1.mmmm at bits 15..11
    r = norm[11:16] + norm[10]          # round half up on the magnitude: 16..32
    carry = r[5]
    man = Mux(carry, 0, r[:4])
    ef = _node(m, e + carry + (-ADPFLOAT_OFFSET) - frac - bias, "exp")  # signed: -22..26
    code = Mux(ef < 0, 0, Mux(ef > _EXP_MAX, _CODE_MAX, Cat(man, ef[:3])))[:7]
    nonzero = (mag != 0) & (code != 0)
    return Mux(nonzero, Cat(code, neg), 0)[:8]
