"""`authz scram`: SCRAM credentials exactly as Kafka computes and stores them, offline and on a live cluster."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import check_can_write, console, err_console, json_line, warn, write_json, write_output
from kafka_authz_cli.cli.options import (
    REQUIRED,
    BootstrapServer,
    CommandConfig,
    ListFormat,
    ListFormatOption,
    PasswordArgv,
    PasswordArgvOk,
    PasswordFile,
    PasswordStdin,
    TextFormat,
    TextFormatOption,
    Timeout,
)
from kafka_authz_cli.cli.prompts import ask, confirm
from kafka_authz_cli.cli.secrets import first_line_secret, read_password
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.services import scram as service

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

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
    password_stdin: PasswordStdin = False,
    password_file: PasswordFile = None,
    password: PasswordArgv = None,
    argv_ok: PasswordArgvOk = False,
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="Create (or update) the "
                                                   "credential on this live cluster instead (AlterUserScramCredentials)."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
) -> None:
    def ask_password() -> str:  # once the options are checked; an output file that cannot be written first
        if out is not None and str(out) != "-":
            check_can_write(out)
        return read_password(password_stdin, password_file, password, argv_ok)

    made = service.create_user(user, mechanism, iterations, salt, fmt.value, out is not None, bootstrap_server,
                               command_config, timeout, ask_password)
    if made.verb is not None:
        console.print(f"{made.verb} the {made.mechanism.mechanism_name} credential of {user} ({iterations} "
                      f"iterations) on {bootstrap_server}")
    elif made.text is None:
        from rich.table import Table

        table = Table(show_header=False)
        for k, v in made.fields():
            table.add_row(k, v)
        console.print(table)
    else:
        write_output(made.text, out, secret=True)


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
    password_stdin: PasswordStdin = False,
    password_file: PasswordFile = None,
    password: PasswordArgv = None,
    argv_ok: PasswordArgvOk = False,
) -> None:
    def ask_password() -> str:
        return read_password(password_stdin, password_file, password, argv_ok, confirm=False)

    if service.verify_password(credential, record, user, mechanism, ask_password):
        console.print("[green]match[/]: the password produces this credential")
        return
    console.print("[red]no match[/]: the password does not produce this credential "
                  "(Kafka does no Unicode normalisation; check the mechanism too)")
    raise typer.Exit(1)


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
    fmt: TextFormatOption = TextFormat.text,
    password_stdin: PasswordStdin = False,
    password_file: PasswordFile = None,
    password: PasswordArgv = None,
    argv_ok: PasswordArgvOk = False,
) -> None:
    def ask_password() -> str:
        return read_password(password_stdin, password_file, password, argv_ok, confirm=False)

    result = service.run_exchange(user, credential, record, mechanism, client_mechanism, client_nonce, server_nonce,
                                  ask_password)
    if fmt is TextFormat.json:
        write_json(service.exchange_document(result, show_keys), None)
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
    for rec in service.parse_add_scram_arguments(arguments):
        typer.echo(json_line(rec))


# -- bulk --------------------------------------------------------------------------------------------

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
    def check_outputs() -> None:  # before the CSV is read: work whose result could not be written is lost
        for path in (out, generated_passwords if generate else None):
            if path is not None and str(path) != "-":
                check_can_write(path)

    bar = _ProgressBar()
    try:
        made = service.create_users(input_csv, mechanism, iterations, password_column, password_dir, generate,
                                    generated_passwords, fmt.value, workers, first_line_secret, check_outputs,
                                    bar.update)
    finally:
        bar.stop()
    if made.generated_csv is not None:
        # The passwords first: credentials whose generated passwords were never written could not be
        # logged in with by anybody.
        write_output(made.generated_csv, generated_passwords, secret=True)
    write_output(made.text, out, secret=True)
    err_console.print(f"{made.count} credential(s) written to {out}"
                      + (f"; generated passwords in {generated_passwords} (0600)" if made.generated_csv else ""))


class _ProgressBar:
    """The derivation's progress on stderr, from its first report until stop() (gone when done)."""

    def __init__(self) -> None:
        self._progress: Optional[Progress] = None
        self._task: Optional[TaskID] = None

    def update(self, done: int, total: int) -> None:
        if self._progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(TextColumn("deriving"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                      console=err_console.real(), transient=True)
            self._progress.start()
            self._task = self._progress.add_task("derive", total=total)
        assert self._task is not None  # made with the bar
        self._progress.update(self._task, completed=done)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()


# -- live cluster ---------------------------------------------------------------------------------------
# `scram list|delete|apply` and `scram create-user --bootstrap-server`: DescribeUserScramCredentials /
# AlterUserScramCredentials through kafka-python. Passwords come from the same sources as the offline
# commands (never argv); only salted passwords travel. Changes follow `cluster apply`'s conventions:
# the plan is shown first, --dry-run stops there, --yes or a confirmation applies, a declined prompt
# (or closed stdin) exits 4.

@scram_app.command("list", short_help="List a live cluster's SCRAM users, mechanisms and iterations.", help="""List the SCRAM users of a live cluster: user, mechanisms and iterations
(DescribeUserScramCredentials; needs DESCRIBE on the CLUSTER resource). Never a secret.

Exit codes: 0 listed; 2 usage, input or connection error (or a --user that has no credential).""")
def list_users(
    bootstrap_server: BootstrapServer = REQUIRED,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    user: list[str] = typer.Option([], "--user", help="Only these users (repeatable)."),
    fmt: ListFormatOption = ListFormat.table,
) -> None:
    rows, n_users, missing = service.list_users(bootstrap_server, command_config, timeout, list(user))
    if fmt is ListFormat.json:
        write_json(rows, None)
    elif fmt is ListFormat.csv:
        import csv
        import io

        buf = io.StringIO()
        w = csv.DictWriter(buf, ["user", "mechanism", "iterations"], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        typer.echo(buf.getvalue(), nl=False)
    else:
        from rich.table import Table

        table = Table(header_style="bold")
        for col in ("user", "mechanism", "iterations"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(r["user"], r["mechanism"], str(r["iterations"]))
        console.print(table)
        console.print(f"{n_users} user(s), {len(rows)} credential(s)")
    if missing:
        raise AuthzError(f"no SCRAM credential for {', '.join(map(repr, missing))}")


_CHANGE_LABELS = {"create": "[green]create[/]", "update": "[yellow]update[/]", "delete": "[red]delete[/]"}


def _print_changes(changes: service.ScramChanges) -> None:
    from rich.table import Table

    table = Table(header_style="bold", title="plan")
    for col in ("change", "user", "mechanism", "iterations"):
        table.add_column(col, overflow="fold")
    rows = changes.rows()
    shown = rows[:min(200, len(changes.upserts))] + rows[len(changes.upserts):][:200]
    for change, u, m, i in shown:
        table.add_row(_CHANGE_LABELS[change], u, m, i)
    console.print(table)
    hidden = len(rows) - len(shown)
    if hidden:
        console.print(f"({hidden} more row(s) not shown)")


def _report(altered: service.ScramAltered, what: str) -> None:
    for u, m, e in altered.failed:
        warn(f"{u} ({m}): {e}")
    console.print(what)
    if altered.failed:
        raise typer.Exit(1)


@scram_app.command("delete", short_help="Delete SCRAM credentials from a live cluster.", help="""Delete SCRAM credentials from a live cluster (AlterUserScramCredentials).

Without --mechanism every mechanism the user has is deleted. The plan is shown first; --dry-run
stops there; --yes applies without asking.

Exit codes: 0 deleted (or --dry-run); 1 the broker refused some; 2 usage, input or connection error
(or a user without credentials); 4 declined at the prompt (or stdin closed).""")
def delete_users(
    user: list[str] = typer.Option(..., "--user", help="User name (repeatable)."),
    mechanism: Optional[str] = typer.Option(None, "--mechanism", help="Only this mechanism."),
    bootstrap_server: BootstrapServer = REQUIRED,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan only."),
    yes: bool = typer.Option(False, "--yes", help="Delete without asking."),
) -> None:
    altered = service.delete_users(list(user), mechanism, bootstrap_server, command_config, timeout, dry_run, yes,
                                   _print_changes, confirm)
    if altered.applied:
        _report(altered, f"deleted {altered.done} credential(s), {len(altered.failed)} refused")


@scram_app.command("apply", short_help="Create or update many SCRAM users on a live cluster from a CSV.", help="""Create or update many SCRAM users on a live cluster from a CSV
(column `user`, optional `mechanism` and `iterations`), as `create-users` reads it.

Passwords: --password-column NAME, --password-dir DIR (one file per user) or --generate (random,
written only to --generated-passwords FILE, 0600). Credentials the CSV does not name are kept;
--allow-delete deletes them (never the one --command-config logs in with; many deletes need
--max-deletes N or the number typed back). --skip-existing leaves users that already have the
mechanism alone. The plan is shown first; --dry-run stops there; --yes applies without asking.

Exit codes: 0 applied (or nothing to do, or --dry-run); 1 the broker refused some (listed);
2 usage, input or connection error; 4 declined at a prompt (or stdin closed).""")
def apply_users(
    users_csv: Path = typer.Argument(..., help="CSV with a `user` column."),
    bootstrap_server: BootstrapServer = REQUIRED,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    mechanism: str = typer.Option("SCRAM-SHA-512", "--mechanism", help="Default for rows without one."),
    iterations: int = typer.Option(4096, "--iterations", help="Default for rows without one."),
    password_column: Optional[str] = typer.Option(None, "--password-column", help="CSV column holding passwords."),
    password_dir: Optional[Path] = typer.Option(None, "--password-dir", help="One password file per user."),
    generate: bool = typer.Option(False, "--generate", help="Random passwords (see --generated-passwords)."),
    generated_passwords: Optional[Path] = typer.Option(None, "--generated-passwords",
                                                       help="Where generated passwords go (0600)."),
    skip_existing: bool = typer.Option(False, "--skip-existing", help="Leave existing credentials alone."),
    allow_delete: bool = typer.Option(False, "--allow-delete", help="Delete credentials the CSV does not name."),
    max_deletes: Optional[int] = typer.Option(None, "--max-deletes", min=0, help="Allow this many deletes without "
                                                                                 "the typed confirmation."),
    batch_size: int = typer.Option(500, "--batch-size", min=1, help="Alterations per request."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan only."),
    yes: bool = typer.Option(False, "--yes", help="Apply without asking."),
) -> None:
    def save_generated(text: str) -> None:
        write_output(text, generated_passwords, secret=True)

    altered = service.apply_users(users_csv, bootstrap_server, command_config, timeout, mechanism, iterations,
                                  password_column, password_dir, generate, generated_passwords, skip_existing,
                                  allow_delete, max_deletes, batch_size, dry_run, yes,
                                  read_password_file=first_line_secret, show=_print_plan, ask=ask, confirm=confirm,
                                  save_generated=save_generated)
    changes = altered.changes
    if not changes.upserts and not changes.deletes:
        console.print("nothing to change" + (f" ({changes.not_named} credential(s) not in the CSV kept)"
                                             if changes.not_named else ""))
    elif altered.applied:
        _report(altered, f"applied {altered.done} of {altered.total} change(s), {len(altered.failed)} refused"
                + (f"; generated passwords in {generated_passwords} (0600)" if altered.generated else ""))


def _print_plan(changes: service.ScramChanges) -> None:
    _print_changes(changes)
    console.print(f"{len(changes.upserts)} to create or update, {len(changes.deletes)} to delete"
                  + (f", {changes.not_named} not in the CSV kept (--allow-delete deletes them)"
                     if changes.not_named and not changes.allow_delete else "")
                  + (f"; the login user's own credential ({changes.login_user}) is never deleted"
                     if changes.protected and changes.allow_delete else ""))
