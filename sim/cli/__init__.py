"""The ``archsim`` command line.

Each command group lives in its own module with a ``register(app)`` function;
heavy imports happen inside the commands. The root (:class:`LazyGroup`) knows the
commands from the static table :data:`COMMANDS` and imports a command's module only
when that command runs or shows its help, so ``archsim --help`` imports typer and
nothing of the simulators (a module's registration builds its option choices from the
registries, which load numpy, networkx and pydantic). A new command goes into its
module's ``register`` and into :data:`COMMANDS`; ``tests/test_sim_cli_lazy.py`` fails
until both agree.

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

import atexit
import functools
import gc
import importlib
import sys
import warnings
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, TextIO

import typer
from typer.core import TyperGroup

from ...errors import ArchsimError, ArchsimWarning, RunFailedError

__all__ = ["app", "main", "COMMANDS", "LazyGroup", "GC_THRESHOLD"]

#: Every top-level command in the order ``--help`` lists it (typer's order: commands, then
#: groups): its name, the command module whose ``register(app)`` adds it, and its help as
#: the command itself states it (``tests/test_sim_cli_lazy.py`` checks all three against the
#: registered commands). Kept here so ``archsim --help`` imports no command module: a
#: module's registration builds its option choices from the registries (the workload
#: builders, the GPU tables...), which load numpy, networkx and pydantic.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("run", "run", "Simulate one inference of WORKLOAD on the SoC in CONFIG; print the latency "
                   "breakdown\nand write JSON/CSV/PNG results."),
    ("demo", "rtl", "Generate a systolic array, run a matmul in Verilator, check it, show "
                    "speed and area."),
    ("hls", "hls", "Compile a DSL kernel to RTL: schedule report, Verilog, simulation."),
    ("serve", "serve", "Simulate serving REQUESTS with POLICY and print throughput, latency "
                       "and memory."),
    ("train", "train", "Rank parallelization strategies (--search) and model runtime "
                       "variability\n(--variability) for a model on a GPU cluster."),
    ("sweep", "sweep", "Run a design-space sweep; finished points are stored and skipped when "
                       "re-run."),
    ("optimize", "sweep", "Optimize an objective over a sweep's grid (Optuna TPE or random "
                          "search); an\ninterrupted run resumes from its results database."),
    ("study", "study", "Run a study: print the paper's headline next to ours with a tolerance "
                       "band and a\nstatus, and write tables and plots; 'all' writes "
                       "scoreboard.md and scoreboard.csv."),
    ("rtl", "rtl", "RTL of components: Verilog, area estimates, simulation."),
    ("accel", "accel", "Accelerator descriptions: model report, Verilog, RTL simulation "
                       "against the golden run, area."),
    ("results", "sweep", "Inspect a sweep results database."),
)

#: The collector's first threshold while a command runs (Python's default is 700). A command
#: allocates hundreds of thousands of objects that live to its end (modules, classes, the
#: workload graph, the timeline); at the default thresholds ``archsim run ... resnet50``
#: made ~430 collections, 3 of them full, ~15% of its CPU time. Cycles are still
#: collected, every 20,000 allocations.
GC_THRESHOLD = 20_000

_MODULE = {name: module for name, module, _ in COMMANDS}
_HELP = {name: text for name, _, text in COMMANDS}


def _new_app(**settings: Any) -> typer.Typer:
    # The root and every module's registration share these settings, so a command built on
    # its own renders and fails as it did registered on the root.
    return typer.Typer(pretty_exceptions_enable=False, add_completion=False, **settings)


class _Commands(Mapping[str, typer.core.TyperCommand | TyperGroup]):
    """The root's commands by name; a command module is imported when one of its commands
    is first looked up (its names and their order are :data:`COMMANDS`)."""

    def __init__(self) -> None:
        self._loaded: dict[str, TyperGroup] = {}

    def __getitem__(self, name: str) -> typer.core.TyperCommand | TyperGroup:
        module = _MODULE[name]  # KeyError for an unknown name, as a Mapping should
        group = self._loaded.get(module)
        if group is None:
            sub = _new_app()
            importlib.import_module(f"{__name__}.{module}").register(sub)
            group = self._loaded[module] = typer.main.get_group(sub)
        command = group.commands[name]
        assert isinstance(command, typer.core.TyperCommand | TyperGroup)
        return command

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULE)

    def __len__(self) -> int:
        return len(_MODULE)


class LazyGroup(TyperGroup):
    """The root command: lists :data:`COMMANDS` without importing them and imports a command
    module only when one of its commands runs (or shows its own help).

    Typer reads the names from ``commands`` (its "did you mean" suggestions); while the
    root's help is drawn, :meth:`get_command` answers with a placeholder carrying the
    command's name and help, which is all the listing reads.
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        # typer declares a MutableMapping; nothing adds to the root's fixed commands
        self._lazy = _Commands()
        self.commands = self._lazy  # type: ignore[assignment]
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any,
                    cmd_name: str) -> typer.core.TyperCommand | TyperGroup | None:
        if cmd_name not in _MODULE:
            return None
        if self._listing:
            return typer.core.TyperCommand(name=cmd_name, help=_HELP[cmd_name])
        return self._lazy[cmd_name]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = _new_app(
    name="archsim",
    help="Hardware modeling for architecture research: DSL -> RTL -> SoC and system studies.",
    no_args_is_help=True,
    cls=LazyGroup,
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
    instead of raising on user errors.

    While the command runs, the garbage collector's first threshold is at least
    :data:`GC_THRESHOLD` (restored afterwards); at interpreter exit the objects left are
    frozen rather than scanned once more (:func:`gc.freeze`).
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], GC_THRESHOLD), *thresholds[1:])
    _freeze_at_exit()
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*thresholds)


@functools.cache  # registered once per process
def _freeze_at_exit() -> None:
    """At interpreter exit, move every object to the collector's permanent generation.

    The interpreter's last collection, after the atexit handlers, then has nothing to scan:
    it walked every object a command had loaded (matplotlib, pydantic's schemas, the
    graph...), ~0.25 s of CPU at the end of ``archsim run ... resnet50`` with plots. The
    modules are still torn down; only garbage cycles left at exit are not collected, which
    nothing of archsim relies on (its writers close their files).
    """
    atexit.register(gc.freeze)


def _main(argv: list[str] | None) -> int:
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
