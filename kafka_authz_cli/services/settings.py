"""The broker settings a decision depends on (super.users and allow.everyone.if.no.acl.found), from
the flags and a broker's ``server.properties``."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from kafka_authz_cli._java import parse_properties
from kafka_authz_cli.acl import AuthorizerConfigError, BrokerSettings
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats import read_text

log = logging.getLogger(__name__)

STANDARD_AUTHORIZER_CLASSES = {
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
}


def broker_settings(super_users: Optional[str], allow_everyone: Optional[bool],
                    broker_config: Optional[Path]) -> BrokerSettings:
    """Flags win over ``server.properties`` values, which win over Kafka's defaults."""
    su, allow, source = "", False, "flags"
    if broker_config is not None:
        su, allow = _from_server_properties(broker_config)
        source = str(broker_config)
    if super_users is not None:
        su, source = super_users, "--super-users"
    if allow_everyone is not None:
        allow = allow_everyone
    try:
        return BrokerSettings(su, allow)
    except AuthorizerConfigError as exc:
        if source != "--super-users" and source != "flags":
            raise InputError(f"super.users: {exc}; the broker would not start", source) from None
        raise AuthzError(f"super.users ({source}): {exc}; the broker would not start") from None


def _from_server_properties(broker_config: Path) -> tuple[str, bool]:
    props = parse_properties(read_text(broker_config), str(broker_config))
    raw = props.get("allow.everyone.if.no.acl.found", "false").strip().lower()
    if raw not in ("true", "false"):
        raise InputError(f"allow.everyone.if.no.acl.found must be true or false, got {raw!r}", str(broker_config))
    cls = props.get("authorizer.class.name", "").strip()
    if cls and cls not in STANDARD_AUTHORIZER_CLASSES:
        log.warning(f"{broker_config}: authorizer.class.name is {cls}; authz decides as Kafka's KRaft "
                    "StandardAuthorizer")
    elif not cls:
        log.warning(f"{broker_config}: no authorizer.class.name: that broker authorizes nothing; "
                    "authz decides as if StandardAuthorizer were configured")
    return props.get("super.users", ""), raw == "true"
