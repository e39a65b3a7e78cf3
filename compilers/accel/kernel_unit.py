"""A DSL kernel, compiled by the HLS compiler, as a unit of an accelerator.

:class:`KernelUnit` wraps an :class:`~archsim.compilers.hls.design.Design` (from
``kernel.synthesize(...)``) in the unit contract of :mod:`archsim.hw.accel.interface`: the
kernel keeps its own memories (one per array bank, inside the
:class:`~archsim.compilers.hls.codegen.HLSComponent`), and the unit copies each invocation's
data between the accelerator's buffers and those memories through the kernel's host ports.

Operands and arguments
    Every array argument the kernel reads is a read operand of the same name (copied in);
    every array argument it writes is a write operand ``<array>_out`` (copied out); an array
    both read and written has both (bind them to one buffer at one address for an in-place
    update). Returned values are a write operand ``ret_out``: word ``k`` is the ``k``-th
    returned value. Local arrays, and arguments the kernel neither reads nor writes, are not
    operands. Every scalar argument is an argument of the same name holding the low 16 bits of
    the scalar's raw two's-complement code (:meth:`KernelUnit.scalar_code` makes it); a
    scalar wider than 16 bits is extended from them (sign-extended for a signed type), so it
    takes the values of a 16-bit code. Element widths are the arrays' raw element widths (the
    code width for a number-format array), at most 32 bits.

One invocation (``s``: the cycle ``start`` is sampled)
    1. Copy in, cycles ``s+1 .. s+L_in``: every read operand issues one buffer read per cycle,
       all operands in parallel; each word is written into its kernel bank through the host
       port the cycle after. A write-only array is cleared in the same way (its banks keep
       the previous invocation's results otherwise, and a kernel that writes part of an array
       must find zeros elsewhere, as its golden view does). ``L_in`` is the largest size
       among the arrays read or written.
    2. The kernel's ``start`` in cycle ``s + L_in + 1`` (the last copied word is written in
       that cycle, while the kernel is still idle); its ``done`` ``K`` cycles later.
    3. Copy out, the ``L_out`` cycles after the kernel's ``done``: one host-port read per
       written array per cycle, written into its ``_out`` operand the cycle after (and
       ``ret_out`` word ``k`` in the same stage). ``L_out`` is the largest size among the
       written arrays and the number of returned values.
    4. ``done`` in the cycle after the last copy-out write (so every result is in its buffer
       by the cycle ``done`` is high).

    So ``cycles = L_in + K + L_out + 3``: 1 cycle to latch the arguments, 1 for the kernel
    memories' read latency on copy-out, 1 for ``done`` after the last write; no other
    overhead (:meth:`KernelUnit.cycles`). ``K`` is the design's own
    closed form (:meth:`Design.cycles`); a kernel whose cycles depend on array contents (a
    ``while bounded(...)`` loop) has no exact count without its data: :meth:`cycles` raises
    and :meth:`cycles_bound` gives the worst case.

Golden view
    :meth:`KernelUnit.golden` decodes each read operand's words with the array's element type
    (``(info.fmt or info.elem).decode``, as :mod:`archsim.sim.rtl.hls_run` does), calls the
    kernel (its golden view), and encodes the written arrays and returned values back into
    raw words. Number-format codes round-trip exactly, except NaN/infinity codes, which the
    kernel's golden view rejects (its arithmetic has no such values).

Energy
    :meth:`KernelUnit.actions` counts, besides the operand accesses ``read:<op>`` and
    ``write:<op>`` (priced by the buffers), the kernel's own energy-bearing work the way
    :meth:`Design.estimate` prices it: ``op:<kind><width>`` per operator execution and
    ``bank_read:<array>`` / ``bank_write:<array>`` per access to a kernel bank (the kernel's
    loads and stores plus the copies). :attr:`KernelUnit.ENERGY_PER_ACTION_J` is therefore per
    instance, each figure from :mod:`archsim.hw.hls_ops` (Horowitz, ISSCC 2014, 45 nm), and
    the kernel part sums to the design's estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from amaranth.hdl import Array, Const, Module, Mux, Signal, Value

from ...dsl.types import HWType
from ...errors import ConfigError
from ...hw.accel.interface import ARG_WIDTH, Operand, Unit, UnitContract
from ...hw.checks import check_int, silence_unused
from ...hw.hls_ops import op_cost, sram_read_energy_j, sram_write_energy_j
from ..hls.codegen import bank_prefix, ret_port_names
from ..hls.design import Design
from ..hls.ir import ArrayInfo, Region, Segment, trip_count
from ..hls.schedule import node_delay_ns, node_width

__all__ = ["KernelUnit", "MAX_ELEMENT_WIDTH", "RET_OPERAND", "FIXED_OVERHEAD_CYCLES"]

#: Widest array element (raw bits) a kernel unit moves through its operand ports.
MAX_ELEMENT_WIDTH = 32

#: The write operand that receives a kernel's returned values.
RET_OPERAND = "ret_out"

#: Cycles of an invocation besides copy-in, kernel and copy-out: latching the arguments, the
#: kernel memories' read latency on copy-out, and ``done`` after the last copy-out write.
FIXED_OVERHEAD_CYCLES = 3

_HLS_OPS_SOURCE = ("archsim.hw.hls_ops (M. Horowitz, ISSCC 2014, 45 nm table; SRAM access "
                   "scaled by sqrt(array size)), as Design.estimate uses it")


class KernelUnit(Unit):
    """A compiled DSL kernel as an accelerator unit; see the module docstring.

    Parameters
    ----------
    design : Design
        The compiled kernel (``kernel.synthesize(clock_ns=...)``).
    addr_width : int
        Address width of every operand port (the buffers' word addresses), 1..16.

    Raises
    ------
    TypeError
        ``design`` is not a :class:`Design`.
    ValueError
        An array's elements (or a returned value) are wider than
        :data:`MAX_ELEMENT_WIDTH` bits (naming the array), or an array does not fit in
        ``addr_width`` address bits.

    Attributes
    ----------
    design : Design
    addr_width : int
    contract : UnitContract
        Kind ``"kernel:<design name>"``; arguments: the kernel's scalars, in order.
    ENERGY_PER_ACTION_J : mapping of str to float
        Per instance (the keys depend on the kernel); see :meth:`actions`.
    """

    def __init__(self, design: Design, *, addr_width: int = 16) -> None:
        try:
            operands = self._setup(design, addr_width)
        except (TypeError, ValueError):
            silence_unused(self)  # never elaborated: no "created but never used" warning
            raise
        super().__init__(self.contract.members({o.name: addr_width for o in operands}))

    def _setup(self, design: Design, addr_width: int) -> list[Operand]:
        """Check the design and derive the contract and energy table; the operands."""
        if not isinstance(design, Design):
            raise TypeError(f"design must be an archsim.compilers.hls.design.Design (from "
                            f"kernel.synthesize()), not {type(design).__name__}")
        self.addr_width = check_int("addr_width", addr_width, 1, ARG_WIDTH)
        self.design = design
        ir = design.ir
        kname = design.kernel.name
        self._arrays: list[ArrayInfo] = []
        for p in ir.params:
            info = ir.arrays.get(p)
            if info is None or info.local or not (info.read or info.written):
                continue
            if info.elem.width > MAX_ELEMENT_WIDTH:
                raise ValueError(f"kernel {kname!r}: array {p!r} has {info.elem.width}-bit "
                                 f"elements; a kernel unit moves at most {MAX_ELEMENT_WIDTH}"
                                 "-bit words")
            if info.size > 1 << addr_width:
                raise ValueError(f"kernel {kname!r}: array {p!r} has {info.size} elements; "
                                 f"addr_width={addr_width} addresses {1 << addr_width} words")
            self._arrays.append(info)
        operands: list[Operand] = []
        for info in self._arrays:
            if info.read:
                operands.append(Operand(info.name, "read", info.elem.width))
            if info.written:
                operands.append(Operand(f"{info.name}_out", "write", info.elem.width))
        self._ret_width = max((t.width for t in ir.returns), default=0)
        if self._ret_width > MAX_ELEMENT_WIDTH:
            raise ValueError(f"kernel {kname!r}: a returned value has {self._ret_width} bits; "
                             f"a kernel unit moves at most {MAX_ELEMENT_WIDTH}-bit words")
        if ir.returns:
            operands.append(Operand(RET_OPERAND, "write", self._ret_width))
        self.contract = UnitContract(kind=f"kernel:{design.name}", args=tuple(ir.scalars),
                                     operands=tuple(operands))
        #: words moved in and out per invocation (the copy phases' lengths)
        self.copy_in_words = max((a.size for a in self._arrays), default=0)
        self.copy_out_words = max([a.size for a in self._arrays if a.written] +
                                  [len(ir.returns)])
        energy: dict[str, float] = {}
        for info in ir.arrays.values():
            energy[f"bank_read:{info.name}"] = sram_read_energy_j(info.elem.width,
                                                                  info.bank_depth)
            energy[f"bank_write:{info.name}"] = sram_write_energy_j(info.elem.width,
                                                                    info.bank_depth)
        for r in design.schedule.all_regions():
            for n in r.nodes:
                if n.kind not in ("load", "store") and node_delay_ns(n) > 0:
                    energy[f"op:{n.kind}{node_width(n)}"] = op_cost(n.kind,
                                                                    node_width(n)).energy_j
        # per instance: the keys are the kernel's operators and arrays
        self.ENERGY_PER_ACTION_J = MappingProxyType(energy)
        self.ENERGY_SOURCES = MappingProxyType(
            {k: _HLS_OPS_SOURCE for k in energy})
        return operands

    # ---- arguments ----------------------------------------------------------------------
    def scalar_code(self, name: str, value: int | float) -> int:
        """The argument code (16-bit unsigned) that passes ``value`` to scalar ``name``.

        The value is converted to the scalar's type (wrap or saturate, as the type says); its
        raw two's-complement code must fit in ``ARG_WIDTH`` bits when the type is wider.
        """
        t = self._scalar_type(name)
        raw = t(value).raw
        if t.width > ARG_WIDTH:
            low, high = (-(1 << (ARG_WIDTH - 1)), (1 << (ARG_WIDTH - 1)) - 1) if t.signed \
                else (0, (1 << ARG_WIDTH) - 1)
            if not low <= raw <= high:
                raise ValueError(f"kernel {self.design.kernel.name!r}: scalar {name!r} "
                                 f"({t}) gets a {ARG_WIDTH}-bit code; raw code {raw} is outside "
                                 f"{low}..{high}")
        return raw & ((1 << min(t.width, ARG_WIDTH)) - 1)

    def scalar_value(self, name: str, code: int) -> int | float:
        """The value scalar ``name`` receives from argument code ``code`` (as the RTL
        widens it)."""
        t = self._scalar_type(name)
        if t.width <= ARG_WIDTH:
            if code >> t.width:
                raise ValueError(f"kernel {self.design.kernel.name!r}: scalar {name!r} ({t}) "
                                 f"takes codes 0..{(1 << t.width) - 1}, not {code} (use "
                                 "scalar_code())")
            raw = code - (1 << t.width) if t.signed and code >> (t.width - 1) else code
        else:
            raw = code - (1 << ARG_WIDTH) if t.signed and code >> (ARG_WIDTH - 1) else code
        return t.value_of(raw)

    def _scalar_type(self, name: str) -> HWType:
        scalars = self.design.ir.scalars
        if name not in scalars:
            raise KeyError(f"kernel {self.design.kernel.name!r} has no scalar {name!r}; it has "
                           f"{list(scalars)}")
        return scalars[name]

    def _kernel_args(self, args: Mapping[str, int]) -> tuple[int | float | None, ...]:
        """The design's positional arguments: scalar values, arrays None."""
        checked = self.contract.check_args(args)
        return tuple(self.scalar_value(p, checked[p]) if p in self.design.ir.scalars else None
                     for p in self.design.ir.params)

    # ---- model view ---------------------------------------------------------------------
    def kernel_cycles(self, args: Mapping[str, int], *, worst_case: bool = False) -> int:
        """``K``: the kernel's cycles from its ``start`` to its ``done`` (the design's closed
        form); ``worst_case`` for the bound of a data-dependent kernel."""
        kargs = self._kernel_args(args)
        name = self.design.kernel.name
        if self.design.has_while and not worst_case:
            raise ConfigError(f"kernel {name!r} has a while bounded(...) loop: its cycles "
                              "depend on the array contents, so an invocation has no exact "
                              "cycle count from its arguments; use cycles_bound(args) for the "
                              "worst case", field="kernel")
        try:
            return self.design.cycles(*kargs, worst_case=worst_case)
        except KeyError as exc:  # a loop bound read from a variable the data sets
            raise ConfigError(f"kernel {name!r}: a loop bound ({exc.args[0]}) depends on "
                              "values computed from the data: no cycle count or bound from "
                              "the arguments", field="kernel") from exc

    def cycles(self, args: Mapping[str, int]) -> int:
        """``copy_in_words + K + copy_out_words + 3`` (exact; see the module docstring).

        Raises
        ------
        ConfigError
            The kernel's cycles depend on its data (use :meth:`cycles_bound`).
        """
        return (self.copy_in_words + self.kernel_cycles(args) + self.copy_out_words
                + FIXED_OVERHEAD_CYCLES)

    def cycles_bound(self, args: Mapping[str, int]) -> int:
        """The most cycles an invocation can take: :meth:`cycles` with every
        ``while bounded(cond, max_iter=N)`` loop running ``N`` iterations per entry (equal to
        :meth:`cycles` for a kernel without while loops)."""
        return (self.copy_in_words + self.kernel_cycles(args, worst_case=True)
                + self.copy_out_words + FIXED_OVERHEAD_CYCLES)

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Operand accesses, kernel-bank accesses and operator executions of one invocation.

        Counted as :meth:`Design.estimate` prices the kernel (every region's operators times
        its iterations; a ``while bounded`` loop at its ``max_iter``, so for such a kernel
        the counts are a bound), plus the copies: ``size`` bank writes per array read or
        written (copy-in or clear) and ``size`` bank reads per written array (copy-out).
        """
        kargs = self._kernel_args(args)
        ir = self.design.ir
        env = {n: int(ir.scalars[n](v).raw) for n, v in zip(ir.params, kargs, strict=True)
               if n in ir.scalars and v is not None}
        counts: dict[str, int] = {}
        for info in self._arrays:
            if info.read:
                counts[f"read:{info.name}"] = info.size
            if info.written:
                counts[f"write:{info.name}_out"] = info.size
        if ir.returns:
            counts[f"write:{RET_OPERAND}"] = len(ir.returns)

        def add(key: str, n: int) -> None:
            if n:
                counts[key] = counts.get(key, 0) + n

        for info in self._arrays:
            add(f"bank_write:{info.name}", info.size)
            if info.written:
                add(f"bank_read:{info.name}", info.size)
        try:
            self._count(ir.body, env, add)
        except KeyError as exc:
            raise ConfigError(f"kernel {ir.name!r}: a loop bound ({exc.args[0]}) depends on "
                              "values computed from the data: no action counts from the "
                              "arguments", field="kernel") from exc
        return counts

    def _count(self, segs: tuple[Segment, ...], env: Mapping[str, int], add: Any) -> None:
        sched = self.design.schedule
        for s in segs:
            if isinstance(s, Region):
                trip = s.trip(env)
                for n in s.nodes:
                    if n.kind == "load":
                        add(f"bank_read:{n.attrs['array']}", trip)
                    elif n.kind == "store":
                        add(f"bank_write:{n.attrs['array']}", trip)
                    elif node_delay_ns(n) > 0:
                        add(f"op:{n.kind}{node_width(n)}", trip)
            else:
                start, stop = s.start.evaluate(env), s.stop.evaluate(env)
                if trip_count(start, stop, s.step) == 0:
                    continue
                for v in range(start, stop, s.step):
                    self._count(sched.body(s), {**env, s.var: v}, add)

    def energy_j(self, args: Mapping[str, int]) -> float:
        """Energy of the kernel's actions (operand accesses excluded: the buffers price
        those), from :attr:`ENERGY_PER_ACTION_J`."""
        return float(sum(n * self.ENERGY_PER_ACTION_J[k] for k, n in self.actions(args).items()
                         if k in self.ENERGY_PER_ACTION_J))

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Per operand, ``(base, base + size)``: the whole array (or the returned values)."""
        checked = self.contract.check_args(args)
        out: dict[str, tuple[int, int]] = {}
        for o in self.contract.operands:
            base = checked[o.addr_arg]
            out[o.name] = (base, base + self._words(o.name))
        return out

    def _words(self, operand: str) -> int:
        if operand == RET_OPERAND:
            return len(self.design.ir.returns)
        return self.design.ir.arrays[operand.removesuffix("_out")].size

    # ---- golden view --------------------------------------------------------------------
    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """Decode the read operands, run the kernel's golden view, encode the results.

        Arrays the kernel only writes start as zeros (the copy-in clears them).
        """
        checked = self.contract.check_args(args)
        ir = self.design.ir
        call: list[object] = []
        values: dict[str, np.ndarray] = {}
        for p in ir.params:
            if p in ir.scalars:
                call.append(self.scalar_value(p, checked[p]))
                continue
            info = ir.arrays[p]
            dec = info.fmt or info.elem
            width = info.elem.width
            raw = np.zeros(info.size, dtype=np.int64)
            if info in self._arrays and info.read:
                base = checked[f"{p}_addr"]
                words = np.asarray(buffers[p], dtype=np.int64)[base:base + info.size]
                if len(words) != info.size:
                    raise ValueError(f"operand {p!r}: buffer holds {len(buffers[p])} words, "
                                     f"the array needs {base}..{base + info.size - 1}")
                raw = words & ((1 << width) - 1)
                if info.elem.signed:
                    raw = np.where(raw >> (width - 1) != 0, raw - (1 << width), raw)
            values[p] = np.asarray(dec.decode(raw.reshape(info.shape))).copy()
            call.append(values[p])
        result = self.design.kernel(*call)
        for info in self._arrays:
            if not info.written:
                continue
            name = f"{info.name}_out"
            out = buffers[name]
            base = checked[f"{name}_addr"]
            codes = np.asarray(info.elem.encode(values[info.name]), dtype=np.int64).ravel()
            out[base:base + info.size] = codes & ((1 << info.elem.width) - 1)
        if ir.returns:
            vals = result if isinstance(result, tuple) else (result,)
            out = buffers[RET_OPERAND]
            base = checked[f"{RET_OPERAND}_addr"]
            for k, (t, v) in enumerate(zip(ir.returns, vals, strict=True)):
                out[base + k] = t(v).raw & ((1 << t.width) - 1)

    # ---- RTL view -----------------------------------------------------------------------
    def elaborate(self, platform: object) -> Module:
        m = Module()
        ir = self.design.ir
        k = self.design.make_component()
        m.submodules.kernel = k
        idle_s, in_s, kstart_s, kwait_s, out_s, drain_s, fin_s = range(7)
        state = Signal(range(7), name="state")
        m.d.comb += [self.busy.eq(state != idle_s), self.done.eq(state == fin_s)]
        l_in, l_out = self.copy_in_words, self.copy_out_words
        t = Signal(range(max(l_in, l_out, 1) + 1), name="word")
        base = {o.name: Signal(ARG_WIDTH, name=f"{o.name}_base")
                for o in self.contract.operands}
        codes = {n: Signal(ARG_WIDTH, name=f"{n}_code") for n in ir.scalars}
        starting = (state == idle_s) & self.start
        entering_out = (state == kwait_s) & k.done
        # the kernel latches its scalars on its own start: hold them from ours
        for n, typ in ir.scalars.items():
            src = codes[n]
            if typ.width <= ARG_WIDTH:
                m.d.comb += getattr(k, n).eq(src[:typ.width])
            else:
                m.d.comb += getattr(k, n).eq(src.as_signed() if typ.signed else src)
        with m.If(starting):
            for o in self.contract.operands:
                m.d.sync += base[o.name].eq(getattr(self, f"arg_{o.addr_arg}"))
            for n in ir.scalars:
                m.d.sync += codes[n].eq(getattr(self, f"arg_{n}"))
            m.d.sync += [t.eq(0), state.eq(in_s if l_in else kstart_s)]
        issue_in = state == in_s
        with m.If(issue_in):
            m.d.sync += t.eq(t + 1)
            with m.If(t == l_in - 1):
                m.d.sync += state.eq(kstart_s)
        m.d.comb += k.start.eq(state == kstart_s)
        with m.If(state == kstart_s):
            m.d.sync += state.eq(kwait_s)
        with m.If(entering_out):
            m.d.sync += [t.eq(0), state.eq(out_s if l_out else drain_s)]
        issue_out = state == out_s
        with m.If(issue_out):
            m.d.sync += t.eq(t + 1)
            with m.If(t == l_out - 1):
                m.d.sync += state.eq(drain_s)
        # the last copy-out write happens here, before done: the unit's writes are all
        # visible by the cycle done is high
        with m.If(state == drain_s):
            m.d.sync += state.eq(fin_s)
        with m.If(state == fin_s):
            m.d.sync += state.eq(idle_s)
        # copy pipelines: stage 1 issues word t, stage 2 (a cycle later) moves its data
        v_in, v_out = Signal(name="in_valid"), Signal(name="out_valid")
        t_in, t_out = Signal.like(t, name="in_word"), Signal.like(t, name="out_word")
        m.d.sync += [v_in.eq(issue_in), t_in.eq(t), v_out.eq(issue_out), t_out.eq(t)]
        for info in self._arrays:
            self._copy_array(m, k, info, base, t, issue_in, issue_out,
                             starting | entering_out, v_in, t_in, v_out, t_out)
        if ir.returns:
            port = getattr(self, RET_OPERAND)
            rets = [getattr(k, p).as_unsigned() for p in ret_port_names(ir)]
            data: Value = Const(0, self._ret_width)
            for j in reversed(range(len(rets))):
                data = Mux(t_out == j, rets[j], data)
            m.d.comb += [port.en.eq(v_out & (t_out < len(rets))),
                         port.addr.eq(base[RET_OPERAND] + t_out), port.data.eq(data)]
        return m

    def _copy_array(self, m: Module, k: Any, info: ArrayInfo, base: dict[str, Signal],
                    t: Signal, issue_in: Value, issue_out: Value, reset: Value, v_in: Signal,
                    t_in: Signal, v_out: Signal, t_out: Signal) -> None:
        """Copy-in (or clear) and copy-out of one array through its banks' host ports.

        A (bank, address) counter pair walks the array's elements in flat order, as
        :meth:`ArrayInfo.bank_slice` places them: the bank varies fastest for a cyclic or
        complete partition, the address for a block partition.
        """
        name, banks, size = info.name, info.banks, info.size
        depth = max(2, info.bank_depth)
        bank = Signal(range(max(banks, 2)), name=f"{name}_bank")
        addr = Signal(range(depth), name=f"{name}_word")

        def advance() -> None:
            if banks == 1:
                m.d.sync += addr.eq(addr + 1)
                return
            block = info.partition_kind == "block"
            minor, major, wrap = (addr, bank, info.bank_depth - 1) if block else \
                (bank, addr, banks - 1)
            with m.If(minor == wrap):
                m.d.sync += [minor.eq(0), major.eq(major + 1)]
            with m.Else():
                m.d.sync += minor.eq(minor + 1)

        writing = v_in & (t_in < size)
        reading = issue_out & (t < size) if info.written else Const(0)
        with m.If(reset):
            m.d.sync += [bank.eq(0), addr.eq(0)]
        with m.Elif(writing | reading):
            advance()
        wdata: Value = getattr(self, name).data if info.read else Const(0, info.elem.width)
        if info.read:
            port = getattr(self, name)
            m.d.comb += [port.en.eq(issue_in & (t < size)),
                         port.addr.eq(base[name] + t)]
        rdata = []
        for b in range(banks):
            pre = bank_prefix(name, b, banks)
            m.d.comb += [getattr(k, f"{pre}_host_addr").eq(addr),
                         getattr(k, f"{pre}_host_wdata").eq(wdata),
                         getattr(k, f"{pre}_host_we").eq(writing & (bank == b))]
            rdata.append(getattr(k, f"{pre}_host_rdata").as_unsigned())
        if info.written:
            sel = Signal.like(bank, name=f"{name}_sel")
            m.d.sync += sel.eq(bank)
            port = getattr(self, f"{name}_out")
            m.d.comb += [port.en.eq(v_out & (t_out < size)),
                         port.addr.eq(base[f"{name}_out"] + t_out),
                         port.data.eq(rdata[0] if banks == 1 else Array(rdata)[sel])]
