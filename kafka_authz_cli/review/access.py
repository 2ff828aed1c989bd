"""Effective permissions, exactly: who may do what on a resource (or what one principal may do).

The answer is computed over request classes, as :mod:`kafka_authz_cli.acl.compare` cuts the request
space: on one resource name, a principal is one the candidate ACLs or ``super.users`` name, or anyone
else (matched by ``User:*`` ACLs only); a host is one a candidate ACL names, or any other host.
Per operation, each principal class gets the set of host classes it is allowed from, as a
:class:`HostSet` ("every host except ..." or "only ..."), and :func:`grants` turns those sets into
entries that read as a list and are exact both ways: a request is allowed if and only if some entry
covers it (its principal is the entry's or the entry's is ``User:*``, its host the entry's or the
entry's is ``*``) and no pair of that entry's ``except`` list covers it.

The common case (Kafka's walk meets the same buckets for the name as the engine's index plans,
no malformed principal among them) reads each bucket's ACLs once, whatever the number of resources
sharing it (the wildcard section of AuthorizerBenchmark is 10,000 ACLs shared by every topic); the
rest (names only Kafka's own walk can decide) asks the engine about each class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from kafka_authz_cli.acl import (
    FRESH_HOST,
    FRESH_PRINCIPAL,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    WILDCARD_RESOURCE,
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    PatternType,
    Request,
    ResourceType,
    Rule,
    StandardAuthorizer,
    java_host_address,
)
from kafka_authz_cli.acl.names import NameClass

_IPV4 = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")
ALLOW = AclPermissionType.ALLOW
ALL = AclOperation.ALL

#: Why an entry is allowed (the `via.reason` of the JSON).
REASONS = ("acl", "super_user", "wildcard_principal", "prefixed", "wildcard_resource", "default_allow")


@dataclass(frozen=True)
class HostSet:
    """Host classes: every host except ``hosts`` (``everywhere``), or only ``hosts``."""

    everywhere: bool
    hosts: frozenset[str]

    def __contains__(self, host: str) -> bool:
        return (host not in self.hosts) if self.everywhere else (host in self.hosts)

    @property
    def empty(self) -> bool:
        return not self.everywhere and not self.hosts

    def within(self, other: "HostSet") -> bool:
        if self.everywhere:
            return other.everywhere and other.hosts <= self.hosts
        if other.everywhere:
            return not (self.hosts & other.hosts)
        return self.hosts <= other.hosts


NOWHERE = HostSet(False, frozenset())
EVERYWHERE = HostSet(True, frozenset())


@dataclass(slots=True)
class Grant:
    """One entry: ``principal`` (``User:*``: everyone) from ``host`` (``*``: any) may ``operation``,
    but for the (principal, host) pairs of ``excepts``."""

    principal: str
    host: str
    operation: AclOperation
    reason: str
    acl: AclBinding | None
    excepts: tuple[tuple[str, str], ...] = ()

    @property
    def implied(self) -> bool:
        """Allowed only because an ALLOW of another operation implies it (READ implies DESCRIBE...)."""
        return self.acl is not None and self.acl.operation not in (self.operation, ALL)

    def covers(self, principal: str, address: str) -> bool:
        if not _pair_covers(self.principal, self.host, principal, address):
            return False
        return not any(_pair_covers(p, h, principal, address) for p, h in self.excepts)


def _pair_covers(principal: str, host: str, request_principal: str, address: str) -> bool:
    return (principal == WILDCARD_PRINCIPAL or principal == request_principal) and \
        (host == WILDCARD_HOST or host == address)


@dataclass
class ResourceAccess:
    """Who may do what on one resource name (or one class of names: ``label`` says which)."""

    resource_type: ResourceType
    name: str
    #: the name or class in words (None only until access_scope.merged_classes puts a class said alone
    #: in words: :func:`.access_scope.merged_principal_access`)
    label: str | None
    grants: list[Grant] = field(default_factory=list)
    #: Requests on it the broker answers with an error (an ACL whose principal has no ':').
    errors: int = 0
    #: The class of names it stands for, when the answer is per class (``label`` may then wait for it).
    name_class: NameClass | None = field(default=None, compare=False, repr=False)


# -- one operation's view of a resource: what each principal class is allowed ---------------------

@dataclass
class OpView:
    """For one operation on one resource: the hosts each principal class is allowed from."""

    operation: AclOperation
    fresh: HostSet
    named: dict[str, HostSet]
    #: Principals with an ALLOW (or super-user status) of their own for this operation.
    own: set[str]
    #: (principal or None for everyone else, host or '*') -> (reason, ACL)
    via: Callable[[str | None, str], tuple[str, AclBinding | None]]


def grants(view: OpView) -> list[Grant]:
    """Entries covering exactly the allowed (principal, host) classes of ``view``."""
    out: list[Grant] = []
    covered: dict[str, HostSet] = {}
    fresh = view.fresh
    if fresh.everywhere:
        excepts = [(WILDCARD_PRINCIPAL, h) for h in sorted(fresh.hosts)]
        for p, allowed in view.named.items():
            if allowed.everywhere:
                excepts += [(p, h) for h in sorted(allowed.hosts - fresh.hosts)]
                covered[p] = HostSet(True, allowed.hosts | fresh.hosts)
            else:
                excepts.append((p, WILDCARD_HOST))
        out.append(_grant(view, None, WILDCARD_HOST, excepts))
    elif fresh.hosts:
        for h in sorted(fresh.hosts):
            out.append(_grant(view, None, h, [(p, h) for p, a in view.named.items() if h not in a]))
        for p, allowed in view.named.items():
            covered[p] = HostSet(False, frozenset(h for h in fresh.hosts if h in allowed))
    for p, allowed in view.named.items():
        if allowed.empty or (p not in view.own and allowed.within(covered.get(p, NOWHERE))):
            continue
        out.extend(_own_grants(view, p, allowed))
    return out


def _own_grants(view: OpView, principal: str, allowed: HostSet) -> list[Grant]:
    if allowed.everywhere:
        return [_grant(view, principal, WILDCARD_HOST, [(principal, h) for h in sorted(allowed.hosts)])]
    return [_grant(view, principal, h, []) for h in sorted(allowed.hosts)]


def principal_grants(view: OpView, principal: str) -> list[Grant]:
    """Entries for one principal only: exactly the hosts it is allowed from."""
    named = principal in view.named
    allowed = view.named[principal] if named else view.fresh
    if allowed.empty:
        return []
    key = principal if named else None
    if allowed.everywhere:
        reason, acl = view.via(key, WILDCARD_HOST)
        return [Grant(principal, WILDCARD_HOST, view.operation, reason, acl,
                      tuple((principal, h) for h in sorted(allowed.hosts)))]
    return [Grant(principal, h, view.operation, *view.via(key, h)) for h in sorted(allowed.hosts)]


def _grant(view: OpView, principal: str | None, host: str, excepts: list) -> Grant:
    reason, acl = view.via(principal, host)
    return Grant(principal or WILDCARD_PRINCIPAL, host, view.operation, reason, acl, tuple(excepts))


PREFIXED = PatternType.PREFIXED


def reason_of(acl: AclBinding) -> str:
    if acl.principal == WILDCARD_PRINCIPAL:
        return "wildcard_principal"
    if acl.pattern_type is PREFIXED:
        return "prefixed"
    if acl.resource_name == WILDCARD_RESOURCE:
        return "wildcard_resource"
    return "acl"


# -- the fast path: each bucket of ACLs summarised once --------------------------------------------

def _valid_host(host: str, memo: dict[str, bool]) -> bool:
    ok = memo.get(host)
    if ok is None:
        # Most hosts no client matches are not even shaped like an address: refused without an exception.
        try:
            ok = host == WILDCARD_HOST or ((":" in host or _IPV4.fullmatch(host) is not None)
                                           and java_host_address(host) == host)
        except AclError:
            ok = False
        memo[host] = ok
    return ok


def _rank(acl: AclBinding, op: AclOperation) -> int:
    """Which of several ALLOWs to name: the operation's own, then ALL, then one implying it."""
    return 0 if acl.operation is op else 1 if acl.operation is ALL else 2


@dataclass
class _Summary:
    """One bucket's ACLs per operation (only those some ACL matches): ALLOWs by principal and host (the
    one to name), DENY hosts by principal."""

    allow: dict[AclOperation, dict[str, dict[str, AclBinding]]]
    deny: dict[AclOperation, dict[str, set[str]]]


def _summarise(bucket, ops: tuple[AclOperation, ...], hosts_ok: dict[str, bool]) -> _Summary:
    allow: dict = {}
    deny: dict = {}
    wanted = frozenset(ops)
    acls = bucket.acls
    for (ptype, pname, host), found in bucket.entries.items():
        if not _valid_host(host, hosts_ok):
            continue  # a host no client address equals: the ACL never matches
        principal = f"{ptype}:{pname}"
        for i, matched in found:
            acl = acls[i]
            for op in matched & wanted:
                if acl.permission is ALLOW:
                    table = allow.setdefault(op, {}).setdefault(principal, {})
                    kept = table.get(host)
                    if kept is None or _rank(acl, op) < _rank(kept, op):
                        table[host] = acl
                else:
                    deny.setdefault(op, {}).setdefault(principal, set()).add(host)
    return _Summary(allow, deny)


def _allowed(allow: dict[str, AclBinding], deny: set[str]) -> HostSet:
    if WILDCARD_HOST in deny:
        return NOWHERE
    if WILDCARD_HOST in allow:
        return HostSet(True, frozenset(deny))
    return HostSet(False, frozenset(h for h in allow if h not in deny))


class AccessReview:
    """Effective permissions over one ACL set and broker settings."""

    def __init__(self, authorizer: StandardAuthorizer):
        self.authorizer = authorizer
        self.super_users = sorted(authorizer.super_users)
        self._supers = frozenset(self.super_users)
        self._empty: dict[AclOperation, OpView] = {}
        self._summaries: dict[int, tuple[object, _Summary]] = {}
        self._hosts_ok: dict[str, bool] = {}
        self._typed: dict[ResourceType, list[AclBinding]] = {}

    def resource(self, rtype: ResourceType, name: str, label: str | None = None) -> ResourceAccess:
        """Every principal and host allowed each operation on ``rtype:name``."""
        out = ResourceAccess(rtype, name, name if label is None else label)
        for view in self.views(rtype, name, out):
            out.grants.extend(grants(view))
        return out

    def for_principal(self, rtype: ResourceType, name: str, principal: str, label: str | None = None) -> ResourceAccess:
        """What ``principal`` may do on ``rtype:name``."""
        out = ResourceAccess(rtype, name, name if label is None else label)
        for view in self.views(rtype, name, out):
            out.grants.extend(principal_grants(view, principal))
        return out

    def views(self, rtype: ResourceType, name: str, out: ResourceAccess | None = None) -> list[OpView]:
        buckets = self.authorizer.candidate_buckets(rtype, name)
        if buckets is None or any(b.bad is not None for b in buckets):
            return self._engine_views(rtype, name, out)
        ops = SUPPORTED_OPERATIONS[rtype]
        summaries = [self._summary(b, ops) for b in buckets]
        if not summaries and self.authorizer.allow_everyone_if_no_acl_found:
            return [self._default_view(op) for op in ops]
        return [self._fast_view(op, summaries) for op in ops]

    def _summary(self, bucket, ops) -> _Summary:
        found = self._summaries.get(id(bucket))
        if found is None or found[0] is not bucket:
            found = self._summaries[id(bucket)] = (bucket, _summarise(bucket, ops, self._hosts_ok))
        return found[1]

    def _default_view(self, op: AclOperation) -> OpView:
        named = {su: EVERYWHERE for su in self.super_users}
        supers = set(self.super_users)

        def via(principal, _host):
            return ("super_user", None) if principal in supers else ("default_allow", None)

        return OpView(op, EVERYWHERE, named, set(supers), via)

    def _fast_view(self, op: AclOperation, summaries: list[_Summary]) -> OpView:
        allows = [a for a in (s.allow.get(op) for s in summaries) if a]
        denies = [d for d in (s.deny.get(op) for s in summaries) if d]
        if not allows:
            return self._nobody(op)  # a DENY alone allows nobody anything
        allow = allows[0] if len(allows) == 1 else _merged(allows, op)
        deny: dict[str, set[str]] = {}
        for part in denies:
            for principal, hosts in part.items():
                deny.setdefault(principal, set()).update(hosts)
        w_allow, w_deny = allow.get(WILDCARD_PRINCIPAL, {}), deny.get(WILDCARD_PRINCIPAL, set())
        supers = self._supers
        named: dict[str, HostSet] = {}
        own = set(supers)
        # In one order whatever the hash seed: the grants, and the JSON, come out in this order.
        for principal in sorted((allow.keys() | deny.keys()) - supers):
            if principal == WILDCARD_PRINCIPAL:
                continue
            mine = allow.get(principal)
            if mine:
                own.add(principal)
                named[principal] = _allowed({**w_allow, **mine} if w_allow else mine, w_deny | deny.get(principal, set()))
            else:
                named[principal] = _allowed(w_allow, w_deny | deny.get(principal, set()))
        for su in sorted(supers):
            named[su] = EVERYWHERE
        return OpView(op, _allowed(w_allow, w_deny), named, own, _fast_via(allow, supers))

    def _nobody(self, op: AclOperation) -> OpView:
        """No ALLOW matches this operation: only the super users may."""
        found = self._empty.get(op)
        if found is None:
            found = self._empty[op] = OpView(op, NOWHERE, {su: EVERYWHERE for su in self.super_users},
                                             set(self.super_users), lambda p, h: ("super_user", None))
        return found

    # -- the slow path: the engine asked about each class ------------------------------------------

    def _engine_views(self, rtype: ResourceType, name: str, out: ResourceAccess | None) -> list[OpView]:
        typed = self._typed.get(rtype)
        if typed is None:
            typed = self._typed[rtype] = [a for a in self.authorizer.bindings if a.resource_type is rtype]
        principals = sorted({a.principal for a in typed if ":" in a.principal and a.principal != WILDCARD_PRINCIPAL}
                            | set(self.super_users))
        hosts = sorted({a.host for a in typed if a.host != WILDCARD_HOST and _valid_host(a.host, self._hosts_ok)})
        views = []
        for op in SUPPORTED_OPERATIONS[rtype]:
            decisions: dict[tuple[str, str], object] = {}
            for p in [*principals, FRESH_PRINCIPAL]:
                for h in [*hosts, FRESH_HOST]:
                    d = decisions[(p, h)] = self.authorizer.authorize(Request(p, h, op, rtype, name))
                    if out is not None and d.outcome.name not in ("ALLOWED", "DENIED"):
                        out.errors += 1
            views.append(_engine_view(op, principals, hosts, decisions))
        return views


def _merged(allows: list[dict[str, dict[str, AclBinding]]], op: AclOperation) -> dict[str, dict[str, AclBinding]]:
    """The ALLOW tables of several buckets as one (most specific first: the ACL named is the first
    bucket's); a summary's own tables are shared, never changed."""
    allow = dict(allows[0])
    for part in allows[1:]:
        for principal, hosts in part.items():
            table = allow.get(principal)
            if table is None:
                allow[principal] = hosts
                continue
            table = allow[principal] = dict(table)
            for h, acl in hosts.items():
                kept = table.get(h)
                if kept is None or _rank(acl, op) < _rank(kept, op):
                    table[h] = acl
    return allow


def _fast_via(allow: dict[str, dict[str, AclBinding]], supers: frozenset[str]):
    wild = allow.get(WILDCARD_PRINCIPAL, {})

    def via(principal: str | None, host: str) -> tuple[str, AclBinding | None]:
        if principal in supers:
            return "super_user", None
        for table in (allow.get(principal, {}) if principal else {}, wild):
            acl = table.get(host) or table.get(WILDCARD_HOST)
            if acl is not None:
                return reason_of(acl), acl
        return "acl", None

    return via


def _hostset(allowed_hosts: list[str], all_hosts: list[str]) -> HostSet:
    if FRESH_HOST in allowed_hosts:
        return HostSet(True, frozenset(h for h in all_hosts if h not in allowed_hosts))
    return HostSet(False, frozenset(allowed_hosts))


def _engine_view(op: AclOperation, principals: list[str], hosts: list[str], decisions: dict) -> OpView:
    def allowed(p: str) -> HostSet:
        return _hostset([h for h in [*hosts, FRESH_HOST] if decisions[(p, h)].outcome.name == "ALLOWED"], hosts)

    named = {p: allowed(p) for p in principals}
    own = set()
    for p in principals:
        for h in [*hosts, FRESH_HOST]:
            d = decisions[(p, h)]
            if d.rule == Rule.SUPER_USER or (d.acl is not None and d.acl.principal == p and d.outcome.name == "ALLOWED"):
                own.add(p)

    def via(principal: str | None, host: str) -> tuple[str, AclBinding | None]:
        d = decisions[(principal or FRESH_PRINCIPAL, FRESH_HOST if host == WILDCARD_HOST else host)]
        if d.rule == Rule.SUPER_USER:
            return "super_user", None
        if d.rule == Rule.DEFAULT_ALLOW:
            return "default_allow", None
        return (reason_of(d.acl), d.acl) if d.acl is not None else ("acl", None)

    return OpView(op, allowed(FRESH_PRINCIPAL), named, own, via)


def covered(entries: Iterable[Grant], principal: str, address: str, op: AclOperation) -> bool:
    """Whether the entries say ``principal`` from ``address`` may ``op`` (for checks and tests)."""
    return any(g.operation is op and g.covers(principal, address) for g in entries)
