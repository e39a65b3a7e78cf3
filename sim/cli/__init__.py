"""The ``archsim`` command line.

Each command group lives in its own module with a ``register(app)`` function;
heavy imports happen inside the commands so ``archsim --help`` stays fast.

The error contract: every :class:`~archsim.errors.ArchsimError` becomes one line
``error: ...`` on stderr, never a traceback, and the exit status says what kind of
outcome it was:

====  ==========================================================================
0     success (a sweep in which only some points failed is a success: the summary
      line counts the failed points, ``archsim results show --failed`` lists them)
1     the run itself failed: a :class:`~archsim.errors.RunFailedError` (the RTL
      differs from the golden run or the model, every point of a sweep failed), an
      optimization that found no feasible point
2     user error: bad input (:class:`~archsim.errors.ConfigError`,
      :class:`~archsim.errors.DSLError`), a missing tool
      (:class:`~archsim.errors.ToolchainError`), an output that cannot be written
      (:class:`~archsim.errors.OutputError`: disk full, no permission...), bad
      command-line usage; any other :class:`~archsim.errors.SimulationError` (the
      simulators still report some bad inputs, such as an unknown port, with it)
130   interrupted (Ctrl-C); results finished before the interrupt are kept
====  ==========================================================================

Output locations are checked before any work is done and multi-file outputs
appear complete or not at all (:mod:`archsim.outputs`). A bare ``OSError`` is not
caught here: the writers turn write failures into ``OutputError``, so any other
``OSError`` is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
import warnings
from typing import Annotated, TextIO

import typer

from ...errors import ArchsimError, ArchsimWarning, RunFailedError
from . import accel, hls, rtl, run, serve, study, sweep, train

__all__ = ["app", "main"]

app = typer.Typer(
    name="archsim",
    help="Hardware modeling for architecture research: DSL -> RTL -> SoC and system studies.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from ... import __version__

        typer.echo(f"archsim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and exit.")] = False,
) -> None:
    """Hardware modeling for architecture research: DSL -> RTL -> SoC and system studies."""


for _module in (run, rtl, hls, accel, serve, train, sweep, study):
    _module.register(app)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None,
                  *, default: object = warnings.showwarning) -> None:
    """Print an :class:`~archsim.errors.ArchsimWarning` as one line ``warning: ...`` (others
    as Python prints them: those are not archsim's to word)."""
    if issubclass(category, ArchsimWarning):
        typer.secho(f"warning: {message}", err=True, fg=typer.colors.YELLOW)
    else:
        assert callable(default)
        default(message, category, filename, lineno, file, line)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0, 1, 2 or 130, see the module's docstring)
    instead of raising on user errors."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            # Outside standalone mode typer returns (not raises) the exit code of an Exit,
            # e.g. 130 for Ctrl-C; pass it on.
            rv = app(args=argv, standalone_mode=False)
    except RunFailedError as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        return 1
    except ArchsimError as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        return 2
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        return int(code or 0)
    except typer.Abort:
        typer.secho("aborted", err=True)
        return 130
    except KeyboardInterrupt:
        typer.secho("interrupted", err=True)
        return 130
    except Exception as exc:
        # Usage errors (click's, or typer's vendored copy of click) know how to show themselves.
        show = getattr(exc, "show", None)
        exit_code = getattr(exc, "exit_code", None)
        if callable(show) and isinstance(exit_code, int):
            show()
            return exit_code
        raise
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
