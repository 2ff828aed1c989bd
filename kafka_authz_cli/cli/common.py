"""What every command shares: consoles, warnings, output formats and where output goes."""

from __future__ import annotations

import csv
import io
import json
import logging
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional

import typer

from kafka_authz_cli.acl.registry import FORMATS
from kafka_authz_cli.errors import InputError

if TYPE_CHECKING:
    from kafka_authz_cli.cli.output import AuthzConsole


class _LazyConsole:
    """rich's console (cli/output.py's AuthzConsole: tables never break a word or cut a value with
    `…`), created on first use, so a command that prints no rich output (JSON, a lint report into a
    pipe) never imports rich."""

    def __init__(self, **kwargs) -> None:
        self._kwargs = kwargs
        self._console: AuthzConsole | None = None

    def real(self) -> AuthzConsole:
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
err_console = _LazyConsole(stderr=True, highlight=False, wrap_on_terminal_only=True)

EXIT_CODES_HELP = "Exit codes: 0 ok; 1 {one}; 2 usage or input error."

#: ``--acls-format``: every format authz reads (acl.registry's table, in its order). mypy reads an enum's
#: members only from a literal list: to it these have none (a member is taken by value, ``AclFormat("json")``).
AclFormat = Enum(  # type: ignore[misc]
    "AclFormat", [(f.name.replace("-", "_"), f.name) for f in FORMATS.values()], type=str, module=__name__)


class TerraformProvider(str, Enum):
    kafka = "kafka"
    confluent = "confluent"


TERRAFORM_PROVIDER_HELP = ("--to terraform: kafka (Mongey/kafka provider's kafka_acl, the default) or confluent "
                           "(confluentinc/confluent provider's confluent_kafka_acl).")
TERRAFORM_CONFLUENT_CLUSTER_HELP = ("--to terraform --terraform-provider confluent: the Kafka cluster id (lkc-...) of "
                                    "every resource's kafka_cluster block and import ID (required).")


#: ``--to``: the formats authz writes ACL sets in (members taken by value, as AclFormat's)
WriteFormat = Enum("WriteFormat", [(f.name.replace("-", "_"), f.name)  # type: ignore[misc]
                                   for f in FORMATS.values() if f.writer], type=str, module=__name__)


class StrimziAuthentication(str, Enum):
    tls = "tls"
    tls_external = "tls-external"
    scram_sha_512 = "scram-sha-512"


STRIMZI_AUTHENTICATION_HELP = ("--to strimzi: the KafkaUsers' authentication type, which decides the principal a "
                               "user's ACLs are for (tls, tls-external: User:CN=<name>; scram-sha-512: "
                               "User:<name>). Default: User:CN=<name> is tls, User:<name> scram-sha-512.")
class StrimziApiVersion(str, Enum):
    v1 = "v1"
    v1beta2 = "v1beta2"


STRIMZI_API_VERSION_HELP = ("--to strimzi: kafka.strimzi.io/v1 (Strimzi 0.49 and later; the default) or v1beta2 "
                            "(Strimzi 0.22 to 0.51: one rule per operation, with `operation`).")
STRIMZI_CLUSTER_HELP = "--to strimzi: the strimzi.io/cluster label of every KafkaUser (default my-cluster)."
#: ``--option KEY=VALUE`` (repeatable): a format's reading options, as each format's entry says them
ACLS_OPTION_HELP = " ".join(["A reading option of the ACL set's format, KEY=VALUE (repeatable)."]
                            + [f.option_help for f in FORMATS.values() if f.option_help])


def acls_options(values: list[str]) -> dict[str, str]:
    """``--option KEY=VALUE`` values as a mapping (a value without '=' is a bad option)."""
    out = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{value!r}: expected KEY=VALUE", param_hint="'--option'")
        out[key.strip()] = val
    return out


LOSSY_HELP = ("Write what the output format can hold and list each binding left out (default: refuse the "
              "conversion, naming them). Nothing is ever widened.")


class TableFormat(str, Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


def warn(message: str) -> None:
    """One `warning:` line on standard error (wrapped only on a terminal). A line break in the message
    (a name from the input can hold one) is a space: it must not start what reads as another line."""
    from rich.markup import escape

    # The message carries names from the input: never let them read as rich markup.
    message = message.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    err_console.print(f"[yellow]warning:[/yellow] {escape(message)}", markup=True, highlight=False)


class _WarningLines(logging.Handler):
    """What the services and the domain log as warnings, shown as `warning:` lines."""

    def emit(self, record: logging.LogRecord) -> None:
        warn(record.getMessage())


def _show_warnings() -> None:
    root = logging.getLogger("kafka_authz_cli")
    if not any(isinstance(h, _WarningLines) for h in root.handlers):
        root.addHandler(_WarningLines(logging.WARNING))
        root.propagate = False


_show_warnings()


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


def option_value(option: Optional[Enum]) -> Optional[str]:
    """A choice option as the plain string the services take."""
    return None if option is None else option.value


def emit_rows(rows: list[dict], fmt: TableFormat) -> None:
    """Machine-readable output of a list of flat records."""
    if fmt is TableFormat.json:
        # A list with one record per line: as readable as indent=2 for big outputs, and it uses the
        # C encoder (indent=2 takes the pure-Python one: half the run time at 100,000 rows).
        body = ",\n".join("  " + json_line(row) for row in rows)
        typer.echo("[\n" + body + "\n]" if rows else "[]")
    elif fmt is TableFormat.jsonl:
        typer.echo("".join(json_line(row) + "\n" for row in rows), nl=False)
    elif fmt is TableFormat.csv:
        buf = io.StringIO()
        if rows:
            writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n", extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: ("" if v is None else json_cell(v) if isinstance(v, (dict, list)) else v)
                                 for k, v in row.items()})
        typer.echo(buf.getvalue(), nl=False)


def stream_rows(rows: Iterable[dict], fmt: TableFormat, batch: int = 2000) -> None:
    """Like :func:`emit_rows` for rows made one at a time: each is written as it comes (in batches
    of ``batch``), none is kept. CSV columns are those of the first row, as in emit_rows. Rows made
    before an error (a bad line far down a request file) are written before it propagates."""
    out: list[str] = []
    writer = None
    buf = io.StringIO()
    count = 0
    try:
        for row in rows:
            if fmt is TableFormat.json:
                out.append(("[\n  " if not count else ",\n  ") + json_line(row))
            elif fmt is TableFormat.jsonl:
                out.append(json_line(row) + "\n")
            else:
                if writer is None:
                    writer = csv.DictWriter(buf, fieldnames=list(row), lineterminator="\n", extrasaction="ignore")
                    writer.writeheader()
                writer.writerow({k: ("" if v is None else json_cell(v) if isinstance(v, (dict, list)) else v)
                                 for k, v in row.items()})
            count += 1
            if count % batch == 0:
                _flush(out, buf)
    finally:
        _flush(out, buf)
    if fmt is TableFormat.json:
        typer.echo("\n]" if count else "[]")


def _flush(out: list[str], buf: io.StringIO) -> None:
    """Write what a stream of rows has gathered: the lines in ``out``, or the CSV in ``buf``."""
    if buf.tell():
        out.append(buf.getvalue())
        buf.seek(0)
        buf.truncate()
    typer.echo("".join(out), nl=False)
    out.clear()


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


_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False)


def json_line(record) -> str:
    """``record`` as one line of JSON lines, without the newline: json's separators, UTF-8 as is, json's C
    encoder (one encoder for every line: a file of 100,000 rows is written a row at a time)."""
    return _LINE_ENCODER.encode(record)


def json_cell(value) -> str:
    """A list or a dict where a flat record holds text (a CSV cell): compact JSON, non-ASCII escaped."""
    return json.dumps(value)


def json_text(doc, depth: int = 0) -> str:
    """What :func:`write_json` writes, as text without the newline: for a document that goes where text
    goes (a file of secrets) or into another one at ``depth`` (a member spliced into JSON made elsewhere)."""
    return "".join(_json_chunks(doc, depth))


def write_json(doc, out: Optional[Path], stderr: bool = False) -> None:
    """``doc`` as JSON (indent 2, UTF-8 as is) to stdout (standard error with ``stderr``) or a file, the
    same bytes as ``json.dumps(doc, indent=2, ensure_ascii=False) + "\n"`` (floats aside: orjson writes
    1e-05 as 0.00001), written as it is made: a diff of a million ACLs is hundreds of megabytes of JSON,
    never held as one string. The two outer levels are laid out here, each value below them by orjson
    (json's own encoder has no C path with an indent: 150,000 findings took 5 s to write); a list of the
    two outer levels may be given as an iterator, made item by item as it is written (900,000 removals
    of a compaction are never all held as dicts)."""
    import os
    import sys

    if out is None or str(out) == "-":
        fh, close = (sys.stderr if stderr else sys.stdout), False
    else:
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as exc:
            raise InputError(exc.strerror or str(exc), str(out)) from None
        fh, close = os.fdopen(fd, "w", encoding="utf-8"), True
    try:
        pending: list[str] = []
        size = 0
        for chunk in _json_chunks(doc, 0):
            pending.append(chunk)
            size += len(chunk)
            if size > 1 << 20:
                fh.write("".join(pending))
                pending, size = [], 0
        pending.append("\n")
        fh.write("".join(pending))
        fh.flush()
    finally:
        if close:
            fh.close()


def _json_chunks(value, depth: int):
    """json.dumps(indent=2)'s layout of ``value`` at ``depth``: containers of the two outer levels
    item by item, anything deeper (or not a container) in one piece."""
    pad = "  " * (depth + 1)
    if depth < 2 and isinstance(value, dict) and value:
        for i, (key, item) in enumerate(value.items()):
            yield ("{" if i == 0 else ",") + "\n" + pad + json.dumps(key if isinstance(key, str) else
                                                                      json.dumps(key), ensure_ascii=False) + ": "
            yield from _json_chunks(item, depth + 1)
        yield "\n" + "  " * depth + "}"
    elif depth < 2 and (isinstance(value, list) and value or isinstance(value, Iterator)):
        empty = True
        for i, item in enumerate(value):
            empty = False
            yield ("[" if i == 0 else ",") + "\n" + pad
            yield from _json_chunks(item, depth + 1)
        yield "[]" if empty else "\n" + "  " * depth + "]"
    else:
        yield _json_leaf(value, depth)


def _json_leaf(value, depth: int) -> str:
    import orjson

    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except (TypeError, orjson.JSONEncodeError):  # ints past 64 bits, non-string keys, lone surrogates
        text = json.dumps(value, indent=2, ensure_ascii=False)
    # Strings hold no raw newline (JSON escapes it): every newline is the layout's, indented here.
    return text.replace("\n", "\n" + "  " * depth) if depth and "\n" in text else text


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


# The options of the ecosystem writers, declared once: every command that writes ACLs (convert, compile,
# cluster pull, generate) takes them with these defaults and helps, and turns them into WriteOptions.
STRIMZI_AUTHENTICATION_OPTION = typer.Option(None, "--strimzi-authentication", help=STRIMZI_AUTHENTICATION_HELP)
STRIMZI_CLUSTER_OPTION = typer.Option(None, "--strimzi-cluster", help=STRIMZI_CLUSTER_HELP)
STRIMZI_API_VERSION_OPTION = typer.Option(None, "--strimzi-api-version", help=STRIMZI_API_VERSION_HELP)
TERRAFORM_PROVIDER_OPTION = typer.Option(None, "--terraform-provider", help=TERRAFORM_PROVIDER_HELP)
TERRAFORM_CONFLUENT_CLUSTER_OPTION = typer.Option(None, "--terraform-confluent-cluster",
                                                  help=TERRAFORM_CONFLUENT_CLUSTER_HELP)
LOSSY_OPTION = typer.Option(False, "--lossy", help=LOSSY_HELP)


def write_options(strimzi_authentication, strimzi_cluster, strimzi_api_version, terraform_provider,
                  terraform_confluent_cluster, lossy):
    """The writer options of a command, as the services take them."""
    from kafka_authz_cli.services.convert import WriteOptions

    return WriteOptions(option_value(strimzi_authentication), strimzi_cluster, lossy,
                        option_value(strimzi_api_version), option_value(terraform_provider),
                        terraform_confluent_cluster)
