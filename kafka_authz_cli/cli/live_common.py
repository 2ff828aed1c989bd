"""What the live-cluster commands (`cluster`, `scram list|delete|apply`, `config resolve`) share: their
options, and the prompts the services ask through (the rules of a deliberate change are cluster/guard.py's)."""

from __future__ import annotations

import typer

BOOTSTRAP = typer.Option(..., "--bootstrap-server", help="host:port[,host:port...]")
COMMAND_CONFIG = typer.Option(None, "--command-config", help="Admin client properties (as for kafka-acls): "
                                                              "security.protocol, sasl.mechanism, sasl.jaas.config, "
                                                              "PEM ssl.truststore.location.")
TIMEOUT = typer.Option(10.0, "--timeout", help="Seconds to wait for the broker (connection and each request).")


def confirm(question: str) -> bool:
    """Yes or no, no by default; a closed stdin is a no."""
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:  # stdin closed: no answer is a no
        return False


def ask(question: str) -> str:
    """A typed answer ("" when stdin is closed)."""
    try:
        return typer.prompt(question, default="", show_default=False)
    except typer.Abort:
        return ""
