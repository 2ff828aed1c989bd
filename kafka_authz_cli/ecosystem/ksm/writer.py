"""Bindings written as a Kafka Security Manager YAML file: explicit ``Operation,Permission,Host`` entries.

Never the helpers (``Consume``, ``Produce``: they add bindings). What ``YamlAclParser`` cannot give back,
and so is never written (refused, or listed with ``--lossy``): principals other than ``User:`` (KSM
makes every key ``User:<key>``), resources other than TOPIC, GROUP, TRANSACTIONAL_ID and CLUSTER, a
LITERAL name ending in ``*`` (read back PREFIXED), a PREFIXED empty name (read back LITERAL ``*``),
names with surrounding white space (KSM trims them), hosts that are empty or hold ``,`` (KSM splits on
``,``), operations outside Kafka 2.8's ``kafka.security.auth.Operation``. Nothing is widened.
"""

from __future__ import annotations

from typing import Iterable

from kafka_authz_cli.acl import AclBinding, PatternType
from kafka_authz_cli.ecosystem.ksm.reader import OPERATIONS, PERMISSIONS, SECTIONS
from kafka_authz_cli.ecosystem.written import Written, expressible
from kafka_authz_cli.ecosystem.yaml_text import quote

_OP_NAMES = {op: name for name, op in OPERATIONS.items()}
_PERM_NAMES = {p: name for name, p in PERMISSIONS.items()}
_SECTION_OF = {t: name for name, t in SECTIONS.items()}


def why_not(b: AclBinding) -> str | None:
    """Why ``b`` cannot be a KSM YAML entry, or None."""
    if not b.principal.startswith("User:"):
        return "KSM YAML principals are always User:"
    if b.resource_type not in _SECTION_OF:
        return f"KSM YAML has no {b.resource_type.name} section"
    if b.operation not in _OP_NAMES:
        return f"{b.operation.name} is not a Kafka 2.8 kafka.security.auth operation"
    if b.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        return f"pattern type {b.pattern_type.name}"
    if b.resource_name != b.resource_name.strip():
        return "KSM trims resource names"
    if b.pattern_type is PatternType.LITERAL and b.resource_name.endswith("*") and b.resource_name != "*":
        return "a LITERAL name ending in '*' reads back PREFIXED"
    if b.pattern_type is PatternType.PREFIXED and not b.resource_name:
        return "an empty prefix reads back as the LITERAL wildcard '*'"
    if not b.host or "," in b.host:
        return "KSM splits entries on ',' (a host cannot be empty or hold ',')"
    return None


def write(bindings: Iterable[AclBinding], lossy: bool = False) -> Written:
    """One ``users`` mapping: per user, per section, per resource (``name*`` for PREFIXED), the entries."""
    kept, lost = expressible("KSM YAML", bindings, why_not, lossy)
    users: dict[str, dict[str, dict[str, list[str]]]] = {}
    for b in kept:
        name = b.resource_name + ("*" if b.pattern_type is PatternType.PREFIXED else "")
        entry = f"{_OP_NAMES[b.operation]},{_PERM_NAMES[b.permission]},{b.host}"
        entries = users.setdefault(b.principal[5:], {}).setdefault(_SECTION_OF[b.resource_type], {})
        entries.setdefault(name, []).append(entry)
    out = ["# Kafka Security Manager ACLs (YamlAclParser, KSM 0.10 and later), written by authz", "users:"]
    if not users:
        out[-1] = "users: {}"
    for user in sorted(users):
        out.append(f"  {quote(user)}:")
        for section in (s for s in SECTIONS if s in users[user]):
            out.append(f"    {section}:")
            for name in sorted(users[user][section]):
                out.append(f"      {quote(name)}:")
                out.extend(f"        - {quote(e)}" for e in users[user][section][name])
    return Written("\n".join(out) + "\n", lost)
