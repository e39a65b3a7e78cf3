"""NxFPDecoder: every code, tag and a spread of scales, bit-exact against NxFPFormat.decode."""

import itertools

import numpy as np
import pytest

from archsim.dsl.formats import BlockEncoding, NxFPFormat
from archsim.hw.formats import NxFPDecoder
from archsim.sim.rtl import simulate


def run_decoder(dut, codes, scales, tags=None, backend="pysim"):
    """Decode one code per cycle; return (values as float64, nan flags), latency removed."""
    n = len(codes)
    inputs = {"code": [*map(int, codes), 0], "scale": [*map(int, scales), 0],
              "valid": [1] * n + [0]}
    if tags is not None:
        inputs["tag"] = [*map(int, tags), 0]
    out = simulate(dut, inputs, backend=backend).outputs
    assert out["out_valid"].tolist() == [0] + [1] * n
    sign, mantissa, exponent = (out[k][1:] for k in ("sign", "mantissa", "exponent"))
    # mantissa < 2**16 and exponent within float64's normal range: ldexp is exact.
    magnitude = np.ldexp(mantissa.astype(np.float64), exponent.astype(np.int64))
    return np.where(sign == 1, -magnitude, magnitude), out["nan"][1:]


def golden(fmt, codes, scales, tags):
    """NxFPFormat.decode of one-element blocks holding the given code, scale and tag."""
    n = len(codes)
    enc = BlockEncoding(codes=np.asarray(codes).reshape(n, 1), scales=np.asarray(scales),
                        shape=(n,), moved_shape=(n,), axis=-1,
                        tags=None if tags is None else np.asarray(tags))
    return fmt.decode(enc)


def assert_same(values, nan, want):
    assert np.array_equal(nan, np.isnan(want).astype(int))
    ok = ~np.isnan(want)
    assert np.array_equal(values[ok], want[ok])
    assert np.array_equal(np.signbit(values[ok]), np.signbit(want[ok]))  # -0 stays -0


def exhaustive(bits, k, am, cr, scale_codes):
    fmt = NxFPFormat(bits=bits, nano_mantissa_bits=k, adaptive_microexponent=am,
                     code_recycling=cr)
    tag_values = range(2**fmt.tag_bits) if fmt.tag_bits else [None]
    rows = list(itertools.product(range(2**bits), tag_values, scale_codes))
    codes, tags, scales = (list(col) for col in zip(*rows, strict=True))
    tags = None if fmt.tag_bits == 0 else tags
    dut = NxFPDecoder(bits=bits, nano_mantissa_bits=k, adaptive_microexponent=am,
                      code_recycling=cr)
    return fmt, dut, codes, scales, tags


@pytest.mark.parametrize(("bits", "k", "am", "cr"),
                         list(itertools.product((4, 6, 8), (0, 3), (False, True),
                                                (False, True))))
def test_every_code_and_tag_matches_golden(bits, k, am, cr):
    top = (2**k - 1) if k else 0
    scale_codes = [(127 << k) | (top // 2), 1 << k, (254 << k) | top]
    if bits == 4:
        scale_codes += [0, 0xFF << k]  # the smallest and the NaN scale
    fmt, dut, codes, scales, tags = exhaustive(bits, k, am, cr, scale_codes)
    values, nan = run_decoder(dut, codes, scales, tags)
    assert_same(values, nan, golden(fmt, codes, scales, tags))


@pytest.mark.parametrize(("bits", "k", "am", "cr"), [(4, 2, True, True), (6, 1, False, True),
                                                    (8, 4, True, False)])
def test_encoded_random_tensors_decode_exactly(bits, k, am, cr):
    fmt = NxFPFormat(bits=bits, nano_mantissa_bits=k, adaptive_microexponent=am,
                     code_recycling=cr)
    rng = np.random.default_rng(bits + k)
    nb = 6
    x = rng.standard_t(4, size=32 * nb) * np.repeat(2.0 ** rng.integers(-50, 50, nb), 32)
    x[:32] = 0.0
    enc = fmt.encode(x)
    tags = np.repeat(enc.tags, 32) if fmt.tag_bits else None
    dut = NxFPDecoder(bits=bits, nano_mantissa_bits=k, adaptive_microexponent=am,
                      code_recycling=cr)
    values, nan = run_decoder(dut, enc.codes.reshape(-1), np.repeat(enc.scales, 32), tags)
    assert_same(values, nan, fmt.decode(enc))


def test_published_element_tables_and_recycled_values():
    # E2M1 = {0, 0.5, 1, 1.5, 2, 3, 4, 6} (OCP MX table); E1M2 (bias 0): 0, .5, ..., 3.5;
    # E3M0 (bias 3): 0 and 2**-2 .. 2**4. Code Recycling: the -0 code (0b1000) is minus the
    # midpoint of the two largest magnitudes: E2M1 -5, E1M2 -3.25, E3M0 -12.
    dut = NxFPDecoder(bits=4, adaptive_microexponent=True, code_recycling=True)
    tables = {0: [0, 0.5, 1, 1.5, 2, 3, 4, 6], 1: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5],
              2: [0, 0.25, 0.5, 1, 2, 4, 8, 16]}
    recycled = {0: -5.0, 1: -3.25, 2: -12.0}
    codes = list(range(16)) * 3
    tags = [t for t in range(3) for _ in range(16)]
    values, nan = run_decoder(dut, codes, [127] * 48, tags)
    for t in range(3):
        row = values[16 * t:16 * (t + 1)]
        assert row[:8].tolist() == tables[t]
        assert row[8] == recycled[t]
        assert row[9:].tolist() == [-v for v in tables[t][1:]]
    assert not nan.any()


def test_nano_mantissa_scale_and_negative_zero():
    # E8M2 scale (127 << 2) | 1 = 1.25; (126 << 2) | 3 = 0.875. E2M1 code 7 = 6.
    dut = NxFPDecoder(bits=4, nano_mantissa_bits=2)
    values, _ = run_decoder(dut, [7, 7, 0b1111, 0b1000], [(127 << 2) | 1, (126 << 2) | 3,
                                                         (127 << 2) | 1, 127 << 2])
    assert values[:3].tolist() == [7.5, 5.25, -7.5]
    assert values[3] == 0 and np.signbit(values[3])  # without Code Recycling: -0


def test_e4m3_nan_codes_and_nan_scale():
    dut = NxFPDecoder(bits=8, adaptive_microexponent=True)
    # Tag 0 (E4M3): 0x7F and 0xFF are NaN; tag 1 (E5M2 without specials): finite.
    values, nan = run_decoder(dut, [0x7F, 0xFF, 0x7F, 0x01], [127, 127, 127, 0xFF],
                              [0, 0, 1, 1])
    assert nan.tolist() == [1, 1, 0, 1]
    assert values[2] == 1.75 * 2.0**16  # E5M2 finite-only: exponent field 31, bias 15


def test_out_of_range_tag_decodes_to_zero_like_golden():
    fmt, dut, codes, scales, tags = exhaustive(4, 0, True, False, [127])
    values, _ = run_decoder(dut, codes, scales, tags)
    assert values[np.asarray(tags) == 3].tolist() == [0.0] * 16
    assert_same(values, np.zeros(len(codes), int), golden(fmt, codes, scales, tags))


def test_ports_and_properties():
    dut = NxFPDecoder(bits=6, nano_mantissa_bits=3, adaptive_microexponent=True)
    dut._MustUse__silence = True  # inspected, never elaborated
    members = dut.signature.members
    assert members["scale"].shape.width == 11 and members["tag"].shape.width == 2
    assert [c.name for c in dut.candidates] == ["fp6_e2m3", "e3m2", "e1m4"]
    assert dut.format == NxFPFormat(bits=6, nano_mantissa_bits=3, adaptive_microexponent=True)
    plain = NxFPDecoder(bits=4)
    plain._MustUse__silence = True
    assert "tag" not in plain.signature.members
    assert repr(plain) == ("NxFPDecoder(bits=4, nano_mantissa_bits=0, "
                           "adaptive_microexponent=False, code_recycling=False)")


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(bits=5), ValueError, "bits must be one of (4, 6, 8), not 5"),
    (dict(bits=True), TypeError, "bits must be an int, not True"),
    (dict(bits=4.0), TypeError, "bits must be an int, not 4.0"),
    (dict(bits=4, nano_mantissa_bits=8), ValueError, "nano_mantissa_bits must be in 0..7, not 8"),
    (dict(bits=4, nano_mantissa_bits=-1), ValueError,
     "nano_mantissa_bits must be in 0..7, not -1"),
    (dict(bits=4, nano_mantissa_bits=1.0), TypeError,
     "nano_mantissa_bits must be an int, not 1.0"),
    (dict(bits=4, adaptive_microexponent=1), TypeError,
     "adaptive_microexponent must be a bool, not 1"),
    (dict(bits=4, code_recycling="yes"), TypeError, "code_recycling must be a bool, not 'yes'"),
])
def test_constructor_validation(kwargs, error, message):
    with pytest.raises(error) as info:
        NxFPDecoder(**kwargs)
    assert str(info.value) == message


@pytest.mark.slow
def test_verilator_matches_golden():
    k = 2
    fmt, dut, codes, scales, tags = exhaustive(4, k, True, True,
                                               [(127 << k) | 1, 1 << k, (254 << k) | 3, 0,
                                                0xFF << k])
    values, nan = run_decoder(dut, codes, scales, tags, backend="verilator")
    assert_same(values, nan, golden(fmt, codes, scales, tags))
