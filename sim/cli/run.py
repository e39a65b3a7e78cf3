"""``archsim run CONFIG.toml --workload NAME``: simulate one inference on an SoC description."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ...compilers.graph import WORKLOADS
from ...fields import MAX_UNITS
from ..soc.config import HOST_MEMORY_POLICIES
from .common import choice_parser, choices, progress_bar

__all__ = ["register", "MAX_BATCH"]

#: The largest ``--batch``: 2**24 inputs of one inference already hold terabytes of
#: activations for the smallest CNN; a larger number is a typo that would run without bound.
MAX_BATCH = 2**24


if TYPE_CHECKING:  # members of these StrEnums are str (see .common)
    Workload = str
    HostMemoryPolicy = str
else:
    Workload = choices("Workload", WORKLOADS)
    HostMemoryPolicy = choices("HostMemoryPolicy", HOST_MEMORY_POLICIES)


def register(app: typer.Typer) -> None:
    """Add the ``run`` command to ``app``."""

    @app.command("run")
    def run(
        config: Annotated[Path, typer.Argument(
            help="SoC description (TOML), e.g. soc_configs/smaug_baseline.toml.")],
        workload: Annotated[Workload, typer.Option(
            "--workload", "-w", help="Workload from the graph registry.",
            parser=choice_parser(Workload, option="--workload", what="workload"),
        )] = "resnet50",
        batch: Annotated[int | None, typer.Option(
            "--batch", "-b", min=1, max=MAX_BATCH,
            help="Batch size (workload default if omitted; at most 2**24).")] = None,
        out: Annotated[Path | None, typer.Option(
            "--out", "-o", help="Output folder (default archsim-out/run-<workload>).")] = None,
        accelerators: Annotated[int | None, typer.Option(
            "--accelerators", "-a", min=1, max=MAX_UNITS,
            help="Override every accelerator's count (at most 2**20).")] = None,
        policy: Annotated[HostMemoryPolicy | None, typer.Option(
            "--policy", help="Override the host-memory policy of every tensor class.",
            parser=choice_parser(HostMemoryPolicy, option="--policy",
                                 what="host-memory policy"),
        )] = None,
        threads: Annotated[int | None, typer.Option(
            "--threads", min=1, max=MAX_UNITS,
            help="Override the data-preparation threads (at most 2**20).")] = None,
        location: Annotated[str, typer.Option(
            "--location", help="Grid location (or energy source) of the operational carbon "
                               "intensity.")] = "world",
        plots: Annotated[bool, typer.Option(
            help="Write the Gantt and breakdown PNGs.")] = True,
        progress: Annotated[bool | None, typer.Option(
            help="Progress bar (default: when stderr is a terminal).")] = None,
    ) -> None:
        """Simulate one inference of WORKLOAD on the SoC in CONFIG; print the latency breakdown
        and write JSON/CSV/PNG results."""
        import sys

        from rich.console import Console
        from rich.table import Table

        from ...compilers.graph import build_workload
        from ...errors import ConfigError
        from ...outputs import FigureRenderer, atomic_dir, check_output_dir
        from ..soc import load_soc_config, simulate
        from ..soc.carbon import add_carbon

        console = Console()
        out_dir = check_output_dir(
            out if out is not None else Path("archsim-out") / f"run-{workload}", field="--out")
        # the renderer's worker imports matplotlib while this process simulates
        with FigureRenderer(parallel=plots) as renderer:
            cfg = load_soc_config(config)
            if accelerators is not None or policy is not None or threads is not None:
                try:
                    cfg = cfg.with_changes(accelerators=accelerators, policy=policy,
                                           threads=threads)
                except ConfigError as exc:
                    raise ConfigError(exc.reason, file=str(config), field=exc.field,
                                      allowed=exc.allowed) from None
            params = {} if batch is None else {"batch": batch}
            graph = build_workload(workload, **params)
            show = sys.stderr.isatty() if progress is None else progress
            with progress_bar(f"simulating {workload}", show=show) as report:
                result = simulate(cfg, graph, progress=report)
            add_carbon(result, cfg, location=location)

            table = Table(title=f"{result.workload} on {result.soc} "
                                f"({result.accelerators} accelerator(s))")
            table.add_column("category")
            table.add_column("ms", justify="right")
            table.add_column("share", justify="right")
            for cat, sec in result.breakdown_s.items():
                table.add_row(cat, f"{sec * 1e3:.4f}", f"{result.breakdown_fraction[cat]:.1%}")
            table.add_row("[bold]end-to-end[/bold]", f"[bold]{result.latency_s * 1e3:.4f}[/bold]",
                          "100.0%")
            console.print(table)
            components = Table(title="energy and carbon by component")
            for column in ("component", "energy mJ", "carbon g CO2e"):
                components.add_column(column, justify="left" if column == "component" else "right")
            for row in result.component_rows():
                carbon_kg = row.get("total_kg")
                components.add_row(
                    str(row["component"]),
                    f"{row['energy_j'] * 1e3:.4g}" if row.get("energy_j") is not None else "",
                    f"{carbon_kg * 1e3:.4g}" if carbon_kg is not None else "")
            console.print(components)
            carbon = result.carbon
            assert carbon is not None  # add_carbon above filled it in
            console.print(f"energy {result.energy.total_j * 1e3:.4g} mJ, "
                          f"bytes moved {result.transfers.total_bytes / 1e6:.4g} MB, "
                          f"carbon {carbon['total_kg'] * 1e3:.4g} g CO2e "
                          f"(embodied share per inference over the lifetime, + operational), "
                          f"{result.events} events in {result.wall_time_s:.3f} s")
            with atomic_dir(out_dir) as tmp:
                files = result.write(tmp, plots=plots, renderer=renderer)
            console.print(f"wrote {len(files)} files to {out_dir}")
