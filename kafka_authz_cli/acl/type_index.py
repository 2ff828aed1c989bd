"""Hash indexes over one resource type's ACLs: the candidates for a resource name without a scan.

Kafka finds the ACLs that apply to a resource by walking its sorted set (see :mod:`.walk`). For a
name that does not sort below ``*`` and no ACL with an empty name, that walk meets exactly: the
LITERAL ACLs of the name itself, the PREFIXED ACLs of each of its prefixes (longest first), then the
LITERAL ``*`` ACLs (skipped when the name starts with ``*``, a Kafka quirk) and the PREFIXED ``*``
ACLs (for names starting with ``*``). :meth:`TypeIndex.plan` lists those buckets in that order from
dictionaries, so the cost of a decision does not grow with the number of ACLs; ``None`` says only the
walk can tell.

A bucket holds the ACLs of one resource pattern keyed by (principal type, principal name, host), so
matching a request looks up at most four keys (its principal or ``User:*``, its address or ``*``).
"""

from __future__ import annotations

import functools

from kafka_authz_cli._java import utf16_key
from kafka_authz_cli.acl.matching import (
    MATCHED_OPS,
    WILDCARD_PRINCIPAL_KEY,
    acl_order_key,
    principal_key,
)
from kafka_authz_cli.acl.model import (
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    unmatchable_host_reason,
)

ALLOW = AclPermissionType.ALLOW
DENY = AclPermissionType.DENY

#: Cached plans per resource type before the cache starts over (bounded memory on huge request files).
MAX_CACHED_PLANS = 65536
_NO_ODD_HOSTS: dict = {}


class Bucket:
    """All ACLs of one resource pattern, indexed by (principal type, name, host) for O(1) matching.

    Indexed when a plan first takes it (:meth:`TypeIndex.plan`): a million ACLs load as a list per
    resource pattern, and only the patterns some request asks about are ever sorted and indexed. The
    index holds positions in :attr:`acls`, not the ACLs: buckets whose entries are the same (the
    same principals, hosts, operations on another name, as for every resource of a team) share one."""

    __slots__ = ("acls", "positions", "entries", "bad", "odd_hosts")

    def __init__(self) -> None:
        self.acls: list[AclBinding] = []
        #: Where each ACL is in the list the engine was given (to find the line it was read from).
        self.positions: list[int] = []
        #: ACLs whose host no client address can ever equal (``::1``, a CIDR, a host name), for notes:
        #: by (principal key, request operation they match, permission), positions in Kafka order, so
        #: that a note costs a lookup however many such ACLs there are (AuthorizerBenchmark has 5,000).
        self.odd_hosts: dict[tuple, tuple[int, ...]] = _NO_ODD_HOSTS
        #: (principal type, principal name, host) -> ((position in acls, request ops it matches), ...) in
        #: Kafka order; None until the bucket is indexed.
        self.entries: dict[tuple[str, str, str], tuple[tuple[int, frozenset], ...]] | None = None
        self.bad: AclBinding | None = None  # first ACL (in Kafka order) whose principal has no ':'

    def add(self, acl: AclBinding, position: int = -1) -> None:
        self.acls.append(acl)
        self.positions.append(position)

    def freeze(self, shapes: dict, principal_keys: dict) -> None:
        """Keep each ACL once (the first given), sort into Kafka's order and index. ``shapes`` holds
        the index made for each list of entries met so far, ``principal_keys`` memoises principal_key
        (both shared by every bucket: a million ACLs name a few thousand principals)."""
        acls = self.acls
        signature = tuple([(a.principal, a.host, a.operation, a.permission) for a in acls])
        shape = shapes.get(signature)
        if shape is None:
            shape = shapes[signature] = _shape(signature, principal_keys)
        order, self.entries, self.odd_hosts, bad = shape
        if order is not None:
            acls = self.acls = [acls[i] for i in order]
            positions = self.positions
            self.positions = [positions[i] for i in order]
        self.bad = None if bad is None else acls[bad]

    def matches(self, keys: tuple[tuple[str, str, str], ...], op: AclOperation) -> list[AclBinding]:
        """Matching ACLs of this bucket in Kafka's order; ``keys`` are the request's lookup keys."""
        found: list[AclBinding] = []
        lists = 0
        acls = self.acls
        indexed = self.entries
        assert indexed is not None  # only an indexed bucket is asked (TypeIndex.bucket, plan)
        for key in keys:
            entries = indexed.get(key)
            if entries:
                before = len(found)
                for i, ops in entries:
                    if op in ops:
                        found.append(acls[i])
                lists += len(found) > before
        if lists > 1:
            found.sort(key=acl_order_key)
        return found

    def deciding_acl(self, matches: list[AclBinding] | None) -> AclBinding | None:
        """Where Kafka's walk through this bucket ends, given the request's matching ACLs here (None:
        none match): at :attr:`bad` (it throws) when it meets that before a matching DENY, else at the
        first matching DENY; with neither, the last matching ALLOW is what it reports so far."""
        bad = self.bad
        if matches is None:
            return bad
        if len(matches) > 1:
            matches.sort(key=acl_order_key)
        for acl in matches:
            if acl.permission is DENY:
                return bad if bad is not None and acl_order_key(bad) < acl_order_key(acl) else acl
        if bad is not None:
            return bad
        for acl in reversed(matches):
            if acl.permission is ALLOW:
                return acl
        return None


def _shape(signature: tuple, principal_keys: dict) -> tuple:
    """The index of a bucket whose ACLs' entries are ``signature`` (principal, host, operation,
    permission; in the order given): (the positions kept, in Kafka's order, or None when that is the
    order given; entries; odd hosts; the position of the first ACL whose principal has no ':')."""
    firsts: dict[tuple, int] = {}
    for i, entry in enumerate(signature):
        firsts.setdefault(entry, i)  # Kafka stores each ACL once; in one resource pattern it is its entry
    ascii_only = all(e[0].isascii() and e[1].isascii() for e in firsts)
    order = sorted(firsts.values(), key=lambda i: _entry_order_key(signature[i], ascii_only))
    grouped: dict[tuple[str, str, str], list] = {}
    odd: dict[tuple, list[int]] = {}
    bad = None
    for pos, i in enumerate(order):
        principal, host, operation, permission = signature[i]
        key = principal_keys.get(principal, False)
        if key is False:
            key = principal_keys[principal] = principal_key(principal)
        if key is None:
            if bad is None:
                bad = pos
            continue
        ops = MATCHED_OPS[(operation, permission)]
        grouped.setdefault((key[0], key[1], host), []).append((pos, ops))
        if host != WILDCARD_HOST and unmatchable_host_reason(host):
            for op in ops:
                odd.setdefault((key, op, permission), []).append(pos)
    entries = {k: tuple(v) for k, v in grouped.items()}
    odd_hosts = {k: tuple(v) for k, v in odd.items()} if odd else _NO_ODD_HOSTS
    return (None if order == list(range(len(signature))) else order), entries, odd_hosts, bad


def _entry_order_key(entry: tuple, ascii_only: bool) -> tuple:
    """:func:`acl_order_key` of an entry (principal, host, operation, permission): ASCII text's str
    order is Java's."""
    principal, host, operation, permission = entry
    if ascii_only:
        return (operation.code, principal, host, permission.code)
    return (operation.code, utf16_key(principal), utf16_key(host), permission.code)


@functools.lru_cache(maxsize=4096)
def lookup_keys(request_principal: tuple[str, str], host: str) -> tuple[tuple[str, str, str], ...]:
    """The (principal, host) keys whose ACLs can match a request: its own principal or User:*,
    its own host or '*'."""
    principals = ((request_principal,) if request_principal == WILDCARD_PRINCIPAL_KEY
                  else (request_principal, WILDCARD_PRINCIPAL_KEY))
    hosts = (host,) if host == WILDCARD_HOST else (host, WILDCARD_HOST)
    return tuple((p[0], p[1], h) for p in principals for h in hosts)


def has_lone_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)


class TypeIndex:
    """The ACLs of one resource type: LITERAL and PREFIXED buckets by name, and the plans made so far."""

    __slots__ = ("literal", "prefixed", "prefixed_lengths", "has_empty_name", "has_names_below_star",
                 "walk_only", "plans", "principal_keys", "shapes")

    def __init__(self, walk_only: bool = False, principal_keys: dict | None = None,
                 shapes: dict | None = None) -> None:
        self.literal: dict[str, Bucket] = {}
        self.prefixed: dict[str, Bucket] = {}
        self.prefixed_lengths: tuple[int, ...] = ()
        self.has_empty_name = False
        self.has_names_below_star = False
        #: Plan nothing: every decision is left to Kafka's walk (for cross-checking).
        self.walk_only = walk_only
        #: resource name -> candidate buckets in walk order (None: only the walk can tell).
        self.plans: dict[str, tuple[Bucket, ...] | None] = {}
        #: principal text -> principal_key, shared by the buckets of every type.
        self.principal_keys: dict = {} if principal_keys is None else principal_keys
        #: entries of a bucket -> its index (see Bucket.freeze), shared likewise.
        self.shapes: dict = {} if shapes is None else shapes

    def add(self, acl: AclBinding) -> None:
        table = self.literal if acl.pattern_type is PatternType.LITERAL else self.prefixed
        bucket = table.get(acl.resource_name)
        if bucket is None:
            bucket = self.new_bucket(table, acl.resource_name)
        bucket.add(acl)

    def new_bucket(self, table: dict[str, Bucket], name: str) -> Bucket:
        """The empty bucket of a name met for the first time in ``table`` (literal or prefixed)."""
        bucket = table[name] = Bucket()
        if name == "":
            self.has_empty_name = True
        if name == "" or name[0] < "*":
            self.has_names_below_star = True
        if not name.isascii() and has_lone_surrogate(name):
            # Prefixes in UTF-16 units and in code points differ only for such names: let the walk decide.
            self.has_empty_name = True
        return bucket

    def seal(self) -> None:
        """Every ACL added: the prefix lengths a plan tries."""
        self.prefixed_lengths = tuple(sorted({len(n) for n in self.prefixed}, reverse=True))

    def bucket(self, table: dict[str, Bucket], name: str) -> Bucket | None:
        """The bucket of ``name`` in ``table``, indexed."""
        bucket = table.get(name)
        if bucket is not None and bucket.entries is None:
            bucket.freeze(self.shapes, self.principal_keys)
        return bucket

    def acls(self) -> list[AclBinding]:
        for table in (self.literal, self.prefixed):
            for name in table:
                self.bucket(table, name)
        return [a for b in self.literal.values() for a in b.acls] + [a for b in self.prefixed.values() for a in b.acls]

    def plan(self, name: str) -> tuple[Bucket, ...] | None:
        """Candidate buckets for a resource name in Kafka's walk order, or None when only the walk
        itself can tell."""
        cached = self.plans.get(name, False)
        if cached is not False:
            return cached  # type: ignore[return-value]
        plan = None if self._walk_decides(name) else self._candidates(name)
        if len(self.plans) > MAX_CACHED_PLANS:
            self.plans.clear()
        self.plans[name] = plan
        return plan

    def _walk_decides(self, name: str) -> bool:
        """The walk's own quirks decide: ACLs with an empty name, names sorting below ``*`` on both
        sides (the re-scan bug), or a name whose UTF-16 prefixes are not its code-point prefixes."""
        return (self.walk_only or self.has_empty_name
                or (self.has_names_below_star and name != "" and name[0] < "*")
                or has_lone_surrogate(name))

    def _candidates(self, name: str) -> tuple[Bucket, ...]:
        # The first scan: the name's own LITERAL ACLs, then its prefixes, longest first.
        chain: list[Bucket] = []
        literal = self.bucket(self.literal, name)
        if literal is not None:
            chain.append(literal)
        n = len(name)
        prefixed = self.prefixed
        for length in self.prefixed_lengths:
            if length <= n:
                bucket = prefixed.get(name[:length] if length < n else name)
                if bucket is not None:
                    if bucket.entries is None:
                        bucket.freeze(self.shapes, self.principal_keys)
                    chain.append(bucket)
        # The second scan: the wildcard section. For a name starting with '*', Kafka's walk takes the
        # LITERAL '*' for a LITERAL ACL whose name is only a prefix of the name, and skips it.
        starts_with_star = name.startswith(WILDCARD_RESOURCE)
        if not starts_with_star or name == WILDCARD_RESOURCE:
            bucket = self.bucket(self.literal, WILDCARD_RESOURCE)
            if bucket is not None:
                chain.append(bucket)
        if starts_with_star:
            bucket = self.bucket(prefixed, WILDCARD_RESOURCE)
            if bucket is not None:
                chain.append(bucket)
        return tuple(chain)
