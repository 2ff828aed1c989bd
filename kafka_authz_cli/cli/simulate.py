"""`authz simulate`: decide requests exactly as Kafka's StandardAuthorizer would."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    MAX_TABLE_ROWS,
    AclFormat,
    TableFormat,
    acls_options,
    cell,
    console,
    emit_rows,
    option_value,
    rows_not_shown,
    stream_rows,
)
from kafka_authz_cli.cli.options import (
    AllowEveryone,
    BrokerConfig,
    ClientHost,
    Listener,
    RuleTypes,
    SuperUsers,
    TableFormatOption,
)
from kafka_authz_cli.services.simulate import (
    ApiCall,
    AuthorizedOperations,
    Decisions,
    DecisionTally,
    MappingFailed,
    RulesDecisions,
    SimulateOptions,
    SimulationResult,
    TopicPolicyVerdict,
    run_simulation,
)

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

HELP = """Decide requests as Kafka's KRaft StandardAuthorizer would, and say which rule decided.

One request from flags (--principal, --operation and one resource option, as in kafka-acls), or
many from --requests FILE (JSON lines or CSV: principal,host,operation,resource_type,resource_name
and optionally api_key|request, resource_ref_count, log_if_allowed, log_if_denied, expect). A file
with an `expect` column is an ACL test suite: every mismatch is listed and the exit code is 1.
Requests are read and decided one at a time and json, jsonl and csv rows are written as they are
decided, so memory does not grow with the request file (a JSON-array request file is read whole).

Where Kafka throws or never returns, the outcome is ERROR or NON_TERMINATING instead of a
decision; a request file may expect that (`expect` ERROR / NON_TERMINATING). The table shows the
first 200 requests and says how many more there are; --format json, jsonl or csv lists all.

--api NAME checks one client request the way the broker's handler for it does (Kafka's KafkaApis,
AuthHelper, the group, share and transaction coordinators, ControllerApis): every authorization it makes,
in order, with its decision and deciding ACL, what a denial does (fails the request, fails one topic or
group, leaves it out of the answer silently, or falls back to another check) and the answer the client
gets. The request's resources: --topic (repeatable), --group, --transactional-id, --cluster (broker
configs); --allow-auto-create (Metadata), --all-topics, --topic-absent, --two-phase-commit, --kafka-version.
E.g. --api Produce --topic T --transactional-id X; --api OffsetCommit --group G --topic T; --api Metadata
--topic T --allow-auto-create; --api InitProducerId (idempotent: IDEMPOTENT_WRITE or WRITE on any topic).

Exit codes: 0 every decision made (and every expectation met; with --api: the request is answered without
error); 1 an expectation failed (with --api: the client gets an error); 2 usage or input error; 3 a request
the file does not expect to fail ended in ERROR or NON_TERMINATING (the broker would throw or never answer).
"""

#: Exit code when a request gets no decision (ERROR / NON_TERMINATING) and the file did not expect it.
EXIT_NO_DECISION = 3


API_OPTION = typer.Option(None, "--api", help="Check one client request (an ApiKeys name: Produce, Fetch, Metadata, "
                          "OffsetCommit, InitProducerId, CreateTopics, ListGroups, ShareGroupHeartbeat, ...) as the "
                          "broker's handler checks it.")
ALLOW_AUTO_CREATE_OPTION = typer.Option(False, "--allow-auto-create", help="With --api Metadata: the request allows "
                                        "auto-creation (producers do).")
ALL_TOPICS_OPTION = typer.Option(False, "--all-topics", help="With --api Metadata: every topic (listTopics); the --topic "
                                 "values are the cluster's topics it should see.")
TOPIC_ABSENT_OPTION = typer.Option(False, "--topic-absent", help="With --api: the topics do not exist.")
TWO_PHASE_COMMIT_OPTION = typer.Option(False, "--two-phase-commit", help="With --api InitProducerId: "
                                       "transaction.two.phase.commit.enable (KIP-939).")
KAFKA_VERSION_OPTION = typer.Option(None, "--kafka-version", help="With --api: the broker's release (3.0 to 4.1; "
                                    "default 4.1).")


@app.command("simulate", help=HELP, short_help="Decide requests exactly as Kafka's StandardAuthorizer does, with the deciding rule.")
def simulate(
    acls: Optional[Path] = typer.Argument(None, help="ACL set: canonical JSON, kafka-acls --list text, KSM CSV "
                                                     "or a rules file (detected by content).", show_default=False),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override format detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    principal: Optional[str] = typer.Option(None, "--principal", help="Request principal, e.g. User:alice."),
    operation: Optional[str] = typer.Option(None, "--operation", help="READ, Write, IdempotentWrite, ..."),
    topic: Optional[list[str]] = typer.Option(None, "--topic", help="TOPIC resource name (repeatable with --api)."),
    group: Optional[str] = typer.Option(None, "--group", help="GROUP resource (consumer group id)."),
    transactional_id: Optional[str] = typer.Option(None, "--transactional-id", help="TRANSACTIONAL_ID resource."),
    cluster: bool = typer.Option(False, "--cluster", help="The cluster resource (kafka-cluster)."),
    delegation_token: Optional[str] = typer.Option(None, "--delegation-token", help="DELEGATION_TOKEN resource "
                                                   "(token id)."),
    user_principal: Optional[str] = typer.Option(None, "--user-principal", help="USER resource, e.g. User:bob."),
    host: ClientHost = "127.0.0.1",
    request_type: Optional[str] = typer.Option(None, "--request", help="Request type for the audit line: "
                                                                      "Fetch, Produce or an ApiKeys id."),
    requests: Optional[Path] = typer.Option(None, "--requests", help="Many requests: JSON lines or CSV."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Decide with a Kroxylicious rules file as the "
                                                               "proxy would (instead of ACLs)."),
    types: RuleTypes = None,
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    authorized_operations: bool = typer.Option(False, "--authorized-operations",
                                               help="List every operation the principal may perform on the "
                                                    "resource (what Kafka returns per KIP-430)."),
    fmt: TableFormatOption = TableFormat.table,
    tls_dn: Optional[str] = typer.Option(None, "--tls-dn", help="Instead of --principal: the client "
                                         "certificate's DN, mapped as ssl.principal.mapping.rules does."),
    kerberos_principal: Optional[str] = typer.Option(None, "--kerberos-principal", help="Instead of "
                                                     "--principal: a Kerberos name, mapped by the auth_to_local rules."),
    ssl_mapping_rules: Optional[str] = typer.Option(None, "--ssl-mapping-rules", help="ssl.principal.mapping.rules "
                                                    "(default: from --broker-config, else DEFAULT)."),
    kerberos_rules: Optional[list[str]] = typer.Option(None, "--kerberos-rules", help="One auth_to_local rule "
                                                       "(repeatable; default: from --broker-config, else DEFAULT)."),
    kerberos_realm: Optional[str] = typer.Option(None, "--kerberos-realm", help="The broker's default realm."),
    listener: Listener = None,
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
    api: Optional[str] = API_OPTION,
    allow_auto_create: bool = ALLOW_AUTO_CREATE_OPTION,
    all_topics: bool = ALL_TOPICS_OPTION,
    topic_absent: bool = TOPIC_ABSENT_OPTION,
    two_phase_commit: bool = TWO_PHASE_COMMIT_OPTION,
    kafka_version: Optional[str] = KAFKA_VERSION_OPTION,
) -> None:
    topics = tuple(topic or ())
    if len(topics) > 1 and api is None:
        raise typer.BadParameter("one --topic per request (several only with --api)", param_hint="'--topic'")
    options = SimulateOptions(
        acls=acls, acls_format=option_value(acls_format), acls_options=acls_options(option), principal=principal,
        operation=operation, topic=topics[0] if topics else None, topics=topics, api=api,
        allow_auto_create=allow_auto_create, all_topics=all_topics, topic_absent=topic_absent,
        two_phase_commit=two_phase_commit, kafka_version=kafka_version,
        group=group, transactional_id=transactional_id, cluster=cluster, delegation_token=delegation_token,
        user_principal=user_principal, host=host, request_type=request_type, requests=requests, rules=rules,
        types=types, super_users=super_users, allow_everyone=allow_everyone, broker_config=broker_config,
        authorized_operations=authorized_operations, tls_dn=tls_dn, kerberos_principal=kerberos_principal,
        ssl_mapping_rules=ssl_mapping_rules, kerberos_rules=kerberos_rules, kerberos_realm=kerberos_realm,
        listener=listener, topic_policy=topic_policy, partitions=partitions, replication_factor=replication_factor,
        topic_configs=topic_configs or [], cluster_state=cluster_state)
    with _ProgressBar() as progress:
        result = run_simulation(options, progress if fmt is TableFormat.table else None)
        code = _render(result, fmt)
    if code:
        raise typer.Exit(code)


class _ProgressBar:
    """The transient bar on stderr past 100,000 requests decided for a table (rich only then)."""

    def __init__(self) -> None:
        self._progress: Optional[Progress] = None
        self._task: Optional[TaskID] = None

    def __call__(self, advance: int, total: Optional[int]) -> None:
        if self._progress is None:
            from rich.progress import Progress

            from kafka_authz_cli.cli.common import err_console

            # Rows may stream to stdout meanwhile: never let the bar capture them.
            self._progress = Progress(console=err_console.real(), transient=True, redirect_stdout=False,
                                      redirect_stderr=False)
            self._progress.start()
            self._task = self._progress.add_task("deciding", total=total)
        assert self._task is not None  # made with the bar
        self._progress.advance(self._task, advance)

    def __enter__(self) -> "_ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()


def _render(result: SimulationResult, fmt: TableFormat) -> int:
    """Print the result; the exit code."""
    if isinstance(result, MappingFailed):
        if fmt is TableFormat.table:
            _print_mapping(result.mapping)
        else:
            emit_rows([{"mapping": result.mapping, "decision": None, "outcome": "AUTHENTICATION_FAILED"}], fmt)
        return 1
    if isinstance(result, RulesDecisions):
        return _print_rules_decisions(result, fmt)
    if isinstance(result, ApiCall):
        from kafka_authz_cli.cli.apps_render import print_api_call

        return print_api_call(result, fmt)
    if fmt is TableFormat.table and result.mapping is not None:
        _print_mapping(result.mapping)
    if isinstance(result, AuthorizedOperations):
        _print_authorized_operations(result, fmt)
        return 0
    if isinstance(result, TopicPolicyVerdict):
        return _print_topic_policy(result, fmt)
    return _print_decisions(result, fmt)


def _print_mapping(mapping: dict) -> None:
    from kafka_authz_cli.cli.principal import print_mapping_step

    print_mapping_step(mapping)


def _print_topic_policy(result: TopicPolicyVerdict, fmt: TableFormat) -> int:
    if fmt is TableFormat.table:
        from kafka_authz_cli.cli.policy import print_simulate_policy

        print_simulate_policy(result.row)
    else:
        emit_rows([result.row], fmt)
    return 0


def _print_decisions(result: Decisions, fmt: TableFormat) -> int:
    tally = result.tally
    if fmt is not TableFormat.table:
        # Each row is written as it is decided: memory stays flat however many requests there are.
        stream_rows(result.rows, fmt)
    else:
        shown = list(itertools.islice(result.rows, MAX_TABLE_ROWS))
        for _ in result.rows:  # the rest are only counted
            pass
        _print_table(list(enumerate(shown, 1)))
        more = rows_not_shown(tally.total, MAX_TABLE_ROWS)
        if more:
            console.print(more, markup=False, highlight=False)
            console.print(_outcome_counts(tally), markup=False, highlight=False)
        if tally.expected:
            _print_expectations(tally)
        if tally.no_decision:
            console.print(f"[bold magenta]{tally.no_decision:,} request(s) got no decision[/] (ERROR or "
                          "NON_TERMINATING: the broker would throw or never answer), first at "
                          f"{cell(tally.first_no_decision)}; exit code {EXIT_NO_DECISION}")
    if tally.failed:
        return 1
    return EXIT_NO_DECISION if tally.no_decision else 0


def _print_expectations(tally: DecisionTally) -> None:
    failed, expected = tally.failed, tally.expected
    if not failed:
        console.print(f"[green]all {expected:,} expectations met[/]")
        return
    console.print(f"[bold red]{failed:,} of {expected:,} expectations failed[/]")
    for r in tally.failed_rows[:MAX_TABLE_ROWS]:
        console.print(cell(f"  {r['origin']}: {r['principal']} {r['operation']} "
                           f"{r['resource_type']}:{r['resource_name']} expected {r['expect']}, "
                           f"got {r['decision'] or r['outcome']}: {r['explanation']}", 4000))
    if failed > MAX_TABLE_ROWS:
        console.print(f"  ... and {failed - MAX_TABLE_ROWS:,} more; --format jsonl lists every "
                      "row with its `ok` field", markup=False, highlight=False)


def _outcome_counts(tally: DecisionTally) -> str:
    return f"{tally.total:,} requests: " + ", ".join(f"{n:,} {k}" for k, n in tally.outcomes.items())


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


def _print_authorized_operations(result: AuthorizedOperations, fmt: TableFormat) -> None:
    request, ops = result.request, result.operations
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


def _print_rules_decisions(result: RulesDecisions, fmt: TableFormat) -> int:
    rows = result.rows
    if fmt is not TableFormat.table:
        emit_rows(rows, fmt)
        return 1 if result.failures else 0
    from rich.table import Table

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
    if result.expected:
        n, failures = result.expected, result.failures
        console.print(f"[bold red]{len(failures)} of {n} expectations failed[/]" if failures
                      else f"[green]all {n} expectations met[/]")
    return 1 if result.failures else 0
