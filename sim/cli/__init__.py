"""The ``archsim`` command line.

Each command group lives in its own module with a ``register(app)`` function;
heavy imports happen inside the commands so ``archsim --help`` stays fast.
Every :class:`~archsim.errors.ArchsimError` becomes a one-line message on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ...errors import ArchsimError
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


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status instead of raising on user errors."""
    try:
        # Outside standalone mode typer returns (not raises) the exit code of an Exit,
        # e.g. 130 for Ctrl-C; pass it on.
        rv = app(args=argv, standalone_mode=False)
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
