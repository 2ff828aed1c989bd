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
What a key is (its type, default, unit and update mode, in which Kafka versions) comes from the
registry (``definitions``: Kafka's own ConfigDefs and ``DynamicBrokerConfig``), for the Kafka version
asked for (the newest read by default). Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from kafka_authz_cli._java import ConfigException, NumberFormatException, check_range, parse_config_value, parse_number
from kafka_authz_cli.config.definitions import KafkaConfigs, kafka_configs, span, versions_defining

# Read by the authorizer once at start-up: accepted dynamically as custom configs, then never used.
# (Authorizer configs, not KafkaConfig's: the registry does not define them.)
AUTHORIZER_STARTUP_CONFIGS = frozenset({"super.users", "allow.everyone.if.no.acl.found"})

_LISTENER_RE = re.compile(r"listener\.name\.[^.]*\.(.*)", re.DOTALL)
#: Kafka's defaults and dynamic configs of the newest version read (tests compare against these).
DEFAULTS: dict[str, str] = kafka_configs().defaults()
ALL_DYNAMIC_CONFIGS = kafka_configs().all_dynamic


def _kafka(kafka: KafkaConfigs | None) -> KafkaConfigs:
    return kafka if kafka is not None else kafka_configs()


SOURCES = ("DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG", "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG")


def base_name(key: str, kafka: KafkaConfigs | None = None) -> str:
    """``listener.name.<l>.[<mech>.]key`` -> ``key`` (mechanism configs keep their own name)."""
    m = _LISTENER_RE.fullmatch(key)
    if not m:
        return key
    rest = m.group(1)
    for mech in _kafka(kafka).listener_mechanism:
        if rest.endswith(mech):
            return mech
    return rest


def is_listener_key(key: str) -> bool:
    return _LISTENER_RE.fullmatch(key) is not None


def is_sensitive(key: str, kafka: KafkaConfigs | None = None) -> bool:
    """A PASSWORD config (in any Kafka version read: DescribeConfigs never shows those), or a key
    Kafka does not define whose name says it holds a secret."""
    base = base_name(key, kafka)
    if base in password_configs():
        return True
    return base not in _kafka(kafka).broker and (base.endswith(".password") or "secret" in base)


def password_configs() -> frozenset[str]:
    return _password_configs()


@cache
def _password_configs() -> frozenset[str]:
    from kafka_authz_cli.config.definitions import kafka_versions

    return frozenset(n for v in kafka_versions() for n, d in kafka_configs(v).broker.items() if d.type == "PASSWORD")


def broker_config_synonyms(name: str, match_listener_override: bool, kafka: KafkaConfigs | None = None) -> list[str]:
    """``DynamicBrokerConfig.brokerConfigSynonyms``."""
    k = _kafka(kafka)
    family = k.family(name)
    if len(family) > 1:
        return list(family)
    m = _LISTENER_RE.fullmatch(name)
    if m and match_listener_override:
        base = m.group(1)
        mech = next((c for c in k.listener_mechanism if base.endswith(c)), None)
        return [name, mech or base]
    return [name]


def update_mode(key: str, kafka: KafkaConfigs | None = None) -> str:
    """How ``key`` may be updated dynamically (DynamicBrokerConfig): per-broker, cluster-wide,
    per-listener only, read-only, or custom (a key this Kafka version does not define)."""
    k = _kafka(kafka)
    if is_listener_key(key):
        # perBrokerConfigs: a listener-prefixed key is per-broker unless its base is a cluster-level one
        return "cluster-wide" if base_name(key, k) in k.cluster_level_listener else "per-broker"
    if key in k.dynamic_security:
        return "per-listener only"
    d = k.broker.get(key)
    if d is not None and d.mode is not None:
        return d.mode
    if key in AUTHORIZER_STARTUP_CONFIGS:
        return "read-only (authorizer start-up)"
    return "custom"


def other_versions(key: str, kafka: KafkaConfigs | None = None) -> str | None:
    """For a key this version does not define: the Kafka versions that do, as a note."""
    k = _kafka(kafka)
    if key in k.broker or is_listener_key(key):
        return None
    found = versions_defining(key)
    if not found:
        topic = k.topic.get(key)
        if topic is not None:  # retention.ms given where a broker key is meant
            fallback = f": its broker default is {topic.synonyms[0][0]}" if topic.synonyms else ""
            return f"a topic config of Kafka {k.version} (LogConfig), not a broker config{fallback}"
        return None
    return f"not a broker config of Kafka {k.version}: defined in Kafka {span(found)}"


def scala_set(names, kafka: KafkaConfigs | None = None) -> str:
    """How DynamicBrokerConfig prints a set of names: Scala's ``Set(a, b)``, or ``[a, b]`` once it is Java."""
    items = ", ".join(sorted(names))
    return f"[{items}]" if _kafka(kafka).java_sets else f"Set({items})"


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


def validate_dynamic(props: dict[str, Located], per_broker: bool,
                     kafka: KafkaConfigs | None = None) -> tuple[dict[str, Located], list[Ignored]]:
    """``fromPersistentProps``: the dynamic entries the broker keeps, and what it drops (and says).
    Non-dynamic: every key the version's KafkaConfig defines that DynamicConfig.Broker does not
    (``DynamicConfig.Broker.nonDynamicProps``); keys Kafka does not define are kept as custom configs."""
    k = _kafka(kafka)
    kept = dict(props)
    out: list[Ignored] = []
    level = "broker" if per_broker else "default cluster"

    def drop(keys, log_message, alter_message):
        if keys:
            for key in keys:
                kept.pop(key, None)
            out.append(Ignored(level, tuple(sorted(keys)), f"{log_message}: {scala_set(keys, k)}",
                               f"{alter_message}: {scala_set(keys, k)}"))

    drop([key for key in kept if key in k.read_only], "Non-dynamic configs will be ignored",
         "Cannot update these configs dynamically")
    drop([key for key in kept if key in k.dynamic_security],
         "Security configs can be dynamically updated only using listener prefix, base configs will be ignored",
         "These security configs can be dynamically updated only per-listener using the listener prefix")
    if not per_broker:
        drop([key for key in kept if key in k.per_broker or
              (is_listener_key(key) and base_name(key, k) not in k.cluster_level_listener)],
             "Per-broker configs defined at default cluster level will be ignored",
             "Cannot update these configs at default cluster level, broker id must be specified")
    return kept, out


@dataclass(frozen=True)
class Refused:
    """A server.properties value Kafka refuses: KafkaConfig's constructor throws, the broker does not start."""

    key: str
    where: str
    message: str  # ConfigException's toString


def refused_static(static: dict[str, Located], kafka: KafkaConfigs | None = None) -> list[Refused]:
    """The static values ``ConfigDef.parse`` refuses (every key KafkaConfig defines is parsed at start-up,
    shadowed or not): a number, short or boolean that does not parse as its type, a number outside the
    key's Range. Values with a config provider reference (``${...}``) are resolved first by Kafka: not checked."""
    k = _kafka(kafka)
    out = []
    for key, loc in static.items():
        d = k.broker.get(key)
        if d is None or d.dynamic_only or d.type not in ("INT", "SHORT", "LONG", "DOUBLE", "BOOLEAN") \
                or "${" in loc.value:
            continue
        try:
            value = parse_config_value(key, loc.value, d.type)
            if d.type != "BOOLEAN":
                check_range(key, value, d.validator)
        except ConfigException as exc:
            out.append(Refused(key, loc.where, exc.to_string()))
    return out


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
    from_value: str | None = None  # the text of the property that supplied the value (``value`` may be in ms)

    def as_dict(self) -> dict:
        return {"key": self.key, "value": self.value, "source": self.source, "from": self.name,
                "from_value": self.from_value, "where": self.where, "sensitive": self.sensitive,
                "update_mode": self.mode, "value_ms": self.millis,
                "synonyms": [{"name": s.name, "value": s.value, "source": s.source, "where": s.where}
                             for s in self.synonyms], "notes": list(self.notes)}


#: KafkaConfig.logRetentionTimeMillis: a negative retention (in any unit) is -1, no time limit.
_CLAMPED_TO_MINUS_ONE = "log.retention.ms"


def _millis(top: Synonym, family: tuple[str, ...], k: KafkaConfigs) -> tuple[int | None, str | None]:
    """The value of a time synonym family in milliseconds, as KafkaConfig computes it from ``top``
    (ConfigDef reads the text as its type: String.trim, then Integer/Long.parseLong), or why not."""
    if top.value is None:
        return None, None
    d = k.broker.get(top.name)
    try:
        number = parse_number(top.value, d.type if d is not None else "LONG")
    except NumberFormatException:
        kind = d.type if d is not None else "LONG"
        return None, (f"Kafka refuses to start: ConfigException: Invalid value {top.value} for configuration "
                      f"{top.name}: Not a number of type {kind}")
    millis = int(number) * k.unit(top.name)
    if family[0] == _CLAMPED_TO_MINUS_ONE and millis < 0:
        millis = -1
    return millis, None


def _notes(key: str, synonyms: list[Synonym], k: KafkaConfigs) -> tuple[list[Synonym], list[str]]:
    notes = []
    if base_name(key, k) in AUTHORIZER_STARTUP_CONFIGS and any(s.source.startswith("DYNAMIC") for s in synonyms):
        for s in synonyms:
            if s.source.startswith("DYNAMIC"):
                notes.append(f"{s.source} value ({s.where}) is stored as a custom config and never used: the "
                             "authorizer reads this key once at start-up")
        synonyms = [s for s in synonyms if not s.source.startswith("DYNAMIC")]
    d = k.broker.get(key)
    if d is not None and d.dynamic_only and any(s.source == "STATIC_BROKER_CONFIG" for s in synonyms):
        # kafka.server.BrokerConfigHandler reads the replication throttles from the dynamic configs only.
        notes.append("a dynamic-only config (DynamicConfig.Broker): the broker never reads it from server.properties")
        synonyms = [s for s in synonyms if s.source != "STATIC_BROKER_CONFIG"]
    other = other_versions(key, k)
    if other:
        notes.append(other)
    return synonyms, notes


def resolve_key(key: str, sources: BrokerConfigSources, kafka: KafkaConfigs | None = None) -> Resolved:
    """The effective value of ``key`` on this broker. A listener-prefixed key
    (``listener.name.<l>.[<mech>.]key``) resolves as that listener sees it, falling back to the base key.
    A time key supplied by a synonym in another unit (``log.retention.ms`` from ``log.retention.hours``)
    has its value in its own unit, milliseconds, as KafkaConfig computes it."""
    k = _kafka(kafka)
    names = broker_config_synonyms(key, True, k)
    sensitive = is_sensitive(key, k)
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
    defaults = k.defaults()
    for n in names:
        if base_name(n, k) == n and n in defaults:
            synonyms.append(Synonym(n, None if sensitive else defaults[n], "DEFAULT_CONFIG", None))
    synonyms, notes = _notes(key, synonyms, k)
    mode = update_mode(key, k)
    if not synonyms:
        d = k.broker.get(base_name(key, k))
        why = "not set"
        if d is None and mode == "custom":
            why = f"not set (not a config of Kafka {k.version})"
        elif d is not None and not d.has_default:
            why = "not set (no default: Kafka requires it)"
        return Resolved(key, None, None, None, None, sensitive, mode, (), None, (why,) + tuple(notes))
    top = synonyms[0]
    value, millis = top.value, None
    family = k.family(names[0]) if len(names) > 1 and not is_listener_key(names[0]) else ()
    if family and family[0].endswith(".ms"):
        millis, problem = _millis(top, family, k)
        if problem:
            notes.append(problem)
        elif k.unit(top.name) != k.unit(key) and k.unit(key) == 1:
            value = str(millis)  # log.retention.ms from log.retention.hours=168: 604800000
            notes.append(f"{millis} ms from {top.name}={top.value}")
    return Resolved(key, value, top.source, top.name, top.where, sensitive, mode, tuple(synonyms), millis,
                    tuple(notes), top.value)


def listener_scoped(kafka: KafkaConfigs | None = None) -> frozenset[str]:
    """Keys a listener reads with its own prefix: DynamicListenerConfig's, the SSL store configs, the
    mechanism configs, and the two the channel builders read per listener."""
    k = _kafka(kafka)
    return k.listener_reconfigurable | k.dynamic_security | frozenset(k.listener_mechanism) | {
        "ssl.principal.mapping.rules", "connections.max.reauth.ms"}


def scoped_key(key: str, listener: str | None, kafka: KafkaConfigs | None = None) -> str:
    """``key`` as ``listener`` reads it (the prefixed name for listener-scoped configs)."""
    if listener is None or is_listener_key(key) or key not in listener_scoped(kafka):
        return key
    return f"listener.name.{listener.lower()}.{key}"


def keys_to_resolve(sources: BrokerConfigSources, include_defaults: bool, listener: str | None = None,
                    extra=(), kafka: KafkaConfigs | None = None) -> list[str]:
    """The keys to report: every key set anywhere (and every known default and ``extra`` key with
    ``include_defaults``); with ``listener``, the listener-scoped ones as that listener sees them (other
    listeners left out)."""
    keys: set[str] = set()
    for props in (sources.static, sources.dynamic_default, sources.dynamic_broker):
        keys.update(props)
    k = _kafka(kafka)
    if include_defaults:
        keys |= set(k.defaults()) | set(extra)
    scoped_keys = listener_scoped(k)
    if listener is not None:
        prefix = f"listener.name.{listener.lower()}."
        scoped = set()
        for key in keys:
            if is_listener_key(key):
                if key.startswith(prefix):
                    scoped.add(key)
            elif key in scoped_keys:
                scoped.add(prefix + key)
            else:
                scoped.add(key)
        keys = scoped
    # a synonym family is reported once, under its primary name
    folded = set()
    for key in keys:
        family = broker_config_synonyms(key, False, k)
        folded.add(family[0] if len(family) > 1 and key in family else key)
    return sorted(folded)


def listeners_of(sources: BrokerConfigSources) -> list[str]:
    names = set()
    for props in (sources.static, sources.dynamic_default, sources.dynamic_broker):
        for k in props:
            m = re.fullmatch(r"listener\.name\.([^.]*)\..*", k, re.DOTALL)
            if m:
                names.add(m.group(1))
    return sorted(names)
