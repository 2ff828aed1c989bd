"""`authz config`: KIP-226 dynamic broker configuration and the password encoder."""

from __future__ import annotations

import hmac
import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from kafka_authz_cli._java.lang import JavaException, NumberFormatException, java_parse_int, utf16_length
from kafka_authz_cli._java.properties import parse_properties_with_lines
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    TableFormat,
    console,
    emit_rows,
    warn,
    write_output,
)
from kafka_authz_cli.cli.live_common import COMMAND_CONFIG, TIMEOUT
from kafka_authz_cli.config.dynamic import (
    keys_to_resolve,
    resolve_key,
    scoped_key,
    validate_dynamic,
)
from kafka_authz_cli.config.files import load_sources
from kafka_authz_cli.config.password_encoder import (
    CONFIG_CIPHER,
    CONFIG_ITERATIONS,
    CONFIG_KEY_FACTORY,
    CONFIG_KEY_LENGTH,
    CONFIG_OLD_SECRET,
    CONFIG_SECRET,
    DEFAULT_CIPHER,
    DEFAULT_ITERATIONS,
    DEFAULT_KEY_LENGTH,
    EncoderConfig,
    UnsupportedByAuthz,
    decode,
    describe,
    encode,
)
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats.reading import read_text

config_app = typer.Typer(help="KIP-226 dynamic broker configuration: effective values and sources, and the "
                              "password encoder.", no_args_is_help=True)
app.add_typer(config_app, name="config", short_help="KIP-226 broker config: effective values and sources; "
                                                    "encode/decode dynamic passwords.")

SECRET_HELP = ("Secrets (the encoder secret, the password) come from a prompt, --*-stdin (one line each, "
               "secret first when both are on stdin) or --*-file, or for the secret password.encoder.secret "
               "in --broker-config; never from the command line.")


# -- resolve ----------------------------------------------------------------------------------------

#: Replaced in tests by a fake: ``ADMIN_FACTORY(bootstrap, command_config) -> admin``.
ADMIN_FACTORY = None


@config_app.command("resolve", help="""The value a broker really uses for each config key, and where it comes from.

Precedence as KIP-226 defines it: dynamic per-broker config, dynamic cluster-wide default, static
server.properties, Kafka's default; time synonyms count across levels (a dynamic log.retention.ms beats
a static log.retention.hours); listener.name.<listener>.<key> beats <key> for that listener
(--listener shows the listener-scoped keys as that listener sees them). For every key: the effective
value (sensitive ones are never shown, only where they are set), its source and property, the full
synonym chain (what DescribeConfigs with include_synonyms returns) and whether the key can be updated
dynamically (per-broker, cluster-wide, per-listener only, read-only).

Offline: --broker-config and/or --dynamic, which takes {"cluster_default": {...}, "brokers": {"0": {...}}}
JSON or the text of `kafka-configs.sh --describe --entity-type brokers`. Dynamic entries the broker
ignores are listed with the broker's own log message (and what kafka-configs --alter would have answered).

Live: --bootstrap-server (with --command-config as for kafka-configs) asks the broker (DescribeConfigs
with synonyms: the caller needs DESCRIBE_CONFIGS on the CLUSTER resource) for its static, cluster-default
and per-broker configs, resolves them with authz's own tables, and checks authz's answer against the
source and value the broker reports for every key: a disagreement is a bug in authz's tables and is
listed. The broker is --broker-id, else the one at the bootstrap address, else the cluster's only broker.
With --broker-config as well, the file is compared with what the broker loaded (static keys whose value
differs, keys in only one; sensitive values only as set or unset).

Exit codes: 0 resolved (live: authz agrees with the broker, no drift); 1 some dynamic config is ignored
by the broker, or (live) authz disagrees with the broker; 2 usage, input or connection error (live: also
a principal without DESCRIBE_CONFIGS on the cluster); 3 (live, with --broker-config) the file differs from
what the broker loaded.""",
                    short_help="Effective broker config values and their sources (KIP-226 precedence), "
                               "from files or a live broker.")
def resolve(
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="server.properties (static; live: "
                                                 "compared with what the broker loaded)."),
    dynamic: Optional[Path] = typer.Option(None, "--dynamic", help="Dynamic configs (JSON or kafka-configs "
                                           "--describe output)."),
    broker_id: Optional[str] = typer.Option(None, "--broker-id", help="Broker id (default: node.id/broker.id; "
                                            "live: the broker at the bootstrap address)."),
    listener: Optional[str] = typer.Option(None, "--listener", help="Resolve listener-scoped keys for this "
                                           "listener."),
    keys: Optional[list[str]] = typer.Option(None, "--key", help="Only these keys (repeatable)."),
    all_defaults: bool = typer.Option(False, "--all", help="Also every key authz knows Kafka's default of "
                                      "(live: and every key the broker reports)."),
    fmt: TableFormat = typer.Option(TableFormat.table, "--format", "-f", help="Output format."),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="Resolve from a live broker "
                                                   "(DescribeConfigs with synonyms): host:port[,host:port...]."),
    command_config: Optional[Path] = COMMAND_CONFIG,
    timeout: float = TIMEOUT,
) -> None:
    if bootstrap_server is not None:
        if dynamic is not None:
            raise typer.BadParameter("give --dynamic or --bootstrap-server, not both (a live broker reports its "
                                     "own dynamic configs)", param_hint="--dynamic")
        _resolve_live(bootstrap_server, command_config, timeout, broker_config, broker_id, listener, keys,
                      all_defaults, fmt)
        return
    if command_config is not None:
        raise typer.BadParameter("--command-config needs --bootstrap-server", param_hint="--command-config")
    if broker_config is None and dynamic is None:
        raise typer.BadParameter("give --broker-config and/or --dynamic (or --bootstrap-server)",
                                 param_hint="--broker-config")
    sources, notes = load_sources(broker_config, dynamic, broker_id)
    ignored = []
    kept_default, ign = validate_dynamic(sources.dynamic_default, per_broker=False)
    ignored += ign
    kept_broker, ign = validate_dynamic(sources.dynamic_broker, per_broker=True)
    ignored += ign
    sources.dynamic_default, sources.dynamic_broker = kept_default, kept_broker
    names = [scoped_key(k, listener) for k in keys] if keys else keys_to_resolve(sources, all_defaults, listener)
    resolved = [resolve_key(k, sources) for k in names]
    rows = [r.as_dict() for r in resolved]
    if fmt is TableFormat.json:
        typer.echo(json.dumps({"broker_id": sources.broker_id, "listener": listener, "configs": rows,
                               "ignored": [{"level": i.level, "keys": list(i.keys), "broker_log": i.message,
                                            "alter_configs": i.alter_message} for i in ignored],
                               "notes": notes}, indent=2, ensure_ascii=False))
    elif fmt is not TableFormat.table:
        emit_rows(rows, fmt)
    else:
        for n in notes:
            console.print(f"[dim]{escape(n)}[/]", soft_wrap=True)
        console.print(_resolved_table(resolved))
        for i in ignored:
            console.print(f"[red]ignored[/] ({i.level} level): {escape(i.message)}\n  "
                          f"[dim]kafka-configs --alter would answer: {escape(i.alter_message)}[/]", soft_wrap=True)
    if ignored:
        raise typer.Exit(1)


def _resolved_table(resolved, checked: Optional[dict] = None):
    """The resolution as a table; ``checked`` (live) maps keys to True (the broker agrees), False, or
    absent (not compared) for a last column."""
    from rich.table import Table

    table = Table(header_style="bold")
    for col in ("key", "value", "source", "from", "dynamic update") + (("broker",) if checked is not None else ()):
        table.add_column(col, overflow="fold")
    for r in resolved:
        if r.source is None:
            value = "[dim](not set)[/]"
        elif r.sensitive:
            value = "[dim](sensitive: set, hidden)[/]"
        else:
            value = escape(r.value or "")
            if r.millis is not None and r.name != r.key:
                value += f" [dim]({r.millis} ms)[/]"
        origin = ""
        if r.name is not None:
            origin = escape(r.name if r.name != r.key else "") + (f"\n[dim]{escape(r.where)}[/]" if r.where else "")
        shadowed = list(r.synonyms[1:])
        if shadowed:
            origin += "\n[dim]over " + escape(", ".join(f"{s.source.split('_CONFIG')[0].lower()} "
                                                              f"{s.name}" for s in shadowed)) + "[/]"
        for note in r.notes:
            origin += f"\n[yellow]{escape(note)}[/]"
        cells = [escape(r.key), value, r.source or "", origin.strip(), r.mode]
        if checked is not None:
            verdict = checked.get(r.key)
            cells.append("" if verdict is None else "[green]agrees[/]" if verdict else "[red]DISAGREES[/]")
        table.add_row(*cells)
    return table


def _resolve_live(bootstrap: str, command_config: Optional[Path], timeout: float, broker_config: Optional[Path],
                  broker_id: Optional[str], listener: Optional[str], keys: Optional[list[str]], all_defaults: bool,
                  fmt: TableFormat) -> None:
    from kafka_authz_cli.cluster.kafka_adapter import pick_broker
    from kafka_authz_cli.config.files import read_static
    from kafka_authz_cli.config.live import (
        LiveOrigin,
        broker_sensitive,
        check_against_broker,
        compared_as_set_only,
        hide,
        sources_from_describe,
        static_drift,
    )

    wanted = None
    if broker_id is not None:
        try:
            wanted = int(broker_id.strip())
        except ValueError:
            raise typer.BadParameter(f"a broker id is a whole number, got {broker_id!r}",
                                     param_hint="--broker-id") from None
    file_static = read_static(broker_config) if broker_config is not None else None  # bad input before connecting
    if ADMIN_FACTORY is not None:
        admin = ADMIN_FACTORY(bootstrap, command_config)
    else:
        from kafka_authz_cli.cluster.kafka_adapter import open_admin

        admin = open_admin(bootstrap, command_config, timeout)
    try:
        chosen, how = pick_broker(bootstrap, admin.brokers(), wanted)
        configs = admin.describe_broker_configs(chosen)
    finally:
        close = getattr(admin, "close", None)
        if close is not None:
            close()
    sources = sources_from_describe(configs, LiveOrigin(bootstrap, str(chosen)))
    check = check_against_broker(configs, sources)
    hidden = broker_sensitive(configs)
    reported = {c.name: c for c in configs}
    if keys:
        names = [scoped_key(k, listener) for k in keys]
    else:
        names = keys_to_resolve(sources, all_defaults, listener, extra=reported if all_defaults else ())
    resolved = [hide(resolve_key(k, sources), hidden) for k in names]
    failed = {d.key for d in check.disagreements}
    checked = {k: k not in failed for k in check.agreed | failed}
    drift = static_drift(file_static, sources.static, hidden) if file_static is not None else None
    set_only = compared_as_set_only(file_static, sources.static, hidden) if file_static is not None else []
    notes = [f"{how}; {len(configs)} configs reported"] + check.notes
    rows = []
    for r in resolved:
        row = r.as_dict()
        c = reported.get(r.key)
        row["broker"] = c.as_dict(hide=r.sensitive) if c is not None else None
        row["agrees"] = checked.get(r.key)
        rows.append(row)
    if fmt is TableFormat.json:
        typer.echo(json.dumps({"bootstrap_server": bootstrap, "broker_id": str(chosen), "listener": listener,
                               "configs": rows, "check": check.as_dict(),
                               "drift": None if drift is None else [d.as_dict() for d in drift],
                               "drift_compared_as_set_only": set_only,
                               "notes": notes}, indent=2, ensure_ascii=False))
    elif fmt is not TableFormat.table:
        emit_rows(rows, fmt)
    else:
        for n in notes:
            console.print(f"[dim]{escape(n)}[/]", soft_wrap=True)
        console.print(_resolved_table(resolved, checked))
        summary = (f"authz's resolution checked against broker {chosen}: {len(check.agreed)} of {check.compared} "
                   f"keys agree")
        if check.unknown:
            summary += f"; authz knows nothing of the {len(check.unknown)} other(s) the broker reports"
        console.print(summary, soft_wrap=True)
        if drift is not None:
            if drift:
                console.print(f"[yellow]{escape(str(broker_config))} differs from what broker {chosen} loaded "
                              f"({len(drift)} key(s)):[/]", soft_wrap=True)
                for d in drift:
                    console.print(f"  {d.kind}: {escape(d.message())}", soft_wrap=True)
            else:
                console.print(f"{escape(str(broker_config))} is what broker {chosen} loaded (no drift)",
                              soft_wrap=True)
            if set_only:
                console.print(f"[dim]compared only as set or unset (values never shown or hidden by the broker): "
                              f"{escape(', '.join(set_only))}[/]", soft_wrap=True)
    if check.disagreements:
        for d in check.disagreements:
            warn(f"authz disagrees with the broker: {d.message()}")
        warn(f"{len(check.disagreements)} disagreement(s) with broker {chosen}: a bug in authz's KIP-226 tables "
             "(please report it); trust the broker's answer")
        raise typer.Exit(1)
    if drift:
        raise typer.Exit(3)


# -- secrets -------------------------------------------------------------------------------------------

class _Stdin:
    """stdin lines, handed out in order (the secret first, then the password)."""

    def __init__(self):
        self.lines: list[str] | None = None

    def next(self, what: str) -> str:
        if self.lines is None:
            self.lines = sys.stdin.read().splitlines()
        if not self.lines:
            raise AuthzError(f"stdin has no line left for the {what}")
        return self.lines.pop(0)


def _file_secret(path: Path, what: str) -> str:
    text = read_text(path)
    mode = path.stat().st_mode & 0o077
    if mode:
        warn(f"{path} is readable by others (mode {oct(path.stat().st_mode & 0o777)}); chmod 600 it")
    return text.splitlines()[0] if text else ""


def _secret(stdin_flag: bool, file: Optional[Path], stdin: _Stdin, what: str, prompt: str, confirm: bool,
            fallback: Optional[str] = None, allow_empty: bool = True) -> str:
    if stdin_flag and file is not None:
        raise typer.BadParameter(f"give one source for the {what}", param_hint=what)
    if stdin_flag:
        value = stdin.next(what)
    elif file is not None:
        value = _file_secret(file, what)
    elif fallback is not None:
        value = fallback
    else:
        if not sys.stdin.isatty() and os.environ.get("AUTHZ_ALLOW_PIPE_PROMPT") != "1":
            raise AuthzError(f"no source for the {what}: stdin is not a terminal; use the --*-stdin or --*-file "
                             "options")
        value = typer.prompt(prompt, hide_input=True, confirmation_prompt=confirm, default="" if allow_empty else None,
                             show_default=False)
    if not value and not allow_empty:
        raise AuthzError(f"empty {what}")
    return value


def _encoder_settings(broker_config: Optional[Path]) -> tuple[dict[str, tuple[str, str]], Optional[str]]:
    """password.encoder.* from server.properties: {key: (value, where)}, and the secret if set there."""
    if broker_config is None:
        return {}, None
    props = parse_properties_with_lines(read_text(broker_config), str(broker_config))
    found = {k: (v, f"{broker_config}:{line}") for k, (v, line) in props.items() if k.startswith("password.encoder.")}
    secret = found.pop(CONFIG_SECRET, (None, ""))[0]
    return found, secret


def _int_setting(value: Optional[int], props, key: str, default: int) -> int:
    if value is not None:
        return value
    if key in props:
        text, where = props[key]
        try:
            return java_parse_int(text.strip())
        except NumberFormatException:
            raise InputError(f"{key}: not an int: {text!r}", where.rsplit(":", 1)[0],
                             int(where.rsplit(":", 1)[1])) from None
    return default


def _config(cipher: Optional[str], key_factory: Optional[str], key_length: Optional[int], iterations: Optional[int],
            props) -> EncoderConfig:
    return EncoderConfig(
        key_factory if key_factory is not None else (props.get(CONFIG_KEY_FACTORY, (None,))[0] or None),
        cipher if cipher is not None else props.get(CONFIG_CIPHER, (DEFAULT_CIPHER,))[0],
        _int_setting(key_length, props, CONFIG_KEY_LENGTH, DEFAULT_KEY_LENGTH),
        _int_setting(iterations, props, CONFIG_ITERATIONS, DEFAULT_ITERATIONS))


class EncodeFormat(str, Enum):
    text = "text"
    json = "json"


@config_app.command("encode-password", help=f"""Encode a password as a ZooKeeper-mode broker stores a dynamic password config.

Exactly EncryptingPasswordEncoder: PBKDF2 (password.encoder.keyfactory.algorithm, default
PBKDF2WithHmacSHA512) of the secret with a random 256-byte salt, then the cipher
(password.encoder.cipher.algorithm, default AES/CBC/PKCS5Padding; AES/GCM/NoPadding adds
authenticationTagLength), keyLength bits (default 128), iterations (default 4096), passwordLength in UTF-16
units, keys in Kafka's order. Settings come from the flags, else password.encoder.* in --broker-config,
else Kafka's defaults. KRaft brokers do not encode (PasswordEncoder.NOOP): this is for ZooKeeper-mode
clusters and their migration.

{SECRET_HELP}

Exit codes: 0 encoded; 2 usage or input error (including settings the broker refuses).""",
                    short_help="Encode a dynamic password config exactly as Kafka's password encoder.")
def encode_password(
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="Read password.encoder.* "
                                                 "(and the secret) from server.properties."),
    secret_stdin: bool = typer.Option(False, "--secret-stdin", help="Read the encoder secret from stdin."),
    secret_file: Optional[Path] = typer.Option(None, "--secret-file", help="Read the encoder secret from a file."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from stdin."),
    password_file: Optional[Path] = typer.Option(None, "--password-file", help="Read the password from a file."),
    cipher: Optional[str] = typer.Option(None, "--cipher", help="password.encoder.cipher.algorithm."),
    key_factory: Optional[str] = typer.Option(None, "--key-factory", help="password.encoder.keyfactory.algorithm."),
    key_length: Optional[int] = typer.Option(None, "--key-length", help="password.encoder.key.length (bits)."),
    iterations: Optional[int] = typer.Option(None, "--iterations", help="password.encoder.iterations."),
    fmt: EncodeFormat = typer.Option(EncodeFormat.text, "--format", "-f", help="Output format."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write to a file (created 0600)."),
) -> None:
    props, config_secret = _encoder_settings(broker_config)
    config = _config(cipher, key_factory, key_length, iterations, props)
    problems = config.validation_errors()
    if problems:
        raise AuthzError("; ".join(problems))
    stdin = _Stdin()
    secret = _secret(secret_stdin, secret_file, stdin, "encoder secret", "Password encoder secret", False,
                     config_secret, allow_empty=False)
    password = _secret(password_stdin, password_file, stdin, "password", "Password to encode", True)
    try:
        encoded = encode(secret, password, config)
    except (JavaException, UnsupportedByAuthz) as exc:
        raise AuthzError(_java_text(exc)) from None
    if fmt is EncodeFormat.json:
        text = json.dumps({"encoded": encoded, "fields": describe(encoded)}, indent=2) + "\n"
    else:
        text = encoded + "\n"
    write_output(text, out, secret=True)


def _java_text(exc: Exception) -> str:
    return exc.to_string() if isinstance(exc, JavaException) else str(exc)


@config_app.command("decode-password", help=f"""Decode a dynamic password config as a ZooKeeper-mode broker does.

The encoded string (not secret: it is what ZooKeeper stores) is an argument or --encoded-file. Every
parameter comes from the string, exactly as EncryptingPasswordEncoder.decode: the decoder's own cipher
setting (--cipher / password.encoder.cipher.algorithm) only chooses GCM or IV parameters, as in Kafka.
A wrong secret or a damaged string fails with Kafka's exception and message. With --old-secret-* the
broker's rotation is replayed: the old secret decodes what the new one cannot.

The password is never printed unless asked: --reveal prints it, -o writes it to a 0600 file, and
--expect-password-stdin/--expect-password-file compare it (constant time) instead.

{SECRET_HELP}

Exit codes: 0 decoded (and matches the expected password); 1 Kafka fails to decode it, or it does not
match; 2 usage or input error.""", short_help="Decode a dynamic password config, with Kafka's errors for a wrong secret.")
def decode_password(
    encoded: Optional[str] = typer.Argument(None, help="The encoded password string.", show_default=False),
    encoded_file: Optional[Path] = typer.Option(None, "--encoded-file", help="Read the encoded string from a file."),
    broker_config: Optional[Path] = typer.Option(None, "--broker-config", help="Read password.encoder.* "
                                                 "(and the secrets) from server.properties."),
    secret_stdin: bool = typer.Option(False, "--secret-stdin", help="password.encoder.secret from stdin."),
    secret_file: Optional[Path] = typer.Option(None, "--secret-file", help="password.encoder.secret from a file's "
                                               "first line."),
    old_secret_stdin: bool = typer.Option(False, "--old-secret-stdin", help="password.encoder.old.secret from stdin."),
    old_secret_file: Optional[Path] = typer.Option(None, "--old-secret-file", help="password.encoder.old.secret from "
                                                   "a file's first line."),
    cipher: Optional[str] = typer.Option(None, "--cipher", help="The decoder's password.encoder.cipher.algorithm."),
    reveal: bool = typer.Option(False, "--reveal", help="Print the decoded password."),
    expect_stdin: bool = typer.Option(False, "--expect-password-stdin", help="Compare with a password from stdin."),
    expect_file: Optional[Path] = typer.Option(None, "--expect-password-file", help="Compare with a password from a "
                                               "file's first line."),
    fmt: EncodeFormat = typer.Option(EncodeFormat.text, "--format", "-f", help="Output format."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the password to a file (created 0600)."),
) -> None:
    from rich.table import Table
    if (encoded is None) == (encoded_file is None):
        raise typer.BadParameter("give the encoded string or --encoded-file", param_hint="ENCODED")
    if encoded_file is not None:
        lines = read_text(encoded_file).splitlines()
        encoded = lines[0] if lines else ""
    props, config_secret = _encoder_settings(broker_config)
    config = _config(cipher, None, None, None, props)
    stdin = _Stdin()
    secret = _secret(secret_stdin, secret_file, stdin, "encoder secret", "Password encoder secret", False,
                     config_secret, allow_empty=False)
    old_secret = None
    if old_secret_stdin or old_secret_file is not None:
        old_secret = _secret(old_secret_stdin, old_secret_file, stdin, "old encoder secret", "", False)
    elif CONFIG_OLD_SECRET in props:
        old_secret = props[CONFIG_OLD_SECRET][0]
    expected = None
    if expect_stdin or expect_file is not None:
        expected = _secret(expect_stdin, expect_file, stdin, "expected password", "", False)
    try:
        fields = describe(encoded or "")
    except JavaException:
        fields = {}  # decode() below fails with Kafka's own exception for this string
    result: dict = {"fields": fields}
    password = None
    errors = []
    for label, s in (("password.encoder.secret", secret), ("password.encoder.old.secret", old_secret)):
        if s is None:
            continue
        try:
            password = decode(s, encoded or "", config)
            result.update({"ok": True, "decoded_with": label, "password_length_utf16": utf16_length(password)})
            break
        except JavaException as exc:
            errors.append((label, exc))
        except UnsupportedByAuthz as exc:
            raise AuthzError(str(exc)) from None
    if password is None:
        label, exc = errors[0]
        result.update({"ok": False, "error": exc.as_dict(), "tried": [e[0] for e in errors]})
    matches = None
    if password is not None and expected is not None:
        matches = hmac.compare_digest(password.encode("utf-8", "replace"), expected.encode("utf-8", "replace"))
        result["matches_expected"] = matches
    if fmt is EncodeFormat.json:
        if reveal and password is not None:
            result["password"] = password
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        table = Table(show_header=False)
        for k, v in fields.items():
            table.add_row(escape(k), escape(v))
        console.print(table)
        if password is None:
            for label, exc in errors:
                console.print(f"[red]{label} does not decode it[/]: {escape(exc.to_string())}", soft_wrap=True)
        else:
            console.print(f"[green]decoded[/] with {result['decoded_with']}: {result['password_length_utf16']} "
                          "character(s) (UTF-16 units)" + ("" if reveal or out else "; --reveal to print it"))
            if matches is not None:
                console.print("[green]matches the expected password[/]" if matches
                              else "[red]does not match the expected password[/]")
            if reveal:
                typer.echo(password)
    if password is not None and out is not None:
        write_output(password + "\n", out, secret=True)
    if password is None or matches is False:
        raise typer.Exit(1)
