"""`authz cluster`: pull a live cluster's ACLs, plan a change within a scope, apply it safely."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    LOSSY_OPTION,
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
    console,
    option_value,
    warn,
    write_json,
    write_options,
    write_output,
)
from kafka_authz_cli.cli.options import (
    REQUIRED,
    AllowEveryone,
    BootstrapServer,
    BrokerConfig,
    CommandConfig,
    ReportFormat,
    ReportFormatOption,
    SuperUsers,
    Timeout,
)
from kafka_authz_cli.cli.prompts import ask, confirm
from kafka_authz_cli.cluster import DriftError
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.services import cluster as service

if TYPE_CHECKING:
    from rich.table import Table

    from kafka_authz_cli.acl import AclBinding
    from kafka_authz_cli.cluster import ApplyReport, Drift, Plan

cluster_app = typer.Typer(help="Live clusters: pull ACLs, plan and apply a change that never widens access "
                               "(kafka-python admin client).", no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")

TABLE_ROWS = 200


# -- pull -------------------------------------------------------------------------------------

@cluster_app.command("pull", short_help="Write the cluster's ACLs to a file (kafka-acls --list filters).", help="""Write the cluster's ACLs to a file (DescribeAcls), optionally filtered as
`kafka-acls --list` filters: --topic/--group/--transactional-id/--delegation-token/--user-principal
NAME (repeatable), --cluster, --resource-pattern-type (literal by default when a resource is given;
`match` also returns the wildcard and the prefixed ACLs that apply to the name), --principal.

Exit codes: 0 written; 2 usage, connection or input error.""")
def pull(
    bootstrap_server: BootstrapServer = REQUIRED,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    topic: list[str] = typer.Option([], "--topic", help="TOPIC resource name (repeatable)."),
    group: list[str] = typer.Option([], "--group", help="GROUP resource name (repeatable)."),
    transactional_id: list[str] = typer.Option([], "--transactional-id", help="TRANSACTIONAL_ID name (repeatable)."),
    delegation_token: list[str] = typer.Option([], "--delegation-token", help="DELEGATION_TOKEN id (repeatable)."),
    user_principal: list[str] = typer.Option([], "--user-principal", help="USER resource (repeatable)."),
    cluster: bool = typer.Option(False, "--cluster", help="The CLUSTER resource."),
    pattern_type: Optional[str] = typer.Option(None, "--resource-pattern-type",
                                               help="literal, prefixed, match or any."),
    principal: list[str] = typer.Option([], "--principal", help="Only ACLs of this principal (repeatable)."),
    to: WriteFormat = typer.Option(WriteFormat("json"), "--to", help="Output format: json, kafka-acls, csv, strimzi, ksm-yaml, "
                                                                  "jikkou, kafka-gitops or terraform (KafkaUser resources, KSM "
                                                                  "YAML, Jikkou resources, a kafka-gitops state file, Terraform "
                                                                  "resources: see `authz convert --help`)."),
    strimzi_authentication: Optional[StrimziAuthentication] = STRIMZI_AUTHENTICATION_OPTION,
    strimzi_cluster: Optional[str] = STRIMZI_CLUSTER_OPTION,
    strimzi_api_version: Optional[StrimziApiVersion] = STRIMZI_API_VERSION_OPTION,
    terraform_provider: Optional[TerraformProvider] = TERRAFORM_PROVIDER_OPTION,
    terraform_confluent_cluster: Optional[str] = TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    lossy: bool = LOSSY_OPTION,
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Output file (default: stdout)."),
) -> None:

    options = write_options(strimzi_authentication, strimzi_cluster, strimzi_api_version, terraform_provider,
                  terraform_confluent_cluster, lossy)
    write_output(service.pull(bootstrap_server, command_config, timeout, to.value, topics=topic, groups=group,
                              transactional_ids=transactional_id, delegation_tokens=delegation_token,
                              user_principals=user_principal, cluster=cluster, pattern_type=pattern_type,
                              principals=principal, options=options), out)


# -- plan -------------------------------------------------------------------------------------

def _row(table: Table, change: str, b: AclBinding) -> None:
    table.add_row(change, f"{b.resource_type.name}:{b.pattern_type.name}:{b.resource_name}", b.principal, b.host,
                  b.operation.name, b.permission.name)


def print_plan(plan: Plan) -> None:
    from rich.table import Table

    table = Table(header_style="bold", title="plan")
    for col in ("change", "resource", "principal", "host", "operation", "permission"):
        table.add_column(col, overflow="fold")
    hidden = 0
    for label, items in (("[green]create[/]", plan.creates), ("[red]delete[/]", plan.deletes),
                         ("[yellow]kept[/] (no --allow-delete)", plan.kept), ("[dim]unmanaged[/]", plan.unmanaged)):
        for b in items[:TABLE_ROWS]:
            _row(table, label, b)
        hidden += max(0, len(items) - TABLE_ROWS)
    if table.row_count:
        console.print(table)
    if hidden:
        console.print(f"({hidden} more row(s) not shown: --format json or -o plan.json lists them all)")
    console.print(f"{len(plan.creates)} to create, {len(plan.deletes)} to delete, {len(plan.kept)} kept "
                  f"(not in the desired set; --allow-delete deletes them), {len(plan.unmanaged)} unmanaged "
                  f"(outside the scope, left alone); {len(plan.observed)} ACL(s) on the cluster")
    if plan.changes:
        order = ", then ".join(f"{name} ({len(items)})" for name, items in plan.order)
        console.print(f"order: {order}")
    effect = plan.effect or {}
    if effect:
        console.print(f"effect on decisions: [bold]{effect['verdict']}[/] ({effect['gained']} request class(es) "
                      f"gained, {effect['lost']} lost)")
        for f in effect["findings"][:30]:
            mark = {"gained": "[green]+[/]", "lost": "[red]-[/]"}.get(f["direction"], "~")
            console.print(f"  {mark} {f['description']}", soft_wrap=True)
        if len(effect["findings"]) > 30:
            console.print(f"  … {len(effect['findings']) - 30} more (see the plan file's \"effect\")")


@cluster_app.command("plan", short_help="Plan a change within a scope: creates, deletes, effect, fingerprint.", help="""Compare a desired ACL set with the cluster's, within a scope, and save the plan.

The scope says what this plan manages: --scope KIND=VALUE (repeatable) and/or --scope-file FILE
(one KIND=VALUE per line), KIND one of principal, topic, group, transactional-id, delegation-token,
user, cluster (exact names), topic-prefix, group-prefix, ... (names starting with VALUE) and
resource-prefix (any type). Selectors of one kind are alternatives; principal and resource
selectors both apply. No scope manages every ACL. ACLs outside the scope are shown as unmanaged
and never deleted; ACLs inside it but not desired are deleted only with --allow-delete (else
shown as kept). The plan records a fingerprint of every ACL it saw (apply refuses if the cluster
changed since), the order of the changes and their effect on decisions (who gains or loses what,
as `authz diff` computes it).

Exit codes: 0 done (with --detailed-exitcode: nothing to change); 2 usage, connection or input
error (with --detailed-exitcode: 2 changes to apply, 1 error).""")
def plan_cmd(
    desired: Path = typer.Argument(..., help="The desired ACL set (any format authz reads, rules files too)."),
    bootstrap_server: BootstrapServer = REQUIRED,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of DESIRED (default: "
                                                                                "detected)."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    scope: list[str] = typer.Option([], "--scope", help="KIND=VALUE: what this plan manages (repeatable)."),
    scope_file: Optional[Path] = typer.Option(None, "--scope-file", help="A file of KIND=VALUE lines."),
    allow_delete: bool = typer.Option(False, "--allow-delete", help="Delete managed ACLs absent from DESIRED."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the plan (JSON) for `cluster apply`."),
    fmt: ReportFormatOption = ReportFormat.table,
    detailed_exitcode: bool = typer.Option(False, "--detailed-exitcode",
                                           help="Exit 0 nothing to do, 2 changes, 1 error (as Terraform)."),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
) -> None:
    try:
        plan = service.plan(desired, bootstrap_server, command_config, timeout, option_value(acls_format), scope,
                            scope_file, allow_delete, super_users, allow_everyone, broker_config,
                            acls_options(option))
        doc = plan.to_json()
        if out is not None:
            write_json(doc, out)
    except AuthzError as exc:
        if not detailed_exitcode:
            raise
        typer.echo(f"authz: error: {exc}", err=True)
        raise typer.Exit(1) from None
    if fmt is ReportFormat.json:
        write_json(doc, None)
    else:
        print_plan(plan)
        if out is not None:
            console.print(f"plan written to {out}; apply it with `authz cluster apply {out}`")
    if detailed_exitcode and plan.changes:
        raise typer.Exit(2)


# -- apply ------------------------------------------------------------------------------------

def _report(report: ApplyReport, total: int) -> None:
    console.print(f"applied {len(report.applied)} of {total} change(s) in {report.batches_done} batch(es)")
    for phase, b, error in report.failed:
        warn(f"failed ({phase}): {b.standard_acl_str()}: {error}")
    for phase, b, error in report.unknown[:TABLE_ROWS]:
        warn(f"unknown ({phase}, no answer: {error}): {b.standard_acl_str()}")
    if report.failed or report.unknown or report.not_attempted:
        console.print(f"[red]incomplete[/]: {len(report.applied)} applied, {len(report.failed)} refused, "
                      f"{len(report.unknown)} unknown (sent, no answer), {len(report.not_attempted)} not attempted "
                      "(stopped so that no later phase could widen access). The cluster is in a state between "
                      "the old and the new ACL set that grants nothing neither grants; run `authz cluster plan` "
                      "again (or re-run this apply) to finish.")
        for phase, b in report.not_attempted[:TABLE_ROWS]:
            console.print(f"  not attempted ({phase}): {b.standard_acl_str()}", soft_wrap=True)
        if len(report.not_attempted) > TABLE_ROWS:
            console.print(f"  … {len(report.not_attempted) - TABLE_ROWS} more not attempted")


@cluster_app.command("apply", short_help="Apply a plan in an order that never widens access; drift-checked.", help="""Apply a plan made by `authz cluster plan` (or, given an ACL set, plan and apply
it in one go with the same --scope/--allow-delete rules).

Before changing anything, the cluster's ACLs are read again: if they changed since the plan
(drift), apply shows what changed and refuses; if the plan was already applied it does nothing;
if an earlier apply stopped part-way it finishes the remaining changes. Changes go in the order
that never grants a request that neither the old nor the new ACL set grants (add DENYs, remove
ALLOWs, add ALLOWs, remove DENYs; with allow.everyone.if.no.acl.found=true the ALLOWs are added
before old ones go), each phase in batches of --batch-size; the first batch that fails stops the
run, and the report says exactly what was applied, refused, unknown and not attempted.
Deletes happen only if the plan was made with --allow-delete; more than 100 deletes, or more than
half of the cluster's ACLs, need --max-deletes N or the number typed back.

Exit codes: 0 applied (or nothing to do, or --dry-run); 1 some changes failed (partial apply,
reported); 2 usage, connection or input error; 3 the cluster changed since the plan (re-plan);
4 declined at a prompt (or stdin closed): nothing changed.""")
def apply(
    plan_file: Path = typer.Argument(..., help="plan.json from `authz cluster plan` (or a desired ACL set)."),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server",
                                                   help="host:port (default: the plan's)."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    batch_size: int = typer.Option(500, "--batch-size", min=1, help="ACLs per CreateAcls/DeleteAcls request."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be done; change nothing."),
    yes: bool = typer.Option(False, "--yes", help="Apply without asking (many deletes still need --max-deletes)."),
    max_deletes: Optional[int] = typer.Option(None, "--max-deletes", min=0, help="Allow up to this many deletes "
                                                                                 "without the typed confirmation."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of an ACL set argument."),
    scope: list[str] = typer.Option([], "--scope", help="With an ACL set argument: as for `cluster plan`."),
    scope_file: Optional[Path] = typer.Option(None, "--scope-file", help="With an ACL set argument."),
    allow_delete: bool = typer.Option(False, "--allow-delete", help="With an ACL set argument: as for `cluster plan`."),
) -> None:
    def show(preview: service.ApplyPreview) -> None:
        drift, creates, deletes = preview.drift, preview.creates, preview.deletes
        if drift.status == "resume":
            console.print(f"resuming: {len(drift.added) + len(drift.removed)} of {preview.plan.changes} change(s) "
                          f"were already applied; {len(creates) + len(deletes)} remain")
        if creates or deletes:
            console.print(f"{len(creates)} to create, {len(deletes)} to delete, in {len(preview.work)} batch(es)")

    try:
        outcome = service.apply(plan_file, bootstrap_server, command_config, timeout, batch_size, dry_run, yes,
                                max_deletes, option_value(acls_format), scope, scope_file, allow_delete,
                                show_plan=print_plan, show=show, ask=ask, confirm=confirm)
    except DriftError as exc:
        _print_drift(exc.drift)
        raise
    if outcome.status == "done":
        console.print("the plan is already applied: nothing to do")
    elif outcome.status == "nothing":
        console.print("nothing to change")
    elif outcome.status == "dry-run":
        assert outcome.preview is not None  # a dry run previews
        for b in outcome.preview.work:
            console.print(f"  {b.phase} batch {b.index}/{b.of}: {len(b.bindings)} ACL(s)")
    else:
        assert outcome.report is not None  # applied: the report says what
        _report(outcome.report, outcome.total)
        if not outcome.report.ok:
            raise typer.Exit(1)


def _print_drift(drift: Drift) -> None:
    from rich.table import Table

    table = Table(header_style="bold", title="changed on the cluster since the plan")
    for col in ("change", "resource", "principal", "host", "operation", "permission"):
        table.add_column(col, overflow="fold")
    for label, items in (("[green]added[/]", drift.added), ("[red]removed[/]", drift.removed)):
        for b in items[:TABLE_ROWS]:
            _row(table, label, b)
    console.print(table)
