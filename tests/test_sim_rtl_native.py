"""archsim.sim.rtl.native: a bus job run by the native C++ Verilator harness.

The design under simulation is written here: a 64-word buffer on the host bus (region 2), the
CTRL/CYCLES CSRs of BUS.md and two test CSRs (N at offset 5, SUM at offset 6,
RESETS at offset 7: edges with rst high). A go write sums
buffer words ``[0, N)`` (one read per cycle) and raises ``irq``. Expected values come from
numpy, from the design's own closed form (N + 1 busy cycles: N reads, then the last word's
accumulation) and from the same job driven by a Python testbench in Amaranth's simulator,
written here independently of the harness.
"""


import numpy as np
import pytest
from amaranth.hdl import Module, Mux, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from archsim.errors import ConfigError, SimulationError, ToolchainError
from archsim.hw.verilog import to_verilog
from archsim.sim.rtl import native
from archsim.sim.rtl.native import NativeJob, NativeRead, NativeRunUntil, NativeWrite, run_native

DEPTH = 64
CTRL, CYCLES, N_CSR, SUM_CSR, RESETS_CSR = 0, 1, 5, 6, 7
BUFFER = 2 << 24  # region 2: buffer 0


class SumAccel(wiring.Component):
    """Sums buffer words [0, N) on a go write; irq until irq_clear or the next go."""

    bus_addr: In(32)
    bus_wdata: In(32)
    bus_we: In(1)
    bus_re: In(1)
    bus_rdata: Out(32)
    irq: Out(1)
    busy: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=32, depth=DEPTH, init=[])
        rd, wr = mem.read_port(), mem.write_port()
        region, offset = self.bus_addr[24:32], self.bus_addr[0:24]
        n, total, cycles = Signal(32), Signal(32), Signal(32)
        index = Signal(range(DEPTH + 1))
        pending, done = Signal(), Signal()
        # Edges with rst high, in a register reset does not clear (the harness's reset).
        resets = Signal(8, reset_less=True)
        m.d.sync += resets.eq(resets + ResetSignal())

        # Engine: one read per busy cycle while index < n, accumulated a cycle later.
        m.d.comb += [rd.en.eq(self.bus_re | self.busy), rd.addr.eq(offset)]
        with m.If(self.busy):
            m.d.comb += rd.addr.eq(index)
            m.d.sync += [cycles.eq(cycles + 1), pending.eq(index < n)]
            with m.If(index < n):
                m.d.sync += index.eq(index + 1)
            with m.If(pending):
                m.d.sync += total.eq(total + rd.data)
            with m.If(~(index < n) & (pending | (n == 0))):
                m.d.sync += [self.busy.eq(0), done.eq(1), self.irq.eq(1)]

        # Bus writes (the buffer only while idle, as BUS.md promises).
        m.d.comb += [wr.addr.eq(offset), wr.data.eq(self.bus_wdata),
                     wr.en.eq(self.bus_we & (region == 2) & ~self.busy)]
        with m.If(self.bus_we & (region == 0)):
            with m.If(offset == CTRL):
                with m.If(self.bus_wdata[0]):
                    m.d.sync += [self.busy.eq(1), done.eq(0), self.irq.eq(0), index.eq(0),
                                 pending.eq(0), total.eq(0), cycles.eq(0)]
                with m.Elif(self.bus_wdata[1]):
                    m.d.sync += self.irq.eq(0)
            with m.Elif(offset == N_CSR):
                m.d.sync += n.eq(self.bus_wdata)

        # Bus reads: 1-cycle latency; CSRs through a register, the buffer through its port.
        csr_q, from_mem = Signal(32), Signal()
        with m.If(self.bus_re):
            m.d.sync += from_mem.eq(region == 2)
            with m.Switch(offset):
                with m.Case(CTRL):
                    m.d.sync += csr_q.eq(self.busy | (done << 1))
                with m.Case(CYCLES):
                    m.d.sync += csr_q.eq(cycles)
                with m.Case(N_CSR):
                    m.d.sync += csr_q.eq(n)
                with m.Case(SUM_CSR):
                    m.d.sync += csr_q.eq(total)
                with m.Case(RESETS_CSR):
                    m.d.sync += csr_q.eq(resets)
                with m.Default():
                    m.d.sync += csr_q.eq(0)
        m.d.comb += self.bus_rdata.eq(Mux(from_mem, rd.data, csr_q))
        return m


def pysim_job(job, *, max_cycles=10_000):
    """The job driven by a Python testbench in Amaranth's simulator, same cycle model."""
    dut = SumAccel()
    reads = []
    runs = []

    async def bench(ctx):
        for op in job.ops:
            if isinstance(op, NativeWrite):
                for k, word in enumerate(op.words.tolist()):
                    ctx.set(dut.bus_addr, op.addr + k)
                    ctx.set(dut.bus_wdata, word)
                    ctx.set(dut.bus_we, 1)
                    await ctx.tick()
                ctx.set(dut.bus_we, 0)
            elif isinstance(op, NativeRead):
                words = []
                for k in range(op.count):
                    ctx.set(dut.bus_addr, op.addr + k)
                    ctx.set(dut.bus_re, 1)
                    await ctx.tick()
                    words.append(ctx.get(dut.bus_rdata))
                ctx.set(dut.bus_re, 0)
                reads.append(words)
            else:
                assert isinstance(op, NativeRunUntil)
                count = 0
                while not ctx.get(getattr(dut, op.signal)):
                    assert count < max_cycles
                    await ctx.tick()
                    count += 1
                runs.append(count)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return reads, runs


def sum_job(words, n, *, max_cycles=None):
    return (NativeJob()
            .write(BUFFER, words)
            .write(N_CSR, [n])
            .write(CTRL, [1])                       # go
            .run_until("irq", max_cycles=max_cycles)
            .read(CTRL, 1)
            .read(SUM_CSR, 1).read(CYCLES, 1)
            .write(CTRL, [2])                       # irq_clear
            .read(BUFFER + 3, 5))


@pytest.fixture(scope="module")
def native_cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("archsim-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARCHSIM_CACHE", str(path))
        yield path


# --- without a build ------------------------------------------------------------------------

def test_job_checks_its_operations():
    with pytest.raises(ConfigError, match=r"field 'count': count must be a positive int"):
        NativeJob().read(0, 0)
    with pytest.raises(ConfigError, match=r"word 4294967296 does not fit the 32-bit bus"):
        NativeJob().write(0, [1, 1 << 32])
    with pytest.raises(ConfigError, match=r"runs past the 32-bit word address space"):
        NativeJob().read(0xFFFF_FFFF, 2)
    with pytest.raises(ConfigError, match=r"max_cycles must be an int >= 0"):
        NativeJob().run_until("irq", max_cycles=-1)
    job = NativeJob().write(7, [-1, 2]).read(3, 4).run_until()
    assert job.ops[0].words.tolist() == [0xFFFF_FFFF, 2]
    assert job.cycles_without_runs == 6 and job.ops[2] == NativeRunUntil("irq", None)


def test_ports_are_checked_before_building(monkeypatch):
    def no_build(*args, **kwargs):
        raise AssertionError("built")

    monkeypatch.setattr(native, "_ensure_native_build", no_build)
    verilog = to_verilog(SumAccel())
    with pytest.raises(ConfigError, match=r"'bus_we', which is not a 1-bit output of module "
                                          r"'top' .*allowed: 'busy', 'irq'"):
        run_native(verilog, job=NativeJob().run_until("bus_we"))
    with pytest.raises(ConfigError, match=r"the Verilog has no module 'accel'"):
        run_native(verilog, toplevel="accel", job=NativeJob())
    bare = "module top(input clk, output y);\n  assign y = clk;\nendmodule\n"
    with pytest.raises(ConfigError, match=r"module 'top' has no input port 'bus_addr'"):
        run_native(bare, job=NativeJob())


def test_ports_come_from_the_port_list_and_the_wrapper_registers_rst():
    verilog = ("module top(clk, rst, bus_addr, y);\n  input clk;\n  input rst;\n"
               "  input [31:0] bus_addr;\n  output [2:0] y;\n"
               "  function [2:0] f;\n    input a;\n    input [1:0] b;\n"
               "    f = {a, b};\n  endfunction\n  assign y = f(rst, bus_addr[1:0]);\n"
               "endmodule\n")
    ports = native._module_ports(verilog, "top")
    assert ports == {"clk": ("input", 1), "rst": ("input", 1), "bus_addr": ("input", 32),
                     "y": ("output", 3)}
    ansi = "module top(input clk, input [7:0] d, output reg q);\nendmodule\n"
    assert native._module_ports(ansi, "top") == {"clk": ("input", 1), "d": ("input", 8),
                                                  "q": ("output", 1)}
    name, text = native.reset_wrapper(ports, "top")
    assert name == "top_archsim_reset"
    assert f"module {name}(clk, rst, bus_addr, y);" in text
    assert "  input [31:0] bus_addr;" in text and "  output [2:0] y;" in text
    assert "always @(posedge clk) rst_q <= rst;" in text
    assert "top dut(.clk(clk), .rst(rst_q), .bus_addr(bus_addr), .y(y));" in text


# --- under Verilator ------------------------------------------------------------------------

@pytest.mark.slow
def test_sum_matches_numpy_and_pysim_and_is_cached(native_cache, monkeypatch):
    rng = np.random.default_rng(12)
    words = rng.integers(0, 1 << 32, DEPTH, dtype=np.int64)
    n = 37
    job = sum_job(words, n)
    result = run_native(to_verilog(SumAccel()), job=job)

    status, total, cycles, window = result.reads
    assert total.tolist() == [int(words[:n].sum()) % (1 << 32)]
    assert window.tolist() == words[3:8].tolist()
    assert status.tolist() == [0b10]               # done, not busy
    assert result.run_cycles == [n + 1]            # the design's closed form
    assert cycles.tolist() == [n + 1]
    assert result.cycles == DEPTH + 2 + (n + 1) + 3 + 1 + 5
    ref_reads, ref_runs = pysim_job(job)
    assert [r.tolist() for r in result.reads] == ref_reads
    assert result.run_cycles == ref_runs
    assert not result.build_cached and result.build_time_s > 0
    assert result.wall_time_s > 0 and result.cycles_per_s > 0

    # The same Verilog again: the cached executable, not a rebuild.
    monkeypatch.setattr(native, "_compile_harness", lambda *a, **k: pytest.fail("rebuilt"))
    again = run_native(to_verilog(SumAccel()), job=sum_job(words, 5))
    assert again.build_cached and again.build_time_s == 0.0
    assert again.reads[1].tolist() == [int(words[:5].sum()) % (1 << 32)]
    assert again.run_cycles == [6]
    # The design saw rst high for exactly one edge before the job (pysim starts in reset
    # state, without a reset edge).
    resets = run_native(to_verilog(SumAccel()), job=NativeJob().read(RESETS_CSR, 1)
                        .write(CTRL, [1]).run_until("irq").read(RESETS_CSR, 1))
    assert [r.tolist() for r in resets.reads] == [[1], [1]] and resets.build_cached

    # A run that cannot finish in time names the signal and the limit.
    with pytest.raises(SimulationError, match=r"'irq' was not high within max_cycles=10 "
                                              r"cycles \(signal 'irq', cycle \d+\)"):
        run_native(to_verilog(SumAccel()), job=sum_job(words, 40, max_cycles=10))
    # run_native's max_cycles is the default limit.
    with pytest.raises(SimulationError, match=r"max_cycles=20 cycles"):
        run_native(to_verilog(SumAccel()), job=sum_job(words, 40), max_cycles=20)


@pytest.mark.slow
def test_verilator_error_quotes_the_line(native_cache):
    verilog = ("module top(clk, bus_addr, bus_wdata, bus_we, bus_re, bus_rdata);\n"
               "  input clk;\n  input [31:0] bus_addr;\n  input [31:0] bus_wdata;\n"
               "  input bus_we;\n  input bus_re;\n  output [31:0] bus_rdata;\n"
               "  assign bus_rdata = bus_addr +;  // the broken line\n"
               "endmodule\n")
    with pytest.raises(ToolchainError, match=r"Verilator rejected the Verilog of module 'top' "
                                             r"at line 8: .*\n  8 \| assign bus_rdata = "
                                             r"bus_addr \+;"):
        run_native(verilog, job=NativeJob().read(0, 1))
    # Nothing half-built is left in the cache (the other test's complete entry may be there).
    assert [p for p in (native_cache / "native").iterdir() if ".tmp-" in p.name] == []


def test_native_opt_level_comes_from_the_environment(monkeypatch):
    from archsim.errors import ConfigError
    from archsim.sim.rtl.native import NATIVE_FLAGS, NATIVE_OPT_ENV, native_flags

    monkeypatch.setenv(NATIVE_OPT_ENV, "-O2")
    flags = native_flags()
    assert "OPT_FAST=-O2" in flags and "OPT_FAST=-O3" not in flags
    assert len(flags) == len(NATIVE_FLAGS)
    monkeypatch.delenv(NATIVE_OPT_ENV)
    assert native_flags() == NATIVE_FLAGS
    monkeypatch.setenv(NATIVE_OPT_ENV, "fast")
    with pytest.raises(ConfigError, match=r"ARCHSIM_NATIVE_OPT='fast' is not a C\+\+"):
        native_flags()
