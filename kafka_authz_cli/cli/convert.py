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

Exit codes: 0 converted; 2 usage or input error (file:line: reason).""")
def convert(
    source: Path = typer.Argument(..., help="Input ACL set ('-' for stdin); format detected by content."),
    to: OutFormat = typer.Option(..., "--to", help="Output format."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override input detection."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
) -> None:
    write_output(convert_acl_set(source, to.value, option_value(acls_format)), out)
