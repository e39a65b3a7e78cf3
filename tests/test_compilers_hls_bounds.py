"""Static bounds checking of affine array indices, against brute-force enumeration.

Each case is a loop nest with constant bounds and an index; the expected verdict comes from
evaluating the index in Python at every point of the nest (itertools.product), never from the
compiler's own analysis."""

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

from archsim.errors import DSLError

# (loops: [(var, start, stop, step)], index expression per dimension, array shape, pipelined)
CASES = {
    "off-by-one": ([("i", 0, 65, 1)], ["i"], (64,), False),
    "exact": ([("i", 0, 64, 1)], ["i"], (64,), False),
    "pipelined-off-by-one": ([("i", 0, 65, 1)], ["i"], (64,), True),
    "minus-one-from-0": ([("i", 0, 64, 1)], ["i - 1"], (64,), False),
    "minus-one-from-1": ([("i", 1, 65, 1)], ["i - 1"], (64,), False),
    "2d-flat": ([("i", 0, 8, 1), ("j", 0, 8, 1)], ["i * 8 + j"], (64,), False),
    "2d-flat-inner-over": ([("i", 0, 8, 1), ("j", 0, 9, 1)], ["i * 8 + j"], (64,), False),
    "2d-flat-outer-over": ([("i", 0, 9, 1), ("j", 0, 8, 1)], ["i * 8 + j"], (64,), False),
    "step-2-plus-1": ([("i", 0, 64, 2)], ["i + 1"], (64,), False),
    "step-2-plus-1-over": ([("i", 0, 65, 2)], ["i + 1"], (64,), False),
    "reversed": ([("i", 0, 64, 1)], ["63 - i"], (64,), False),
    "reversed-over": ([("i", 0, 64, 1)], ["64 - i"], (64,), False),
    "cancelling": ([("i", 0, 64, 1)], ["i + 63 - i"], (64,), False),
    "shift": ([("i", 0, 32, 1)], ["(i << 1) + 1"], (64,), False),
    "shift-over": ([("i", 0, 32, 1)], ["(i << 1) + 2"], (64,), False),
    "two-dims": ([("i", 0, 8, 1), ("j", 0, 8, 1)], ["i", "j"], (8, 8), False),
    "two-dims-over": ([("i", 0, 8, 1), ("j", 0, 9, 1)], ["i", "j"], (8, 8), False),
    "three-loops": ([("i", 0, 4, 1), ("j", 0, 4, 1), ("k", 0, 4, 1)],
                    ["i * 16 + j * 4 + k"], (64,), False),
    "three-loops-over": ([("i", 0, 4, 1), ("j", 0, 4, 1), ("k", 0, 5, 1)],
                         ["i * 16 + j * 4 + k"], (64,), False),
    "outer-minus-inner": ([("i", 0, 8, 1), ("j", 0, 8, 1)], ["(i - j) + 7"], (16,), False),
    "outer-minus-inner-under": ([("i", 0, 8, 1), ("j", 0, 8, 1)], ["(i - j) + 6"], (16,),
                                False),
}


def _source(loops, idx, shape, pipelined):
    dims = ", ".join(map(str, shape))
    lines = ["from archsim.dsl import kernel, Array, Int, pipeline", "", "",
             "@kernel", f"def k(a: Array[Int(8), {dims}]) -> Int(32):",
             "    s = Int(32)(0)"]
    depth = 1
    for n, (v, lo, hi, st) in enumerate(loops):
        rng = f"range({lo}, {hi}, {st})"
        if pipelined and n == len(loops) - 1:
            rng = f"pipeline({rng}, ii=1)"
        lines.append("    " * depth + f"for {v} in {rng}:")
        depth += 1
    sub = "".join(f"[{e}]" for e in idx)
    lines.append("    " * depth + f"s += a{sub}")
    lines.append("    return s")
    line = len(lines) - 1  # 1-based line of the access
    cols = []
    text = lines[line - 1]
    at = text.index("a[") + 1
    for e in idx:  # 1-based column of each index expression
        cols.append(at + 2)
        at += len(e) + 2
    return "\n".join(lines) + "\n", line, cols


def _load(path, name="k"):
    spec = importlib.util.spec_from_file_location(f"bounds_case_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def _brute_force(loops, idx, shape):
    """The first (dimension, value) out of bounds over the whole nest, or None."""
    names = [v for v, *_ in loops]
    for point in itertools.product(*(range(lo, hi, st) for _, lo, hi, st in loops)):
        env = dict(zip(names, point, strict=True))
        for d, (e, size) in enumerate(zip(idx, shape, strict=True)):
            value = eval(e, {}, env)  # the index as Python computes it at this point
            if not 0 <= value < size:
                return d, value
    return None


@pytest.mark.parametrize("case", list(CASES))
def test_verdict_matches_brute_force(case, tmp_path):
    loops, idx, shape, pipelined = CASES[case]
    src, line, cols = _source(loops, idx, shape, pipelined)
    path = tmp_path / f"{case.replace('-', '_')}.py"
    path.write_text(src)
    expect = _brute_force(loops, idx, shape)
    kern = _load(path)
    if expect is None:
        design = kern.synthesize()  # a correct kernel still compiles, and sums what it reads
        a = np.random.default_rng(0).integers(-128, 128, shape)
        names = [v for v, *_ in loops]
        want = sum(int(a[tuple(eval(e, {}, dict(zip(names, p, strict=True))) for e in idx)])
                   for p in itertools.product(*(range(lo, hi, st) for _, lo, hi, st in loops)))
        assert kern(a) == want
        assert design.simulate(a).outputs["return"] == want
        return
    dim, _ = expect
    with pytest.raises(DSLError) as info:
        kern.synthesize()
    err = info.value
    assert (err.filename, err.lineno, err.col) == (str(path), line, cols[dim])
    assert f"out of bounds for array 'a' dimension of size {shape[dim]}" in str(err)
    # The reported extreme is one the enumeration reaches and lies outside the array.
    values = [eval(idx[dim], {}, dict(zip([v for v, *_ in loops], p, strict=True)))
              for p in itertools.product(*(range(lo, hi, st) for _, lo, hi, st in loops))]
    lo, hi = min(values), max(values)
    assert f"(it takes {lo}..{hi} over its loops)" in str(err)
    bad = lo if lo < 0 else hi
    assert f"reaches {bad} " in str(err)


UNCHECKED = {
    # a run-time bound: nothing is known at compile time, so nothing is reported
    "runtime-bound": textwrap.dedent("""
        from archsim.dsl import kernel, Array, Int, UInt

        @kernel
        def k(a: Array[Int(8), 64], n: UInt(7)) -> Int(32):
            s = Int(32)(0)
            for i in range(n):
                s += a[i]
            return s
    """),
    # guarded by an if: brute force over i with the guard never leaves the array either
    "guarded": textwrap.dedent("""
        from archsim.dsl import kernel, Array, Int

        @kernel
        def k(a: Array[Int(8), 64]) -> Int(32):
            s = Int(32)(0)
            for i in range(65):
                if i < 64:
                    s += a[i]
            return s
    """),
    # a loop of constant trip count 0 never runs its body
    "dead-loop": textwrap.dedent("""
        from archsim.dsl import kernel, Array, Int

        @kernel
        def k(a: Array[Int(8), 4]) -> Int(32):
            s = Int(32)(0)
            for j in range(3, 3):
                for i in range(9):
                    s += a[i]
            return s
    """),
}


@pytest.mark.parametrize("case", list(UNCHECKED))
def test_accesses_not_known_to_be_out_of_bounds_still_compile(case, tmp_path):
    path = tmp_path / f"{case.replace('-', '_')}.py"
    path.write_text(UNCHECKED[case])
    _load(path).synthesize()
