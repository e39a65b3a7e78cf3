"""KernelUnit: a compiled DSL kernel behind the unit contract (pysim through run_unit).

Expected results are numpy expressions of what each kernel computes; the kernel's own cycle
count is measured by running the bare design (``Design.simulate``), and the unit's cycles are
that plus the copy lengths and the stated overhead.
"""

import numpy as np
import pytest

from archsim.compilers.accel.kernel_unit import FIXED_OVERHEAD_CYCLES, KernelUnit
from archsim.dsl import Array, Fixed, Int, UInt, bounded, kernel, partition, pipeline, unroll
from archsim.dsl.formats import FP8_E4M3
from archsim.dsl.library import gemm_tile_kernel, vector_add_kernel
from archsim.errors import ConfigError
from archsim.hw.checks import silence_unused
from archsim.hw.hls_ops import sram_read_energy_j, sram_write_energy_j
from archsim.sim.rtl.unit_run import run_unit

M32 = (1 << 32) - 1


def wrap(v, bits):
    """Two's-complement wrap of integers to ``bits`` bits."""
    v = np.asarray(v, dtype=np.int64)
    return ((v + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))


@kernel
def scale_in_place(x: Array[Int(16), 8], k: Int(8), n: UInt(4)):
    for i in pipeline(range(n), ii=1):
        x[i] = x[i] * k


@kernel
def dot4(a: Array[Int(8), 4], b: Array[Int(8), 4]) -> Int(32):
    acc = Int(32)(0)
    for i in range(4):
        acc += a[i] * b[i]
    return acc


@kernel
def first_at_least(a: Array[Int(16), 8], key: Int(16)) -> UInt(4):
    i = UInt(4)(0)
    while bounded(a[i] < key, max_iter=7):
        i += 1
    return i


@kernel
def halves(a: Array[Int(8), 6], y: Array[Int(16), 6]):
    partition(a, factor=2, kind="block")
    partition(y, factor=2, kind="block")
    for i in pipeline(range(3), ii=1):
        for u in unroll(range(2)):
            y[u * 3 + i] = a[u * 3 + i] * 2 + u


@kernel
def fp8_sum(f: Array[FP8_E4M3, 4]) -> Fixed(24, 9):
    acc = Fixed(24, 9)(0)
    for i in range(4):
        acc += f[i]
    return acc


@kernel
def wide_copy(w: Array[Int(48), 4], y: Array[Int(32), 4]):
    for i in range(4):
        y[i] = w[i]


def _copy(buffers):
    return {k: np.array(v, dtype=np.int64) for k, v in buffers.items()}


def _check(unit, buffers, args, *, bind=None):
    """RTL (with and without stalls) == golden; measured cycles == cycles(). Returns the
    RTL buffers."""
    golden = _copy(buffers)
    if bind:  # operands sharing a buffer share one array in the golden view too
        for op, buf in bind.items():
            golden[op] = golden[buf]
    unit.golden(golden, args)
    r = run_unit(unit, _copy(buffers), args, bind=bind)
    assert r.cycles == unit.cycles(args)
    for name, words in r.buffers.items():
        n = len(np.asarray(buffers[name]))
        assert words[:n].tolist() == golden[name][:n].tolist(), name
    stalled = run_unit(unit, _copy(buffers), args, bind=bind, stall_probability=0.2, seed=5)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == r.cycles
    for name, words in stalled.buffers.items():
        assert words.tolist() == r.buffers[name].tolist(), name
    return r.buffers


def test_vector_add_operands_cycles_and_results():
    design = vector_add_kernel(n=8).synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=5)
    assert [(o.name, o.direction, o.width) for o in unit.contract.operands] == [
        ("x", "read", 32), ("y", "read", 32), ("z_out", "write", 32)]
    assert unit.contract.args == ()
    rng = np.random.default_rng(1)
    x = rng.integers(-2**31, 2**31, 8)
    y = rng.integers(-2**31, 2**31, 8)
    buffers = {"x": np.r_[np.zeros(3, np.int64), x & M32], "y": y & M32,
               "z_out": np.zeros(20, np.int64)}
    args = {"x_addr": 3, "y_addr": 0, "z_out_addr": 5}
    # K measured on the bare kernel; 8 words copied in (x, y, and z cleared in parallel),
    # 8 out
    kernel_alone = design.simulate(x, y, np.zeros(8, np.int64)).cycles
    assert unit.cycles(args) == 8 + kernel_alone + 8 + FIXED_OVERHEAD_CYCLES == 29
    out = _check(unit, buffers, args)
    assert out["z_out"][5:13].tolist() == (wrap(x + y, 32) & M32).tolist()
    assert out["z_out"][:5].tolist() == [0] * 5 and out["z_out"][13:20].tolist() == [0] * 7
    assert unit.footprint(args) == {"x": (3, 11), "y": (0, 8), "z_out": (5, 13)}


def test_gemm_tile_partitioned_banks():
    m, k, n = 2, 4, 2
    design = gemm_tile_kernel(m=m, k=k, n=n).synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=4)
    assert [o.name for o in unit.contract.operands] == ["a", "w", "acc", "c_out"]
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (m, k))
    w = rng.integers(-128, 128, (n, k))
    acc = rng.integers(-2**31, 2**31, (m, n))
    buffers = {"a": a.ravel() & 0xFF, "w": w.ravel() & 0xFF, "acc": acc.ravel() & M32,
               "c_out": np.zeros(8, np.int64)}
    args = {"a_addr": 0, "w_addr": 0, "acc_addr": 0, "c_out_addr": 2}
    assert unit.cycles(args) == m * k + design.static_cycles() + m * n + FIXED_OVERHEAD_CYCLES
    out = _check(unit, buffers, args)
    expected = wrap(acc + a @ w.T, 32).ravel() & M32
    assert out["c_out"][2:6].tolist() == expected.tolist()


def test_scalar_arguments_and_an_in_place_array():
    design = scale_in_place.synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=4)
    assert [(o.name, o.direction) for o in unit.contract.operands] == [
        ("x", "read"), ("x_out", "write")]
    assert unit.contract.args == ("k", "n")
    assert unit.scalar_code("k", -3) == 0xFD and unit.scalar_value("k", 0xFD) == -3
    rng = np.random.default_rng(3)
    x = rng.integers(-2**15, 2**15, 8)
    buffers = {"x": np.r_[np.zeros(4, np.int64), x & 0xFFFF]}
    args = {"x_addr": 4, "x_out_addr": 4, "k": unit.scalar_code("k", -3), "n": 5}
    # the loop bound is an argument: cycles follow it
    assert unit.cycles(args) - unit.cycles({**args, "n": 4}) == \
        design.cycles(None, -3, 5) - design.cycles(None, -3, 4) > 0
    out = _check(unit, buffers, args, bind={"x": "x", "x_out": "x"})
    expected = x.copy()
    expected[:5] = wrap(x[:5] * -3, 16)
    assert out["x"][4:12].tolist() == (expected & 0xFFFF).tolist()
    with pytest.raises(ValueError, match="scalar 'k'.*codes 0..255"):
        unit.cycles({**args, "k": 300})


def test_returned_value_goes_to_ret_out():
    design = dot4.synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=3)
    assert [(o.name, o.width) for o in unit.contract.operands] == [
        ("a", 8), ("b", 8), ("ret_out", 32)]
    a, b = np.array([-128, 127, 5, -7]), np.array([-128, -128, 9, 3])
    buffers = {"a": a & 0xFF, "b": b & 0xFF, "ret_out": np.zeros(4, np.int64)}
    args = {"a_addr": 0, "b_addr": 0, "ret_out_addr": 1}
    out = _check(unit, buffers, args)
    assert out["ret_out"].tolist()[:4] == [0, int(a @ b) & M32, 0, 0]


def test_block_partition_with_banks_of_three():
    unit = KernelUnit(halves.synthesize(clock_ns=2.0), addr_width=3)
    a = np.array([-128, -1, 0, 1, 64, 127])
    buffers = {"a": a & 0xFF, "y_out": np.zeros(8, np.int64)}
    out = _check(unit, buffers, {"a_addr": 0, "y_out_addr": 1})
    expected = a * 2 + np.repeat([0, 1], 3)
    assert out["y_out"][1:7].tolist() == (expected & 0xFFFF).tolist()


def test_number_format_array_moves_codes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    unit = KernelUnit(fp8_sum.synthesize(clock_ns=2.0), addr_width=2)
    assert [(o.name, o.width) for o in unit.contract.operands] == [("f", 8), ("ret_out", 24)]
    codes = np.array([0x01, 0x38, 0xC4, 0x7E])  # 2**-9, 1.0, -3.0, 448
    values = codes.astype(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    buffers = {"f": codes, "ret_out": np.zeros(4, np.int64)}
    out = _check(unit, buffers, {"f_addr": 0, "ret_out_addr": 3})
    assert out["ret_out"][3] == int(values.sum() * 2**9) == 1 + 446 * 512


def test_energy_actions_sum_to_the_design_estimate_plus_copies():
    design = vector_add_kernel(n=8).synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=5)
    silence_unused(unit)  # the model view only
    args = {"x_addr": 0, "y_addr": 8, "z_out_addr": 16}
    acts = unit.actions(args)
    assert acts["read:x"] == acts["read:y"] == acts["write:z_out"] == 8
    # copies: 8 bank writes into x, y and z (z cleared), 8 bank reads of z
    copies = 3 * 8 * sram_write_energy_j(32, 8) + 8 * sram_read_energy_j(32, 8)
    assert unit.energy_j(args) - copies == pytest.approx(design.estimate().energy_j,
                                                         rel=1e-12)
    assert set(unit.ENERGY_PER_ACTION_J) == set(unit.ENERGY_SOURCES)
    assert not any(k.startswith(("read:", "write:")) for k in unit.ENERGY_PER_ACTION_J)
    # loop bounds from an argument: the counts follow it
    design = scale_in_place.synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=4)
    silence_unused(unit)
    copies = 8 * (sram_write_energy_j(16, 8) + sram_read_energy_j(16, 8))
    for n in (3, 7):
        args = {"x_addr": 0, "x_out_addr": 0, "k": 5, "n": n}
        assert unit.actions(args)["op:mul24"] == n  # 16 x 8 -> 24 bits
        assert unit.energy_j(args) - copies == pytest.approx(
            design.estimate(np.zeros(8, np.int64), 5, n).energy_j, rel=1e-12)


def test_data_dependent_kernel_gives_a_bound_not_cycles():
    design = first_at_least.synthesize(clock_ns=2.0)
    unit = KernelUnit(design, addr_width=4)
    silence_unused(unit)  # run_unit needs cycles(): the golden and model views only
    args = {"a_addr": 0, "ret_out_addr": 0, "key": unit.scalar_code("key", 40)}
    with pytest.raises(ConfigError, match="depend on the array contents.*cycles_bound"):
        unit.cycles(args)
    assert unit.cycles_bound(args) == 8 + design.cycles(None, 40, worst_case=True) + 1 + \
        FIXED_OVERHEAD_CYCLES
    a = np.array([-9, -3, 0, 12, 40, 41, 50, 99])
    buffers = {"a": a & 0xFFFF, "ret_out": np.zeros(2, np.int64)}
    unit.golden(buffers, args)
    assert buffers["ret_out"][0] == np.searchsorted(a, 40) == 4


def test_scalar_wider_than_an_argument_is_extended():
    @kernel
    def offset(x: Array[Int(32), 2], d: Int(40)):
        for i in range(2):
            x[i] = x[i] + d

    unit = KernelUnit(offset.synthesize(clock_ns=2.0), addr_width=2)
    assert unit.scalar_code("d", -5) == 0xFFFF_FFFB
    assert unit.scalar_value("d", 0xFFFF_FFFB) == -5
    with pytest.raises(ValueError, match="scalar 'd'.*32-bit code"):
        unit.scalar_code("d", 1 << 36)
    buffers = {"x": np.array([7, (-100) & M32]), "x_out": np.zeros(4, np.int64)}
    args = {"x_addr": 0, "x_out_addr": 2, "d": unit.scalar_code("d", -5)}
    out = _check(unit, buffers, args)
    assert out["x_out"][2:4].tolist() == [2, (-105) & M32]


def test_bad_designs_and_arguments():
    with pytest.raises(ValueError, match="array 'w' has 48-bit elements"):
        KernelUnit(wide_copy.synthesize(clock_ns=2.0))
    design = vector_add_kernel(n=8).synthesize(clock_ns=2.0)
    with pytest.raises(ValueError, match="array 'x' has 8 elements; addr_width=2"):
        KernelUnit(design, addr_width=2)
    with pytest.raises(ValueError, match="addr_width must be in 1..32"):
        KernelUnit(design, addr_width=33)
    with pytest.raises(TypeError, match="design must be"):
        KernelUnit(vector_add_kernel(n=8))
