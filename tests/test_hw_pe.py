"""MACPE: argument checks and multiply-accumulate semantics against a closed-form model."""

import gc
import itertools
import warnings

import numpy as np
import pytest
from amaranth.hdl import Fragment, signed, unsigned
from hypothesis import given, settings
from hypothesis import strategies as st

from archsim.hw import MACPE
from archsim.sim.rtl import simulate


def wrap(value: int, width: int, is_signed: bool) -> int:
    """``value`` modulo ``2**width``, read as two's complement when ``is_signed``."""
    value &= (1 << width) - 1
    if is_signed and value >> (width - 1):
        value -= 1 << width
    return value


def reference(a, b, valid, load, acc_in, *, acc_width, is_signed):
    """Per cycle, the accumulator after that many clock edges (reset value 0)."""
    acc, trace = 0, []
    for x, y, v, ld, base in zip(a, b, valid, load, acc_in, strict=True):
        trace.append(acc)
        if v:
            acc = wrap((base if ld else acc) + x * y, acc_width, is_signed)
    return trace


def operand_range(width, is_signed):
    if is_signed:
        return range(-(1 << (width - 1)), 1 << (width - 1))
    return range(1 << width)


def run_pe(pe, a, b, valid, load, acc_in):
    inputs = {"a": a, "b": b, "valid": valid, "load": load, "acc_in": acc_in}
    return simulate(pe, inputs).outputs


def check_pe(input_width, acc_width, is_signed, a, b, valid, load, acc_in, carried=False):
    pe = MACPE(input_width=input_width, acc_width=acc_width, signed=is_signed,
               carried_width=acc_width if carried else None)
    out = run_pe(pe, a, b, valid, load, acc_in)
    want = reference(a, b, valid, load, acc_in, acc_width=acc_width, is_signed=is_signed)
    assert out["acc"].tolist() == want
    # The operands and flags come out one clock later (registers reset to 0).
    for name, seq in (("a_out", a), ("b_out", b), ("valid_out", valid), ("load_out", load)):
        assert out[name].tolist() == [0, *seq[:-1]]


@pytest.mark.parametrize("is_signed", [True, False])
def test_exhaustive_3bit_operands_wrap_at_5_bits(is_signed):
    # Every operand pair, in a shuffled order with random valid/load/acc_in: the 5-bit
    # accumulator wraps many times.
    rng = np.random.default_rng(1)
    pairs = list(itertools.product(operand_range(3, is_signed), repeat=2))
    order = rng.permutation(len(pairs))
    a = [pairs[i][0] for i in order]
    b = [pairs[i][1] for i in order]
    cycles = len(a)
    valid = rng.integers(0, 2, cycles).tolist()
    load = (rng.random(cycles) < 0.2).astype(int).tolist()
    acc_in = [int(x) for x in rng.choice(list(operand_range(5, is_signed)), cycles)]
    check_pe(3, 5, is_signed, a, b, valid, load, acc_in)


def test_accumulates_every_pair_without_load():
    # With valid always high and no load, acc[k] is the running sum of the products.
    a = [-128, 127, -128, 5, 0]
    b = [-128, 127, 127, -7, 99]
    out = run_pe(MACPE(), a, b, [1] * 5, [0] * 5, [0] * 5)
    assert out["acc"].tolist() == [0, 16384, 16384 + 16129, 16384 + 16129 - 16256,
                                   16384 + 16129 - 16256 - 35]


def test_signed_16_bit_accumulator_wraps_like_twos_complement():
    # (-128)^2 = 16384; twice that is 32768, one past the signed 16-bit maximum.
    out = run_pe(MACPE(acc_width=16), [-128] * 3, [-128] * 3, [1] * 3, [0] * 3, [0] * 3)
    assert out["acc"].tolist() == [0, 16384, -32768]


def test_unsigned_accumulator_wraps_modulo():
    # 255 * 255 = 65025 = 0xFE01; three of them mod 2^16.
    out = run_pe(MACPE(acc_width=16, signed=False), [255] * 4, [255] * 4, [1] * 4,
                 [0] * 4, [0] * 4)
    assert out["acc"].tolist() == [0, 65025, (2 * 65025) % 65536, (3 * 65025) % 65536]


def test_load_restarts_from_acc_in_and_invalid_cycles_hold():
    out = run_pe(MACPE(), [3, 4, 9, 2], [5, 6, 9, 10], [1, 1, 0, 1], [0, 1, 1, 0],
                 [0, 1000, 7, 0])
    # 15; then load: 1000 + 24; invalid: hold; then 1024 + 20.
    assert out["acc"].tolist() == [0, 15, 1024, 1024]


@settings(max_examples=15, deadline=None)
@given(
    input_width=st.integers(1, 8),
    acc_width=st.integers(1, 24),
    is_signed=st.booleans(),
    carried=st.booleans(),
    data=st.data(),
)
def test_random_sequences_match_closed_form(input_width, acc_width, is_signed, carried, data):
    operands = operand_range(input_width, is_signed)
    accs = operand_range(acc_width, is_signed)
    cycles = data.draw(st.integers(1, 40))
    ints = st.integers(operands.start, operands.stop - 1)
    a = data.draw(st.lists(ints, min_size=cycles, max_size=cycles))
    b = data.draw(st.lists(ints, min_size=cycles, max_size=cycles))
    bits = st.lists(st.integers(0, 1), min_size=cycles, max_size=cycles)
    valid, load = data.draw(bits), data.draw(bits)
    acc_in = data.draw(st.lists(st.integers(accs.start, accs.stop - 1),
                                min_size=cycles, max_size=cycles))
    if carried and acc_width < input_width:
        # Carried at a narrower accumulator width the operands arrive modulo 2**acc_width.
        a = [wrap(x, acc_width, is_signed) for x in a]
        b = [wrap(y, acc_width, is_signed) for y in b]
    check_pe(input_width, acc_width, is_signed, a, b, valid, load, acc_in, carried=carried)


@pytest.mark.parametrize("is_signed", [True, False])
def test_exhaustive_4bit_operands_carried_at_12_bits(is_signed):
    # Every operand pair, carried extended to the accumulator width (as the array does).
    pairs = list(itertools.product(operand_range(4, is_signed), repeat=2))
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    n = len(pairs)
    check_pe(4, 12, is_signed, a, b, [1] * n, [int(i % 3 == 0) for i in range(n)],
             [wrap(7 * i, 12, is_signed) for i in range(n)], carried=True)


def test_shapes_follow_arguments():
    pe = MACPE(input_width=4, acc_width=12, signed=False)
    Fragment.get(pe, None)  # elaborates: checks the design builds (and marks it used)
    assert (pe.input_width, pe.acc_width, pe.signed) == (4, 12, False)
    assert pe.operand_shape == unsigned(4) and pe.acc_shape == unsigned(12)
    assert pe.a.shape() == unsigned(4) and pe.acc.shape() == unsigned(12)
    default = MACPE()
    Fragment.get(default, None)
    assert default.a.shape() == signed(8) and default.acc.shape() == signed(32)
    carried = MACPE(carried_width=32)
    Fragment.get(carried, None)
    assert carried.carried_width == 32 and carried.a_out.shape() == signed(32)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"input_width": 0}, ValueError, "input_width must be at least 1, not 0"),
        ({"input_width": -3}, ValueError, "input_width must be at least 1, not -3"),
        ({"input_width": 8.0}, TypeError, "input_width must be an int, not 8.0"),
        ({"input_width": True}, TypeError, "input_width must be an int, not True"),
        ({"acc_width": 0}, ValueError, "acc_width must be at least 1, not 0"),
        ({"acc_width": "32"}, TypeError, "acc_width must be an int, not '32'"),
        ({"signed": 1}, TypeError, "signed must be a bool, not 1"),
        ({"carried_width": 16}, ValueError,
         "carried_width must be input_width (8) or acc_width (32), not 16"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error) as info:
        MACPE(**kwargs)
    assert str(info.value) == message


def test_arguments_are_keyword_only():
    with warnings.catch_warnings():
        # The half-made object is collected here; Amaranth would call it "unused".
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="positional"):
            MACPE(8, 32)
        gc.collect()
