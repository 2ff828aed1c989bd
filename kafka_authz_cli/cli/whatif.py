"""`authz whatif`: replay authorizer audit logs against a proposed ACL change."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    AclFormat,
    check_can_write,
    console,
    err_console,
    json_line,
    warn,
    write_json,
    write_output,
)
from kafka_authz_cli.cli.options import (
    AllowEveryone,
    BrokerConfig,
    CommandConfig,
    Index,
    Logs,
    SuperUsers,
    Timeout,
)
from kafka_authz_cli.cli.whatif_follow import FOLLOW_HELP, fail_closed, refuse_shadow_options, shadow
from kafka_authz_cli.cli.whatif_params import WhatIfFormat, WhatIfGate, WhatIfParams
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.services import whatif as whatif_service
from kafka_authz_cli.services import whatif_session as session_service
from kafka_authz_cli.services.whatif import IndexRequest, ProgressHooks, Replayed, SparkOptions
from kafka_authz_cli.whatif import (
    check_out_dir,
    hour_bound,
    render_html,
    report_dict,
    short_rule,
    write_out_dir,
)

# --partition-bytes: smaller splits only add tasks (a negative one made Spark skip most of every file).
MIN_PARTITION_BYTES = 64 << 10


whatif_app = typer.Typer(
    name="whatif", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="Replay audit logs against a proposed ACL change (in-process or PySpark).")
app.add_typer(whatif_app, name="whatif")

EXIT_HELP = ("Exit codes: 0 done; 1 --fail-on newly-denied and some client-visible access would be newly denied; "
             "2 usage or input error, or a Spark failure (said in one line, with what to change); 3 --fail-on "
             "newly-denied and the input could not show a request newly denied (no logged decision read, or, without "
             "--current, none logged ALLOWED): the gate fails closed, unless --allow-unverified.")
INDEX_EXIT_HELP = ("Exit codes: 0 done; 2 usage or input error, or a Spark failure (said in one line, with what to "
                   "change).")


WHATIF_HELP = """Replay Kafka authorizer audit logs (kafka-authorizer.log: every Kafka version's
format, rotated and gzipped files, directories, globs, - for stdin; or Confluent Server audit-log events, CloudEvents JSON
as exported from the confluent-audit-log-events topic, one per line or pretty-printed, told apart by content per
file) against a proposed ACL set, and report
which real accesses it would newly deny or allow: by whom, how often, from which hosts, when, and the
deciding rule before and after. Without --current the logged decision is the baseline; with it,
the current ACL set is, and authz also says how many logged decisions it reproduces. Decisions
logged at TRACE (filtering, authorized-operations) are reported apart from client-visible ones.
Every line is counted: decision, other line, or quarantined (written to --out). A file that is no log at all (an ACL
file, a configuration, a binary file, Markdown, or any text with no decision and mostly lines that are no log record:
judged by its first MiB) is refused saying what it looks like; found in a directory or by a glob, it is skipped, with
one warning naming it and a count in the line accounting. An answer from input that could not show a request newly
denied (no logged decision read, or, without --current, none logged ALLOWED) says it is not verified, and --fail-on
fails closed on it (exit 3) unless --allow-unverified.

--logs-topic TOPIC --bootstrap-server HOST:PORT reads Confluent audit-log events from a topic (from the beginning,
no consumer group, nothing committed; log in with --command-config), bounded: --until-end stops at the end offsets
taken at the start, --max-events N after N records; either stops after --timeout seconds without a record. Each
record is one event, counted as one line. An event's host is its client address (requestMetadata client_address/callerIp/clientAddress),
or 0.0.0.0 when it has none (said in a warning); its time is read in UTC; its principal as logged (Confluent
Cloud's numeric User:123456 ids do not equal the User:sa-... principals of ACLs). Events of other kinds (authentication,
request) and decisions on resources Kafka ACLs do not have (Confluent RBAC: Connector, Subject, Cloud resources)
are counted as other lines, with the reason.

From an index with --current, a proposal is answered incrementally: only the requests on resources an added or
removed ACL matches are decided again, the rest comes from a baseline of the index and the current set computed by
the first answer and kept in $XDG_CACHE_HOME/authz/whatif-baselines (AUTHZ_CACHE_DIR sets another place, =off none).
The answer is the one --full gives; a note on stderr says how it was reached. --interactive keeps the index, the
current set and the baseline in memory and answers again each time the --proposed file is saved (table, or one JSON
object per line with -f json). Without --current (the logged decisions
are the baseline) every request is decided, in slices of bounded memory.

--spark runs the replay as a Spark job (local[*], or --master spark://HOST:PORT, yarn, k8s://...): files are split across tasks, so any size works in a fixed amount of memory. It reads log4j authorizer logs only: Confluent audit-log events (files or --logs-topic) are refused with --spark. 'authz whatif index' reads logs once into an index; --index answers from it (--since/--until pick hours) in seconds.

""" + FOLLOW_HELP + """

""" + EXIT_HELP


@whatif_app.callback(invoke_without_command=True, help=WHATIF_HELP)
def whatif(
    ctx: typer.Context,
    logs: Logs = None,
    proposed: Optional[Path] = typer.Option(None, "--proposed", help="The proposed ACL set (any format, rules files too)."),
    current: Optional[Path] = typer.Option(None, "--current", help="The ACL set the cluster runs today (or "
                                           "cluster:HOST:PORT: read it live, with --command-config)."),
    index: Index = None,
    logs_topic: Optional[str] = typer.Option(None, "--logs-topic", help="Read Confluent audit-log events from this "
                                             "topic instead of --logs (with --bootstrap-server)."),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="HOST:PORT of the cluster holding "
                                                   "--logs-topic or --follow-topic."),
    max_events: Optional[int] = typer.Option(None, "--max-events", min=1, help="With --logs-topic: stop after this many "
                                             "records."),
    until_end: bool = typer.Option(False, "--until-end", help="With --logs-topic: stop at the end offsets taken at the "
                                   "start."),
    since: Optional[str] = typer.Option(None, "--since", help="With --index: from this hour on (YYYY-MM-DD[THH])."),
    until: Optional[str] = typer.Option(None, "--until", help="With --index: up to this hour, excluded (YYYY-MM-DD[THH])."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of the ACL sets (default: detected)."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    spark: bool = typer.Option(False, "--spark/--no-spark", help="Run as a Spark job."),
    master: str = typer.Option("local[*]", "--master", help="Spark master (with --spark)."),
    driver_memory: str = typer.Option("2g", "--driver-memory",
                                      help="Spark driver memory, a JVM size such as 512m or 4g (with --spark)."),
    executor_memory: Optional[str] = typer.Option(None, "--executor-memory", help="Spark executor memory (cluster)."),
    partition_bytes: int = typer.Option(128 << 20, "--partition-bytes", min=MIN_PARTITION_BYTES,
                                        help="Bytes of log per Spark task (with --spark)."),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for whatif.json, Parquet files and the "
                                                           "quarantine."),
    report_html: Optional[Path] = typer.Option(None, "--report", help="A self-contained HTML report."),
    fail_on: Optional[WhatIfGate] = typer.Option(None, "--fail-on", help="Exit 1 when the change newly denies "
                                                 "client-visible traffic; exit 3 when the input could not show it."),
    allow_unverified: bool = typer.Option(False, "--allow-unverified", help="With --fail-on: pass (exit 0) when the "
                                          "input could not show a request newly denied (no logged decision read, "
                                          "or, without --current, none logged ALLOWED) instead of failing closed."),
    fmt: WhatIfFormat = typer.Option(WhatIfFormat.table, "--format", "-f", help="table or json (jsonl: --follow)."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    full: bool = typer.Option(False, "--full", help="With --index: decide every request of the window, not only "
                              "those a changed ACL can touch (the answer is the same; for checking)."),
    interactive: bool = typer.Option(False, "--interactive", "--watch", help="With --index and --current: keep "
                                     "them in memory and answer again each time the --proposed file is saved; "
                                     "Ctrl-C ends."),
    follow: Optional[str] = typer.Option(None, "--follow", metavar="LOGFILE", help="Shadow mode: follow this live "
                                         "authorizer log (tail -F) and print each change as it is logged."),
    follow_topic: Optional[str] = typer.Option(None, "--follow-topic", metavar="TOPIC", help="Shadow mode on the Confluent audit-log "
                                               "events of this topic (with --bootstrap-server)."),
    from_start: bool = typer.Option(False, "--from-start", help="--follow/--follow-topic: read what is there first."),
    every: bool = typer.Option(False, "--every", help="--follow: print every changed decision, not each request once."),
    max_seconds: Optional[float] = typer.Option(None, "--max-seconds", help="--follow: stop after this many seconds."),
    max_changes: Optional[int] = typer.Option(None, "--max-changes", help="--follow: stop after this many changes."),
    quarantine: Optional[Path] = typer.Option(None, "--quarantine", metavar="FILE", help="--follow: append quarantined lines here."),
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    proposed = _check_required(proposed, fail_on, allow_unverified)
    params = WhatIfParams.of(dict(ctx.params, proposed=proposed))
    if follow is not None or follow_topic is not None:
        return shadow(params, jsonl=fmt is WhatIfFormat.jsonl, fail=fail_on is WhatIfGate.newly_denied)
    refuse_shadow_options(params, fmt is WhatIfFormat.jsonl)
    _check_sources(logs, index, logs_topic, bootstrap_server, max_events is not None or until_end, since or until)
    since_h, until_h = hour_bound(since, "--since"), hour_bound(until, "--until")
    if interactive:
        return _interactive(params, since_h, until_h)
    _check_outputs(out, report_html)
    result = whatif_service.replay(params.replay_request(since_h, until_h), stdin=_stdin() if logs else None,
                                   progress=PROGRESS)
    _render(result, fmt, out, report_html, f"authz whatif: {proposed}")
    if fail_on is WhatIfGate.newly_denied:
        _gate(result, allow_unverified)


def _check_required(proposed: Optional[Path], fail_on: Optional[WhatIfGate], allow_unverified: bool) -> Path:
    """The proposal, required; --allow-unverified only with --fail-on."""
    if proposed is None:
        raise InputError("--proposed is required (the ACL set to try)")
    if allow_unverified and fail_on is None:
        raise OptionError("goes with --fail-on (it lets the gate pass an answer the input could not verify)",
                          "--allow-unverified")
    return proposed


def _gate(result: Replayed, allow_unverified: bool) -> None:
    """--fail-on newly-denied: exit 1 when client-visible traffic is newly denied, 3 (fail closed) when the
    input could not have shown any, unless --allow-unverified."""
    if any(not c.filtered_only for c in result.report.newly_denied):
        raise typer.Exit(1)
    fail_closed(result.report.unverified, allow_unverified)


def _check_outputs(out: Optional[Path], report_html: Optional[Path]) -> None:
    """Before the work, so that a long replay never ends in a refusal to write its result."""
    if out is not None:
        check_out_dir(out)
    if report_html is not None:
        check_can_write(report_html)


def _refuse_with_interactive(**given) -> None:
    for name, value in given.items():
        if value:
            flag = {"fail_on": "--fail-on", "report": "--report"}.get(name, "--" + name)
            raise OptionError(f"{flag} does not go with --interactive (each answer is printed as it comes)", flag)


def _interactive(p: WhatIfParams, since, until) -> None:
    """Each answer as the proposal is saved: the table (or one JSON object per line), headed by a line
    saying which answer it is and how long it took; a proposal that does not load is one error line.
    ``since``/``until``: the window's hour bounds, as parsed."""
    import time

    fmt = p.fmt
    _refuse_with_interactive(full=p.full, spark=p.spark, out=p.out, report=p.report_html, fail_on=p.fail_on)
    session = session_service.open_session(p.interactive_request(since, until))
    if fmt is WhatIfFormat.table and sys.stderr.isatty():
        err_console.print(f"watching {session.proposed}: each save is answered again (Ctrl-C ends)", highlight=False)
    count = 0
    try:
        for answered in session_service.watch(session):
            count += 1
            stamp = time.strftime("%H:%M:%S")
            if answered.error is not None:
                err_console.print(f"authz: error: {answered.error}", markup=False, highlight=False)
                continue
            result = answered.result
            assert result is not None  # answered without an error
            if fmt is WhatIfFormat.json:
                typer.echo(json_line(answered.document(count, stamp)))
                sys.stdout.flush()
                continue
            console.rule(f"answer {count} at {stamp}, {answered.seconds:.2f} s: {result.note}")
            _print(result, None)
    except KeyboardInterrupt:
        err_console.print(f"stopped after {count} answer(s)", highlight=False)


def _check_sources(logs, index, logs_topic, bootstrap_server, bounded: bool, hours) -> None:
    """Exactly one of --logs, --logs-topic, --index, and the options that go with it."""
    if sum(map(bool, (logs, index, logs_topic))) != 1:
        raise InputError("give either --logs (replay log files), --logs-topic (replay audit-log events from a topic) "
                         "or --index (answer from an index)")
    if bool(logs_topic) != bool(bootstrap_server):
        raise InputError("--logs-topic and --bootstrap-server go together")
    if bounded and not logs_topic:
        raise InputError("--max-events/--until-end bound --logs-topic")
    if hours and not index:
        raise InputError("--since/--until need --index (an index knows each request's hours)")


def _render(result: Replayed, fmt: WhatIfFormat, out: Optional[Path], report_html: Optional[Path], title: str) -> None:
    report, stats = result.report, result.stats
    if result.note:
        err_console.print(f"note: {result.note}", markup=False, highlight=False, soft_wrap=True)
    if out is not None:
        write_out_dir(out, report, stats, result.quarantine)
    if report_html is not None:
        write_output(render_html(report, stats, title), report_html)
    if fmt is WhatIfFormat.json:
        write_json(report_dict(report, stats), None)
    else:
        _print(result, out)


@whatif_app.command("index", help="""Read audit logs once into an index (Parquet, partitioned by day) that
`authz whatif --index INDEX --proposed ...` answers from in seconds, as often as you like. Indexing more
logs into the same INDEX adds a run (runs merge when read); a file already in the index is refused, so
nothing is counted twice. A nightly job uses --append: files already indexed are skipped, recognised by
content (also renamed or gzipped since; only those not recognised by their bytes are decompressed), and
a file that grew since is indexed from where it was left, so the cost follows the new lines only.
--drop-before DATE removes the days before DATE (retention). Each run keeps its line accounting, formats and quarantine. Nothing is
visible until the run is complete (a failed run leaves the index as it was).

""" + INDEX_EXIT_HELP)
def whatif_index(
    logs: list[str] = typer.Option([], "--logs", help="Log files (log4j authorizer logs or Confluent audit-log events; "
                                   "--spark: log4j only), directories or globs (repeatable); - reads stdin."),
    append: bool = typer.Option(False, "--append", help="Add only what is new: files already indexed (also renamed "
                                "or gzipped since) are skipped, a file that grew is indexed from where it was left."),
    drop_before: Optional[str] = typer.Option(None, "--drop-before", metavar="YYYY-MM-DD",
                                              help="Retention: remove the days before this date from the index."),
    out: Path = typer.Option(..., "--out", "-o", help="The index directory (created, or a run is added)."),
    spark: bool = typer.Option(False, "--spark/--no-spark", help="Run as a Spark job."),
    master: str = typer.Option("local[*]", "--master", help="Spark master (with --spark)."),
    driver_memory: str = typer.Option("2g", "--driver-memory",
                                      help="Spark driver memory, a JVM size such as 512m or 4g (with --spark)."),
    executor_memory: Optional[str] = typer.Option(None, "--executor-memory", help="Spark executor memory (cluster)."),
    partition_bytes: int = typer.Option(128 << 20, "--partition-bytes", min=MIN_PARTITION_BYTES,
                                        help="Bytes of log per Spark task (with --spark)."),
    fmt: WhatIfFormat = typer.Option(WhatIfFormat.table, "--format", "-f", help="table or json."),
) -> None:
    if drop_before is not None:
        dropped = whatif_service.drop_before(out, drop_before)
        console.print(f"{out}: {len(dropped)} day(s) before {drop_before} removed" +
                      (f" ({dropped[0][4:]} .. {dropped[-1][4:]})" if dropped else ""))
        if not logs:
            return
    if not logs:
        raise typer.BadParameter("give --logs to index (or --drop-before alone)", param_hint="--logs")
    spark_options = SparkOptions(master, driver_memory, executor_memory, partition_bytes) if spark else None
    indexed = whatif_service.index(IndexRequest(tuple(logs), out, append, spark_options), stdin=_stdin(),
                                   progress=PROGRESS)
    if indexed.skipped and fmt is not WhatIfFormat.json:  # bounded: 90 days of files are 90 lines at most 3
        more = f" (and {len(indexed.skipped) - 3} more; --format json lists them)" if len(indexed.skipped) > 3 else ""
        err_console.print(f"skipped {len(indexed.skipped)} file(s): " + "; ".join(indexed.skipped[:3]) + more,
                          markup=False, highlight=False, soft_wrap=True)
    stats, total = indexed.stats, indexed.total
    if fmt is WhatIfFormat.json:
        write_json(indexed.document(out), None)
    else:
        if indexed.run_id is None:
            console.print(f"nothing new to index ({len(indexed.skipped)} file(s) already indexed)")
            for w in stats.warnings:  # the files found that are no log
                warn(w)
            return
        console.print(f"indexed {stats.lines} lines in {stats.files_read()} as run {indexed.run_id}: "
                      f"{stats.decision_lines} decision, {stats.non_decision_lines} other, {stats.quarantined_lines} "
                      "quarantined; formats: " + (", ".join(f"{k} {v}" for k, v in sorted(stats.by_format.items()))
                                                  or "none"))
        console.print(f"{out}: {indexed.runs} run(s), {total.lines} lines, {total.decisions} decisions")
        for w in stats.warnings:
            warn(w)


def _stdin():
    """Stdin as bytes, for `-` among --logs (the service reads it only then)."""
    return getattr(sys.stdin, "buffer", None)


@contextmanager
def _byte_bar(total: int):
    """A bar of bytes read in-process, for logs of 20 MB or more on a terminal."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TransferSpeedColumn,
    )

    progress = Progress(TextColumn("reading logs"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                        console=err_console.real(), transient=True, disable=total < 20_000_000 or not err_console.is_terminal)
    task = progress.add_task("read", total=total)
    with progress:
        yield lambda n: progress.advance(task, n)


class _SparkBar:
    """authz's own progress bar over Spark's status tracker (Spark's console bar is off)."""

    def __init__(self):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("tasks"), TimeElapsedColumn(), console=err_console.real(), transient=True,
                                 disable=not err_console.is_terminal)
        self.task = self.progress.add_task("starting Spark", total=None)

    def __call__(self, phase, done, total):
        self.progress.update(self.task, description=phase, completed=done, total=total or None)

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)


PROGRESS = ProgressHooks(reading=_byte_bar, spark=_SparkBar)


def _print(result: Replayed, out: Optional[Path]) -> None:
    from rich.markup import escape
    from rich.table import Table

    report, stats, quarantine = result.report, result.stats, result.quarantine
    console.print(f"{stats.lines} lines in {escape(stats.files_read())}: {stats.decision_lines} decision, "
                  f"{stats.non_decision_lines} other, {stats.quarantined_lines} quarantined"
                  + (f" (see {out}/quarantine.jsonl)" if out and quarantine else ""))
    console.print(f"{stats.decisions} decisions, {report.distinct_requests} distinct requests; formats: "
                  + ", ".join(f"{k} {v}" for k, v in sorted(stats.by_format.items())))
    for w in stats.warnings + report.warnings:
        warn(w)
    if report.reproduced is not None:
        console.print(f"the current ACL set reproduces {report.reproduced} of {report.comparable} logged decisions")
        for m in report.mismatch_examples[:5]:
            console.print(f"  [yellow]mismatch[/] {m['principal']} {m['operation']} {m['resource_type']}:"
                          f"{m['resource_name']} logged {m['logged']}, current ACLs say {m['current']}")
    if report.causes:
        console.print("[bold]by cause[/]:")
        for c in report.causes[:20]:
            style = "red" if c.kind == "newly_denied" else "green"
            console.print(f"  [{style}]{'-' if c.kind == 'newly_denied' else '+'}[/] {escape(c.describe())}",
                          soft_wrap=True)
        if len(report.causes) > 20:
            console.print(f"  ... and {len(report.causes) - 20} more cause(s) (--format json, or --out DIR)")
    for title, changes, style in (("newly denied", report.newly_denied, "red"),
                                  ("newly allowed", report.newly_allowed, "green")):
        if title == "newly allowed" and report.unverified:
            console.print(f"[yellow]not verified:[/] {escape(report.unverified)}", soft_wrap=True)
        visible = [c for c in changes if not c.filtered_only]
        filtered = [c for c in changes if c.filtered_only]
        console.print(f"[bold {style}]{title}[/]: {len(visible)} client-visible request kind(s)"
                      + (f", {len(filtered)} seen only in filtering/authorized-operations checks (TRACE)"
                         if filtered else ""))
        if visible:
            table = Table(header_style="bold")
            for col in ("principal", "operation", "resource", "lines", "hosts", "first seen", "last seen", "after"):
                table.add_column(col, overflow="fold")
            if len(visible) > 30:
                console.print(f"showing the top 30 of {len(visible)} (all of them: --format json, or --out DIR)")
            for c in visible[:30]:
                table.add_row(c.principal, c.operation, f"{c.resource_type}:{c.resource_name}", str(c.count),
                              ", ".join(c.hosts[:3]) + (" …" if len(c.hosts) > 3 else ""), c.first_seen or "",
                              c.last_seen or "", short_rule(c.after_rule))
            console.print(table)
    if report.unused_acls:
        console.print(f"{len(report.unused_acls)} proposed ACL(s) decided no logged request (candidates for removal)")
