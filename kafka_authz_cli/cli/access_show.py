"""`authz access show` (the default of `authz access`): effective permissions. (Being written.)"""

from __future__ import annotations

import typer

from kafka_authz_cli.cli.access_group import access_app


@access_app.command("show", help="Effective permissions (not written yet).")
def show(acls: str = typer.Argument(..., help="The ACL set.")) -> None:
    raise typer.Exit(2)
