"""The `authz access` group: its subcommands (cli/access_show.py, cli/access_unused.py) register on
``access_app``; a first token that names none of them goes to `show`."""

from __future__ import annotations

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.commands import DefaultCommandGroup


class _AccessGroup(DefaultCommandGroup):
    default_command = "show"


access_app = typer.Typer(
    cls=_AccessGroup, no_args_is_help=True,
    help="""Who can do what, exactly. `authz access ACLS --topic NAME` (the `show` subcommand): every
principal and host allowed each operation, with the deciding ACLs and the reason; `authz access ACLS
--principal User:x`: everything that principal can do. `authz access unused`: grants nobody exercised
in a window of audit logs.""")
app.add_typer(access_app, name="access",
              short_help="Who can do what, exactly: effective permissions per resource or principal; grants never used.")
