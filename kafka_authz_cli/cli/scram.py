"""`authz scram`: SCRAM credentials offline, exactly as Kafka computes and stores them."""

from __future__ import annotations

import base64
import csv
import json
import os
import secrets
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import console, err_console, warn, write_output
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.scram import (
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
        value = sys.stdin.readline().rstrip("\r\n")
    elif password_file is not None:
        text = read_text(password_file)
        value = text.splitlines()[0] if text else ""
        mode = password_file.stat().st_mode & 0o077
        if mode:
            warn(f"{password_file} is readable by others (mode {oct(password_file.stat().st_mode & 0o777)}); "
                 "chmod 600 it")
    else:
        if not sys.stdin.isatty() and os.environ.get("AUTHZ_ALLOW_PIPE_PROMPT") != "1":
            raise AuthzError("no password source: stdin is not a terminal; use --password-stdin or --password-file")
        value = typer.prompt(prompt, hide_input=True, confirmation_prompt=confirm)
    if not value:
        # Kafka's HMAC refuses an empty key: the broker could never use this credential.
        raise AuthzError("empty password: Kafka refuses it ('Empty key')")
    return value


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


def kafka_storage_argument(user: str, mechanism: ScramMechanism, salted: bytes, salt: bytes, iterations: int) -> str:
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
    salt_bytes = _decode_salt(salt)
    secret = read_password(password_stdin, password_file, password, argv_ok)
    if bootstrap_server is not None:  # live: see cli/scram_live.py
        from kafka_authz_cli.cli.scram_live import upsert_user

        upsert_user(bootstrap_server, command_config, timeout, user, mech, secret, iterations, salt_bytes)
        return
    if salt_bytes is None:
        from kafka_authz_cli.scram import new_salt

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
        from kafka_authz_cli.jaas import quote

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


def _load_stored(credential: Optional[str], record: Optional[Path], mechanism: Optional[str]) -> ScramCredential:
    if (credential is None) == (record is None):
        raise typer.BadParameter("give exactly one of --credential STRING or --record FILE", param_hint="--credential")
    try:
        if record is not None:
            data = json.loads(read_text(record))
            return ScramCredential.from_record(data)
        if mechanism is None:
            raise typer.BadParameter("a credential string does not say its mechanism: add --mechanism",
                                     param_hint="--mechanism")
        return ScramCredential.from_credential_string(credential, _mechanism(mechanism))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", str(record), exc.lineno, exc.colno) from None
    except ScramError as exc:
        raise InputError(str(exc), str(record) if record is not None else "--credential") from None


@scram_app.command("verify", help=f"""Check a password against a stored credential (constant-time).

The credential is a UserScramCredentialRecord JSON file (--record, as `create-user --format json`
writes) or Kafka's credential string (--credential with --mechanism). {PASSWORD_HELP}

Exit codes: 0 the password matches; 1 it does not; 2 usage or input error.""")
def verify(
    credential: Optional[str] = typer.Option(None, "--credential", help="salt=...,stored_key=...,server_key=...,iterations=..."),
    record: Optional[Path] = typer.Option(None, "--record", help="JSON UserScramCredentialRecord."),
    mechanism: Optional[str] = typer.Option(None, "--mechanism", help="Mechanism of --credential."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin's first line."),
    password_file: Optional[Path] = typer.Option(None, "--password-file", help="Read the password from a file's "
                                                 "first line."),
    password: Optional[str] = typer.Option(None, "--password", hidden=True),
    argv_ok: bool = typer.Option(False, "--password-argv-i-understand", hidden=True),
) -> None:
    cred = _load_stored(credential, record, mechanism)
    secret = read_password(password_stdin, password_file, password, argv_ok, confirm=False)
    if cred.verify(secret):
        console.print("[green]match[/]: the password produces this credential")
        return
    console.print("[red]no match[/]: the password does not produce this credential "
                  "(Kafka does no Unicode normalisation; check the mechanism too)")
    raise typer.Exit(1)


@scram_app.command("exchange", help=f"""Run a full client/server SCRAM conversation locally and print the transcript.

The server side holds the stored credential (--credential/--record); the client side uses the
password ({PASSWORD_HELP.split(';')[0]}). --client-mechanism makes the client speak another
mechanism, --client-nonce/--server-nonce make the transcript reproducible. The last lines say why
a login fails (wrong password, mechanism, iterations, non-ASCII user name).

Exit codes: 0 authenticated; 1 authentication failed; 2 usage or input error.""")
def exchange_cmd(
    user: str = typer.Option(..., "--user", help="User name the client sends."),
    credential: Optional[str] = typer.Option(None, "--credential", help="Stored credential: "
                                             "salt=...,stored_key=...,server_key=...,iterations=..."),
    record: Optional[Path] = typer.Option(None, "--record", help="Stored credential as a JSON "
                                          "UserScramCredentialRecord."),
    mechanism: Optional[str] = typer.Option(None, "--mechanism", help="Mechanism of --credential."),
    client_mechanism: Optional[str] = typer.Option(None, "--client-mechanism", help="Mechanism the client uses "
                                                   "(default: the stored credential's)."),
    client_nonce: Optional[str] = typer.Option(None, "--client-nonce", help="Client nonce (default: random), for a "
                                               "reproducible transcript."),
    server_nonce: Optional[str] = typer.Option(None, "--server-nonce", help="The server's part of the nonce (default: "
                                               "random), for a reproducible transcript."),
    show_keys: bool = typer.Option(False, "--show-derived", help="Also print the derived keys and signatures "
                                                                  "(secret-equivalent material)."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin's first line."),
    password_file: Optional[Path] = typer.Option(None, "--password-file", help="Read the password from a file's "
                                                 "first line."),
    password: Optional[str] = typer.Option(None, "--password", hidden=True),
    argv_ok: bool = typer.Option(False, "--password-argv-i-understand", hidden=True),
) -> None:
    cred = _load_stored(credential, record, mechanism)
    secret = read_password(password_stdin, password_file, password, argv_ok, confirm=False)
    client_mech = _mechanism(client_mechanism) if client_mechanism else cred.mechanism
    result = exchange(cred.mechanism, user, secret, cred, client_nonce=client_nonce or new_nonce(),
                      server_nonce=server_nonce or new_nonce(), client_mechanism=client_mech)
    if fmt == "json":
        doc = {"ok": result.ok, "transcript": [{"from": s.sender, "step": s.step, "message": s.message}
                                               for s in result.transcript],
               "failed_at_step": result.failed_at_step, "error": result.error, "diagnosis": result.diagnosis}
        if show_keys:
            doc["derived"] = result.derived
        typer.echo(json.dumps(doc, indent=2))
    else:
        for s in result.transcript:
            arrow = "C -> S" if s.sender == "client" else "S -> C"
            console.print(f"{arrow}  [bold]{s.step:<13}[/] {s.message}", markup=True, highlight=False)
        if show_keys:
            for k, v in result.derived.items():
                console.print(f"        {k}: {v}", markup=False)
        if result.ok:
            console.print("[green]authenticated[/]")
        else:
            console.print(f"[red]failed at step {result.failed_at_step}[/]: {result.error}")
            console.print(f"why: {result.diagnosis}")
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
    workers: int = typer.Option(0, "--workers", help="Processes (default: all cores)."),
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    if sum([password_column is not None, password_dir is not None, generate]) != 1:
        raise typer.BadParameter("choose one of --password-column, --password-dir, --generate", param_hint="password")
    if generate and generated_passwords is None:
        raise typer.BadParameter("--generate needs --generated-passwords FILE (the only place they are written)",
                                 param_hint="--generated-passwords")
    default_mech = _mechanism(mechanism)
    text = read_text(input_csv)
    reader = csv.DictReader(text.splitlines())
    if reader.fieldnames is None or "user" not in [f.strip() for f in reader.fieldnames]:
        raise InputError("CSV needs a `user` column", str(input_csv), 1)
    if password_column is not None and password_column not in reader.fieldnames:
        raise InputError(f"CSV has no column {password_column!r}", str(input_csv), 1)
    jobs, generated = [], []
    seen = set()
    for lineno, row in enumerate(reader, 2):
        user = (row.get("user") or "").strip()
        if not user:
            raise InputError("empty user name", str(input_csv), lineno)
        try:
            mech = ScramMechanism.parse(row["mechanism"]) if row.get("mechanism") else default_mech
            iters = int(row["iterations"]) if row.get("iterations") else iterations
        except (ScramError, ValueError) as exc:
            raise InputError(str(exc), str(input_csv), lineno) from None
        if not mech.min_iterations <= iters <= mech.max_iterations:
            raise InputError(f"iterations {iters} outside {mech.min_iterations}..{mech.max_iterations}",
                             str(input_csv), lineno)
        if (user, mech) in seen:
            raise InputError(f"user {user!r} appears twice for {mech.mechanism_name}", str(input_csv), lineno)
        seen.add((user, mech))
        if not user.isascii():
            warn(f"{input_csv}:{lineno}: user name {user!r} is not ASCII: the broker refuses it at login")
        if password_column is not None:
            secret = row.get(password_column) or ""
        elif password_dir is not None:
            path = password_dir / user
            if not path.is_file():
                raise InputError(f"no password file for user {user!r}", str(path))
            secret = path.read_text(encoding="utf-8").splitlines()[0] if path.stat().st_size else ""
        else:
            secret = _generated_password()
            generated.append((user, mech.mechanism_name, secret))
        if not secret:
            raise InputError(f"empty password for {user!r} (Kafka refuses it: 'Empty key')", str(input_csv), lineno)
        from kafka_authz_cli.scram import new_salt

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
    write_output("\n".join(lines) + ("\n" if lines else ""), out, secret=True)
    if generated:
        buf = "user,mechanism,password\n" + "".join(f"{u},{m},{p}\n" for u, m, p in generated)
        write_output(buf, generated_passwords, secret=True)
    err_console.print(f"{len(results)} credential(s) written to {out}"
                      + (f"; generated passwords in {generated_passwords} (0600)" if generated else ""))


# -- live cluster commands: `scram list`, `scram delete`, `scram apply` live in cli/scram_live.py ----------
from kafka_authz_cli.cli import scram_live  # noqa: E402,F401  (registers them on scram_app)
