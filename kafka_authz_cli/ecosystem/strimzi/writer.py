"""Bindings as Strimzi ``KafkaUser`` resources: one per principal, refusing what the CRD cannot hold.

A principal becomes a KafkaUser only as the User Operator would give it back
(``KafkaUserModel.getUserName``): ``User:CN=<name>`` with ``tls``/``tls-external``, ``User:<name>``
with ``scram-sha-512``, ``<name>`` a Kubernetes object name. Not expressible (and so never written):
other principal types, ``User:*``, DELEGATION_TOKEN and USER resources, a CLUSTER other than
``kafka-cluster``, operations outside the CRD's enum (CREATE_TOKENS, DESCRIBE_TOKENS,
TWO_PHASE_COMMIT). Nothing is widened: a binding is written exactly or reported lost.
"""

from __future__ import annotations

from typing import Iterable

from kafka_authz_cli.acl import AclBinding, PatternType, ResourceType
from kafka_authz_cli.ecosystem.strimzi.reader import (
    AUTHENTICATIONS,
    CLUSTER_LABEL,
    CLUSTER_NAME,
    K8S_NAME,
    OPERATIONS,
    PATTERNS,
    PERMISSIONS,
    RESOURCE_TYPES,
    TLS_NAME_MAX,
)
from kafka_authz_cli.ecosystem.written import Lost, NotExpressible, Written
from kafka_authz_cli.ecosystem.yaml_text import quote

API_VERSION = "kafka.strimzi.io/v1"
#: what each written API version is for: v1 (Strimzi 0.49 and later; 1.x serves only v1), v1beta2 with one
#: rule per ``operation`` (Strimzi 0.22 to 0.51: ``operations`` came in 0.32, ``operation`` is in every one)
API_VERSIONS = {"v1": "kafka.strimzi.io/v1", "v1beta2": "kafka.strimzi.io/v1beta2"}
DEFAULT_CLUSTER = "my-cluster"
_OP_NAMES = {op: name for name, op in OPERATIONS.items()}
_TYPE_NAMES = {t: name for name, t in RESOURCE_TYPES.items()}
_PATTERN_NAMES = {p: name for name, p in PATTERNS.items()}
_PERMISSION_NAMES = {p: name for name, p in PERMISSIONS.items()}


def user_of(principal: str, authentication: str | None) -> tuple[str, str] | str:
    """``(name, authentication)`` of the KafkaUser for ``principal``, or why there is none.

    ``authentication`` None: ``User:CN=x`` is a tls user, ``User:x`` a scram-sha-512 one."""
    ptype, sep, rest = principal.partition(":")
    if ptype != "User" or not sep:
        return "a KafkaUser's ACLs are always for a User principal"
    if rest == "*":
        return "User:* (every user) is no KafkaUser"
    tls = rest.startswith("CN=")
    auth = authentication or ("tls" if tls else "scram-sha-512")
    if auth in ("tls", "tls-external"):
        if not tls:
            return f"a {auth} KafkaUser's principal is User:CN=<name>"
        name = rest[3:]
        if len(name) > TLS_NAME_MAX:
            return f"a {auth} user name holds at most {TLS_NAME_MAX} characters"
    else:
        name = rest
    if len(name) > 253 or not K8S_NAME.fullmatch(name):
        return f"{name!r} is not a Kubernetes object name (lower-case letters, digits, '-', '.')"
    return name, auth


def why_not(binding: AclBinding) -> str | None:
    """Why the CRD cannot hold this binding's resource or operation (None: it can)."""
    if binding.resource_type not in _TYPE_NAMES:
        return f"no {binding.resource_type.name} resources in a KafkaUser"
    if binding.resource_type is ResourceType.CLUSTER and (
            binding.resource_name != CLUSTER_NAME or binding.pattern_type is not PatternType.LITERAL):
        return f"a KafkaUser's cluster resource is always LITERAL {CLUSTER_NAME}"
    if binding.operation not in _OP_NAMES:
        return f"no {binding.operation.name} operation in a KafkaUser"
    if binding.pattern_type not in _PATTERN_NAMES:
        return f"no {binding.pattern_type.name} pattern in a KafkaUser"
    return None


def write(bindings: Iterable[AclBinding], authentication: str | None = None, cluster: str = DEFAULT_CLUSTER,
          lossy: bool = False, api_version: str = API_VERSION) -> Written:
    """One KafkaUser per principal, one rule per resource, host and permission with its operations.
    Sorted (users by name; rules by resource type, name, pattern type, permission, host; operations in
    Kafka's order) whatever order the bindings came in: a cluster's DescribeAcls order is arbitrary, and
    a pull committed to git must change only where the ACLs did. Raises :class:`NotExpressible` on any binding it cannot
    write, unless ``lossy`` (then the lost ones are returned with the text)."""
    if api_version in API_VERSIONS:
        api_version = API_VERSIONS[api_version]
    if api_version not in API_VERSIONS.values():
        raise ValueError(f"api version {api_version!r}: expected one of {', '.join(API_VERSIONS)}")
    if authentication is not None and authentication not in AUTHENTICATIONS:
        raise ValueError(f"authentication {authentication!r}: expected one of {', '.join(AUTHENTICATIONS)}")
    users: dict[str, tuple[str, dict]] = {}  # name -> (authentication, rules)
    lost: list[Lost] = []
    for b in dict.fromkeys(bindings):
        user = user_of(b.principal, authentication)
        reason = user if isinstance(user, str) else why_not(b)
        if reason is not None:
            lost.append(Lost(b, reason))
            continue
        assert not isinstance(user, str)  # a str is the reason there is no KafkaUser
        name, auth = user
        if name in users and users[name][0] != auth:
            lost.append(Lost(b, f"KafkaUser {name} is already written for User:{'CN=' * (auth == 'scram-sha-512')}"
                                f"{name}; one KafkaUser cannot hold both principals"))
            continue
        rules = users.setdefault(name, (auth, {}))[1]
        rules.setdefault((b.permission, b.resource_type, b.resource_name, b.pattern_type, b.host), []).append(
            b.operation)
    if lost and not lossy:
        raise NotExpressible("strimzi", lost)
    docs = [_user_yaml(name, *users[name], cluster, api_version) for name in sorted(users)]
    return Written("---\n".join(docs), lost)


def _rule_order(key: tuple) -> tuple:
    permission, rtype, rname, pattern, host = key
    return rtype.value, rname, pattern.value, permission.value, host


def _user_yaml(name: str, auth: str, rules: dict, cluster: str, api_version: str) -> str:
    out = [f"apiVersion: {api_version}", "kind: KafkaUser", "metadata:", f"  name: {quote(name)}", "  labels:",
           f"    {CLUSTER_LABEL}: {quote(cluster)}", "spec:", "  authentication:", f"    type: {auth}",
           "  authorization:", "    type: simple", "    acls:"]
    singular = api_version != API_VERSION
    for key in sorted(rules, key=_rule_order):
        (permission, rtype, rname, pattern, host), ops = key, sorted(rules[key], key=lambda op: op.value)
        for group in ([op] for op in ops) if singular else [ops]:
            out.append("      - resource:")
            out.append(f"          type: {_TYPE_NAMES[rtype]}")
            if rtype is not ResourceType.CLUSTER:
                out.append(f"          name: {quote(rname)}")
                out.append(f"          patternType: {_PATTERN_NAMES[pattern]}")
            if singular:
                out.append(f"        operation: {_OP_NAMES[group[0]]}")
            else:
                out.append(f"        operations: [{', '.join(_OP_NAMES[op] for op in group)}]")
            out.append(f"        host: {quote(host)}")
            out.append(f"        type: {_PERMISSION_NAMES[permission]}")
    if not rules:
        out[-1] = "    acls: []"
    return "\n".join(out) + "\n"
