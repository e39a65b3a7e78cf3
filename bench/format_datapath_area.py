"""Synthesized area of the number-format datapaths against an INT8 MAC.

Runs Yosys (``archsim.hw.synth.synthesize``: generic ``synth`` priced with the NanGate45
cell-area table, and ``synth_ice40 -dsp``) on each datapath of :mod:`archsim.hw.formats` and
on the INT8 MAC PE, and prints one row per design: cells, flip-flops, estimated NanGate45
standard-cell area (µm², no wiring), the area relative to the INT8 MAC, the area per
element product or decoded element, and iCE40 LUT4 / DSP counts. Results are cached by a
hash of the Verilog, so a second run is fast.

Usage::

    python bench/format_datapath_area.py [--csv out.csv] [--quick]
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["AreaRow", "designs", "measure", "main"]


@dataclass(frozen=True)
class AreaRow:
    """One synthesized design."""

    design: str
    elements_per_cycle: int
    num_cells: int
    flip_flops: int
    area_um2: float
    area_vs_int8_mac: float
    area_per_element_um2: float
    ice40_luts: int | None  # None: the iCE40 flow failed (see the printed note)
    ice40_dsps: int | None
    synth_time_s: float
    cached: bool


def designs(quick: bool = False) -> list[tuple[str, int, object]]:
    """``(label, elements per cycle, component)`` for every design in the table."""
    from archsim.hw import MACPE
    from archsim.hw.formats import AdaptivFloatMAC, MXBlockDot, NxFPDecoder

    rows: list[tuple[str, int, object]] = [
        ("INT8 MAC (MACPE 8b, acc 32b)", 1, MACPE(input_width=8, acc_width=32)),
        ("AdaptivFloat MAC n=8 e=3", 1, AdaptivFloatMAC(n=8, e=3)),
    ]
    if not quick:
        rows += [
            ("AdaptivFloat MAC n=8 e=4", 1, AdaptivFloatMAC(n=8, e=4)),
            ("AdaptivFloat MAC n=6 e=3", 1, AdaptivFloatMAC(n=6, e=3)),
            ("AdaptivFloat MAC n=4 e=2", 1, AdaptivFloatMAC(n=4, e=2)),
        ]
    elements = ["fp4_e2m1", "int8"] if quick else ["fp8_e4m3", "fp8_e5m2", "fp6_e3m2",
                                                   "fp6_e2m3", "fp4_e2m1", "int8"]
    rows += [(f"MX block dot {e} x32", 32, MXBlockDot(element=e)) for e in elements]
    nxfp = [dict(bits=4)]
    if not quick:
        nxfp += [dict(bits=4, nano_mantissa_bits=2), dict(bits=4, adaptive_microexponent=True),
                 dict(bits=4, code_recycling=True)]
    nxfp += [dict(bits=4, nano_mantissa_bits=2, adaptive_microexponent=True,
                  code_recycling=True)]
    if not quick:
        nxfp += [dict(bits=8, nano_mantissa_bits=2, adaptive_microexponent=True,
                      code_recycling=True)]
    for kw in nxfp:
        dec = NxFPDecoder(**kw)
        rows.append((f"NxFP decoder {dec.format.name}", 1, dec))
    return rows


def measure(quick: bool = False,
            progress: bool = True) -> tuple[list[AreaRow], list[tuple[str, str]]]:
    """Synthesize every design (cached); return the rows (INT8 MAC first) and the designs
    Yosys failed on, with the gist of its error."""
    from archsim.errors import ToolchainError
    from archsim.hw.synth import synthesize

    out: list[AreaRow] = []
    failed: list[tuple[str, str]] = []
    base_area = None
    for label, per_cycle, component in designs(quick):
        if progress:
            print(f"  synthesizing {label} ...", flush=True)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an unpriced cell type would understate the area
            try:
                report = synthesize(component, name="top")
            except ToolchainError as exc:
                if base_area is None:
                    raise  # no INT8 MAC baseline: nothing to compare against
                lines = str(exc).splitlines()
                cause = [ln.strip() for ln in lines if "ERROR" in ln or "trap" in ln]
                failed.append((label, " / ".join([lines[0], *cause[:1]])))
                # The iCE40 flow (abc9) can crash where the generic one works: keep the ASIC
                # figures and leave the FPGA columns empty.
                try:
                    report = synthesize(component, name="top", fpga=False)
                except ToolchainError:
                    continue
        elapsed = time.perf_counter() - start
        if base_area is None:
            base_area = report.area_um2
        out.append(AreaRow(
            design=label,
            elements_per_cycle=per_cycle,
            num_cells=report.num_cells,
            flip_flops=report.flip_flops,
            area_um2=report.area_um2,
            area_vs_int8_mac=report.area_um2 / base_area,
            area_per_element_um2=report.area_um2 / per_cycle,
            ice40_luts=report.fpga.luts if report.fpga else None,
            ice40_dsps=report.fpga.dsps if report.fpga else None,
            synth_time_s=report.synth_time_s if report.cached else elapsed,
            cached=report.cached,
        ))
    return out, failed


def print_table(rows: list[AreaRow]) -> None:
    from rich.console import Console
    from rich.table import Table

    def dash(value: int | None) -> str:
        return "-" if value is None else str(value)

    table = Table(title="Format datapaths: Yosys synthesis, NanGate45 cell area and iCE40")
    for col in ("design", "elem/cycle", "cells", "FFs", "area µm²", "x INT8 MAC",
                "µm²/elem", "iCE40 LUT", "DSP"):
        table.add_column(col, justify="left" if col == "design" else "right")
    for r in rows:
        table.add_row(r.design, str(r.elements_per_cycle), str(r.num_cells), str(r.flip_flops),
                      f"{r.area_um2:,.0f}", f"{r.area_vs_int8_mac:.2f}",
                      f"{r.area_per_element_um2:,.0f}", dash(r.ice40_luts), dash(r.ice40_dsps))
    Console(width=140).print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, help="also write the rows to this CSV file")
    parser.add_argument("--quick", action="store_true", help="a few designs only")
    args = parser.parse_args(argv)
    rows, failed = measure(quick=args.quick)
    print_table(rows)
    shown = {r.design for r in rows}
    for label, error in failed:
        if label in shown:
            print(f"iCE40 flow failed for {label} ({error}); ASIC figures from the generic "
                  "flow")
        else:
            print(f"not synthesized: {label} ({error})")
    if args.csv:
        from archsim.outputs import write_csv

        write_csv(args.csv, [asdict(r) for r in rows])
        print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
