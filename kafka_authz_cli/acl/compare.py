"""Two ACL sets compared as bindings and, exactly, as decisions.

The request space (principal, host, operation, resource type, resource name) is cut into classes
that neither ACL set can tell apart:

* a resource name behaves according to the longest ACL name (of either set, any pattern) that is a
  prefix of it: a name equal to that ACL name, a longer one, or one that no ACL name prefixes
  (Kafka's quirks follow: the LITERAL `*` is an ACL name, so `*`-leading names form their own
  classes; a DENY matches its operation only; an ALLOW anywhere on a resource switches the no-ACL
  default off for everyone);
* a principal is either one an ACL or `super.users` names, or anyone else (matched by `User:*` only);
* a host is either one an ACL names, or any other host;
* operations are taken one by one, those the resource type supports.

One representative request per class is decided by the engine under both sets; only names whose
candidate ACLs differ (or whose default or super users differ) are enumerated, so two 100,000-binding
sets that differ a little diff quickly. Every class whose decision changes is reported with a
witness request and a description in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.model import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclError,
    KafkaPrincipal,
    PatternType,
    ResourceType,
    java_host_address,
)

FRESH_PRINCIPAL = "User:anyone-else"
FRESH_HOST = "192.0.2.254"
_SUFFIXES = ("x", "1", "-new", "_z", ".q", "\ue000")
_FRESH_NAMES = ("other", "unnamed-resource", "zz-other", "q", "\ue000")


@dataclass(frozen=True)
class NameClass:
    """Names whose longest ACL-name prefix is ``prefix`` (None: no ACL name prefixes them)."""

    prefix: str | None
    exact: bool  # the name *is* the prefix
    #: For names starting below '*' that no ACL name prefixes: the start they share with an ACL name
    #: (Kafka's wildcard re-scan bug depends on it).
    shared_start: str | None = None


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

    @property
    def direction(self) -> str:
        if self.new == "ALLOWED" and self.old != "ALLOWED":
            return "gained"
        if self.old == "ALLOWED" and self.new != "ALLOWED":
            return "lost"
        return "changed"


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

    @property
    def excluded_hosts(self) -> list[str]:
        """The ACL hosts this finding does not hold for, when it holds for hosts no ACL names."""
        if FRESH_HOST not in self.hosts:
            return []
        return sorted(set(self.host_classes) - set(self.hosts) - {FRESH_HOST})

    def describe(self) -> str:
        who = "anyone without an ACL of their own" if self.principal == FRESH_PRINCIPAL else self.principal
        verb = {"gained": "can now", "lost": "can no longer"}.get(self.direction, "gets a different answer to")
        ops = "/".join(self.operations)
        what = describe_names(self.resource_type, self.name_class, self.excluded)
        where = ""
        if self.hosts and set(self.hosts) != {"*"}:
            if FRESH_HOST in self.hosts:
                # Never "any other host" without saying other than what: name the hosts left out.
                where = " from " + describe_host(FRESH_HOST, self.host_classes, self.hosts)
            else:
                where = " from " + ", ".join(self.hosts)
        return f"{who} {verb} {ops} {what}{where}"


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
    kind = rtype.name.lower().replace("_", " ")
    if rtype is ResourceType.CLUSTER:
        return "the cluster"
    if nc.prefix is None:
        return f"every {kind} no ACL name covers"
    if nc.exact:
        return f"{kind} `{nc.prefix}`"
    base = f"every {kind} starting with `{nc.prefix}`" if nc.prefix else f"every {kind}"
    if excluded:
        base += " except " + ", ".join(f"`{e}`…" for e in excluded[:3]) + (" …" if len(excluded) > 3 else "")
    return base


@dataclass
class BindingDiff:
    added: list[AclBinding]
    removed: list[AclBinding]


@dataclass
class DiffResult:
    bindings: BindingDiff
    changes: list[Change]
    findings: list[Finding] = field(default_factory=list)
    classes_examined: int = 0
    #: Where each side's bindings that the diff names were written (``file:line (construct)``), when
    #: the caller knows: the added and removed bindings and the ACLs that decided a witness.
    old_origins: dict[AclBinding, str] = field(default_factory=dict)
    new_origins: dict[AclBinding, str] = field(default_factory=dict)

    @property
    def gained(self) -> int:
        return sum(1 for c in self.changes if c.direction == "gained")

    @property
    def lost(self) -> int:
        return sum(1 for c in self.changes if c.direction == "lost")

    @property
    def verdict(self) -> str:
        if not self.changes:
            return "equivalent"
        if self.gained and self.lost or any(c.direction == "changed" for c in self.changes):
            return "both"
        return "more permissive" if self.gained else "less permissive"


def binding_diff(old: list[AclBinding], new: list[AclBinding]) -> BindingDiff:
    o, n = dict.fromkeys(old), dict.fromkeys(new)
    return BindingDiff([b for b in n if b not in o], [b for b in o if b not in n])


class NameSpace:
    """The ACL names of one resource type (both sets), for classes and representatives."""

    def __init__(self, names: set[str]):
        self.names = names
        self.sorted = sorted(names)

    def longest_prefix(self, name: str) -> str | None:
        best = None
        for k in range(len(name), -1, -1):
            if name[:k] in self.names:
                best = name[:k]
                break
        return best

    def classify(self, name: str) -> NameClass:
        p = self.longest_prefix(name)
        if p is None:
            return NameClass(None, False, self._shared_start(name))
        return NameClass(p, name == p)

    def _shared_start(self, name: str) -> str | None:
        if not name or name[0] >= "*":
            return None
        best = ""
        for n in self.sorted:
            if n and n[0] < "*":
                k = 0
                while k < min(len(n), len(name)) and n[k] == name[k]:
                    k += 1
                best = max(best, name[:k], key=len)
        return best or None

    def children(self, p: str) -> tuple[str, ...]:
        """ACL names extending ``p`` with no other ACL name in between."""
        from bisect import bisect_left

        out = []
        names = self.sorted
        for i in range(bisect_left(names, p), len(names)):
            n = names[i]
            if not n.startswith(p):
                break
            if n != p and self.longest_prefix(n[:-1]) == p:
                out.append(n)
        return tuple(out)

    def representatives(self) -> list[tuple[str, NameClass]]:
        reps = []
        for p in self.sorted:
            reps.append((p, NameClass(p, True)))
            longer = next((p + s for s in _SUFFIXES if self.longest_prefix(p + s) == p and p + s not in self.names),
                          None)
            if longer is not None:
                reps.append((longer, NameClass(p, False)))
        fresh = next((n for n in _FRESH_NAMES if self.longest_prefix(n) is None), None)
        if fresh is not None:
            reps.append((fresh, NameClass(None, False)))
        # Names sharing a start with a name below '*' but not prefixed by it (Kafka's re-scan bug).
        seen = set()
        for p in self.sorted:
            if p and p[0] < "*":
                for k in range(1, len(p) + 1):
                    probe = p[:k] + "\ue000"
                    nc = self.classify(probe)
                    if nc.prefix is None and nc not in seen:
                        seen.add(nc)
                        reps.append((probe, nc))
        return reps


def _principals(acls, super_users) -> list[str]:
    out = {}
    for acl in acls:
        if ":" in acl.principal and acl.principal != "User:*":
            out[acl.principal] = None
    for su in super_users:
        out[su] = None
    out[FRESH_PRINCIPAL] = None
    return list(out)


def _hosts(acls) -> list[str]:
    out = {}
    for acl in acls:
        if acl.host != WILDCARD_HOST:
            try:
                if java_host_address(acl.host) == acl.host:
                    out[acl.host] = None
            except AclError:
                pass  # a host text no client address can have: it never matches
    out[FRESH_HOST] = None
    return list(out)


def _enumeration(old, new, rtype, name, typed, su_diff, default_differs, super_all):
    """The principals and hosts worth trying on one resource name (None: both sets decide alike)."""
    cand_old = old.candidate_acls(rtype, name)
    cand_new = new.candidate_acls(rtype, name)
    if cand_old is not None and cand_old == cand_new and not su_diff and not (default_differs and not cand_old):
        return None
    cands = frozenset(typed) if cand_old is None or cand_new is None else cand_old | cand_new
    return _principals(cands, super_all), _hosts(cands)


class _Touched:
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


def _label(decision) -> str:
    return decision.decision or decision.outcome.value


def diff(old_acls: list[AclBinding], new_acls: list[AclBinding], old_settings: dict, new_settings: dict) -> DiffResult:
    """``*_settings``: ``super_users`` and ``allow_everyone_if_no_acl_found`` for each side."""
    old = StandardAuthorizer(old_acls, **old_settings)
    new = StandardAuthorizer(new_acls, **new_settings)
    changes: list[Change] = []
    examined = 0
    su_diff = sorted(old.super_users ^ new.super_users)
    default_differs = old.allow_everyone_if_no_acl_found != new.allow_everyone_if_no_acl_found
    all_acls = old.bindings + new.bindings
    super_all = old.super_users | new.super_users
    spaces: dict[ResourceType, NameSpace] = {}
    bindings = binding_diff(old_acls, new_acls)
    # With the same settings on both sides, a name can decide differently only if a binding that
    # was added or removed is one Kafka looks at for it (its literal name, a prefix of it, or `*`).
    # Skipping the rest is exact and spares comparing big candidate sets for every class.
    touched = None if su_diff or default_differs else _Touched(bindings.added + bindings.removed)
    # And when no side allows everyone on resources without ACLs, only the principals the changed
    # bindings name can be decided differently (unless one of them is User:*, which names everyone).
    only_principals = None
    if touched is not None and not old.allow_everyone_if_no_acl_found and not new.allow_everyone_if_no_acl_found:
        named = {b.principal for b in bindings.added + bindings.removed}
        if "User:*" not in named:
            only_principals = named
    for rtype in ResourceType.concrete():
        typed = [a for a in all_acls if a.resource_type is rtype]
        space = spaces[rtype] = NameSpace({a.resource_name for a in typed})
        reps = [(CLUSTER_NAME, space.classify(CLUSTER_NAME))] if rtype is ResourceType.CLUSTER else space.representatives()
        for name, name_class in reps:
            if touched is not None and not touched.touches(rtype, name) \
                    and not old.walk_needed(rtype, name) and not new.walk_needed(rtype, name):
                continue
            enumeration = _enumeration(old, new, rtype, name, typed, su_diff, default_differs, super_all)
            if enumeration is None:
                continue
            principals, hosts = enumeration
            if only_principals is not None:
                principals = [p for p in principals if p in only_principals]
            for principal, host, op in product(principals, hosts, SUPPORTED_OPERATIONS[rtype]):
                examined += 1
                request = Request(principal, host, op, rtype, name)
                a, b = old.authorize(request), new.authorize(request)
                if _label(a) != _label(b):
                    changes.append(Change(rtype, name_class, principal, host, op.name, _label(a), _label(b),
                                          request, a.rule or a.error, b.rule or b.error, tuple(hosts), a.acl, b.acl))
    result = DiffResult(bindings, changes, classes_examined=examined)
    result.findings = merge(changes)
    for f in result.findings:
        if f.name_class.prefix is not None and not f.name_class.exact:
            f.excluded = spaces[f.resource_type].children(f.name_class.prefix)
    return result


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
    findings.sort(key=lambda f: (f.direction != "lost", f.principal, f.resource_type.value, str(f.name_class.prefix),
                                 f.hosts != ["*"]))
    return findings


def request_class(request: Request, old_acls: list[AclBinding], new_acls: list[AclBinding], old_settings: dict,
                  new_settings: dict) -> tuple:
    """The class a request falls in, as `diff` draws them (for tests and explanations)."""
    old = StandardAuthorizer(old_acls, **old_settings)
    new = StandardAuthorizer(new_acls, **new_settings)
    typed = [a for a in old.bindings + new.bindings if a.resource_type is request.resource_type]
    space = NameSpace({a.resource_name for a in typed})
    enumeration = _enumeration(old, new, request.resource_type, request.resource_name, typed,
                               sorted(old.super_users ^ new.super_users),
                               old.allow_everyone_if_no_acl_found != new.allow_everyone_if_no_acl_found,
                               old.super_users | new.super_users)
    principals, hosts = enumeration if enumeration else ([], [])
    principal = str(KafkaPrincipal.parse(request.principal))
    if principal not in principals:
        principal = FRESH_PRINCIPAL
    address = java_host_address(request.host)
    host = address if address in hosts else FRESH_HOST
    return (request.resource_type, space.classify(request.resource_name), principal, host, request.operation.name)


def change_keys(result: DiffResult) -> set[tuple]:
    return {(c.resource_type, c.name_class, c.principal, c.host, c.operation) for c in result.changes}
