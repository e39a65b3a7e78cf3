"""Delay, area and energy of the HLS compiler's operators, per operator kind and width.

Sources (45 nm, the node the rest of archsim's cost tables use):

* Energy and area: M. Horowitz, "Computing's energy problem (and what we can do about it)",
  ISSCC 2014, table for 45 nm: 8-bit add 0.03 pJ / 36 um^2, 32-bit add 0.1 pJ / 137 um^2,
  8-bit multiply 0.2 pJ / 282 um^2, 32-bit multiply 3.1 pJ / 3495 um^2; 64-bit SRAM read from
  an 8 KB array 10 pJ. Other widths interpolate through the two published points (adders
  linearly, multipliers by the power law through both points); logic and comparison scale
  from the adder.
* Delay: first-order logical-effort estimates in FO4 inverter delays — a parallel-prefix
  adder ``2*log2(w) + 4`` FO4, a Wallace-tree multiplier with a prefix final adder
  ``4*log2(w) + 2*log2(2w) + 8`` FO4, a 2:1 mux 2 FO4, a barrel shifter ``2*log2(w)`` FO4 —
  with FO4 = 360 ps/um x 45 nm = 16.2 ps (the Ho-Mai-Horowitz rule of thumb, "The future of
  wires", Proc. IEEE 2001). Register clock-to-q plus setup: 5 FO4; SRAM clock-to-data: 20 FO4.
* Division (``div``, ``mod``): a radix-2 restoring divider, one quotient bit per cycle
  (one subtract and a select per step) with its operand, quotient and remainder registers;
  it cannot be pipelined (an iterative unit, busy for its whole latency).
* A number format's decode ROM (``decode``, ``w``-bit codes): a ``w``-level 2:1 mux tree,
  ``2*w`` FO4, with ``2**w - 1`` muxes per output bit (about ``2*w`` output bits) -- an upper
  bound: synthesis reduces the table to a small shifter-like decoder.

These are estimates for scheduling and pre-RTL reports; synthesis (:mod:`archsim.hw.synth`)
gives the netlist's cell area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["OpCost", "op_cost", "FO4_NS", "REG_OVERHEAD_NS", "MEM_TCO_NS", "REG_TCO_NS",
           "sram_read_energy_j", "sram_write_energy_j", "register_area_um2"]

#: One FO4 inverter delay at 45 nm, in ns.
FO4_NS = 0.36 * 0.045
#: Register clock-to-q plus setup, in ns.
REG_OVERHEAD_NS = 5 * FO4_NS
#: Register clock-to-q (part of the overhead seen at the start of a cycle), in ns.
REG_TCO_NS = 3 * FO4_NS
#: SRAM clock-to-data of a synchronous read port, in ns.
MEM_TCO_NS = 20 * FO4_NS


@dataclass(frozen=True)
class OpCost:
    """Cost of one operator instance: combinational delay, area, energy per operation."""

    delay_ns: float
    area_um2: float
    energy_j: float
    #: True when the operator can be split into register stages (one issue per cycle) if its
    #: delay exceeds the clock period; False for an iterative unit busy for its whole latency
    pipelinable: bool = True


def _add_area(w: int) -> float:
    return 36.0 + (w - 8) * (137.0 - 36.0) / 24.0


def _add_energy_pj(w: int) -> float:
    return 0.03 + (w - 8) * (0.1 - 0.03) / 24.0


_MUL_AREA_EXP = math.log(3495.0 / 282.0) / math.log(4.0)
_MUL_ENERGY_EXP = math.log(3.1 / 0.2) / math.log(4.0)


def op_cost(kind: str, width: int) -> OpCost:
    """Cost of operator ``kind`` on operands of ``width`` bits.

    ``kind`` is an IR node kind (``add``, ``mul``, ``lt``, ...). Wiring-only operators (casts,
    shifts by constants) cost nothing.
    """
    w = max(1, int(width))
    lg = math.log2(max(w, 2))
    if kind in ("add", "sub", "neg", "abs", "lt", "le", "gt", "ge", "min", "max"):
        delay = (2 * lg + 4) * FO4_NS
        if kind in ("min", "max", "abs"):
            delay += 2 * FO4_NS  # the select after the compare
        return OpCost(delay, max(_add_area(w), 4.0), max(_add_energy_pj(w), 0.004) * 1e-12)
    if kind in ("eq", "ne"):
        return OpCost((lg + 2) * FO4_NS, 0.5 * max(_add_area(w), 4.0),
                      0.5 * max(_add_energy_pj(w), 0.004) * 1e-12)
    if kind == "mul":
        delay = (4 * lg + 2 * math.log2(2 * w) + 8) * FO4_NS
        area = 282.0 * (w / 8.0) ** _MUL_AREA_EXP
        energy = 0.2 * (w / 8.0) ** _MUL_ENERGY_EXP
        return OpCost(delay, area, energy * 1e-12)
    if kind in ("and", "or", "xor", "not", "land", "lor", "lnot"):
        return OpCost(1 * FO4_NS, 0.1 * _add_area(max(w, 8)) * w / 8,
                      0.1 * _add_energy_pj(max(w, 8)) * 1e-12)
    if kind == "select":
        return OpCost(2 * FO4_NS, 0.25 * _add_area(max(w, 8)) * w / 8,
                      0.1 * _add_energy_pj(max(w, 8)) * 1e-12)
    if kind in ("shl", "shr"):  # variable amount: barrel shifter (constant: wiring, see below)
        return OpCost(2 * lg * FO4_NS, 0.5 * _add_area(w) * lg / 4,
                      0.5 * _add_energy_pj(w) * 1e-12)
    if kind in ("div", "mod"):
        # radix-2 restoring divider: w steps of a (w+1)-bit subtract and a 2:1 mux, through a
        # w-bit dividend/quotient shift register and a (w+1)-bit remainder register
        add = op_cost("add", w + 1)
        return OpCost(w * (add.delay_ns + 2 * FO4_NS),
                      add.area_um2 * 2 + register_area_um2(3 * w + 1),
                      w * add.energy_j, pipelinable=False)
    if kind == "decode":  # a 2**w-entry ROM: a w-level tree of 2:1 muxes
        rom_area = (2**w - 1) * 0.25 * _add_area(8) / 8 * 2 * w  # ~2w output bits per mux
        return OpCost(2 * w * FO4_NS, rom_area, w * 0.1 * _add_energy_pj(8) * 1e-12)
    if kind in ("cast", "const", "arg", "var", "ivar", "setvar", "load", "store"):
        return OpCost(0.0, 0.0, 0.0)
    raise KeyError(f"no cost for operator kind {kind!r}")


def register_area_um2(bits: int) -> float:
    """Area of a ``bits``-wide register (a DFF ~ 4.5 um^2 at 45 nm, NanGate45 DFF_X1)."""
    return 4.522 * bits


def sram_read_energy_j(bits: int, depth: int) -> float:
    """Energy of one read: 10 pJ per 64 bits from 8 KB, scaled by sqrt(array size)."""
    size_bytes = max(bits * depth / 8.0, 64.0)
    return 10e-12 * (bits / 64.0) * math.sqrt(size_bytes / 8192.0)


def sram_write_energy_j(bits: int, depth: int) -> float:
    """Energy of one write: taken equal to a read (Horowitz gives reads only)."""
    return sram_read_energy_j(bits, depth)
