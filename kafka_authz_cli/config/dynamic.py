"""KIP-226 dynamic broker configuration: which value a broker really uses, and why.

Precedence (``DynamicBrokerConfig``): dynamic per-broker config, dynamic cluster-wide default,
static ``server.properties``, Kafka's default. Synonyms count across levels: a dynamic
``log.retention.ms`` beats a static ``log.retention.hours`` (overrideProps removes the synonyms of every
key it overrides; only the ``.ms`` forms can be set dynamically). Listener-prefixed keys (``listener.name.<l>.<key>``, and
``listener.name.<l>.<mechanism>.sasl.jaas.config`` style for mechanism configs) beat the base key for
that listener.

Dynamic entries the broker ignores are reported with the broker's own log messages: configs that are
not dynamic, SSL keystore/truststore configs without a listener prefix, per-broker configs stored at
the cluster-default level.

Sensitive values (passwords, JAAS, keys) are never returned, only whether and where they are set.
The tables below are read from Apache Kafka 4.0's ``DynamicBrokerConfig`` and ``KafkaConfig``. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# -- what may be updated dynamically (DynamicBrokerConfig, Kafka 4.0) ----------------------------------

DYNAMIC_SECURITY_CONFIGS = frozenset({  # SslConfigs.RECONFIGURABLE_CONFIGS: listener prefix required
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.keystore.key",
    "ssl.keystore.certificate.chain", "ssl.truststore.certificates"})
LOG_CLEANER_CONFIGS = frozenset({
    "log.cleaner.threads", "log.cleaner.dedupe.buffer.size", "log.cleaner.io.buffer.load.factor",
    "log.cleaner.io.buffer.size", "message.max.bytes", "log.cleaner.io.max.bytes.per.second",
    "log.cleaner.backoff.ms"})
# topic config -> broker synonyms in precedence order, with a unit factor to milliseconds
TOPIC_CONFIG_SYNONYMS: dict[str, list[tuple[str, int]]] = {
    "segment.bytes": [("log.segment.bytes", 1)],
    "segment.ms": [("log.roll.ms", 1), ("log.roll.hours", 3_600_000)],
    "segment.jitter.ms": [("log.roll.jitter.ms", 1), ("log.roll.jitter.hours", 3_600_000)],
    "segment.index.bytes": [("log.index.size.max.bytes", 1)],
    "flush.messages": [("log.flush.interval.messages", 1)],
    "flush.ms": [("log.flush.interval.ms", 1), ("log.flush.scheduler.interval.ms", 1)],
    "retention.bytes": [("log.retention.bytes", 1)],
    "retention.ms": [("log.retention.ms", 1), ("log.retention.minutes", 60_000), ("log.retention.hours", 3_600_000)],
    "max.message.bytes": [("message.max.bytes", 1)],
    "index.interval.bytes": [("log.index.interval.bytes", 1)],
    "delete.retention.ms": [("log.cleaner.delete.retention.ms", 1)],
    "min.compaction.lag.ms": [("log.cleaner.min.compaction.lag.ms", 1)],
    "max.compaction.lag.ms": [("log.cleaner.max.compaction.lag.ms", 1)],
    "file.delete.delay.ms": [("log.segment.delete.delay.ms", 1)],
    "min.cleanable.dirty.ratio": [("log.cleaner.min.cleanable.ratio", 1)],
    "cleanup.policy": [("log.cleanup.policy", 1)],
    "unclean.leader.election.enable": [("unclean.leader.election.enable", 1)],
    "min.insync.replicas": [("min.insync.replicas", 1)],
    "compression.type": [("compression.type", 1)],
    "compression.gzip.level": [("compression.gzip.level", 1)],
    "compression.lz4.level": [("compression.lz4.level", 1)],
    "compression.zstd.level": [("compression.zstd.level", 1)],
    "preallocate": [("log.preallocate", 1)],
    "message.timestamp.type": [("log.message.timestamp.type", 1)],
    "message.timestamp.before.max.ms": [("log.message.timestamp.before.max.ms", 1)],
    "message.timestamp.after.max.ms": [("log.message.timestamp.after.max.ms", 1)],
    "local.retention.ms": [("log.local.retention.ms", 1)],
    "local.retention.bytes": [("log.local.retention.bytes", 1)],
}
DYNAMIC_LOG_CONFIGS = frozenset(v[0][0] for v in TOPIC_CONFIG_SYNONYMS.values())
THREAD_POOL_CONFIGS = frozenset({"num.io.threads", "num.replica.fetchers", "num.recovery.threads.per.data.dir",
                                 "background.threads"})
LISTENER_CONFIGS = frozenset({  # DynamicListenerConfig.ReconfigurableConfigs
    "listeners", "listener.security.protocol.map", "principal.builder.class", "ssl.protocol", "ssl.provider",
    "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keystore.type", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.key.password", "ssl.truststore.type", "ssl.truststore.location",
    "ssl.truststore.password", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
    "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation", "ssl.client.auth",
    "ssl.engine.factory.class", "sasl.mechanism.inter.broker.protocol", "sasl.jaas.config",
    "sasl.enabled.mechanisms", "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.ticket.renew.window.factor", "sasl.kerberos.ticket.renew.jitter",
    "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
    "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds", "max.connections", "max.connection.creation.rate", "num.network.threads"})
SOCKET_SERVER_CONFIGS = frozenset({"max.connections.per.ip", "max.connections.per.ip.overrides", "max.connections",
                                   "max.connection.creation.rate"})
PRODUCER_STATE_CONFIGS = frozenset({"producer.id.expiration.ms", "transaction.partition.verification.enable"})
REMOTE_LOG_CONFIGS = frozenset({"remote.log.index.file.cache.total.size.bytes",
                                "remote.log.manager.copy.max.bytes.per.second",
                                "remote.log.manager.fetch.max.bytes.per.second"})
ALL_DYNAMIC_CONFIGS = (DYNAMIC_SECURITY_CONFIGS | LOG_CLEANER_CONFIGS | DYNAMIC_LOG_CONFIGS | THREAD_POOL_CONFIGS
                       | {"metric.reporters", "config.providers"} | LISTENER_CONFIGS | SOCKET_SERVER_CONFIGS
                       | PRODUCER_STATE_CONFIGS | REMOTE_LOG_CONFIGS)
CLUSTER_LEVEL_LISTENER_CONFIGS = frozenset({"max.connections", "max.connection.creation.rate", "num.network.threads"})
PER_BROKER_CONFIGS = (DYNAMIC_SECURITY_CONFIGS | LISTENER_CONFIGS) - CLUSTER_LEVEL_LISTENER_CONFIGS
LISTENER_MECHANISM_CONFIGS = ("sasl.jaas.config", "sasl.login.callback.handler.class", "sasl.login.class",
                              "sasl.server.callback.handler.class", "connections.max.reauth.ms")
_LISTENER_RE = re.compile(r"listener\.name\.[^.]*\.(.*)", re.DOTALL)

# KafkaConfig keys that can only be set in server.properties (a broker ignores them dynamically).
STATIC_ONLY_CONFIGS = frozenset({
    "node.id", "broker.id", "process.roles", "controller.quorum.voters", "controller.quorum.bootstrap.servers",
    "controller.listener.names", "inter.broker.listener.name", "advertised.listeners", "log.dirs", "log.dir",
    "metadata.log.dir", "auto.create.topics.enable", "num.partitions", "default.replication.factor",
    "offsets.topic.replication.factor", "transaction.state.log.replication.factor",
    "transaction.state.log.min.isr", "authorizer.class.name", "early.start.listeners", "broker.rack",
    "delete.topic.enable", "log.retention.hours", "log.retention.minutes", "log.roll.hours",
    "log.roll.jitter.hours", "log.flush.scheduler.interval.ms", "ssl.principal.mapping.rules",
    "connections.max.idle.ms", "connections.max.reauth.ms", "sasl.server.max.receive.size",
    "password.encoder.secret", "password.encoder.old.secret", "password.encoder.keyfactory.algorithm",
    "password.encoder.cipher.algorithm", "password.encoder.key.length", "password.encoder.iterations",
    "create.topic.policy.class.name", "alter.config.policy.class.name", "queued.max.requests",
    "socket.send.buffer.bytes", "socket.receive.buffer.bytes", "socket.request.max.bytes",
    "replica.fetch.max.bytes", "group.initial.rebalance.delay.ms", "delegation.token.secret.key",
    "sasl.login.callback.handler.class", "sasl.server.callback.handler.class", "sasl.login.class",
    "ssl.allow.dn.changes", "ssl.allow.san.changes", "security.inter.broker.protocol",
})
# Read by the authorizer once at start-up: accepted dynamically as custom configs, then never used.
AUTHORIZER_STARTUP_CONFIGS = frozenset({"super.users", "allow.everyone.if.no.acl.found"})

# Kafka 4.0 defaults of the keys authz knows (KafkaConfig.defaultValues; keys without one are absent).
DEFAULTS: dict[str, str] = {
    "log.segment.bytes": "1073741824", "log.roll.hours": "168", "log.roll.jitter.hours": "0",
    "log.index.size.max.bytes": "10485760", "log.flush.interval.messages": "9223372036854775807",
    "log.flush.scheduler.interval.ms": "9223372036854775807", "log.retention.bytes": "-1",
    "log.retention.hours": "168", "message.max.bytes": "1048588", "log.index.interval.bytes": "4096",
    "log.cleaner.delete.retention.ms": "86400000", "log.cleaner.min.compaction.lag.ms": "0",
    "log.cleaner.max.compaction.lag.ms": "9223372036854775807", "log.segment.delete.delay.ms": "60000",
    "log.cleaner.min.cleanable.ratio": "0.5", "log.cleanup.policy": "delete",
    "unclean.leader.election.enable": "false", "min.insync.replicas": "1", "compression.type": "producer",
    "compression.gzip.level": "-1", "compression.lz4.level": "9", "compression.zstd.level": "3",
    "log.preallocate": "false", "log.message.timestamp.type": "CreateTime",
    "log.message.timestamp.before.max.ms": "9223372036854775807",
    "log.message.timestamp.after.max.ms": "3600000", "log.local.retention.ms": "-2",
    "log.local.retention.bytes": "-2", "log.cleaner.threads": "1", "log.cleaner.dedupe.buffer.size": "134217728",
    "log.cleaner.io.buffer.load.factor": "0.9", "log.cleaner.io.buffer.size": "524288",
    "log.cleaner.io.max.bytes.per.second": "1.7976931348623157E308", "log.cleaner.backoff.ms": "15000",
    "num.io.threads": "8", "num.replica.fetchers": "1", "num.recovery.threads.per.data.dir": "2",
    "background.threads": "10", "num.network.threads": "3", "max.connections.per.ip": "2147483647",
    "max.connections": "2147483647", "max.connection.creation.rate": "2147483647",
    "producer.id.expiration.ms": "86400000", "transaction.partition.verification.enable": "true",
    "metric.reporters": "org.apache.kafka.common.metrics.JmxReporter", "ssl.protocol": "TLSv1.3",
    "ssl.enabled.protocols": "TLSv1.2,TLSv1.3", "ssl.keystore.type": "JKS", "ssl.truststore.type": "JKS",
    "ssl.keymanager.algorithm": "SunX509", "ssl.trustmanager.algorithm": "PKIX",
    "ssl.endpoint.identification.algorithm": "https", "ssl.client.auth": "none",
    "ssl.principal.mapping.rules": "DEFAULT", "sasl.enabled.mechanisms": "GSSAPI",
    "sasl.mechanism.inter.broker.protocol": "GSSAPI", "sasl.kerberos.kinit.cmd": "/usr/bin/kinit",
    "sasl.kerberos.ticket.renew.window.factor": "0.8", "sasl.kerberos.ticket.renew.jitter": "0.05",
    "sasl.kerberos.min.time.before.relogin": "60000", "sasl.kerberos.principal.to.local.rules": "DEFAULT",
    "sasl.login.refresh.window.factor": "0.8", "sasl.login.refresh.window.jitter": "0.05",
    "sasl.login.refresh.min.period.seconds": "60", "sasl.login.refresh.buffer.seconds": "300",
    "principal.builder.class": "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
    "connections.max.reauth.ms": "0", "connections.max.idle.ms": "600000",
    "sasl.server.max.receive.size": "524288", "ssl.allow.dn.changes": "false", "ssl.allow.san.changes": "false",
    "listener.security.protocol.map": "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
    "listeners": "PLAINTEXT://:9092", "password.encoder.cipher.algorithm": "AES/CBC/PKCS5Padding",
    "password.encoder.key.length": "128", "password.encoder.iterations": "4096",
    "auto.create.topics.enable": "true", "num.partitions": "1", "default.replication.factor": "1",
    "delete.topic.enable": "true", "security.inter.broker.protocol": "PLAINTEXT",
}

SENSITIVE_CONFIGS = frozenset({
    "ssl.keystore.password", "ssl.key.password", "ssl.truststore.password", "ssl.keystore.key",
    "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "sasl.jaas.config",
    "password.encoder.secret", "password.encoder.old.secret", "delegation.token.secret.key",
    "delegation.token.master.key", "sasl.oauthbearer.client.credentials.client.secret"})

SOURCES = ("DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG", "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG")


def base_name(key: str) -> str:
    """``listener.name.<l>.[<mech>.]key`` -> ``key`` (mechanism configs keep their own name)."""
    m = _LISTENER_RE.fullmatch(key)
    if not m:
        return key
    rest = m.group(1)
    for mech in LISTENER_MECHANISM_CONFIGS:
        if rest.endswith(mech):
            return mech
    return rest


def is_listener_key(key: str) -> bool:
    return _LISTENER_RE.fullmatch(key) is not None


def is_sensitive(key: str) -> bool:
    base = base_name(key)
    return base in SENSITIVE_CONFIGS or base.endswith(".password") or "secret" in base


def broker_config_synonyms(name: str, match_listener_override: bool) -> list[str]:
    """``DynamicBrokerConfig.brokerConfigSynonyms``."""
    for synonyms in (("log.roll.ms", "log.roll.hours"), ("log.roll.jitter.ms", "log.roll.jitter.hours"),
                     ("log.retention.ms", "log.retention.minutes", "log.retention.hours")):
        if name in synonyms:
            return list(synonyms)
    if name == "log.flush.interval.ms":
        return ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"]
    m = _LISTENER_RE.fullmatch(name)
    if m and match_listener_override:
        base = m.group(1)
        mech = next((c for c in LISTENER_MECHANISM_CONFIGS if base.endswith(c)), None)
        return [name, mech or base]
    return [name]


def update_mode(key: str) -> str:
    """How ``key`` may be updated dynamically: per-broker, cluster-wide, per-listener only, or read-only."""
    if is_listener_key(key):
        base = base_name(key)
        return "cluster-wide" if base in CLUSTER_LEVEL_LISTENER_CONFIGS else "per-broker"
    if key in DYNAMIC_SECURITY_CONFIGS:
        return "per-listener only"
    if key in PER_BROKER_CONFIGS:
        return "per-broker"
    if key in ALL_DYNAMIC_CONFIGS:
        return "cluster-wide"
    if key in STATIC_ONLY_CONFIGS:
        return "read-only"
    if key in AUTHORIZER_STARTUP_CONFIGS:
        return "read-only (authorizer start-up)"
    return "custom"


def scala_set(names) -> str:
    return "Set(" + ", ".join(sorted(names)) + ")"


@dataclass(frozen=True)
class Located:
    value: str
    where: str  # "server.properties:12" or "dynamic.json (broker 0)"


@dataclass
class BrokerConfigSources:
    static: dict[str, Located] = field(default_factory=dict)
    dynamic_default: dict[str, Located] = field(default_factory=dict)
    dynamic_broker: dict[str, Located] = field(default_factory=dict)
    broker_id: str | None = None


@dataclass(frozen=True)
class Ignored:
    level: str  # "broker" | "default cluster"
    keys: tuple[str, ...]
    message: str  # the broker's log line
    alter_message: str  # what AlterConfigs / kafka-configs would answer


def validate_dynamic(props: dict[str, Located], per_broker: bool) -> tuple[dict[str, Located], list[Ignored]]:
    """``fromPersistentProps``: the dynamic entries the broker keeps, and what it drops (and says)."""
    kept = dict(props)
    out: list[Ignored] = []
    level = "broker" if per_broker else "default cluster"

    def drop(keys, log_message, alter_message):
        if keys:
            for k in keys:
                kept.pop(k, None)
            out.append(Ignored(level, tuple(sorted(keys)), f"{log_message}: {scala_set(keys)}",
                               f"{alter_message}: {scala_set(keys)}"))

    drop([k for k in kept if k in STATIC_ONLY_CONFIGS], "Non-dynamic configs will be ignored",
         "Cannot update these configs dynamically")
    drop([k for k in kept if k in DYNAMIC_SECURITY_CONFIGS],
         "Security configs can be dynamically updated only using listener prefix, base configs will be ignored",
         "These security configs can be dynamically updated only per-listener using the listener prefix")
    if not per_broker:
        drop([k for k in kept if k in PER_BROKER_CONFIGS or
              (is_listener_key(k) and base_name(k) not in CLUSTER_LEVEL_LISTENER_CONFIGS)],
             "Per-broker configs defined at default cluster level will be ignored",
             "Cannot update these configs at default cluster level, broker id must be specified")
    return kept, out


@dataclass(frozen=True)
class Synonym:
    name: str
    value: str | None  # None when sensitive
    source: str
    where: str | None


@dataclass(frozen=True)
class Resolved:
    key: str
    value: str | None  # None if sensitive or unset
    source: str | None  # None: not set anywhere and no default known
    name: str | None  # the property that supplied the value (a synonym or the base key)
    where: str | None
    sensitive: bool
    mode: str
    synonyms: tuple[Synonym, ...]
    millis: int | None = None  # for time synonyms: the value in milliseconds
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"key": self.key, "value": self.value, "source": self.source, "from": self.name,
                "where": self.where, "sensitive": self.sensitive, "update_mode": self.mode,
                "value_ms": self.millis,
                "synonyms": [{"name": s.name, "value": s.value, "source": s.source, "where": s.where}
                             for s in self.synonyms], "notes": list(self.notes)}


def _unit(name: str) -> int:
    for synonyms in TOPIC_CONFIG_SYNONYMS.values():
        for n, factor in synonyms:
            if n == name:
                return factor
    return 1


def resolve_key(key: str, sources: BrokerConfigSources) -> Resolved:
    """The effective value of ``key`` on this broker. A listener-prefixed key
    (``listener.name.<l>.[<mech>.]key``) resolves as that listener sees it, falling back to the base key."""
    names = broker_config_synonyms(key, True)
    sensitive = is_sensitive(key)
    levels = [("DYNAMIC_BROKER_CONFIG", sources.dynamic_broker), ("DYNAMIC_DEFAULT_BROKER_CONFIG",
                                                                    sources.dynamic_default),
              ("STATIC_BROKER_CONFIG", sources.static)]
    synonyms: list[Synonym] = []
    if is_listener_key(names[0]):
        # The broker reads listener configs with valuesWithPrefixOverride: the prefixed key, set at any
        # level, beats the base key.
        order = [(n, source, props) for n in names for source, props in levels]
    else:
        # overrideProps removes the synonyms of every key it overrides: the level decides first.
        order = [(n, source, props) for source, props in levels for n in names]
    for n, source, props in order:
        if n in props:
            synonyms.append(Synonym(n, None if sensitive else props[n].value, source, props[n].where))
    for n in names:
        if base_name(n) == n and n in DEFAULTS:
            synonyms.append(Synonym(n, None if sensitive else DEFAULTS[n], "DEFAULT_CONFIG", None))
    notes = []
    if base_name(key) in AUTHORIZER_STARTUP_CONFIGS and any(s.source.startswith("DYNAMIC") for s in synonyms):
        for s in synonyms:
            if s.source.startswith("DYNAMIC"):
                notes.append(f"{s.source} value ({s.where}) is stored as a custom config and never used: the "
                             "authorizer reads this key once at start-up")
        synonyms = [s for s in synonyms if not s.source.startswith("DYNAMIC")]
    if not synonyms:
        unknown = "" if key in DEFAULTS or key in ALL_DYNAMIC_CONFIGS or key in STATIC_ONLY_CONFIGS else \
            " (and authz does not know its default)"
        return Resolved(key, None, None, None, None, sensitive, update_mode(key), (), None,
                        (f"not set{unknown}",) + tuple(notes))
    top = synonyms[0]
    millis = None
    factor = _unit(top.name)
    if factor != 1 and top.value is not None:
        try:
            millis = int(top.value) * factor
        except ValueError:
            millis = None
    return Resolved(key, top.value, top.source, top.name, top.where, sensitive, update_mode(key), tuple(synonyms),
                    millis, tuple(notes))


LISTENER_SCOPED = LISTENER_CONFIGS | DYNAMIC_SECURITY_CONFIGS | frozenset(LISTENER_MECHANISM_CONFIGS) | {
    "ssl.principal.mapping.rules", "connections.max.reauth.ms"}


def scoped_key(key: str, listener: str | None) -> str:
    """``key`` as ``listener`` reads it (the prefixed name for listener-scoped configs)."""
    if listener is None or is_listener_key(key) or key not in LISTENER_SCOPED:
        return key
    return f"listener.name.{listener.lower()}.{key}"


def keys_to_resolve(sources: BrokerConfigSources, include_defaults: bool, listener: str | None = None,
                    extra=()) -> list[str]:
    """The keys to report: every key set anywhere (and every known default and ``extra`` key with
    ``include_defaults``); with ``listener``, the listener-scoped ones as that listener sees them (other
    listeners left out)."""
    keys: set[str] = set()
    for props in (sources.static, sources.dynamic_default, sources.dynamic_broker):
        keys.update(props)
    if include_defaults:
        keys |= set(DEFAULTS) | set(extra)
    if listener is not None:
        prefix = f"listener.name.{listener.lower()}."
        scoped = set()
        for k in keys:
            if is_listener_key(k):
                if k.startswith(prefix):
                    scoped.add(k)
            elif k in LISTENER_SCOPED:
                scoped.add(prefix + k)
            else:
                scoped.add(k)
        keys = scoped
    # a synonym family is reported once, under its primary name
    folded = set()
    for k in keys:
        family = broker_config_synonyms(k, False)
        folded.add(family[0] if len(family) > 1 and k in family else k)
    return sorted(folded)


def listeners_of(sources: BrokerConfigSources) -> list[str]:
    names = set()
    for props in (sources.static, sources.dynamic_default, sources.dynamic_broker):
        for k in props:
            m = re.fullmatch(r"listener\.name\.([^.]*)\..*", k, re.DOTALL)
            if m:
                names.add(m.group(1))
    return sorted(names)
