"""The shared affine-form arithmetic (``compilers/hls/affine.py``), checked by evaluating
forms at sample points against the integer expressions they stand for."""

import itertools

from archsim.compilers.hls.affine import LinearForm


def _value(form, env):
    return form.const + sum(c * env[s] for s, c in form.terms)


def test_arithmetic_matches_the_expressions_it_represents():
    i, j = LinearForm.symbol("i"), LinearForm.symbol("j")
    three = LinearForm.constant(3)
    exprs = {
        "8*i + j - 3": (i.scaled(8).plus(j).plus(three, -1), lambda a, b: 8 * a + b - 3),
        "-(i - j)": (i.plus(j, -1).scaled(-1), lambda a, b: -(a - b)),
    }
    for form, fn in exprs.values():
        for a, b in itertools.product(range(-3, 4), repeat=2):
            assert _value(form, {"i": a, "j": b}) == fn(a, b)


def test_zero_coefficients_are_dropped_and_queries_agree():
    i = LinearForm.symbol("i", 5)
    zero = i.plus(i, -1)
    assert zero.is_constant and zero.terms == ()
    assert i.coefficient("i") == 5 and i.coefficient("k") == 0
    assert i.coefficients() == {"i": 5}
    assert LinearForm.symbol("i", 0).is_constant
    assert i.scaled(0).terms == ()
    assert i.plus(LinearForm.constant(10)).divisible(5)
    assert not i.plus(LinearForm.constant(7)).divisible(5)
