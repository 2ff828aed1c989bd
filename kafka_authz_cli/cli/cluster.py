"""`authz cluster`: pull ACLs from a live cluster and apply an ACL set to it (kafka-python)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import AclFormat, console, load_source, warn, write_output
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.formats import dump_acls, read_text
from kafka_authz_cli.formats.properties import parse_properties
from kafka_authz_cli.model import validation_errors

cluster_app = typer.Typer(help="Live clusters: pull ACLs, apply an ACL set (kafka-python admin client).",
                          no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")

#: Replaced in tests by a fake; the real one connects with kafka-python.
ADMIN_FACTORY = None


def _admin(bootstrap_server: str, command_config: Optional[Path]):
    if ADMIN_FACTORY is not None:
        return ADMIN_FACTORY(bootstrap_server, command_config)
    from kafka_authz_cli.kafka_adapter import KafkaAclAdmin, client_config

    config = {}
    if command_config is not None:
        config = client_config(parse_properties(read_text(command_config), str(command_config)), str(command_config))
    return KafkaAclAdmin(bootstrap_server, config)


BOOTSTRAP = typer.Option(..., "--bootstrap-server", help="host:port[,host:port...]")
COMMAND_CONFIG = typer.Option(None, "--command-config", help="Admin client properties (as for kafka-acls): "
                                                              "security.protocol, sasl.mechanism, sasl.jaas.config, "
                                                              "PEM ssl.truststore.location.")


@cluster_app.command("pull", help="""Write the cluster's ACLs to a file (DescribeAcls).

Exit codes: 0 written; 2 usage, connection or input error.""")
def pull(
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    to: AclFormat = typer.Option(AclFormat.json, "--to", help="Output format."),
    out: Optional[Path] = typer.Option(None, "-o", "--output"),
) -> None:
    if to is AclFormat.rules:
        raise AuthzError("--to rules: pull as json, then use `authz decompile`")
    bindings = _admin(bootstrap_server, command_config).list_acls()
    write_output(dump_acls(bindings, to.value), out)


@cluster_app.command("apply", help="""Make the cluster's ACLs equal to an ACL set (CreateAcls / DeleteAcls).

Shows the plan first; applies only with --yes. ACLs the broker would refuse stop the run before
anything changes. --keep-extra leaves ACLs the file does not mention in place.

Exit codes: 0 applied (or nothing to do, or --dry-run); 1 some changes failed; 2 usage, connection
or input error.""")
def apply(
    acls: Path = typer.Argument(..., help="Desired ACL set, any format authz reads."),
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format"),
    keep_extra: bool = typer.Option(False, "--keep-extra", help="Do not delete ACLs absent from the file."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan only."),
    yes: bool = typer.Option(False, "--yes", help="Apply without asking."),
) -> None:
    from kafka_authz_cli.kafka_adapter import plan_sync

    desired = load_source(acls, acls_format).bindings
    invalid = [(b, e) for b in desired if (e := validation_errors(b))]
    if invalid:
        for b, e in invalid:
            warn(f"{b.standard_acl_str()}: {'; '.join(e)}")
        raise AuthzError(f"{len(invalid)} ACL(s) would be refused by the broker; nothing was changed")
    admin = _admin(bootstrap_server, command_config)
    create, delete = plan_sync(admin.list_acls(), desired)
    if keep_extra:
        delete = []
    table = Table(header_style="bold", title="plan")
    for col in ("change", "resource", "principal", "host", "operation", "permission"):
        table.add_column(col, overflow="fold")
    for change, items, style in (("create", create, "green"), ("delete", delete, "red")):
        for b in items:
            table.add_row(f"[{style}]{change}[/]", f"{b.resource_type.name}:{b.pattern_type.name}:{b.resource_name}",
                          b.principal, b.host, b.operation.name, b.permission.name)
    if not create and not delete:
        console.print("the cluster already holds exactly this ACL set")
        return
    console.print(table)
    console.print(f"{len(create)} to create, {len(delete)} to delete")
    if dry_run:
        return
    if not yes and not typer.confirm("apply these changes?", default=False):
        raise typer.Exit(0)
    failed = admin.create_acls(create) + admin.delete_acls(delete)
    for b, error in failed:
        warn(f"{b.standard_acl_str()}: {error}")
    console.print(f"applied {len(create) + len(delete) - len(failed)} change(s), {len(failed)} failed")
    if failed:
        raise typer.Exit(1)
