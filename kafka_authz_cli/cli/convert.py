"""`authz convert`: ACL sets between canonical JSON, kafka-acls text and KSM CSV."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import AclFormat, option_value, write_output
from kafka_authz_cli.services.convert import convert_acl_set


class OutFormat(str, Enum):
    json = "json"
    kafka_acls = "kafka-acls"
    csv = "csv"


@app.command("convert", short_help="Convert ACL sets between JSON, kafka-acls text and KSM CSV.", help="""Convert an ACL set between formats: canonical JSON, the text `kafka-acls --list`
prints, and Kafka Security Manager CSV (a rules file is compiled first). Round trips lose nothing.

kafka-acls text of every Kafka version is read: 1.0/1.1 (`Topic:name`, `User:a has Allow permission for
operations: Read from hosts: *`), 2.0-2.4 with --authorizer-properties (`Topic:LITERAL:name`), 2.1+ and
4.x (`ResourcePattern(...)`), re-indented or with a byte-order mark as pasted. `--add` output holds each
ACL twice: its `Current ACLs` blocks (what the cluster has after the add) are read, with a warning. An
empty file is zero ACLs, with a warning; a file that is no ACL set is refused saying what it looks like.

Exit codes: 0 converted; 2 usage or input error (file:line: reason).""")
def convert(
    source: Path = typer.Argument(..., help="Input ACL set ('-' for stdin); format detected by content."),
    to: OutFormat = typer.Option(..., "--to", help="Output format."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override input detection."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
) -> None:
    write_output(convert_acl_set(source, to.value, option_value(acls_format)), out)
