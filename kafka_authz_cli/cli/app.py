"""The `authz` command: one Typer app, one module per subcommand, each imported only when used."""

from __future__ import annotations

import os
import sys

import typer

from kafka_authz_cli import __version__
from kafka_authz_cli.cli.lazy import LazyCommand, LazyTyperGroup
from kafka_authz_cli.cli.usage_errors import one_line
from kafka_authz_cli.errors import AuthzError

# Every command, in `authz --help` order: its name, the module that registers it on `app` and its
# one-line help (tests/cli/test_startup.py checks each line is the command's own short help).
COMMANDS = {c.name: c for c in (
    LazyCommand("simulate", "kafka_authz_cli.cli.simulate",
                "Decide requests exactly as Kafka's StandardAuthorizer does, with the deciding rule."),
    LazyCommand("convert", "kafka_authz_cli.cli.convert",
                "Convert ACL sets between Kafka's formats and the ecosystem's (Strimzi, KSM, Terraform...)."),
    LazyCommand("lint", "kafka_authz_cli.cli.rules",
                "Will the Kroxylicious proxy load these rules files, and do they say what they mean?"),
    LazyCommand("compile", "kafka_authz_cli.cli.rules",
                "Compile a rules file to Kafka ACLs that decide exactly alike."),
    LazyCommand("decompile", "kafka_authz_cli.cli.rules", "Write a rules file from an ACL set."),
    LazyCommand("diff", "kafka_authz_cli.cli.diff",
                "Compare two ACL sets: bindings, and exactly who gains or loses what."),
    LazyCommand("access", "kafka_authz_cli.cli.access",
                "Who can do what, exactly: effective permissions per resource or principal; grants never used."),
    LazyCommand("generate", "kafka_authz_cli.cli.generate",
                "Least-privilege ACLs from observed traffic (audit logs or a whatif index), with the proof."),
    LazyCommand("compact", "kafka_authz_cli.cli.compact",
                "Fewer ACLs deciding provably alike: duplicates, shadowed ACLs, literals merged into prefixes."),
    LazyCommand("whatif", "kafka_authz_cli.cli.whatif",
                "Replay audit logs against a proposed ACL change (in-process or PySpark)."),
    LazyCommand("scram", "kafka_authz_cli.cli.scram",
                "SCRAM-SHA-256/512 credentials as Kafka stores them (never the password)."),
    LazyCommand("cluster", "kafka_authz_cli.cli.cluster",
                "Live clusters: pull ACLs, plan and apply a change that never widens access "
                "(kafka-python admin client)."),
    LazyCommand("principal", "kafka_authz_cli.cli.principal",
                "Which principal a TLS DN or Kerberos name becomes (ssl.principal.mapping.rules, auth_to_local)."),
    LazyCommand("config", "kafka_authz_cli.cli.config",
                "KIP-226 broker config: effective values and sources; encode/decode dynamic passwords."),
    LazyCommand("connect", "kafka_authz_cli.cli.connect",
                "Kafka Connect: which client overrides the KIP-458 policy allows, and who the connector "
                "connects as."),
    LazyCommand("app", "kafka_authz_cli.cli.apps",
                "Will this application work with these ACLs, and what exactly does it need? Producers, consumers, "
                "Streams, admin tools."),
    LazyCommand("policy", "kafka_authz_cli.cli.policy",
                "KIP-201: check topic management requests against a declarative policy, with the ACLs."),
)}


class _AuthzGroup(LazyTyperGroup):
    lazy_commands = COMMANDS

    @staticmethod
    def typer_app() -> typer.Typer:
        return app

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
    help="Apache Kafka security, checked before you ship: decide requests and whole applications exactly as the "
         "broker does, diff and compact ACL sets, review who can do what, replay audit logs against a change, "
         "read and write the ACL formats teams keep in git, manage SCRAM users and live clusters' ACLs.",
    epilog="Exit codes: 0 ok; 1 the condition the command checks; 2 usage or input error; some commands "
           "have more (each command's --help lists its own). `man authz` has the full manual.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # click's plain help layout (see cli/help_layout.py): full flag names, no truncation, no panels.
    rich_markup_mode=None,
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


def load_all() -> None:
    """Import every command module (for tools that walk the whole command tree: the man page, tests)."""
    import importlib

    for module in dict.fromkeys(c.module for c in COMMANDS.values()):
        importlib.import_module(module)


def command_tree():
    """(path, click command, its context) for `authz` and every command and subcommand, depth first in
    `--help` order (imports every command module: for the man page and tests, not for a run)."""
    from typer.main import get_command

    load_all()
    root = get_command(app)

    def walk(command, ctx, path):
        yield path, command, ctx
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    sub_ctx = sub.context_class(sub, info_name=name, parent=ctx, **sub.context_settings)
                    yield from walk(sub, sub_ctx, f"{path} {name}")

    yield from walk(root, root.context_class(root, info_name="authz", **root.context_settings), "authz")


#: Results a command hands over to be freed by the operating system rather than one object at a
#: time (see keep_until_exit).
_KEPT: list = []


def keep_until_exit(obj) -> None:
    """For a command that built millions of objects and has nothing left to do with them: when authz
    runs as a program, it then exits without freeing them one by one (a third of a second for a
    100,000-rule file). Under CliRunner (tests) nothing changes but that the last object is kept."""
    _KEPT[:] = [obj]


def main() -> None:
    if "_AUTHZ_COMPLETE" in os.environ:
        # Shell completion: Typer renders zsh/fish descriptions with rich at the terminal width
        # (80 when completing), which puts a line break inside a long one-line help.
        os.environ.setdefault("TERMINAL_WIDTH", "1000")
    code = 0
    try:
        app(standalone_mode=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            typer.echo(exc.code, err=True)
    except AuthzError as exc:
        typer.echo(f"authz: error: {one_line(str(exc))}", err=True)
        code = exc.exit_code
    except KeyboardInterrupt:
        typer.echo("authz: interrupted", err=True)
        code = 130
    if _KEPT:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, OSError):
            code = code or 1
        os._exit(code)
    sys.exit(code)
