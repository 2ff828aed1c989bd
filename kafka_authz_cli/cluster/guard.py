"""What keeps a change to a live cluster deliberate: the delete guard, and the errors that say nothing changed.

Shared by `cluster apply` and `scram delete|apply`. The person running authz is asked through
callables the caller hands in (the CLI's prompts), so the rules stay here and the terminal in cli/.
"""

from __future__ import annotations

from typing import Callable, Optional

from kafka_authz_cli.errors import AuthzError

#: More deletes than this (or more than half of what the cluster holds) need --max-deletes or the
#: number typed back.
DEFAULT_MAX_DELETES = 100


class Declined(AuthzError):
    """The user said no (or stdin was closed): nothing changed."""

    exit_code = 4


class DriftError(AuthzError):
    """The cluster changed since the plan was made: nothing changed (``drift`` says what moved)."""

    exit_code = 3

    def __init__(self, message: str, drift=None):
        super().__init__(message)
        self.drift = drift


def delete_guard(n_deletes: int, n_cluster: int, max_deletes: Optional[int], ask: Callable[[str], str]) -> None:
    """Many deletes (more than DEFAULT_MAX_DELETES, or more than half the cluster's ACLs) need
    --max-deletes or the number typed back (``ask`` puts the question and returns the answer, ``""``
    when there is none); anything else is a decline."""
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
    typed = ask(f"this deletes {n_deletes} ACL(s), {why}; type {n_deletes} to confirm "
                f"(or pass --max-deletes {n_deletes})")
    if typed.strip() != str(n_deletes):
        raise Declined(f"declined: {n_deletes} ACL deletion(s) not confirmed (type the number, or pass "
                       f"--max-deletes {n_deletes}); nothing was changed")


def confirm_changes(question: str, yes: bool, confirm: Callable[[str], bool]) -> None:
    """Go on only with --yes or a yes to ``question`` (``confirm`` asks it; a closed stdin is a no)."""
    if not yes and not confirm(question):
        raise Declined("declined: nothing was changed")
