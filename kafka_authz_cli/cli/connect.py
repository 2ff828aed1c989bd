"""`authz connect check-overrides`: KIP-458 connector client config overrides, as a worker judges them."""

from __future__ import annotations

import csv
import io
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import console, write_json, write_output
from kafka_authz_cli.cli.options import BrokerConfig, ClientHost, ReportFormat, ReportFormatOption, SuperUsers
from kafka_authz_cli.connect import PREFIXES, hide_secret
from kafka_authz_cli.services.connect import (
    MappingOptions,
    OverridesReport,
    check_connector_overrides,
    overrides_document,
)

connect_app = typer.Typer(help="Kafka Connect: KIP-458 connector client config override policies.",
                          no_args_is_help=True)
app.add_typer(connect_app, name="connect", short_help="Kafka Connect: which client overrides the KIP-458 policy "
                                                      "allows, and who the connector connects as.")


class ConnectorType(str, Enum):
    source = "source"
    sink = "sink"


@connect_app.command("check-overrides", help="""Which producer.override.*, consumer.override.* and admin.override.*
keys of a connector the worker's policy allows, with Kafka's messages, and who the connector connects as.

The file is read by its content, whatever its name: a REST create body ({"name": ..., "config": {...}},
POST /connectors; a ConnectorInfo too), a REST config body (the flat config of PUT
/connectors/NAME/config: its name is the URL's, give it with --name; a "name" inside must equal it, as
Connect requires), a Strimzi KafkaConnector resource (YAML or JSON: metadata.name, spec.class,
spec.tasksMax, spec.config as Strimzi sends it), or a .properties connector file (connect-standalone). A
UTF-8 byte-order mark before JSON is skipped, as Connect's JSON reader skips it. Several connectors (a YAML
stream, a JSON list, GET /connectors?expand=info) are each checked; --name picks one. A file that is no
connector configuration (a broker's server.properties, a worker config, a KafkaUser, ...) is refused
saying what it is: Connect requires name and connector.class.

The policy is --policy (None, Principal, All, or a class name), else the worker's
connector.client.config.override.policy (--worker worker.properties), else the default All. Principal
allows exactly sasl.jaas.config, sasl.mechanism and security.protocol. Keys are matched exactly (case,
spaces). Only the clients the connector uses are checked: source -> producer (+ admin with
topic.creation.*), sink -> consumer (+ producer and admin with a dead letter queue); overrides for other
clients are never applied. Source or sink: the file's "type" (a ConnectorInfo), else the class name
(*SinkConnector/*Sink, *SourceConnector/*Source, MirrorMaker 2, Debezium), else a sink if it sets topics
or topics.regex; --type to say.

For each client: the effective config (worker defaults, the worker's producer./consumer./admin. settings,
then the allowed overrides; secrets hidden) and the principal it connects as (SASL username from
sasl.jaas.config read as Kafka's JaasConfig reads it, Kerberos name mapped with
--kerberos-rules/--broker-config, a certificate given with --client-cert, ANONYMOUS for PLAINTEXT). With
--acls, the ACLs that principal needs (write/read its topics, read its group, the dead letter queue) are
decided exactly as the broker would; --emit-requests writes them as an `authz simulate --requests` test
suite.

Exit codes: 0 Connect accepts every connector and its tasks start (and, with --acls, every needed ACL
allows); 1 Connect refuses a connector or its task fails to start: an override the policy rejects, or a
client that cannot be built (a sasl.jaas.config Kafka's JaasConfig refuses or with more than one login
module, an invalid security.protocol), or, with --acls, a needed ACL denies; 2 usage or input error,
including a file that is no connector configuration.""",
                     short_help="KIP-458: which connector client overrides the worker's policy allows.")
def check_overrides(
    connector: Path = typer.Argument(..., help="Connector file: REST JSON, KafkaConnector YAML or .properties "
                                               "(by content)."),
    name: Optional[str] = typer.Option(None, "--name", help="The connector's name: the URL's for a PUT "
                                       "/connectors/NAME/config body; in a file of several, the one to check."),
    policy: Optional[str] = typer.Option(None, "--policy", help="None, Principal, All or a policy class name."),
    worker: Optional[Path] = typer.Option(None, "--worker", help="worker.properties."),
    connector_type: Optional[ConnectorType] = typer.Option(None, "--type", help="source or sink (default: inferred)."),
    acls: Optional[Path] = typer.Option(None, "--acls", help="Decide the ACLs the connector needs against this set."),
    topics: Optional[list[str]] = typer.Option(None, "--topic", help="Topics the connector uses (repeatable)."),
    host: ClientHost = "127.0.0.1",
    broker_config: BrokerConfig = None,
    super_users: SuperUsers = None,
    ssl_mapping_rules: Optional[str] = typer.Option(None, "--ssl-mapping-rules", help="ssl.principal.mapping.rules "
                                                    "of the brokers (default: DEFAULT)."),
    client_cert: Optional[Path] = typer.Option(None, "--client-cert", help="The certificate in the connector's "
                                               "keystore (PEM/DER), to map its DN."),
    kerberos_rules: Optional[list[str]] = typer.Option(None, "--kerberos-rules", help="One "
                                                       "sasl.kerberos.principal.to.local.rules rule (repeatable; "
                                                       "default: DEFAULT)."),
    kerberos_realm: Optional[str] = typer.Option(None, "--kerberos-realm", help="The brokers' default Kerberos realm."),
    emit_requests: Optional[Path] = typer.Option(None, "--emit-requests", help="Write the needed ACL checks as "
                                                 "an authz simulate requests CSV (expect ALLOWED)."),
    fmt: ReportFormatOption = ReportFormat.table,
) -> None:
    mapping = MappingOptions(broker_config, ssl_mapping_rules, client_cert, kerberos_rules, kerberos_realm)
    reports = check_connector_overrides(connector, policy, worker, connector_type.value if connector_type else None,
                                        topics, mapping, acls, host, super_users, name)
    if emit_requests is not None:
        _write_requests([a for r in reports for a in r.actions], host, emit_requests)
    if fmt is ReportFormat.json:
        docs = [overrides_document(r) for r in reports]
        write_json(docs[0] if len(docs) == 1 else docs, None)
    else:
        for i, r in enumerate(reports):
            if i:
                console.print()
            _print(r)
    if any(r.rejected or r.denied for r in reports):
        raise typer.Exit(1)


def _write_requests(actions, host: str, path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["principal", "host", "operation", "resource_type", "resource_name", "expect", "comment"])
    skipped = 0
    for a in actions:
        if a.principal is None:
            skipped += 1
            continue
        w.writerow([a.principal, host, a.operation, a.resource_type, a.resource_name, "ALLOWED",
                    f"{a.client.lower()}: {a.why}"])
    write_output(buf.getvalue(), path)
    if skipped:
        console.print(f"[yellow]{skipped} needed ACL check(s) left out of {path}: the principal is not known "
                      "offline[/]")


def _print(report: OverridesReport) -> None:
    result = report.check
    console.print(f"Connector [bold]{escape(result.name)}[/] ({escape(report.shape)}): {result.connector_type} "
                  f"({escape(result.type_reason)}); policy [bold]{result.policy}[/] ({escape(result.policy_source)})",
                  soft_wrap=True)
    _print_overrides(result)
    for c in result.clients:
        if not c.used:
            continue
        ident = c.identity
        who = f"[green]{escape(ident.principal)}[/]" if ident and ident.principal else "[yellow]unknown offline[/]"
        console.print(f"{c.client.lower()} connects as {who}: {escape(ident.how if ident else '')}", soft_wrap=True)
        exc = c.shown_worker_exception()
        if exc:
            console.print(f"[red]task start fails:[/] {escape(exc)}", soft_wrap=True)
        if c.start_error:
            console.print(f"[red]task start fails:[/] the {c.client.lower()} cannot be built: {escape(c.start_error)}",
                          soft_wrap=True)
    if result.rest_error_count:
        console.print(f"REST validation reports {result.rest_error_count} error(s)")
    for n in report.notes:
        console.print(f"[yellow]note:[/] {escape(n)}", soft_wrap=True)
    if report.actions:
        _print_needed_acls(report)


def _print_overrides(result) -> None:
    from rich.table import Table
    table = Table(header_style="bold")
    for col in ("client", "override", "value", "verdict"):
        table.add_column(col, overflow="fold")
    any_rows = False
    for c in result.clients:
        for v in c.values:
            any_rows = True
            if not c.used:
                verdict = "[dim]not used by this connector: never applied[/]"
            elif v.error_messages:
                verdict = f"[red]{escape(v.error_messages[0])}[/]"
            else:
                verdict = "[green]allowed[/]"
            table.add_row(c.client, escape(PREFIXES[c.client] + v.name), escape(hide_secret(v).value), verdict)
    if any_rows:
        console.print(table)
    else:
        console.print("no client overrides")


def _print_needed_acls(report: OverridesReport) -> None:
    from rich.table import Table
    with_acls = report.decisions is not None
    t = Table(header_style="bold", title="ACLs the connector needs")
    for col in ("client", "principal", "operation", "resource", "why") + (("decision",) if with_acls else ()):
        t.add_column(col, overflow="fold")
    for i, a in enumerate(report.actions):
        row = [a.client, escape(a.principal or "(unknown)"), a.operation, escape(f"{a.resource_type}:"
                                                                                  f"{a.resource_name}"),
               escape(a.why)]
        if report.decisions is not None:
            d = report.decisions[i]
            if d is None:
                row.append("[yellow]principal unknown[/]")
            else:
                style = "green" if d.decision == "ALLOWED" else "red"
                row.append(f"[{style}]{d.decision or d.outcome.value}[/] [dim]{escape(d.explain())}[/]")
        t.add_row(*row)
    console.print(t)
