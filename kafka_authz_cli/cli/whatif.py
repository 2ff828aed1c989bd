"""`authz whatif`: replay authorizer audit logs against a proposed ACL change."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    AclFormat,
    check_can_write,
    console,
    err_console,
    option_value,
    warn,
    write_output,
)
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.sources import cluster_acl_set, load_source
from kafka_authz_cli.whatif.auditlog import (
    Quarantined,
    ReadStats,
    expand_paths,
    read_stream,
    short_rule,
)
from kafka_authz_cli.whatif.index import (
    aggregates_from_table,
    check_not_indexed,
    commit_run,
    fill_hours,
    fingerprint,
    hour_bound,
    new_run_id,
    open_index,
    read_hourly_local,
    staging_dir,
    write_hourly_local,
)
from kafka_authz_cli.whatif.output import (
    check_out_dir,
    render_html,
    report_dict,
    write_out_dir,
)
from kafka_authz_cli.whatif.replay import (
    WhatIfReport,
    aggregate,
    aggregate_hourly,
    replay_aggregates,
)

# --partition-bytes: smaller splits only add tasks (a negative one made Spark skip most of every file).
MIN_PARTITION_BYTES = 64 << 10


class WhatIfFormat(str, Enum):
    table = "table"
    json = "json"


class WhatIfGate(str, Enum):
    newly_denied = "newly-denied"


whatif_app = typer.Typer(
    name="whatif", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="Replay audit logs against a proposed ACL change (in-process or PySpark).")
app.add_typer(whatif_app, name="whatif")

EXIT_HELP = ("Exit codes: 0 done; 1 --fail-on newly-denied and some client-visible access would be newly denied; "
             "2 usage or input error, or a Spark failure (said in one line, with what to change).")


@whatif_app.callback(invoke_without_command=True, help="""Replay Kafka authorizer audit logs (kafka-authorizer.log: every Kafka version's
format, rotated and gzipped files, directories, globs, - for stdin) against a proposed ACL set, and report
which real accesses it would newly deny or allow: by whom, how often, from which hosts, when, and the
deciding rule before and after. Without --current the logged decision is the baseline; with it,
the current ACL set is, and authz also says how many logged decisions it reproduces. Decisions
logged at TRACE (filtering, authorized-operations) are reported apart from client-visible ones.
Every line is counted: decision, other line, or quarantined (written to --out).

--spark runs the replay as a Spark job (local[*], or --master spark://HOST:PORT, yarn, k8s://...): files are split across tasks, so any size works in a fixed amount of memory. 'authz whatif index' reads logs once into an index; --index answers from it (--since/--until pick hours) in seconds.

""" + EXIT_HELP)
def whatif(
    ctx: typer.Context,
    logs: Optional[list[str]] = typer.Option(None, "--logs", help="Log files, directories or globs (repeatable); - reads stdin."),
    proposed: Optional[Path] = typer.Option(None, "--proposed", help="The proposed ACL set (any format, rules files too)."),
    current: Optional[Path] = typer.Option(None, "--current", help="The ACL set the cluster runs today (or "
                                           "cluster:HOST:PORT: read it live, with --command-config)."),
    index: Optional[list[Path]] = typer.Option(None, "--index", help="Answer from an index written by `authz whatif index` "
                                               "(repeatable: indexes merge) instead of --logs."),
    since: Optional[str] = typer.Option(None, "--since", help="With --index: from this hour on (YYYY-MM-DD[THH])."),
    until: Optional[str] = typer.Option(None, "--until", help="With --index: up to this hour, excluded (YYYY-MM-DD[THH])."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of the ACL sets (default: detected)."),
    spark: bool = typer.Option(False, "--spark/--no-spark", help="Run as a Spark job."),
    master: str = typer.Option("local[*]", "--master", help="Spark master (with --spark)."),
    driver_memory: str = typer.Option("2g", "--driver-memory",
                                      help="Spark driver memory, a JVM size such as 512m or 4g (with --spark)."),
    executor_memory: Optional[str] = typer.Option(None, "--executor-memory", help="Spark executor memory (cluster)."),
    partition_bytes: int = typer.Option(128 << 20, "--partition-bytes", min=MIN_PARTITION_BYTES,
                                        help="Bytes of log per Spark task (with --spark)."),
    super_users: Optional[str] = typer.Option(None, "--super-users", help="super.users of the brokers (User:a;User:b)."),
    allow_everyone: Optional[bool] = typer.Option(None, "--allow-everyone-if-no-acl-found/--deny-if-no-acl-found",
                                                  show_default=False, help="allow.everyone.if.no.acl.found."),
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="A broker's server.properties."),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for whatif.json, Parquet files and the "
                                                           "quarantine."),
    report_html: Optional[Path] = typer.Option(None, "--report", help="A self-contained HTML report."),
    fail_on: Optional[WhatIfGate] = typer.Option(None, "--fail-on", help="Exit 1 when the change newly denies "
                                                                         "client-visible traffic."),
    fmt: WhatIfFormat = typer.Option(WhatIfFormat.table, "--format", "-f", help="table or json."),
    command_config: Optional[Path] = typer.Option(None, "--command-config", help="Admin client properties for "
                                                  "--current cluster:HOST:PORT."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds to wait for a cluster: source."),
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    if proposed is None:
        raise InputError("--proposed is required (the ACL set to try)")
    if bool(logs) == bool(index):
        raise InputError("give either --logs (replay log files) or --index (answer from an index)")
    if (since or until) and not index:
        raise InputError("--since/--until need --index (an index knows each request's hours)")
    since_h, until_h = hour_bound(since, "--since"), hour_bound(until, "--until")
    if out is not None:
        check_out_dir(out)
    if report_html is not None:
        check_can_write(report_html)
    settings = broker_settings(super_users, allow_everyone, broker_config)
    config = {"super_users": settings.super_users,
              "allow_everyone_if_no_acl_found": settings.allow_everyone_if_no_acl_found}
    proposed_set = load_source(proposed, option_value(acls_format))
    current_set = None
    if current is not None:
        current_set = cluster_acl_set(current, command_config, timeout) or load_source(current, option_value(acls_format))
    spark_opts = {"master": master, "driver_memory": driver_memory, "executor_memory": executor_memory,
                  "partition_bytes": partition_bytes}
    if index:
        indexes = [open_index(i) for i in index]
        for ix in indexes:
            ix.check()
        stats, quarantine = ReadStats(), []
        for ix in indexes:
            stats.add(ix.stats())
            quarantine += ix.quarantine()
        if spark:
            report, untimed = _index_spark(indexes, since_h, until_h, proposed_set.bindings, current_set, config,
                                           spark_opts)
        else:
            report, untimed = _index_local(indexes, since_h, until_h, proposed_set.bindings, current_set, config)
        if untimed:
            report.warnings.append(f"{untimed} logged decision(s) without a timestamp are left out by --since/--until")
    else:
        with _stdin_spooled(logs) as (files, names):
            if spark:
                stats, quarantine, report = _run_spark(files, names, proposed_set.bindings, current_set, config,
                                                       spark_opts)
            else:
                stats, quarantine, report = _run_local(files, names, proposed_set.bindings, current_set, config)
    if not stats.balanced:  # pragma: no cover - the reader accounts for every line
        raise AuthzError(f"internal error: {stats.lines} lines read but only "
                         f"{stats.decision_lines + stats.non_decision_lines + stats.quarantined_lines} accounted for")
    if out is not None:
        write_out_dir(out, report, stats, quarantine)
    if report_html is not None:
        write_output(render_html(report, stats, f"authz whatif: {proposed}"), report_html)
    if fmt is WhatIfFormat.json:
        typer.echo(json.dumps(report_dict(report, stats), indent=2, ensure_ascii=False))
    else:
        _print(report, stats, quarantine, out)
    if fail_on is WhatIfGate.newly_denied and any(not c.filtered_only for c in report.newly_denied):
        raise typer.Exit(1)


@whatif_app.command("index", help="""Read audit logs once into an index (Parquet, partitioned by day) that
`authz whatif --index INDEX --proposed ...` answers from in seconds, as often as you like. Indexing more
logs into the same INDEX adds a run (runs merge when read); a file already in the index is refused, so
nothing is counted twice. Each run keeps its line accounting, formats and quarantine. Nothing is
visible until the run is complete (a failed run leaves the index as it was).

""" + EXIT_HELP.replace("1 --fail-on newly-denied and some client-visible access would be newly denied; ", ""))
def whatif_index(
    logs: list[str] = typer.Option(..., "--logs", help="Log files, directories or globs (repeatable); - reads stdin."),
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
    ix = open_index(out, create=True)
    with _stdin_spooled(logs) as (files, names):
        prints = [dict(fingerprint(f), path=names.get(f, f)) for f in files]
        check_not_indexed(ix, prints)
        run_id = new_run_id()
        staged = staging_dir(ix, run_id)
        try:
            if spark:
                stats, quarantine = _index_run_spark(files, names, staged, dict(
                    master=master, driver_memory=driver_memory, executor_memory=executor_memory,
                    partition_bytes=partition_bytes))
            else:
                stats, quarantine = _index_run_local(files, names, staged)
            commit_run(ix, run_id, staged, prints, stats, quarantine)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
    summary = {"index": str(out), "run": run_id, "runs": len(ix.runs), "this_run": stats.as_dict(),
               "index_total": ix.stats().as_dict()}
    if fmt is WhatIfFormat.json:
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        console.print(f"indexed {stats.lines} lines in {stats.files} file(s) as run {run_id}: {stats.decision_lines} "
                      f"decision, {stats.non_decision_lines} other, {stats.quarantined_lines} quarantined; formats: "
                      + (", ".join(f"{k} {v}" for k, v in sorted(stats.by_format.items())) or "none"))
        total = ix.stats()
        console.print(f"{out}: {len(ix.runs)} run(s), {total.lines} lines, {total.decisions} decisions")
        for w in stats.warnings:
            warn(w)


class _stdin_spooled:
    """`-` among --logs: stdin is copied to a private temp file (memory flat; Spark and fingerprints need a
    file), named <stdin> in what authz reports."""

    def __init__(self, logs: list[str]):
        self.logs = logs
        self.tmp = None

    def __enter__(self):
        names: dict[str, str] = {}
        files: list[str] = []
        for entry in self.logs:
            if entry != "-" and not expand_paths([entry]):
                raise InputError("no log files matched " + entry)
        if "-" in self.logs:
            self.tmp = tempfile.mkdtemp(prefix="authz-stdin-")
            path = os.path.join(self.tmp, "stdin.log")
            with open(path, "wb") as fh:
                shutil.copyfileobj(sys.stdin.buffer, fh, 1 << 20)
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
        return unique, names

    def __exit__(self, *exc):
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return False


def read_logs_local(files: list[str], names: dict[str, str], on_bytes=None):
    """In-process reading, streamed: (stats, quarantine, decisions iterator). `on_bytes` gets every chunk size."""
    stats = ReadStats()
    quarantine: list[Quarantined] = []

    def decisions():
        for f in files:
            with open(f, "rb") as fh:
                yield from read_stream(fh, names.get(f, f), stats, quarantine, on_bytes)
    return stats, quarantine, decisions()


def _byte_progress(files):
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TransferSpeedColumn,
    )

    total = sum(os.path.getsize(f) for f in files)
    progress = Progress(TextColumn("reading logs"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                        console=err_console, transient=True, disable=total < 20_000_000 or not err_console.is_terminal)
    task = progress.add_task("read", total=total)
    return progress, (lambda n: progress.advance(task, n))


def _run_local(files, names, proposed_acls, current_set, config):
    from kafka_authz_cli.acl.engine import StandardAuthorizer

    progress, advance = _byte_progress(files)
    with progress:
        stats, quarantine, decisions = read_logs_local(files, names, advance)
        aggs = aggregate(decisions)
    proposed_authz = StandardAuthorizer(proposed_acls, **config)
    current_authz = StandardAuthorizer(current_set.bindings, **config) if current_set is not None else None
    return stats, quarantine, replay_aggregates(aggs, proposed_authz, current_authz)


def _index_run_local(files, names, staged):
    progress, advance = _byte_progress(files)
    with progress:
        stats, quarantine, decisions = read_logs_local(files, names, advance)
        hourly = aggregate_hourly(decisions)
    write_hourly_local(staged, hourly)
    return stats, quarantine


def _index_local(indexes, since, until, proposed_acls, current_set, config):
    from kafka_authz_cli.acl.engine import StandardAuthorizer
    from kafka_authz_cli.whatif.replay import build_report, classify, decide

    table = read_hourly_local(indexes, None, None)
    untimed = 0
    if since is not None or until is not None:
        import pyarrow.compute as pc

        untimed = pc.sum(table.filter(pc.is_null(table["hour_text"]))["count"]).as_py() or 0
        table = read_hourly_local(indexes, since, until)
    aggs = aggregates_from_table(table)
    after = decide(aggs, StandardAuthorizer(proposed_acls, **config))
    before = decide(aggs, StandardAuthorizer(current_set.bindings, **config)) if current_set is not None else None
    changed = [k for k, a in aggs.items() if classify(a, after[k], before[k] if before else None)[0] is not None]
    fill_hours(table, aggs, changed)
    return build_report(aggs, after, proposed_acls, before), untimed


def _spark_session(opts):
    from kafka_authz_cli.whatif import spark as spark_job

    return spark_job.spark_session(opts["master"], driver_memory=opts["driver_memory"],
                                   executor_memory=opts["executor_memory"])


def _stop(spark, ok: bool) -> None:
    """Stop Spark; its log file is kept only when something failed (the error line names it)."""
    from kafka_authz_cli.whatif import spark as spark_job

    try:
        spark.stop()
    except Exception:  # the JVM is already gone (killed, out of memory): the error was said once
        ok = False
    if ok:
        try:
            os.remove(spark_job.spark_log_file())
        except OSError:
            pass


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
                                 TextColumn("tasks"), TimeElapsedColumn(), console=err_console, transient=True,
                                 disable=not err_console.is_terminal)
        self.task = self.progress.add_task("starting Spark", total=None)

    def __call__(self, phase, done, total):
        self.progress.update(self.task, description=phase, completed=done, total=total or None)

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)


def _run_spark(files, names, proposed_acls, current_set, config, opts):
    from kafka_authz_cli.whatif import spark as spark_job

    with _SparkBar() as bar:
        spark = _spark_session(opts)
        ok = False
        try:
            current = (current_set.bindings, config) if current_set is not None else None
            result = spark_job.run(spark, [os.path.abspath(f) for f in files], (proposed_acls, config), current,
                                   progress=bar, partition_bytes=opts["partition_bytes"],
                                   names={os.path.abspath(f): names.get(f, f) for f in files})
            ok = True
            return result
        finally:
            _stop(spark, ok)


def _index_run_spark(files, names, staged, opts):
    from kafka_authz_cli.whatif import spark as spark_job

    with _SparkBar() as bar:
        spark = _spark_session(opts)
        ok = False
        try:
            tmp = os.path.join(staged, "spark")
            stats, quarantine = spark_job.index_logs(spark, [os.path.abspath(f) for f in files], tmp, progress=bar,
                                                     partition_bytes=opts["partition_bytes"],
                                                     names={os.path.abspath(f): names.get(f, f) for f in files})
            ok = True
        finally:
            _stop(spark, ok)
    for d in Path(tmp).glob("day=*"):
        os.replace(d, Path(staged) / d.name)
    return stats, quarantine


def _index_spark(indexes, since, until, proposed_acls, current_set, config, opts):
    from kafka_authz_cli.whatif import spark as spark_job

    with _SparkBar() as bar:
        spark = _spark_session(opts)
        ok = False
        try:
            current = (current_set.bindings, config) if current_set is not None else None
            result = spark_job.report_from_index(spark, [(str(ix.root), [r["id"] for r in ix.runs])
                                                         for ix in indexes],
                                                 since, until, (proposed_acls, config), current, progress=bar)
            ok = True
            return result
        finally:
            _stop(spark, ok)


def _print(report: WhatIfReport, stats: ReadStats, quarantine: list[Quarantined], out: Optional[Path]) -> None:
    from rich.table import Table

    console.print(f"{stats.lines} lines in {stats.files} file(s): {stats.decision_lines} decision, "
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
    for title, changes, style in (("newly denied", report.newly_denied, "red"),
                                  ("newly allowed", report.newly_allowed, "green")):
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
