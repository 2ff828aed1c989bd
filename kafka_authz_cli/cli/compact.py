"""`authz compact`. (Being written.)"""

from __future__ import annotations

import typer

from kafka_authz_cli.cli.app import app


@app.command("compact", short_help="Fewer ACLs deciding provably alike: duplicates, shadowed ACLs, literals merged into prefixes.", help="Not written yet.")
def compact_cmd() -> None:
    raise typer.Exit(2)
