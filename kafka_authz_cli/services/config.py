"""`authz config`: a broker's effective configuration (KIP-226), from files or a live broker, and
the password encoder of dynamic passwords.

Secrets (the encoder secret, the password, the expected password) come in through a callable the
CLI hands over, once the settings are read (the secret in --broker-config is its fallback); a
decoded password goes back only in the result, for the CLI to reveal or write 0600 when asked.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from kafka_authz_cli._java import JavaException, utf16_length
from kafka_authz_cli.config import (
    Check,
    Drift,
    Ignored,
    LiveOrigin,
    Refused,
    Resolved,
    UnsupportedByAuthz,
    broker_sensitive,
    check_against_broker,
    compared_as_set_only,
    decode,
    describe,
    encode,
    hide,
    kafka_configs,
    keys_to_resolve,
    load_sources,
    match_version,
    read_encoder_settings,
    read_static,
    refused_static,
    resolve_key,
    scoped_key,
    sources_from_describe,
    static_drift,
    validate_dynamic,
)
from kafka_authz_cli.errors import AuthzError, OptionError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.services.live import close_admin, open_admin

# -- resolve ----------------------------------------------------------------------------------------


@dataclass
class Resolution:
    """Offline: each key's effective value and source, and the dynamic entries the broker ignores."""

    broker_id: Optional[str]
    listener: Optional[str]
    resolved: list[Resolved]
    ignored: list[Ignored]
    notes: list[str]
    kafka_version: str = ""
    #: server.properties values Kafka refuses (the broker does not start).
    refused: list[Refused] = field(default_factory=list)

    def rows(self) -> list[dict]:
        return [r.as_dict() for r in self.resolved]

    def document(self) -> dict:
        """`config resolve --format json`, from files."""
        return {"broker_id": self.broker_id, "listener": self.listener, "kafka_version": self.kafka_version,
                "configs": self.rows(),
                "ignored": [{"level": i.level, "keys": list(i.keys), "broker_log": i.message,
                             "alter_configs": i.alter_message} for i in self.ignored],
                "refused": [{"key": r.key, "where": r.where, "error": r.message} for r in self.refused],
                "notes": self.notes}


@dataclass
class LiveResolution:
    """Live: the resolution from what broker ``broker_id`` reports, checked against its own answer
    (``checked``: key -> agrees), and with --broker-config, how that file differs from what it loaded."""

    bootstrap_server: str
    broker_id: int
    listener: Optional[str]
    resolved: list[Resolved]
    rows: list[dict]
    check: Check
    checked: dict[str, bool]
    notes: list[str]
    kafka_version: str = ""
    #: None without --broker-config.
    drift: Optional[list[Drift]] = None
    drift_compared_as_set_only: list[str] = field(default_factory=list)

    def document(self) -> dict:
        """`config resolve --bootstrap-server --format json`."""
        return {"bootstrap_server": self.bootstrap_server, "broker_id": str(self.broker_id), "listener": self.listener,
                "kafka_version": self.kafka_version, "configs": self.rows, "check": self.check.as_dict(),
                "drift": None if self.drift is None else [d.as_dict() for d in self.drift],
                "drift_compared_as_set_only": self.drift_compared_as_set_only,
                "notes": self.notes}


def registry(kafka_version: Optional[str]):
    """Kafka's config definitions of ``--kafka-version`` (the newest read without it)."""
    try:
        return kafka_configs(kafka_version)
    except ValueError as exc:
        raise OptionError(str(exc), "--kafka-version") from None


def resolve(broker_config: Optional[Path], dynamic: Optional[Path], broker_id: Optional[str],
            listener: Optional[str], keys: Optional[list[str]], all_defaults: bool, bootstrap_server: Optional[str],
            command_config: Optional[Path], timeout: float,
            kafka_version: Optional[str] = None) -> Resolution | LiveResolution:
    """`config resolve`: from files (--broker-config and/or --dynamic), or from a live broker; keys
    interpreted with Kafka ``kafka_version``'s config definitions."""
    kafka = registry(kafka_version) if kafka_version is not None or bootstrap_server is None else None
    if bootstrap_server is not None:
        if dynamic is not None:
            raise OptionError("give --dynamic or --bootstrap-server, not both (a live broker reports its own dynamic "
                              "configs)", "--dynamic")
        return resolve_live(bootstrap_server, command_config, timeout, broker_config, broker_id, listener, keys,
                            all_defaults, kafka)
    if command_config is not None:
        raise OptionError("--command-config needs --bootstrap-server", "--command-config")
    assert kafka is not None  # from files: the registry of kafka_version, or the latest
    if broker_config is None and dynamic is None:
        raise OptionError("give --broker-config and/or --dynamic (or --bootstrap-server)", "--broker-config")
    sources, notes = load_sources(broker_config, dynamic, broker_id)
    ignored = []
    kept_default, ign = validate_dynamic(sources.dynamic_default, per_broker=False, kafka=kafka)
    ignored += ign
    kept_broker, ign = validate_dynamic(sources.dynamic_broker, per_broker=True, kafka=kafka)
    ignored += ign
    sources.dynamic_default, sources.dynamic_broker = kept_default, kept_broker
    names = [scoped_key(k, listener, kafka) for k in keys] if keys else \
        keys_to_resolve(sources, all_defaults, listener, kafka=kafka)
    return Resolution(sources.broker_id, listener, [resolve_key(k, sources, kafka) for k in names], ignored, notes,
                      kafka.version, refused_static(sources.static, kafka))


def resolve_live(bootstrap: str, command_config: Optional[Path], timeout: float, broker_config: Optional[Path],
                 broker_id: Optional[str], listener: Optional[str], keys: Optional[list[str]],
                 all_defaults: bool, kafka=None) -> LiveResolution:
    """The broker's DescribeConfigs (with synonyms) as sources, resolved with authz's tables and
    checked key by key against the source and value the broker reports."""
    wanted = None
    if broker_id is not None:
        try:
            wanted = int(broker_id.strip())
        except ValueError:
            raise OptionError(f"a broker id is a whole number, got {broker_id!r}", "--broker-id") from None
    from kafka_authz_cli.cluster import pick_broker

    file_static = read_static(broker_config) if broker_config is not None else None  # bad input before connecting
    admin = open_admin(bootstrap, command_config, timeout)
    try:
        chosen, how = pick_broker(bootstrap, admin.brokers(), wanted)
        configs = admin.describe_broker_configs(chosen)
    finally:
        close_admin(admin)
    sources = sources_from_describe(configs, LiveOrigin(bootstrap, str(chosen)))
    version_note = []
    if kafka is None:
        # Without --kafka-version: the version read whose broker ConfigDef the broker's keys match.
        kafka = kafka_configs(match_version(c.name for c in configs))
        version_note = [f"keys as Kafka {kafka.version} defines them: the version read whose broker configs match "
                        f"the keys broker {chosen} reports (--kafka-version to choose)"]
    check = check_against_broker(configs, sources, kafka)
    hidden = broker_sensitive(configs)
    reported = {c.name: c for c in configs}
    if keys:
        names = [scoped_key(k, listener, kafka) for k in keys]
    else:
        names = keys_to_resolve(sources, all_defaults, listener, extra=reported if all_defaults else (), kafka=kafka)
    resolved = [hide(resolve_key(k, sources, kafka), hidden) for k in names]
    failed = {d.key for d in check.disagreements}
    checked = {k: k not in failed for k in check.agreed | failed}
    rows = []
    for r in resolved:
        row = r.as_dict()
        c = reported.get(r.key)
        row["broker"] = c.as_dict(hide=r.sensitive) if c is not None else None
        row["agrees"] = checked.get(r.key)
        rows.append(row)
    result = LiveResolution(bootstrap, chosen, listener, resolved, rows, check, checked,
                            [f"{how}; {len(configs)} configs reported"] + version_note + check.notes, kafka.version)
    if file_static is not None:
        result.drift = static_drift(file_static, sources.static, hidden)
        result.drift_compared_as_set_only = compared_as_set_only(file_static, sources.static, hidden)
    return result


# -- the password encoder -----------------------------------------------------------------------------

def _java_text(exc: Exception) -> str:
    return exc.to_string() if isinstance(exc, JavaException) else str(exc)


@dataclass(frozen=True)
class Encoded:
    """An encoded password (what ZooKeeper stores: not secret, but it decodes with the secret) and its fields."""

    encoded: str
    fields: dict[str, str]

    def document(self) -> dict:
        """`config encode-password --format json`."""
        return {"encoded": self.encoded, "fields": self.fields}


def encode_password(broker_config: Optional[Path], cipher: Optional[str], key_factory: Optional[str],
                    key_length: Optional[int], iterations: Optional[int],
                    read_secrets: Callable[[Optional[str]], tuple[str, str]]) -> Encoded:
    """`config encode-password`: the settings (flags, else password.encoder.* in ``broker_config``,
    else Kafka's defaults) are checked as the broker checks them, then ``read_secrets(secret_in_file)``
    gives the encoder secret and the password to encode."""
    settings = read_encoder_settings(broker_config)
    config = settings.config(cipher, key_factory, key_length, iterations)
    problems = config.validation_errors()
    if problems:
        raise AuthzError("; ".join(problems))
    secret, password = read_secrets(settings.secret)
    try:
        encoded = encode(secret, password, config)
    except (JavaException, UnsupportedByAuthz) as exc:
        raise AuthzError(_java_text(exc)) from None
    return Encoded(encoded, describe(encoded))


@dataclass
class Decoded:
    """A decoding: the encoded string's fields, the password (None: no secret decodes it, ``errors``
    says each one's exception) and, with an expected password, whether it matches (constant time)."""

    fields: dict[str, str]
    password: Optional[str] = None
    decoded_with: Optional[str] = None
    errors: list[tuple[str, JavaException]] = field(default_factory=list)
    matches: Optional[bool] = None

    @property
    def password_length_utf16(self) -> Optional[int]:
        """The password's length as Java counts it (what passwordLength says)."""
        return None if self.password is None else utf16_length(self.password)

    def document(self, reveal: bool = False) -> dict:
        """`config decode-password --format json`: the password only when ``reveal`` (--reveal) says so."""
        doc: dict = {"fields": self.fields}
        if self.password is not None:
            doc.update({"ok": True, "decoded_with": self.decoded_with,
                        "password_length_utf16": self.password_length_utf16})
        else:
            doc.update({"ok": False, "error": self.errors[0][1].as_dict(), "tried": [e[0] for e in self.errors]})
        if self.matches is not None:
            doc["matches_expected"] = self.matches
        if reveal and self.password is not None:
            doc["password"] = self.password
        return doc


def decode_password(encoded: Optional[str], encoded_file: Optional[Path], broker_config: Optional[Path],
                    cipher: Optional[str],
                    read_secrets: Callable[[Optional[str]], tuple[str, Optional[str], Optional[str]]]) -> Decoded:
    """`config decode-password`, as a ZooKeeper-mode broker decodes: ``read_secrets(secret_in_file)`` gives
    the encoder secret, the old secret (None: password.encoder.old.secret of ``broker_config``, if
    any) and the expected password (None: no comparison). The new secret is tried first, then the
    old one, as the broker's rotation does."""
    if (encoded is None) == (encoded_file is None):
        raise OptionError("give the encoded string or --encoded-file", "ENCODED")
    if encoded_file is not None:
        lines = read_text(encoded_file).splitlines()
        encoded = lines[0] if lines else ""
    settings = read_encoder_settings(broker_config)
    config = settings.config(cipher)
    secret, old_secret, expected = read_secrets(settings.secret)
    if old_secret is None:
        old_secret = settings.old_secret
    try:
        fields = describe(encoded or "")
    except JavaException:
        fields = {}  # decode() below fails with Kafka's own exception for this string
    result = Decoded(fields)
    for label, s in (("password.encoder.secret", secret), ("password.encoder.old.secret", old_secret)):
        if s is None:
            continue
        try:
            result.password, result.decoded_with = decode(s, encoded or "", config), label
            break
        except JavaException as exc:
            result.errors.append((label, exc))
        except UnsupportedByAuthz as exc:
            raise AuthzError(str(exc)) from None
    if result.password is not None and expected is not None:
        result.matches = hmac.compare_digest(result.password.encode("utf-8", "replace"),
                                             expected.encode("utf-8", "replace"))
    return result
