"""``archsim run CONFIG.toml --workload NAME``: simulate one inference on an SoC description."""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        config: Path = typer.Argument(..., help="SoC description (TOML), e.g. "
                                      "soc_configs/smaug_baseline.toml."),
        workload: str = typer.Option("resnet50", "--workload", "-w",
                                     help="Workload name (archsim.compilers.graph.WORKLOADS)."),
        batch: int = typer.Option(None, "--batch", "-b", help="Batch size (workload default "
                                  "if omitted)."),
        out: Path = typer.Option(None, "--out", "-o", help="Output folder "
                                 "(default archsim-out/run-<workload>)."),
        accelerators: int = typer.Option(None, "--accelerators", "-a",
                                         help="Override every accelerator's count."),
        policy: str = typer.Option(None, "--policy", help="Override the host-memory policy of "
                                   "every tensor class: dma or acp."),
        threads: int = typer.Option(None, "--threads", help="Override the data-preparation "
                                    "threads."),
        location: str = typer.Option("world", "--location",
                                     help="Grid location for operational carbon."),
        plots: bool = typer.Option(True, help="Write the Gantt and breakdown PNGs."),
        progress: bool = typer.Option(None, help="Progress bar (default: when interactive)."),
    ) -> None:
        """Simulate one inference of WORKLOAD on the SoC in CONFIG; print the latency breakdown
        and write JSON/CSV/PNG results."""
        import sys

        from rich.console import Console
        from rich.table import Table

        from ...compilers.graph import build_workload
        from ...errors import ConfigError
        from ..soc import load_soc_config, simulate
        from ..soc.carbon import add_carbon

        console = Console()
        cfg = load_soc_config(config)
        if policy is not None and policy not in ("dma", "acp"):
            raise ConfigError(f"unknown host-memory policy '{policy}'", field="--policy",
                              allowed=["acp", "dma"])
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
        if show:
            from rich.progress import Progress

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task(f"simulating {workload}", total=len(graph))
                result = simulate(cfg, graph,
                                  progress=lambda done, total: bar.update(task, completed=done))
        else:
            result = simulate(cfg, graph)
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
        console.print(f"energy {result.energy.total_j * 1e3:.4g} mJ, "
                      f"bytes moved {result.transfers.total_bytes / 1e6:.4g} MB, "
                      f"carbon {result.carbon['total_kg'] * 1e3:.4g} g CO2e "
                      f"(embodied share per inference over the lifetime, + operational), "
                      f"{result.events} events in {result.wall_time_s:.3f} s")
        out_dir = out if out is not None else Path("archsim-out") / f"run-{workload}"
        files = result.write(out_dir, plots=plots)
        console.print(f"wrote {len(files)} files to {out_dir}")
