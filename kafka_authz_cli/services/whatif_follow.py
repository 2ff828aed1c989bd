"""`authz whatif --follow` / `--follow-topic`: shadow mode, a proposal judged against live traffic.

:func:`follow` takes a :class:`FollowRequest`: it loads the ACL sets and broker settings of its
proposal as a replay does, then follows a live authorizer log (`tail -F`:
:mod:`kafka_authz_cli.whatif.follow`) or a topic of Confluent audit-log events, and hands each logged
decision the proposal would change to the caller's `change` hook as it is read, with the running
summary on `status`. It runs until `stop()` says so (the CLI's Ctrl-C and SIGTERM), or a bound:
`max_seconds` of following, `max_changes` changes reported. Quarantined lines are counted, appended to
`quarantine_file` as they come (JSON lines, as `--out`'s quarantine.jsonl), and the first ones kept
for the summary.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.services.acl_sources import acl_set_from, load_source
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.whatif import Proposal
from kafka_authz_cli.whatif import (
    EventReader,
    Follower,
    LineDecisions,
    Quarantined,
    ReadStats,
    Shadow,
    ShadowChange,
    ShadowSummary,
    why_not_a_log,
)
from kafka_authz_cli.whatif.spark import SparkOptions

#: Quarantined records kept in memory for the summary (all of them go to the quarantine file).
KEPT_QUARANTINE = 20
#: Seconds between two status updates.
STATUS_EVERY = 0.5


@dataclass(frozen=True)
class FollowSource:
    """What is followed: a log file (`log`), or the events of a `topic` on `bootstrap_server`."""

    log: Optional[str] = None
    topic: Optional[str] = None
    bootstrap_server: Optional[str] = None
    command_config: Optional[Path] = None
    from_start: bool = False


@dataclass(frozen=True)
class FollowBounds:
    """When to stop besides `stop()`: after `max_seconds` of following, after `max_changes` reported."""

    max_seconds: Optional[float] = None
    max_changes: Optional[int] = None


@dataclass(frozen=True)
class FollowRequest:
    """`authz whatif --follow` / `--follow-topic`: the `proposal` judged against what `source` logs (each
    distinct request and kind once, or every decision with `every`) until `bounds`; quarantined lines
    appended to `quarantine_file`. With `spark`, `source.log` is a directory followed by Spark
    Structured Streaming: each file new in it is judged whole, as it appears (whatif/spark/streaming.py)."""

    proposal: Proposal
    source: FollowSource
    bounds: FollowBounds = FollowBounds()
    every: bool = False
    quarantine_file: Optional[Path] = None
    spark: Optional[SparkOptions] = None


@dataclass
class FollowHooks:
    """`change(c)` for each change reported; `status(followed)` now and then; `stop()` polled often."""

    change: Callable[[ShadowChange], None]
    status: Optional[Callable[["Followed"], None]] = None
    stop: Callable[[], bool] = lambda: False


@dataclass
class Followed:
    """The running (and at the end, final) state of a follow."""

    source: str
    summary: ShadowSummary
    stats: ReadStats = field(default_factory=ReadStats)
    quarantine: list[Quarantined] = field(default_factory=list)  # the first KEPT_QUARANTINE
    reported: int = 0  # changes handed to `change`
    rotations: int = 0
    truncations: int = 0
    seconds: float = 0.0
    stopped: str = ""  # why it stopped

    def as_dict(self) -> dict:
        s = self.stats
        return {"type": "summary", "source": self.source, **self.summary.as_dict(), "reported": self.reported,
                "lines": s.lines, "decision_lines": s.decision_lines, "non_decision_lines": s.non_decision_lines,
                "quarantined_lines": s.quarantined_lines, "files": s.files, "rotations": self.rotations,
                "truncations": self.truncations, "seconds": round(self.seconds, 3), "stopped": self.stopped,
                "quarantine_examples": [{"source": q.source, "reason": q.reason} for q in self.quarantine],
                "warnings": list(s.warnings)}


def change_record(change: ShadowChange) -> dict:
    """One change as a line of `--follow --format jsonl` (the summary is the last line, `Followed.as_dict`)."""
    return {"type": "change", **change.as_dict()}


def follow(request: FollowRequest, hooks: FollowHooks, *, clock: Callable[[], float] = time.monotonic,
           sleep: Callable[[float], None] = time.sleep, interval: float = 0.2) -> Followed:
    """Follow the source of `request` and report each decision its proposal would change against its
    current set (a file or cluster:HOST:PORT), or the logged decision when there is none. Returns the
    final state."""
    from kafka_authz_cli.acl import StandardAuthorizer

    source, spark, p = request.source, request.spark, request.proposal
    _check(source, request.bounds, spark is not None)
    settings = broker_settings(p.super_users, p.allow_everyone, p.broker_config)
    proposed_authz = StandardAuthorizer(load_source(p.proposed, p.acls_format, options=p.acls_options).bindings,
                                        settings)
    current_authz = None
    if p.current is not None:
        current_authz = StandardAuthorizer(acl_set_from(p.current, p.acls_format, p.command_config, p.timeout,
                                                        p.acls_options).bindings, settings)
    shadow = Shadow(proposed_authz, current_authz)
    state = Followed(source.log or source.topic or "", shadow.summary)
    run = _Run(state, shadow, hooks, request.bounds, request.every, request.quarantine_file, clock)
    try:
        if spark is not None:
            run.follow_spark(source, spark)
        elif source.log is not None:
            run.follow_file(source, sleep, interval)
        else:
            run.follow_topic(source, p.timeout)
    except OSError as exc:  # unreadable (permissions), or replaced by a directory while followed
        raise InputError(exc.strerror or str(exc), source.log or source.topic) from None
    finally:
        run.close()
    return state


#: The first bytes of a file judged for being a log, as a replay judges a file it finds in a directory.
_SNIFF_BYTES = 1 << 20


def _logs_only(rows: list[tuple[str, int, str]], judged: dict[str, bool],
               skipped: list[dict[str, str]]) -> list[tuple[str, int, str]]:
    """The rows of the files that are logs. Spark's file source hands each new file over whole, once:
    a file that is plainly no log (a README dropped beside the rolled logs) is judged on its first
    MiB as a replay of the directory judges it, skipped and named in the summary's one warning."""
    texts: dict[str, list[str]] = {}
    for file, _lineno, text in rows:
        if file not in judged:
            texts.setdefault(file, []).append(text)
    for file, lines in texts.items():
        head, size = [], 0
        for text in lines:
            if size > _SNIFF_BYTES:
                break
            head.append(text)
            size += len(text) + 1
        whole = len(head) == len(lines)
        why = why_not_a_log(("\n".join(head) + "\n")[:_SNIFF_BYTES], whole, file)
        judged[file] = why is None
        if why is not None:
            skipped.append({"file": file, "reason": why})
    return [row for row in rows if judged[row[0]]]


def _check(source: FollowSource, bounds: FollowBounds, on_spark: bool = False) -> None:
    if (source.log is None) == (source.topic is None):
        raise OptionError("follow either a log file (--follow) or a topic (--follow-topic)", "--follow")
    if source.topic is not None and not source.bootstrap_server:
        raise OptionError("--follow-topic needs --bootstrap-server", "--follow-topic")
    if on_spark and source.topic is not None:
        raise OptionError("--follow-topic is followed in-process: drop --spark", "--spark")
    if on_spark and source.log is not None and not os.path.isdir(source.log):
        raise InputError("--follow with --spark takes the directory the brokers' rolled logs land in", source.log)
    if not on_spark and source.log is not None and os.path.isdir(source.log):
        raise InputError("is a directory: --follow takes the one log file the broker writes (a directory of "
                         "rolled files: add --spark)", source.log)
    if bounds.max_seconds is not None and bounds.max_seconds <= 0:
        raise OptionError(f"must be positive, got {bounds.max_seconds:g}", "--max-seconds")
    if bounds.max_changes is not None and bounds.max_changes < 1:
        raise OptionError(f"must be at least 1, got {bounds.max_changes}", "--max-changes")


class _Run:
    """One follow: decisions in, changes and status out, the bounds checked."""

    def __init__(self, state: Followed, shadow: Shadow, hooks: FollowHooks, bounds: FollowBounds, every: bool,
                 quarantine_file: Optional[Path], clock: Callable[[], float]):
        self.state, self.shadow, self.hooks, self.bounds, self.every = state, shadow, hooks, bounds, every
        self.clock = clock
        self.started = self.last_status = clock()
        self.pending: list[Quarantined] = []
        self.qfile = None
        if quarantine_file is not None:
            try:
                self.qfile = open(quarantine_file, "a", encoding="utf-8")
            except OSError as exc:  # said before following starts, not after hours of it
                raise InputError(f"cannot write the quarantine: {exc.strerror}", str(quarantine_file)) from None

    def stop(self) -> bool:
        st, b = self.state, self.bounds
        st.seconds = self.clock() - self.started
        if self.hooks.stop():
            st.stopped = "interrupted"
        elif b.max_changes is not None and st.reported >= b.max_changes:
            st.stopped = f"--max-changes {b.max_changes} reached"
        elif b.max_seconds is not None and st.seconds >= b.max_seconds:
            st.stopped = f"--max-seconds {b.max_seconds:g} reached"
        return bool(st.stopped)

    def decisions(self, decisions) -> None:
        for d in decisions:
            change = self.shadow.feed(d)
            if change is not None and (self.every or change.occurrence == 1):
                if self.bounds.max_changes is not None and self.state.reported >= self.bounds.max_changes:
                    continue  # counted in the summary, not reported past the bound
                self.state.reported += 1
                self.hooks.change(change)
        self._quarantined()
        now = self.clock()
        if self.hooks.status is not None and now - self.last_status >= STATUS_EVERY:
            self.last_status = now
            self.state.seconds = now - self.started
            self.hooks.status(self.state)

    def _quarantined(self) -> None:
        for q in self.pending:
            if len(self.state.quarantine) < KEPT_QUARANTINE:
                self.state.quarantine.append(q)
            if self.qfile is not None:
                self.qfile.write(q.json_line() + "\n")
        if self.pending and self.qfile is not None:
            self.qfile.flush()
        self.pending.clear()

    def follow_file(self, source: FollowSource, sleep, interval: float) -> None:
        assert source.log is not None  # _check: a log file, or a topic
        follower = Follower(source.log, from_start=source.from_start, interval=interval, sleep=sleep)
        lines = LineDecisions(self.state.stats, self.pending)
        for batch in follower.follow(self.stop):
            self.state.rotations, self.state.truncations = follower.rotations, follower.truncations
            if not batch:
                self.decisions(lines.idle())
                continue
            self.decisions(d for line in batch
                           for d in lines.feed(line.generation, line.source, line.lineno,
                                               line.text.decode("utf-8", "replace")))
        self.decisions(lines.idle())

    def follow_spark(self, source: FollowSource, opts: SparkOptions) -> None:
        """The new files of a directory, each judged whole as Spark's file source hands it over."""
        import tempfile

        assert source.log is not None  # _check: the directory, with --spark

        from kafka_authz_cli.services.whatif import note_skipped
        from kafka_authz_cli.whatif import spark as spark_job

        lines = LineDecisions(self.state.stats, self.pending)
        generations: dict[str, int] = {}
        judged: dict[str, bool] = {}
        skipped: list[dict[str, str]] = []

        def on_lines(rows) -> None:
            rows = _logs_only(rows, judged, skipped)
            self.decisions(d for file, lineno, text in rows
                           for d in lines.feed(generations.setdefault(file, len(generations)), file, lineno, text))
            self.decisions(lines.idle())

        try:
            with tempfile.TemporaryDirectory(prefix="authz-follow-") as checkpoint, \
                    spark_job.job_session(opts) as session:
                spark_job.follow_directory(session, source.log, on_lines, self.stop, checkpoint=checkpoint,
                                           from_start=source.from_start)
        finally:
            if skipped:
                note_skipped(self.state.stats, skipped)
        self.decisions(lines.finish())

    def follow_topic(self, source: FollowSource, timeout: float) -> None:
        from kafka_authz_cli.cluster import follow_records

        assert source.topic is not None and source.bootstrap_server is not None  # _check: a topic, and its cluster
        stats = self.state.stats
        stats.files += 1
        reader = EventReader(source.topic, stats, self.pending)
        for batch in follow_records(source.bootstrap_server, source.topic, source.command_config, timeout,
                                    from_start=source.from_start, stop=self.stop):
            for where, value in batch:
                if value is None:  # a tombstone: no event
                    stats.lines += 1
                    stats.non_decision_lines += 1
                    continue
                self.decisions(reader.record(value.decode("utf-8", "replace"), where))
            if not batch:
                self.decisions(())
        reader.finish()  # records are whole events: nothing is open, only the skipped kinds are said

    def close(self) -> None:
        self.state.seconds = self.clock() - self.started
        if self.qfile is not None:
            self.qfile.close()
