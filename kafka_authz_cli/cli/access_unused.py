"""`authz access unused`: grants nobody exercised in a window of audit logs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.access_group import access_app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    MAX_TABLE_ROWS,
    AclFormat,
    acls_options,
    cell,
    check_can_write,
    console,
    emit_rows,
    option_value,
    rows_not_shown,
    warn,
    write_json,
    write_output,
)
from kafka_authz_cli.cli.common import TableFormat as _RowsFormat
from kafka_authz_cli.cli.options import (
    AllowEveryone,
    BrokerConfig,
    CommandConfig,
    Index,
    ListFormat,
    ListFormatOption,
    Logs,
    SuperUsers,
    Timeout,
)
from kafka_authz_cli.services.access_unused import UnusedResult, binding_rows, unused_document
from kafka_authz_cli.services.access_unused import unused as review

HELP = """Grants nobody exercised: for each binding of ACLS, the number of logged requests it decided (it was
the deciding ACL when the request is replayed against ACLS by the exact engine) and when it last did;
the bindings never used; the principals of ACLS never seen. From audit logs (--logs: log4j
kafka-authorizer.log files of every Kafka version, Confluent audit-log events; files, directories,
globs, - for stdin) or a whatif index (--index, from `authz whatif index`), within --since/--until
(hours, local time as log4j writes it; both ends of the window the logs actually cover are printed).

Sound, not hopeful: Kafka logs allowed decisions at DEBUG only (denied ones at INFO), so logs kept at
the default INFO level cannot show that an ALLOW binding was used. Such a binding is reported
'unknown' (with the reason), never 'unused'; DENY bindings are still judged from the DENIED lines.
One log (file, or index run) of the window without an ALLOWED decision is enough (another broker, or
an hour before DEBUG was turned on); one with lines but no decision at all makes DENY bindings
unknown too. Confluent audit-log events record only what their router config routes: bindings are
'unknown' from them unless --assume-complete-logs. Principals: 'unseen' only when both
allowed and denied decisions were logged. 'requests (client)': logged decisions the binding decided
(those a client asked for: TRACE lines are filtering and authorized-operations checks). Lines that are
not readable decisions are counted and kept aside (--quarantine FILE writes them). Replaying the
window without the unused bindings proves they can go (with allow.everyone.if.no.acl.found a
resource left with no ACL allows everyone: then the count of changed decisions is printed).

Exit codes: 0 done; 1 with --fail-on-unused, some binding is unused; 2 usage or input error;
3 with --fail-on-unused, no binding is unused but some are unknown (the logs cannot show their use:
a gate must not pass on logs that could not fail it).
"""

EXIT_UNKNOWN = 3


@access_app.command("unused", help=HELP, short_help="Grants nobody exercised in a window of audit logs: uses per binding, never-used bindings, unseen principals.")
def unused(
    acls: Path = typer.Argument(..., help="The ACL set the brokers ran in the window (any format, cluster:HOST:PORT).",
                                show_default=False),
    logs: Logs = None,
    index: Index = None,
    since: Optional[str] = typer.Option(None, "--since", help="From this hour on (YYYY-MM-DD[THH])."),
    until: Optional[str] = typer.Option(None, "--until", help="Up to this hour, excluded (YYYY-MM-DD[THH])."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override format detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    assume_complete: bool = typer.Option(False, "--assume-complete-logs", help="Vouch that every allowed and "
                                         "denied decision of the window was logged (DEBUG on every node throughout, "
                                         "or a router config routing every authorization): bindings with no logged "
                                         "use are then called unused."),
    fail_on_unused: bool = typer.Option(False, "--fail-on-unused", help="Exit 1 if a binding is unused (3 if none "
                                        "is but some are unknown)."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    quarantine: Optional[Path] = typer.Option(None, "--quarantine", help="Write the lines kept aside (JSON lines)."),
    fmt: ListFormatOption = ListFormat.table,
) -> None:
    if quarantine is not None:
        check_can_write(quarantine)
    from kafka_authz_cli.cli.whatif import PROGRESS

    result = review(acls, logs=logs, indexes=index, since=since, until=until, acls_format=option_value(acls_format),
                    acls_options=acls_options(option), super_users=super_users, allow_everyone=allow_everyone,
                    broker_config=broker_config, assume_complete=assume_complete,
                    command_config=command_config, timeout=timeout,
                    stdin=getattr(sys.stdin, "buffer", None) if logs and "-" in logs else None,
                    progress=PROGRESS if fmt is ListFormat.table else None)
    if quarantine is not None:
        write_output("".join(q.json_line() + "\n" for q in result.quarantine), quarantine)
    for w in result.report.warnings:
        warn(w)
    if fmt is ListFormat.json:
        write_json(unused_document(result), None)
    elif fmt is ListFormat.csv:
        emit_rows(binding_rows(result), _RowsFormat.csv)
    else:
        _print(result)
    if fail_on_unused:
        if result.report.count("unused"):
            raise typer.Exit(1)
        if result.report.count("unknown"):
            raise typer.Exit(EXIT_UNKNOWN)


def _binding_text(b) -> str:
    pattern = "" if b.pattern_type.name == "LITERAL" else f" ({b.pattern_type.name})"
    host = "" if b.host == "*" else f" from {b.host}"
    return (f"{b.permission.name} {b.principal}{host} {b.operation.name} "
            f"{b.resource_type.name}:{b.resource_name}{pattern}")


_STYLE = {"used": "green", "unused": "red", "unknown": "yellow", "seen": "green", "unseen": "red"}


def _print(result: UnusedResult) -> None:
    from rich.markup import escape
    from rich.table import Table

    r, stats = result.report, result.stats
    window = f"{r.first_seen or '-'} .. {r.last_seen or '-'}"
    asked = f" (asked: {result.since or 'start'} .. {result.until or 'end'}, hours)" if result.since or result.until \
        else ""
    skipped = f" ({len(stats.skipped_files):,} more skipped: no log)" if stats.skipped_files else ""
    console.print(escape(f"{stats.lines} lines in {stats.files} source(s){skipped}: {r.decisions} decisions in the window, "
                         f"{r.distinct_requests} distinct requests, {stats.quarantined_lines} line(s) unreadable "
                         f"(kept aside); window covered: {window}{asked}"))
    vis, ev = r.visibility, r.evidence
    if vis.allowed:
        span = f" (ALLOWED lines from {ev.first_allowed} to {ev.last_allowed})" if ev.first_allowed else ""
        console.print(escape(f"allowed use: shown{span}"))
    else:
        console.print(escape(f"allowed use: NOT shown, ALLOW bindings with no logged use are 'unknown': {vis.allowed_why}"))
    if not vis.denied:
        console.print(escape(f"denied use: NOT shown: {vis.denied_why}"))
    order = {"unused": 0, "unknown": 1, "used": 2}
    rows = sorted(r.bindings, key=lambda u: (order[u.status], -u.requests))
    table = Table(title="Bindings", title_justify="left")
    for col in ("status", "binding", "requests (client)", "last used", "origin"):
        table.add_column(col, justify="right" if col.startswith("requests") else "left")
    for u in rows[:MAX_TABLE_ROWS]:
        table.add_row(f"[{_STYLE[u.status]}]{u.status}[/]", escape(cell(_binding_text(u.binding))),
                      f"{u.requests} ({u.client_requests})", escape(u.last_used or "-"), escape(cell(u.origin or "")))
    console.print(table)
    more = rows_not_shown(len(rows), min(len(rows), MAX_TABLE_ROWS), "--format json or csv")
    if more:
        console.print(more)
    if r.principals:
        pt = Table(title="Principals of the ACL set", title_justify="left")
        for col in ("status", "principal", "requests", "last seen"):
            pt.add_column(col)
        for p in r.principals[:MAX_TABLE_ROWS]:
            pt.add_row(f"[{_STYLE[p.status]}]{p.status}[/]", escape(cell(p.principal)), str(p.requests),
                       escape(p.last_seen or "-"))
        console.print(pt)
    console.print(f"{r.count('used')} used, {r.count('unused')} unused, {r.count('unknown')} unknown "
                  f"of {len(r.bindings)} binding(s)")
    if r.changed_without_unused == 0:
        console.print(f"replayed without the {r.count('unused')} unused binding(s), the window's requests are all "
                      "decided as before")
