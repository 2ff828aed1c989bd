"""Bindings as Jikkou ``KafkaPrincipalAuthorization`` resources: one per principal, explicit acls, no roles.

Every field is written (``type``, ``host``, ``patternType``: Jikkou 1.1.0 applies no default for them).
What Jikkou cannot be given, and so is never written (refused, or listed with ``--lossy``): a principal
without ``:`` (Kafka refuses it), and any name, principal or host holding ``{{``, ``{%`` or ``{#``
(Jikkou renders every resource file as a Jinja template, which would evaluate it). Nothing is widened:
a binding is written exactly or reported lost.
"""

from __future__ import annotations

from typing import Iterable

from kafka_authz_cli.acl import AclBinding
from kafka_authz_cli.ecosystem.jikkou.reader import (
    AUTHORIZATION,
    GROUP,
    OPERATIONS,
    PATTERNS,
    PERMISSIONS,
    RESOURCE_TYPES,
    TEMPLATE,
)
from kafka_authz_cli.ecosystem.written import Written, expressible
from kafka_authz_cli.ecosystem.yaml_text import quote

API_VERSION = f"{GROUP}/v1"
_OPS = set(OPERATIONS.values())
_TYPES = set(RESOURCE_TYPES.values())
_PATTERNS = {PATTERNS["LITERAL"], PATTERNS["PREFIXED"]}
_PERMISSIONS = set(PERMISSIONS.values())


def why_not(b: AclBinding) -> str | None:
    """Why ``b`` cannot be an acl of a KafkaPrincipalAuthorization, or None."""
    if ":" not in b.principal:
        return "a principal is Type:name"
    if any(TEMPLATE.search(text) for text in (b.principal, b.resource_name, b.host)):
        return "Jikkou renders files as Jinja templates: '{{', '{%' and '{#' would be evaluated"
    if b.resource_type not in _TYPES or b.operation not in _OPS or b.pattern_type not in _PATTERNS \
            or b.permission not in _PERMISSIONS:
        return "not a value Kafka stores in an ACL"
    return None


def write(bindings: Iterable[AclBinding], lossy: bool = False) -> Written:
    """One ``KafkaPrincipalAuthorization`` per principal (in order of first appearance), one acl per
    resource, permission and host with its operations in order."""
    kept, lost = expressible("jikkou", bindings, why_not, lossy)
    principals: dict[str, dict[tuple, list]] = {}
    for b in kept:
        key = (b.resource_type, b.resource_name, b.pattern_type, b.permission, b.host)
        principals.setdefault(b.principal, {}).setdefault(key, []).append(b.operation)
    return Written("".join(_resource(p, acls) for p, acls in principals.items()), lost)


def _resource(principal: str, acls: dict[tuple, list]) -> str:
    out = ["---", f"apiVersion: {API_VERSION}", f"kind: {AUTHORIZATION}", "metadata:", f"  name: {quote(principal)}",
           "spec:", "  acls:"]
    for (rtype, name, pattern, permission, host), ops in acls.items():
        out += ["    - resource:", f"        type: {rtype.name}", f"        pattern: {quote(name)}",
                f"        patternType: {pattern.name}", f"      type: {permission.name}",
                f"      operations: [{', '.join(op.name for op in ops)}]", f"      host: {quote(host)}"]
    return "\n".join(out) + "\n"
