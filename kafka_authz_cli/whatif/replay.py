"""Replay logged authorization decisions against a proposed ACL set: who would it break?

Work is done on distinct requests, not lines: logs repeat the same (principal, host, operation,
resource) millions of times. Lines are folded into per-request aggregates (counts, first/last
seen, per-hour counts, what was logged); each distinct request is decided once by the engine;
the report joins the two. The same functions serve the in-process replay and the Spark job
(`kafka_authz_cli.whatif.spark`), so both give identical results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NamedTuple

from kafka_authz_cli.acl import AclBinding, AclError, AclOperation, Request, ResourceType, StandardAuthorizer
from kafka_authz_cli.whatif.auditlog import AuditDecision, Quarantined, ReadStats
from kafka_authz_cli.whatif.causes import group_by_cause

RequestKey = tuple[str, str, str, str, str]  # principal, host, operation, resource_type, resource_name


@dataclass
class Aggregate:
    """What the log says about one distinct request. Order-independent (so a Spark merge of partial
    aggregates gives exactly what one pass over the lines gives): times are compared as the text log4j
    wrote (`T` read as a space), and `rule` is the rule text of the latest line that logged one
    (ties: the greater text; lines without a timestamp count as the earliest)."""

    count: int = 0
    visible: int = 0  # lines at a level a client-requested decision uses (not TRACE)
    allowed: int = 0
    denied: int = 0
    first_seen: str | None = None
    last_seen: str | None = None
    hours: dict[str, int] = field(default_factory=dict)
    rule: str | None = None  # the latest logged rule text (KRaft)
    rule_at: str = ""  # the time of the line that logged `rule` ("" if it had none)

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
            hour = ts[:13]
            self.hours[hour] = self.hours.get(hour, 0) + 1
        if d.rule is not None:
            at = ts or ""
            if self.rule is None or (at, d.rule) > (self.rule_at, self.rule):
                self.rule, self.rule_at = d.rule, at

    def merge(self, other: "Aggregate") -> "Aggregate":
        out = Aggregate(self.count + other.count, self.visible + other.visible, self.allowed + other.allowed,
                        self.denied + other.denied)
        firsts = [t for t in (self.first_seen, other.first_seen) if t]
        lasts = [t for t in (self.last_seen, other.last_seen) if t]
        out.first_seen = min(firsts) if firsts else None
        out.last_seen = max(lasts) if lasts else None
        rules = [(a.rule_at, a.rule) for a in (self, other) if a.rule is not None]
        if rules:
            out.rule_at, out.rule = max(rules)
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


class ChangedRequest(NamedTuple):
    """One distinct request the proposal decides otherwise than the baseline."""

    key: RequestKey
    aggregate: Aggregate
    kind: str  # newly_denied | newly_allowed
    before_rule: str | None
    after_rule: str | None


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
    #: the changes grouped by the binding (or settings) change that causes them, biggest first
    causes: list = field(default_factory=list)

    @property
    def unverified(self) -> str | None:
        """Why this answer could not have shown traffic newly denied, whatever the proposal; None if it could."""
        return unverified_reason(self.decisions, self.baseline, self.logged_allowed_lines)


@dataclass
class LinesRead:
    """Every line of the logs accounted for, and what was quarantined (reading logs into an index)."""

    stats: ReadStats
    quarantine: list[Quarantined]


@dataclass
class Replayed(LinesRead):
    """What a replay gives, in this process or on Spark: the lines read, and the report."""

    report: WhatIfReport
    #: from an index: how it was answered (incremental or full, and why)
    note: str | None = None


def unverified_reason(decisions: int, baseline: str, logged_allowed: int) -> str | None:
    """Why a replay of ``decisions`` logged decisions (``logged_allowed`` of them ALLOWED) against the
    ``baseline`` ("logged" or "current") could not show a request newly denied, or None when it could:
    no decision at all (an empty log, a window with no traffic), or, the logged decisions being the
    baseline, none ALLOWED (a request is newly denied only when its baseline allows it, see
    :func:`classify`; Kafka logs allowed decisions at DEBUG, so a broker at INFO logs none)."""
    if decisions == 0:
        return "no logged decision was read, so no request could show as newly denied"
    if baseline == "logged" and logged_allowed == 0:
        return ("no ALLOWED decision was logged and the logged decisions are the baseline (no --current), so no "
                "request could show as newly denied")
    return None


def classify(agg: Aggregate, after: Verdict, before: Verdict | None) -> tuple[str | None, str, str | None]:
    """(newly_denied | newly_allowed | None, the baseline decision, the baseline rule) of one request."""
    if before is not None:
        before_decision, before_rule = before.decision, before.rule
    else:
        before_decision, before_rule = agg.logged, agg.rule
    if before_decision == "ALLOWED" and after.decision != "ALLOWED":
        return "newly_denied", before_decision, before_rule
    if before_decision == "DENIED" and after.decision == "ALLOWED":
        return "newly_allowed", before_decision, before_rule
    return None, before_decision, before_rule


def mismatch_row(key: RequestKey, agg: Aggregate, before: Verdict) -> dict:
    return {"principal": key[0], "host": key[1], "operation": key[2], "resource_type": key[3],
            "resource_name": key[4], "logged": agg.logged, "current": before.decision, "current_rule": before.rule,
            "logged_rule": agg.rule, "count": agg.count}


@dataclass
class Summary:
    """The request-level totals of a replay (what the report needs besides the changed requests)."""

    distinct: int = 0
    decisions: int = 0
    allowed_lines: int = 0
    denied_lines: int = 0
    comparable: int = 0
    reproduced: int = 0
    mixed: bool = False
    mismatches: list = field(default_factory=list)  # (key, row) of the 20 smallest keys

    def add(self, key: RequestKey, agg: Aggregate, before: Verdict | None) -> None:
        self.distinct += 1
        self.decisions += agg.count
        self.allowed_lines += agg.allowed
        self.denied_lines += agg.denied
        logged = agg.logged
        self.mixed = self.mixed or logged == "MIXED"
        if before is not None and logged != "MIXED":
            self.comparable += 1
            if before.decision == logged:
                self.reproduced += 1
            else:
                self.mismatches.append((key, mismatch_row(key, agg, before)))
                if len(self.mismatches) > 40:
                    self.mismatches = sorted(self.mismatches)[:20]

    def merge(self, other: "Summary") -> "Summary":
        return Summary(self.distinct + other.distinct, self.decisions + other.decisions,
                       self.allowed_lines + other.allowed_lines, self.denied_lines + other.denied_lines,
                       self.comparable + other.comparable, self.reproduced + other.reproduced,
                       self.mixed or other.mixed, sorted(self.mismatches + other.mismatches)[:20])


def build_report(aggs: dict[RequestKey, Aggregate], proposed: dict[RequestKey, Verdict],
                 proposed_acls: list[AclBinding], current: dict[RequestKey, Verdict] | None = None) -> WhatIfReport:
    summary = Summary()
    changed = []
    for key, agg in aggs.items():
        after = proposed[key]
        before = current[key] if current is not None else None
        summary.add(key, agg, before)
        kind, _, before_rule = classify(agg, after, before)
        if kind is not None:
            changed.append(ChangedRequest(key, agg, kind, before_rule, after.rule))
    used = {v.acl for v in proposed.values() if v.acl is not None}
    timeline: dict[str, dict[str, int]] = {}
    for c in changed:
        for hour, n in c.aggregate.hours.items():
            slot = timeline.setdefault(hour, {"newly_denied": 0, "newly_allowed": 0})
            slot[c.kind] += n
    return assemble_report(changed, summary, timeline, proposed_acls, used, current is not None)


def assemble_report(changed: list[ChangedRequest], summary: Summary, timeline: dict[str, dict[str, int]],
                    proposed_acls: list[AclBinding], used: set, with_current: bool) -> WhatIfReport:
    """The report from the changed requests (any order), the totals and the hourly counts of the changed
    requests: shared by the in-process and Spark paths."""
    groups: dict[tuple, dict] = {}
    for key, agg, kind, before_rule, after_rule in sorted(changed, key=lambda c: c.key):
        gkey = (kind, key[0], key[2], key[3], key[4])
        g = groups.setdefault(gkey, {"hosts": set(), "count": 0, "visible": 0, "first": [], "last": [],
                                     "before": before_rule, "after": after_rule})
        g["hosts"].add(key[1])
        g["count"] += agg.count
        g["visible"] += agg.visible
        if agg.first_seen:
            g["first"].append(agg.first_seen)
        if agg.last_seen:
            g["last"].append(agg.last_seen)
    changes: dict[str, list[Change]] = {"newly_denied": [], "newly_allowed": []}
    for (kind, principal, op, rtype, name), g in groups.items():
        changes[kind].append(Change(principal, op, rtype, name, sorted(g["hosts"]), g["count"], g["visible"],
                                    min(g["first"]) if g["first"] else None, max(g["last"]) if g["last"] else None,
                                    g["before"], g["after"]))
    for items in changes.values():
        items.sort(key=lambda c: (-c.visible, -c.count, c.principal, c.resource_name, c.operation, c.resource_type))
    unused = [a for a in dict.fromkeys(proposed_acls) if a not in used]
    report = WhatIfReport(summary.distinct, summary.decisions, changes["newly_denied"],
                          changes["newly_allowed"], unused, summary.allowed_lines, summary.denied_lines,
                          "current" if with_current else "logged",
                          summary.reproduced if with_current else None, summary.comparable if with_current else None,
                          [row for _, row in sorted(summary.mismatches)[:20]], dict(sorted(timeline.items())))
    report.causes = group_by_cause(changed)
    if summary.allowed_lines == 0 and not with_current:
        report.warnings.append(
            "no ALLOWED decision was logged: these logs cannot reveal traffic the change would newly deny. Kafka "
            "logs allowed decisions at DEBUG: set the kafka.authorizer.logger level to DEBUG (log4j: "
            "log4j.logger.kafka.authorizer.logger=DEBUG, authorizerAppender; log4j2: the "
            "kafka.authorizer.logger logger's level) for a representative window, or pass --current ACLS.")
    if summary.mixed:
        report.warnings.append("some requests were both allowed and denied in the window (the ACLs changed while "
                               "logging, or hosts/super users differ): their logged baseline is ambiguous")
    return report


def aggregate_hourly(decisions: Iterable[AuditDecision]) -> dict[tuple[RequestKey, str | None], Aggregate]:
    """Per (request, hour) aggregates: what an index stores (hour None for lines without a time)."""
    out: dict = {}
    for d in decisions:
        ts = d.timestamp
        k = (key_of(d), ts.replace("T", " ")[:13] if ts else None)
        agg = out.get(k)
        if agg is None:
            agg = out[k] = Aggregate()
        agg.add(d)
    return out


def replay(decisions: Iterable[AuditDecision], proposed: StandardAuthorizer,
           current: StandardAuthorizer | None = None) -> WhatIfReport:
    """The in-process path: aggregate, decide each distinct request once, report."""
    return replay_aggregates(aggregate(decisions), proposed, current)


def replay_aggregates(aggs: dict[RequestKey, Aggregate], proposed: StandardAuthorizer,
                      current: StandardAuthorizer | None = None) -> WhatIfReport:
    after = decide(aggs, proposed)
    before = decide(aggs, current) if current is not None else None
    return build_report(aggs, after, proposed.bindings, before)
