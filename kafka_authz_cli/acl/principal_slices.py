"""One side's ACLs sliced by principal: a principal's view of a name without the name's whole plan.

A principal's decision on a name rests on its own candidate ACLs and ``User:*``'s (:mod:`.classes`).
When a change reaches every name (one ACL on the literal ``*``), the decision diff visits every name
class for the few principals the change names; asking the engine for each name's plan would walk
every ACL bucket of the set for them. Here the ACLs of those principals, of ``User:*`` and (for the
host classes counted) of specific hosts are indexed apart, as the engine indexes them
(:class:`.index.TypeIndex`), so that a name's slots for one principal come from a few small
dictionaries. A slot is a position of Kafka's walk (the name's LITERAL ACLs, each prefix longest
first, the wildcard section); both walks visit the same positions in the same order.
"""

from __future__ import annotations

from kafka_authz_cli.acl.classes import RequestClasses, valid_host
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.matching import WILDCARD_PRINCIPAL_KEY, principal_key
from kafka_authz_cli.acl.model import WILDCARD_HOST, WILDCARD_RESOURCE, PatternType, ResourceType
from kafka_authz_cli.acl.type_index import TypeIndex


def walk_slots(index: TypeIndex | None, name: str) -> list[tuple[tuple[int, int], object]]:
    """The buckets of ``index`` Kafka's walk meets for ``name``, each with its place in the walk
    (the order of :meth:`.index.TypeIndex.plan`, PREFIXED ``*`` twice for names starting with ``*``)."""
    if index is None:
        return []
    out: list[tuple[tuple[int, int], object]] = []
    literal = index.bucket(index.literal, name)
    if literal is not None:
        out.append(((0, 0), literal))
    n = len(name)
    prefixed = index.prefixed
    for length in index.prefixed_lengths:
        if length <= n and (name[:length] if length < n else name) in prefixed:
            out.append(((1, -length), index.bucket(prefixed, name[:length])))
    starts_with_star = name.startswith(WILDCARD_RESOURCE)
    if not starts_with_star or name == WILDCARD_RESOURCE:
        bucket = index.bucket(index.literal, WILDCARD_RESOURCE)
        if bucket is not None:
            out.append(((2, 0), bucket))
    if starts_with_star:
        bucket = index.bucket(prefixed, WILDCARD_RESOURCE)
        if bucket is not None:
            out.append(((3, 0), bucket))
    return out


class PrincipalSlices:
    """One authorizer's ACLs of some principals, of ``User:*`` and of specific hosts, indexed apart
    per resource type. ``usable(rtype)`` says whether its views are the engine's (no ACL whose
    principal has no ``:`` on the type: that one is met by every principal)."""

    def __init__(self, authorizer: StandardAuthorizer, principals: set):
        self.authorizer = authorizer
        self.own: dict[tuple[ResourceType, tuple], TypeIndex] = {}
        self.wild: dict[ResourceType, TypeIndex] = {}
        self.hosts: dict[ResourceType, _NamedHosts] = {}
        self.unusable: set[ResourceType] = set()
        self._star_only: dict = {}
        keys: dict[str, tuple | None] = {}
        for acl in authorizer.bindings:
            key = keys.get(acl.principal, False)
            if key is False:
                key = keys[acl.principal] = principal_key(acl.principal)
            rtype = acl.resource_type
            if key is None:
                self.unusable.add(rtype)
            elif key == WILDCARD_PRINCIPAL_KEY:
                _index(self.wild, rtype).add(acl)
            elif key in principals:
                _index(self.own, (rtype, key)).add(acl)
            if acl.host != WILDCARD_HOST:
                named = self.hosts.get(rtype)
                if named is None:
                    named = self.hosts[rtype] = _NamedHosts()
                named.add(acl)
        for table in (self.own, self.wild, self.hosts):
            for index in table.values():
                index.seal()

    def patterns(self, rtype: ResourceType) -> tuple[set[str], set[str]]:
        """The LITERAL and PREFIXED resource names of every ACL of the type these slices index."""
        literal: set[str] = set()
        prefixed: set[str] = set()
        indexes: list = [index for (t, _key), index in self.own.items() if t is rtype]
        indexes.extend(table[rtype] for table in (self.wild, self.hosts) if rtype in table)
        for index in indexes:
            literal.update(index.literal)
            prefixed.update(index.prefixed)
        return literal, prefixed

    def usable(self, rtype: ResourceType) -> bool:
        return rtype not in self.unusable

    def star_only(self, rtype: ResourceType, pkey):
        """The bucket of the principal's ACLs on the literal ``*`` where it has ACLs on nothing else
        of the type (None where it has none at all); False otherwise."""
        key = (rtype, pkey)
        found = self._star_only.get(key, _UNSEEN)
        if found is _UNSEEN:
            index = self.own.get(key) if pkey is not None else None
            if index is None:
                found = None
            elif not index.prefixed and set(index.literal) == {WILDCARD_RESOURCE}:
                found = index.bucket(index.literal, WILDCARD_RESOURCE)
            else:
                found = False
            self._star_only[key] = found
        return found

    def own_slots(self, rtype: ResourceType, pkey, name: str) -> list:
        """Where the walk meets the principal's own ACLs for ``name`` (empty for most names)."""
        return walk_slots(self.own.get((rtype, pkey)), name) if pkey is not None else []

    @staticmethod
    def merged(classes: RequestClasses, own: list, wild_slots: list) -> list[tuple]:
        """The slots of a principal's view (``own``: :meth:`own_slots`; ``wild_slots``:
        :meth:`wild_slots`, made once per name), as :meth:`.classes.RequestClasses.view_of` takes them."""
        if not own:
            return [(None, None, bucket, view) for _slot, bucket, view in wild_slots]
        merged: dict = {}
        for slot, bucket in own:
            merged[slot] = [bucket, classes.bucket_view(bucket), None, None]
        for slot, bucket, view in wild_slots:
            found = merged.get(slot)
            if found is None:
                merged[slot] = [None, None, bucket, view]
            else:
                found[2], found[3] = bucket, view
        return [tuple(merged[slot]) for slot in sorted(merged)]

    def wild_slots(self, classes: RequestClasses, rtype: ResourceType, name: str) -> list[tuple]:
        return [(slot, bucket, classes.bucket_view(bucket)) for slot, bucket in walk_slots(self.wild.get(rtype), name)]

    def has_acls(self, rtype: ResourceType, name: str) -> bool:
        """Whether any ACL is a candidate for the name (only asked where the no-ACL default allows)."""
        return not self.authorizer.allow_everyone_if_no_acl_found or self.authorizer.has_acls_for(rtype, name)

    def named_hosts(self, rtype: ResourceType, name: str) -> frozenset[str]:
        """Every client-matchable host the name's candidates name, any principal."""
        named = self.hosts.get(rtype)
        return named.of(name) if named is not None else frozenset()


class _NamedHosts:
    """The client-matchable hosts (not ``*``) that the ACLs of one type name, by resource pattern:
    what the candidates of a name name, without indexing the ACLs themselves. Names under the same
    patterns share one answer (a name's patterns are those of :func:`walk_slots`)."""

    __slots__ = ("literal", "prefixed", "lengths", "_unions")

    def __init__(self) -> None:
        self.literal: dict[str, set[str] | frozenset[str]] = {}
        self.prefixed: dict[str, set[str] | frozenset[str]] = {}
        self.lengths: tuple[int, ...] = ()
        self._unions: dict[tuple, frozenset[str]] = {}

    def add(self, acl) -> None:
        if valid_host(acl.host):
            table = self.literal if acl.pattern_type is PatternType.LITERAL else self.prefixed
            hosts = table.setdefault(acl.resource_name, set())
            assert isinstance(hosts, set)  # frozen by seal(), once every ACL is in
            hosts.add(acl.host)

    def seal(self) -> None:
        for table in (self.literal, self.prefixed):
            for pattern, hosts in table.items():
                table[pattern] = frozenset(hosts)
        self.lengths = tuple(sorted({len(p) for p in self.prefixed}))

    def of(self, name: str) -> frozenset[str]:
        found = []
        literal, prefixed = self.literal, self.prefixed
        hosts = literal.get(name)
        if hosts is not None:
            found.append(hosts)
        n = len(name)
        for length in self.lengths:
            if length > n:
                break
            hosts = prefixed.get(name[:length])
            if hosts is not None:
                found.append(hosts)
        starts_with_star = name.startswith(WILDCARD_RESOURCE)
        if not starts_with_star or name == WILDCARD_RESOURCE:
            hosts = literal.get(WILDCARD_RESOURCE)
            if hosts is not None:
                found.append(hosts)
        if starts_with_star:
            hosts = prefixed.get(WILDCARD_RESOURCE)
            if hosts is not None:
                found.append(hosts)
        if len(found) == 1:
            return found[0]  # type: ignore[return-value]
        key = tuple(map(id, found))
        union = self._unions.get(key)
        if union is None:
            union = self._unions[key] = frozenset().union(*found)
        return union


_UNSEEN = object()


def _index(table: dict, key) -> TypeIndex:
    index = table.get(key)
    if index is None:
        index = table[key] = TypeIndex()
    return index
