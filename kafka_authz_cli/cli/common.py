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
from kafka_authz_cli.acl.formats import AclSet, load_acl_set
from kafka_authz_cli.formats.reading import read_text
from kafka_authz_cli._java.properties import parse_properties
from kafka_authz_cli.acl.model import unmatchable_host_reason, validation_errors


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
        from kafka_authz_cli.acl.engine import AuthorizerConfigError, StandardAuthorizer

        try:
            return StandardAuthorizer(acl_set.bindings, super_users=self.super_users,
                                      allow_everyone_if_no_acl_found=self.allow_everyone_if_no_acl_found)
        except AuthorizerConfigError as exc:
            if self.source not in ("flags", "--super-users"):
                raise InputError(f"super.users: {exc}", self.source) from None
            raise AuthzError(f"super.users ({self.source}): {exc}") from None


def broker_settings(super_users: Optional[str], allow_everyone: Optional[bool],
                    broker_config: Optional[Path]) -> BrokerSettings:
    """Flags win over ``server.properties`` values, which win over Kafka's defaults."""
    from kafka_authz_cli.acl.engine import AuthorizerConfigError, parse_super_users

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
        if source != "--super-users" and source != "flags":
            raise InputError(f"super.users: {exc}; the broker would not start", source) from None
        raise AuthzError(f"super.users ({source}): {exc}; the broker would not start") from None
    return BrokerSettings(su, allow, source)


def warn(message: str) -> None:
    from rich.markup import escape

    # The message carries names from the input: never let them read as rich markup.
    err_console.print(f"[yellow]warning:[/yellow] {escape(message)}", markup=True, highlight=False)


#: Tables for people show at most this many rows, then say how many are not shown and how to get them.
MAX_TABLE_ROWS = 200
#: Longer texts are cut in table cells (saying how long they are): rich lays out a cell in time
#: proportional to its length, and a 10 MB resource name would hang the table.
MAX_CELL_CHARS = 1000


def cell(text: str | None, limit: int = MAX_CELL_CHARS) -> str:
    """User data for a rich table cell or markup string: markup escaped, very long texts cut, saying so."""
    from rich.markup import escape

    if text is None:
        return ""
    text = str(text)
    if len(text) > limit:
        return escape(text[:limit]) + f"[dim]... ({len(text):,} characters; the json format has it whole)[/]"
    return escape(text)


def rows_not_shown(total: int, shown: int, how: str = "--format json, jsonl or csv") -> Optional[str]:
    """The line under a table cut at ``shown`` rows (None when nothing was cut)."""
    if total <= shown:
        return None
    return (f"{total - shown:,} more row(s) not shown (the table shows the first {shown:,} of {total:,}); "
            f"{how} lists every row")


def load_source(path: Path | str, fmt: Optional[AclFormat] = None, quiet: bool = False) -> AclSet:
    """An ACL source in any format authz reads, with warnings for what the broker would refuse."""
    acl_set = load_acl_set(path, fmt.value if fmt else None)
    if not quiet:
        seen = set()
        odd_hosts: dict[str, list[str]] = {}
        for binding, origin in zip(acl_set.bindings, acl_set.origins):
            if binding in seen:
                warn(f"{origin}: duplicate ACL {binding.standard_acl_str()} (Kafka stores it once)")
            seen.add(binding)
            errors = validation_errors(binding)
            if errors:
                warn(f"{origin}: the broker's CreateAcls would refuse this ACL: {'; '.join(errors)}")
            if binding.host != "*" and unmatchable_host_reason(binding.host):
                odd_hosts.setdefault(binding.host, []).append(origin)
        for host, origins in odd_hosts.items():
            where = origins[0] + (f" and {len(origins) - 1} more ACL(s)" if len(origins) > 1 else "")
            warn(f"{where}: {unmatchable_host_reason(host)}")
    return acl_set


def load_registry(types: Optional[Path]):
    """The rules language's class registry, with a --types file's classes when one is given."""
    from kafka_authz_cli.rules.types import TypeRegistry

    if types is None:
        return TypeRegistry()
    from kafka_authz_cli.rules.types_file import load_types

    registry, ignored = load_types(types)
    if ignored:
        warn(f"{types}: ignored top-level key(s) {', '.join(k[:60] for k in ignored)} (a types file has "
             "principal_types, resource_types and default_imports)")
    return registry


def emit_rows(rows: list[dict], fmt: TableFormat) -> None:
    """Machine-readable output of a list of flat records."""
    if fmt is TableFormat.json:
        # A list with one record per line: as readable as indent=2 for big outputs, and it uses the
        # C encoder (indent=2 takes the pure-Python one: half the run time at 100,000 rows).
        body = ",\n".join("  " + json.dumps(row, ensure_ascii=False) for row in rows)
        typer.echo("[\n" + body + "\n]" if rows else "[]")
    elif fmt is TableFormat.jsonl:
        typer.echo("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), nl=False)
    elif fmt is TableFormat.csv:
        buf = io.StringIO()
        if rows:
            writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n", extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: ("" if v is None else json.dumps(v) if isinstance(v, (dict, list)) else v)
                                 for k, v in row.items()})
        typer.echo(buf.getvalue(), nl=False)


def check_can_write(out: Path) -> None:
    """Refuse at once an output file that cannot be written, before work whose result would be lost."""
    import os

    parent = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise InputError("is a directory: give a file name", str(out))
    if not parent.is_dir():
        raise InputError(f"no such directory: {parent}", str(out))
    if not os.access(parent, os.W_OK | os.X_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise InputError("cannot be written (permission denied)", str(out))


def write_output(text: str, out: Optional[Path], secret: bool = False) -> None:
    """``text`` to stdout (``out`` None or ``-``) or to a file.

    A secret goes only into a file authz creates itself, 0600, or into an existing regular file of
    the user's that nobody else can read: never through a symbolic link (which could point at
    another file), never into a file with a second hard link, a FIFO or a device, and authz never
    chmods a file it did not create.
    """
    if out is None or str(out) == "-":
        typer.echo(text, nl=False)
        return
    import os

    if secret:
        fd = _open_secret(str(out))
    else:
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as exc:
            raise InputError(exc.strerror or str(exc), str(out)) from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def _open_secret(path: str) -> int:
    import errno
    import os
    import stat

    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        # O_EXCL: created here, or not at all (a symbolic link, even a dangling one, counts as existing).
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from None
    try:
        fd = os.open(path, os.O_WRONLY | nofollow | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("is a symbolic link: authz does not follow links when writing credentials "
                             "(it could point at another file); give the real path", path) from None
        if exc.errno == errno.ENXIO:
            raise InputError("is a FIFO without a reader: credentials go only to regular files", path) from None
        raise InputError(exc.strerror or str(exc), path) from None
    try:
        st = os.fstat(fd)
        problem = None
        if not stat.S_ISREG(st.st_mode):
            problem = "is not a regular file: credentials go only to regular files"
        elif st.st_nlink > 1:
            problem = (f"has {st.st_nlink} hard links: writing credentials here would also write them into "
                       "another name; remove it first")
        elif hasattr(os, "geteuid") and st.st_uid != os.geteuid():
            problem = "belongs to another user: authz writes credentials only into files it creates or you own"
        elif st.st_mode & 0o077:
            problem = (f"exists with mode {stat.S_IMODE(st.st_mode):04o}: others could read the credentials, and "
                       "authz does not chmod a file it did not create; remove it or chmod 600 it first")
        if problem is not None:
            raise InputError(problem, path)
        os.ftruncate(fd, 0)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd
