"""The `authz` command: one Typer app, one module per subcommand."""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from kafka_authz_cli import __version__
from kafka_authz_cli.errors import AuthzError


#: An error line longer than this is cut in the middle (a parser quoting a 10 MB token must not
#: print 10 MB): the location at its start and the reason at its end stay.
MAX_ERROR_CHARS = 1000


def one_line(message: str) -> str:
    """An error message as one line of reasonable length."""
    message = message.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    if len(message) <= MAX_ERROR_CHARS:
        return message
    keep = MAX_ERROR_CHARS // 2
    return f"{message[:keep]}... [{len(message) - 2 * keep:,} characters cut] ...{message[-keep:]}"


class _AuthzGroup(TyperGroup):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except AuthzError as exc:
            # One line, the error's exit code, no traceback; the same path under CliRunner and main().
            typer.echo(f"authz: error: {one_line(str(exc))}", err=True)
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    cls=_AuthzGroup,
    name="authz",
    help="Apache Kafka authorization toolkit: simulate, lint, compile, diff and replay ACLs; SCRAM credentials.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"authz {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """Apache Kafka authorization toolkit."""


def _register() -> None:
    # Each subcommand lives in its own module; importing it registers it on `app`.
    import importlib

    for module in ("simulate", "convert", "scram", "rules", "diff", "whatif", "cluster",
                   "principal", "config", "connect", "policy"):
        try:
            importlib.import_module(f"kafka_authz_cli.cli.{module}")
        except ModuleNotFoundError as exc:  # a subcommand not built yet
            if exc.name != f"kafka_authz_cli.cli.{module}":
                raise


_register()


def main() -> None:
    try:
        app(standalone_mode=True)
    except AuthzError as exc:
        typer.echo(f"authz: error: {one_line(str(exc))}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("authz: interrupted", err=True)
        sys.exit(130)
