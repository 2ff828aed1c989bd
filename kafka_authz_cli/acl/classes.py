"""Request classes: which requests on one resource name a set of ACLs can tell apart, decided once each.

On one resource name, Kafka looks only at the candidate ACLs (the name's LITERAL ACLs, the PREFIXED
ACLs of its prefixes, the wildcard section), and a candidate matches a request iff its principal is
the request's or ``User:*`` and its host is the client's address or ``*``. The idea everything here
rests on follows from that matching rule alone:

    What decides a request of principal ``p`` is the *restricted view* of the candidates: the entries
    (host, operation, permission, place in Kafka's walk) of ``p``'s own ACLs and of ``User:*``'s,
    bucket by bucket in walk order. Nothing else about the ACL set can change its answer.

So, for ``p``, a host that neither ``p``'s ACLs nor ``User:*``'s name is no different from any other
such host: ``p``'s host classes are the hosts its view names, plus one "any other host"
(:data:`FRESH_HOST`). A principal that no candidate names sees only ``User:*``'s entries: everyone
else is one class (:data:`FRESH_PRINCIPAL`). Hosts named only by *other* principals' ACLs never
enter ``p``'s classes; that is what keeps the classes from being the product of every principal and
every host (one ACL on the literal ``*`` with a specific host used to put that host into every name
class, for every principal).

And because the view is the whole input of the decision, two name classes (or two sides of a diff)
that give ``p`` equal views decide alike for every host and operation: a view is reduced to a
:class:`View` (small interned numbers, equal when the entries are equal), and its decisions are
computed once per view and looked up for every other name with the same view (the 50,000 topics of
Kafka's AuthorizerBenchmark give ``User:test-user`` a handful of distinct views). The decision over
a view follows the engine's hash-index path (:meth:`.engine.StandardAuthorizer._find_rule`): in walk
order, a bucket's first matching DENY (in Kafka's order) ends the walk, else its last matching ALLOW
is the one reported so far. Names whose plan only Kafka's own walk can tell, and buckets holding an
ACL whose principal has no ``:`` (it throws on being met, whoever asks), are left to the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from kafka_authz_cli._java import java_chars
from kafka_authz_cli.acl.decision import Rule
from kafka_authz_cli.acl.matching import MATCHED_OPS, WILDCARD_PRINCIPAL_KEY, acl_order_key, principal_key
from kafka_authz_cli.acl.model import (
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    PatternType,
    java_host_address,
)

if TYPE_CHECKING:
    from kafka_authz_cli.acl.type_index import Bucket

FRESH_PRINCIPAL = "User:anyone-else"
FRESH_HOST = "192.0.2.254"
DENY = AclPermissionType.DENY

_valid: dict[str, bool] = {}


def valid_host(host: str) -> bool:
    """Whether some client's address text can equal this ACL host (``*`` included). A host Kafka
    never matches (``::1``, ``127.00``, a host name) names no host class."""
    ok = _valid.get(host)
    if ok is None:
        try:
            ok = host == WILDCARD_HOST or java_host_address(host) == host
        except AclError:
            ok = False
        if len(_valid) > 65536:
            _valid.clear()
        _valid[host] = ok
    return ok


@dataclass(frozen=True, slots=True)
class Decided:
    """A decision over a view: ``label`` (ALLOWED / DENIED), ``rule`` (a :class:`.decision.Rule`, or None
    for an ACL) and where the deciding ACL is (its part in the view, whether it is the principal's own
    ACL (0) or ``User:*``'s (1), and its index in that bucket's ACLs)."""

    label: str
    rule: Rule | None
    part: int = -1
    which: int = 0
    index: int = -1


SUPER = Decided("ALLOWED", Rule.SUPER_USER)
DEFAULT_DENIED = Decided("DENIED", Rule.DEFAULT_DENY)
DEFAULT_ALLOWED = Decided("ALLOWED", Rule.DEFAULT_ALLOW)


class _BucketView:
    """One bucket's entries per principal key (shared by every bucket of the same shape)."""

    __slots__ = ("entries", "parts", "hosts", "all_hosts", "named")

    def __init__(self, entries: dict, parts: dict, hosts: dict, all_hosts: frozenset[str], named: frozenset):
        self.entries = entries  # kept: the cache is keyed by its id
        #: every principal key an entry names (also those whose hosts never match: they are still
        #: principals with ACLs of their own, reported by name)
        self.named = named
        #: principal key -> interned id of its entries here (host, order in Kafka's walk, operations,
        #: deny, index in the bucket's ACLs)
        self.parts = parts
        #: principal key -> the client-matchable hosts (not '*') its entries name
        self.hosts = hosts
        self.all_hosts = all_hosts


#: What decides one principal's requests on one name: whether the name has candidates at all, and
#: the (own, ``User:*``) entry ids of each bucket where either has entries, in walk order. A plain
#: tuple: views are hashed for every principal of every class visited, and a tuple hashes in C.
View = tuple[bool, tuple[tuple[int, int], ...]]
#: Where a view's parts come from: per part, the bucket holding the principal's own ACLs and the one
#: holding ``User:*``'s (the same bucket when the view is taken of an engine's plan).
Where = tuple[tuple["Bucket | None", "Bucket | None"], ...]


class RequestClasses:
    """Views, host classes and decisions over the buckets of one or more authorizers (the buckets of
    one :class:`.engine.StandardAuthorizer` stay alive as long as it does; so does this)."""

    def __init__(self) -> None:
        self._buckets: dict[int, _BucketView] = {}
        self._part_ids: dict[tuple, int] = {(): 0}
        self._parts: list[tuple] = [()]
        self._hosts: dict[View, tuple[str, ...]] = {}

    # -- one bucket ---------------------------------------------------------------------------------

    def bucket_view(self, bucket) -> _BucketView:
        entries = bucket.entries
        found = self._buckets.get(id(entries))
        if found is None or found.entries is not entries:
            found = self._buckets[id(entries)] = self._make_bucket_view(bucket)
        return found

    def _make_bucket_view(self, bucket) -> _BucketView:
        grouped: dict[tuple[str, str], list] = {}
        hosts: dict[tuple[str, str], set[str]] = {}
        named = set()
        acls = bucket.acls
        for (ptype, pname, host), found in bucket.entries.items():
            key = (ptype, pname)
            named.add(key)
            if not valid_host(host):
                continue  # never matches a client: decides nothing
            rows = grouped.setdefault(key, [])
            for position, ops in found:
                acl = acls[position]
                rows.append((host, acl_order_key(acl), ops, acl.permission is DENY, position))
            if host != WILDCARD_HOST:
                hosts.setdefault(key, set()).add(host)
        parts = {}
        for key, rows in grouped.items():
            rows.sort(key=lambda r: r[1])
            parts[key] = self._intern(tuple(rows))
        frozen = {k: frozenset(v) for k, v in hosts.items()}
        all_hosts = frozenset().union(*frozen.values()) if frozen else frozenset()
        return _BucketView(bucket.entries, parts, frozen, all_hosts, frozenset(named))

    def part(self, part_id: int) -> tuple:
        """The entries (host, order, operations, deny, index) an id of a view stands for."""
        return self._parts[part_id]

    def _intern(self, rows: tuple) -> int:
        found = self._part_ids.get(rows)
        if found is None:
            found = self._part_ids[rows] = len(self._parts)
            self._parts.append(rows)
        return found

    # -- one principal's view of one name -------------------------------------------------------------

    def slots(self, plan: tuple) -> list[tuple]:
        """A plan's buckets as (own source, its view, ``User:*`` source, its view): both the bucket."""
        out = []
        for bucket in plan:
            bview = self.bucket_view(bucket)
            out.append((bucket, bview, bucket, bview))
        return out

    def view(self, plan: tuple, pkey: tuple[str, str] | None) -> tuple[View, Where]:
        """The view of principal key ``pkey`` (None: a principal no ACL names) over a plan (the
        candidate buckets in walk order), and where each of its parts comes from."""
        return self.view_of(self.slots(plan), pkey, bool(plan))

    @staticmethod
    def view_of(slots: list[tuple], pkey: tuple[str, str] | None, has_acls: bool) -> tuple[View, Where]:
        """:meth:`view` over :meth:`slots` (made once for every principal of a name), or over the
        slots of :mod:`.principal_slices` (the principal's own ACLs and ``User:*``'s, apart)."""
        parts = []
        where = []
        wild = WILDCARD_PRINCIPAL_KEY
        own_key = None if pkey == wild else pkey
        for own_bucket, own_view, wild_bucket, wild_view in slots:
            own = own_view.parts.get(own_key, 0) if own_view is not None and own_key is not None else 0
            everyone = wild_view.parts.get(wild, 0) if wild_view is not None else 0
            if own or everyone:
                parts.append((own, everyone))
                where.append((own_bucket, wild_bucket))
        return (has_acls, tuple(parts)), tuple(where)

    def hosts(self, view: View) -> tuple[str, ...]:
        """The hosts a view names (sorted): with "any other host", its principal's host classes."""
        found = self._hosts.get(view)
        if found is None:
            named: set[str] = set()
            for own, everyone in view[1]:
                for rows in (self._parts[own], self._parts[everyone]):
                    named.update(r[0] for r in rows if r[0] != WILDCARD_HOST)
            found = self._hosts[view] = tuple(sorted(named))
        return found

    def plan_hosts(self, plan: Iterable) -> frozenset[str]:
        """Every client-matchable host the candidates of a plan name (any principal)."""
        out: set[str] = set()
        for bucket in plan:
            out |= self.bucket_view(bucket).all_hosts
        return frozenset(out)

    def principals(self, plan: Iterable) -> set[tuple[str, str]]:
        """The principal keys (not ``User:*``) the candidates of a plan name."""
        out: set[tuple[str, str]] = set()
        for bucket in plan:
            out |= self.bucket_view(bucket).named
        out.discard(WILDCARD_PRINCIPAL_KEY)
        return out

    # -- deciding a view ------------------------------------------------------------------------------

    def decide(self, view: View, host: str | None, op: AclOperation, allow_everyone: bool) -> Decided:
        """The decision for a request from ``host`` (None: any host the view does not name)."""
        return self.decide_hosts(view, (host,), op, allow_everyone)[0]

    def decide_hosts(self, view: View, hosts: tuple, op: AclOperation, allow_everyone: bool) -> list[Decided]:
        """:meth:`decide` for each of ``hosts`` (None: any host the view does not name), in one pass over
        the view's rows: a row for every host (`*`) counts for each, a row for one host for that one.
        Rows are in one order (Kafka's, unique within a bucket and between the principal's and
        ``User:*``'s), so a host's DENY is the least of its own and the wildcard's, its ALLOW the
        greatest: the same as deciding host by host, at the cost of one pass instead of one per host."""
        parts = self._parts
        at = {h: i for i, h in enumerate(hosts) if h is not None}
        n = len(hosts)
        decided: list[Decided | None] = [None] * n  # a DENY: the walk stops there
        allowed: list[Decided | None] = [None] * n  # the last part's ALLOW so far
        for k, (own, everyone) in enumerate(view[1]):
            (wild_deny, wild_allow), deny, allow = _part_by_host((parts[own], parts[everyone]), op, at)
            # A row for every host decides each host not yet decided, unless the host's own row comes
            # first (DENY) or last (ALLOW) in Kafka's order; other parts decide only their hosts.
            if wild_deny is not None:
                shared = Decided("DENIED", None, k, wild_deny[1], wild_deny[2])
                for i in range(n):
                    if decided[i] is None:
                        d = deny.get(i)
                        decided[i] = shared if d is None or wild_deny[0] <= d[0] else \
                            Decided("DENIED", None, k, d[1], d[2])
                break  # every host is denied here: the walk ends
            for i, d in deny.items():
                if decided[i] is None:
                    decided[i] = Decided("DENIED", None, k, d[1], d[2])
            if wild_allow is not None:
                shared = Decided("ALLOWED", None, k, wild_allow[1], wild_allow[2])
                for i in range(n):
                    if decided[i] is None:
                        a = allow.get(i)
                        allowed[i] = shared if a is None or wild_allow[0] >= a[0] else \
                            Decided("ALLOWED", None, k, a[1], a[2])
            else:
                for i, a in allow.items():
                    if decided[i] is None:
                        allowed[i] = Decided("ALLOWED", None, k, a[1], a[2])
        default = DEFAULT_DENIED if view[0] or not allow_everyone else DEFAULT_ALLOWED
        return [decided[i] or allowed[i] or default for i in range(n)]


def _part_by_host(rows_of: tuple, op: AclOperation, at: dict) -> tuple:
    """One part of a view for ``op``: ((the first DENY, the last ALLOW) of its rows for every host), and
    of the rows for one host, by the host's position in ``at`` (each (order, own or User:*'s, index))."""
    wild_deny = wild_allow = None
    deny: dict[int, tuple] = {}
    allow: dict[int, tuple] = {}
    for which, rows in enumerate(rows_of):
        for row_host, order, ops, is_deny, index in rows:
            if op not in ops:
                continue
            if row_host == WILDCARD_HOST:
                if is_deny:
                    if wild_deny is None or order < wild_deny[0]:
                        wild_deny = (order, which, index)
                elif wild_allow is None or order > wild_allow[0]:
                    wild_allow = (order, which, index)
                continue
            i = at.get(row_host)
            if i is None:
                continue  # a host not asked about
            if is_deny:
                if i not in deny or order < deny[i][0]:
                    deny[i] = (order, which, index)
            elif i not in allow or order > allow[i][0]:
                allow[i] = (order, which, index)
    return (wild_deny, wild_allow), deny, allow


def deciding_acl(where: Where, decided: Decided) -> AclBinding | None:
    """The ACL a decision over a view names, found where the view was taken."""
    if decided.part < 0:
        return None
    bucket = where[decided.part][decided.which]
    assert bucket is not None  # the part that decided has ACLs
    return bucket.acls[decided.index]


def has_bad_principal(plan: Iterable) -> bool:
    """Some candidate's principal has no ':' (Kafka throws on meeting it, whoever asks)."""
    return any(bucket.bad is not None for bucket in plan)


def principal_text(pkey: tuple[str, str]) -> str:
    return f"{pkey[0]}:{pkey[1]}"


def matched_ops(acl: AclBinding) -> frozenset[AclOperation]:
    return MATCHED_OPS[(acl.operation, acl.permission)]


def walk_candidates(acls: Iterable[AclBinding], name: str) -> list[AclBinding]:
    """The ACLs whose pattern can match ``name`` in Kafka's walk (LITERAL equal, PREFIXED a prefix,
    LITERAL ``*``): a superset is harmless, it only adds classes. For names only the walk decides."""
    out = []
    units = java_chars(name)
    for acl in acls:
        if acl.pattern_type is PatternType.PREFIXED:
            if units.startswith(java_chars(acl.resource_name)):  # Kafka compares UTF-16 code units
                out.append(acl)
        elif acl.resource_name == name or acl.resource_name == WILDCARD_RESOURCE:
            out.append(acl)
    return out


def named_hosts(acls: Iterable[AclBinding], pkey: tuple[str, str] | None) -> list[str]:
    """The client-matchable hosts (sorted) the ACLs of ``pkey`` and of ``User:*`` name."""
    out = set()
    for acl in acls:
        key = principal_key(acl.principal)
        if (key == pkey or key == WILDCARD_PRINCIPAL_KEY) and acl.host != WILDCARD_HOST and valid_host(acl.host):
            out.add(acl.host)
    return sorted(out)


def every_principal(acls: Iterable[AclBinding], super_users: Iterable[str] = ()) -> list[str]:
    """Every principal the ACLs (or ``super.users``) name, and "anyone else": with :func:`every_host`,
    the coarse classes of several sets at once, for checks that try their whole product (small sets)."""
    out = {a.principal: None for a in acls if ":" in a.principal and a.principal != "User:*"}
    out.update(dict.fromkeys(sorted(super_users)))
    out[FRESH_PRINCIPAL] = None
    return list(out)


def every_host(acls: Iterable[AclBinding]) -> list[str]:
    """Every client-matchable host the ACLs name, and "any other host" (see :func:`every_principal`)."""
    out = {a.host: None for a in acls if a.host != WILDCARD_HOST and valid_host(a.host)}
    out[FRESH_HOST] = None
    return list(out)
