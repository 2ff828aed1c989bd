"""A decision engine whose answers are exactly those of Kafka's KRaft ``StandardAuthorizer``.

Kafka keeps every ACL in one set sorted by (resource type, resource name *descending*, pattern
type, operation, principal, host, permission) and answers a request by walking sections of that
set. That walk is also what names the deciding ACL, and its corner cases are observable: the
LITERAL ``*`` wildcard is skipped for names starting with ``*``; the reported DENY is the first
matching DENY in walk order, the reported ALLOW the last matching ALLOW; names starting below
``*`` send the second walk into a loop or an exception.

This module answers the common case from hash indexes (no scan: the cost does not grow with the
number of ACLs) and reproduces the walk itself, step by step, only for the inputs where the walk's
own quirks decide the outcome (ACLs with an empty name, or names sorting below ``*`` on both
sides). Both paths are checked against the conformance cases and against each other.
"""

from __future__ import annotations

import enum
import functools
from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterable, Sequence

from kafka_authz_cli._java.lang import java_trim
from kafka_authz_cli.acl.apikeys import api_key_name
from kafka_authz_cli.acl.model import (
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourceType,
    java_host_address,
    unmatchable_host_reason,
    utf16_key,
)

LITERAL = PatternType.LITERAL
PREFIXED = PatternType.PREFIXED
ALLOW = AclPermissionType.ALLOW
DENY = AclPermissionType.DENY
_WILDCARD_PRINCIPAL_KEY = ("User", "*")


class Outcome(enum.Enum):
    ALLOWED = "ALLOWED"
    DENIED = "DENIED"
    #: Kafka throws AuthorizerNotReadyException: the initial ACL load has not completed.
    NOT_READY = "NOT_READY"
    #: Kafka's authorize() throws (a bug or a malformed stored ACL); the request fails.
    ERROR = "ERROR"
    #: Kafka's authorize() never returns (the wildcard re-scan bug); the request thread spins.
    NON_TERMINATING = "NON_TERMINATING"


class AuthorizerConfigError(AclError):
    """``configure()`` would throw: the broker would not start with this configuration."""


@dataclass(frozen=True, slots=True)
class Request:
    """One ``authorize()`` call: a principal acting from a host on one LITERAL resource."""

    principal: str
    host: str
    operation: AclOperation
    resource_type: ResourceType
    resource_name: str
    api_key: int | None = None
    resource_ref_count: int = 1
    log_if_allowed: bool = True
    log_if_denied: bool = True


@dataclass(slots=True)
class Decision:
    request: Request
    outcome: Outcome
    #: Kafka's rule text: SuperUser, DefaultAllow, DefaultDeny or MatchingAcl(acl=StandardAcl(...)).
    rule: str | None
    acl: AclBinding | None
    client_address: str
    #: For ERROR / NOT_READY / NON_TERMINATING: the Java exception or what the broker does.
    error: str | None = None
    #: For DefaultDeny: whether some ACL covers the resource (else the configured default applied).
    has_resource_acls: bool = True

    @property
    def decision(self) -> str | None:
        return self.outcome.value if self.outcome in (Outcome.ALLOWED, Outcome.DENIED) else None

    @property
    def allowed(self) -> bool:
        return self.outcome is Outcome.ALLOWED

    @property
    def audit_level(self) -> str | None:
        if self.outcome is Outcome.ALLOWED:
            return "DEBUG" if self.request.log_if_allowed else "TRACE"
        if self.outcome is Outcome.DENIED:
            return "INFO" if self.request.log_if_denied else "TRACE"
        return None

    @property
    def audit(self) -> str | None:
        """The message Kafka writes to ``kafka.authorizer.logger`` for this decision."""
        if self.decision is None:
            return None
        r = self.request
        principal = KafkaPrincipal.parse(r.principal)
        verb = "Allowed" if self.allowed else "Denied"
        return (f"Principal = {principal} is {verb} operation = {r.operation.name} from host = "
                f"{self.client_address} on resource = {r.resource_type.pascal}:LITERAL:{r.resource_name} "
                f"for request = {api_key_name(r.api_key)} with resourceRefCount = {r.resource_ref_count} "
                f"based on rule {self.rule}")

    def explain(self) -> str:
        """The decision in words, for people."""
        r = self.request
        if self.outcome is Outcome.NOT_READY:
            return "the authorizer has not finished loading ACLs: only super users get an answer"
        if self.outcome in (Outcome.ERROR, Outcome.NON_TERMINATING):
            return self.error or self.outcome.value
        if self.rule == "SuperUser":
            return f"{r.principal} is listed in super.users: allowed before any ACL is consulted"
        if self.rule == "DefaultAllow":
            return (f"no ACL exists for any {r.resource_type.name} matching {r.resource_name!r}; "
                    "allow.everyone.if.no.acl.found=true allows it")
        if self.rule == "DefaultDeny":
            return _explain_default_deny(self)
        assert self.acl is not None
        acl = self.acl
        who = "everyone (User:*)" if acl.principal == "User:*" else acl.principal
        host = "any host" if acl.host == WILDCARD_HOST else f"host {acl.host}"
        if acl.pattern_type is PREFIXED:
            res = f"{acl.resource_type.name} names starting with {acl.resource_name!r}"
        elif acl.resource_name == WILDCARD_RESOURCE:
            res = f"every {acl.resource_type.name} (wildcard '*')"
        else:
            res = f"{acl.resource_type.name} {acl.resource_name!r}"
        verb = "allows" if acl.permission is ALLOW else "denies"
        op = acl.operation.name
        implied = ""
        if acl.permission is ALLOW and acl.operation not in (r.operation, AclOperation.ALL):
            implied = f" ({op} implies {r.operation.name})"
        elif acl.operation is AclOperation.ALL and r.operation is not AclOperation.ALL:
            implied = " (ALL covers every operation)"
        return f"{acl.permission.name} ACL {verb} {op} on {res} to {who} from {host}{implied}"


def _explain_default_deny(d: Decision) -> str:
    r = d.request
    if not d.has_resource_acls:
        return (f"no ACL covers {r.resource_type.name} {r.resource_name!r} and "
                "allow.everyone.if.no.acl.found is false")
    return (f"ACLs exist for this {r.resource_type.name}, but none allows {r.principal} to "
            f"{r.operation.name} from {d.client_address} (an ACL for anyone on a resource switches the "
            "no-ACL default off for everyone)")


def parse_super_users(config: str | Iterable[str] | None) -> frozenset[str]:
    """``super.users`` as Kafka's StandardAuthorizer reads it: split on ``;``, each entry trimmed,
    empties dropped, each checked to be ``type:name``, the trimmed text kept verbatim."""
    if config is None:
        return frozenset()
    if not isinstance(config, str):
        config = ";".join(config)
    users = []
    for entry in config.split(";"):
        entry = java_trim(entry)
        if not entry:
            continue
        if ":" not in entry:
            raise AuthorizerConfigError(
                f"expected a string in format principalType:principalName but got {entry}")
        users.append(entry)
    return frozenset(users)


# ---------------------------------------------------------------------------------------------
# Matching one ACL (Kafka's findResult), shared by every path.

def _operation_matches(acl_op: AclOperation, acl_perm: AclPermissionType, op: AclOperation) -> bool:
    if acl_op is AclOperation.ALL:
        return True
    if acl_perm is ALLOW:
        if op is AclOperation.DESCRIBE:
            return acl_op in IMPLIES_DESCRIBE
        if op is AclOperation.DESCRIBE_CONFIGS:
            return acl_op in IMPLIES_DESCRIBE_CONFIGS
    return acl_op is op


def _acl_principal_key(principal: str) -> tuple[str, str] | None:
    if ":" not in principal:
        return None
    ptype, _, name = principal.partition(":")
    return (ptype, name)


def _bad_principal_error(acl: AclBinding) -> str:
    return (f"java.lang.IllegalStateException: Could not parse principal from `{acl.principal}` "
            "(no colon is present separating the principal type from the principal name)")


def _acl_order_key(acl: AclBinding) -> tuple:
    """Order of ACLs inside one resource pattern in Kafka's sorted set."""
    return (acl.operation.code, utf16_key(acl.principal), utf16_key(acl.host), acl.permission.code)


def _ops_matched_by(acl_op: AclOperation, acl_perm: AclPermissionType) -> frozenset[AclOperation]:
    return frozenset(op for op in AclOperation if _operation_matches(acl_op, acl_perm, op))


#: For each (ACL operation, permission): the request operations that ACL matches.
_MATCHED_OPS = {(o, p): _ops_matched_by(o, p) for o in AclOperation for p in AclPermissionType}


class _Bucket:
    """All ACLs of one resource pattern, indexed by (principal type, name, host) for O(1) matching."""

    __slots__ = ("acls", "entries", "bad", "odd_hosts")

    def __init__(self) -> None:
        self.acls: list[AclBinding] = []
        #: ACLs whose host no client address can ever equal (``::1``, a CIDR, a host name), for notes.
        self.odd_hosts: tuple[AclBinding, ...] = ()
        #: (principal type, principal name, host) -> ((acl, request ops it matches), ...) in Kafka order.
        self.entries: dict[tuple[str, str, str], tuple[tuple[AclBinding, frozenset], ...]] = {}
        self.bad: AclBinding | None = None  # first ACL (in Kafka order) whose principal has no ':'

    def add(self, acl: AclBinding) -> None:
        self.acls.append(acl)

    def freeze(self) -> None:
        self.acls.sort(key=_acl_order_key)
        grouped: dict[tuple[str, str, str], list] = {}
        for acl in self.acls:
            key = _acl_principal_key(acl.principal)
            if key is None:
                if self.bad is None:
                    self.bad = acl
                continue
            grouped.setdefault((key[0], key[1], acl.host), []).append(
                (acl, _MATCHED_OPS[(acl.operation, acl.permission)]))
        self.entries = {k: tuple(v) for k, v in grouped.items()}
        self.odd_hosts = tuple(acl for acl in self.acls if unmatchable_host_reason(acl.host))

    def matches(self, keys: tuple[tuple[str, str, str], ...], op: AclOperation) -> list[AclBinding]:
        """Matching ACLs of this bucket in Kafka's order; ``keys`` are the request's lookup keys."""
        found: list[AclBinding] = []
        lists = 0
        for key in keys:
            entries = self.entries.get(key)
            if entries:
                before = len(found)
                for acl, ops in entries:
                    if op in ops:
                        found.append(acl)
                lists += len(found) > before
        if lists > 1:
            found.sort(key=_acl_order_key)
        return found


@functools.lru_cache(maxsize=4096)
def _lookup_keys(principal_key: tuple[str, str], host: str) -> tuple[tuple[str, str, str], ...]:
    """The (principal, host) keys whose ACLs can match a request: its own principal or User:*,
    its own host or '*'."""
    principals = (principal_key,) if principal_key == _WILDCARD_PRINCIPAL_KEY else (principal_key, _WILDCARD_PRINCIPAL_KEY)
    hosts = (host,) if host == WILDCARD_HOST else (host, WILDCARD_HOST)
    return tuple((p[0], p[1], h) for p in principals for h in hosts)


class _TypeIndex:
    __slots__ = ("literal", "prefixed", "prefixed_lengths", "has_empty_name", "has_names_below_star",
                 "_sorted", "_sorted_keys", "_sorted_units", "plans")

    def __init__(self) -> None:
        self.literal: dict[str, _Bucket] = {}
        self.prefixed: dict[str, _Bucket] = {}
        self.prefixed_lengths: tuple[int, ...] = ()
        self.has_empty_name = False
        self.has_names_below_star = False
        self._sorted: list[AclBinding] | None = None
        self._sorted_keys: list[tuple] | None = None
        self._sorted_units: list[str] | None = None
        #: resource name -> candidate buckets in walk order (None: only the walk can tell).
        self.plans: dict[str, tuple | None] = {}

    def add(self, acl: AclBinding) -> None:
        table = self.literal if acl.pattern_type is LITERAL else self.prefixed
        bucket = table.get(acl.resource_name)
        if bucket is None:
            bucket = table[acl.resource_name] = _Bucket()
        bucket.add(acl)
        name = acl.resource_name
        if name == "":
            self.has_empty_name = True
        if name == "" or name[0] < "*":
            self.has_names_below_star = True
        if _has_lone_surrogate(name):
            # Prefixes in UTF-16 units and in code points differ only for such names: let the walk decide.
            self.has_empty_name = True

    def freeze(self) -> None:
        for bucket in self.literal.values():
            bucket.freeze()
        for bucket in self.prefixed.values():
            bucket.freeze()
        self.prefixed_lengths = tuple(sorted({len(n) for n in self.prefixed}, reverse=True))

    # -- Kafka's sorted-set walk, used only where its quirks decide -------------------------

    def sorted_acls(self) -> tuple[list[AclBinding], list[tuple], list[str]]:
        if self._sorted is None:
            acls = [a for b in self.literal.values() for a in b.acls] + [a for b in self.prefixed.values() for a in b.acls]
            keyed = sorted(((_java_sort_key(a), a) for a in acls), key=lambda t: t[0])
            self._sorted_keys = [k for k, _ in keyed]
            self._sorted = [a for _, a in keyed]
            self._sorted_units = [_units(a.resource_name) for a in self._sorted]
        return self._sorted, self._sorted_keys, self._sorted_units  # type: ignore[return-value]


def _desc_name_key(name: str) -> tuple[int, ...]:
    # Kafka sorts names in reverse String.compareTo order: negate UTF-16 code units and end with a
    # sentinel above every negated unit so that a longer name sorts before its own prefix.
    units = utf16_key(name)
    return tuple(-((units[i] << 8) | units[i + 1]) for i in range(0, len(units), 2)) + (1,)


def _java_sort_key(acl: AclBinding) -> tuple:
    return (_desc_name_key(acl.resource_name), acl.pattern_type.code) + _acl_order_key(acl)


def _exemplar_key(name: str, pattern_code: int) -> tuple:
    # Operation UNKNOWN (0) and empty principal/host sort before every stored ACL of the same pattern.
    return (_desc_name_key(name), pattern_code, 0, b"", b"", 0)


class _WalkError(Exception):
    def __init__(self, outcome: Outcome, message: str):
        super().__init__(message)
        self.outcome = outcome
        self.message = message


class _RuleBuilder:
    __slots__ = ("deny", "allow", "has_resource_acls")

    def __init__(self) -> None:
        self.deny: AclBinding | None = None
        self.allow: AclBinding | None = None
        self.has_resource_acls = False


class StandardAuthorizer:
    """Kafka's KRaft ``StandardAuthorizer`` over a fixed ACL set.

    ``super_users`` is the ``super.users`` string (or a list of entries); ``load_complete=False``
    models a broker whose initial ACL load has not finished.
    """

    def __init__(self, bindings: Iterable[AclBinding], super_users: str | Iterable[str] | None = None,
                 allow_everyone_if_no_acl_found: bool = False, load_complete: bool = True,
                 force_walk: bool = False):
        #: Decide every request with Kafka's own sorted-set walk (slow; for cross-checking).
        self.force_walk = force_walk
        self.super_users = parse_super_users(super_users)
        self.allow_everyone_if_no_acl_found = allow_everyone_if_no_acl_found
        self.load_complete = load_complete
        self.bindings: list[AclBinding] = []
        #: Bindings given more than once; Kafka stores each ACL once.
        self.duplicates: list[AclBinding] = []
        self._types: dict[ResourceType, _TypeIndex] = {}
        seen: set[AclBinding] = set()
        for acl in bindings:
            if acl in seen:
                self.duplicates.append(acl)
                continue
            seen.add(acl)
            self.bindings.append(acl)
            index = self._types.get(acl.resource_type)
            if index is None:
                index = self._types[acl.resource_type] = _TypeIndex()
            index.add(acl)
        for index in self._types.values():
            index.freeze()
        self._default = Outcome.ALLOWED if allow_everyone_if_no_acl_found else Outcome.DENIED

    # -- public API -------------------------------------------------------------------------

    def authorize(self, request: Request) -> Decision:
        address = _client_address(request.host)
        principal = _parse_principal(request.principal)
        if request.principal in self.super_users:
            return Decision(request, Outcome.ALLOWED, "SuperUser", None, address)
        if not self.load_complete:
            return Decision(request, Outcome.NOT_READY, None, None, address,
                            "org.apache.kafka.common.errors.AuthorizerNotReadyException")
        return self._find_rule(request, (principal.principal_type, principal.name), address)

    def authorize_many(self, requests: Sequence[Request]) -> list[Decision]:
        """Decide many requests; identical requests are decided once and candidate ACL sections
        are shared by every request on the same resource."""
        memo: dict[Request, Decision] = {}
        out = []
        for request in requests:
            decision = memo.get(request)
            if decision is None:
                decision = memo[request] = self.authorize(request)
            out.append(decision)
        return out

    def authorized_operations(self, principal: str, host: str, resource_type: ResourceType,
                              resource_name: str) -> list[AclOperation]:
        """What Kafka returns as authorized operations (KIP-430): each operation the resource type
        supports, authorized with logging off, kept when ALLOWED."""
        ops = []
        for op in SUPPORTED_OPERATIONS[resource_type]:
            d = self.authorize(Request(principal, host, op, resource_type, resource_name,
                                       log_if_allowed=False, log_if_denied=False))
            if d.allowed:
                ops.append(op)
        return ops

    def has_acls_for(self, resource_type: ResourceType, resource_name: str) -> bool:
        """True when some ACL is a candidate for the resource (so the no-ACL default is off)."""
        index = self._types.get(resource_type)
        if index is None:
            return False
        plan = self._plan(index, resource_type, resource_name)
        if plan is None:
            return bool(self._walk(index, Request("User:_", "127.0.0.1", AclOperation.ALL, resource_type,
                                                  resource_name), ("User", "_"), "127.0.0.1", probe=True))
        return bool(plan[0])

    def candidate_acls(self, resource_type: ResourceType, resource_name: str) -> frozenset[AclBinding] | None:
        """The ACLs Kafka would look at for this resource (None where only its walk can tell)."""
        index = self._types.get(resource_type)
        if index is None:
            return frozenset()
        plan = self._plan(index, resource_type, resource_name)
        if plan is None:
            return None
        return frozenset(acl for bucket in plan[0] for acl in bucket.acls)

    def walk_needed(self, resource_type: ResourceType, resource_name: str) -> bool:
        """Only Kafka's own walk can tell which ACLs apply to this name (candidate_acls is None)."""
        index = self._types.get(resource_type)
        return index is not None and self._plan(index, resource_type, resource_name) is None

    def notes(self, decision: Decision) -> list[str]:
        """Where Kafka's answer is not what a reader of the ACLs would expect, say why."""
        notes: list[str] = []
        r = decision.request
        index = self._types.get(r.resource_type)
        if index is None or decision.outcome not in (Outcome.ALLOWED, Outcome.DENIED) or decision.rule == "SuperUser":
            return notes
        try:
            principal = _parse_principal(r.principal)
        except AclError:
            return notes
        pkey = (principal.principal_type, principal.name)
        wildcard = index.literal.get(WILDCARD_RESOURCE)
        if wildcard is not None and r.resource_name.startswith("*") and r.resource_name != "*":
            skipped = wildcard.matches(_lookup_keys(pkey, decision.client_address), r.operation)
            if skipped:
                notes.append(
                    f"Kafka quirk: the LITERAL '*' ACL ({skipped[0].permission.name} {skipped[0].operation.name} for "
                    f"{skipped[0].principal}) does not apply to names starting with '*': the broker mistakes the "
                    "wildcard for a literal prefix and skips it")
        plan = self._plan(index, r.resource_type, r.resource_name)
        if plan:
            for bucket in plan[0]:
                for acl in bucket.odd_hosts:
                    if (_acl_principal_key(acl.principal) in (pkey, _WILDCARD_PRINCIPAL_KEY)
                            and r.operation in _MATCHED_OPS[(acl.operation, acl.permission)]):
                        notes.append(f"{unmatchable_host_reason(acl.host)} (the {acl.permission.name} "
                                     f"{acl.operation.name} ACL for {acl.principal} on this resource does not apply)")
        if decision.outcome is Outcome.ALLOWED and r.operation in (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS):
            if plan:
                implying = IMPLIES_DESCRIBE if r.operation is AclOperation.DESCRIBE else IMPLIES_DESCRIBE_CONFIGS
                for bucket in plan[0]:
                    for acl in bucket.acls:
                        if (acl.permission is DENY and acl.operation in implying and acl.operation is not r.operation
                                and _acl_principal_key(acl.principal) in (pkey, _WILDCARD_PRINCIPAL_KEY)
                                and acl.host in (WILDCARD_HOST, decision.client_address)):
                            notes.append(f"a DENY {acl.operation.name} ACL exists, but Kafka applies operation "
                                         f"implication to ALLOW ACLs only: it does not deny {r.operation.name}")
                            return notes
        if decision.rule == "DefaultDeny" and self.allow_everyone_if_no_acl_found:
            notes.append("allow.everyone.if.no.acl.found=true does not help here: ACLs exist on this resource "
                         "(for other principals, hosts or operations)")
        return notes

    # -- decision ---------------------------------------------------------------------------

    def _find_rule(self, request: Request, principal_key: tuple[str, str], address: str) -> Decision:
        index = self._types.get(request.resource_type)
        if index is None:
            return self._default_decision(request, address, has_resource_acls=False)
        plan = self._plan(index, request.resource_type, request.resource_name)
        if plan is None:
            return self._walk(index, request, principal_key, address)
        buckets, _ = plan
        op = request.operation
        keys = _lookup_keys(principal_key, address)
        # Walk order: the prefix chain (first scan), then the wildcard section (second scan).
        # The first matching DENY ends the walk; a malformed ACL met before it throws.
        last_allow: AclBinding | None = None
        for bucket in buckets:
            # Inlined _Bucket.matches: this loop is the engine's hot path.
            entries = bucket.entries
            matches = None
            lists = 0
            for key in keys:
                found = entries.get(key)
                if found:
                    for acl, ops in found:
                        if op in ops:
                            if matches is None:
                                matches = [acl]
                            else:
                                matches.append(acl)
                            lists += 1
            if matches is None:
                if bucket.bad is not None:
                    return Decision(request, Outcome.ERROR, None, None, address, _bad_principal_error(bucket.bad))
                continue
            if lists > 1:
                matches.sort(key=_acl_order_key)
            deny = None
            for acl in matches:
                if acl.permission is DENY:
                    deny = acl
                    break
            if bucket.bad is not None and (deny is None or _acl_order_key(bucket.bad) < _acl_order_key(deny)):
                return Decision(request, Outcome.ERROR, None, None, address, _bad_principal_error(bucket.bad))
            if deny is not None:
                return Decision(request, Outcome.DENIED, f"MatchingAcl(acl={deny.standard_acl_str()})", deny, address)
            for acl in reversed(matches):
                if acl.permission is ALLOW:
                    # No DENY so far: Kafka reports the last matching ALLOW in walk order.
                    last_allow = acl
                    break
        if last_allow is not None:
            return Decision(request, Outcome.ALLOWED, f"MatchingAcl(acl={last_allow.standard_acl_str()})", last_allow, address)
        return self._default_decision(request, address, has_resource_acls=bool(buckets))

    def _default_decision(self, request: Request, address: str, has_resource_acls: bool) -> Decision:
        if has_resource_acls or self._default is Outcome.DENIED:
            return Decision(request, Outcome.DENIED, "DefaultDeny", None, address, None, has_resource_acls)
        return Decision(request, Outcome.ALLOWED, "DefaultAllow", None, address, None, False)

    def clear_caches(self) -> None:
        for index in self._types.values():
            index.plans.clear()

    def _plan(self, index: _TypeIndex, rtype: ResourceType, name: str) -> tuple[tuple[_Bucket, ...], int] | None:
        """Candidate buckets in Kafka's walk order, or None when only the walk itself can tell."""
        cached = index.plans.get(name, False)
        if cached is not False:
            return cached  # type: ignore[return-value]
        if self.force_walk or index.has_empty_name or (index.has_names_below_star and name != "" and name[0] < "*") \
                or _has_lone_surrogate(name):
            plan = None
        else:
            chain: list[_Bucket] = []
            literal = index.literal.get(name)
            if literal is not None:
                chain.append(literal)
            n = len(name)
            prefixed = index.prefixed
            for length in index.prefixed_lengths:
                if length <= n:
                    bucket = prefixed.get(name[:length] if length < n else name)
                    if bucket is not None:
                        chain.append(bucket)
            wild: list[_Bucket] = []
            starts_with_star = name.startswith(WILDCARD_RESOURCE)
            if not starts_with_star or name == WILDCARD_RESOURCE:
                bucket = index.literal.get(WILDCARD_RESOURCE)
                if bucket is not None:
                    wild.append(bucket)
            if starts_with_star:
                bucket = prefixed.get(WILDCARD_RESOURCE)
                if bucket is not None:
                    wild.append(bucket)
            plan = (tuple(chain + wild), len(chain))
        if len(index.plans) > 65536:
            index.plans.clear()
        index.plans[name] = plan
        return plan

    def _walk(self, index: _TypeIndex, request: Request, principal_key: tuple[str, str], address: str,
              probe: bool = False):
        """Kafka's ``findAclRule``/``checkSection``, step by step over the sorted ACLs."""
        builder = _RuleBuilder()
        name = request.resource_name
        try:
            self._check_section(index, name, PatternType.UNKNOWN.code, request, principal_key, address, builder, probe)
            if builder.deny is None:
                self._check_section(index, WILDCARD_RESOURCE, LITERAL.code, request, principal_key, address, builder, probe)
        except _WalkError as exc:
            if probe:
                return True
            return Decision(request, exc.outcome, None, None, address, exc.message)
        if probe:
            return builder.has_resource_acls
        if builder.deny is not None:
            return Decision(request, Outcome.DENIED, f"MatchingAcl(acl={builder.deny.standard_acl_str()})", builder.deny, address)
        if builder.allow is not None:
            return Decision(request, Outcome.ALLOWED, f"MatchingAcl(acl={builder.allow.standard_acl_str()})", builder.allow, address)
        return self._default_decision(request, address, builder.has_resource_acls)

    @staticmethod
    def _check_section(index: _TypeIndex, exemplar_name: str, exemplar_pattern: int, request: Request,
                       principal_key: tuple[str, str], address: str, builder: _RuleBuilder, probe: bool) -> None:
        acls, keys, unit_names = index.sorted_acls()
        name = _units(request.resource_name)
        exemplar_name = _units(exemplar_name)
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
                # exemplar_name is in code units here; the sort key needs the real string back.
                # Past the section: Kafka re-seeks to the exemplar's name cut at the divergence point.
                if upto > len(exemplar_name):
                    raise _WalkError(Outcome.ERROR, (
                        f"java.lang.StringIndexOutOfBoundsException: begin 0, end {upto}, length {len(exemplar_name)}"
                        f" (Kafka bug: the wildcard re-scan walks into {request.resource_type.name} ACL names that "
                        f"sort below '*'; authorize() throws and the request fails)"))
                exemplar_name = exemplar_name[:upto]
                state = (pos, exemplar_name)
                if state in seen_states:
                    raise _WalkError(Outcome.NON_TERMINATING, (
                        f"authorize() never returns (Kafka bug: the wildcard re-scan re-seeks to {exemplar_name!r} "
                        f"forever because {name!r} and the ACL name {acl_name!r} both sort below '*'; the broker's "
                        "request handler thread spins in StandardAuthorizerData.checkSection)"))
                seen_states.add(state)
                pos = bisect_left(keys, _exemplar_key(_from_units(exemplar_name), exemplar_pattern))
                continue
            builder.has_resource_acls = True
            if probe:
                return
            key = _acl_principal_key(acl.principal)
            if key is None:
                raise _WalkError(Outcome.ERROR, _bad_principal_error(acl))
            if (key == principal_key or key == _WILDCARD_PRINCIPAL_KEY) and \
                    (acl.host == WILDCARD_HOST or acl.host == address) and \
                    _operation_matches(acl.operation, acl.permission, op):
                if acl.permission is ALLOW:
                    builder.allow = acl
                elif acl.permission is DENY:
                    builder.deny = acl
                    return
            pos += 1


@functools.lru_cache(maxsize=4096)
def _client_address(host: str) -> str:
    return java_host_address(host)


@functools.lru_cache(maxsize=4096)
def _parse_principal(text: str) -> KafkaPrincipal:
    return KafkaPrincipal.parse(text)


def _units(text: str) -> str:
    """The string as Java sees it: one char per UTF-16 code unit (supplementary chars split)."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(data[i] | (data[i + 1] << 8)) for i in range(0, len(data), 2))


def _from_units(units: str) -> str:
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _has_lone_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)


def _matches_up_to(resource: str, pattern: str) -> int:
    """Java's ``matchesUpTo``: common prefix length (callers pass code-unit strings)."""
    if resource.startswith(pattern):
        return len(pattern)
    i = 0
    limit = min(len(resource), len(pattern))
    while i < limit and resource[i] == pattern[i]:
        i += 1
    return i
