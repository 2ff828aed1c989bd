"""What every command shares: consoles, broker settings, ACL sources, output helpers."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats import AclSet, load_acl_set, read_text
from kafka_authz_cli.formats.properties import parse_properties
from kafka_authz_cli.model import validation_errors


class _LazyConsole:
    """rich's console (cli/output.py's AuthzConsole: tables never break a word or cut a value with
    `…`), created on first use, so a command that prints no rich output (JSON, a lint report into a
    pipe) never imports rich."""

    def __init__(self, **kwargs) -> None:
        self._kwargs = kwargs
        self._console = None

    def real(self):
        if self._console is None:
            from kafka_authz_cli.cli.output import AuthzConsole

            self._console = AuthzConsole(**self._kwargs)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self.real(), name)

    # rich uses a console as a context manager (Live, Progress): special methods bypass __getattr__.
    def __enter__(self):
        return self.real().__enter__()

    def __exit__(self, *exc):
        return self.real().__exit__(*exc)


console = _LazyConsole(highlight=False, soft_wrap=False)
err_console = _LazyConsole(stderr=True, highlight=False)

EXIT_CODES_HELP = "Exit codes: 0 ok; 1 {one}; 2 usage or input error."

STANDARD_AUTHORIZER_CLASSES = {
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
}


class AclFormat(str, Enum):
    json = "json"
    kafka_acls = "kafka-acls"
    csv = "csv"
    rules = "rules"


class TableFormat(str, Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


@dataclass
class BrokerSettings:
    super_users: str
    allow_everyone_if_no_acl_found: bool
    source: str = "flags"

    def authorizer(self, acl_set: AclSet) -> "StandardAuthorizer":
        from kafka_authz_cli.engine import AuthorizerConfigError, StandardAuthorizer

        try:
            return StandardAuthorizer(acl_set.bindings, super_users=self.super_users,
                                      allow_everyone_if_no_acl_found=self.allow_everyone_if_no_acl_found)
        except AuthorizerConfigError as exc:
            raise AuthzError(f"super.users ({self.source}): {exc}") from None


def broker_settings(super_users: Optional[str], allow_everyone: Optional[bool],
                    broker_config: Optional[Path]) -> BrokerSettings:
    """Flags win over ``server.properties`` values, which win over Kafka's defaults."""
    from kafka_authz_cli.engine import AuthorizerConfigError, parse_super_users

    su, allow, source = "", False, "flags"
    if broker_config is not None:
        props = parse_properties(read_text(broker_config), str(broker_config))
        source = str(broker_config)
        su = props.get("super.users", "")
        raw = props.get("allow.everyone.if.no.acl.found", "false").strip().lower()
        if raw not in ("true", "false"):
            raise InputError(f"allow.everyone.if.no.acl.found must be true or false, got {raw!r}", str(broker_config))
        allow = raw == "true"
        cls = props.get("authorizer.class.name", "").strip()
        if cls and cls not in STANDARD_AUTHORIZER_CLASSES:
            warn(f"{broker_config}: authorizer.class.name is {cls}; authz decides as Kafka's KRaft StandardAuthorizer")
        elif not cls:
            warn(f"{broker_config}: no authorizer.class.name: that broker authorizes nothing; "
                 "authz decides as if StandardAuthorizer were configured")
    if super_users is not None:
        su, source = super_users, "--super-users"
    if allow_everyone is not None:
        allow = allow_everyone
    try:
        parse_super_users(su)
    except AuthorizerConfigError as exc:
        raise AuthzError(f"super.users ({source}): {exc}; the broker would not start") from None
    return BrokerSettings(su, allow, source)


def warn(message: str) -> None:
    err_console.print(f"[yellow]warning:[/yellow] {message}", markup=True, highlight=False)


def load_source(path: Path | str, fmt: Optional[AclFormat] = None, quiet: bool = False) -> AclSet:
    """An ACL source in any format authz reads, with warnings for what the broker would refuse."""
    acl_set = load_acl_set(path, fmt.value if fmt else None)
    if not quiet:
        seen = set()
        for binding, origin in zip(acl_set.bindings, acl_set.origins):
            if binding in seen:
                warn(f"{origin}: duplicate ACL {binding.standard_acl_str()} (Kafka stores it once)")
            seen.add(binding)
            errors = validation_errors(binding)
            if errors:
                warn(f"{origin}: the broker's CreateAcls would refuse this ACL: {'; '.join(errors)}")
    return acl_set


def emit_rows(rows: list[dict], fmt: TableFormat) -> None:
    """Machine-readable output of a list of flat records."""
    if fmt is TableFormat.json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
    elif fmt is TableFormat.jsonl:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
    elif fmt is TableFormat.csv:
        buf = io.StringIO()
        if rows:
            writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n", extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: ("" if v is None else json.dumps(v) if isinstance(v, (dict, list)) else v)
                                 for k, v in row.items()})
        typer.echo(buf.getvalue(), nl=False)


def write_output(text: str, out: Optional[Path], secret: bool = False) -> None:
    if out is None or str(out) == "-":
        typer.echo(text, nl=False)
        return
    import os

    mode = 0o600 if secret else 0o644
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), str(out)) from None
    if secret:
        os.fchmod(fd, 0o600)  # also when the file already existed with wider permissions
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
