"""run_matmul: the systolic arrays' products equal numpy's, and their measured cycles equal
the fold formula, under pysim and Verilator."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archsim.errors import ConfigError, SimulationError
from archsim.sim.rtl.matmul import MatmulRun, run_matmul


def numpy_matmul(a, b, *, acc_width=32, signed=True):
    """The reference: exact int64 matmul, then the accumulator's wrap-around."""
    exact = np.asarray(a, dtype=np.int64) @ np.asarray(b, dtype=np.int64)
    wrapped = exact & ((1 << acc_width) - 1)
    if signed:
        half = 1 << (acc_width - 1)
        wrapped = (wrapped ^ half) - half
    return wrapped


def scale_sim_cycles(rows, cols, m, k, n, dataflow):
    """The issue's formula, written out independently of archsim.hw.systolic."""
    if dataflow == "os":
        return math.ceil(m / rows) * math.ceil(n / cols) * (rows + cols + k - 2)
    return math.ceil(k / rows) * math.ceil(n / cols) * (2 * rows + cols + m - 2)


def check(run, a, b, rows, cols, dataflow, **arith):
    m, k = np.shape(a)
    n = np.shape(b)[1]
    assert isinstance(run, MatmulRun)
    assert run.product.dtype == np.int64
    np.testing.assert_array_equal(run.product, numpy_matmul(a, b, **arith))
    want = scale_sim_cycles(rows, cols, m, k, n, dataflow)
    assert run.cycles == want
    assert run.predicted_cycles == want
    assert run.folds == len(run.fold_cycles)
    assert run.folds * run.fold_cycles[0] == want


SHAPES = [  # rows, cols, m, k, n
    (4, 4, 4, 4, 4),     # exactly one tile
    (4, 4, 9, 6, 5),     # every dimension larger than the array
    (2, 3, 1, 7, 1),     # matrix-vector
    (1, 1, 3, 2, 4),     # a single PE
    (3, 5, 2, 9, 11),    # non-square array
    (4, 2, 3, 1, 2),     # K = 1
]


@pytest.mark.parametrize("dataflow", ["os", "ws"])
@pytest.mark.parametrize(("rows", "cols", "m", "k", "n"), SHAPES)
def test_random_int8_pysim(dataflow, rows, cols, m, k, n):
    rng = np.random.default_rng(rows * 1000 + m * 100 + k * 10 + n)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    run = run_matmul(a, b, rows=rows, cols=cols, dataflow=dataflow)
    check(run, a, b, rows, cols, dataflow)
    assert run.backend == "pysim" and run.build_time_s == 0.0 and not run.build_cached


def extremes(m, k, n):
    """Operand pairs at the int8 limits: all -128, all 127, mixed, zeros, a checkerboard."""
    checker = np.where(np.add.outer(np.arange(m), np.arange(k)) % 2 == 0, -128, 127)
    checker_b = np.where(np.add.outer(np.arange(k), np.arange(n)) % 2 == 0, 127, -128)
    return [
        (np.full((m, k), -128), np.full((k, n), -128)),
        (np.full((m, k), 127), np.full((k, n), 127)),
        (np.full((m, k), -128), np.full((k, n), 127)),
        (np.zeros((m, k), int), np.zeros((k, n), int)),
        (checker, checker_b),
    ]


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_extreme_values_pysim(dataflow):
    for a, b in extremes(5, 7, 3):
        check(run_matmul(a, b, rows=2, cols=2, dataflow=dataflow), a, b, 2, 2, dataflow)


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_narrow_accumulator_wraps_pysim(dataflow):
    # 6 x 16384 = 98304 = 0x18000 overflows a 16-bit accumulator: 0x8000 = -32768.
    a, b = np.full((3, 6), -128), np.full((6, 2), -128)
    run = run_matmul(a, b, rows=2, cols=2, dataflow=dataflow, acc_width=16)
    check(run, a, b, 2, 2, dataflow, acc_width=16)
    assert run.product[0, 0] == 98304 - 2 * 65536


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_unsigned_pysim(dataflow):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 256, (6, 5), dtype=np.uint8)
    b = rng.integers(0, 256, (5, 7), dtype=np.uint8)
    run = run_matmul(a, b, rows=3, cols=3, dataflow=dataflow, signed=False)
    check(run, a, b, 3, 3, dataflow, signed=False)
    a, b = np.full((2, 3), 255), np.full((3, 2), 255)
    run = run_matmul(a, b, rows=2, cols=2, dataflow=dataflow, signed=False, acc_width=17)
    check(run, a, b, 2, 2, dataflow, signed=False, acc_width=17)
    assert run.product[0, 0] == (3 * 65025) % (1 << 17)


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), m=st.integers(1, 7),
       k=st.integers(1, 7), n=st.integers(1, 7), dataflow=st.sampled_from(["os", "ws"]),
       signed=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_hypothesis_shapes_pysim(rows, cols, m, k, n, dataflow, signed, seed):
    rng = np.random.default_rng(seed)
    low, high = (-128, 128) if signed else (0, 256)
    a, b = rng.integers(low, high, (m, k)), rng.integers(low, high, (k, n))
    run = run_matmul(a, b, rows=rows, cols=cols, dataflow=dataflow, signed=signed)
    check(run, a, b, rows, cols, dataflow, signed=signed)


def test_waveform_and_summary(tmp_path):
    path = tmp_path / "matmul.vcd"
    run = run_matmul([[1, 2]], [[3], [4]], rows=2, cols=2, waveform=path)
    assert run.product.tolist() == [[11]]
    assert run.waveform == path and path.stat().st_size > 0
    row = run.summary()
    assert row["cycles"] == 2 + 2 + 2 - 2 and row["folds"] == 1
    assert row["simulated_cycles"] >= row["cycles"] and row["cycles_per_s"] > 0


def test_bad_inputs():
    with pytest.raises(SimulationError, match="a has 2 columns, b has 1 rows"):
        run_matmul([[1, 2]], [[3]], rows=2, cols=2)
    with pytest.raises(ValueError, match="^rows must be at least 1, not 0$"):
        run_matmul([[1]], [[1]], rows=0, cols=2)
    with pytest.raises(ValueError, match="^dataflow must be one of 'os', 'ws', not 'xy'$"):
        run_matmul([[1]], [[1]], rows=1, cols=1, dataflow="xy")
    with pytest.raises(ConfigError, match="unknown simulation backend 'spice'"):
        run_matmul([[1]], [[1]], rows=1, cols=1, backend="spice")


# --- Verilator (slow: each array configuration is built once, then cached) -----------------

@pytest.mark.slow
@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_verilator_4x4_random_extremes_and_pysim_agree(dataflow):
    # One Verilator run covers every case: stacking the cases' A blocks and B blocks, block
    # (i, j) of the product is A_i @ B_j, so each extreme pair (and random data) is in there.
    rng = np.random.default_rng(11)
    cases = [(rng.integers(-128, 128, (5, 6)), rng.integers(-128, 128, (6, 3)))]
    cases += extremes(5, 6, 3)
    a = np.vstack([x for x, _ in cases])
    b = np.hstack([y for _, y in cases])
    run = run_matmul(a, b, rows=4, cols=4, dataflow=dataflow, backend="verilator")
    check(run, a, b, 4, 4, dataflow)
    assert run.backend == "verilator"
    reference = run_matmul(a, b, rows=4, cols=4, dataflow=dataflow)
    assert reference.fold_cycles == run.fold_cycles
    np.testing.assert_array_equal(reference.product, run.product)
    # The same design again, a single tile: the build comes from the cache.
    a, b = a[:3, :4], b[:4, :2]
    again = run_matmul(a, b, rows=4, cols=4, dataflow=dataflow, backend="verilator")
    check(again, a, b, 4, 4, dataflow)
    assert again.build_cached and again.build_time_s == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_verilator_8x8_larger_than_array(dataflow):
    rng = np.random.default_rng(12)
    a = rng.integers(-128, 128, (20, 12), dtype=np.int8)
    b = rng.integers(-128, 128, (12, 17), dtype=np.int8)
    run = run_matmul(a, b, rows=8, cols=8, dataflow=dataflow, backend="verilator")
    check(run, a, b, 8, 8, dataflow)
    assert run.folds == (9 if dataflow == "os" else 6)


@pytest.mark.slow
def test_verilator_unsigned_nonsquare_wraps():
    rng = np.random.default_rng(13)
    a = rng.integers(0, 256, (7, 8))
    b = rng.integers(0, 256, (8, 4))
    a[0, :] = b[:, 0] = 255   # 8 x 65025 overflows the 18-bit accumulator
    run = run_matmul(a, b, rows=3, cols=2, dataflow="ws", signed=False, acc_width=18,
                     backend="verilator")
    check(run, a, b, 3, 2, "ws", signed=False, acc_width=18)
    assert run.product[0, 0] == (8 * 65025) % (1 << 18)
