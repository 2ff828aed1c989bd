"""A decision engine whose answers are exactly those of Kafka's KRaft ``StandardAuthorizer``.

Like Kafka's ``metadata/authorizer``, a :class:`StandardAuthorizer` is a pure decision over an
immutable snapshot of ACLs: built once from the bindings and the broker settings
(:class:`~kafka_authz_cli.acl.broker_settings.BrokerSettings`), then asked ``authorize()`` any
number of times.

Kafka keeps every ACL in one set sorted by (resource type, resource name *descending*, pattern
type, operation, principal, host, permission) and answers a request by walking sections of that
set. That walk is also what names the deciding ACL, and its corner cases are observable: the
LITERAL ``*`` wildcard is skipped for names starting with ``*``; the reported DENY is the first
matching DENY in walk order, the reported ALLOW the last matching ALLOW; names starting below
``*`` send the second walk into a loop or an exception.

The one idea of this engine: for almost every input, which ACLs that walk meets, and in which order,
follows from the request's name alone (the name, its prefixes longest first, then the wildcards).
So the common case is answered from hash indexes (:mod:`.type_index`; no scan: the cost does not grow
with the number of ACLs), visiting the same buckets in the same order with the same stopping rule,
and the walk itself is reproduced step by step (:mod:`.walk`) only for the inputs where its own
quirks decide the outcome (ACLs with an empty name, or names sorting below ``*`` on both sides).
Both paths are checked against the conformance cases and against each other (``force_walk``).

What a request and a decision are, and how a decision reads in words, is :mod:`.decision`.
"""

from __future__ import annotations

import functools
from typing import Iterable, Sequence

from kafka_authz_cli.acl.broker_settings import BrokerSettings
from kafka_authz_cli.acl.decision import (
    DEFAULT_ALLOW,
    DEFAULT_DENY,
    SUPER_USER,
    Decision,
    Outcome,
    Request,
    matching_acl_rule,
)
from kafka_authz_cli.acl.matching import (
    WILDCARD_PRINCIPAL_KEY,
    bad_principal_error,
)
from kafka_authz_cli.acl.model import (
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    SUPPORTED_OPERATIONS,
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
)
from kafka_authz_cli.acl.type_index import TypeIndex, lookup_keys
from kafka_authz_cli.acl.walk import SortedAcls, WalkError, find_acl_rule, has_resource_acls
from kafka_authz_cli.formats import paused_gc

# Request, Decision and Outcome are defined in .decision; they are imported from here too.
__all__ = ["Decision", "Outcome", "Request", "StandardAuthorizer"]

DENY = AclPermissionType.DENY
#: Notes on ACLs whose host never matches, per decision, before "and N more".
MAX_HOST_NOTES = 5
#: Rule texts of deciding ACLs remembered before the memo starts over.
MAX_RULE_TEXTS = 4096
ALLOWED = Outcome.ALLOWED
DENIED = Outcome.DENIED


class StandardAuthorizer:
    """Kafka's KRaft ``StandardAuthorizer`` over a fixed ACL set and the broker's ``settings``.

    ``load_complete=False`` models a broker whose initial ACL load has not finished (broker state,
    not configuration).
    """

    def __init__(self, bindings: Iterable[AclBinding], settings: BrokerSettings = BrokerSettings(), *,
                 load_complete: bool = True, force_walk: bool = False):
        #: Decide every request with Kafka's own sorted-set walk (slow; for cross-checking).
        self.force_walk = force_walk
        self.settings = settings
        # Read on every decision: plain attributes, not a lookup through `settings` each time.
        self.super_users = settings.super_user_names
        self.allow_everyone_if_no_acl_found = settings.allow_everyone_if_no_acl_found
        self.load_complete = load_complete
        self._types: dict[ResourceType, TypeIndex] = {}
        #: Kafka's sorted set of each resource type, built when the walk is first needed.
        self._sorted: dict[ResourceType, SortedAcls] = {}
        self._given: list[AclBinding] = list(bindings)
        self._distinct: tuple[list[AclBinding], list[AclBinding]] | None = None
        self._rules: dict[int, tuple[AclBinding, str]] = {}
        self._notes_memo: dict[tuple, list[str]] = {}
        with paused_gc():
            self._index(self._given, force_walk)
        self._default = Outcome.ALLOWED if settings.allow_everyone_if_no_acl_found else Outcome.DENIED

    def _index(self, bindings: list[AclBinding], force_walk: bool) -> None:
        """Each ACL into the bucket of its resource pattern: one lookup per ACL. A bucket keeps each
        ACL once and is sorted and indexed when a request first needs it (Bucket.freeze)."""
        types = self._types
        principal_keys: dict = {}
        shapes: dict = {}
        literal_type = PatternType.LITERAL
        last_type, index = None, None
        for position, acl in enumerate(bindings):
            rtype = acl.resource_type
            if index is None or rtype is not last_type:
                index = types.get(rtype)
                if index is None:
                    index = types[rtype] = TypeIndex(force_walk, principal_keys, shapes)
                last_type = rtype
            table = index.literal if acl.pattern_type is literal_type else index.prefixed
            bucket = table.get(acl.resource_name)
            if bucket is None:
                bucket = index.new_bucket(table, acl.resource_name)
            bucket.acls.append(acl)
            bucket.positions.append(position)
        for index in types.values():
            index.seal()

    @property
    def bindings(self) -> list[AclBinding]:
        """The ACLs as Kafka stores them: each once (the first given), in the order given."""
        return self._distinct_bindings()[0]

    @property
    def duplicates(self) -> list[AclBinding]:
        """Bindings given more than once (each repeat); Kafka stores each ACL once."""
        return self._distinct_bindings()[1]

    def _distinct_bindings(self) -> tuple[list[AclBinding], list[AclBinding]]:
        if self._distinct is None:
            seen: set[AclBinding] = set()
            kept: list[AclBinding] = []
            repeats: list[AclBinding] = []
            for acl in self._given:
                if acl in seen:
                    repeats.append(acl)
                else:
                    seen.add(acl)
                    kept.append(acl)
            self._distinct = (kept, repeats)
        return self._distinct

    # -- public API -------------------------------------------------------------------------

    def authorize(self, request: Request) -> Decision:
        address = _client_address(request.host)
        principal = _parse_principal(request.principal)
        if request.principal in self.super_users:
            return Decision(request, Outcome.ALLOWED, SUPER_USER, None, address)
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

    def decided_by_name(self, resource_type: ResourceType) -> bool:
        """Whether, for every request on this type, the ACLs that can decide it are those whose pattern
        matches its name (LITERAL equal or ``*``, PREFIXED a prefix of it). False when the walk's quirks
        decide some names (ACLs with an empty name, names sorting below ``*``): then an ACL can change
        the decision on a name it does not match."""
        index = self._types.get(resource_type)
        return index is None or not (index.walk_only or index.has_empty_name or index.has_names_below_star)

    def has_acls_for(self, resource_type: ResourceType, resource_name: str) -> bool:
        """True when some ACL is a candidate for the resource (so the no-ACL default is off)."""
        index = self._types.get(resource_type)
        if index is None:
            return False
        plan = index.plan(resource_name)
        if plan is None:
            return has_resource_acls(self._sorted_acls(resource_type, index), resource_type, resource_name)
        return bool(plan)

    def resource_names(self, resource_type: ResourceType) -> set[str]:
        """Every resource name an ACL of this type names (LITERAL or PREFIXED)."""
        index = self._types.get(resource_type)
        if index is None:
            return set()
        return index.literal.keys() | index.prefixed.keys()

    def pattern_bucket(self, resource_type: ResourceType, pattern_type: PatternType, resource_name: str):
        """The indexed bucket (:class:`.index.Bucket`) of one resource pattern's ACLs, or None."""
        index = self._types.get(resource_type)
        if index is None:
            return None
        return index.bucket(index.literal if pattern_type is PatternType.LITERAL else index.prefixed, resource_name)

    def candidate_acls(self, resource_type: ResourceType, resource_name: str) -> frozenset[AclBinding] | None:
        """The ACLs Kafka would look at for this resource (None where only its walk can tell)."""
        index = self._types.get(resource_type)
        if index is None:
            return frozenset()
        plan = index.plan(resource_name)
        if plan is None:
            return None
        return frozenset(acl for bucket in plan for acl in bucket.acls)

    def candidate_buckets(self, resource_type: ResourceType, resource_name: str) -> tuple | None:
        """The indexed buckets (:class:`.index.Bucket`) Kafka's walk meets for this name, in walk
        order (None where only the walk can tell): for callers that summarise each bucket once
        (``review.access``) instead of every request."""
        index = self._types.get(resource_type)
        if index is None:
            return ()
        return index.plan(resource_name)

    def walk_needed(self, resource_type: ResourceType, resource_name: str) -> bool:
        """Only Kafka's own walk can tell which ACLs apply to this name (candidate_acls is None)."""
        index = self._types.get(resource_type)
        return index is not None and index.plan(resource_name) is None

    def notes(self, decision: Decision) -> list[str]:
        """Where Kafka's answer is not what a reader of the ACLs would expect, say why."""
        r = decision.request
        index = self._types.get(r.resource_type)
        if index is None or decision.outcome not in (Outcome.ALLOWED, Outcome.DENIED) or decision.rule == SUPER_USER:
            return []
        try:
            principal = _parse_principal(r.principal)
        except AclError:
            return []
        pkey = (principal.principal_type, principal.name)
        plan = index.plan(r.resource_name) or ()
        notes = _wildcard_skipped(index, r, pkey, decision.client_address)
        # Only the ACLs that would have decided this request but for their host: a DENY would have
        # denied an allowed request, an ALLOW would have allowed one denied for want of a match.
        if decision.outcome is Outcome.ALLOWED:
            notes += self._host_notes(plan, r, pkey, DENY)
        elif decision.rule == DEFAULT_DENY:
            notes += self._host_notes(plan, r, pkey, AclPermissionType.ALLOW)
        describes = r.operation in (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS)
        if decision.outcome is Outcome.ALLOWED and describes:
            implied = _deny_not_implied(plan, r, pkey, decision.client_address)
            if implied:
                return notes + [implied]
        if decision.rule == DEFAULT_DENY and self.allow_everyone_if_no_acl_found:
            notes.append("allow.everyone.if.no.acl.found=true does not help here: ACLs exist on this resource "
                         "(for other principals, hosts or operations)")
        return notes

    def _host_notes(self, plan: tuple, r: Request, pkey: tuple[str, str], permission: AclPermissionType) -> list[str]:
        """:func:`_unmatchable_hosts`, made once per resource's buckets, principal, operation and permission."""
        key = (plan, pkey, r.operation, permission)
        found = self._notes_memo.get(key)
        if found is None:
            if len(self._notes_memo) >= MAX_RULE_TEXTS:
                self._notes_memo.clear()
            found = self._notes_memo[key] = _unmatchable_hosts(plan, r, pkey, permission)
        return found

    def position(self, acl: AclBinding) -> int | None:
        """Where ``acl`` (as an ACL of a decision returns it) is in the bindings this authorizer was
        given (the first of duplicates); None for an ACL it was not given."""
        index = self._types.get(acl.resource_type)
        if index is None:
            return None
        bucket = index.bucket(index.literal if acl.pattern_type is PatternType.LITERAL else index.prefixed,
                              acl.resource_name)
        if bucket is None:
            return None
        for i, kept in enumerate(bucket.acls):
            if kept is acl:
                return bucket.positions[i]
        return None

    def clear_caches(self) -> None:
        for index in self._types.values():
            index.plans.clear()

    # -- decision ---------------------------------------------------------------------------

    def _find_rule(self, request: Request, request_principal: tuple[str, str], address: str) -> Decision:
        index = self._types.get(request.resource_type)
        if index is None:
            return self._default_decision(request, address, has_resource_acls=False)
        buckets = index.plan(request.resource_name)
        if buckets is None:
            return self._walk(index, request, request_principal, address)
        op = request.operation
        keys = lookup_keys(request_principal, address)
        # The buckets in Kafka's walk order: the prefix chain (first scan), then the wildcard section
        # (second scan). The first matching DENY ends the walk, a malformed ACL met before it throws;
        # without either, the last matching ALLOW decides.
        last_allow: AclBinding | None = None
        for bucket in buckets:
            # Inlined Bucket.matches: this loop is the engine's hot path.
            entries = bucket.entries
            assert entries is not None  # a plan's buckets are indexed
            matches = None
            for key in keys:
                found = entries.get(key)
                if found:
                    for i, ops in found:
                        if op in ops:
                            if matches is None:
                                matches = [bucket.acls[i]]
                            else:
                                matches.append(bucket.acls[i])
            if matches is None and bucket.bad is None:
                continue
            acl = bucket.deciding_acl(matches)
            if acl is None:
                continue
            if acl is bucket.bad:
                return Decision(request, Outcome.ERROR, None, None, address, bad_principal_error(acl))
            if acl.permission is DENY:
                return Decision(request, DENIED, self._rule_text(acl), acl, address)
            last_allow = acl
        if last_allow is not None:
            return Decision(request, ALLOWED, self._rule_text(last_allow), last_allow, address)
        return self._default_decision(request, address, has_resource_acls=bool(buckets))

    def _rule_text(self, acl: AclBinding) -> str:
        """Kafka's rule text for a deciding ACL (many requests are decided by the same few ACLs)."""
        found = self._rules.get(id(acl))  # the engine holds the ACL: its id stays its own
        if found is None or found[0] is not acl:
            if len(self._rules) >= MAX_RULE_TEXTS:
                self._rules.clear()
            found = self._rules[id(acl)] = (acl, matching_acl_rule(acl))
        return found[1]

    def _default_decision(self, request: Request, address: str, has_resource_acls: bool) -> Decision:
        if has_resource_acls or self._default is Outcome.DENIED:
            return Decision(request, Outcome.DENIED, DEFAULT_DENY, None, address, None, has_resource_acls)
        return Decision(request, Outcome.ALLOWED, DEFAULT_ALLOW, None, address, None, False)

    def _walk(self, index: TypeIndex, request: Request, request_principal: tuple[str, str], address: str) -> Decision:
        """Kafka's ``findAclRule``/``checkSection``, step by step over the sorted ACLs."""
        try:
            rule = find_acl_rule(self._sorted_acls(request.resource_type, index), request, request_principal,
                                 address)
        except WalkError as exc:
            return Decision(request, exc.outcome, None, None, address, exc.message)
        if rule.deny is not None:
            return Decision(request, Outcome.DENIED, matching_acl_rule(rule.deny), rule.deny, address)
        if rule.allow is not None:
            return Decision(request, Outcome.ALLOWED, matching_acl_rule(rule.allow), rule.allow, address)
        return self._default_decision(request, address, rule.has_resource_acls)

    def _sorted_acls(self, resource_type: ResourceType, index: TypeIndex) -> SortedAcls:
        acls = self._sorted.get(resource_type)
        if acls is None:
            acls = self._sorted[resource_type] = SortedAcls(index.acls())
        return acls


# -- notes: where Kafka's answer surprises a reader of the ACLs -----------------------------------

def _wildcard_skipped(index: TypeIndex, r: Request, request_principal: tuple[str, str], address: str) -> list[str]:
    wildcard = index.bucket(index.literal, WILDCARD_RESOURCE)
    if wildcard is None or not r.resource_name.startswith("*") or r.resource_name == "*":
        return []
    skipped = wildcard.matches(lookup_keys(request_principal, address), r.operation)
    if not skipped:
        return []
    return [f"Kafka quirk: the LITERAL '*' ACL ({skipped[0].permission.name} {skipped[0].operation.name} for "
            f"{skipped[0].principal}) does not apply to names starting with '*': the broker mistakes the "
            "wildcard for a literal prefix and skips it"]


def _unmatchable_hosts(plan, r: Request, request_principal: tuple[str, str], permission: AclPermissionType) -> list[str]:
    """Notes for the ACLs of ``permission`` that would have decided the request but for a host no
    client matches: at most :data:`MAX_HOST_NOTES`, then how many more."""
    principals = ((request_principal,) if request_principal == WILDCARD_PRINCIPAL_KEY
                  else (request_principal, WILDCARD_PRINCIPAL_KEY))
    notes: list[str] = []
    total = 0
    for bucket in plan:
        if not bucket.odd_hosts:
            continue
        for key in principals:
            found = bucket.odd_hosts.get((key, r.operation, permission), ())
            total += len(found)
            for i in found[:MAX_HOST_NOTES - len(notes)]:
                acl = bucket.acls[i]
                notes.append(f"{unmatchable_host_reason(acl.host)} (the {acl.permission.name} "
                             f"{acl.operation.name} ACL for {acl.principal} on this resource does not apply)")
    more = total - len(notes)
    if more:
        notes.append(f"... and {more:,} more {permission.name} ACL(s) that would have decided this request "
                     "but for a host no client address matches")
    return notes


def _deny_not_implied(index_plan, r: Request, request_principal: tuple[str, str], address: str) -> str | None:
    implying = IMPLIES_DESCRIBE if r.operation is AclOperation.DESCRIBE else IMPLIES_DESCRIBE_CONFIGS
    keys = lookup_keys(request_principal, address)
    for bucket in index_plan:
        for key in keys:
            for i, _ops in bucket.entries.get(key, ()):
                acl = bucket.acls[i]
                if acl.permission is DENY and acl.operation in implying and acl.operation is not r.operation:
                    return (f"a DENY {acl.operation.name} ACL exists, but Kafka applies operation "
                            f"implication to ALLOW ACLs only: it does not deny {r.operation.name}")
    return None


@functools.lru_cache(maxsize=4096)
def _client_address(host: str) -> str:
    return java_host_address(host)


@functools.lru_cache(maxsize=4096)
def _parse_principal(text: str) -> KafkaPrincipal:
    return KafkaPrincipal.parse(text)
