"""The ``archsim`` command line.

Each command group lives in its own module with a ``register(app)`` function;
heavy imports happen inside the commands so ``archsim --help`` stays fast.
Every :class:`~archsim.errors.ArchsimError` becomes a one-line message on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import sys

import typer

from ...errors import ArchsimError
from . import hls, rtl, run, serve, study, sweep, train

__all__ = ["app", "main"]

app = typer.Typer(
    name="archsim",
    help="Hardware modeling for architecture research: DSL -> RTL -> SoC and system studies.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)



@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    """Hardware modeling for architecture research: DSL -> RTL -> SoC and system studies."""
    if version:
        from ... import __version__

        typer.echo(f"archsim {__version__}")
        raise typer.Exit()


for _module in (run, rtl, hls, serve, train, sweep, study):
    _module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status instead of raising on user errors."""
    try:
        app(args=argv, standalone_mode=False)
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
    except Exception as exc:  # click usage errors
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            return exc.exit_code
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
