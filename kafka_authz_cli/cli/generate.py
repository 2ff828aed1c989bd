"""`authz generate`: least-privilege ACLs from observed traffic, with the proof."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    LOSSY_OPTION,
    MAX_TABLE_ROWS,
    STRIMZI_API_VERSION_OPTION,
    STRIMZI_AUTHENTICATION_OPTION,
    STRIMZI_CLUSTER_OPTION,
    TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    TERRAFORM_PROVIDER_OPTION,
    AclFormat,
    StrimziApiVersion,
    StrimziAuthentication,
    TerraformProvider,
    WriteFormat,
    acls_options,
    cell,
    check_can_write,
    console,
    err_console,
    option_value,
    rows_not_shown,
    warn,
    write_json,
    write_options,
    write_output,
)
from kafka_authz_cli.cli.options import (
    AllowEveryone,
    BrokerConfig,
    CommandConfig,
    Index,
    Logs,
    ReportFormat,
    ReportFormatOption,
    SuperUsers,
    Timeout,
)
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services.generate import GenerateResult, Widening, Window, generate, generate_document
from kafka_authz_cli.whatif import hour_bound


class MaxWidening(str, Enum):
    none = "none"
    names = "names"
    any = "any"


GENERATE_HELP = """The smallest ACL set that allows every request a window of Kafka authorizer audit logs
(--logs: files, directories, globs, - for stdin; or --index: a `authz whatif index`; --since/--until
pick hours of either) shows ALLOWED, and none it shows DENIED: per principal (--principal, repeatable, keeps
only those), one ALLOW ACL per operation and resource, then made smaller:

- names sharing a prefix (orders-eu-1 ... orders-eu-40) become one PREFIXED ACL (orders-eu-) where
--max-widening allows: none (the default without known names) never widens; names (the default with
--names FILE or --bootstrap-server) infers a prefix only where, among the known names of that resource type,
it covers nothing but names the principal used with that operation: no existing topic or group becomes
reachable, only names created later with that prefix; any infers a prefix wherever no denied request
falls under it. A prefix ends at a separator (a dash, dot, underscore, slash or colon) and covers at least --min-names observed names;
each is reported with the observed names it covers and the known names it newly covers.
--names FILE: one topic a line, or group:NAME, transactional_id:NAME; --bootstrap-server lists the
cluster's topics and groups (those the login may describe: log in with --command-config as an admin,
or names it cannot see count as unknown and may be widened to).

- a DESCRIBE that a READ, WRITE, DELETE or ALTER ACL of the set already allows gets no ACL of its own
(DESCRIBE_CONFIGS: ALTER_CONFIGS), as Kafka implies; cluster operations (IDEMPOTENT_WRITE, CREATE...),
groups and transactional ids as logged.

- hosts become * unless --keep-hosts; a request whose * ACL would allow a request denied from another host
keeps its hosts. A denied DESCRIBE on a resource whose implying operation was allowed from the same host
gets a literal DENY ACL. Super users need no ACL.

The proof is printed with it: the same window replayed (whatif) against the generated set, with the
number of requests newly denied and newly allowed (both zero when it holds); with --current ACLS, the
exact decision diff (as `authz diff`) lists everything the generated set takes away from the current one
(with --principal: from those principals' ACLs) and anything it adds.

The ACL set is written as --to (every format `authz convert` writes) to --output, or to stdout with the
report on stderr. --format json: one object with the ACLs, the prefixes, the proof and the diff.

Allowed decisions are logged only at DEBUG: from INFO-only logs there is nothing to generate from.

Exit codes: 0 generated and the proof holds; 1 generated, but replaying the window decides some
request differently (listed: with allow.everyone.if.no.acl.found, a denied request on a resource the
set has no ACL for; an operation Kafka ACLs do not have); 2 usage or input error. A request both
allowed and denied in the window is treated as allowed (warned)."""


@app.command("generate", short_help="Least-privilege ACLs from observed traffic (audit logs or a whatif index), with the proof.", help=GENERATE_HELP)
def generate_cmd(
    logs: Logs = None,
    index: Index = None,
    principal: Optional[list[str]] = typer.Option(None, "--principal", help="Only this principal (repeatable)."),
    since: Optional[str] = typer.Option(None, "--since", help="From this hour on (YYYY-MM-DD[THH])."),
    until: Optional[str] = typer.Option(None, "--until", help="Up to this hour, excluded (YYYY-MM-DD[THH])."),
    to: WriteFormat = typer.Option(WriteFormat("json"), "--to", help="Format of the generated ACL set."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the ACL set here (the report goes to "
                                       "stdout); default: the ACL set to stdout, the report to stderr."),
    fmt: ReportFormatOption = ReportFormat.table,
    max_widening: Optional[MaxWidening] = typer.Option(None, "--max-widening", help="How far inferred prefixes "
                                                       "may reach: none, names, any (see above)."),
    names: Optional[Path] = typer.Option(None, "--names", help="Known names: one topic a line, group:NAME, "
                                         "transactional_id:NAME."),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="HOST:PORT: the known names are "
                                                   "the cluster's topics and groups."),
    min_names: int = typer.Option(2, "--min-names", min=1, help="Observed names a prefix must cover."),
    keep_hosts: bool = typer.Option(False, "--keep-hosts", help="One ACL per host seen (default: host *)."),
    current: Optional[Path] = typer.Option(None, "--current", help="The ACL set the cluster runs today (or "
                                           "cluster:HOST:PORT): the diff lists what the generated set takes away."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of --current (default: detected)."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    strimzi_authentication: Optional[StrimziAuthentication] = STRIMZI_AUTHENTICATION_OPTION,
    strimzi_cluster: Optional[str] = STRIMZI_CLUSTER_OPTION,
    strimzi_api_version: Optional[StrimziApiVersion] = STRIMZI_API_VERSION_OPTION,
    terraform_provider: Optional[TerraformProvider] = TERRAFORM_PROVIDER_OPTION,
    terraform_confluent_cluster: Optional[str] = TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    lossy: bool = LOSSY_OPTION,
) -> None:
    if bool(logs) == bool(index):
        raise InputError("give either --logs (log files) or --index (a whatif index)")
    if out is not None:
        check_can_write(out)
    window = Window(logs, index, hour_bound(since, "--since"), hour_bound(until, "--until"), principal)
    result = generate(
        window, to.value, widening=Widening(option_value(max_widening), names, bootstrap_server, min_names),
        keep_hosts=keep_hosts, current=current, acls_format=option_value(acls_format), acls_options=acls_options(option),
        write_options=write_options(strimzi_authentication, strimzi_cluster, strimzi_api_version, terraform_provider,
                  terraform_confluent_cluster, lossy),
        super_users=super_users, allow_everyone=allow_everyone, broker_config=broker_config,
        command_config=command_config, timeout=timeout, stdin=getattr(sys.stdin, "buffer", None) if logs else None)
    if out is not None:
        write_output(result.text, out)
    for w in result.stats.warnings + result.proof.warnings:
        warn(w)
    if result.untimed:
        warn(f"{result.untimed} logged decision(s) without a timestamp are left out by --since/--until")
    if fmt is ReportFormat.json:
        write_json(generate_document(result), None)
    else:
        if out is None:
            write_output(result.text, None)
        _print(result, console if out is not None else err_console)
    if not result.proven:
        raise typer.Exit(1)


#: Access classes of the diff against --current shown in the report (--format json lists every one).
SHOWN_CHANGES = 20
def _print(result: GenerateResult, to_console) -> None:
    from rich.table import Table

    g, proof, stats = result.generated, result.proof, result.stats
    to_console.print(f"read {stats.lines:,} line(s) in {stats.files_read()}: {stats.decision_lines:,} decision, "
                     f"{stats.non_decision_lines:,} other, {stats.quarantined_lines:,} quarantined", highlight=False)
    to_console.print(f"generated {len(g.bindings)} ACL(s) for {len(g.principals)} principal(s) from "
                     f"{g.allowed_requests} allowed and {g.denied_requests} denied distinct request(s) "
                     f"(--max-widening {result.max_widening}); {len(g.implied)} implied request(s) need no ACL of "
                     f"their own, {len(g.host_kept)} kept their host, {len(g.denies)} DENY ACL(s)", highlight=False)
    if g.prefixes:
        table = Table("principal", "operation", "prefix", "observed", "widening", title="Inferred prefixes")
        for p in g.prefixes[:MAX_TABLE_ROWS]:
            observed = ", ".join(p.observed[:5]) + (f" and {len(p.observed) - 5} more" if len(p.observed) > 5 else "")
            newly = ("unknown (no names list)" if p.newly_covered is None
                     else f"{len(p.newly_covered)} known: " + ", ".join(p.newly_covered[:5]) if p.newly_covered
                     else "no other known name")
            table.add_row(cell(p.principal), f"{p.operation} {p.resource_type}", cell(p.prefix + "*"),
                          cell(f"{len(p.observed)}: {observed}"), cell(newly))
        to_console.print(table)
        more = rows_not_shown(len(g.prefixes), MAX_TABLE_ROWS, "--format json")
        if more:
            to_console.print(more)
    verdict = "holds" if result.proven else "FAILS"
    to_console.print(f"proof {verdict}: the window's {proof.distinct_requests} distinct request(s) "
                     f"({proof.decisions} decisions) replayed against the generated set: "
                     f"{len(proof.newly_denied)} newly denied, {len(proof.newly_allowed)} newly allowed",
                     highlight=False)
    for kind, changes in (("newly denied", proof.newly_denied), ("newly allowed", proof.newly_allowed)):
        for c in changes[:20]:
            to_console.print(f"  {kind}: {cell(c.principal)} {c.operation} {c.resource_type} {cell(c.resource_name)} "
                             f"from {cell(', '.join(c.hosts))} ({c.count} decision(s))", highlight=False)
    if result.removed is not None:
        _print_diff(result, to_console)


def _print_diff(result: GenerateResult, to_console) -> None:
    r = result.removed
    assert r is not None  # printed only against --current
    lost = [f for f in r.merged if f.direction == "lost"]
    other = [f for f in r.merged if f.direction != "lost"]
    to_console.print(f"against --current ({result.current_acls} ACL(s)): {r.lost:,} access class(es) removed, "
                     f"{r.gained:,} added ({r.verdict}); said in {len(lost) + len(other)} line(s):", highlight=False)
    for f in (lost + other)[:SHOWN_CHANGES]:
        to_console.print("  " + cell(f.describe()), highlight=False)
    more = rows_not_shown(len(r.merged), SHOWN_CHANGES, "--format json")
    if more:
        to_console.print(more)
