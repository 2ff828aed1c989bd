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

from bisect import bisect_left
from dataclasses import dataclass, field
from operator import attrgetter

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
from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.index import TypeIndex
from kafka_authz_cli.acl.matching import MATCHED_OPS, WILDCARD_PRINCIPAL_KEY, principal_key
from kafka_authz_cli.acl.model import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    KafkaPrincipal,
    PatternType,
    ResourceType,
    java_host_address,
)

__all__ = ["FRESH_HOST", "FRESH_PRINCIPAL", "BindingDiff", "Change", "DiffResult", "Finding", "NameClass",
           "NameSpace", "binding_diff", "change_keys", "describe_host", "describe_names", "diff", "merge",
           "request_class"]
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
    #: How many (principal, host) pairs of the coarser classes authz drew before its classes were per
    #: principal this change stands for: "any other host" of one principal holds every host that only
    #: other principals' ACLs name. The counts of classes gained and lost stay those of that cut.
    weight: int = 1

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
        return sum(c.weight for c in self.changes if c.direction == "gained")

    @property
    def lost(self) -> int:
        return sum(c.weight for c in self.changes if c.direction == "lost")

    @property
    def verdict(self) -> str:
        if not self.changes:
            return "equivalent"
        if self.gained and self.lost or any(c.direction == "changed" for c in self.changes):
            return "both"
        return "more permissive" if self.gained else "less permissive"


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

    def under(self, p: str) -> list[str]:
        """The ACL names starting with ``p`` (``p`` included when it is one)."""
        names = self.sorted
        out = []
        for i in range(bisect_left(names, p), len(names)):
            if not names[i].startswith(p):
                break
            out.append(names[i])
        return out

    def children(self, p: str) -> tuple[str, ...]:
        """ACL names extending ``p`` with no other ACL name in between."""
        out = []
        names = self.sorted
        for i in range(bisect_left(names, p), len(names)):
            n = names[i]
            if not n.startswith(p):
                break
            if n != p and self.longest_prefix(n[:-1]) == p:
                out.append(n)
        return tuple(out)

    def representatives(self, only: set[str] | None = None) -> list[tuple[str, NameClass]]:
        """A name standing for each class: each ACL name as itself and as the longer names it is the
        longest ACL-name prefix of, names no ACL name prefixes, and (Kafka's re-scan bug) names
        sharing a start with a name below '*'. ``only``: the classes of these ACL names alone."""
        reps = []
        for p in (self.sorted if only is None else sorted(only)):
            reps.append((p, NameClass(p, True)))
            longer = next((p + s for s in _SUFFIXES if self.longest_prefix(p + s) == p and p + s not in self.names),
                          None)
            if longer is not None:
                reps.append((longer, NameClass(p, False)))
        if only is not None:
            return reps
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
class _Check:
    """The requests of one principal a change can decide differently: these operations, from these
    hosts (None: from any host)."""

    ops: frozenset
    hosts: frozenset | None

    def __or__(self, other: "_Check") -> "_Check":
        hosts = None if self.hosts is None or other.hosts is None else self.hosts | other.hosts
        return _Check(self.ops | other.ops, hosts)

    @staticmethod
    def of(*checks: "_Check | None") -> "_Check":
        found = [c for c in checks if c is not None]
        out = found[0]
        for c in found[1:]:
            out = out | c
        return out


EVERY_REQUEST = _Check(frozenset(AclOperation), None)


def _label(decision) -> str:
    return decision.decision or decision.outcome.value


def diff(old_acls: list[AclBinding], new_acls: list[AclBinding], old_settings: dict, new_settings: dict) -> DiffResult:
    """``*_settings``: ``super_users`` and ``allow_everyone_if_no_acl_found`` for each side."""
    old = StandardAuthorizer(old_acls, **old_settings)
    new = StandardAuthorizer(new_acls, **new_settings)
    bindings = binding_diff(old_acls, new_acls)
    run = _DiffRun(old, new, bindings)
    for rtype in ResourceType.concrete():
        run.resource_type(rtype)
    result = DiffResult(bindings, run.changes, classes_examined=run.examined)
    result.findings = merge(run.changes)
    for f in result.findings:
        if f.name_class.prefix is not None and not f.name_class.exact:
            f.excluded = run.spaces[f.resource_type].children(f.name_class.prefix)
    return result


class _DiffRun:
    """The decision diff of two authorizers, name class by name class (see :mod:`.classes`).

    With the same settings on both sides, a request can decide differently only if a binding that
    was added or removed matches it: only the name classes those bindings apply to are visited, and
    in each only the principals they name (everyone, when one of them is ``User:*`` or the no-ACL
    default can change). Each principal is then compared by its view of the candidates on both
    sides: equal views decide alike, and each pair of views is decided once however many names
    share it. Names only Kafka's walk can decide are compared request by request by the engines."""

    def __init__(self, old: StandardAuthorizer, new: StandardAuthorizer, bindings: BindingDiff):
        self.old, self.new = old, new
        self.classes = RequestClasses()
        self.changes: list[Change] = []
        self.examined = 0
        self.spaces: dict[ResourceType, NameSpace] = {}
        self.su_diff = sorted(old.super_users ^ new.super_users)
        self.su_keys = {principal_key(p) for p in self.su_diff}
        self.super_all = old.super_users | new.super_users
        self.settings_changed = bool(self.su_diff) or \
            old.allow_everyone_if_no_acl_found != new.allow_everyone_if_no_acl_found
        self.changed: dict[ResourceType, list[AclBinding]] = {}
        for b in bindings.added + bindings.removed:
            self.changed.setdefault(b.resource_type, []).append(b)
        self.touched = _Touched(bindings.added + bindings.removed)
        self._compared: dict[tuple, tuple] = {}
        self._reaches: dict[int, dict] = {}  # the delta index's buckets live as long as the run
        self._rules: dict[int, tuple[AclBinding, str]] = {}
        self._typed: dict[tuple[int, ResourceType], list[AclBinding]] = {}

    def resource_type(self, rtype: ResourceType) -> None:
        delta = self.changed.get(rtype, [])
        if not delta and not self.settings_changed:
            return
        space = self.spaces[rtype] = NameSpace(self.old.resource_names(rtype) | self.new.resource_names(rtype))
        delta_index = TypeIndex()
        for b in delta:
            delta_index.add(b)
        delta_index.seal()
        for name, name_class in self._classes(rtype, space):
            self._name_class(rtype, name, name_class, delta_index)

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

    def _name_class(self, rtype: ResourceType, name: str, nc: NameClass, delta_index: TypeIndex) -> None:
        old, new = self.old, self.new
        plan_o, plan_n = old.candidate_buckets(rtype, name), new.candidate_buckets(rtype, name)
        delta_plan = delta_index.plan(name)
        if plan_o is None or plan_n is None or delta_plan is None or has_bad_principal(plan_o) \
                or has_bad_principal(plan_n):
            self._by_engine(rtype, name, nc, plan_o, plan_n)
            return
        reach = self._reach(delta_plan)
        default_flips = (not plan_o and old.allow_everyone_if_no_acl_found) \
            or (not plan_n and new.allow_everyone_if_no_acl_found)
        if default_flips or WILDCARD_PRINCIPAL_KEY in reach:
            keys: set = self.classes.principals(plan_o) | self.classes.principals(plan_n) | {None}
        elif reach or self.su_keys:
            keys = set(reach)
        else:
            return
        keys |= self.su_keys
        for pkey in sorted(keys, key=lambda k: (k is None, k or ("", ""))):
            if default_flips or pkey in self.su_keys:
                check = EVERY_REQUEST
            else:
                check = _Check.of(reach.get(pkey), reach.get(WILDCARD_PRINCIPAL_KEY))
            self._principal(rtype, name, nc, plan_o, plan_n, pkey, check)

    def _reach(self, delta_plan: tuple) -> dict:
        """Which requests the changed bindings on a name can decide differently: per principal key,
        the operations and hosts they match (each delta bucket's made once)."""
        if len(delta_plan) == 1:
            return self._bucket_reach(delta_plan[0])
        out: dict = {}
        for bucket in delta_plan:
            for key, check in self._bucket_reach(bucket).items():
                out[key] = check if key not in out else out[key] | check
        return out

    def _bucket_reach(self, bucket) -> dict:
        found = self._reaches.get(id(bucket))
        if found is None:
            found = self._reaches[id(bucket)] = {}
            for acl in bucket.acls:
                if not valid_host(acl.host):
                    continue  # matches no request: it cannot change a decision
                key = principal_key(acl.principal)
                check = _Check(MATCHED_OPS[(acl.operation, acl.permission)],
                               None if acl.host == WILDCARD_HOST else frozenset((acl.host,)))
                found[key] = check if key not in found else found[key] | check
        return found

    def _rule(self, decided: Decided, acl: AclBinding | None) -> str | None:
        """The rule text of a decision (Kafka's ``MatchingAcl(acl=...)`` made once per ACL)."""
        if acl is None:
            return decided.rule
        found = self._rules.get(id(acl))
        if found is None or found[0] is not acl:
            found = self._rules[id(acl)] = (acl, f"MatchingAcl(acl={acl.standard_acl_str()})")
        return found[1]

    def _principal(self, rtype, name, nc, plan_o, plan_n, pkey, check: "_Check") -> None:
        text = FRESH_PRINCIPAL if pkey is None else principal_text(pkey)
        view_o, where_o = self.classes.view(plan_o, pkey)
        view_n, where_n = self.classes.view(plan_n, pkey)
        super_o = pkey is not None and text in self.old.super_users
        super_n = pkey is not None and text in self.new.super_users
        key = (rtype, view_o, view_n, super_o, super_n, check)
        found = self._compared.get(key)
        if found is None:
            found = self._compared[key] = self._compare(rtype, view_o, view_n, super_o, super_n, check)
        examined, hosts, differing = found
        self.examined += examined
        if not differing:
            return
        host_classes = hosts + (FRESH_HOST,)
        everywhere = None
        for host, op, a, b in differing:
            weight = 1
            if host is None:
                if everywhere is None:
                    everywhere = self.classes.plan_hosts(plan_o) | self.classes.plan_hosts(plan_n)
                weight = len(everywhere) + 1 - len(hosts)
            acl_a, acl_b = deciding_acl(plan_o, where_o, a), deciding_acl(plan_n, where_n, b)
            self.changes.append(Change(
                rtype, nc, text, host or FRESH_HOST, op.name, a.label, b.label,
                Request(text, host or FRESH_HOST, op, rtype, name), self._rule(a, acl_a), self._rule(b, acl_b),
                host_classes, acl_a, acl_b, weight))

    def _compare(self, rtype, view_o, view_n, super_o, super_n, check: "_Check") -> tuple:
        """(request classes examined, the principal's hosts, the (host, op, old, new) that differ):
        only the requests ``check`` says a change can reach are decided."""
        allow_o = self.old.allow_everyone_if_no_acl_found
        allow_n = self.new.allow_everyone_if_no_acl_found
        hosts = tuple(sorted(set(self.classes.hosts(view_o)) | set(self.classes.hosts(view_n))))
        ops = [op for op in SUPPORTED_OPERATIONS[rtype] if op in check.ops]
        tried = (*hosts, None) if check.hosts is None else tuple(sorted(check.hosts))
        if not ops or (view_o == view_n and super_o == super_n and (view_o.has_acls or allow_o == allow_n)):
            return 0, hosts, ()
        decide = self.classes.decide
        differing = []
        for host in tried:
            for op in ops:
                a = SUPER if super_o else decide(view_o, host, op, allow_o)
                b = SUPER if super_n else decide(view_n, host, op, allow_n)
                if a.label != b.label:
                    differing.append((host, op, a, b))
        return len(ops) * len(tried), hosts, tuple(differing)

    def _by_engine(self, rtype, name, nc, plan_o, plan_n) -> None:
        """Every principal and host class the candidates name (as Kafka's walk finds them), decided
        request by request: names whose plan only the walk can tell, or with a malformed principal."""
        cands = self._candidates(self.old, rtype, name, plan_o) + self._candidates(self.new, rtype, name, plan_n)
        keys = {principal_key(a.principal) for a in cands} | {principal_key(p) for p in self.super_all}
        keys.discard(None)
        keys.discard(WILDCARD_PRINCIPAL_KEY)
        everywhere = {a.host for a in cands if a.host != WILDCARD_HOST and valid_host(a.host)}
        for pkey in [*sorted(keys), None]:
            text = FRESH_PRINCIPAL if pkey is None else principal_text(pkey)
            hosts = tuple(named_hosts(cands, pkey))
            for host in (*hosts, FRESH_HOST):
                for op in SUPPORTED_OPERATIONS[rtype]:
                    self.examined += 1
                    request = Request(text, host, op, rtype, name)
                    a, b = self.old.authorize(request), self.new.authorize(request)
                    if _label(a) != _label(b):
                        weight = len(everywhere) + 1 - len(hosts) if host == FRESH_HOST else 1
                        self.changes.append(Change(rtype, nc, text, host, op.name, _label(a), _label(b), request,
                                                   a.rule or a.error, b.rule or b.error, hosts + (FRESH_HOST,),
                                                   a.acl, b.acl, weight))

    def _candidates(self, side: StandardAuthorizer, rtype: ResourceType, name: str, plan) -> list[AclBinding]:
        if plan is not None:
            return [a for bucket in plan for a in bucket.acls]
        typed = self._typed.get((id(side), rtype))
        if typed is None:
            typed = self._typed[(id(side), rtype)] = [a for a in side.bindings if a.resource_type is rtype]
        return walk_candidates(typed, name)


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
    run = _DiffRun(old, new, binding_diff(old_acls, new_acls))
    rtype, name = request.resource_type, request.resource_name
    space = NameSpace(old.resource_names(rtype) | new.resource_names(rtype))
    plan_o, plan_n = old.candidate_buckets(rtype, name), new.candidate_buckets(rtype, name)
    principal = str(KafkaPrincipal.parse(request.principal))
    pkey = principal_key(principal)
    address = java_host_address(request.host)
    if plan_o is None or plan_n is None or has_bad_principal(plan_o) or has_bad_principal(plan_n):
        cands = run._candidates(old, rtype, name, plan_o) + run._candidates(new, rtype, name, plan_n)
        named = {a.principal for a in cands} | run.super_all
        if principal not in named or pkey == WILDCARD_PRINCIPAL_KEY:
            principal, pkey = FRESH_PRINCIPAL, None
        hosts = named_hosts(cands, pkey)
    else:
        named = run.classes.principals(plan_o) | run.classes.principals(plan_n)
        if pkey not in named and principal not in run.super_all:
            principal, pkey = FRESH_PRINCIPAL, None
        hosts = set(run.classes.hosts(run.classes.view(plan_o, pkey)[0])) | \
            set(run.classes.hosts(run.classes.view(plan_n, pkey)[0]))
    host = address if address in hosts else FRESH_HOST
    return (rtype, space.classify(name), principal, host, request.operation.name)


def change_keys(result: DiffResult) -> set[tuple]:
    return {(c.resource_type, c.name_class, c.principal, c.host, c.operation) for c in result.changes}
