"""Shadow mode: a proposal judged against live traffic, one logged decision at a time.

:class:`LineDecisions` turns the lines of a followed log into decisions with the readers of a whole
file (:mod:`.auditlog` for log4j authorizer logs, :mod:`.cloudevents` for Confluent events, told by
the first non-blank line as :func:`~.streams.read_stream` tells them), without waiting for the end of
the file: each file the follower reads (a generation) gets its own reader, finished when the next one
starts.

:class:`Shadow` decides each logged decision's request against the proposed set (and the current one,
else the logged decision is the baseline), with :func:`~.replay.classify` over a one-line aggregate,
so that a decision is "newly denied" or "newly allowed" exactly when a replay of that line would say
so; each distinct request is decided once (a bounded cache). It keeps the running summary.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from kafka_authz_cli.acl import StandardAuthorizer
from kafka_authz_cli.whatif.auditlog import (
    SUFFIX_MODE_LINES,
    AuditDecision,
    FileReader,
    Quarantined,
    ReadStats,
    ends_record,
)
from kafka_authz_cli.whatif.causes import cause_of
from kafka_authz_cli.whatif.cloudevents import EventReader, looks_like_events
from kafka_authz_cli.whatif.replay import (
    Aggregate,
    RequestKey,
    Verdict,
    classify,
    decide,
    key_of,
    unverified_reason,
)

#: Distinct requests whose verdicts are kept; past it the cache starts again (a broker's distinct
#: requests are far fewer, but a long run must not grow without bound).
CACHE_SIZE = 200_000


class LineDecisions:
    """The decisions of followed lines, as the whole-file readers would find them.

    `feed(generation, source, lineno, text)` one line at a time; `idle()` when no line came for a
    while (the reader's choice of how records end, which a whole-file read makes from its first 200
    lines, is then made from the lines so far, so that a quiet log is not held back); `finish()` at
    the end. Counts go to `stats`, rejects to `quarantine`."""

    def __init__(self, stats: ReadStats, quarantine: list[Quarantined]):
        self.stats = stats
        self.quarantine = quarantine
        self._generation: int | None = None
        self._reader: FileReader | EventReader | None = None
        self._head: list[tuple[int, str]] = []  # lines held until the reader is chosen
        self._source = ""

    def feed(self, generation: int, source: str, lineno: int, text: str) -> list[AuditDecision]:
        out: list[AuditDecision] = []
        if generation != self._generation:
            out += self.finish()
            self._generation, self._source, self._reader, self._head = generation, source, None, []
            self.stats.files += 1
        if self._reader is not None:
            reader = self._reader
            if (isinstance(reader, FileReader) and not reader.suffix_mode and lineno <= SUFFIX_MODE_LINES
                    and ends_record(text.rstrip("\r"))):
                reader.suffix_mode = True  # chosen early by idle(): a whole-file read would have seen this line
            return out + self._reader.feed(lineno, text)
        self._head.append((lineno, text))
        first = next((t for _, t in self._head if t.strip()), None)
        if first is not None and looks_like_events(first):
            return out + self._start(EventReader(self._source, self.stats, self.quarantine))
        if ends_record(text.rstrip("\r")):
            return out + self._start(FileReader(self._source, self.stats, self.quarantine, True))
        if len(self._head) >= SUFFIX_MODE_LINES:
            return out + self._start(FileReader(self._source, self.stats, self.quarantine, False))
        return out

    def idle(self) -> list[AuditDecision]:
        if self._reader is None and self._head:
            return self._start(FileReader(self._source, self.stats, self.quarantine, False))
        return []

    def finish(self) -> list[AuditDecision]:
        out = self.idle()
        if self._reader is not None:
            self._reader.finish()
            self._reader = None
        return out

    def _start(self, reader) -> list[AuditDecision]:
        self._reader = reader
        out: list[AuditDecision] = []
        for lineno, text in self._head:
            out += reader.feed(lineno, text)
        self._head = []
        return out


@dataclass
class ShadowChange:
    """One logged decision the proposal would change."""

    kind: str  # newly_denied / newly_allowed
    time: str | None
    principal: str
    host: str
    operation: str
    resource_type: str
    resource_name: str
    request: str | None
    logged: str  # the decision the broker logged
    before: str  # the baseline: the logged decision, or the current set's
    after: str
    before_rule: str | None
    after_rule: str | None
    cause: str  # the binding (or settings) change that causes it, in words (whatif/causes.py)
    client_visible: bool
    source: str
    occurrence: int  # the how-manieth change of this request (and kind) this is

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ShadowSummary:
    """The running totals."""

    decisions: int = 0
    distinct_requests: int = 0
    newly_denied: int = 0  # decisions
    newly_allowed: int = 0
    newly_denied_requests: int = 0  # distinct requests
    newly_allowed_requests: int = 0
    visible_newly_denied: int = 0  # client-visible (not TRACE) decisions newly denied: what --fail-on counts
    baseline: str = "logged"
    logged_allowed: int = 0  # decisions logged ALLOWED: without a current set, the only ones that can be newly denied

    @property
    def unverified(self) -> str | None:
        """Why what was followed could not have shown a decision newly denied (as a replay says it), or None."""
        return unverified_reason(self.decisions, self.baseline, self.logged_allowed)

    def as_dict(self) -> dict:
        return dict(asdict(self), unverified=self.unverified)


@dataclass
class Shadow:
    """`feed(decision)` gives the change it would make, or None; `summary` is kept as it goes."""

    proposed: StandardAuthorizer
    current: StandardAuthorizer | None = None
    cache_size: int = CACHE_SIZE
    summary: ShadowSummary = field(default_factory=ShadowSummary)

    def __post_init__(self):
        self.summary.baseline = "current" if self.current is not None else "logged"
        self._verdicts: dict[RequestKey, tuple[Verdict, Verdict | None]] = {}
        self._seen: set[RequestKey] = set()
        self._changed: dict[tuple[RequestKey, str], int] = {}

    def verdicts(self, key: RequestKey) -> tuple[Verdict, Verdict | None]:
        """(proposed, current or None) of one request, decided once."""
        got = self._verdicts.get(key)
        if got is None:
            if len(self._verdicts) >= self.cache_size:
                self._verdicts.clear()
            after = decide([key], self.proposed)[key]
            before = decide([key], self.current)[key] if self.current is not None else None
            got = self._verdicts[key] = (after, before)
        return got

    def feed(self, d: AuditDecision) -> ShadowChange | None:
        s = self.summary
        s.decisions += 1
        s.logged_allowed += d.decision == "ALLOWED"
        key = key_of(d)
        if key not in self._seen and len(self._seen) < self.cache_size * 10:
            self._seen.add(key)
            s.distinct_requests += 1
        after, before = self.verdicts(key)
        agg = Aggregate()
        agg.add(d)
        kind, before_decision, before_rule = classify(agg, after, before)
        if kind is None:
            return None
        n = self._changed.get((key, kind), 0) + 1
        if len(self._changed) < self.cache_size * 10 or n > 1:
            self._changed[(key, kind)] = n
        if n == 1:
            setattr(s, f"{kind}_requests", getattr(s, f"{kind}_requests") + 1)
        setattr(s, kind, getattr(s, kind) + 1)
        if kind == "newly_denied" and d.client_visible:
            s.visible_newly_denied += 1
        cause, _ = cause_of(kind, d.principal, before_rule, after.rule)
        return ShadowChange(kind, d.timestamp, d.principal, d.host, d.operation, d.resource_type, d.resource_name,
                            d.request, d.decision, before_decision, after.decision, before_rule, after.rule, cause,
                            d.client_visible, d.source, n)
