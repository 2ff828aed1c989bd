"""Grants nobody exercised: each binding's use in a window of audit logs, and what the logs can show.

Each distinct logged request is decided once by the exact engine against the ACL set; the binding
the engine names as the deciding ACL (``Decision.acl``) is credited with the request's logged lines.
A binding that decided nothing is called *unused* only when the logs could have shown its use:

* Kafka logs allowed decisions at DEBUG (TRACE for checks the client did not ask for) and denied
  ones at INFO (DEBUG before 1.0), so a log4j authorizer log with no ALLOWED line cannot show that an
  ALLOW binding was used; its DENIED lines still show DENY bindings' use. Any ALLOWED line means the
  logger was at DEBUG or below, where denials are logged too.
* Several files (brokers, hours) may have been logged at different levels: one file with decisions
  but no ALLOWED one is enough to make an unused ALLOW binding *unknown*.
* Confluent audit-log events record what the audit-log router config routes, per event category and
  resource; the events do not say what was not routed, so neither kind of binding is called unused
  from them unless the caller vouches for the logging (``assume_complete``).

A binding that cannot be called unused is reported ``unknown``, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Sequence

from kafka_authz_cli.acl import AclBinding, AclPermissionType, BrokerSettings, Rule, StandardAuthorizer
from kafka_authz_cli.whatif import Aggregate, AuditDecision, decide

#: ``AuditDecision.format`` of a Confluent audit-log event (kafka_authz_cli.whatif.cloudevents.FORMAT).
EVENTS_FORMAT = "CONFLUENT-CLOUDEVENT"
WILDCARD_PRINCIPAL = "User:*"


# ----------------------------------------------------------------------------------------------
# What the logs can show


@dataclass
class SourceTally:
    """The decisions one log file (or one index run) holds inside the window."""

    source: str
    events: bool = False  # Confluent audit-log events (else a log4j authorizer log)
    allowed: int = 0
    denied: int = 0
    outside: int = 0  # decisions outside the window
    lines: int = 0  # every line read (decisions or not; 0 for an empty file)

    @property
    def decisions(self) -> int:
        return self.allowed + self.denied

    @property
    def counts(self) -> bool:
        """Whether this source says something about the window: decisions in it, or lines but no decision
        at all (a broker at INFO that denied nothing writes none: its allowed use was not logged either).
        An empty file, or one whose decisions all fall outside the window, says nothing."""
        return bool(self.decisions) or (self.lines > 0 and not self.outside)


@dataclass
class Evidence:
    """What the logs hold in the window, per source, and what the window left out."""

    sources: list[SourceTally] = field(default_factory=list)
    untimed_left_out: int = 0  # decisions without a timestamp, left out because the window is bounded
    outside_window: int = 0  # decisions before --since or from --until on (log files only)
    first_allowed: Optional[str] = None
    last_allowed: Optional[str] = None

    def note_allowed(self, ts: Optional[str]) -> None:
        if ts:
            if self.first_allowed is None or ts < self.first_allowed:
                self.first_allowed = ts
            if self.last_allowed is None or ts > self.last_allowed:
                self.last_allowed = ts


def in_window(decisions: Iterable[AuditDecision], tally: SourceTally, evidence: Evidence,
              since: Optional[str] = None, until: Optional[str] = None) -> Iterator[AuditDecision]:
    """The decisions of one source within [since, until) (hours as ``YYYY-MM-DD HH``, as the whatif
    index compares them), counted into `tally`; what falls outside is counted into `evidence`."""
    bounded = since is not None or until is not None
    for d in decisions:
        ts = d.timestamp
        if bounded:
            if not ts:
                evidence.untimed_left_out += 1
                continue
            hour = ts[:13].replace("T", " ")
            if (since is not None and hour < since) or (until is not None and hour >= until):
                evidence.outside_window += 1
                tally.outside += 1
                continue
        if d.format == EVENTS_FORMAT:
            tally.events = True
        if d.decision == "ALLOWED":
            tally.allowed += 1
            if ts:
                evidence.note_allowed(ts.replace("T", " "))
        else:
            tally.denied += 1
        yield d


@dataclass(frozen=True)
class Visibility:
    """Whether the logs could show every use of ALLOW bindings (`allowed`) and of DENY bindings
    (`denied`); `why` says what stands in the way (or what was assumed)."""

    allowed: bool
    denied: bool
    allowed_why: Optional[str] = None
    denied_why: Optional[str] = None


_DEBUG_HINT = ("Kafka logs allowed decisions at DEBUG only: set kafka.authorizer.logger to DEBUG on every broker "
               "(and controller) for the window, or index such logs")


def visibility(evidence: Evidence, assume_complete: bool = False) -> Visibility:
    """What the window's logs can show (module docstring)."""
    if assume_complete:
        why = "assumed (--assume-complete-logs): every decision of the window is taken to be logged"
        return Visibility(True, True, why, why)
    holding = [s for s in evidence.sources if s.counts]
    if not any(s.decisions for s in holding):
        why = "no decision was logged in the window"
        return Visibility(False, False, why, why)
    events = [s for s in holding if s.events]
    if events:
        why = (f"{_name(events)} hold Confluent audit-log events, which record only what the audit-log router "
               "config routes (per event category and resource); pass --assume-complete-logs if it routes every "
               "allowed and denied authorization")
        return Visibility(False, False, why, why)
    # Denials log at INFO (DEBUG before 1.0), never below allowed decisions: a log with any decision shows
    # them; one with lines but no decision at all may come from a node whose authorizer logger is off.
    mute = [s for s in holding if not s.decisions]
    denied_why = (f"{_name(mute)} hold lines but no decision: the authorizer logger may be off there"
                  if mute else None)
    silent = [s for s in holding if not s.allowed]
    if len(silent) == len(holding):
        return Visibility(False, not mute, "no ALLOWED decision was logged in the window: " + _DEBUG_HINT, denied_why)
    if silent:
        return Visibility(False, not mute, f"{len(silent)} of {len(holding)} logs of the window hold no ALLOWED "
                                           f"decision ({_name(silent)}): their allowed use was not logged. "
                                           + _DEBUG_HINT, denied_why)
    return Visibility(True, True)


def _name(sources: list[SourceTally]) -> str:
    more = f" and {len(sources) - 1} more" if len(sources) > 1 else ""
    return sources[0].source + more


# ----------------------------------------------------------------------------------------------
# The review


@dataclass
class BindingUse:
    binding: AclBinding
    origin: Optional[str]
    status: str  # used | unused | unknown
    requests: int = 0  # logged decisions it was the deciding ACL of
    client_requests: int = 0  # of those, decisions a client asked for (not TRACE)
    distinct_requests: int = 0
    first_used: Optional[str] = None
    last_used: Optional[str] = None
    why: Optional[str] = None  # for unknown: what the logs cannot show

    def credit(self, agg: Aggregate) -> None:
        self.requests += agg.count
        self.client_requests += agg.visible
        self.distinct_requests += 1
        if agg.first_seen and (self.first_used is None or agg.first_seen < self.first_used):
            self.first_used = agg.first_seen
        if agg.last_seen and (self.last_used is None or agg.last_seen > self.last_used):
            self.last_used = agg.last_seen


@dataclass
class PrincipalSeen:
    principal: str
    status: str  # seen | unseen | unknown
    bindings: int  # bindings of the ACL set naming it
    requests: int = 0
    last_seen: Optional[str] = None
    why: Optional[str] = None


@dataclass
class UnusedReport:
    bindings: list[BindingUse]
    principals: list[PrincipalSeen]
    visibility: Visibility
    evidence: Evidence
    decisions: int  # logged decisions in the window
    distinct_requests: int
    first_seen: Optional[str]  # the window the logs actually cover
    last_seen: Optional[str]
    disagreements: int = 0  # distinct requests the ACL set decides otherwise than the brokers logged
    disagreement_examples: list[dict] = field(default_factory=list)
    undecidable: int = 0
    #: distinct logged requests the ACL set decides otherwise once every unused binding is removed
    #: (None: nothing is unused); 0 is the proof that dropping them changes no decision of the window
    changed_without_unused: Optional[int] = None
    warnings: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for b in self.bindings if b.status == status)


def review_unused(aggs: dict[tuple, Aggregate], bindings: Sequence[AclBinding], origins: Sequence[str],
                  settings: BrokerSettings, evidence: Evidence, assume_complete: bool = False) -> UnusedReport:
    """Each binding's use by the logged requests in `aggs` (decided by the engine on `bindings` with the
    broker's `settings`), the principals of the ACL set never seen, and what the logs can show."""
    seen_vis = visibility(evidence, assume_complete)
    uses: dict[AclBinding, BindingUse] = {}
    for i, b in enumerate(bindings):
        if b not in uses:
            uses[b] = BindingUse(b, origins[i] if i < len(origins) else None, "unused")
    verdicts = decide(aggs, StandardAuthorizer(list(bindings), settings))
    report = UnusedReport([], [], seen_vis, evidence, 0, len(aggs), None, None)
    for key, agg in aggs.items():
        report.decisions += agg.count
        _widen_window(report, agg)
        verdict = verdicts[key]
        if verdict.decision == "UNDECIDABLE":
            report.undecidable += 1
            continue
        if verdict.acl is not None and verdict.acl in uses:
            uses[verdict.acl].credit(agg)
        logged = agg.logged
        if logged != "MIXED" and logged != verdict.decision:
            report.disagreements += 1
            if len(report.disagreement_examples) < 10:
                report.disagreement_examples.append(dict(zip(
                    ("principal", "host", "operation", "resource_type", "resource_name"), key),
                    logged=logged, replayed=verdict.decision, rule=verdict.rule, count=agg.count))
    for use in uses.values():
        _settle(use, seen_vis)
    report.bindings = list(uses.values())
    report.principals = _principals(aggs, report.bindings, seen_vis)
    report.changed_without_unused = _changed_without_unused(aggs, verdicts, report.bindings, settings)
    report.warnings = _warnings(report)
    return report


def _changed_without_unused(aggs: dict[tuple, Aggregate], verdicts: dict, uses: list[BindingUse],
                            settings: BrokerSettings) -> Optional[int]:
    """How many distinct logged requests the set decides otherwise without its unused bindings. Only a
    DefaultDeny can change, and only with allow.everyone.if.no.acl.found (a resource left with no ACL
    then allows everyone): a request an ACL decided keeps that ACL (a DENY decides over any ALLOW, so a
    matching DENY among the removed would have decided), a SuperUser or DefaultAllow does not depend on
    the removed ACLs. So those requests alone are replayed (the property tests replay them all)."""
    gone = {u.binding for u in uses if u.status == "unused"}
    if not gone:
        return None
    if not settings.allow_everyone_if_no_acl_found:
        return 0
    kept = [u.binding for u in uses if u.binding not in gone]
    candidates = [k for k, v in verdicts.items() if v.rule == Rule.DEFAULT_DENY]
    after = decide(candidates, StandardAuthorizer(kept, settings))
    return sum(1 for k in candidates if after[k].decision != verdicts[k].decision)


def _widen_window(report: UnusedReport, agg: Aggregate) -> None:
    if agg.first_seen and (report.first_seen is None or agg.first_seen < report.first_seen):
        report.first_seen = agg.first_seen
    if agg.last_seen and (report.last_seen is None or agg.last_seen > report.last_seen):
        report.last_seen = agg.last_seen


def _settle(use: BindingUse, vis: Visibility) -> None:
    if use.requests:
        use.status = "used"
        return
    allow = use.binding.permission is AclPermissionType.ALLOW
    visible, why = (vis.allowed, vis.allowed_why) if allow else (vis.denied, vis.denied_why)
    use.status = "unused" if visible else "unknown"
    use.why = None if visible else why


def _principals(aggs: dict[tuple, Aggregate], uses: list[BindingUse], vis: Visibility) -> list[PrincipalSeen]:
    named: dict[str, int] = {}
    for u in uses:
        if u.binding.principal != WILDCARD_PRINCIPAL:
            named[u.binding.principal] = named.get(u.binding.principal, 0) + 1
    out = {p: PrincipalSeen(p, "seen", n) for p, n in named.items()}
    for key, agg in aggs.items():
        p = out.get(key[0])
        if p is not None:
            p.requests += agg.count
            if agg.last_seen and (p.last_seen is None or agg.last_seen > p.last_seen):
                p.last_seen = agg.last_seen
    # A principal shows up only through its logged decisions: whether allowed ones were logged decides.
    for p in out.values():
        if not p.requests:
            p.status = "unseen" if vis.allowed and vis.denied else "unknown"
            p.why = None if p.status == "unseen" else (vis.allowed_why or vis.denied_why)
    return sorted(out.values(), key=lambda p: p.principal)


def _warnings(report: UnusedReport) -> list[str]:
    out = []
    vis = report.visibility
    unknown = report.count("unknown")
    if unknown:
        out.append(f"{unknown} binding(s) with no logged use are 'unknown', not unused: {vis.allowed_why or vis.denied_why}")
    if report.changed_without_unused:
        out.append(f"removing every unused binding would change the decision of {report.changed_without_unused} "
                   "distinct logged request(s) (allow.everyone.if.no.acl.found: a resource left with no ACL allows "
                   "everyone): check a removal with `authz diff`")
    if report.disagreements:
        out.append(f"{report.disagreements} distinct logged request(s) are decided otherwise by this ACL set and these "
                   "broker settings than the brokers logged: the counts say what this ACL set decides; pass the set "
                   "the brokers ran in the window (and their super.users)")
    if report.undecidable:
        out.append(f"{report.undecidable} distinct logged request(s) name an operation or resource type the engine "
                   "cannot decide: left out")
    if report.evidence.untimed_left_out:
        out.append(f"{report.evidence.untimed_left_out} logged decision(s) without a timestamp are left out by "
                   "--since/--until")
    return out
