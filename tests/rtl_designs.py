"""Tiny Amaranth designs with closed-form behaviour, shared by the RTL-flow tests."""

from amaranth import Module, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Counter", "SignedAdder", "Accumulator", "WideXor", "Nested", "Combo",
           "simulate_in_subprocess"]


class Counter(wiring.Component):
    """A registered counter: ``count`` is ``init`` plus the cycles with ``en`` high, mod 2**width."""

    def __init__(self, *, width: int = 8, init: int = 0) -> None:
        if not isinstance(width, int) or width < 1:
            raise ValueError(f"Width must be a positive int, not {width!r}")
        self.width = width
        super().__init__({"en": In(1), "count": Out(width, init=init)})

    def elaborate(self, platform):
        m = Module()
        with m.If(self.en):
            m.d.sync += self.count.eq(self.count + 1)
        return m


class SignedAdder(wiring.Component):
    """Combinational: ``sum = a + b`` with signed 8-bit operands and a 9-bit signed result."""

    a: In(signed(8))
    b: In(signed(8))
    sum: Out(signed(9))

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.sum.eq(self.a + self.b)
        return m


class Accumulator(wiring.Component):
    """``acc`` accumulates signed ``x`` when ``en`` is high; ``clear`` zeroes it (registered)."""

    x: In(signed(8))
    en: In(1)
    clear: In(1)
    acc: Out(signed(16))

    def elaborate(self, platform):
        m = Module()
        with m.If(self.clear):
            m.d.sync += self.acc.eq(0)
        with m.Elif(self.en):
            m.d.sync += self.acc.eq(self.acc + self.x)
        return m


class WideXor(wiring.Component):
    """A 100-bit register: ``q`` is last cycle's ``a ^ b``; ``s`` is the signed 70-bit ``-a``."""

    a: In(100)
    b: In(100)
    q: Out(100)
    s: Out(signed(70))

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.q.eq(self.a ^ self.b)
        m.d.comb += self.s.eq(-self.a[:69])
        return m


#: The nested signature of :class:`Nested`'s ports.
NIBBLE = wiring.Signature({"data": Out(unsigned(4)), "valid": Out(1)})


class Nested(wiring.Component):
    """Nested members: ``out.data`` registers ``inp.data + 1``; ports ``inp__data``..."""

    def __init__(self) -> None:
        super().__init__({"inp": In(NIBBLE), "out": Out(NIBBLE)})

    def elaborate(self, platform):
        m = Module()
        m.d.sync += [self.out.data.eq(self.inp.data + 1), self.out.valid.eq(self.inp.valid)]
        return m


class Combo(wiring.Component):
    """All of the above side by side, so one Verilator build covers them all.

    Ports: ``en``/``count`` (:class:`Counter`, init 3), ``a``/``b``/``sum``
    (:class:`SignedAdder`), ``x``/``acc_en``/``clear``/``acc`` (:class:`Accumulator`),
    ``wa``/``wb``/``wq``/``ws`` (:class:`WideXor`), ``inp__*``/``out__*`` (:class:`Nested`).
    """

    def __init__(self) -> None:
        super().__init__({
            "en": In(1), "count": Out(8, init=3),
            "a": In(signed(8)), "b": In(signed(8)), "sum": Out(signed(9)),
            "x": In(signed(8)), "acc_en": In(1), "clear": In(1), "acc": Out(signed(16)),
            "wa": In(100), "wb": In(100), "wq": Out(100), "ws": Out(signed(70)),
            "inp": In(NIBBLE), "out": Out(NIBBLE),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.counter = counter = Counter(init=3)
        m.submodules.adder = adder = SignedAdder()
        m.submodules.accumulator = accumulator = Accumulator()
        m.submodules.wide = wide = WideXor()
        m.submodules.nested = nested = Nested()
        m.d.comb += [
            counter.en.eq(self.en), self.count.eq(counter.count),
            adder.a.eq(self.a), adder.b.eq(self.b), self.sum.eq(adder.sum),
            accumulator.x.eq(self.x), accumulator.en.eq(self.acc_en),
            accumulator.clear.eq(self.clear), self.acc.eq(accumulator.acc),
            wide.a.eq(self.wa), wide.b.eq(self.wb), self.wq.eq(wide.q), self.ws.eq(wide.s),
        ]
        wiring.connect(m, wiring.flipped(self.inp), nested.inp)
        wiring.connect(m, nested.out, wiring.flipped(self.out))
        return m


def simulate_in_subprocess(cache: str) -> tuple[list[int], bool]:
    """Simulate a 5-bit :class:`Counter` in Verilator with ``ARCHSIM_CACHE=cache``.

    Run by the cache-concurrency test in separate processes (so it lives in an importable
    module); returns the recorded counts and whether the build came from the cache.
    """
    import os

    os.environ["ARCHSIM_CACHE"] = cache
    from archsim.sim.rtl import simulate

    result = simulate(Counter(width=5), {"en": [1] * 40}, backend="cocotb")
    return result.outputs["count"].tolist(), result.build_cached
