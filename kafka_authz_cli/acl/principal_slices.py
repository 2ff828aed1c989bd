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

from kafka_authz_cli.acl.classes import RequestClasses
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.index import TypeIndex
from kafka_authz_cli.acl.matching import WILDCARD_PRINCIPAL_KEY, principal_key
from kafka_authz_cli.acl.model import WILDCARD_HOST, WILDCARD_RESOURCE, ResourceType


def walk_slots(index: TypeIndex | None, name: str) -> list[tuple[tuple[int, int], object]]:
    """The buckets of ``index`` Kafka's walk meets for ``name``, each with its place in the walk
    (the order of :meth:`.index.TypeIndex.plan`, PREFIXED ``*`` twice for names starting with ``*``)."""
    if index is None:
        return []
    out = []
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
        self.hosts: dict[ResourceType, TypeIndex] = {}
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
                _index(self.hosts, rtype).add(acl)
        for table in (self.own, self.wild, self.hosts):
            for index in table.values():
                index.seal()

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

    def named_hosts(self, classes: RequestClasses, rtype: ResourceType, name: str) -> frozenset[str]:
        """Every client-matchable host the name's candidates name, any principal."""
        out: set[str] = set()
        for _slot, bucket in walk_slots(self.hosts.get(rtype), name):
            out |= classes.bucket_view(bucket).all_hosts
        return frozenset(out)


_UNSEEN = object()


def _index(table: dict, key) -> TypeIndex:
    index = table.get(key)
    if index is None:
        index = table[key] = TypeIndex()
    return index
