"""`authz policy check`: a declarative KIP-201 topic management policy, alone or with the ACLs."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    AclFormat,
    TableFormat,
    console,
    emit_rows,
    option_value,
)
from kafka_authz_cli.cli.options import AllowEveryone, BrokerConfig, SuperUsers, TableFormatOption
from kafka_authz_cli.services.policy import check_policy

policy_app = typer.Typer(help="KIP-201 topic management policy: create, alter, delete and delete-records "
                              "requests checked against a declarative policy (and the ACLs).", no_args_is_help=True)
app.add_typer(policy_app, name="policy", short_help="KIP-201: check topic management requests against a "
                                                    "declarative policy, with the ACLs.")

KIP_NOTE = ("KIP-201 was never merged into Kafka: brokers run CreateTopicPolicy (CreateTopics) and AlterConfigPolicy "
            "((Incremental)AlterConfigs), neither of which receives the principal, and DeleteTopics, DeleteRecords and "
            "CreatePartitions have no policy hook. authz decides what the KIP's TopicManagementPolicy would; the "
            "principal-dependent parts can only be enforced with ACLs.")


def print_rows(rows: list[dict], with_acls: bool) -> None:
    from rich.table import Table
    table = Table(header_style="bold", show_lines=True)
    for col in ("#", "request", "principal", "topic", "verdict", "why"):
        table.add_column(col, overflow="fold", no_wrap=col == "#")
    for i, r in enumerate(rows, 1):
        style = "green" if r["verdict"] == "ALLOWED" else "red"
        if r["verdict"] == "ALLOWED":
            why = f"policy: {r['policy_rule']}"
            if with_acls:
                why = f"ACLs: {r['acl_explanation']}\n" + why
        elif r["refused_by"] == "acls":
            why = f"[red]ACLs[/] ({escape(', '.join(r['acl_checks']))}): {escape(r['acl_explanation'])}"
            if r["broker_error"]:
                why += "\n[dim]the broker would refuse it too: " + escape(r["broker_error"]) + "[/]"
            elif not r["policy_allowed"]:
                why += "\n[dim]the policy would refuse it too: " + escape("; ".join(r["violations"])) + "[/]"
        else:
            who = "broker" if r["refused_by"] == "broker" else f"policy ({r['policy_rule']})"
            why = f"[red]{escape(who)}[/]: {escape(r['error'] or '')}"
        for n in r["notes"]:
            why += f"\n[yellow]note:[/] {escape(n)}"
        why += f"\n[dim]on a real broker: {escape(r['broker_hook'])}[/]"
        verdict = f"[{style}]{r['verdict']}[/]"
        if "expect" in r:
            verdict += "\n" + ("[green]as expected[/]" if r["ok"] else f"[red]expected {r['expect']}[/]")
        table.add_row(str(i), escape(r["request"]), escape(r["principal"]), escape(r["topic"]), verdict, why)
    console.print(table)


@policy_app.command("check", help=f"""Check topic management requests against a declarative KIP-201 policy.

REQUESTS is JSON lines, one request each: {{"request": "create|alter|delete|delete_records" (or CreateTopics,
CreatePartitions, AlterConfigs, IncrementalAlterConfigs, DeleteTopics, DeleteRecords), "principal":
"User:alice", "topic": "orders", "partitions": 12, "replication_factor": 3, "replica_assignments": {{"0":
[1,2,3]}}, "configs": {{"retention.ms": "86400000"}}, "delete_configs": [...], "offsets": {{"0": 100}},
"host": "10.0.0.1", "expect": "ALLOWED|DENIED"}}. Each is checked the way the KIP's TopicManagementPolicy
receives it: the requested state (partitions, replication factor from the assignments, the configs as they
will be: current ones plus the request's; AlterConfigs replaces them all) and the cluster state
(--cluster-state {{"brokers": 3, "topics": {{"orders": {{"partitions": 12, "replication_factor": 3,
"configs": {{...}}}}}}}}). Config bounds apply to the value the topic will have, falling back to the broker
default (--broker-config resolves log.retention.hours for retention.ms, ...). Values are read as their
ConfigDef type reads them (Kafka --kafka-version's topic configs, default the newest authz has read), and
the special values are compared as what they mean: retention.ms and retention.bytes below 0 (no limit),
local.retention.*=-2 (the total's value) and -1, Long.MAX_VALUE (never) and an empty cleanup.policy (no
cleanup: retention unbounded) are infinite, so they pass every min and violate every max. What the broker
refuses before any policy (an existing topic, an invalid config value or name as INVALID_CONFIG with
Kafka's message, fewer partitions, a replication factor above the broker count) is reported as the
broker's error.

With --acls the verdict is the request's, as a broker gives it: authorized by the ACLs first (CreateTopics:
CREATE on the cluster, else on the topic; CreatePartitions: ALTER; AlterConfigs: ALTER_CONFIGS; DeleteTopics
and DeleteRecords: DELETE), then the broker's own checks, then the policy; the refusing step is named.

{KIP_NOTE}

Exit codes: 0 every verdict computed (and every expectation met); 1 an expectation failed, or with
--fail-on-deny a request is refused; 2 usage or input error.""",
                    short_help="Check create/alter/delete requests against a KIP-201 policy (and the ACLs).")
def check(
    requests: Path = typer.Argument(..., help="Requests, JSON lines."),
    policy: Path = typer.Option(..., "--policy", help="The policy file (JSON or TOML)."),
    cluster_state: Optional[Path] = typer.Option(None, "--cluster-state", help="Current topics and broker count."),
    broker_config: BrokerConfig = None,
    acls: Optional[Path] = typer.Option(None, "--acls", help="Also decide each request with these ACLs."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of --acls (default: detected "
                                                    "by content)."),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    fail_on_deny: bool = typer.Option(False, "--fail-on-deny", help="Exit 1 when any request is refused."),
    fmt: TableFormatOption = TableFormat.table,
    kafka_version: Optional[str] = typer.Option(None, "--kafka-version", help="Read topic configs as this Kafka "
                                                "version does (e.g. 3.9; default: the newest authz has read)."),
) -> None:
    rows = check_policy(requests, policy, cluster_state, broker_config, acls, option_value(acls_format), super_users,
                        allow_everyone, kafka_version)
    if fmt is TableFormat.table:
        print_rows(rows, acls is not None)
        refused = sum(1 for r in rows if r["verdict"] != "ALLOWED")
        console.print(f"{len(rows)} request(s): {len(rows) - refused} allowed, {refused} refused")
        failed = [r for r in rows if r.get("ok") is False]
        if any("expect" in r for r in rows):
            console.print(f"[red]{len(failed)} expectation(s) failed[/]" if failed else "[green]all expectations met[/]")
        console.print(f"[dim]{escape(KIP_NOTE)}[/]", soft_wrap=True)
    else:
        emit_rows(rows, fmt)
    if any(r.get("ok") is False for r in rows) or (fail_on_deny and any(r["verdict"] != "ALLOWED" for r in rows)):
        raise typer.Exit(1)


def print_simulate_policy(row: dict) -> None:
    style = "green" if row["verdict"] == "ALLOWED" else "red"
    line = (f"Request {row['request']} {escape(row['topic'])} by {escape(row['principal'])}: "
            f"[{style}]{row['verdict']}[/]")
    if row["verdict"] != "ALLOWED":
        line += f" (refused by the {row['refused_by']}: {escape(row['error'] or '')})"
    else:
        line += f" (ACLs allow it; policy {escape(row['policy_rule'] or '')})"
    console.print(line, soft_wrap=True)
    for n in row["notes"]:
        console.print(f"[yellow]note:[/] {escape(n)}", soft_wrap=True)
    console.print(f"[dim]on a real broker: {escape(row['broker_hook'])}[/]", soft_wrap=True)
