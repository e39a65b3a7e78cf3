"""``archsim rtl ...`` (Verilog, area, simulation of a component) and ``archsim demo``.

A design is named ``MODULE:OBJECT``: ``OBJECT`` is a :class:`~amaranth.lib.wiring.Component`
subclass or a factory returning one, called with the ``--param k=v`` keyword arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...errors import ConfigError
from ...hw.synth import available_nodes
from ...loading import load_object
from ..rtl import BACKENDS
from .common import choice_parser, choices

if TYPE_CHECKING:  # members of these StrEnums are str (see .common)
    from amaranth.lib import wiring

    Backend = str
    TechNode = str
else:
    Backend = choices("Backend", BACKENDS)
    TechNode = choices("TechNode", available_nodes())

__all__ = ["register", "load_component", "parse_params", "parse_value", "ParamValue", "run_demo"]

_PARAM_HELP = "Constructor argument k=v (int, float, true/false or text); repeatable."

#: What a ``--param`` value parses to.
ParamValue = bool | int | float | str | None


def parse_value(text: str) -> ParamValue:
    """Parse a ``--param`` value: int (also 0x.., 0b..), float, true/false/none, else text."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for parse in (lambda t: int(t, 0), float):
        try:
            value: int | float = parse(text.strip())
        except ValueError:
            continue
        return value
    return text


def parse_params(params: list[str] | None) -> dict[str, ParamValue]:
    """Turn ``["rows=4", "signed=false"]`` into keyword arguments; a bad item is a ConfigError."""
    result: dict[str, ParamValue] = {}
    for item in params or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ConfigError(f"parameter {item!r} is not of the form name=value",
                              field="--param")
        result[key] = parse_value(value)
    return result


def load_component(target: str, params: Mapping[str, object] | None = None) -> wiring.Component:
    """Import ``MODULE:OBJECT`` and build the component with ``params``.

    Raises :class:`ConfigError` naming the module, object or parameter that is wrong.
    """
    from amaranth.lib import wiring

    module_name, sep, object_path = target.partition(":")
    if not sep or not module_name or not object_path:
        raise ConfigError(f"design {target!r} is not of the form MODULE:OBJECT "
                          "(e.g. archsim.hw.systolic:SystolicArray)", field="design")
    obj = load_object(target, field="design", what="design")
    params = dict(params or {})
    if isinstance(obj, wiring.Component):
        if params:
            raise ConfigError(f"{target} is a component instance; it takes no --param",
                              field="--param")
        return obj
    if not callable(obj):
        raise ConfigError(f"{target} is neither a Component class nor a factory", field="design")
    try:
        component = obj(**params)
    except (TypeError, ValueError) as exc:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "no parameters"
        raise ConfigError(f"{target} rejected {given}: {exc}", field="--param") from None
    if not isinstance(component, wiring.Component):
        raise ConfigError(f"{target} returned {type(component).__name__}, "
                          "not an amaranth.lib.wiring.Component", field="design")
    return component


def _module_name(target: str, name: str | None) -> str:
    if name is not None:
        return name
    base = target.partition(":")[2].split(".")[-1]
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base) or "top"


def _load_vectors(path: Path) -> dict[str, Any]:
    """Read input vectors: a JSON object of port -> list, or an .npz of 1-D arrays."""
    import json

    import numpy as np

    from ...loading import read_text_file

    if path.is_dir():
        raise ConfigError("input vectors: is a directory", file=str(path))
    if not path.is_file():
        raise ConfigError("input vectors file not found", file=str(path))
    if path.suffix == ".json":
        text = read_text_file(path, what="input vectors")  # not UTF-8: names the byte
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"not valid JSON: {exc}", file=str(path)) from None
        if not isinstance(data, dict):
            raise ConfigError("must hold an object mapping port names to value lists",
                              file=str(path))
        return data
    if path.suffix == ".npz":
        with np.load(path) as data:
            return {key: data[key] for key in data.files}
    raise ConfigError("unsupported input vectors format", file=str(path),
                      allowed=[".json", ".npz"])


_DESIGN_HELP = "MODULE:OBJECT, e.g. archsim.hw.systolic:SystolicArray."
Design = Annotated[str, typer.Argument(help=_DESIGN_HELP)]
Params = Annotated[list[str] | None, typer.Option("--param", "-p", help=_PARAM_HELP)]
ModuleName = Annotated[str | None, typer.Option(
    "--name", help="Verilog module name (default: OBJECT).")]


def register(app: typer.Typer) -> None:
    """Add the ``rtl`` command group and the ``demo`` command to ``app``."""
    rtl = typer.Typer(name="rtl", help="RTL of components: Verilog, area estimates, simulation.",
                      no_args_is_help=True)
    app.add_typer(rtl, name="rtl")

    @rtl.command("verilog")
    def verilog(
        design: Design,
        param: Params = None,
        output: Annotated[str, typer.Option(
            "--output", "-o", help="Verilog file; '-' for stdout.")] = "-",
        name: ModuleName = None,
    ) -> None:
        """Write the Verilog of a component (reproducible: Amaranth's builtin Yosys)."""
        from ...hw.verilog import to_verilog
        from ...outputs import atomic_write_text, check_output_file

        if output != "-":
            check_output_file(output, field="--output")
        component = load_component(design, parse_params(param))
        text = to_verilog(component, name=_module_name(design, name))
        if output == "-":
            typer.echo(text, nl=False)
        else:
            atomic_write_text(output, text)
            typer.echo(f"wrote {output}", err=True)

    @rtl.command("area")
    def area(
        design: Design,
        param: Params = None,
        node: Annotated[TechNode, typer.Option(
            help="Technology node of the cell area table.",
            parser=choice_parser(TechNode, option="--node", what="technology node"),
        )] = "nangate45",
        fpga: Annotated[bool, typer.Option(
            "--fpga/--no-fpga", help="Also map to an iCE40 FPGA.")] = True,
        name: ModuleName = None,
    ) -> None:
        """Synthesize a component with Yosys: cells, flip-flops, ASIC area and FPGA resources."""
        from rich.console import Console

        from ...hw.synth import synthesize

        component = load_component(design, parse_params(param))
        report = synthesize(component, name=_module_name(design, name), node=node, fpga=fpga)
        Console().print(_area_table(report, title=f"{design} {' '.join(param or [])}".strip()))

    @rtl.command("sim")
    def sim(
        design: Design,
        inputs: Annotated[Path, typer.Option(
            "--inputs", "-i", help="Input vectors: .json {port: list of ints} or .npz arrays.")],
        param: Params = None,
        backend: Annotated[Backend, typer.Option(
            help="Simulation backend.",
            parser=choice_parser(Backend, option="--backend", what="simulation backend"),
        )] = "pysim",
        cycles: Annotated[int | None, typer.Option(
            help="Cycles (default: length of the vectors).")] = None,
        output: Annotated[Path | None, typer.Option(
            "--output", "-o", help="Write the recorded outputs as JSON (or .csv).")] = None,
        vcd: Annotated[Path | None, typer.Option(
            "--vcd", help="Waveform file (.vcd; .fst for verilator).")] = None,
        name: ModuleName = None,
    ) -> None:
        """Simulate a component on input vectors and report the recorded outputs."""
        from rich.console import Console
        from rich.table import Table

        from ...outputs import check_output_file, write_csv, write_json
        from ..rtl import simulate

        if output is not None:
            check_output_file(output, field="--output")
        if vcd is not None:
            check_output_file(vcd, field="--vcd")
        vectors = _load_vectors(inputs)
        component = load_component(design, parse_params(param))
        result = simulate(component, vectors, cycles=cycles, backend=backend, waveform=vcd,
                          name=_module_name(design, name))
        console = Console()
        if output is not None:
            if output.suffix == ".csv":
                rows = [{"cycle": k, **{p: v[k] for p, v in result.outputs.items()}}
                        for k in range(result.cycles)]
                write_csv(output, rows)
            else:
                write_json(output, {"summary": result.summary(), "outputs": result.outputs})
            console.print(f"wrote {output}")
        else:
            table = Table(title="outputs per cycle")
            table.add_column("cycle", justify="right")
            for port in result.outputs:
                table.add_column(port, justify="right")
            for k in range(min(result.cycles, 64)):
                table.add_row(str(k), *(str(v[k]) for v in result.outputs.values()))
            console.print(table)
            if result.cycles > 64:
                console.print(f"... {result.cycles - 64} more cycles (use -o to write all)")
        console.print(_summary_line(result.summary()))

    @app.command("demo")
    def demo(
        size: Annotated[int, typer.Option(help="Systolic array rows and columns.")] = 8,
        seed: Annotated[int, typer.Option(help="Seed of the random int8 matrices.")] = 0,
        area: Annotated[bool, typer.Option(
            "--area/--no-area", help="Also synthesize the array for its area (Yosys).")] = True,
    ) -> None:
        """Generate a systolic array, run a matmul in Verilator, check it, show speed and area."""
        run_demo(size=size, seed=seed, area=area)


def _summary_line(summary: dict[str, Any]) -> str:
    cached = " (cached)" if summary["build_cached"] else ""
    return (f"{summary['backend']}: {summary['cycles']} cycles in {summary['wall_time_s']:.3f} s "
            f"= {summary['cycles_per_s']:,.0f} cycles/s; build {summary['build_time_s']:.1f} s"
            f"{cached}")


def _area_table(report: Any, *, title: str):
    from rich.table import Table

    table = Table(title=title or report.name)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("cells", f"{report.num_cells:,}")
    table.add_row("flip-flops", f"{report.flip_flops:,}")
    table.add_row(f"ASIC area ({report.node})", f"{report.area_um2:,.1f} µm²")
    if report.fpga is not None:
        table.add_row("iCE40 LUT4", f"{report.fpga.luts:,}")
        table.add_row("iCE40 DSP (SB_MAC16)", f"{report.fpga.dsps:,}")
        table.add_row("iCE40 flip-flops", f"{report.fpga.flip_flops:,}")
    top = sorted(report.cells_by_type.items(), key=lambda item: -item[1])[:8]
    table.add_row("top cell types", ", ".join(f"{cell} {count}" for cell, count in top))
    if report.cached:
        table.caption = "from the synthesis cache"
    return table


def run_demo(*, size: int = 8, seed: int = 0, area: bool = True) -> dict[str, Any]:
    """The ``archsim demo`` flow; returns the figures it printed (for tests)."""
    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from ...errors import RunFailedError

    if size < 1:
        raise ConfigError(f"size must be at least 1, not {size}", field="--size")
    console = Console()
    rng = np.random.default_rng(seed)
    m, k, n = 2 * size, 32 * size, 2 * size  # larger than the array: 4 folds
    a = rng.integers(-128, 128, (m, k), dtype=np.int64)
    b = rng.integers(-128, 128, (k, n), dtype=np.int64)
    console.print(f"[bold]archsim demo[/bold]: {size}x{size} int8 output-stationary systolic "
                  f"array, A[{m}x{k}] @ B[{k}x{n}] in Verilator")
    from ..rtl.matmul import run_matmul

    with console.status("building (first run compiles C++, later runs use the cache) "
                        "and simulating in Verilator..."):
        run = run_matmul(a, b, rows=size, cols=size, dataflow="os", backend="verilator")
    reference = a @ b
    if not np.array_equal(run.product, reference):
        bad = np.argwhere(run.product != reference)[0]
        raise RunFailedError("systolic array product differs from numpy",
                              signal=f"C[{bad[0]}][{bad[1]}]", expected=int(reference[tuple(bad)]),
                              actual=int(run.product[tuple(bad)]))
    console.print(f"[green]product matches numpy[/green] ({m * n} int32 results)")
    figures: dict[str, Any] = {
        "folds": run.folds,
        "cycles": run.cycles,
        "predicted_cycles": run.predicted_cycles,
        "simulated_cycles": run.simulated_cycles,
        "cycles_per_s": run.cycles_per_s,
        "wall_time_s": run.wall_time_s,
        "build_time_s": run.build_time_s,
        "build_cached": run.build_cached,
    }
    table = Table(title="systolic array matmul (Verilator)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("folds", str(run.folds))
    table.add_row("cycles measured", f"{run.cycles:,}")
    table.add_row("cycles predicted (fold formula)", f"{run.predicted_cycles:,}")
    table.add_row("simulation speed", f"{run.cycles_per_s:,.0f} cycles/s")
    table.add_row("Verilator build", "cached" if run.build_cached else f"{run.build_time_s:.1f} s")
    if area:
        from ...hw.synth import synthesize
        from ...hw.systolic import SystolicArray

        array = SystolicArray(rows=size, cols=size, dataflow="os")
        report = synthesize(array, name=f"systolic_os_{size}x{size}", node="nangate45",
                            fpga=False)
        table.add_row(f"area ({report.node})", f"{report.area_um2 / 1e6:.4f} mm²")
        table.add_row("cells / flip-flops", f"{report.num_cells:,} / {report.flip_flops:,}")
        figures["area_um2"] = report.area_um2
    console.print(table)
    if run.cycles != run.predicted_cycles:
        console.print(f"[yellow]measured cycles differ from the fold formula by "
                      f"{run.cycles - run.predicted_cycles}[/yellow]")
    return figures
