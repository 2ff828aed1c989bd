"""Bindings written as a kafka-gitops state file: one ``users`` entry per principal (``roles: []``)
and its bindings as ``customUserAcls`` entries, every field written out.

Services and roles generate bindings; a set of bindings is not turned back into them (a role would
only ever widen). What kafka-gitops 0.2.15 cannot hold, and so is never written (refused, or listed
with ``--lossy``): resource types, pattern types and operations outside the Kafka 2.4 client enums
``CustomAclDetails.validate`` accepts (USER resources, MATCH, CREATE_TOKENS, DESCRIBE_TOKENS,
TWO_PHASE_COMMIT). Nothing is widened.
"""

from __future__ import annotations

import re
from typing import Iterable

from kafka_authz_cli.acl import AclBinding
from kafka_authz_cli.ecosystem.kafka_gitops.reader import OPERATIONS, PATTERNS, PERMISSIONS, RESOURCE_TYPES
from kafka_authz_cli.ecosystem.written import Written, expressible
from kafka_authz_cli.ecosystem.yaml_text import quote

_LABEL_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def why_not(b: AclBinding) -> str | None:
    """Why ``b`` cannot be a kafka-gitops custom ACL, or None."""
    if b.resource_type.name not in RESOURCE_TYPES:
        return f"kafka-gitops (Kafka 2.4 client) has no resource type {b.resource_type.name}"
    if b.pattern_type.name not in PATTERNS:
        return f"pattern type {b.pattern_type.name}"
    if b.operation.name not in OPERATIONS:
        return f"kafka-gitops (Kafka 2.4 client) has no operation {b.operation.name}"
    if b.permission.name not in PERMISSIONS:
        return f"permission {b.permission.name}"
    return None


def _user_names(principals: Iterable[str]) -> dict[str, str]:
    """A readable, unique ``users`` key per principal: its name after the type, ``Group:x`` as
    ``group-x``; a collision gets ``-2``, ``-3`` ..."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for principal in principals:
        ptype, sep, name = principal.partition(":")
        base = _LABEL_CHARS.sub("-", name if ptype == "User" and sep else principal).strip("-") or "user"
        if ptype != "User" and sep:
            base = _LABEL_CHARS.sub("-", f"{ptype.lower()}-{name}").strip("-") or "user"
        label, n = base, 1
        while label in taken:
            n += 1
            label = f"{base}-{n}"
        taken.add(label)
        out[principal] = label
    return out


def write(bindings: Iterable[AclBinding], lossy: bool = False) -> Written:
    """``users`` (principal, ``roles: []``) and ``customUserAcls`` (one labelled entry per binding)."""
    kept, lost = expressible("kafka-gitops", bindings, why_not, lossy)
    by_principal: dict[str, list[AclBinding]] = {}
    for b in kept:
        by_principal.setdefault(b.principal, []).append(b)
    names = _user_names(sorted(by_principal))
    out = ["# kafka-gitops desired state (0.2.15), written by authz: one user per principal, its ACLs as "
           "customUserAcls"]
    if not by_principal:
        out.append("users: {}")
        return Written("\n".join(out) + "\n", lost)
    out.append("users:")
    for principal, name in names.items():
        out += [f"  {quote(name)}:", f"    principal: {quote(principal)}", "    roles: []"]
    out.append("customUserAcls:")
    for principal, name in names.items():
        out.append(f"  {quote(name)}:")
        for i, b in enumerate(by_principal[principal], 1):
            label = f"{b.resource_type.name.lower()}-{b.operation.name.lower()}-{i}".replace("_", "-")
            out += [f"    {label}:", f"      name: {quote(b.resource_name)}",
                    f"      type: {b.resource_type.name}", f"      pattern: {b.pattern_type.name}",
                    f"      host: {quote(b.host)}", f"      operation: {b.operation.name}",
                    f"      permission: {b.permission.name}"]
    return Written("\n".join(out) + "\n", lost)
