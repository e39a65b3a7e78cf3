"""AdaptivFloatMAC: bit-exact against AdaptivFloat's decode and exact Fraction arithmetic."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from archsim.dsl.formats import AdaptivFloat, AdaptivFloatEncoding
from archsim.hw.formats import AdaptivFloatMAC
from archsim.sim.rtl import simulate


def values(fmt, codes, exp_bias):
    """Golden decode of ``codes`` as exact Fractions."""
    decoded = fmt.decode(AdaptivFloatEncoding(codes=np.asarray(codes), exp_bias=exp_bias))
    return [Fraction(float(v)) for v in decoded]


def reference(prods, valid, start):
    """Per cycle, the exact accumulator value after that many clock edges (reset value 0)."""
    acc, trace = Fraction(0), []
    for p, v, s in zip(prods, valid, start, strict=True):
        trace.append(acc)
        if v:
            acc = (0 if s else acc) + p
    return trace


def run(pe, a, b, bias_a, bias_b, valid, start, backend="pysim"):
    inputs = {"a": list(a), "b": list(b), "exp_bias_a": [bias_a], "exp_bias_b": [bias_b],
              "valid": list(valid), "start": list(start)}
    out = simulate(pe, inputs, cycles=len(a), backend=backend).outputs
    return [int(v) for v in out["acc"]], [int(v) for v in out["scale_exp"]]


def check_products(n, e, bias_a, bias_b, a, b, backend="pysim"):
    """Every cycle starts a fresh sum, so acc[k+1] * 2**scale is the product of pair k."""
    fmt = AdaptivFloat(n=n, e=e)
    pe = AdaptivFloatMAC(n=n, e=e)
    a, b = list(a) + [0], list(b) + [0]
    valid = [1] * (len(a) - 1) + [0]
    acc, scale = run(pe, a, b, bias_a, bias_b, valid, [1] * len(a), backend)
    m = n - 1 - e
    assert scale[1:] == [bias_a + bias_b - 2 * m] * (len(a) - 1)
    want = [x * y for x, y in zip(values(fmt, a, bias_a), values(fmt, b, bias_b), strict=True)]
    got = [Fraction(v) * Fraction(2) ** s for v, s in zip(acc[1:], scale[1:], strict=True)]
    assert got == want[:-1]


@pytest.mark.parametrize(("n", "e", "bias_a", "bias_b"),
                         [(4, 1, 0, 0), (4, 2, -7, 3), (4, 3, -128, 127), (2, 1, 5, -5),
                          (6, 2, 17, -30), (5, 4, -2, -1)])
def test_every_code_pair_product_is_exact(n, e, bias_a, bias_b):
    pairs = list(itertools.product(range(2**n), repeat=2))
    check_products(n, e, bias_a, bias_b, [p[0] for p in pairs], [p[1] for p in pairs])


def test_edge_products_closed_form():
    # AdaptivFloat(8, 3), m = 4: max code 0x7F = (2 - 1/16) * 2**(7 + bias); v_min code
    # 0x01 = (1 + 1/16) * 2**bias; 0x00 and 0x80 are +0 and -0.
    n, e, bias = 8, 3, -3
    pe = AdaptivFloatMAC(n=n, e=e)
    a = [0x7F, 0x7F, 0xFF, 0x01, 0x81, 0x00, 0x80, 0x80, 0x7F, 0]
    b = [0x7F, 0xFF, 0xFF, 0x01, 0x01, 0x7F, 0xFF, 0x80, 0x01, 0]
    vmax = Fraction(31, 16) * Fraction(2) ** (7 + bias)
    vmin = Fraction(17, 16) * Fraction(2) ** bias
    want = [vmax * vmax, -vmax * vmax, vmax * vmax, vmin * vmin, -vmin * vmin, 0, 0, 0,
            vmax * vmin]
    acc, scale = run(pe, a, b, bias, bias, [1] * 9 + [0], [1] * 10)
    assert [Fraction(v) * Fraction(2) ** s for v, s in zip(acc[1:], scale[1:], strict=True)] \
        == want
    assert scale[1] == 2 * bias - 2 * 4


@pytest.mark.parametrize(("n", "e", "acc_width"), [(8, 3, None), (8, 4, None), (6, 1, None),
                                                   (16, 5, None), (8, 3, 25)])
def test_random_accumulation_matches_exact_sum(n, e, acc_width):
    rng = np.random.default_rng(n * 10 + e)
    fmt = AdaptivFloat(n=n, e=e)
    cycles = 300
    # Weights and activations with their own per-tensor biases, as the golden encode sets them.
    enc_a = fmt.encode(rng.normal(size=cycles) * 3.0)
    enc_b = fmt.encode(rng.laplace(size=cycles) * 0.01)
    valid = (rng.random(cycles) < 0.8).astype(int).tolist()
    start = (rng.random(cycles) < 0.05).astype(int).tolist()
    start[0] = 1
    pe = AdaptivFloatMAC(n=n, e=e, acc_width=acc_width)
    codes_a, codes_b = enc_a.codes.astype(int).tolist(), enc_b.codes.astype(int).tolist()
    acc, scale = run(pe, codes_a, codes_b, enc_a.exp_bias, enc_b.exp_bias, valid, start)
    prods = [x * y for x, y in zip(values(fmt, codes_a, enc_a.exp_bias),
                                   values(fmt, codes_b, enc_b.exp_bias), strict=True)]
    unit = Fraction(2) ** (enc_a.exp_bias + enc_b.exp_bias - 2 * (n - 1 - e))
    width = pe.acc_width
    for k, exact in enumerate(reference(prods, valid, start)):
        q = exact / unit
        assert q.denominator == 1  # the accumulator's LSB divides every product
        wrapped = (q.numerator + 2 ** (width - 1)) % 2**width - 2 ** (width - 1)
        assert acc[k] == wrapped, f"cycle {k}"
        if any(valid[:k]):  # scale_exp is captured with the first product
            assert Fraction(2) ** scale[k] == unit


def test_default_accumulator_sums_1024_largest_products_without_wrapping():
    pe = AdaptivFloatMAC(n=4, e=2)  # m = 1: max magnitude (3/2) * 2**3 = 24 units of 2**-1
    assert pe.product_width == 2 * 2 + 2 * 3 + 1
    assert pe.acc_width == pe.product_width + 10
    cycles = 1025
    acc, _ = run(pe, [0b0111] * cycles, [0b0111] * cycles, 0, 0, [1] * cycles,
                 [1] + [0] * (cycles - 1))
    # Each product: (3 * 2**3)**2 = 576 units of 2**-2; the biases are 0.
    assert acc[-1] == 1024 * 576
    assert 1024 * 576 > 2 ** (pe.product_width - 1)


def test_properties_and_ports():
    pe = AdaptivFloatMAC(n=8, e=3, bias_width=6)
    pe._MustUse__silence = True  # inspected, never elaborated
    assert (pe.n, pe.e, pe.m, pe.bias_width) == (8, 3, 4, 6)
    assert pe.product_width == 10 + 14 + 1
    sig = pe.signature.members
    assert sig["a"].shape.width == 8 and sig["exp_bias_a"].shape.signed
    assert sig["exp_bias_a"].shape.width == 6
    assert sig["acc"].shape.width == pe.acc_width and sig["acc"].shape.signed
    assert repr(pe) == "AdaptivFloatMAC(n=8, e=3, acc_width=35)"


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    (dict(n=1, e=1), ValueError, "n must be in 2..16, not 1"),
    (dict(n=17, e=3), ValueError, "n must be in 2..16, not 17"),
    (dict(n=8.0, e=3), TypeError, "n must be an int, not 8.0"),
    (dict(n=True, e=1), TypeError, "n must be an int, not True"),
    (dict(n=8, e=0), ValueError, "e must be in 1..6, not 0"),
    (dict(n=4, e=4), ValueError, "e must be in 1..3, not 4"),
    (dict(n=16, e=7), ValueError, "e must be in 1..6, not 7"),
    (dict(n=8, e=3, acc_width=24), ValueError, "acc_width must be in 25..1024, not 24"),
    (dict(n=8, e=3, acc_width="32"), TypeError, "acc_width must be an int, not '32'"),
    (dict(n=8, e=3, bias_width=1), ValueError, "bias_width must be in 2..16, not 1"),
])
def test_constructor_validation(kwargs, error, message):
    with pytest.raises(error) as info:
        AdaptivFloatMAC(**kwargs)
    assert str(info.value) == message


@pytest.mark.slow
def test_verilator_matches_golden():
    n, e = 8, 3
    rng = np.random.default_rng(7)
    a = [0x7F, 0xFF, 0x01, 0x80, 0x00, *rng.integers(0, 256, 60).tolist()]
    b = [0x7F, 0x7F, 0x81, 0x55, 0xFF, *rng.integers(0, 256, 60).tolist()]
    check_products(n, e, -128, 127, a, b, backend="verilator")


def test_hw_formats_never_imports_the_sim_layer():
    # Layering: hw may use dsl.formats (the lowest layer) but never archsim.sim.
    import subprocess
    import sys

    code = ("import sys, archsim.hw.formats; "
            "bad = sorted(m for m in sys.modules if m.startswith('archsim.sim')); "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
