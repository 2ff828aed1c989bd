"""Kafka's ``AclBindingFilter``: what DescribeAcls / DeleteAcls match (and `kafka-acls --list` asks for).

A filter is a resource pattern filter (type or ANY, name or any, pattern type LITERAL / PREFIXED /
ANY / MATCH) and an entry filter (principal, host, operation, permission, each or any). MATCH is the
filter that answers "which ACLs apply to this resource": the LITERAL name itself, the LITERAL
wildcard ``*`` and every PREFIXED pattern the name starts with. Ported from
``ResourcePatternFilter.matches`` and ``AccessControlEntryFilter.matches``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli.acl.model import (
    CLUSTER_NAME,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)


@dataclass(frozen=True)
class AclFilter:
    resource_type: ResourceType = ResourceType.ANY
    resource_name: str | None = None
    pattern_type: PatternType = PatternType.ANY
    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission: AclPermissionType = AclPermissionType.ANY

    @classmethod
    def exact(cls, b: AclBinding) -> "AclFilter":
        """The filter matching ``b`` and nothing else (what DeleteAcls is given for one ACL)."""
        return cls(b.resource_type, b.resource_name, b.pattern_type, b.principal, b.host, b.operation, b.permission)

    def matches_pattern(self, b: AclBinding) -> bool:
        if self.resource_type is not ResourceType.ANY and self.resource_type is not b.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH) and self.pattern_type is not b.pattern_type:
            return False
        if self.resource_name is None:
            return True
        if self.pattern_type is PatternType.ANY or self.pattern_type is b.pattern_type:
            return self.resource_name == b.resource_name
        if b.pattern_type is PatternType.LITERAL:
            return self.resource_name == b.resource_name or b.resource_name == WILDCARD_RESOURCE
        if b.pattern_type is PatternType.PREFIXED:
            return self.resource_name.startswith(b.resource_name)
        return False

    def matches_entry(self, b: AclBinding) -> bool:
        return ((self.principal is None or self.principal == b.principal)
                and (self.host is None or self.host == b.host)
                and (self.operation is AclOperation.ANY or self.operation is b.operation)
                and (self.permission is AclPermissionType.ANY or self.permission is b.permission))

    def matches(self, b: AclBinding) -> bool:
        return self.matches_pattern(b) and self.matches_entry(b)

    def describe(self) -> str:
        rtype = self.resource_type.name
        name = "<any>" if self.resource_name is None else self.resource_name
        return (f"ResourcePatternFilter(resourceType={rtype}, name={name}, patternType={self.pattern_type.name})"
                + (f" principal={self.principal}" if self.principal is not None else ""))


MATCH_ALL = AclFilter()


def kafka_acls_filters(topics=(), groups=(), transactional_ids=(), delegation_tokens=(), user_principals=(),
                       cluster: bool = False, pattern_type: PatternType | None = None,
                       principals=()) -> list[AclFilter]:
    """The DescribeAcls filters `kafka-acls --list` sends for these options.

    No resource option lists every ACL (of ``pattern_type`` when one is given); with resources the
    pattern type defaults to LITERAL, as in kafka-acls. Several principals are several filters.
    """
    resources: list[tuple[ResourceType, str]] = []
    resources += [(ResourceType.TOPIC, t) for t in topics]
    resources += [(ResourceType.GROUP, g) for g in groups]
    resources += [(ResourceType.TRANSACTIONAL_ID, t) for t in transactional_ids]
    resources += [(ResourceType.DELEGATION_TOKEN, t) for t in delegation_tokens]
    resources += [(ResourceType.USER, u) for u in user_principals]
    if cluster:
        resources.append((ResourceType.CLUSTER, CLUSTER_NAME))
    patterns: list[tuple[ResourceType, str | None, PatternType]]
    if resources:
        ptype = pattern_type or PatternType.LITERAL
        patterns = [(rt, name, ptype) for rt, name in resources]
    else:
        patterns = [(ResourceType.ANY, None, pattern_type or PatternType.ANY)]
    who = list(principals) or [None]
    return [AclFilter(rt, name, pt, principal) for rt, name, pt in patterns for principal in who]
