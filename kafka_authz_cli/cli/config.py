"""`authz config`: KIP-226 dynamic broker configuration and the password encoder."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import TableFormat, console, emit_rows, json_text, warn, write_json, write_output
from kafka_authz_cli.cli.options import (
    CommandConfig,
    Listener,
    PasswordFile,
    TableFormatOption,
    TextFormat,
    TextFormatOption,
    Timeout,
)
from kafka_authz_cli.cli.secrets import StdinLines, read_secret
from kafka_authz_cli.services import config as service

config_app = typer.Typer(help="KIP-226 dynamic broker configuration: effective values and sources, and the "
                              "password encoder.", no_args_is_help=True)
app.add_typer(config_app, name="config", short_help="KIP-226 broker config: effective values and sources; "
                                                    "encode/decode dynamic passwords.")

SECRET_HELP = ("Secrets (the encoder secret, the password) come from a prompt, --*-stdin (one line each, "
               "secret first when both are on stdin) or --*-file, or for the secret password.encoder.secret "
               "in --broker-config; never from the command line.")


# -- resolve ----------------------------------------------------------------------------------------

@config_app.command("resolve", help="""The value a broker really uses for each config key, and where it comes from.

Precedence as KIP-226 defines it: dynamic per-broker config, dynamic cluster-wide default, static
server.properties, Kafka's default; time synonyms count across levels (a dynamic log.retention.ms beats
a static log.retention.hours); listener.name.<listener>.<key> beats <key> for that listener
(--listener shows the listener-scoped keys as that listener sees them). For every key: the effective
value (sensitive ones are never shown, only where they are set), its source and property, the full
synonym chain (what DescribeConfigs with include_synonyms returns) and whether the key can be updated
dynamically (per-broker, cluster-wide, per-listener only, read-only; custom: a key the Kafka version does
not define, with the versions that do). Keys are interpreted with Kafka's own config definitions
(ConfigDefs and DynamicBrokerConfig, read from Kafka's classes) of --kafka-version, by default the
newest read (live: the version whose broker configs match the keys the broker reports). A time key supplied by a synonym in another unit (log.retention.ms from log.retention.hours)
has its value in milliseconds, as KafkaConfig computes it, and names the synonym and its text.

Offline: --broker-config and/or --dynamic, which takes {"cluster_default": {...}, "brokers": {"0": {...}}}
JSON or the text of `kafka-configs.sh --describe --entity-type brokers` of any Kafka version from 1.1 (the
ZooKeeper one-line `Configs for brokers '0' are k=v,...` form, and `--all` output, included). Dynamic entries the broker
ignores (keys it does not let you change dynamically, SSL store keys without a listener prefix,
per-broker keys at the cluster-default level) are listed with the broker's own log message (and what
kafka-configs --alter would have answered), exit 1.

Live: --bootstrap-server (with --command-config as for kafka-configs) asks the broker (DescribeConfigs
with synonyms: the caller needs DESCRIBE_CONFIGS on the CLUSTER resource) for its static, cluster-default
and per-broker configs, resolves them with authz's own tables, and checks authz's answer against the
source and value the broker reports for every key: a disagreement is a bug in authz's tables and is
listed. The broker is --broker-id, else the one at the bootstrap address, else the cluster's only broker.
With --broker-config as well, the file is compared with what the broker loaded (static keys whose value
differs, keys in only one; sensitive values only as set or unset).

Exit codes: 0 resolved (live: authz agrees with the broker, no drift); 1 some dynamic config is ignored
by the broker (a non-dynamic key set dynamically, at the cluster default or per broker), a
server.properties value Kafka refuses (a number that does not parse as the key's type or is outside
its range: the broker does not start), or (live) authz disagrees with the broker; 2 usage, input or connection error (live: also
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
    listener: Listener = None,
    keys: Optional[list[str]] = typer.Option(None, "--key", help="Only these keys (repeatable)."),
    all_defaults: bool = typer.Option(False, "--all", help="Also every key with a default in the Kafka version "
                                      "(live: and every key the broker reports)."),
    fmt: TableFormatOption = TableFormat.table,
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", help="Resolve from a live broker "
                                                   "(DescribeConfigs with synonyms): host:port[,host:port...]."),
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    kafka_version: Optional[str] = typer.Option(None, "--kafka-version", help="Interpret keys as this Kafka "
                                                "version does (e.g. 3.9 or 4.1.1; default: the newest authz has "
                                                "read; live: the version whose keys the broker reports)."),
) -> None:
    result = service.resolve(broker_config, dynamic, broker_id, listener, keys, all_defaults, bootstrap_server,
                             command_config, timeout, kafka_version)
    if isinstance(result, service.LiveResolution):
        _show_live(result, fmt, broker_config)
        return
    _show_offline(result, fmt)


def _show_offline(result: service.Resolution, fmt: TableFormat) -> None:
    if fmt is TableFormat.json:
        write_json(result.document(), None)
    elif fmt is not TableFormat.table:
        emit_rows(result.rows(), fmt)
    else:
        for n in [f"keys as Kafka {result.kafka_version} defines them"] + result.notes:
            console.print(f"[dim]{escape(n)}[/]", soft_wrap=True)
        console.print(_resolved_table(result.resolved))
        for i in result.ignored:
            console.print(f"[red]ignored[/] ({i.level} level): {escape(i.message)}\n  "
                          f"[dim]kafka-configs --alter would answer: {escape(i.alter_message)}[/]", soft_wrap=True)
    for r in result.refused:
        warn(f"{r.where}: the broker does not start: {r.message}")
    if result.ignored or result.refused:
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
                value += f" [dim]({escape(r.name or '')}={escape(r.from_value or '')})[/]"
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


def _show_live(result: service.LiveResolution, fmt: TableFormat, broker_config: Optional[Path]) -> None:
    check, chosen, drift = result.check, result.broker_id, result.drift
    if fmt is TableFormat.json:
        write_json(result.document(), None)
    elif fmt is not TableFormat.table:
        emit_rows(result.rows, fmt)
    else:
        for n in result.notes:
            console.print(f"[dim]{escape(n)}[/]", soft_wrap=True)
        console.print(_resolved_table(result.resolved, result.checked))
        summary = (f"authz's resolution checked against broker {chosen}: {len(check.agreed)} of {check.compared} "
                   f"keys agree")
        if check.unknown:
            summary += f"; authz knows nothing of the {len(check.unknown)} other(s) the broker reports"
        console.print(summary, soft_wrap=True)
        if drift is not None:
            _show_drift(result, broker_config)
    if check.disagreements:
        for d in check.disagreements:
            warn(f"authz disagrees with the broker: {d.message()}")
        warn(f"{len(check.disagreements)} disagreement(s) with broker {chosen}: a bug in authz's KIP-226 tables "
             "(please report it); trust the broker's answer")
        raise typer.Exit(1)
    if drift:
        raise typer.Exit(3)


def _show_drift(result: service.LiveResolution, broker_config: Optional[Path]) -> None:
    chosen, drift = result.broker_id, result.drift
    if drift:
        console.print(f"[yellow]{escape(str(broker_config))} differs from what broker {chosen} loaded "
                      f"({len(drift)} key(s)):[/]", soft_wrap=True)
        for d in drift:
            console.print(f"  {d.kind}: {escape(d.message())}", soft_wrap=True)
    else:
        console.print(f"{escape(str(broker_config))} is what broker {chosen} loaded (no drift)", soft_wrap=True)
    if result.drift_compared_as_set_only:
        console.print(f"[dim]compared only as set or unset (values never shown or hidden by the broker): "
                      f"{escape(', '.join(result.drift_compared_as_set_only))}[/]", soft_wrap=True)


# -- the password encoder -----------------------------------------------------------------------------


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
    password_file: PasswordFile = None,
    cipher: Optional[str] = typer.Option(None, "--cipher", help="password.encoder.cipher.algorithm."),
    key_factory: Optional[str] = typer.Option(None, "--key-factory", help="password.encoder.keyfactory.algorithm."),
    key_length: Optional[int] = typer.Option(None, "--key-length", help="password.encoder.key.length (bits)."),
    iterations: Optional[int] = typer.Option(None, "--iterations", help="password.encoder.iterations."),
    fmt: TextFormatOption = TextFormat.text,
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write to a file (created 0600)."),
) -> None:
    def read_secrets(secret_in_file: Optional[str]) -> tuple[str, str]:
        stdin = StdinLines()  # the secret's line first, then the password's
        secret = read_secret(secret_stdin, secret_file, stdin, "encoder secret", "--secret-stdin",
                             "Password encoder secret", False, secret_in_file, allow_empty=False)
        return secret, read_secret(password_stdin, password_file, stdin, "password", "--password-stdin",
                                   "Password to encode", True)

    made = service.encode_password(broker_config, cipher, key_factory, key_length, iterations, read_secrets)
    if fmt is TextFormat.json:
        text = json_text(made.document()) + "\n"
    else:
        text = made.encoded + "\n"
    write_output(text, out, secret=True)


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
    fmt: TextFormatOption = TextFormat.text,
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the password to a file (created 0600)."),
) -> None:
    def read_secrets(secret_in_file: Optional[str]) -> tuple[str, Optional[str], Optional[str]]:
        stdin = StdinLines()  # in this order: the secret, the old secret, the expected password
        secret = read_secret(secret_stdin, secret_file, stdin, "encoder secret", "--secret-stdin",
                             "Password encoder secret", False, secret_in_file, allow_empty=False)
        old_secret = expected = None
        if old_secret_stdin or old_secret_file is not None:
            old_secret = read_secret(old_secret_stdin, old_secret_file, stdin, "old encoder secret",
                                     "--old-secret-stdin", "", False)
        if expect_stdin or expect_file is not None:
            expected = read_secret(expect_stdin, expect_file, stdin, "expected password", "--expect-password-stdin",
                                   "", False)
        return secret, old_secret, expected

    decoded = service.decode_password(encoded, encoded_file, broker_config, cipher, read_secrets)
    _show_decoded(decoded, fmt, reveal, out)
    if decoded.password is not None and out is not None:
        write_output(decoded.password + "\n", out, secret=True)
    if decoded.password is None or decoded.matches is False:
        raise typer.Exit(1)


def _show_decoded(decoded: service.Decoded, fmt: TextFormat, reveal: bool, out: Optional[Path]) -> None:
    from rich.table import Table

    password = decoded.password
    if fmt is TextFormat.json:
        write_json(decoded.document(reveal), None)
        return
    table = Table(show_header=False)
    for k, v in decoded.fields.items():
        table.add_row(escape(k), escape(v))
    console.print(table)
    if password is None:
        for label, exc in decoded.errors:
            console.print(f"[red]{label} does not decode it[/]: {escape(exc.to_string())}", soft_wrap=True)
        return
    console.print(f"[green]decoded[/] with {decoded.decoded_with}: {decoded.password_length_utf16} "
                  "character(s) (UTF-16 units)" + ("" if reveal or out else "; --reveal to print it"))
    if decoded.matches is not None:
        console.print("[green]matches the expected password[/]" if decoded.matches
                      else "[red]does not match the expected password[/]")
    if reveal:
        typer.echo(password)
