"""An application's client configuration, read as the Java clients read it, and what it decides.

``ClientConfig`` is the keys of the application's ``.properties`` file with single keys added or
overridden (each remembers where it comes from); ``for_client`` is the view one of Kafka Streams'
clients gets (``consumer.``/``main.consumer.``/``restore.consumer.``, ``producer.``, ``admin.`` prefixes
over the base keys, as ``StreamsConfig.getMainConsumerConfigs`` and friends merge them). The functions
below derive what the requests depend on: is the producer idempotent, transactional, two-phase; which
group protocol the consumer speaks; the Streams application's group, internal topics and transactional
ids. A configuration the client itself refuses raises :class:`ClientConfigError` with the client's
``ConfigException`` message (the application fails in its constructor).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import overload

from kafka_authz_cli._java import ConfigException, java_lower, java_trim, parse_config_value
from kafka_authz_cli.apps.versions import KafkaVersion

INT_MAX = 2**31 - 1


class ClientConfigError(ValueError):
    """The client refuses its configuration: ``exception`` is the Java exception's simple name."""

    def __init__(self, message: str, client: str, exception: str = "ConfigException"):
        super().__init__(message)
        self.client = client
        self.exception = exception


@dataclass
class ClientConfig:
    values: dict[str, str] = field(default_factory=dict)
    #: key -> where its value comes from ("app.properties:12", "--config")
    origins: dict[str, str] = field(default_factory=dict)

    def with_value(self, key: str, value: str, origin: str) -> "ClientConfig":
        values, origins = dict(self.values), dict(self.origins)
        values[key], origins[key] = value, origin
        return ClientConfig(values, origins)

    @overload
    def get(self, key: str) -> str | None: ...
    @overload
    def get(self, key: str, default: str) -> str: ...

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)

    def has(self, key: str) -> bool:
        return key in self.values

    def for_client(self, *prefixes: str) -> "ClientConfig":
        """The base keys with each prefix's keys over them, later prefixes winning (Streams'
        ``consumer.`` then ``main.consumer.``)."""
        values = {k: v for k, v in self.values.items() if not _has_client_prefix(k)}
        origins = {k: self.origins.get(k, "") for k in values}
        for prefix in prefixes:
            for key, value in self.values.items():
                if key.startswith(prefix):
                    values[key[len(prefix):]] = value
                    origins[key[len(prefix):]] = self.origins.get(key, "")
        return ClientConfig(values, origins)


_CLIENT_PREFIXES = ("consumer.", "main.consumer.", "restore.consumer.", "global.consumer.", "producer.", "admin.")


def _has_client_prefix(key: str) -> bool:
    return key.startswith(_CLIENT_PREFIXES)


def _boolean(cfg: ClientConfig, key: str, default: bool, client: str) -> bool:
    raw = cfg.get(key)
    if raw is None:
        return default
    try:
        return parse_config_value(key, raw, "BOOLEAN")
    except ConfigException as exc:
        raise ClientConfigError(str(exc), client) from None


def _int(cfg: ClientConfig, key: str, default: int, client: str) -> int:
    raw = cfg.get(key)
    if raw is None:
        return default
    try:
        return parse_config_value(key, raw, "INT")
    except ConfigException as exc:
        raise ClientConfigError(str(exc), client) from None


def _choice(cfg: ClientConfig, key: str, default: str, choices: tuple[str, ...], client: str) -> str:
    """A STRING with a case-insensitive ``ConfigDef.CaseInsensitiveValidString`` (trimmed, as ConfigDef does)."""
    raw = cfg.get(key)
    if raw is None:
        return default
    value = java_lower(java_trim(raw))
    if value not in choices:
        raise ClientConfigError(f"Invalid value {raw} for configuration {key}: String must be one of: "
                                + ", ".join(choices), client)
    return value


@dataclass(frozen=True)
class ProducerSettings:
    idempotent: bool
    transactional_id: str | None
    two_phase_commit: bool
    notes: tuple[str, ...] = ()


def producer_settings(cfg: ClientConfig, version: KafkaVersion, client: str = "producer") -> ProducerSettings:
    """``ProducerConfig.postProcessAndValidateIdempotenceConfigs`` of the release: whether the producer is
    idempotent, transactional and two-phase, or the ConfigException its constructor throws."""
    notes: list[str] = []
    acks_raw = java_lower(java_trim(cfg.get("acks", "all")))
    if acks_raw not in ("all", "-1", "0", "1"):
        raise ClientConfigError(f"Invalid value {cfg.get('acks')} for configuration acks: String must be one of: "
                                "all, -1, 0, 1", client)
    acks_all = acks_raw in ("all", "-1")
    user_idempotence = cfg.has("enable.idempotence")
    idempotent = _boolean(cfg, "enable.idempotence", True, client)
    retries = _int(cfg, "retries", INT_MAX, client)
    in_flight = _int(cfg, "max.in.flight.requests.per.connection", 5, client)
    tid_raw = cfg.get("transactional.id")
    transactional_id = tid_raw if tid_raw is not None and tid_raw != "" else None
    if version.line in ((3, 0), (3, 1)) and version.patch == 0:
        # KAFKA-13598: 3.0.0 and 3.1.0 enabled idempotence only when enable.idempotence was set to true
        # (or a transactional.id set), whatever the documented default (fixed in 3.0.1, 3.1.1, 3.2.0).
        idempotent = (user_idempotence and idempotent) or transactional_id is not None
        if user_idempotence and not idempotent and transactional_id is not None:
            raise ClientConfigError("Cannot set a transactional.id without also enabling idempotence.", client)
        notes.append(f"Kafka {version}: idempotence is on only when enable.idempotence=true is set (KAFKA-13598)")
        return ProducerSettings(idempotent, transactional_id, False, tuple(notes))
    if idempotent:
        if retries == 0:
            if user_idempotence:
                raise ClientConfigError("Must set retries to non-zero when using the idempotent producer.", client)
            idempotent = False
            notes.append("idempotence is off: retries=0 (and enable.idempotence is not set)")
        if not acks_all and idempotent:
            if user_idempotence:
                raise ClientConfigError("Must set acks to all in order to use the idempotent producer. Otherwise "
                                        "we cannot guarantee idempotence.", client)
            idempotent = False
            notes.append(f"idempotence is off: acks={acks_raw} (and enable.idempotence is not set)")
        if in_flight > 5 and idempotent:
            if version.at_least(4, 0) or user_idempotence:
                raise ClientConfigError("To use the idempotent producer, max.in.flight.requests.per.connection must "
                                        f"be set to at most 5. Current value is {in_flight}.", client)
            idempotent = False
            notes.append(f"idempotence is off: max.in.flight.requests.per.connection={in_flight} > 5 (Kafka 3.x)")
    if transactional_id is not None and not idempotent:
        raise ClientConfigError("Cannot set a transactional.id without also enabling idempotence.", client)
    two_pc = False
    if cfg.has("transaction.two.phase.commit.enable") and version.at_least(4, 1):
        two_pc = _boolean(cfg, "transaction.two.phase.commit.enable", False, client)
        if two_pc and transactional_id is None:
            notes.append("transaction.two.phase.commit.enable needs a transactional.id to matter")
    return ProducerSettings(idempotent, transactional_id, two_pc, tuple(notes))


@dataclass(frozen=True)
class ConsumerSettings:
    group_id: str | None
    #: "classic" or "consumer" (KIP-848)
    protocol: str
    allow_auto_create: bool
    read_committed: bool
    notes: tuple[str, ...] = ()


def consumer_settings(cfg: ClientConfig, version: KafkaVersion, client: str = "consumer") -> ConsumerSettings:
    notes: list[str] = []
    group = cfg.get("group.id")
    group_id = group if group not in (None, "") else None
    protocol = "classic"
    if version.at_least(3, 7):
        # ConsumerConfig.GROUP_PROTOCOL_CONFIG (KIP-848): early access in 3.7-3.9, GA in 4.0.
        protocol = _choice(cfg, "group.protocol", "classic", ("classic", "consumer"), client)
        if protocol == "consumer" and not version.at_least(4, 0):
            notes.append(f"group.protocol=consumer is early access in Kafka {version}: the brokers must enable it "
                         "(group.coordinator.rebalance.protocols), else UnsupportedVersionException")
    elif cfg.has("group.protocol"):
        notes.append(f"group.protocol is not a consumer config in Kafka {version} (KIP-848 came in 3.7): ignored")
    isolation = _choice(cfg, "isolation.level", "read_uncommitted", ("read_committed", "read_uncommitted"), client)
    auto_create = _boolean(cfg, "allow.auto.create.topics", True, client)
    return ConsumerSettings(group_id, protocol, auto_create, isolation == "read_committed", tuple(notes))


@dataclass(frozen=True)
class StreamsSettings:
    application_id: str
    exactly_once: bool
    #: "v2" (exactly_once_v2 / exactly_once_beta: one transactional id per thread) or "v1" (exactly_once:
    #: one per task, Kafka 3.x only)
    eos_version: str | None
    notes: tuple[str, ...] = ()


def streams_settings(cfg: ClientConfig, version: KafkaVersion) -> StreamsSettings:
    app = cfg.get("application.id")
    if app is None or java_trim(app) == "":
        raise ClientConfigError('Missing required configuration "application.id" which has no default value.',
                                "streams")
    choices = ("at_least_once", "exactly_once_v2") if version.at_least(4, 0) else (
        "at_least_once", "exactly_once", "exactly_once_beta", "exactly_once_v2")
    raw = cfg.get("processing.guarantee")
    guarantee = "at_least_once" if raw is None else java_trim(raw)
    if guarantee not in choices:
        raise ClientConfigError(f"Invalid value {raw} for configuration processing.guarantee: String must be one "
                                "of: " + ", ".join(choices), "streams")
    notes = []
    if guarantee in ("exactly_once", "exactly_once_beta"):
        notes.append(f"processing.guarantee={guarantee} is deprecated in Kafka 3.x and removed in 4.0")
    eos = None if guarantee == "at_least_once" else ("v1" if guarantee == "exactly_once" else "v2")
    return StreamsSettings(java_trim(app), eos is not None, eos, tuple(notes))
