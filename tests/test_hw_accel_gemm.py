"""GemmUnit: RTL (Amaranth's simulator) == golden == numpy, cycles == the fold formula."""

import re

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from archsim.hw.accel.gemm import GemmUnit
from archsim.hw.accel.interface import Unit
from archsim.hw.checks import silence_unused
from archsim.hw.models.systolic import matmul_cycles
from archsim.hw.verilog import to_verilog
from archsim.sim.rtl import simulate
from archsim.sim.rtl.unit_run import run_unit

ADDR_WIDTH = 6  # 64 rows per buffer: small memories keep the simulations quick


def unit(rows, cols, **kw):
    kw.setdefault("addr_width", ADDR_WIDTH)
    return GemmUnit(rows=rows, cols=cols, **kw)


def model_unit(rows, cols, **kw):
    """A unit only asked for its model views (never elaborated)."""
    u = unit(rows, cols, **kw)
    silence_unused(u)
    return u


def wrap(x, width):
    """Two's-complement wrap of int64 values to ``width`` bits (numpy reference)."""
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << (width - 1))) % (1 << width)) - (1 << (width - 1))


def raw(x, width):
    return np.asarray(x, dtype=np.int64) & ((1 << width) - 1)


def int8_operands(rng, m, k, n):
    """Random int8 A, B with the extremes -128 and 127 in both."""
    a = rng.integers(-128, 128, size=(m, k))
    b = rng.integers(-128, 128, size=(k, n))
    a[0, :] = -128
    b[:, 0] = -128          # C[0, 0] = k * 16384, the largest product sum
    a[-1, 0], b[0, -1] = 127, 127
    a[m // 2, -1], b[-1, n // 2] = -128, 127
    return a, b


def layout(r, c, a, b, *, a_addr=0, b_addr=0, c_addr=0, d=None, c_in_addr=None, acc_width=32,
           size=None):
    """Buffers holding A transposed (K x M) at a_addr, B at b_addr, D at c_in_addr."""
    (m, k), n = a.shape, b.shape[1]
    size_a = size or r << ADDR_WIDTH
    size_c = size or c << ADDR_WIDTH
    buf_a = np.zeros(size_a, np.int64)
    buf_b = np.zeros(size or c << ADDR_WIDTH, np.int64)
    buf_c = np.zeros(size_c, np.int64)
    buf_a[a_addr:a_addr + k * m] = raw(a.T.ravel(), 8)
    buf_b[b_addr:b_addr + k * n] = raw(b.ravel(), 8)
    if d is not None:
        buf_c[c_in_addr:c_in_addr + m * n] = raw(d.ravel(), acc_width)
    return {"a": buf_a, "b": buf_b, "c": buf_c}


def args_for(m, k, n, *, a_addr=0, b_addr=0, c_addr=0, c_in_addr=0, accumulate=0):
    return dict(a_addr=a_addr, b_addr=b_addr, c_addr=c_addr, c_in_addr=c_in_addr,
                m=m, k=k, n=n, accumulate=accumulate)


def result(words, c_addr, m, n, width=32):
    return wrap(np.asarray(words)[c_addr:c_addr + m * n], width).reshape(m, n)


def independent_cycles(r, c, m, k, n):
    """The published OS fold formula, folds * (R + C + K - 2), plus the unit's stated fixed
    overhead R + 2 (latch, read latency, last drain R - 1, write visibility)."""
    folds = (m // r) * (n // c)
    return folds * (r + c + k - 2) + (r + 2)


def run_golden(u, buffers, args):
    out = {name: np.array(words) for name, words in buffers.items()}
    out["c_in"] = out["c"]  # c_in shares the buffer of c (as `bind` does for the RTL)
    u.golden(out, args)
    return out["c"]


# --- RTL against numpy and the golden view --------------------------------------------------

SHAPES = [
    # rows, cols, m, k, n
    (2, 2, 8, 5, 4),    # 4 x 2 folds
    (4, 4, 8, 5, 4),    # 2 folds in M
    (4, 4, 4, 3, 12),   # 3 folds in N
    (2, 4, 4, 1, 8),    # K = 1, non-square array
    (4, 2, 8, 2, 2),    # taller than wide
    (3, 2, 6, 3, 4),    # rows not a power of two: addresses divided, not sliced
    (4, 1, 8, 1, 2),    # P = R: a drain ends in the period after next
    (1, 1, 2, 1, 3),    # the one-PE array: P = 1, a tile drains two periods on
]


@pytest.mark.parametrize(("r", "c", "m", "k", "n"), SHAPES)
def test_rtl_equals_golden_equals_numpy(r, c, m, k, n):
    rng = np.random.default_rng(r * 100 + c * 10 + k)
    a, b = int8_operands(rng, m, k, n)
    c_addr = 3 * c  # an aligned, non-zero base, so addresses are really offset
    buffers = layout(r, c, a, b, a_addr=2 * r, b_addr=c, c_addr=c_addr)
    args = args_for(m, k, n, a_addr=2 * r, b_addr=c, c_addr=c_addr)
    u = unit(r, c)
    run = run_unit(u, buffers, args, bind={"c_in": "c"})
    want = a @ b
    assert np.array_equal(result(run.buffers["c"], c_addr, m, n), want)
    golden = run_golden(u, buffers, args)
    assert np.array_equal(golden, run.buffers["c"])  # every word, not only the result
    expected = independent_cycles(r, c, m, k, n)
    assert expected == matmul_cycles(rows=r, cols=c, m=m, k=k, n=n, dataflow="os") + r + 2
    assert run.cycles == expected
    assert u.cycles(args) == expected
    assert run.stall_cycles == 0


def test_stalls_change_neither_results_nor_enabled_cycles():
    r, c, m, k, n = 2, 2, 4, 5, 4
    a, b = int8_operands(np.random.default_rng(7), m, k, n)
    buffers = layout(r, c, a, b, c_addr=2)
    args = args_for(m, k, n, c_addr=2)
    free = run_unit(unit(r, c), buffers, args, bind={"c_in": "c"})
    stalled = run_unit(unit(r, c), buffers, args, bind={"c_in": "c"}, stall_probability=0.2,
                       seed=3)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == free.cycles == independent_cycles(r, c, m, k, n)
    for name in ("a", "b", "c"):
        assert np.array_equal(stalled.buffers[name], free.buffers[name])
    assert np.array_equal(result(stalled.buffers["c"], 2, m, n), a @ b)


def test_accumulate_in_place_and_from_another_address():
    r, c, m, k, n = 2, 2, 4, 3, 4
    rng = np.random.default_rng(11)
    a, b = int8_operands(rng, m, k, n)
    d = rng.integers(-(1 << 31), 1 << 31, size=(m, n))
    d[0, 0] = (1 << 31) - 1  # C[0, 0] = k * 16384 + d overflows: the add wraps
    u = unit(r, c)
    # In place: c += a @ b.
    buffers = layout(r, c, a, b, c_addr=4, d=d, c_in_addr=4)
    args = args_for(m, k, n, c_addr=4, c_in_addr=4, accumulate=1)
    run = run_unit(u, buffers, args, bind={"c_in": "c"})
    want = wrap(a @ b + d, 32)
    assert want[0, 0] < 0
    assert np.array_equal(result(run.buffers["c"], 4, m, n), want)
    assert np.array_equal(run_golden(u, buffers, args), run.buffers["c"])
    assert run.cycles == independent_cycles(r, c, m, k, n)
    # c = a @ b + d with d elsewhere in the buffer; d is left as it was.
    buffers = layout(r, c, a, b, c_addr=40, d=d, c_in_addr=2)
    args = args_for(m, k, n, c_addr=40, c_in_addr=2, accumulate=1)
    run = run_unit(unit(r, c), buffers, args, bind={"c_in": "c"})
    assert np.array_equal(result(run.buffers["c"], 40, m, n), want)
    assert np.array_equal(result(run.buffers["c"], 2, m, n), d)
    assert np.array_equal(run_golden(u, buffers, args), run.buffers["c"])


def test_accumulate_zero_ignores_c_in():
    r, c, m, k, n = 2, 2, 2, 2, 2
    a, b = int8_operands(np.random.default_rng(5), m, k, n)
    d = np.full((m, n), 1000)
    buffers = layout(r, c, a, b, c_addr=8, d=d, c_in_addr=8)
    # c_in_addr is unaligned and unused: no error, plain product.
    args = args_for(m, k, n, c_addr=8, c_in_addr=3)
    run = run_unit(unit(r, c), buffers, args, bind={"c_in": "c"})
    assert np.array_equal(result(run.buffers["c"], 8, m, n), a @ b)


def test_narrow_accumulator_wraps_like_twos_complement():
    r, c, m, k, n = 2, 2, 2, 4, 2
    a = np.full((m, k), -128)
    b = np.full((k, n), -128)
    b[:, 1] = 127
    u = unit(r, c, acc_width=16)
    buffers = layout(r, c, a, b)
    args = args_for(m, k, n)
    run = run_unit(u, buffers, args, bind={"c_in": "c"})
    want = wrap(a @ b, 16)  # 65536 -> 0, -65024 -> 512
    assert want.tolist() == [[0, 512], [0, 512]]
    assert np.array_equal(result(run.buffers["c"], 0, m, n, 16), want)
    assert np.array_equal(run_golden(u, buffers, args), run.buffers["c"])


# --- the model views ----------------------------------------------------------------------

@pytest.mark.parametrize(("r", "c", "m", "k", "n"),
                         [(16, 16, 64, 100, 32), (4, 8, 12, 1, 40), (3, 5, 9, 7, 10)])
def test_cycles_follow_the_fold_formula(r, c, m, k, n):
    args = args_for(m, k, n)
    u = model_unit(r, c, addr_width=16)
    want = matmul_cycles(rows=r, cols=c, m=m, k=k, n=n, dataflow="os") + r + 2
    assert u.cycles(args) == want == independent_cycles(r, c, m, k, n)
    assert u.folds(args) == (m // r) * (n // c)


def test_actions_and_energy():
    u = model_unit(4, 2)
    folds = (8 // 4) * (6 // 2)
    assert u.actions(args_for(8, 5, 6)) == {
        "mac": 8 * 5 * 6, "read:a": folds * 5, "read:b": folds * 5,
        "write:c": folds * 4, "read:c_in": 0}
    assert u.actions(args_for(8, 5, 6, accumulate=1))["read:c_in"] == folds * 4
    # Every element of C is written once; a is read once per column tile, b per row tile.
    acts = u.actions(args_for(8, 5, 6))
    assert acts["write:c"] * 2 == 8 * 6
    assert acts["read:a"] * 4 == 8 * 5 * (6 // 2)
    assert acts["read:b"] * 2 == 5 * 6 * (8 // 4)
    # Horowitz ISSCC 2014, 45 nm: 0.2 pJ 8-bit multiply + 0.1 pJ 32-bit add.
    assert GemmUnit.ENERGY_PER_ACTION_J["mac"] == pytest.approx(0.3e-12)
    assert set(GemmUnit.ENERGY_SOURCES) == set(GemmUnit.ENERGY_PER_ACTION_J)
    assert "Horowitz" in GemmUnit.ENERGY_SOURCES["mac"]
    assert isinstance(u, Unit)


def test_footprint():
    u = model_unit(2, 4)
    assert u.footprint(args_for(4, 3, 8, a_addr=6, b_addr=8, c_addr=40, c_in_addr=100)) == {
        "a": (6, 6 + 12), "b": (8, 8 + 24), "c": (40, 40 + 32), "c_in": (100, 100)}
    got = u.footprint(args_for(4, 3, 8, c_addr=40, c_in_addr=100, accumulate=1))
    assert got["c_in"] == (100, 132)


def test_golden_against_numpy_on_a_larger_shape():
    r, c, m, k, n = 16, 16, 32, 70, 48
    rng = np.random.default_rng(2)
    a, b = int8_operands(rng, m, k, n)
    d = rng.integers(-(1 << 31), 1 << 31, size=(m, n))
    u = model_unit(r, c, addr_width=12)
    bufs = {"a": np.zeros(4096, np.int64), "b": np.zeros(4096, np.int64),
            "c": np.zeros(4096, np.int64)}
    bufs["a"][16:16 + k * m] = raw(a.T.ravel(), 8)
    bufs["b"][:k * n] = raw(b.ravel(), 8)
    bufs["c"][:m * n] = raw(d.ravel(), 32)
    bufs["c_in"] = bufs["c"]
    u.golden(bufs, args_for(m, k, n, a_addr=16, c_addr=0, c_in_addr=0, accumulate=1))
    assert np.array_equal(result(bufs["c"], 0, m, n), wrap(a @ b + d, 32))
    assert bufs["c"].min() >= 0  # raw unsigned words


# --- validation -----------------------------------------------------------------------------

def _msg(name, what, value):
    return re.escape(f"unit kind 'gemm': argument {name!r} must be {what}, not {value}")


@pytest.mark.parametrize(("change", "name", "what", "value"), [
    ({"m": 6}, "m", "a multiple of rows (4)", 6),
    ({"n": 3}, "n", "a multiple of cols (2)", 3),
    ({"k": 0}, "k", "at least 1", 0),
    ({"m": 0}, "m", "at least 1", 0),
    ({"accumulate": 2}, "accumulate", "0 or 1", 2),
    ({"a_addr": 2}, "a_addr", "a multiple of rows (4)", 2),
    ({"b_addr": 3}, "b_addr", "a multiple of cols (2)", 3),
    ({"c_addr": 1}, "c_addr", "a multiple of cols (2)", 1),
    ({"c_in_addr": 1, "accumulate": 1}, "c_in_addr", "a multiple of cols (2)", 1),
])
def test_bad_arguments_name_the_argument_and_constraint(change, name, what, value):
    u = model_unit(4, 2)
    args = {**args_for(8, 5, 6), **change}
    for view in (u.cycles, u.actions, u.footprint):
        with pytest.raises(ValueError, match=_msg(name, what, value)):
            view(args)


def test_an_operand_past_its_address_space_is_refused():
    u = model_unit(4, 2)  # 64 rows: a holds 256 elements, b and c 128
    with pytest.raises(ValueError, match=re.escape(
            "unit kind 'gemm': operand 'b' would reach element 129, past the 128 elements "
            "its 6-bit row address reaches (64 rows of 2)")):
        u.cycles(args_for(4, 13, 10))
    with pytest.raises(ValueError, match=re.escape("operand 'c' would reach element 143")):
        u.cycles(args_for(8, 1, 8, c_addr=80))
    assert u.cycles(args_for(8, 16, 8))  # b exactly fills its 128 elements


def test_missing_and_unknown_arguments_come_from_the_contract():
    u = model_unit(2, 2)
    args = args_for(2, 2, 2)
    del args["m"]
    with pytest.raises(ValueError, match="argument 'm' is missing"):
        u.cycles(args)
    with pytest.raises(ValueError, match="has no argument 'x'"):
        u.cycles({**args_for(2, 2, 2), "x": 1})


@pytest.mark.parametrize(("kw", "error", "text"), [
    ({"rows": 0, "cols": 2}, ValueError, "rows must be at least 1, not 0"),
    ({"rows": 2, "cols": 2.0}, TypeError, "cols must be an int, not 2.0"),
    ({"rows": 2, "cols": 2, "acc_width": 0}, ValueError, "acc_width must be at least 1"),
    ({"rows": 2, "cols": 2, "addr_width": 33}, ValueError, "addr_width must be in 1..32"),
])
def test_bad_parameters(kw, error, text):
    with pytest.raises(error, match=re.escape(text)):
        GemmUnit(**kw)


def test_ports_follow_the_contract():
    u = GemmUnit(rows=4, cols=2, input_width=8, acc_width=24, addr_width=10)
    silence_unused(u)
    assert [(o.name, o.direction, o.width, o.lanes) for o in u.contract.operands] == [
        ("a", "read", 8, 4), ("b", "read", 8, 2), ("c", "write", 24, 2),
        ("c_in", "read", 24, 2)]
    assert len(u.a.data) == 32 and len(u.b.data) == 16 and len(u.c.data) == 48
    assert len(u.a.addr) == len(u.c.addr) == 10
    assert u.contract.all_args == ("a_addr", "b_addr", "c_addr", "c_in_addr", "m", "k", "n",
                                   "accumulate")


# --- the unit with its buffers as one design: Verilog, pysim and Verilator ------------------

class _Bench(wiring.Component):
    """The unit with its three buffers (``c_in`` shares the memory of ``c``) preloaded, the
    write port of ``c`` brought out so the results can be read from the recorded cycles."""

    def __init__(self, gemm, images):
        self._gemm, self._images = gemm, images
        members = {"start": In(1), "busy": Out(1), "done": Out(1), "c_en": Out(1),
                   "c_addr": Out(gemm.addr_width), "c_data": Out(gemm.acc_width * gemm.cols)}
        members.update({f"arg_{name}": In(16) for name in gemm.contract.all_args})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        g = m.submodules.gemm = self._gemm
        m.d.comb += g.start.eq(self.start)
        for name in g.contract.all_args:
            m.d.comb += getattr(g, f"arg_{name}").eq(getattr(self, f"arg_{name}"))
        mems = {}
        for name in ("a", "b", "c"):
            o = g.contract.operand(name)
            words = self._images[name]
            rows = len(words) // o.lanes
            init = [sum(int(words[r * o.lanes + i]) << (i * o.width) for i in range(o.lanes))
                    for r in range(rows)]
            mems[name] = m.submodules[f"mem_{name}"] = Memory(
                shape=o.width * o.lanes, depth=rows, init=init)
        for name, mem in (("a", mems["a"]), ("b", mems["b"]), ("c_in", mems["c"])):
            port, rp = getattr(g, name), mem.read_port()
            m.d.comb += [rp.addr.eq(port.addr), rp.en.eq(port.en), port.data.eq(rp.data)]
        wp = mems["c"].write_port()
        m.d.comb += [wp.addr.eq(g.c.addr), wp.data.eq(g.c.data), wp.en.eq(g.c.en),
                     self.c_en.eq(g.c.en), self.c_addr.eq(g.c.addr),
                     self.c_data.eq(g.c.data), self.done.eq(g.done),
                     self.busy.eq(g.busy)]
        return m


def _bench_run(r, c, m, k, n, backend):
    rng = np.random.default_rng(16)
    a, b = int8_operands(rng, m, k, n)
    d = rng.integers(-(1 << 31), 1 << 31, size=(m, n))
    addr_width = 7
    images = {"a": np.zeros(r << addr_width, np.int64), "b": np.zeros(c << addr_width, np.int64),
              "c": np.zeros(c << addr_width, np.int64)}
    images["a"][:k * m] = raw(a.T.ravel(), 8)
    images["b"][:k * n] = raw(b.ravel(), 8)
    images["c"][:m * n] = raw(d.ravel(), 32)
    gemm = GemmUnit(rows=r, cols=c, addr_width=addr_width)
    args = args_for(m, k, n, accumulate=1)
    expected = independent_cycles(r, c, m, k, n)
    total = expected + 3
    inputs = {f"arg_{name}": [value] for name, value in args.items()}
    inputs["start"] = [0, 1] + [0] * (total - 2)
    run = simulate(_Bench(gemm, images), inputs, ["busy", "done", "c_en", "c_addr", "c_data"],
                   cycles=total, backend=backend)
    out = {name: np.asarray(v) for name, v in run.outputs.items()}
    # start is sampled in cycle 1: done in cycle 1 + cycles, busy from 2 through done.
    assert np.flatnonzero(out["done"]).tolist() == [1 + expected]
    assert np.flatnonzero(out["busy"]).tolist() == list(range(2, 2 + expected))
    words = images["c"].copy()
    for t in np.flatnonzero(out["c_en"]):
        row, data = int(out["c_addr"][t]), int(out["c_data"][t])
        for j in range(c):
            words[row * c + j] = (data >> (32 * j)) & 0xFFFFFFFF
    assert np.array_equal(result(words, 0, m, n), wrap(a @ b + d, 32))
    assert len(np.flatnonzero(out["c_en"])) == gemm.actions(args)["write:c"]
    return gemm


def test_unit_with_buffers_in_pysim_and_verilog():
    gemm = _bench_run(4, 4, 8, 5, 8, "pysim")
    text = to_verilog(GemmUnit(rows=2, cols=2, addr_width=8), name="gemm")
    assert "module gemm" in text and "c_in__en" in text
    assert gemm.cycles(args_for(8, 5, 8)) == independent_cycles(4, 4, 8, 5, 8)


@pytest.mark.slow
def test_16x16_unit_in_verilator():
    # 4 folds (2 in M, 2 in N) of a 16x16 array with K = 20, accumulating onto D.
    _bench_run(16, 16, 32, 20, 32, "verilator")


# --- weight-stationary ------------------------------------------------------------------------

def ws_layout(r, c, a, b, *, a_addr=0, b_addr=0, d=None, c_in_addr=0):
    """Buffers holding A row-major (M x K) at a_addr, B at b_addr, D at c_in_addr."""
    (m, k), n = a.shape, b.shape[1]
    buf_a = np.zeros(r << ADDR_WIDTH, np.int64)
    buf_b = np.zeros(c << ADDR_WIDTH, np.int64)
    buf_c = np.zeros(c << ADDR_WIDTH, np.int64)
    buf_a[a_addr:a_addr + m * k] = raw(a.ravel(), 8)
    buf_b[b_addr:b_addr + k * n] = raw(b.ravel(), 8)
    if d is not None:
        buf_c[c_in_addr:c_in_addr + m * n] = raw(d.ravel(), 32)
    return {"a": buf_a, "b": buf_b, "c": buf_c}


def independent_ws_cycles(r, c, m, k, n):
    """SCALE-Sim's WS fold, (K / R) * (N / C) folds of 2R + C + M - 2, plus the unit's
    stated overhead 3 (latch, the last drain's two cycles past its period, visibility)."""
    return (k // r) * (n // c) * (2 * r + c + m - 2) + 3


WS_SHAPES = [
    # rows, cols, m, k, n
    (2, 2, 3, 4, 4),    # 2 x 2 folds, m not a multiple of anything
    (4, 4, 5, 8, 4),    # two K tiles: partial sums read back through c_in
    (2, 4, 1, 2, 8),    # M = 1: the drain triggers in the next fold's first cycle
    (4, 2, 6, 4, 2),    # taller than wide
    (3, 2, 4, 6, 4),    # rows not a power of two
    (1, 1, 2, 3, 2),    # the one-PE array
]


@pytest.mark.parametrize(("r", "c", "m", "k", "n"), WS_SHAPES)
def test_ws_rtl_equals_golden_equals_numpy(r, c, m, k, n):
    rng = np.random.default_rng(r * 100 + c * 10 + m)
    a, b = int8_operands(rng, m, k, n)
    c_addr = 2 * c
    buffers = ws_layout(r, c, a, b, a_addr=r, b_addr=c)
    args = args_for(m, k, n, a_addr=r, b_addr=c, c_addr=c_addr)
    u = unit(r, c, dataflow="ws")
    run = run_unit(u, buffers, args, bind={"c_in": "c"})
    assert np.array_equal(result(run.buffers["c"], c_addr, m, n), a @ b)
    assert np.array_equal(run_golden(u, buffers, args), run.buffers["c"])
    expected = independent_ws_cycles(r, c, m, k, n)
    assert expected == matmul_cycles(rows=r, cols=c, m=m, k=k, n=n, dataflow="ws") + 3
    assert run.cycles == expected == u.cycles(args)


@pytest.mark.parametrize("same_address", [True, False])
def test_ws_accumulates_in_place_and_from_a_disjoint_range(same_address):
    r, c, m, k, n = 2, 2, 3, 4, 4
    rng = np.random.default_rng(5)
    a, b = int8_operands(rng, m, k, n)
    d = rng.integers(-(1 << 31), 1 << 31, size=(m, n))
    d[0, 0] = (1 << 31) - 1  # the add wraps
    c_addr = 0
    c_in_addr = c_addr if same_address else 8 * c  # past c's 12 words
    buffers = ws_layout(r, c, a, b, d=d, c_in_addr=c_in_addr)
    args = args_for(m, k, n, c_addr=c_addr, c_in_addr=c_in_addr, accumulate=1)
    u = unit(r, c, dataflow="ws")
    run = run_unit(u, buffers, args, bind={"c_in": "c"})
    assert np.array_equal(result(run.buffers["c"], c_addr, m, n), wrap(a @ b + d, 32))
    assert np.array_equal(run_golden(u, buffers, args), run.buffers["c"])
    assert run.cycles == independent_ws_cycles(r, c, m, k, n)


def test_ws_stalls_change_neither_results_nor_enabled_cycles():
    r, c, m, k, n = 2, 2, 3, 4, 2
    a, b = int8_operands(np.random.default_rng(9), m, k, n)
    buffers = ws_layout(r, c, a, b)
    args = args_for(m, k, n)
    free = run_unit(unit(r, c, dataflow="ws"), buffers, args, bind={"c_in": "c"})
    stalled = run_unit(unit(r, c, dataflow="ws"), buffers, args, bind={"c_in": "c"},
                       stall_probability=0.2, seed=4)
    assert stalled.stall_cycles > 0
    assert stalled.cycles == free.cycles == independent_ws_cycles(r, c, m, k, n)
    assert np.array_equal(result(stalled.buffers["c"], 0, m, n), a @ b)


def test_ws_actions_counted_by_hand():
    u = model_unit(4, 4, dataflow="ws")
    # k = 8 (2 K tiles) x n = 8 (2 N tiles): 4 folds; m = 5
    acts = u.actions(args_for(5, 8, 8, accumulate=0))
    assert acts == {"mac": 5 * 8 * 8, "read:a": 4 * 5, "read:b": 4 * 4, "write:c": 4 * 5,
                    "read:c_in": 2 * 5}  # the second K tile of each N tile reads back
    assert u.actions(args_for(5, 8, 8, accumulate=1))["read:c_in"] == 4 * 5


@pytest.mark.parametrize(("change", "name", "what"), [
    ({"k": 6}, "k", "a multiple of rows (4)"),
    ({"a_addr": 2}, "a_addr", "a multiple of rows (4)"),
    ({"accumulate": 1, "c_in_addr": 4}, "c_in_addr", "c_addr (0) or a range disjoint"),
])
def test_ws_bad_arguments_name_the_constraint(change, name, what):
    u = model_unit(4, 4, dataflow="ws")
    args = {**args_for(5, 8, 8), **change}
    with pytest.raises(ValueError, match=re.escape(f"argument {name!r} must be {what}")):
        u.cycles(args)
    assert model_unit(4, 4, dataflow="ws").cycles(args_for(5, 8, 8)) > 0  # m = 5 is fine


def test_unknown_dataflow_is_refused():
    with pytest.raises(ValueError, match="dataflow must be one of 'os', 'ws'"):
        GemmUnit(rows=2, cols=2, dataflow="is")
