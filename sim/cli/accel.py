"""``archsim accel report|verilog|sim|area``: an accelerator description's views.

``TARGET`` is ``FILE.py:NAME`` or ``module:NAME`` naming an
:class:`~archsim.dsl.accel.Accelerator` or a factory returning one; ``--program`` names a
function ``f(accelerator)`` returning its :class:`~archsim.dsl.accel.Program` (or a tuple
whose first item is one) and ``--inputs`` a function ``f(accelerator, *, seed)`` returning
the buffers' initial words (default: random words, seeded).
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ...errors import ConfigError, RunFailedError
from .common import import_target

if TYPE_CHECKING:
    import numpy as np

    from ...compilers.accel.compiled import CompiledAccelerator
    from ...dsl.accel import Accelerator, Program

__all__ = ["register", "load_accelerator", "AccelBackend"]


class AccelBackend(StrEnum):
    """``--backend`` of ``archsim accel sim``."""

    verilator = "verilator"
    pysim = "pysim"


def load_accelerator(target: str) -> Accelerator:
    """Import ``TARGET`` and return the :class:`Accelerator` it names (or its factory builds)."""
    from ...dsl.accel import as_accelerator

    module, name = import_target(target, field="accelerator", what="accelerator")
    return as_accelerator(getattr(module, name, None), name=target, field="accelerator")


def _load_program(target: str, acc: Accelerator) -> Program:
    from ...dsl.accel import as_program

    module, name = import_target(target, field="--program", what="program")
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ConfigError(f"{target} is not a function", field="--program")
    return as_program(fn(acc), name=target, field="--program")


def _inputs(target: str | None, acc: Accelerator, compiled: CompiledAccelerator,
            seed: int) -> dict[str, np.ndarray]:
    import numpy as np

    if target is None:
        rng = np.random.default_rng(seed)
        return {name: rng.integers(0, 1 << spec.width, spec.words)
                for name, spec in compiled.buffers.items()}
    module, name = import_target(target, field="--inputs", what="inputs")
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ConfigError(f"{target} is not a function", field="--inputs")
    return dict(fn(acc, seed=seed))


def _describe(compiled: CompiledAccelerator) -> str:
    desc = compiled.description
    lines = [f"accelerator {compiled.name}: {len(compiled.units)} units, "
             f"{len(compiled.buffers)} buffers, {len(desc.domains)} domains"]
    for name, unit in compiled.units.items():
        spec = desc.units[name]
        binds = ", ".join(f"{o}->{b}" for o, b in spec.bind.items())
        lines.append(f"  unit   {name:<12} {unit.contract.kind:<14} [{spec.domain}] {binds}")
    for name, b in compiled.buffers.items():
        interval = compiled.refresh_interval_cycles(name)
        refresh = f", refresh every {interval} cycles" if interval else ""
        lines.append(f"  buffer {name:<12} {b.words} x {b.width} bit, {b.banks} banks, "
                     f"{b.technology} [{b.domain}]{refresh}")
    for name, d in desc.domains.items():
        points = ", ".join(f"{p}=({v:g} V, {f / 1e6:g} MHz)"
                           for p, (v, f) in d.operating_points.items())
        lines.append(f"  domain {name:<12} {'regulated' if d.regulated else 'fixed'}: {points}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add the ``accel`` command group."""
    accel = typer.Typer(help="Accelerator descriptions: model report, Verilog, RTL "
                             "simulation against the golden run, area.",
                        no_args_is_help=True)
    app.add_typer(accel, name="accel")

    @accel.command("report")
    def report(
        target: Annotated[str, typer.Argument(help="FILE.py:NAME or module:NAME.")],
        program: Annotated[str | None, typer.Option(
            "--program", help="FILE.py:FUNC returning the program to model.")] = None,
        sweep: Annotated[str | None, typer.Option(
            "--sweep", help="Model the program at every operating point of this domain.")
        ] = None,
        output: Annotated[Path | None, typer.Option(
            "-o", "--output", help="Write the report as JSON here.")] = None,
    ) -> None:
        """The description, and a program's cycles, time and energy (the model view)."""
        from ...outputs import atomic_write_text, check_output_file

        if output is not None:
            check_output_file(output, field="--output")
        acc = load_accelerator(target)
        compiled = acc.compile()
        typer.echo(_describe(compiled))
        if sweep is not None and program is None:
            raise ConfigError("--sweep needs --program", field="--sweep")
        data: dict[str, object] = {"accelerator": compiled.name}
        if program is not None:
            prog = _load_program(program, acc)
            rep = compiled.model(prog)
            typer.echo(str(rep))
            data["model"] = {"cycles": rep.cycles, "time_s": rep.time_s,
                             "energy_j": rep.energy_j, "total_energy_j": rep.total_energy_j,
                             "steps": rep.rows(), "assumptions": list(rep.assumptions)}
            if sweep is not None:
                from ...compilers.accel.model import sweep_operating_points

                points = sweep_operating_points(compiled, sweep,
                                                lambda p: p.steps.extend(prog.steps))
                typer.echo(f"{'point':<10} {'V':>5} {'MHz':>7} {'time_us':>9} "
                           f"{'energy_nJ':>10} {'power_mW':>9}")
                for r in points:
                    typer.echo(f"{r.point:<10} {r.voltage_v:>5.2f} {r.frequency_hz / 1e6:>7.1f} "
                               f"{r.time_s * 1e6:>9.3f} {r.energy_j * 1e9:>10.3f} "
                               f"{r.report.average_power_w * 1e3:>9.3f}")
                rows = [r.row() for r in points]
                data["sweep"] = rows
        if output is not None:
            atomic_write_text(output, json.dumps(data, indent=2, default=float))
            typer.echo(f"wrote {output}")

    @accel.command("verilog")
    def verilog(
        target: Annotated[str, typer.Argument(help="FILE.py:NAME or module:NAME.")],
        output: Annotated[Path, typer.Option("-o", "--output", help="The Verilog file.")],
    ) -> None:
        """Write the accelerator's top-level Verilog."""
        import time

        from ...outputs import atomic_write_text, check_output_file

        check_output_file(output, field="--output")
        compiled = load_accelerator(target).compile()
        start = time.perf_counter()
        text = compiled.verilog()
        atomic_write_text(output, text)
        typer.echo(f"wrote {output} ({len(text.splitlines())} lines, "
                   f"{time.perf_counter() - start:.1f} s)")

    @accel.command("sim")
    def sim(
        target: Annotated[str, typer.Argument(help="FILE.py:NAME or module:NAME.")],
        program: Annotated[str, typer.Option(
            "--program", help="FILE.py:FUNC returning the program to run.")],
        inputs: Annotated[str | None, typer.Option(
            "--inputs", help="FILE.py:FUNC(accelerator, *, seed) returning buffer words.")
        ] = None,
        backend: Annotated[AccelBackend, typer.Option(
            "--backend", help="RTL simulator.")] = AccelBackend.verilator,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the inputs.")] = 0,
    ) -> None:
        """Run a program on the RTL; compare with the golden run and the model."""
        import numpy as np

        acc = load_accelerator(target)
        compiled = acc.compile()
        prog = _load_program(program, acc)
        words = _inputs(inputs, acc, compiled, seed)
        golden = compiled.golden(prog, words)
        predicted = compiled.model(prog, buffers=words)  # resolves indirect DVFS switches
        result = compiled.simulate(prog, words, backend=backend.value)
        same = [b for b in golden if np.array_equal(golden[b], result.buffers[b])]
        build = ("no build" if backend is AccelBackend.pysim
                 else "cached build" if result.build_cached
                 else f"built in {result.build_time_s:.1f} s")
        typer.echo(f"simulated ({backend.value}, {build}): {result.cycles} cycles measured, "
                   f"{predicted.cycles} predicted; {len(same)}/{len(golden)} buffers equal the "
                   f"golden run; {result.cycles_per_s / 1e6:.3g} M cycles/s")
        if len(same) != len(golden) or result.cycles != predicted.cycles:
            bad = sorted(set(golden) - set(same))
            raise RunFailedError(f"accelerator {compiled.name}: the RTL differs from the "
                                  f"golden run in {bad} or from the model's cycles",
                                  expected=predicted.cycles, actual=result.cycles)

    @accel.command("area")
    def area(
        target: Annotated[str, typer.Argument(help="FILE.py:NAME or module:NAME.")],
        node: Annotated[str, typer.Option("--node", help="Cell-area table.")] = "nangate45",
    ) -> None:
        """Logic area from synthesis (Yosys) plus memory macros of each buffer's technology."""
        from .common import progress_bar

        compiled = load_accelerator(target).compile()
        with progress_bar("synthesizing") as progress:
            report = compiled.area(node=node, progress=progress)
        typer.echo(str(report))
