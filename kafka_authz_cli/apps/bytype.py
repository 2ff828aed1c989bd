"""``Authorizer.authorizeByResourceType``: may the principal perform an operation on *some* resource of a
type? The broker asks it for an idempotent producer's InitProducerId (KIP-679: WRITE on any topic
stands in for IDEMPOTENT_WRITE on the cluster, since Kafka 2.8).

Kafka's KRaft ``StandardAuthorizer`` does not override the interface's default method
(``org.apache.kafka.server.authorizer.Authorizer.authorizeByResourceType``), reproduced here over the
engine's bindings, quirks included:

- it first authorizes the operation on a LITERAL resource named ``hardcode`` (so that super users pass
  whatever the DENY ACLs say): any ACL that allows the operation on a topic named ``hardcode`` (a
  PREFIXED ``hard``, a ``*``), or the no-ACL default when ``allow.everyone.if.no.acl.found=true`` and no
  ACL covers ``hardcode``, answers ALLOWED for every resource;
- then only ACLs naming the operation itself or ALL count (an ALLOW of READ does not imply WRITE, and
  DESCRIBE is never implied), for the principal or exactly ``User:*``, from the client's address or ``*``;
- a DENY of ``*`` (LITERAL) denies outright; an ALLOW counts unless a DENY names the same literal or
  is a PREFIXED DENY of one of its prefixes (``allowStr.toCharArray()``, a prefix at a time).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli.acl import (
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    Outcome,
    PatternType,
    Request,
    ResourceType,
    Rule,
    StandardAuthorizer,
    java_host_address,
)

#: The name Kafka authorizes first (Authorizer.authorizeByResourceType's "hardcode").
HARDCODE = "hardcode"


@dataclass(frozen=True)
class ByTypeVerdict:
    allowed: bool
    #: Rule.SUPER_USER, Rule.DEFAULT_ALLOW or "MatchingAcl(...)" from the hardcode check, else "ByResourceType"
    rule: str
    #: the ALLOW ACL that answered (or None)
    acl: AclBinding | None
    explanation: str


def authorize_by_resource_type(authorizer: StandardAuthorizer, principal: str, host: str,
                               operation: AclOperation, resource_type: ResourceType) -> ByTypeVerdict:
    what = f"{operation.name} on any {resource_type.name}"
    first = authorizer.authorize(Request(principal, host, operation, resource_type, HARDCODE,
                                         log_if_allowed=True, log_if_denied=False))
    if first.outcome is Outcome.ALLOWED:
        assert first.rule is not None  # an allowed decision names its rule
        reasons: dict[str, str] = {
            Rule.SUPER_USER: f"{principal} is a super user",
            Rule.DEFAULT_ALLOW: f"no ACL covers the {resource_type.name} named '{HARDCODE}' Kafka checks first, and "
                                "allow.everyone.if.no.acl.found=true allows it"}
        why = reasons.get(first.rule, "")
        return ByTypeVerdict(True, first.rule, first.acl,
                             f"{what}: allowed by the check of the {resource_type.name} named '{HARDCODE}' "
                             f"that Kafka makes first ({why or first.explain()})")
    patterns = _patterns(authorizer, principal, host, operation, resource_type)
    if isinstance(patterns, ByTypeVerdict):
        return patterns
    allow, deny, wildcard_allow = patterns
    if wildcard_allow is not None:
        return ByTypeVerdict(True, "ByResourceType", wildcard_allow,
                             f"{what}: an ALLOW of every {resource_type.name} ('*') allows it")
    for pattern_type in (PatternType.LITERAL, PatternType.PREFIXED):
        for name, acl in allow[pattern_type].items():
            if pattern_type is PatternType.LITERAL and name in deny[PatternType.LITERAL]:
                continue
            if any(name[:i] in deny[PatternType.PREFIXED] for i in range(1, len(name) + 1)):
                continue
            names = "names starting with " if pattern_type is PatternType.PREFIXED else ""
            return ByTypeVerdict(True, "ByResourceType", acl,
                                 f"{what}: allowed because {acl.principal} may {acl.operation.name} "
                                 f"{resource_type.name} {names}'{name}' and no DENY covers it")
    return ByTypeVerdict(False, "ByResourceType", None,
                         f"{what}: no ALLOW ACL of {operation.name} (or ALL) on any {resource_type.name} for "
                         f"{principal} that a DENY does not cover")


def _patterns(authorizer: StandardAuthorizer, principal: str, host: str, operation: AclOperation,
              resource_type: ResourceType):
    """The ALLOW and DENY names of the ACLs that count (and the first wildcard ALLOW), or the verdict
    when one ACL decides at once (a wildcard DENY, a principal Kafka cannot parse)."""
    what = f"{operation.name} on any {resource_type.name}"
    me = KafkaPrincipal.parse(principal)
    address = java_host_address(host)
    deny: dict[PatternType, set[str]] = {PatternType.LITERAL: set(), PatternType.PREFIXED: set()}
    allow: dict[PatternType, dict[str, AclBinding]] = {PatternType.LITERAL: {}, PatternType.PREFIXED: {}}
    wildcard_allow = None
    for acl in authorizer.bindings:
        if acl.resource_type is not resource_type or (acl.host != address and acl.host != "*"):
            continue
        try:
            theirs = KafkaPrincipal.parse(acl.principal)
        except AclError:
            return ByTypeVerdict(False, "ERROR", acl, f"{what}: Kafka throws on the ACL principal "
                                 f"{acl.principal!r} (no ':'), and the request fails")
        if (theirs != me and acl.principal != "User:*") or acl.operation not in (operation, AclOperation.ALL):
            continue
        if acl.permission is AclPermissionType.DENY:
            if acl.pattern_type is PatternType.LITERAL and acl.resource_name == "*":
                return ByTypeVerdict(False, "ByResourceType", acl,
                                     f"{what}: a DENY of every {resource_type.name} ('*') denies it outright")
            if acl.pattern_type in deny:
                deny[acl.pattern_type].add(acl.resource_name)
        elif acl.pattern_type is PatternType.LITERAL and acl.resource_name == "*":
            wildcard_allow = wildcard_allow or acl
        elif acl.pattern_type in allow:
            allow[acl.pattern_type].setdefault(acl.resource_name, acl)
    return allow, deny, wildcard_allow
