"""Kafka's ACL vocabulary: enums with their wire codes, principals, patterns, entries, bindings.

Pure data and validation, no I/O. Names, codes and messages follow Apache Kafka 4.x
(``org.apache.kafka.common.acl`` / ``resource`` / ``security.auth``).
"""

from __future__ import annotations

import enum
import functools
import ipaddress
import re
from dataclasses import dataclass
from typing import Iterable


def _brief(value, limit: int = 60) -> str:
    """A value for an error message, cut (saying so) when long: a 10 MB name must not become a 10 MB line."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + f"... ({len(value):,} characters)"
    return repr(value)


class AclError(ValueError):
    """A binding, principal or name that Kafka would reject; the message is one line."""


#: Memos: a member's PascalCase name, and what parse() made of a spelling it accepted.
_PASCAL: dict = {}
_PARSED: dict = {}


class _KafkaEnum(enum.Enum):
    """An enum whose value is Kafka's wire code and whose name is Kafka's Java enum name."""

    # Members are singletons compared by identity: the C-level identity hash keeps the engine's
    # dict and set lookups off Enum's Python-level __hash__.
    __hash__ = object.__hash__

    #: Kafka's wire code (the value), as a plain attribute of each member: ``value`` goes through
    #: Enum's descriptor, which cost a fifth of a million-ACL compaction's proof (buckets ordered by
    #: operation and permission code).
    code: int

    def __init__(self, *args) -> None:
        self.code = self._value_

    @property
    def pascal(self) -> str:
        text = _PASCAL.get(self)
        if text is None:
            text = _PASCAL[self] = "".join(part.capitalize() for part in self.name.split("_"))
        return text

    @classmethod
    def parse(cls, text: str, what: str | None = None):
        """Accept Kafka's spellings case-insensitively: ``READ``, ``Read``, ``IdempotentWrite``,
        ``IDEMPOTENT_WRITE``, ``idempotent-write``. Filter-only values (ANY, MATCH) and UNKNOWN
        are refused here; callers that want filters use :meth:`parse_filter`."""
        member = _PARSED.get((cls, text)) if isinstance(text, str) else None
        if member is not None:
            return member
        member = cls._lookup(text)
        if member is None or member.name in ("UNKNOWN",) or member.name in cls._filter_only():
            raise AclError(f"unknown {what or cls._label()} {_brief(text)}; expected one of "
                           + ", ".join(m.name for m in cls.concrete()))
        if isinstance(text, str) and len(_PARSED) < 4096:
            _PARSED[(cls, text)] = member  # files spell the same few names again and again
        return member

    @classmethod
    def parse_filter(cls, text: str):
        member = cls._lookup(text)
        if member is None or member.name == "UNKNOWN":
            raise AclError(f"unknown {cls._label()} {_brief(text)}")
        return member

    @classmethod
    def _lookup(cls, text: object):
        if isinstance(text, cls):
            return text
        if not isinstance(text, str):
            return None
        key = text.strip().replace("-", "").replace("_", "").replace(" ", "").upper()
        return _LOOKUP[cls].get(key)

    @classmethod
    def concrete(cls):
        return [m for m in cls if m.name != "UNKNOWN" and m.name not in cls._filter_only()]

    @classmethod
    def _filter_only(cls) -> tuple[str, ...]:
        return ("ANY", "MATCH")

    @classmethod
    def _label(cls) -> str:
        return cls.__name__


class ResourceType(_KafkaEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7

    @classmethod
    def _label(cls) -> str:
        return "resource type"


class AclOperation(_KafkaEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14
    # Kafka 4.1+ (KIP-939): two-phase commit on transactional ids.
    TWO_PHASE_COMMIT = 15

    @classmethod
    def _label(cls) -> str:
        return "operation"


class PatternType(_KafkaEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4

    @classmethod
    def _label(cls) -> str:
        return "pattern type"


class AclPermissionType(_KafkaEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3

    @classmethod
    def _label(cls) -> str:
        return "permission type"


_LOOKUP: dict[type, dict[str, _KafkaEnum]] = {
    cls: {m.name.replace("_", ""): m for m in cls}
    for cls in (ResourceType, AclOperation, PatternType, AclPermissionType)
}

WILDCARD_RESOURCE = "*"
WILDCARD_HOST = "*"
WILDCARD_PRINCIPAL = "User:*"
CLUSTER_NAME = "kafka-cluster"

#: Operations each resource type supports (``AclEntry.supportedOperations``); ALL is valid for all.
SUPPORTED_OPERATIONS: dict[ResourceType, tuple[AclOperation, ...]] = {
    ResourceType.TOPIC: (AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DELETE,
                         AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS,
                         AclOperation.ALTER_CONFIGS),
    ResourceType.GROUP: (AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE,
                         AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS),
    ResourceType.CLUSTER: (AclOperation.CREATE, AclOperation.ALTER, AclOperation.DESCRIBE,
                           AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                           AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE),
    ResourceType.TRANSACTIONAL_ID: (AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.TWO_PHASE_COMMIT),
    ResourceType.DELEGATION_TOKEN: (AclOperation.DESCRIBE,),
    ResourceType.USER: (AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS),
}

#: ALLOW ACLs with these operations also allow DESCRIBE / DESCRIBE_CONFIGS (never DENY ACLs).
IMPLIES_DESCRIBE = frozenset({AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE,
                              AclOperation.DELETE, AclOperation.ALTER})
IMPLIES_DESCRIBE_CONFIGS = frozenset({AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS})


def operations_for(resource_type: ResourceType) -> tuple[AclOperation, ...]:
    """Operations a binding on ``resource_type`` may carry, ALL first (what kafka-acls accepts)."""
    return (AclOperation.ALL,) + SUPPORTED_OPERATIONS[resource_type]


@dataclass(frozen=True, slots=True)
class KafkaPrincipal:
    """``principalType:name``, split at the first colon exactly as ``SecurityUtils.parseKafkaPrincipal``."""

    principal_type: str
    name: str

    @classmethod
    def parse(cls, text: str) -> "KafkaPrincipal":
        if text is None or ":" not in text:
            raise AclError("expected a string in format principalType:principalName but got "
                           + (text if isinstance(text, str) and len(text) <= 200 else _brief(text)))
        ptype, _, name = text.partition(":")
        return cls(ptype, name)

    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"


@dataclass(frozen=True, slots=True)
class ResourcePattern:
    resource_type: ResourceType
    name: str
    pattern_type: PatternType = PatternType.LITERAL

    def __str__(self) -> str:
        return (f"ResourcePattern(resourceType={self.resource_type.name}, name={self.name}, "
                f"patternType={self.pattern_type.name})")


@dataclass(frozen=True, slots=True)
class AccessControlEntry:
    principal: str
    host: str
    operation: AclOperation
    permission: AclPermissionType

    def __str__(self) -> str:
        return (f"(principal={self.principal}, host={self.host}, operation={self.operation.name}, "
                f"permissionType={self.permission.name})")


# Not frozen=True: a frozen dataclass's __init__ sets each field through object.__setattr__, six
# times the cost of plain slot stores, and a million ACLs are built on every load. Nothing assigns
# to a binding's fields (it is hashed: sets, dict keys); treat it as immutable.
@dataclass(slots=True, unsafe_hash=True)
class AclBinding:
    """One ACL: a resource pattern and an entry. Field order follows Kafka's ``StandardAcl``."""

    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission: AclPermissionType

    @property
    def pattern(self) -> ResourcePattern:
        return ResourcePattern(self.resource_type, self.resource_name, self.pattern_type)

    @property
    def entry(self) -> AccessControlEntry:
        return AccessControlEntry(self.principal, self.host, self.operation, self.permission)

    @classmethod
    def of(cls, resource_type, resource_name: str, pattern_type, principal: str, host: str,
           operation, permission) -> "AclBinding":
        """Build from Kafka spellings (any case) without broker validation."""
        return cls(ResourceType.parse(resource_type), resource_name, PatternType.parse(pattern_type),
                   principal, host, AclOperation.parse(operation), AclPermissionType.parse(permission))

    def __reduce__(self):
        # Pickled as its fields (every protocol; the frozen dataclass had its own __getstate__).
        return (AclBinding, (self.resource_type, self.resource_name, self.pattern_type, self.principal, self.host,
                             self.operation, self.permission))

    def standard_acl_str(self) -> str:
        """``StandardAcl.toString()``: the text Kafka prints after ``based on rule MatchingAcl(acl=``."""
        return (f"StandardAcl(resourceType={self.resource_type.name}, resourceName={self.resource_name}, "
                f"patternType={self.pattern_type.name}, principal={self.principal}, host={self.host}, "
                f"operation={self.operation.name}, permissionType={self.permission.name})")

    def __str__(self) -> str:
        return f"(pattern={self.pattern}, entry={self.entry})"

    def as_dict(self) -> dict[str, str]:
        return {
            "resource_type": self.resource_type.name,
            "resource_name": self.resource_name,
            "pattern_type": self.pattern_type.name,
            "principal": self.principal,
            "host": self.host,
            "operation": self.operation.name,
            "permission": self.permission.name,
        }


def validation_errors(binding: AclBinding) -> list[str]:
    """What the broker's CreateAcls would refuse about ``binding`` (empty when it would accept it)."""
    # The common case in a few comparisons (a million ACLs are checked on every load).
    if (binding.operation in _VALID_OPERATIONS.get(binding.resource_type, ()) and binding.pattern_type in _STORABLE
            and binding.permission in _STORABLE and binding.host and binding.resource_name
            and ":" in binding.principal
            and (binding.resource_type is not ResourceType.CLUSTER or binding.resource_name == CLUSTER_NAME)):
        return []
    errors: list[str] = []
    if binding.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        errors.append(f"pattern type {binding.pattern_type.name} is not valid for an ACL; "
                      "only LITERAL and PREFIXED can be stored")
    if binding.resource_type in (ResourceType.ANY, ResourceType.UNKNOWN):
        errors.append(f"resource type {binding.resource_type.name} is not a concrete resource type")
    if binding.resource_name == "":
        errors.append("resource name must not be empty")
    if binding.resource_type is ResourceType.CLUSTER and binding.resource_name != CLUSTER_NAME:
        errors.append(f"the CLUSTER resource must be named {CLUSTER_NAME!r}, not {_brief(binding.resource_name)}")
    if ":" not in binding.principal:
        errors.append(f"principal {_brief(binding.principal)} has no ':' (expected principalType:principalName)")
    if binding.operation in (AclOperation.ANY, AclOperation.UNKNOWN):
        errors.append(f"operation {binding.operation.name} is not valid for an ACL")
    elif binding.resource_type in SUPPORTED_OPERATIONS and binding.operation not in operations_for(binding.resource_type):
        errors.append(f"operation {binding.operation.name} is not supported on {binding.resource_type.name}; "
                      "supported: " + ", ".join(o.name for o in operations_for(binding.resource_type)))
    if binding.permission not in (AclPermissionType.ALLOW, AclPermissionType.DENY):
        errors.append(f"permission {binding.permission.name} is not valid for an ACL")
    if binding.host == "":
        errors.append("host must not be empty (use '*' for any host)")
    return errors


_VALID_OPERATIONS = {t: frozenset(operations_for(t)) for t in SUPPORTED_OPERATIONS}
_STORABLE = frozenset({PatternType.LITERAL, PatternType.PREFIXED, AclPermissionType.ALLOW, AclPermissionType.DENY})


def validate(binding: AclBinding) -> AclBinding:
    errors = validation_errors(binding)
    if errors:
        raise AclError("; ".join(errors))
    return binding


def validate_all(bindings: Iterable[AclBinding]) -> list[tuple[int, AclBinding, list[str]]]:
    """Every invalid binding with its index and reasons."""
    return [(i, b, errs) for i, b in enumerate(bindings) if (errs := validation_errors(b))]


# ---------------------------------------------------------------------------------------------
# Client addresses: Kafka compares ACL hosts with InetAddress.getHostAddress() text.

_IPV4_SHAPE = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")


@functools.lru_cache(maxsize=65536)
def java_host_address(host: str) -> str:
    """The text Java's ``InetAddress.getByName(host).getHostAddress()`` gives for an IP literal.

    IPv6 prints in full, uncompressed, lower-case form without leading zeros (``0:0:0:0:0:0:0:1``);
    an IPv4-mapped IPv6 address becomes the IPv4 text. Raises :class:`AclError` for anything that
    is not an IP literal: the broker only ever sees IP addresses.
    """
    text = host.strip()
    scope = ""
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if "%" in text:
        text, _, scope = text.partition("%")
        scope = "%" + scope
    try:
        if ":" not in text and not _IPV4_SHAPE.fullmatch(text):
            # Without ':' only IPv4 parses, and only as four groups of ASCII digits: refused here at
            # once (AuthorizerBenchmark's wildcard section has 20,000 hosts like '127.0.09900').
            raise ValueError(text)
        addr = ipaddress.ip_address(text)
    except ValueError:
        raise AclError(f"client host {_brief(host)} is not an IP address (the broker compares ACL hosts "
                       "with the client's IP address text)") from None
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        groups = addr.exploded.split(":")
        return ":".join(format(int(g, 16), "x") for g in groups) + scope
    return str(addr)


_NOT_KAFKAS_TEXT = "not written as Kafka writes the client's address"


@functools.lru_cache(maxsize=4096)
def _host_problem(host: str) -> tuple[str, str | None] | None:
    """``(kind, canonical)`` for a host no client can match (``canonical``: how Kafka writes that
    address, when it is one), or None when it can."""
    if host in (WILDCARD_HOST, ""):
        return None  # '' is refused by CreateAcls (see validation_errors)
    try:
        canonical = java_host_address(host)
    except AclError:
        canonical = None
    if canonical == host:
        return None
    if canonical is not None:
        return _NOT_KAFKAS_TEXT, canonical
    if "/" in host:
        return "a CIDR range", None
    if "*" in host:
        return "a host pattern", None
    return "not an IP address", None


def unmatchable_host_kind(host: str) -> str | None:
    """Which kind of host no client can match (a short phrase to count ACLs by), or None when it can."""
    problem = _host_problem(host)
    return problem[0] if problem else None


@functools.lru_cache(maxsize=4096)
def unmatchable_host_reason(host: str) -> str | None:
    """Why an ACL host can never match a client, or None when it can.

    Kafka matches an ACL host only when it is ``*`` or the exact text of the client's
    ``InetAddress.getHostAddress()``: IPv6 in full uncompressed form, no names, no ranges.
    """
    problem = _host_problem(host)
    if problem is None:
        return None
    kind, canonical = problem
    shown = _brief(host)
    if kind == _NOT_KAFKAS_TEXT:
        return (f"ACL host {shown} never matches: Kafka compares ACL hosts as text with the client's address, "
                f"which it writes {canonical!r}; write the host as {canonical!r}")
    if kind == "a CIDR range":
        return (f"ACL host {shown} never matches: Kafka has no CIDR ranges, an ACL host is one IP address "
                "(or '*' for every host)")
    if kind == "a host pattern":
        return (f"ACL host {shown} never matches: Kafka has no host patterns, only '*' alone for every host")
    return (f"ACL host {shown} never matches: it is not an IP address, and the broker compares ACL hosts with "
            "the client's IP address (it never resolves names)")



