"""Kafka's own walk of its sorted ACL set, step by step, for the names where its quirks decide.

Kafka keeps every ACL in one set sorted by (resource type, resource name *descending*, pattern type,
operation, principal, host, permission); here each resource type has its own sorted list.
``findAclRule`` answers a request with two walks of that set, each a ``checkSection``: from the
request's name (the name itself and, further on, its prefixes), then from the LITERAL ``*``. A walk
stops at the first matching DENY and remembers the last matching ALLOW; when it meets an ACL whose
name does not match it re-seeks to the exemplar's name cut where the two diverge. That re-seek is
the quirk: for names sorting below ``*`` it can walk back to where it already was (the request
thread spins forever) or cut the exemplar past its end (``StringIndexOutOfBoundsException``); an ACL
principal without ``:`` met on the way throws too.

Names are compared as Java compares them, in UTF-16 code units: the walk works on strings with one
character per code unit (``_units``), and the sort keys are built from the same units.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Iterable

from kafka_authz_cli._java import from_java_chars, java_chars, utf16_key
from kafka_authz_cli.acl.decision import Outcome, Request
from kafka_authz_cli.acl.matching import (
    WILDCARD_PRINCIPAL_KEY,
    acl_order_key,
    bad_principal_error,
    operation_matches,
    principal_key,
)
from kafka_authz_cli.acl.model import (
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

LITERAL = PatternType.LITERAL
ALLOW = AclPermissionType.ALLOW
DENY = AclPermissionType.DENY


def _desc_name_key(name: str) -> tuple[int, ...]:
    # Kafka sorts names in reverse String.compareTo order: negate UTF-16 code units and end with a
    # sentinel above every negated unit so that a longer name sorts before its own prefix.
    units = utf16_key(name)
    return tuple(-((units[i] << 8) | units[i + 1]) for i in range(0, len(units), 2)) + (1,)


def _java_sort_key(acl: AclBinding) -> tuple:
    return (_desc_name_key(acl.resource_name), acl.pattern_type.code) + acl_order_key(acl)


def _exemplar_key(name: str, pattern_code: int) -> tuple:
    # Operation UNKNOWN (0) and empty principal/host sort before every stored ACL of the same pattern.
    return (_desc_name_key(name), pattern_code, 0, b"", b"", 0)


class WalkError(Exception):
    """``authorize()`` does not return a decision: it throws, or never returns."""

    def __init__(self, outcome: Outcome, message: str):
        super().__init__(message)
        self.outcome = outcome
        self.message = message


class RuleBuilder:
    """What the walks found: the first matching DENY, the last matching ALLOW, whether any ACL applied."""

    __slots__ = ("deny", "allow", "has_resource_acls")

    def __init__(self) -> None:
        self.deny: AclBinding | None = None
        self.allow: AclBinding | None = None
        self.has_resource_acls = False



class SortedAcls:
    """One resource type's ACLs in Kafka's order, with their sort keys and their names in code units."""

    __slots__ = ("acls", "keys", "unit_names")

    def __init__(self, acls: Iterable[AclBinding]) -> None:
        keyed = sorted(((_java_sort_key(a), a) for a in acls), key=lambda t: t[0])
        self.keys = [k for k, _ in keyed]
        self.acls = [a for _, a in keyed]
        self.unit_names = [java_chars(a.resource_name) for a in self.acls]


def find_acl_rule(acls: SortedAcls, request: Request, request_principal: tuple[str, str], address: str,
                  probe: bool = False) -> RuleBuilder:
    """Kafka's ``findAclRule``: the section of the request's name, then (unless it found a DENY) the
    LITERAL ``*`` section. Raises :class:`WalkError` where Kafka throws or never returns. ``probe``
    stops at the first ACL that applies to the resource (for ``has_resource_acls`` only)."""
    builder = RuleBuilder()
    _check_section(acls, request.resource_name, PatternType.UNKNOWN.code, request, request_principal, address,
                   builder, probe)
    if builder.deny is None:
        _check_section(acls, WILDCARD_RESOURCE, LITERAL.code, request, request_principal, address, builder, probe)
    return builder


def _check_section(sorted_acls: SortedAcls, exemplar_name: str, exemplar_pattern: int, request: Request,
                   request_principal: tuple[str, str], address: str, builder: RuleBuilder, probe: bool) -> None:
    """Kafka's ``checkSection``: from the exemplar on, every ACL whose name matches the request's."""
    acls, keys, unit_names = sorted_acls.acls, sorted_acls.keys, sorted_acls.unit_names
    name = java_chars(request.resource_name)
    exemplar_name = java_chars(exemplar_name)
    op = request.operation
    pos = bisect_left(keys, _exemplar_key(exemplar_name, exemplar_pattern))
    seen_states: set[tuple[int, str]] = set()
    while pos < len(acls):
        acl = acls[pos]
        acl_name = unit_names[pos]
        upto = _matches_up_to(name, acl_name)
        if upto == len(acl_name):
            if acl.pattern_type is LITERAL and upto != len(name):
                pos += 1  # a LITERAL ACL whose name is only a prefix: skipped
                continue
        elif not (acl_name == WILDCARD_RESOURCE and acl.pattern_type is LITERAL):
            # Past the section: Kafka re-seeks to the exemplar's name cut at the divergence point.
            exemplar_name = _cut_exemplar(exemplar_name, upto, pos, seen_states, request, name, acl_name)
            # exemplar_name is in code units here; the sort key needs the real string back.
            pos = bisect_left(keys, _exemplar_key(from_java_chars(exemplar_name), exemplar_pattern))
            continue
        builder.has_resource_acls = True
        if probe:
            return
        key = principal_key(acl.principal)
        if key is None:
            raise WalkError(Outcome.ERROR, bad_principal_error(acl))
        if (key == request_principal or key == WILDCARD_PRINCIPAL_KEY) and \
                (acl.host == WILDCARD_HOST or acl.host == address) and \
                operation_matches(acl.operation, acl.permission, op):
            if acl.permission is ALLOW:
                builder.allow = acl
            elif acl.permission is DENY:
                builder.deny = acl
                return
        pos += 1


def _cut_exemplar(exemplar_name: str, upto: int, pos: int, seen_states: set[tuple[int, str]], request: Request,
                  name: str, acl_name: str) -> str:
    """The exemplar's name cut where it diverged from the ACL's: where Kafka's re-scan bug shows."""
    if upto > len(exemplar_name):
        raise WalkError(Outcome.ERROR, (
            f"java.lang.StringIndexOutOfBoundsException: begin 0, end {upto}, length {len(exemplar_name)}"
            f" (Kafka bug: the wildcard re-scan walks into {request.resource_type.name} ACL names that "
            f"sort below '*'; authorize() throws and the request fails)"))
    exemplar_name = exemplar_name[:upto]
    state = (pos, exemplar_name)
    if state in seen_states:
        raise WalkError(Outcome.NON_TERMINATING, (
            f"authorize() never returns (Kafka bug: the wildcard re-scan re-seeks to {exemplar_name!r} "
            f"forever because {name!r} and the ACL name {acl_name!r} both sort below '*'; the broker's "
            "request handler thread spins in StandardAuthorizerData.checkSection)"))
    seen_states.add(state)
    return exemplar_name


def has_resource_acls(acls: SortedAcls, resource_type: ResourceType, resource_name: str) -> bool:
    """Whether Kafka's walk meets any ACL for the resource (a walk that throws counts as yes)."""
    probe = Request("User:_", "127.0.0.1", AclOperation.ALL, resource_type, resource_name)
    try:
        return find_acl_rule(acls, probe, ("User", "_"), "127.0.0.1", probe=True).has_resource_acls
    except WalkError:
        return True


def _matches_up_to(resource: str, pattern: str) -> int:
    """Java's ``matchesUpTo``: common prefix length (callers pass code-unit strings)."""
    if resource.startswith(pattern):
        return len(pattern)
    i = 0
    limit = min(len(resource), len(pattern))
    while i < limit and resource[i] == pattern[i]:
        i += 1
    return i
