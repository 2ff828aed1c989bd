"""`authz cluster`: pull a live cluster's ACLs, plan a change within a scope, apply it safely."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kafka_authz_cli.acl.formats import dump_acls
from kafka_authz_cli.acl.model import AclBinding, PatternType, validation_errors
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    AclFormat,
    console,
    option_value,
    warn,
    write_output,
)
from kafka_authz_cli.cli.live_common import (  # noqa: F401  (Declined etc. are part of this module's API)
    COMMAND_CONFIG,
    DEFAULT_MAX_DELETES,
    TIMEOUT,
    Declined,
    DriftError,
    _close,
    _confirm,
    delete_guard,
)
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats.reading import read_text
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.sources import load_source

if TYPE_CHECKING:
    from rich.table import Table

cluster_app = typer.Typer(help="Live clusters: pull ACLs, plan and apply a change that never widens access "
                               "(kafka-python admin client).", no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")

#: Replaced in tests by a fake: ``ADMIN_FACTORY(bootstrap, command_config) -> admin``.
ADMIN_FACTORY = None
#: Called after every applied batch (the live test reads the broker's ACLs there).
ON_BATCH = None

TABLE_ROWS = 200


def open_cluster(bootstrap_server: str, command_config: Optional[Path], timeout: float):
    if ADMIN_FACTORY is not None:
        return ADMIN_FACTORY(bootstrap_server, command_config)
    from kafka_authz_cli.cluster.kafka_adapter import open_admin

    return open_admin(bootstrap_server, command_config, timeout)


BOOTSTRAP = typer.Option(..., "--bootstrap-server", help="host:port[,host:port...]")


# -- pull -------------------------------------------------------------------------------------

@cluster_app.command("pull", short_help="Write the cluster's ACLs to a file (kafka-acls --list filters).", help="""Write the cluster's ACLs to a file (DescribeAcls), optionally filtered as
`kafka-acls --list` filters: --topic/--group/--transactional-id/--delegation-token/--user-principal
NAME (repeatable), --cluster, --resource-pattern-type (literal by default when a resource is given;
`match` also returns the wildcard and the prefixed ACLs that apply to the name), --principal.

Exit codes: 0 written; 2 usage, connection or input error.""")
def pull(
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
    topic: list[str] = typer.Option([], "--topic", help="TOPIC resource name (repeatable)."),
    group: list[str] = typer.Option([], "--group", help="GROUP resource name (repeatable)."),
    transactional_id: list[str] = typer.Option([], "--transactional-id", help="TRANSACTIONAL_ID name (repeatable)."),
    delegation_token: list[str] = typer.Option([], "--delegation-token", help="DELEGATION_TOKEN id (repeatable)."),
    user_principal: list[str] = typer.Option([], "--user-principal", help="USER resource (repeatable)."),
    cluster: bool = typer.Option(False, "--cluster", help="The CLUSTER resource."),
    pattern_type: Optional[str] = typer.Option(None, "--resource-pattern-type",
                                               help="literal, prefixed, match or any."),
    principal: list[str] = typer.Option([], "--principal", help="Only ACLs of this principal (repeatable)."),
    to: AclFormat = typer.Option(AclFormat.json, "--to", help="Output format: json, kafka-acls or csv."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Output file (default: stdout)."),
) -> None:
    from kafka_authz_cli.acl.filter import kafka_acls_filters

    if to is AclFormat.rules:
        raise AuthzError("--to rules: pull as json, then use `authz decompile`")
    ptype = None
    if pattern_type is not None:
        try:
            ptype = PatternType.parse_filter(pattern_type)
        except ValueError:
            raise typer.BadParameter("expected literal, prefixed, match or any",
                                     param_hint="--resource-pattern-type") from None
    for p in principal:
        if ":" not in p:
            raise typer.BadParameter(f"{p!r}: a principal is Type:name (User:alice)", param_hint="--principal")
    filters = kafka_acls_filters(topic, group, transactional_id, delegation_token, user_principal, cluster, ptype,
                                 principal)
    admin = open_cluster(bootstrap_server, command_config, timeout)
    try:
        bindings = admin.list_acls(filters)
    finally:
        _close(admin)
    write_output(dump_acls(bindings, to.value), out)


# -- plan -------------------------------------------------------------------------------------

def _scope(scope: list[str], scope_file: Optional[Path]):
    from kafka_authz_cli.cluster.rollout import Scope

    result = Scope.parse(scope)
    if scope_file is not None:
        result = result.merge(Scope.parse_file(read_text(scope_file), str(scope_file)))
    return result


def _effect(plan, settings) -> dict:
    from kafka_authz_cli.acl.compare import diff

    if not plan.changes:
        return {"verdict": "equivalent", "gained": 0, "lost": 0, "findings": []}
    cfg = {"super_users": settings.super_users,
           "allow_everyone_if_no_acl_found": settings.allow_everyone_if_no_acl_found}
    result = diff(plan.observed, plan.result, cfg, cfg)
    return {"verdict": result.verdict, "gained": result.gained, "lost": result.lost,
            "findings": [{"direction": f.direction, "description": f.describe()} for f in result.findings]}


def _build_plan(desired_path: Path, acls_format, admin, scope, allow_delete: bool, settings, bootstrap: str):
    from kafka_authz_cli.cluster.rollout import make_plan

    desired = load_source(desired_path, option_value(acls_format)).bindings
    invalid = [(b, e) for b in desired if (e := validation_errors(b))]
    if invalid:
        for b, e in invalid[:20]:
            warn(f"{b.standard_acl_str()}: {'; '.join(e)}")
        raise AuthzError(f"{len(invalid)} desired ACL(s) would be refused by the broker; nothing was planned")
    observed = admin.list_acls()
    plan = make_plan(observed, desired, scope, allow_delete, settings.allow_everyone_if_no_acl_found)
    plan.super_users = settings.super_users
    plan.bootstrap_server = bootstrap
    plan.created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    plan.effect = _effect(plan, settings)
    return plan


def _row(table: Table, change: str, b: AclBinding) -> None:
    table.add_row(change, f"{b.resource_type.name}:{b.pattern_type.name}:{b.resource_name}", b.principal, b.host,
                  b.operation.name, b.permission.name)


def print_plan(plan) -> None:
    from rich.table import Table

    from kafka_authz_cli.cluster.rollout import phases

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
        order = ", then ".join(f"{name} ({len(items)})" for name, items in
                               phases(plan.creates, plan.deletes, plan.allow_everyone_if_no_acl_found))
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
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of DESIRED (default: "
                                                                                "detected)."),
    scope: list[str] = typer.Option([], "--scope", help="KIND=VALUE: what this plan manages (repeatable)."),
    scope_file: Optional[Path] = typer.Option(None, "--scope-file", help="A file of KIND=VALUE lines."),
    allow_delete: bool = typer.Option(False, "--allow-delete", help="Delete managed ACLs absent from DESIRED."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the plan (JSON) for `cluster apply`."),
    fmt: str = typer.Option("table", "--format", "-f", help="table or json (the plan document on stdout)."),
    detailed_exitcode: bool = typer.Option(False, "--detailed-exitcode",
                                           help="Exit 0 nothing to do, 2 changes, 1 error (as Terraform)."),
    super_users: Optional[str] = typer.Option(None, "--super-users", help="The broker's super.users (for the "
                                                                          "effect)."),
    allow_everyone: Optional[bool] = typer.Option(None, "--allow-everyone-if-no-acl-found/--deny-if-no-acl-found",
                                                  show_default=False, help="The broker's setting (default: deny)."),
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="The broker's server.properties."),
) -> None:
    if fmt not in ("table", "json"):
        raise typer.BadParameter("expected table or json", param_hint="--format")
    try:
        settings = broker_settings(super_users, allow_everyone, broker_config)
        chosen = _scope(scope, scope_file)
        admin = open_cluster(bootstrap_server, command_config, timeout)
        try:
            plan = _build_plan(desired, acls_format, admin, chosen, allow_delete, settings, bootstrap_server)
        finally:
            _close(admin)
        doc = plan.to_json()
        if out is not None:
            write_output(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", out)
    except AuthzError as exc:
        if not detailed_exitcode:
            raise
        typer.echo(f"authz: error: {exc}", err=True)
        raise typer.Exit(1) from None
    if fmt == "json":
        typer.echo(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        print_plan(plan)
        if out is not None:
            console.print(f"plan written to {out}; apply it with `authz cluster apply {out}`")
    if detailed_exitcode and plan.changes:
        raise typer.Exit(2)


# -- apply ------------------------------------------------------------------------------------

def _report(report, total: int) -> None:
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
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
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
    from kafka_authz_cli.cluster.rollout import Plan, batches, check_drift, execute

    doc = _maybe_plan(plan_file)
    bootstrap = bootstrap_server or (doc or {}).get("bootstrap_server")
    if not bootstrap:
        raise typer.BadParameter("required (an ACL set argument carries no bootstrap server)",
                                 param_hint="--bootstrap-server")
    admin = open_cluster(bootstrap, command_config, timeout)
    try:
        if doc is not None:
            if scope or scope_file or allow_delete:
                raise typer.BadParameter("the plan has its scope and deletes already; make a new plan to change "
                                         "them", param_hint="--scope/--allow-delete")
            plan = Plan.from_json(doc, str(plan_file))
        else:
            settings = broker_settings(None, None, None)
            plan = _build_plan(plan_file, acls_format, admin, _scope(scope, scope_file), allow_delete, settings,
                               bootstrap)
            print_plan(plan)
        current = admin.list_acls()
        drift = check_drift(plan, current)
        if drift.status == "done":
            console.print("the plan is already applied: nothing to do")
            return
        if drift.status == "drift":
            _print_drift(drift)
            raise DriftError(f"the cluster's ACLs changed since the plan ({len(drift.added)} added, "
                             f"{len(drift.removed)} removed): nothing was changed; run `authz cluster plan` again")
        creates, deletes = drift.remaining_creates, drift.remaining_deletes
        if drift.status == "resume":
            console.print(f"resuming: {len(drift.added) + len(drift.removed)} of {plan.changes} change(s) were "
                          f"already applied; {len(creates) + len(deletes)} remain")
        if not creates and not deletes:
            console.print("nothing to change")
            return
        work = batches(creates, deletes, batch_size, plan.allow_everyone_if_no_acl_found)
        console.print(f"{len(creates)} to create, {len(deletes)} to delete, in {len(work)} batch(es)")
        if dry_run:
            for b in work:
                console.print(f"  {b.phase} batch {b.index}/{b.of}: {len(b.bindings)} ACL(s)")
            return
        delete_guard(len(deletes), len(current), max_deletes)
        if not yes and not _confirm("apply these changes?"):
            raise Declined("declined: nothing was changed")
        from kafka_authz_cli.cluster.kafka_adapter import ClusterError

        report = execute(admin, work, ON_BATCH, errors=(ClusterError, OSError, TimeoutError))
    finally:
        _close(admin)
    if report.failed and not report.applied and all("is not allowed to" in e for _, _, e in report.failed):
        raise AuthzError(report.failed[0][2] + "; nothing was changed")
    _report(report, len(creates) + len(deletes))
    if not report.ok:
        raise typer.Exit(1)


def _maybe_plan(path: Path) -> Optional[dict]:
    """The plan document if ``path`` is one; None for an ACL set."""
    if str(path) == "-":
        return None
    text = read_text(path)
    if '"authz_plan"' not in text[:200]:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", str(path), exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", str(path)) from None


def _print_drift(drift) -> None:
    from rich.table import Table
    table = Table(header_style="bold", title="changed on the cluster since the plan")
    for col in ("change", "resource", "principal", "host", "operation", "permission"):
        table.add_column(col, overflow="fold")
    for label, items in (("[green]added[/]", drift.added), ("[red]removed[/]", drift.removed)):
        for b in items[:TABLE_ROWS]:
            _row(table, label, b)
    console.print(table)
