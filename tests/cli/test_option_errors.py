"""An OptionError raised below the CLI reads exactly like a bad parameter of the command itself."""

import typer
from typer.testing import CliRunner

from kafka_authz_cli.cli.commands import AuthzCommand, AuthzGroup
from kafka_authz_cli.errors import OptionError


def _app(fail):
    app = typer.Typer(cls=AuthzGroup)

    @app.command("check", cls=AuthzCommand)
    def check(x: str = typer.Option("", "--x")) -> None:
        fail()

    @app.command("other", cls=AuthzCommand)
    def other() -> None:
        pass

    return app


def test_option_error_is_said_as_click_says_a_bad_parameter():
    def from_a_service():
        raise OptionError("expected key=value, got 'nokv'", param_hint="--x")

    def from_typer():
        raise typer.BadParameter("expected key=value, got 'nokv'", param_hint="--x")

    ours = CliRunner().invoke(_app(from_a_service), ["check", "--x", "nokv"])
    theirs = CliRunner().invoke(_app(from_typer), ["check", "--x", "nokv"])
    assert ours.exit_code == theirs.exit_code == 2
    assert ours.output == theirs.output
    assert "Usage:" in ours.output and "Invalid value for --x: expected key=value" in ours.output.replace("'", "")
