"""Plan and apply an ACL set on a live cluster without ever opening a window of access.

Pure: no terminal, no files, no network (the cluster is an :class:`AclAdmin` passed in).

* A :class:`Scope` says which ACLs a plan manages (principals, resource names, name prefixes);
  everything outside it is *unmanaged*: shown, never deleted.
* :func:`make_plan` compares the desired set with what the cluster holds inside the scope: creates,
  deletes (only with ``allow_delete``; otherwise listed as kept), a fingerprint of every ACL seen.
* :func:`phases` orders the changes so that no intermediate ACL set grants a request that neither
  the old nor the new set grants. With ``allow.everyone.if.no.acl.found=false`` (the secure default)
  that is: add DENYs, remove ALLOWs, add ALLOWs, remove DENYs. Each phase only takes access away
  from the state before it (phases 1-2) or only leaves what the new set grants (phases 3-4): an
  ALLOW added in phase 3 is checked against every DENY of the new set, already present. With
  ``allow.everyone.if.no.acl.found=true`` removing ALLOWs first can leave a resource with no ACL
  at all, which that setting opens to everyone; there the order is add DENYs, add ALLOWs, remove
  ALLOWs, remove DENYs (every intermediate set contains the ACLs both ends share, plus some of
  either end's, and DENYs stay until the last step). tests/cluster/test_rollout_properties.py
  checks both orders on random sets with the engine as the oracle, batch by batch.
* :func:`execute` applies the phases in batches and stops at the first batch that fails, so a
  refused DENY never lets the ALLOWs after it through; the report says exactly what was applied,
  what failed, what is unknown (the broker stopped answering mid-batch) and what was not tried.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Iterable

from kafka_authz_cli.acl import AclBinding, AclError, AclPermissionType, ResourceType
from kafka_authz_cli.errors import InputError

PLAN_VERSION = 1
ALLOW = AclPermissionType.ALLOW
DENY = AclPermissionType.DENY

_TYPE_WORDS = {
    "topic": ResourceType.TOPIC,
    "group": ResourceType.GROUP,
    "transactional-id": ResourceType.TRANSACTIONAL_ID,
    "delegation-token": ResourceType.DELEGATION_TOKEN,
    "user": ResourceType.USER,
    "cluster": ResourceType.CLUSTER,
}
SCOPE_KINDS = ("principal", *(_TYPE_WORDS), *(f"{w}-prefix" for w in _TYPE_WORDS if w != "cluster"),
               "resource-prefix")


# -- scope ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scope:
    """What a plan manages. Within a dimension the selectors are alternatives; across dimensions
    they all apply: ``principal=User:alice`` and ``topic-prefix=orders-`` manage alice's ACLs on
    resources named ``orders-...``. An empty scope manages every ACL."""

    principals: frozenset[str] = frozenset()
    #: (resource type or None for any, name, is_prefix)
    resources: frozenset[tuple[ResourceType | None, str, bool]] = frozenset()

    @classmethod
    def parse(cls, items: Iterable[str], origin: str = "--scope", lines: list[int] | None = None) -> "Scope":
        principals: set[str] = set()
        resources: set[tuple[ResourceType | None, str, bool]] = set()
        for i, item in enumerate(items):
            line = lines[i] if lines else None
            kind, sep, value = item.partition("=")
            kind = kind.strip().lower()
            if not sep or kind not in SCOPE_KINDS:
                raise InputError(f"scope {item!r}: expected KIND=VALUE with KIND one of {', '.join(SCOPE_KINDS)}",
                                 origin, line)
            if value == "":
                raise InputError(f"scope {item!r}: empty value", origin, line)
            if kind == "principal":
                if ":" not in value:
                    raise InputError(f"scope {item!r}: a principal is Type:name (User:alice)", origin, line)
                principals.add(value)
            elif kind == "resource-prefix":
                resources.add((None, value, True))
            elif kind.endswith("-prefix"):
                resources.add((_TYPE_WORDS[kind[:-7]], value, True))
            else:
                resources.add((_TYPE_WORDS[kind], value, False))
        return cls(frozenset(principals), frozenset(resources))

    @classmethod
    def parse_file(cls, text: str, path: str) -> "Scope":
        """One ``KIND=VALUE`` per line; ``#`` starts a comment line; blank lines are ignored."""
        items, numbers = [], []
        for n, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                items.append(stripped)
                numbers.append(n)
        return cls.parse(items, path, numbers)

    def merge(self, other: "Scope") -> "Scope":
        return Scope(self.principals | other.principals, self.resources | other.resources)

    @property
    def everything(self) -> bool:
        return not self.principals and not self.resources

    def manages(self, b: AclBinding) -> bool:
        if self.principals and b.principal not in self.principals:
            return False
        if not self.resources:
            return True
        for rtype, name, prefix in self.resources:
            if rtype is not None and rtype is not b.resource_type:
                continue
            if b.resource_name.startswith(name) if prefix else b.resource_name == name:
                return True
        return False

    def items(self) -> list[str]:
        out = [f"principal={p}" for p in sorted(self.principals)]
        words = {v: k for k, v in _TYPE_WORDS.items()}
        for rtype, name, prefix in sorted(self.resources, key=lambda r: (r[0].name if r[0] else "", r[1], r[2])):
            kind = "resource" if rtype is None else words[rtype]
            out.append(f"{kind}{'-prefix' if prefix else ''}={name}")
        return out


# -- fingerprints and plans -------------------------------------------------------------------

def fingerprint(acls: Iterable[AclBinding]) -> str:
    """sha256 of the sorted ``StandardAcl`` texts: equal exactly when the ACL sets are equal."""
    lines = sorted({b.standard_acl_str() for b in acls})
    return "sha256:" + hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Plan:
    observed: list[AclBinding]
    creates: list[AclBinding]
    deletes: list[AclBinding]
    #: Deletes the plan would make with --allow-delete (kept on the cluster).
    kept: list[AclBinding]
    unmanaged: list[AclBinding]
    scope: Scope
    allow_delete: bool
    allow_everyone_if_no_acl_found: bool = False
    super_users: str = ""
    bootstrap_server: str = ""
    created: str = ""
    effect: dict = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.observed)

    @property
    def result(self) -> list[AclBinding]:
        gone = set(self.deletes)
        out = [b for b in self.observed if b not in gone]
        have = set(out)
        return out + [b for b in self.creates if b not in have]

    @property
    def changes(self) -> int:
        return len(self.creates) + len(self.deletes)

    @property
    def order(self) -> list[tuple[str, list[AclBinding]]]:
        """The changes phase by phase, in the order that never widens access."""
        return phases(self.creates, self.deletes, self.allow_everyone_if_no_acl_found)

    def to_json(self) -> dict:
        return {
            "authz_plan": PLAN_VERSION,
            "created": self.created,
            "bootstrap_server": self.bootstrap_server,
            "fingerprint": self.fingerprint,
            "result_fingerprint": fingerprint(self.result),
            "allow_delete": self.allow_delete,
            "allow_everyone_if_no_acl_found": self.allow_everyone_if_no_acl_found,
            "super_users": self.super_users,
            "scope": self.scope.items(),
            "summary": {"create": len(self.creates), "delete": len(self.deletes), "kept": len(self.kept),
                        "unmanaged": len(self.unmanaged), "observed": len(self.observed)},
            "phases": [{"phase": name, "count": len(items)} for name, items in self.order],
            "effect": self.effect,
            "creates": [b.as_dict() for b in self.creates],
            "deletes": [b.as_dict() for b in self.deletes],
            "kept": [b.as_dict() for b in self.kept],
            "unmanaged": [b.as_dict() for b in self.unmanaged],
            "observed": [b.as_dict() for b in self.observed],
        }

    @classmethod
    def from_json(cls, doc, path: str) -> "Plan":
        if not isinstance(doc, dict) or doc.get("authz_plan") != PLAN_VERSION:
            raise InputError(f"not an authz plan (expected \"authz_plan\": {PLAN_VERSION}; make one with "
                             "`authz cluster plan DESIRED -o plan.json`)", path)

        def bindings(key: str) -> list[AclBinding]:
            items = doc.get(key)
            if not isinstance(items, list):
                raise InputError(f"plan field {key!r} must be a list", path)
            out = []
            for i, item in enumerate(items):
                try:
                    if not isinstance(item, dict):
                        raise AclError("expected an object")
                    out.append(AclBinding.of(item["resource_type"], item["resource_name"], item["pattern_type"],
                                             item["principal"], item["host"], item["operation"], item["permission"]))
                except (KeyError, AclError, TypeError) as exc:
                    raise InputError(f"plan field {key!r} entry {i + 1}: {exc}", path) from None
            return out

        plan = cls(bindings("observed"), bindings("creates"), bindings("deletes"), bindings("kept"),
                   bindings("unmanaged"), Scope.parse(doc.get("scope") or [], path),
                   bool(doc.get("allow_delete")), bool(doc.get("allow_everyone_if_no_acl_found")),
                   str(doc.get("super_users") or ""), str(doc.get("bootstrap_server") or ""),
                   str(doc.get("created") or ""), doc.get("effect") or {})
        if doc.get("fingerprint") != plan.fingerprint:
            raise InputError("the plan's fingerprint does not match the ACLs it lists as observed "
                             "(the file was edited): make a new plan", path)
        if plan.deletes and not plan.allow_delete:
            raise InputError("the plan deletes ACLs but was not made with --allow-delete", path)
        return plan


def make_plan(observed: list[AclBinding], desired: list[AclBinding], scope: Scope, allow_delete: bool,
              allow_everyone_if_no_acl_found: bool = False) -> Plan:
    """Desired against actual inside ``scope``. Raises :class:`InputError` for a desired ACL
    outside the scope (a plan never touches what it does not manage)."""
    outside = [b for b in desired if not scope.manages(b)]
    if outside:
        raise InputError(f"{len(outside)} desired ACL(s) are outside the scope ({', '.join(scope.items())}), "
                         f"e.g. {outside[0].standard_acl_str()}: widen --scope or drop them")
    have = dict.fromkeys(observed)
    want = dict.fromkeys(desired)
    managed = [b for b in have if scope.manages(b)]
    unmanaged = [b for b in have if not scope.manages(b)]
    creates = [b for b in want if b not in have]
    extra = [b for b in managed if b not in want]
    deletes, kept = (extra, []) if allow_delete else ([], extra)
    return Plan(list(have), creates, deletes, kept, unmanaged, scope, allow_delete, allow_everyone_if_no_acl_found)


# -- ordering ---------------------------------------------------------------------------------

def phases(creates: list[AclBinding], deletes: list[AclBinding],
           allow_everyone_if_no_acl_found: bool = False) -> list[tuple[str, list[AclBinding]]]:
    """The changes in the order that never widens access (see the module docstring)."""
    add_deny = [b for b in creates if b.permission is DENY]
    add_allow = [b for b in creates if b.permission is not DENY]
    remove_allow = [b for b in deletes if b.permission is not DENY]
    remove_deny = [b for b in deletes if b.permission is DENY]
    if allow_everyone_if_no_acl_found:
        order = [("add DENY", add_deny), ("add ALLOW", add_allow), ("remove ALLOW", remove_allow),
                 ("remove DENY", remove_deny)]
    else:
        order = [("add DENY", add_deny), ("remove ALLOW", remove_allow), ("add ALLOW", add_allow),
                 ("remove DENY", remove_deny)]
    return [(name, items) for name, items in order if items]


@dataclass(frozen=True)
class Batch:
    phase: str
    index: int  # 1-based within the phase
    of: int
    bindings: tuple[AclBinding, ...]

    @property
    def is_create(self) -> bool:
        return self.phase.startswith("add")


def batches(creates: list[AclBinding], deletes: list[AclBinding], batch_size: int,
            allow_everyone_if_no_acl_found: bool = False) -> list[Batch]:
    if batch_size < 1:
        raise ValueError("batch size must be at least 1")
    out = []
    for name, items in phases(creates, deletes, allow_everyone_if_no_acl_found):
        n = (len(items) + batch_size - 1) // batch_size
        for i in range(n):
            out.append(Batch(name, i + 1, n, tuple(items[i * batch_size:(i + 1) * batch_size])))
    return out


def intermediate_states(old: list[AclBinding], plan_batches: list[Batch]) -> list[list[AclBinding]]:
    """The ACL set after each batch (for proofs and tests)."""
    state = dict.fromkeys(old)
    out = []
    for batch in plan_batches:
        for b in batch.bindings:
            if batch.is_create:
                state[b] = None
            else:
                state.pop(b, None)
        out.append(list(state))
    return out


# -- drift ------------------------------------------------------------------------------------

@dataclass
class Drift:
    """How the cluster compares with the plan's starting point."""

    status: str  # "fresh" | "done" | "resume" | "drift"
    added: list[AclBinding] = field(default_factory=list)  # on the cluster, not in the plan's observed set
    removed: list[AclBinding] = field(default_factory=list)
    remaining_creates: list[AclBinding] = field(default_factory=list)
    remaining_deletes: list[AclBinding] = field(default_factory=list)


def check_drift(plan: Plan, current: list[AclBinding]) -> Drift:
    now = set(current)
    before = set(plan.observed)
    added = [b for b in current if b not in before]
    removed = [b for b in plan.observed if b not in now]
    if not added and not removed:
        return Drift("fresh", [], [], list(plan.creates), list(plan.deletes))
    creates, deletes = set(plan.creates), set(plan.deletes)
    if now == set(plan.result):
        return Drift("done", added, removed)
    if all(b in creates for b in added) and all(b in deletes for b in removed):
        return Drift("resume", added, removed, [b for b in plan.creates if b not in now],
                     [b for b in plan.deletes if b in now])
    return Drift("drift", added, removed)


# -- applying ---------------------------------------------------------------------------------

@dataclass
class ApplyReport:
    applied: list[tuple[str, AclBinding]] = field(default_factory=list)
    failed: list[tuple[str, AclBinding, str]] = field(default_factory=list)
    #: Sent in a batch whose answer never came (the broker stopped, a timeout): state unknown.
    unknown: list[tuple[str, AclBinding, str]] = field(default_factory=list)
    not_attempted: list[tuple[str, AclBinding]] = field(default_factory=list)
    batches_done: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.unknown and not self.not_attempted


def execute(admin, plan_batches: list[Batch], on_batch: Callable[[Batch, list], None] | None = None,
            errors: tuple[type[BaseException], ...] = (Exception,)) -> ApplyReport:
    """Apply the batches in order; stop at the first one that does not fully succeed.

    ``on_batch(batch, failed)`` is called after every batch that got an answer (progress, and the
    live test's check of the broker's ACLs). An exception from the admin (in ``errors``) marks the
    batch in flight as unknown; what follows is not attempted.
    """
    report = ApplyReport()
    for k, batch in enumerate(plan_batches):
        try:
            failed = (admin.create_acls if batch.is_create else admin.delete_acls)(list(batch.bindings))
        except errors as exc:  # the answer never came
            report.unknown += [(batch.phase, b, str(exc)) for b in batch.bindings]
            report.not_attempted += [(x.phase, b) for x in plan_batches[k + 1:] for b in x.bindings]
            return report
        bad = {b: e for b, e in failed}
        report.applied += [(batch.phase, b) for b in batch.bindings if b not in bad]
        report.failed += [(batch.phase, b, e) for b, e in failed]
        report.batches_done += 1
        if on_batch is not None:
            on_batch(batch, failed)
        if failed:
            report.not_attempted += [(x.phase, b) for x in plan_batches[k + 1:] for b in x.bindings]
            return report
    return report
