"""`authz access unused`: each binding's use in a window of audit logs (log files or a whatif index),
bindings never used, principals never seen, and what the logs can show.

Logs are read by whatif's readers into whatif's per-request aggregates (the files named as
`authz whatif --logs` takes them: files, directories, globs, `-` for stdin), or answered from a
whatif index; :mod:`kafka_authz_cli.review.unused` decides and judges.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import BinaryIO, Mapping, Optional

from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.review import Evidence, SourceTally, UnusedReport, in_window, review_unused
from kafka_authz_cli.services.acl_sources import acl_set_from
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.whatif import ProgressHooks, note_skipped, spooled_logs
from kafka_authz_cli.whatif import (
    Quarantined,
    ReadStats,
    aggregate,
    aggregates_from_table,
    hour_bound,
    no_decision_lines,
    open_checked,
    quarantined,
    read_hourly_local,
    read_stream,
)

EVENTS_FORMAT = "CONFLUENT-CLOUDEVENT"


@dataclass
class UnusedResult:
    """The review, and every log line accounted for (read, not a decision, or quarantined)."""

    report: UnusedReport
    stats: ReadStats
    quarantine: list[Quarantined]
    since: Optional[str]  # the window asked for, as hours (YYYY-MM-DD HH), or None
    until: Optional[str]


def unused(acls: Path | str, *, logs: Optional[list[str]] = None, indexes: Optional[list[Path]] = None,
           since: Optional[str] = None, until: Optional[str] = None, acls_format: Optional[str] = None,
           acls_options: Optional[Mapping[str, str]] = None, super_users: Optional[str] = None,
           allow_everyone: Optional[bool] = None, broker_config: Optional[Path] = None,
           assume_complete: bool = False, command_config: Optional[Path] = None, timeout: float = 10.0,
           stdin: Optional[BinaryIO] = None, progress: Optional[ProgressHooks] = None) -> UnusedResult:
    """Review the bindings of `acls` (a file, or cluster:HOST:PORT read live with `command_config`)
    against `logs` (or `indexes`) within [since, until) (hours, `YYYY-MM-DD[THH]`, local time as log4j
    writes it)."""
    if bool(logs) == bool(indexes):
        raise OptionError("give either --logs (audit-log files) or --index (a whatif index)", "--logs")
    since_h, until_h = hour_bound(since, "--since"), hour_bound(until, "--until")
    if since_h is not None and until_h is not None and since_h >= until_h:
        raise OptionError(f"the window is empty: --since {since} is not before --until {until}", "--since")
    settings = broker_settings(super_users, allow_everyone, broker_config)
    acl_set = acl_set_from(acls, acls_format, command_config, timeout, acls_options)
    evidence = Evidence()
    if indexes:
        stats, quarantine, aggs = _from_indexes(indexes, since_h, until_h, evidence)
    else:
        stats, quarantine, aggs = _from_logs(logs or [], stdin, since_h, until_h, evidence, progress)
        nothing = no_decision_lines(stats)
        if nothing is not None:  # every binding would be reported unused
            raise InputError(f"{nothing} (nothing to tell used bindings from unused ones)")
    report = review_unused(aggs, acl_set.bindings, acl_set.origins, settings, evidence, assume_complete)
    if stats.quarantined_lines:
        report.warnings.append(f"{stats.quarantined_lines} log line(s) could not be read as decisions and were kept "
                               "aside (quarantined): their requests are not counted")
    report.warnings += stats.warnings + _coverage(report, since_h, until_h)
    return UnusedResult(report, stats, quarantine, since_h, until_h)


def _coverage(report: UnusedReport, since: Optional[str], until: Optional[str]) -> list[str]:
    """Where the logs cover less than the window asked for: 'unused' holds for the part covered only."""
    first, last = report.first_seen, report.last_seen
    if first is None or last is None:
        return [] if since is None and until is None else ["no timed decision falls in the window asked for"]
    short = []
    if since is not None and first[:13] > since:
        short.append(f"start at {first} (asked from {since}:00)")
    if until is not None:
        end = (datetime.strptime(until, "%Y-%m-%d %H") - timedelta(hours=1)).strftime("%Y-%m-%d %H")
        if last[:13] < end:
            short.append(f"end at {last} (asked up to {until}:00)")
    if not short:
        return []
    return ["the logs " + " and ".join(short) + ": what is unused is unused in the part they cover"]


def _from_logs(logs: list[str], stdin: Optional[BinaryIO], since: Optional[str], until: Optional[str],
               evidence: Evidence, progress: Optional[ProgressHooks]):
    progress = progress or ProgressHooks()
    stats = ReadStats()
    quarantine: list[Quarantined] = []
    with spooled_logs(logs, stdin) as (files, names, not_logs):
        note_skipped(stats, not_logs)
        with progress.reading(sum(os.path.getsize(f) for f in files)) as advance:

            def decisions():
                for f in files:
                    tally = SourceTally(names.get(f, f))
                    evidence.sources.append(tally)
                    before = stats.lines
                    with open(f, "rb") as fh:
                        yield from in_window(read_stream(fh, tally.source, stats, quarantine, advance), tally,
                                             evidence, since, until)
                    tally.lines = stats.lines - before

            aggs = aggregate(decisions())
    return stats, quarantine, aggs


def _from_indexes(paths: list[Path], since: Optional[str], until: Optional[str], evidence: Evidence):
    """Aggregates of the window from whatif indexes; each run of an index is one source of evidence
    (its files were indexed together, so a run is as fine-grained as the index knows)."""
    import pyarrow.compute as pc

    indexes, stats = open_checked(paths)
    quarantine = quarantined(indexes)
    table = read_hourly_local(indexes, since, until)
    if since is not None or until is not None:
        whole = read_hourly_local(indexes, None, None)
        evidence.untimed_left_out = pc.sum(whole.filter(pc.is_null(whole["hour_text"]))["count"]).as_py() or 0
    per_run: dict[str, tuple[int, int]] = {}
    if table.num_rows:
        g = table.group_by(["run"], use_threads=False).aggregate([("allowed", "sum"), ("denied", "sum")]).to_pydict()
        per_run = {r: (a, d) for r, a, d in zip(g["run"], g["allowed_sum"], g["denied_sum"])}
        allowed = table.filter(pc.greater(table["allowed"], 0))
        if allowed.num_rows:
            # Per (request, hour) rows: the earliest and latest time a request with an ALLOWED line was seen.
            evidence.note_allowed(pc.min(allowed["first_seen_text"]).as_py())
            evidence.note_allowed(pc.max(allowed["last_seen_text"]).as_py())
    for ix in indexes:
        for run in ix.runs:
            a, d = per_run.get(run["id"], (0, 0))
            run_stats = run["stats"]
            events = EVENTS_FORMAT in run_stats.get("by_format", {})
            # Decisions of the run outside the window (or without a time, when it is bounded): all but these.
            outside = max(run_stats["decisions"] - a - d, 0)
            evidence.sources.append(SourceTally(f"{ix.root} run {run['id']}", events, a, d, outside,
                                                run_stats["lines"]))
    return stats, quarantine, aggregates_from_table(table)


def binding_rows(result: UnusedResult) -> list[dict]:
    return [{**u.binding.as_dict(), "status": u.status, "requests": u.requests, "client_requests": u.client_requests,
             "distinct_requests": u.distinct_requests, "first_used": u.first_used, "last_used": u.last_used,
             "origin": u.origin, "why": u.why} for u in result.report.bindings]


def unused_document(result: UnusedResult) -> dict:
    """`authz access unused --format json` (version 1)."""
    r, stats = result.report, result.stats
    vis, ev = r.visibility, r.evidence
    return {
        "version": 1,
        "window": {"since": result.since, "until": result.until, "first_seen": r.first_seen, "last_seen": r.last_seen,
                   "decisions_outside": ev.outside_window, "untimed_left_out": ev.untimed_left_out},
        "logs": {"lines": stats.lines, "decision_lines": stats.decision_lines, "decisions": r.decisions,
                 "distinct_requests": r.distinct_requests, "quarantined_lines": stats.quarantined_lines,
                 "quarantine_examples": [{"source": q.source, "reason": q.reason} for q in result.quarantine[:10]],
                 "by_format": dict(sorted(stats.by_format.items())), "skipped_files": stats.skipped_files,
                 "sources": [{"source": s.source, "events": s.events, "allowed": s.allowed, "denied": s.denied}
                             for s in ev.sources]},
        "visibility": {"allowed": {"shown": vis.allowed, "why": vis.allowed_why, "first_logged": ev.first_allowed,
                                   "last_logged": ev.last_allowed},
                       "denied": {"shown": vis.denied, "why": vis.denied_why}},
        "summary": {"bindings": len(r.bindings), "used": r.count("used"), "unused": r.count("unused"),
                    "unknown": r.count("unknown"),
                    "principals_unseen": sum(1 for p in r.principals if p.status == "unseen")},
        "bindings": binding_rows(result),
        "principals": [{"principal": p.principal, "status": p.status, "bindings": p.bindings, "requests": p.requests,
                        "last_seen": p.last_seen, "why": p.why} for p in r.principals],
        "removal": {"unused": r.count("unused"), "changed_decisions": r.changed_without_unused},
        "disagreements": {"count": r.disagreements, "examples": r.disagreement_examples},
        "warnings": list(r.warnings),
    }
