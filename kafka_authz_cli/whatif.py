"""Replay logged authorization decisions against a proposed ACL set: who would it break?

Work is done on distinct requests, not lines: logs repeat the same (principal, host, operation,
resource) millions of times. Lines are folded into per-request aggregates (counts, first/last
seen, per-hour counts, what was logged); each distinct request is decided once by the engine;
the report joins the two. The same functions serve the in-process replay and the Spark job
(`kafka_authz_cli.spark_job`), so both give identical results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from kafka_authz_cli.auditlog import AuditDecision
from kafka_authz_cli.engine import Request, StandardAuthorizer
from kafka_authz_cli.model import AclBinding, AclError, AclOperation, ResourceType

RequestKey = tuple[str, str, str, str, str]  # principal, host, operation, resource_type, resource_name


@dataclass
class Aggregate:
    count: int = 0
    visible: int = 0  # lines at a level a client-requested decision uses (not TRACE)
    allowed: int = 0
    denied: int = 0
    first_seen: str | None = None
    last_seen: str | None = None
    hours: dict[str, int] = field(default_factory=dict)
    rule: str | None = None  # the last logged rule text (KRaft)

    def add(self, d: AuditDecision) -> None:
        self.count += 1
        self.visible += d.client_visible
        if d.decision == "ALLOWED":
            self.allowed += 1
        else:
            self.denied += 1
        ts = d.timestamp
        if ts:
            ts = ts.replace("T", " ")
            if self.first_seen is None or ts < self.first_seen:
                self.first_seen = ts
            if self.last_seen is None or ts > self.last_seen:
                self.last_seen = ts
                if d.rule:
                    self.rule = d.rule
            hour = ts[:13]
            self.hours[hour] = self.hours.get(hour, 0) + 1
        elif d.rule and self.rule is None:
            self.rule = d.rule

    def merge(self, other: "Aggregate") -> "Aggregate":
        out = Aggregate(self.count + other.count, self.visible + other.visible, self.allowed + other.allowed,
                        self.denied + other.denied)
        firsts = [t for t in (self.first_seen, other.first_seen) if t]
        lasts = [(t, r) for t, r in ((self.last_seen, self.rule), (other.last_seen, other.rule)) if t]
        out.first_seen = min(firsts) if firsts else None
        if lasts:
            out.last_seen, out.rule = max(lasts, key=lambda t: (t[0], t[1] or ""))
        else:
            out.rule = self.rule or other.rule
        out.hours = dict(self.hours)
        for h, c in other.hours.items():
            out.hours[h] = out.hours.get(h, 0) + c
        return out

    @property
    def logged(self) -> str:
        if self.allowed and self.denied:
            return "MIXED"
        return "ALLOWED" if self.allowed else "DENIED"


def key_of(d: AuditDecision) -> RequestKey:
    return (d.principal, d.host, d.operation, d.resource_type, d.resource_name)


def aggregate(decisions: Iterable[AuditDecision]) -> dict[RequestKey, Aggregate]:
    out: dict[RequestKey, Aggregate] = {}
    for d in decisions:
        k = key_of(d)
        agg = out.get(k)
        if agg is None:
            agg = out[k] = Aggregate()
        agg.add(d)
    return out


@dataclass(frozen=True)
class Verdict:
    decision: str  # ALLOWED / DENIED / ERROR ...
    rule: str | None
    acl: AclBinding | None


def decide(keys: Iterable[RequestKey], authorizer: StandardAuthorizer) -> dict[RequestKey, Verdict]:
    out = {}
    for k in keys:
        principal, host, op, rtype, name = k
        try:
            d = authorizer.authorize(Request(principal, host, AclOperation[op], ResourceType[rtype], name))
            out[k] = Verdict(d.decision or d.outcome.value, d.rule or d.error, d.acl)
        except (AclError, KeyError, ValueError) as exc:
            out[k] = Verdict("UNDECIDABLE", str(exc), None)
    return out


@dataclass
class Change:
    principal: str
    operation: str
    resource_type: str
    resource_name: str
    hosts: list[str]
    count: int
    visible: int
    first_seen: str | None
    last_seen: str | None
    before_rule: str | None
    after_rule: str | None

    @property
    def filtered_only(self) -> bool:
        return self.visible == 0


@dataclass
class WhatIfReport:
    distinct_requests: int
    decisions: int
    newly_denied: list[Change]
    newly_allowed: list[Change]
    unused_acls: list[AclBinding]
    logged_allowed_lines: int
    logged_denied_lines: int
    baseline: str  # "logged" or "current"
    reproduced: int | None = None  # with --current: distinct requests whose logged decision it reproduces
    comparable: int | None = None
    mismatch_examples: list[dict] = field(default_factory=list)
    timeline: dict[str, dict[str, int]] = field(default_factory=dict)  # hour -> {newly_denied, newly_allowed}
    warnings: list[str] = field(default_factory=list)


def build_report(aggs: dict[RequestKey, Aggregate], proposed: dict[RequestKey, Verdict],
                 proposed_acls: list[AclBinding], current: dict[RequestKey, Verdict] | None = None) -> WhatIfReport:
    groups: dict[tuple, dict] = {}
    timeline: dict[str, dict[str, int]] = {}
    reproduced = comparable = 0
    mismatches = []
    for key in sorted(aggs):
        agg = aggs[key]
        after = proposed[key]
        if current is not None:
            before = current[key]
            if agg.logged != "MIXED":
                comparable += 1
                if before.decision == agg.logged:
                    reproduced += 1
                elif len(mismatches) < 20:
                    mismatches.append({"principal": key[0], "host": key[1], "operation": key[2],
                                       "resource_type": key[3], "resource_name": key[4], "logged": agg.logged,
                                       "current": before.decision, "current_rule": before.rule,
                                       "logged_rule": agg.rule, "count": agg.count})
            before_decision, before_rule = before.decision, before.rule
        else:
            before_decision, before_rule = agg.logged, agg.rule
        if before_decision == "ALLOWED" and after.decision != "ALLOWED":
            kind = "newly_denied"
        elif before_decision == "DENIED" and after.decision == "ALLOWED":
            kind = "newly_allowed"
        else:
            continue
        gkey = (kind, key[0], key[2], key[3], key[4])
        g = groups.setdefault(gkey, {"hosts": set(), "count": 0, "visible": 0, "first": [], "last": [],
                                     "before": before_rule, "after": after.rule})
        g["hosts"].add(key[1])
        g["count"] += agg.count
        g["visible"] += agg.visible
        if agg.first_seen:
            g["first"].append(agg.first_seen)
        if agg.last_seen:
            g["last"].append(agg.last_seen)
        for hour, c in agg.hours.items():
            slot = timeline.setdefault(hour, {"newly_denied": 0, "newly_allowed": 0})
            slot[kind] += c
    changes: dict[str, list[Change]] = {"newly_denied": [], "newly_allowed": []}
    for (kind, principal, op, rtype, name), g in groups.items():
        changes[kind].append(Change(principal, op, rtype, name, sorted(g["hosts"]), g["count"], g["visible"],
                                    min(g["first"]) if g["first"] else None, max(g["last"]) if g["last"] else None,
                                    g["before"], g["after"]))
    for items in changes.values():
        items.sort(key=lambda c: (-c.visible, -c.count, c.principal, c.resource_name))
    used = {v.acl for v in proposed.values() if v.acl is not None}
    unused = [a for a in dict.fromkeys(proposed_acls) if a not in used]
    allowed_lines = sum(a.allowed for a in aggs.values())
    denied_lines = sum(a.denied for a in aggs.values())
    report = WhatIfReport(len(aggs), sum(a.count for a in aggs.values()), changes["newly_denied"],
                          changes["newly_allowed"], unused, allowed_lines, denied_lines,
                          "current" if current is not None else "logged",
                          reproduced if current is not None else None, comparable if current is not None else None,
                          mismatches, dict(sorted(timeline.items())))
    if allowed_lines == 0 and current is None:
        report.warnings.append(
            "no ALLOWED decision was logged: these logs cannot reveal traffic the change would newly deny. Kafka "
            "logs allowed decisions at DEBUG: set the kafka.authorizer.logger level to DEBUG (log4j: "
            "log4j.logger.kafka.authorizer.logger=DEBUG, authorizerAppender; log4j2: the "
            "kafka.authorizer.logger logger's level) for a representative window, or pass --current ACLS.")
    if any(a.logged == "MIXED" for a in aggs.values()):
        report.warnings.append("some requests were both allowed and denied in the window (the ACLs changed while "
                               "logging, or hosts/super users differ): their logged baseline is ambiguous")
    return report


def replay(decisions: Iterable[AuditDecision], proposed: StandardAuthorizer,
           current: StandardAuthorizer | None = None) -> WhatIfReport:
    """The in-process path: aggregate, decide each distinct request once, report."""
    aggs = aggregate(decisions)
    after = decide(aggs, proposed)
    before = decide(aggs, current) if current is not None else None
    return build_report(aggs, after, proposed.bindings, before)
