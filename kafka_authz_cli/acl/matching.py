"""One ACL against one request, as Kafka's ``StandardAuthorizerData.findResult`` matches it.

Shared by both ways the engine finds the deciding ACL (the hash index and Kafka's own walk), so that
they cannot disagree on what "matches" means: the principal is the request's or ``User:*``, the host
the client's address or ``*``, and the operation the request's, ``ALL``, or (for ALLOW ACLs only) one
that implies DESCRIBE or DESCRIBE_CONFIGS.
"""

from __future__ import annotations

from kafka_authz_cli._java import utf16_key
from kafka_authz_cli.acl.model import (
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    AclBinding,
    AclOperation,
    AclPermissionType,
)

#: The principal key of ``User:*``, whose ACLs apply to every principal.
WILDCARD_PRINCIPAL_KEY = ("User", "*")


def operation_matches(acl_op: AclOperation, acl_perm: AclPermissionType, op: AclOperation) -> bool:
    if acl_op is AclOperation.ALL:
        return True
    if acl_perm is AclPermissionType.ALLOW:
        if op is AclOperation.DESCRIBE:
            return acl_op in IMPLIES_DESCRIBE
        if op is AclOperation.DESCRIBE_CONFIGS:
            return acl_op in IMPLIES_DESCRIBE_CONFIGS
    return acl_op is op


def principal_key(principal: str) -> tuple[str, str] | None:
    """(type, name) of an ACL's principal; None when it has no ``:`` (Kafka throws on meeting it)."""
    if ":" not in principal:
        return None
    ptype, _, name = principal.partition(":")
    return (ptype, name)


def bad_principal_error(acl: AclBinding) -> str:
    return (f"java.lang.IllegalStateException: Could not parse principal from `{acl.principal}` "
            "(no colon is present separating the principal type from the principal name)")


def acl_order_key(acl: AclBinding) -> tuple:
    """Order of ACLs inside one resource pattern in Kafka's sorted set."""
    return (acl.operation.code, utf16_key(acl.principal), utf16_key(acl.host), acl.permission.code)


def _ops_matched_by(acl_op: AclOperation, acl_perm: AclPermissionType) -> frozenset[AclOperation]:
    return frozenset(op for op in AclOperation if operation_matches(acl_op, acl_perm, op))


#: For each (ACL operation, permission): the request operations that ACL matches.
MATCHED_OPS = {(o, p): _ops_matched_by(o, p) for o in AclOperation for p in AclPermissionType}
