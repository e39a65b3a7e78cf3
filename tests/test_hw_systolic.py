"""SystolicArray: the analytical fold model, argument checks, ports, stimulus and readback."""

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from amaranth.hdl import Fragment
from hypothesis import given, settings
from hypothesis import strategies as st

from archsim.errors import SimulationError
from archsim.hw import SystolicArray, fold_count, fold_cycles, matmul_cycles
from archsim.hw.systolic import fold_t
from archsim.hw.verilog import to_verilog
from archsim.sim.rtl import simulate


def built(array: SystolicArray) -> SystolicArray:
    Fragment.get(array, None)  # elaborates: the design builds (and counts as used)
    return array


# --- analytical model ---------------------------------------------------------------------

def test_fold_model_by_hand():
    # 4x4 array, C[9, 5] = A[9, 6] @ B[6, 5].
    # OS: output tiles ceil(9/4) * ceil(5/4) = 3 * 2; per fold 4 + 4 + K(6) - 2 = 12.
    assert fold_count(rows=4, cols=4, m=9, k=6, n=5, dataflow="os") == 6
    assert fold_cycles(rows=4, cols=4, t=6, dataflow="os") == 12
    assert matmul_cycles(rows=4, cols=4, m=9, k=6, n=5, dataflow="os") == 72
    # WS: weight tiles ceil(6/4) * ceil(5/4) = 2 * 2; per fold 2*4 + 4 + M(9) - 2 = 19.
    assert fold_count(rows=4, cols=4, m=9, k=6, n=5, dataflow="ws") == 4
    assert fold_cycles(rows=4, cols=4, t=9, dataflow="ws") == 19
    assert matmul_cycles(rows=4, cols=4, m=9, k=6, n=5, dataflow="ws") == 76
    assert fold_t(m=9, k=6, n=5, dataflow="os") == 6
    assert fold_t(m=9, k=6, n=5, dataflow="ws") == 9


def test_fold_model_single_fold_on_a_square_array():
    # One fold on a 32x32 array with T = 32, by hand: OS 32 + 32 + 32 - 2 = 94,
    # WS 2*32 + 32 + 32 - 2 = 126.
    assert matmul_cycles(rows=32, cols=32, m=32, k=32, n=32, dataflow="os") == 94
    assert matmul_cycles(rows=32, cols=32, m=32, k=32, n=32, dataflow="ws") == 126


@settings(max_examples=50, deadline=None)
@given(rows=st.integers(1, 64), cols=st.integers(1, 64), m=st.integers(1, 500),
       k=st.integers(1, 500), n=st.integers(1, 500), dataflow=st.sampled_from(["os", "ws"]))
def test_fold_model_matches_ceil_formula(rows, cols, m, k, n, dataflow):
    if dataflow == "os":
        want = math.ceil(m / rows) * math.ceil(n / cols) * (rows + cols + k - 2)
    else:
        want = math.ceil(k / rows) * math.ceil(n / cols) * (2 * rows + cols + m - 2)
    got = matmul_cycles(rows=rows, cols=cols, m=m, k=k, n=n, dataflow=dataflow)
    assert got == want and type(got) is int


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: fold_count(rows=0, cols=4, m=1, k=1, n=1, dataflow="os"), ValueError,
         "rows must be at least 1, not 0"),
        (lambda: fold_count(rows=4, cols=4, m=1, k=0, n=1, dataflow="ws"), ValueError,
         "k must be at least 1, not 0"),
        (lambda: fold_cycles(rows=4, cols=4, t=-1, dataflow="os"), ValueError,
         "t must be at least 1, not -1"),
        (lambda: fold_cycles(rows=4, cols=2.5, t=1, dataflow="os"), TypeError,
         "cols must be an int, not 2.5"),
        (lambda: matmul_cycles(rows=4, cols=4, m=1, k=1, n=1, dataflow="xy"), ValueError,
         "dataflow must be one of 'os', 'ws', not 'xy'"),
        (lambda: matmul_cycles(rows=4, cols=4, m=1, k=1, n="3", dataflow="os"), TypeError,
         "n must be an int, not '3'"),
    ],
)
def test_fold_model_bad_arguments(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_hw_layer_does_not_import_sim():
    code = ("import sys, archsim.hw.systolic; "
            "print(any(m.startswith('archsim.sim') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# --- the component ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"rows": 0, "cols": 4}, ValueError, "rows must be at least 1, not 0"),
        ({"rows": 4, "cols": -2}, ValueError, "cols must be at least 1, not -2"),
        ({"rows": 4.0, "cols": 4}, TypeError, "rows must be an int, not 4.0"),
        ({"rows": 4, "cols": 4, "dataflow": "xy"}, ValueError,
         "dataflow must be one of 'os', 'ws', not 'xy'"),
        ({"rows": 4, "cols": 4, "dataflow": "OS"}, ValueError,
         "dataflow must be one of 'os', 'ws', not 'OS'"),
        ({"rows": 4, "cols": 4, "input_width": 0}, ValueError,
         "input_width must be at least 1, not 0"),
        ({"rows": 4, "cols": 4, "acc_width": None}, TypeError,
         "acc_width must be an int, not None"),
        ({"rows": 4, "cols": 4, "signed": "yes"}, TypeError, "signed must be a bool, not 'yes'"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error) as info:
        SystolicArray(**kwargs)
    assert str(info.value) == message


def test_ports_of_each_dataflow():
    os_array = built(SystolicArray(rows=2, cols=3, input_width=4, acc_width=12, signed=False))
    assert (os_array.rows, os_array.cols, os_array.dataflow) == (2, 3, "os")
    assert set(os_array.signature.members) == {"a", "b", "valid", "first", "last", "done",
                                                "c", "c_row", "c_valid"}
    assert len(os_array.a) == 2 and len(os_array.b) == 3 and len(os_array.c) == 3
    assert os_array.c[2].shape().width == 12 and not os_array.c[2].shape().signed
    ws_array = built(SystolicArray(rows=2, cols=3, dataflow="ws"))
    assert set(ws_array.signature.members) == {"a", "valid", "w", "w_load", "psum",
                                                "psum_valid"}
    assert len(ws_array.w) == 3 and len(ws_array.psum) == 3
    assert ws_array.a[0].shape().signed and ws_array.psum[0].shape().width == 32


# --- stimulus and readback ------------------------------------------------------------------

@pytest.fixture(scope="module")
def os_array():
    return built(SystolicArray(rows=3, cols=2))


@pytest.fixture(scope="module")
def ws_array():
    return built(SystolicArray(rows=3, cols=2, dataflow="ws"))


@pytest.mark.parametrize("dataflow", ["os", "ws"])
def test_measured_cycles_do_not_depend_on_idle_cycles_between_folds(dataflow, os_array,
                                                                    ws_array):
    array = os_array if dataflow == "os" else ws_array
    rng = np.random.default_rng(3)
    a, b = rng.integers(-128, 128, (7, 5)), rng.integers(-128, 128, (5, 3))
    for idle in (0, 4):
        stim = array.stimulus(a, b, idle_cycles=idle)
        out = simulate(array, stim.inputs, stim.outputs, cycles=stim.cycles).outputs
        np.testing.assert_array_equal(stim.decode(out), a @ b)
        if dataflow == "os":   # 3 x 2 output tiles; 3 + 2 + K(5) - 2 cycles each
            assert stim.fold_latencies(out) == [8] * 6
        else:                  # 2 x 2 weight tiles; 2*3 + 2 + M(7) - 2 cycles each
            assert stim.fold_latencies(out) == [13] * 4


def test_os_reads_the_tile_out_row_by_row_from_done(os_array):
    # 3 x 2 array, one fold with K = 4: done 3 + 2 + 4 - 2 = 7 cycles after the first input,
    # then rows 0, 1, 2 on `c` in cycles 7, 8, 9.
    a = np.arange(12).reshape(3, 4) - 5
    b = np.arange(8).reshape(4, 2) * 3 - 11
    stim = os_array.stimulus(a, b)
    out = simulate(os_array, stim.inputs, stim.outputs, cycles=stim.cycles).outputs
    assert np.flatnonzero(out["done"]).tolist() == [7]
    assert np.flatnonzero(out["c_valid"]).tolist() == [7, 8, 9]
    assert out["c_row"][7:10].tolist() == [0, 1, 2]
    product = a @ b
    for r in range(3):
        assert [out["c__0"][7 + r], out["c__1"][7 + r]] == product[r].tolist()


def test_stimulus_is_unskewed_fold_by_fold(os_array):
    # OS: one K index per cycle, a fold's K cycles flagged first..last, folds back to back.
    a = np.arange(12).reshape(4, 3) - 6
    b = np.arange(6).reshape(3, 2)
    stim = os_array.stimulus(a, b)
    assert stim.folds == 2 and stim.fold_tiles == [(0, 0), (3, 0)]
    period = 3 + 2 + 3 - 2
    assert stim.fold_starts == [0, period]
    assert stim.inputs["valid"][:period + 3].tolist() == [1, 1, 1] + [0] * 3 + [1, 1, 1]
    assert stim.inputs["first"][:period + 1].tolist() == [1] + [0] * (period - 1) + [1]
    assert stim.inputs["a__1"][:3].tolist() == a[1].tolist()
    assert stim.inputs["a__0"][period:period + 3].tolist() == a[3].tolist()
    assert stim.inputs["a__1"][period:period + 3].tolist() == [0, 0, 0]  # past row M-1
    assert stim.inputs["b__1"][:3].tolist() == b[:, 1].tolist()


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (np.zeros((2, 3), int), np.zeros((4, 2), int),
         "cannot multiply a of shape (2, 3) by b of shape (4, 2): a has 3 columns, b has 4 rows"),
        (np.zeros(3, int), np.zeros((3, 2), int),
         "a must be a non-empty 2-D matrix, not of shape (3,)"),
        (np.zeros((2, 0), int), np.zeros((0, 2), int),
         "a must be a non-empty 2-D matrix, not of shape (2, 0)"),
        (np.zeros((2, 2)), np.zeros((2, 2), int), "a must hold integers, not float64"),
        (np.zeros((2, 2), int), [[0, 0], [0, 128]],
         "b[1, 1] = 128 does not fit the array's 8-bit signed operands (-128..127)"),
        ([[-129]], [[0]], "a[0, 0] = -129 does not fit the array's 8-bit signed operands "
                          "(-128..127)"),
    ],
)
def test_stimulus_bad_operands(os_array, a, b, message):
    with pytest.raises(SimulationError) as info:
        os_array.stimulus(a, b)
    assert str(info.value) == message


def test_stimulus_unsigned_range():
    array = built(SystolicArray(rows=2, cols=2, signed=False))
    with pytest.raises(SimulationError, match=r"a\[0, 1\] = -1 does not fit the array's "
                                              r"8-bit unsigned operands \(0\.\.255\)"):
        array.stimulus([[0, -1]], [[1], [2]])


def test_bad_idle_cycles(os_array):
    with pytest.raises(ValueError, match="idle_cycles must be a non-negative int, not -1"):
        os_array.stimulus([[1]], [[1]], idle_cycles=-1)


def test_readback_rejects_outputs_missing_results(ws_array):
    stim = ws_array.stimulus([[1, 2]], [[3], [4]])
    out = {name: np.zeros(stim.cycles, dtype=np.int64) for name in stim.outputs}
    with pytest.raises(SimulationError) as info:
        stim.decode(out)
    assert str(info.value).startswith("'psum_valid__0' was high in 0 cycles; 1 folds should "
                                      "give 1")
    del out["psum_valid__1"]
    out["psum_valid__0"][5] = 1
    with pytest.raises(SimulationError, match="output 'psum_valid__1' was not recorded"):
        stim.fold_latencies(out)


def test_failed_construction_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError):
            SystolicArray(rows=0, cols=1)


def test_latencies_are_read_from_the_recorded_signals(os_array, ws_array):
    # Delaying the recorded completion flags by one cycle adds one cycle to every fold.
    a, b = np.ones((4, 4), int), np.ones((4, 3), int)
    for array, flags in ((os_array, ["done"]), (ws_array, ["psum_valid__0", "psum_valid__1"])):
        stim = array.stimulus(a, b)
        out = simulate(array, stim.inputs, stim.outputs, cycles=stim.cycles).outputs
        before = stim.fold_latencies(out)
        late = dict(out, **{name: np.roll(out[name], 1) for name in flags})
        assert stim.fold_latencies(late) == [x + 1 for x in before]


def test_verilog_names_are_readable():
    os_text = to_verilog(SystolicArray(rows=2, cols=3), name="sa_os")
    for name in ("pe_r1_c2", "a_skew_r1_d1", "b_skew_c2_d2", "last_skew_d3", "drain_row",
                 "c_row", "c__2", "done"):
        assert name in os_text
    ws_text = to_verilog(SystolicArray(rows=2, cols=3, dataflow="ws"), name="sa_ws")
    for name in ("pe_r1_c2", "weight_r1_c2", "psum__2", "psum_valid__2", "w_load"):
        assert name in ws_text
