"""Scheduled IR -> an Amaranth :class:`~amaranth.lib.wiring.Component` (FSM + datapath).

Interface: ``start`` (in), ``done`` (out, one cycle), ``busy`` (out), one input port per scalar
argument (latched on ``start``), ``ret`` (or ``ret_0``, ``ret_1``, ...) for returned values, and
per array bank a host port used while idle (``a_host_addr``, ``a_host_wdata``, ``a_host_we``,
``a_host_rdata``: synchronous read, one cycle latency) to load inputs and read results.
Every array bank is an :class:`amaranth.lib.memory.Memory` (one read and one write port)
inside the component, initialised from ``init``; :attr:`HLSComponent.memories` exposes them so
a testbench can read results back. A local array has no host port; each of its words has a
"written" bit, cleared on ``start``, so it reads as zero until written in the current run
(as in the golden view) at no cost in cycles.

Timing contract: ``start`` sampled high in cycle ``s`` (while idle) gives ``done`` high in cycle
``s + cycles``, where ``cycles = 1 + sum of the regions' cycles`` and a region running ``n``
iterations takes ``(n - 1) * II + depth`` cycles (0 when ``n == 0``).

Multi-cycle operators: a pipelined multiplier of latency ``L`` is the product followed by
``L`` registers (the delay chain every value crossing cycles has), balanced into stages by
synthesis retiming or a DSP block's pipeline registers; ``//`` and ``%`` use a radix-2
restoring divider per instance (or per ``resources={"div": k}`` unit), busy for ``wa + 2``
cycles: operand latch, one quotient bit per cycle, floor sign fix-up into its output register.

Read-modify-write forwarding: for each ``(store, load)`` pair the schedule lists in
:attr:`~archsim.compilers.hls.schedule.RegionSchedule.forwards` (the store of an earlier
iteration lands in the cycle the load issues, so the memory still returns the old word), the
store's enable, address and data and the load's address are registered, and in the load's
data cycle an address compare selects the stored word over the memory's (``<loop>_fwd<k>_*``
registers, ``<array>_fwd_L<line>`` the forwarded data).

Names: variable registers carry the user's names (``acc``), loop counters the loop variable
(``i``), states and control signals the loop (``L12_i_valid1``), operator wires the variable
they compute or ``<op>_L<line>``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from amaranth.hdl import Array, Cat, Const, Module, Mux, Shape, Signal, Value, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory, ReadPort, WritePort
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ...dsl.types import HWType
from .ir import Bound, KernelIR, Loop, Node, Region, Segment
from .schedule import Schedule, is_const_mul

__all__ = ["HLSComponent", "shape_of", "ret_port_names", "bank_prefix"]


def shape_of(t: HWType) -> Shape:
    """The Amaranth shape holding raw codes of ``t``."""
    return signed(t.width) if t.signed else unsigned(t.width)


def bank_prefix(array: str, bank: int, banks: int) -> str:
    """``a`` for an unpartitioned array, ``a_b2`` for bank 2 of a partitioned one."""
    return f"{array}_b{bank}" if banks > 1 else array


def ret_port_names(ir: KernelIR) -> list[str]:
    """Output port names of the returned values."""
    if len(ir.returns) == 1:
        return ["ret"]
    return [f"ret_{k}" for k in range(len(ir.returns))]


def _convert(e: Value, src: HWType, dst: HWType) -> Value:
    """Requantize (rounding) and fit (overflow) ``e`` of type ``src`` into ``dst``."""
    if dst.frac >= src.frac:
        e = e << (dst.frac - src.frac) if dst.frac > src.frac else e
    else:
        drop = src.frac - dst.frac
        if dst.rounding == "round":
            e = e + (1 << (drop - 1))
        e = e >> drop
    if dst.overflow == "saturate":
        e = Mux(e > dst.max_raw, Const(dst.max_raw, shape_of(dst)),
                Mux(e < dst.min_raw, Const(dst.min_raw, shape_of(dst)), e))
    return e


class HLSComponent(wiring.Component):
    """The hardware of one scheduled kernel.

    Parameters
    ----------
    schedule : Schedule
        A scheduled kernel (:attr:`ir` is its IR).
    init : dict of str to sequence of int, optional
        Raw codes to preload into each array (flat, row-major); missing arrays start at 0.
    mul_units : int or None
        Share multiplications among this many multiplier instances (by the schedule's
        binding); None gives every multiplication its own.
    div_units : int or None
        Likewise for the sequential dividers of ``//`` and ``%``.
    """

    def __init__(self, schedule: Schedule, *, init: dict[str, Any] | None = None,
                 mul_units: int | None = None, div_units: int | None = None) -> None:
        ir = schedule.ir
        members: dict[str, Any] = {"start": In(1), "done": Out(1), "busy": Out(1)}
        for name, t in ir.scalars.items():
            members[name] = In(shape_of(t))
        for pname, t in zip(ret_port_names(ir), ir.returns, strict=True):
            members[pname] = Out(shape_of(t))
        # host access to every bank while idle: load inputs, read results (and it keeps
        # synthesis from deleting memories that the kernel only reads or only writes)
        for name, info in ir.arrays.items():
            if info.local:
                continue
            for b in range(info.banks):
                pre = bank_prefix(name, b, info.banks)
                aw = ceil_log2(max(2, info.bank_depth))
                members[f"{pre}_host_addr"] = In(aw)
                members[f"{pre}_host_wdata"] = In(shape_of(info.elem))
                members[f"{pre}_host_we"] = In(1)
                members[f"{pre}_host_rdata"] = Out(shape_of(info.elem))
        super().__init__(members)
        self.ir = ir
        self.schedule = schedule
        self.mul_units = mul_units
        self.div_units = div_units
        init = init or {}
        #: (array, bank) -> Memory
        self.memories: dict[tuple[str, int], Memory] = {}
        for name, info in ir.arrays.items():
            flat = list(init.get(name, []))
            for b in range(info.banks):
                words = [int(x) for x in flat[info.bank_slice(b)]] if flat else []
                # at least 2 words: Verilog has no zero-width address (a complete partition
                # gives one-element banks)
                self.memories[(name, b)] = Memory(shape=shape_of(info.elem),
                                                  depth=max(2, info.bank_depth), init=words)

    # ------------------------------------------------------------------------------------
    def elaborate(self, platform: Any) -> Module:
        return _Builder(self).build()


class _MulBinding(NamedTuple):
    """One product bound to a shared multiplier: its inputs while ``active``, its output."""

    node: Node
    operands: list[Value]
    active: Value
    out: Signal


class _Port:
    """Named copies of a memory port's signals (``en`` for a write port only)."""

    def __init__(self, *, addr: Signal, data: Signal, en: Signal | None = None) -> None:
        self.addr, self.data = addr, data
        self.en = en if en is not None else Signal()


class _Builder:
    def __init__(self, comp: HLSComponent) -> None:
        self.c = comp
        self.ir = comp.ir
        self.sched = comp.schedule
        self.m = Module()
        self.wires: dict[int, Value] = {}
        self.delays: dict[tuple[int, int], Value] = {}
        self.valid: dict[int, list[Value]] = {}
        self.ivals: dict[int, list[Value]] = {}
        #: id(load) -> the load's data after read-modify-write forwarding
        self.fwd: dict[int, Signal] = {}

    def build(self) -> Module:
        m, ir, c = self.m, self.ir, self.c
        regions = [r for r in self.sched.all_regions() if not self.sched.region(r).transient]
        self.sid = {id(r): k + 2 for k, r in enumerate(regions)}
        self.state = Signal(range(len(regions) + 2), name="state")
        idle = self.state == 0
        m.d.comb += [c.done.eq(self.state == 1), c.busy.eq(~idle)]
        # memories and their ports
        self.rd: dict[tuple[str, int], Any] = {}
        self.written: list[Signal] = []
        self.wr: dict[tuple[str, int], Any] = {}
        for (name, b), mem in c.memories.items():
            suffix = f"_b{b}" if ir.arrays[name].banks > 1 else ""
            m.submodules[f"mem_{name}{suffix}"] = mem
            # named copies of the port signals keep the Verilog readable (a_raddr, a_rdata...)
            pre = bank_prefix(name, b, ir.arrays[name].banks)
            aw = ceil_log2(mem.depth)
            rp = ReadPort(ReadPort.Signature(shape=mem.shape, addr_width=aw), memory=mem,
                          domain="sync", path=(f"{pre}_rd",))
            wp = WritePort(WritePort.Signature(shape=mem.shape, addr_width=aw), memory=mem,
                           domain="sync", path=(f"{pre}_wr",))
            rd = _Port(addr=Signal(aw, name=f"{name}{suffix}_raddr"),
                       data=Signal.like(rp.data, name=f"{name}{suffix}_rdata"))
            wr = _Port(addr=Signal(aw, name=f"{name}{suffix}_waddr"),
                       data=Signal.like(wp.data, name=f"{name}{suffix}_wdata"),
                       en=Signal(name=f"{name}{suffix}_wen"))
            if ir.arrays[name].local:  # no host port: only the kernel sees it
                # a local array reads as zero until written in this run (as in the golden
                # view): one "written" bit per word, cleared on start -- no cycles spent
                written = Signal(mem.depth, name=f"{pre}_written")
                rvalid = Signal(name=f"{pre}_rvalid")
                m.d.comb += [rp.addr.eq(rd.addr), wp.addr.eq(wr.addr), wp.data.eq(wr.data),
                             wp.en.eq(wr.en), rd.data.eq(Mux(rvalid, rp.data, 0))]
                m.d.sync += rvalid.eq(written.bit_select(rd.addr, 1))
                with m.If(wr.en):
                    m.d.sync += written.bit_select(wr.addr, 1).eq(1)
                self.written.append(written)
                self.rd[(name, b)] = rd
                self.wr[(name, b)] = wr
                continue
            haddr, hwdata, hwe = (getattr(c, f"{pre}_host_{x}") for x in ("addr", "wdata", "we"))
            with m.If(idle):
                m.d.comb += [rp.addr.eq(haddr), wp.addr.eq(haddr), wp.data.eq(hwdata),
                             wp.en.eq(hwe)]
            with m.Else():
                m.d.comb += [rp.addr.eq(rd.addr), wp.addr.eq(wr.addr), wp.data.eq(wr.data),
                             wp.en.eq(wr.en)]
            m.d.comb += [rd.data.eq(rp.data), getattr(c, f"{pre}_host_rdata").eq(rp.data)]
            self.rd[(name, b)] = rd
            self.wr[(name, b)] = wr
        # registers: latched arguments, variables, FSM loop counters
        self.args = {n: Signal(shape_of(t), name=f"arg_{n}") for n, t in ir.scalars.items()}
        self.vars: dict[str, Signal] = {}
        for n, t in ir.variables.items():
            label = "ret" + n[5:] if n.startswith("__ret") else n
            self.vars[n] = Signal(shape_of(t), name=label)
        for k, pname in enumerate(ret_port_names(ir)):
            src = ir.ret_alias.get(k, f"__ret{k}")
            m.d.comb += getattr(c, pname).eq(self.vars[src])
        self.loopvars: dict[int, Signal] = {}
        self.fsmvar: dict[str, Signal] = {}
        self._collect_loops(ir.body)
        self.mul_bindings: dict[int, list[_MulBinding]] = {}
        self._div_setup(regions)
        for r in regions:
            self.region(r)
        self._mul_units()
        self._div_units()
        # FSM transitions (after the datapath, so entering a region wins over its own updates)
        with m.If(idle & c.start):
            for n, sig in self.args.items():
                m.d.sync += sig.eq(getattr(c, n))
            for w in self.written:
                m.d.sync += w.eq(0)
            self.goto(ir.body, 0, self._finish, {("arg", n): getattr(c, n) for n in self.args})
        with m.If(self.state == 1):
            m.d.sync += self.state.eq(0)
        self.walk(ir.body, self._finish)
        return m

    def _finish(self, ovr: dict) -> None:
        self.m.d.sync += self.state.eq(1)

    def _collect_loops(self, segs: tuple[Segment, ...]) -> None:
        for s in segs:
            if isinstance(s, Loop):
                if s.var not in self.fsmvar:
                    self.fsmvar[s.var] = Signal(shape_of(s.var_type), name=s.var)
                self._collect_loops(self.sched.body(s))

    # ---- bounds -------------------------------------------------------------------------
    def bound(self, b: Bound, ovr: dict) -> Value:
        if b.kind == "const":
            return Const(b.value)
        if b.kind == "arg":
            return ovr.get(("arg", b.name), self.args[b.name])
        if b.kind == "var":
            return ovr.get(("var", b.name), self.fsmvar[b.name])
        left, right = (self.bound(side, ovr) for side in b.operands)
        return left + right if b.kind == "add" else left - right

    # ---- FSM ----------------------------------------------------------------------------
    def walk(self, segs: tuple[Segment, ...], cont: Any) -> None:
        """Emit each region's exit transition, given what follows the sequence."""
        for k, seg in enumerate(segs):
            if isinstance(seg, Region) and self.sched.region(seg).transient:
                continue
            if isinstance(seg, Region):
                with self.m.If(self.in_state(seg) & self.exit_sig[id(seg)]):
                    self.goto(segs, k + 1, cont, {})
            else:
                self.walk(self.sched.body(seg), self._backedge(segs, k, seg, cont))

    def _backedge(self, segs: tuple[Segment, ...], k: int, loop: Loop, cont: Any) -> Any:
        def back(ovr: dict) -> None:
            cur = ovr.get(("var", loop.var), self.fsmvar[loop.var])
            nxt = cur + loop.step
            with self.m.If(nxt < self.bound(loop.stop, ovr)):
                self.m.d.sync += self.fsmvar[loop.var].eq(nxt)
                self.goto(self.sched.body(loop), 0, back, {**ovr, ("var", loop.var): nxt})
            with self.m.Else():
                self.goto(segs, k + 1, cont, ovr)
        return back

    def goto(self, segs: tuple[Segment, ...], k: int, cont: Any, ovr: dict) -> None:
        m = self.m
        if k == len(segs):
            cont(ovr)
            return
        seg = segs[k]
        if isinstance(seg, Region) and self.sched.region(seg).transient:
            ovr = dict(ovr)
            for n in seg.nodes:
                if n.kind == "setvar":
                    v = self.source(n.args[0], ovr)
                    m.d.sync += self.vars[n.attrs["var"]].eq(v)
                    ovr[("var", n.attrs["var"])] = v
            self.goto(segs, k + 1, cont, ovr)
            return
        if isinstance(seg, Region):
            def enter() -> None:
                m.d.sync += [self.state.eq(self.sid[id(seg)]), self.issuing[id(seg)].eq(1)]
                if id(seg) in self.slot:
                    m.d.sync += self.slot[id(seg)].eq(0)
                if seg.is_loop:
                    m.d.sync += self.loopvars[id(seg)].eq(self.bound(seg.loop_bounds()[0], ovr))
            trip = seg.static_trip()
            if trip is None:
                start, stop = seg.loop_bounds()  # no static trip count: a loop
                with m.If(self.bound(start, ovr) < self.bound(stop, ovr)):
                    enter()
                with m.Else():
                    self.goto(segs, k + 1, cont, ovr)
            elif trip > 0:
                enter()
            else:
                self.goto(segs, k + 1, cont, ovr)
            return
        s0 = self.bound(seg.start, ovr)
        inner = {**ovr, ("var", seg.var): s0}
        back = self._backedge(segs, k, seg, cont)
        m.d.sync += self.fsmvar[seg.var].eq(s0)
        if seg.start.is_const and seg.stop.is_const:
            if seg.start.evaluate({}) < seg.stop.evaluate({}):
                self.goto(self.sched.body(seg), 0, back, inner)
            else:
                self.goto(segs, k + 1, cont, ovr)
            return
        with m.If(s0 < self.bound(seg.stop, ovr)):
            self.goto(self.sched.body(seg), 0, back, inner)
        with m.Else():
            self.goto(segs, k + 1, cont, ovr)

    def source(self, n: Node, ovr: dict) -> Value:
        """A source node's value during an FSM transition (pending updates applied)."""
        if n.kind == "const":
            return Const(n.attrs["value"].raw, shape_of(n.attrs["value"].type))
        if n.kind == "arg":
            return ovr.get(("arg", n.attrs["arg"]), self.args[n.attrs["arg"]])
        name = n.attrs["var"]
        reg = self.vars[name] if name in self.vars else self.fsmvar[name]
        return ovr.get(("var", name), reg)

    def in_state(self, r: Region) -> Value:
        return self.state == self.sid[id(r)]

    # ---- regions ------------------------------------------------------------------------
    issuing: dict[int, Signal]
    slot: dict[int, Signal]
    exit_sig: dict[int, Value]

    def region(self, r: Region) -> None:
        m = self.m
        for d in ("issuing", "slot", "exit_sig"):
            if not hasattr(self, d):
                setattr(self, d, {})
        rn = r.name
        rs = self.sched.region(r)
        depth, ii = max(rs.depth, 1), max(rs.ii, 1)
        in_state = self.in_state(r)
        issuing = Signal(name=f"{rn}_issuing")
        self.issuing[id(r)] = issuing
        issue = Signal(name=f"{rn}_issue")
        cond = in_state & issuing
        if ii > 1:
            slot = Signal(range(ii), name=f"{rn}_slot")
            self.slot[id(r)] = slot
            with m.If(in_state):
                m.d.sync += slot.eq(Mux(slot == ii - 1, 0, slot + 1))
            cond = cond & (slot == 0)
        m.d.comb += issue.eq(cond)
        if r.is_loop:
            iv = Signal(shape_of(r.counter_type), name=r.var)
            self.loopvars[id(r)] = iv
            nxt = iv + r.step
            last0 = nxt >= self.bound(r.loop_bounds()[1], {})
            with m.If(issue):
                m.d.sync += iv.eq(nxt)
            ivals = [iv]
            for t in range(1, depth):
                s = Signal(shape_of(r.counter_type), name=f"{r.var}_s{t}")
                m.d.sync += s.eq(ivals[-1])
                ivals.append(s)
            self.ivals[id(r)] = ivals
            if r.is_while:
                last0 = Const(0)  # the exit node decides, later in the iteration
        else:
            last0 = Const(1)
        with m.If(issue & last0):
            m.d.sync += issuing.eq(0)
        valid: list[Value] = [issue]
        lastv: list[Value] = [issue & last0]
        for t in range(1, depth):
            v = Signal(name=f"{rn}_valid{t}")
            lv = Signal(name=f"{rn}_last{t}")
            m.d.sync += [v.eq(valid[-1]), lv.eq(lastv[-1])]
            valid.append(v)
            lastv.append(lv)
        self.valid[id(r)] = valid
        self.exit_sig[id(r)] = lastv[-1]
        if r.is_while:
            # the iteration whose condition is false (or the N-th) ends the loop
            ex = self.sched.node(r.exit_node)
            te = ex.cycle + ex.latency  # a multi-cycle compare: its registered result
            fin = Signal(name=f"{rn}_exit")
            m.d.comb += fin.eq(valid[te] & self.val(r.exit_node, te, r))
            with m.If(fin):
                m.d.sync += issuing.eq(0)
            cur: Value = fin
            for t in range(te + 1, depth):
                lv = Signal(name=f"{rn}_exit{t}")
                m.d.sync += lv.eq(cur)
                cur = lv
            self.exit_sig[id(r)] = cur
        # forwarded loads read a bypass wire (driven below), not the port's data
        for _st, ld in rs.forwards:
            if id(ld) not in self.fwd:
                port = self.rd[(ld.attrs["array"], ld.attrs["bank"])]
                self.fwd[id(ld)] = Signal.like(port.data, name=f"{ld.attrs['array']}_fwd_L"
                                               f"{ld.line}")
        # operand values are built first: their wires and delay registers must be driven
        # unconditionally, outside the If of the side effect that uses them
        for n in r.nodes:
            t = self.sched.node(n).cycle
            if n.kind == "load":
                port = self.rd[(n.attrs["array"], n.attrs["bank"])]
                addr = self.val(n.args[0], t, r)
                with m.If(valid[t]):
                    m.d.comb += port.addr.eq(addr)
            elif n.kind == "store":
                port = self.wr[(n.attrs["array"], n.attrs["bank"])]
                en = valid[t]
                if len(n.args) > 2:
                    en = en & self.val(n.args[2], t, r)
                addr = self.val(n.args[0], t, r)
                data = self.val(n.args[1], t, r)
                with m.If(en):
                    m.d.comb += [port.addr.eq(addr), port.data.eq(data), port.en.eq(1)]
            elif n.kind == "setvar":
                value = self.val(n.args[0], t, r)
                with m.If(valid[t]):
                    m.d.sync += self.vars[n.attrs["var"]].eq(value)
        self._forwarding(r, valid)

    def _forwarding(self, r: Region, valid: list[Value]) -> None:
        """Read-modify-write forwarding: for each scheduled ``(store, load)`` pair, the
        store's enable, address and data are registered in the cycle the load issues (the
        store lands then, too late for the memory read) and compared, in the load's data
        cycle, with the load's registered address; if equal the stored word replaces the
        memory's (old) word."""
        m = self.m
        seen: set[int] = set()
        for k, (st, ld) in enumerate(self.sched.region(r).forwards):
            port = self.rd[(ld.attrs["array"], ld.attrs["bank"])]
            aw = len(port.addr)
            sc, lc = self.sched.node(st).cycle, self.sched.node(ld).cycle
            en = valid[sc]
            if len(st.args) > 2:
                en = en & self.val(st.args[2], sc, r)
            pre = f"{r.name}_fwd{k}"
            q_en = Signal(name=f"{pre}_en")
            q_addr = Signal(aw, name=f"{pre}_waddr")
            q_data = Signal.like(port.data, name=f"{pre}_wdata")
            l_addr = Signal(aw, name=f"{pre}_raddr")
            m.d.sync += [q_en.eq(en), q_addr.eq(self.val(st.args[0], sc, r)),
                         q_data.eq(self.val(st.args[1], sc, r)),
                         l_addr.eq(self.val(ld.args[0], lc, r))]
            # one write port per bank: one store at most lands in the load's issue cycle
            assert id(ld) not in seen, "two stores forwarded to one load"
            seen.add(id(ld))
            m.d.comb += self.fwd[id(ld)].eq(Mux(q_en & (q_addr == l_addr), q_data, port.data))

    def delayed(self, sig: Value, n: int, name: str) -> Value:
        cur = sig
        for k in range(1, n + 1):
            key = (id(sig), k)
            if key not in self.delays:
                d = Signal.like(sig, name=f"{name}_d{k}") if isinstance(sig, Signal) else \
                    Signal(sig.shape(), name=f"{name}_d{k}")
                self.m.d.sync += d.eq(cur)
                self.delays[key] = d
            cur = self.delays[key]
        return cur

    def val(self, n: Node, t: int, r: Region) -> Value:
        """The value of node ``n`` as seen by an operator of region ``r`` in cycle ``t``."""
        if n.kind == "const":
            v = n.attrs["value"]
            return Const(v.raw, shape_of(v.type))
        if n.kind == "arg":
            return self.args[n.attrs["arg"]]
        if n.kind == "var":
            name = n.attrs["var"]
            return self.vars[name] if name in self.vars else self.fsmvar[name]
        if n.kind == "ivar":
            return self.ivals[id(r)][t]
        ns = self.sched.node(n)
        if n.kind == "load":
            if id(n) in self.fwd:
                w = self.fwd[id(n)]
                return self.delayed(w, t - ns.cycle - 1, w.name)
            port = self.rd[(n.attrs["array"], n.attrs["bank"])]
            return self.delayed(port.data, t - ns.cycle - 1, f"{n.attrs['array']}_rd")
        if n.kind in ("div", "mod"):
            w = self.div_result(n, r)
            return self.delayed(w, t - ns.cycle - ns.latency, w.name)
        w = self.wire(n, r)
        return self.delayed(w, t - ns.cycle, w.name)

    def wire(self, n: Node, r: Region) -> Signal:
        if id(n) in self.wires:
            return self.wires[id(n)]
        label = n.name if n.name and n.kind in ("cast", "select", "decode") else \
            f"{n.kind}_L{n.line}"
        w = Signal(shape_of(n.vtype), name=label)
        self.wires[id(n)] = w
        t = self.sched.node(n).cycle
        ops = [self.val(a, t, r) for a in n.args]
        ts = [a.vtype for a in n.args]
        k = n.kind
        if k in ("add", "sub", "and", "or", "xor", "min", "max", "lt", "le", "gt", "ge", "eq",
                 "ne"):
            f = max(ts[0].frac, ts[1].frac)
            a = ops[0] << (f - ts[0].frac) if f > ts[0].frac else ops[0]
            b = ops[1] << (f - ts[1].frac) if f > ts[1].frac else ops[1]
            e = {"add": lambda: a + b, "sub": lambda: a - b, "and": lambda: a & b,
                 "or": lambda: a | b, "xor": lambda: a ^ b,
                 "min": lambda: Mux(a <= b, a, b), "max": lambda: Mux(a >= b, a, b),
                 "lt": lambda: a < b, "le": lambda: a <= b, "gt": lambda: a > b,
                 "ge": lambda: a >= b, "eq": lambda: a == b, "ne": lambda: a != b}[k]()
        elif k == "mul":
            unit = self.sched.node(n).unit
            if self.c.mul_units is not None and unit is not None and not is_const_mul(n):
                self.mul_bindings.setdefault(unit, []).append(
                    _MulBinding(n, ops, self.valid[id(r)][t], w))
                return w
            e = ops[0] * ops[1]
        elif k == "shl":
            amt = n.attrs.get("amount")
            e = ops[0] << (amt if amt is not None else ops[1])
        elif k == "shr":
            amt = n.attrs.get("amount")
            e = ops[0] >> (amt if amt is not None else ops[1])
        elif k in ("not", "lnot"):
            e = ~ops[0]
        elif k == "neg":
            e = -ops[0]
        elif k == "abs":
            e = Mux(ops[0] < 0, -ops[0], ops[0])
        elif k == "land":
            e = ops[0] & ops[1]
        elif k == "lor":
            e = ops[0] | ops[1]
        elif k == "select":
            e = Mux(ops[0], ops[1], ops[2])
        elif k == "cast":
            e = _convert(ops[0], ts[0], n.vtype)
        elif k == "decode":  # number-format code -> exact Fixed value: a ROM (a case in Verilog)
            rom = Array([Const(v, shape_of(n.vtype)) for v in n.attrs["fmt"].table])
            e = rom[ops[0]]
        else:  # pragma: no cover - the frontend emits no other kinds
            raise AssertionError(f"no codegen for {k}")
        self.m.d.comb += w.eq(e)
        return w

    def _mul_units(self) -> None:
        m = self.m
        for unit, binds in sorted(self.mul_bindings.items()):
            signed_any = any(a.vtype.signed for bd in binds for a in bd.node.args)
            wa = max(a.vtype.width + (1 if signed_any and not a.vtype.signed else 0)
                     for bd in binds for a in bd.node.args[:1])
            wb = max(a.vtype.width + (1 if signed_any and not a.vtype.signed else 0)
                     for bd in binds for a in bd.node.args[1:2])
            mk = signed if signed_any else unsigned
            a = Signal(mk(wa), name=f"mul{unit}_a")
            b = Signal(mk(wb), name=f"mul{unit}_b")
            p = Signal(mk(wa + wb), name=f"mul{unit}_p")
            m.d.comb += p.eq(a * b)
            for _n, ops, active, w in binds:
                with m.If(active):
                    m.d.comb += [a.eq(ops[0]), b.eq(ops[1])]
                m.d.comb += w.eq(p)

    # ---- sequential dividers ------------------------------------------------------------
    def _div_key(self, n: Node) -> Any:
        unit = self.sched.node(n).unit
        if self.c.div_units is not None and unit is not None:
            return unit
        return ("own", id(n))

    def _div_setup(self, regions: list[Region]) -> None:
        """Group ``//`` and ``%`` nodes by divider instance; size each divider."""
        self.div_binds: dict[Any, list[tuple[Node, Region]]] = {}
        for r in regions:
            for n in r.nodes:
                if n.kind in ("div", "mod"):
                    self.div_binds.setdefault(self._div_key(n), []).append((n, r))
        self.div_hw: dict[Any, dict[str, Signal]] = {}
        for k, (key, binds) in enumerate(self.div_binds.items()):
            n0 = binds[0][0]
            pre = f"div{k}" if not isinstance(key, tuple) else f"{n0.kind}_L{n0.line}_{k}"
            wa = max(n.args[0].vtype.width for n, _ in binds)
            wb = max(n.args[1].vtype.width for n, _ in binds)
            self.div_hw[key] = {
                "pre": pre, "wa": wa, "wb": wb,
                "q": Signal(signed(wa + 2), name=f"{pre}_q"),
                "r": Signal(signed(max(wa, wb) + 2), name=f"{pre}_r"),
            }

    def div_result(self, n: Node, r: Region) -> Signal:
        """The output register of ``n``'s divider, valid its latency's cycles after issue."""
        hw = self.div_hw[self._div_key(n)]
        if id(n) not in self.wires:
            w = Signal(shape_of(n.vtype), name=n.name or f"{n.kind}_L{n.line}")
            self.wires[id(n)] = w
            self.m.d.comb += w.eq(hw["q"] if n.kind == "div" else hw["r"])
        return self.wires[id(n)]

    def _div_units(self) -> None:
        """A radix-2 restoring divider per instance, on magnitudes, with Python's floor fix-up.

        Cycle ``c`` (issue): latch ``|a|`` left-aligned, ``|b|``, the signs and ``a``; cycles
        ``c+1 .. c+wa``: one quotient bit each; cycle ``c+wa+1``: fix the signs (floor) into the
        output registers, read from cycle ``c+wa+2 = c + latency`` on. By zero: ``q = -1``,
        ``r = a``.
        """
        m = self.m
        for key, binds in self.div_binds.items():
            hw = self.div_hw[key]
            pre, wa, wb = hw["pre"], hw["wa"], hw["wb"]
            dvd = Signal(wa, name=f"{pre}_dividend")
            dvs = Signal(wb, name=f"{pre}_divisor")
            rem = Signal(wb + 1, name=f"{pre}_rem")
            quo = Signal(wa, name=f"{pre}_quo")
            count = Signal(range(wa + 1), name=f"{pre}_count")
            fix = Signal(name=f"{pre}_fix")
            sa = Signal(name=f"{pre}_sa")
            sb = Signal(name=f"{pre}_sb")
            zero = Signal(name=f"{pre}_zero")
            aval = Signal(signed(wa + 1), name=f"{pre}_a")
            for n, r in binds:
                a_t, b_t = n.args[0].vtype, n.args[1].vtype
                t = self.sched.node(n).cycle
                a = self.val(n.args[0], t, r)
                b = self.val(n.args[1], t, r)
                mag_a = Mux(a < 0, -a, a) if a_t.signed else a
                mag_b = Mux(b < 0, -b, b) if b_t.signed else b
                with m.If(self.valid[id(r)][t]):
                    m.d.sync += [
                        dvd.eq(mag_a << (wa - a_t.width)), dvs.eq(mag_b), rem.eq(0), quo.eq(0),
                        count.eq(a_t.width), fix.eq(1), aval.eq(a), zero.eq(b == 0),
                        sa.eq(a < 0 if a_t.signed else 0), sb.eq(b < 0 if b_t.signed else 0),
                    ]
            trial = Signal(wb + 1, name=f"{pre}_trial")
            m.d.comb += trial.eq(Cat(dvd[wa - 1], rem[:wb]))
            with m.If(count != 0):
                m.d.sync += [dvd.eq(dvd << 1), count.eq(count - 1)]
                with m.If(trial >= dvs):
                    m.d.sync += [rem.eq(trial - dvs), quo.eq(Cat(Const(1, 1), quo[:wa - 1]))]
                with m.Else():
                    m.d.sync += [rem.eq(trial), quo.eq(Cat(Const(0, 1), quo[:wa - 1]))]
            with m.Elif(fix):
                m.d.sync += fix.eq(0)
                neg = sa ^ sb
                adj = neg & (rem != 0)  # floor: round a negative inexact quotient down
                # explicitly signed copies: Amaranth's unsigned subtraction would wrap
                qmag = Cat(quo + adj, Const(0, 1)).as_signed()
                r0 = Cat(rem[:wb], Const(0, 1)).as_signed()
                bmag = Cat(dvs, Const(0, 1)).as_signed()
                with m.If(zero):
                    m.d.sync += [hw["q"].eq(-1), hw["r"].eq(aval)]
                with m.Else():
                    m.d.sync += hw["q"].eq(Mux(neg, -qmag, qmag))
                    with m.If(adj):
                        m.d.sync += hw["r"].eq(Mux(sa, bmag - r0, r0 - bmag))
                    with m.Else():
                        m.d.sync += hw["r"].eq(Mux(sa, -r0, r0))
