"""Run-to-done of an HLS design under the native C++ Verilator harness (no Python per edge).

The design is wrapped in :class:`HLSBusHarness`, a top level with the accelerator host bus
(:mod:`archsim.hw.accel.bus`): region 0 is a small control block, region ``1 + k`` the host
port of array bank ``k`` (in :func:`bank_regions` order). The job
(:class:`~archsim.sim.rtl.native.NativeJob`) writes the scalar arguments and every bank's
initial words, writes CTRL.go, clocks until ``irq``, then reads CYCLES, the returned values and
every bank back -- all in C++ (:func:`archsim.sim.rtl.native.run_native`), built ``-O3``
without VPI, cached by a hash of the Verilog.

Control block (word offsets in region 0): ``0`` CTRL (write 1: start; read: bit 0 running,
bit 1 done), ``1`` CYCLES (``start`` sampled to ``done`` high, as ``Design.cycles`` counts
them), ``32 + 2i`` / ``33 + 2i`` the low / high word of scalar ``i`` (write), ``16 + 2k`` /
``17 + 2k`` the low / high word of returned value ``k`` (read). Values up to 64 bits; array
elements up to 32 bits (the bus word).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring

from ...errors import ConfigError, SimulationError
from ...hw.accel.bus import BusDecoder, bus_address, bus_signature, connect_bus
from ...hw.checks import silence_unused

if TYPE_CHECKING:
    from ...compilers.hls.design import Design
    from .hls_run import HLSRunResult

__all__ = ["HLSBusHarness", "bank_regions", "run_design_native"]

_CTRL, _CYCLES, _RET0, _SCALAR0 = 0, 1, 16, 32
_CTRL_WIDTH = 7  # offsets 0..127


def bank_regions(design: Design) -> list[tuple[str, int, str]]:
    """``(array, bank, port prefix)`` of every host-visible bank, in bus-region order."""
    from ...compilers.hls.codegen import bank_prefix

    out = []
    for name, info in design.ir.arrays.items():
        if info.local:
            continue
        for b in range(info.banks):
            out.append((name, b, bank_prefix(name, b, info.banks)))
    return out


class HLSBusHarness(wiring.Component):
    """An HLS design behind the host bus (see the module docstring)."""

    def __init__(self, design: Design) -> None:
        from ...compilers.hls.codegen import ret_port_names

        try:
            self._check(design)
        except ConfigError:
            silence_unused(self)  # never elaborated: spare the user Amaranth's warning
            raise
        self.design = design
        self.dut = design.make_component()
        self.banks = bank_regions(design)
        self.rets = ret_port_names(design.ir)
        super().__init__(bus_signature())

    @staticmethod
    def _check(design: Design) -> None:
        ir = design.ir
        for name, info in ir.arrays.items():
            if not info.local and info.elem.width > 32:
                raise ConfigError(f"array {name!r} has {info.elem.width}-bit elements; the "
                                  "native run moves 32-bit bus words", field="backend")
        for what, types in (("scalar", list(ir.scalars.values())), ("return", ir.returns)):
            if any(t.width > 64 for t in types):
                raise ConfigError(f"a {what} wider than 64 bits cannot be passed natively",
                                  field="backend")
        if len(ir.scalars) > 48 or len(ir.returns) > 8:
            raise ConfigError("too many scalars or returned values for the native run",
                              field="backend")

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        dut = self.dut
        m.submodules.dut = dut
        widths = [_CTRL_WIDTH] + [len(getattr(dut, f"{pre}_host_addr"))
                                  for _, _, pre in self.banks]
        decoder = BusDecoder(region_addr_widths=widths)
        m.submodules.decoder = decoder
        connect_bus(m, self, decoder)
        for k, (_, _, pre) in enumerate(self.banks):
            port = decoder.region(1 + k)
            m.d.comb += [getattr(dut, f"{pre}_host_addr").eq(port.addr),
                         getattr(dut, f"{pre}_host_wdata").eq(port.wdata),
                         getattr(dut, f"{pre}_host_we").eq(port.we),
                         port.rdata.eq(getattr(dut, f"{pre}_host_rdata"))]

        ctrl = decoder.region(0)
        running, done = Signal(), Signal()
        count, cycles = Signal(48), Signal(48)
        go = ctrl.we & (ctrl.addr == _CTRL) & ctrl.wdata[0] & ~running
        m.d.comb += [dut.start.eq(go), self.irq.eq(done)]
        with m.If(go):
            m.d.sync += [running.eq(1), done.eq(0), count.eq(1)]
        with m.Elif(running):
            with m.If(dut.done):
                m.d.sync += [running.eq(0), done.eq(1), cycles.eq(count)]
            with m.Else():
                m.d.sync += count.eq(count + 1)
        scalars = list(self.design.ir.scalars)
        for i, name in enumerate(scalars):
            reg = Signal(64, name=f"scalar_{name}")
            for half in (0, 1):
                with m.If(ctrl.we & (ctrl.addr == _SCALAR0 + 2 * i + half)):
                    m.d.sync += reg.word_select(half, 32).eq(ctrl.wdata)
            m.d.comb += getattr(dut, name).eq(reg)
        rdata = Signal(32)
        with m.Switch(ctrl.addr):
            with m.Case(_CTRL):
                m.d.sync += rdata.eq(running | (done << 1))
            with m.Case(_CYCLES):
                m.d.sync += rdata.eq(cycles[:32])
            for k, port in enumerate(self.rets):
                value = getattr(dut, port).as_unsigned()
                for half in (0, 1):
                    with m.Case(_RET0 + 2 * k + half):
                        m.d.sync += rdata.eq(value.shift_right(32 * half)[:32])
        m.d.comb += ctrl.rdata.eq(rdata)
        return m


def run_design_native(design: Design, init: dict[str, list[int]], scalars: dict[str, int],
                      max_cycles: int) -> HLSRunResult:
    """Simulate ``design`` to done under the native harness; decode its outputs."""
    from ...hw.verilog import to_verilog
    from .hls_run import HLSRunResult, _decode_outputs, signed_raw
    from .native import NativeJob, run_native

    harness = HLSBusHarness(design)
    ir = design.ir
    job = NativeJob()
    for i, name in enumerate(ir.scalars):
        raw = scalars.get(name, 0) & ((1 << 64) - 1)
        job.write(bus_address(0, _SCALAR0 + 2 * i), [raw & 0xFFFFFFFF, raw >> 32])
    for k, (array, bank, _) in enumerate(harness.banks):
        info = ir.arrays[array]
        words = [int(x) & ((1 << info.elem.width) - 1)
                 for x in init.get(array, [])[info.bank_slice(bank)]]
        if any(words):
            job.write(bus_address(1 + k, 0), words)
    job.write(bus_address(0, _CTRL), [1])
    job.run_until("irq", max_cycles=max_cycles + 4)
    job.read(bus_address(0, _CYCLES), 1)
    if harness.rets:
        job.read(bus_address(0, _RET0), 2 * len(harness.rets))
    first_bank = 2 if harness.rets else 1
    for k, (array, _, _) in enumerate(harness.banks):
        job.read(bus_address(1 + k, 0), ir.arrays[array].bank_depth)
    verilog = to_verilog(harness, name=design.name)
    try:
        result = run_native(verilog, toplevel=design.name, job=job)
    except SimulationError as exc:
        raise SimulationError(f"kernel '{design.name}' did not finish within {max_cycles} "
                              f"cycles ({exc.reason})", signal="done") from None

    cycles = int(result.reads[0][0])
    words = [int(w) & 0xFFFFFFFF for w in result.reads[1].tolist()] if harness.rets else []
    ret_raw = [signed_raw(words[2 * k] | (words[2 * k + 1] << 32), t.width, t.signed)
               for k, t in enumerate(ir.returns)]
    mem_raw = {}
    for k, (array, bank, _) in enumerate(harness.banks):
        elem = ir.arrays[array].elem
        mem_raw[f"{array}:{bank}"] = [signed_raw(int(v), elem.width, elem.signed)
                                      for v in result.reads[first_bank + k].tolist()]
    return HLSRunResult(outputs=_decode_outputs(design, ret_raw, mem_raw), cycles=cycles,
                        wall_time_s=result.wall_time_s, backend="native",
                        extra={"build_time_s": result.build_time_s,
                               "build_cached": result.build_cached,
                               "cycles_per_s": result.cycles_per_s,
                               "job_cycles": float(result.cycles)})
