"""An accelerator description compiled: its units instantiated and every binding checked.

:func:`compile_accelerator` turns an :class:`archsim.dsl.accel.Accelerator` into a
:class:`CompiledAccelerator`, which gives the three views of one description:

golden
    :meth:`CompiledAccelerator.golden` runs a program transaction by transaction: each step
    calls its unit's golden model on the numpy words of the buffers it is bound to.
RTL
    :meth:`CompiledAccelerator.top` is one top-level Amaranth component (bus, controller,
    buffers, units, DVFS controller; :mod:`archsim.compilers.accel.top`), and
    :meth:`CompiledAccelerator.simulate` runs a program on it to done.
model
    :meth:`CompiledAccelerator.model` gives a program's cycles, time and energy at the
    operating points it sets (:mod:`archsim.compilers.accel.model`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...dsl.accel import (
    MAIN_DOMAIN,
    Accelerator,
    BufferSpec,
    Program,
    Run,
    SetOperatingPoint,
    UnitSpec,
    Wait,
)
from ...errors import ConfigError, DSLError
from ...hw.accel.interface import Unit
from ...hw.checks import silence_unused
from ...hw.models.dvfs import (
    ADPLLModel,
    DVFSModel,
    LDOModel,
    OperatingPoint,
    VFCurve,
    default_adpll,
    default_ldo,
    default_vf_curve,
)
from ...hw.models.memtech import MemoryModel
from ...loading import ProgressCallback

if TYPE_CHECKING:
    from amaranth.lib import wiring

    from ...sim.rtl.accel_run import AcceleratorRunResult
    from .area import AreaReport
    from .model import ProgramReport

__all__ = ["CompiledAccelerator", "compile_accelerator", "PortPlan", "address_bits",
           "GoldenRun"]


def address_bits(words: int) -> int:
    """Bits of an element address into ``words`` elements (at least 1)."""
    return max(1, (words - 1).bit_length())


def _library_unit(kind: str) -> type[Unit]:
    # Imported on use: each unit module pulls in its own datapath helpers.
    if kind == "gemm":
        from ...hw.accel.gemm import GemmUnit
        return GemmUnit
    if kind in ("softmax", "layernorm", "entropy"):
        from ...hw.accel import sfu
        return {"softmax": sfu.Softmax, "layernorm": sfu.LayerNorm,
                "entropy": sfu.Entropy}[kind]
    if kind == "vector":
        from ...hw.accel.vector import VectorUnit
        return VectorUnit
    if kind == "stream":
        from ...hw.accel.stream import StreamPipeline
        return StreamPipeline
    if kind == "adaptivfloat_dot":
        from ...hw.accel.formats import AdaptivFloatDot
        return AdaptivFloatDot
    if kind == "entropy_dvfs":
        from ...hw.accel.entropy_dvfs import EntropyDVFS
        return EntropyDVFS
    if kind in ("bitmask_decode", "bitmask_encode"):
        from ...hw.accel import bitmask
        return {"bitmask_decode": bitmask.BitmaskDecode,
                "bitmask_encode": bitmask.BitmaskEncode}[kind]
    if kind == "adaptivfloat_convert":
        from ...hw.accel.adpfloat_convert import AdaptivFloatConvert
        return AdaptivFloatConvert
    if kind == "adaptivfloat_gemm":
        from ...hw.accel.adpfloat_gemm import AdaptivFloatGemm
        return AdaptivFloatGemm
    if kind == "gather_reduce":
        from ...hw.accel.gather_reduce import GatherReduce
        return GatherReduce
    raise AssertionError(kind)  # the description checked the kind


def _instantiate(spec: UnitSpec, addr_width: int) -> Unit:
    """Build the unit a spec describes, turning its constructor's complaints into DSLErrors."""
    source = spec.source
    try:
        if isinstance(source, str):
            unit: object = _library_unit(source)(addr_width=addr_width, **spec.params)
        elif hasattr(source, "synthesize"):
            from .kernel_unit import KernelUnit

            design = source.synthesize(**spec.params)
            unit = KernelUnit(design, addr_width=addr_width)
        else:
            unit = source(addr_width=addr_width, **spec.params)  # type: ignore[operator]
    except (TypeError, ValueError, ConfigError) as exc:
        raise spec.where.error(f"unit {spec.name!r}: {exc}") from None
    if not isinstance(unit, Unit):
        raise spec.where.error(f"unit {spec.name!r}: its factory returned {unit!r}, not an "
                               "archsim.hw.accel.interface.Unit")
    return unit


def unit_address_width(description: Accelerator, spec: UnitSpec) -> int:
    """The element-address width a unit is built with: that of its largest bound buffer."""
    return max((address_bits(description.buffers[b].words) for b in spec.bind.values()),
               default=1)


@dataclass(frozen=True)
class GoldenRun:
    """A golden run (:meth:`CompiledAccelerator.golden_run`).

    Attributes
    ----------
    buffers : dict of str to numpy.ndarray
        Every buffer's final words.
    points : dict of int to str
        Per indirect switch (by program step index), the operating point it selects.
    """

    buffers: dict[str, np.ndarray]
    points: dict[int, str]


@dataclass(frozen=True)
class PortPlan:
    """Which buffer port serves which unit operand.

    Attributes
    ----------
    buffer : str
    direction : {"read", "write"}
    index : int
        The port's index among the buffer's ports of that direction.
    lanes : int
        Elements per access of the port (1, or the buffer's banks).
    users : tuple of (str, str)
        ``(unit, operand)`` pairs sharing the port (one unit runs at a time).
    """

    buffer: str
    direction: str
    index: int
    lanes: int
    users: tuple[tuple[str, str], ...]


class CompiledAccelerator:
    """The compiled form of an :class:`~archsim.dsl.accel.Accelerator` (see the module doc).

    Attributes
    ----------
    description : Accelerator
    units : dict of str to Unit
        The instantiated units, in declaration order (the program's unit indices).
    ports : list of PortPlan
        The buffer ports and the operands each serves.
    """

    def __init__(self, description: Accelerator, units: dict[str, Unit],
                 ports: list[PortPlan]) -> None:
        self.description = description
        self.units = units
        self.ports = ports
        #: The regulator and PLL of every regulated domain (the defaults of
        #: :mod:`archsim.hw.models.dvfs`, with their sources there).
        self.ldo: LDOModel = default_ldo()
        self.adpll: ADPLLModel = default_adpll()
        self._verilog: tuple[tuple[object, ...], str] | None = None

    @property
    def name(self) -> str:
        """The accelerator's (and its Verilog module's) name."""
        return self.description.name

    @property
    def buffers(self) -> dict[str, BufferSpec]:
        """The buffers, in declaration order (bus region ``2 + i`` is buffer ``i``)."""
        return self.description.buffers

    def fresh_units(self) -> dict[str, Unit]:
        """New instances of the units, for one top level to elaborate."""
        return {name: _instantiate(spec, unit_address_width(self.description, spec))
                for name, spec in self.description.units.items()}

    def unit_index(self, name: str) -> int:
        """The index the program encodes unit ``name`` by."""
        return list(self.units).index(name)

    def buffer_index(self, name: str) -> int:
        """The index of buffer ``name`` (its bus region is ``2 + index``)."""
        return list(self.buffers).index(name)

    # -- hardware parameters the top level and the model share ---------------------------------
    @property
    def program_words_pow2(self) -> int:
        """The program memory's depth: ``program_words`` rounded up to a power of two."""
        return 1 << max(1, (self.description.program_words - 1).bit_length())

    @property
    def controller_clock_hz(self) -> float:
        """The clock of the ``main`` domain (controller, bus, DVFS controllers)."""
        return self.description.domains[MAIN_DOMAIN].operating_points["nominal"][1]

    def stat_names(self) -> list[str]:
        """The statistic CSRs, in order: stalled unit cycles, busy cycles per domain,
        refresh operations per refreshed buffer."""
        names = ["stall_cycles"] + [f"busy_{d}" for d in self.description.domains]
        return names + [f"refreshes_{b}" for b in self.buffers
                        if self.refresh_interval_cycles(b) is not None]

    def memory_model(self, name: str) -> MemoryModel:
        """The cost model of buffer ``name`` (:class:`archsim.hw.models.memtech.MemoryModel`)."""
        spec = self.buffers[name]
        return MemoryModel(technology=spec.technology, words=spec.words, width=spec.width,
                           banks=spec.banks, read_ports=spec.read_ports,
                           write_ports=spec.write_ports, temperature_c=spec.temperature_c)

    def domain_max_frequency_hz(self, domain: str) -> float:
        """The highest frequency among ``domain``'s operating points."""
        return max(f for _, f in self.description.domains[domain].operating_points.values())

    def refresh_interval_cycles(self, name: str) -> int | None:
        """Cycles between refresh operations of buffer ``name`` (None: not refreshed).

        Counted at the fastest clock of the buffer's domain, so a refresh is never late at a
        slower operating point (it is then more frequent than needed).
        """
        model = self.memory_model(name)
        if not model.technology.refreshed:
            return None
        spec = self.buffers[name]
        try:
            return model.refresh_interval_cycles(self.domain_max_frequency_hz(spec.domain))
        except (ConfigError, ValueError) as exc:
            raise spec.where.error(f"buffer {name!r}: {exc}") from None

    # -- programs ------------------------------------------------------------------------------
    def check_program(self, program: Program) -> list[dict[str, int]]:
        """Check every step against its unit's contract and its buffers' sizes.

        Returns the complete argument dict of each step (``{}`` for an operating-point
        change). Raises :class:`DSLError` at the step's line: an unknown or missing argument,
        a value that does not fit, an operand range past the end of its buffer, or an
        indirect switch whose unit has no result, has not finished (started without a wait
        since), or is not the last unit with a result to run before it (the DVFS-select
        register would hold another unit's).
        """
        if program.accelerator is not self.description:
            raise DSLError(f"the program was written for accelerator "
                           f"{program.accelerator.name!r}, not {self.name!r}")
        checked: list[dict[str, int]] = []
        words = 1  # the HALT
        # Steps started without waiting and not yet joined: unit -> (step, its ranges).
        running: dict[str, tuple[int, list[tuple[str, str, int, int]]]] = {}
        last_result: tuple[str, int] | None = None  # the unit that writes the select register
        for k, step in enumerate(program.steps):
            if isinstance(step, Wait):
                running.clear()
            if isinstance(step, SetOperatingPoint) and step.from_unit is not None:
                self._check_indirect(k, step, last_result, running)
            if isinstance(step, SetOperatingPoint | Wait):
                for other, (j, _) in running.items():
                    if isinstance(step, SetOperatingPoint) and \
                            self.description.units[other].domain == step.domain:
                        raise step.where.error(
                            f"program step {k}: domain {step.domain!r} changes its operating "
                            f"point while unit {other!r} (started at step {j}, not waited "
                            "for) runs in it", hint="add program.wait() before this step")
                checked.append({})
                words += 1
                continue
            unit = self.units[step.unit]
            spec = self.description.units[step.unit]
            try:
                args = unit.contract.check_args(step.args)
            except ValueError as exc:
                raise step.where.error(f"program step {k}: {exc}") from None
            for operand, (first, end) in unit.footprint(args).items():
                buf = self.buffers[spec.bind[operand]]
                if first < 0 or end > buf.words:
                    verb = "reads" if unit.contract.operand(operand).direction == "read" \
                        else "writes"
                    raise step.where.error(
                        f"program step {k}: unit {step.unit!r} {verb} {operand}[{first}:{end}]"
                        f" past the end of buffer {buf.name!r} ({buf.words} words)")
            ranges = [(spec.bind[o], unit.contract.operand(o).direction, first, end)
                      for o, (first, end) in unit.footprint(args).items() if end > first]
            running.pop(step.unit, None)  # the controller waits for its previous invocation
            self._check_overlap(k, step, ranges, running)
            if not step.wait:
                running[step.unit] = (k, ranges)
            if unit.contract.result_width:
                last_result = (step.unit, k)
            checked.append(args)
            words += 1 + len(args)
        if words > self.description.program_words:
            raise program.accelerator.where.error(
                f"the program takes {words} words; accelerator {self.name!r} has "
                f"program_words={self.description.program_words}")
        return checked

    def _check_indirect(self, k: int, step: SetOperatingPoint,
                        last_result: tuple[str, int] | None,
                        running: Mapping[str, object]) -> None:
        """An indirect switch needs its unit's result in the DVFS-select register."""
        name = step.from_unit
        assert name is not None
        if not self.units[name].contract.result_width:
            raise step.where.error(
                f"program step {k}: unit {name!r} ({self.units[name].contract.kind}) has no "
                "result, so it selects no operating point",
                hint="an indirect switch takes the point an 'entropy_dvfs' unit selected")
        if last_result is None or last_result[0] != name:
            after = (f"; unit {last_result[0]!r} (step {last_result[1]}) wrote the "
                     "DVFS-select register last" if last_result else "")
            raise step.where.error(
                f"program step {k}: switch of domain {step.domain!r} from unit {name!r}, "
                f"but {name!r} has not run before it{after}")
        if name in running:
            raise step.where.error(
                f"program step {k}: unit {name!r} (step {last_result[1]}) was started "
                "without waiting, so its selection may not be ready",
                hint="add program.wait() before this step, or use program.run")

    @staticmethod
    def _check_overlap(k: int, step: Run, ranges: list[tuple[str, str, int, int]],
                       running: dict[str, tuple[int, list[tuple[str, str, int, int]]]]) -> None:
        """A step must not write what a unit still running reads or writes, nor read what it
        writes: their order in time is not the program's."""
        for other, (j, theirs) in running.items():
            for buf, mine_dir, a0, a1 in ranges:
                for buf2, their_dir, b0, b1 in theirs:
                    if buf == buf2 and a0 < b1 and b0 < a1 and "write" in (mine_dir, their_dir):
                        raise step.where.error(
                            f"program step {k}: unit {step.unit!r} {mine_dir}s {buf}[{a0}:{a1}]"
                            f" while unit {other!r} (started at step {j}, not waited for) "
                            f"{their_dir}s {buf}[{b0}:{b1}]",
                            hint="add program.wait() before this step, or use other addresses")

    def encode(self, program: Program) -> list[int]:
        """The program's words as the controller's program memory holds them (HALT last)."""
        from ...hw.accel import isa

        words: list[int] = []
        for step, args in zip(program.steps, self.check_program(program), strict=True):
            if isinstance(step, Run):
                order = self.units[step.unit].contract.all_args
                words += isa.encode_run(self.unit_index(step.unit), [args[a] for a in order],
                                        wait=step.wait)
            elif isinstance(step, Wait):
                words += isa.encode_wait()
            elif step.point is None:
                words += isa.encode_dvfs(self.domain_index(step.domain), None)
            else:
                domain = self.description.domains[step.domain]
                words += isa.encode_dvfs(self.domain_index(step.domain),
                                         domain.point_index(step.point))
        words += isa.encode_halt()
        return words

    def domain_index(self, name: str) -> int:
        """The index the program encodes domain ``name`` by (``main`` is 0)."""
        return list(self.description.domains).index(name)

    # -- the golden view ---------------------------------------------------------------------
    def golden(self, program: Program,
               buffers: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run ``program`` on the buffers' initial raw words (zeros where not given).

        Returns every buffer's final words (``int64``), the inputs left untouched.
        """
        return self.golden_run(program, buffers).buffers

    def golden_run(self, program: Program, buffers: Mapping[str, np.ndarray]) -> GoldenRun:
        """:meth:`golden`, also giving the operating point each indirect switch selects
        (the DVFS-select register as the program runs).

        Raises
        ------
        DSLError
            At an indirect switch whose selected index is not an operating point of its
            domain (the controller would stop with error code 4, bad domain/op-point).
        """
        state = self.initial_buffers(buffers)
        select = 0
        points: dict[int, str] = {}
        for k, (step, args) in enumerate(zip(program.steps, self.check_program(program),
                                             strict=True)):
            if isinstance(step, Run):
                spec = self.description.units[step.unit]
                views = {operand: state[buf] for operand, buf in spec.bind.items()}
                unit = self.units[step.unit]
                unit.golden(views, args)
                if unit.contract.result_width:
                    select = unit.golden_result(views, args)
            elif isinstance(step, SetOperatingPoint) and step.point is None:
                names = list(self.description.domains[step.domain].operating_points)
                if select >= len(names):
                    raise step.where.error(
                        f"program step {k}: unit {step.from_unit!r} selected operating point "
                        f"{select}; domain {step.domain!r} has {len(names)} (0.."
                        f"{len(names) - 1}): the controller would stop with error code 4")
                points[k] = names[select]
        return GoldenRun(state, points)

    def resolve_points(self, program: Program, *,
                       buffers: Mapping[str, np.ndarray] | None = None,
                       selected: Sequence[str | int] | None = None) -> dict[int, str]:
        """The operating point of each indirect switch, by step index (``{}`` for a program
        without one): from a golden run on ``buffers``, or from ``selected`` (one point name
        or index per indirect switch, in program order).

        Raises
        ------
        DSLError
            Both or neither given for a program with indirect switches (at the first one's
            line), a ``selected`` of the wrong length or naming no point of its domain.
        """
        indirect = [(k, s) for k, s in enumerate(program.steps)
                    if isinstance(s, SetOperatingPoint) and s.point is None]
        if buffers is not None and selected is not None:
            raise DSLError("give buffers= (the golden run resolves the indirect switches) or "
                           "selected= (their points), not both")
        if not indirect:
            if selected:
                raise DSLError(f"selected= gives {len(selected)} points; the program has no "
                               "indirect switch")
            return {}
        k0, first = indirect[0]
        if buffers is None and selected is None:
            raise first.where.error(
                f"program step {k0}: the operating point of this switch comes from unit "
                f"{first.from_unit!r}'s data; the model needs buffers= (the golden run "
                "resolves it) or selected= (one point per indirect switch)")
        if buffers is not None:
            return self.golden_run(program, buffers).points
        assert selected is not None
        chosen = list(selected)
        if len(chosen) != len(indirect):
            raise first.where.error(f"selected= gives {len(chosen)} points; the program has "
                                    f"{len(indirect)} indirect switches")
        out: dict[int, str] = {}
        for (k, step), point in zip(indirect, chosen, strict=True):
            names = list(self.description.domains[step.domain].operating_points)
            if isinstance(point, (int, np.integer)) and not isinstance(point, bool) \
                    and 0 <= int(point) < len(names):
                out[k] = names[int(point)]
            elif isinstance(point, str) and point in names:
                out[k] = point
            else:
                raise step.where.error(f"program step {k}: selected point {point!r} is not an "
                                       f"operating point of domain {step.domain!r} "
                                       f"({names}, or their indices)")
        return out

    def initial_buffers(self, buffers: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Every buffer's initial words: the given arrays, zero-padded, checked to fit."""
        unknown = sorted(set(buffers) - set(self.buffers))
        if unknown:
            raise DSLError(f"accelerator {self.name!r} has no buffer {unknown[0]!r}; it has "
                           f"{list(self.buffers)}")
        state: dict[str, np.ndarray] = {}
        for name, spec in self.buffers.items():
            words = np.zeros(spec.words, dtype=np.int64)
            if name in buffers:
                given = np.asarray(buffers[name])
                if given.ndim != 1 or given.size > spec.words:
                    raise DSLError(f"buffer {name!r} holds {spec.words} words; the initial "
                                   f"contents given have shape {given.shape}")
                if given.size and (given.min() < 0 or int(given.max()) >> spec.width):
                    raise DSLError(f"buffer {name!r}: initial words must be raw unsigned "
                                   f"{spec.width}-bit codes (0..{(1 << spec.width) - 1})")
                words[:given.size] = given
            state[name] = words
        return state

    # -- the other two views (their modules are imported on use) ----------------------------------
    def top(self) -> wiring.Component:
        """The accelerator's top-level component (a fresh instance per call)."""
        from .top import AcceleratorTop

        return AcceleratorTop(self)

    def verilog(self) -> str:
        """The top level's Verilog, generated once for each state of the description and
        the regulator models (a large design's generation takes minutes; every further
        :meth:`simulate` reuses it)."""
        from ...hw.verilog import to_verilog

        d = self.description
        key = (d.name, d.program_words, tuple(d.domains.values()), tuple(d.buffers.values()),
               tuple(d.units.values()), self.ldo, self.adpll)
        if self._verilog is None or self._verilog[0] != key:
            self._verilog = (key, to_verilog(self.top(), name=self.name))
        return self._verilog[1]

    def area(self, *, node: str = "nangate45",
             progress: ProgressCallback | None = None) -> AreaReport:
        """Logic area from synthesis plus memory macros (:mod:`archsim.compilers.accel.area`)."""
        from .area import accelerator_area

        return accelerator_area(self, node=node, progress=progress)

    def model(self, program: Program, *, buffers: Mapping[str, np.ndarray] | None = None,
              selected: Sequence[str | int] | None = None) -> ProgramReport:
        """Cycles, time and energy of ``program`` (:mod:`archsim.compilers.accel.model`).

        A program with indirect switches (``set_operating_point(d, from_unit=...)``) needs
        their points: ``buffers`` (a golden run resolves them) or ``selected``
        (:meth:`resolve_points`).
        """
        from .model import model_program

        return model_program(self, program, buffers=buffers, selected=selected)

    def simulate(self, program: Program, buffers: Mapping[str, np.ndarray], *,
                 backend: str = "verilator") -> AcceleratorRunResult:
        """Run ``program`` on the RTL to done: load buffers and program over the bus, start,
        wait for the interrupt, read every buffer back (:mod:`archsim.sim.rtl.accel_run`)."""
        from ...sim.rtl.accel_run import run_accelerator

        return run_accelerator(self, program, buffers, backend=backend)


def _check_bindings(spec: UnitSpec, unit: Unit, desc: Accelerator) -> None:
    """Check that every operand is bound to a buffer that fits it."""
    contract = unit.contract
    names = [o.name for o in contract.operands]
    extra = sorted(set(spec.bind) - set(names))
    if extra:
        raise spec.where.error(f"unit {spec.name!r} ({contract.kind}) has no operand "
                               f"{extra[0]!r}; its operands are {names}")
    missing = [n for n in names if n not in spec.bind]
    if missing:
        raise spec.where.error(f"unit {spec.name!r} ({contract.kind}): operand "
                               f"{missing[0]!r} is not bound to a buffer")
    for o in contract.operands:
        buf = desc.buffers[spec.bind[o.name]]
        if o.width != buf.width:
            raise spec.where.error(
                f"unit {spec.name!r}: operand {o.name!r} is {o.width} bits wide; buffer "
                f"{buf.name!r} holds {buf.width}-bit words")
        if o.lanes not in (1, buf.banks):
            raise spec.where.error(
                f"unit {spec.name!r}: operand {o.name!r} moves {o.lanes} elements per access;"
                f" buffer {buf.name!r} has {buf.banks} banks (a row port needs as many banks"
                " as lanes)")


def _plan_ports(desc: Accelerator, units: dict[str, Unit]) -> list[PortPlan]:
    """Give each (unit, operand) a buffer port: one port per operand within a unit, shared
    across units; a buffer's declared port counts bound the ports per direction."""
    plans: dict[tuple[str, str, int], list[tuple[str, str]]] = {}
    lanes_of: dict[tuple[str, str, int], int] = {}
    for name, unit in units.items():
        spec = desc.units[name]
        used: dict[tuple[str, str], int] = {}
        for o in unit.contract.operands:
            buf = desc.buffers[spec.bind[o.name]]
            k = used.get((buf.name, o.direction), 0)
            # Reuse port k of this direction if its lanes match, else open the next one.
            while (buf.name, o.direction, k) in lanes_of \
                    and lanes_of[(buf.name, o.direction, k)] != o.lanes:
                k += 1
            limit = buf.read_ports if o.direction == "read" else buf.write_ports
            if k >= limit:
                raise spec.where.error(
                    f"unit {name!r}: operand {o.name!r} needs {o.direction} port {k + 1} of "
                    f"buffer {buf.name!r}, which has {limit} {o.direction} port"
                    f"{'s' if limit != 1 else ''}",
                    hint=f"give the buffer {o.direction}_ports={k + 1}, or bind the operand "
                         "to another buffer")
            key = (buf.name, o.direction, k)
            lanes_of[key] = o.lanes
            plans.setdefault(key, []).append((name, o.name))
            used[(buf.name, o.direction)] = k + 1
    return [PortPlan(b, d, i, lanes_of[(b, d, i)], tuple(users))
            for (b, d, i), users in plans.items()]


def _check_domains(description: Accelerator, ldo: LDOModel, adpll: ADPLLModel) -> None:
    """Every operating point of a regulated domain must lie under its V-f curve (its
    ``vf_table``, else the default curve of :mod:`archsim.hw.models.dvfs`) and be realisable
    by the LDO and the ADPLL."""
    for dom in description.domains.values():
        if not dom.regulated:
            continue
        try:
            curve = (VFCurve.table(dom.vf_table) if dom.vf_table is not None
                     else default_vf_curve())
        except ConfigError as exc:
            raise dom.where.error(f"domain {dom.name!r}: vf_table: {exc.reason}") from None
        model = DVFSModel(ldo=ldo, adpll=adpll, curve=curve)
        for point, (v, f) in dom.operating_points.items():
            try:
                model.realize(OperatingPoint(voltage_v=v, frequency_hz=f))
            except ConfigError as exc:
                raise dom.where.error(f"domain {dom.name!r}, operating point {point!r}: "
                                      f"{exc}") from None


def compile_accelerator(description: Accelerator) -> CompiledAccelerator:
    """Instantiate and check every unit of ``description`` (see :class:`CompiledAccelerator`)."""
    if not description.units:
        raise description.where.error(f"accelerator {description.name!r} has no units")
    _check_domains(description, default_ldo(), default_adpll())
    units: dict[str, Unit] = {}
    for name, spec in description.units.items():
        unit = _instantiate(spec, unit_address_width(description, spec))
        # These instances answer for the contract, the golden and the model views; each
        # top level elaborates fresh ones (CompiledAccelerator.fresh_units).
        silence_unused(unit)
        _check_bindings(spec, unit, description)
        units[name] = unit
    return CompiledAccelerator(description, units, _plan_ports(description, units))

