"""`authz generate`. (Being written.)"""

from __future__ import annotations

import typer

from kafka_authz_cli.cli.app import app


@app.command("generate", short_help="Least-privilege ACLs from observed traffic (audit logs or a whatif index), with the proof.", help="Not written yet.")
def generate_cmd() -> None:
    raise typer.Exit(2)
