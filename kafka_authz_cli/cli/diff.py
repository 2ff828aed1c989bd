"""`authz diff`: which bindings change, and who gains or loses what."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.acl import DiffResult, describe_host
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    MAX_TABLE_ROWS,
    AclFormat,
    acls_options,
    cell,
    console,
    option_value,
    rows_not_shown,
    write_json,
    write_output,
)
from kafka_authz_cli.cli.options import AllowEveryone, BrokerConfig, CommandConfig, SuperUsers, Timeout
from kafka_authz_cli.services.diff import because, condition_holds, diff_acl_sets, diff_document


class DiffFormat(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    new_access = "new-access"
    lost_access = "lost-access"
    any_change = "any-change"


@app.command("diff", short_help="Compare two ACL sets: bindings, and exactly who gains or loses what.", help="""Compare two ACL sets (any format authz reads, rules files included): the bindings added
and removed, and the exact effect on decisions: every class of requests (principal, host,
operation, resource) that the two sets decide differently, with a witness request and a sentence
("User:bob can now WRITE every topic starting with `orders-` except `orders-audit`…"). Not sampled:
the request space is cut into the classes neither set can tell apart. Verdict: equivalent, more
permissive, less permissive, or both. Either side may be a live cluster: cluster:HOST:PORT (with
--command-config), e.g. `authz diff cluster:broker:9092 proposed.json`. Each change says why: the ACL
that decided it on each side and where that ACL was written (file:line, and the KafkaUser, role or
entry it came from); each added or removed binding says where it was written.

Broker settings apply to both sides (--super-users, --allow-everyone-if-no-acl-found,
--broker-config) unless given per side (--old-... / --new-...).

Exit codes: 0 done (and the --fail-on condition does not hold); 1 the --fail-on condition holds;
2 usage or input error.""")
def diff_cmd(
    old: Path = typer.Argument(..., help="The ACL set today (or cluster:HOST:PORT)."),
    new: Path = typer.Argument(..., help="The proposed ACL set (or cluster:HOST:PORT)."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of both ACL sets (default: "
                                                    "detected by content)."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    old_super_users: Optional[str] = typer.Option(None, "--old-super-users", help="super.users of the old side only."),
    new_super_users: Optional[str] = typer.Option(None, "--new-super-users", help="super.users of the new side only."),
    old_broker_config: Optional[Path] = typer.Option(None, "--old-broker-config", help="server.properties of the old "
                                                     "side only."),
    new_broker_config: Optional[Path] = typer.Option(None, "--new-broker-config", help="server.properties of the new "
                                                     "side only."),
    fmt: DiffFormat = typer.Option(DiffFormat.table, "--format", "-f", help="Output format."),
    fail_on: Optional[FailOn] = typer.Option(None, "--fail-on", help="Exit 1 when this holds."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the report to a file."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
) -> None:
    result = diff_acl_sets(old, new, option_value(acls_format), super_users, allow_everyone, broker_config,
                           old_super_users, new_super_users, old_broker_config, new_broker_config, command_config,
                           timeout, acls_options(option))
    if fmt is DiffFormat.json:
        write_json(diff_document(result), out)
    elif fmt is DiffFormat.markdown:
        write_output(to_markdown(result), out)
    elif out is not None:
        # The table a person would read, as plain text: -o must never be ignored.
        import io

        from kafka_authz_cli.cli.output import AuthzConsole

        buf = io.StringIO()
        _print(result, AuthzConsole(file=buf, width=120, color_system=None, highlight=False, soft_wrap=False))
        write_output(buf.getvalue(), out)
    else:
        _print(result, console)
    if fail_on is not None and condition_holds(result, fail_on.value):
        raise typer.Exit(1)


def to_markdown(result: DiffResult) -> str:
    lines = [f"### ACL change: **{result.verdict}**", "",
             f"{len(result.bindings.added)} binding(s) added, {len(result.bindings.removed)} removed; "
             f"{result.gained} access class(es) gained, {result.lost} lost.", ""]
    if result.merged:
        lines += ["| | change | witness | because |", "|---|---|---|---|"]
        for f in result.merged:
            mark = {"gained": "➕", "lost": "➖"}.get(f.direction, "≠")
            w = f.witness
            host = _witness_host(f)
            lines.append(f"| {mark} | {_md_cell(f.describe())} | `{_md_cell(w.principal)}` {w.operation.name} "
                         f"{w.resource_type.name}:`{_md_cell(w.resource_name)}` from {host} | "
                         f"{_md_cell(because(f, result))} |")
        lines.append("")
    for title, items in (("Added bindings", result.bindings.added), ("Removed bindings", result.bindings.removed)):
        if items:
            lines += [f"<details><summary>{title} ({len(items)})</summary>", "", "```"]
            lines += [b.standard_acl_str() for b in items[:500]]
            if len(items) > 500:
                lines.append(f"... and {len(items) - 500} more")
            lines += ["```", "</details>", ""]
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    """Text inside a markdown table cell: a '|' or a line break in a name must not end the cell."""
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _witness_host(f) -> str:
    host = describe_host(f.witness.host, f.host_classes, [f.witness.host])
    return host if host == f.witness.host else f"{f.witness.host} ({host})"


def _print(result: DiffResult, console) -> None:
    from rich.table import Table
    colour = {"equivalent": "green", "more permissive": "yellow", "less permissive": "cyan", "both": "magenta"}
    console.print(f"verdict: [bold {colour[result.verdict]}]{result.verdict}[/] "
                  f"({result.gained} class(es) gained, {result.lost} lost; "
                  f"{len(result.bindings.added)} binding(s) added, {len(result.bindings.removed)} removed)")
    how = "--format json or markdown"
    if result.merged:
        table = Table(header_style="bold", show_lines=True, title="decisions that change")
        table.add_column("")
        table.add_column("who can do what now", overflow="fold", ratio=3)
        table.add_column("witness request", overflow="fold", ratio=2)
        for f in result.merged[:MAX_TABLE_ROWS]:
            mark = {"gained": "[green]+[/]", "lost": "[red]-[/]"}.get(f.direction, "~")
            w = f.witness
            table.add_row(mark, cell(f.describe(), 4000) + "\n[dim]" + cell(because(f, result), 4000) + "[/]",
                          cell(f"{w.principal} {w.operation.name} {w.resource_type.name}:{w.resource_name!r} "
                               f"from {_witness_host(f)}", 4000))
        console.print(table)
        more = rows_not_shown(len(result.merged), MAX_TABLE_ROWS, how)
        if more:
            console.print(more, markup=False, highlight=False)
    groups: dict[tuple, list] = {}
    for sign, listed in (("+", result.bindings.added), ("-", result.bindings.removed)):
        for b in listed:
            groups.setdefault((b.resource_type.name, b.pattern_type.name, b.resource_name, b.principal), []).append(
                (sign, b))
    if groups:
        table = Table(header_style="bold", title="bindings")
        for col in ("", "resource", "principal", "host", "grant", "written at"):
            table.add_column(col, overflow="fold")
        total = sum(len(items) for items in groups.values())
        shown = 0
        for (rtype, pattern, name, principal), items in groups.items():
            for sign, b in items:
                if shown == MAX_TABLE_ROWS:
                    break
                shown += 1
                style = "green" if sign == "+" else "red"
                origin = (result.new_origins if sign == "+" else result.old_origins).get(b, "")
                table.add_row(f"[{style}]{sign}[/]", cell(f"{rtype}:{pattern}:{name}"), cell(principal), cell(b.host),
                              f"{b.permission.name} {b.operation.name}", cell(origin))
        console.print(table)
        more = rows_not_shown(total, shown, how)
        if more:
            console.print(more, markup=False, highlight=False)
