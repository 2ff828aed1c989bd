"""`authz scram`: SCRAM credentials offline (create, verify, exchange, --add-scram) and on a live cluster.

Passwords come in through callables the CLI hands over (it reads them from a prompt, stdin or a
file, after the options are checked) and never go out again: only the generated ones, as the text
of the file the CLI writes 0600. Live changes follow `cluster apply`'s conventions (cluster/guard.py):
the plan is shown first, a dry run stops there, many deletes need --max-deletes or the number typed
back, and a no at the prompt changes nothing.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from kafka_authz_cli._java import IllegalArgumentException, java_base64_decode
from kafka_authz_cli.cluster import confirm_changes, delete_guard
from kafka_authz_cli.errors import AuthzError, InputError, OptionError
from kafka_authz_cli.formats import brief, csv_table, read_text
from kafka_authz_cli.scram import (
    MAX_ITERATIONS,
    ExchangeResult,
    ScramCredential,
    ScramError,
    ScramMechanism,
    StoredRecord,
    add_scram_argument,
    add_scram_name_problem,
    b64,
    client_properties,
    exchange,
    load_records,
    new_nonce,
    new_salt,
    parse_add_scram,
    salted_password,
)
from kafka_authz_cli.services.live import close_admin, open_admin

log = logging.getLogger(__name__)

#: The CSV columns that are not a password column.
CSV_COLUMNS = ("user", "mechanism", "iterations")


def parse_mechanism(text: str) -> ScramMechanism:
    try:
        return ScramMechanism.parse(text)
    except ScramError as exc:
        raise OptionError(str(exc), "--mechanism") from None


def check_password_source(password_column, password_dir, generate: bool, generated_passwords) -> None:
    """Bulk users: exactly one place the passwords come from, and generated ones are written somewhere."""
    if sum([password_column is not None, password_dir is not None, generate]) != 1:
        raise OptionError("choose one of --password-column, --password-dir, --generate", "password")
    if generate and generated_passwords is None:
        raise OptionError("--generate needs --generated-passwords FILE (the only place they are written)",
                          "--generated-passwords")


# -- one user ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CreatedUser:
    """One credential made: offline (``credential``, and ``text``: the chosen format's file content,
    None for the table), or on a live cluster (``verb``: created or updated)."""

    user: str
    mechanism: ScramMechanism
    iterations: int
    credential: Optional[ScramCredential] = None
    text: Optional[str] = None
    verb: Optional[str] = None

    def fields(self) -> list[tuple[str, str]]:
        """What the table shows: no secret (the stored and server keys cannot log in)."""
        cred = self.credential
        assert cred is not None  # the table shows the credentials made offline
        return [("user", self.user), ("mechanism", self.mechanism.mechanism_name), ("iterations", str(self.iterations)),
                ("salt", b64(cred.salt)), ("StoredKey", b64(cred.stored_key)), ("ServerKey", b64(cred.server_key))]


def create_user(user: str, mechanism: str, iterations: int, salt: Optional[str], fmt: str, to_file: bool,
                bootstrap_server: Optional[str], command_config: Optional[Path], timeout: float,
                password: Callable[[], str]) -> CreatedUser:
    """`scram create-user`: the options are checked, then ``password()`` is asked for the password
    (by then the CLI has checked its output file), then the credential is computed in the format
    ``fmt`` (table, json, kafka-storage, credential, jaas) or created on the cluster."""
    mech = parse_mechanism(mechanism)
    _check_user_name(user)
    if not mech.min_iterations <= iterations <= mech.max_iterations:
        raise OptionError(f"must be within {mech.min_iterations}..{mech.max_iterations} (KRaft refuses other "
                          "counts: 'Too few iterations' / 'Too many iterations')", "--iterations")
    if fmt == "kafka-storage" and (problem := add_scram_name_problem(user)) is not None:
        raise OptionError(problem, "--user")
    salt_bytes = _decode_salt(salt)
    if to_file and bootstrap_server is not None:
        raise OptionError("the credential goes to the cluster (--bootstrap-server) or to a file, not both", "-o")
    if to_file and fmt == "table":
        raise OptionError("the table is for the terminal: give --format json, credential, kafka-storage or jaas "
                          "to write a file", "-o")
    secret = password()
    if bootstrap_server is not None:
        verb = upsert_user(bootstrap_server, command_config, timeout, user, mech, secret, iterations, salt_bytes)
        return CreatedUser(user, mech, iterations, verb=verb)
    if salt_bytes is None:
        salt_bytes = new_salt()
    try:
        salted = salted_password(mech, secret.encode("utf-8"), salt_bytes, iterations)
    except ScramError as exc:
        raise AuthzError(str(exc)) from None
    cred = ScramCredential.from_salted_password(mech, salted, salt_bytes, iterations)
    return CreatedUser(user, mech, iterations, cred, _credential_text(fmt, user, secret, salted, cred))


def _check_user_name(user: str) -> None:
    if not user:
        raise OptionError("must not be empty", "--user")
    if not user.isascii():
        log.warning(f"user name {user!r} is not ASCII: Kafka's broker refuses it at the first SCRAM message, so "
                    "this user could never log in")


def _decode_salt(salt: Optional[str]) -> Optional[bytes]:
    if salt is None:
        return None
    try:
        value = java_base64_decode(salt)
    except IllegalArgumentException as exc:
        raise OptionError(f"not base64: {exc}", "--salt") from None
    if not value:
        raise OptionError("must not be empty", "--salt")
    return value


def _credential_text(fmt: str, user: str, password: str, salted: bytes, cred: ScramCredential) -> Optional[str]:
    if fmt == "json":
        return json.dumps(cred.record(user), indent=2) + "\n"
    if fmt == "kafka-storage":
        return add_scram_argument(user, salted, cred) + "\n"
    if fmt == "credential":
        return cred.credential_string() + "\n"
    if fmt == "jaas":
        return client_properties(cred.mechanism, user, password)
    return None


def upsert_user(bootstrap: str, command_config: Optional[Path], timeout: float, user: str, mech: ScramMechanism,
                secret: str, iterations: int, salt: Optional[bytes] = None) -> str:
    """`scram create-user --bootstrap-server`: one AlterUserScramCredentials upsertion; "created" or "updated"."""
    admin = open_admin(bootstrap, command_config, timeout)
    try:
        existing = admin.describe_scram_users([user]).get(user, [])
        verb = "updated" if any(m == mech.mechanism_name for m, _ in existing) else "created"
        result = admin.alter_scram([(user, mech.mechanism_name, secret.encode("utf-8"), iterations, salt)], [])
    finally:
        close_admin(admin)
    error = result.get(user)
    if error:
        raise AuthzError(f"the broker refused the {mech.mechanism_name} credential for {user!r}: {error}")
    return verb


# -- stored credentials: verify and exchange -----------------------------------------------------------

def _load_stored(credential: Optional[str], record: Optional[Path], mechanism: Optional[str]) -> list[StoredRecord]:
    """The broker's side: records from --record (with their names), or one --credential string."""
    if (credential is None) == (record is None):
        raise OptionError("give exactly one of --credential STRING or --record FILE", "--credential")
    if record is not None:
        return load_records(record)
    if mechanism is None:
        raise OptionError("a credential string does not say its mechanism: add --mechanism", "--mechanism")
    assert credential is not None  # exactly one of the two is given
    try:
        cred = ScramCredential.from_credential_string(credential, parse_mechanism(mechanism))
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


def verify_password(credential: Optional[str], record: Optional[Path], user: Optional[str],
                    mechanism: Optional[str], password: Callable[[], str]) -> bool:
    """`scram verify`: whether the password (asked once the credential is found) produces the stored
    credential; constant-time."""
    records = _load_stored(credential, record, mechanism)
    if record is not None and mechanism is not None:
        mech = parse_mechanism(mechanism)
        records = [r for r in records if r.credential.mechanism is mech] or records
    cred = _one_record(records, user, str(record) if record is not None else "--credential").credential
    return cred.verify(password())


def run_exchange(user: str, credential: Optional[str], record: Optional[Path], mechanism: Optional[str],
                 client_mechanism: Optional[str], client_nonce: Optional[str], server_nonce: Optional[str],
                 password: Callable[[], str]) -> ExchangeResult:
    """`scram exchange`: a whole conversation between the client (with the password) and a broker
    holding the stored credentials, which looks the client's user up under the client's mechanism."""
    records = _load_stored(credential, record, mechanism)
    if record is None:
        records = [StoredRecord(user, records[0].credential, "--credential")]
    # The broker's credential store: (user, mechanism) -> credential, as ScramCredentialCache holds it.
    store = {(r.name, r.credential.mechanism): r.credential for r in records}
    if client_mechanism:
        client_mech = parse_mechanism(client_mechanism)
    else:
        mine = [r for r in records if r.name == user]
        client_mech = (mine or records)[0].credential.mechanism
    secret = password()
    server_cred = store.get((user, client_mech))
    result = exchange(client_mech, user, secret, server_cred, client_nonce=client_nonce or new_nonce(),
                      server_nonce=server_nonce or new_nonce(), client_mechanism=client_mech)
    if not result.ok and server_cred is None:
        others = sorted({f"{r.name} ({r.credential.mechanism.mechanism_name})" for r in records})
        if record is not None:
            result.diagnosis = (f"{result.diagnosis}; {record} holds credentials for " + ", ".join(others[:5])
                                + (", ..." if len(others) > 5 else ""))
    return result


def exchange_document(result: ExchangeResult, show_derived: bool = False) -> dict:
    """`scram exchange --format json`: the transcript and why it failed; the derived keys and signatures
    (secret-equivalent) only when ``show_derived`` (--show-derived) asks for them."""
    doc = {"ok": result.ok, "transcript": [{"from": s.sender, "step": s.step, "message": s.message}
                                           for s in result.transcript],
           "failed_at_step": result.failed_at_step, "error": result.error, "diagnosis": result.diagnosis}
    if show_derived:
        doc["derived"] = result.derived
    return doc


def parse_add_scram_arguments(arguments: list[str]) -> list[dict]:
    """`scram parse-add-scram`: the UserScramCredentialRecords Kafka's ScramParser would write."""
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
    return records


# -- many users: the CSV ------------------------------------------------------------------------------

@dataclass(frozen=True)
class CsvUser:
    user: str
    mechanism: ScramMechanism
    iterations: int
    password: str


@dataclass
class UsersCsv:
    """The users of a CSV, and the passwords made for them by --generate: (user, mechanism, password)."""

    users: list[CsvUser] = field(default_factory=list)
    generated: list[tuple[str, str, str]] = field(default_factory=list)

    def generated_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["user", "mechanism", "password"])
        writer.writerows(self.generated)
        return out.getvalue()


def read_users_csv(path: Path, default_mechanism: ScramMechanism, default_iterations: int,
                   password_column: Optional[str], password_dir: Optional[Path], generate: bool,
                   read_password_file: Callable[[Path], str], add_scram: bool = False) -> UsersCsv:
    """The one reader of the users CSV (`create-users` and `apply`): column ``user``, optional
    ``mechanism`` and ``iterations`` (defaults for rows without), and the passwords from
    ``password_column``, one file per user in ``password_dir`` (read by ``read_password_file``) or
    generated. Every error names its line; ``add_scram`` also refuses names an ``--add-scram``
    argument cannot carry."""
    text = read_text(path)
    label = str(path)
    optional = ["mechanism", "iterations"] + ([password_column] if password_column is not None else [])
    if password_column is not None and password_column in CSV_COLUMNS:
        raise OptionError(f"{password_column!r} is not a password column", "--password-column")
    table, seen = UsersCsv(), set()
    for lineno, row in csv_table(text, label, ["user"], optional, normalise=str.strip):
        user, mech, iters = _csv_row(row, label, lineno, password_column, default_mechanism, default_iterations)
        if (user, mech) in seen:
            raise InputError(f"user {brief(user)} appears twice for {mech.mechanism_name}", label, lineno)
        seen.add((user, mech))
        if add_scram and (problem := add_scram_name_problem(user)) is not None:
            raise InputError(f"user name {brief(user)}: {problem}", label, lineno)
        if not user.isascii():
            log.warning(f"{path}:{lineno}: user name {brief(user)} is not ASCII: the broker refuses it at login")
        if password_column is not None:
            secret = row.get(password_column) or ""
        elif password_dir is not None:
            secret = read_password_file(_password_file(password_dir, user, label, lineno))
        else:
            secret = secrets.token_urlsafe(24)
            table.generated.append((user, mech.mechanism_name, secret))
        if not secret:
            raise InputError(f"empty password for {brief(user)} (Kafka refuses it: 'Empty key')", label, lineno)
        table.users.append(CsvUser(user, mech, iters, secret))
    return table


def _csv_row(row: dict[str, str], label: str, lineno: int, password_column: Optional[str],
             default_mechanism: ScramMechanism, default_iterations: int) -> tuple[str, ScramMechanism, int]:
    user = row["user"].strip()
    if not user:
        raise InputError("empty user name", label, lineno)
    if password_column is not None and password_column not in row:
        raise InputError(f"CSV has no column {password_column!r} (--password-column)", label, 1)
    try:
        mech = ScramMechanism.parse(row["mechanism"]) if row.get("mechanism") else default_mechanism
        iters = int(row["iterations"]) if row.get("iterations") else default_iterations
    except (ScramError, ValueError) as exc:
        raise InputError(str(exc)[:200], label, lineno) from None
    if not mech.min_iterations <= iters <= mech.max_iterations:
        raise InputError(f"iterations {iters} outside {mech.min_iterations}..{mech.max_iterations}", label, lineno)
    return user, mech, iters


def _password_file(password_dir: Path, user: str, label: str, lineno: int) -> Path:
    if "/" in user or "\0" in user or user in (".", ".."):
        raise InputError(f"user name {brief(user)} cannot name a file in --password-dir", label, lineno)
    path = password_dir / user
    if not path.is_file():
        raise InputError(f"no password file for user {brief(user)}", str(path))
    return path


# -- many users: offline ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class CreatedUsers:
    """`scram create-users`: the output file's text (secret: salted passwords or records), the
    generated passwords' CSV (None without --generate) and how many credentials."""

    text: str
    generated_csv: Optional[str]
    count: int


def create_users(input_csv: Path, mechanism: str, iterations: int, password_column: Optional[str],
                 password_dir: Optional[Path], generate: bool, generated_passwords: Optional[Path], fmt: str,
                 workers: int, read_password_file: Callable[[Path], str], check_outputs: Callable[[], None],
                 progress: Optional[Callable[[int, int], None]] = None) -> CreatedUsers:
    """Credentials for every user of a CSV, derived on ``workers`` processes (0: every core), as
    JSON lines of records (``fmt`` jsonl) or --add-scram arguments (kafka-storage).

    ``check_outputs()`` is called once the options are checked, before the CSV is read (the CLI
    refuses there an output file it could not write: the work would be lost); ``progress(done,
    total)`` as the credentials are derived."""
    check_password_source(password_column, password_dir, generate, generated_passwords)
    default_mech = parse_mechanism(mechanism)
    check_outputs()
    table = read_users_csv(input_csv, default_mech, iterations, password_column, password_dir, generate,
                           read_password_file, add_scram=fmt == "kafka-storage")
    jobs = [(u.user, u.mechanism.mechanism_name, u.password.encode("utf-8"), new_salt(), u.iterations)
            for u in table.users]
    results = derive_many(jobs, workers or os.cpu_count() or 1, progress)
    lines = []
    for user, mech_name, salted, salt, stored, server, iters in results:
        mech = ScramMechanism.for_mechanism_name(mech_name)
        assert mech is not None  # the name of a ScramMechanism (the jobs carry names)
        cred = ScramCredential(mech, salt, stored, server, iters)
        lines.append(json.dumps(cred.record(user)) if fmt == "jsonl" else add_scram_argument(user, salted, cred))
    return CreatedUsers("\n".join(lines) + ("\n" if lines else ""),
                        table.generated_csv() if table.generated else None, len(results))


def _derive(job: tuple[str, str, bytes, bytes, int]) -> tuple[str, str, bytes, bytes, bytes, bytes, int]:
    user, mech_name, password, salt, iterations = job
    mech = ScramMechanism.for_mechanism_name(mech_name)
    assert mech is not None  # the name of a ScramMechanism (the jobs carry names)
    salted = salted_password(mech, password, salt, iterations)
    cred = ScramCredential.from_salted_password(mech, salted, salt, iterations)
    return user, mech_name, salted, salt, cred.stored_key, cred.server_key, iterations


def derive_many(jobs: list, workers: int, progress: Optional[Callable[[int, int], None]] = None) -> list:
    """PBKDF2 is CPU-bound: spread the users over processes, in input order. ``progress(done, total)``
    is called before the first credential and after each."""
    from concurrent.futures import ProcessPoolExecutor

    if progress is not None:
        progress(0, len(jobs))
    if workers <= 1 or len(jobs) < 8:
        return _collect(map(_derive, jobs), len(jobs), progress)
    chunksize = max(1, len(jobs) // (workers * 16))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return _collect(pool.map(_derive, jobs, chunksize=chunksize), len(jobs), progress)


def _collect(results, total: int, progress: Optional[Callable[[int, int], None]]) -> list:
    out = []
    for result in results:
        out.append(result)
        if progress is not None:
            progress(len(out), total)
    return out


# -- live cluster: list, delete, apply -----------------------------------------------------------------

def list_users(bootstrap: str, command_config: Optional[Path], timeout: float,
               users: list[str]) -> tuple[list[dict], int, list[str]]:
    """`scram list`: one row per credential (user, mechanism, iterations: never a secret), the number
    of users with a credential, and the users asked for that have none."""
    admin = open_admin(bootstrap, command_config, timeout)
    try:
        found = admin.describe_scram_users(list(users) or None)
    finally:
        close_admin(admin)
    missing = [u for u in users if not found.get(u)]
    rows = [{"user": u, "mechanism": m, "iterations": i} for u in sorted(found) for m, i in sorted(found[u])]
    return rows, len(found) - len(missing), missing


@dataclass
class ScramChanges:
    """Alterations of SCRAM credentials: upserts (user, mechanism, password, iterations, salt or None)
    and deletes (user, mechanism), against what the cluster has (user -> [(mechanism, iterations)])."""

    upserts: list[tuple]
    deletes: list[tuple[str, str]]
    existing: dict[str, list[tuple[str, int]]]
    #: Credentials on the cluster the CSV does not name (`apply`), kept unless --allow-delete.
    not_named: int = 0
    allow_delete: bool = False
    #: The user --command-config logs in as, whose own credentials are never deleted (None: not SASL).
    login_user: Optional[str] = None
    protected: bool = False

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(create | update | delete, user, mechanism, iterations) for each change."""
        out = []
        for u, m, _pw, i, *_ in self.upserts:
            change = "update" if any(x == m for x, _ in self.existing.get(u, [])) else "create"
            out.append((change, u, m, str(i)))
        return out + [("delete", u, m, "") for u, m in self.deletes]


@dataclass
class ScramAltered:
    """What a live change did: ``done`` alterations, ``failed`` (user, mechanism, the broker's error);
    ``applied`` is False when nothing was sent (nothing to change, or a dry run); ``generated``: generated
    passwords were saved."""

    changes: ScramChanges
    applied: bool = False
    done: int = 0
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    generated: bool = False

    @property
    def total(self) -> int:
        return len(self.changes.upserts) + len(self.changes.deletes)


def delete_users(users: list[str], mechanism: Optional[str], bootstrap: str, command_config: Optional[Path],
                 timeout: float, dry_run: bool, yes: bool, show: Callable[[ScramChanges], None],
                 confirm: Callable[[str], bool]) -> ScramAltered:
    """`scram delete`: every credential of ``users`` (only ``mechanism``'s, if given), shown first
    (``show``), then deleted after --yes or a yes to ``confirm``."""
    mech = parse_mechanism(mechanism) if mechanism else None
    admin = open_admin(bootstrap, command_config, timeout)
    try:
        existing = admin.describe_scram_users(list(users))
        deletes = [(u, m) for u in users for m, _ in existing.get(u, []) if mech is None or m == mech.mechanism_name]
        if not deletes:
            raise AuthzError("no such SCRAM credential: " + ", ".join(
                f"{u} ({mech.mechanism_name})" if mech else u for u in users))
        changes = ScramChanges([], deletes, existing)
        show(changes)
        if dry_run:
            return ScramAltered(changes)
        confirm_changes(f"delete {len(deletes)} credential(s)?", yes, confirm)
        done, failed = _alter(admin, [], deletes, 500)
    finally:
        close_admin(admin)
    return ScramAltered(changes, True, done, failed)


def apply_users(users_csv: Path, bootstrap: str, command_config: Optional[Path], timeout: float, mechanism: str,
                iterations: int, password_column: Optional[str], password_dir: Optional[Path], generate: bool,
                generated_passwords: Optional[Path], skip_existing: bool, allow_delete: bool,
                max_deletes: Optional[int], batch_size: int, dry_run: bool, yes: bool, *,
                read_password_file: Callable[[Path], str], show: Callable[[ScramChanges], None],
                ask: Callable[[str], str], confirm: Callable[[str], bool],
                save_generated: Callable[[str], None]) -> ScramAltered:
    """`scram apply`: the CSV's users created or updated on the cluster, credentials it does not
    name deleted with ``allow_delete`` (never the login user's). The plan is shown (``show``), then
    the delete guard and the confirmation ask (``ask``, ``confirm``); generated passwords are saved
    (``save_generated``, the CSV text) before any credential is sent."""
    check_password_source(password_column, password_dir, generate, generated_passwords)
    table = read_users_csv(users_csv, parse_mechanism(mechanism), iterations, password_column, password_dir,
                           generate, read_password_file)
    upserts = [(u.user, u.mechanism.mechanism_name, u.password.encode("utf-8"), u.iterations, None)
               for u in table.users]
    admin = open_admin(bootstrap, command_config, timeout)
    try:
        existing = admin.describe_scram_users(None)
        changes = _users_plan(upserts, existing, skip_existing, allow_delete,
                              getattr(admin, "config", {}).get("sasl_plain_username"))
        generated = [g for g in table.generated if any(g[0] == x[0] and g[1] == x[1] for x in changes.upserts)]
        if not changes.upserts and not changes.deletes:
            return ScramAltered(changes)
        show(changes)
        if dry_run:
            return ScramAltered(changes)
        delete_guard(len(changes.deletes), sum(len(v) for v in existing.values()), max_deletes, ask)
        confirm_changes("apply these changes?", yes, confirm)
        if generated:
            save_generated(UsersCsv([], generated).generated_csv())
        done, failed = _alter(admin, changes.upserts, changes.deletes, batch_size)
    finally:
        close_admin(admin)
    return ScramAltered(changes, True, done, failed, bool(generated))


def _users_plan(upserts: list[tuple], existing: dict, skip_existing: bool, allow_delete: bool,
                me: Optional[str]) -> ScramChanges:
    named = {(x[0], x[1]) for x in upserts}
    if skip_existing:
        upserts = [x for x in upserts if not any(m == x[1] for m, _ in existing.get(x[0], []))]
    extra = [(u, m) for u in sorted(existing) for m, _ in sorted(existing[u]) if (u, m) not in named]
    deletes = [(u, m) for u, m in extra if u != me] if allow_delete else []
    return ScramChanges(upserts, deletes, existing, len(extra), allow_delete, me, any(u == me for u, _ in extra))


def _alter(admin, upserts: list[tuple], deletes: list[tuple[str, str]], batch_size: int) -> tuple[int, list]:
    """Upserts then deletes, in batches; returns (done, [(user, mechanism, error)])."""
    done, failed = 0, []
    jobs = [("u", x) for x in upserts] + [("d", x) for x in deletes]
    for k in range(0, len(jobs), batch_size):
        chunk = jobs[k:k + batch_size]
        # AlterUserScramCredentials answers once per user: one alteration per user per request.
        while chunk:
            seen: set[str] = set()
            now: list[tuple[str, tuple]] = []
            later: list[tuple[str, tuple]] = []
            for job in chunk:
                (later if job[1][0] in seen else now).append(job)
                seen.add(job[1][0])
            ups = [x for kind, x in now if kind == "u"]
            dels = [x for kind, x in now if kind == "d"]
            result = admin.alter_scram(ups, dels)
            for _kind, x in now:
                error = result.get(x[0])
                if error:
                    failed.append((x[0], x[1], error))
                else:
                    done += 1
            chunk = later
    return done, failed
