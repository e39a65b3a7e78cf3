"""The accelerator description: declarations, their errors, bindings, programs, golden runs."""

from __future__ import annotations

import numpy as np
import pytest

from archsim.dsl.accel import Accelerator
from archsim.errors import DSLError

from .accel_units import AddConst


def _acc() -> Accelerator:
    acc = Accelerator(name="tiny")
    acc.domain("core", operating_points={"fast": (0.8, 500e6), "slow": (0.6, 200e6)})
    acc.buffer("x", words=64, width=16, domain="core")
    acc.buffer("y", words=32, width=16, domain="core")
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "y"}, domain="core")
    return acc


def test_golden_runs_program_steps_in_order():
    acc = _acc()
    prog = acc.program()
    prog.run("inc", src_addr=4, dst_addr=0, n=8, c=3)
    prog.set_operating_point("core", "slow")
    prog.run("inc", src_addr=8, dst_addr=4, n=8, c=65535)
    x = np.arange(64) * 7
    out = acc.compile().golden(prog, {"x": x})
    expected = np.zeros(32, dtype=np.int64)
    expected[0:8] = x[4:12] + 3
    expected[4:12] = (x[8:16] - 1) % 65536  # the second step overwrites 4..7
    assert np.array_equal(out["y"], expected)
    assert np.array_equal(out["x"], x)  # read-only buffer untouched


def test_error_names_file_and_line_of_the_bad_step():
    acc = _acc()
    prog = acc.program()
    prog.run("inc", src_addr=0, dst_addr=30, n=8, c=0); line = _line()  # noqa: E702
    with pytest.raises(DSLError) as err:
        acc.compile().check_program(prog)
    assert err.value.lineno == line and err.value.filename == __file__
    assert "writes dst[30:38] past the end of buffer 'y' (32 words)" in str(err.value)


def _line() -> int:
    import sys

    return sys._getframe(1).f_lineno


@pytest.mark.parametrize("declare, message", [
    (lambda a: a.buffer("z", words=64, width=40), "wider than the 32-bit host bus"),
    (lambda a: a.buffer("z", words=64, width=8, banks=3), "banks must be a power of two"),
    (lambda a: a.buffer("z", words=10, width=8, banks=4), "must be a multiple of banks"),
    (lambda a: a.buffer("z", words=64, width=8, technology="flash"),
     "unknown technology 'flash'; allowed: sram, edram, reram"),
    (lambda a: a.buffer("x", words=64, width=8), "'x' is already a buffer"),
    (lambda a: a.buffer("z", words=64, width=8, domain="gpu"), "unknown domain 'gpu'"),
    (lambda a: a.unit("u", "fft", bind={}), "unknown library unit 'fft'"),
    (lambda a: a.unit("u", AddConst, bind={"src": "nope", "dst": "y"}, domain="core"),
     "bound to buffer 'nope', which is not declared"),
    (lambda a: a.unit("u", AddConst, bind={"src": "x", "dst": "y"}),
     "uses buffer 'x' of domain 'core' without a synchronizer"),
    (lambda a: a.domain("d", operating_points={"p": (900, 1e9)}), "volts, not millivolts"),
    (lambda a: a.domain("d", operating_points={"p": (0.9, 500)}), "give hertz"),
    (lambda a: a.domain("d", operating_points={}), "at least one operating point"),
])
def test_declaration_errors_name_the_part(declare, message):
    acc = _acc()
    with pytest.raises(DSLError) as err:
        declare(acc)
    assert message in str(err.value)
    assert err.value.filename == __file__


def test_binding_errors_from_the_unit_contract():
    acc = Accelerator(name="bad")
    acc.buffer("x", words=64, width=8)
    acc.buffer("y", words=64, width=16)
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "y"})
    with pytest.raises(DSLError, match="operand 'src' is 16 bits wide; buffer 'x' holds "
                                       "8-bit words"):
        acc.compile()
    acc2 = Accelerator(name="bad2")
    acc2.buffer("y", words=64, width=16)
    acc2.unit("inc", AddConst, bind={"src": "y"})
    with pytest.raises(DSLError, match="operand 'dst' is not bound"):
        acc2.compile()


def test_program_errors():
    acc = _acc()
    prog = acc.program()
    with pytest.raises(DSLError, match="unit 'gemm', which accelerator 'tiny' does not have"):
        prog.run("gemm", n=1)
    with pytest.raises(DSLError, match="no operating point 'turbo'; it has"):
        prog.set_operating_point("core", "turbo")
    with pytest.raises(DSLError, match="fixed supply and clock"):
        prog.set_operating_point("main", "nominal")
    prog.run("inc", src_addr=0, dst_addr=0, n=4)
    with pytest.raises(DSLError, match="argument 'c' is missing"):
        acc.compile().check_program(prog)


def test_two_operands_of_one_unit_on_a_single_ported_buffer():
    acc = Accelerator(name="ports")
    acc.buffer("x", words=64, width=16)
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "x"})
    acc.compile()  # one read and one write port: fine
    acc.unit("inc2", AddConst, bind={"src": "x", "dst": "x"})
    plans = acc.compile().ports
    assert {(p.direction, p.users) for p in plans} == {
        ("read", (("inc", "src"), ("inc2", "src"))),
        ("write", (("inc", "dst"), ("inc2", "dst")))}


def test_operating_points_are_checked_against_the_vf_curve_and_regulators():
    acc = Accelerator(name="dv")
    acc.domain("core", operating_points={"turbo": (0.6, 900e6)})
    acc.buffer("x", words=64, width=16, domain="core")
    acc.unit("inc", AddConst, bind={"src": "x", "dst": "x"}, domain="core")
    with pytest.raises(DSLError, match=r"domain 'core', operating point 'turbo': .*overclocked"
                                       r".*900 MHz exceeds f_max = 686\.\d+ MHz at 0\.6 V"):
        acc.compile()
    table = Accelerator(name="dv2")
    table.domain("core", operating_points={"p": (0.6, 500e6)},
                 vf_table=((0.5, 300e6), (0.7, 600e6)))
    table.buffer("x", words=64, width=16, domain="core")
    table.unit("inc", AddConst, bind={"src": "x", "dst": "x"}, domain="core")
    # the table allows 450 MHz at 0.6 V (linear between its points)
    with pytest.raises(DSLError, match="500 MHz exceeds f_max = 450 MHz at 0.6 V"):
        table.compile()


def test_an_indirect_switch_names_a_unit_that_ran_before_it():
    acc = Accelerator(name="sel")
    acc.domain("core", operating_points={"fast": (0.8, 1000e6), "slow": (0.5, 400e6)})
    acc.buffer("vec", words=32, width=16, domain="core")
    acc.buffer("tab", words=16, width=8, domain="core")
    acc.unit("pick", "entropy_dvfs", bind={"entropy": "vec", "table": "tab"}, domain="core")
    prog = acc.program()
    with pytest.raises(DSLError, match="'pick' has not run yet in this program") as info:
        prog.set_operating_point("core", from_unit="pick")
    assert info.value.filename == __file__
    with pytest.raises(DSLError, match="not both and not neither"):
        prog.set_operating_point("core")
    prog.run("pick", entropy_addr=0, table_addr=0, enpy_scale=1)
    prog.set_operating_point("core", from_unit="pick")
    step = prog.steps[-1]
    assert step.indirect and (step.point, step.from_unit) == (None, "pick")
    # the host-programmed table holds op indices: entry 1 for bin 0 (entropy 0) is "slow"
    compiled = acc.compile()
    assert compiled.golden_run(prog, {"tab": np.full(16, 1)}).points == {1: "slow"}
    assert compiled.encode(prog)[-2] == (2 << 28) | (1 << 20) | (1 << 16)  # domain 1, indirect
