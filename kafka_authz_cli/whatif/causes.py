"""Changed decisions grouped by the change that causes them.

A proposal changes a few bindings (or super.users, or the no-ACL default); the requests whose decision
changes are its consequences. One removed prefixed ALLOW can newly deny dozens of topics from several
hosts: a list of requests hides that it is one decision to take. Each changed request is attributed to
its cause from the two rules that decided it (Kafka's own rule texts, so the in-process and Spark paths
and a logged baseline all work alike):

- newly denied: a DENY now decides it (that DENY was added, or now reaches it); else the ALLOW that
  decided it before no longer does (removed); else it was a super user, or allowed by
  ``allow.everyone.if.no.acl.found`` on a resource that now has ACLs (or the default changed);
- newly allowed: an ALLOW now decides it (added); else a super user now, or the default now allows it;
  else the DENY that decided it before is gone (removed).

A cause is said as its binding change ("removing ALLOW WRITE on TOPIC team1. (PREFIXED) for
User:svc7"), and its consequence counted: request kinds, resources, hosts, logged requests, last seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from kafka_authz_cli.acl import Rule
from kafka_authz_cli.whatif.auditlog import matching_acl


@dataclass
class Cause:
    #: "newly_denied" or "newly_allowed"
    kind: str
    #: the binding change (or settings change) in words
    cause: str
    #: the ACL involved, as Kafka prints it (None for super users and the default)
    rule: str | None
    request_kinds: int = 0
    count: int = 0
    visible: int = 0
    resources: set = field(default_factory=set)
    hosts: set = field(default_factory=set)
    principals: set = field(default_factory=set)
    first_seen: str | None = None
    last_seen: str | None = None

    def describe(self) -> str:
        """"removing ALLOW WRITE on TOPIC team1. (PREFIXED) for User:svc7 newly denies 24 resources,
        3 hosts, 77 requests, last on 2024-05-01T10:00"."""
        verb = "newly denies" if self.kind == "newly_denied" else "newly allows"
        last = f", last on {self.last_seen}" if self.last_seen else ""
        who = f" of {len(self.principals)} principals" if len(self.principals) > 1 else ""
        return (f"{self.cause} {verb} {len(self.resources)} resource(s){who}, {len(self.hosts)} host(s), "
                f"{self.count:,} request(s){last}")

    def as_dict(self) -> dict:
        return {"kind": self.kind, "cause": self.cause, "rule": self.rule, "description": self.describe(),
                "request_kinds": self.request_kinds, "requests": self.count, "client_visible": self.visible,
                "resources": sorted(self.resources), "hosts": sorted(self.hosts),
                "principals": sorted(self.principals), "first_seen": self.first_seen, "last_seen": self.last_seen}


def _acl_words(acl: dict[str, str]) -> str:
    host = "" if acl["host"] == "*" else f" from {acl['host']}"
    return f"{acl['perm']} {acl['op']} on {acl['rtype']} {acl['name']} ({acl['pattern']}) for {acl['principal']}{host}"


def cause_of(kind: str, principal: str, before_rule: str | None, after_rule: str | None) -> tuple[str, str | None]:
    """(the cause in words, the rule text of the ACL involved) of one changed request."""
    before, after = matching_acl(before_rule), matching_acl(after_rule)
    if kind == "newly_denied":
        if after is not None and after["perm"] == "DENY":
            return f"adding DENY {_acl_words(after)[5:]}", after_rule
        if before is not None and before["perm"] == "ALLOW":
            return f"removing ALLOW {_acl_words(before)[6:]}", before_rule
        if before_rule == Rule.SUPER_USER:
            return f"removing {principal} from super.users", None
        if before_rule == Rule.DEFAULT_ALLOW:
            return ("allow.everyone.if.no.acl.found no longer allowing it (an ACL now exists for the resource, "
                    "or the default changed)"), None
    else:
        if after is not None and after["perm"] == "ALLOW":
            return f"adding ALLOW {_acl_words(after)[6:]}", after_rule
        if after_rule == Rule.SUPER_USER:
            return f"adding {principal} to super.users", None
        if after_rule == Rule.DEFAULT_ALLOW:
            return ("allow.everyone.if.no.acl.found now allowing it (no ACL exists for the resource any more, or "
                    "the default changed)"), None
        if before is not None and before["perm"] == "DENY":
            return f"removing DENY {_acl_words(before)[5:]}", before_rule
    return f"the decision changing from {before_rule or 'no rule'} to {after_rule or 'no rule'}", None


def group_by_cause(changed: Iterable) -> list[Cause]:
    """The causes of the changed requests (:class:`.replay.ChangedRequest`), the ones with the most
    client-visible requests first."""
    causes: dict[tuple[str, str], Cause] = {}
    for key, agg, kind, before_rule, after_rule in changed:
        principal, host, _op, rtype, name = key
        text, rule = cause_of(kind, principal, before_rule, after_rule)
        cause = causes.get((kind, text))
        if cause is None:
            cause = causes[(kind, text)] = Cause(kind, text, rule)
        cause.request_kinds += 1
        cause.count += agg.count
        cause.visible += agg.visible
        cause.resources.add(f"{rtype}:{name}")
        cause.hosts.add(host)
        cause.principals.add(principal)
        if agg.first_seen and (cause.first_seen is None or agg.first_seen < cause.first_seen):
            cause.first_seen = agg.first_seen
        if agg.last_seen and (cause.last_seen is None or agg.last_seen > cause.last_seen):
            cause.last_seen = agg.last_seen
    return sorted(causes.values(), key=lambda c: (c.kind != "newly_denied", -c.visible, -c.count, c.cause))
