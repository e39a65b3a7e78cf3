"""``archsim hls FILE.py:KERNEL``: compile a DSL kernel, report its schedule, write Verilog,
simulate it against the golden run.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ...errors import ConfigError
from ..rtl import BACKENDS
from .common import import_target

if TYPE_CHECKING:
    from ...dsl.kernel import Kernel

__all__ = ["register", "load_kernel", "parse_assignments", "Backend"]

#: ``--backend`` choices: the RTL simulators of :func:`archsim.sim.rtl.hls_run.run_design`.
Backend = Enum("Backend", {b: b for b in BACKENDS}, type=str)  # type: ignore[misc]


def load_kernel(target: str) -> Kernel:
    """Import ``FILE.py:KERNEL`` (or ``module:KERNEL``) and return the :class:`Kernel`."""
    from ...dsl.kernel import Kernel

    module, name = import_target(target, field="kernel", what="kernel")
    obj = getattr(module, name, None)
    if not isinstance(obj, Kernel):
        kernels = sorted(k for k, v in vars(module).items() if isinstance(v, Kernel))
        source = target.rpartition(":")[0]
        raise ConfigError(f"{source} has no @kernel named {name!r}", field="kernel",
                          allowed=kernels or None)
    return obj


def parse_assignments(items: list[str] | None, what: str) -> dict[str, int]:
    """``["n=5", "mul=2"]`` -> ``{"n": 5, "mul": 2}`` (ints only)."""
    out: dict[str, int] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        try:
            out[key.strip()] = int(value, 0)
        except ValueError:
            sep = ""
        if not sep or not key.strip().isidentifier():
            raise ConfigError(f"{item!r} is not of the form name=integer", field=what)
    return out


def _random_args(kern: Kernel, scalars: dict[str, int], seed: int) -> list[object]:
    import numpy as np

    rng = np.random.default_rng(seed)
    missing = [n for n in kern.scalar_types if n not in scalars]
    if missing:
        raise ConfigError(f"--simulate needs a value for scalar argument(s) "
                          f"{', '.join(missing)} (e.g. --arg n=16)", field="--arg")
    unknown = [n for n in scalars if n not in kern.scalar_types]
    if unknown:
        raise ConfigError(f"unknown scalar argument(s) {', '.join(unknown)}", field="--arg",
                          allowed=list(kern.scalar_types))
    from archsim.dsl.types import FormatType, HWType

    args: list[object] = []
    for name in kern.param_names:
        if name in kern.array_types:
            t = kern.array_types[name]
            if isinstance(t.elem, FormatType):
                # Draw representable values only: format arrays hold codes of finite values.
                values = t.elem.decode(np.arange(2 ** t.elem.bits))
                args.append(rng.choice(values[np.isfinite(values)], t.shape))
            elif not isinstance(t.elem, HWType):  # synthesize() rejects golden-only formats
                raise ConfigError(f"array '{name}' of {t.elem!r} has no hardware lowering",
                                  field="kernel")
            elif t.elem.frac:
                lo = t.elem.min_raw / (1 << t.elem.frac)
                hi = t.elem.max_raw / (1 << t.elem.frac)
                args.append(rng.uniform(lo, hi, t.shape))
            else:
                args.append(rng.integers(t.elem.min_raw, t.elem.max_raw + 1, t.shape))
        else:
            args.append(scalars[name])
    return args


def register(app: typer.Typer) -> None:
    """Add the ``hls`` command."""

    @app.command("hls")
    def hls(
        kernel: Annotated[str, typer.Argument(help="FILE.py:KERNEL (or module:KERNEL).")],
        clock_ns: Annotated[float, typer.Option("--clock-ns", help="Clock period in ns.")] = 2.0,
        resource: Annotated[list[str] | None, typer.Option(
            "--resource", help="Resource limit, e.g. mul=2; repeatable.")] = None,
        report: Annotated[bool, typer.Option("--report",
                                             help="Print the schedule report.")] = False,
        output: Annotated[Path | None, typer.Option("-o", "--output",
                                                    help="Write the Verilog here.")] = None,
        simulate: Annotated[bool, typer.Option(
            "--simulate", help="Simulate on random arrays; compare with golden.")] = False,
        arg: Annotated[list[str] | None, typer.Option(
            "--arg", help="Scalar argument n=5; repeatable.")] = None,
        backend: Annotated[Backend, typer.Option(
            "--backend", help="RTL simulator.")] = Backend("pysim"),
        seed: Annotated[int, typer.Option("--seed", help="Seed of the random arrays.")] = 0,
    ) -> None:
        """Compile a DSL kernel to RTL: schedule report, Verilog, simulation."""
        import numpy as np

        from ...errors import RunFailedError
        from ...outputs import atomic_write_text, check_output_file

        if output:
            check_output_file(output, field="--output")
        kern = load_kernel(kernel)
        design = kern.synthesize(clock_ns=clock_ns,
                                 resources=parse_assignments(resource, "--resource"))
        typer.echo(f"compiled {kern.name} in {design.compile_time_s * 1e3:.1f} ms")
        if report or not (output or simulate):
            typer.echo(str(design.report()))
        if output:
            atomic_write_text(output, design.verilog())
            typer.echo(f"wrote {output}")
        if simulate:
            args = _random_args(kern, parse_assignments(arg, "--arg"), seed)
            golden_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            expected = kern(*golden_args)
            result = design.simulate(*args, backend=backend.value)
            ok = result.value == expected and all(
                np.array_equal(np.asarray(result.outputs[n]), np.asarray(golden_args[k]))
                for k, n in enumerate(kern.param_names) if n in kern.array_types)
            predicted = design.cycles(*args)
            typer.echo(f"simulated ({backend.value}): {result.cycles} cycles measured, "
                       f"{predicted} predicted; outputs {'match' if ok else 'DIFFER FROM'} "
                       "the golden run")
            if not ok:
                raise RunFailedError(f"kernel {kern.name}: RTL outputs differ from golden")
