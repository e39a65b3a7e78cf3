"""MXBlockDot: bit-exact against mx_block_dot_exact, the MX element tables and float64."""

from fractions import Fraction

import numpy as np
import pytest

from archsim.dsl.formats import MX_ELEMENTS, BlockEncoding, MXFormat, mx_block_dot_exact
from archsim.hw.formats import MXBlockDot
from archsim.sim.rtl import simulate

# Largest element values from the OCP MX v1.0 spec tables (and INT8 = 127 / 64).
ELEMENT_MAX = {"fp8_e4m3": 448.0, "fp8_e5m2": 57344.0, "fp6_e3m2": 28.0, "fp6_e2m3": 7.5,
               "fp4_e2m1": 6.0, "int8": 127 / 64}


def run_blocks(dut, codes_a, codes_b, scales_a, scales_b, backend="pysim"):
    """Run one block per cycle; return acc, exp and special for each block (latency 1)."""
    size = dut.block_size
    codes_a, codes_b = np.asarray(codes_a, int), np.asarray(codes_b, int)
    nb = len(scales_a)
    inputs = {f"a__{i}": [*codes_a[:, i].tolist(), 0] for i in range(size)}
    inputs |= {f"b__{i}": [*codes_b[:, i].tolist(), 0] for i in range(size)}
    inputs |= {"scale_a": [*map(int, scales_a), 0], "scale_b": [*map(int, scales_b), 0],
               "valid": [1] * nb + [0]}
    out = simulate(dut, inputs, ["acc", "exp", "special", "out_valid"], backend=backend).outputs
    assert out["out_valid"].tolist() == [0] + [1] * nb
    return ([int(v) for v in out["acc"][1:]], [int(v) for v in out["exp"][1:]],
            out["special"][1:].tolist())


def encoding(codes, scales, block_size):
    codes = np.asarray(codes)
    n = codes.size
    return BlockEncoding(codes=codes.reshape(-1, block_size), scales=np.asarray(scales),
                         shape=(n,), moved_shape=(n,), axis=-1)


@pytest.mark.parametrize("element", list(MX_ELEMENTS))
def test_random_blocks_match_golden(element):
    rng = np.random.default_rng(sorted(MX_ELEMENTS).index(element))
    fmt = MXFormat(element=element)
    nb = 24
    # Per-block magnitudes over a wide range, so scales and subnormal elements both occur.
    xa = rng.normal(size=32 * nb) * np.repeat(2.0 ** rng.integers(-40, 40, nb), 32)
    xb = rng.standard_t(3, size=32 * nb) * np.repeat(2.0 ** rng.integers(-40, 40, nb), 32)
    xa[:32] = 0.0  # an all-zero block gets the smallest scale
    enc_a, enc_b = fmt.encode(xa), fmt.encode(xb)
    want_acc, want_exp = mx_block_dot_exact(fmt, enc_a, fmt, enc_b)
    acc, exp, special = run_blocks(MXBlockDot(element=element), enc_a.codes, enc_b.codes,
                                   enc_a.scales, enc_b.scales)
    assert acc == want_acc
    assert exp == want_exp
    assert special == [0] * nb
    # And the block values agree with a float64 dot of the golden decodes (exact here).
    va, vb = fmt.decode(enc_a).reshape(nb, 32), fmt.decode(enc_b).reshape(nb, 32)
    for j in range(nb):
        exact = sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(va[j], vb[j],
                                                                            strict=True)),
                    Fraction(0))
        assert Fraction(acc[j]) * Fraction(2) ** exp[j] == exact


@pytest.mark.parametrize("element", list(MX_ELEMENTS))
def test_extreme_blocks_closed_form(element):
    # Blocks of the element's largest value (published tables) times +-max, at the extreme
    # scales 2**-127 and 2**127: the accumulator must hold 32 * max**2 without overflow.
    fmt = MXFormat(element=element)
    vmax = ELEMENT_MAX[element]
    top = np.asarray(fmt.elem.encode(np.full(32, vmax)), int)
    neg = np.asarray(fmt.elem.encode(np.full(32, -vmax)), int)
    zero = np.asarray(fmt.elem.encode(np.zeros(32)), int)
    negzero = np.asarray(fmt.elem.encode(np.full(32, -0.0)), int)
    codes_a = [top, top, top, negzero, zero]
    codes_b = [top, neg, top, top, negzero]
    scales_a = [127, 127, 0, 254, 5]
    scales_b = [127, 127, 254, 254, 250]
    acc, exp, special = run_blocks(MXBlockDot(element=element), codes_a, codes_b,
                                   scales_a, scales_b)
    got = [Fraction(v) * Fraction(2) ** s for v, s in zip(acc, exp, strict=True)]
    m2 = Fraction(vmax) ** 2
    assert got == [32 * m2, -32 * m2, 32 * m2 * Fraction(2) ** (-127 + 127), 0, 0]
    assert special == [0] * 5


@pytest.mark.parametrize("element", ["fp4_e2m1", "fp6_e3m2", "fp8_e4m3"])
def test_min_subnormal_products(element):
    # Smallest subnormal (mantissa field 1, exponent field 0): value 2**(emin - m), so the
    # product of two is 2**(2 emin - 2 m) -- the accumulator's least significant bit.
    elem = MX_ELEMENTS[element]
    acc, exp, _ = run_blocks(MXBlockDot(element=element), [[1] * 32], [[1] * 32], [127], [127])
    assert Fraction(acc[0]) * Fraction(2) ** exp[0] == \
        32 * Fraction(2) ** (2 * (elem.emin - elem.man_bits))
    assert acc[0] == 32


@pytest.mark.parametrize(("element", "bad_code"), [("fp8_e4m3", 0x7F), ("fp8_e4m3", 0xFF),
                                                   ("fp8_e5m2", 0x7C), ("fp8_e5m2", 0xFE)])
def test_nan_or_infinite_elements_raise_special(element, bad_code):
    fmt = MXFormat(element=element)
    rng = np.random.default_rng(3)
    ok = np.asarray(fmt.encode(rng.normal(size=32)).codes, int).reshape(32)
    bad = ok.copy()
    bad[5] = bad_code
    _, _, special = run_blocks(MXBlockDot(element=element), [ok, bad, ok], [ok, ok, bad],
                               [127] * 3, [127] * 3)
    # Independent reference: the float64 dot of the decoded elements is not finite.
    for j, (x, y) in enumerate([(ok, ok), (bad, ok), (ok, bad)]):
        finite = np.isfinite(np.sum(fmt.elem.decode(x) * fmt.elem.decode(y)))
        assert special[j] == (0 if finite else 1)
    assert special == [0, 1, 1]


def test_nan_scale_raises_special():
    fmt = MXFormat(element="fp4_e2m1")
    codes = np.arange(32) % 16
    _, _, special = run_blocks(MXBlockDot(element="fp4_e2m1"), [codes] * 3, [codes] * 3,
                               [0xFF, 127, 254], [127, 0xFF, 254])
    assert special == [1, 1, 0]
    # The golden decode agrees: a 0xFF scale is NaN.
    assert np.isnan(fmt.decode(encoding(codes, [0xFF], 32))).all()


@pytest.mark.parametrize("block_size", [1, 4, 7])
def test_other_block_sizes(block_size):
    fmt = MXFormat(element="fp6_e2m3", block_size=block_size)
    rng = np.random.default_rng(block_size)
    n = block_size * 10
    enc_a = fmt.encode(rng.normal(size=n) * 100)
    enc_b = fmt.encode(rng.normal(size=n) / 100)
    want_acc, want_exp = mx_block_dot_exact(fmt, enc_a, fmt, enc_b)
    dut = MXBlockDot(element="fp6_e2m3", block_size=block_size)
    assert dut.acc_width == dut.product_width + (block_size - 1).bit_length()
    acc, exp, _ = run_blocks(dut, enc_a.codes, enc_b.codes, enc_a.scales, enc_b.scales)
    assert (acc, exp) == (want_acc, want_exp)


def test_properties():
    dut = MXBlockDot(element="fp8_e4m3")
    dut._MustUse__silence = True  # inspected, never elaborated
    # E4M3: m = 3, emin = -6, so k = 9; products (15 << 14)**2 < 2**36 plus a sign.
    assert (dut.element, dut.block_size, dut.k) == ("fp8_e4m3", 32, 9)
    assert dut.product_width == 37 and dut.acc_width == 42
    assert "a__31" in {"__".join(map(str, p)) for p, _, _ in dut.signature.flatten(dut)}
    assert repr(dut) == "MXBlockDot(element='fp8_e4m3', block_size=32)"


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(element="fp16"), ValueError,
     "element must be one of ('fp8_e4m3', 'fp8_e5m2', 'fp6_e3m2', 'fp6_e2m3', 'fp4_e2m1', "
     "'int8'), not 'fp16'"),
    (dict(element=8), TypeError, "element must be a str, not 8"),
    (dict(element="int8", block_size=0), ValueError, "block_size must be in 1..1024, not 0"),
    (dict(element="int8", block_size=2048), ValueError,
     "block_size must be in 1..1024, not 2048"),
    (dict(element="int8", block_size=True), TypeError, "block_size must be an int, not True"),
])
def test_constructor_validation(kwargs, error, message):
    with pytest.raises(error) as info:
        MXBlockDot(**kwargs)
    assert str(info.value) == message


@pytest.mark.slow
def test_verilator_matches_golden():
    # E5M2: the widest accumulator (72 bits, returned as Python ints).
    fmt = MXFormat(element="fp8_e5m2")
    rng = np.random.default_rng(11)
    nb = 6
    xa = rng.normal(size=32 * nb) * np.repeat(2.0 ** rng.integers(-60, 60, nb), 32)
    xb = rng.normal(size=32 * nb) * np.repeat(2.0 ** rng.integers(-60, 60, nb), 32)
    enc_a, enc_b = fmt.encode(xa), fmt.encode(xb)
    want_acc, want_exp = mx_block_dot_exact(fmt, enc_a, fmt, enc_b)
    top = np.asarray(fmt.elem.encode(np.full(32, 57344.0)), int)
    codes_a = np.vstack([enc_a.codes, top, top])
    codes_b = np.vstack([enc_b.codes, top, top ^ 0x80])
    scales = [*enc_a.scales.tolist(), 254, 0]
    acc, exp, special = run_blocks(MXBlockDot(element="fp8_e5m2"), codes_a, codes_b, scales,
                                   [*enc_b.scales.tolist(), 254, 0], backend="verilator")
    assert acc[:nb] == want_acc and exp[:nb] == want_exp
    assert acc[nb:] == [32 * 49 * 2**58, -32 * 49 * 2**58]  # (7 << 29)**2 each
    assert special == [0] * (nb + 2)
