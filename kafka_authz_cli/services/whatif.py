"""`authz whatif`: audit logs replayed against a proposed ACL set, in-process or as a Spark job, and
logs read once into an index that later replays answer from.

:func:`replay` takes a :class:`ReplayRequest`: it loads the ACL sets and the broker settings of its
:class:`Proposal`, reads the logs (or a topic, or the indexes) and returns a :class:`Replayed`, the
line accounting, the quarantine and the report; :func:`index` takes an :class:`IndexRequest` and adds
a run to an index. Stdin is a binary stream the caller hands over (read only when `-` is among the
logs); long work is shown through the context managers of :class:`ProgressHooks`. A Spark job runs
in the session the Spark adapter starts and stops (:func:`~kafka_authz_cli.whatif.spark.job_session`);
Spark's failures arrive as one-line :class:`~kafka_authz_cli.whatif.spark.SparkFailure` errors.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, ContextManager, Iterator, Mapping, Optional, Sequence, Union

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.errors import AuthzError, InputError, OptionError
from kafka_authz_cli.services.acl_sources import acl_set_from, load_source
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.whatif import (
    AuditDecision,
    Index,
    LinesRead,
    Quarantined,
    ReadStats,
    Replayed,
    WhatIfReport,
    aggregate,
    aggregate_hourly,
    check_log_file,
    check_not_indexed,
    commit_run,
    expand_paths,
    file_holds_events,
    fingerprint,
    new_run_id,
    no_decision_lines,
    no_log_found,
    open_checked,
    open_index,
    quarantined,
    read_records,
    read_stream,
    replay_aggregates,
    skipped_warning,
    sort_out,
    staging_dir,
    write_hourly_local,
)
from kafka_authz_cli.whatif.spark import SparkOptions


def _no_progress(*_args) -> ContextManager[None]:
    return nullcontext()


@dataclass
class ProgressHooks:
    """How the caller shows long work. `reading(total_bytes)` is entered while logs are read in-process
    and gives a function called with the size of each chunk read (or None); `spark()` is entered from
    before Spark starts until it stops and gives a function called with (phase, tasks done, tasks of
    the phase), or None."""

    reading: Callable[[int], ContextManager[Optional[Callable[[int], None]]]] = _no_progress
    spark: Callable[[], ContextManager[Optional[Callable[[str, int, int], None]]]] = _no_progress


@dataclass(frozen=True)
class TopicSource:
    """Audit-log events read from a topic (`--logs-topic`), bounded: up to the end offsets taken at the
    start (`until_end`) and/or `max_events`; `command_config` and `timeout` as for a cluster: source."""

    topic: str
    bootstrap_server: str
    command_config: Optional[Path] = None
    max_events: Optional[int] = None
    until_end: bool = False


@dataclass
class Indexed:
    """The run an index gained, and the index with it."""

    run_id: Optional[str]  # None: --append found nothing new
    stats: ReadStats  # this run's lines
    runs: int
    total: ReadStats  # the whole index's lines
    #: --append: the files left out, and why (already indexed, renamed or compressed since)
    skipped: list[str] = field(default_factory=list)

    def document(self, index: Path) -> dict:
        """`whatif index --format json`; ``index``: the index directory, as it was given."""
        return {"index": str(index), "run": self.run_id, "runs": self.runs, "this_run": self.stats.as_dict(),
                "index_total": self.total.as_dict(), "skipped": self.skipped}


@dataclass(frozen=True)
class Proposal:
    """The proposed ACL set and the baseline it is judged against (`current`: a file, or
    cluster:HOST:PORT read live with `command_config` and `timeout`; None: the logged decisions), how
    both are read, and the broker settings they decide with."""

    proposed: Path
    current: Optional[Union[Path, str]] = None
    acls_format: Optional[str] = None
    #: the ACL sets' format's reading options (``--option KEY=VALUE``)
    acls_options: Optional[Mapping[str, str]] = None
    super_users: Optional[str] = None
    allow_everyone: Optional[bool] = None
    broker_config: Optional[Path] = None
    command_config: Optional[Path] = None
    timeout: float = 10.0


@dataclass(frozen=True)
class ReplayRequest:
    """`authz whatif`: the `proposal` judged against `logs` (files, directories, globs, `-` for stdin;
    log4j authorizer logs or Confluent audit-log events, told apart per file), the events of a `topic`,
    or `indexes` (hours from `since`, up to `until`, as :func:`kafka_authz_cli.whatif.hour_bound` gives
    them; in-process, answered incrementally when that is exact, see whatif/incremental.py, unless
    `full`). In-process, or on Spark with `spark`."""

    proposal: Proposal
    logs: tuple[str, ...] = ()
    topic: Optional[TopicSource] = None
    indexes: tuple[Path, ...] = ()
    since: Optional[str] = None
    until: Optional[str] = None
    full: bool = False
    spark: Optional[SparkOptions] = None


@dataclass(frozen=True)
class IndexRequest:
    """`authz whatif index`: `logs` read once into the index at `out` (created, or a run is added); with
    `append`, only what is new since. In-process, or on Spark with `spark`."""

    logs: tuple[str, ...]
    out: Path
    append: bool = False
    spark: Optional[SparkOptions] = None


@dataclass
class DecisionStream(LinesRead):
    """The decisions of logs read in this process, streamed: `stats` and `quarantine` fill as
    `decisions` is consumed."""

    decisions: Iterator[AuditDecision]


# ----------------------------------------------------------------------------------------------
# The two commands


def replay(request: ReplayRequest, *, stdin: Optional[BinaryIO] = None,
           progress: Optional[ProgressHooks] = None) -> Replayed:
    """Replay `request`: with its proposal's `current` as the baseline, else the logged decisions."""
    progress = progress or ProgressHooks()
    _check_topic(request.topic, request.spark)
    p = request.proposal
    settings = broker_settings(p.super_users, p.allow_everyone, p.broker_config)
    proposed_acls = load_source(p.proposed, p.acls_format, options=p.acls_options).bindings
    current_set = (acl_set_from(p.current, p.acls_format, p.command_config, p.timeout, p.acls_options)
                   if p.current is not None else None)
    if request.topic is not None:
        result = replay_topic(request.topic, proposed_acls, current_set, settings, p.timeout)
    elif request.indexes:
        result = _replay_indexes(request, proposed_acls, current_set, settings, progress)
    else:
        with spooled_logs(request.logs, stdin) as (files, names, not_logs):
            if request.spark is not None:
                refuse_events_on_spark(files, names)
                result = replay_spark(files, names, proposed_acls, current_set, settings, request.spark, progress)
            else:
                result = replay_local(files, names, proposed_acls, current_set, settings, progress)
        note_skipped(result.stats, not_logs)
        _warn_no_decisions(result.stats)
    stats = result.stats
    if not stats.balanced:  # pragma: no cover - the reader accounts for every line
        raise AuthzError(f"internal error: {stats.lines} lines read but only "
                         f"{stats.decision_lines + stats.non_decision_lines + stats.quarantined_lines} accounted for")
    return result


def _replay_indexes(request: ReplayRequest, proposed_acls, current_set, settings: BrokerSettings,
                    progress: ProgressHooks) -> Replayed:
    indexes, stats = open_checked(list(request.indexes))
    quarantine = quarantined(indexes)
    if request.spark is not None:
        report = replay_index_spark(indexes, request.since, request.until, proposed_acls, current_set, settings,
                                    request.spark, progress)
        return Replayed(stats, quarantine, report)
    done = replay_index_local(indexes, request.since, request.until, proposed_acls, current_set, settings,
                              full=request.full)
    note_untimed(done.report, done.untimed)
    return Replayed(stats, quarantine, done.report, done.note)


def note_untimed(report: WhatIfReport, untimed: int) -> None:
    """The logged decisions without a timestamp that --since/--until left out, in one warning."""
    if untimed:
        report.warnings.append(f"{untimed} logged decision(s) without a timestamp are left out by --since/--until")


def index(request: IndexRequest, *, stdin: Optional[BinaryIO] = None,
          progress: Optional[ProgressHooks] = None) -> Indexed:
    """Read the logs of `request` once into its index. A file already in the index is refused (with
    `append`: skipped, and a file that grew since is indexed from where it was left, see
    whatif/appending.py); nothing is visible until the run is complete."""
    progress = progress or ProgressHooks()
    ix = open_index(request.out, create=True)
    spark = request.spark
    with spooled_logs(request.logs, stdin) as (files, names, not_logs):
        from kafka_authz_cli.whatif.appending import plain_prints

        prints = [dict(fingerprint(f), path=names.get(f, f)) for f in files]
        prints = [dict(p, **plain_prints(f, p)) for f, p in zip(files, prints)]
        if not request.append:
            check_not_indexed(ix, prints)
            return _index_run(ix, files, names, prints, spark, progress, not_logs)
        with _appended(ix, files, prints) as (new_files, new_prints, skipped):
            if not new_files:
                nothing = ReadStats()
                note_skipped(nothing, not_logs)
                return Indexed(None, nothing, len(ix.runs), ix.stats(), skipped)
            done = _index_run(ix, new_files, {**names, **{f: p["path"] for f, p in zip(new_files, new_prints)}},
                              new_prints, spark, progress, not_logs)
            done.skipped = skipped
            return done


class _appended:
    """The files of an --append run: the new ones, and for a file that grew a temp file of its new bytes
    (removed on exit); with what is recorded for each and the files skipped, and why."""

    def __init__(self, ix, files: list[str], prints: list[dict]):
        self.ix, self.files, self.prints = ix, files, prints
        self.tmp: Optional[str] = None

    def __enter__(self):
        from kafka_authz_cli.whatif.appending import plan, write_tail

        new_files: list[str] = []
        new_prints: list[dict] = []
        skipped: list[str] = []
        for planned in plan(self.files, self.prints, self.ix.runs):
            if planned.why is not None:
                skipped.append(f"{planned.path}: {planned.why}")
                continue
            path = planned.path
            if planned.offset:
                self.tmp = self.tmp or tempfile.mkdtemp(prefix="authz-append-")
                path = os.path.join(self.tmp, f"{len(new_files)}.log")
                write_tail(planned.path, planned.offset, path)
            assert planned.prints is not None  # a file to index has its prints
            new_files.append(path)
            new_prints.append(planned.prints)
        return new_files, new_prints, skipped

    def __exit__(self, *exc):
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return False


def drop_before(out: Path, before: str) -> list[str]:
    """`whatif index --drop-before DATE`: the days before DATE leave the index (retention)."""
    from kafka_authz_cli.whatif.parquet_index import drop_before as drop

    ix = open_index(out)
    ix.check()
    return drop(ix, before)


def _index_run(ix, files: list[str], names: dict[str, str], prints: list[dict], spark: Optional[SparkOptions],
               progress: ProgressHooks, not_logs: list[dict[str, str]]) -> Indexed:
    run_id = new_run_id()
    staged = staging_dir(ix, run_id)
    try:
        if spark is not None:
            refuse_events_on_spark(files, names)
            read = index_run_spark(files, names, staged, spark, progress)
        else:
            read = index_run_local(files, names, staged, progress)
        note_skipped(read.stats, not_logs)  # kept in the run's accounting: answers from the index say it too
        commit_run(ix, run_id, staged, prints, read.stats, read.quarantine)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    _warn_no_decisions(read.stats)  # after the commit: said for this run, not kept in the index
    return Indexed(run_id, read.stats, len(ix.runs), ix.stats())


# ----------------------------------------------------------------------------------------------
# The logs


class spooled_logs:
    """The files `logs` name, each once, the names authz reports them by, and the files found in a
    directory or by a glob that were skipped being no log ({"file", "reason"} each; a file named
    itself that is no log is refused when it is read). `-` among them: `stdin` is copied to a private
    temp file (memory flat; Spark and fingerprints need a file), named <stdin> in what authz reports,
    and removed on exit."""

    def __init__(self, logs: Sequence[str], stdin: Optional[BinaryIO]):
        self.logs = logs
        self.stdin = stdin
        self.tmp: Optional[str] = None

    def __enter__(self) -> tuple[list[str], dict[str, str], list[dict[str, str]]]:
        names: dict[str, str] = {}
        files: list[str] = []
        for entry in self.logs:
            if entry != "-" and not expand_paths([entry]):
                raise InputError("no log files matched " + entry)
        if "-" in self.logs:
            if self.stdin is None:
                raise InputError("--logs - reads stdin, and there is none")
            self.tmp = tempfile.mkdtemp(prefix="authz-stdin-")
            path = os.path.join(self.tmp, "stdin.log")
            with open(path, "wb") as fh:
                shutil.copyfileobj(self.stdin, fh, 1 << 20)
            names[path] = "<stdin>"
            files.append(path)
        files += expand_paths([e for e in self.logs if e != "-"])
        for f in files:
            if not os.path.isfile(f):
                raise InputError("no such file", f)
        seen, unique = set(), []
        for f in files:  # the same file named twice is read once
            real = os.path.realpath(f)
            if real not in seen:
                seen.add(real)
                unique.append(f)
        return self._sorted_out(unique, names)

    def _sorted_out(self, files: list[str], names: dict[str, str]):
        """Files found in a directory or by a glob (and not also named) that are no log are left out."""
        named = {os.path.realpath(e) for e in self.logs if e != "-" and os.path.isfile(e) and not _is_glob(e)}
        found = [f for f in files if f not in names and os.path.realpath(f) not in named]
        if not found:
            return files, names, []
        kept, skipped = sort_out(found, names)
        if not kept and len(found) == len(files):  # nothing left to read: as a single file that is no log
            raise no_log_found(skipped, ", ".join(e for e in self.logs if e != "-"))
        dropped = set(found) - set(kept)
        return [f for f in files if f not in dropped], names, skipped

    def __exit__(self, *exc):
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return False


def _is_glob(entry: str) -> bool:
    return any(c in entry for c in "*?[")


def note_skipped(stats: ReadStats, skipped: list[dict[str, str]]) -> None:
    """The files skipped as no log, in the line accounting and in one warning."""
    stats.skipped_files = list(skipped)
    warning = skipped_warning(skipped)
    if warning is not None:
        stats.warnings.insert(0, warning)


def _warn_no_decisions(stats: ReadStats) -> None:
    warning = no_decision_lines(stats)
    if warning is not None:
        stats.warnings.append(warning)


def refuse_events_on_spark(files: list[str], names: dict[str, str]) -> None:
    """The Spark job reads log4j authorizer logs only: a file that is plainly no log (as the in-process
    reader refuses it) and a file of Confluent audit-log events are refused before it starts."""
    for f in files:
        check_log_file(f, names.get(f, f))
    events = [names.get(f, f) for f in files if file_holds_events(f)]
    if events:
        raise OptionError(f"{events[0]}{f' (and {len(events) - 1} more)' if len(events) > 1 else ''} starts "
                          "with '{': JSON, read as Confluent audit-log events, which the Spark job does not read "
                          "(it reads log4j authorizer logs): replay them without --spark (in-process, streamed)",
                          "--spark")


def _check_topic(topic: Optional[TopicSource], spark: Optional[SparkOptions]) -> None:
    if topic is None:
        return
    if spark is not None:
        raise OptionError("--logs-topic is read in-process: drop --spark", "--spark")
    if topic.max_events is None and not topic.until_end:
        raise OptionError("a topic never ends: give --until-end (read up to the end offsets at the start) "
                          "and/or --max-events N", "--logs-topic")
    if topic.max_events is not None and topic.max_events < 1:
        raise OptionError(f"must be at least 1, got {topic.max_events}", "--max-events")


def replay_topic(topic: TopicSource, proposed_acls, current_set, settings: BrokerSettings, timeout: float) -> Replayed:
    """The audit-log events of a topic, consumed and decided in this process."""
    from kafka_authz_cli.acl import StandardAuthorizer
    from kafka_authz_cli.cluster import TopicRead, topic_records

    stats, read = ReadStats(), TopicRead()
    quarantine: list[Quarantined] = []
    records = topic_records(topic.bootstrap_server, topic.topic, topic.command_config, timeout,
                            max_events=topic.max_events, until_end=topic.until_end, read=read)
    aggs = aggregate(read_records(records, topic.topic, stats, quarantine))
    if read.missing:
        stats.warnings.append(f"{topic.topic}: stopped after {timeout:g}s without a record, {read.missing} "
                              "record(s) short of the end offsets taken at the start")
    elif topic.max_events is not None and read.records < topic.max_events and not topic.until_end:
        stats.warnings.append(f"{topic.topic}: {read.records} record(s), fewer than --max-events "
                              f"{topic.max_events} ({read.reason})")
    proposed_authz = StandardAuthorizer(proposed_acls, settings)
    current_authz = StandardAuthorizer(current_set.bindings, settings) if current_set is not None else None
    return Replayed(stats, quarantine, replay_aggregates(aggs, proposed_authz, current_authz))


def read_logs_local(files: list[str], names: dict[str, str], on_bytes=None) -> DecisionStream:
    """In-process reading, streamed. `on_bytes` gets every chunk size."""
    stats = ReadStats()
    quarantine: list[Quarantined] = []

    def decisions():
        for f in files:
            with open(f, "rb") as fh:
                yield from read_stream(fh, names.get(f, f), stats, quarantine, on_bytes)
    return DecisionStream(stats, quarantine, decisions())


# ----------------------------------------------------------------------------------------------
# In-process


def replay_local(files: list[str], names: dict[str, str], proposed_acls, current_set, settings: BrokerSettings,
                 progress: Optional[ProgressHooks] = None) -> Replayed:
    """The logs, read and decided in this process."""
    from kafka_authz_cli.acl import StandardAuthorizer

    progress = progress or ProgressHooks()
    with progress.reading(_total_bytes(files)) as advance:
        read = read_logs_local(files, names, advance)
        aggs = aggregate(read.decisions)
    proposed_authz = StandardAuthorizer(proposed_acls, settings)
    current_authz = StandardAuthorizer(current_set.bindings, settings) if current_set is not None else None
    return Replayed(read.stats, read.quarantine, replay_aggregates(aggs, proposed_authz, current_authz))


def index_run_local(files: list[str], names: dict[str, str], staged: Path,
                    progress: Optional[ProgressHooks] = None) -> LinesRead:
    """Read the logs in this process into a run's per (request, hour) files under `staged`."""
    progress = progress or ProgressHooks()
    with progress.reading(_total_bytes(files)) as advance:
        read = read_logs_local(files, names, advance)
        hourly = aggregate_hourly(read.decisions)
    write_hourly_local(staged, hourly)
    return LinesRead(read.stats, read.quarantine)


def replay_index_local(indexes: list[Index], since, until, proposed_acls, current_set, settings: BrokerSettings,
                       full: bool = False, baseline=None):
    """An Answer (report, decisions without a time left out by since/until, how it was answered) from
    indexes in this process: incrementally against a baseline (`baseline`, or the one stored in the
    cache directory) when that is exact, else every request, in slices of bounded memory."""
    from kafka_authz_cli import __version__
    from kafka_authz_cli.acl import StandardAuthorizer
    from kafka_authz_cli.whatif import answer_from_index

    proposed = StandardAuthorizer(proposed_acls, settings)
    current = StandardAuthorizer(current_set.bindings, settings) if current_set is not None else None
    return answer_from_index(indexes, since, until, proposed, current, full=full, cache_dir=baseline_cache_dir(),
                             version=__version__, baseline=baseline)


def baseline_cache_dir() -> Optional[Path]:
    """Where whatif keeps the baselines of incremental answers: $AUTHZ_CACHE_DIR, else
    $XDG_CACHE_HOME/authz/whatif-baselines (~/.cache by default); AUTHZ_CACHE_DIR=off keeps none."""
    explicit = os.environ.get("AUTHZ_CACHE_DIR")
    if explicit == "off":
        return None
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "authz" / "whatif-baselines"


def _total_bytes(files: list[str]) -> int:
    return sum(os.path.getsize(f) for f in files)


# ----------------------------------------------------------------------------------------------
# On Spark


def _spark_paths(files: list[str], names: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """Absolute paths for Spark, and the names authz reports them by."""
    return [os.path.abspath(f) for f in files], {os.path.abspath(f): names.get(f, f) for f in files}


def replay_spark(files: list[str], names: dict[str, str], proposed_acls, current_set, settings: BrokerSettings,
                 opts: SparkOptions, progress: Optional[ProgressHooks] = None) -> Replayed:
    """The logs, read and decided by a Spark job."""
    from kafka_authz_cli.whatif import spark as spark_job

    paths, shown = _spark_paths(files, names)
    current = (current_set.bindings, settings) if current_set is not None else None
    check = spark_job.source_check(paths, opts)
    with (progress or ProgressHooks()).spark() as bar, spark_job.job_session(opts) as session:
        return spark_job.run(session, paths, (proposed_acls, settings), current, progress=bar,
                             partition_bytes=opts.partition_bytes, names=shown, check=check)


def index_run_spark(files: list[str], names: dict[str, str], staged: Path, opts: SparkOptions,
                    progress: Optional[ProgressHooks] = None) -> LinesRead:
    """Read the logs with a Spark job into a run's per (request, hour) files under `staged`."""
    from kafka_authz_cli.whatif import spark as spark_job

    paths, shown = _spark_paths(files, names)
    tmp = os.path.join(staged, "spark")
    check = spark_job.source_check(paths, opts)
    with (progress or ProgressHooks()).spark() as bar, spark_job.job_session(opts) as session:
        read = spark_job.index_logs(session, paths, tmp, progress=bar, partition_bytes=opts.partition_bytes,
                                    names=shown, check=check)
    for d in Path(tmp).glob("day=*"):
        os.replace(d, Path(staged) / d.name)
    return read


def replay_index_spark(indexes: list[Index], since, until, proposed_acls, current_set, settings: BrokerSettings,
                       opts: SparkOptions, progress: Optional[ProgressHooks] = None) -> WhatIfReport:
    """The report answered from indexes by a Spark job (the decisions without a time that since/until
    left out said in a warning)."""
    from kafka_authz_cli.whatif import spark as spark_job

    current = (current_set.bindings, settings) if current_set is not None else None
    roots = [(str(ix.root), [r["id"] for r in ix.runs]) for ix in indexes]
    with (progress or ProgressHooks()).spark() as bar, spark_job.job_session(opts) as session:
        done = spark_job.report_from_index(session, roots, since, until, (proposed_acls, settings), current,
                                           progress=bar)
    note_untimed(done.report, done.untimed)
    return done.report
