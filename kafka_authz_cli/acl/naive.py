"""A deliberately naive StandardAuthorizer: read every ACL for every request.

This is the reference page's description of Kafka's decision turned into the most direct code
possible, with no index and no walk. It exists to check :mod:`kafka_authz_cli.acl.engine` (property
tests) and as the baseline of the engine benchmark. It does not model Kafka's re-scan bug (names
sorting below ``*``) nor ACLs with an empty name: the engine's step-by-step walk covers those.
"""

from __future__ import annotations

from typing import Iterable

from kafka_authz_cli._java import utf16_key
from kafka_authz_cli.acl.broker_settings import BrokerSettings
from kafka_authz_cli.acl.decision import Decision, Outcome, Request, Rule, matching_acl_rule
from kafka_authz_cli.acl.model import (
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    java_host_address,
)


def _applies(acl: AclBinding, name: str) -> bool:
    if acl.pattern_type is PatternType.PREFIXED:
        return name.startswith(acl.resource_name)
    if acl.resource_name == name:
        return True
    # The LITERAL wildcard, except for names that start with '*' (Kafka mistakes it for a prefix).
    return acl.resource_name == "*" and not name.startswith("*")


def _matches(acl: AclBinding, principal: KafkaPrincipal, host: str, op: AclOperation) -> bool:
    acl_type, sep, acl_name = acl.principal.partition(":")
    if not ((acl_type == principal.principal_type and acl_name == principal.name)
            or acl.principal == "User:*"):
        return False
    if acl.host != "*" and acl.host != host:
        return False
    if acl.operation is AclOperation.ALL or acl.operation is op:
        return True
    if acl.permission is AclPermissionType.ALLOW:
        if op is AclOperation.DESCRIBE:
            return acl.operation in IMPLIES_DESCRIBE
        if op is AclOperation.DESCRIBE_CONFIGS:
            return acl.operation in IMPLIES_DESCRIBE_CONFIGS
    return False


def _kafka_order(acl: AclBinding):
    data = utf16_key(acl.resource_name)
    units = [data[i] * 256 + data[i + 1] for i in range(0, len(data), 2)]
    # Names descend: compare on inverted code units, a longer name before its own prefix.
    return (tuple(0xFFFF - u for u in units) + (0x10000,), acl.pattern_type.code, acl.operation.code,
            utf16_key(acl.principal), utf16_key(acl.host), acl.permission.code)


class NaiveAuthorizer:
    def __init__(self, bindings: Iterable[AclBinding], settings: BrokerSettings = BrokerSettings(), *,
                 load_complete: bool = True):
        self.acls = list(dict.fromkeys(bindings))
        self.super_users = settings.super_user_names
        self.allow_if_no_acl = settings.allow_everyone_if_no_acl_found
        self.load_complete = load_complete

    def authorize(self, request: Request) -> Decision:
        host = java_host_address(request.host)
        principal = KafkaPrincipal.parse(request.principal)
        if str(principal) in self.super_users:
            return Decision(request, Outcome.ALLOWED, Rule.SUPER_USER, None, host)
        if not self.load_complete:
            return Decision(request, Outcome.NOT_READY, None, None, host,
                            "org.apache.kafka.common.errors.AuthorizerNotReadyException")
        name = request.resource_name
        candidates = sorted((a for a in self.acls
                             if a.resource_type is request.resource_type and _applies(a, name)),
                            key=_kafka_order)
        # Kafka looks at the wildcard ACLs a second time, after the name's own section.
        visit = candidates + [a for a in candidates if a.resource_name == "*"]
        allow = None
        for acl in visit:
            if ":" not in acl.principal:
                return Decision(request, Outcome.ERROR, None, None, host,
                                f"java.lang.IllegalStateException: Could not parse principal from `{acl.principal}` "
                                "(no colon is present separating the principal type from the principal name)")
            if _matches(acl, principal, host, request.operation):
                if acl.permission is AclPermissionType.DENY:
                    return Decision(request, Outcome.DENIED, matching_acl_rule(acl), acl, host)
                allow = acl
        if allow is not None:
            return Decision(request, Outcome.ALLOWED, matching_acl_rule(allow), allow, host)
        if candidates or not self.allow_if_no_acl:
            return Decision(request, Outcome.DENIED, Rule.DEFAULT_DENY, None, host)
        return Decision(request, Outcome.ALLOWED, Rule.DEFAULT_ALLOW, None, host)
