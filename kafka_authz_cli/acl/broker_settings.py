"""The broker configuration a decision depends on, as Kafka's ``StandardAuthorizer`` reads it in
``configure()``: ``super.users`` and ``allow.everyone.if.no.acl.found``.

:class:`BrokerSettings` is the one value the engine is built from; where it came from (flags, a
``server.properties``) is the services' business (``services/settings.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from kafka_authz_cli._java import java_trim
from kafka_authz_cli.acl.model import AclError

__all__ = ["AuthorizerConfigError", "BrokerSettings", "parse_super_users"]


class AuthorizerConfigError(AclError):
    """``configure()`` would throw: the broker would not start with this configuration."""


def parse_super_users(config: str | Iterable[str] | None) -> frozenset[str]:
    """``super.users`` as Kafka's StandardAuthorizer reads it: split on ``;``, each entry trimmed,
    empties dropped, each checked to be ``type:name``, the trimmed text kept verbatim."""
    if config is None:
        return frozenset()
    if not isinstance(config, str):
        config = ";".join(config)
    users = []
    for entry in config.split(";"):
        entry = java_trim(entry)
        if not entry:
            continue
        if ":" not in entry:
            raise AuthorizerConfigError(
                f"expected a string in format principalType:principalName but got {entry}")
        users.append(entry)
    return frozenset(users)


@dataclass(frozen=True)
class BrokerSettings:
    """``super.users`` and ``allow.everyone.if.no.acl.found``; Kafka's defaults when not given.

    Checked when made, as ``configure()`` checks them (:class:`AuthorizerConfigError`), so a value
    that exists is one a broker starts with. ``super_users`` is the configured text, verbatim (plan
    files and reports repeat it as given); ``super_user_names`` its entries as a request's principal
    is compared with them. Immutable and picklable: the Spark job ships it to its executors.
    """

    super_users: str = ""
    allow_everyone_if_no_acl_found: bool = False
    super_user_names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # a frozen dataclass sets what it derives through object.__setattr__
        object.__setattr__(self, "super_user_names", parse_super_users(self.super_users))
