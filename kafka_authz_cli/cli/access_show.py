"""`authz access show` (the default of `authz access`): effective permissions."""

from __future__ import annotations

import csv
import io
from enum import Enum
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
    json_text,
    option_value,
    rows_not_shown,
    write_output,
)
from kafka_authz_cli.cli.options import AllowEveryone, BrokerConfig, CommandConfig, SuperUsers, Timeout
from kafka_authz_cli.services.access import AccessOptions, AccessReport, run_access

HELP = """Effective permissions, exactly: every principal and host allowed each operation on a
resource, with the ACL that grants it, where it was written and why (an ACL of its own, a super user,
the wildcard principal User:*, a prefixed ACL, the wildcard resource `*`, or
allow.everyone.if.no.acl.found). Implied operations are listed and marked (READ, WRITE, DELETE and
ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS). Where DENYs narrow a broad grant the
entry lists the (principal, host) pairs it does not reach ("except").

Exact, not sampled: the answer is computed over the request classes the ACL set can tell apart
(the principals and hosts it names, anyone else, any other host), so a request is allowed if and only
if an entry covers it and none of that entry's `except` pairs does.

One resource (--topic, --group, --transactional-id, --cluster, --delegation-token, --user-principal),
every class of names under --resource-prefix ("topic `orders`", "every topic starting with
`orders-`"), the names of --names FILE (`topic NAME` lines, or plain names with --resource-type), or
every topic and group of a live cluster (--bootstrap-server). With --principal: only what that
principal may do; --principal alone covers every class of names of every resource type.

Exit codes: 0 done; 2 usage or input error."""


class AccessFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    html = "html"


@access_app.command("show", help=HELP, short_help="Effective permissions per resource or principal.")
def show(
    acls: str = typer.Argument(..., help="The ACL set (any format authz reads, or cluster:HOST:PORT)."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override format detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    topic: Optional[str] = typer.Option(None, "--topic", help="TOPIC resource name."),
    group: Optional[str] = typer.Option(None, "--group", help="GROUP resource (consumer group id)."),
    transactional_id: Optional[str] = typer.Option(None, "--transactional-id", help="TRANSACTIONAL_ID resource."),
    cluster: bool = typer.Option(False, "--cluster", help="The cluster resource (kafka-cluster)."),
    delegation_token: Optional[str] = typer.Option(None, "--delegation-token", help="DELEGATION_TOKEN resource."),
    user_principal: Optional[str] = typer.Option(None, "--user-principal", help="USER resource, e.g. User:bob."),
    resource_prefix: Optional[str] = typer.Option(None, "--resource-prefix", help="Every name starting with this "
                                                  "(of --resource-type, default topic), by class."),
    names: Optional[Path] = typer.Option(None, "--names", help="Many resources: `topic NAME` lines, or plain "
                                         "names with --resource-type."),
    resource_type: Optional[str] = typer.Option(None, "--resource-type", help="topic, group, ... for "
                                                "--resource-prefix, plain --names lines and --bootstrap-server."),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="Review every topic and group "
                                                   "of this live cluster (host:port)."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    principal: Optional[str] = typer.Option(None, "--principal", help="Only what this principal may do "
                                            "(alone: on every class of names of every resource type)."),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    fmt: AccessFormat = typer.Option(AccessFormat.table, "--format", "-f", help="Output format (html: a "
                                     "principal x resource matrix, one self-contained file; give -o)."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the report to a file."),
    apps: Optional[Path] = typer.Option(None, "--apps", help="A team's applications (YAML `apps:` list of `authz app "
                                        "check` settings): which of them work (with --principal: its own; alone: "
                                        "only that)."),
) -> None:
    render_html = _html_renderer() if fmt is AccessFormat.html else None
    if out is not None:
        check_can_write(out)
    options = AccessOptions(
        acls=acls, acls_format=option_value(acls_format), acls_options=acls_options(option), topic=topic, group=group,
        transactional_id=transactional_id, cluster=cluster, delegation_token=delegation_token,
        user_principal=user_principal, resource_prefix=resource_prefix, resource_type=resource_type, names=names,
        bootstrap_server=bootstrap_server, command_config=command_config, timeout=timeout, principal=principal,
        super_users=super_users, allow_everyone=allow_everyone, broker_config=broker_config, apps=apps)
    report = run_access(options)
    if fmt is AccessFormat.table and out is None:
        if report.resources or report.apps is None:
            _print_table(report)
        if report.apps is not None:
            _print_apps(report.apps)
        return
    if fmt is AccessFormat.json:
        write_output(_with_apps(report.json_text(), report.apps), out)
        return
    doc = report.document()
    if fmt is AccessFormat.csv:
        text = to_csv(doc)
    elif fmt is AccessFormat.markdown:
        text = to_markdown(doc) + (_apps_markdown(report.apps) if report.apps is not None else "")
    elif render_html is not None:
        text = render_html(doc)
    else:
        text = _table_text(report)
    write_output(text, out)


def _html_renderer():
    from kafka_authz_cli.review import render_access_html

    return render_access_html


def _acl_text(via: dict) -> str:
    acl = via["acl"]
    if acl is None:
        return ""
    return (f"{acl['permission']} {acl['principal']} {acl['operation']} from {acl['host']} on "
            f"{acl['pattern_type']} {acl['resource_type']}:{acl['resource_name']}")


def _except_text(entry: dict) -> str:
    return "; ".join(f"{e['principal']} from {e['host']}" for e in entry["except"])


def to_csv(doc: dict) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["resource_type", "resource_name", "principal", "host", "operation", "implied", "reason", "acl",
                     "origin", "except"])
    for e in doc["access"]:
        writer.writerow([e["resource_type"], e["resource_name"], e["principal"], e["host"], e["operation"],
                         str(e["implied"]).lower(), e["via"]["reason"], _acl_text(e["via"]), e["via"]["origin"] or "",
                         _except_text(e)])
    return buf.getvalue()


def _grouped(doc: dict) -> list[dict]:
    """Entries alike but for the operation, as one row with the operations listed (implied ones marked *)."""
    rows: dict[tuple, dict] = {}
    for e in doc["access"]:
        key = (e["resource_type"], e["resource_name"], e["principal"], e["host"], e["via"]["reason"],
               _acl_text(e["via"]), e["via"]["origin"], _except_text(e))
        row = rows.setdefault(key, {"entry": e, "ops": []})
        row["ops"].append(e["operation"] + ("*" if e["implied"] else ""))
    return list(rows.values())


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def to_markdown(doc: dict) -> str:
    q = doc["query"]
    lines = [f"### Effective permissions ({doc['resources']} resource(s), {doc['principals']} principal(s))", ""]
    if q.get("principal"):
        lines += [f"Principal: `{_md(q['principal'])}`", ""]
    lines += ["| resource | principal | host | operations | via | except |", "|---|---|---|---|---|---|"]
    for row in _grouped(doc):
        e = row["entry"]
        via = e["via"]["reason"] + (f": {_acl_text(e['via'])}" if e["via"]["acl"] else "")
        if e["via"]["origin"]:
            via += f" ({e['via']['origin']})"
        lines.append(f"| {e['resource_type']}:{_md(e['resource_name'])} | `{_md(e['principal'])}` | {_md(e['host'])} "
                     f"| {', '.join(row['ops'])} | {_md(via)} | {_md(_except_text(e))} |")
    lines += ["", "`*` implied (READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS)."]
    return "\n".join(lines) + "\n"


def _print_table(report: AccessReport, target=None) -> None:
    from rich.table import Table

    doc = report.document()
    rows = _grouped(doc)
    table = Table(show_lines=True, header_style="bold")
    for col in ("resource", "principal", "host", "operations", "via", "except"):
        table.add_column(col, overflow="fold")
    for row in rows[:MAX_TABLE_ROWS]:
        e = row["entry"]
        via = f"[bold]{e['via']['reason']}[/]"
        if e["via"]["acl"]:
            via += f"\n{cell(_acl_text(e['via']))}"
        if e["via"]["origin"]:
            via += f" [dim]({cell(e['via']['origin'])})[/]"
        table.add_row(cell(f"{e['resource_type']}:{e['resource_name']}"), cell(e["principal"]), cell(e["host"]),
                      ", ".join(row["ops"]), via, cell(_except_text(e)))
    out = target or console
    if not rows:
        out.print("nobody may do anything here (no entry)", markup=False, highlight=False)
        return
    out.print(table)
    out.print("* implied operation", markup=False, highlight=False)
    more = rows_not_shown(len(rows), MAX_TABLE_ROWS, "--format json, csv or markdown")
    if more:
        out.print(more, markup=False, highlight=False)


def _table_text(report: AccessReport) -> str:
    from kafka_authz_cli.cli.output import AuthzConsole

    buf = io.StringIO()
    _print_table(report, AuthzConsole(file=buf, width=120, color_system=None, highlight=False, soft_wrap=False))
    return buf.getvalue()


# ---- --apps: which of a team's declared applications work ------------------------------------------------


def _with_apps(text: str, apps) -> str:
    """The access JSON with an ``apps`` member last (each application as `authz app check --format json`
    answers, with its name and where it is declared, or the problem that kept it from being checked)."""
    if apps is None:
        return text
    from kafka_authz_cli.services.apps import declared_document

    body = text.rstrip()
    assert body.endswith("}")
    member = json_text([declared_document(a) for a in apps], depth=1)
    return body[:-1].rstrip() + ',\n  "apps": ' + member + "\n}\n"


def _app_line(found) -> tuple[str, str]:
    from kafka_authz_cli.services.apps import check_sentence

    if found.check is None:
        return "not checked", found.problem or ""
    return ("works" if found.check.verdict.works else "fails"), check_sentence(found.check)


def _print_apps(apps) -> None:
    from rich.table import Table

    if not apps:
        console.print("no declared application connects as this principal", markup=False, highlight=False)
        return
    table = Table(show_lines=True, header_style="bold", title="declared applications")
    for col in ("application", "kind", "principal", "", "what happens"):
        table.add_column(col, overflow="fold")
    for found in apps:
        verdict, text = _app_line(found)
        colour = {"works": "green", "fails": "red"}.get(verdict, "yellow")
        principal = found.check.identity.principal if found.check is not None else (found.app.principal or "?")
        table.add_row(cell(found.app.name), found.app.kind, cell(principal), f"[{colour}]{verdict}[/]", cell(text))
    console.print(table)
    failing = sum(1 for a in apps if a.check is not None and not a.check.verdict.works)
    unchecked = sum(1 for a in apps if a.check is None)
    console.print(f"{len(apps) - failing - unchecked} of {len(apps)} application(s) work; {failing} fail"
                  + (f"; {unchecked} could not be checked" if unchecked else ""), markup=False, highlight=False)


def _apps_markdown(apps) -> str:
    lines = ["", "### Declared applications", "", "| application | kind | | what happens |", "|---|---|---|---|"]
    for found in apps:
        verdict, text = _app_line(found)
        lines.append(f"| {_md(found.app.name)} | {found.app.kind} | {verdict} | {_md(text)} |")
    return "\n".join(lines) + "\n"
