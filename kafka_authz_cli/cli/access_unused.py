"""`authz access unused`: grants nobody exercised. (Being written.)"""

from __future__ import annotations

import typer

from kafka_authz_cli.cli.access_group import access_app


@access_app.command("unused", help="Grants nobody exercised (not written yet).")
def unused() -> None:
    raise typer.Exit(2)
