"""The top level of a compiled accelerator: bus, CSRs, sequencer, buffers, units, DVFS.

One :class:`AcceleratorTop` per :class:`~archsim.compilers.accel.compiled.CompiledAccelerator`:

* the host bus (:func:`archsim.hw.accel.bus.bus_signature`) split by a
  :class:`~archsim.hw.accel.bus.BusDecoder` into the CSRs (region 0), the
  :class:`~archsim.hw.accel.controller.Sequencer`'s program memory (region 1) and one
  :class:`~archsim.hw.accel.memory.BufferMemory` per buffer (region ``2 + i``);
* every unit, its ``sync`` domain wrapped in an :class:`~amaranth.hdl.EnableInserter`: it is
  frozen in a cycle in which a buffer it is bound to refreshes, or its domain changes its
  operating point (the unit contract of :mod:`archsim.hw.accel.interface`);
* the buffer ports planned by :func:`~archsim.compilers.accel.compiled.compile_accelerator`:
  a port shared by several units is granted to the requesting unit declared first (units run
  at once after ``Program.start``); the others are frozen for that cycle and ask again, a
  frozen unit's accesses are not performed, and each user of a shared read port keeps the
  data of its own last read (as an unshared port holds it);
* one :class:`~archsim.hw.accel.dvfs.DVFSController` per regulated domain, clocked with the
  controller in the ``main`` domain;
* the DVFS-select register: a unit with a ``result`` output (EdgeBERT's entropy-DVFS
  selector) writes it in its ``done`` cycle, and an indirect DVFS instruction asks for the
  operating point it holds. The sequencer sees the new value in that done cycle already (a
  bypass), so a switch decoded right after the unit's done gets it.

All domains are simulated on one clock: a unit's cycles are cycles of its domain's clock and
the model converts each domain's cycles to time at that domain's frequency. This is exact for
programs whose steps run one after another (the sequencer's), which is every program here.

An eDRAM buffer's refresh timer is held while the accelerator is idle (the host bus has no
wait states, so a refresh must not take a host access) and restarts at ``go``: refreshes fall
in cycles ``g + I, g + 2I, ...`` of a run started in cycle ``g``, which the model counts
exactly. Keeping idle data alive is the host's concern.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from amaranth.hdl import Const, EnableInserter, Module, Mux, Signal, Value
from amaranth.lib import wiring

from ...hw.accel.bus import (
    BusDecoder,
    CSRBlock,
    bus_signature,
    connect_bus,
    connect_host_port,
    connect_status,
)
from ...hw.accel.controller import Sequencer
from ...hw.accel.dvfs import DVFSController
from ...hw.accel.isa import IMM_WIDTH
from ...hw.accel.memory import BufferMemory
from ...hw.models.dvfs import OperatingPoint

if TYPE_CHECKING:
    from ...hw.accel.interface import Unit
    from .compiled import CompiledAccelerator, PortPlan

__all__ = ["AcceleratorTop"]


def _count(bits: list[Value]) -> Value:
    """How many of ``bits`` are high."""
    total: Value = Const(0, 1)
    for b in bits:
        total = total + b
    return total


def _any(values: list[Value]) -> Value:
    out: Value = Signal(1) if not values else values[0]
    for v in values[1:]:
        out = out | v
    return out


class AcceleratorTop(wiring.Component):
    """The accelerator's RTL (see the module docstring); ports: the host bus and ``irq``."""

    def __init__(self, compiled: CompiledAccelerator) -> None:
        self.compiled = compiled
        super().__init__(bus_signature())

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        c = self.compiled
        desc = c.description
        units = c.fresh_units()
        unit_items = list(units.items())
        unit_args = [len(u.contract.all_args) for _, u in unit_items]
        domains = list(desc.domains.values())

        seq = Sequencer(units=len(unit_items), max_args=max(max(unit_args), 1),
                        program_words=c.program_words_pow2, domains=len(domains),
                        unit_args=unit_args,
                        op_points=[len(d.operating_points) for d in domains])
        csr = CSRBlock(stats=c.stat_names())
        m.submodules.sequencer = seq
        m.submodules.csr = csr

        buffers: dict[str, BufferMemory] = {}
        for name, buf_spec in c.buffers.items():
            plans = [p for p in c.ports if p.buffer == name]
            reads = [p for p in plans if p.direction == "read"]
            writes = [p for p in plans if p.direction == "write"]
            lanes = {f"{p.direction}_{p.index}": p.lanes for p in plans}
            mem = BufferMemory(words=buf_spec.words, width=buf_spec.width, banks=buf_spec.banks,
                               read_ports=len(reads), write_ports=len(writes),
                               port_lanes=lanes,
                               refresh_interval_cycles=c.refresh_interval_cycles(name))
            buffers[name] = mem
            m.submodules[f"buf_{name}"] = mem

        decoder = BusDecoder(region_addr_widths=[csr.addr_width, seq.addr_width]
                             + [b.element_addr_width for b in buffers.values()])
        m.submodules.decoder = decoder
        connect_bus(m, self, decoder)
        connect_host_port(m, decoder.region(0), csr)
        connect_host_port(m, decoder.region(1), seq)
        for k, mem in enumerate(buffers.values()):
            connect_host_port(m, decoder.region(2 + k), mem)
            # The refresh timer is held while idle and restarts at go (module docstring).
            m.d.comb += mem.refresh_sync.eq(~seq.busy)
        connect_status(m, seq, csr)
        m.d.comb += self.irq.eq(csr.irq)

        # DVFS: one controller per regulated domain; a request for a fixed domain (which a
        # program from the DSL never makes) is acknowledged at once.
        domain_stall: dict[str, Value] = {}
        acks: list[Value] = []
        for d, dom in enumerate(domains):
            if not dom.regulated:
                domain_stall[dom.name] = Signal(1, name=f"stall_{dom.name}")
                acks.append(seq.dvfs_req & (seq.dvfs_domain == d))
                continue
            ctrl = DVFSController(
                operating_points=[OperatingPoint(voltage_v=v, frequency_hz=f)
                                  for v, f in dom.operating_points.values()],
                ldo=c.ldo, adpll=c.adpll, clock_hz=c.controller_clock_hz, domains=1)
            m.submodules[f"dvfs_{dom.name}"] = ctrl
            mine = seq.dvfs_domain == d
            # Not in the ack cycle: the sequencer holds dvfs_req high into the next DVFS step
            # (valid/ready style), whose operands it has not presented yet.
            m.d.comb += [ctrl.req.eq(seq.dvfs_req & mine & ~ctrl.busy & ~ctrl.ack),
                         ctrl.domain.eq(0),
                         ctrl.op.eq(seq.dvfs_op)]
            acks.append(ctrl.ack & mine)
            domain_stall[dom.name] = ctrl.stall[0]
        m.d.comb += seq.dvfs_ack.eq(_any(acks))

        # Units: frozen while a bound buffer refreshes, their domain changes point, or a unit
        # declared before them takes a port they both want in that cycle.
        enables: dict[str, Signal] = {}
        busy_of: dict[str, Value] = {}
        stall_of: dict[str, Value] = {}
        for u, (name, unit) in enumerate(unit_items):
            spec = desc.units[name]
            stall_of[name] = _any([buffers[b].stall for b in sorted(set(spec.bind.values()))]
                                  + [domain_stall[spec.domain]])
            enable = Signal(name=f"en_{name}")
            enables[name] = enable
            m.submodules[f"unit_{name}"] = EnableInserter({"sync": enable})(unit)
            # A start that meets a frozen cycle waits for the next enabled one.
            pending = Signal(name=f"start_pending_{name}")
            with m.If(enable):
                m.d.sync += pending.eq(0)
            with m.Elif(seq.start[u]):
                m.d.sync += pending.eq(1)
            m.d.comb += [unit.start.eq(seq.start[u] | pending),
                         seq.unit_done[u].eq(unit.done & enable)]
            for k, arg in enumerate(unit.contract.all_args):
                m.d.comb += getattr(unit, f"arg_{arg}").eq(seq.args[k])
            busy_of[name] = unit.busy

        # The DVFS-select register (module docstring); the last unit in declaration order
        # wins if two finish in one cycle, in the register and the bypass alike.
        select_reg = Signal(IMM_WIDTH, name="dvfs_select")
        select: Value = select_reg
        for name, unit in unit_items:
            if unit.contract.result_width:
                fire = unit.done & enables[name]
                select = Mux(fire, unit.result, select)
                with m.If(fire):
                    m.d.sync += select_reg.eq(unit.result)
        m.d.comb += seq.dvfs_select.eq(select)

        # Port arbitration (units run concurrently after async starts): on a shared port the
        # requesting unit declared first wins; a loser is frozen for the cycle and asks again.
        # Priority follows declaration order everywhere, so the enables form no loop.
        lose: dict[str, list[Value]] = {name: [] for name in units}
        for plan in c.ports:
            earlier: list[Value] = []
            for unit_name, operand in plan.users:
                uport = getattr(units[unit_name], operand)
                wants = busy_of[unit_name] & uport.en
                if earlier:
                    lose[unit_name].append(wants & _any(earlier))
                earlier.append(wants & enables[unit_name])
        for name in units:
            m.d.comb += enables[name].eq(~(stall_of[name] | _any(lose[name])))

        for plan in c.ports:
            mem = buffers[plan.buffer]
            self._drive_port(m, plan, getattr(mem, f"{plan.direction}_{plan.index}"), units,
                             busy_of, enables)

        # Statistics for the CSRs (the model predicts each; the tests compare).
        # Unit-cycles, summed over units (several may be busy at once).
        stats = c.stat_names()
        values: dict[str, Value] = {"stall_cycles": _count(
            [busy_of[n] & ~enables[n] for n in units])}
        for dom in domains:
            values[f"busy_{dom.name}"] = _count(
                [busy_of[n] for n, s in desc.units.items() if s.domain == dom.name])
        for name, mem in buffers.items():
            values[f"refreshes_{name}"] = mem.stall
        for name in stats:
            count = Signal(32, name=f"count_{name}")
            with m.If(csr.go & ~seq.busy):
                m.d.sync += count.eq(0)
            with m.Elif(seq.busy):
                m.d.sync += count.eq(count + values[name])
            m.d.comb += getattr(csr, f"stat_{name}").eq(count)
        return m

    @staticmethod
    def _drive_port(m: Module, plan: PortPlan, port: Any, units: dict[str, Unit],
                    busy_of: dict[str, Value], enables: dict[str, Signal]) -> None:
        """Drive one buffer port from the busy unit among its users (one runs at a time)."""
        users = [(getattr(units[u], o), busy_of[u] & enables[u]) for u, o in plan.users]
        if plan.direction == "read":
            if len(users) == 1:
                m.d.comb += users[0][0].data.eq(port.data)  # the memory holds it for its user
            for k, (uport, active) in enumerate(users if len(users) > 1 else []):
                # A shared port's data changes with the next user's read: each user keeps the
                # data of its own last read, as an unshared port holds it.
                fresh = Signal(name=f"{plan.buffer}_r{plan.index}_fresh{k}")
                held = Signal.like(port.data, name=f"{plan.buffer}_r{plan.index}_held{k}")
                m.d.sync += fresh.eq(active & uport.en)
                with m.If(fresh):
                    m.d.sync += held.eq(port.data)
                m.d.comb += uport.data.eq(Mux(fresh, port.data, held))
        for k, (uport, active) in enumerate(users):
            with (m.If(active & uport.en) if k == 0 else m.Elif(active & uport.en)):
                m.d.comb += [port.addr.eq(uport.addr), port.en.eq(1)]
                if plan.direction == "write":
                    m.d.comb += port.data.eq(uport.data)
