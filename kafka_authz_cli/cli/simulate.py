"""`authz simulate`: decide requests exactly as Kafka's StandardAuthorizer would."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.acl.apikeys import parse_api_key
from kafka_authz_cli.acl.engine import Decision, Request
from kafka_authz_cli.acl.model import (
    CLUSTER_NAME,
    AclError,
    AclOperation,
    ResourceType,
    java_host_address,
)
from kafka_authz_cli.acl.requests import RequestSpec, parse_requests
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    MAX_TABLE_ROWS,
    AclFormat,
    TableFormat,
    cell,
    console,
    emit_rows,
    option_value,
    rows_not_shown,
)
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats.reading import read_text
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.sources import load_source

HELP = """Decide requests as Kafka's KRaft StandardAuthorizer would, and say which rule decided.

One request from flags (--principal, --operation and one resource option, as in kafka-acls), or
many from --requests FILE (JSON lines or CSV: principal,host,operation,resource_type,resource_name
and optionally api_key|request, resource_ref_count, log_if_allowed, log_if_denied, expect). A file
with an `expect` column is an ACL test suite: every mismatch is listed and the exit code is 1.

Where Kafka throws or never returns, the outcome is ERROR or NON_TERMINATING instead of a
decision; a request file may expect that (`expect` ERROR / NON_TERMINATING). The table shows the
first 200 requests and says how many more there are; --format json, jsonl or csv lists all.

Exit codes: 0 every decision made (and every expectation met); 1 an expectation failed;
2 usage or input error; 3 a request the file does not expect to fail ended in ERROR or
NON_TERMINATING (the broker would throw or never answer).
"""

#: Exit code when a request gets no decision (ERROR / NON_TERMINATING) and the file did not expect it.
EXIT_NO_DECISION = 3


def _single_resource(topic, group, transactional_id, cluster, delegation_token, user_principal):
    given = [(ResourceType.TOPIC, topic), (ResourceType.GROUP, group),
             (ResourceType.TRANSACTIONAL_ID, transactional_id),
             (ResourceType.CLUSTER, CLUSTER_NAME if cluster else None),
             (ResourceType.DELEGATION_TOKEN, delegation_token), (ResourceType.USER, user_principal)]
    chosen = [(t, n) for t, n in given if n is not None]
    if len(chosen) != 1:
        raise typer.BadParameter("give exactly one of --topic, --group, --transactional-id, --cluster, "
                                 "--delegation-token, --user-principal", param_hint="resource")
    return chosen[0]


def _row(spec: RequestSpec, d: Decision, notes: list[str], origins: dict) -> dict:
    r = spec.request
    row = {
        "principal": r.principal,
        "host": r.host,
        "operation": r.operation.name,
        "resource_type": r.resource_type.name,
        "resource_name": r.resource_name,
        "decision": d.decision,
        "outcome": d.outcome.value,
        "rule": d.rule,
        "explanation": d.explain(),
        "audit": d.audit,
        "audit_level": d.audit_level,
        "client_address": d.client_address,
        "acl": d.acl.as_dict() if d.acl else None,
        "acl_origin": origins.get(d.acl) if d.acl else None,
        "notes": notes,
        "error": d.error,
        "origin": spec.origin,
    }
    if spec.expect is not None:
        row["expect"] = spec.expect
        row["ok"] = _met(spec, d)
    return row


def _met(spec: RequestSpec, d: Decision) -> bool:
    return (d.decision or d.outcome.value) == spec.expect


@app.command("simulate", help=HELP, short_help="Decide requests exactly as Kafka's StandardAuthorizer does, with the deciding rule.")
def simulate(
    acls: Optional[Path] = typer.Argument(None, help="ACL set: canonical JSON, kafka-acls --list text, KSM CSV "
                                                     "or a rules file (detected by content).", show_default=False),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override format detection."),
    principal: Optional[str] = typer.Option(None, "--principal", help="Request principal, e.g. User:alice."),
    operation: Optional[str] = typer.Option(None, "--operation", help="READ, Write, IdempotentWrite, ..."),
    topic: Optional[str] = typer.Option(None, "--topic", help="TOPIC resource name."),
    group: Optional[str] = typer.Option(None, "--group", help="GROUP resource (consumer group id)."),
    transactional_id: Optional[str] = typer.Option(None, "--transactional-id", help="TRANSACTIONAL_ID resource."),
    cluster: bool = typer.Option(False, "--cluster", help="The cluster resource (kafka-cluster)."),
    delegation_token: Optional[str] = typer.Option(None, "--delegation-token", help="DELEGATION_TOKEN resource "
                                                   "(token id)."),
    user_principal: Optional[str] = typer.Option(None, "--user-principal", help="USER resource, e.g. User:bob."),
    host: str = typer.Option("127.0.0.1", "--host", help="Client IP address (as the broker sees it)."),
    request_type: Optional[str] = typer.Option(None, "--request", help="Request type for the audit line: "
                                                                      "Fetch, Produce or an ApiKeys id."),
    requests: Optional[Path] = typer.Option(None, "--requests", help="Many requests: JSON lines or CSV."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Decide with a Kroxylicious rules file as the "
                                                               "proxy would (instead of ACLs)."),
    types: Optional[Path] = typer.Option(None, "--types", help="Extra principal/resource classes for --rules."),
    super_users: Optional[str] = typer.Option(None, "--super-users", help='super.users, e.g. "User:a;User:b".'),
    allow_everyone: Optional[bool] = typer.Option(None, "--allow-everyone-if-no-acl-found/--deny-if-no-acl-found",
                                                  help="allow.everyone.if.no.acl.found (default false).",
                                                  show_default=False),
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="Read super.users and "
                                                 "allow.everyone.if.no.acl.found from a server.properties."),
    authorized_operations: bool = typer.Option(False, "--authorized-operations",
                                               help="List every operation the principal may perform on the "
                                                    "resource (what Kafka returns per KIP-430)."),
    fmt: TableFormat = typer.Option(TableFormat.table, "--format", "-f", help="Output format."),
    tls_dn: Optional[str] = typer.Option(None, "--tls-dn", help="Instead of --principal: the client "
                                         "certificate's DN, mapped as ssl.principal.mapping.rules does."),
    kerberos_principal: Optional[str] = typer.Option(None, "--kerberos-principal", help="Instead of "
                                                     "--principal: a Kerberos name, mapped by the auth_to_local rules."),
    ssl_mapping_rules: Optional[str] = typer.Option(None, "--ssl-mapping-rules", help="ssl.principal.mapping.rules "
                                                    "(default: from --broker-config, else DEFAULT)."),
    kerberos_rules: Optional[list[str]] = typer.Option(None, "--kerberos-rules", help="One auth_to_local rule "
                                                       "(repeatable; default: from --broker-config, else DEFAULT)."),
    kerberos_realm: Optional[str] = typer.Option(None, "--kerberos-realm", help="The broker's default realm."),
    listener: Optional[str] = typer.Option(None, "--listener", help="Listener whose listener.name.<l>. keys "
                                           "of --broker-config apply."),
    topic_policy: Optional[Path] = typer.Option(None, "--topic-policy", help="A KIP-201 policy file: give the "
                                                "request-level verdict (ACLs, then the policy) for Create, Alter, "
                                                "AlterConfigs or Delete on --topic."),
    partitions: Optional[int] = typer.Option(None, "--partitions", help="With --topic-policy: requested partitions."),
    replication_factor: Optional[int] = typer.Option(None, "--replication-factor",
                                                     help="With --topic-policy: requested replication factor."),
    topic_configs: Optional[list[str]] = typer.Option(None, "--config", help="With --topic-policy: a requested "
                                                      "topic config key=value (repeatable)."),
    cluster_state: Optional[Path] = typer.Option(None, "--cluster-state", help="With --topic-policy: current "
                                                 "topics (JSON)."),
) -> None:
    mapping = None
    if tls_dn is not None or kerberos_principal is not None or ssl_mapping_rules is not None or kerberos_rules:
        from kafka_authz_cli.cli.principal import print_mapping_step  # (mapping only)
        from kafka_authz_cli.services.principal import map_connection

        mapping = map_connection(tls_dn, kerberos_principal, ssl_mapping_rules, kerberos_rules, kerberos_realm,
                                 broker_config, listener)
    if mapping is not None:
        if principal is not None or requests is not None:
            raise typer.BadParameter("--tls-dn/--kerberos-principal replace --principal and --requests",
                                     param_hint="--tls-dn")
        if not mapping["ok"]:
            if fmt is TableFormat.table:
                print_mapping_step(mapping)
            else:
                emit_rows([{"mapping": mapping, "decision": None, "outcome": "AUTHENTICATION_FAILED"}], fmt)
            raise typer.Exit(1)
        principal = mapping["principal"]
    specs = _requests_from_args(requests, principal, operation, topic, group, transactional_id, cluster,
                                delegation_token, user_principal, host, request_type, authorized_operations)
    if rules is not None:
        if acls is not None:
            raise typer.BadParameter("give either ACLS or --rules, not both", param_hint="--rules")
        _simulate_rules(rules, types, specs, fmt)
        return
    if acls is None:
        raise typer.BadParameter("an ACL file is required (or --rules FILE)", param_hint="ACLS")
    settings = broker_settings(super_users, allow_everyone, broker_config)
    acl_set = load_source(acls, option_value(acls_format))
    authorizer = settings.authorizer(acl_set)

    if authorized_operations:
        if mapping is not None and fmt is TableFormat.table:
            print_mapping_step(mapping)
        _print_authorized_operations(authorizer, specs[0].request, fmt)
        return

    if topic_policy is not None:
        from kafka_authz_cli.cli.policy import (
            print_simulate_policy,
            simulate_topic_policy,
        )

        r = specs[0].request
        if requests is not None or r.resource_type is not ResourceType.TOPIC:
            raise typer.BadParameter("--topic-policy takes one request from flags on a --topic (use `authz policy "
                                     "check --acls` for many)", param_hint="--topic-policy")
        row = simulate_topic_policy(topic_policy, authorizer, r.principal, r.host, r.operation.name, r.resource_name,
                                    partitions, replication_factor, topic_configs or [], cluster_state, broker_config)
        if mapping is not None:
            row["mapping"] = mapping
        if fmt is TableFormat.table:
            if mapping is not None:
                print_mapping_step(mapping)
            print_simulate_policy(row)
        else:
            emit_rows([row], fmt)
        return
    decisions = _decide(authorizer, specs)
    origins = {}
    for binding, origin in zip(acl_set.bindings, acl_set.origins):
        origins.setdefault(binding, origin)
    expected = sum(1 for s in specs if s.expect is not None)
    failed = [i for i, (s, d) in enumerate(zip(specs, decisions)) if s.expect is not None and not _met(s, d)]
    no_decision = [i for i, (s, d) in enumerate(zip(specs, decisions)) if d.decision is None and s.expect is None]

    def row(i: int) -> dict:
        r = _row(specs[i], decisions[i], authorizer.notes(decisions[i]), origins)
        if mapping is not None:
            r["mapping"] = mapping
        return r

    if fmt is TableFormat.table:
        if mapping is not None:
            print_mapping_step(mapping)
        # Rows are built only for what is shown: 100,000 requests print in seconds.
        _print_table([(i + 1, row(i)) for i in range(min(len(specs), MAX_TABLE_ROWS))])
        more = rows_not_shown(len(specs), MAX_TABLE_ROWS)
        if more:
            console.print(more, markup=False, highlight=False)
            console.print(_outcome_counts(decisions), markup=False, highlight=False)
        if expected:
            if failed:
                console.print(f"[bold red]{len(failed):,} of {expected:,} expectations failed[/]")
                for i in failed[:MAX_TABLE_ROWS]:
                    r = row(i)
                    console.print(cell(f"  {r['origin']}: {r['principal']} {r['operation']} "
                                       f"{r['resource_type']}:{r['resource_name']} expected {r['expect']}, "
                                       f"got {r['decision'] or r['outcome']}: {r['explanation']}", 4000))
                if len(failed) > MAX_TABLE_ROWS:
                    console.print(f"  ... and {len(failed) - MAX_TABLE_ROWS:,} more; --format jsonl lists every "
                                  "row with its `ok` field", markup=False, highlight=False)
            else:
                console.print(f"[green]all {expected:,} expectations met[/]")
        if no_decision:
            console.print(f"[bold magenta]{len(no_decision):,} request(s) got no decision[/] (ERROR or "
                          "NON_TERMINATING: the broker would throw or never answer), first at "
                          f"{cell(specs[no_decision[0]].origin)}; exit code {EXIT_NO_DECISION}")
    else:
        emit_rows([row(i) for i in range(len(specs))], fmt)
    if failed:
        raise typer.Exit(1)
    if no_decision:
        raise typer.Exit(EXIT_NO_DECISION)


def _outcome_counts(decisions: list[Decision]) -> str:
    counts: dict[str, int] = {}
    for d in decisions:
        counts[d.outcome.value] = counts.get(d.outcome.value, 0) + 1
    return f"{len(decisions):,} requests: " + ", ".join(f"{n:,} {k}" for k, n in counts.items())


def _decide(authorizer, specs: list[RequestSpec]) -> list[Decision]:
    requests = [s.request for s in specs]
    if len(requests) < 100_000:
        return authorizer.authorize_many(requests)
    from rich.progress import Progress

    from kafka_authz_cli.cli.common import err_console

    decisions: list[Decision] = []
    chunk = 20_000
    with Progress(console=err_console, transient=True) as progress:
        task = progress.add_task("deciding", total=len(requests))
        for start in range(0, len(requests), chunk):
            decisions.extend(authorizer.authorize_many(requests[start:start + chunk]))
            progress.advance(task, min(chunk, len(requests) - start))
    return decisions


def _requests_from_args(requests, principal, operation, topic, group, transactional_id, cluster,
                        delegation_token, user_principal, host, request_type, authorized_operations):
    if requests is not None:
        if any(v is not None for v in (principal, operation, topic, group, transactional_id, delegation_token,
                                       user_principal)) or cluster:
            raise typer.BadParameter("--requests cannot be combined with a single-request option",
                                     param_hint="--requests")
        if authorized_operations:
            raise typer.BadParameter("--authorized-operations takes a single request from flags",
                                     param_hint="--authorized-operations")
        specs = parse_requests(read_text(requests), str(requests))
        if not specs:
            raise InputError("no requests in file", str(requests))
        return specs
    if principal is None:
        raise typer.BadParameter("give --principal (or --requests FILE)", param_hint="--principal")
    if operation is None and not authorized_operations:
        raise typer.BadParameter("give --operation", param_hint="--operation")
    rtype, name = _single_resource(topic, group, transactional_id, cluster, delegation_token, user_principal)
    try:
        op = AclOperation.parse(operation) if operation else AclOperation.ALL
        from kafka_authz_cli.acl.model import KafkaPrincipal

        KafkaPrincipal.parse(principal)
        java_host_address(host)
        api_key = parse_api_key(request_type)
    except (AclError, ValueError) as exc:
        raise AuthzError(str(exc)) from None
    return [RequestSpec(Request(principal, host, op, rtype, name, api_key=api_key), None, "flags")]


def _explain_style(row: dict) -> str:
    return {"ALLOWED": "green", "DENIED": "red"}.get(row["decision"] or "", "magenta")


def _print_table(rows: list[tuple[int, dict]]) -> None:
    from rich.table import Table

    table = Table(show_lines=True, header_style="bold")
    has_expect = any("expect" in r for _, r in rows)
    for col in ("#", "principal", "host", "operation", "resource", "decision"):
        table.add_column(col, overflow="fold", no_wrap=col in ("#", "decision"))
    table.add_column("why", overflow="fold", ratio=3)
    if has_expect:
        table.add_column("expect")
    for i, r in rows:
        style = _explain_style(r)
        decision = r["decision"] or r["outcome"]
        why = cell(r["explanation"], 4000)
        if r["acl_origin"]:
            why += f" [dim]({cell(r['acl_origin'])})[/]"
        elif r["rule"]:
            why += f" [dim]({cell(r['rule'])})[/]"
        for note in r["notes"]:
            why += f"\n[yellow]note:[/] {cell(note, 4000)}"
        cells = [str(i), cell(r["principal"]), cell(r["client_address"]), r["operation"],
                 cell(f"{r['resource_type']}:{r['resource_name']}"), f"[{style}]{decision}[/]", why]
        if has_expect:
            cells.append("" if "expect" not in r else ("[green]ok[/]" if r["ok"] else f"[red]expected {r['expect']}[/]"))
        table.add_row(*cells)
    console.print(table)


def _print_authorized_operations(authorizer, request: Request, fmt: TableFormat) -> None:
    ops = authorizer.authorized_operations(request.principal, request.host, request.resource_type,
                                           request.resource_name)
    if fmt is TableFormat.table:
        what = f"{request.resource_type.name}:{request.resource_name}"
        if ops:
            console.print(f"{request.principal} from {request.host} may on {what}: "
                          + ", ".join(o.name for o in ops), markup=False, highlight=False)
        else:
            console.print(f"{request.principal} from {request.host} may do nothing on {what}", markup=False,
                          highlight=False)
    else:
        emit_rows([{"principal": request.principal, "host": request.host,
                    "resource_type": request.resource_type.name, "resource_name": request.resource_name,
                    "operation": o.name} for o in ops], fmt)


def _simulate_rules(rules: Path, types: Optional[Path], specs: list[RequestSpec], fmt: TableFormat) -> None:
    from rich.table import Table

    from kafka_authz_cli.rules.compile import load_checked
    from kafka_authz_cli.rules.simulate import decide_requests
    from kafka_authz_cli.services.sources import load_registry

    registry = load_registry(types)
    checked = load_checked(read_text(rules), str(rules), registry)
    results = decide_requests(checked, [s.request for s in specs])
    rows = []
    for spec, res in zip(specs, results):
        r = spec.request
        row = {"principal": r.principal, "operation": r.operation.name, "resource_type": r.resource_type.name,
               "resource_name": r.resource_name, "decision": res.decision, "rule": res.rule,
               "documented_decision": res.documented_decision, "quirk": res.quirk, "origin": spec.origin}
        if spec.expect is not None:
            row["expect"] = spec.expect
            row["ok"] = res.decision == spec.expect
        rows.append(row)
    failures = [r for r in rows if r.get("ok") is False]
    if fmt is TableFormat.table:
        table = Table(header_style="bold", show_lines=True)
        for col in ("#", "principal", "operation", "resource", "proxy decides", "rule", "note"):
            table.add_column(col, overflow="fold")
        for i, row in enumerate(rows[:MAX_TABLE_ROWS], 1):
            style = "green" if row["decision"] == "ALLOWED" else "red"
            note = f"[yellow]{cell(row['quirk'], 4000)}[/]" if row["quirk"] else ""
            if row.get("ok") is False:
                note = f"[red]expected {row['expect']}[/] {note}"
            elif row.get("ok"):
                note = f"[green]ok[/] {note}"
            table.add_row(str(i), cell(row["principal"]), row["operation"],
                          cell(f"{row['resource_type']}:{row['resource_name']}"), f"[{style}]{row['decision']}[/]",
                          cell(row["rule"]), note)
        console.print(table)
        more = rows_not_shown(len(rows), MAX_TABLE_ROWS)
        if more:
            console.print(more, markup=False, highlight=False)
        if any(s.expect for s in specs):
            n = sum(1 for s in specs if s.expect)
            console.print(f"[bold red]{len(failures)} of {n} expectations failed[/]" if failures
                          else f"[green]all {n} expectations met[/]")
    else:
        emit_rows(rows, fmt)
    if failures:
        raise typer.Exit(1)
