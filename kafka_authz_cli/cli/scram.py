"""`authz scram`: SCRAM credentials offline, exactly as Kafka computes and stores them."""

from __future__ import annotations

import json
import os
import secrets
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    check_can_write,
    console,
    err_console,
    warn,
    write_output,
)
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats.reading import (
    brief,
    csv_table,
    read_bytes,
    read_stdin_line,
    read_text,
)
from kafka_authz_cli.scram.credential import (
    ScramCredential,
    ScramError,
    ScramMechanism,
    b64,
    exchange,
    java_b64decode,
    new_nonce,
    parse_add_scram,
    salted_password,
)
from kafka_authz_cli.scram.records import MAX_ITERATIONS, StoredRecord, load_records

if TYPE_CHECKING:
    from rich.progress import Progress

scram_app = typer.Typer(help="SCRAM-SHA-256/512 credentials as Kafka stores them (never the password).",
                        no_args_is_help=True)
app.add_typer(scram_app, name="scram")

PASSWORD_HELP = ("Passwords come from a prompt (asked twice), --password-stdin or --password-file; "
                 "--password on the command line is refused unless --password-argv-i-understand is given "
                 "(argv is visible to every user of the machine and lands in shell history).")


class CreateFormat(str, Enum):
    table = "table"
    json = "json"
    kafka_storage = "kafka-storage"
    credential = "credential"
    jaas = "jaas"


class BulkFormat(str, Enum):
    jsonl = "jsonl"
    kafka_storage = "kafka-storage"


def check_password_source(password_column, password_dir, generate: bool, generated_passwords) -> None:
    """Bulk users: exactly one place the passwords come from, and generated ones are written somewhere."""
    if sum([password_column is not None, password_dir is not None, generate]) != 1:
        raise typer.BadParameter("choose one of --password-column, --password-dir, --generate", param_hint="password")
    if generate and generated_passwords is None:
        raise typer.BadParameter("--generate needs --generated-passwords FILE (the only place they are written)",
                                 param_hint="--generated-passwords")


def _mechanism(text: str) -> ScramMechanism:
    try:
        return ScramMechanism.parse(text)
    except ScramError as exc:
        raise typer.BadParameter(str(exc), param_hint="--mechanism") from None


def read_password(password_stdin: bool, password_file: Optional[Path], password: Optional[str],
                  argv_ok: bool, confirm: bool = True, prompt: str = "Password") -> str:
    """The one way authz obtains a secret: never from argv unless the user insists."""
    sources = sum([password_stdin, password_file is not None, password is not None])
    if sources > 1:
        raise typer.BadParameter("give one of --password-stdin, --password-file, --password", param_hint="password")
    if password is not None:
        if not argv_ok:
            raise typer.BadParameter("a password on the command line is visible to other users and kept in shell "
                                     "history; use the prompt, --password-stdin or --password-file (or add "
                                     "--password-argv-i-understand)", param_hint="--password")
        value = password
    elif password_stdin:
        value = read_stdin_line("--password-stdin")
    elif password_file is not None:
        value = _first_line_secret(password_file)
    else:
        if not sys.stdin.isatty() and os.environ.get("AUTHZ_ALLOW_PIPE_PROMPT") != "1":
            raise AuthzError("no password source: stdin is not a terminal; use --password-stdin or --password-file")
        try:
            value = typer.prompt(prompt, hide_input=True, confirmation_prompt=confirm)
        except typer.Abort:
            # Ctrl-C (or end of input) at the prompt: click turns it into Abort, which would exit 1.
            typer.echo("authz: interrupted", err=True)
            raise typer.Exit(130) from None
    if not value:
        # Kafka's HMAC refuses an empty key: the broker could never use this credential.
        if password_file is not None:
            raise InputError("empty password: Kafka refuses it ('Empty key')", str(password_file), 1)
        raise AuthzError("empty password: Kafka refuses it ('Empty key')")
    return value


def _first_line_secret(path: Path) -> str:
    """The first line of a password file, exactly (a byte-order mark is kept: it is part of the bytes)."""
    label = str(path)
    data = read_bytes(path, label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x}); Kafka hashes the UTF-8 bytes of the "
                         "password", label, data.count(b"\n", 0, exc.start) + 1) from None
    if text.startswith("\ufeff"):
        warn(f"{label} starts with a byte-order mark, which is part of the password as read")
    if str(path) != "-":
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = 0
        if mode & 0o077:
            warn(f"{label} is readable by others (mode {oct(mode & 0o777)}); chmod 600 it")
    return text.split("\n", 1)[0].rstrip("\r")


def _check_iterations(mechanism: ScramMechanism, iterations: int) -> None:
    if not mechanism.min_iterations <= iterations <= mechanism.max_iterations:
        raise typer.BadParameter(f"must be within {mechanism.min_iterations}..{mechanism.max_iterations} (KRaft "
                                 "refuses other counts: 'Too few iterations' / 'Too many iterations')",
                                 param_hint="--iterations")


def _check_username(user: str) -> None:
    if not user:
        raise typer.BadParameter("must not be empty", param_hint="--user")
    if not user.isascii():
        warn(f"user name {user!r} is not ASCII: Kafka's broker refuses it at the first SCRAM message, so this "
             "user could never log in")


def _decode_salt(salt: Optional[str]) -> Optional[bytes]:
    if salt is None:
        return None
    try:
        value = java_b64decode(salt)
    except ValueError as exc:
        raise typer.BadParameter(f"not base64: {exc}", param_hint="--salt") from None
    if not value:
        raise typer.BadParameter("must not be empty", param_hint="--salt")
    return value


def kafka_storage_name_problem(user: str) -> Optional[str]:
    """Why Kafka's ScramParser cannot carry ``user`` in an --add-scram argument (None: it can).

    The parser splits the whole ``[...]`` at every comma (quotes do not protect one) and strips one
    pair of double quotes around a value; ``=`` and ``]`` inside the name are read back intact.
    """
    if "," in user:
        return ("Kafka's ScramParser splits --add-scram at every ',' (quotes do not protect it), so this "
                "name cannot be written; create the user with kafka-configs --alter --add-config or the "
                "AlterUserScramCredentials API instead")
    if len(user) >= 2 and user.startswith('"') and user.endswith('"'):
        return ("Kafka's ScramParser strips the double quotes around a value, so the credential would be "
                f"stored for {user[1:-1]!r}; create the user with kafka-configs or the AlterUserScramCredentials "
                "API instead")
    return None


def kafka_storage_argument(user: str, mechanism: ScramMechanism, salted: bytes, salt: bytes, iterations: int) -> str:
    problem = kafka_storage_name_problem(user)
    if problem is not None:
        raise AuthzError(f"user name {brief(user)}: {problem}")
    return (f"{mechanism.mechanism_name}=[name={user},iterations={iterations},salt=\"{b64(salt)}\","
            f"saltedpassword=\"{b64(salted)}\"]")


@scram_app.command("create-user", help=f"""Compute one user's SCRAM credential from a password.

Formats: table (default), json (the UserScramCredentialRecord fields), kafka-storage (the
`kafka-storage format --add-scram` argument with salt and salted password: no password, but the
salted password lets its holder log in, so treat it as a secret), credential (Kafka's
`salt=...,stored_key=...,server_key=...,iterations=...`), jaas (a client sasl.jaas.config line;
it contains the password and is printed only when asked for by name).

With --bootstrap-server (and --command-config) the credential is created or updated on a live
cluster instead (AlterUserScramCredentials; needs ALTER on the CLUSTER resource); the password
still never travels, only the salted password.

{PASSWORD_HELP}

Exit codes: 0 created; 2 usage, input or connection error.""")
def create_user(
    user: str = typer.Option(..., "--user", help="User name."),
    mechanism: str = typer.Option("SCRAM-SHA-512", "--mechanism", help="SCRAM-SHA-256 or SCRAM-SHA-512."),
    iterations: int = typer.Option(4096, "--iterations", help="4096..16384."),
    salt: Optional[str] = typer.Option(None, "--salt", help="Base64 salt (default: random, like Kafka's tools)."),
    fmt: CreateFormat = typer.Option(CreateFormat.table, "--format", "-f", help="Output: table (no secrets), json "
                                     "(UserScramCredentialRecord), kafka-storage (--add-scram argument), credential, "
                                     "jaas (holds the password)."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write to a file (created 0600)."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin's first line."),
    password_file: Optional[Path] = typer.Option(None, "--password-file", help="Read the password from a file's "
                                                 "first line."),
    password: Optional[str] = typer.Option(None, "--password", hidden=True),
    argv_ok: bool = typer.Option(False, "--password-argv-i-understand", hidden=True),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="Create (or update) the "
                                                   "credential on this live cluster instead (AlterUserScramCredentials)."),
    command_config: Optional[Path] = typer.Option(None, "--command-config", help="With --bootstrap-server: admin "
                                                  "client properties (as for kafka-configs)."),
    timeout: float = typer.Option(10.0, "--timeout", help="With --bootstrap-server: seconds to wait for the broker."),
) -> None:
    from rich.table import Table
    mech = _mechanism(mechanism)
    _check_username(user)
    _check_iterations(mech, iterations)
    if fmt is CreateFormat.kafka_storage and (problem := kafka_storage_name_problem(user)) is not None:
        raise typer.BadParameter(problem, param_hint="--user")
    salt_bytes = _decode_salt(salt)
    if out is not None and bootstrap_server is not None:
        raise typer.BadParameter("the credential goes to the cluster (--bootstrap-server) or to a file, not both",
                                 param_hint="-o")
    if out is not None and fmt is CreateFormat.table:
        raise typer.BadParameter("the table is for the terminal: give --format json, credential, kafka-storage "
                                 "or jaas to write a file", param_hint="-o")
    if out is not None and str(out) != "-":
        check_can_write(out)
    secret = read_password(password_stdin, password_file, password, argv_ok)
    if bootstrap_server is not None:  # live: see cli/scram_live.py
        from kafka_authz_cli.cli.scram_live import upsert_user

        upsert_user(bootstrap_server, command_config, timeout, user, mech, secret, iterations, salt_bytes)
        return
    if salt_bytes is None:
        from kafka_authz_cli.scram.credential import new_salt

        salt_bytes = new_salt()
    try:
        salted = salted_password(mech, secret.encode("utf-8"), salt_bytes, iterations)
    except ScramError as exc:
        raise AuthzError(str(exc)) from None
    cred = ScramCredential.from_salted_password(mech, salted, salt_bytes, iterations)
    if fmt is CreateFormat.table:
        table = Table(show_header=False)
        for k, v in (("user", user), ("mechanism", mech.mechanism_name), ("iterations", str(iterations)),
                     ("salt", b64(cred.salt)), ("StoredKey", b64(cred.stored_key)), ("ServerKey", b64(cred.server_key))):
            table.add_row(k, v)
        console.print(table)
        return
    if fmt is CreateFormat.json:
        text = json.dumps(cred.record(user), indent=2) + "\n"
    elif fmt is CreateFormat.kafka_storage:
        text = kafka_storage_argument(user, mech, salted, cred.salt, iterations) + "\n"
    elif fmt is CreateFormat.credential:
        text = cred.credential_string() + "\n"
    else:
        from kafka_authz_cli._java.jaas import quote

        # JAAS quoting (\" and \\), then .properties escaping of the whole value: java.util.Properties
        # turns \\ back into \ and reads files as ISO-8859-1 (so non-ASCII goes as \uXXXX): the file
        # logs in as the Java client and authz both read it.
        jaas = (f"org.apache.kafka.common.security.scram.ScramLoginModule required username={quote(user)} "
                f"password={quote(secret)};")
        value = "".join(c if " " <= c <= "~" else "".join(f"\\u{u:04x}" for u in _utf16(c))
                        for c in jaas.replace("\\", "\\\\"))
        text = f"sasl.mechanism={mech.mechanism_name}\nsasl.jaas.config={value}\n"
    write_output(text, out, secret=True)


def _utf16(c: str) -> list[int]:
    data = c.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def _load_stored(credential: Optional[str], record: Optional[Path], mechanism: Optional[str]) -> list[StoredRecord]:
    """The broker's side: records from --record (with their names), or one --credential string."""
    if (credential is None) == (record is None):
        raise typer.BadParameter("give exactly one of --credential STRING or --record FILE", param_hint="--credential")
    if record is not None:
        return load_records(record)
    if mechanism is None:
        raise typer.BadParameter("a credential string does not say its mechanism: add --mechanism",
                                 param_hint="--mechanism")
    try:
        cred = ScramCredential.from_credential_string(credential, _mechanism(mechanism))
    except ScramError as exc:
        raise InputError(str(exc), "--credential") from None
    if cred.iterations > MAX_ITERATIONS:
        raise InputError(f"iterations {cred.iterations} above {MAX_ITERATIONS}: Kafka refuses to store such a "
                         "credential ('Too many iterations')", "--credential")
    # A credential string carries no name: it is the one stored for the user being checked.
    return [StoredRecord("", cred, "--credential")]


def _one_record(records: list[StoredRecord], user: Optional[str], source: str) -> StoredRecord:
    if user is not None:
        named = [r for r in records if r.name == user or r.origin == "--credential"]
        if not named:
            raise InputError(f"no credential for user {brief(user)} (the file holds "
                             f"{', '.join(sorted({brief(r.name) for r in records})[:10])})", source)
        records = named
    if len(records) > 1:
        raise InputError(f"{len(records)} credentials in the file ("
                         + ", ".join(f"{r.name} {r.credential.mechanism.mechanism_name}" for r in records[:5])
                         + (", ..." if len(records) > 5 else "")
                         + "): say which with --user" + (" and --mechanism" if user is not None else ""), source)
    return records[0]


@scram_app.command("verify", help=f"""Check a password against a stored credential (constant-time).

The credential is a UserScramCredentialRecord JSON file (--record, as `create-user --format json`
writes; a file of several records, as `create-users` writes, needs --user) or Kafka's credential
string (--credential with --mechanism). {PASSWORD_HELP}

Exit codes: 0 the password matches; 1 it does not; 2 usage or input error.""")
def verify(
    credential: Optional[str] = typer.Option(None, "--credential", help="salt=...,stored_key=...,server_key=...,iterations=..."),
    record: Optional[Path] = typer.Option(None, "--record", help="JSON UserScramCredentialRecord(s)."),
    user: Optional[str] = typer.Option(None, "--user", help="Which user's record, when --record holds several."),
    mechanism: Optional[str] = typer.Option(None, "--mechanism", help="Mechanism of --credential."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin's first line."),
    password_file: Optional[Path] = typer.Option(None, "--password-file", help="Read the password from a file's "
                                                 "first line."),
    password: Optional[str] = typer.Option(None, "--password", hidden=True),
    argv_ok: bool = typer.Option(False, "--password-argv-i-understand", hidden=True),
) -> None:
    records = _load_stored(credential, record, mechanism)
    if record is not None and mechanism is not None:
        mech = _mechanism(mechanism)
        records = [r for r in records if r.credential.mechanism is mech] or records
    cred = _one_record(records, user, str(record) if record is not None else "--credential").credential
    secret = read_password(password_stdin, password_file, password, argv_ok, confirm=False)
    if cred.verify(secret):
        console.print("[green]match[/]: the password produces this credential")
        return
    console.print("[red]no match[/]: the password does not produce this credential "
                  "(Kafka does no Unicode normalisation; check the mechanism too)")
    raise typer.Exit(1)


class ExchangeFormat(str, Enum):
    text = "text"
    json = "json"


@scram_app.command("exchange", help=f"""Run a full client/server SCRAM conversation locally and print the transcript.

The server side holds the stored credentials (--credential/--record; a record file may hold many
users, as `create-users` writes) and, as the broker does, looks the client's --user up among them
under the client's mechanism: a record for another user does not authenticate --user. The client
side uses the password ({PASSWORD_HELP.split(';')[0]}). --client-mechanism makes the client speak
another mechanism, --client-nonce/--server-nonce make the transcript reproducible. The last lines
say why a login fails (wrong password, unknown user, mechanism, iterations, non-ASCII user name).

Exit codes: 0 authenticated; 1 authentication failed; 2 usage or input error.""")
def exchange_cmd(
    user: str = typer.Option(..., "--user", help="The user name the client logs in with."),
    credential: Optional[str] = typer.Option(None, "--credential", help="A credential string stored for --user: "
                                             "salt=...,stored_key=...,server_key=...,iterations=..."),
    record: Optional[Path] = typer.Option(None, "--record", help="JSON UserScramCredentialRecord(s): what the "
                                                                "broker stores."),
    mechanism: Optional[str] = typer.Option(None, "--mechanism", help="Mechanism of --credential."),
    client_mechanism: Optional[str] = typer.Option(None, "--client-mechanism", help="Mechanism the client uses "
                                                   "(default: the stored credential's)."),
    client_nonce: Optional[str] = typer.Option(None, "--client-nonce", help="Client nonce (default: random), for a "
                                               "reproducible transcript."),
    server_nonce: Optional[str] = typer.Option(None, "--server-nonce", help="The server's part of the nonce (default: "
                                               "random), for a reproducible transcript."),
    show_keys: bool = typer.Option(False, "--show-derived", help="Also print the derived keys and signatures "
                                                                  "(secret-equivalent material)."),
    fmt: ExchangeFormat = typer.Option(ExchangeFormat.text, "--format", "-f", help="Output format."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin's first line."),
    password_file: Optional[Path] = typer.Option(None, "--password-file", help="Read the password from a file's "
                                                 "first line."),
    password: Optional[str] = typer.Option(None, "--password", hidden=True),
    argv_ok: bool = typer.Option(False, "--password-argv-i-understand", hidden=True),
) -> None:
    records = _load_stored(credential, record, mechanism)
    if record is None:
        records = [StoredRecord(user, records[0].credential, "--credential")]
    # The broker's credential store: (user, mechanism) -> credential, as ScramCredentialCache holds it.
    store = {(r.name, r.credential.mechanism): r.credential for r in records}
    if client_mechanism:
        client_mech = _mechanism(client_mechanism)
    else:
        mine = [r for r in records if r.name == user]
        client_mech = (mine or records)[0].credential.mechanism
    secret = read_password(password_stdin, password_file, password, argv_ok, confirm=False)
    server_cred = store.get((user, client_mech))
    result = exchange(client_mech, user, secret, server_cred, client_nonce=client_nonce or new_nonce(),
                      server_nonce=server_nonce or new_nonce(), client_mechanism=client_mech)
    if not result.ok and server_cred is None:
        others = sorted({f"{r.name} ({r.credential.mechanism.mechanism_name})" for r in records})
        if record is not None:
            result.diagnosis = (f"{result.diagnosis}; {record} holds credentials for " + ", ".join(others[:5])
                                + (", ..." if len(others) > 5 else ""))
    if fmt is ExchangeFormat.json:
        doc = {"ok": result.ok, "transcript": [{"from": s.sender, "step": s.step, "message": s.message}
                                               for s in result.transcript],
               "failed_at_step": result.failed_at_step, "error": result.error, "diagnosis": result.diagnosis}
        if show_keys:
            doc["derived"] = result.derived
        typer.echo(json.dumps(doc, indent=2))
    else:
        from rich.markup import escape

        for s in result.transcript:
            arrow = "C -> S" if s.sender == "client" else "S -> C"
            console.print(f"{arrow}  [bold]{s.step:<13}[/] {escape(s.message)}", markup=True, highlight=False)
        if show_keys:
            for k, v in result.derived.items():
                console.print(f"        {k}: {v}", markup=False)
        if result.ok:
            console.print("[green]authenticated[/]")
        else:
            console.print(f"[red]failed at step {result.failed_at_step}[/]: {escape(result.error or '')}")
            console.print(f"why: {escape(result.diagnosis or '')}")
    if not result.ok:
        raise typer.Exit(1)


@scram_app.command("parse-add-scram", help="""Read `kafka-storage format --add-scram` arguments exactly as Kafka's
parser does, and print the UserScramCredentialRecords it would write (JSON lines).

Exit codes: 0 every argument accepted; 2 an argument refused (Kafka's message).""")
def parse_add_scram_cmd(arguments: list[str] = typer.Argument(..., help="One or more --add-scram values.")) -> None:
    records = []
    for i, argument in enumerate(arguments, 1):
        try:
            parsed = parse_add_scram(argument)
        except ScramError as exc:
            raise AuthzError(f"argument {i}: {exc}") from None
        rec = parsed.record()
        rec["mechanism_name"] = parsed.credential.mechanism.mechanism_name
        rec["salt_was_generated"] = parsed.salt_was_generated
        records.append(rec)
    for rec in records:
        typer.echo(json.dumps(rec))


# -- bulk --------------------------------------------------------------------------------------------

def _derive(job: tuple[str, str, bytes, bytes, int]) -> tuple[str, str, bytes, bytes, bytes, bytes, int]:
    user, mech_name, password, salt, iterations = job
    mech = ScramMechanism.for_mechanism_name(mech_name)
    salted = salted_password(mech, password, salt, iterations)
    cred = ScramCredential.from_salted_password(mech, salted, salt, iterations)
    return user, mech_name, salted, salt, cred.stored_key, cred.server_key, iterations


def derive_many(jobs: list, workers: int, progress: Optional[Progress] = None, task=None) -> list:
    """PBKDF2 is CPU-bound: spread the users over processes, in input order."""
    from concurrent.futures import ProcessPoolExecutor

    if workers <= 1 or len(jobs) < 8:
        out = []
        for job in jobs:
            out.append(_derive(job))
            if progress is not None:
                progress.advance(task)
        return out
    chunksize = max(1, len(jobs) // (workers * 16))
    out = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(_derive, jobs, chunksize=chunksize):
            out.append(result)
            if progress is not None:
                progress.advance(task)
    return out


def _generated_password() -> str:
    return secrets.token_urlsafe(24)


@scram_app.command("create-users", help="""Create many SCRAM credentials from a CSV (column `user`, optional
`mechanism`, `iterations`), on every CPU core.

Passwords: --password-column NAME (a column of the CSV), --password-dir DIR (one file per user,
named after the user), or --generate (random passwords, written only to --generated-passwords FILE,
created 0600). Output: JSON lines of UserScramCredentialRecords, or `--add-scram` arguments for
`kafka-storage format` (--format kafka-storage; these carry salted passwords: the file is 0600).

Exit codes: 0 created; 2 usage or input error (file:line).""")
def create_users(
    input_csv: Path = typer.Option(..., "--input", help="CSV with a `user` column."),
    mechanism: str = typer.Option("SCRAM-SHA-512", "--mechanism", help="Default for rows without one."),
    iterations: int = typer.Option(4096, "--iterations", help="Default for rows without one."),
    password_column: Optional[str] = typer.Option(None, "--password-column", help="CSV column holding each user's "
                                                  "password."),
    password_dir: Optional[Path] = typer.Option(None, "--password-dir", help="Directory with one file per user "
                                                "(named after the user) holding the password."),
    generate: bool = typer.Option(False, "--generate", help="Generate random passwords (written only to "
                                  "--generated-passwords)."),
    generated_passwords: Optional[Path] = typer.Option(None, "--generated-passwords", help="Where generated "
                                                                                             "passwords go (0600)."),
    fmt: BulkFormat = typer.Option(BulkFormat.jsonl, "--format", "-f", help="Output: jsonl "
                                   "(UserScramCredentialRecords) or kafka-storage (--add-scram arguments)."),
    out: Path = typer.Option(..., "-o", "--output", help="Output file (created 0600)."),
    workers: int = typer.Option(0, "--workers", min=0, help="Processes (default: all cores)."),
) -> None:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )
    check_password_source(password_column, password_dir, generate, generated_passwords)
    default_mech = _mechanism(mechanism)
    for path in (out, generated_passwords if generate else None):
        if path is not None and str(path) != "-":
            check_can_write(path)
    text = read_text(input_csv)
    label = str(input_csv)
    optional = ["mechanism", "iterations"] + ([password_column] if password_column is not None else [])
    if password_column is not None and password_column in ("user", "mechanism", "iterations"):
        raise typer.BadParameter(f"{password_column!r} is not a password column", param_hint="--password-column")
    jobs, generated = [], []
    seen = set()
    rows = csv_table(text, label, ["user"], optional, normalise=str.strip)
    for lineno, row in rows:
        user = row["user"].strip()
        if not user:
            raise InputError("empty user name", label, lineno)
        if password_column is not None and password_column not in row:
            raise InputError(f"CSV has no column {password_column!r} (--password-column)", label, 1)
        try:
            mech = ScramMechanism.parse(row["mechanism"]) if row.get("mechanism") else default_mech
            iters = int(row["iterations"]) if row.get("iterations") else iterations
        except (ScramError, ValueError) as exc:
            raise InputError(str(exc)[:200], label, lineno) from None
        if not mech.min_iterations <= iters <= mech.max_iterations:
            raise InputError(f"iterations {iters} outside {mech.min_iterations}..{mech.max_iterations}",
                             label, lineno)
        if (user, mech) in seen:
            raise InputError(f"user {brief(user)} appears twice for {mech.mechanism_name}", label, lineno)
        seen.add((user, mech))
        if fmt is BulkFormat.kafka_storage and (problem := kafka_storage_name_problem(user)) is not None:
            raise InputError(f"user name {brief(user)}: {problem}", label, lineno)
        if not user.isascii():
            warn(f"{input_csv}:{lineno}: user name {brief(user)} is not ASCII: the broker refuses it at login")
        if password_column is not None:
            secret = row.get(password_column) or ""
        elif password_dir is not None:
            if "/" in user or "\0" in user or user in (".", ".."):
                raise InputError(f"user name {brief(user)} cannot name a file in --password-dir", label, lineno)
            path = password_dir / user
            if not path.is_file():
                raise InputError(f"no password file for user {brief(user)}", str(path))
            secret = _first_line_secret(path)
        else:
            secret = _generated_password()
            generated.append((user, mech.mechanism_name, secret))
        if not secret:
            raise InputError(f"empty password for {brief(user)} (Kafka refuses it: 'Empty key')", label, lineno)
        from kafka_authz_cli.scram.credential import new_salt

        jobs.append((user, mech.mechanism_name, secret.encode("utf-8"), new_salt(), iters))
    n_workers = workers or os.cpu_count() or 1
    with Progress(TextColumn("deriving"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err_console, transient=True) as progress:
        task = progress.add_task("derive", total=len(jobs))
        results = derive_many(jobs, n_workers, progress, task)
    lines = []
    for user, mech_name, salted, salt, stored, server, iters in results:
        mech = ScramMechanism.for_mechanism_name(mech_name)
        if fmt is BulkFormat.jsonl:
            lines.append(json.dumps(ScramCredential(mech, salt, stored, server, iters).record(user)))
        else:
            lines.append(kafka_storage_argument(user, mech, salted, salt, iters))
    if generated:
        # The passwords first: credentials whose generated passwords were never written could not be
        # logged in with by anybody.
        import csv
        import io

        out_buf = io.StringIO()
        writer = csv.writer(out_buf, lineterminator="\n")
        writer.writerow(["user", "mechanism", "password"])
        writer.writerows(generated)
        buf = out_buf.getvalue()
        write_output(buf, generated_passwords, secret=True)
    write_output("\n".join(lines) + ("\n" if lines else ""), out, secret=True)
    err_console.print(f"{len(results)} credential(s) written to {out}"
                      + (f"; generated passwords in {generated_passwords} (0600)" if generated else ""))


# -- live cluster commands: `scram list`, `scram delete`, `scram apply` live in cli/scram_live.py ----------
from kafka_authz_cli.cli import scram_live  # noqa: E402,F401  (registers them on scram_app)
