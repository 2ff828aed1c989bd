"""The decision diff's walk: which requests two authorizers decide differently, name class by name class.

With the same settings on both sides, a request can decide differently only if a binding that was
added or removed matches it. So only the name classes those bindings apply to are visited (their own
LITERAL name, the ACL names under their PREFIXED name; every class for a ``*``), in each only the
principals they name (everyone, when one of them is ``User:*`` or the no-ACL default can change),
and for each principal only the operations and hosts they match (:class:`Reach`). Each principal is
then compared by its view of the candidates on both sides (:mod:`.classes`): equal views decide
alike, and each pair of views is decided once however many names share it. What differs is kept as
:class:`ClassChanges`, one per principal and name class, whose entries are shared by every class with
the same views; the deciding ACLs are looked up in the class's own candidates only when asked. Names
only Kafka's walk can decide are compared request by request by the engines.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli.acl.classes import (
    FRESH_HOST,
    FRESH_PRINCIPAL,
    SUPER,
    Decided,
    RequestClasses,
    deciding_acl,
    has_bad_principal,
    named_hosts,
    principal_text,
    valid_host,
    walk_candidates,
)
from kafka_authz_cli.acl.decision import Request, matching_acl_rule
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.matching import MATCHED_OPS, WILDCARD_PRINCIPAL_KEY, principal_key
from kafka_authz_cli.acl.model import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.acl.names import NameClass, NameSpace
from kafka_authz_cli.acl.principal_slices import PrincipalSlices
from kafka_authz_cli.acl.type_index import TypeIndex


class TouchedPatterns:
    """The resource patterns of changed bindings, by resource type."""

    def __init__(self, changed: list[AclBinding]):
        self.literal: dict[ResourceType, set[str]] = {}
        self.prefixed: dict[ResourceType, set[str]] = {}
        for b in changed:
            table = self.prefixed if b.pattern_type is PatternType.PREFIXED else self.literal
            table.setdefault(b.resource_type, set()).add(b.resource_name)
        self.lengths = {t: sorted({len(p) for p in names}) for t, names in self.prefixed.items()}

    def touches(self, rtype: ResourceType, name: str) -> bool:
        literal = self.literal.get(rtype)
        if literal and (name in literal or WILDCARD_RESOURCE in literal):
            return True
        prefixed = self.prefixed.get(rtype)
        if prefixed:
            for n in self.lengths[rtype]:
                if n <= len(name) and name[:n] in prefixed:
                    return True
        return False

    def everywhere(self, rtype: ResourceType) -> bool:
        """A changed binding of this type can apply to names no ACL name prefixes (``*``, ``""``)."""
        return WILDCARD_RESOURCE in self.literal.get(rtype, ()) or "" in self.literal.get(rtype, ()) \
            or "" in self.prefixed.get(rtype, ())

    def names(self, rtype: ResourceType, space: NameSpace) -> set[str]:
        """The ACL names whose classes a changed binding of this type applies to: its own LITERAL
        name, every ACL name under its PREFIXED name."""
        out = set(self.literal.get(rtype, ()))
        for prefix in self.prefixed.get(rtype, ()):
            out.update(space.under(prefix))
        return out


@dataclass(frozen=True, slots=True)
class Reach:
    """The requests of one principal a change can decide differently: these operations, from these
    hosts (None: from any host)."""

    ops: frozenset
    hosts: frozenset | None

    def __or__(self, other: "Reach") -> "Reach":
        hosts = None if self.hosts is None or other.hosts is None else self.hosts | other.hosts
        return Reach(self.ops | other.ops, hosts)

    @staticmethod
    def of(*reaches: "Reach | None") -> "Reach":
        found = [r for r in reaches if r is not None]
        out = found[0]
        for r in found[1:]:
            out = out | r
        return out


EVERY_REQUEST = Reach(frozenset(AclOperation), None)

_rule_texts: dict[int, tuple[AclBinding, str]] = {}


def rule_text(acl: AclBinding) -> str:
    """Kafka's ``MatchingAcl(acl=...)`` for a deciding ACL (made once per ACL)."""
    found = _rule_texts.get(id(acl))
    if found is None or found[0] is not acl:
        if len(_rule_texts) > 65536:
            _rule_texts.clear()
        found = _rule_texts[id(acl)] = (acl, matching_acl_rule(acl))
    return found[1]


def label(decision) -> str:
    """ALLOWED / DENIED, or what the broker does instead (ERROR, NON_TERMINATING, NOT_READY)."""
    return decision.decision or decision.outcome.value


class ClassChanges:
    """The requests of one principal on one name class that the two sets decide differently.

    ``entries`` are (host, or None for any host the principal's ACLs do not name; operation; the old
    decision; the new), shared by every name class whose views are the same: the deciding ACL of a
    decision is looked up where this class's views were taken (``where_*``) only when asked."""

    __slots__ = ("resource_type", "name_class", "name", "principal", "hosts", "entries", "others",
                 "where_o", "where_n")

    def __init__(self, rtype: ResourceType, name_class: NameClass, name: str, principal: str,
                 hosts: tuple[str, ...], entries: tuple, others: int, where_o: tuple = (), where_n: tuple = ()):
        self.resource_type, self.name_class, self.name, self.principal = rtype, name_class, name, principal
        #: The hosts the principal's (and User:*'s) candidates name: its host classes but "any other".
        self.hosts = hosts
        self.entries = entries
        #: Host classes of the coarser cut (every host any candidate names) that "any other host" holds.
        self.others = others
        self.where_o, self.where_n = where_o, where_n

    def at(self, name: str, name_class: NameClass) -> "ClassChanges":
        """The same changes found on another name that decides alike (:class:`AlikeNames`)."""
        return ClassChanges(self.resource_type, name_class, name, self.principal, self.hosts, self.entries,
                            self.others, self.where_o, self.where_n)

    def label(self, decided) -> str:
        return decided.label

    def old_acl(self, decided: Decided) -> AclBinding | None:
        return deciding_acl(self.where_o, decided)

    def new_acl(self, decided: Decided) -> AclBinding | None:
        return deciding_acl(self.where_n, decided)

    def rule(self, decided: Decided, acl: AclBinding | None) -> str | None:
        return rule_text(acl) if acl is not None else decided.rule

    def weight(self, host: str | None) -> int:
        return 1 if host is not None else self.others + 1


class EngineClassChanges(ClassChanges):
    """:class:`ClassChanges` whose decisions are the engines' own (names only Kafka's walk decides)."""

    __slots__ = ()

    def label(self, decided) -> str:
        return label(decided)

    def old_acl(self, decided) -> AclBinding | None:
        return decided.acl

    new_acl = old_acl

    def rule(self, decided, acl: AclBinding | None) -> str | None:
        return decided.rule or decided.error


def _effect(rows: tuple) -> tuple:
    """What ``rows`` decide on their own, per host and operation: denied, allowed, or neither. In a
    canonical form (equal iff they decide every request alike): the operations denied and allowed
    from any host, and for each host where it differs, what is denied and allowed from it."""
    deny_any: set = set()
    allow_any: set = set()
    deny_at: dict[str, set] = {}
    allow_at: dict[str, set] = {}
    for host, _order, ops, is_deny, _index in rows:
        if host == WILDCARD_HOST:
            (deny_any if is_deny else allow_any).update(ops)
        else:
            (deny_at if is_deny else allow_at).setdefault(host, set()).update(ops)
    allowed_any = frozenset(allow_any - deny_any)
    hosts = []
    for host in deny_at.keys() | allow_at.keys():
        denied = deny_any | deny_at.get(host, set())
        allowed = frozenset((allow_any | allow_at.get(host, set())) - denied)
        extra_denied = frozenset(denied - deny_any)
        if extra_denied or allowed != allowed_any:
            hosts.append((host, extra_denied, allowed))
    return frozenset(deny_any), allowed_any, frozenset(hosts)


_NO_EFFECT = _effect(())


def _principal_order(pkey) -> tuple:
    return (pkey is None, pkey or ("", ""))


class _PlanViews:
    """Views of one name taken of both engines' plans (all its candidates)."""

    def __init__(self, classes: RequestClasses, plan_o: tuple, plan_n: tuple):
        self.classes, self.plan_o, self.plan_n = classes, plan_o, plan_n
        self.slots_o, self.slots_n = classes.slots(plan_o), classes.slots(plan_n)
        self._everywhere: frozenset[str] | None = None

    def of(self, pkey) -> tuple:
        view_of = self.classes.view_of
        return view_of(self.slots_o, pkey, bool(self.plan_o)), view_of(self.slots_n, pkey, bool(self.plan_n))

    def everywhere(self) -> frozenset[str]:
        if self._everywhere is None:
            self._everywhere = self.classes.plan_hosts(self.plan_o) | self.classes.plan_hosts(self.plan_n)
        return self._everywhere


class _SliceViews:
    """Views of one name taken of both sides' :class:`.principal_slices.PrincipalSlices`. The view of
    ``User:*``'s slots alone is taken once per name: a principal without ACLs of its own on the name
    sees just that, and one whose only ACLs are on the literal ``*`` (as a change on ``*`` names, and
    visits every name for) sees that with one slot appended, the last of Kafka's walk."""

    def __init__(self, classes: RequestClasses, slices: tuple, rtype: ResourceType, name: str, has_o: bool,
                 has_n: bool):
        self.classes, self.slices, self.rtype, self.name = classes, slices, rtype, name
        self.has = (has_o, has_n)
        self.wild = (slices[0].wild_slots(classes, rtype, name), slices[1].wild_slots(classes, rtype, name))
        self._wild_views: list = [None, None]
        self._everywhere: frozenset[str] | None = None
        # The walk's wildcard section comes last unless the name starts with '*' (or User:* has ACLs on
        # '*' itself): only then is a star-only principal's slot simply the last.
        self._star_last = (not name.startswith(WILDCARD_RESOURCE) or name == WILDCARD_RESOURCE) and \
            not any(slot >= (2, 0) for wild in self.wild for slot, _b, _v in wild)

    def of(self, pkey) -> tuple:
        return self._side(0, pkey), self._side(1, pkey)

    def _side(self, i: int, pkey) -> tuple:
        classes, slices = self.classes, self.slices[i]
        star = slices.star_only(self.rtype, pkey) if self._star_last else False
        if star is False:
            own = slices.own_slots(self.rtype, pkey, self.name)
            if own:
                return classes.view_of(slices.merged(classes, own, self.wild[i]), pkey, self.has[i])
            star = None
        view, where = self._wild_view(i)
        part = classes.bucket_view(star).parts.get(pkey, 0) if star is not None else 0
        if not part:
            return view, where
        return (view[0], view[1] + ((part, 0),)), where + ((star, None),)

    def _wild_view(self, i: int) -> tuple:
        found = self._wild_views[i]
        if found is None:
            slices = self.slices[i]
            found = self._wild_views[i] = self.classes.view_of(slices.merged(self.classes, (), self.wild[i]), None,
                                                               self.has[i])
        return found

    def everywhere(self) -> frozenset[str]:
        if self._everywhere is None:
            self._everywhere = self.slices[0].named_hosts(self.rtype, self.name) | \
                self.slices[1].named_hosts(self.rtype, self.name)
        return self._everywhere


#: Below this many name classes to visit in a type, each is visited on its own (telling alike names
#: apart costs a pass over the sliced patterns).
_ALIKE_VISITS = 512


class AlikeNames:
    """Names that every index the slices read sees alike: one visit answers for all of them.

    A change on the literal ``*`` reaches every name of its type, and a set of 100k topics has a name
    class for each, so the decision diff visits them all although most differ only in their name.
    Where a name's visit rests on the slices alone (:class:`_SliceViews`: the changed principals' own
    ACLs, ``User:*``'s, the hosts any ACL names) and on the changed bindings, everything it finds
    (views, decisions, deciding ACLs, host classes) is made of the buckets Kafka's walk meets for the
    name in those indexes. Two names that match the same PREFIXED patterns of all of them, and no
    LITERAL pattern but the ``*``, meet the same buckets: what one finds, the other finds, with only
    the name changed. :meth:`key` is that set of patterns (None for a name that has to be visited:
    a LITERAL pattern of its own, a start at or below ``*`` where the walk's second scan and re-scan
    differ, non-ASCII where UTF-16 prefixes differ). Whether each side has candidates at all (asked
    where the no-ACL default allows) joins the key, and a key whose first visit did not rest on the
    slices (the no-ACL default flips, or a change to ``User:*`` reaches every principal) is visited
    name by name."""

    __slots__ = ("literal", "prefixed", "lengths", "done")

    def __init__(self, literal: set[str], prefixed: set[str]):
        self.literal, self.prefixed = literal, prefixed
        self.lengths = tuple(sorted({len(p) for p in prefixed}))
        #: key -> (the ClassChanges found, the classes examined), or None: visit each name
        self.done: dict[tuple, tuple | None] = {}

    def key(self, name: str) -> tuple | None:
        if not name or name[0] <= WILDCARD_RESOURCE or not name.isascii() or name in self.literal:
            return None
        prefixed = self.prefixed
        n = len(name)
        return tuple(p for p in (name[:length] for length in self.lengths if length <= n) if p in prefixed)


class DecisionDiff:
    """The walk itself: :meth:`resource_type` for each type, then :attr:`found` and :attr:`examined`."""

    def __init__(self, old: StandardAuthorizer, new: StandardAuthorizer, changed: list[AclBinding]):
        self.old, self.new = old, new
        self.classes = RequestClasses()
        self.found: list[ClassChanges] = []
        self.examined = 0
        self.spaces: dict[ResourceType, NameSpace] = {}
        self.su_keys = {principal_key(p) for p in old.super_users ^ new.super_users}
        self.super_all = old.super_users | new.super_users
        self.settings_changed = bool(self.su_keys) or \
            old.allow_everyone_if_no_acl_found != new.allow_everyone_if_no_acl_found
        self.changed: dict[ResourceType, list[AclBinding]] = {}
        for b in changed:
            self.changed.setdefault(b.resource_type, []).append(b)
        self.touched = TouchedPatterns(changed)
        self._compared: dict[tuple, tuple] = {}
        self._reaches: dict[int, tuple] = {}
        self._typed: dict[tuple[int, ResourceType], list[AclBinding]] = {}
        self._sliced: tuple[PrincipalSlices, PrincipalSlices] | None = None
        self._who: dict = {}  # principal key -> (its text, super user on the old side, on the new)
        self._effects: dict[tuple, tuple] = {}  # (own part, User:*'s part) -> what they deny and allow

    def resource_type(self, rtype: ResourceType) -> None:
        delta = self.changed.get(rtype, [])
        if not delta and not self.settings_changed:
            return
        space = self.spaces[rtype] = NameSpace(self.old.resource_names(rtype) | self.new.resource_names(rtype))
        delta_index = TypeIndex()
        for b in delta:
            delta_index.add(b)
        delta_index.seal()
        visits = self._classes(rtype, space)
        alike = self._alike_names(rtype, delta_index) if len(visits) >= _ALIKE_VISITS else None
        if alike is None:
            for name, name_class in visits:
                self._name_class(rtype, name, name_class, delta_index)
            return
        slices = self._sliced
        assert slices is not None  # taken by _alike_names
        for name, name_class in visits:
            key = alike.key(name)
            if key is None:
                self._name_class(rtype, name, name_class, delta_index)
                continue
            key = (key, slices[0].has_acls(rtype, name), slices[1].has_acls(rtype, name))
            if key not in alike.done:
                first, examined = len(self.found), self.examined
                by_slices = self._name_class(rtype, name, name_class, delta_index)
                alike.done[key] = (tuple(self.found[first:]), self.examined - examined) if by_slices else None
            elif (done := alike.done[key]) is None:
                self._name_class(rtype, name, name_class, delta_index)
            else:
                self.examined += done[1]
                self.found.extend(c.at(name, name_class) for c in done[0])

    def _alike_names(self, rtype: ResourceType, delta_index: TypeIndex) -> "AlikeNames | None":
        """Which names of the type decide alike for every principal a change reaches (see
        :class:`AlikeNames`), or None where the slices do not decide the type."""
        slices = self._slices(rtype) if self.changed.get(rtype) or self.su_keys else None
        if slices is None or delta_index.has_empty_name or delta_index.walk_only:
            return None
        literal, prefixed = set(delta_index.literal), set(delta_index.prefixed)
        for side in slices:
            side_literal, side_prefixed = side.patterns(rtype)
            literal |= side_literal
            prefixed |= side_prefixed
        return AlikeNames(literal, prefixed)

    def _classes(self, rtype: ResourceType, space: NameSpace) -> list[tuple[str, NameClass]]:
        if rtype is ResourceType.CLUSTER:
            return [(CLUSTER_NAME, space.classify(CLUSTER_NAME))]
        if self.settings_changed:
            return space.representatives()
        walks = not (self.old.decided_by_name(rtype) and self.new.decided_by_name(rtype))
        if walks or self.touched.everywhere(rtype):
            return [(name, nc) for name, nc in space.representatives()
                    if self.touched.touches(rtype, name) or self.old.walk_needed(rtype, name)
                    or self.new.walk_needed(rtype, name)]
        return space.representatives(only=self.touched.names(rtype, space))

    def _name_class(self, rtype: ResourceType, name: str, nc: NameClass, delta_index: TypeIndex) -> bool:
        """Visit one name class; True when what was found rests on the slices' views alone (the
        principals the change names, ``User:*``'s ACLs and the hosts named), as :class:`AlikeNames`
        needs."""
        old, new = self.old, self.new
        delta_plan = delta_index.plan(name)
        slices = self._slices(rtype) if delta_plan is not None else None
        plan_o = plan_n = None  # the engines' plans: taken where no slices decide, or for every principal
        if slices is not None:
            has_o, has_n = slices[0].has_acls(rtype, name), slices[1].has_acls(rtype, name)
        else:
            plan_o, plan_n = old.candidate_buckets(rtype, name), new.candidate_buckets(rtype, name)
            if plan_o is None or plan_n is None or delta_plan is None or has_bad_principal(plan_o) \
                    or has_bad_principal(plan_n):
                self._by_engine(rtype, name, nc, plan_o, plan_n)
                return False
            has_o, has_n = bool(plan_o), bool(plan_n)
        assert delta_plan is not None  # slices are taken only where the change has a plan
        reach = self._reach(delta_plan)
        default_flips = (not has_o and old.allow_everyone_if_no_acl_found) \
            or (not has_n and new.allow_everyone_if_no_acl_found)
        if WILDCARD_PRINCIPAL_KEY in reach and not default_flips:
            views = self._views(slices, rtype, name, has_o, has_n, plan_o, plan_n)
            if self._wild_neutral(views):
                reach = {k: v for k, v in reach.items() if k != WILDCARD_PRINCIPAL_KEY}
        if default_flips or WILDCARD_PRINCIPAL_KEY in reach:
            if slices is not None:
                plan_o, plan_n = old.candidate_buckets(rtype, name), new.candidate_buckets(rtype, name)
            assert plan_o is not None and plan_n is not None  # checked, or decided by name (slices): a plan each
            keys: set = self.classes.principals(plan_o) | self.classes.principals(plan_n) | {None}
            views = _PlanViews(self.classes, plan_o, plan_n)
        elif reach or self.su_keys:
            keys = set(reach)
            views = self._views(slices, rtype, name, has_o, has_n, plan_o, plan_n)
        else:
            return slices is not None
        keys |= self.su_keys
        wild_reach = reach.get(WILDCARD_PRINCIPAL_KEY)
        for pkey in sorted(keys, key=_principal_order):
            if default_flips or pkey in self.su_keys:
                reached = EVERY_REQUEST
            elif wild_reach is None:
                reached = reach[pkey]
            else:
                reached = Reach.of(reach.get(pkey), wild_reach)
            self._principal(rtype, name, nc, pkey, reached, views)
        return isinstance(views, _SliceViews)

    def _views(self, slices, rtype: ResourceType, name: str, has_o: bool, has_n: bool,
               plan_o: tuple | None, plan_n: tuple | None) -> _PlanViews | _SliceViews:
        """The views of a name: of the slices where they decide, else of both engines' plans."""
        if slices is not None:
            return _SliceViews(self.classes, slices, rtype, name, has_o, has_n)
        assert plan_o is not None and plan_n is not None  # checked: a name only the walk tells went to _by_engine
        return _PlanViews(self.classes, plan_o, plan_n)

    def _slices(self, rtype: ResourceType):
        """Both sides' :class:`.principal_slices.PrincipalSlices`, where they decide as the engines do
        (no name of the type left to Kafka's walk, no ACL principal without ':'); else None."""
        if not (self.old.decided_by_name(rtype) and self.new.decided_by_name(rtype)):
            return None
        if self._sliced is None:
            keys = {principal_key(b.principal) for bs in self.changed.values() for b in bs} | self.su_keys
            keys.discard(None)
            self._sliced = (PrincipalSlices(self.old, keys), PrincipalSlices(self.new, keys))
        if not (self._sliced[0].usable(rtype) and self._sliced[1].usable(rtype)):
            return None
        return self._sliced

    def _principal(self, rtype, name, nc, pkey, reached: Reach, views) -> None:
        who = self._who.get(pkey)
        if who is None:
            text = FRESH_PRINCIPAL if pkey is None else principal_text(pkey)
            who = self._who[pkey] = (text, pkey is not None and text in self.old.super_users,
                                     pkey is not None and text in self.new.super_users)
        text, super_o, super_n = who
        (view_o, where_o), (view_n, where_n) = views.of(pkey)
        key = (rtype, view_o, view_n, super_o, super_n, reached)
        found = self._compared.get(key)
        if found is None:
            found = self._compared[key] = self._compare(*key)
        examined, hosts, entries, any_other = found
        self.examined += examined
        if entries:
            others = len(views.everywhere()) - len(hosts) if any_other else 0
            self.found.append(ClassChanges(rtype, nc, name, text, hosts, entries, others, where_o, where_n))

    def _reach(self, delta_plan: tuple) -> dict:
        """Which requests the changed bindings on a name can decide differently: per principal key,
        the operations and hosts they match (each delta bucket's made once)."""
        if len(delta_plan) == 1:
            return self._bucket_reach(delta_plan[0])
        out: dict = {}
        for bucket in delta_plan:
            for key, reached in self._bucket_reach(bucket).items():
                out[key] = reached if key not in out else out[key] | reached
        return out

    def _bucket_reach(self, bucket) -> dict:
        found = self._reaches.get(id(bucket))
        if found is not None and found[0] is bucket:
            return found[1]
        reach: dict = {}
        for acl in bucket.acls:
            if not valid_host(acl.host):
                continue  # matches no request: it cannot change a decision
            key = principal_key(acl.principal)
            reached = Reach(MATCHED_OPS[(acl.operation, acl.permission)],
                            None if acl.host == WILDCARD_HOST else frozenset((acl.host,)))
            reach[key] = reached if key not in reach else reach[key] | reached
        first = bucket.acls[0]
        for key in [k for k in reach if self._neutral(first.resource_type, first.pattern_type, first.resource_name, k)]:
            del reach[key]
        self._reaches[id(bucket)] = (bucket, reach)
        return reach

    def _wild_neutral(self, views) -> bool:
        """Whether ``User:*``'s candidates on a name deny and allow the same on both sides, taken
        together (one of its ACLs removed that another of its covers on a broader pattern): then no
        principal's outcome changes through them (see :meth:`_neutral`)."""
        (view_o, _), (view_n, _) = views.of(WILDCARD_PRINCIPAL_KEY)
        return view_o == view_n or self._chain_effect(view_o) == self._chain_effect(view_n)

    def _chain_effect(self, view: tuple) -> tuple:
        found = self._effects.get(view)
        if found is None:
            part = self.classes.part
            found = self._effects[view] = _effect(tuple(row for pair in view[1] for p in pair for row in part(p)))
        return found

    def _neutral(self, rtype: ResourceType, pattern_type, name: str, key) -> bool:
        """Whether one principal's ACLs on one resource pattern decide every request alike on both
        sides, with ``User:*``'s beside them (``User:*``'s alone for ``User:*``). A decision's outcome
        (not the ACL it names) rests only on what the candidates deny and allow, bucket by bucket,
        whatever their order: a change that leaves what one pattern's ACLs deny and allow a principal
        the same (an ACL removed that another of the pattern covers or a DENY cancels, as compaction
        removes them) changes no outcome on any name, and the principal is not visited for it."""
        effects = []
        for side in (self.old, self.new):
            bucket = side.pattern_bucket(rtype, pattern_type, name)
            if bucket is None:
                effects.append(_NO_EFFECT)
                continue
            table = self.classes.bucket_view(bucket).parts
            parts = (table.get(key, 0), 0 if key == WILDCARD_PRINCIPAL_KEY else table.get(WILDCARD_PRINCIPAL_KEY, 0))
            effect = self._effects.get(parts)
            if effect is None:
                effect = self._effects[parts] = _effect(self.classes.part(parts[0]) + self.classes.part(parts[1]))
            effects.append(effect)
        return effects[0] == effects[1]

    def _compare(self, rtype, view_o, view_n, super_o, super_n, reached: Reach) -> tuple:
        """(request classes examined, the principal's hosts, the (host, op, old, new) that differ,
        whether one of them is "any other host"): only the requests ``reached`` are decided."""
        allow_o = self.old.allow_everyone_if_no_acl_found
        allow_n = self.new.allow_everyone_if_no_acl_found
        hosts = tuple(sorted(set(self.classes.hosts(view_o)) | set(self.classes.hosts(view_n))))
        ops = [op for op in SUPPORTED_OPERATIONS[rtype] if op in reached.ops]
        if not ops or (view_o == view_n and super_o == super_n and (view_o[0] or allow_o == allow_n)):
            return 0, hosts, (), False
        tried = (*hosts, None) if reached.hosts is None else tuple(sorted(reached.hosts))
        decide = self.classes.decide_hosts
        supers = [SUPER] * len(tried)
        per_op = [(op, supers if super_o else decide(view_o, tried, op, allow_o),
                   supers if super_n else decide(view_n, tried, op, allow_n)) for op in ops]
        entries = [(host, op, a[i], b[i]) for i, host in enumerate(tried) for op, a, b in per_op
                   if a[i].label != b[i].label]
        return len(ops) * len(tried), hosts, tuple(entries), any(e[0] is None for e in entries)

    def _by_engine(self, rtype, name, nc, plan_o, plan_n) -> None:
        """Every principal and host class the candidates name (as Kafka's walk finds them), decided
        request by request: names whose plan only the walk can tell, or with a malformed principal."""
        cands = self.candidates(self.old, rtype, name, plan_o) + self.candidates(self.new, rtype, name, plan_n)
        keys = {k for k in map(principal_key, [*(a.principal for a in cands), *self.super_all]) if k is not None}
        keys.discard(WILDCARD_PRINCIPAL_KEY)
        everywhere = {a.host for a in cands if a.host != WILDCARD_HOST and valid_host(a.host)}
        for pkey in [*sorted(keys), None]:
            text = FRESH_PRINCIPAL if pkey is None else principal_text(pkey)
            hosts = tuple(named_hosts(cands, pkey))
            entries = []
            for host in (*hosts, None):
                for op in SUPPORTED_OPERATIONS[rtype]:
                    self.examined += 1
                    request = Request(text, host or FRESH_HOST, op, rtype, name)
                    a, b = self.old.authorize(request), self.new.authorize(request)
                    if label(a) != label(b):
                        entries.append((host, op, a, b))
            if entries:
                self.found.append(EngineClassChanges(rtype, nc, name, text, hosts, tuple(entries),
                                                     len(everywhere) - len(hosts)))

    def candidates(self, side: StandardAuthorizer, rtype: ResourceType, name: str, plan) -> list[AclBinding]:
        """The ACLs Kafka can match for the name: the plan's, or (where only its walk can tell) those
        whose pattern matches it."""
        if plan is not None:
            return [a for bucket in plan for a in bucket.acls]
        typed = self._typed.get((id(side), rtype))
        if typed is None:
            typed = self._typed[(id(side), rtype)] = [a for a in side.bindings if a.resource_type is rtype]
        return walk_candidates(typed, name)

