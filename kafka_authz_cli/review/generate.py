"""Least privilege from observed traffic: the smallest ACL set that allows every request a window of
audit logs shows allowed and none it shows denied.

Per principal, one ALLOW ACL per (host, operation, resource) that was allowed, then made smaller:

- names sharing a prefix become one PREFIXED ACL where ``max_widening`` allows it (``none``: never;
  ``names``: only where, among the known names of that resource type, the prefix covers nothing but the
  names the principal used with that operation, so no existing resource is newly reachable; ``any``:
  wherever no denied request falls under it). Candidate prefixes end at a separator (``-._/:``) and
  cover at least ``min_names`` observed names; the shortest valid one on each branch is taken, which
  gives the fewest ACLs among such prefixes;
- a DESCRIBE (DESCRIBE_CONFIGS) request that an ACL already generated for READ/WRITE/DELETE/ALTER
  (ALTER_CONFIGS) allows gets no ACL of its own: the engine decides it, so what is "implied" is
  exactly what Kafka implies;
- hosts become ``*`` unless ``keep_hosts``; a request whose ``*`` ACL would also allow one the window
  shows denied from another host keeps its hosts;
- a denied DESCRIBE / DESCRIBE_CONFIGS on a resource where an implying operation was allowed from the
  same host (the cluster has a DENY) gets a literal DENY ACL: nothing else can keep it denied.

Requests of super users need no ACL and are left out. Pure: the proof (replay and decision diff) is
computed by the caller with :mod:`kafka_authz_cli.whatif` and :func:`kafka_authz_cli.acl.diff`.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Optional

from kafka_authz_cli.acl import (
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    BrokerSettings,
    PatternType,
    Request,
    ResourceType,
    StandardAuthorizer,
    parse_super_users,
)
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import paused_gc

if TYPE_CHECKING:
    from kafka_authz_cli.whatif import Aggregate

#: How far an inferred prefix may reach beyond the observed names.
WIDENINGS = ("none", "names", "any")
#: A candidate prefix ends with one of these (orders-eu-, team.events., app_).
SEPARATORS = frozenset("-._/:")
#: Resource types whose names are grouped into prefixes (a cluster has one name; tokens and users are kept literal).
PREFIXABLE = (ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)
IMPLIED_OPS = (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS)
_END = "\U0010ffff"

Key = tuple[str, str, str, str, str]  # principal, host, operation, resource_type, resource_name (whatif's RequestKey)


@dataclass(frozen=True)
class Req:
    principal: str
    host: str
    operation: AclOperation
    resource_type: ResourceType
    name: str


@dataclass
class GenerateOptions:
    max_widening: str = "none"
    #: known names per resource type (``names`` widening; reported with ``any``); a type absent is unknown
    known: Mapping[ResourceType, Iterable[str]] = field(default_factory=dict)
    keep_hosts: bool = False
    min_names: int = 2
    super_users: str = ""


@dataclass
class InferredPrefix:
    principal: str
    host: str
    operation: str
    resource_type: str
    prefix: str
    observed: list[str]  # the observed names it covers
    newly_covered: Optional[list[str]]  # known names it covers that were not observed (None: no list known)

    def as_dict(self) -> dict:
        return {"principal": self.principal, "host": self.host, "operation": self.operation,
                "resource_type": self.resource_type, "prefix": self.prefix, "observed": self.observed,
                "newly_covered": self.newly_covered}


@dataclass
class Generated:
    bindings: list[AclBinding]
    prefixes: list[InferredPrefix]
    implied: list[Key]  # allowed requests an implying ACL of the set already allows (no ACL of their own)
    host_kept: list[Key]  # allowed requests given their own host: `*` would allow a request denied elsewhere
    denies: list[AclBinding]  # DENY ACLs kept (a denied DESCRIBE whose implying operation was allowed)
    principals: list[str]
    super_users_skipped: list[str]
    allowed_requests: int = 0
    denied_requests: int = 0
    mixed_requests: int = 0
    unexpressible: list[Key] = field(default_factory=list)  # operation or resource type Kafka ACLs do not have
    literal_only_types: list[str] = field(default_factory=list)  # `names` widening without a list for the type


def grants(op: AclOperation) -> frozenset[AclOperation]:
    """The operations an ALLOW ACL for ``op`` allows."""
    if op is AclOperation.ALL:
        return frozenset(AclOperation.concrete())
    out = {op}
    if op in IMPLIES_DESCRIBE:
        out.add(AclOperation.DESCRIBE)
    if op in IMPLIES_DESCRIBE_CONFIGS:
        out.add(AclOperation.DESCRIBE_CONFIGS)
    return frozenset(out)


def candidate_prefixes(name: str) -> list[str]:
    """Every prefix of ``name`` ending at a separator, shortest first."""
    return [name[:i + 1] for i, ch in enumerate(name) if ch in SEPARATORS]


def tightest(names: list[str]) -> str:
    """The longest prefix ending at a separator that all ``names`` share."""
    common = os.path.commonprefix(names)
    cut = max((i for i, ch in enumerate(common) if ch in SEPARATORS), default=-1)
    return common[:cut + 1]


def _in_range(sorted_names: list[str], prefix: str) -> tuple[int, int]:
    return bisect_left(sorted_names, prefix), bisect_left(sorted_names, prefix + _END)


class _Denied:
    """The denied requests, asked whether an ALLOW ACL would allow one of them."""

    def __init__(self, denied: Iterable[Req]):
        by: dict[tuple, dict[str, set[tuple[str, AclOperation]]]] = defaultdict(lambda: defaultdict(set))
        for r in denied:
            by[(r.principal, r.resource_type)][r.name].add((r.host, r.operation))
        self.by = by
        self.sorted = {k: sorted(v) for k, v in by.items()}

    def hit(self, principal: str, host: str, op: AclOperation, rtype: ResourceType, name: str,
            prefixed: bool) -> bool:
        names = self.by.get((principal, rtype))
        if not names:
            return False
        ops = grants(op)
        if prefixed:
            keys = self.sorted[(principal, rtype)]
            lo, hi = _in_range(keys, name)
            candidates = keys[lo:hi]
        else:
            candidates = [name] if name in names else []
        return any(d_op in ops and (host == "*" or d_host == host)
                   for n in candidates for d_host, d_op in names[n])


def parse_request(key: Key) -> Optional[Req]:
    principal, host, op, rtype, name = key
    try:
        return Req(principal, host, AclOperation[op], ResourceType[rtype], name)
    except KeyError:
        return None


def _split(aggs: Mapping[Key, Aggregate], super_users: frozenset[str], out: Generated):
    """(allowed requests, denied requests), counting what ``out`` reports."""
    allowed, denied = [], []
    skipped = set()
    principals = set()
    for key, agg in aggs.items():
        if key[0] in super_users:
            skipped.add(key[0])
            continue
        req = parse_request(key)
        if req is None:
            out.unexpressible.append(key)
            continue
        principals.add(req.principal)
        if agg.allowed:
            allowed.append(req)
            out.allowed_requests += 1
            out.mixed_requests += bool(agg.denied)
        else:
            denied.append(req)
            out.denied_requests += 1
    out.super_users_skipped = sorted(skipped)
    out.principals = sorted(principals)
    out.unexpressible.sort()
    return allowed, denied


def _deny_acls(allowed: list[Req], denied: list[Req]) -> tuple[list[AclBinding], set[Req]]:
    """DENY ACLs for denied DESCRIBE/DESCRIBE_CONFIGS requests whose implying operation was allowed from
    the same host on the same resource (an ALLOW for it implies them), and the requests they keep denied."""
    allowed_ops: dict[tuple, set[AclOperation]] = defaultdict(set)
    for r in allowed:
        allowed_ops[(r.principal, r.host, r.resource_type, r.name)].add(r.operation)
    denies, handled = [], set()
    for r in denied:
        if r.operation not in IMPLIED_OPS:
            continue
        ops = allowed_ops.get((r.principal, r.host, r.resource_type, r.name), ())
        if any(r.operation in grants(op) for op in ops):
            denies.append(AclBinding(r.resource_type, r.name, PatternType.LITERAL, r.principal, r.host,
                                     r.operation, AclPermissionType.DENY))
            handled.add(r)
    return denies, handled


class _Builder:
    def __init__(self, options: GenerateOptions, denied: _Denied, out: Generated):
        if options.max_widening not in WIDENINGS:
            raise ValueError(f"max_widening must be one of {', '.join(WIDENINGS)}")
        self.options = options
        self.denied = denied
        self.out = out
        self.known = {rt: sorted(set(names)) for rt, names in options.known.items()}
        self.bindings: list[AclBinding] = []
        #: the names each (principal, operation, type) was allowed on, from any host: not "newly" covered
        self.seen: dict[tuple, set[str]] = defaultdict(set)

    def see(self, requests: Iterable[Req]) -> None:
        for r in requests:
            self.seen[(r.principal, r.operation, r.resource_type)].add(r.name)

    def add(self, requests: list[Req]) -> None:
        """ALLOW ACLs for ``requests``: hosts chosen, names grouped, prefixes inferred."""
        groups: dict[tuple, set[str]] = defaultdict(set)
        for r in requests:
            host = r.host if self.options.keep_hosts else "*"
            if host == "*" and self.denied.hit(r.principal, "*", r.operation, r.resource_type, r.name, False):
                host = r.host
                self.out.host_kept.append((r.principal, r.host, r.operation.name, r.resource_type.name, r.name))
            groups[(r.principal, host, r.operation, r.resource_type)].add(r.name)
        for (principal, host, op, rtype), names in sorted(groups.items(), key=lambda g: _group_order(g[0])):
            for pattern, name in self._patterns(principal, host, op, rtype, names):
                self.bindings.append(AclBinding(rtype, name, pattern, principal, host, op, AclPermissionType.ALLOW))

    def _patterns(self, principal, host, op, rtype, names: set[str]) -> list[tuple[PatternType, str]]:
        chosen = self._prefixes(principal, host, op, rtype, names) if self._may_widen(rtype) else {}
        covered = {n for observed in chosen.values() for n in observed}
        known = self.known.get(rtype)
        out = []
        for prefix, observed in sorted(chosen.items()):
            newly = None
            if known is not None:
                lo, hi = _in_range(known, prefix)
                seen = self.seen[(principal, op, rtype)]
                newly = [n for n in known[lo:hi] if n not in names and n not in seen]
            self.out.prefixes.append(InferredPrefix(principal, host, op.name, rtype.name, prefix, sorted(observed),
                                                    newly))
            out.append((PatternType.PREFIXED, prefix))
        out += [(PatternType.LITERAL, n) for n in sorted(names - covered)]
        return out

    def _may_widen(self, rtype: ResourceType) -> bool:
        mode = self.options.max_widening
        if mode == "none" or rtype not in PREFIXABLE:
            return False
        if mode == "names" and rtype not in self.known:
            if rtype.name not in self.out.literal_only_types:
                self.out.literal_only_types.append(rtype.name)
            return False
        return True

    def _prefixes(self, principal, host, op, rtype, names: set[str]) -> dict[str, list[str]]:
        """The shortest valid prefix of each branch, with the observed names it covers."""
        covers: dict[str, list[str]] = defaultdict(list)
        for n in names:
            for p in candidate_prefixes(n):
                covers[p].append(n)
        roots: set[str] = set()
        chosen: dict[str, list[str]] = {}
        for p in sorted(covers, key=lambda p: (len(p), p)):
            if len(covers[p]) < self.options.min_names or any(q in roots for q in candidate_prefixes(p[:-1])):
                continue
            if self.denied.hit(principal, host, op, rtype, p, True) or not self._within_names(principal, op, rtype, p,
                                                                                               names):
                continue
            roots.add(p)
            # The same names under the longest prefix that still covers them all: no wider than needed.
            chosen[tightest(covers[p])] = covers[p]
        return chosen

    def _within_names(self, principal: str, op: AclOperation, rtype: ResourceType, prefix: str,
                      names: set[str]) -> bool:
        if self.options.max_widening != "names":
            return True
        known, seen = self.known[rtype], self.seen[(principal, op, rtype)]
        lo, hi = _in_range(known, prefix)
        return all(n in names or n in seen for n in known[lo:hi])


def _group_order(g: tuple) -> tuple:
    principal, host, op, rtype = g
    return principal, rtype.name, op.name, host


def least_privilege(aggs: Mapping[Key, Aggregate], options: GenerateOptions = GenerateOptions()) -> Generated:
    """The ACL set for the requests of ``aggs`` (whatif aggregates: ``.allowed`` and ``.denied`` counts)."""
    with paused_gc():  # hundreds of thousands of small objects, no cycles: the collector's walks only cost
        return _generate(aggs, options)


def _generate(aggs: Mapping[Key, Aggregate], options: GenerateOptions) -> Generated:
    out = Generated([], [], [], [], [], [], [])
    allowed, denied = _split(aggs, frozenset(parse_super_users(options.super_users)), out)
    denies, handled = _deny_acls(allowed, denied)
    out.denies = denies
    builder = _Builder(options, _Denied(r for r in denied if r not in handled), out)
    builder.see(allowed)
    # First what cannot be implied, then the DESCRIBEs those ACLs do not already allow.
    builder.add([r for r in allowed if r.operation not in IMPLIED_OPS])
    first = StandardAuthorizer(builder.bindings + denies)
    rest = []
    for r in allowed:
        if r.operation not in IMPLIED_OPS:
            continue
        if _allows(first, r):
            out.implied.append((r.principal, r.host, r.operation.name, r.resource_type.name, r.name))
        else:
            rest.append(r)
    builder.add(rest)
    out.bindings = builder.bindings + denies
    out.implied.sort()
    out.host_kept.sort()
    return out


def _allows(authorizer: StandardAuthorizer, r: Req) -> bool:
    try:
        decision = authorizer.authorize(Request(r.principal, r.host, r.operation, r.resource_type, r.name))
    except AclError:  # a host that is no IP address: no ACL matches it but its own
        return False
    return decision.outcome.value == "ALLOWED"


def widening_text(p: InferredPrefix) -> str:
    """One inferred prefix in words: what it covers beyond what was observed."""
    kind = p.resource_type.lower().replace("_", " ")
    head = f"PREFIXED `{p.prefix}` covers {len(p.observed)} observed {kind}(s)"
    if p.newly_covered is None:
        return head + f", and every {kind} starting with `{p.prefix}` (no list of known names to compare with)"
    if not p.newly_covered:
        return head + f", no other known {kind}, and any {kind} created later with that prefix"
    shown = ", ".join(p.newly_covered[:5]) + (f" and {len(p.newly_covered) - 5} more" if len(p.newly_covered) > 5 else "")
    return head + f" and newly covers {len(p.newly_covered)} known {kind}(s): {shown}"


def prove(aggs: Mapping[Key, Aggregate], bindings: list[AclBinding], settings: BrokerSettings):
    """whatif's replay of the window against ``bindings`` (the logged decisions are the baseline): a
    correct set newly denies nothing and newly allows nothing."""
    from kafka_authz_cli.whatif import replay_aggregates

    with paused_gc():
        return replay_aggregates(dict(aggs), StandardAuthorizer(bindings, settings))


def parse_known_names(text: str, path: str) -> dict[ResourceType, set[str]]:
    """A names file: one name a line, a topic unless it starts with a resource type and a colon
    (`group:etl-daily`, `transactional_id:tx-1`, `topic:orders`); blank lines and `#` comments skipped.
    (Topic names cannot hold a colon, so a bare line is never mistaken.)"""
    out: dict[ResourceType, set[str]] = defaultdict(set)
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        rtype, name = ResourceType.TOPIC, line
        head, sep, rest = line.partition(":")
        if sep:
            try:
                rtype = ResourceType[head.strip().upper().replace("-", "_")]
            except KeyError:
                raise InputError(f"{head!r} is no resource type (topic, group, transactional_id); a topic name "
                                 "cannot hold ':'", path, number) from None
            name = rest.strip()
        if not name:
            raise InputError("no name after the resource type", path, number)
        out[rtype].add(name)
    return dict(out)
