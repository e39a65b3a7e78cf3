"""AutoPilot's accelerator space priced on a DroNet-like navigation CNN.

Prices a grid of :class:`archsim.sim.codesign.AcceleratorPoint` (rows = cols in {4, 8, 16},
two buffer sizes) with :func:`archsim.sim.codesign.price_point` on a DroNet-like policy built
here with the graph builders of :mod:`archsim.compilers.graph.cnn` (a 1 x 32 x 32 int8
image, four 3x3 convolutions of 16/32/32/64 filters, the last three with stride 2, ReLUs and
a 2-way FC head; DroNet's layer widths are not copied, the shape is "DroNet-like": assumed).
Prints per point the tile, cycles, latency, chip energy and power, logic and memory area and
the assumed board overhead, and the synthesis wall time per array size (a cold Yosys run,
or the cache's answer when the design was synthesized before).

Usage::

    python bench/autopilot_accelerators.py [--csv out.csv] [--sizes 4 8 16] [--no-synth]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from archsim.compilers.graph import TensorSpec, WorkloadGraph
from archsim.compilers.graph.cnn import NetBuilder

__all__ = ["dronet_like", "main"]


def dronet_like() -> WorkloadGraph:
    """The DroNet-like policy graph (module docstring)."""
    g = WorkloadGraph("dronet-like-32")
    nb = NetBuilder(g, TensorSpec("image", (1, 1, 32, 32), "int8"))
    for i, channels in enumerate((16, 32, 32, 64)):
        nb.conv(f"conv{i}", channels, 3, stride=1 if i == 0 else 2, padding=1)
        nb.act(f"conv{i}.relu")
    nb.flatten("flatten")
    nb.fc("fc", 2)
    return g


def main(argv: list[str] | None = None) -> int:
    """Price the grid and print the table (and write it as CSV with ``--csv``)."""
    from archsim.outputs import write_csv
    from archsim.sim.codesign import ASSUMPTIONS, AcceleratorPoint, logic_area_mm2, price_point

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16])
    parser.add_argument("--kib", type=int, nargs="+", default=[8, 32],
                        help="buffer sizes (KiB, each of act, wgt, acc)")
    parser.add_argument("--csv", type=Path)
    parser.add_argument("--no-synth", action="store_true", help="skip Yosys (area 0)")
    args = parser.parse_args(argv)
    graph = dronet_like()
    synth_s: dict[int, float] = {}
    if not args.no_synth:
        for size in args.sizes:
            t0 = time.perf_counter()
            logic_area_mm2(size, size)
            synth_s[size] = time.perf_counter() - t0
    rows = []
    print(f"{'point':<18} {'tile':>9} {'tile_cyc':>8} {'cycles':>8} {'lat_us':>8} "
          f"{'E_uJ':>7} {'P_mW':>7} {'DRAM_uJ':>8} {'logic':>7} {'mem':>7} {'board_g':>7}")
    for size in args.sizes:
        for kib in args.kib:
            point = AcceleratorPoint(rows=size, cols=size, act_kib=kib, wgt_kib=kib,
                                     acc_kib=kib)
            price = price_point(point, graph, synthesize=not args.no_synth)
            rows.append(price.row())
            print(f"{point.label:<18} {'x'.join(map(str, price.tile)):>9} "
                  f"{price.tile_cycles:>8} {price.compute_cycles:>8} "
                  f"{price.latency_s * 1e6:>8.1f} {price.energy_j * 1e6:>7.3f} "
                  f"{price.average_power_w * 1e3:>7.3f} {price.dram_energy_j * 1e6:>8.2f} "
                  f"{price.logic_area_mm2:>7.4f} {price.memory_area_mm2:>7.4f} "
                  f"{price.board.mass_kg * 1e3:>7.2f}")
    print("(areas mm^2, NanGate45; energy/power: the chip's, DRAM apart; board: assumed)")
    for size, seconds in synth_s.items():
        print(f"synthesis {size}x{size}: {seconds:.1f} s wall")
    print("assumptions:")
    for text in ASSUMPTIONS:
        print(f"  - {text}")
    if args.csv is not None:
        write_csv(args.csv, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
