"""Two ACL sets compared as bindings and, exactly, as decisions.

The request space (principal, host, operation, resource type, resource name) is cut into classes
that neither ACL set can tell apart:

* a resource name behaves according to the longest ACL name (of either set, any pattern) that is a
  prefix of it: a name equal to that ACL name, a longer one, or one that no ACL name prefixes
  (Kafka's quirks follow: the LITERAL `*` is an ACL name, so `*`-leading names form their own
  classes; a DENY matches its operation only; an ALLOW anywhere on a resource switches the no-ACL
  default off for everyone);
* on one name, a principal is one the candidate ACLs or `super.users` name, or anyone else (matched
  by `User:*` only); and for each principal, a host is one its own or `User:*`'s candidate ACLs
  name, or any other host (:mod:`.classes`: hosts other principals' ACLs name are not its classes);
* operations are taken one by one, those the resource type supports.

Only the name classes and principals a changed binding (or a changed setting) can reach are
visited, and each principal's view of the candidates is decided once however many names share it,
so the cost grows with the change and the ACLs it touches, not with the size of the sets. Every
class whose decision changes is reported with a witness request and a description in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import attrgetter

from kafka_authz_cli.acl.broker_settings import BrokerSettings
from kafka_authz_cli.acl.classes import FRESH_HOST, FRESH_PRINCIPAL, has_bad_principal, named_hosts
from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.decision_diff import ClassChanges, DecisionDiff
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.matching import WILDCARD_PRINCIPAL_KEY, principal_key
from kafka_authz_cli.acl.merged import Subtrees, describe_class, grouped, scopes
from kafka_authz_cli.acl.model import AclBinding, KafkaPrincipal, ResourceType, java_host_address
from kafka_authz_cli.acl.names import NameClass, NameSpace
from kafka_authz_cli.formats import paused_gc

__all__ = ["FRESH_HOST", "FRESH_PRINCIPAL", "BindingDiff", "Change", "DiffResult", "Finding", "NameClass",
           "NameSpace", "binding_diff", "change_keys", "describe_host", "describe_names", "describe_principals",
           "diff", "findings_of", "merge", "request_class"]
@dataclass(frozen=True)
class Change:
    resource_type: ResourceType
    name_class: NameClass
    principal: str  # an ACL/super-user principal, or FRESH_PRINCIPAL
    host: str  # an ACL host, or FRESH_HOST
    operation: str
    old: str  # ALLOWED / DENIED / ERROR...
    new: str
    witness: Request
    old_rule: str | None
    new_rule: str | None
    #: Every host class tried for this resource name (to tell "from any host" from "from some").
    host_classes: tuple[str, ...] = ()
    #: The ACL that decided the witness on each side (None: a super user, the default, or an error).
    old_acl: AclBinding | None = None
    new_acl: AclBinding | None = None
    #: How many (principal, host) pairs of the coarser classes authz drew before its classes were per
    #: principal this change stands for: "any other host" of one principal holds every host that only
    #: other principals' ACLs name. The counts of classes gained and lost stay those of that cut.
    weight: int = 1

    @property
    def direction(self) -> str:
        return _direction(self.old, self.new)


@dataclass
class Finding:
    """Changes merged for reading: one principal, one direction, one resource class, some ops."""

    direction: str
    principal: str
    resource_type: ResourceType
    name_class: NameClass
    operations: list[str]
    hosts: list[str]
    witness: Request
    old_rule: str | None
    new_rule: str | None
    #: ACL names that extend the class's prefix (names excluded from it), for the description.
    excluded: tuple[str, ...] = ()
    #: Every host class tried (ACL hosts and FRESH_HOST), to name the hosts "any other host" leaves out.
    host_classes: tuple[str, ...] = ()
    #: The ACL that decided the witness on each side (None: a super user, the default, or an error).
    old_acl: AclBinding | None = None
    new_acl: AclBinding | None = None
    #: A finding merged across name classes (:mod:`.merged`): the names in words, and the classes.
    what: str | None = None
    classes: tuple[NameClass, ...] = ()
    #: A finding merged across principals: every principal it holds for (``principal`` is the first,
    #: the witness's); empty for one principal.
    principals: tuple[str, ...] = ()

    @property
    def excluded_hosts(self) -> list[str]:
        """The ACL hosts this finding does not hold for, when it holds for hosts no ACL names."""
        if FRESH_HOST not in self.hosts:
            return []
        return list(_hosts_said(tuple(self.hosts), self.host_classes)[1])

    def describe(self, names: str | None = None) -> str:
        """The finding in one sentence; ``names``: :meth:`names`, when the caller has it already."""
        who = describe_principals(self.principals or (self.principal,))
        verb = {"gained": "can now", "lost": "can no longer"}.get(self.direction, "gets a different answer to")
        ops = "/".join(self.operations)
        return f"{who} {verb} {ops} {names if names is not None else self.names()}{self.where()}"

    def names(self) -> str:
        """The names this finding holds for, in words, whole."""
        if self.what is not None:
            return self.what
        return describe_names(self.resource_type, self.name_class, self.excluded)

    def where(self) -> str:
        """" from <hosts>", or "" from any host."""
        return _hosts_said(tuple(self.hosts), self.host_classes)[0]


_said_hosts: dict[tuple, tuple[str, tuple[str, ...]]] = {}


def _hosts_said(hosts: tuple[str, ...], host_classes: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """A finding's :meth:`Finding.where` and its excluded hosts, made once per hosts and host classes
    (a change on ``*`` repeats the same few for every name)."""
    key = (hosts, host_classes)
    found = _said_hosts.get(key)
    if found is None:
        if len(_said_hosts) > 65536:
            _said_hosts.clear()
        excluded = tuple(sorted(set(host_classes) - set(hosts) - {FRESH_HOST})) if FRESH_HOST in hosts else ()
        if not hosts or set(hosts) == {"*"}:
            where = ""
        elif FRESH_HOST in hosts:
            # Never "any other host" without saying other than what: name the hosts left out.
            where = " from " + describe_host(FRESH_HOST, host_classes, hosts)
        else:
            where = " from " + ", ".join(hosts)
        found = _said_hosts[key] = (where, excluded)
    return found


#: Principals named in full in one finding; past it the rest are counted.
MAX_PRINCIPALS_NAMED = 10


def describe_principals(principals: tuple[str, ...] | list[str]) -> str:
    """Principals in words: "User:a, User:b and anyone without an ACL of their own"; past
    :data:`MAX_PRINCIPALS_NAMED` named ones, the rest counted ("and 12 more principals")."""
    if len(principals) == 1 and principals[0] != FRESH_PRINCIPAL:
        return principals[0]
    named = [p for p in principals if p != FRESH_PRINCIPAL]
    parts = named[:MAX_PRINCIPALS_NAMED]
    if len(named) > MAX_PRINCIPALS_NAMED:
        parts.append(f"{len(named) - MAX_PRINCIPALS_NAMED:,} more principals")
    if len(named) < len(principals):
        parts.append("anyone without an ACL of their own")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def describe_host(host: str, host_classes: tuple[str, ...] | list[str], included: list[str] | tuple = ()) -> str:
    """A host class in words: an ACL host as itself, FRESH_HOST as every host but the named ones."""
    if host != FRESH_HOST:
        return host
    excluded = sorted(set(host_classes) - set(included) - {FRESH_HOST})
    if not excluded:
        return "any host"
    shown = ", ".join(excluded[:5]) + (f" and {len(excluded) - 5} more" if len(excluded) > 5 else "")
    return f"any host except {shown}"


def describe_names(rtype: ResourceType, nc: NameClass, excluded: tuple[str, ...] = ()) -> str:
    """One name class in words, whole: the ACL names below it that it leaves out (``excluded``) are
    spelled out, counted past ten ("except names starting with `orders-audit`")."""
    return describe_class(rtype, nc, excluded)


@dataclass
class BindingDiff:
    added: list[AclBinding]
    removed: list[AclBinding]


@dataclass
class DiffResult:
    bindings: BindingDiff
    #: What differs, one principal on one name class at a time (see :class:`.decision_diff.ClassChanges`).
    found: list[ClassChanges] = field(default_factory=list)
    #: One finding per principal, name class and set of hosts (JSON's ``changes``).
    findings: list[Finding] = field(default_factory=list)
    #: The findings that say the same of several name classes, as one (what people read).
    merged: list[Finding] = field(default_factory=list)
    classes_examined: int = 0
    #: Where each side's bindings that the diff names were written (``file:line (construct)``), when
    #: the caller knows: the added and removed bindings and the ACLs that decided a witness.
    old_origins: dict[AclBinding, str] = field(default_factory=dict)
    new_origins: dict[AclBinding, str] = field(default_factory=dict)
    _changes: list[Change] | None = field(default=None, repr=False)
    _counts: dict[str, int] | None = field(default=None, repr=False)

    @property
    def changes(self) -> list[Change]:
        """Every request class whose decision changes (made on first use: a change that reaches every
        name class makes millions of them, and the findings do not need them)."""
        if self._changes is None:
            self._changes = changes_of(self.found)
        return self._changes

    @property
    def gained(self) -> int:
        return self._count("gained")

    @property
    def lost(self) -> int:
        return self._count("lost")

    def _count(self, direction: str) -> int:
        if self._counts is None:
            counts = {"gained": 0, "lost": 0, "changed": 0}
            # Name classes with the same views share their entries: each shared tuple's directions are
            # worked out once ((direction, host) per entry), then weighed per class.
            # A class's weight of an entry is 1 for a named host, and 1 + its ``others`` for "any
            # other host" (ClassChanges.weight): per shape, (direction, named hosts, any other host).
            shapes: dict[tuple[int, type], tuple] = {}
            for found in self.found:
                key = (id(found.entries), type(found))
                shape = shapes.get(key)
                if shape is None or shape[0] is not found.entries:
                    per: dict[str, list[int]] = {}
                    for host, _op, a, b in found.entries:
                        per.setdefault(_direction(found.label(a), found.label(b)), [0, 0])[host is None] += 1
                    shape = shapes[key] = (found.entries, [(d, named, other) for d, (named, other) in per.items()])
                for direction_of, named, other in shape[1]:
                    counts[direction_of] += named + (other * found.weight(None) if other else 0)
            self._counts = counts
        return self._counts[direction]

    @property
    def verdict(self) -> str:
        if not self.found:
            return "equivalent"
        if self.gained and self.lost or self._count("changed"):
            return "both"
        return "more permissive" if self.gained else "less permissive"


def _direction(old: str, new: str) -> str:
    if new == "ALLOWED" and old != "ALLOWED":
        return "gained"
    if old == "ALLOWED" and new != "ALLOWED":
        return "lost"
    return "changed"


def changes_of(found: list[ClassChanges]) -> list[Change]:
    """Each request class of ``found`` as a :class:`Change`."""
    out = []
    for f in found:
        host_classes = f.hosts + (FRESH_HOST,)
        for host, op, a, b in f.entries:
            acl_a, acl_b = f.old_acl(a), f.new_acl(b)
            where = host or FRESH_HOST
            out.append(Change(f.resource_type, f.name_class, f.principal, where, op.name, f.label(a), f.label(b),
                              Request(f.principal, where, op, f.resource_type, f.name), f.rule(a, acl_a),
                              f.rule(b, acl_b), host_classes, acl_a, acl_b, f.weight(host)))
    return out


#: A binding's fields as a tuple, made and hashed in C (a binding's own hash is a Python call: at a
#: million bindings a side, the binding diff took most of a second per 100,000).
_FIELDS = attrgetter("resource_type", "resource_name", "pattern_type", "principal", "host", "operation", "permission")


def binding_diff(old: list[AclBinding], new: list[AclBinding]) -> BindingDiff:
    """The bindings added and removed, each once, in the order first given."""
    o = dict(zip(map(_FIELDS, reversed(old)), reversed(old)))
    n = dict(zip(map(_FIELDS, reversed(new)), reversed(new)))
    return BindingDiff(_first_order(new, n, o), _first_order(old, o, n))


def _first_order(given: list[AclBinding], mine: dict, other: dict) -> list[AclBinding]:
    """The bindings of ``mine`` not in ``other``, each once, in the order first given."""
    missing = {k: b for k, b in mine.items() if k not in other}
    if not missing:
        return []
    out = []
    for b in given:
        if missing.pop(_FIELDS(b), None) is not None:
            out.append(b)
            if not missing:
                break
    return out


def diff(old_acls: list[AclBinding], new_acls: list[AclBinding], old_settings: BrokerSettings,
         new_settings: BrokerSettings) -> DiffResult:
    """Each side is its ACLs and the broker settings they are decided with."""
    # Hundreds of thousands of views, changes and findings, no cycle among them: the collector's
    # walks over every live object (both sets' ACLs and indexes) took a third of a large diff.
    with paused_gc():
        old = StandardAuthorizer(old_acls, old_settings)
        new = StandardAuthorizer(new_acls, new_settings)
        bindings = binding_diff(old_acls, new_acls)
        walk = DecisionDiff(old, new, bindings.added + bindings.removed)
        for rtype in ResourceType.concrete():
            walk.resource_type(rtype)
        result = DiffResult(bindings, walk.found, classes_examined=walk.examined)
        result.findings = findings_of(walk.found)
        for f in result.findings:
            if f.name_class.prefix is not None and not f.name_class.exact:
                f.excluded = walk.spaces[f.resource_type].children(f.name_class.prefix)
        result.merged = merged_findings(result.findings, walk.spaces)
    return result


def merged_findings(findings: list[Finding], spaces: dict[ResourceType, NameSpace]) -> list[Finding]:
    """Findings that say the same of several name classes, as one (:mod:`.merged`): the same
    principal, direction, operations and hosts, decided by the same rules and ACLs before and after."""
    out: list[Finding] = []
    trees: dict[ResourceType, Subtrees] = {}
    for group in grouped(findings, _said).values():
        rtype = group[0].resource_type
        space = spaces.get(rtype)
        if len(group) == 1 or space is None or rtype is ResourceType.CLUSTER:
            out.extend(group)
            continue
        if rtype not in trees:
            trees[rtype] = Subtrees(space, {nc for _name, nc in space.representatives()})
        by_class = {f.name_class: f for f in group}
        for scope in scopes(by_class, space, trees=trees[rtype]):
            first = by_class[scope.classes[0]]
            if scope.root is None:
                out.append(first)
                continue
            out.append(replace(first, what=scope.describe(rtype, space), classes=scope.classes,
                               name_class=NameClass(scope.root, False)))
    out = _across_principals(out)
    out.sort(key=_finding_order)
    return out


def _across_principals(findings: list[Finding]) -> list[Finding]:
    """Findings that say the same of several principals (the same change of the same names, decided
    by the same rules and ACLs, as when a `User:*` ALLOW goes and everyone relying on it loses), as
    one: "User:a, User:b and anyone without an ACL of their own can no longer READ topic `t`"."""
    out: list[Finding] = []
    for group in grouped(findings, _said_of_anyone).values():
        if len(group) == 1:
            out.append(group[0])
            continue
        group.sort(key=lambda f: (f.principal == FRESH_PRINCIPAL, f.principal))
        out.append(replace(group[0], principals=tuple(f.principal for f in group)))
    return out


def _said_of_anyone(f: Finding) -> tuple:
    return (f.direction, f.resource_type, tuple(f.operations), f.where(), f.old_rule, f.new_rule, f.old_acl,
            f.new_acl, f.classes or (f.name_class,), f.names())


def _said(f: Finding) -> tuple:
    return (f.direction, f.principal, f.resource_type, tuple(f.operations), f.where(), f.old_rule, f.new_rule,
            f.old_acl, f.new_acl)


def merge(changes: list[Change]) -> list[Finding]:
    """Changes merged for reading: operations go together when they change from the same hosts
    (an ALLOW from every host with a DENY READ from one host gains DESCRIBE everywhere but READ
    only from the other hosts: two findings, never one that claims READ from the denied host)."""
    per_op: dict[tuple, list[Change]] = {}
    for c in changes:
        per_op.setdefault((c.direction, c.principal, c.resource_type, c.name_class, c.operation), []).append(c)
    groups: dict[tuple, list[list[Change]]] = {}
    for (direction, principal, rtype, nc, _op), items in per_op.items():
        hosts = tuple(sorted({c.host for c in items}))
        if set(hosts) >= set(items[0].host_classes):
            hosts = ("*",)
        groups.setdefault((direction, principal, rtype, nc, hosts), []).append(items)
    findings = []
    for (direction, principal, rtype, nc, hosts), op_items in groups.items():
        first = op_items[0][0]
        findings.append(Finding(direction, principal, rtype, nc, [items[0].operation for items in op_items],
                                list(hosts), first.witness, first.old_rule, first.new_rule,
                                host_classes=first.host_classes, old_acl=first.old_acl, new_acl=first.new_acl))
    findings.sort(key=_finding_order)
    return findings


def findings_of(found: list[ClassChanges]) -> list[Finding]:
    """:func:`merge` of the changes of ``found``, without making them: how one principal's entries
    merge is worked out once per set of entries, which many name classes share."""
    # Classes with the same views share their entries and where their deciding ACLs are: what each
    # finding of such a class says but its name is worked out once.
    shapes: dict[int, tuple] = {}
    said: dict[tuple[int, int, int], tuple] = {}
    findings = []
    for f in found:
        key = (id(f.entries), id(f.where_o), id(f.where_n))
        known = said.get(key)
        if known is None or known[0] is not f.entries or known[1] is not f.where_o or known[2] is not f.where_n:
            shape = shapes.get(id(f.entries))
            if shape is None or shape[0] is not f.entries:
                shape = shapes[id(f.entries)] = (f.entries, _merged_shape(f))
            known = said[key] = (f.entries, f.where_o, f.where_n, f.hosts + (FRESH_HOST,), _said_of_class(f, shape[1]))
        host_classes = known[3]
        for direction, ops, hosts, host, op, rule_a, rule_b, acl_a, acl_b in known[4]:
            findings.append(Finding(direction, f.principal, f.resource_type, f.name_class, list(ops), list(hosts),
                                    Request(f.principal, host, op, f.resource_type, f.name),
                                    rule_a, rule_b, host_classes=host_classes, old_acl=acl_a, new_acl=acl_b))
    findings.sort(key=_finding_order)
    return findings


def _said_of_class(f: ClassChanges, shape: list[tuple]) -> list[tuple]:
    """Per finding of one class (``shape``: :func:`_merged_shape`): (direction, operations, hosts, the
    witness's host and operation, the deciding rules and ACLs on each side)."""
    out = []
    for direction, ops, hosts, first in shape:
        host, op, a, b = f.entries[first]
        acl_a, acl_b = f.old_acl(a), f.new_acl(b)
        out.append((direction, ops, hosts, host or FRESH_HOST, op, f.rule(a, acl_a), f.rule(b, acl_b), acl_a, acl_b))
    return out


def _merged_shape(f: ClassChanges) -> list[tuple]:
    """How :func:`merge` groups one principal's entries on one class: (direction, operations, hosts,
    the index of the first entry) per finding."""
    host_classes = set(f.hosts) | {FRESH_HOST}
    per_op: dict[tuple, list[int]] = {}
    for i, (_host, op, a, b) in enumerate(f.entries):
        per_op.setdefault((_direction(f.label(a), f.label(b)), op), []).append(i)
    groups: dict[tuple, list[tuple]] = {}
    for (direction, op), indexes in per_op.items():
        hosts = tuple(sorted({f.entries[i][0] or FRESH_HOST for i in indexes}))
        if set(hosts) >= host_classes:
            hosts = ("*",)
        groups.setdefault((direction, hosts), []).append((op, indexes[0]))
    return [(direction, tuple(op.name for op, _ in ops), hosts, ops[0][1])
            for (direction, hosts), ops in groups.items()]


def _finding_order(f: Finding) -> tuple:
    return (f.direction != "lost", f.principal, f.resource_type.value, str(f.name_class.prefix), f.hosts != ["*"])


def request_class(request: Request, old_acls: list[AclBinding], new_acls: list[AclBinding],
                  old_settings: BrokerSettings, new_settings: BrokerSettings) -> tuple:
    """The class a request falls in, as `diff` draws them (for tests and explanations)."""
    old = StandardAuthorizer(old_acls, old_settings)
    new = StandardAuthorizer(new_acls, new_settings)
    walk = DecisionDiff(old, new, [])
    classes = walk.classes
    rtype, name = request.resource_type, request.resource_name
    space = NameSpace(old.resource_names(rtype) | new.resource_names(rtype))
    plan_o, plan_n = old.candidate_buckets(rtype, name), new.candidate_buckets(rtype, name)
    principal = str(KafkaPrincipal.parse(request.principal))
    pkey = principal_key(principal)
    if plan_o is None or plan_n is None or has_bad_principal(plan_o) or has_bad_principal(plan_n):
        cands = walk.candidates(old, rtype, name, plan_o) + walk.candidates(new, rtype, name, plan_n)
        named = {a.principal for a in cands} | walk.super_all
        if principal not in named or pkey == WILDCARD_PRINCIPAL_KEY:
            principal, pkey = FRESH_PRINCIPAL, None
        hosts = set(named_hosts(cands, pkey))
    else:
        named_keys = classes.principals(plan_o) | classes.principals(plan_n)
        if pkey not in named_keys and principal not in walk.super_all:
            principal, pkey = FRESH_PRINCIPAL, None
        hosts = set(classes.hosts(classes.view(plan_o, pkey)[0])) | set(classes.hosts(classes.view(plan_n, pkey)[0]))
    address = java_host_address(request.host)
    host = address if address in hosts else FRESH_HOST
    return (rtype, space.classify(name), principal, host, request.operation.name)


def change_keys(result: DiffResult) -> set[tuple]:
    return {(c.resource_type, c.name_class, c.principal, c.host, c.operation) for c in result.changes}
