"""What one principal may do, at the size of real clusters: only the names its ACLs and ``User:*``'s reach.

``authz access --principal P`` answers per class of names (:mod:`.access_scope`). Everything that can
allow ``P`` anything is one of its own ALLOW ACLs or one of ``User:*``'s (or ``super.users``, or the
no-ACL default): so only the name classes under those ACLs' patterns are visited, and on each, ``P``'s
view of the candidates (its own entries and ``User:*``'s, bucket by bucket: :mod:`..acl.classes`) is
read from the two indexed apart (:mod:`..acl.principal_slices`) rather than from the name's whole
plan. The entries a view gives are worked out once per view, however many names share it, and are
exactly those :meth:`.access.AccessReview.for_principal` gives: the hosts each operation is allowed
from (an ALLOW of ``P`` or ``User:*`` from that host or any, less the hosts a DENY of either names),
and the ALLOW named for it (``P``'s own before ``User:*``'s, the host's own before ``*``, the
operation's own ACL before ``ALL`` before one implying it, the most specific pattern first). Names
only Kafka's walk can decide, or with an ACL principal without ``:``, are asked of the engine.
"""

from __future__ import annotations

from kafka_authz_cli.acl import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclOperation,
    AclPermissionType,
    NameSpace,
    ResourceType,
)
from kafka_authz_cli.acl.classes import RequestClasses, valid_host
from kafka_authz_cli.acl.matching import principal_key
from kafka_authz_cli.acl.principal_slices import PrincipalSlices
from kafka_authz_cli.review.access import AccessReview, Grant, ResourceAccess, reason_of

ALL_CODE = AclOperation.ALL.code


class PrincipalAccess:
    """``principal``'s entries on each class of names, over one :class:`.access.AccessReview`."""

    def __init__(self, review: AccessReview, principal: str):
        self.review = review
        self.principal = principal
        self.pkey = principal_key(principal)
        authorizer = review.authorizer
        self.super = principal in authorizer.super_users
        self.allow_everyone = authorizer.allow_everyone_if_no_acl_found
        self.slices = PrincipalSlices(authorizer, {self.pkey} if self.pkey else set())
        self.classes = RequestClasses()
        self._templates: dict[tuple, list[tuple]] = {}
        self._grants: dict[tuple, tuple[Grant, ...]] = {}

    def reached(self, rtype: ResourceType, space: NameSpace) -> list[tuple]:
        """The classes of ``rtype`` names where ``principal`` may be allowed something: under its own
        ALLOW ACLs and ``User:*``'s (every class for an ALLOW on ``*``, a super user or the no-ACL
        default)."""
        if self.super or self.allow_everyone or self.pkey is None or not self._sliced(rtype):
            return space.representatives()
        literal: set[str] = set()
        prefixed: set[str] = set()
        for index in (self.slices.own.get((rtype, self.pkey)), self.slices.wild.get(rtype)):
            if index is None:
                continue
            for table, names in ((index.literal, literal), (index.prefixed, prefixed)):
                for name, bucket in table.items():
                    if any(a.permission is AclPermissionType.ALLOW and valid_host(a.host) for a in bucket.acls):
                        names.add(name)
        if WILDCARD_RESOURCE in literal:
            return space.representatives()
        for prefix in prefixed:
            literal.update(space.under(prefix))
        return space.representatives(only=literal)

    def _sliced(self, rtype: ResourceType) -> bool:
        authorizer = self.review.authorizer
        return authorizer.decided_by_name(rtype) and self.slices.usable(rtype)

    def access(self, rtype: ResourceType, name: str, label: str) -> ResourceAccess:
        if not self._sliced(rtype):
            return self.review.for_principal(rtype, name, self.principal, label)
        classes = self.classes
        wild = self.slices.wild_slots(classes, rtype, name)
        own = self.slices.own_slots(rtype, self.pkey, name)
        has_acls = self.slices.has_acls(rtype, name)
        view, where = classes.view_of(self.slices.merged(classes, own, wild), self.pkey, has_acls)
        key = (rtype, view)
        templates = self._templates.get(key)
        if templates is None:
            templates = self._templates[key] = self._entries(rtype, view)
        # Names decided by the same buckets (every name only a prefix or `*` reaches) have the same
        # grants: made once (a list of its own for each answer all the same).
        made = self._grants.get((key, where))
        if made is None:
            made = self._grants[(key, where)] = tuple(self._grant(entry, where) for entry in templates)
        return ResourceAccess(rtype, name, label, list(made))

    def _grant(self, entry: tuple, where: tuple) -> Grant:
        op, host, reason, at, excepts = entry
        acl = where[at[0]][at[1]].acls[at[2]] if at is not None else None
        return Grant(self.principal, host, op, reason_of(acl) if acl is not None else reason, acl, excepts)

    def _entries(self, rtype: ResourceType, view: tuple) -> list[tuple]:
        """(operation, host, reason, where the named ACL is, except) per entry of a view."""
        out = []
        for op in SUPPORTED_OPERATIONS[rtype]:
            if self.super:
                out.append((op, WILDCARD_HOST, "super_user", None, ()))
                continue
            if not view[0] and self.allow_everyone:
                out.append((op, WILDCARD_HOST, "default_allow", None, ()))
                continue
            out.extend(self._op_entries(op, view))
        return out

    def _op_entries(self, op: AclOperation, view: tuple) -> list[tuple]:
        own_allow: dict[str, tuple] = {}
        wild_allow: dict[str, tuple] = {}
        deny: set[str] = set()
        parts = self.classes.part
        for k, pair in enumerate(view[1]):
            for which, table in ((0, own_allow), (1, wild_allow)):
                for host, order, ops, is_deny, index in parts(pair[which]):
                    if op not in ops:
                        continue
                    if is_deny:
                        deny.add(host)
                        continue
                    rank = 0 if order[0] == op.code else 1 if order[0] == ALL_CODE else 2
                    best = (rank, k, order, (k, which, index))
                    kept = table.get(host)
                    if kept is None or best[:3] < kept[:3]:
                        table[host] = best
        if WILDCARD_HOST in deny or not (own_allow or wild_allow):
            return []

        def via(host: str) -> tuple | None:
            for table in (own_allow, wild_allow):
                found = table.get(host) or table.get(WILDCARD_HOST)
                if found is not None:
                    return found[3]
            return None

        if WILDCARD_HOST in own_allow or WILDCARD_HOST in wild_allow:
            excepts = tuple((self.principal, h) for h in sorted(deny))
            return [(op, WILDCARD_HOST, "acl", via(WILDCARD_HOST), excepts)]
        hosts = sorted((own_allow.keys() | wild_allow.keys()) - deny)
        return [(op, h, "acl", via(h), ()) for h in hosts]


def principal_classes(review: AccessReview, principal: str, label, types=None,
                      spaces: dict | None = None) -> list[ResourceAccess]:
    """Everything ``principal`` may do, per class of names of every resource type (or of ``types``;
    ``label(rtype, name, name class, space)``: the class in words, or None to leave it to the caller,
    who gets each type's name space in ``spaces``). Each answer keeps its ``name_class``."""
    found = PrincipalAccess(review, principal)
    out = []
    for rtype in types or ResourceType.concrete():
        space = NameSpace(review.authorizer.resource_names(rtype))
        if spaces is not None:
            spaces[rtype] = space
        if rtype is ResourceType.CLUSTER:
            reps = [(CLUSTER_NAME, None)]
        else:
            reps = found.reached(rtype, space)
        for name, nc in reps:
            access = found.access(rtype, name, "")
            if access.grants:
                access.name_class = nc
                # label None: the class is put in words by the caller, and only if it is said alone
                access.label = name if nc is None else label(rtype, name, nc, space) if label is not None else None
                out.append(access)
    return out

