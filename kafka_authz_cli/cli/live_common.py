"""What the live-cluster commands (`cluster`, `scram list|delete|apply`) share: options, prompts, guards."""

from __future__ import annotations

from typing import Optional

import typer

from kafka_authz_cli.errors import AuthzError

DEFAULT_MAX_DELETES = 100


class Declined(AuthzError):
    """The user said no (or stdin was closed): nothing changed."""

    exit_code = 4


class DriftError(AuthzError):
    exit_code = 3


def _close(admin) -> None:
    close = getattr(admin, "close", None)
    if close is not None:
        close()


COMMAND_CONFIG = typer.Option(None, "--command-config", help="Admin client properties (as for kafka-acls): "
                                                              "security.protocol, sasl.mechanism, sasl.jaas.config, "
                                                              "PEM ssl.truststore.location.")
TIMEOUT = typer.Option(10.0, "--timeout", help="Seconds to wait for the broker (connection and each request).")


def _confirm(question: str) -> bool:
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:  # stdin closed: no answer is a no
        return False


def delete_guard(n_deletes: int, n_cluster: int, max_deletes: Optional[int]) -> None:
    """Many deletes (more than DEFAULT_MAX_DELETES, or more than half the cluster's ACLs) need
    --max-deletes or the number typed back; anything else is a decline."""
    if not n_deletes:
        return
    if max_deletes is not None:
        if n_deletes > max_deletes:
            raise AuthzError(f"the plan deletes {n_deletes} ACL(s), more than --max-deletes {max_deletes}; "
                             "nothing was changed")
        return
    if n_deletes <= DEFAULT_MAX_DELETES and n_deletes * 2 <= n_cluster:
        return
    why = (f"more than {DEFAULT_MAX_DELETES}" if n_deletes > DEFAULT_MAX_DELETES
           else f"more than half of the cluster's {n_cluster}")
    try:
        typed = typer.prompt(f"this deletes {n_deletes} ACL(s), {why}; type {n_deletes} to confirm "
                             f"(or pass --max-deletes {n_deletes})", default="", show_default=False)
    except typer.Abort:
        typed = ""
    if typed.strip() != str(n_deletes):
        raise Declined(f"declined: {n_deletes} ACL deletion(s) not confirmed (type the number, or pass "
                       f"--max-deletes {n_deletes}); nothing was changed")


BOOTSTRAP = typer.Option(..., "--bootstrap-server", help="host:port[,host:port...]")


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
