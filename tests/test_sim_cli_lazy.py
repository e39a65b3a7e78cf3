"""The CLI root loads its command modules on demand (issue #22 part 5).

The static table :data:`archsim.sim.cli.COMMANDS` must say what the command modules
themselves register: the independent source is an eager root built here the way the CLI
was built before, every module's ``register(app)`` called on one ``typer.Typer``.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from archsim.sim import cli

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("run", "rtl", "hls", "accel", "serve", "train", "sweep", "study")


def _eager_app() -> typer.Typer:
    app = typer.Typer(name="archsim", help=cli.app.info.help, no_args_is_help=True,
                      pretty_exceptions_enable=False, add_completion=False)
    app.callback()(cli._root)
    for name in MODULES:
        importlib.import_module(f"archsim.sim.cli.{name}").register(app)
    return app


def _owner(name: str) -> str:
    """The module whose ``register`` adds the top-level command ``name``."""
    for module in MODULES:
        app = typer.Typer()
        importlib.import_module(f"archsim.sim.cli.{module}").register(app)
        if name in typer.main.get_group(app).commands:
            return module
    raise AssertionError(name)


def test_static_table_equals_the_registered_commands():
    eager = typer.main.get_group(_eager_app())
    names = eager.list_commands(None)  # type: ignore[arg-type]  # typer ignores the context
    assert [name for name, _, _ in cli.COMMANDS] == names
    assert [text for _, _, text in cli.COMMANDS] == [eager.commands[n].help for n in names]
    assert [module for _, module, _ in cli.COMMANDS] == [_owner(n) for n in names]


@pytest.mark.parametrize("args", [["--help"], [], ["rn"], ["run", "--help"],
                                  ["results", "--help"], ["rtl", "sim", "--help"]],
                         ids=["help", "no-args", "typo", "run-help", "group-help",
                              "subcommand-help"])
def test_lazy_root_prints_what_the_eager_root_printed(args):
    runner = CliRunner()
    lazy = runner.invoke(cli.app, args, terminal_width=100)
    eager = runner.invoke(_eager_app(), args, terminal_width=100)
    assert (lazy.exit_code, lazy.output) == (eager.exit_code, eager.output)
    assert lazy.output  # help, or the usage error


def test_typo_still_gets_a_suggestion(capsys):
    assert cli.main(["rn"]) == 2
    assert "No such command 'rn'. Did you mean 'run'?" in capsys.readouterr().err


def test_unknown_command_is_not_a_key():
    commands = typer.main.get_group(cli.app).commands
    assert "nosuch" not in commands
    with pytest.raises(KeyError):
        commands["nosuch"]


def _loaded(args: list[str]) -> list[str]:
    """The modules of interest in ``sys.modules`` after ``main(args)`` in a fresh process."""
    probe = ("import contextlib, io, json, sys\n"
             "from archsim.sim.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    main({args!r})\n"
             "names = {m.split('.')[0] for m in sys.modules} | set(sys.modules)\n"
             "print(json.dumps(sorted(n for n in names if n in "
             "('numpy', 'pydantic', 'networkx', 'matplotlib') or "
             "n.startswith('archsim.sim.cli.'))))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def test_root_help_imports_no_command_module_numpy_or_pydantic():
    assert _loaded(["--help"]) == []


def test_probe_sees_the_command_module_a_command_needs():
    # the probe can fail: a command's help loads its module (and only its module's needs)
    loaded = _loaded(["hls", "--help"])
    assert "archsim.sim.cli.hls" in loaded
    assert "archsim.sim.cli.run" not in loaded


def test_collector_threshold_raised_while_a_command_runs_and_restored(monkeypatch):
    import gc

    seen: list[tuple[int, int, int]] = []
    app = typer.Typer()

    @app.command()
    def probe() -> None:
        seen.append(gc.get_threshold())

    @app.command()
    def fail() -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "app", app)
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # Python's defaults, whatever the test runner set
    try:
        assert cli.main(["probe"]) == 0
        assert seen == [(cli.GC_THRESHOLD, 10, 10)]
        assert gc.get_threshold() == (700, 10, 10)
        with pytest.raises(RuntimeError):
            cli.main(["fail"])
        assert gc.get_threshold() == (700, 10, 10)  # restored on the way out of a traceback
    finally:
        gc.set_threshold(*before)


def test_objects_are_frozen_before_the_interpreters_last_collection():
    # atexit runs handlers last-registered first: this one, registered before main(), sees
    # what main's handler left
    probe = ("import atexit, gc\n"
             "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\n"
             "import contextlib, io\n"
             "from archsim.sim.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    main(['--version'])\n"
             "print('before exit', gc.get_freeze_count() > 0)\n")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout.split("\n")
    assert out[:2] == ["before exit False", "frozen True"]
