"""`authz whatif`: replay authorizer audit logs against a proposed ACL change."""

from __future__ import annotations

import json
import os
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.auditlog import Quarantined, ReadStats, expand_paths, read_file_bytes, short_rule
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import AclFormat, broker_settings, console, err_console, load_source, warn
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats.sources import cluster_acl_set
from kafka_authz_cli.formats.whatif_out import report_dict, write_html, write_out_dir
from kafka_authz_cli.whatif import WhatIfReport, replay


class WhatIfFormat(str, Enum):
    table = "table"
    json = "json"


class WhatIfGate(str, Enum):
    newly_denied = "newly-denied"


@app.command("whatif", short_help="Replay audit logs against a proposed ACL change (in-process or PySpark).", help="""Replay Kafka authorizer audit logs (kafka-authorizer.log: every Kafka version's
format, rotated and gzipped files, directories, globs) against a proposed ACL set, and report which
real accesses it would newly deny or allow: by whom, how often, from which hosts, when, and the
deciding rule before and after. Without --current the logged decision is the baseline; with it,
the current ACL set is, and authz also says how many logged decisions it reproduces. Decisions
logged at TRACE (filtering, authorized-operations) are reported apart from client-visible ones.
Every line is counted: decision, other line, or quarantined (written to --out).

--spark runs the replay as a PySpark job (local[*], or --master yarn|k8s://...|spark://...).

Exit codes: 0 done; 1 --fail-on newly-denied and some client-visible access would be newly denied;
2 usage or input error.""")
def whatif(
    logs: list[str] = typer.Option(..., "--logs", help="Log files, directories or globs (repeatable)."),
    proposed: Path = typer.Option(..., "--proposed", help="The proposed ACL set (any format, rules files too)."),
    current: Optional[Path] = typer.Option(None, "--current", help="The ACL set the cluster runs today (or "
                                           "cluster:HOST:PORT: read it live, with --command-config)."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of --proposed and --current "
                                                    "(default: detected by content)."),
    spark: bool = typer.Option(False, "--spark/--no-spark", help="Run as a PySpark job."),
    master: str = typer.Option("local[*]", "--master", help="Spark master (with --spark)."),
    super_users: Optional[str] = typer.Option(None, "--super-users", help='super.users for both sides, e.g. '
                                              '"User:a;User:b".'),
    allow_everyone: Optional[bool] = typer.Option(None, "--allow-everyone-if-no-acl-found/--deny-if-no-acl-found",
                                                  show_default=False, help="allow.everyone.if.no.acl.found for both "
            "sides (default false)."),
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="Read super.users and "
                                                 "allow.everyone.if.no.acl.found from a server.properties."),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for whatif.json, Parquet files and the "
                                                           "quarantine."),
    report_html: Optional[Path] = typer.Option(None, "--report", help="A self-contained HTML report."),
    fail_on: Optional[WhatIfGate] = typer.Option(None, "--fail-on", help="Exit 1 when some client-visible access "
                                                 "would be newly denied."),
    fmt: WhatIfFormat = typer.Option(WhatIfFormat.table, "--format", "-f", help="Output format."),
    command_config: Optional[Path] = typer.Option(None, "--command-config", help="Admin client properties for "
                                                  "--current cluster:HOST:PORT."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds to wait for a cluster: source."),
) -> None:
    settings = broker_settings(super_users, allow_everyone, broker_config)
    config = {"super_users": settings.super_users,
              "allow_everyone_if_no_acl_found": settings.allow_everyone_if_no_acl_found}
    proposed_set = load_source(proposed, acls_format)
    current_set = None
    if current is not None:
        current_set = cluster_acl_set(current, command_config, timeout) or load_source(current, acls_format)
    files = expand_paths(logs)
    if not files:
        raise InputError("no log files matched " + ", ".join(logs))
    for f in files:
        if not os.path.isfile(f):
            raise InputError("no such file", f)
    if spark:
        stats, quarantine, report = _run_spark(files, master, proposed_set.bindings, current_set, config)
    else:
        stats, quarantine, report = _run_local(files, proposed_set.bindings, current_set, config)
    if not stats.balanced:  # pragma: no cover - the reader accounts for every line
        raise AuthzError(f"internal error: {stats.lines} lines read but only "
                         f"{stats.decision_lines + stats.non_decision_lines + stats.quarantined_lines} accounted for")
    if out is not None:
        write_out_dir(out, report, stats, quarantine)
    if report_html is not None:
        write_html(report_html, report, stats, f"authz whatif: {proposed}")
    if fmt is WhatIfFormat.json:
        typer.echo(json.dumps(report_dict(report, stats), indent=2, ensure_ascii=False))
    else:
        _print(report, stats, quarantine, out)
    if fail_on is WhatIfGate.newly_denied and any(not c.filtered_only for c in report.newly_denied):
        raise typer.Exit(1)


def _run_local(files, proposed_acls, current_set, config):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from kafka_authz_cli.engine import StandardAuthorizer

    stats = ReadStats()
    quarantine: list[Quarantined] = []
    decisions = []
    total = sum(os.path.getsize(f) for f in files)
    with Progress(TextColumn("reading logs"), BarColumn(), MofNCompleteColumn(), console=err_console,
                  transient=True, disable=total < 20_000_000) as progress:
        task = progress.add_task("read", total=len(files))
        for f in files:
            with open(f, "rb") as fh:
                decisions += read_file_bytes(fh.read(), f, stats, quarantine)
            progress.advance(task)
    proposed_authz = StandardAuthorizer(proposed_acls, **config)
    current_authz = StandardAuthorizer(current_set.bindings, **config) if current_set is not None else None
    return stats, quarantine, replay(decisions, proposed_authz, current_authz)


def _run_spark(files, master, proposed_acls, current_set, config):
    from kafka_authz_cli import spark_job

    if not spark_job.java_available():
        raise AuthzError("--spark needs Java 17+ (install a JDK/JRE 17, e.g. openjdk-17-jre-headless)")
    spark = spark_job.spark_session(master)
    try:
        current = (current_set.bindings, config) if current_set is not None else None
        return spark_job.run(spark, [os.path.abspath(f) for f in files], (proposed_acls, config), current)
    finally:
        spark.stop()


def _print(report: WhatIfReport, stats: ReadStats, quarantine: list[Quarantined], out: Optional[Path]) -> None:
    from rich.table import Table
    console.print(f"{stats.lines} lines in {stats.files} file(s): {stats.decision_lines} decision, "
                  f"{stats.non_decision_lines} other, {stats.quarantined_lines} quarantined"
                  + (f" (see {out}/quarantine.jsonl)" if out and quarantine else ""))
    console.print(f"{stats.decisions} decisions, {report.distinct_requests} distinct requests; formats: "
                  + ", ".join(f"{k} {v}" for k, v in sorted(stats.by_format.items())))
    for w in report.warnings:
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
            for c in visible[:30]:
                table.add_row(c.principal, c.operation, f"{c.resource_type}:{c.resource_name}", str(c.count),
                              ", ".join(c.hosts[:3]) + (" …" if len(c.hosts) > 3 else ""), c.first_seen or "",
                              c.last_seen or "", short_rule(c.after_rule))
            console.print(table)
    if report.unused_acls:
        console.print(f"{len(report.unused_acls)} proposed ACL(s) decided no logged request (candidates for removal)")
