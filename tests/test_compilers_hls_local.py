"""Local arrays read as zero until written in each run, in hardware as in the golden view."""

import numpy as np
from amaranth.sim import Simulator

from archsim.dsl import Array, Int, UInt, kernel


@kernel
def partial_sum(x: Array[Int(8), 8], n: UInt(4)) -> Int(16):
    buf = Array[Int(16), 8]()
    for i in range(n):
        buf[i] = x[i]
    s = Int(16)(0)
    for i in range(8):
        s += buf[i]
    return s


def test_local_array_is_zero_at_every_start():
    x = np.arange(1, 9) * 3
    runs = [8, 3, 0, 5]
    expected = [int(x[:n].sum()) for n in runs]
    assert [partial_sum(x, n) for n in runs] == expected  # golden: zeros every call
    d = partial_sum.synthesize()
    # one component, started four times: stale words of an earlier run must not leak
    dut = d.make_component({"x": d.ir.arrays["x"].elem.encode(x).tolist()})
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    got, cycles = [], []

    async def bench(ctx):
        for n in runs:
            ctx.set(dut.n, n)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            k = 1
            while not ctx.get(dut.done):
                await ctx.tick()
                k += 1
            got.append(ctx.get(dut.ret))
            cycles.append(k)
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    assert got == expected
    assert cycles == [d.cycles(x, n) for n in runs]  # clearing costs no cycles
