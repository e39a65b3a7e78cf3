"""Valid/ready dataflow: stream stages chained through FIFOs, wrapped as one accelerator unit.

A :class:`StreamStage` is an Amaranth component with an input stream ``i`` and an output
stream ``o`` (:mod:`amaranth.lib.stream`: ``payload``/``valid``/``ready``; a transfer happens
in a cycle where both ``valid`` and ``ready`` are high), a declared ``latency`` and initiation
interval ``ii``, and a numpy :meth:`~StreamStage.golden` on raw words. Shipped stages:
:class:`MapStage` (a saturating affine map), :class:`ReluStage` and :class:`ThrottleStage`
(a slow consumer: one element every ``ii`` cycles, or every ``ii..ii_max`` cycles in a
pseudo-random pattern, so it produces back-pressure).

:class:`StreamPipeline` is a :class:`~archsim.hw.accel.interface.Unit`: a load stage reads
``n`` words of operand ``src`` into a stream, the stages run one after another, joined by
:class:`amaranth.lib.fifo.SyncFIFO` queues of declared depths (one before each stage and one
before the store), and a store stage writes the stream to operand ``dst``.

The timing model
----------------
Number the elements ``e = 0..n-1`` and write ``t_c(e)`` for the cycle in which component
``c`` accepts element ``e`` (the load: issues its read; a FIFO: is written; a stage: takes
it from the FIFO before it; the store: writes it). Each component is *greedy*: it accepts
``e`` in the first cycle in which all of these hold (``start`` sampled in cycle ``s``):

* the element has arrived: ``t_c(e) >= t_{c-1}(e) + l_{c-1}``, where ``l`` is 1 for the load
  (synchronous read), for a FIFO (written in ``t``, readable in ``t + 1``) and for a stage of
  latency 1 (``l`` is the stage's ``latency``); the load's first read is in ``s + 1``;
* its interval has passed: ``t_c(e) >= t_c(e-1) + p_c(e-1)`` with ``p`` 1 for the load, the
  store and a FIFO, and the stage's interval (``ii <= p <= ii_max``) for a stage;
* it has room: a stage or the load holds at most ``latency`` (1) elements, and may accept
  in the cycle its oldest one is taken: ``t_c(e) >= t_{c+1}(e - latency)``; a FIFO of depth
  ``d`` does not accept while full even if it is read in the same cycle (Amaranth's
  ``SyncFIFO`` ``w_rdy`` is ``level != depth``): ``t_F(e) >= t_{F+1}(e - d) + 1``. The
  store is always ready. ``done`` is raised in the cycle after the store's last write.

Let ``a_c`` be ``t_c(0)`` (element 0 meets no other element, so it only obeys the first
rule): ``a_store = s + 3 + k + sum(latency)`` for ``k`` stages, and let ``P`` be the largest
of 1, every stage's interval, and 2 if some FIFO has depth 1 (a depth-1 FIFO alternates
between full and empty). Then

    ``cycles = a_store + 1 + (n - 1) * P - s = 4 + k + sum(latency) + (n - 1) * P``  (``n >= 1``)

*Lower bound.* The slowest component ``B`` (its interval ``P``) accepts ``n`` elements at
least ``P`` apart, so ``t_B(n-1) >= a_B + (n-1) P``, and the last element then needs at
least ``a_store - a_B`` more cycles to be written (a depth-1 FIFO obeys
``t_F(e) >= t_F(e-1) + 2`` through its room rule).

*Upper bound.* Claim ``t_c(e) <= a_c + e P`` for every component and element. By induction
over ``e`` and, within ``e``, along the chain: the arrival term is ``<= a_{c-1} + eP +
l_{c-1} = a_c + eP``; the interval term is ``<= a_c + (e-1)P + p_c <= a_c + eP`` since
``p_c <= P``; a stage's room term is ``<= a_{c+1} + (e - L)P = a_c + L + eP - LP <= a_c
+ eP``; a FIFO's is ``<= a_{c+1} + (e-d)P + 1 = a_c + eP + 2 - dP <= a_c + eP`` because
``dP >= 2`` (``d >= 2``, or ``d = 1`` and then ``P >= 2``). A greedy component accepts at
the largest of its terms, so the claim holds, and for ``e = n - 1`` at the store it is the
bound.

So the model is **exact** whenever every stage has a fixed interval (``ii == ii_max``; II=1
stages are the common case, a fixed-rate :class:`ThrottleStage` is exact too), whatever the
FIFO depths; with a variable-interval stage :meth:`StreamPipeline.cycles` returns the lower
bound (``P`` from each stage's ``ii``) and :meth:`StreamPipeline.cycles_bounds` the pair
(``P`` from ``ii``, ``P`` from ``ii_max``). :meth:`StreamPipeline.cycles_event` evaluates the
recurrence above element by element with each stage's actual interval sequence
(:meth:`StreamStage.intervals`), which is exact for a variable stage too. The model holds for
stages that obey the greedy rule with their declared latency and intervals (every shipped
stage does); a user stage that accepts later than the rule allows is outside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np
from amaranth.hdl import Const, Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from ...errors import ConfigError
from ..checks import check_int, check_positive, silence_unused
from ..hls_ops import op_cost, sram_read_energy_j, sram_write_energy_j
from .interface import ARG_WIDTH, Operand, Unit, UnitContract
from .vector import round_shift, saturate

__all__ = ["StreamStage", "MapStage", "ReluStage", "ThrottleStage", "StreamPipeline",
           "MAX_STAGE_WIDTH"]

#: Widest stream payload a shipped stage takes (its golden computes in ``int64``).
MAX_STAGE_WIDTH = 32


def _signed(words: np.ndarray, width: int) -> np.ndarray:
    w = np.asarray(words, dtype=np.int64) & ((1 << width) - 1)
    return np.where(w >= 1 << (width - 1), w - (1 << width), w)


class StreamStage(wiring.Component):
    """Base of a stream stage: ``i`` (``In(stream.Signature(in_width))``) to ``o``.

    Parameters
    ----------
    in_width, out_width : int
        Payload bits of the input and output streams, 1..:data:`MAX_STAGE_WIDTH`.
    latency : int
        Cycles from accepting an element to offering it on ``o``; also the most elements
        the stage holds (see the module docstring for the handshake rule the model assumes).
    ii : int
        Least number of cycles between two acceptances.
    ii_max : int, optional
        Most cycles between two acceptances when input and room are there (default ``ii``:
        a fixed interval).

    Subclasses implement :meth:`elaborate` and :meth:`golden`, and :meth:`intervals` if
    their interval varies.
    """

    #: Names of the actions :meth:`actions` counts (keys of the pipeline's energy table).
    ACTIONS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, in_width: int, out_width: int, latency: int = 1, ii: int = 1,
                 ii_max: int | None = None) -> None:
        try:
            check_int("in_width", in_width, 1, MAX_STAGE_WIDTH)
            check_int("out_width", out_width, 1, MAX_STAGE_WIDTH)
            check_positive("latency", latency)
            check_positive("ii", ii)
            if ii_max is None:
                ii_max = ii
            check_int("ii_max", ii_max, ii, 1 << 16)
        except (TypeError, ValueError):
            silence_unused(self)  # a user error: Amaranth need not warn it went unused
            raise
        self.in_width, self.out_width = in_width, out_width
        self.latency, self.ii, self.ii_max = latency, ii, ii_max
        super().__init__({"i": In(stream.Signature(in_width)),
                          "o": Out(stream.Signature(out_width))})

    @property
    def label(self) -> str:
        """How messages name the stage: its class and widths."""
        return f"{type(self).__name__} ({self.in_width} -> {self.out_width} bits)"

    def golden(self, x: np.ndarray) -> np.ndarray:
        """The stage on raw words: ``in_width``-bit unsigned words in, ``out_width`` out."""
        raise NotImplementedError

    def intervals(self, n: int) -> list[int]:
        """The least gap (cycles) after accepting element ``e``, for ``e = 0..n-1``."""
        return [self.ii] * n

    def actions(self, n: int) -> dict[str, int]:
        """Counts of the stage's energy-bearing actions for ``n`` elements."""
        return {}

    def _register(self, m: Module, value: object, *, allow: object = 1) -> Signal:
        """The latency-1 handshake every shipped stage uses: take an element when the output
        register is empty or being emptied (and ``allow``), offer it the next cycle.
        Returns the accept strobe."""
        accept = Signal()
        m.d.comb += [self.i.ready.eq(allow & (~self.o.valid | self.o.ready)),
                     accept.eq(self.i.valid & self.i.ready)]
        with m.If(accept):
            m.d.sync += [self.o.payload.eq(value), self.o.valid.eq(1)]
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        return accept


class MapStage(StreamStage):
    """``y = sat(rshift(x * scale, shift) + offset)``: a saturating affine map, II=1, latency 1.

    ``x`` is the signed input word, ``rshift`` an arithmetic right shift rounding half up
    (as :func:`archsim.hw.accel.vector.round_shift`), ``sat`` the clamp to the signed range
    of ``out_width`` bits (applied after the offset, so the offset cannot wrap).

    Parameters
    ----------
    width : int
        Input payload bits.
    out_width : int, optional
        Output payload bits (default ``width``).
    scale, offset : int
        Signed 32-bit constants.
    shift : int
        0..63.
    """

    ACTIONS = ("mul", "alu")

    def __init__(self, *, width: int = 16, out_width: int | None = None, scale: int = 1,
                 shift: int = 0, offset: int = 0) -> None:
        try:
            check_int("scale", scale, -(1 << 31), (1 << 31) - 1)
            check_int("offset", offset, -(1 << 31), (1 << 31) - 1)
            check_int("shift", shift, 0, 63)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.scale, self.shift, self.offset = scale, shift, offset
        super().__init__(in_width=width, out_width=width if out_width is None else out_width)

    def golden(self, x: np.ndarray) -> np.ndarray:
        """The map on raw words, computed in ``int64``."""
        y = round_shift(_signed(x, self.in_width) * self.scale, self.shift) + self.offset
        return saturate(y, self.out_width) & ((1 << self.out_width) - 1)

    def actions(self, n: int) -> dict[str, int]:
        """One multiply and one add/round/saturate pass per element."""
        return {"mul": n, "alu": n}

    def elaborate(self, platform: object) -> Module:
        """Multiply, round (``ceil(floor(2p / 2**shift) / 2)``), offset, clamp, register."""
        m = Module()
        prod = self.i.payload.as_signed() * Const(self.scale, 32).as_signed()
        t = (prod << 1) >> self.shift
        y = Signal(signed(67))  # 64-bit product, rounding, 32-bit offset
        m.d.comb += y.eq((t >> 1) + t[0] + self.offset)
        hi, lo = (1 << (self.out_width - 1)) - 1, -(1 << (self.out_width - 1))
        self._register(m, Mux(y > hi, hi, Mux(y < lo, lo, y))[:self.out_width])
        return m


class ReluStage(StreamStage):
    """``y = max(x, 0)`` on signed words, II=1, latency 1."""

    ACTIONS = ("alu",)

    def __init__(self, *, width: int = 16) -> None:
        super().__init__(in_width=width, out_width=width)

    def golden(self, x: np.ndarray) -> np.ndarray:
        """ReLU on raw words."""
        return np.maximum(_signed(x, self.in_width), 0)

    def actions(self, n: int) -> dict[str, int]:
        """One compare per element."""
        return {"alu": n}

    def elaborate(self, platform: object) -> Module:
        """Clear negative payloads, register."""
        m = Module()
        x = self.i.payload
        self._register(m, Mux(x[-1], 0, x))
        return m


class ThrottleStage(StreamStage):
    """A slow consumer: passes words unchanged, accepting one every ``ii`` cycles.

    With ``ii_max > ii`` the gap after each element is ``ii + (r mod span)`` with ``span =
    ii_max - ii + 1`` and ``r`` the low bits of a 16-bit Galois LFSR (taps ``0xB400``, the
    maximal-length polynomial ``x^16 + x^14 + x^13 + x^11 + 1``) stepped once per element,
    so the interval varies pseudo-randomly in ``ii..ii_max`` and the rate model is a bound.

    Parameters
    ----------
    width : int
    ii : int
        Least gap between acceptances (cycles).
    ii_max : int, optional
        Largest gap (default ``ii``: a fixed rate).
    seed : int
        Initial LFSR state, 1..65535.
    """

    _TAPS = 0xB400

    def __init__(self, *, width: int = 16, ii: int = 2, ii_max: int | None = None,
                 seed: int = 1) -> None:
        try:
            check_int("seed", seed, 1, (1 << 16) - 1)
        except (TypeError, ValueError):
            silence_unused(self)
            raise
        self.seed = seed
        super().__init__(in_width=width, out_width=width, ii=ii, ii_max=ii_max)

    def golden(self, x: np.ndarray) -> np.ndarray:
        """The identity on raw words."""
        return np.asarray(x, dtype=np.int64) & ((1 << self.in_width) - 1)

    def intervals(self, n: int) -> list[int]:
        """The gap after each element, as the RTL's LFSR gives it."""
        span = self.ii_max - self.ii + 1
        bits = (span - 1).bit_length()
        state, out = self.seed, []
        for _ in range(n):
            r = state & ((1 << bits) - 1)
            out.append(self.ii + (r - span if r >= span else r))
            state = (state >> 1) ^ (self._TAPS if state & 1 else 0)
        return out

    def elaborate(self, platform: object) -> Module:
        """A cooldown counter loaded with ``gap - 1`` at each acceptance."""
        m = Module()
        span = self.ii_max - self.ii + 1
        bits = (span - 1).bit_length()
        wait = Signal(range(self.ii_max))
        lfsr = Signal(16, init=self.seed)
        accept = self._register(m, self.i.payload, allow=wait == 0)
        if bits:
            r = lfsr[:bits]
            extra = Mux(r >= span, r - span, r)
        else:
            extra = Const(0, 1)
        with m.If(accept):
            m.d.sync += [wait.eq(self.ii - 1 + extra),
                         lfsr.eq((lfsr >> 1) ^ Mux(lfsr[0], self._TAPS, 0))]
        with m.Elif(wait != 0):
            m.d.sync += wait.eq(wait - 1)
        return m


class StreamPipeline(Unit):
    """Load ``n`` words of ``src``, stream them through ``stages`` and FIFOs, store to ``dst``.

    Parameters
    ----------
    stages : sequence of StreamStage
        The stages, in order, each instance used once (an empty list is a plain copy through
        one FIFO).
    fifo_depths : sequence of int
        ``len(stages) + 1`` depths: the FIFO before each stage, then the one before the store.
    width : int
        Bits per word of ``src`` (the load's stream width).
    out_width : int, optional
        Bits per word of ``dst`` (the store's stream width; default ``width``), e.g. 8 after
        a stage that requantizes 32-bit words.
    addr_width : int
        Address bits of both ports.

    Notes
    -----
    Arguments: ``src_addr``, ``dst_addr``, ``n``. Timing: see the module docstring.
    Energy per action (45 nm, the default 16-bit width): ``"mul"`` a 16-bit multiply and
    ``"alu"`` a 16-bit add (Horowitz, interpolated as in :mod:`archsim.hw.hls_ops`), ``"fifo"``
    one write and one read of a small FIFO per element per FIFO.
    """

    ENERGY_PER_ACTION_J: Mapping[str, float] = {
        "mul": op_cost("mul", 16).energy_j,
        "alu": op_cost("add", 16).energy_j,
        "fifo": sram_read_energy_j(16, 4) + sram_write_energy_j(16, 4),
    }
    ENERGY_SOURCES: Mapping[str, str] = {
        "mul": "M. Horowitz, ISSCC 2014, 45 nm: 8-bit multiply 0.2 pJ, 32-bit 3.1 pJ; 16 bits "
               "by the power law through both (archsim.hw.hls_ops)",
        "alu": "M. Horowitz, ISSCC 2014, 45 nm: 8-bit add 0.03 pJ, 32-bit 0.1 pJ; 16 bits "
               "interpolated linearly (archsim.hw.hls_ops)",
        "fifo": "assumed: Horowitz's 8 KB SRAM read (10 pJ per 64 bits) scaled by sqrt(size) "
                "down to a 64-byte array (archsim.hw.hls_ops.sram_read_energy_j), one write "
                "plus one read of a 16-bit word",
    }

    def __init__(self, *, stages: Sequence[StreamStage], fifo_depths: Sequence[int],
                 width: int = 16, out_width: int | None = None,
                 addr_width: int = 16) -> None:
        stages = list(stages)
        out_width = width if out_width is None else out_width
        try:
            self._validate(stages, list(fifo_depths), width, out_width, addr_width)
        except Exception:
            for st in stages:
                if isinstance(st, StreamStage):
                    silence_unused(st)
            silence_unused(self)
            raise
        self.stages: tuple[StreamStage, ...] = tuple(stages)
        self.fifo_depths: tuple[int, ...] = tuple(fifo_depths)
        self.width, self.out_width, self.addr_width = width, out_width, addr_width
        self.contract = UnitContract(
            kind="stream", args=("n",),
            operands=(Operand("src", "read", width), Operand("dst", "write", out_width)))
        super().__init__(self.contract.members({"src": addr_width, "dst": addr_width}))

    @staticmethod
    def _validate(stages: list[StreamStage], depths: list[int], width: int,
                  out_width: int, addr_width: int) -> None:
        check_int("width", width, 1, MAX_STAGE_WIDTH)
        check_int("out_width", out_width, 1, MAX_STAGE_WIDTH)
        check_int("addr_width", addr_width, 1, ARG_WIDTH)
        for j, st in enumerate(stages):
            if not isinstance(st, StreamStage):
                raise TypeError(f"stages[{j}] must be a StreamStage, not {st!r}")
        if len({id(st) for st in stages}) != len(stages):
            raise ConfigError("a stage appears twice; each stage is one piece of hardware",
                              field="stages")
        if len(depths) != len(stages) + 1:
            raise ConfigError(f"{len(depths)} FIFO depths given; {len(stages)} stages need "
                              f"{len(stages) + 1} (one before each stage and one before the "
                              "store)", field="fifo_depths")
        for j, d in enumerate(depths):
            check_positive(f"fifo_depths[{j}]", d)
        names = ["the load stage"] + [f"stage {j} ({st.label})" for j, st in
                                      enumerate(stages)] + ["the store stage"]
        outs = [width] + [st.out_width for st in stages]
        ins = [st.in_width for st in stages] + [out_width]
        for j, (w_out, w_in) in enumerate(zip(outs, ins, strict=True)):
            if w_out != w_in:
                raise ConfigError(f"stream width mismatch: {names[j]} produces {w_out}-bit "
                                  f"words but {names[j + 1]} takes {w_in}-bit words",
                                  field="stages")

    # -- the model view ------------------------------------------------------------------

    @property
    def exact(self) -> bool:
        """True when :meth:`cycles` is exact (every stage has a fixed interval)."""
        return all(st.ii == st.ii_max for st in self.stages)

    def _period(self, high: bool) -> int:
        p = [1] + [st.ii_max if high else st.ii for st in self.stages]
        if min(self.fifo_depths) == 1:
            p.append(2)
        return max(p)

    def _fill(self) -> int:
        return 4 + len(self.stages) + sum(st.latency for st in self.stages)

    def cycles_bounds(self, args: Mapping[str, int]) -> tuple[int, int]:
        """``(low, high)``: ``4 + k + sum(latency) + (n-1) * P`` with ``P`` from the stages'
        ``ii`` and from their ``ii_max`` (module docstring); ``(1, 1)`` for ``n = 0``."""
        n = self.contract.check_args(args)["n"]
        if n == 0:
            return 1, 1
        return (self._fill() + (n - 1) * self._period(False),
                self._fill() + (n - 1) * self._period(True))

    def cycles(self, args: Mapping[str, int]) -> int:
        """Exact when :attr:`exact`, otherwise the lower bound (:meth:`cycles_bounds`)."""
        return self.cycles_bounds(args)[0]

    def cycles_event(self, args: Mapping[str, int]) -> int:
        """The greedy-handshake recurrence of the module docstring, evaluated element by
        element with each stage's :meth:`~StreamStage.intervals` (``s = 0``)."""
        n = self.contract.check_args(args)["n"]
        if n == 0:
            return 1
        k = len(self.stages)
        gaps = [st.intervals(n) for st in self.stages]
        never = -(1 << 60)
        load = [0] * n
        fifo_w = [[0] * n for _ in range(k + 1)]  # write into FIFO j
        take = [[0] * n for _ in range(k + 1)]    # read out of FIFO j (stage j, or the store)

        def before(seq: list[int], e: int) -> int:
            return seq[e] if e >= 0 else never

        for e in range(n):
            load[e] = max(1, before(load, e - 1) + 1, before(fifo_w[0], e - 1))
            up_out = load[e] + 1
            for j in range(k + 1):
                d = self.fifo_depths[j]
                fifo_w[j][e] = max(up_out, before(take[j], e - d) + 1)
                if j < k:
                    st = self.stages[j]
                    prev = take[j][e - 1] + gaps[j][e - 1] if e else never
                    take[j][e] = max(fifo_w[j][e] + 1, prev,
                                     before(fifo_w[j + 1], e - st.latency))
                    up_out = take[j][e] + st.latency
                else:
                    take[j][e] = max(fifo_w[j][e] + 1, before(take[j], e - 1) + 1)
        # every term refers to an earlier element, or to an earlier component for the same
        # element, so one pass in element order, along the chain, has each term known
        return take[k][n - 1] + 1

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        """Port accesses, one ``"fifo"`` write+read per element per FIFO, and the stages'
        own actions summed."""
        n = self.contract.check_args(args)["n"]
        out = {"read:src": n, "write:dst": n, "fifo": n * len(self.fifo_depths),
               "mul": 0, "alu": 0}
        for st in self.stages:
            for name, count in st.actions(n).items():
                out[name] = out.get(name, 0) + count
        return out

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """``n`` words from each operand's base."""
        c = self.contract.check_args(args)
        return {"src": (c["src_addr"], c["src_addr"] + c["n"]),
                "dst": (c["dst_addr"], c["dst_addr"] + c["n"])}

    def golden_words(self, x: np.ndarray) -> np.ndarray:
        """The stages' goldens composed, on raw words."""
        y = np.asarray(x, dtype=np.int64) & ((1 << self.width) - 1)
        for st in self.stages:
            y = np.asarray(st.golden(y), dtype=np.int64) & ((1 << st.out_width) - 1)
        return y

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        """``dst[dst_addr:][:n] = stages(src[src_addr:][:n])``."""
        c = self.contract.check_args(args)
        n = c["n"]
        if n == 0:
            return
        x = buffers["src"][c["src_addr"]:c["src_addr"] + n]
        buffers["dst"][c["dst_addr"]:c["dst_addr"] + n] = self.golden_words(x)

    # -- the RTL view --------------------------------------------------------------------

    def elaborate(self, platform: object) -> Module:
        """Load, FIFO, stage, FIFO, ..., stage, FIFO, store."""
        m = Module()
        widths = [self.width] + [st.out_width for st in self.stages]
        fifos = [SyncFIFO(width=w, depth=d) for w, d in zip(widths, self.fifo_depths, strict=True)]
        for j, f in enumerate(fifos):
            m.submodules[f"fifo{j}"] = f
        for j, st in enumerate(self.stages):
            m.submodules[f"stage{j}"] = st
            wiring.connect(m, fifos[j].r_stream, st.i)
            wiring.connect(m, st.o, fifos[j + 1].w_stream)

        n = Signal(ARG_WIDTH)
        issued, stored = Signal(ARG_WIDTH), Signal(ARG_WIDTH)
        src_ptr, dst_ptr = Signal(self.addr_width), Signal(self.addr_width)
        busy, zero_done, finished = Signal(), Signal(), Signal()
        held = Signal()  # the load's output: the read port's data, held while not taken
        with m.If(self.start & ~self.busy):
            m.d.sync += [n.eq(self.arg_n), issued.eq(0), stored.eq(0),
                         src_ptr.eq(self.arg_src_addr), dst_ptr.eq(self.arg_dst_addr)]
            with m.If(self.arg_n == 0):
                m.d.sync += zero_done.eq(1)
            with m.Else():
                m.d.sync += busy.eq(1)
        with m.If(zero_done):
            m.d.sync += zero_done.eq(0)

        # load: read the next word when the held one is gone or being taken
        first = fifos[0]
        read = Signal()
        m.d.comb += [read.eq(busy & (issued != n) & (~held | first.w_rdy)),
                     self.src.en.eq(read), self.src.addr.eq(src_ptr),
                     first.w_en.eq(held), first.w_data.eq(self.src.data)]
        with m.If(read):
            m.d.sync += [held.eq(1), issued.eq(issued + 1), src_ptr.eq(src_ptr + 1)]
        with m.Elif(first.w_rdy):
            m.d.sync += held.eq(0)

        # store: always ready; done the cycle after the last write
        last = fifos[-1]
        m.d.comb += [last.r_en.eq(1), self.dst.en.eq(last.r_rdy),
                     self.dst.addr.eq(dst_ptr), self.dst.data.eq(last.r_data)]
        m.d.sync += finished.eq(last.r_rdy & (stored == n - 1))
        with m.If(last.r_rdy):
            m.d.sync += [stored.eq(stored + 1), dst_ptr.eq(dst_ptr + 1)]
        with m.If(finished):
            m.d.sync += busy.eq(0)
        m.d.comb += [self.done.eq(zero_done | finished), self.busy.eq(busy | zero_done)]
        return m
