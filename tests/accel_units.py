"""Small units with the accelerator unit contract, for tests of the accelerator level."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from amaranth.hdl import Module, Signal

from archsim.hw.accel.interface import Operand, Unit, UnitContract

__all__ = ["AddConst"]


class AddConst(Unit):
    """``dst[i] = (src[i] + c) mod 2**width`` for ``i < n``: one element per cycle.

    Cycles: ``n + 2`` (the issue cycle of the last read, its write, and done).
    """

    def __init__(self, *, addr_width: int, width: int = 16) -> None:
        self.width = width
        self.contract = UnitContract(kind="add_const", args=("n", "c"),
                                     operands=(Operand("src", "read", width),
                                               Operand("dst", "write", width)))
        super().__init__(self.contract.members({"src": addr_width, "dst": addr_width}))

    def cycles(self, args: Mapping[str, int]) -> int:
        return args["n"] + 2

    def actions(self, args: Mapping[str, int]) -> dict[str, int]:
        return {"add": args["n"], "read:src": args["n"], "write:dst": args["n"]}

    def footprint(self, args: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        return {"src": (args["src_addr"], args["src_addr"] + args["n"]),
                "dst": (args["dst_addr"], args["dst_addr"] + args["n"])}

    def golden(self, buffers: Mapping[str, np.ndarray], args: Mapping[str, int]) -> None:
        n, s, d = args["n"], args["src_addr"], args["dst_addr"]
        buffers["dst"][d:d + n] = (buffers["src"][s:s + n] + args["c"]) % (1 << self.width)

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        i, n, s, d, c = (Signal(16) for _ in range(5))
        valid, waddr = Signal(), Signal(16)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [i.eq(0), n.eq(self.arg_n), s.eq(self.arg_src_addr),
                                 d.eq(self.arg_dst_addr), c.eq(self.arg_c)]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [self.busy.eq(1), self.src.addr.eq(s + i), self.src.en.eq(i < n)]
                m.d.sync += [valid.eq(i < n), waddr.eq(d + i), i.eq(i + 1)]
                with m.If(i == n):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += [self.busy.eq(1), self.done.eq(1)]
                m.next = "IDLE"
        m.d.comb += [self.dst.addr.eq(waddr), self.dst.data.eq(self.src.data + c),
                     self.dst.en.eq(valid & self.busy)]
        return m
