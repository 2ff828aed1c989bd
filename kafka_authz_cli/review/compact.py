"""Fewer ACLs that decide every request alike: duplicates, shadowed ACLs, ACLs made moot by super users
or by hosts no client has, and (over a list of known names only) literal ALLOWs merged into a prefix.

Every removal rests on one lemma over the whole request space (principal, host, operation, name):
an ACL ``A`` may go when every request it matches is matched, with the same effect, by ACLs that stay,
and the resources it is a candidate for keep a candidate (or the no-ACL default cannot change).

* A request matches ``A`` when its principal is ``A``'s (or ``A``'s is ``User:*``), its host is
  ``A``'s (or ``A``'s is ``*``), its operation is one ``A`` matches (an ALLOW's READ, WRITE, DELETE
  and ALTER also match DESCRIBE, its ALTER_CONFIGS matches DESCRIBE_CONFIGS; a DENY matches its own
  operation only; ALL matches every operation, the action ALL included) and its name is in ``A``'s
  reach: a LITERAL name itself, every name starting with a PREFIXED name, and for the LITERAL ``*``
  every name except those starting with ``*`` (Kafka skips the wildcard there), ``*`` itself included.
* ``A`` is *covered* for one operation by ``B`` when ``B``'s principal is ``A``'s or ``User:*``, its
  host ``A``'s or ``*``, its reach contains ``A``'s and it matches that operation. An ALLOW may be
  covered by ALLOWs (still allowed) or DENYs (still denied); a DENY by DENYs only.
* ``A`` matches nothing when its principal is a super user (decided before any ACL) or its host is
  no client's address text: only its presence counts, and presence only matters with
  ``allow.everyone.if.no.acl.found=true``, where a kept ACL whose reach contains ``A``'s keeps it.

ACLs are removed one at a time, each checked against the ACLs kept at that moment (narrow ones first, so
the broad ones stay), so every step keeps every decision and so does the whole. Left alone: ACLs Kafka
would refuse, and every ACL of a resource type holding a name starting below ``*`` (Kafka's wildcard
re-scan walks into those and may throw or spin, depending on what it meets) or a principal without
``:`` (where the order of the walk decides between an error and an answer). The caller proves the result with the exact decision diff.
"""

from __future__ import annotations

import enum
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from os.path import commonprefix
from typing import Iterable, Iterator, Mapping, Optional

from kafka_authz_cli.acl import (
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    AclPermissionType,
    BrokerSettings,
    PatternType,
    ResourceType,
    unmatchable_host_kind,
    validation_errors,
)
from kafka_authz_cli.formats import paused_gc

LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
#: Every operation an action may carry (ALL too: only an ACL with ALL matches an action ALL).
ACTION_OPERATIONS = frozenset(AclOperation.concrete())


class RemovalReason(enum.StrEnum):
    """Why an ACL went; its text is the `reason` of the JSON report, and the order of the members that
    of the counts."""

    DUPLICATE = "duplicate"
    SHADOWED = "shadowed"
    DENIED = "denied"
    SUPER_USER = "super_user"
    NO_CLIENT_HOST = "unmatchable_host"
    MERGED = "merged"


#: The removals whose ACL other ACLs decide alike: their covers may have gone later.
_COVERED = (RemovalReason.SHADOWED, RemovalReason.DENIED)


@dataclass(frozen=True)
class Removal:
    binding: AclBinding
    reason: RemovalReason
    #: The kept ACLs that decide its requests alike (at the moment it went), or the prefixed ACL it
    #: was merged into; empty for a duplicate and for an ACL made moot with no presence to keep.
    by: tuple[AclBinding, ...] = ()

    def describe(self) -> str:
        if self.reason == RemovalReason.DUPLICATE:
            return "a duplicate of an ACL kept (Kafka stores each ACL once)"
        if self.reason == RemovalReason.SUPER_USER:
            return f"{self.binding.principal} is a super user: no ACL is looked at for it"
        if self.reason == RemovalReason.NO_CLIENT_HOST:
            return f"host {self.binding.host!r} is no client's address text: it never matches"
        if self.reason == RemovalReason.MERGED:
            return f"merged into {_short(self.by[0])}"
        verb = "allowed" if self.reason == RemovalReason.SHADOWED else "denied"
        shown = "; ".join(_short(b) for b in self.by[:3]) + (f" and {len(self.by) - 3} more" if len(self.by) > 3 else "")
        return f"every request it matches is already {verb} by {shown}"


@dataclass(frozen=True)
class Merge:
    """Literal ALLOWs of one principal, host and operation replaced by one PREFIXED ALLOW."""

    prefixed: AclBinding
    literals: tuple[AclBinding, ...]
    #: How many known names start with the prefix (every one of them was granted by a literal).
    known: int

    def widening(self, allow_everyone: bool) -> str:
        kind = self.prefixed.resource_type.name.lower().replace("_", " ")
        text = (f"{self.prefixed.principal} gains {self.prefixed.operation.name} on every {kind} starting with "
                f"`{self.prefixed.resource_name}` other than the {self.known:,} known name(s)")
        if allow_everyone:
            text += ", and the no-ACL default (allow.everyone.if.no.acl.found) ends there for everyone else"
        return text


@dataclass
class Compaction:
    before: int
    #: The compacted set: the ACLs kept in their input order, each merged prefix where its first literal was.
    bindings: list[AclBinding]
    removals: list[Removal] = field(default_factory=list)
    merges: list[Merge] = field(default_factory=list)
    #: ACLs left alone, counted by why (Kafka refuses them, a name below `*`, a principal without ':').
    untouched: dict[str, int] = field(default_factory=dict)
    #: With names: the names known per resource type (those given and every LITERAL ACL name), over
    #: which the merges grant nothing more.
    known: dict[ResourceType, frozenset[str]] = field(default_factory=dict)

    @property
    def after(self) -> int:
        return len(self.bindings)

    def counts(self) -> dict[RemovalReason, int]:
        out = dict.fromkeys(RemovalReason, 0)
        for r in self.removals:
            out[r.reason] += 1
        return out


def _short(b: AclBinding) -> str:
    host = "" if b.host == WILDCARD_HOST else f" from {b.host}"
    return (f"{b.permission.name} {b.operation.name} {b.resource_type.name}:{b.pattern_type.name}:{b.resource_name} "
            f"for {b.principal}{host}")


def matched_operations(b: AclBinding) -> frozenset[AclOperation]:
    """The action operations ``b`` matches (implication for ALLOW only)."""
    return _MATCHED[(b.operation, b.permission)]


def _matched(operation: AclOperation, permission: AclPermissionType) -> frozenset[AclOperation]:
    if operation is AclOperation.ALL:
        return ACTION_OPERATIONS
    ops = {operation}
    if permission is ALLOW:
        if operation in IMPLIES_DESCRIBE:
            ops.add(AclOperation.DESCRIBE)
        if operation in IMPLIES_DESCRIBE_CONFIGS:
            ops.add(AclOperation.DESCRIBE_CONFIGS)
    return frozenset(ops)


_MATCHED = {(o, p): _matched(o, p) for o in AclOperation for p in AclPermissionType}


class _Kept:
    """The ACLs kept so far, by (type, pattern, name) then (principal, host)."""

    def __init__(self, acls: Iterable[AclBinding]):
        self.buckets: dict[tuple, dict[tuple[str, str], list[AclBinding]]] = {}
        self.sizes: dict[tuple, int] = {}
        self.prefix_lengths: dict[ResourceType, set[int]] = {}
        for b in acls:
            key = (b.resource_type, b.pattern_type, b.resource_name)
            self.buckets.setdefault(key, {}).setdefault((b.principal, b.host), []).append(b)
            self.sizes[key] = self.sizes.get(key, 0) + 1
            if b.pattern_type is PREFIXED:
                self.prefix_lengths.setdefault(b.resource_type, set()).add(len(b.resource_name))
        self.sorted_lengths = {t: sorted(ls) for t, ls in self.prefix_lengths.items()}

    def remove(self, b: AclBinding) -> None:
        key = (b.resource_type, b.pattern_type, b.resource_name)
        self.buckets[key][(b.principal, b.host)].remove(b)
        self.sizes[key] -= 1

    def add(self, b: AclBinding) -> None:
        key = (b.resource_type, b.pattern_type, b.resource_name)
        self.buckets.setdefault(key, {}).setdefault((b.principal, b.host), []).append(b)
        self.sizes[key] = self.sizes.get(key, 0) + 1

    def reach_keys(self, b: AclBinding) -> Iterator[tuple]:
        """The patterns whose reach contains ``b``'s (``b``'s own included)."""
        rtype, name = b.resource_type, b.resource_name
        if b.pattern_type is LITERAL:
            yield (rtype, LITERAL, name)
            if name == WILDCARD_RESOURCE:
                return
        for n in self.sorted_lengths.get(rtype, ()):
            if n > len(name):
                break
            yield (rtype, PREFIXED, name[:n])
        if not name.startswith(WILDCARD_RESOURCE):
            yield (rtype, LITERAL, WILDCARD_RESOURCE)

    def cover(self, a: AclBinding, ops: frozenset[AclOperation]) -> Optional[list[AclBinding]]:
        """Kept ACLs other than ``a`` that together match every request ``a`` matches with ``ops``
        with its effect (None when some operation is left)."""
        left = set(ops)
        by: list[AclBinding] = []
        principals = (a.principal,) if a.principal == WILDCARD_PRINCIPAL else (a.principal, WILDCARD_PRINCIPAL)
        hosts = (a.host,) if a.host == WILDCARD_HOST else (a.host, WILDCARD_HOST)
        for key in self.reach_keys(a):
            bucket = self.buckets.get(key)
            if not bucket:
                continue
            for who in principals:
                for host in hosts:
                    for b in bucket.get((who, host), ()):
                        if b is a or (a.permission is DENY and b.permission is ALLOW):
                            continue
                        hit = left & matched_operations(b)
                        if hit:
                            left -= hit
                            by.append(b)
                            if not left:
                                return by
        return None

    def present_elsewhere(self, a: AclBinding) -> bool:
        """Whether a kept ACL other than ``a`` is a candidate wherever ``a`` is."""
        own = (a.resource_type, a.pattern_type, a.resource_name)
        return any(self.sizes.get(key, 0) > (1 if key == own else 0) for key in self.reach_keys(a))


def _narrow_first(b: AclBinding) -> tuple:
    """Narrow ACLs are tried first, so that the broad ones that cover them are the ones kept."""
    if b.pattern_type is LITERAL:
        reach = (2, 0) if b.resource_name == WILDCARD_RESOURCE else (0, 0)
    else:
        reach = (1, -len(b.resource_name))
    return (reach, b.principal == WILDCARD_PRINCIPAL, b.host == WILDCARD_HOST, b.operation is AclOperation.ALL,
            b.permission is DENY)


def compact_acls(bindings: Iterable[AclBinding], settings: BrokerSettings = BrokerSettings(),
                 names: Optional[Mapping[ResourceType, Iterable[str]]] = None) -> Compaction:
    """The compacted set and what went. ``names``: the known names per resource type; with them,
    literal ALLOWs are also merged into prefixes that grant no known name more (the result then
    widens over the other names starting with those prefixes: :class:`Merge` says which)."""
    # A million ACLs make millions of small objects (keys, index lists, removals) and no cycle: the
    # collector's re-scans of them all grew the cost faster than the ACL count.
    with paused_gc():
        return _compact(list(bindings), settings, names)


def _compact(given: list[AclBinding], settings: BrokerSettings,
             names: Optional[Mapping[ResourceType, Iterable[str]]]) -> Compaction:
    first: dict[AclBinding, int] = {}
    result = Compaction(len(given), [])
    order: list[int] = []  # where each removal's ACL was given, to list them in that order
    for i, b in enumerate(given):
        if first.setdefault(b, i) != i:
            result.removals.append(Removal(b, RemovalReason.DUPLICATE))
            order.append(i)
    acls = list(first)
    supers = settings.super_user_names
    candidates = _candidates(acls, result.untouched)
    kept = _Kept(acls)
    gone = [False] * len(acls)
    for i in sorted((i for i, ok in enumerate(candidates) if ok), key=lambda i: (_narrow_first(acls[i]), i)):
        removal = _removal(acls[i], kept, supers, settings.allow_everyone_if_no_acl_found)
        if removal is not None:
            kept.remove(acls[i])
            gone[i] = True
            result.removals.append(removal)
            order.append(first[acls[i]])
    survivors = [b for i, b in enumerate(acls) if not gone[i]]
    if names:
        start = len(result.removals)
        survivors = _merge(survivors, {b for i, b in enumerate(acls) if candidates[i]}, names, given, result)
        order += [first[r.binding] for r in result.removals[start:]]
    result.bindings = survivors
    result.removals[:] = _final_covers([result.removals[k] for k in sorted(range(len(order)), key=order.__getitem__)])
    return result


def _final_covers(removals: list[Removal]) -> list[Removal]:
    """The removals naming, instead of a covering ACL removed later, the kept ACLs that cover that one
    (each cover holds for the ACLs kept at its moment, so every chain ends at ACLs of the output).

    Each removed ACL's kept covers are worked out once (a million ACLs of which nine in ten go make
    chains that share their tails: resolved afresh for every removal, they took most of the time)."""
    merged = RemovalReason.MERGED
    gone = {r.binding: r for r in removals if r.reason in _COVERED or r.reason == merged}
    resolved: dict[AclBinding, tuple[AclBinding, ...]] = {}

    def kept_cover(b: AclBinding) -> tuple[AclBinding, ...]:
        if b not in gone:
            return (b,)
        path, on_path = [b], {b}  # depth first, without recursion (a chain may be thousands long)
        while path:
            top = path[-1]
            r = gone[top]
            if r.reason == merged:
                resolved[top] = tuple(dict.fromkeys(r.by))
            else:
                down = next((x for x in r.by if x in gone and x not in resolved and x not in on_path), None)
                if down is not None:
                    path.append(down)
                    on_path.add(down)
                    continue
                # a cover on the path itself (a cycle, which removals in order cannot make) stays as it is
                resolved[top] = tuple(dict.fromkeys(k for x in r.by for k in resolved.get(x, (x,))))
            path.pop()
            on_path.discard(top)
        return resolved[b]

    out = []
    for r in removals:
        if r.reason in _COVERED and any(b in gone for b in r.by):
            r = Removal(r.binding, r.reason, tuple(dict.fromkeys(k for b in r.by for k in kept_cover(b))))
        out.append(r)
    return out


def _candidates(acls: list[AclBinding], untouched: dict[str, int]) -> list[bool]:
    """Whether each ACL may be removed; the others counted by why not."""
    # Where Kafka's walk can throw or spin (a principal without ':'; a name below '*', which sends the
    # wildcard re-scan into the names sorting below it), whether it does depends on which other ACLs
    # the walk meets first: every ACL of such a resource type is left as it is.
    odd_types: dict[ResourceType, str] = {}
    for b in acls:
        if ":" not in b.principal:
            odd_types[b.resource_type] = "a resource type with an ACL whose principal has no ':'"
        elif (not b.resource_name or b.resource_name[0] < WILDCARD_RESOURCE) and b.resource_type not in odd_types:
            odd_types[b.resource_type] = "a resource type with an ACL name starting below '*' (Kafka's wildcard " \
                                         "re-scan walks into it)"
    out: list[bool] = []
    for b in acls:
        why = odd_types.get(b.resource_type) or ("refused by Kafka's CreateAcls" if validation_errors(b) else None)
        out.append(why is None)
        if why is not None:
            untouched[why] = untouched.get(why, 0) + 1
    return out


def _removal(a: AclBinding, kept: _Kept, supers: frozenset[str], allow_everyone: bool) -> Optional[Removal]:
    # `User:*` in super.users names the principal spelled so, while the ACL's `User:*` matches everyone.
    moot = RemovalReason.SUPER_USER if a.principal in supers and a.principal != WILDCARD_PRINCIPAL \
        else RemovalReason.NO_CLIENT_HOST if unmatchable_host_kind(a.host) else None
    if moot is not None:
        if not allow_everyone:
            return Removal(a, moot)
        return Removal(a, moot) if kept.present_elsewhere(a) else None
    by = kept.cover(a, matched_operations(a))
    if by is None:
        return None
    # A DENY among them makes it "denied" only if every covering ACL denies; otherwise "shadowed".
    reason = RemovalReason.DENIED if a.permission is ALLOW and all(b.permission is DENY for b in by) \
        else RemovalReason.SHADOWED
    return Removal(a, reason, tuple(by))


# -- merging literals into prefixes, over the known names only ----------------------------------

def _merge(survivors: list[AclBinding], candidates: set[AclBinding], names: Mapping[ResourceType, Iterable[str]],
           given: list[AclBinding], result: Compaction) -> list[AclBinding]:
    groups: dict[tuple, list[AclBinding]] = {}
    for b in survivors:
        if (b in candidates and b.pattern_type is LITERAL and b.permission is ALLOW
                and b.resource_name != WILDCARD_RESOURCE and names.get(b.resource_type)):
            groups.setdefault((b.resource_type, b.principal, b.host, b.operation), []).append(b)
    known: dict[ResourceType, list[str]] = {}
    for rtype, listed in names.items():
        own = {b.resource_name for b in given if b.resource_type is rtype and b.pattern_type is LITERAL}
        known[rtype] = sorted((set(listed) | own) - {WILDCARD_RESOURCE})
        result.known[rtype] = frozenset(known[rtype])
    replaced: dict[AclBinding, AclBinding] = {}
    for (rtype, principal, host, op), literals in groups.items():
        if len(literals) < 2 or rtype not in known:
            continue
        for prefix, members, count in _prefixes(literals, known[rtype]):
            new = AclBinding(rtype, prefix, PREFIXED, principal, host, op, ALLOW)
            result.merges.append(Merge(new, tuple(members), count))
            for m in members:
                replaced[m] = new
                result.removals.append(Removal(m, RemovalReason.MERGED, (new,)))
    out: list[AclBinding] = []
    placed: set[AclBinding] = set(survivors)
    for b in survivors:
        merged_into = replaced.get(b)
        if merged_into is None:
            out.append(b)
        elif merged_into not in placed:
            placed.add(merged_into)
            out.append(merged_into)
    return out


def _prefixes(literals: list[AclBinding], known: list[str]) -> list[tuple[str, list[AclBinding], int]]:
    """``(prefix, literals, known names under it)`` for each prefix under which every known name is
    one of ``literals`` and that takes two literals or more: the longest common prefix of the
    literals whose shortest such prefix is the same (so it widens as little as can be)."""
    own = sorted(b.resource_name for b in literals)

    def count(names: list[str], p: str) -> int:
        return bisect_right(names, p, key=lambda s: s[:len(p)]) - bisect_left(names, p)

    by_start: dict[str, list[AclBinding]] = {}
    for b in literals:
        n = b.resource_name
        # The shortest k with every known name under n[:k] granted (len(n) + 1: none); longer ones hold too.
        lo, hi = 1, len(n) + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if count(known, n[:mid]) == count(own, n[:mid]):
                hi = mid
            else:
                lo = mid + 1
        if lo <= len(n):
            by_start.setdefault(n[:lo], []).append(b)
    out = []
    for members in by_start.values():
        if len(members) >= 2:
            prefix = commonprefix([m.resource_name for m in members])
            out.append((prefix, members, count(known, prefix)))
    return out
