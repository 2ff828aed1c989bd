"""`authz scram list|delete|apply` and `scram create-user --bootstrap-server`: SCRAM users on a live cluster.

DescribeUserScramCredentials / AlterUserScramCredentials through kafka-python. Passwords come from
the same sources as the offline commands (never argv); only salted passwords travel. Changes follow
`cluster apply`'s conventions: the plan is shown first, --dry-run stops there, --yes or a
confirmation applies, a declined prompt (or closed stdin) exits 4.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.common import console, warn, write_output
from kafka_authz_cli.cli.live_common import (
    COMMAND_CONFIG,
    TIMEOUT,
    Declined,
    _close,
    _confirm,
    delete_guard,
)
from kafka_authz_cli.cli.scram import (
    _generated_password,
    _mechanism,
    check_password_source,
    scram_app,
)
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats.reading import read_text
from kafka_authz_cli.scram.credential import ScramError, ScramMechanism

#: Replaced in tests by a fake: ``ADMIN_FACTORY(bootstrap, command_config) -> admin``.
ADMIN_FACTORY = None
BOOTSTRAP = typer.Option(..., "--bootstrap-server", help="host:port[,host:port...]")


def _open(bootstrap: str, command_config: Optional[Path], timeout: float):
    if ADMIN_FACTORY is not None:
        return ADMIN_FACTORY(bootstrap, command_config)
    from kafka_authz_cli.cluster.kafka_adapter import open_admin

    return open_admin(bootstrap, command_config, timeout)


def upsert_user(bootstrap: str, command_config: Optional[Path], timeout: float, user: str, mech: ScramMechanism,
                secret: str, iterations: int, salt: Optional[bytes] = None) -> None:
    """`scram create-user --bootstrap-server`: one AlterUserScramCredentials upsertion."""
    admin = _open(bootstrap, command_config, timeout)
    try:
        existing = admin.describe_scram_users([user]).get(user, [])
        verb = "updated" if any(m == mech.mechanism_name for m, _ in existing) else "created"
        result = admin.alter_scram([(user, mech.mechanism_name, secret.encode("utf-8"), iterations, salt)], [])
    finally:
        _close(admin)
    error = result.get(user)
    if error:
        raise AuthzError(f"the broker refused the {mech.mechanism_name} credential for {user!r}: {error}")
    console.print(f"{verb} the {mech.mechanism_name} credential of {user} ({iterations} iterations) on {bootstrap}")


@scram_app.command("list", short_help="List a live cluster's SCRAM users, mechanisms and iterations.", help="""List the SCRAM users of a live cluster: user, mechanisms and iterations
(DescribeUserScramCredentials; needs DESCRIBE on the CLUSTER resource). Never a secret.

Exit codes: 0 listed; 2 usage, input or connection error (or a --user that has no credential).""")
def list_users(
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
    user: list[str] = typer.Option([], "--user", help="Only these users (repeatable)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, json or csv."),
) -> None:
    from rich.table import Table
    if fmt not in ("table", "json", "csv"):
        raise typer.BadParameter("expected table, json or csv", param_hint="--format")
    admin = _open(bootstrap_server, command_config, timeout)
    try:
        users = admin.describe_scram_users(list(user) or None)
    finally:
        _close(admin)
    missing = [u for u in user if not users.get(u)]
    rows = [{"user": u, "mechanism": m, "iterations": i} for u in sorted(users) for m, i in sorted(users[u])]
    if fmt == "json":
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif fmt == "csv":
        buf = io.StringIO()
        w = csv.DictWriter(buf, ["user", "mechanism", "iterations"], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        typer.echo(buf.getvalue(), nl=False)
    else:
        table = Table(header_style="bold")
        for col in ("user", "mechanism", "iterations"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(r["user"], r["mechanism"], str(r["iterations"]))
        console.print(table)
        console.print(f"{len(users) - len(missing)} user(s), {len(rows)} credential(s)")
    if missing:
        raise AuthzError(f"no SCRAM credential for {', '.join(map(repr, missing))}")


def _print_changes(upserts: list[tuple], deletes: list[tuple[str, str]], existing: dict) -> None:
    from rich.table import Table
    table = Table(header_style="bold", title="plan")
    for col in ("change", "user", "mechanism", "iterations"):
        table.add_column(col, overflow="fold")
    for u, m, _pw, i, *_ in upserts[:200]:
        change = "[yellow]update[/]" if any(x == m for x, _ in existing.get(u, [])) else "[green]create[/]"
        table.add_row(change, u, m, str(i))
    for u, m in deletes[:200]:
        table.add_row("[red]delete[/]", u, m, "")
    console.print(table)
    hidden = max(0, len(upserts) - 200) + max(0, len(deletes) - 200)
    if hidden:
        console.print(f"({hidden} more row(s) not shown)")


def _alter(admin, upserts: list[tuple], deletes: list[tuple[str, str]], batch_size: int) -> tuple[int, list]:
    """Upserts then deletes, in batches; returns (done, [(user, mechanism, error)])."""
    done, failed = 0, []
    jobs = [("u", x) for x in upserts] + [("d", x) for x in deletes]
    for k in range(0, len(jobs), batch_size):
        chunk = jobs[k:k + batch_size]
        # AlterUserScramCredentials answers once per user: one alteration per user per request.
        while chunk:
            seen, now, later = set(), [], []
            for job in chunk:
                (later if job[1][0] in seen else now).append(job)
                seen.add(job[1][0])
            ups = [x for kind, x in now if kind == "u"]
            dels = [x for kind, x in now if kind == "d"]
            result = admin.alter_scram(ups, dels)
            for kind, x in now:
                error = result.get(x[0])
                if error:
                    failed.append((x[0], x[1], error))
                else:
                    done += 1
            chunk = later
    return done, failed


@scram_app.command("delete", short_help="Delete SCRAM credentials from a live cluster.", help="""Delete SCRAM credentials from a live cluster (AlterUserScramCredentials).

Without --mechanism every mechanism the user has is deleted. The plan is shown first; --dry-run
stops there; --yes applies without asking.

Exit codes: 0 deleted (or --dry-run); 1 the broker refused some; 2 usage, input or connection error
(or a user without credentials); 4 declined at the prompt (or stdin closed).""")
def delete_users(
    user: list[str] = typer.Option(..., "--user", help="User name (repeatable)."),
    mechanism: Optional[str] = typer.Option(None, "--mechanism", help="Only this mechanism."),
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan only."),
    yes: bool = typer.Option(False, "--yes", help="Delete without asking."),
) -> None:
    mech = _mechanism(mechanism) if mechanism else None
    admin = _open(bootstrap_server, command_config, timeout)
    try:
        existing = admin.describe_scram_users(list(user))
        deletes = [(u, m) for u in user for m, _ in existing.get(u, [])
                   if mech is None or m == mech.mechanism_name]
        if not deletes:
            raise AuthzError("no such SCRAM credential: " + ", ".join(
                f"{u} ({mech.mechanism_name})" if mech else u for u in user))
        _print_changes([], deletes, existing)
        if dry_run:
            return
        if not yes and not _confirm(f"delete {len(deletes)} credential(s)?"):
            raise Declined("declined: nothing was changed")
        done, failed = _alter(admin, [], deletes, 500)
    finally:
        _close(admin)
    for u, m, e in failed:
        warn(f"{u} ({m}): {e}")
    console.print(f"deleted {done} credential(s), {len(failed)} refused")
    if failed:
        raise typer.Exit(1)


def _read_users_csv(path: Path, default_mech: ScramMechanism, default_iterations: int, password_column,
                    password_dir, generate: bool) -> tuple[list[tuple], list[tuple[str, str, str]]]:
    text = read_text(path)
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InputError(f"CSV: {exc}", str(path)) from None
    if not rows or "user" not in [c.strip() for c in rows[0]]:
        raise InputError("CSV needs a `user` column", str(path), 1)
    header = [c.strip() for c in rows[0]]
    if password_column is not None and password_column not in header:
        raise InputError(f"CSV has no column {password_column!r}", str(path), 1)
    upserts, generated, seen = [], [], set()
    for lineno, values in enumerate(rows[1:], 2):
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            raise InputError(f"expected {len(header)} fields, got {len(values)}", str(path), lineno)
        row = dict(zip(header, values))
        user = row["user"].strip()
        if not user:
            raise InputError("empty user name", str(path), lineno)
        try:
            mech = ScramMechanism.parse(row["mechanism"]) if row.get("mechanism") else default_mech
            iters = int(row["iterations"]) if row.get("iterations") else default_iterations
        except (ScramError, ValueError) as exc:
            raise InputError(str(exc), str(path), lineno) from None
        if not mech.min_iterations <= iters <= mech.max_iterations:
            raise InputError(f"iterations {iters} outside {mech.min_iterations}..{mech.max_iterations}", str(path),
                             lineno)
        if (user, mech) in seen:
            raise InputError(f"user {user!r} appears twice for {mech.mechanism_name}", str(path), lineno)
        seen.add((user, mech))
        if password_column is not None:
            secret = row.get(password_column) or ""
        elif password_dir is not None:
            pfile = password_dir / user
            if not pfile.is_file():
                raise InputError(f"no password file for user {user!r}", str(pfile))
            content = read_text(pfile)
            secret = content.splitlines()[0] if content else ""
        else:
            secret = _generated_password()
            generated.append((user, mech.mechanism_name, secret))
        if not secret:
            raise InputError(f"empty password for {user!r} (Kafka refuses it: 'Empty key')", str(path), lineno)
        upserts.append((user, mech.mechanism_name, secret.encode("utf-8"), iters, None))
    return upserts, generated


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
    bootstrap_server: str = BOOTSTRAP,
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
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
    check_password_source(password_column, password_dir, generate, generated_passwords)
    upserts, generated = _read_users_csv(users_csv, _mechanism(mechanism), iterations, password_column,
                                         password_dir, generate)
    admin = _open(bootstrap_server, command_config, timeout)
    try:
        existing = admin.describe_scram_users(None)
        named = {(x[0], x[1]) for x in upserts}
        if skip_existing:
            upserts = [x for x in upserts if not any(m == x[1] for m, _ in existing.get(x[0], []))]
            generated = [g for g in generated if any(g[0] == x[0] and g[1] == x[1] for x in upserts)]
        me = getattr(admin, "config", {}).get("sasl_plain_username")
        extra = [(u, m) for u in sorted(existing) for m, _ in sorted(existing[u]) if (u, m) not in named]
        protected = [(u, m) for u, m in extra if u == me]
        deletes = [(u, m) for u, m in extra if u != me] if allow_delete else []
        if not upserts and not deletes:
            console.print("nothing to change" + (f" ({len(extra)} credential(s) not in the CSV kept)" if extra else ""))
            return
        _print_changes(upserts, deletes, existing)
        console.print(f"{len(upserts)} to create or update, {len(deletes)} to delete"
                      + (f", {len(extra)} not in the CSV kept (--allow-delete deletes them)"
                         if extra and not allow_delete else "")
                      + (f"; the login user's own credential ({me}) is never deleted" if protected and allow_delete
                         else ""))
        if dry_run:
            return
        delete_guard(len(deletes), sum(len(v) for v in existing.values()), max_deletes)
        if not yes and not _confirm("apply these changes?"):
            raise Declined("declined: nothing was changed")
        if generated:
            buf = "user,mechanism,password\n" + "".join(f"{u},{m},{p}\n" for u, m, p in generated)
            write_output(buf, generated_passwords, secret=True)
        done, failed = _alter(admin, upserts, deletes, batch_size)
    finally:
        _close(admin)
    for u, m, e in failed:
        warn(f"{u} ({m}): {e}")
    console.print(f"applied {done} of {len(upserts) + len(deletes)} change(s), {len(failed)} refused"
                  + (f"; generated passwords in {generated_passwords} (0600)" if generated else ""))
    if failed:
        raise typer.Exit(1)
