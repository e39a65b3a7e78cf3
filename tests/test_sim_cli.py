"""The CLI root: version, user errors as exit status 2, exit codes passed through."""

import typer

from archsim import __version__
from archsim.sim import cli


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"archsim {__version__}"


def test_user_error_is_one_line_and_status_2(capsys):
    assert cli.main(["study", "no-such-study"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: field 'study': unknown study 'no-such-study'")
    assert "Traceback" not in err


def test_exit_codes_of_commands_are_passed_on(monkeypatch):
    app = typer.Typer()

    @app.command()
    def interrupted() -> None:
        raise typer.Exit(130)

    @app.command()
    def fine() -> None:
        pass

    monkeypatch.setattr(cli, "app", app)
    assert cli.main(["interrupted"]) == 130
    assert cli.main(["fine"]) == 0


def test_usage_errors_show_a_message_not_a_traceback(capsys):
    code = cli.main(["serve", "--no-such-option"])
    assert code == 2
    assert "No such option" in capsys.readouterr().err


def test_archsim_warnings_are_one_line(monkeypatch, capsys):
    import warnings

    from archsim.errors import ArchsimWarning

    app = typer.Typer()

    @app.command()
    def warn() -> None:
        warnings.warn("cache entry k was corrupt (top: size 0, expected 10); rebuilding",
                      ArchsimWarning, stacklevel=2)

    monkeypatch.setattr(cli, "app", app)
    assert cli.main([]) == 0  # a one-command Typer app runs its command
    err = capsys.readouterr().err
    assert err == "warning: cache entry k was corrupt (top: size 0, expected 10); rebuilding\n"
